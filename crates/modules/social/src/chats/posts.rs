//! Writing: posting, editing, deleting and reacting to messages, and read marks.

use super::*;

impl Chats {
    /// Posts a message of `profile` in `chat` (with files already uploaded, by id; with files the
    /// text may be left out).
    pub async fn post(
        &self,
        subject: Uuid,
        profile: Uuid,
        chat: Uuid,
        body: &NewMessage,
    ) -> Result<ChatMessage> {
        let me = self.member(subject, profile, chat).await?;
        let files = ids(&body.file_ids, "fileIds", MAX_FILES)?;
        // Files may go without words.
        let wordless = body
            .description
            .as_deref()
            .is_none_or(|t| t.trim().is_empty());
        let text = if wordless && !files.is_empty() {
            String::new()
        } else {
            message_text(body.description.as_deref())?
        };
        let spent = self.attachable(profile, &files).await?;
        self.rate.check(&subject.to_string()).await?;
        let members = self.store.entity(MEMBERS)?;
        let file_e = self.store.entity(FILES)?;
        let own_e = self.store.entity(OWN_FILES)?;
        let member_id = me.id;
        let position = position_now();
        let mut tx = self.store.begin().await?;
        let link = {
            let mut exec = tx.exec();
            let (id, link) = self
                .message_in(&mut exec, chat, profile, &text, position)
                .await?;
            for l in &spent {
                repo::delete(&mut exec, &own_e, *l).await?;
            }
            for (i, f) in files.iter().enumerate() {
                self.store
                    .create_in(
                        &mut exec,
                        &file_e,
                        &obj(
                            json!({"messageId": id, "fileStorageModuleFileId": f, "orderIndex": i}),
                        ),
                    )
                    .await?;
            }
            // Writing a message reads the chat up to it.
            let idx = members
                .field_index("lastRead")
                .ok_or_else(|| Error::internal("profiles-to-chats.lastRead is not declared"))?;
            repo::update_if(
                &mut exec,
                &members,
                member_id,
                &[(idx, Val::Int(position))],
                &[],
            )
            .await?;
            link
        };
        tx.commit().await?;
        let view = self.announce(chat, link).await?;
        // The chat's AI members answer from the queue; the message stands whatever they do.
        if let Some(id) = view.row["id"]
            .as_str()
            .and_then(|s| Uuid::parse_str(s).ok())
            && let Err(e) = self.call_assistants(chat, profile, id, &text).await
        {
            tracing::warn!(%chat, error = %e, "the chat's assistants were not asked to answer");
        }
        Ok(view)
    }

    /// Tells `chat`'s members of its new message (`link`): the message's view.
    pub(super) async fn announce(&self, chat: Uuid, link: LinkRow) -> Result<ChatMessage> {
        let view = self.message(link).await?;
        self.tell(
            chat,
            "chat.message",
            json!({"chatId": chat, "message": view}),
        )
        .await;
        Ok(view)
    }

    /// Writes `profile`'s message `text` into `chat` at `position` on `exec`: the message, its
    /// place in the chat and its author. Its id and its chats-to-messages link.
    pub(super) async fn message_in(
        &self,
        exec: &mut stoa_store::Exec<'_>,
        chat: Uuid,
        profile: Uuid,
        text: &str,
        position: i64,
    ) -> Result<(Uuid, LinkRow)> {
        let row = self
            .store
            .create_in(
                exec,
                &*self.store.entity(MESSAGE)?,
                &obj(json!({"description": text})),
            )
            .await?;
        let id = Record::must_id(&row)?;
        let link = self
            .store
            .create_in(
                exec,
                &*self.store.entity(IN_CHAT)?,
                &obj(json!({"chatId": chat, "messageId": id, "orderIndex": position})),
            )
            .await?;
        self.store
            .create_in(
                exec,
                &*self.store.entity(AUTHOR)?,
                &obj(json!({"profileId": profile, "messageId": id, "isRead": true})),
            )
            .await?;
        Ok((id, LinkRow::of(&link)?))
    }

    /// The message `message` of `chat`, which `profile` must have written.
    pub(super) async fn own(&self, profile: Uuid, chat: Uuid, message: Uuid) -> Result<LinkRow> {
        let link = self.link_of(chat, message).await?;
        if self.author(message).await? != Some(profile) {
            return Err(Error::Forbidden(
                "only the author may change or delete a message".into(),
            ));
        }
        Ok(link)
    }

    /// Changes the text of an own message.
    pub async fn edit(
        &self,
        subject: Uuid,
        profile: Uuid,
        chat: Uuid,
        message: Uuid,
        body: &MessageText,
    ) -> Result<ChatMessage> {
        self.member(subject, profile, chat).await?;
        let text = message_text(Some(&body.description))?;
        let link = self.own(profile, chat, message).await?;
        self.rate.check(&subject.to_string()).await?;
        let edited = time::OffsetDateTime::now_utc()
            .format(&time::format_description::well_known::Rfc3339)
            .map_err(|e| Error::internal(e.to_string()))?;
        self.rewrite(
            chat,
            link,
            message,
            json!({"description": text, "editedAt": edited}),
        )
        .await
    }

    /// Writes `fields` into `message` (of `chat`'s link `link`) and tells the members: the view.
    pub(super) async fn rewrite(
        &self,
        chat: Uuid,
        link: LinkRow,
        message: Uuid,
        fields: Value,
    ) -> Result<ChatMessage> {
        self.store
            .update(&*self.store.entity(MESSAGE)?, message, &obj(fields))
            .await?;
        let view = self.message(link).await?;
        self.tell(
            chat,
            "chat.message.edited",
            json!({"chatId": chat, "message": view}),
        )
        .await;
        Ok(view)
    }

    /// Deletes an own message (its links, reactions and file links go with it).
    pub async fn delete(
        &self,
        subject: Uuid,
        profile: Uuid,
        chat: Uuid,
        message: Uuid,
    ) -> Result<Deleted> {
        self.member(subject, profile, chat).await?;
        self.own(profile, chat, message).await?;
        let e = self.store.entity(MESSAGE)?;
        self.store.delete(&e, message).await?;
        self.tell(
            chat,
            "chat.message.deleted",
            json!({"chatId": chat, "messageId": message}),
        )
        .await;
        Ok(Deleted {
            ok: true,
            id: message,
        })
    }

    /// Adds `emoji` of `profile` to `message`, or takes it back when it is there.
    pub async fn react(
        &self,
        subject: Uuid,
        profile: Uuid,
        chat: Uuid,
        message: Uuid,
        body: &Reaction,
    ) -> Result<ChatMessage> {
        self.member(subject, profile, chat).await?;
        let emoji = emoji(&body.emoji)?;
        let link = self.link_of(chat, message).await?;
        self.rate.check(&subject.to_string()).await?;
        let e = self.store.entity(REACTION)?;
        let mine: Vec<ReactionRow> = typed(
            &self
                .store
                .find_by(
                    &e,
                    &[
                        ("messageId", Val::Uuid(message)),
                        ("profileId", Val::Uuid(profile)),
                    ],
                    MAX_REACTIONS as u64 + 1,
                )
                .await?,
        )?;
        match mine
            .iter()
            .find(|r| r.emoji.as_deref() == Some(emoji.as_str()))
        {
            Some(r) => {
                self.store.delete(&e, r.id).await?;
            }
            None => {
                if mine.len() >= MAX_REACTIONS {
                    return Err(Error::invalid_field(
                        "emoji",
                        format!("at most {MAX_REACTIONS} reactions per message"),
                    ));
                }
                self.store
                    .create(
                        &e,
                        &obj(json!({"messageId": message, "profileId": profile, "emoji": emoji})),
                    )
                    .await?;
            }
        }
        let view = self.message(link).await?;
        self.tell(
            chat,
            "chat.reaction",
            json!({"chatId": chat, "messageId": message, "reactions": view.more.reactions}),
        )
        .await;
        Ok(view)
    }

    /// Marks `chat` read by `profile` up to `messageId` (or up to its newest message). A read mark
    /// only moves forward.
    pub async fn read(
        &self,
        subject: Uuid,
        profile: Uuid,
        chat: Uuid,
        body: &ReadUpTo,
    ) -> Result<ReadMark> {
        let me = self.member(subject, profile, chat).await?;
        let to = match body.message_id {
            Some(m) => self.link_of(chat, m).await?.order_index.unwrap_or(0),
            None => self
                .last_link(chat)
                .await?
                .and_then(|l| l.order_index)
                .unwrap_or(0),
        };
        let was = me.last_read.unwrap_or(0);
        if to > was {
            let members = self.store.entity(MEMBERS)?;
            let idx = members
                .field_index("lastRead")
                .ok_or_else(|| Error::internal("profiles-to-chats.lastRead is not declared"))?;
            let id = me.id;
            // Only forward, even against a concurrent mark: the old value is the condition.
            let mut tx = self.store.begin().await?;
            repo::update_if(
                &mut tx.exec(),
                &members,
                id,
                &[(idx, Val::Int(to))],
                &[(idx, Val::Int(was))],
            )
            .await?;
            tx.commit().await?;
            self.tell(
                chat,
                "chat.read",
                json!({"chatId": chat, "profileId": profile, "lastRead": to}),
            )
            .await;
        }
        let last_read = to.max(was);
        Ok(ReadMark {
            chat_id: chat,
            last_read,
            unread: self.unread_in(chat, last_read).await?,
        })
    }
}

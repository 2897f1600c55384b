//! A chat's messages as members read them: pages after a position, authors, files and reactions.

use super::*;

impl Chats {
    /// Message views (author, position, reactions, files) for chats-to-messages `links`, in the
    /// links' order.
    pub(super) async fn messages_of(&self, links: &[LinkRow]) -> Result<Vec<ChatMessage>> {
        let ids: Vec<Uuid> = links.iter().filter_map(|l| l.message_id).collect();
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let parts = self.message_parts(&ids).await?;
        Ok(links.iter().filter_map(|link| parts.view(link)).collect())
    }

    /// The rows the views of messages `ids` are made of: messages, authors, reactions, files.
    async fn message_parts(&self, ids: &[Uuid]) -> Result<MessageParts> {
        let vals: Vec<Val> = ids.iter().copied().map(Val::Uuid).collect();
        let rows = self
            .store
            .find_in(&*self.store.entity(MESSAGE)?, "id", &vals, ids.len())
            .await?;
        let authors: Vec<AuthorRow> = typed(
            &self
                .store
                .find_in(
                    &*self.store.entity(AUTHOR)?,
                    "messageId",
                    &vals,
                    ids.len() * 2,
                )
                .await?,
        )?;
        let reactions: Vec<ReactionRow> = typed(
            &self
                .store
                .find_in(
                    &*self.store.entity(REACTION)?,
                    "messageId",
                    &vals,
                    ids.len() * MAX_MEMBERS * 4,
                )
                .await?,
        )?;
        let files: Vec<AttachmentRow> = typed(
            &self
                .store
                .find_in(
                    &*self.store.entity(FILES)?,
                    "messageId",
                    &vals,
                    ids.len() * MAX_FILES,
                )
                .await?,
        )?;
        let file_rows = self.attached_files(&files).await?;
        Ok(MessageParts {
            rows,
            authors,
            reactions,
            files,
            file_rows,
        })
    }

    /// The file-storage rows of messages-to-files links `files`.
    async fn attached_files(&self, files: &[AttachmentRow]) -> Result<Vec<Record>> {
        let file_ids: Vec<Val> = files
            .iter()
            .filter_map(|f| f.file_id.map(Val::Uuid))
            .collect();
        if file_ids.is_empty() {
            return Ok(Vec::new());
        }
        // Attachments are hidden files: members read them here, nobody lists them.
        let e = self.store.entity(FILE)?;
        let found = self.store.find_in(&e, "id", &file_ids, file_ids.len());
        stoa_store::publish::with_drafts(found).await
    }

    /// The view of the message of chats-to-messages `link` (404 when it was deleted meanwhile).
    pub(super) async fn message(&self, link: LinkRow) -> Result<ChatMessage> {
        self.messages_of(&[link])
            .await?
            .pop()
            .ok_or_else(|| Error::not_found("the message was deleted meanwhile"))
    }

    /// A page of `chat`'s history, oldest first: the newest `limit` messages, or those before the
    /// message `before`.
    pub async fn messages(
        &self,
        subject: Uuid,
        profile: Uuid,
        chat: Uuid,
        before: Option<Uuid>,
        after: Option<i64>,
        limit: u64,
    ) -> Result<Vec<ChatMessage>> {
        self.member(subject, profile, chat).await?;
        let e = self.store.entity(IN_CHAT)?;
        let limit = limit.clamp(1, MAX_PAGE);
        if let Some(after) = after {
            let links = self.links_after(chat, after, limit).await?;
            return self.messages_of(&links).await;
        }
        let mut q = FindQuery::all().eq(&e, "chatId", Val::Uuid(chat))?;
        let mut skip: Option<(i64, Uuid)> = None;
        if let Some(b) = before {
            let at = self.link_of(chat, b).await?;
            let pos = at.order_index.unwrap_or(0);
            q = q.filter(&e, "orderIndex", Op::Lte, FilterValue::One(Val::Int(pos)))?;
            skip = Some((pos, b));
        }
        // Messages sharing a position (same microsecond) are told apart by id.
        let q = q
            .sort(&e, "orderIndex", true)?
            .sort(&e, "messageId", true)?
            .take(limit + 16);
        let mut links: Vec<LinkRow> = typed(&self.store.find(&e, &q).await?.rows)?;
        if let Some((pos, b)) = skip {
            links.retain(|l| {
                l.order_index != Some(pos) || l.message_id.is_some_and(|m| m < b && m != b)
            });
        }
        links.truncate(limit as usize);
        links.reverse();
        self.messages_of(&links).await
    }

    /// The chats-to-messages link of `message` in `chat` (404 when the message is not in it).
    pub(super) async fn link_of(&self, chat: Uuid, message: Uuid) -> Result<LinkRow> {
        let link = self
            .first(
                IN_CHAT,
                &[
                    ("chatId", Val::Uuid(chat)),
                    ("messageId", Val::Uuid(message)),
                ],
            )
            .await?
            .ok_or_else(|| Error::not_found("no such message in this chat"))?;
        LinkRow::of(&link)
    }

    /// The author profile of `message`.
    pub(super) async fn author(&self, message: Uuid) -> Result<Option<Uuid>> {
        let author = self
            .first(AUTHOR, &[("messageId", Val::Uuid(message))])
            .await?;
        Ok(author
            .as_ref()
            .map(AuthorRow::of)
            .transpose()?
            .and_then(|a| a.profile_id))
    }
}

/// The rows some messages' views are made of, read together.
struct MessageParts {
    /// The messages, as they are answered.
    rows: Vec<Record>,
    authors: Vec<AuthorRow>,
    reactions: Vec<ReactionRow>,
    files: Vec<AttachmentRow>,
    /// File storage's rows of the attached files.
    file_rows: Vec<Record>,
}

impl MessageParts {
    /// The view of the message of chats-to-messages `link` (`None` when its rows are missing).
    fn view(&self, link: &LinkRow) -> Option<ChatMessage> {
        let id = link.message_id?;
        let row = self.rows.iter().find(|r| r.id() == Some(id))?;
        let chat_id = link.chat_id?;
        let profile_id = self
            .authors
            .iter()
            .find(|a| a.message_id == Some(id))
            .and_then(|a| a.profile_id);
        Some(Extended::new(
            row.to_json(),
            InChat {
                chat_id,
                position: link.order_index.unwrap_or(0),
                profile_id,
                reactions: self.reactions_on(id),
                files: self.files_of(id),
            },
        ))
    }

    /// The reactions on message `id`: each emoji with who left it, in first-left order.
    fn reactions_on(&self, id: Uuid) -> Vec<ReactionCount> {
        let mut counts: Vec<(String, Vec<Uuid>)> = Vec::new();
        for r in self.reactions.iter().filter(|r| r.message_id == Some(id)) {
            let (Some(e), Some(p)) = (r.emoji.as_deref(), r.profile_id) else {
                continue;
            };
            match counts.iter_mut().find(|(k, _)| k == e) {
                Some((_, ps)) => ps.push(p),
                None => counts.push((e.to_owned(), vec![p])),
            }
        }
        counts
            .into_iter()
            .map(|(emoji, profile_ids)| ReactionCount {
                emoji,
                count: profile_ids.len(),
                profile_ids,
            })
            .collect()
    }

    /// The files attached to message `id`.
    fn files_of(&self, id: Uuid) -> Vec<MessageFile> {
        self.files
            .iter()
            .filter(|f| f.message_id == Some(id))
            .filter_map(|f| {
                let fid = f.file_id?;
                let r = self.file_rows.iter().find(|r| r.id() == Some(fid))?;
                let r = stoa_file_storage::rows::FileRow::of(r).ok()?;
                Some(MessageFile {
                    id: fid,
                    file: r.file,
                    mime_type: r.mime_type,
                    size: r.size,
                    admin_title: r.admin_title,
                })
            })
            .collect()
    }
}

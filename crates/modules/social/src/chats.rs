//! Chats between profiles: membership, messages (post, edit and delete one's own), reactions,
//! read marks and unread counts, each change pushed live to the chat's members.
//!
//! A subject acts through a profile it owns (`/api/rbac/subjects/{id}/social-module/profiles/
//! {profileId}/…`); every chat route checks that the profile is a member of the chat, so a
//! non-member is told the chat does not exist. Messages of a chat are ordered by a per-chat
//! position kept in the chats-to-messages link (`orderIndex`, microseconds), so a page of history
//! is one index range read, whatever the chat's size. A member's read mark is the position of the
//! last message it has read (`lastRead` on profiles-to-chats): unread is what lies after it.

pub mod ai;
mod messages;
mod posts;
mod profiles;
mod uploads;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};
use stoa_api::body::FilePart;
use stoa_api::files::Uploads;
use stoa_api::live::{Audience, Hub};
use stoa_api::rate::Budget;
use stoa_kernel::query::{FilterValue, FindQuery, Op};
use stoa_kernel::value::{Val, now};
use stoa_kernel::{Error, Result};
use stoa_store::cluster::Shared;
use stoa_store::{Record, Store, repo};
use uuid::Uuid;

use crate::rows::{
    AssistantRow, AttachmentRow, AuthorRow, ChatRow, LinkRow, MemberRow, OwnFileRow, ProfileRow,
    ReactionRow, typed,
};
use crate::views::{
    AiState, ChatMember, ChatMessage, ChatState, ChatView, Deleted, IdRef, InChat, MessageFile,
    MessageText, NewChat, NewMessage, NewProfile, ProfileCard, Reaction, ReactionCount, ReadMark,
    ReadUpTo, Unread,
};
use stoa_api::endpoint::{Extended, Row};

/// Longest message, in characters.
pub const MAX_MESSAGE: usize = 4000;
/// Most messages one page of history holds.
pub const MAX_PAGE: u64 = 100;
/// Most chats a profile's list shows (newest activity first).
pub const MAX_CHATS: usize = 200;
/// Most members a chat may have.
pub const MAX_MEMBERS: usize = 50;
/// Unread counts stop here ("99+").
pub const UNREAD_CAP: u64 = 100;
/// Most files one message carries.
pub const MAX_FILES: usize = 10;
/// Attachments one account may upload per hour (each up to `STOA_UPLOAD_LIMIT` bytes); uploads
/// never sent are deleted a day later (`social.attachments.sweep`).
pub const UPLOADS_PER_HOUR: u32 = 60;
/// Upload links one sweep looks at (the rest wait for the next run).
const SWEEP_BATCH: usize = 5_000;
/// Profiles one account may own.
pub const MAX_OWN_PROFILES: usize = 5;
/// Distinct reactions one profile may leave on a message.
const MAX_REACTIONS: usize = 20;

pub struct Chats {
    store: Store,
    /// Which subject owns which profile (the link social owns).
    owners: crate::owners::Owners,
    hub: Arc<Hub>,
    /// File storage, which keeps attachments (none when the module is not installed).
    uploads: Option<Arc<dyn Uploads>>,
    /// Messages (posts, edits, reactions) one subject may send per minute (counted by every
    /// instance together on PostgreSQL).
    rate: Budget,
    /// Attachments one subject may upload per hour.
    uploads_rate: Budget,
    /// The chat-completions service AI profiles answer through (`None`: they stay silent).
    ai: Option<ai::AiService>,
    /// Answers one AI profile may start per minute.
    ai_rate: Budget,
}

/// Entity keys.
const CHAT: &str = "social.chat";
const MESSAGE: &str = "social.message";
const PROFILE: &str = "social.profile";
const MEMBERS: &str = "social.profiles-to-chats";
const IN_CHAT: &str = "social.chats-to-messages";
const AUTHOR: &str = "social.profiles-to-messages";
const REACTION: &str = "social.reaction";
const FILES: &str = "social.messages-to-file-storage-module-files";
/// A profile's uploads (and other files an admin gave it).
const OWN_FILES: &str = "social.profiles-to-file-storage-module-files";
const FILE: &str = "file-storage.file";
/// The link field naming the file.
const FILE_ID: &str = "fileStorageModuleFileId";

fn obj(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

fn not_found() -> Error {
    Error::not_found("no such chat among this profile's chats")
}

/// The text of a message: trimmed, 1 to [`MAX_MESSAGE`] characters.
fn message_text(text: Option<&str>) -> Result<String> {
    let text = text.map(str::trim).unwrap_or_default();
    if text.is_empty() {
        return Err(Error::invalid_field(
            "description",
            "write a message of at least 1 character",
        ));
    }
    if text.chars().count() > MAX_MESSAGE {
        return Err(Error::invalid_field(
            "description",
            format!("a message may hold at most {MAX_MESSAGE} characters"),
        ));
    }
    if text.contains('\0') {
        return Err(Error::invalid_field(
            "description",
            "a message cannot contain NUL characters",
        ));
    }
    Ok(text.to_owned())
}

/// A reaction: one emoji (or a short word), 1 to 16 characters, no spaces.
fn emoji(e: &str) -> Result<String> {
    let e = e.trim();
    if e.is_empty() || e.chars().count() > 16 || e.chars().any(char::is_whitespace) {
        return Err(Error::invalid_field(
            "emoji",
            "send one emoji (1 to 16 characters, no spaces)",
        ));
    }
    Ok(e.to_owned())
}

/// The ids of the list `name`, each once, at most `cap`.
fn ids(list: &[IdRef], name: &str, cap: usize) -> Result<Vec<Uuid>> {
    if list.len() > cap {
        return Err(Error::invalid_field(
            name,
            format!("at most {cap} may be given"),
        ));
    }
    let mut out = Vec::new();
    for id in list.iter().map(|i| i.id()) {
        if !out.contains(&id) {
            out.push(id);
        }
    }
    Ok(out)
}

/// The position of a new message: now in microseconds (a chat's positions only grow).
fn position_now() -> i64 {
    let t = now();
    t.unix_timestamp() * 1_000_000 + i64::from(t.microsecond())
}

impl Chats {
    pub fn new(
        store: Store,
        hub: Arc<Hub>,
        uploads: Option<Arc<dyn Uploads>>,
        per_minute: u32,
        ai: Option<ai::AiService>,
    ) -> Self {
        let shared = Shared::of(&store.db);
        Self {
            owners: crate::owners::Owners::new(store.clone()),
            store,
            hub,
            uploads,
            rate: Budget::new(
                per_minute.max(1),
                Duration::from_secs(60),
                "chat messages",
                shared.clone().map(|s| (s, "social.chat")),
            ),
            uploads_rate: Budget::new(
                UPLOADS_PER_HOUR,
                Duration::from_secs(3600),
                "chat attachments",
                shared.clone().map(|s| (s, "social.upload")),
            ),
            ai,
            ai_rate: Budget::new(
                ai::ANSWERS_PER_MINUTE,
                Duration::from_secs(60),
                "AI answers",
                shared.map(|s| (s, "social.ai")),
            ),
        }
    }

    /// 403 unless `subject` owns `profile`.
    async fn owned(&self, subject: Uuid, profile: Uuid) -> Result<()> {
        if self.owners.owns_profile(subject, profile).await? {
            Ok(())
        } else {
            Err(Error::Forbidden(
                "this profile is not one of your profiles".into(),
            ))
        }
    }

    /// The rows of entity `key` with these ids.
    async fn rows(&self, key: &str, ids: &[Uuid]) -> Result<Vec<Record>> {
        let vals: Vec<Val> = ids.iter().copied().map(Val::Uuid).collect();
        self.store
            .find_in(&*self.store.entity(key)?, "id", &vals, ids.len())
            .await
    }

    /// The first row of entity `key` whose fields hold `eq`.
    async fn first(&self, key: &str, eq: &[(&str, Val)]) -> Result<Option<Record>> {
        let e = self.store.entity(key)?;
        Ok(self.store.find_by(&e, eq, 1).await?.into_iter().next())
    }

    /// The membership row of `profile` in `chat` (404 when it is not a member).
    async fn member(&self, subject: Uuid, profile: Uuid, chat: Uuid) -> Result<MemberRow> {
        self.owned(subject, profile).await?;
        let row = self
            .first(
                MEMBERS,
                &[
                    ("profileId", Val::Uuid(profile)),
                    ("chatId", Val::Uuid(chat)),
                ],
            )
            .await?
            .ok_or_else(not_found)?;
        MemberRow::of(&row)
    }

    /// The member profiles of each of `chats`.
    async fn members_of(&self, chats: &[Uuid]) -> Result<Vec<MemberRow>> {
        let e = self.store.entity(MEMBERS)?;
        let vals: Vec<Val> = chats.iter().copied().map(Val::Uuid).collect();
        let rows = self
            .store
            .find_in(&e, "chatId", &vals, chats.len().max(1) * MAX_MEMBERS)
            .await?;
        typed(&rows)
    }

    /// The memberships of `profile` (at most `cap`).
    async fn memberships(&self, profile: Uuid, cap: usize) -> Result<Vec<MemberRow>> {
        let e = self.store.entity(MEMBERS)?;
        let rows = self
            .store
            .find_in(&e, "profileId", &[Val::Uuid(profile)], cap)
            .await?;
        typed(&rows)
    }

    /// The subjects who should hear about `chat`: the owners of its member profiles.
    async fn audience(&self, chat: Uuid) -> Result<Audience> {
        let profiles: Vec<Uuid> = self
            .members_of(&[chat])
            .await?
            .iter()
            .filter_map(|m| m.profile_id)
            .collect();
        Ok(Audience::Subjects(
            self.owners.profile_owners(&profiles).await?,
        ))
    }

    async fn tell(&self, chat: Uuid, kind: &str, data: Value) {
        match self.audience(chat).await {
            Ok(a) => self.hub.publish(kind, a, &data),
            Err(e) => tracing::warn!(%chat, error = %e, "a chat event was not published"),
        }
    }

    /// Public profile cards (id, slug, title, variant) by id.
    async fn profile_cards(&self, ids: &[Uuid]) -> Result<HashMap<Uuid, ProfileCard>> {
        let e = self.store.entity(PROFILE)?;
        let vals: Vec<Val> = ids.iter().copied().map(Val::Uuid).collect();
        let rows = self
            .store
            .find_in(&e, "id", &vals, ids.len().max(1))
            .await?;
        Ok(typed::<ProfileRow>(&rows)?
            .into_iter()
            .map(|p| {
                (
                    p.id,
                    ProfileCard {
                        id: p.id,
                        slug: p.slug,
                        admin_title: p.admin_title,
                        title: Row::new(p.title.unwrap_or(Value::Null)),
                        variant: p.variant,
                    },
                )
            })
            .collect())
    }

    /// Links of `chat` after position `after` (at most `cap`), newest last.
    async fn links_after(&self, chat: Uuid, after: i64, cap: u64) -> Result<Vec<LinkRow>> {
        let e = self.store.entity(IN_CHAT)?;
        let q = FindQuery::all()
            .eq(&e, "chatId", Val::Uuid(chat))?
            .filter(&e, "orderIndex", Op::Gt, FilterValue::One(Val::Int(after)))?
            .sort(&e, "orderIndex", false)?
            .take(cap);
        typed(&self.store.find(&e, &q).await?.rows)
    }

    /// How many messages of `chat` lie after `last_read` (capped at [`UNREAD_CAP`]).
    async fn unread_in(&self, chat: Uuid, last_read: i64) -> Result<u64> {
        Ok(self.links_after(chat, last_read, UNREAD_CAP).await?.len() as u64)
    }

    /// The newest message link of `chat`.
    async fn last_link(&self, chat: Uuid) -> Result<Option<LinkRow>> {
        let e = self.store.entity(IN_CHAT)?;
        let q = FindQuery::all()
            .eq(&e, "chatId", Val::Uuid(chat))?
            .sort(&e, "orderIndex", true)?
            .take(1);
        self.store
            .find(&e, &q)
            .await?
            .rows
            .first()
            .map(LinkRow::of)
            .transpose()
    }

    /// Chats as a member sees them: each chat with its members (profile cards with their read
    /// marks), the newest message, and the unread count and read mark of the member's row in
    /// `mine`. Two index reads per chat (unread, newest); messages and profile cards are read
    /// once for all the chats.
    async fn views(
        &self,
        chats: &[Record],
        mine: &[MemberRow],
        members: &[MemberRow],
    ) -> Result<Vec<ChatView>> {
        let mut base = Vec::new();
        let mut last_links = Vec::new();
        for chat in chats {
            let id = Record::must_id(chat)?;
            let Some(me) = mine.iter().find(|m| m.chat_id == Some(id)) else {
                continue;
            };
            let last_read = me.last_read.unwrap_or(0);
            let unread = self.unread_in(id, last_read).await?;
            if let Some(l) = self.last_link(id).await? {
                last_links.push(l);
            }
            base.push((chat, id, last_read, unread));
        }
        let mut last: HashMap<Uuid, ChatMessage> = self
            .messages_of(&last_links)
            .await?
            .into_iter()
            .map(|m| (m.more.chat_id, m))
            .collect();
        let profiles: Vec<Uuid> = members.iter().filter_map(|m| m.profile_id).collect();
        let cards = self.profile_cards(&profiles).await?;
        Ok(base
            .into_iter()
            .map(|(chat, id, last_read, unread)| {
                let members = members
                    .iter()
                    .filter(|m| m.chat_id == Some(id))
                    .filter_map(|m| {
                        let p = m.profile_id?;
                        let card = cards.get(&p).cloned().unwrap_or_else(|| ProfileCard {
                            id: p,
                            slug: None,
                            admin_title: None,
                            title: Row::new(Value::Null),
                            variant: None,
                        });
                        Some(ChatMember {
                            card,
                            last_read: m.last_read.unwrap_or(0),
                        })
                    })
                    .collect();
                Extended::new(
                    chat.to_json(),
                    ChatState {
                        members,
                        last_message: last.remove(&id),
                        unread,
                        last_read,
                    },
                )
            })
            .collect())
    }

    /// The chats of `profile`, the most recently active first, each with members, newest message
    /// and unread count.
    pub async fn list(&self, subject: Uuid, profile: Uuid) -> Result<Vec<ChatView>> {
        self.owned(subject, profile).await?;
        let mine = self.memberships(profile, MAX_CHATS).await?;
        let ids: Vec<Uuid> = mine.iter().filter_map(|m| m.chat_id).collect();
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let chats = self.rows(CHAT, &ids).await?;
        let members = self.members_of(&ids).await?;
        let mut out = self.views(&chats, &mine, &members).await?;
        // Most recently active first: the newest message, else when the chat was started.
        let activity = |v: &ChatView| {
            (
                v.more.last_message.as_ref().map_or(0, |m| m.more.position),
                v.row["createdAt"].as_str().unwrap_or_default().to_owned(),
            )
        };
        out.sort_by_cached_key(|v| std::cmp::Reverse(activity(v)));
        Ok(out)
    }

    /// One chat of `profile`.
    pub async fn one(&self, subject: Uuid, profile: Uuid, chat: Uuid) -> Result<ChatView> {
        let me = self.member(subject, profile, chat).await?;
        let row = self.store.get(&*self.store.entity(CHAT)?, chat).await?;
        let members = self.members_of(&[chat]).await?;
        self.views(&[row], &[me], &members)
            .await?
            .pop()
            .ok_or_else(not_found)
    }

    /// Starts a chat of `profile` with `profileIds` (a title is optional). A one-to-one chat
    /// that exists already is returned rather than doubled.
    pub async fn start(
        &self,
        subject: Uuid,
        profile: Uuid,
        body: &NewChat,
    ) -> Result<(bool, ChatView)> {
        self.owned(subject, profile).await?;
        self.rate.check(&subject.to_string()).await?;
        let others: Vec<Uuid> = ids(&body.profile_ids, "profileIds", MAX_MEMBERS - 1)?
            .into_iter()
            .filter(|p| *p != profile)
            .collect();
        if others.is_empty() {
            return Err(Error::invalid_field(
                "profileIds",
                "name at least one other profile to chat with",
            ));
        }
        let found = self.profile_cards(&others).await?;
        if let Some((i, _)) = others
            .iter()
            .enumerate()
            .find(|(_, p)| !found.contains_key(p))
        {
            return Err(Error::invalid_field(
                &format!("profileIds[{i}]"),
                "no such profile",
            ));
        }
        let title = body
            .title
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty());
        if title.is_some_and(|t| t.chars().count() > 500) {
            return Err(Error::invalid_field("title", "at most 500 characters"));
        }
        if others.len() == 1
            && title.is_none()
            && let Some(existing) = self.direct_chat(profile, others[0]).await?
        {
            return Ok((false, self.one(subject, profile, existing).await?));
        }
        let chat_e = self.store.entity(CHAT)?;
        let members_e = self.store.entity(MEMBERS)?;
        let mut tx = self.store.begin().await?;
        let chat = {
            let mut exec = tx.exec();
            let mut input = Map::new();
            if let Some(t) = title {
                input.insert("title".into(), json!(t));
            }
            let chat = self.store.create_in(&mut exec, &chat_e, &input).await?;
            let id = Record::must_id(&chat)?;
            for (i, p) in std::iter::once(profile).chain(others).enumerate() {
                self.store
                    .create_in(
                        &mut exec,
                        &members_e,
                        &obj(json!({"profileId": p, "chatId": id, "orderIndex": i})),
                    )
                    .await?;
            }
            id
        };
        tx.commit().await?;
        let view = self.one(subject, profile, chat).await?;
        self.tell(chat, "chat.created", json!({"chatId": chat, "chat": view}))
            .await;
        Ok((true, view))
    }

    /// The untitled chat of exactly `a` and `b`, if there is one.
    async fn direct_chat(&self, a: Uuid, b: Uuid) -> Result<Option<Uuid>> {
        let of_a: Vec<Uuid> = self
            .memberships(a, MAX_CHATS * 5)
            .await?
            .iter()
            .filter_map(|m| m.chat_id)
            .collect();
        let of_b: HashSet<Uuid> = self
            .memberships(b, MAX_CHATS * 5)
            .await?
            .iter()
            .filter_map(|m| m.chat_id)
            .collect();
        let both: Vec<Uuid> = of_a.into_iter().filter(|c| of_b.contains(c)).collect();
        if both.is_empty() {
            return Ok(None);
        }
        let members = self.members_of(&both).await?;
        let chats: Vec<ChatRow> = typed(&self.rows(CHAT, &both).await?)?;
        Ok(both.into_iter().find(|c| {
            members.iter().filter(|m| m.chat_id == Some(*c)).count() == 2
                && chats
                    .iter()
                    .any(|r| r.id == *c && r.title.as_deref().is_none_or(str::is_empty))
        }))
    }
}

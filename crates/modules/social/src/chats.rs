//! Chats between profiles: membership, messages (post, edit and delete one's own), reactions,
//! read marks and unread counts, each change pushed live to the chat's members.
//!
//! A subject acts through a profile it owns (`/api/rbac/subjects/{id}/social-module/profiles/
//! {profileId}/…`); every chat route checks that the profile is a member of the chat, so a
//! non-member is told the chat does not exist. Messages of a chat are ordered by a per-chat
//! position kept in the chats-to-messages link (`orderIndex`, microseconds), so a page of history
//! is one index range read, whatever the chat's size. A member's read mark is the position of the
//! last message it has read (`lastRead` on profiles-to-chats): unread is what lies after it.

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
use stoa_rbac::subjects::Subjects;
use stoa_store::cluster::Shared;
use stoa_store::{Record, Store, repo};
use uuid::Uuid;

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
    subjects: Arc<Subjects>,
    hub: Arc<Hub>,
    /// File storage, which keeps attachments (none when the module is not installed).
    uploads: Option<Arc<dyn Uploads>>,
    /// Messages (posts, edits, reactions) one subject may send per minute (counted by every
    /// instance together on PostgreSQL).
    rate: Budget,
    /// Attachments one subject may upload per hour.
    uploads_rate: Budget,
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
fn message_text(body: &Map<String, Value>) -> Result<String> {
    let text = body
        .get("description")
        .and_then(Value::as_str)
        .map(str::trim)
        .unwrap_or_default();
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
fn emoji(body: &Map<String, Value>) -> Result<String> {
    let e = body
        .get("emoji")
        .and_then(Value::as_str)
        .map(str::trim)
        .unwrap_or_default();
    if e.is_empty() || e.chars().count() > 16 || e.chars().any(char::is_whitespace) {
        return Err(Error::invalid_field(
            "emoji",
            "send one emoji (1 to 16 characters, no spaces)",
        ));
    }
    Ok(e.to_owned())
}

/// Ids from `body[name]`: a list of uuids (or of `{id}`), at most `cap`.
fn ids(body: &Map<String, Value>, name: &str, cap: usize) -> Result<Vec<Uuid>> {
    let Some(v) = body.get(name) else {
        return Ok(Vec::new());
    };
    let list = v
        .as_array()
        .ok_or_else(|| Error::invalid_field(name, "must be a list of ids"))?;
    if list.len() > cap {
        return Err(Error::invalid_field(
            name,
            format!("at most {cap} may be given"),
        ));
    }
    let mut out = Vec::new();
    for (i, item) in list.iter().enumerate() {
        let id = item
            .get("id")
            .unwrap_or(item)
            .as_str()
            .and_then(|s| Uuid::parse_str(s).ok())
            .ok_or_else(|| Error::invalid_field(&format!("{name}[{i}]"), "must be an id"))?;
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
        subjects: Arc<Subjects>,
        hub: Arc<Hub>,
        uploads: Option<Arc<dyn Uploads>>,
        per_minute: u32,
    ) -> Self {
        let shared = Shared::of(&store.db);
        Self {
            store,
            subjects,
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
                shared.map(|s| (s, "social.upload")),
            ),
        }
    }

    /// 403 unless `subject` owns `profile`.
    async fn owned(&self, subject: Uuid, profile: Uuid) -> Result<()> {
        if self.subjects.owns_profile(subject, profile).await? {
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
    async fn member(&self, subject: Uuid, profile: Uuid, chat: Uuid) -> Result<Record> {
        self.owned(subject, profile).await?;
        self.first(
            MEMBERS,
            &[
                ("profileId", Val::Uuid(profile)),
                ("chatId", Val::Uuid(chat)),
            ],
        )
        .await?
        .ok_or_else(not_found)
    }

    /// The member profiles of each of `chats`.
    async fn members_of(&self, chats: &[Uuid]) -> Result<Vec<Record>> {
        let e = self.store.entity(MEMBERS)?;
        let vals: Vec<Val> = chats.iter().copied().map(Val::Uuid).collect();
        self.store
            .find_in(&e, "chatId", &vals, chats.len().max(1) * MAX_MEMBERS)
            .await
    }

    /// The subjects who should hear about `chat`: the owners of its member profiles.
    async fn audience(&self, chat: Uuid) -> Result<Audience> {
        let profiles: Vec<Uuid> = self
            .members_of(&[chat])
            .await?
            .iter()
            .filter_map(|m| m.uuid("profileId"))
            .collect();
        Ok(Audience::Subjects(
            self.subjects.profile_owners(&profiles).await?,
        ))
    }

    async fn tell(&self, chat: Uuid, kind: &str, data: Value) {
        match self.audience(chat).await {
            Ok(a) => self.hub.publish(kind, a, &data),
            Err(e) => tracing::warn!(%chat, error = %e, "a chat event was not published"),
        }
    }

    /// Public profile cards (id, slug, title, variant) by id.
    async fn profile_cards(&self, ids: &[Uuid]) -> Result<HashMap<Uuid, Value>> {
        let e = self.store.entity(PROFILE)?;
        let vals: Vec<Val> = ids.iter().copied().map(Val::Uuid).collect();
        Ok(self
            .store
            .find_in(&e, "id", &vals, ids.len().max(1))
            .await?
            .iter()
            .filter_map(|p| {
                Some((
                    p.id()?,
                    json!({
                        "id": p.id(),
                        "slug": p.text("slug"),
                        "adminTitle": p.text("adminTitle"),
                        "title": p.json("title"),
                        "variant": p.text("variant"),
                    }),
                ))
            })
            .collect())
    }

    /// Links of `chat` after position `after` (at most `cap`), newest last.
    async fn links_after(&self, chat: Uuid, after: i64, cap: u64) -> Result<Vec<Record>> {
        let e = self.store.entity(IN_CHAT)?;
        let q = FindQuery::all()
            .eq(&e, "chatId", Val::Uuid(chat))?
            .filter(&e, "orderIndex", Op::Gt, FilterValue::One(Val::Int(after)))?
            .sort(&e, "orderIndex", false)?
            .take(cap);
        Ok(self.store.find(&e, &q).await?.rows)
    }

    /// How many messages of `chat` lie after `last_read` (capped at [`UNREAD_CAP`]).
    async fn unread_in(&self, chat: Uuid, last_read: i64) -> Result<u64> {
        Ok(self.links_after(chat, last_read, UNREAD_CAP).await?.len() as u64)
    }

    /// The newest message link of `chat`.
    async fn last_link(&self, chat: Uuid) -> Result<Option<Record>> {
        let e = self.store.entity(IN_CHAT)?;
        let q = FindQuery::all()
            .eq(&e, "chatId", Val::Uuid(chat))?
            .sort(&e, "orderIndex", true)?
            .take(1);
        Ok(self.store.find(&e, &q).await?.rows.into_iter().next())
    }

    /// Chats as a member sees them: each chat with its members (profile cards with their read
    /// marks), the newest message, and the unread count and read mark of the member's row in
    /// `mine`. Two index reads per chat (unread, newest); messages and profile cards are read
    /// once for all the chats.
    async fn views(
        &self,
        chats: &[Record],
        mine: &[Record],
        members: &[Record],
    ) -> Result<Vec<Value>> {
        let mut base = Vec::new();
        let mut last_links = Vec::new();
        for chat in chats {
            let id = Record::must_id(chat)?;
            let Some(me) = mine.iter().find(|m| m.uuid("chatId") == Some(id)) else {
                continue;
            };
            let last_read = me.int("lastRead").unwrap_or(0);
            let unread = self.unread_in(id, last_read).await?;
            if let Some(l) = self.last_link(id).await? {
                last_links.push(l);
            }
            base.push((chat, id, last_read, unread));
        }
        let last: HashMap<Uuid, Value> = self
            .messages_of(&last_links)
            .await?
            .into_iter()
            .filter_map(|m| Some((m["chatId"].as_str()?.parse().ok()?, m)))
            .collect();
        let profiles: Vec<Uuid> = members.iter().filter_map(|m| m.uuid("profileId")).collect();
        let cards = self.profile_cards(&profiles).await?;
        Ok(base
            .into_iter()
            .map(|(chat, id, last_read, unread)| {
                let mut v = chat.to_json();
                v["members"] = members
                    .iter()
                    .filter(|m| m.uuid("chatId") == Some(id))
                    .filter_map(|m| {
                        let p = m.uuid("profileId")?;
                        let mut card = cards.get(&p).cloned().unwrap_or(json!({"id": p}));
                        card["lastRead"] = json!(m.int("lastRead").unwrap_or(0));
                        Some(card)
                    })
                    .collect();
                v["lastMessage"] = last.get(&id).cloned().unwrap_or(Value::Null);
                v["unread"] = json!(unread);
                v["lastRead"] = json!(last_read);
                v
            })
            .collect())
    }

    /// The chats of `profile`, the most recently active first, each with members, newest message
    /// and unread count.
    pub async fn list(&self, subject: Uuid, profile: Uuid) -> Result<Vec<Value>> {
        self.owned(subject, profile).await?;
        let links = self.store.entity(MEMBERS)?;
        let mine = self
            .store
            .find_in(&links, "profileId", &[Val::Uuid(profile)], MAX_CHATS)
            .await?;
        let ids: Vec<Uuid> = mine.iter().filter_map(|m| m.uuid("chatId")).collect();
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let chats = self.rows(CHAT, &ids).await?;
        let members = self.members_of(&ids).await?;
        let mut out = self.views(&chats, &mine, &members).await?;
        // Most recently active first: the newest message, else when the chat was started.
        let activity = |v: &Value| {
            (
                v["lastMessage"]["position"].as_i64().unwrap_or_default(),
                v["createdAt"].as_str().unwrap_or_default().to_owned(),
            )
        };
        out.sort_by_cached_key(|v| std::cmp::Reverse(activity(v)));
        Ok(out)
    }

    /// One chat of `profile`.
    pub async fn one(&self, subject: Uuid, profile: Uuid, chat: Uuid) -> Result<Value> {
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
        body: &Map<String, Value>,
    ) -> Result<(bool, Value)> {
        self.owned(subject, profile).await?;
        self.rate.check(&subject.to_string()).await?;
        let others: Vec<Uuid> = ids(body, "profileIds", MAX_MEMBERS - 1)?
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
            .get("title")
            .and_then(Value::as_str)
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
        let e = self.store.entity(MEMBERS)?;
        let of_a: Vec<Uuid> = self
            .store
            .find_in(&e, "profileId", &[Val::Uuid(a)], MAX_CHATS * 5)
            .await?
            .iter()
            .filter_map(|m| m.uuid("chatId"))
            .collect();
        let of_b: HashSet<Uuid> = self
            .store
            .find_in(&e, "profileId", &[Val::Uuid(b)], MAX_CHATS * 5)
            .await?
            .iter()
            .filter_map(|m| m.uuid("chatId"))
            .collect();
        let both: Vec<Uuid> = of_a.into_iter().filter(|c| of_b.contains(c)).collect();
        if both.is_empty() {
            return Ok(None);
        }
        let members = self.members_of(&both).await?;
        let chats = self.rows(CHAT, &both).await?;
        Ok(both.into_iter().find(|c| {
            members
                .iter()
                .filter(|m| m.uuid("chatId") == Some(*c))
                .count()
                == 2
                && chats
                    .iter()
                    .any(|r| r.id() == Some(*c) && r.text("title").is_none_or(|t| t.is_empty()))
        }))
    }

    /// Message views (author, position, reactions, files) for chats-to-messages `links`, in the
    /// links' order.
    async fn messages_of(&self, links: &[Record]) -> Result<Vec<Value>> {
        let ids: Vec<Uuid> = links.iter().filter_map(|l| l.uuid("messageId")).collect();
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let vals: Vec<Val> = ids.iter().copied().map(Val::Uuid).collect();
        let rows = self
            .store
            .find_in(&*self.store.entity(MESSAGE)?, "id", &vals, ids.len())
            .await?;
        let authors = self
            .store
            .find_in(
                &*self.store.entity(AUTHOR)?,
                "messageId",
                &vals,
                ids.len() * 2,
            )
            .await?;
        let reactions = self
            .store
            .find_in(
                &*self.store.entity(REACTION)?,
                "messageId",
                &vals,
                ids.len() * MAX_MEMBERS * 4,
            )
            .await?;
        let files = self
            .store
            .find_in(
                &*self.store.entity(FILES)?,
                "messageId",
                &vals,
                ids.len() * MAX_FILES,
            )
            .await?;
        let file_ids: Vec<Val> = files
            .iter()
            .filter_map(|f| f.uuid("fileStorageModuleFileId").map(Val::Uuid))
            .collect();
        let file_rows = if file_ids.is_empty() {
            Vec::new()
        } else {
            // Attachments are hidden files: members read them here, nobody lists them.
            let files = self.store.entity(FILE)?;
            stoa_store::publish::with_drafts(self.store.find_in(
                &files,
                "id",
                &file_ids,
                file_ids.len(),
            ))
            .await?
        };
        let mut out = Vec::new();
        for link in links {
            let Some(id) = link.uuid("messageId") else {
                continue;
            };
            let Some(row) = rows.iter().find(|r| r.id() == Some(id)) else {
                continue;
            };
            let mut v = row.to_json();
            v["chatId"] = json!(link.uuid("chatId"));
            v["position"] = json!(link.int("orderIndex").unwrap_or(0));
            v["profileId"] = json!(
                authors
                    .iter()
                    .find(|a| a.uuid("messageId") == Some(id))
                    .and_then(|a| a.uuid("profileId"))
            );
            let mut counts: Vec<(String, Vec<Uuid>)> = Vec::new();
            for r in reactions.iter().filter(|r| r.uuid("messageId") == Some(id)) {
                let (Some(e), Some(p)) = (r.text("emoji"), r.uuid("profileId")) else {
                    continue;
                };
                match counts.iter_mut().find(|(k, _)| k == e) {
                    Some((_, ps)) => ps.push(p),
                    None => counts.push((e.to_owned(), vec![p])),
                }
            }
            v["reactions"] = Value::Array(
                counts
                    .into_iter()
                    .map(|(e, ps)| json!({"emoji": e, "count": ps.len(), "profileIds": ps}))
                    .collect(),
            );
            v["files"] = Value::Array(
                files
                    .iter()
                    .filter(|f| f.uuid("messageId") == Some(id))
                    .filter_map(|f| {
                        let fid = f.uuid("fileStorageModuleFileId")?;
                        let r = file_rows.iter().find(|r| r.id() == Some(fid))?;
                        Some(json!({
                            "id": fid,
                            "file": r.text("file"),
                            "mimeType": r.text("mimeType"),
                            "size": r.int("size"),
                            "adminTitle": r.text("adminTitle"),
                        }))
                    })
                    .collect(),
            );
            out.push(v);
        }
        Ok(out)
    }

    /// The view of the message of chats-to-messages `link` (404 when it was deleted meanwhile).
    async fn message(&self, link: Record) -> Result<Value> {
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
    ) -> Result<Vec<Value>> {
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
            let pos = at.int("orderIndex").unwrap_or(0);
            q = q.filter(&e, "orderIndex", Op::Lte, FilterValue::One(Val::Int(pos)))?;
            skip = Some((pos, b));
        }
        // Messages sharing a position (same microsecond) are told apart by id.
        let q = q
            .sort(&e, "orderIndex", true)?
            .sort(&e, "messageId", true)?
            .take(limit + 16);
        let mut links = self.store.find(&e, &q).await?.rows;
        if let Some((pos, b)) = skip {
            links.retain(|l| {
                l.int("orderIndex") != Some(pos)
                    || l.uuid("messageId").is_some_and(|m| m < b && m != b)
            });
        }
        links.truncate(limit as usize);
        links.reverse();
        self.messages_of(&links).await
    }

    /// The chats-to-messages link of `message` in `chat` (404 when the message is not in it).
    async fn link_of(&self, chat: Uuid, message: Uuid) -> Result<Record> {
        self.first(
            IN_CHAT,
            &[
                ("chatId", Val::Uuid(chat)),
                ("messageId", Val::Uuid(message)),
            ],
        )
        .await?
        .ok_or_else(|| Error::not_found("no such message in this chat"))
    }

    /// The author profile of `message`.
    async fn author(&self, message: Uuid) -> Result<Option<Uuid>> {
        Ok(self
            .first(AUTHOR, &[("messageId", Val::Uuid(message))])
            .await?
            .and_then(|a| a.uuid("profileId")))
    }

    /// Keeps `part` as an attachment `profile` (of `subject`) may send: a hidden file, linked
    /// to the profile. The file row.
    pub async fn upload(&self, subject: Uuid, profile: Uuid, part: &FilePart) -> Result<Value> {
        self.owned(subject, profile).await?;
        let uploads = self.uploads.as_ref().ok_or_else(|| {
            Error::Unavailable("file storage is not installed on this site".into())
        })?;
        let row = uploads.keep_hidden(part).await?;
        let id = row
            .get("id")
            .and_then(Value::as_str)
            .and_then(|s| Uuid::parse_str(s).ok())
            .ok_or_else(|| Error::internal("a kept file has no id"))?;
        let own = self.store.entity(OWN_FILES)?;
        let linked = async {
            let mut tx = self.store.begin().await?;
            self.store
                .link_in(&mut tx.exec(), &own, ("profileId", profile), (FILE_ID, id))
                .await?;
            tx.commit().await
        }
        .await;
        if let Err(e) = linked {
            // An upload no link names would never be swept: take it back.
            if let Err(x) = uploads.discard_hidden(id).await {
                tracing::error!(file = %id, error = %x, "an unlinked upload was not deleted");
            }
            return Err(e);
        }
        Ok(row)
    }

    /// The uploads limit, counted before the body is read: [`UPLOADS_PER_HOUR`] per subject.
    pub async fn count_upload(&self, subject: Uuid) -> Result<()> {
        self.uploads_rate.check(&subject.to_string()).await
    }

    /// 422 unless `profile` may attach each of `files`: its own uploads, or files anyone may
    /// read (an admin reads every file). The profile's upload links of `files`, which sending
    /// spends (an upload goes to one message; what is never sent is swept).
    async fn attachable(&self, profile: Uuid, files: &[Uuid]) -> Result<Vec<Uuid>> {
        if files.is_empty() {
            return Ok(Vec::new());
        }
        let vals: Vec<Val> = files.iter().copied().map(Val::Uuid).collect();
        let own = self.store.entity(OWN_FILES)?;
        let q = FindQuery::all()
            .eq(&own, "profileId", Val::Uuid(profile))?
            .any_of(&own, FILE_ID, vals.clone())?;
        let links =
            stoa_store::publish::with_drafts(self.store.find_in_query(&own, q, files.len() * 2))
                .await?;
        let mine: HashSet<Uuid> = links.iter().filter_map(|l| l.uuid(FILE_ID)).collect();
        let spent: Vec<Uuid> = links.iter().filter_map(Record::id).collect();
        // What the caller may read as it is (an admin reads hidden files too), before the one
        // read that sees every file.
        let sees_hidden = stoa_store::publish::drafts_visible();
        let file_e = self.store.entity(FILE)?;
        let hidden = |r: &Record| r.bool(stoa_kernel::model::HIDDEN) == Some(true);
        let found =
            stoa_store::publish::with_drafts(self.store.find_in(&file_e, "id", &vals, files.len()))
                .await?;
        let ok = found
            .iter()
            .filter(|r| r.id().is_some_and(|id| mine.contains(&id)) || sees_hidden || !hidden(r))
            .count();
        if ok != files.len() {
            return Err(Error::invalid_field(
                "fileIds",
                "no such file among your uploads: upload it first",
            ));
        }
        Ok(spent)
    }

    /// Deletes uploads older than `grace` that were never sent: the profile's upload link and
    /// the hidden file (its bytes go with file storage's sweep). How many were deleted.
    pub async fn sweep_uploads(&self, grace: Duration) -> Result<usize> {
        let Some(uploads) = &self.uploads else {
            return Ok(0);
        };
        let own = self.store.entity(OWN_FILES)?;
        let cutoff = now() - grace;
        let q = FindQuery::all().filter(
            &own,
            "createdAt",
            Op::Lt,
            FilterValue::One(Val::Timestamp(cutoff)),
        )?;
        // Links to hidden files are themselves hidden from every reader but the module.
        let links =
            stoa_store::publish::with_drafts(self.store.find_in_query(&own, q, SWEEP_BATCH))
                .await?;
        let mut gone = 0;
        for l in &links {
            let Some(file) = l.uuid(FILE_ID) else {
                continue;
            };
            // Only an upload (a hidden file) is deleted, and its upload link with it (the
            // reference cascades); a public file an admin linked stays.
            if uploads.discard_hidden(file).await? {
                gone += 1;
            }
        }
        Ok(gone)
    }

    /// Posts a message of `profile` in `chat` (with files already uploaded, by id; with files the
    /// text may be left out).
    pub async fn post(
        &self,
        subject: Uuid,
        profile: Uuid,
        chat: Uuid,
        body: &Map<String, Value>,
    ) -> Result<Value> {
        let me = self.member(subject, profile, chat).await?;
        let files = ids(body, "fileIds", MAX_FILES)?;
        // Files may go without words.
        let wordless = body
            .get("description")
            .and_then(Value::as_str)
            .is_none_or(|t| t.trim().is_empty());
        let text = if wordless && !files.is_empty() {
            String::new()
        } else {
            message_text(body)?
        };
        let spent = self.attachable(profile, &files).await?;
        self.rate.check(&subject.to_string()).await?;
        let message_e = self.store.entity(MESSAGE)?;
        let in_chat = self.store.entity(IN_CHAT)?;
        let author = self.store.entity(AUTHOR)?;
        let members = self.store.entity(MEMBERS)?;
        let file_e = self.store.entity(FILES)?;
        let own_e = self.store.entity(OWN_FILES)?;
        let member_id = Record::must_id(&me)?;
        let position = position_now();
        let mut tx = self.store.begin().await?;
        let link = {
            let mut exec = tx.exec();
            let row = self
                .store
                .create_in(&mut exec, &message_e, &obj(json!({"description": text})))
                .await?;
            let id = Record::must_id(&row)?;
            let link = self
                .store
                .create_in(
                    &mut exec,
                    &in_chat,
                    &obj(json!({"chatId": chat, "messageId": id, "orderIndex": position})),
                )
                .await?;
            self.store
                .create_in(
                    &mut exec,
                    &author,
                    &obj(json!({"profileId": profile, "messageId": id, "isRead": true})),
                )
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
        let view = self.message(link).await?;
        self.tell(
            chat,
            "chat.message",
            json!({"chatId": chat, "message": view}),
        )
        .await;
        Ok(view)
    }

    /// The message `message` of `chat`, which `profile` must have written.
    async fn own(&self, profile: Uuid, chat: Uuid, message: Uuid) -> Result<Record> {
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
        body: &Map<String, Value>,
    ) -> Result<Value> {
        self.member(subject, profile, chat).await?;
        let text = message_text(body)?;
        let link = self.own(profile, chat, message).await?;
        self.rate.check(&subject.to_string()).await?;
        let e = self.store.entity(MESSAGE)?;
        let edited = time::OffsetDateTime::now_utc()
            .format(&time::format_description::well_known::Rfc3339)
            .map_err(|e| Error::internal(e.to_string()))?;
        self.store
            .update(
                &e,
                message,
                &obj(json!({"description": text, "editedAt": edited})),
            )
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
    ) -> Result<Value> {
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
        Ok(json!({"ok": true, "id": message}))
    }

    /// Adds `emoji` of `profile` to `message`, or takes it back when it is there.
    pub async fn react(
        &self,
        subject: Uuid,
        profile: Uuid,
        chat: Uuid,
        message: Uuid,
        body: &Map<String, Value>,
    ) -> Result<Value> {
        self.member(subject, profile, chat).await?;
        let emoji = emoji(body)?;
        let link = self.link_of(chat, message).await?;
        self.rate.check(&subject.to_string()).await?;
        let e = self.store.entity(REACTION)?;
        let mine = self
            .store
            .find_by(
                &e,
                &[
                    ("messageId", Val::Uuid(message)),
                    ("profileId", Val::Uuid(profile)),
                ],
                MAX_REACTIONS as u64 + 1,
            )
            .await?;
        match mine
            .iter()
            .find(|r| r.text("emoji") == Some(emoji.as_str()))
        {
            Some(r) => {
                self.store.delete(&e, Record::must_id(r)?).await?;
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
            json!({"chatId": chat, "messageId": message, "reactions": view["reactions"]}),
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
        body: &Map<String, Value>,
    ) -> Result<Value> {
        let me = self.member(subject, profile, chat).await?;
        let to = match body.get("messageId").and_then(Value::as_str) {
            Some(m) => {
                let m = Uuid::parse_str(m)
                    .map_err(|_| Error::invalid_field("messageId", "must be a message id"))?;
                self.link_of(chat, m).await?.int("orderIndex").unwrap_or(0)
            }
            None => self
                .last_link(chat)
                .await?
                .and_then(|l| l.int("orderIndex"))
                .unwrap_or(0),
        };
        let was = me.int("lastRead").unwrap_or(0);
        if to > was {
            let members = self.store.entity(MEMBERS)?;
            let idx = members
                .field_index("lastRead")
                .ok_or_else(|| Error::internal("profiles-to-chats.lastRead is not declared"))?;
            let id = Record::must_id(&me)?;
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
        Ok(json!({
            "chatId": chat,
            "lastRead": last_read,
            "unread": self.unread_in(chat, last_read).await?,
        }))
    }

    /// The profiles `subject` owns (cards).
    pub async fn own_profiles(&self, subject: Uuid) -> Result<Vec<Value>> {
        let ids = self.subjects.profiles(subject, MAX_OWN_PROFILES).await?;
        let cards = self.profile_cards(&ids).await?;
        Ok(ids.iter().filter_map(|p| cards.get(p).cloned()).collect())
    }

    /// Creates a profile for `subject` (a name to chat under), at most [`MAX_OWN_PROFILES`].
    pub async fn create_profile(&self, subject: Uuid, body: &Map<String, Value>) -> Result<Value> {
        let name = body
            .get("title")
            .and_then(Value::as_str)
            .map(str::trim)
            .unwrap_or_default();
        if name.is_empty() || name.chars().count() > 100 {
            return Err(Error::invalid_field(
                "title",
                "give the profile a name of 1 to 100 characters",
            ));
        }
        self.rate.check(&subject.to_string()).await?;
        if self
            .subjects
            .profiles(subject, MAX_OWN_PROFILES)
            .await?
            .len()
            >= MAX_OWN_PROFILES
        {
            return Err(Error::invalid_field(
                "title",
                format!("an account may have at most {MAX_OWN_PROFILES} profiles"),
            ));
        }
        let e = self.store.entity(PROFILE)?;
        let mut tx = self.store.begin().await?;
        let id = {
            let mut exec = tx.exec();
            let row = self
                .store
                .create_in(
                    &mut exec,
                    &e,
                    &obj(json!({"adminTitle": name, "title": {"en": name, "ru": name}})),
                )
                .await?;
            let id = Record::must_id(&row)?;
            self.subjects.link_profile(&mut exec, subject, id).await?;
            id
        };
        tx.commit().await?;
        self.profile_cards(&[id])
            .await?
            .remove(&id)
            .ok_or_else(|| Error::internal("the new profile vanished"))
    }

    /// Unread messages over all chats of all profiles of `subject` (capped at [`UNREAD_CAP`]):
    /// the navbar badge.
    pub async fn unread(&self, subject: Uuid) -> Result<Value> {
        let profiles = self.subjects.profiles(subject, 20).await?;
        let e = self.store.entity(MEMBERS)?;
        let vals: Vec<Val> = profiles.iter().copied().map(Val::Uuid).collect();
        let memberships = if vals.is_empty() {
            Vec::new()
        } else {
            self.store
                .find_in(&e, "profileId", &vals, MAX_CHATS)
                .await?
        };
        let mut total = 0u64;
        let mut chats = 0u64;
        for m in &memberships {
            if total >= UNREAD_CAP {
                break;
            }
            let Some(c) = m.uuid("chatId") else { continue };
            let n = self.unread_in(c, m.int("lastRead").unwrap_or(0)).await?;
            if n > 0 {
                chats += 1;
            }
            total += n;
        }
        Ok(json!({
            "unread": total.min(UNREAD_CAP),
            "capped": total >= UNREAD_CAP,
            "chats": chats,
            "profileIds": profiles,
        }))
    }
}

//! The chat routes of a subject's own profiles, under
//! `/api/rbac/subjects/{id}/social-module/…` (the subject's own only: rbac checks the `{id}`,
//! the service checks the profile is the subject's and a member of the chat): one table of typed
//! routes, and the upload, which takes a multipart body.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use stoa_api::endpoint::{
    ById, Endpoint, In, Json, Later, Nothing, OneFile, Reply, Row, empty_is_none,
};
use stoa_api::{Access, AppState, RouteBook};
use stoa_kernel::{Error, Result};
use uuid::Uuid;

use crate::chats::{Chats, MAX_PAGE};
use crate::views::{
    AiState, ChatMessage, ChatView, Deleted, FileStorageFile, MessageText, NewChat, NewMessage,
    NewProfile, ProfileCard, Reaction, ReadMark, ReadUpTo, Unread,
};

/// A subject's profile (`…/profiles/{profileId}`).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Profile {
    id: Uuid,
    profile_id: Uuid,
}

/// A chat of a subject's profile (`…/chats/{chatId}`).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Chat {
    id: Uuid,
    profile_id: Uuid,
    chat_id: Uuid,
}

/// A message in a chat of a subject's profile (`…/messages/{messageId}`).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Message {
    id: Uuid,
    profile_id: Uuid,
    chat_id: Uuid,
    message_id: Uuid,
}

/// A page of a chat's history.
#[derive(Deserialize, JsonSchema)]
struct Page {
    /// At most this many messages (default 50)
    #[serde(default, deserialize_with = "empty_is_none")]
    #[schemars(with = "Option<u64>", range(min = 1, max = MAX_PAGE))]
    limit: Option<u64>,
    /// Older than this message (paging back)
    #[serde(default, deserialize_with = "empty_is_none")]
    #[schemars(with = "Option<Uuid>")]
    before: Option<Uuid>,
    /// Past this position (catching up)
    #[serde(default, deserialize_with = "empty_is_none")]
    #[schemars(with = "Option<i64>", range(min = 0))]
    after: Option<i64>,
}

async fn own_profiles(c: Arc<Chats>, x: In<ById>) -> Result<Vec<ProfileCard>> {
    c.own_profiles(x.caller.acting_for(x.path.id)?).await
}

async fn create_profile(
    c: Arc<Chats>,
    x: In<ById, Nothing, Json<NewProfile>>,
) -> Result<ProfileCard> {
    c.create_profile(x.caller.acting_for(x.path.id)?, &x.body.0)
        .await
}

async fn ai_state(c: Arc<Chats>, x: In<ById>) -> Result<AiState> {
    c.ai_state(x.path.id).await
}

async fn unread(c: Arc<Chats>, x: In<ById>) -> Result<Unread> {
    c.unread(x.caller.acting_for(x.path.id)?).await
}

async fn list(c: Arc<Chats>, x: In<Profile>) -> Result<Vec<ChatView>> {
    c.list(x.caller.acting_for(x.path.id)?, x.path.profile_id)
        .await
}

/// A new chat is 201; the one-to-one chat that was there already, 200.
async fn start(c: Arc<Chats>, x: In<Profile, Nothing, Json<NewChat>>) -> Result<Reply<ChatView>> {
    let subject = x.caller.acting_for(x.path.id)?;
    let (new, chat) = c.start(subject, x.path.profile_id, &x.body.0).await?;
    let reply = Reply::new(chat);
    Ok(if new {
        reply
    } else {
        reply.status(axum::http::StatusCode::OK)
    })
}

async fn one(c: Arc<Chats>, x: In<Chat>) -> Result<ChatView> {
    let p = &x.path;
    c.one(x.caller.acting_for(p.id)?, p.profile_id, p.chat_id)
        .await
}

async fn messages(c: Arc<Chats>, x: In<Chat, Page>) -> Result<Vec<ChatMessage>> {
    let (p, q) = (&x.path, &x.query);
    let limit = q.limit.unwrap_or(50);
    if !(1..=MAX_PAGE).contains(&limit) {
        return Err(Error::bad_field(
            "limit",
            format!("must be 1 to {MAX_PAGE}"),
        ));
    }
    if q.after.is_some_and(|a| a < 0) {
        return Err(Error::bad_field("after", "must be 0 or more"));
    }
    let subject = x.caller.acting_for(p.id)?;
    c.messages(subject, p.profile_id, p.chat_id, q.before, q.after, limit)
        .await
}

async fn post(c: Arc<Chats>, x: In<Chat, Nothing, Json<NewMessage>>) -> Result<ChatMessage> {
    let p = &x.path;
    let subject = x.caller.acting_for(p.id)?;
    c.post(subject, p.profile_id, p.chat_id, &x.body.0).await
}

async fn edit(c: Arc<Chats>, x: In<Message, Nothing, Json<MessageText>>) -> Result<ChatMessage> {
    let p = &x.path;
    let subject = x.caller.acting_for(p.id)?;
    c.edit(subject, p.profile_id, p.chat_id, p.message_id, &x.body.0)
        .await
}

async fn delete(c: Arc<Chats>, x: In<Message>) -> Result<Deleted> {
    let p = &x.path;
    let subject = x.caller.acting_for(p.id)?;
    c.delete(subject, p.profile_id, p.chat_id, p.message_id)
        .await
}

async fn react(c: Arc<Chats>, x: In<Message, Nothing, Json<Reaction>>) -> Result<ChatMessage> {
    let p = &x.path;
    let subject = x.caller.acting_for(p.id)?;
    c.react(subject, p.profile_id, p.chat_id, p.message_id, &x.body.0)
        .await
}

async fn read(c: Arc<Chats>, x: In<Chat, Nothing, Json<ReadUpTo>>) -> Result<ReadMark> {
    let p = &x.path;
    let subject = x.caller.acting_for(p.id)?;
    c.read(subject, p.profile_id, p.chat_id, &x.body.0).await
}

/// `POST …/profiles/{profileId}/files`: one file part, `file`, kept as the profile's hidden
/// upload. The rate is counted before the body is read.
async fn upload(
    c: Arc<Chats>,
    x: In<Profile, Nothing, Later<OneFile>>,
) -> Result<Row<FileStorageFile>> {
    let subject = x.caller.acting_for(x.path.id)?;
    c.count_upload(subject).await?;
    let OneFile(part) = x.body.read().await?;
    Ok(Row::new(c.upload(subject, x.path.profile_id, &part).await?))
}

/// A subject's route of module social: owner only, body and answer named as the document named
/// them.
fn own(method: &'static str, path: &'static str, id: &'static str) -> Endpoint {
    Endpoint::new("social", method, path, id)
        .access(Access::Owner)
        .named_by_operation()
}

macro_rules! at {
    ($p:literal) => {
        concat!("/api/rbac/subjects/{id}/social-module", $p)
    };
}

const CHAT_ERRORS: &[u16] = &[400, 401, 403, 404];
const WRITE_ERRORS: &[u16] = &[400, 401, 403, 404, 415, 422, 429];

/// The chat routes, the upload and the admin's view of an AI profile.
#[rustfmt::skip]
pub fn routes(c: Arc<Chats>) -> RouteBook<AppState> {
    let s = || c.clone();
    RouteBook::new()
        .endpoint(s(), own("POST", at!("/profiles/{profileId}/files"), "subjectSocialFileUpload").summary("Uploads a file the profile may attach to its messages (kept hidden: only the chats it is sent to show it)").status(201).errors(&[400, 401, 403, 404, 413, 415, 422, 429, 503]), upload)
        .endpoint(s(), Endpoint::get("social", "/api/social/profiles/{id}/ai", "socialProfileAi").summary("An AI profile's state: whether an AI service is configured (STOA_AI_*), its model, and this month's tokens against the profile's budget").errors(&[400, 401, 403, 404]), ai_state)
        .endpoint(s(), own("GET", at!("/profiles"), "subjectSocialProfiles").summary("The subject's own profiles (the names it chats under)").errors(&[400, 401, 403]), own_profiles)
        .endpoint(s(), own("POST", at!("/profiles"), "subjectSocialProfileCreate").summary("Creates a profile for the subject (at most 5)").status(201).errors(&[400, 401, 403, 415, 422, 429]), create_profile)
        .endpoint(s(), own("GET", at!("/unread"), "subjectSocialUnread").summary("Unread messages over all the subject's chats (capped at 100): the navbar badge").errors(&[400, 401, 403]), unread)
        .endpoint(s(), own("GET", at!("/profiles/{profileId}/chats"), "subjectSocialChats").summary("The profile's chats, most recently active first, with members, newest message and unread count").errors(CHAT_ERRORS), list)
        .endpoint_replying(s(), own("POST", at!("/profiles/{profileId}/chats"), "subjectSocialChatStart").summary("Starts a chat with other profiles (an existing one-to-one chat is answered with 200 instead)").status(201).errors(WRITE_ERRORS).also::<ChatView>(200, "The one-to-one chat there was already"), start)
        .endpoint(s(), own("GET", at!("/profiles/{profileId}/chats/{chatId}"), "subjectSocialChat").summary("One of the profile's chats (404 when the profile is not a member)").errors(CHAT_ERRORS), one)
        .endpoint(s(), own("POST", at!("/profiles/{profileId}/chats/{chatId}/read"), "subjectSocialChatRead").summary("Marks the chat read up to messageId (default: its newest message); marks only move forward").errors(WRITE_ERRORS), read)
        .endpoint(s(), own("GET", at!("/profiles/{profileId}/chats/{chatId}/messages"), "subjectSocialMessages").summary("A page of the chat's messages, oldest first: the newest ?limit (50, at most 100), those ?before a message id, or those ?after a position").errors(CHAT_ERRORS), messages)
        .endpoint(s(), own("POST", at!("/profiles/{profileId}/chats/{chatId}/messages"), "subjectSocialMessageCreate").summary("Posts a message (1 to 4000 characters, up to 10 uploaded files by id)").status(201).errors(WRITE_ERRORS), post)
        .endpoint(s(), own("PATCH", at!("/profiles/{profileId}/chats/{chatId}/messages/{messageId}"), "subjectSocialMessageEdit").summary("Changes the text of one's own message").errors(WRITE_ERRORS), edit)
        .endpoint(s(), own("DELETE", at!("/profiles/{profileId}/chats/{chatId}/messages/{messageId}"), "subjectSocialMessageDelete").summary("Deletes one's own message").errors(CHAT_ERRORS), delete)
        .endpoint(s(), own("POST", at!("/profiles/{profileId}/chats/{chatId}/messages/{messageId}/react"), "subjectSocialMessageReact").summary("Adds an emoji reaction to a message, or takes it back when it is there").errors(WRITE_ERRORS), react)
}

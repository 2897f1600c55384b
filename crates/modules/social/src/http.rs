//! The chat routes of a subject's own profiles, under
//! `/api/rbac/subjects/{id}/social-module/…` (the subject's own only: rbac checks the `{id}`,
//! the service checks the profile is the subject's and a member of the chat).

use std::sync::Arc;

use std::collections::HashMap;

use axum::extract::{Path, Request, State};
use serde_json::{Value, json};
use stoa_api::auth::Caller;
use stoa_api::call::{Call, Fut, created, ok, route};
use stoa_api::crud::parse_id;
use stoa_api::openapi::{custom, path_params, request_body_with_files};
use stoa_api::{Access, ApiResult, AppState, RouteBook};
use stoa_kernel::Error;

use crate::chats::{Chats, MAX_PAGE};

const BASE: &str = "/api/rbac/subjects/{id}/social-module";

fn own_profiles(c: Arc<Chats>, x: Call) -> Fut {
    Box::pin(async move { ok(c.own_profiles(x.subject()?).await?) })
}

fn create_profile(c: Arc<Chats>, x: Call) -> Fut {
    Box::pin(async move { created(c.create_profile(x.subject()?, &x.body).await?) })
}

fn ai_state(c: Arc<Chats>, x: Call) -> Fut {
    Box::pin(async move { ok(c.ai_state(x.id("id")?).await?) })
}

fn unread(c: Arc<Chats>, x: Call) -> Fut {
    Box::pin(async move { ok(c.unread(x.subject()?).await?) })
}

fn list(c: Arc<Chats>, x: Call) -> Fut {
    Box::pin(async move { ok(c.list(x.subject()?, x.id("profileId")?).await?) })
}

fn start(c: Arc<Chats>, x: Call) -> Fut {
    Box::pin(async move {
        let (new, chat) = c.start(x.subject()?, x.id("profileId")?, &x.body).await?;
        if new { created(chat) } else { ok(chat) }
    })
}

fn one(c: Arc<Chats>, x: Call) -> Fut {
    Box::pin(async move {
        ok(c.one(x.subject()?, x.id("profileId")?, x.id("chatId")?)
            .await?)
    })
}

fn messages(c: Arc<Chats>, x: Call) -> Fut {
    Box::pin(async move {
        let limit = x.query_int("limit", 1..=MAX_PAGE as i64)?.unwrap_or(50) as u64;
        let after = x.query_int("after", 0..=i64::MAX)?;
        ok(c.messages(
            x.subject()?,
            x.id("profileId")?,
            x.id("chatId")?,
            x.query_id("before")?,
            after,
            limit,
        )
        .await?)
    })
}

fn post(c: Arc<Chats>, x: Call) -> Fut {
    Box::pin(async move {
        created(
            c.post(x.subject()?, x.id("profileId")?, x.id("chatId")?, &x.body)
                .await?,
        )
    })
}

fn edit(c: Arc<Chats>, x: Call) -> Fut {
    Box::pin(async move {
        ok(c.edit(
            x.subject()?,
            x.id("profileId")?,
            x.id("chatId")?,
            x.id("messageId")?,
            &x.body,
        )
        .await?)
    })
}

fn delete(c: Arc<Chats>, x: Call) -> Fut {
    Box::pin(async move {
        ok(c.delete(
            x.subject()?,
            x.id("profileId")?,
            x.id("chatId")?,
            x.id("messageId")?,
        )
        .await?)
    })
}

fn react(c: Arc<Chats>, x: Call) -> Fut {
    Box::pin(async move {
        ok(c.react(
            x.subject()?,
            x.id("profileId")?,
            x.id("chatId")?,
            x.id("messageId")?,
            &x.body,
        )
        .await?)
    })
}

fn read(c: Arc<Chats>, x: Call) -> Fut {
    Box::pin(async move {
        ok(
            c.read(x.subject()?, x.id("profileId")?, x.id("chatId")?, &x.body)
                .await?,
        )
    })
}

/// `POST …/profiles/{profileId}/files`: one file part, `file`, kept as the profile's hidden
/// upload. The rate is counted before the body is read.
fn upload_route(c: Arc<Chats>) -> axum::routing::MethodRouter<AppState> {
    axum::routing::post(
        move |State(s): State<AppState>,
              Path(params): Path<HashMap<String, String>>,
              req: Request| {
            let c = c.clone();
            async move {
                let id = |n: &str| {
                    parse_id(params.get(n).map_or("", String::as_str))
                        .map_err(|_| Error::bad_field(n, "must be a uuid"))
                };
                let subject = Caller::of(&req).acting_for(id("id")?)?;
                let profile = id("profileId")?;
                c.count_upload(subject).await?;
                let body = stoa_api::body::parse_files(req, s.limits, &["file"]).await?;
                let part = body.files.first().ok_or_else(|| {
                    Error::invalid_field(
                        "file",
                        "send the file as the `file` part of a multipart/form-data body",
                    )
                })?;
                ApiResult::Ok(created(c.upload(subject, profile, part).await?)?)
            }
        },
    )
}

pub fn routes(c: Arc<Chats>) -> RouteBook<AppState> {
    let r = |n: &str| json!({"$ref": format!("#/components/schemas/{n}")});
    let uuid = json!({"type": "string", "format": "uuid"});
    let card_props = json!({
        "id": uuid, "slug": {"type": ["string", "null"]}, "adminTitle": {"type": ["string", "null"]},
        "title": r("Translations"), "variant": {"type": ["string", "null"]}
    });
    let profile = json!({"title": "SocialProfileCard", "type": "object", "description": "A profile as others see it", "properties": card_props, "required": ["id"]});
    let mut member_props = card_props.clone();
    member_props["lastRead"] = json!({"type": "integer", "description": "The position of the last message this member has read"});
    let message = json!({"title": "SocialChatMessage", "description": "A message with its place in the chat, author, reactions and files", "allOf": [r("SocialMessage"), {
        "type": "object",
        "properties": {
            "chatId": uuid,
            "position": {"type": "integer", "description": "1, 2, 3… in the chat"},
            "profileId": {"type": ["string", "null"], "format": "uuid", "description": "The author's profile"},
            "reactions": {"type": "array", "items": {"type": "object", "title": "SocialReactionCount", "properties": {"emoji": {"type": "string"}, "count": {"type": "integer"}, "profileIds": {"type": "array", "items": uuid}}, "required": ["emoji", "count", "profileIds"]}},
            "files": {"type": "array", "items": {"type": "object", "title": "SocialMessageFile", "properties": {"id": uuid, "file": {"type": ["string", "null"]}, "mimeType": {"type": ["string", "null"]}, "size": {"type": ["integer", "null"]}, "adminTitle": {"type": ["string", "null"]}}, "required": ["id"]}}
        },
        "required": ["chatId", "position", "profileId", "reactions", "files"]
    }]});
    let chat = json!({"title": "SocialChatView", "description": "A chat with its members, newest message and what the profile has not read", "allOf": [r("SocialChat"), {
        "type": "object",
        "properties": {
            "members": {"type": "array", "items": {"type": "object", "title": "SocialChatMember", "properties": member_props, "required": ["id", "lastRead"]}},
            "lastMessage": {"anyOf": [r("SocialChatMessage"), {"type": "null"}]},
            "unread": {"type": "integer"},
            "lastRead": {"type": "integer"}
        },
        "required": ["members", "lastMessage", "unread", "lastRead"]
    }]});
    let text = json!({"type": "object", "properties": {"description": {"type": "string", "minLength": 1, "maxLength": crate::chats::MAX_MESSAGE}, "fileIds": {"type": "array", "items": {"type": "string", "format": "uuid"}}}, "required": ["description"]});
    let mut post_body = text.clone();
    post_body["required"] = json!([]);
    post_body["anyOf"] = json!([{"required": ["description"]}, {"required": ["fileIds"], "properties": {"fileIds": {"minItems": 1}}}]);
    post_body["properties"]["description"]["minLength"] = json!(0);
    post_body["properties"]["description"]["description"] =
        json!("The text; it may be left out when files are attached");
    post_body["properties"]["fileIds"]["description"] = json!(
        "Files to attach (at most 10): the profile's uploads (POST …/profiles/{profileId}/files) or public files"
    );
    let chat_errs: &[u16] = &[400, 401, 403, 404];
    let write_errs: &[u16] = &[400, 401, 403, 404, 415, 422, 429];
    let p = BASE.to_owned() + "/profiles/{profileId}/chats";
    let m = p.clone() + "/{chatId}/messages";
    #[allow(clippy::type_complexity)]
    let table: Vec<(
        &'static str,
        String,
        stoa_api::call::Handler<Chats>,
        &str,
        &str,
        Vec<&str>,
        Option<Value>,
        u16,
        Value,
        &[u16],
    )> = vec![
        (
            "GET",
            format!("{BASE}/profiles"),
            own_profiles,
            "subjectSocialProfiles",
            "The subject's own profiles (the names it chats under)",
            vec!["id"],
            None,
            200,
            json!({"type": "array", "items": profile}),
            &[400, 401, 403],
        ),
        (
            "POST",
            format!("{BASE}/profiles"),
            create_profile,
            "subjectSocialProfileCreate",
            "Creates a profile for the subject (at most 5)",
            vec!["id"],
            Some(
                json!({"type": "object", "properties": {"title": {"type": "string", "minLength": 1, "maxLength": 100}}, "required": ["title"]}),
            ),
            201,
            profile.clone(),
            &[400, 401, 403, 415, 422, 429],
        ),
        (
            "GET",
            format!("{BASE}/unread"),
            unread,
            "subjectSocialUnread",
            "Unread messages over all the subject's chats (capped at 100): the navbar badge",
            vec!["id"],
            None,
            200,
            json!({"type": "object", "properties": {"unread": {"type": "integer"}, "capped": {"type": "boolean"}, "chats": {"type": "integer"}, "profileIds": {"type": "array", "items": uuid}}, "required": ["unread", "capped", "chats", "profileIds"]}),
            &[400, 401, 403],
        ),
        (
            "GET",
            p.clone(),
            list,
            "subjectSocialChats",
            "The profile's chats, most recently active first, with members, newest message and unread count",
            vec!["id", "profileId"],
            None,
            200,
            json!({"type": "array", "items": chat.clone()}),
            chat_errs,
        ),
        (
            "POST",
            p.clone(),
            start,
            "subjectSocialChatStart",
            "Starts a chat with other profiles (an existing one-to-one chat is answered with 200 instead)",
            vec!["id", "profileId"],
            Some(
                json!({"type": "object", "properties": {"profileIds": {"type": "array", "items": {"type": "string", "format": "uuid"}, "minItems": 1}, "title": {"type": "string", "maxLength": 500}}, "required": ["profileIds"]}),
            ),
            201,
            chat.clone(),
            write_errs,
        ),
        (
            "GET",
            p.clone() + "/{chatId}",
            one,
            "subjectSocialChat",
            "One of the profile's chats (404 when the profile is not a member)",
            vec!["id", "profileId", "chatId"],
            None,
            200,
            chat.clone(),
            chat_errs,
        ),
        (
            "POST",
            p.clone() + "/{chatId}/read",
            read,
            "subjectSocialChatRead",
            "Marks the chat read up to messageId (default: its newest message); marks only move forward",
            vec!["id", "profileId", "chatId"],
            Some(
                json!({"type": "object", "properties": {"messageId": {"type": "string", "format": "uuid"}}}),
            ),
            200,
            json!({"type": "object", "properties": {"chatId": uuid, "lastRead": {"type": "integer"}, "unread": {"type": "integer"}}, "required": ["chatId", "lastRead", "unread"]}),
            write_errs,
        ),
        (
            "GET",
            m.clone(),
            messages,
            "subjectSocialMessages",
            "A page of the chat's messages, oldest first: the newest ?limit (50, at most 100), those ?before a message id, or those ?after a position",
            vec!["id", "profileId", "chatId"],
            None,
            200,
            json!({"type": "array", "items": message.clone()}),
            chat_errs,
        ),
        (
            "POST",
            m.clone(),
            post,
            "subjectSocialMessageCreate",
            "Posts a message (1 to 4000 characters, up to 10 uploaded files by id)",
            vec!["id", "profileId", "chatId"],
            Some(post_body),
            201,
            message.clone(),
            write_errs,
        ),
        (
            "PATCH",
            m.clone() + "/{messageId}",
            edit,
            "subjectSocialMessageEdit",
            "Changes the text of one's own message",
            vec!["id", "profileId", "chatId", "messageId"],
            Some(text),
            200,
            message.clone(),
            write_errs,
        ),
        (
            "DELETE",
            m.clone() + "/{messageId}",
            delete,
            "subjectSocialMessageDelete",
            "Deletes one's own message",
            vec!["id", "profileId", "chatId", "messageId"],
            None,
            200,
            json!({"type": "object", "properties": {"ok": {"type": "boolean"}, "id": uuid}, "required": ["ok", "id"]}),
            chat_errs,
        ),
        (
            "POST",
            m + "/{messageId}/react",
            react,
            "subjectSocialMessageReact",
            "Adds an emoji reaction to a message, or takes it back when it is there",
            vec!["id", "profileId", "chatId", "messageId"],
            Some(
                json!({"type": "object", "properties": {"emoji": {"type": "string", "minLength": 1, "maxLength": 16}}, "required": ["emoji"]}),
            ),
            200,
            message,
            write_errs,
        ),
    ];
    let mut doc = custom(
        "social",
        "subjectSocialFileUpload",
        "Uploads a file the profile may attach to its messages (kept hidden: only the chats it is sent to show it)",
        path_params(&["id", "profileId"]),
        None,
        201,
        r("FileStorageFile"),
        &[400, 401, 403, 404, 413, 415, 422, 429, 503],
    );
    doc["requestBody"] = request_body_with_files(json!({"type": "object"}), &["file"]);
    let mut book = RouteBook::new().add(
        Access::Owner,
        "POST",
        &(BASE.to_owned() + "/profiles/{profileId}/files"),
        upload_route(c.clone()),
        doc,
    );
    book = book.add(
        Access::Admin,
        "GET",
        "/api/social/profiles/{id}/ai",
        route(c.clone(), "GET", ai_state),
        custom(
            "social",
            "socialProfileAi",
            "An AI profile's state: whether an AI service is configured (STOA_AI_*), its model, and this month's tokens against the profile's budget",
            path_params(&["id"]),
            None,
            200,
            json!({"title": "SocialProfileAiState", "type": "object", "properties": {
                "assistant": {"type": "boolean", "description": "The profile is of the variant artificial-intelligence"},
                "configured": {"type": "boolean", "description": "An AI service is configured: without one the profile stays silent"},
                "model": {"type": ["string", "null"]},
                "month": {"type": "string", "description": "YYYY-MM"},
                "used": {"type": "integer"},
                "budget": {"type": "integer"}
            }, "required": ["assistant", "configured", "model", "month", "used", "budget"]}),
            &[400, 401, 403, 404],
        ),
    );
    for (method, path, f, id, summary, params, body, status, result, errs) in table {
        let mut ps = path_params(&params);
        if id == "subjectSocialMessages" {
            ps.extend([
                json!({"name": "limit", "in": "query", "required": false, "description": "At most this many messages (default 50)", "schema": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE}}),
                json!({"name": "before", "in": "query", "required": false, "description": "Older than this message (paging back)", "schema": {"type": "string", "format": "uuid"}}),
                json!({"name": "after", "in": "query", "required": false, "description": "Past this position (catching up)", "schema": {"type": "integer", "minimum": 0}}),
            ]);
        }
        book = book.add(
            Access::Owner,
            method,
            &path,
            route(c.clone(), method, f),
            custom("social", id, summary, ps, body, status, result, errs),
        );
    }
    book
}

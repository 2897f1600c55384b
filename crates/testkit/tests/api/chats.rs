//! Chats on SQLite and PostgreSQL: members read, post, edit their own, react and mark read;
//! non-members are refused on every chat route; live events reach members only, survive a
//! reconnect, and carry revalidation of public data to every open page.

use std::time::Duration;

use serde_json::{Value, json};
use stoa_testkit::live::Live;
use stoa_testkit::users::Account;
use stoa_testkit::{TestApp, dual_test};

const S: &str = "/api/rbac/subjects";

/// A signed-in account with a profile to chat under.
pub(crate) struct Member {
    pub(crate) account: Account,
    pub(crate) profile: String,
}

impl Member {
    fn chats(&self) -> String {
        format!(
            "{S}/{}/social-module/profiles/{}/chats",
            self.account.id, self.profile
        )
    }
}

pub(crate) async fn member(app: &TestApp, email: &str, name: &str) -> Member {
    let account = app.register(email).await;
    let r = app
        .as_account(&account)
        .post(
            &format!("{S}/{}/social-module/profiles", account.id),
            &json!({"title": name}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let profile = r.data()["id"].as_str().unwrap().to_owned();
    Member { account, profile }
}

async fn post(app: &TestApp, m: &Member, chat: &str, text: &str) -> Value {
    let r = app
        .as_account(&m.account)
        .post(
            &format!("{}/{chat}/messages", m.chats()),
            &json!({"description": text}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    r.data().clone()
}

async fn start(app: &TestApp, a: &Member, b: &Member) -> String {
    let r = app
        .as_account(&a.account)
        .post(&a.chats(), &json!({"profileIds": [b.profile]}))
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    r.data()["id"].as_str().unwrap().to_owned()
}

/// Files in messages: a member uploads an attachment (kept hidden), sends it — with or
/// without words — and the other member sees it; nobody else lists or attaches it.
async fn attachments_go_to_the_chat_only(app: TestApp) {
    let alice = member(&app, "alice@files.test", "Alice").await;
    let bob = member(&app, "bob@files.test", "Bob").await;
    let eve = member(&app, "eve@files.test", "Eve").await;
    let (a, b, e) = (
        app.as_account(&alice.account),
        app.as_account(&bob.account),
        app.as_account(&eve.account),
    );
    let chat = start(&app, &alice, &bob).await;
    let files = |m: &Member| {
        format!(
            "{S}/{}/social-module/profiles/{}/files",
            m.account.id, m.profile
        )
    };
    let picture = crate::files::png(40, 30);
    let up = a
        .post_file(&files(&alice), "file", "forest.png", "image/png", &picture)
        .await;
    assert_eq!(up.status, 201, "{}", up.text);
    let file = up.data()["id"].as_str().unwrap().to_owned();
    let url = up.data()["file"].as_str().unwrap().to_owned();
    assert_eq!(up.data()["hidden"], true, "{}", up.text);
    assert_eq!(up.data()["width"], 40);
    assert_eq!(up.data()["adminTitle"], "forest.png");

    // Hidden: not listed, not readable by id, not through the profile's public links.
    for who in [app.anon(), app.as_account(&eve.account)] {
        let list = who.get("/api/file-storage/files?limit=100").await;
        assert_eq!(list.status, 200, "{}", list.text);
        assert!(!list.text.contains(&file), "{}", list.text);
        let one = who.get(&format!("/api/file-storage/files/{file}")).await;
        assert_eq!(one.status, 404, "{}", one.text);
        let links = who
            .get("/api/social/profiles-to-file-storage-module-files?limit=100")
            .await;
        assert_eq!(links.status, 200, "{}", links.text);
        assert!(!links.text.contains(&file), "{}", links.text);
    }
    // An admin sees every file.
    let admin = app.get(&format!("/api/file-storage/files/{file}")).await;
    assert_eq!(admin.status, 200, "{}", admin.text);

    // Another account cannot attach it, nor upload as Alice's profile.
    let r = e
        .post(
            &format!("{}/{chat}/messages", eve.chats()),
            &json!({"description": "x", "fileIds": [file]}),
        )
        .await;
    assert_eq!(r.status, 404, "not a member: {}", r.text);
    let eves = start(&app, &eve, &bob).await;
    let r = e
        .post(
            &format!("{}/{eves}/messages", eve.chats()),
            &json!({"description": "look", "fileIds": [file]}),
        )
        .await;
    assert_eq!(r.status, 422, "{}", r.text);
    assert!(r.text.contains("fileIds"), "{}", r.text);
    let r = e
        .post_file(
            &format!(
                "{S}/{}/social-module/profiles/{}/files",
                eve.account.id, alice.profile
            ),
            "file",
            "x.png",
            "image/png",
            &picture,
        )
        .await;
    assert_eq!(r.status, 403, "{}", r.text);
    let r = e
        .post_file(&files(&alice), "file", "x.png", "image/png", &picture)
        .await;
    assert_eq!(r.status, 403, "{}", r.text);
    // Not a file type we keep, and no file at all.
    let r = a
        .post_file(
            &files(&alice),
            "file",
            "page.png",
            "image/png",
            b"<html><script>1</script>",
        )
        .await;
    assert_eq!(r.status, 415, "{}", r.text);
    let r = a.post(&files(&alice), &json!({})).await;
    assert_eq!(r.status, 422, "{}", r.text);
    assert!(r.text.contains("file"), "{}", r.text);

    // Alice sends it without words; Bob sees the file in the message and can fetch it.
    let r = a
        .post(
            &format!("{}/{chat}/messages", alice.chats()),
            &json!({"fileIds": [file]}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(r.data()["description"], "");
    let msgs = b.get(&format!("{}/{chat}/messages", bob.chats())).await;
    let m = &msgs.data()[0];
    assert_eq!(m["files"][0]["id"], file.as_str(), "{}", msgs.text);
    assert_eq!(m["files"][0]["mimeType"], "image/png");
    assert_eq!(m["files"][0]["file"], url.as_str());
    let bytes = app.anon().get(&url).await;
    assert_eq!(bytes.status, 200);
    // An upload goes to one message: sending spends it.
    let r = a
        .post(
            &format!("{}/{chat}/messages", alice.chats()),
            &json!({"description": "again", "fileIds": [file]}),
        )
        .await;
    assert_eq!(r.status, 422, "{}", r.text);
    // Uploads never sent are swept (here at once); sent ones stay.
    let unsent = a
        .post_file(
            &files(&alice),
            "file",
            "later.png",
            "image/png",
            &crate::files::png(20, 20),
        )
        .await;
    assert_eq!(unsent.status, 201, "{}", unsent.text);
    let unsent = unsent.data()["id"].as_str().unwrap().to_owned();
    let chats = app.ctx.need::<stoa_social::chats::Chats>().unwrap();
    let gone = chats.sweep_uploads(Duration::ZERO).await.unwrap();
    assert_eq!(gone, 1);
    let r = app.get(&format!("/api/file-storage/files/{unsent}")).await;
    assert_eq!(r.status, 404, "{}", r.text);
    let r = app.get(&format!("/api/file-storage/files/{file}")).await;
    assert_eq!(r.status, 200, "{}", r.text);
    // Uploads are limited per account (before the body is read): the 61st in an hour is a 429.
    let dan = member(&app, "dan@files.test", "Dan").await;
    let d = app.as_account(&dan.account);
    let tiny = crate::files::png(2, 2);
    for i in 0..stoa_social::chats::UPLOADS_PER_HOUR {
        let r = d
            .post_file(
                &files(&dan),
                "file",
                &format!("{i}.png"),
                "image/png",
                &tiny,
            )
            .await;
        assert_eq!(r.status, 201, "upload {i}: {}", r.text);
    }
    let r = d
        .post_file(&files(&dan), "file", "one-more.png", "image/png", &tiny)
        .await;
    assert_eq!(r.status, 429, "{}", r.text);
    // Neither words nor files is still refused.
    let r = a
        .post(
            &format!("{}/{chat}/messages", alice.chats()),
            &json!({"description": "  ", "fileIds": []}),
        )
        .await;
    assert_eq!(r.status, 422, "{}", r.text);
}

dual_test!(attachments_go_to_the_chat_only);

async fn chats_are_for_members(app: TestApp) {
    let alice = member(&app, "alice@chat.test", "Alice").await;
    let bob = member(&app, "bob@chat.test", "Bob").await;
    let carol = member(&app, "carol@chat.test", "Carol").await;
    let (a, b, c) = (
        app.as_account(&alice.account),
        app.as_account(&bob.account),
        app.as_account(&carol.account),
    );

    let chat = start(&app, &alice, &bob).await;
    // Starting it again finds the same one-to-one chat.
    let again = a
        .post(&alice.chats(), &json!({"profileIds": [bob.profile]}))
        .await;
    assert_eq!(again.status, 200, "{}", again.text);
    assert_eq!(again.data()["id"], chat.as_str());
    let nobody = a
        .post(
            &alice.chats(),
            &json!({"profileIds": [uuid::Uuid::new_v4()]}),
        )
        .await;
    assert_eq!(nobody.status, 422, "{}", nobody.text);
    assert!(nobody.text.contains("profileIds[0]"), "{}", nobody.text);

    // Alice writes; Bob sees it, unread, and reads it. Chat activity clears no public cache.
    let public = app.store.public_version();
    let first = post(&app, &alice, &chat, "  Hello, Bob  ").await;
    assert_eq!(app.store.public_version(), public);
    assert_eq!(first["description"], "Hello, Bob");
    assert_eq!(first["profileId"], alice.profile.as_str());
    let unread = b
        .get(&format!("{S}/{}/social-module/unread", bob.account.id))
        .await;
    assert_eq!(unread.data()["unread"], 1, "{}", unread.text);
    let list = b.get(&bob.chats()).await;
    assert_eq!(list.status, 200, "{}", list.text);
    assert_eq!(list.data()[0]["id"], chat.as_str());
    assert_eq!(list.data()[0]["unread"], 1);
    assert_eq!(list.data()[0]["lastMessage"]["description"], "Hello, Bob");
    assert_eq!(list.data()[0]["members"].as_array().unwrap().len(), 2);
    let msgs = b.get(&format!("{}/{chat}/messages", bob.chats())).await;
    assert_eq!(msgs.data().as_array().unwrap().len(), 1, "{}", msgs.text);
    let read = b
        .post(&format!("{}/{chat}/read", bob.chats()), &json!({}))
        .await;
    assert_eq!(read.status, 200, "{}", read.text);
    assert_eq!(read.data()["unread"], 0);
    let unread = b
        .get(&format!("{S}/{}/social-module/unread", bob.account.id))
        .await;
    assert_eq!(unread.data()["unread"], 0, "{}", unread.text);
    // The author has read what it wrote.
    let mine = a.get(&format!("{}/{chat}", alice.chats())).await;
    assert_eq!(mine.data()["unread"], 0, "{}", mine.text);

    // Only the author edits or deletes; anyone in the chat reacts.
    let id = first["id"].as_str().unwrap();
    let msg = |m: &Member| format!("{}/{chat}/messages/{id}", m.chats());
    let r = b.patch(&msg(&bob), &json!({"description": "hacked"})).await;
    assert_eq!(r.status, 403, "{}", r.text);
    let r = b.delete(&msg(&bob)).await;
    assert_eq!(r.status, 403, "{}", r.text);
    let r = a
        .patch(&msg(&alice), &json!({"description": "Hello again, Bob"}))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.data()["description"], "Hello again, Bob");
    assert!(r.data()["editedAt"].is_string(), "{}", r.text);
    let react = format!("{}/react", msg(&bob));
    let r = b.post(&react, &json!({"emoji": "👍"})).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.data()["reactions"][0]["emoji"], "👍");
    assert_eq!(r.data()["reactions"][0]["count"], 1);
    let r = b.post(&react, &json!({"emoji": "👍"})).await;
    assert_eq!(
        r.data()["reactions"].as_array().unwrap().len(),
        0,
        "{}",
        r.text
    );
    let r = b.post(&react, &json!({})).await;
    assert_eq!(r.status, 422, "{}", r.text);

    // Bad messages are refused with the field named.
    for bad in [
        json!({"description": "   "}),
        json!({"description": "x".repeat(4001)}),
        json!({}),
    ] {
        let r = a
            .post(&format!("{}/{chat}/messages", alice.chats()), &bad)
            .await;
        assert_eq!(r.status, 422, "{}", r.text);
        assert!(r.text.contains("description"), "{}", r.text);
    }

    // Carol is not in the chat: every chat route says there is no such chat.
    let carol_chat = format!("{}/{chat}", carol.chats());
    for (method, path, body) in [
        ("GET", carol_chat.clone(), None),
        ("GET", format!("{carol_chat}/messages"), None),
        (
            "POST",
            format!("{carol_chat}/messages"),
            Some(json!({"description": "hi"})),
        ),
        (
            "PATCH",
            format!("{carol_chat}/messages/{id}"),
            Some(json!({"description": "x"})),
        ),
        ("DELETE", format!("{carol_chat}/messages/{id}"), None),
        (
            "POST",
            format!("{carol_chat}/messages/{id}/react"),
            Some(json!({"emoji": "👎"})),
        ),
        ("POST", format!("{carol_chat}/read"), Some(json!({}))),
    ] {
        let r = c.call(method, &path, body.as_ref()).await;
        assert_eq!(r.status, 404, "{method} {path}: {}", r.text);
    }
    assert_eq!(
        c.get(&carol.chats()).await.data().as_array().unwrap().len(),
        0
    );
    // Alice's profile in Carol's path, and Alice's account in the path: refused.
    let r = c
        .get(&format!(
            "{S}/{}/social-module/profiles/{}/chats/{chat}/messages",
            carol.account.id, alice.profile
        ))
        .await;
    assert_eq!(r.status, 403, "{}", r.text);
    let r = c.get(&format!("{}/{chat}/messages", alice.chats())).await;
    assert_eq!(r.status, 403, "{}", r.text);
    let r = app
        .anon()
        .get(&format!("{}/{chat}/messages", alice.chats()))
        .await;
    assert_eq!(r.status, 401, "{}", r.text);
    // The generic message routes stay admin-only.
    assert_eq!(c.get("/api/social/messages").await.status, 403);

    // History pages back by message, oldest first.
    let mut ids = vec![id.to_owned()];
    for n in 1..=5 {
        ids.push(
            post(&app, &bob, &chat, &format!("message {n}")).await["id"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    let page = |q: String| {
        let a = app.as_account(&alice.account);
        let url = format!("{}/{chat}/messages?{q}", alice.chats());
        async move {
            let r = a.get(&url).await;
            assert_eq!(r.status, 200, "{}", r.text);
            r.data()
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["id"].as_str().unwrap().to_owned())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(page("limit=2".into()).await, ids[4..6].to_vec());
    assert_eq!(
        page(format!("limit=2&before={}", ids[4])).await,
        ids[2..4].to_vec()
    );
    assert_eq!(
        page(format!("limit=10&before={}", ids[2])).await,
        ids[0..2].to_vec()
    );
    let r = a
        .get(&format!("{}/{chat}/messages?limit=1000", alice.chats()))
        .await;
    assert_eq!(r.status, 400, "{}", r.text);

    // Deleting one's own message.
    let r = b
        .delete(&format!("{}/{chat}/messages/{}", bob.chats(), ids[5]))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(page("limit=100".into()).await, ids[0..5].to_vec());
}

dual_test!(chats_are_for_members);

/// An open `GET /api/live` stream of `app`.
async fn open_live(app: &TestApp, jwt: Option<&str>, last: Option<&str>) -> Live {
    Live::open(&app.plain, &app.url("/api/live"), jwt, last).await
}

const SECOND: Duration = Duration::from_secs(1);

async fn live_events_reach_members_only(app: TestApp) {
    let alice = member(&app, "alice@live.test", "Alice").await;
    let bob = member(&app, "bob@live.test", "Bob").await;
    let carol = member(&app, "carol@live.test", "Carol").await;
    let chat = start(&app, &alice, &bob).await;

    let mut to_bob = open_live(&app, Some(&bob.account.jwt), None).await;
    let mut to_carol = open_live(&app, Some(&carol.account.jwt), None).await;
    let mut to_anon = open_live(&app, None, None).await;
    for s in [&mut to_bob, &mut to_carol, &mut to_anon] {
        assert!(s.until("hello", SECOND).await.is_some());
    }

    let sent = post(&app, &alice, &chat, "live hello").await;
    let got = to_bob
        .until("chat.message", 2 * SECOND)
        .await
        .expect("bob hears it");
    assert_eq!(got.data["chatId"], chat.as_str());
    assert_eq!(got.data["message"]["id"], sent["id"]);
    assert_eq!(got.data["message"]["description"], "live hello");

    // Bob drops; Alice writes twice; Bob comes back with the last id he saw and gets both.
    let resume = to_bob.last_id.clone().expect("an event id");
    drop(to_bob);
    let m1 = post(&app, &alice, &chat, "while you were away 1").await;
    let m2 = post(&app, &alice, &chat, "while you were away 2").await;
    let mut back = open_live(&app, Some(&bob.account.jwt), Some(&resume)).await;
    let missed = back.chat_events(SECOND).await;
    let ids: Vec<&Value> = missed
        .iter()
        .filter(|e| e.kind == "chat.message")
        .map(|e| &e.data["message"]["id"])
        .collect();
    assert_eq!(ids, vec![&m1["id"], &m2["id"]], "{missed:?}");
    // A reaction and a read mark reach him live too.
    let react = format!(
        "{}/{chat}/messages/{}/react",
        alice.chats(),
        m2["id"].as_str().unwrap()
    );
    app.as_account(&alice.account)
        .post(&react, &json!({"emoji": "🔥"}))
        .await;
    let r = back
        .until("chat.reaction", 2 * SECOND)
        .await
        .expect("reaction");
    assert_eq!(r.data["reactions"][0]["emoji"], "🔥");

    // An id the server cannot resume from: told to reload.
    let mut stale = open_live(&app, Some(&bob.account.jwt), Some("0000.1")).await;
    assert!(stale.until("reset", SECOND).await.is_some());

    // Carol and an anonymous visitor heard nothing of the chat.
    assert!(to_carol.chat_events(SECOND / 2).await.is_empty());
    assert!(to_anon.chat_events(SECOND / 2).await.is_empty());

    // An admin's edit of public data reaches every open page as a revalidation (and moves the
    // counter public caches are keyed on).
    let public = app.store.public_version();
    let widget = app
        .create(
            "/api/website-builder/widgets",
            &json!({"variant": "default", "title": {"en": "Before"}}),
        )
        .await;
    assert_ne!(app.store.public_version(), public);
    assert!(
        to_anon
            .revalidated("website-builder.widget", 3 * SECOND)
            .await
    );
    let r = app
        .patch(
            &format!(
                "/api/website-builder/widgets/{}",
                widget["id"].as_str().unwrap()
            ),
            &json!({"title": {"en": "After"}}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert!(
        to_carol
            .revalidated("website-builder.widget", 3 * SECOND)
            .await
    );
    // One account holds at most 16 streams (Bob has two open: `back` and `stale`).
    let mut more = Vec::new();
    for _ in 0..14 {
        more.push(open_live(&app, Some(&bob.account.jwt), None).await);
    }
    let r = app
        .plain
        .get(app.url("/api/live"))
        .bearer_auth(&bob.account.jwt)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 429);
    drop(more);
    // Private data is revalidated for administrators only.
    let mut to_admin = open_live(
        &app,
        Some(&app.admin_account("root@live.test").await.jwt),
        None,
    )
    .await;
    post(&app, &bob, &chat, "private").await;
    assert!(to_admin.revalidated("social.message", 3 * SECOND).await);
    // Nor is chat activity (links between private records): nothing social reaches visitors.
    let deadline = tokio::time::Instant::now() + SECOND;
    while let Some(e) = to_anon
        .until(
            "revalidate",
            deadline.saturating_duration_since(tokio::time::Instant::now()),
        )
        .await
    {
        let keys = e.data["entities"].as_array().unwrap();
        assert!(
            keys.iter()
                .all(|k| !k.as_str().unwrap().starts_with("social.")),
            "{keys:?}"
        );
    }
}

dual_test!(live_events_reach_members_only);

/// Chat writes are limited per account; one account's flood does not limit another.
async fn chat_writes_are_limited(db: stoa_testkit::Db) {
    let Some(app) = stoa_testkit::spawn_app_with(db, |c| c.chat_rate = 5).await else {
        return;
    };
    let alice = member(&app, "alice@flood.test", "Alice").await; // write 1
    let bob = member(&app, "bob@flood.test", "Bob").await;
    let chat = start(&app, &alice, &bob).await; // write 2
    for n in 3..=5 {
        post(&app, &alice, &chat, &format!("message {n}")).await;
    }
    let r = app
        .as_account(&alice.account)
        .post(
            &format!("{}/{chat}/messages", alice.chats()),
            &json!({"description": "one too many"}),
        )
        .await;
    assert_eq!(r.status, 429, "{}", r.text);
    assert!(r.header("retry-after").is_some(), "{:?}", r.headers);
    post(&app, &bob, &chat, "Bob still writes").await;
}

dual_test!(chat_writes_are_limited, db);

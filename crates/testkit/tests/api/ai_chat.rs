//! The AI participant in chats, on SQLite and PostgreSQL against a local fake of the
//! chat-completions API (`stoa_fakes::chat_completions`): two people and an AI profile in a
//! chat; the answer streams to both over the live channel and is kept; the profile's
//! instructions in the person's language and the chat's history are its context; the tokens are
//! counted against its monthly budget, which once spent is said in the chat; the service down or
//! silent gives a clear message in the chat, not a hang; with no service configured it is silent
//! and the admin says so.

use std::time::Duration;

use serde_json::{Value, json};
use stoa_fakes::chat_completions::{ChatFake, Mode};
use stoa_testkit::live::Live;
use stoa_testkit::users::Account;
use stoa_testkit::{Db, TestApp, dual_test, spawn_app_with};

const S: &str = "/api/rbac/subjects";

/// A signed-in account and the profile it chats under (the chats suite's).
async fn person(app: &TestApp, email: &str, name: &str) -> (Account, String) {
    let m = crate::chats::member(app, email, name).await;
    (m.account, m.profile)
}

fn chats(a: &Account, profile: &str) -> String {
    format!("{S}/{}/social-module/profiles/{profile}/chats", a.id)
}

async fn say(app: &TestApp, a: &Account, profile: &str, chat: &str, text: &str) -> Value {
    let r = app
        .as_account(a)
        .post(
            &format!("{}/{chat}/messages", chats(a, profile)),
            &json!({"description": text}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    r.data().clone()
}

/// The AI message's texts as `live` saw them, until one equals or contains `done`.
async fn answer_seen(live: &mut Live, ai: &str, done: &str) -> Vec<String> {
    let mut texts = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let Some(e) = live.next(left).await else {
            panic!("no final answer «{done}» within 15 s; seen: {texts:?}");
        };
        if !e.kind.starts_with("chat.message") || e.data["message"]["profileId"] != json!(ai) {
            continue;
        }
        let t = e.data["message"]["description"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let last = t.contains(done);
        texts.push(t);
        if last {
            return texts;
        }
    }
}

async fn an_ai_member_answers_both_as_it_writes(db: Db) {
    let fake = ChatFake::start().await.expect("fake");
    let (base, key) = (fake.base.clone(), fake.key.clone());
    let app = spawn_app_with(db, move |c| {
        c.ai.ai_base_url = Some(base);
        c.ai.ai_api_key = Some(key);
        c.ai.ai_timeout = 3;
    })
    .await
    .expect("app");
    let (alice, ap) = person(&app, "alice@ai.test", "Alice").await;
    let (bob, bp) = person(&app, "bob@ai.test", "Bob").await;
    let ai = app
        .create(
            "/api/social/profiles",
            &json!({
                "variant": "artificial-intelligence",
                "title": {"en": "Helper", "ru": "Помощник"},
                "aiPrompt": {"en": "You are the garden site's helper.", "ru": "Ты помощник садового сайта."},
                "aiMonthlyTokens": 10000
            }),
        )
        .await;
    let ai_id = ai["id"].as_str().unwrap().to_owned();
    let state = app.get(&format!("/api/social/profiles/{ai_id}/ai")).await;
    assert_eq!(state.data()["configured"], json!(true), "{}", state.text);
    assert_eq!(state.data()["used"], json!(0), "{}", state.text);
    let r = app
        .as_account(&alice)
        .post(&chats(&alice, &ap), &json!({"profileIds": [bp, ai_id]}))
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let chat = r.data()["id"].as_str().unwrap().to_owned();
    let mut la = Live::open(&app.plain, &app.url("/api/live"), Some(&alice.jwt), None).await;
    let mut lb = Live::open(&app.plain, &app.url("/api/live"), Some(&bob.jwt), None).await;

    let question = "Hello helper, which trees grow well in a small garden by the sea?";
    say(&app, &alice, &ap, &chat, question).await;
    let want = format!("You said: Alice: {question}");
    let seen_a = answer_seen(&mut la, &ai_id, &want).await;
    let seen_b = answer_seen(&mut lb, &ai_id, &want).await;
    for seen in [&seen_a, &seen_b] {
        // The placeholder, at least one part of the answer as it was written, then all of it.
        assert_eq!(seen.first().map(String::as_str), Some("…"), "{seen:?}");
        assert!(
            seen.iter()
                .any(|t| t != "…" && t.len() < want.len() && want.starts_with(t.as_str())),
            "streamed in parts: {seen:?}"
        );
        assert_eq!(seen.last(), Some(&want), "{seen:?}");
    }
    // Kept: the chat's history holds the answer, written by the AI profile (kept a moment
    // after the last of it is streamed).
    let mut last = Value::Null;
    for _ in 0..50 {
        let history = app
            .as_account(&bob)
            .get(&format!("{}/{chat}/messages", chats(&bob, &bp)))
            .await;
        last = history.data().as_array().unwrap().last().unwrap().clone();
        if last["description"] == json!(want) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        (last["profileId"].clone(), last["description"].clone()),
        (json!(ai_id), json!(want)),
        "{last}"
    );
    // Its context: the instructions in English, the question with its author's name.
    let req = fake.requests().last().cloned().unwrap();
    assert!(
        req["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("garden site's helper"),
        "{req}"
    );
    assert_eq!(req["stream"], json!(true));
    assert!(
        req["messages"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["role"] == "user" && m["content"] == json!(format!("Alice: {question}"))),
        "{req}"
    );
    // Counted: the fake's usage.
    let state = app.get(&format!("/api/social/profiles/{ai_id}/ai")).await;
    let used = state.data()["used"].as_i64().unwrap();
    assert!(used > 0, "{}", state.text);

    // In Russian: the Russian instructions, and its earlier answer as its own turn.
    say(
        &app,
        &bob,
        &bp,
        &chat,
        "Привет! А какие деревья растут у моря?",
    )
    .await;
    answer_seen(&mut la, &ai_id, "Привет! А какие деревья").await;
    let req = fake.requests().last().cloned().unwrap();
    assert!(
        req["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("садового сайта"),
        "{req}"
    );
    assert!(
        req["messages"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["role"] == "assistant" && m["content"] == json!(want)),
        "{req}"
    );

    // The service down, then silent: a message saying so, within the timeout, not a hang.
    fake.set_mode(Mode::Down);
    say(&app, &alice, &ap, &chat, "Are you there?").await;
    answer_seen(&mut lb, &ai_id, "the AI service is not responding").await;
    fake.set_mode(Mode::Silent);
    let t = std::time::Instant::now();
    say(&app, &alice, &ap, &chat, "Still there?").await;
    answer_seen(&mut lb, &ai_id, "the AI service is not responding").await;
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());

    // The month's budget spent: it says so, and asks the service nothing.
    fake.set_mode(Mode::Answer);
    let asked = fake.requests().len();
    app.patch(
        &format!("/api/social/profiles/{ai_id}"),
        &json!({"aiMonthlyTokens": used}),
    )
    .await;
    say(&app, &alice, &ap, &chat, "One more question").await;
    answer_seen(&mut la, &ai_id, "this month's budget").await;
    assert_eq!(
        fake.requests().len(),
        asked,
        "nothing asked once the budget is spent"
    );
}
dual_test!(an_ai_member_answers_both_as_it_writes, db);

/// An assistant answers at most `ANSWERS_PER_MINUTE` messages a minute: a burst past it leaves
/// the rest unanswered (and unpaid), not queued for ever.
async fn an_assistant_answers_a_burst_only_up_to_its_rate(db: Db) {
    let fake = ChatFake::start().await.expect("fake");
    let (base, key) = (fake.base.clone(), fake.key.clone());
    let app = spawn_app_with(db, move |c| {
        c.ai.ai_base_url = Some(base);
        c.ai.ai_api_key = Some(key);
        c.chat_rate = 100;
    })
    .await
    .expect("app");
    let (alice, ap) = person(&app, "alice@burst.test", "Alice").await;
    let ai = app
        .create(
            "/api/social/profiles",
            &json!({"variant": "artificial-intelligence", "title": {"en": "Helper"}, "aiMonthlyTokens": 1_000_000}),
        )
        .await;
    let ai_id = ai["id"].as_str().unwrap().to_owned();
    let r = app
        .as_account(&alice)
        .post(&chats(&alice, &ap), &json!({"profileIds": [ai_id]}))
        .await;
    let chat = r.data()["id"].as_str().unwrap().to_owned();
    let limit = stoa_social::chats::ai::ANSWERS_PER_MINUTE as usize;
    for i in 0..limit + 5 {
        say(&app, &alice, &ap, &chat, &format!("Question number {i}")).await;
    }
    // Every answer given is whole; then no more come.
    let answers = |h: &Value| {
        h.as_array()
            .unwrap()
            .iter()
            .filter(|m| m["profileId"] == json!(ai_id) && m["description"] != "…")
            .count()
    };
    let mut seen = 0;
    for _ in 0..100 {
        let h = app
            .as_account(&alice)
            .get(&format!("{}/{chat}/messages?limit=100", chats(&alice, &ap)))
            .await;
        seen = answers(h.data());
        if seen >= limit {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let h = app
        .as_account(&alice)
        .get(&format!("{}/{chat}/messages?limit=100", chats(&alice, &ap)))
        .await;
    assert_eq!((seen, answers(h.data())), (limit, limit), "{}", h.text);
    assert_eq!(
        fake.requests().len(),
        limit,
        "the service asked once per answer"
    );
}
dual_test!(an_assistant_answers_a_burst_only_up_to_its_rate, db);

/// With no AI service configured the variant is silent, and the admin's state says so.
async fn without_a_service_the_assistant_is_silent(app: TestApp) {
    let (alice, ap) = person(&app, "alice@noai.test", "Alice").await;
    let ai = app
        .create(
            "/api/social/profiles",
            &json!({"variant": "artificial-intelligence", "title": {"en": "Helper"}}),
        )
        .await;
    let ai_id = ai["id"].as_str().unwrap().to_owned();
    let state = app.get(&format!("/api/social/profiles/{ai_id}/ai")).await;
    assert_eq!(state.data()["configured"], json!(false), "{}", state.text);
    assert_eq!(state.data()["assistant"], json!(true), "{}", state.text);
    let r = app
        .as_account(&alice)
        .post(&chats(&alice, &ap), &json!({"profileIds": [ai_id]}))
        .await;
    let chat = r.data()["id"].as_str().unwrap().to_owned();
    say(&app, &alice, &ap, &chat, "Hello?").await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    let history = app
        .as_account(&alice)
        .get(&format!("{}/{chat}/messages", chats(&alice, &ap)))
        .await;
    assert_eq!(
        history.data().as_array().map(Vec::len),
        Some(1),
        "{}",
        history.text
    );
}
dual_test!(without_a_service_the_assistant_is_silent);

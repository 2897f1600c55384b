//! The AI participant: a profile of the variant `artificial-intelligence` that is a member of a
//! chat answers its other members' messages through an OpenAI-compatible chat-completions
//! endpoint (`STOA_AI_*`). The answer is written as a message of the profile and streamed to the
//! members over the live channel as it comes (`chat.message.edited` with the text so far), then
//! kept. The chat's recent messages are the context, after the profile's own instructions in the
//! person's language. Answers are rate-limited per profile and counted against the profile's
//! monthly token budget; a service that fails or falls silent gives a message saying so in the
//! chat, never a hang. Without a configured service the variant stays silent.

use std::time::Instant;

use stoa_api::config::AiConfig;

use super::*;

/// The variant that answers.
pub const AI: &str = "artificial-intelligence";
/// The queue job that writes one answer.
pub const ANSWER_JOB: &str = "social.ai.answer";
/// Messages of the chat an answer reads.
const HISTORY: u64 = 20;
/// Answers one AI profile may start per minute (the rest are not answered).
pub const ANSWERS_PER_MINUTE: u32 = 20;
/// The longest answer asked for, in tokens.
const MAX_ANSWER_TOKENS: i64 = 1024;
/// How often the growing answer is pushed to the members.
const PUSH_EVERY: Duration = Duration::from_millis(200);
/// Most bytes of one streamed answer read (an answer is at most `MAX_MESSAGE` characters).
const MAX_STREAM: usize = 1024 * 1024;

/// The configured chat-completions service.
pub struct AiService {
    url: String,
    key: Option<String>,
    pub model: String,
    timeout: Duration,
    client: reqwest::Client,
}

impl AiService {
    /// The service `STOA_AI_*` name; `None` when no base URL is set.
    pub fn from_config(c: &AiConfig) -> std::result::Result<Option<Self>, String> {
        let Some(base) = c
            .ai_base_url
            .as_deref()
            .map(str::trim)
            .filter(|b| !b.is_empty())
        else {
            return Ok(None);
        };
        if !(base.starts_with("https://") || base.starts_with("http://")) {
            return Err(format!(
                "STOA_AI_BASE_URL must be an http(s) URL, not {base}"
            ));
        }
        let timeout = Duration::from_secs(c.ai_timeout.max(1));
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10).min(timeout))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| format!("the AI client: {e}"))?;
        Ok(Some(Self {
            url: format!("{}/chat/completions", base.trim_end_matches('/')),
            key: c.ai_api_key.clone().filter(|k| !k.is_empty()),
            model: c.ai_model.clone(),
            timeout,
            client,
        }))
    }
}

/// The language of `text`: Russian when it is written in Cyrillic, else English.
pub fn language_of(text: &str) -> &'static str {
    let cyrillic = text
        .chars()
        .filter(|c| ('\u{400}'..='\u{4ff}').contains(c))
        .count();
    let latin = text.chars().filter(char::is_ascii_alphabetic).count();
    if cyrillic > 0 && cyrillic >= latin / 2 {
        "ru"
    } else {
        "en"
    }
}

/// What the assistant says in the chat itself, per language.
fn says(lang: &str, what: &str) -> &'static str {
    match (lang, what) {
        ("ru", "down") => "Не могу ответить сейчас: ИИ-сервис не отвечает. Попробуйте чуть позже.",
        (_, "down") => {
            "I can't answer right now: the AI service is not responding. Please try again a little later."
        }
        ("ru", "budget") => {
            "Я израсходовал бюджет ответов на этот месяц и снова смогу отвечать в следующем."
        }
        (_, "budget") => {
            "I have used up this month's budget for answers; I can answer again next month."
        }
        ("ru", "empty") => "(пустой ответ)",
        (_, "empty") => "(an empty answer)",
        ("ru", "prompt") => {
            "Ты — вежливый помощник в чате на этом сайте. Отвечай кратко и по делу."
        }
        _ => {
            "You are a helpful assistant in a chat on this website. Answer briefly and to the point."
        }
    }
}

/// `YYYY-MM` of now: the month a budget counts.
fn this_month() -> String {
    let t = now();
    format!("{:04}-{:02}", t.year(), u8::from(t.month()))
}

/// One answer's stream read so far.
#[derive(Default)]
struct Streamed {
    text: String,
    tokens: Option<i64>,
    done: bool,
}

impl Streamed {
    /// Takes the complete `data:` lines of `buf` (server-sent events), leaving a partial line.
    fn take_lines(&mut self, buf: &mut Vec<u8>) -> std::result::Result<(), String> {
        while let Some(i) = buf.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = buf.drain(..=i).collect();
            let line = String::from_utf8_lossy(&line);
            let Some(data) = line.trim().strip_prefix("data:") else {
                continue;
            };
            let data = data.trim();
            if data == "[DONE]" {
                self.done = true;
                return Ok(());
            }
            let Ok(v) = serde_json::from_str::<Value>(data) else {
                continue;
            };
            if let Some(e) = v.get("error") {
                return Err(e
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("the service answered an error")
                    .to_owned());
            }
            if let Some(d) = v
                .pointer("/choices/0/delta/content")
                .and_then(Value::as_str)
                && self.text.chars().count() < MAX_MESSAGE
            {
                self.text.push_str(d);
            }
            if let Some(n) = v.pointer("/usage/total_tokens").and_then(Value::as_i64) {
                self.tokens = Some(n);
            }
        }
        Ok(())
    }
}

impl Chats {
    /// Queues an answer from every AI member of `chat` other than `author` to `message`.
    pub(super) async fn call_assistants(
        &self,
        chat: Uuid,
        author: Uuid,
        message: Uuid,
        text: &str,
    ) -> Result<()> {
        if self.ai.is_none() {
            return Ok(());
        }
        let members: Vec<Uuid> = self
            .members_of(&[chat])
            .await?
            .iter()
            .filter_map(|m| m.profile_id)
            .filter(|p| *p != author)
            .collect();
        if members.is_empty() {
            return Ok(());
        }
        let e = self.store.entity(PROFILE)?;
        let vals: Vec<Val> = members.iter().copied().map(Val::Uuid).collect();
        let found = self.store.find_in(&e, "id", &vals, members.len()).await?;
        let assistants: Vec<Uuid> = typed::<AssistantRow>(&found)?
            .into_iter()
            .filter(|p| p.variant.as_deref() == Some(AI))
            .map(|p| p.id)
            .collect();
        if assistants.is_empty() {
            return Ok(());
        }
        let lang = language_of(text);
        let mut tx = self.store.db.begin().await?;
        for a in assistants {
            let job = stoa_store::jobs::NewJob::now(
                ANSWER_JOB,
                json!({"chat": chat, "profile": a, "message": message, "lang": lang}),
            )
            .dedupe(format!("{ANSWER_JOB}:{a}:{message}"));
            stoa_store::jobs::enqueue(&mut tx.exec(), &job).await?;
        }
        tx.commit().await
    }

    /// Writes `profile`'s message into `chat` (as an answer is written: no subject, no rate) and
    /// tells the members: its link and its view.
    async fn write_as(
        &self,
        profile: Uuid,
        chat: Uuid,
        text: &str,
    ) -> Result<(LinkRow, ChatMessage)> {
        let mut tx = self.store.begin().await?;
        let (_, link) = self
            .message_in(&mut tx.exec(), chat, profile, text, position_now())
            .await?;
        tx.commit().await?;
        let view = self.announce(chat, link.clone()).await?;
        Ok((link, view))
    }

    /// Keeps `text` as the message of `link` and tells the members.
    async fn settle(&self, chat: Uuid, link: LinkRow, text: &str) -> Result<()> {
        let id = link
            .message_id
            .ok_or_else(|| Error::internal("a message link without its message"))?;
        self.rewrite(chat, link, id, json!({"description": text}))
            .await?;
        Ok(())
    }

    /// Adds `delta` tokens to `profile`'s count for `month` — all of them, or none when `cap` is
    /// given and they would pass it. A compare-and-set on the count, so answers running at once
    /// never overwrite each other's (a new month starts the count at zero).
    async fn count_tokens(
        &self,
        profile: Uuid,
        month: &str,
        delta: i64,
        cap: Option<i64>,
    ) -> Result<bool> {
        let e = self.store.entity(PROFILE)?;
        let (Some(u), Some(m)) = (e.field_index("aiTokensUsed"), e.field_index("aiMonth")) else {
            return Err(Error::internal("social.profile has no AI budget fields"));
        };
        for _ in 0..16 {
            let Some(row) = self.assistant(profile).await? else {
                return Ok(false);
            };
            let stored = row.ai_tokens_used.unwrap_or(0);
            let used = if row.ai_month.as_deref() == Some(month) {
                stored
            } else {
                0
            };
            let next = (used + delta).max(0);
            if cap.is_some_and(|c| next > c) {
                return Ok(false);
            }
            let mut tx = self.store.begin().await?;
            let done = repo::update_if(
                &mut tx.exec(),
                &e,
                profile,
                &[(u, Val::Int(next)), (m, Val::Text(month.to_owned()))],
                &[(u, Val::Int(stored))],
            )
            .await?;
            tx.commit().await?;
            if done.is_some() {
                return Ok(true);
            }
        }
        Err(Error::Unavailable(
            "the assistant's token count is too busy; try again".into(),
        ))
    }

    /// The AI profile `profile` answers `message` in `chat` (the queue's `social.ai.answer`).
    pub async fn answer(&self, chat: Uuid, profile: Uuid, message: Uuid, lang: &str) -> Result<()> {
        let Some(svc) = self.ai.as_ref() else {
            return Ok(());
        };
        let lang = if lang == "ru" { "ru" } else { "en" };
        let Some(me) = self.assistant_in(chat, profile).await? else {
            return Ok(());
        };
        if self.ai_rate.check(&profile.to_string()).await.is_err() {
            tracing::info!(%profile, %chat, "an AI profile answered its most this minute: not answering");
            return Ok(());
        }
        let month = this_month();
        let budget = me.ai_monthly_tokens.unwrap_or(0);
        let Some(history) = self.history_up_to(chat, message).await? else {
            return Ok(());
        };
        let messages = self.conversation(&me, profile, lang, &history).await?;
        // The budget: what the question reads (about four characters a token) and the longest
        // answer asked for are set aside before asking; the service's count settles it after.
        let read = tokens_read(&messages);
        let max_tokens = MAX_ANSWER_TOKENS.min(budget.saturating_sub(read));
        let reserved = read + max_tokens;
        if max_tokens < 16
            || !self
                .count_tokens(profile, &month, reserved, Some(budget))
                .await?
        {
            return self.say_out_of_budget(profile, chat, lang, &history).await;
        }
        // Placed now, after the message answered: the members see it being written.
        let (link, placeholder) = self.write_as(profile, chat, "…").await?;
        let body = json!({
            "model": svc.model,
            "messages": messages,
            "stream": true,
            "stream_options": {"include_usage": true},
            "max_tokens": max_tokens,
        });
        let started = Instant::now();
        let mut got = Streamed::default();
        let outcome = self.stream(svc, &body, chat, &placeholder, &mut got).await;
        let spent = spent_tokens(&got, outcome.is_ok(), read);
        self.count_tokens(profile, &month, spent - reserved, None)
            .await?;
        if let Err(why) = &outcome {
            tracing::warn!(%profile, %chat, error = %why, ms = started.elapsed().as_millis() as u64, "the AI service did not answer");
        }
        let kept = kept_answer(outcome.is_ok(), got.text.trim(), lang);
        self.settle(chat, link, &kept).await
    }

    /// Profile `profile` as the AI participant reads it (`None`: there is no such profile).
    async fn assistant(&self, profile: Uuid) -> Result<Option<AssistantRow>> {
        self.first(PROFILE, &[("id", Val::Uuid(profile))])
            .await?
            .as_ref()
            .map(AssistantRow::of)
            .transpose()
    }

    /// `profile` when it is an AI profile still a member of `chat` (`None`: it does not answer).
    async fn assistant_in(&self, chat: Uuid, profile: Uuid) -> Result<Option<AssistantRow>> {
        let Some(me) = self.assistant(profile).await? else {
            return Ok(None);
        };
        let still_member = self
            .first(
                MEMBERS,
                &[
                    ("profileId", Val::Uuid(profile)),
                    ("chatId", Val::Uuid(chat)),
                ],
            )
            .await?
            .is_some();
        if me.variant.as_deref() != Some(AI) || !still_member {
            return Ok(None);
        }
        Ok(Some(me))
    }

    /// The context: the chat's newest messages up to the one answered, oldest first (`None`: a
    /// message deleted before its answer began is not answered).
    async fn history_up_to(&self, chat: Uuid, message: Uuid) -> Result<Option<Vec<ChatMessage>>> {
        let Ok(asked) = self.link_of(chat, message).await else {
            return Ok(None);
        };
        let e = self.store.entity(IN_CHAT)?;
        let q = FindQuery::all()
            .eq(&e, "chatId", Val::Uuid(chat))?
            .filter(
                &e,
                "orderIndex",
                Op::Lte,
                FilterValue::One(Val::Int(asked.order_index.unwrap_or(i64::MAX))),
            )?
            .sort(&e, "orderIndex", true)?
            .take(HISTORY);
        let mut links: Vec<LinkRow> = typed(&self.store.find(&e, &q).await?.rows)?;
        links.reverse();
        Ok(Some(self.messages_of(&links).await?))
    }

    /// The messages asked of the service: the profile's instructions, then `history` by author.
    async fn conversation(
        &self,
        me: &AssistantRow,
        profile: Uuid,
        lang: &str,
        history: &[ChatMessage],
    ) -> Result<Vec<Value>> {
        let names = {
            let ids: Vec<Uuid> = history.iter().filter_map(|m| m.more.profile_id).collect();
            self.profile_cards(&ids).await?
        };
        let name_of = |p: Uuid| name_in(&names, p, lang);
        let prompt = instructions(me, lang);
        let mut messages = vec![json!({"role": "system", "content": format!(
            "{prompt}\n\nYou are {} in this chat. Answer in {}.",
            name_of(profile),
            if lang == "ru" { "Russian" } else { "English" }
        )})];
        for m in history {
            let author = m.more.profile_id;
            let text = m.row["description"].as_str().unwrap_or_default();
            if text.is_empty() {
                continue;
            }
            messages.push(match author {
                Some(a) if a == profile => json!({"role": "assistant", "content": text}),
                Some(a) => json!({"role": "user", "content": format!("{}: {text}", name_of(a))}),
                None => json!({"role": "user", "content": text}),
            });
        }
        Ok(messages)
    }

    /// Says in the chat that the budget is spent — once: not again while it is the assistant's
    /// last word there.
    async fn say_out_of_budget(
        &self,
        profile: Uuid,
        chat: Uuid,
        lang: &str,
        history: &[ChatMessage],
    ) -> Result<()> {
        let last_own = history
            .iter()
            .rev()
            .find(|m| m.more.profile_id == Some(profile))
            .and_then(|m| m.row["description"].as_str());
        if last_own != Some(says("en", "budget")) && last_own != Some(says("ru", "budget")) {
            self.write_as(profile, chat, says(lang, "budget")).await?;
        }
        Ok(())
    }

    /// Streams the answer into `got`, pushing the text so far to the members; an error says why
    /// the service failed (refused, errored, silent too long, too slow in all).
    async fn stream(
        &self,
        svc: &AiService,
        body: &Value,
        chat: Uuid,
        placeholder: &ChatMessage,
        got: &mut Streamed,
    ) -> std::result::Result<(), String> {
        let deadline = Instant::now() + svc.timeout;
        let idle = (svc.timeout / 3).max(Duration::from_secs(1));
        let mut req = svc.client.post(&svc.url).json(body);
        if let Some(k) = &svc.key {
            req = req.bearer_auth(k);
        }
        let mut res = tokio::time::timeout(idle, req.send())
            .await
            .map_err(|_| "no answer to the request".to_owned())?
            .map_err(|e| format!("the request failed: {e}"))?;
        if !res.status().is_success() {
            return Err(format!("the service answered {}", res.status()));
        }
        let mut buf: Vec<u8> = Vec::new();
        let mut read = 0usize;
        let mut pushed = Instant::now();
        let mut shown = 0usize;
        while !got.done {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err("the answer took too long".into());
            }
            let chunk = tokio::time::timeout(idle.min(left), res.chunk())
                .await
                .map_err(|_| "the service fell silent".to_owned())?
                .map_err(|e| format!("the stream broke: {e}"))?;
            let Some(chunk) = chunk else { break };
            read += chunk.len();
            if read > MAX_STREAM {
                return Err("the answer was too long".into());
            }
            buf.extend_from_slice(&chunk);
            got.take_lines(&mut buf)?;
            if got.text.len() != shown && pushed.elapsed() >= PUSH_EVERY {
                let mut view = placeholder.clone();
                view.row["description"] = json!(got.text);
                self.tell(
                    chat,
                    "chat.message.edited",
                    json!({"chatId": chat, "message": view}),
                )
                .await;
                pushed = Instant::now();
                shown = got.text.len();
            }
        }
        Ok(())
    }

    /// What the admin shows of an AI profile: whether a service answers, with which model, and
    /// this month's tokens against the budget.
    pub async fn ai_state(&self, profile: Uuid) -> Result<AiState> {
        let me = self
            .assistant(profile)
            .await?
            .ok_or_else(|| Error::not_found("no such profile"))?;
        let month = this_month();
        let used = if me.ai_month.as_deref() == Some(month.as_str()) {
            me.ai_tokens_used.unwrap_or(0)
        } else {
            0
        };
        Ok(AiState {
            assistant: me.variant.as_deref() == Some(AI),
            configured: self.ai.is_some(),
            model: self.ai.as_ref().map(|s| s.model.clone()),
            month,
            used,
            budget: me.ai_monthly_tokens.unwrap_or(0),
        })
    }
}

/// The name of profile `p` among `names`, in `lang` (else English, else its admin title).
fn name_in(names: &HashMap<Uuid, ProfileCard>, p: Uuid, lang: &str) -> String {
    names
        .get(&p)
        .and_then(|c| {
            c.title.0[lang]
                .as_str()
                .or_else(|| c.title.0["en"].as_str())
                .or(c.admin_title.as_deref())
        })
        .unwrap_or("?")
        .to_owned()
}

/// The AI profile's own instructions in `lang` (else English, else the default prompt).
fn instructions(me: &AssistantRow, lang: &str) -> String {
    me.ai_prompt
        .as_ref()
        .and_then(|p| {
            p.get(lang)
                .or_else(|| p.get("en"))
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        })
        .unwrap_or_else(|| says(lang, "prompt").to_owned())
}

/// The tokens `messages` read, at about four characters a token.
fn tokens_read(messages: &[Value]) -> i64 {
    let read: usize = messages
        .iter()
        .map(|m| m["content"].as_str().map_or(0, str::len))
        .sum();
    i64::try_from(read / 4 + 1).unwrap_or(i64::MAX)
}

/// What an answer spent: the service's count, else about four characters a token both ways
/// (nothing when nothing came back).
fn spent_tokens(got: &Streamed, ok: bool, read: i64) -> i64 {
    let tokens = got
        .tokens
        .unwrap_or_else(|| read + i64::try_from(got.text.len() / 4).unwrap_or(i64::MAX));
    if ok || !got.text.trim().is_empty() {
        tokens
    } else {
        0
    }
}

/// The message an answer leaves: its text, or says it came back empty or the service is down.
fn kept_answer(ok: bool, text: &str, lang: &str) -> String {
    let kept = match (ok, text.is_empty()) {
        (true, true) => says(lang, "empty").to_owned(),
        (true, false) => text.to_owned(),
        (false, true) => says(lang, "down").to_owned(),
        (false, false) => format!("{text}\n\n{}", says(lang, "down")),
    };
    kept.chars().take(MAX_MESSAGE).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_language_follows_the_script() {
        assert_eq!(language_of("Как дела?"), "ru");
        assert_eq!(language_of("How are you?"), "en");
        assert_eq!(language_of("Привет, Stoa!"), "ru");
        assert_eq!(language_of("12345"), "en");
    }

    #[test]
    fn a_stream_is_read_line_by_line_across_chunks() {
        let mut s = Streamed::default();
        let mut buf = b"data: {\"choices\":[{\"delta\":{\"content\":\"Hel".to_vec();
        assert!(s.take_lines(&mut buf).is_ok());
        assert_eq!(s.text, "");
        buf.extend_from_slice(
            b"lo\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\" there\"}}]}\n",
        );
        assert!(s.take_lines(&mut buf).is_ok());
        assert_eq!(s.text, "Hello there");
        buf.extend_from_slice(
            b"data: {\"choices\":[],\"usage\":{\"total_tokens\":42}}\ndata: [DONE]\n",
        );
        assert!(s.take_lines(&mut buf).is_ok());
        assert_eq!((s.tokens, s.done), (Some(42), true));
        let mut e = Streamed::default();
        let mut buf = b"data: {\"error\":{\"message\":\"overloaded\"}}\n".to_vec();
        assert_eq!(e.take_lines(&mut buf), Err("overloaded".to_owned()));
    }
}

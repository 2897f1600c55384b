//! The notification engine: notifications are written to the outbox (`notification.notification`)
//! with a delivery job due at their `sendAfter`, rendered from their template in the recipient's
//! language, and delivered by their channel — email through SMTP (`STOA_SMTP_URL`), Telegram
//! through the Bot API (`STOA_TELEGRAM_BOT_TOKEN`). A failed attempt is retried by the job queue
//! with exponential backoff; after `STOA_NOTIFY_ATTEMPTS` the notification is `failed` with the
//! last error, and an admin may send it again. A channel that is not configured (development)
//! keeps its notifications in the outbox and prints them to the log.

mod composing;
mod delivery;

pub use delivery::due_along_query;

use std::collections::HashMap;
use std::time::Duration;

use lettre::message::header::ContentType;
use lettre::message::{Attachment, Mailbox, MultiPart};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use serde_json::{Map, Value, json};
use stoa_kernel::value::{Val, format_timestamp, now};
use stoa_kernel::{Error, Result};
use stoa_store::jobs::{self, NewJob};
use stoa_store::{Record, Store, repo};
use uuid::Uuid;

/// Where mail goes.
#[derive(Clone, Debug, Default)]
pub struct MailConfig {
    /// `smtp://host:port` (plain or STARTTLS with `?tls=required`), `smtps://host:port` (TLS);
    /// credentials as `smtp://user:pass@host`. `None`: keep mail in the outbox and log it.
    pub smtp_url: Option<String>,
    /// The From address.
    pub from: String,
    /// The Telegram channel, when a bot token is set.
    pub telegram: Option<crate::telegram::TelegramConfig>,
    /// Delivery attempts before a notification is failed.
    pub attempts: u32,
    /// The wait before the second attempt (doubling after each failure, at most an hour).
    pub backoff: Duration,
    /// The site's address (`STOA_PUBLIC_URL`): the log points to the admin's outbox there.
    pub public_url: String,
    /// The HTML part's brand colour (`STOA_MAIL_BRAND_COLOR`, `#rrggbb`).
    pub brand: Option<String>,
}

/// How a notification is delivered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Channel {
    #[default]
    Email,
    Telegram,
}

impl Channel {
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Email => "email",
            Channel::Telegram => "telegram",
        }
    }

    pub fn parse(s: &str) -> Option<Channel> {
        match s {
            "email" => Some(Channel::Email),
            "telegram" => Some(Channel::Telegram),
            _ => None,
        }
    }
}

/// The job that delivers one notification.
pub const JOB_DELIVER: &str = "notification.deliver";

/// The delivery job of attempt `attempt + 1` of notification `nid`: it sends only while the
/// notification has had exactly `attempt` attempts, so a mail another delivery took along
/// ([`Mailer::attempt`]) is not sent again by its own job.
pub(crate) fn deliver_job(nid: Uuid, attempt: i64) -> NewJob {
    NewJob::now(
        JOB_DELIVER,
        json!({"notification": nid, "attempt": attempt}),
    )
}

/// Connections to the mail server kept open and used at once (lettre's pool): mail is sent over
/// them one message after another instead of a connection (and a TLS handshake) per message.
const SMTP_CONNECTIONS: u32 = 8;

/// One notification to queue (an email unless `channel` says otherwise).
#[derive(Default)]
pub struct Email<'a> {
    pub topic: &'a str,
    pub template_variant: &'a str,
    pub to: &'a str,
    /// `en`, `ru`…; the template falls back to `en`, then to any language it has.
    pub language: &'a str,
    /// Template data kept with the notification (readable by admins).
    pub data: Value,
    /// Template data that must never be served (reset links): stored in a secret column.
    pub secret: Value,
    /// Stored files (`/files/…` URLs) sent along (a receipt).
    pub attachments: Vec<String>,
    /// Email (the address in `to`) or Telegram (the chat id in `to`).
    pub channel: Channel,
    /// Not before this time (now when `None`).
    pub send_after: Option<time::OffsetDateTime>,
}

#[derive(Clone)]
pub struct Mailer {
    store: Store,
    transport: Option<AsyncSmtpTransport<Tokio1Executor>>,
    /// At most [`SMTP_CONNECTIONS`] sends at once: beyond its size the pool opens a connection
    /// for one message and drops it.
    sending: std::sync::Arc<tokio::sync::Semaphore>,
    from: Mailbox,
    /// Reads attachments (file-storage).
    files: Option<std::sync::Arc<dyn stoa_api::files::FileReader>>,
    telegram: Option<crate::telegram::Telegram>,
    attempts: u32,
    backoff: Duration,
    /// The topics and templates the platform's own mail uses.
    pub in_use: std::sync::Arc<InUse>,
    look: crate::compose::Look,
    public_url: String,
    /// The site's pages: a mail is headed with the site's name in its language (host provides
    /// them; set once everything is set up, see [`Mailer::set_site`]).
    site: std::sync::Arc<std::sync::OnceLock<std::sync::Arc<dyn stoa_api::module::Pages>>>,
    /// Topics and templates as last read, while their tables are unchanged (see [`Setups`]).
    setups: std::sync::Arc<std::sync::Mutex<Setups>>,
}

/// The topics (by slug) and templates (by variant and by id) a mail is written and composed
/// with, kept while the store's change counters of both tables stand still — which a write
/// anywhere in the cluster moves — so a paid order's mail reads neither again. At most
/// [`SETUPS_KEPT`] rows.
#[derive(Default)]
struct Setups {
    versions: (u64, u64),
    rows: HashMap<SetupKey, Record>,
}

/// How a [`Setups`] row was found.
#[derive(Clone, PartialEq, Eq, Hash)]
enum SetupKey {
    /// By (entity, the value of its key field): a topic by slug, a template by variant.
    Named(&'static str, String),
    /// A template by id.
    Template(Uuid),
}

/// Most rows [`Setups`] keeps.
const SETUPS_KEPT: usize = 512;

const TOPIC: &str = "notification.topic";
const TEMPLATE: &str = "notification.template";

/// A notification as its recipient receives it.
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct Composed {
    pub to: String,
    pub subject: String,
    /// The text part (and the Telegram message).
    pub text: String,
    /// The HTML alternative (email).
    pub html: String,
    pub language: String,
    /// The absolute links it carries, in order.
    pub links: Vec<String>,
}

/// Topic slugs and template variants the platform's own mail is written with (the reset mail,
/// receipts, payment alerts): the API may neither delete them nor rename them away, since a flow
/// would then find nothing to send (see [`Kept`]).
pub struct InUse {
    pub topics: std::sync::Arc<Kept>,
    pub templates: std::sync::Arc<Kept>,
}

/// The topics every platform mail is filed under.
pub const TOPICS: [&str; 2] = ["information", "security"];
/// The reset mail's template.
pub const RESET_TEMPLATE: &str = "reset-password";

impl Default for InUse {
    fn default() -> Self {
        Self {
            topics: std::sync::Arc::new(Kept::new("topic", "slug", &TOPICS)),
            templates: std::sync::Arc::new(Kept::new("template", "variant", &[RESET_TEMPLATE])),
        }
    }
}

/// The write guard of one kind of mail record (`what`): the `field` values in use stay.
pub struct Kept {
    what: &'static str,
    field: &'static str,
    names: std::sync::RwLock<std::collections::HashSet<String>>,
}

impl Kept {
    fn new(what: &'static str, field: &'static str, names: &[&str]) -> Self {
        Self {
            what,
            field,
            names: std::sync::RwLock::new(names.iter().map(|n| (*n).to_owned()).collect()),
        }
    }

    /// Marks `name` as used by a flow.
    pub fn keep(&self, name: &str) {
        if let Ok(mut s) = self.names.write() {
            s.insert(name.to_owned());
        }
    }

    fn used(&self, name: &str) -> bool {
        self.names.read().is_ok_and(|s| s.contains(name))
    }

    fn refusal(&self, v: &str, doing: &str) -> Error {
        Error::conflict_field(
            self.field,
            format!(
                "the {} '{v}' is used by the platform's own mail and cannot be {doing}; edit its \
                 texts instead",
                self.what
            ),
        )
    }
}

impl stoa_store::guard::WriteGuard for Kept {
    fn fields(&self) -> &[&'static str] {
        std::slice::from_ref(&self.field)
    }

    fn writes(&self) -> &[&'static str] {
        &[]
    }

    fn check(
        &self,
        old: &Record,
        input: &Map<String, Value>,
        _actor: &str,
    ) -> Result<stoa_store::guard::Effects> {
        let was = old.text(self.field).unwrap_or_default();
        let to = input.get(self.field).and_then(Value::as_str);
        if self.used(was) && to.is_some_and(|t| t != was) {
            return Err(self.refusal(was, "renamed"));
        }
        Ok(Default::default())
    }

    fn check_delete(&self, old: &Record) -> Result<()> {
        let v = old.text(self.field).unwrap_or_default();
        if self.used(v) {
            return Err(self.refusal(v, "deleted"));
        }
        Ok(())
    }
}

impl Mailer {
    pub fn new(store: Store, config: &MailConfig) -> Result<Self> {
        let from: Mailbox = config
            .from
            .parse()
            .map_err(|e| Error::bad_request(format!("STOA_MAIL_FROM is not an address: {e}")))?;
        let transport = match &config.smtp_url {
            Some(url) if !url.is_empty() => Some(
                AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
                    .map_err(|e| Error::bad_request(format!("STOA_SMTP_URL is not usable: {e}")))?
                    .timeout(Some(Duration::from_secs(15)))
                    .pool_config(
                        lettre::transport::smtp::PoolConfig::new().max_size(SMTP_CONNECTIONS),
                    )
                    .build(),
            ),
            _ => None,
        };
        let telegram = match &config.telegram {
            Some(t) => Some(crate::telegram::Telegram::new(t)?),
            None => None,
        };
        Ok(Self {
            store,
            transport,
            sending: std::sync::Arc::new(tokio::sync::Semaphore::new(SMTP_CONNECTIONS as usize)),
            from,
            files: None,
            telegram,
            attempts: config.attempts.max(1),
            backoff: config.backoff.max(Duration::from_millis(100)),
            in_use: Default::default(),
            look: crate::compose::Look {
                site: crate::compose::site_of(&config.from),
                brand: crate::compose::brand_colour(config.brand.as_deref()),
            },
            public_url: config.public_url.trim_end_matches('/').to_owned(),
            site: Default::default(),
            setups: Default::default(),
        })
    }

    /// The row found as `key`: kept (see [`Setups`]), or read by `read` and kept. The counters
    /// are taken before the read, so a write that moves them meanwhile makes the next lookup
    /// read again.
    async fn kept(
        &self,
        key: SetupKey,
        read: impl std::future::Future<Output = Result<Record>>,
    ) -> Result<Record> {
        let v = (self.store.version(TOPIC), self.store.version(TEMPLATE));
        if let Some(r) = self
            .setups
            .lock()
            .ok()
            .filter(|k| k.versions == v)
            .and_then(|k| k.rows.get(&key).cloned())
        {
            return Ok(r);
        }
        let row = read.await?;
        if let Ok(mut k) = self.setups.lock() {
            if k.versions != v || k.rows.len() >= SETUPS_KEPT {
                *k = Setups {
                    versions: v,
                    ..Setups::default()
                };
            }
            k.rows.insert(key, row.clone());
        }
        Ok(row)
    }

    /// Template `id` (kept while the templates are unchanged, see [`Setups`]).
    pub(crate) async fn template(&self, id: Uuid) -> Result<Record> {
        let read = async { self.store.get(&*self.store.entity(TEMPLATE)?, id).await };
        self.kept(SetupKey::Template(id), read).await
    }

    /// Heads mail with the site's name as its pages give it, in each mail's language (else the
    /// From address's display name).
    pub fn set_site(&self, pages: std::sync::Arc<dyn stoa_api::module::Pages>) {
        let _ = self.site.set(pages);
    }

    /// How a mail in `language` looks: the site's name in that language, when the site has one.
    async fn look_in(&self, language: &str) -> crate::compose::Look {
        let mut look = self.look.clone();
        if let Some(pages) = self.site.get()
            && let Ok(Some(home)) = pages.bundle("/").await
            && let Some(name) = stoa_api::module::bundle_site_name(&home, language)
        {
            look.site = name.to_owned();
        }
        look
    }

    /// Attachments are read through `files`.
    pub fn with_files(mut self, files: std::sync::Arc<dyn stoa_api::files::FileReader>) -> Self {
        self.files = Some(files);
        self
    }

    /// The topic `slug` and the template `variant`, as [`Mailer::queue`] finds them: a
    /// `NotFound` naming the one that is missing.
    async fn setup(&self, topic: &str, variant: &str) -> Result<(Record, Record)> {
        let s = &self.store;
        let topic_row = self
            .kept(
                SetupKey::Named(TOPIC, topic.to_owned()),
                one(s, TOPIC, "slug", topic),
            )
            .await?;
        let template = self
            .kept(
                SetupKey::Named(TEMPLATE, variant.to_owned()),
                one(s, TEMPLATE, "variant", variant),
            )
            .await?;
        Ok((topic_row, template))
    }

    /// Checks that topic `slug` and template `variant` exist before queueing what a caller named:
    /// a 422 naming the caller's field (`fields`: topic's, template's) of the missing one.
    pub async fn check_setup(&self, topic: &str, variant: &str, fields: [&str; 2]) -> Result<()> {
        let s = &self.store;
        for (entity, key, value, field) in [
            ("notification.topic", "slug", topic, fields[0]),
            ("notification.template", "variant", variant, fields[1]),
        ] {
            match one(s, entity, key, value).await {
                Ok(_) => {}
                Err(Error::NotFound { message, .. }) => {
                    return Err(Error::invalid_field(field, message));
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Writes the notification (linked to its topic and template) in one transaction and hands it
    /// to delivery in the background. Returns the notification id.
    pub async fn queue(&self, email: Email<'_>) -> Result<Uuid> {
        let ready = self.prepare(email).await?;
        let mut tx = self.store.begin().await?;
        let id = self.write_in(&mut tx.exec(), ready).await?;
        tx.commit().await?;
        Ok(id)
    }

    /// What [`Mailer::queue`] reads before it writes (the topic, the template, the subject in the
    /// mail's language): a caller that writes the notification with its own rows, in its own
    /// transaction ([`Mailer::write_in`]), reads it first, so the transaction holds no reads.
    pub async fn prepare(&self, email: Email<'_>) -> Result<Prepared> {
        let (topic, template) = match self.setup(email.topic, email.template_variant).await {
            Ok(x) => x,
            Err(Error::NotFound { message, .. }) => {
                // Only a write around the API can get here (the guards keep these rows).
                tracing::error!(
                    topic = email.topic,
                    template = email.template_variant,
                    "a mail cannot be written: {message}; restore it in the admin"
                );
                return Err(Error::internal(format!("mail setup missing: {message}")));
            }
            Err(e) => return Err(e),
        };
        let (topic_id, template_id) = (Record::must_id(&topic)?, Record::must_id(&template)?);
        let words = crate::rows::TemplateRow::of(&template)?;
        let subject = pick(&words.subject, email.language)
            .or(words.title)
            .unwrap_or_else(|| "Notification".to_owned());
        let subject = render(&subject, &email.data).unwrap_or(subject);
        let send_after = email.send_after.unwrap_or_else(now);
        let mut input = Map::new();
        input.insert("status".into(), json!("new"));
        input.insert("method".into(), json!(email.channel.as_str()));
        input.insert("title".into(), json!(subject));
        input.insert("reciever".into(), json!(email.to));
        input.insert("language".into(), json!(email.language));
        input.insert("data".into(), email.data);
        input.insert("sendAfter".into(), json!(rfc3339(send_after)?));
        if !email.attachments.is_empty() {
            input.insert("attachments".into(), json!(email.attachments));
        }
        Ok(Prepared {
            input,
            secret: bound_secret(email.secret, email.to),
            topic_id,
            template_id,
            send_after,
        })
    }

    /// Writes a [`Prepared`] notification with its links and its delivery job in the caller's
    /// transaction: delivered once that transaction commits. Returns the notification id.
    pub async fn write_in(
        &self,
        exec: &mut stoa_store::db::Exec<'_>,
        ready: Prepared,
    ) -> Result<Uuid> {
        let s = &self.store;
        let n = s.entity("notification.notification")?;
        let secret = n
            .field_index("secretData")
            .ok_or_else(|| Error::internal("notification.secretData is not declared"))?;
        // The secret column is written by the insert itself (no input may name it).
        let row = s
            .create_with_in(exec, &n, &ready.input, &[(secret, Val::Text(ready.secret))])
            .await?;
        let nid = Record::must_id(&row)?;
        // The links and the job go out with the caller's next statement or its commit
        // (PostgreSQL): one statement, not three.
        s.link_later(
            exec,
            &*s.entity("notification.notifications-to-templates")?,
            ("notificationId", nid),
            ("templateId", ready.template_id),
        )
        .await?;
        s.link_later(
            exec,
            &*s.entity("notification.topics-to-notifications")?,
            ("topicId", ready.topic_id),
            ("notificationId", nid),
        )
        .await?;
        // Delivered by the queue, at its time: the notification and its job commit together.
        jobs::enqueue_later(
            exec,
            &deliver_job(nid, 0)
                .at(ready.send_after)
                .dedupe(format!("notification:{nid}:queued")),
        )
        .await?;
        Ok(nid)
    }
}

/// A notification read and ready to write ([`Mailer::prepare`], [`Mailer::write_in`]).
pub struct Prepared {
    input: Map<String, Value>,
    secret: String,
    topic_id: Uuid,
    template_id: Uuid,
    send_after: time::OffsetDateTime,
}

impl std::fmt::Debug for Mailer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mailer")
            .field("smtp", &self.transport.is_some())
            .finish()
    }
}

fn rfc3339(t: time::OffsetDateTime) -> Result<String> {
    Ok(format_timestamp(t))
}

async fn one(s: &Store, entity: &str, field: &str, value: &str) -> Result<Record> {
    let e = s.entity(entity)?;
    s.find_by(&e, &[(field, Val::Text(value.to_owned()))], 1)
        .await?
        .into_iter()
        .next()
        .ok_or_else(|| Error::not_found(format!("no {entity} with {field} '{value}'")))
}

/// The text for `language` from a translation map, else English, else any.
fn pick(map: &Option<Value>, language: &str) -> Option<String> {
    let m = map.as_ref()?.as_object()?;
    let get = |k: &str| m.get(k).and_then(Value::as_str).filter(|s| !s.is_empty());
    get(language)
        .or_else(|| get("en"))
        .or_else(|| m.values().find_map(Value::as_str))
        .map(str::to_owned)
}

/// What a one-time secret reads as where it is not shown (in English; see [`hidden_in`]).
pub const HIDDEN: &str = "(sent only to the recipient)";

/// [`HIDDEN`] in the mail's `language`.
pub fn hidden_in(language: &str) -> &'static str {
    match language {
        "ru" => "(отправлено только адресату)",
        _ => HIDDEN,
    }
}

/// Renders a template body (`{{ rbac.resetUrl }}` placeholders) with `data`. A missing or null
/// value prints as nothing (never "None").
pub fn render(source: &str, data: &Value) -> Result<String> {
    let mut env = minijinja::Environment::new();
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Lenient);
    env.set_formatter(|out, state, value| {
        if value.is_none() || value.is_undefined() {
            Ok(())
        } else {
            minijinja::escape_formatter(out, state, value)
        }
    });
    env.render_str(source, data)
        .map_err(|e| Error::invalid_field("body", format!("the template does not render: {e}")))
}

/// A seed template (a notification.template input, as modules declare them) rendered in every
/// language its body is written in: `(language, subject, body)`. A template that does not render
/// gives empty text, which the caller's checks then catch. For modules' tests of their templates.
pub fn render_seed(template: &Value, data: &Value) -> Vec<(String, String, String)> {
    let text = |k: &str, lang: &str| {
        render(template[k][lang].as_str().unwrap_or_default(), data).unwrap_or_default()
    };
    template["body"]
        .as_object()
        .map(|langs| {
            langs
                .keys()
                .map(|l| (l.clone(), text("subject", l), text("body", l)))
                .collect()
        })
        .unwrap_or_default()
}

impl Mailer {
    /// Writes `templates` (notification.template inputs) once per database, as seed `name`:
    /// other modules seed their mail templates through this.
    pub async fn ensure_templates(&self, name: &str, templates: &[Value]) -> Result<()> {
        for v in templates.iter().filter_map(|t| t["variant"].as_str()) {
            self.in_use.templates.keep(v);
        }
        let store = &self.store;
        if stoa_store::seed::applied(&store.db, name).await? {
            return Ok(());
        }
        let template = store.entity("notification.template")?;
        let mut tx = store.begin().await?;
        {
            let mut exec = tx.exec();
            for t in templates {
                if let Some(m) = t.as_object() {
                    store.create_in(&mut exec, &template, m).await?;
                }
            }
            stoa_store::seed::mark(&mut exec, name).await?;
        }
        tx.commit().await?;
        Ok(())
    }
}

/// A module's seed that writes its mail templates once (`ModuleDef::seed(templates_seed(…))`):
/// other modules ship their templates through this.
pub fn templates_seed(
    name: &'static str,
    templates: fn() -> Vec<Value>,
) -> impl for<'a> Fn(&'a stoa_api::module::Context) -> stoa_api::module::BoxFuture<'a, Result<()>>
+ Send
+ Sync
+ 'static {
    move |ctx| {
        Box::pin(async move {
            ctx.need::<Mailer>()
                .map_err(Error::internal)?
                .ensure_templates(name, &templates())
                .await
        })
    }
}

/// Default topics and the reset-password template (English and Russian).
pub async fn seed(store: &Store) -> Result<()> {
    const NAME: &str = "notification.defaults.v1";
    if stoa_store::seed::applied(&store.db, NAME).await? {
        return Ok(());
    }
    let topic = store.entity("notification.topic")?;
    let template = store.entity("notification.template")?;
    let mut tx = store.begin().await?;
    {
        let mut exec = tx.exec();
        for (slug, title, kind) in [
            ("information", "Information", "info"),
            ("security", "Security", "security"),
        ] {
            let input = json!({"slug": slug, "title": title, "type": kind, "adminTitle": title});
            if let Some(m) = input.as_object() {
                store.create_in(&mut exec, &topic, m).await?;
            }
        }
        let reset = json!({
            "slug": "reset-password",
            "adminTitle": "Password reset",
            "variant": "reset-password",
            "title": "Password reset",
            "subject": {"en": "Reset your password", "ru": "Сброс пароля"},
            "body": {
                "en": "Someone asked to reset the password of your account.\n\nTo choose a new password, open this link within 15 minutes:\n{{ resetUrl }}\n\nIf it was not you, ignore this email: your password stays the same.\n",
                "ru": "Кто-то запросил сброс пароля вашей учётной записи.\n\nЧтобы задать новый пароль, откройте ссылку в течение 15 минут:\n{{ resetUrl }}\n\nЕсли это были не вы, просто проигнорируйте письмо: пароль останется прежним.\n"
            }
        });
        if let Some(m) = reset.as_object() {
            store.create_in(&mut exec, &template, m).await?;
        }
        stoa_store::seed::mark(&mut exec, NAME).await?;
    }
    tx.commit().await?;
    tracing::info!(seed = NAME, "seeded notification topics and templates");
    Ok(())
}

/// The key in a notification's secret naming the address the secret was made for.
const SECRET_FOR: &str = "_for";

/// A kept secret (JSON text) with its values gone: each name reads [`HIDDEN`].
pub(crate) fn secret_names(kept: &str) -> String {
    match serde_json::from_str::<Value>(kept) {
        Ok(Value::Object(m)) => Value::Object(
            m.into_iter()
                .filter(|(k, _)| k != SECRET_FOR)
                .map(|(k, _)| (k, json!(HIDDEN)))
                .collect(),
        )
        .to_string(),
        _ => "{}".to_owned(),
    }
}

/// `secret` as kept: bound to `to`, so a notification re-pointed at another address does not carry it.
fn bound_secret(secret: Value, to: &str) -> String {
    let mut secret = secret;
    if let Value::Object(m) = &mut secret {
        m.insert(SECRET_FOR.into(), json!(to));
    }
    secret.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sent_secret_keeps_only_its_names() {
        let kept = bound_secret(
            json!({"code": "123456", "verifyUrl": "https://x/v?code=123456"}),
            "a@b.test",
        );
        let names: Value = serde_json::from_str(&secret_names(&kept)).unwrap();
        assert_eq!(names, json!({"code": HIDDEN, "verifyUrl": HIDDEN}));
        assert_eq!(secret_names("not json"), "{}");
    }
}

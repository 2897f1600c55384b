//! The email channel: notifications are written to the outbox (`notification.notification`),
//! rendered from their template in the recipient's language and delivered by SMTP when
//! `STOA_SMTP_URL` is set. Without SMTP (development) they stay in the outbox and are printed to
//! the log.

use std::time::Duration;

use lettre::message::header::ContentType;
use lettre::message::{Attachment, Mailbox, MultiPart, SinglePart};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use serde_json::{Map, Value, json};
use stoa_kernel::value::Val;
use stoa_kernel::{Error, Result};
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
}

/// One email to queue.
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
}

#[derive(Clone)]
pub struct Mailer {
    store: Store,
    transport: Option<AsyncSmtpTransport<Tokio1Executor>>,
    from: Mailbox,
    /// Reads attachments (file-storage).
    files: Option<std::sync::Arc<dyn stoa_api::files::FileReader>>,
    /// The topics and templates the platform's own mail uses.
    pub in_use: std::sync::Arc<InUse>,
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
                    .build(),
            ),
            _ => None,
        };
        Ok(Self {
            store,
            transport,
            from,
            files: None,
            in_use: Default::default(),
        })
    }

    /// Attachments are read through `files`.
    pub fn with_files(mut self, files: std::sync::Arc<dyn stoa_api::files::FileReader>) -> Self {
        self.files = Some(files);
        self
    }

    /// Writes the notification (linked to its topic and template) in one transaction and hands it
    /// to delivery in the background. Returns the notification id.
    pub async fn queue(&self, email: Email<'_>) -> Result<Uuid> {
        let s = &self.store;
        let found = async {
            let topic = one(s, "notification.topic", "slug", email.topic).await?;
            let template = one(
                s,
                "notification.template",
                "variant",
                email.template_variant,
            )
            .await?;
            Ok::<_, Error>((topic, template))
        };
        let (topic, template) = match found.await {
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
        let subject = pick(&template.json("subject"), email.language)
            .or_else(|| template.text("title").map(str::to_owned))
            .unwrap_or_else(|| "Notification".to_owned());
        let subject = render(&subject, &email.data).unwrap_or(subject);
        let n = s.entity("notification.notification")?;
        let mut input = Map::new();
        input.insert("status".into(), json!("new"));
        input.insert("method".into(), json!("email"));
        input.insert("title".into(), json!(subject));
        input.insert("reciever".into(), json!(email.to));
        input.insert("language".into(), json!(email.language));
        input.insert("data".into(), email.data);
        if !email.attachments.is_empty() {
            input.insert("attachments".into(), json!(email.attachments));
        }
        let mut tx = s.db.begin().await?;
        let row = {
            let mut exec = tx.exec();
            let row = s.create_in(&mut exec, &n, &input).await?;
            let nid = Record::must_id(&row)?;
            let secret = n
                .field_index("secretData")
                .ok_or_else(|| Error::internal("notification.secretData is not declared"))?;
            repo::update_if(
                &mut exec,
                &n,
                nid,
                &[(secret, Val::Text(email.secret.to_string()))],
                &[],
            )
            .await?;
            let link = |l: &str, lv: Uuid, r: &str, rv: Uuid| {
                let mut m = Map::new();
                m.insert(l.into(), json!(lv));
                m.insert(r.into(), json!(rv));
                m
            };
            s.create_in(
                &mut exec,
                &*s.entity("notification.notifications-to-templates")?,
                &link("notificationId", nid, "templateId", template_id),
            )
            .await?;
            s.create_in(
                &mut exec,
                &*s.entity("notification.topics-to-notifications")?,
                &link("topicId", topic_id, "notificationId", nid),
            )
            .await?;
            row
        };
        tx.commit().await?;
        s.touch(&n);
        let nid = Record::must_id(&row)?;
        let me = self.clone();
        tokio::spawn(async move {
            if let Err(e) = me.deliver(nid).await {
                tracing::warn!(notification = %nid, error = %e, "email not delivered; it stays in the outbox");
            }
        });
        Ok(nid)
    }

    /// Renders and sends one queued notification, marking it `sent`. Without SMTP it is logged
    /// and left `new` in the outbox.
    pub async fn deliver(&self, nid: Uuid) -> Result<()> {
        let s = &self.store;
        let n = s.entity("notification.notification")?;
        let row = s.get(&n, nid).await?;
        if row.text("status") != Some("new") {
            return Ok(());
        }
        let links = s
            .find_by(
                &*s.entity("notification.notifications-to-templates")?,
                &[("notificationId", Val::Uuid(nid))],
                1,
            )
            .await?;
        let template_id = links
            .first()
            .and_then(|l| l.uuid("templateId"))
            .ok_or_else(|| Error::internal("notification has no template"))?;
        let template = s
            .get(&*s.entity("notification.template")?, template_id)
            .await?;
        let secret = {
            let mut c = s.db.read().await?;
            repo::read_text(&mut c.exec(), &n, nid, &["secretData"])
                .await?
                .and_then(|v| v.into_iter().next().flatten())
                .and_then(|t| serde_json::from_str::<Value>(&t).ok())
                .unwrap_or(Value::Null)
        };
        let mut data = row.json("data").unwrap_or_else(|| json!({}));
        if let (Some(d), Value::Object(sec)) = (data.as_object_mut(), secret) {
            d.extend(sec);
        }
        let language = row.text("language").unwrap_or("en").to_owned();
        let body_src = pick(&template.json("body"), &language).unwrap_or_default();
        let body = render(&body_src, &data)?;
        let subject = row.text("title").unwrap_or("Notification").to_owned();
        let to = row.text("reciever").unwrap_or_default().to_owned();
        let Some(transport) = &self.transport else {
            // Never the body: it may hold a secret (a reset link).
            tracing::info!(notification = %nid, %subject,
                "email kept in the outbox: STOA_SMTP_URL is not set");
            return Ok(());
        };
        let to_box: Mailbox = to
            .parse()
            .map_err(|e| Error::invalid_field("reciever", format!("not an address: {e}")))?;
        let builder = Message::builder()
            .from(self.from.clone())
            .to(to_box)
            .subject(subject);
        let attachments = self.attachments(nid, &row.json("attachments")).await;
        let message = if attachments.is_empty() {
            builder.body(body)
        } else {
            let mut parts = MultiPart::mixed().singlepart(SinglePart::plain(body));
            for (name, bytes, mime) in attachments {
                let ct = ContentType::parse(mime).unwrap_or(
                    ContentType::parse("application/octet-stream")
                        .map_err(|e| Error::internal(e.to_string()))?,
                );
                parts = parts.singlepart(Attachment::new(name).body(bytes.to_vec(), ct));
            }
            builder.multipart(parts)
        }
        .map_err(|e| Error::internal(format!("building the email: {e}")))?;
        match transport.send(message).await {
            Ok(_) => {
                let mut input = Map::new();
                input.insert("status".into(), json!("sent"));
                input.insert("error".into(), Value::Null);
                s.update(&n, nid, &input).await?;
                tracing::info!(notification = %nid, "email sent");
                Ok(())
            }
            Err(e) => {
                let mut input = Map::new();
                let msg: String = e.to_string().chars().take(1000).collect();
                input.insert("error".into(), json!(msg));
                let _ = s.update(&n, nid, &input).await;
                Err(Error::Unavailable(format!(
                    "the mail server refused the email: {e}"
                )))
            }
        }
    }

    /// The attachments a notification names, read from file storage. One that cannot be read is
    /// left out (and logged) rather than holding the email back.
    async fn attachments(
        &self,
        nid: Uuid,
        urls: &Option<Value>,
    ) -> Vec<(String, bytes::Bytes, &'static str)> {
        let urls: Vec<&str> = urls
            .as_ref()
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut out = Vec::new();
        for url in urls {
            let loaded = match &self.files {
                Some(f) => f.load(url).await,
                None => Ok(None),
            };
            match loaded {
                Ok(Some((bytes, mime))) => {
                    let name = url.rsplit('/').next().unwrap_or("attachment").to_owned();
                    out.push((name, bytes, mime));
                }
                Ok(None) => {
                    tracing::warn!(notification = %nid, %url, "attachment not found; sent without it")
                }
                Err(e) => {
                    tracing::warn!(notification = %nid, %url, error = %e, "attachment unreadable; sent without it")
                }
            }
        }
        out
    }

    /// Is an SMTP server configured?
    pub fn delivers(&self) -> bool {
        self.transport.is_some()
    }
}

impl std::fmt::Debug for Mailer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mailer")
            .field("smtp", &self.transport.is_some())
            .finish()
    }
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

/// Renders a template body (`{{ rbac.resetUrl }}` placeholders) with `data`.
pub fn render(source: &str, data: &Value) -> Result<String> {
    let mut env = minijinja::Environment::new();
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Lenient);
    env.render_str(source, data)
        .map_err(|e| Error::invalid_field("body", format!("the template does not render: {e}")))
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
        let mut tx = store.db.begin().await?;
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
        store.touch(&template);
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
    let mut tx = store.db.begin().await?;
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
    store.touch(&topic);
    store.touch(&template);
    tracing::info!(seed = NAME, "seeded notification topics and templates");
    Ok(())
}

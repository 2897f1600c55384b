//! Requests visitors submit through a form: checked against the form's inputs (required ones
//! filled, emails that are addresses, numbers that are numbers within the input's bounds), stored
//! with their link to the form in one transaction, then told to the site's admins (email, and
//! Telegram when configured) and confirmed to the sender when the form asked for an email.

use std::sync::Arc;

use serde_json::{Map, Value, json};
use stoa_kernel::error::FieldErrors;
use stoa_kernel::value::{Val, is_email};
use stoa_kernel::{Error, Result};
use stoa_notification::mail::{Channel, Email, Mailer};
use stoa_rbac::subjects::Subjects;
use stoa_store::{Record, Store};
use uuid::Uuid;

use crate::rows::{FormInputRow, FormRequestRow, FormRow, InputRow, RequestRow};

/// Longest value of one input, in characters.
pub const MAX_VALUE: usize = 10_000;
/// Most inputs a form may have that a request fills.
const MAX_INPUTS: usize = 200;
/// The hidden field bots fill and people do not (no input slug can take this name).
pub const HONEYPOT: &str = "_gotcha";

/// The mail templates of form requests.
pub const ADMIN_EMAIL: &str = "generate-email-crm-form-request-created-admin";
pub const ADMIN_TELEGRAM: &str = "generate-telegram-crm-form-request-created-admin";
pub const RECEIVED: &str = "crm-form-request-received";
pub const ADMIN_DIGEST: &str = "generate-email-crm-form-requests-digest-admin";
pub const REPLY: &str = "crm-form-request-reply";

/// Longest subject and text of an admin's reply, in characters.
pub const MAX_REPLY_SUBJECT: usize = 200;
pub const MAX_REPLY_TEXT: usize = 10_000;

/// Admin alerts one at a time per hour; past them, one digest an hour says more came.
pub const ADMIN_ALERTS_PER_HOUR: u32 = 20;
/// Confirmations one address receives a day, whoever typed it into a form.
pub const RECEIPTS_PER_ADDRESS_PER_DAY: u32 = 3;

/// The inputs of `form`, in the form's order.
pub(crate) async fn inputs(store: &Store, form: Uuid) -> Result<Vec<InputRow>> {
    let links = store
        .find_in(
            &*store.entity("crm.forms-to-inputs")?,
            "formId",
            &[Val::Uuid(form)],
            MAX_INPUTS,
        )
        .await?;
    let order: Vec<Uuid> = links
        .iter()
        .filter_map(|l| FormInputRow::of(l).ok()?.input_id)
        .collect();
    let ids: Vec<Val> = order.iter().copied().map(Val::Uuid).collect();
    let mut found = store
        .find_in(&*store.entity("crm.input")?, "id", &ids, MAX_INPUTS)
        .await?;
    found.sort_by_key(|r| r.id().and_then(|id| order.iter().position(|x| *x == id)));
    found.iter().map(InputRow::of).collect()
}

/// The key a submitted value is sent under: the input's slug.
fn key(input: &InputRow) -> &str {
    input.slug.as_deref().unwrap_or_default()
}

/// An input's label in `lang`, else in English, else its key.
fn label(input: &InputRow, lang: &str) -> String {
    input
        .label
        .as_ref()
        .and_then(|m| m.get(lang).or_else(|| m.get("en")))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .unwrap_or_else(|| key(input).to_owned())
}

fn as_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.trim().to_owned()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null => Some(String::new()),
        _ => None,
    }
}

fn is_number_input(input: &InputRow) -> bool {
    input.kind.as_deref() == Some("number") || input.variant.as_deref() == Some("number-default")
}

fn is_email_input(input: &InputRow) -> bool {
    input.kind.as_deref() == Some("email")
}

/// The problem with `text` in `input`, if any (a value already known to be non-empty).
fn problem(input: &InputRow, text: &str) -> Option<String> {
    if text.chars().count() > MAX_VALUE {
        return Some(format!("must be at most {MAX_VALUE} characters"));
    }
    if is_email_input(input) && !is_email(text) {
        return Some("must be an email address, like name@example.com".into());
    }
    if is_number_input(input) {
        let Some(n) = text.parse::<f64>().ok().filter(|n| n.is_finite()) else {
            return Some("must be a number".into());
        };
        let bound =
            |d: Option<rust_decimal::Decimal>| d.and_then(|d| d.to_string().parse::<f64>().ok());
        match (bound(input.min), bound(input.max)) {
            (Some(lo), Some(hi)) if n < lo || n > hi => {
                return Some(format!("must be from {lo} to {hi}"));
            }
            (Some(lo), None) if n < lo => return Some(format!("must be at least {lo}")),
            (None, Some(hi)) if n > hi => return Some(format!("must be at most {hi}")),
            _ => {}
        }
    }
    None
}

/// Checks `values` against the inputs: every required input filled, emails are addresses,
/// numbers are numbers within the input's `min` and `max`, no value longer than [`MAX_VALUE`];
/// keys that name no input are dropped.
pub(crate) fn check(
    inputs: &[InputRow],
    values: &Map<String, Value>,
) -> Result<Map<String, Value>> {
    let mut errors = FieldErrors::new();
    let mut out = Map::new();
    for input in inputs {
        let k = key(input);
        let raw = values.get(k).unwrap_or(&Value::Null);
        let Some(text) = as_text(raw) else {
            errors
                .entry(k.to_owned())
                .or_default()
                .push("must be text or a number".into());
            continue;
        };
        if text.is_empty() {
            if input.is_required.unwrap_or(false) {
                errors
                    .entry(k.to_owned())
                    .or_default()
                    .push("is required".into());
            }
            continue;
        }
        if let Some(p) = problem(input, &text) {
            errors.entry(k.to_owned()).or_default().push(p);
            continue;
        }
        out.insert(k.to_owned(), Value::String(text));
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(Error::invalid_fields(errors))
    }
}

/// Form requests and who is told of them.
pub struct Requests {
    pub store: Store,
    mailer: Arc<Mailer>,
    subjects: Arc<Subjects>,
    /// A staff chat that receives admin alerts too (`STOA_TELEGRAM_ADMIN_CHAT`).
    admin_chat: Option<String>,
    /// The admins' language.
    default_language: String,
    public_url: String,
    /// Admin alerts sent one per request (one key), and confirmations per recipient address.
    alerts: stoa_api::rate::Budget,
    receipts: stoa_api::rate::Budget,
    /// The hour (since the epoch) whose digest is queued already.
    digest: std::sync::Mutex<i64>,
}

/// What a submission produced.
pub enum Submitted {
    Stored(Record),
    /// A bot filled the honeypot: answered like a success, stored nowhere.
    Ignored(Value),
}

impl Requests {
    pub fn new(
        store: Store,
        mailer: Arc<Mailer>,
        subjects: Arc<Subjects>,
        admin_chat: Option<String>,
        default_language: String,
        public_url: String,
    ) -> Self {
        let shared = stoa_store::cluster::Shared::of(&store.db);
        Self {
            alerts: stoa_api::rate::Budget::new(
                ADMIN_ALERTS_PER_HOUR,
                std::time::Duration::from_secs(3600),
                "form request alerts to admins",
                shared.clone().map(|s| (s, "crm.alerts")),
            ),
            receipts: stoa_api::rate::Budget::new(
                RECEIPTS_PER_ADDRESS_PER_DAY,
                std::time::Duration::from_secs(24 * 3600),
                "form confirmations per address",
                shared.map(|s| (s, "crm.receipts")),
            ),
            digest: std::sync::Mutex::new(0),
            store,
            mailer,
            subjects,
            admin_chat: admin_chat.filter(|c| !c.trim().is_empty()),
            default_language,
            public_url,
        }
    }

    /// The site's default language.
    pub fn default_language(&self) -> String {
        self.default_language.clone()
    }

    /// Stores a request for `form` with `values` (from `subject` when signed in), then tells the
    /// admins and confirms to the sender. `language` is the sender's.
    pub async fn submit(
        &self,
        form: Uuid,
        values: &Map<String, Value>,
        subject: Option<Uuid>,
        language: &str,
    ) -> Result<Submitted> {
        let store = &self.store;
        let forms = store.entity("crm.form")?;
        let form_row = FormRow::of(&store.get(&forms, form).await?)?;
        if values
            .get(HONEYPOT)
            .and_then(as_text)
            .is_some_and(|t| !t.is_empty())
        {
            tracing::info!(form = %form, "a form request filled the honeypot; ignored");
            return Ok(Submitted::Ignored(json!({
                "id": Uuid::now_v7(),
                "payload": {"formId": form},
            })));
        }
        let inputs = inputs(store, form).await?;
        let checked = check(&inputs, values)?;
        let request = store.entity("crm.request")?;
        let link = store.entity("crm.forms-to-requests")?;
        let mut payload = json!({"formId": form, "values": checked});
        if let Some(s) = subject {
            payload["subjectId"] = json!(s);
        }
        let sender = self.sender(subject, &inputs, &checked).await?;
        let mut tx = store.begin().await?;
        let (row, id) = {
            let mut exec = tx.exec();
            let mut input = Map::new();
            input.insert("payload".into(), payload);
            if let Some(to) = &sender {
                input.insert("email".into(), json!(to));
            }
            input.insert("language".into(), json!(language));
            let row = store.create_in(&mut exec, &request, &input).await?;
            let id = Record::must_id(&row)?;
            store
                .link_in(&mut exec, &link, ("formId", form), ("requestId", id))
                .await?;
            (row, id)
        };
        tx.commit().await?;
        // Requests are private: no public page shows them, so no page cache is cleared.
        tracing::info!(form = %form, "crm form request received");
        if let Err(e) = self
            .tell(&form_row, &inputs, &checked, id, sender, language)
            .await
        {
            // The request is stored; a notification that could not be written is logged.
            tracing::error!(form = %form, error = %e, "the form request was stored, but nobody could be told");
        }
        Ok(Submitted::Stored(row))
    }

    /// Queues the admin alerts (email; Telegram when configured) and the sender's confirmation.
    async fn tell(
        &self,
        form: &FormRow,
        inputs: &[InputRow],
        values: &Map<String, Value>,
        request: Uuid,
        sender: Option<String>,
        language: &str,
    ) -> Result<()> {
        if self.alerts.check("all").await.is_err() {
            // A flood (or a busy day): one digest at the end of the hour instead of a mail per
            // request.
            self.digest().await?;
        } else {
            self.alert_admins(|lang: &str| self.alert(form, inputs, values, request, lang))
                .await?;
        }
        self.receipt(sender, form, language).await
    }

    /// What an admin alert about `request` holds, in `lang`: the form, the values under their
    /// inputs' labels, and where to open it.
    fn alert(
        &self,
        form: &FormRow,
        inputs: &[InputRow],
        values: &Map<String, Value>,
        request: Uuid,
        lang: &str,
    ) -> Value {
        let fields: Vec<Value> = inputs
            .iter()
            .filter_map(|i| {
                let v = values.get(key(i))?;
                Some(json!({"label": label(i, lang), "slug": key(i), "value": v}))
            })
            .collect();
        json!({
            "form": {
                "id": form.id,
                "title": form.admin_title,
                "slug": form.slug,
            },
            "request": {"id": request},
            "fields": fields,
            "adminUrl": format!("{}/admin/crm/request?edit={request}", self.public_url),
        })
    }

    /// Mails each admin the alert `data` makes in the language they use on the site, and sends
    /// the admins' Telegram chats the one in the default language (when Telegram delivers).
    async fn alert_admins(&self, data: impl Fn(&str) -> Value) -> Result<()> {
        let admin_lang = self.default_language.as_str();
        for (to, lang) in self.subjects.admin_recipients().await? {
            let lang = lang.as_deref().unwrap_or(admin_lang);
            self.mailer
                .queue(Email {
                    topic: "information",
                    template_variant: ADMIN_EMAIL,
                    to: &to,
                    language: lang,
                    data: data(lang),
                    ..Default::default()
                })
                .await?;
        }
        if self.mailer.delivers_by(Channel::Telegram) {
            let mut chats = self.subjects.admin_telegram_chats().await?;
            if let Some(c) = &self.admin_chat
                && !chats.contains(c)
            {
                chats.push(c.clone());
            }
            for chat in chats {
                self.mailer
                    .queue(Email {
                        topic: "information",
                        template_variant: ADMIN_TELEGRAM,
                        to: &chat,
                        language: admin_lang,
                        data: data(admin_lang),
                        channel: Channel::Telegram,
                        ..Default::default()
                    })
                    .await?;
            }
        }
        Ok(())
    }

    /// One mail to the admins at the end of this hour saying more requests came than were sent
    /// one by one (queued once an hour per instance).
    async fn digest(&self) -> Result<()> {
        let now = time::OffsetDateTime::now_utc().unix_timestamp();
        let hour = now / 3600;
        {
            let mut last = self.digest.lock().unwrap_or_else(|p| p.into_inner());
            if *last == hour {
                return Ok(());
            }
            *last = hour;
        }
        let at = time::OffsetDateTime::from_unix_timestamp((hour + 1) * 3600)
            .unwrap_or_else(|_| time::OffsetDateTime::now_utc());
        let data = json!({
            "perHour": ADMIN_ALERTS_PER_HOUR,
            "adminUrl": format!("{}/admin/crm/request", self.public_url),
        });
        for (to, lang) in self.subjects.admin_recipients().await? {
            self.mailer
                .queue(Email {
                    topic: "information",
                    template_variant: ADMIN_DIGEST,
                    to: &to,
                    language: lang.as_deref().unwrap_or(&self.default_language),
                    data: data.clone(),
                    send_after: Some(at),
                    ..Default::default()
                })
                .await?;
        }
        Ok(())
    }

    /// The sender's address: the form's email input, else the signed-in sender's (lower-case).
    async fn sender(
        &self,
        subject: Option<Uuid>,
        inputs: &[InputRow],
        values: &Map<String, Value>,
    ) -> Result<Option<String>> {
        let typed = inputs.iter().filter(|i| is_email_input(i)).find_map(|i| {
            values
                .get(key(i))
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_lowercase)
        });
        Ok(match (typed, subject) {
            (Some(t), _) => Some(t),
            (None, Some(s)) => self.subjects.emails(s).await?.into_iter().next(),
            (None, None) => None,
        })
    }

    /// The sender's confirmation. It carries none of what was sent (the address is whatever the
    /// visitor typed: the site must not relay a stranger's text to it), and one address gets at
    /// most [`RECEIPTS_PER_ADDRESS_PER_DAY`] a day.
    async fn receipt(&self, sender: Option<String>, form: &FormRow, language: &str) -> Result<()> {
        if let Some(to) = sender {
            if self.receipts.check(&to.to_lowercase()).await.is_err() {
                tracing::info!(form = ?form.id, "a form confirmation was not sent: its address had its share today");
                return Ok(());
            }
            // The form's title is the site's words; the values are not included.
            let data = json!({"form": {"title": form.admin_title}});
            self.mailer
                .queue(Email {
                    topic: "information",
                    template_variant: RECEIVED,
                    to: &to,
                    language,
                    data,
                    ..Default::default()
                })
                .await?;
        }
        Ok(())
    }

    /// An admin's answer to a submission, mailed to its sender in the sender's language (the
    /// admin's words, with the form's title); a new submission becomes 'in progress'. 422 when the
    /// sender left no address, or the subject or text is empty or too long.
    pub async fn reply(
        &self,
        request: Uuid,
        subject: &str,
        text: &str,
    ) -> Result<crate::views::ReplyResult> {
        let subject = subject.trim();
        let text = text.trim();
        check_reply(subject, text)?;
        let requests = self.store.entity("crm.request")?;
        let row = RequestRow::of(&self.store.get(&requests, request).await?)?;
        let to = row.email.filter(|e| is_email(e)).ok_or_else(|| {
            Error::invalid_field("email", "the sender left no email address to answer to")
        })?;
        let language = row
            .language
            .filter(|l| stoa_kernel::model::LANGUAGES.contains(&l.as_str()))
            .unwrap_or_else(|| self.default_language.clone());
        let title = self.form_title(request, &language).await?;
        self.mailer
            .queue(Email {
                topic: "information",
                template_variant: REPLY,
                to: &to,
                language: &language,
                data: json!({"subject": subject, "text": text, "form": {"title": title}}),
                ..Default::default()
            })
            .await?;
        let mut status = row.status.unwrap_or_else(|| "new".to_owned());
        if status == "new" {
            let mut m = Map::new();
            m.insert("status".into(), json!("in_progress"));
            self.store.update(&requests, request, &m).await?;
            status = "in_progress".into();
        }
        Ok(crate::views::ReplyResult {
            queued: true,
            to,
            language,
            status,
        })
    }

    /// The title of the form `request` was sent through, in `language`, else its admin title;
    /// empty when the form is gone.
    async fn form_title(&self, request: Uuid, language: &str) -> Result<String> {
        let link = self.store.entity("crm.forms-to-requests")?;
        let links = self
            .store
            .find_by(&link, &[("requestId", Val::Uuid(request))], 1)
            .await?;
        let form_id = links
            .first()
            .map(FormRequestRow::of)
            .transpose()?
            .and_then(|l| l.form_id);
        let form = match form_id {
            Some(f) => self
                .store
                .get(&*self.store.entity("crm.form")?, f)
                .await
                .ok(),
            None => None,
        };
        let Some(form) = form else {
            return Ok(String::new());
        };
        let form = FormRow::of(&form)?;
        Ok(form
            .title
            .and_then(|t| t.get(language).and_then(Value::as_str).map(str::to_owned))
            .filter(|t| !t.is_empty())
            .or(form.admin_title)
            .unwrap_or_default())
    }
}

/// 422 unless a reply's subject and text are each 1 to their most characters.
fn check_reply(subject: &str, text: &str) -> Result<()> {
    let mut errors = FieldErrors::new();
    if subject.is_empty() || subject.chars().count() > MAX_REPLY_SUBJECT {
        errors.entry("subject".into()).or_default().push(format!(
            "write a subject of 1 to {MAX_REPLY_SUBJECT} characters"
        ));
    }
    if text.is_empty() || text.chars().count() > MAX_REPLY_TEXT {
        errors.entry("text".into()).or_default().push(format!(
            "write an answer of 1 to {MAX_REPLY_TEXT} characters"
        ));
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Error::invalid_fields(errors))
    }
}

/// An admin's answer to a submission: their subject and text, in a mail of the site.
pub fn reply_templates() -> Vec<Value> {
    vec![json!({
        "slug": "crm-form-request-reply",
        "adminTitle": "Answer to a form request (sender)",
        "variant": REPLY,
        "title": "Answer to your request",
        "subject": {"en": "{{ subject }}", "ru": "{{ subject }}"},
        "body": {
            "en": "{{ text }}\n\n—\nIn answer to your request through the form «{{ form.title }}».\n",
            "ru": "{{ text }}\n\n—\nОтвет на вашу заявку через форму «{{ form.title }}».\n",
        }
    })]
}

/// The templates of form requests, in English and Russian.
pub fn templates() -> Vec<Value> {
    let list = "{% for f in fields %}{{ f.label }}: {{ f.value }}\n{% endfor %}";
    vec![
        json!({
            "slug": "crm-form-request-created-admin-email",
            "adminTitle": "Form request (admins, email)",
            "variant": ADMIN_EMAIL,
            "title": "New form request",
            "subject": {"en": "New request: {{ form.title }}", "ru": "Новая заявка: {{ form.title }}"},
            "body": {
                "en": format!("A visitor sent the form \"{{{{ form.title }}}}\".\n\n{list}\nOpen it in the admin: {{{{ adminUrl }}}}\n"),
                "ru": format!("Посетитель отправил форму «{{{{ form.title }}}}».\n\n{list}\nОткрыть в админке: {{{{ adminUrl }}}}\n"),
            }
        }),
        json!({
            "slug": "crm-form-request-created-admin-telegram",
            "adminTitle": "Form request (admins, Telegram)",
            "variant": ADMIN_TELEGRAM,
            "title": "New form request",
            "subject": {"en": "New request", "ru": "Новая заявка"},
            "body": {
                "en": format!("*New request: {{{{ form.title }}}}*\n\n{list}\n{{{{ adminUrl }}}}"),
                "ru": format!("*Новая заявка: {{{{ form.title }}}}*\n\n{list}\n{{{{ adminUrl }}}}"),
            }
        }),
        json!({
            "slug": "crm-form-request-received",
            "adminTitle": "Form request received (sender)",
            "variant": RECEIVED,
            "title": "We received your request",
            "subject": {"en": "We received your request", "ru": "Мы получили вашу заявку"},
            "body": {
                "en": "Thank you! We received your request and will answer soon.\n",
                "ru": "Спасибо! Мы получили вашу заявку и скоро ответим.\n",
            }
        }),
    ]
}

/// The sender's confirmation as sites made before issue 47 have it: it listed what was sent.
pub fn old_received_body() -> Value {
    let list = "{% for f in fields %}{{ f.label }}: {{ f.value }}\n{% endfor %}";
    json!({
        "en": format!("Thank you! We received your request and will answer soon.\n\nWhat you sent:\n{list}"),
        "ru": format!("Спасибо! Мы получили вашу заявку и скоро ответим.\n\nВы отправили:\n{list}"),
    })
}

/// Brings a site's sender confirmation to the text without the request (once): a template the
/// admins left as it was seeded is rewritten; one they edited is theirs and kept (its list of
/// fields renders empty now, since the mail's data no longer holds them).
pub async fn update_received(store: &Store) -> Result<()> {
    update_received_as(store, "crm.received.v2").await
}

/// [`update_received`] as the seed `name` (tests run it again under another name).
pub async fn update_received_as(store: &Store, name: &str) -> Result<()> {
    if stoa_store::seed::applied(&store.db, name).await? {
        return Ok(());
    }
    let template = store.entity("notification.template")?;
    let new = templates()
        .into_iter()
        .find(|t| t["variant"] == RECEIVED)
        .map(|t| t["body"].clone())
        .unwrap_or(Value::Null);
    let rows = store
        .find_by(
            &template,
            &[("variant", Val::Text(RECEIVED.to_owned()))],
            10,
        )
        .await?;
    let mut tx = store.begin().await?;
    {
        let mut exec = tx.exec();
        for row in rows {
            if stoa_notification::rows::TemplateRow::of(&row)?.body == Some(old_received_body()) {
                let mut m = Map::new();
                m.insert("body".into(), new.clone());
                store
                    .update_in(&mut exec, &template, Record::must_id(&row)?, &m)
                    .await?;
            }
        }
        stoa_store::seed::mark(&mut exec, name).await?;
    }
    tx.commit().await?;
    Ok(())
}

/// The admins' hourly digest of a flood of requests (seeded apart: sites made before it have the
/// other templates already).
pub fn digest_templates() -> Vec<Value> {
    vec![json!({
        "slug": "crm-form-requests-digest-admin-email",
        "adminTitle": "More form requests this hour (admins, email)",
        "variant": ADMIN_DIGEST,
        "title": "More form requests",
        "subject": {"en": "More form requests this hour", "ru": "Ещё заявки за этот час"},
        "body": {
            "en": "More than {{ perHour }} form requests came in this hour; the rest were not mailed one by one. See them all in the admin: {{ adminUrl }}\n",
            "ru": "За этот час пришло больше {{ perHour }} заявок; остальные не отправлялись по одной. Все заявки — в админке: {{ adminUrl }}\n",
        }
    })]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text sites made before have is the one `update_received` looks for.
    #[test]
    fn the_old_confirmation_is_known() {
        let data =
            json!({"form": {"title": "Contact"}, "fields": [{"label": "Name", "value": "Ann"}]});
        let t = json!({"variant": RECEIVED, "subject": {"en": "x", "ru": "x"}, "body": old_received_body()});
        let rendered = stoa_notification::mail::render_seed(&t, &data);
        assert!(rendered.iter().all(|(_, _, body)| body.contains("Ann")));
    }

    #[test]
    fn the_templates_render_in_both_languages() {
        let data = json!({"form": {"title": "Contact"}, "fields": [{"label": "Name", "value": "Ann"}], "adminUrl": "http://h/admin"});
        for t in templates().into_iter().chain(digest_templates()) {
            let rendered = stoa_notification::mail::render_seed(&t, &data);
            assert_eq!(rendered.len(), 2, "{}: en and ru", t["variant"]);
            for (lang, _, body) in rendered {
                // The sender's confirmation carries nothing the sender typed (issue 47).
                let relays = t["variant"] != RECEIVED && t["variant"] != ADMIN_DIGEST;
                assert_eq!(
                    body.contains("Ann"),
                    relays,
                    "{} {lang}: {body}",
                    t["variant"]
                );
            }
        }
    }
}

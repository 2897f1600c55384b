//! Composing: a template filled for a notification (previews, attachments), and handing it to its channel.

use super::*;
use crate::rows::{NotificationRow, NotificationTemplateRow, TemplateRow};

impl Mailer {
    /// The subject and body `template` renders for `data` in `language` (the admin's preview).
    pub async fn preview(
        &self,
        template: Uuid,
        data: &Value,
        language: &str,
    ) -> Result<crate::views::TemplateRenderResult> {
        let t = self
            .store
            .get(&*self.store.entity("notification.template")?, template)
            .await?;
        let t = TemplateRow::of(&t)?;
        let subject = pick(&t.subject, language).or(t.title).unwrap_or_default();
        let body = pick(&t.body, language).unwrap_or_default();
        Ok(crate::views::TemplateRenderResult {
            subject: render(&subject, data)?,
            body: render(&body, data)?,
            language: language.to_owned(),
        })
    }

    /// `nid` as its recipient receives it. `reveal`: with its one-time secrets (a reset link, a
    /// code) — what delivery sends; without (`reveal = false`) each secret reads "(sent only to
    /// the recipient)".
    pub(crate) async fn compose(
        &self,
        nid: Uuid,
        row: &NotificationRow,
        reveal: bool,
    ) -> Result<Composed> {
        Ok(self.compose_kept(nid, row, reveal).await?.0)
    }

    /// [`Self::compose`], and the one-time secrets as kept (JSON text; `None` when it has
    /// none): what is left of them once the mail is sent is their names ([`secret_names`]). Kept
    /// apart from [`Composed`], which an admin's outbox shows.
    async fn compose_kept(
        &self,
        nid: Uuid,
        row: &NotificationRow,
        reveal: bool,
    ) -> Result<(Composed, Option<String>)> {
        let s = &self.store;
        let n = s.entity("notification.notification")?;
        let links = s
            .find_by(
                &*s.entity("notification.notifications-to-templates")?,
                &[("notificationId", Val::Uuid(nid))],
                1,
            )
            .await?;
        let template_id = links
            .first()
            .map(NotificationTemplateRow::of)
            .transpose()?
            .and_then(|l| l.template_id)
            .ok_or_else(|| Error::invalid_field("template", "the notification has no template"))?;
        let template = self.template(template_id).await?;
        let template = TemplateRow::of(&template)?;
        let kept_secret = {
            let mut c = s.db.read().await?;
            repo::read_text(&mut c.exec(), &n, nid, &["secretData"])
                .await?
                .and_then(|v| v.into_iter().next().flatten())
        };
        let secret = kept_secret
            .as_deref()
            .and_then(|t| serde_json::from_str::<Value>(t).ok())
            .unwrap_or(Value::Null);
        let to = row.reciever.clone().unwrap_or_default();
        let language = row.language.clone().unwrap_or_else(|| "en".to_owned());
        let mut data = row.data.clone().unwrap_or_else(|| json!({}));
        if let (Some(d), Value::Object(mut sec)) = (data.as_object_mut(), secret) {
            // A secret goes only to the address it was made for: an edited recipient gets none.
            if sec
                .remove(SECRET_FOR)
                .is_some_and(|f| f.as_str() != Some(to.as_str()))
            {
                return Err(Error::Conflict {
                    message: "the recipient was changed after this mail was made; its one-time link or code is only sent to the original address".into(),
                    fields: Default::default(),
                });
            }
            if !reveal {
                for v in sec.values_mut() {
                    *v = json!(hidden_in(&language));
                }
            }
            d.extend(sec);
        }
        let body_src = pick(&template.body, &language).unwrap_or_default();
        let text = render(&body_src, &data)?;
        let subject = row
            .title
            .clone()
            .unwrap_or_else(|| "Notification".to_owned());
        let composed = Composed {
            html: crate::compose::html(&text, &subject, &language, &self.look_in(&language).await),
            links: crate::compose::links(&text),
            to,
            subject,
            text,
            language,
        };
        Ok((composed, kept_secret))
    }

    /// Renders `row` and sends it by `channel` once: an email is MIME (UTF-8 text and HTML
    /// alternatives, the receipt attached). Answers its secret as kept (the JSON text, `None`
    /// when it has none), read for the composing, so a sent mail's record needs no second read.
    pub(super) async fn deliver(
        &self,
        nid: Uuid,
        row: &NotificationRow,
        channel: Channel,
    ) -> Result<Option<String>> {
        let (m, kept) = self.compose_kept(nid, row, true).await?;
        self.send(nid, row, channel, m).await.map(|()| kept)
    }

    /// Sends the composed `m` of `row` by `channel` once.
    async fn send(
        &self,
        nid: Uuid,
        row: &NotificationRow,
        channel: Channel,
        m: Composed,
    ) -> Result<()> {
        match channel {
            Channel::Telegram => {
                let Some(t) = &self.telegram else {
                    return Err(Error::Unavailable("Telegram is not configured".into()));
                };
                t.send(&m.to, &m.text).await
            }
            Channel::Email => {
                let Some(transport) = &self.transport else {
                    return Err(Error::Unavailable("SMTP is not configured".into()));
                };
                let to_box: Mailbox = m.to.parse().map_err(|e| {
                    Error::invalid_field("reciever", format!("not an address: {e}"))
                })?;
                let builder = Message::builder()
                    .from(self.from.clone())
                    .to(to_box)
                    .subject(m.subject);
                let alternative = MultiPart::alternative_plain_html(m.text, m.html);
                let attachments = self.attachments(nid, &row.attachments).await;
                let message = if attachments.is_empty() {
                    builder.multipart(alternative)
                } else {
                    let mut parts = MultiPart::mixed().multipart(alternative);
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
                let _connection = self
                    .sending
                    .acquire()
                    .await
                    .map_err(|_| Error::Unavailable("shutting down".into()))?;
                transport.send(message).await.map(|_| ()).map_err(|e| {
                    Error::Unavailable(format!("the mail server refused the email: {e}"))
                })
            }
        }
    }

    /// `nid` as its recipient receives (or received) it, for the admin's outbox. One-time secrets
    /// show only while its channel is not configured (development: nothing is sent, and this is
    /// how the code or the link is read); otherwise they are hidden.
    pub async fn message(&self, nid: Uuid) -> Result<crate::views::MessageResult> {
        let row = self
            .store
            .get(&*self.store.entity("notification.notification")?, nid)
            .await?;
        let row = NotificationRow::of(&row)?;
        let channel = Channel::parse(row.method.as_deref().unwrap_or("email")).unwrap_or_default();
        let delivers = self.delivers_by(channel);
        let m = self.compose(nid, &row, !delivers).await?;
        Ok(crate::views::MessageResult {
            message: m,
            delivered: delivers,
            status: row.status,
        })
    }

    /// The attachments a notification names, read from file storage. One that cannot be read is
    /// left out (and logged) rather than holding the email back.
    pub(super) async fn attachments(
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

    /// Is `channel` configured?
    pub fn delivers_by(&self, channel: Channel) -> bool {
        match channel {
            Channel::Email => self.transport.is_some(),
            Channel::Telegram => self.telegram.is_some(),
        }
    }
}

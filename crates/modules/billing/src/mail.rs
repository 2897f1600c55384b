//! The admins' email about a payment that does not match its invoice (seeded once; admins may
//! edit it as a notification template).

use serde_json::{Value, json};
use stoa_kernel::Result;
use stoa_notification::mail::{Email, Mailer};
use stoa_rbac::subjects::Subjects;

use crate::service::ALERT_TEMPLATE;

pub fn templates() -> Vec<Value> {
    vec![json!({
        "slug": "billing-payment-mismatch-admin",
        "adminTitle": "Payment does not match its invoice (admins)",
        "variant": ALERT_TEMPLATE,
        "title": "Payment does not match its invoice",
        "subject": {
            "en": "Payment check failed: {{ provider }}",
            "ru": "Платёж не сходится со счётом: {{ provider }}"
        },
        "body": {
            "en": "A payment notification from {{ provider }} was refused: {{ why }}.\n\nNothing was marked paid. Invoice: {{ invoice or 'unknown' }}. Inbox entry: {{ inbox }}.\nCompare it with the provider's dashboard, then refund or settle the order by hand: {{ inboxUrl }}\n",
            "ru": "Уведомление о платеже от {{ provider }} отклонено: {{ why }}.\n\nНичего не отмечено оплаченным. Счёт: {{ invoice or 'неизвестен' }}. Запись входящих: {{ inbox }}.\nСверьте с кабинетом провайдера и верните деньги или проведите заказ вручную: {{ inboxUrl }}\n"
        }
    })]
}

/// Mails every admin about a refused payment (`payload`: provider, why, invoice, inbox).
pub async fn alert(
    subjects: &Subjects,
    mailer: &Mailer,
    language: &str,
    public_url: &str,
    payload: &Value,
) -> Result<usize> {
    let mut data = payload.clone();
    data["inboxUrl"] = json!(format!("{public_url}/admin/billing/webhook"));
    let admins = subjects.admin_recipients().await?;
    if admins.is_empty() {
        tracing::warn!(alert = %payload, "a payment does not match its invoice, and there is no admin to tell");
    }
    for (to, lang) in &admins {
        mailer
            .queue(Email {
                topic: "security",
                template_variant: ALERT_TEMPLATE,
                to,
                language: lang.as_deref().unwrap_or(language),
                data: data.clone(),
                secret: Value::Null,
                attachments: Vec::new(),
                ..Default::default()
            })
            .await?;
    }
    Ok(admins.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_alert_renders_in_both_languages() {
        let data = json!({"provider": "stripe", "why": "paid 1, but invoice x is for 2", "invoice": "x", "inbox": "y", "inboxUrl": "http://h/admin/billing/webhook"});
        for t in templates() {
            let rendered = stoa_notification::mail::render_seed(&t, &data);
            assert_eq!(rendered.len(), 2, "{}: en and ru", t["variant"]);
            for (lang, _, body) in rendered {
                assert!(
                    body.contains("paid 1, but invoice x is for 2"),
                    "{lang}: {body}"
                );
                assert!(
                    body.contains("http://h/admin/billing/webhook"),
                    "{lang}: {body}"
                );
            }
        }
    }
}

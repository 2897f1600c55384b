//! The order emails' templates (seeded once; admins may edit them as notification templates).

use serde_json::{Value, json};

/// The order's lines, titled in `first` (else `second`, else the slug), each with its total in
/// the order's currency.
fn lines(first: &str, second: &str) -> String {
    format!(
        "{{% for l in order.ordersToProducts %}}- {{{{ l.product.title.{first} or l.product.title.{second} or l.product.slug }}}} × {{{{ l.quantity }}}}{{% for t in l.total %}}{{% if order.billingModuleCurrency and t.billingModuleCurrency.id == order.billingModuleCurrency.id %}}: {{{{ t.total }}}} {{{{ t.billingModuleCurrency.symbol }}}}{{% endif %}}{{% endfor %}}
{{% endfor %}}"
    )
}

/// The buyer's and the admins' templates, in English and Russian.
pub fn templates() -> Vec<Value> {
    let (en, ru) = (lines("en", "ru"), lines("ru", "en"));
    let no = "{% if order.number %}№ {{ order.number }}{% endif %}";
    vec![
        json!({
            "slug": "order-status-changed",
            "adminTitle": "Order status changed (buyer)",
            "variant": crate::orders::BUYER_TEMPLATE,
            "title": "Order status changed",
            "subject": {"en": format!("Order {no}: {{{{ status }}}}"), "ru": format!("Заказ {no}: {{{{ status }}}}")},
            "body": {
                "en": format!("Hello!\n\nYour order {no} is now {{{{ status }}}}.\n\n{en}\nTotal: {{{{ order.checkoutTotal }}}} {{{{ order.billingModuleCurrency.symbol }}}}\n\nThe order, its status and receipt: {{{{ orderUrl }}}}\n"),
                "ru": format!("Здравствуйте!\n\nСтатус заказа {no}: {{{{ status }}}}.\n\n{ru}\nИтого: {{{{ order.checkoutTotal }}}} {{{{ order.billingModuleCurrency.symbol }}}}\n\nЗаказ, его статус и чек: {{{{ orderUrl }}}}\n"),
            }
        }),
        json!({
            "slug": "order-status-changed-admin",
            "adminTitle": "Order paid (admins)",
            "variant": crate::orders::ADMIN_TEMPLATE,
            "title": "Order paid",
            "subject": {"en": format!("New paid order {no}"), "ru": format!("Новый оплаченный заказ {no}")},
            "body": {
                "en": format!("Order {no} was paid and is now {{{{ status }}}}.\n\n{en}\nTotal: {{{{ order.checkoutTotal }}}} {{{{ order.billingModuleCurrency.symbol }}}}\nBuyer: {{{{ buyer or 'no address given' }}}}\n{{% if order.comment %}}Comment: {{{{ order.comment }}}}\n{{% endif %}}\nOpen it in the admin: {{{{ adminUrl }}}}\n"),
                "ru": format!("Заказ {no} оплачен, статус: {{{{ status }}}}.\n\n{ru}\nИтого: {{{{ order.checkoutTotal }}}} {{{{ order.billingModuleCurrency.symbol }}}}\nПокупатель: {{{{ buyer or 'адрес не указан' }}}}\n{{% if order.comment %}}Комментарий: {{{{ order.comment }}}}\n{{% endif %}}\nОткрыть в админке: {{{{ adminUrl }}}}\n"),
            }
        }),
    ]
}

/// Brings a site's order templates to the numbered ones (once): a template the admins left as
/// first seeded is rewritten; one they edited is theirs and kept.
pub async fn update_templates(store: &stoa_store::Store) -> stoa_kernel::Result<()> {
    const NAME: &str = "ecommerce.templates.v2";
    if stoa_store::seed::applied(&store.db, NAME).await? {
        return Ok(());
    }
    let template = store.entity("notification.template")?;
    let mut tx = store.begin().await?;
    {
        let mut exec = tx.exec();
        for (old, new) in templates_v1().iter().zip(templates()) {
            let Some(variant) = old["variant"].as_str() else {
                continue;
            };
            let q = stoa_kernel::query::FindQuery::all()
                .eq(
                    &template,
                    "variant",
                    stoa_kernel::value::Val::Text(variant.to_owned()),
                )?
                .take(10);
            for row in stoa_store::repo::find(&mut exec, &template, &q).await?.0 {
                let words = stoa_notification::rows::TemplateRow::of(&row)?;
                if words.body.as_ref() == Some(&old["body"])
                    && words.subject.as_ref() == Some(&old["subject"])
                {
                    let mut m = serde_json::Map::new();
                    m.insert("body".into(), new["body"].clone());
                    m.insert("subject".into(), new["subject"].clone());
                    store
                        .update_in(&mut exec, &template, stoa_store::Record::must_id(&row)?, &m)
                        .await?;
                }
            }
        }
        stoa_store::seed::mark(&mut exec, NAME).await?;
    }
    tx.commit().await
}

/// The templates as first seeded (by id, no number, "None" for a buyer without an address):
/// [`update_templates`] replaces them where admins left them unedited.
fn templates_v1() -> Vec<Value> {
    let (en, ru) = (lines("en", "ru"), lines("ru", "en"));
    vec![
        json!({
            "slug": "order-status-changed",
            "adminTitle": "Order status changed (buyer)",
            "variant": crate::orders::BUYER_TEMPLATE,
            "title": "Order status changed",
            "subject": {"en": "Order #{{ order.id }}: {{ status }}", "ru": "Заказ #{{ order.id }}: {{ status }}"},
            "body": {
                "en": format!("Hello!\n\nYour order #{{{{ order.id }}}} is now {{{{ status }}}}.\n\n{en}\nTotal: {{{{ order.checkoutTotal }}}} {{{{ order.billingModuleCurrency.symbol }}}}\n\nThe order: {{{{ orderUrl }}}}\n"),
                "ru": format!("Здравствуйте!\n\nСтатус заказа #{{{{ order.id }}}}: {{{{ status }}}}.\n\n{ru}\nИтого: {{{{ order.checkoutTotal }}}} {{{{ order.billingModuleCurrency.symbol }}}}\n\nЗаказ: {{{{ orderUrl }}}}\n"),
            }
        }),
        json!({
            "slug": "order-status-changed-admin",
            "adminTitle": "Order paid (admins)",
            "variant": crate::orders::ADMIN_TEMPLATE,
            "title": "Order paid",
            "subject": {"en": "New paid order #{{ order.id }}", "ru": "Новый оплаченный заказ #{{ order.id }}"},
            "body": {
                "en": format!("Order #{{{{ order.id }}}} was paid and is now {{{{ status }}}}.\n\n{en}\nTotal: {{{{ order.checkoutTotal }}}} {{{{ order.billingModuleCurrency.symbol }}}}\nBuyer: {{{{ order.email }}}}\n{{% if order.comment %}}Comment: {{{{ order.comment }}}}\n{{% endif %}}"),
                "ru": format!("Заказ #{{{{ order.id }}}} оплачен, статус: {{{{ status }}}}.\n\n{ru}\nИтого: {{{{ order.checkoutTotal }}}} {{{{ order.billingModuleCurrency.symbol }}}}\nПокупатель: {{{{ order.email }}}}\n{{% if order.comment %}}Комментарий: {{{{ order.comment }}}}\n{{% endif %}}"),
            }
        }),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_render_lines_and_totals() {
        let data = json!({
            "status": "paid, being approved",
            "orderUrl": "http://x/en/ecommerce/orders/1",
            "order": {
                "id": "o1", "number": 1042, "email": null, "checkoutTotal": "597",
                "billingModuleCurrency": {"id": "c1", "symbol": "₽"},
                "ordersToProducts": [{"quantity": 3, "product": {"title": {"en": "A tree", "ru": "Дерево"}},
                    "total": [{"total": "597", "billingModuleCurrency": {"id": "c1", "symbol": "₽"}}, {"total": "2985", "billingModuleCurrency": {"id": "c2", "symbol": "₸"}}]}]
            }
        });
        for t in templates() {
            let rendered = stoa_notification::mail::render_seed(&t, &data);
            assert_eq!(rendered.len(), 2, "{}: en and ru", t["variant"]);
            for (lang, subject, body) in rendered {
                assert!(body.contains("× 3: 597 ₽"), "{lang}: {body}");
                assert!(!body.contains("2985"), "only the order's currency: {body}");
                assert!(body.contains("597 ₽"), "{body}");
                assert!(subject.contains("№ 1042"), "{subject}");
                assert!(
                    !subject.contains("o1") && !body.contains("o1"),
                    "no id: {subject} {body}"
                );
                assert!(!body.contains("None") && !body.contains("null"), "{body}");
            }
        }
    }
}

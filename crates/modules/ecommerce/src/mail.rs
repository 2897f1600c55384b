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
                "id": "o1", "email": "b@example.com", "checkoutTotal": "597",
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
                assert!(subject.contains("o1"), "{subject}");
            }
        }
    }
}

//! Notices: the mails of a status change and the order's receipt.

use super::*;

impl Commerce {
    /// Emails about a status change: the buyer always (in the order's language), the admins when
    /// an order was paid.
    pub async fn notify(&self, order: Uuid, from: &str, to: &str) -> Result<()> {
        let paid = from == "paying" && (to == "approving" || to == "delivering");
        let owners: Vec<Uuid> = self
            .owners
            .order_owners(&[order])
            .await?
            .into_iter()
            .map(|(_, s)| s)
            .collect();
        self.revalidate_order(&owners, paid);
        if !status::mails(to) {
            return Ok(());
        }
        let Ok(row) = self.store.get(&self.e.order, order).await else {
            return Ok(());
        };
        let loaded = self.load(vec![row]).await?;
        let view = self.view(&loaded, &loaded.orders[0]);
        let language = OrderRow::of(&loaded.orders[0])?
            .language
            .unwrap_or_else(|| self.default_language.clone());
        let buyer = self.buyer_addresses(&owners, &loaded.orders[0]).await?;
        let data = |lang: &str| {
            json!({
                "order": view,
                "from": from,
                "to": to,
                "status": status_title(to, lang),
                "buyer": buyer.first(),
                "siteUrl": format!("{}/{lang}", self.public_url),
                "orderUrl": format!("{}/{lang}/ecommerce/orders/{order}", self.public_url),
                "adminUrl": format!("{}/admin/ecommerce/order?edit={order}", self.public_url),
            })
        };
        // A paid order gets its receipt, attached to the buyer's email.
        if paid && let Some(e) = &self.events {
            e.event("checkout-completed", "/");
        }
        let attachments = if paid {
            self.receipt_attachments(order, &view, &language).await
        } else {
            Vec::new()
        };
        if let Some(to_addr) = buyer.first() {
            let data = data(&language);
            self.queue_notice(BUYER_TEMPLATE, to_addr, &language, data, attachments)
                .await?;
        }
        if to == "approving" || to == "delivering" && from == "paying" {
            for (a, lang) in self.subjects.admin_recipients().await? {
                let lang = lang.as_deref().unwrap_or(&self.default_language);
                self.queue_notice(ADMIN_TEMPLATE, &a, lang, data(lang), Vec::new())
                    .await?;
            }
        }
        Ok(())
    }

    /// Orders are private: the live channel's own watch tells only admins. The owner's open
    /// pages (the success page, the order's page) follow it, and a payment moves the public
    /// counters on every open page.
    fn revalidate_order(&self, owners: &[Uuid], paid: bool) {
        let Some(h) = &self.hub else {
            return;
        };
        if !owners.is_empty() {
            h.publish(
                "revalidate",
                stoa_api::live::Audience::Subjects(owners.to_vec()),
                &json!({"entities": ["ecommerce.order"]}),
            );
        }
        if paid {
            h.publish(
                "revalidate",
                stoa_api::live::Audience::Everyone,
                &json!({"entities": ["ecommerce.paid-orders"]}),
            );
        }
    }

    /// Where the buyer of `order` is mailed: its owners' addresses, the order's own email first.
    async fn buyer_addresses(&self, owners: &[Uuid], order: &Record) -> Result<Vec<String>> {
        let mut buyer = Vec::new();
        for s in owners {
            buyer.extend(self.subjects.emails(*s).await?);
        }
        if let Some(e) = OrderRow::of(order)?.email
            && !buyer.contains(&e)
        {
            buyer.insert(0, e);
        }
        Ok(buyer)
    }

    /// The paid `order`'s receipt as its mail attaches it (none when it could not be made: the
    /// mail goes without it).
    async fn receipt_attachments(
        &self,
        order: Uuid,
        view: &OrderView,
        language: &str,
    ) -> Vec<String> {
        match self.receipt(order, view, language).await {
            Ok(url) => vec![url],
            Err(e) => {
                tracing::error!(%order, error = %e, "the receipt could not be made; the email goes without it");
                Vec::new()
            }
        }
    }

    /// Queues an order notice (`template` with `data`) to `to`.
    async fn queue_notice(
        &self,
        template: &str,
        to: &str,
        language: &str,
        data: Value,
        attachments: Vec<String>,
    ) -> Result<()> {
        self.mailer
            .queue(Email {
                topic: "information",
                template_variant: template,
                to,
                language,
                data,
                secret: Value::Null,
                attachments,
                ..Default::default()
            })
            .await?;
        Ok(())
    }

    /// The order's receipt (`orders-to-file-storage-module-files`, variant `receipt-default`):
    /// rendered from the order once, in its language, with the site's receipt template (the
    /// 'for planet' one when the site has it), and linked to the order. Returns its URL.
    pub async fn receipt(&self, order: Uuid, view: &OrderView, language: &str) -> Result<String> {
        use stoa_file_storage::render::{RECEIPT, RECEIPT_FOR_PLANET, template_of};
        if let Some(url) = self.receipt_url(order).await? {
            return Ok(url);
        }
        let link = self
            .store
            .entity("ecommerce.orders-to-file-storage-module-files")?;
        let variant = if self.files.has_template(RECEIPT_FOR_PLANET).await? {
            RECEIPT_FOR_PLANET
        } else {
            RECEIPT
        };
        let site = self
            .public_url
            .split_once("://")
            .map_or(self.public_url.as_str(), |x| x.1);
        let paid_at = now()
            .format(&time::macros::format_description!(
                "[year]-[month]-[day] [hour]:[minute] UTC"
            ))
            .unwrap_or_default();
        let data = json!({"language": language, "site": {"name": site}, "paidAt": paid_at,
            "ecommerce": {"order": view}});
        // Named by the number people read (the id where an older order has none).
        let named = view
            .row
            .get("number")
            .and_then(Value::as_i64)
            .map_or_else(|| order.to_string(), |n| format!("№ {n}"));
        let alt = if language == "ru" {
            format!("Квитанция к заказу {named}")
        } else {
            format!("Receipt for order {named}")
        };
        let mut fields = Map::new();
        fields.insert("alt".into(), json!(alt));
        let t = template_of(variant)?;
        let row = self
            .files
            .generate(
                variant,
                (t.width, t.height),
                data,
                &fields,
                stoa_file_storage::service::Pace::Background,
            )
            .await?;
        let mut input = Map::new();
        input.insert("orderId".into(), json!(order));
        input.insert(
            "fileStorageModuleFileId".into(),
            json!(Record::must_id(&row)?),
        );
        input.insert("variant".into(), json!("receipt-default"));
        self.store.create(&link, &input).await?;
        stoa_file_storage::rows::FileRow::of(&row)?
            .file
            .ok_or_else(|| Error::internal("a generated file without a URL"))
    }
}

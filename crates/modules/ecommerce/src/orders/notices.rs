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
        let receipt = if paid {
            self.receipt_made(order, &view, &language).await
        } else {
            None
        };
        // Everything read first; then the receipt's row and link and every mail are written in
        // one transaction (a retry of this job never finds half of them).
        let mut notices = Vec::new();
        let attachments = receipt
            .as_ref()
            .map(|r| vec![r.url.clone()])
            .unwrap_or_default();
        if let Some(to_addr) = buyer.first() {
            notices.push(
                self.notice(
                    BUYER_TEMPLATE,
                    to_addr,
                    &language,
                    data(&language),
                    attachments,
                )
                .await?,
            );
        }
        if to == "approving" || to == "delivering" && from == "paying" {
            for (a, lang) in self.subjects.admin_recipients().await? {
                let lang = lang.as_deref().unwrap_or(&self.default_language);
                notices.push(
                    self.notice(ADMIN_TEMPLATE, &a, lang, data(lang), Vec::new())
                        .await?,
                );
            }
        }
        let mut tx = self.store.begin().await?;
        {
            let mut exec = tx.exec();
            if let Some(r) = receipt
                && let Some(made) = r.made
            {
                self.link_receipt_in(&mut exec, order, made).await?;
            }
            for n in notices {
                self.mailer.write_in(&mut exec, n).await?;
            }
        }
        tx.commit().await
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

    /// The paid `order`'s receipt as its mail attaches it: the one it has, or one made now whose
    /// row and link the caller writes ([`Self::link_receipt_in`]). `None` when it could not be
    /// made: the mail goes without it.
    async fn receipt_made(&self, order: Uuid, view: &OrderView, language: &str) -> Option<Receipt> {
        let made = match self.receipt_url(order).await {
            Ok(Some(url)) => return Some(Receipt { url, made: None }),
            Ok(None) => self.make_receipt(order, view, language).await,
            Err(e) => Err(e),
        };
        match made {
            Ok((stored, fields)) => Some(Receipt {
                url: stored.url.clone(),
                made: Some((stored, fields)),
            }),
            Err(e) => {
                tracing::error!(%order, error = %e, "the receipt could not be made; the email goes without it");
                None
            }
        }
    }

    /// An order notice (`template` with `data`) to `to`, read and ready to write.
    async fn notice(
        &self,
        template: &str,
        to: &str,
        language: &str,
        data: Value,
        attachments: Vec<String>,
    ) -> Result<stoa_notification::mail::Prepared> {
        self.mailer
            .prepare(Email {
                topic: "information",
                template_variant: template,
                to,
                language,
                data,
                secret: Value::Null,
                attachments,
                ..Default::default()
            })
            .await
    }

    /// The order's receipt (`orders-to-file-storage-module-files`, variant `receipt-default`):
    /// rendered from the order once, in its language, with the site's receipt template (the
    /// 'for planet' one when the site has it), and linked to the order. Returns its URL.
    pub async fn receipt(&self, order: Uuid, view: &OrderView, language: &str) -> Result<String> {
        if let Some(url) = self.receipt_url(order).await? {
            return Ok(url);
        }
        let made = self.make_receipt(order, view, language).await?;
        let url = made.0.url.clone();
        let mut tx = self.store.begin().await?;
        self.link_receipt_in(&mut tx.exec(), order, made).await?;
        tx.commit().await?;
        Ok(url)
    }

    /// Hides the receipts written before receipts were hidden (once): their file rows were in
    /// the public file list, the buyer's email and order on the image behind them.
    pub async fn hide_old_receipts(&self) -> Result<()> {
        const NAME: &str = "ecommerce.receipts-hidden.v1";
        if stoa_store::seed::applied(&self.store.db, NAME).await? {
            return Ok(());
        }
        let link = self
            .store
            .entity("ecommerce.orders-to-file-storage-module-files")?;
        let q = stoa_kernel::query::FindQuery::all().eq(
            &link,
            "variant",
            Val::Text("receipt-default".into()),
        )?;
        let mut walk = self.store.walk(&link, q, 500, usize::MAX);
        let mut hidden = 0;
        while let Some(page) = walk.next().await? {
            let ids: Vec<Uuid> = page
                .iter()
                .map(crate::rows::OrderFileRow::of)
                .filter_map(|r| r.ok()?.file_id)
                .collect();
            hidden += self.files.hide(&ids).await?;
        }
        if hidden > 0 {
            tracing::info!(hidden, "older receipts hidden from the public file list");
        }
        let mut tx = self.store.begin().await?;
        stoa_store::seed::mark(&mut tx.exec(), NAME).await?;
        tx.commit().await
    }

    /// The receipt of `order` rendered and stored, with the fields of its row still to write.
    async fn make_receipt(
        &self,
        order: Uuid,
        view: &OrderView,
        language: &str,
    ) -> Result<(stoa_api::files::Stored, Map<String, Value>)> {
        use stoa_file_storage::render::{RECEIPT, RECEIPT_FOR_PLANET, template_of};
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
        // The buyer's email, items and amount: the file's row is hidden from the public file
        // list (its URL reaches only the buyer, through the order and the mail) and, being
        // hidden, leaves the public caches as they were.
        fields.insert(stoa_kernel::model::HIDDEN.into(), json!(true));
        let t = template_of(variant)?;
        let stored = self
            .files
            .generate_file(
                variant,
                (t.width, t.height),
                data,
                stoa_file_storage::service::Pace::Background,
            )
            .await?;
        Ok((stored, fields))
    }

    /// Writes a made receipt's file row and links it to `order`, in the caller's transaction.
    async fn link_receipt_in(
        &self,
        exec: &mut stoa_store::db::Exec<'_>,
        order: Uuid,
        (stored, fields): (stoa_api::files::Stored, Map<String, Value>),
    ) -> Result<()> {
        let link = self
            .store
            .entity("ecommerce.orders-to-file-storage-module-files")?;
        let row = self.files.record_in(exec, stored, &fields).await?;
        let mut input = Map::new();
        input.insert("orderId".into(), json!(order));
        input.insert(
            "fileStorageModuleFileId".into(),
            json!(Record::must_id(&row)?),
        );
        input.insert("variant".into(), json!("receipt-default"));
        // Sent with the notice's next insert (PostgreSQL).
        self.store.create_later(exec, &link, &input).await
    }
}

/// A paid order's receipt for its mail: its URL, and when it was made now, what is left to write.
struct Receipt {
    url: String,
    made: Option<(stoa_api::files::Stored, Map<String, Value>)>,
}

//! Commerce end to end on SQLite and PostgreSQL: carts, money computed on the server, checkout
//! with the dummy provider, the webhook inbox (exactly once), the order state machine (service,
//! generic PATCH, bulk update, override) and the emails, against a real SMTP sink.

use std::collections::HashSet;

use serde_json::{Value, json};
use stoa_kernel::value::{Val, now};
use stoa_testkit::smtp::Sink;
use stoa_testkit::{Db, TestApp, dual_test, spawn_app_manual};

const AUTH: &str = "/api/rbac/subjects/authentication";

pub(crate) struct Catalog {
    pub(crate) tree: String,
    grove: String,
    unpriced: String,
    kzt: String,
    rub: Value,
    price_key: Value,
}

async fn app(db: Db, sink: Option<&Sink>, delay: u64, timeout: u64) -> TestApp {
    let url = sink.map(|s| s.url.clone());
    spawn_app_manual(db, move |c| {
        c.smtp_url = url;
        c.dummy_webhook_delay = delay;
        c.payment_timeout = timeout;
    })
    .await
    .expect("app")
}

/// A currency (`billing.currency`).
pub(crate) async fn currency(app: &TestApp, slug: &str, symbol: &str, default: bool) -> Value {
    app.create(
        "/api/billing/currencies",
        &json!({"slug": slug, "symbol": symbol, "title": slug, "isDefault": default}),
    )
    .await
}

/// The attribute key prices are stored under.
pub(crate) async fn price_key(app: &TestApp) -> Value {
    app.create(
        "/api/ecommerce/attribute-keys",
        &json!({"slug": "price", "type": "price", "field": "number"}),
    )
    .await
}

pub(crate) async fn catalog(app: &TestApp) -> Catalog {
    let rub = currency(app, "rub", "₽", true).await;
    let kzt = currency(app, "kzt", "₸", false).await;
    let key = price_key(app).await;
    let store = app
        .create("/api/ecommerce/stores", &json!({"slug": "shop"}))
        .await;
    let mut ids = Vec::new();
    for (slug, prices) in [
        ("tree", vec![("199", &rub), ("995", &kzt)]),
        ("grove", vec![("1990.50", &rub)]),
        ("unpriced", vec![]),
    ] {
        let p = app
            .create(
                "/api/ecommerce/products",
                &json!({"slug": slug, "title": {"en": slug, "ru": slug}}),
            )
            .await;
        app.create(
            "/api/ecommerce/stores-to-products",
            &json!({"storeId": store["id"], "productId": p["id"], "sku": slug}),
        )
        .await;
        for (amount, cur) in prices {
            attribute(
                app,
                &p["id"],
                &key["id"],
                json!({"number": amount}),
                Some(&cur["id"]),
            )
            .await;
        }
        ids.push(p["id"].as_str().unwrap().to_owned());
    }
    Catalog {
        tree: ids[0].clone(),
        grove: ids[1].clone(),
        unpriced: ids[2].clone(),
        kzt: kzt["id"].as_str().unwrap().to_owned(),
        rub: rub["id"].clone(),
        price_key: key["id"].clone(),
    }
}

/// An attribute of `product` under attribute key `key` (a price when `currency` is given).
pub(crate) async fn attribute(
    app: &TestApp,
    product: &Value,
    key: &Value,
    body: Value,
    currency: Option<&Value>,
) {
    let a = app.create("/api/ecommerce/attributes", &body).await;
    app.create(
        "/api/ecommerce/products-to-attributes",
        &json!({"productId": product, "attributeId": a["id"]}),
    )
    .await;
    app.create(
        "/api/ecommerce/attribute-keys-to-attributes",
        &json!({"attributeKeyId": key, "attributeId": a["id"]}),
    )
    .await;
    if let Some(c) = currency {
        app.create(
            "/api/ecommerce/attributes-to-billing-module-currencies",
            &json!({"attributeId": a["id"], "billingModuleCurrencyId": c}),
        )
        .await;
    }
}

/// A monthly subscription product, `club`, for `amount` in `currency` (price key `price_key`).
pub(crate) async fn monthly(
    app: &TestApp,
    price_key: &Value,
    currency: &Value,
    amount: &str,
) -> Value {
    let interval_key = app
        .create(
            "/api/ecommerce/attribute-keys",
            &json!({"slug": "interval", "type": "interval", "field": "string"}),
        )
        .await;
    let club = app
        .create(
            "/api/ecommerce/products",
            &json!({"slug": "club", "type": "subscription", "title": {"en": "Club"}}),
        )
        .await;
    attribute(
        app,
        &club["id"],
        price_key,
        json!({"number": amount}),
        Some(currency),
    )
    .await;
    attribute(
        app,
        &club["id"],
        &interval_key["id"],
        json!({"string": {"en": "month", "ru": "месяц"}}),
        None,
    )
    .await;
    club
}

/// An anonymous visitor: its subject id and token.
pub(crate) async fn guest(app: &TestApp) -> (String, String) {
    let r = app.anon().post(&format!("{AUTH}/init"), &json!({})).await;
    assert_eq!(r.status, 201, "{}", r.text);
    let jwt = r.data()["jwt"].as_str().unwrap().to_owned();
    let me = app.bearer(&jwt).get(&format!("{AUTH}/me")).await;
    (me.data()["id"].as_str().unwrap().to_owned(), jwt)
}

pub(crate) fn orders(s: &str) -> String {
    format!("/api/rbac/subjects/{s}/ecommerce-module/orders")
}

pub(crate) async fn order_row(app: &TestApp, id: &str) -> Value {
    app.get(&format!("/api/ecommerce/orders/{id}"))
        .await
        .data()
        .clone()
}

/// (email, provider) of `subject`'s identities.
async fn identities(app: &TestApp, subject: &str) -> Vec<(String, String)> {
    let links = app
        .rows_where("/api/rbac/subjects-to-identities", "subjectId", subject)
        .await;
    let mut out = Vec::new();
    for l in &links {
        let i = app
            .get(&format!(
                "/api/rbac/identities/{}",
                l["identityId"].as_str().unwrap()
            ))
            .await;
        out.push((
            i.data()["email"].as_str().unwrap_or_default().to_owned(),
            i.data()["provider"].as_str().unwrap_or_default().to_owned(),
        ));
    }
    out
}

/// A guest's paid-for-later checkout: `quantity` of `product` added to a new guest's cart and
/// checked out with `body` (201 asserted).
pub(crate) struct Bought {
    pub(crate) subject: String,
    pub(crate) jwt: String,
    pub(crate) order: String,
    pub(crate) invoice: String,
}

pub(crate) async fn buy(app: &TestApp, product: &str, quantity: u32, body: Value) -> Bought {
    let (subject, jwt) = guest(app).await;
    let me = app.bearer(&jwt);
    let r = me
        .post(
            &orders(&subject),
            &json!({"productId": product, "quantity": quantity}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let order = r.data()["id"].as_str().unwrap().to_owned();
    let r = me
        .post(&format!("{}/checkout", orders(&subject)), &body)
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let invoice = r.data()["billingModule"]["invoices"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    Bought {
        subject,
        jwt,
        order,
        invoice,
    }
}

/// The dummy provider's webhook paying `invoice`, with the invoice's secret proof.
pub(crate) async fn dummy_payment(app: &TestApp, invoice: &str) -> Value {
    let token = app
        .get(&format!("/api/billing/invoices/{invoice}"))
        .await
        .data()["providerId"]
        .as_str()
        .unwrap()
        .to_owned();
    json!({"data": {"id": invoice, "token": token, "status": "paid"}})
}

/// The inbox entries in `status` (at most 100).
pub(crate) async fn inbox_in(app: &TestApp, status: &str) -> Vec<Value> {
    app.rows_where("/api/billing/webhooks?limit=100", "status", status)
        .await
}

/// An order created by an admin and moved to `status` by the override (orders are born `new`).
pub(crate) async fn order_in(app: &TestApp, status: &str) -> Value {
    let o = app.create("/api/ecommerce/orders", &json!({})).await;
    if status != "new" {
        let r = app
            .post(
                &format!(
                    "/api/ecommerce/orders/{}/override",
                    o["id"].as_str().unwrap()
                ),
                &json!({"status": status, "reason": "test setup"}),
            )
            .await;
        assert_eq!(r.status, 200, "{}", r.text);
    }
    o
}

async fn cart(db: Db) {
    let app = app(db, None, 3600, 3600).await;
    let c = catalog(&app).await;
    let (s, jwt) = guest(&app).await;
    let me = app.bearer(&jwt);
    let r = me
        .post(&orders(&s), &json!({"productId": c.tree, "quantity": 2}))
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let first = r.data()["id"].as_str().unwrap().to_owned();
    assert_eq!(r.data()["checkoutTotal"], json!("398"));
    // The same product again: the line grows, no second order.
    let r = me
        .post(
            &orders(&s),
            &json!({"productId": c.tree, "quantity": 3, "amount": "1", "price": "1"}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(r.data()["id"].as_str(), Some(first.as_str()));
    assert_eq!(r.data()["ordersToProducts"][0]["quantity"], json!(5));
    assert_eq!(
        r.data()["checkoutTotal"],
        json!("995"),
        "client prices are ignored"
    );
    assert_eq!(
        me.get(&format!("{}/quantity", orders(&s))).await.data(),
        &json!(5)
    );
    // In another currency: a second order.
    let r = me
        .post(
            &orders(&s),
            &json!({"productId": c.tree, "billingModule": {"currency": {"id": c.kzt}}}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let second = r.data()["id"].as_str().unwrap().to_owned();
    assert_ne!(second, first);
    let g = me
        .post(&orders(&s), &json!({"productId": c.grove, "quantity": 2}))
        .await;
    assert_eq!(g.status, 201, "{}", g.text);
    let totals = me.get(&format!("{}/total", orders(&s))).await;
    assert_eq!(totals.status, 200, "{}", totals.text);
    let by: Vec<(String, String)> = totals
        .data()
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["billingModuleCurrency"]["slug"]
                    .as_str()
                    .unwrap()
                    .to_owned(),
                t["total"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert!(by.contains(&("rub".into(), "4976".into())), "{by:?}"); // 5 × 199 + 2 × 1990.50
    assert!(by.contains(&("kzt".into(), "995".into())), "{by:?}");
    assert_eq!(
        me.get(&orders(&s)).await.data().as_array().unwrap().len(),
        3
    );
    // Quantities.
    let line = me.get(&format!("{}/{first}", orders(&s))).await.data()["ordersToProducts"][0]["id"]
        .clone();
    let r = me
        .patch(
            &format!("{}/{first}", orders(&s)),
            &json!({"ordersToProducts": [{"id": line, "quantity": 1}]}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.data()["checkoutTotal"], json!("199"));
    for bad in [
        json!(0),
        json!(-1),
        json!(1.5),
        json!("abc"),
        json!(1_000_000_000_000_i64),
    ] {
        let r = me
            .patch(
                &format!("{}/{first}", orders(&s)),
                &json!({"ordersToProducts": [{"id": line, "quantity": bad}]}),
            )
            .await;
        assert_eq!(r.status, 422, "{bad}: {}", r.text);
        assert!(r.text.contains("quantity"), "{}", r.text);
        let r = me
            .post(&orders(&s), &json!({"productId": c.tree, "quantity": bad}))
            .await;
        assert_eq!(r.status, 422, "{bad}: {}", r.text);
    }
    // Unknown product, no price, price in no such currency.
    let r = me
        .post(&orders(&s), &json!({"productId": uuid::Uuid::new_v4()}))
        .await;
    assert_eq!(r.status, 422, "{}", r.text);
    let r = me
        .post(&orders(&s), &json!({"productId": c.unpriced}))
        .await;
    assert_eq!(r.status, 422, "{}", r.text);
    assert!(r.text.contains("productId"), "{}", r.text);
    let r = me
        .post(
            &orders(&s),
            &json!({"productId": c.grove, "billingModule": {"currency": {"id": c.kzt}}}),
        )
        .await;
    assert_eq!(r.status, 422, "{}", r.text);
    // Someone else: nothing of this cart, read or write.
    let (other, other_jwt) = guest(&app).await;
    let them = app.bearer(&other_jwt);
    for path in [
        orders(&s),
        format!("{}/quantity", orders(&s)),
        format!("{}/total", orders(&s)),
        format!("{}/{first}", orders(&s)),
    ] {
        let r = them.get(&path).await;
        assert!(r.status == 403 || r.status == 404, "{path}: {}", r.status);
    }
    let r = them
        .patch(
            &format!("{}/{first}", orders(&s)),
            &json!({"ordersToProducts": [{"id": line, "quantity": 9}]}),
        )
        .await;
    assert!(r.status == 403 || r.status == 404, "{}", r.status);
    let r = them.delete(&format!("{}/{first}", orders(&s))).await;
    assert!(r.status == 403 || r.status == 404, "{}", r.status);
    let r = them
        .post(
            &format!("{}/checkout", orders(&s)),
            &json!({"provider": "dummy"}),
        )
        .await;
    assert!(r.status == 403 || r.status == 404, "{}", r.status);
    // Their own path with my order: 404.
    let r = them.get(&format!("{}/{first}", orders(&other))).await;
    assert_eq!(r.status, 404, "{}", r.text);
    let r = them.delete(&format!("{}/{first}", orders(&other))).await;
    assert_eq!(r.status, 404, "{}", r.text);
    let r = app.anon().get(&orders(&s)).await;
    assert_eq!(r.status, 401, "{}", r.text);
    // Delete.
    let r = me.delete(&format!("{}/{second}", orders(&s))).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        me.get(&orders(&s)).await.data().as_array().unwrap().len(),
        2
    );
}
dual_test!(cart, db);

/// A new cart order is answered from what the add wrote and had already read, not read back
/// (a dozen reads fewer an add): the answer must be what a read of the order shows, for a one-off
/// product with a comment, in a currency the buyer chose, and for a subscription (its interval).
async fn a_new_cart_order_answers_as_it_reads_back(db: Db) {
    let app = app(db, None, 3600, 3600).await;
    let c = catalog(&app).await;
    let club = monthly(&app, &c.price_key, &c.rub, "500").await;
    let (s, jwt) = guest(&app).await;
    let me = app.bearer(&jwt);
    for body in [
        json!({"productId": c.tree, "quantity": 2, "comment": "для мамы"}),
        json!({"productId": c.tree, "billingModule": {"currency": {"id": c.kzt}}}),
        json!({"productId": club["id"]}),
    ] {
        let r = me.post(&orders(&s), &body).await;
        assert_eq!(r.status, 201, "{}", r.text);
        let id = r.data()["id"].as_str().unwrap();
        let read = me.get(&format!("{}/{id}", orders(&s))).await;
        assert_eq!(read.status, 200, "{}", read.text);
        assert_eq!(r.data(), read.data(), "added {body}");
        assert!(r.data()["checkoutTotal"].is_string(), "{}", r.text);
    }
}
dual_test!(a_new_cart_order_answers_as_it_reads_back, db);

async fn checkout(db: Db) {
    let sink = Sink::start().await;
    let app = app(db, Some(&sink), 0, 3600).await;
    let c = catalog(&app).await;
    app.admin_account("boss@example.com").await;
    let (s, jwt) = guest(&app).await;
    let me = app.bearer(&jwt);
    let counter = "/api/ecommerce/orders/paid-orders-to-products-quantity";
    let before = app.anon().get(counter).await.data().as_i64().unwrap();
    let r = me
        .post(&orders(&s), &json!({"productId": c.tree, "quantity": 3}))
        .await;
    let order = r.data()["id"].as_str().unwrap().to_owned();
    // Bad checkouts change nothing.
    for (body, field) in [
        (
            json!({"provider": "stripe", "email": "b@example.com"}),
            "provider",
        ),
        (
            json!({"provider": "dummy", "email": "not-an-email"}),
            "email",
        ),
        (
            json!({"provider": "dummy", "ecommerceModule": {"orders": [{"id": "x"}]}}),
            "ecommerceModule.orders[0].id",
        ),
    ] {
        let r = me.post(&format!("{}/checkout", orders(&s)), &body).await;
        assert_eq!(r.status, 422, "{body}: {}", r.text);
        assert!(r.text.contains(field), "{}", r.text);
    }
    let cart = order_row(&app, &order).await;
    assert_eq!(cart["status"], json!("new"));
    assert!(cart["number"].is_null(), "{cart}");
    let r = me
        .post(
            &format!("{}/checkout", orders(&s)),
            &json!({"provider": "dummy", "email": "Buyer@Example.com", "amount": "1", "language": "en", "comment": "  ring twice ", "ecommerceModule": {"orders": [{"id": order}]}}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let invoices = r.data()["billingModule"]["invoices"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(invoices.len(), 1);
    assert_eq!(
        invoices[0]["amount"],
        json!("597"),
        "computed on the server"
    );
    assert_eq!(invoices[0]["status"], json!("open"));
    assert!(
        invoices[0]["paymentUrl"]
            .as_str()
            .unwrap()
            .contains("/en/ecommerce/checkout/success?orders="),
        "{}",
        invoices[0]
    );
    assert!(
        invoices[0].get("providerId").is_none(),
        "the dummy proof is not served to the buyer"
    );
    let o = order_row(&app, &order).await;
    assert_eq!(
        (o["status"].as_str(), o["type"].as_str()),
        (Some("paying"), Some("cart"))
    );
    // The buyer's address, language and comment, a number and the time of the change: written
    // with the status.
    assert_eq!(
        (&o["email"], &o["language"], &o["comment"]),
        (
            &json!("buyer@example.com"),
            &json!("en"),
            &json!("ring twice")
        ),
        "{o}"
    );
    assert!(o["number"].as_i64().is_some_and(|n| n >= 1001), "{o}");
    assert_ne!(o["updatedAt"], cart["updatedAt"], "{o}");
    // Deanonymised: the guest's email became an identity of provider `email`…
    assert_eq!(
        identities(&app, &s).await,
        [("buyer@example.com".to_owned(), "email".to_owned())]
    );
    // A second checkout of the same orders is refused.
    let r = me
        .post(
            &format!("{}/checkout", orders(&s)),
            &json!({"provider": "dummy", "ecommerceModule": {"orders": [{"id": order}]}}),
        )
        .await;
    assert_eq!(r.status, 409, "{}", r.text);
    // The buyer who left the provider's page finds it again on the order's page, while it is open.
    let paying = me.get(&format!("{}/{order}", orders(&s))).await;
    assert_eq!(paying.status, 200, "{}", paying.text);
    let payments = paying.data()["payments"].as_array().unwrap().clone();
    assert_eq!(payments.len(), 1, "{payments:?}");
    assert_eq!(
        (
            &payments[0]["status"],
            &payments[0]["amount"],
            &payments[0]["provider"]
        ),
        (&json!("open"), &json!("597"), &json!("dummy"))
    );
    assert_eq!(payments[0]["paymentUrl"], invoices[0]["paymentUrl"]);
    assert!(
        payments[0].get("providerId").is_none() && payments[0].get("successUrl").is_none(),
        "the provider's ids and return addresses stay with the admins: {}",
        payments[0]
    );
    assert_eq!(
        paying.data()["receiptUrl"],
        Value::Null,
        "no receipt before payment"
    );
    // The payment, its receipt and its mail change nothing a visitor reads: no public cache
    // (pages, feeds, the sitemap) is cleared by an order.
    let public = app.store.public_version();
    app.drain_jobs().await;
    assert_eq!(
        app.store.public_version(),
        public,
        "a paid order cleared the public caches"
    );
    let o = order_row(&app, &order).await;
    assert_eq!(
        (o["status"].as_str(), o["type"].as_str()),
        (Some("approving"), Some("history")),
        "{o}"
    );
    let mine = me.get(&format!("{}/{order}", orders(&s))).await;
    let paid = &mine.data()["payments"][0];
    assert_eq!(
        (&paid["status"], &paid["paymentUrl"]),
        (&json!("paid"), &Value::Null),
        "a paid invoice has no page to pay on"
    );
    let steps: Vec<(String, String)> = mine.data()["statusChanges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["from"].as_str().unwrap().to_owned(),
                h["to"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        steps,
        [
            ("new".into(), "paying".into()),
            ("paying".into(), "approving".into())
        ]
    );
    assert_eq!(
        app.anon().get(counter).await.data().as_i64().unwrap(),
        before + 3
    );
    let buyer = sink.wait_for("buyer@example.com").await;
    assert!(buyer.text().contains("× 3: 597 ₽"), "{}", buyer.text());
    // The paid order's receipt: linked to the order and attached to the buyer's email.
    let receipt = buyer
        .parts()
        .into_iter()
        .find(|p| {
            p.head
                .to_ascii_lowercase()
                .contains("content-type: image/png")
        })
        .expect("a PNG receipt attached");
    let img = image::load_from_memory(&receipt.body).expect("the receipt is a PNG");
    assert_eq!((img.width(), img.height()), (1485, 1050));
    let links = app
        .rows_where(
            "/api/ecommerce/orders-to-file-storage-module-files",
            "orderId",
            &order,
        )
        .await;
    assert_eq!(links.len(), 1, "one receipt");
    assert_eq!(links[0]["variant"], json!("receipt-default"));
    let file = app
        .get(&format!(
            "/api/file-storage/files/{}",
            links[0]["fileStorageModuleFileId"].as_str().unwrap()
        ))
        .await;
    assert_eq!(file.data()["width"], json!(1485));
    assert_eq!(
        mine.data()["receiptUrl"],
        file.data()["file"],
        "the order's page links the receipt the mail promises"
    );
    let stored = app
        .plain
        .get(app.url(file.data()["file"].as_str().unwrap()))
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert_eq!(
        stored.as_ref(),
        receipt.body.as_slice(),
        "the mailed receipt is the stored one"
    );
    // The receipt (the buyer's email, items and amount) is the buyer's: its row is hidden, so
    // neither a visitor nor another account finds it in the file list or reads it by id.
    assert_eq!(file.data()["hidden"], json!(true), "{}", file.text);
    let fid = links[0]["fileStorageModuleFileId"].as_str().unwrap();
    let other = app.register("other@example.com").await;
    for who in [app.anon(), app.as_account(&other)] {
        let listed = who.get("/api/file-storage/files?limit=100").await;
        assert_eq!(listed.status, 200, "{}", listed.text);
        assert!(
            !listed.text.contains(fid) && !listed.text.contains("buyer@example.com"),
            "the receipt is listed: {}",
            listed.text
        );
        let one = who.get(&format!("/api/file-storage/files/{fid}")).await;
        assert_eq!(one.status, 404, "{}", one.text);
    }
    // A receipt written before receipts were hidden (shown, its seed not run) is hidden at the
    // next start, and the buyer's order still links it.
    app.write_raw(
        "file-storage.file",
        fid.parse().unwrap(),
        &[("hidden", stoa_kernel::value::Val::Bool(false))],
    )
    .await;
    let by_id = format!("/api/file-storage/files/{fid}");
    assert_eq!(app.anon().get(&by_id).await.status, 200);
    let mut tx = app.store.begin().await.unwrap();
    stoa_store::seed::unmark(&mut tx.exec(), "ecommerce.receipts-hidden.v1")
        .await
        .unwrap();
    tx.commit().await.unwrap();
    let commerce = app.ctx.need::<stoa_ecommerce::orders::Commerce>().unwrap();
    commerce.hide_old_receipts().await.unwrap();
    assert_eq!(app.anon().get(&by_id).await.status, 404);
    assert_eq!(
        me.get(&format!("{}/{order}", orders(&s))).await.data()["receiptUrl"],
        file.data()["file"]
    );
    let number = order_row(&app, &order).await["number"].as_i64().unwrap();
    assert!(
        buyer
            .subject()
            .unwrap_or_default()
            .contains(&format!("№ {number}")),
        "the order's number, not its id: {:?}",
        buyer.subject()
    );
    let admin = sink.wait_for("boss@example.com").await;
    assert!(
        admin.text().contains("buyer@example.com"),
        "{}",
        admin.text()
    );
    // The inbox holds the webhook, processed once.
    let inbox = app.get("/api/billing/webhooks").await;
    let rows = inbox.data().as_array().unwrap();
    assert_eq!(rows.len(), 1, "{}", inbox.text);
    assert_eq!(rows[0]["status"], json!("processed"));
    // Buy now: one product, one new order, checked out at once.
    let r = me
        .post(
            &format!(
                "/api/rbac/subjects/{s}/ecommerce-module/products/{}/checkout",
                c.grove
            ),
            &json!({"provider": "dummy", "quantity": 2, "email": "buyer@example.com"}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(
        r.data()["billingModule"]["invoices"][0]["amount"],
        json!("3981")
    );
    let r = me
        .post(
            &format!(
                "/api/rbac/subjects/{s}/ecommerce-module/products/{}/checkout",
                c.grove
            ),
            &json!({"provider": "nope", "quantity": 2}),
        )
        .await;
    assert_eq!(r.status, 422, "{}", r.text);
    assert_eq!(
        me.get(&orders(&s)).await.data().as_array().unwrap().len(),
        1,
        "the refused buy-now left no order"
    );
    // …once: buying again with the same address (any case) adds none.
    let r = me
        .post(
            &format!(
                "/api/rbac/subjects/{s}/ecommerce-module/products/{}/checkout",
                c.grove
            ),
            &json!({"provider": "dummy", "email": "BUYER@example.com"}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(identities(&app, &s).await.len(), 1);
    // …in the currency the buyer names, whichever way it is named.
    for body in [
        json!({"provider": "dummy", "email": "buyer@example.com", "billingModuleCurrencyId": c.kzt}),
        json!({"provider": "dummy", "email": "buyer@example.com", "billingModule": {"currency": {"id": c.kzt}}}),
    ] {
        let r = me
            .post(
                &format!(
                    "/api/rbac/subjects/{s}/ecommerce-module/products/{}/checkout",
                    c.tree
                ),
                &body,
            )
            .await;
        assert_eq!(r.status, 201, "{}", r.text);
        let invoice = &r.data()["billingModule"]["invoices"][0];
        assert_eq!(
            (invoice["currency"].as_str(), invoice["amount"].as_str()),
            (Some("kzt"), Some("995")),
            "{}",
            r.text
        );
    }
}
dual_test!(checkout, db);

async fn webhooks_apply_once(db: Db) {
    let sink = Sink::start().await;
    let app = app(db, Some(&sink), 3600, 3600).await;
    let c = catalog(&app).await;
    let Bought { order, invoice, .. } = buy(
        &app,
        &c.tree,
        2,
        json!({"provider": "dummy", "email": "once@example.com"}),
    )
    .await;
    let hook = "/api/billing/payment-intents/dummy/webhook";
    // Forged: the wrong proof is refused at once (401, kept in the inbox) and changes nothing.
    let r = app
        .anon()
        .post(hook, &json!({"data": {"id": invoice, "token": "guess"}}))
        .await;
    assert_eq!(r.status, 401, "{}", r.text);
    app.drain_jobs().await;
    assert_eq!(order_row(&app, &order).await["status"], json!("paying"));
    // The real one, twice in a row and 20 times at once.
    let body = dummy_payment(&app, &invoice).await;
    let _ = app.anon().post(hook, &body).await;
    let _ = app.anon().post(hook, &body).await;
    let anon = app.anon();
    let all = futures::future::join_all((0..20).map(|_| anon.post(hook, &body))).await;
    assert!(
        all.iter().all(|r| r.status == 200),
        "{:?}",
        all.iter().map(|r| r.status).collect::<Vec<_>>()
    );
    app.drain_jobs().await;
    let o = order_row(&app, &order).await;
    assert_eq!(o["status"], json!("approving"));
    let changes = app
        .rows_where("/api/ecommerce/order-status-changes", "orderId", &order)
        .await;
    assert_eq!(changes.len(), 2, "{changes:?}");
    // One entry applied, one refused, and each copy recorded as a copy.
    assert_eq!(inbox_in(&app, "processed").await.len(), 1);
    assert_eq!(inbox_in(&app, "rejected").await.len(), 1);
    let copies = inbox_in(&app, "ignored").await;
    assert_eq!(copies.len(), 21, "{copies:?}");
    assert!(
        copies[0]["result"].as_str().unwrap().contains("copy"),
        "{copies:?}"
    );
    sink.wait_for("once@example.com").await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let to_buyer = sink
        .mails()
        .iter()
        .filter(|m| m.to.iter().any(|t| t == "once@example.com"))
        .count();
    assert_eq!(to_buyer, 1, "one set of emails");
    // The paid order is the analytics funnel's last step, counted once.
    let collector = app.ctx.need::<stoa_analytic::collect::Collector>().unwrap();
    collector.flush().await.unwrap();
    let d = app.get("/api/analytic/dashboard?days=1").await;
    assert_eq!(d.data()["funnel"]["paid"], 1, "{}", d.text);
    // An admin replay pays nothing twice.
    let id = inbox_in(&app, "processed").await[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = app
        .post(&format!("/api/billing/webhooks/{id}/replay"), &json!({}))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    app.drain_jobs().await;
    let again = app.get(&format!("/api/billing/webhooks/{id}")).await;
    assert_eq!(again.data()["status"], json!("ignored"), "{}", again.text);
    assert_eq!(order_row(&app, &order).await["status"], json!("approving"));
    // Webhooks of a provider that is not enabled: 404.
    let r = app
        .anon()
        .post("/api/billing/payment-intents/stripe/webhook", &json!({}))
        .await;
    assert_eq!(r.status, 404, "{}", r.text);
}
dual_test!(webhooks_apply_once, db);

/// A dummy checkout whose webhook was posted from outside and waits in the inbox (`received`,
/// its job not run yet; the dummy job itself is an hour away): the app, the order, the waiting
/// entry and the billing service.
async fn waiting_webhook(db: Db) -> Waiting {
    let app = app(db, None, 3600, 3600).await;
    let c = catalog(&app).await;
    let Bought { order, invoice, .. } = buy(&app, &c.tree, 1, json!({"provider": "dummy"})).await;
    let body = dummy_payment(&app, &invoice).await;
    let r = app
        .anon()
        .post("/api/billing/payment-intents/dummy/webhook", &body)
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let waiting = inbox_in(&app, "received").await;
    assert_eq!(waiting.len(), 1);
    let entry = uuid::Uuid::parse_str(waiting[0]["id"].as_str().unwrap()).unwrap();
    let billing = app
        .ctx
        .need::<stoa_billing::service::Billing>()
        .expect("billing");
    Waiting {
        app,
        order,
        invoice,
        entry,
        billing,
    }
}

struct Waiting {
    app: TestApp,
    order: String,
    invoice: String,
    entry: uuid::Uuid,
    billing: std::sync::Arc<stoa_billing::service::Billing>,
}

/// The dummy provider's job applies the inbox entry it writes itself (no second job), and one
/// it finds written but not yet applied: a copy of its webhook (the same bytes) already waiting
/// in the inbox, as a run cut off between writing and applying leaves it for the retry.
async fn the_dummy_job_applies_its_waiting_entry(db: Db) {
    let Waiting {
        app,
        order,
        invoice,
        billing,
        ..
    } = waiting_webhook(db).await;
    run_dummy_pay(&billing, &invoice).await;
    // Applied by the dummy job itself, before any other job ran; its own copy is a copy.
    assert_eq!(inbox_in(&app, "received").await.len(), 0);
    assert_eq!(inbox_in(&app, "processed").await.len(), 1);
    assert_eq!(inbox_in(&app, "ignored").await.len(), 1);
    // The order moved on with the payment's commit (no job in between), its change recorded.
    assert_eq!(order_row(&app, &order).await["status"], json!("approving"));
    let changes = app
        .rows_where("/api/ecommerce/order-status-changes", "orderId", &order)
        .await;
    assert!(
        changes.iter().any(|c| c["to"] == json!("approving")),
        "{changes:?}"
    );
    assert!(
        queued(&app, "ecommerce.intents-paid").await.is_empty(),
        "no job is left to move the order"
    );
    // Run again (a retry after a crash past this point): nothing more happens.
    run_dummy_pay(&billing, &invoice).await;
    app.drain_jobs().await;
    assert_eq!(inbox_in(&app, "processed").await.len(), 1);
    assert_eq!(order_row(&app, &order).await["status"], json!("approving"));
}
dual_test!(the_dummy_job_applies_its_waiting_entry, db);

/// Runs the dummy provider's job for `invoice` now (its delay skipped).
async fn run_dummy_pay(billing: &stoa_billing::service::Billing, invoice: &str) {
    billing
        .dummy_pay(&json!({"invoice": invoice}))
        .await
        .expect("the dummy provider's job");
}

/// The jobs named `name`, whatever their status (at most 1000).
async fn jobs_named(app: &TestApp, name: &str) -> Vec<stoa_store::Record> {
    let jobs = app.store.entity(stoa_store::jobs::KEY).unwrap();
    let q = stoa_kernel::query::FindQuery::all()
        .eq(&jobs, "name", Val::Text(name.into()))
        .unwrap();
    app.store.find_in_query(&jobs, q, 1000).await.unwrap()
}

/// The queued (not yet run) jobs named `name`.
async fn queued(app: &TestApp, name: &str) -> Vec<stoa_store::Record> {
    jobs_named(app, name)
        .await
        .into_iter()
        .filter(|j| j.text("status") == Some("queued"))
        .collect()
}

/// A hook on payments that writes and then fails: it cancels the intents it is handed, then
/// errs, as a module's bug would.
struct FailingHook(std::sync::Arc<stoa_kernel::model::Entity>);

impl stoa_billing::service::PaidHook for FailingHook {
    fn paid_in<'a, 'b>(
        &'a self,
        exec: &'a mut stoa_store::Exec<'b>,
        intents: &'a [stoa_store::Record],
    ) -> stoa_api::module::BoxFuture<'a, stoa_kernel::Result<()>> {
        Box::pin(async move {
            for i in intents {
                stoa_store::repo::set_if(
                    exec,
                    &self.0,
                    i.id().expect("an intent has an id"),
                    &[("status", Val::Text("canceled".into()))],
                    &[],
                )
                .await?;
            }
            Err(stoa_kernel::Error::internal("a hook's bug"))
        })
    }
}

/// A hook that fails in the payment's transaction undoes only its own writes: the payment
/// stands, the other hook's work (the order) stands, and the failed hook's job is queued.
async fn a_failing_payment_hook_falls_back_to_its_job(db: Db) {
    let Waiting {
        app,
        order,
        invoice,
        billing,
        ..
    } = waiting_webhook(db).await;
    let intents = app.store.entity("billing.payment-intent").unwrap();
    billing.on_paid_in(
        "ecommerce.intents-paid",
        std::sync::Arc::new(FailingHook(intents.clone())),
    );
    run_dummy_pay(&billing, &invoice).await;
    assert_eq!(inbox_in(&app, "processed").await.len(), 1);
    assert_eq!(order_row(&app, &order).await["status"], json!("approving"));
    let links = app
        .rows_where(
            "/api/billing/payment-intents-to-invoices",
            "invoiceId",
            &invoice,
        )
        .await;
    assert!(!links.is_empty());
    for l in links {
        let id = l["paymentIntentId"].as_str().unwrap();
        let it = app.get(&format!("/api/billing/payment-intents/{id}")).await;
        assert_eq!(it.data()["status"], json!("succeeded"), "{}", it.text);
    }
    let jobs = queued(&app, "ecommerce.intents-paid").await;
    assert_eq!(jobs.len(), 1, "the failed hook's job instead");
    // It runs, and finds nothing left to do.
    app.drain_jobs().await;
    assert!(queued(&app, "ecommerce.intents-paid").await.is_empty());
    assert_eq!(order_row(&app, &order).await["status"], json!("approving"));
}
dual_test!(a_failing_payment_hook_falls_back_to_its_job, db);

/// A checkout with the dummy provider (which answers without a network call) starts its payment
/// in the checkout's own transaction: one write transaction on SQLite's writer, the invoice
/// open in the answer and its webhook job queued with it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dummy_checkout_is_one_write_transaction() {
    let app = app(Db::Sqlite, None, 3600, 3600).await;
    let c = catalog(&app).await;
    let (subject, jwt) = guest(&app).await;
    let me = app.bearer(&jwt);
    let r = me
        .post(
            &orders(&subject),
            &json!({"productId": c.tree, "quantity": 2}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let writes = || app.store.db.sqlite_writes().expect("sqlite").transactions;
    let before = writes();
    let r = me
        .post(
            &format!("{}/checkout", orders(&subject)),
            &json!({"provider": "dummy", "email": "one@example.com"}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(writes() - before, 1, "write transactions of one checkout");
    let invoice = &r.data()["billingModule"]["invoices"][0];
    assert_eq!(invoice["status"], json!("open"), "{invoice}");
    assert!(
        invoice["paymentUrl"]
            .as_str()
            .is_some_and(|u| u.contains("/checkout/success")),
        "{invoice}"
    );
    assert_eq!(queued(&app, "billing.dummy-pay").await.len(), 1);
}

/// A fault in the database itself (not in our code): while `on`, no payment intent may become
/// `succeeded` — a trigger that aborts the statement, on either backend.
async fn intents_cannot_succeed(app: &TestApp, on: bool) {
    let when = r#"new."status" = 'succeeded'"#;
    stoa_testkit::fault(&app.store.db, "billing_payment_intent", "status", when, on).await;
}

/// The dummy provider's webhook is applied in the transaction that writes its inbox entry (no
/// job for it). When applying fails there, only that is undone: the entry stays `received`
/// with its job, which applies it once the fault is gone — once.
async fn a_dummy_payment_that_cannot_be_applied_waits_with_its_job(db: Db) {
    let app = app(db, None, 3600, 3600).await;
    let c = catalog(&app).await;
    let billing = app
        .ctx
        .need::<stoa_billing::service::Billing>()
        .expect("billing");
    // Without a fault: paid as written, the order moved on, no job behind it.
    let Bought { order, invoice, .. } = buy(&app, &c.tree, 1, json!({"provider": "dummy"})).await;
    run_dummy_pay(&billing, &invoice).await;
    assert_eq!(inbox_in(&app, "processed").await.len(), 1);
    assert_eq!(order_row(&app, &order).await["status"], json!("approving"));
    assert!(jobs_named(&app, "billing.webhook").await.is_empty());
    // With one: the entry is kept, its job queued, nothing paid.
    intents_cannot_succeed(&app, true).await;
    let Bought { order, invoice, .. } = buy(&app, &c.tree, 2, json!({"provider": "dummy"})).await;
    run_dummy_pay(&billing, &invoice).await;
    let waiting = inbox_in(&app, "received").await;
    assert_eq!(waiting.len(), 1, "{waiting:?}");
    assert_eq!(waiting[0]["invoiceId"], json!(invoice));
    assert_eq!(queued(&app, "billing.webhook").await.len(), 1);
    assert_eq!(order_row(&app, &order).await["status"], json!("paying"));
    let inv = app.get(&format!("/api/billing/invoices/{invoice}")).await;
    assert_eq!(inv.data()["status"], json!("open"), "{}", inv.text);
    // The fault gone, the job applies it.
    intents_cannot_succeed(&app, false).await;
    app.drain_jobs().await;
    assert!(inbox_in(&app, "received").await.is_empty());
    assert_eq!(inbox_in(&app, "processed").await.len(), 2);
    assert_eq!(order_row(&app, &order).await["status"], json!("approving"));
    let inv = app.get(&format!("/api/billing/invoices/{invoice}")).await;
    assert_eq!(inv.data()["status"], json!("paid"), "{}", inv.text);
    // The dummy job's retry finds it paid: no second payment.
    run_dummy_pay(&billing, &invoice).await;
    assert_eq!(inbox_in(&app, "processed").await.len(), 2);
}
dual_test!(
    a_dummy_payment_that_cannot_be_applied_waits_with_its_job,
    db
);

/// Leaves the inbox `entries` waiting as after an outage: every webhook job dead after its last
/// attempt, and the entries older than the inbox sweep waits.
async fn left_waiting(app: &TestApp, entries: &[uuid::Uuid]) {
    let jobs = app.store.entity(stoa_store::jobs::KEY).unwrap();
    let webhooks = app.store.entity("billing.webhook").unwrap();
    let old = stoa_kernel::value::now() - time::Duration::minutes(11);
    let webhook_jobs = jobs_named(app, "billing.webhook").await;
    let mut tx = app.store.begin().await.unwrap();
    {
        let mut exec = tx.exec();
        let dead = [("status", Val::Text("dead".into()))];
        for j in webhook_jobs {
            stoa_store::repo::set_if(&mut exec, &jobs, j.id().unwrap(), &dead, &[])
                .await
                .unwrap();
        }
        let stale = [("createdAt", Val::Timestamp(old))];
        for e in entries {
            stoa_store::repo::set_if(&mut exec, &webhooks, *e, &stale, &[])
                .await
                .unwrap();
        }
    }
    tx.commit().await.unwrap();
}

/// An accepted webhook left waiting with no job to apply it (its job died after its last
/// attempt) is queued again by the inbox sweep once it is stale, once per period, and applied.
async fn the_inbox_sweep_applies_entries_left_waiting(db: Db) {
    let Waiting {
        app,
        order,
        entry,
        billing,
        ..
    } = waiting_webhook(db).await;
    // Fresh: left to its own job.
    assert_eq!(billing.sweep_inbox().await.unwrap(), 0);
    left_waiting(&app, &[entry]).await;
    assert_eq!(billing.sweep_inbox().await.unwrap(), 1);
    assert_eq!(billing.sweep_inbox().await.unwrap(), 0, "once per period");
    app.drain_jobs().await;
    assert_eq!(inbox_in(&app, "received").await.len(), 0);
    assert_eq!(inbox_in(&app, "processed").await.len(), 1);
    assert_eq!(order_row(&app, &order).await["status"], json!("approving"));
}
dual_test!(the_inbox_sweep_applies_entries_left_waiting, db);

/// The inbox sweep queues at most a hundred entries a run (its cost is bounded whatever the
/// backlog); the rest is worked off by the next runs, none left behind, and the payment is
/// applied once.
async fn the_inbox_sweep_queues_at_most_a_hundred_a_run(db: Db) {
    let Waiting {
        app,
        order,
        entry,
        billing,
        ..
    } = waiting_webhook(db).await;
    let webhooks = app.store.entity("billing.webhook").unwrap();
    let real = app.store.get(&webhooks, entry).await.unwrap().to_json();
    // 100 more accepted entries (other events of the provider, as a backlog after an outage
    // leaves them): 101 in all, none with a job, all older than the sweep waits.
    let mut backlog = vec![entry];
    for n in 0..100 {
        let mut m = serde_json::Map::new();
        for f in [
            "provider", "body", "headers", "status", "verified", "result",
        ] {
            m.insert(f.into(), real[f].clone());
        }
        m.insert("eventKey".into(), json!(format!("backlog-{n}")));
        m.insert("dedupeKey".into(), json!(format!("backlog-{n}")));
        backlog.push(app.store.create(&webhooks, &m).await.unwrap().id().unwrap());
    }
    left_waiting(&app, &backlog).await;
    assert_eq!(
        inbox_in(&app, "received").await.len(),
        100,
        "a page of the 101"
    );
    assert_eq!(
        billing.sweep_inbox().await.unwrap(),
        100,
        "at most 100 a run"
    );
    // The next runs (the drain runs the scheduled sweep too) take the one left: none stays.
    app.drain_jobs().await;
    assert_eq!(inbox_in(&app, "received").await.len(), 0);
    assert_eq!(
        inbox_in(&app, "ignored").await.len(),
        100,
        "the backlog: no second payment"
    );
    assert_eq!(order_row(&app, &order).await["status"], json!("approving"));
    // Every entry carries the same payment: whichever is applied first pays, the rest are
    // copies.
    assert_eq!(inbox_in(&app, "processed").await.len(), 1, "paid once");
}
dual_test!(the_inbox_sweep_queues_at_most_a_hundred_a_run, db);

/// Money is read from the price tables at the moment it is needed: a price an admin changes
/// reaches the very next cart read, and a price taken away makes the product unbuyable at once.
/// The same for what else a cart reads of a product (kept in memory between changes: the
/// catalogue of `prices::Catalog`): its stores and whether it is published.
async fn a_price_change_reaches_the_next_cart_read(db: Db) {
    let app = app(db, None, 3600, 3600).await;
    let c = catalog(&app).await;
    let (s, jwt) = guest(&app).await;
    let me = app.bearer(&jwt);
    let r = me
        .post(&orders(&s), &json!({"productId": c.grove, "quantity": 2}))
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(r.data()["checkoutTotal"], json!("3981"));
    let order = r.data()["id"].as_str().unwrap().to_owned();
    let path = format!("{}/{order}", orders(&s));
    let total = || {
        let (me, path) = (&me, &path);
        async move {
            let r = me.get(path).await;
            assert_eq!(r.status, 200, "{}", r.text);
            r.data()["checkoutTotal"].clone()
        }
    };
    assert_eq!(total().await, json!("3981"), "read again: the same");
    let link = app
        .rows_where(
            "/api/ecommerce/products-to-attributes",
            "productId",
            &c.grove,
        )
        .await;
    let attr = link[0]["attributeId"].as_str().unwrap().to_owned();
    let r = app
        .patch(
            &format!("/api/ecommerce/attributes/{attr}"),
            &json!({"number": "2000"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(total().await, json!("4000"), "the new price at once");
    // What else an add reads of the product follows its tables as promptly: a second store
    // selling it makes the store a choice…
    let other = app
        .create("/api/ecommerce/stores", &json!({"slug": "second-shop"}))
        .await;
    let link = app
        .create(
            "/api/ecommerce/stores-to-products",
            &json!({"storeId": other["id"], "productId": c.grove, "sku": "grove-2"}),
        )
        .await;
    let (cart, one) = (orders(&s), json!({"productId": c.grove, "quantity": 1}));
    let add = || me.post(&cart, &one);
    let r = add().await;
    assert_eq!(r.status, 422, "{}", r.text);
    assert!(r.text.contains("storeId"), "{}", r.text);
    let r = app
        .delete(&format!(
            "/api/ecommerce/stores-to-products/{}",
            link["id"].as_str().unwrap()
        ))
        .await;
    assert!(r.status < 300, "{}", r.text);
    assert_eq!(add().await.status, 201, "one store again");
    // …and a product taken back to draft cannot be bought by a visitor at once.
    let product = format!("/api/ecommerce/products/{}", c.grove);
    let r = app.patch(&product, &json!({"status": "draft"})).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let r = add().await;
    assert_eq!(r.status, 422, "a draft is not for sale: {}", r.text);
    assert!(r.text.contains("productId"), "{}", r.text);
    let r = app.patch(&product, &json!({"status": "published"})).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(add().await.status, 201, "published again");
    // The price taken away: the product has no price any more.
    let l = app
        .rows_where(
            "/api/ecommerce/attributes-to-billing-module-currencies",
            "attributeId",
            &attr,
        )
        .await;
    let lid = l[0]["id"].as_str().unwrap().to_owned();
    let r = app
        .delete(&format!(
            "/api/ecommerce/attributes-to-billing-module-currencies/{lid}"
        ))
        .await;
    assert!(r.status < 300, "{}", r.text);
    let r = me
        .post(&orders(&s), &json!({"productId": c.grove, "quantity": 1}))
        .await;
    assert_eq!(r.status, 422, "no price any more: {}", r.text);
}
dual_test!(a_price_change_reaches_the_next_cart_read, db);

async fn concurrent_checkouts(db: Db) {
    let app = app(db, None, 3600, 3600).await;
    let c = catalog(&app).await;
    let (s, jwt) = guest(&app).await;
    let me = app.bearer(&jwt);
    me.post(&orders(&s), &json!({"productId": c.tree, "quantity": 4}))
        .await;
    me.post(&orders(&s), &json!({"productId": c.grove})).await;
    let path = format!("{}/checkout", orders(&s));
    let open: Vec<Value> = me
        .get(&orders(&s))
        .await
        .data()
        .as_array()
        .unwrap()
        .iter()
        .map(|o| json!({"id": o["id"]}))
        .collect();
    let body = json!({"provider": "dummy", "ecommerceModule": {"orders": open}});
    let (a, b) = tokio::join!(me.post(&path, &body), me.post(&path, &body));
    let mut codes = [a.status, b.status];
    codes.sort_unstable();
    assert_eq!(codes, [201, 409], "{} / {}", a.text, b.text);
    let intents = app.get("/api/billing/payment-intents").await;
    assert_eq!(
        intents.data().as_array().unwrap().len(),
        1,
        "one set: {}",
        intents.text
    );
    let invoices = app.get("/api/billing/invoices").await;
    assert_eq!(
        invoices.data().as_array().unwrap().len(),
        1,
        "{}",
        invoices.text
    );
    assert_eq!(invoices.data()[0]["amount"], json!("2786.5"));
}
dual_test!(concurrent_checkouts, db);

async fn state_machine(db: Db) {
    let app = app(db, None, 3600, 1).await;
    let c = catalog(&app).await;
    // Admin edits: only approving → packaging → delivering → delivered.
    let o = app
        .create("/api/ecommerce/orders", &json!({"type": "history"}))
        .await;
    let id = o["id"].as_str().unwrap().to_owned();
    let path = format!("/api/ecommerce/orders/{id}");
    let r = app
        .post(
            &format!("{path}/override"),
            &json!({"status": "approving", "reason": "paid by bank transfer"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    for to in ["packaging", "delivering", "delivered"] {
        let r = app.patch(&path, &json!({"status": to})).await;
        assert_eq!(r.status, 200, "{to}: {}", r.text);
    }
    for back in ["approving", "new", "paying", "canceled"] {
        let r = app.patch(&path, &json!({"status": back})).await;
        assert_eq!(r.status, 409, "{back}: {}", r.text);
        assert!(r.text.contains("override"), "{}", r.text);
    }
    let r = app
        .send(
            app.client
                .patch(app.url("/api/ecommerce/orders/bulk"))
                .json(&json!([{"id": id, "data": {"status": "approving"}}])),
        )
        .await;
    assert_eq!(r.status, 409, "{}", r.text);
    // Every pair: the generic PATCH allows exactly the admin rows of the table.
    let all = stoa_ecommerce::ORDER_STATUSES;
    let mut allowed = HashSet::new();
    for &from in all {
        for to in all.iter().filter(|t| **t != from) {
            let o = order_in(&app, from).await;
            let r = app
                .patch(
                    &format!("/api/ecommerce/orders/{}", o["id"].as_str().unwrap()),
                    &json!({"status": to}),
                )
                .await;
            assert!(
                r.status == 200 || r.status == 409,
                "{from}>{to}: {}",
                r.text
            );
            if r.status == 200 {
                allowed.insert(format!("{from}>{to}"));
            }
        }
    }
    let expected: HashSet<String> = [
        "approving>packaging",
        "packaging>delivering",
        "delivering>delivered",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(allowed, expected);
    // Other fields still edit freely.
    let r = app
        .patch(&path, &json!({"comment": "left at the door"}))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    // Override: a reason is required; it is recorded.
    let r = app
        .post(&format!("{path}/override"), &json!({"status": "packaging"}))
        .await;
    assert_eq!(r.status, 422, "{}", r.text);
    let r = app
        .post(
            &format!("{path}/override"),
            &json!({"status": "packaging", "reason": "delivered to the wrong address"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let details = app.get(&format!("{path}/details")).await;
    assert_eq!(details.status, 200, "{}", details.text);
    let changes = details.data()["statusChanges"].as_array().unwrap();
    // new → approving (override), three admin steps, delivered → packaging (override).
    assert_eq!(changes.len(), 5, "{}", details.text);
    let last = changes.last().unwrap();
    assert_eq!(
        (
            last["from"].as_str(),
            last["to"].as_str(),
            last["override"].as_bool()
        ),
        (Some("delivered"), Some("packaging"), Some(true))
    );
    assert_eq!(last["reason"], json!("delivered to the wrong address"));
    assert!(
        last["actor"].as_str().unwrap().starts_with("secret-key"),
        "{last}"
    );
    assert_eq!(details.data()["nextStatuses"], json!(["delivering"]));
    // Every transition, the overrides too, is in the audit log with the status before and after.
    let f = json!([
        {"column": "entity", "method": "eq", "value": "ecommerce.order"},
        {"column": "recordId", "method": "eq", "value": id},
    ])
    .to_string();
    let f: String = form_urlencoded::byte_serialize(f.as_bytes()).collect();
    let log = app
        .get(&format!("/api/platform/audits?filters={f}&limit=100"))
        .await;
    assert_eq!(log.status, 200, "{}", log.text);
    let moves: Vec<(String, String)> = log
        .data()
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| {
            let s = &e["changes"]["status"];
            Some((
                s["before"].as_str()?.to_owned(),
                s["after"].as_str()?.to_owned(),
            ))
        })
        .collect();
    for (from, to) in [
        ("approving", "packaging"),
        ("delivering", "delivered"),
        ("delivered", "packaging"),
    ] {
        assert!(
            moves.contains(&(from.to_owned(), to.to_owned())),
            "{from}>{to} not in {moves:?}"
        );
    }
    // Payment timeout: a paying order left too long is canceled by the sweep (no job row per
    // checkout waits for it), and not before.
    let commerce = app
        .ctx
        .need::<stoa_ecommerce::orders::Commerce>()
        .expect("commerce");
    let bought = std::time::Instant::now();
    let Bought { order, .. } = buy(&app, &c.tree, 1, json!({"provider": "dummy"})).await;
    commerce.sweep().await.expect("sweep");
    // (The timeout here is a second: a machine slow enough to take that long has no "before".)
    if bought.elapsed() < std::time::Duration::from_millis(900) {
        assert_eq!(order_row(&app, &order).await["status"], json!("paying"));
    }
    assert!(queued(&app, "ecommerce.order-timeout").await.is_empty());
    tokio::time::sleep(std::time::Duration::from_millis(2100)).await;
    commerce.sweep().await.expect("sweep");
    let o = order_row(&app, &order).await;
    assert_eq!(
        (o["status"].as_str(), o["type"].as_str()),
        (Some("canceled"), Some("history")),
        "{o}"
    );
}
dual_test!(state_machine, db);

async fn holds(app: &TestApp, subject: &str, role: &Value) -> bool {
    app.rows_where("/api/rbac/subjects-to-roles", "subjectId", subject)
        .await
        .iter()
        .any(|l| &l["roleId"] == role)
}

/// The newest entry of an order's status history.
async fn last_change(app: &TestApp, order: &str) -> Value {
    let history = app
        .get(&format!("/api/ecommerce/orders/{order}/details"))
        .await;
    history.data()["statusChanges"]
        .as_array()
        .and_then(|c| c.last())
        .cloned()
        .unwrap_or_else(|| panic!("no status history: {}", history.text))
}

/// Subject `s` buys `product` at once (the buy-now checkout) with the dummy provider: its order.
async fn buy_now(me: &stoa_testkit::users::As<'_>, s: &str, product: &Value) -> String {
    let r = me
        .post(
            &format!(
                "/api/rbac/subjects/{s}/ecommerce-module/products/{}/checkout",
                product["id"].as_str().unwrap()
            ),
            &json!({"provider": "dummy"}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    r.data()["ecommerceModule"]["orders"][0]
        .as_str()
        .unwrap()
        .to_owned()
}

/// A 'Club member' role that buying `product` grants.
async fn role_granted_by(app: &TestApp, product: &Value) -> Value {
    let role = app
        .create(
            "/api/rbac/roles",
            &json!({"title": "Club member", "slug": "club-member"}),
        )
        .await;
    app.create(
        "/api/rbac/roles-to-ecommerce-module-products",
        &json!({"roleId": role["id"], "ecommerceModuleProductId": product["id"]}),
    )
    .await;
    role
}

/// DOMAIN §5.4 and the admin's order reads: a subscription's role is granted while it is
/// delivering and revoked once delivered; checkout-attributes, stats and clear-old-orders.
async fn subscriptions_and_housekeeping(db: Db) {
    // Abandoned carts are kept 0 hours here.
    let app = spawn_app_manual(db, |c| {
        c.dummy_webhook_delay = 0;
        c.cart_retention_hours = 0;
    })
    .await
    .expect("app");
    let c = catalog(&app).await;
    let rub = c.rub.clone();
    let club = monthly(&app, &c.price_key, &rub, "500").await;
    let role = role_granted_by(&app, &club).await;
    let (s, jwt) = guest(&app).await;
    let me = app.bearer(&jwt);
    let order = buy_now(&me, &s, &club).await;
    assert!(
        !holds(&app, &s, &role["id"]).await,
        "no role before the payment"
    );
    app.drain_jobs().await;
    let o = order_row(&app, &order).await;
    assert_eq!(
        o["status"],
        json!("delivering"),
        "a subscription is delivered from the payment on"
    );
    assert!(
        holds(&app, &s, &role["id"]).await,
        "the product's role is granted"
    );
    let attrs = app
        .get(&format!(
            "/api/ecommerce/orders/{order}/checkout-attributes/{}",
            rub.as_str().unwrap()
        ))
        .await;
    assert_eq!(
        attrs.data(),
        &json!({"amount": "500", "type": "subscription", "interval": "month"}),
        "{}",
        attrs.text
    );
    let intents = app.get("/api/billing/payment-intents").await;
    assert_eq!(intents.data()[0]["interval"], json!("month"));
    let stats = app.get("/api/ecommerce/orders/stats?days=30").await;
    assert_eq!(stats.status, 200, "{}", stats.text);
    assert_eq!(
        stats.data()["days"].as_array().unwrap().len(),
        1,
        "{}",
        stats.text
    );
    assert_eq!(stats.data()["days"][0]["currency"], json!("rub"));
    assert_eq!(stats.data()["days"][0]["orders"], json!(1));
    assert_eq!(stats.data()["days"][0]["revenue"], json!("500"));
    assert_eq!(
        stats.data()["totals"],
        json!([{"currency": "rub", "orders": 1, "revenue": "500"}]),
        "{}",
        stats.text
    );
    assert_eq!(
        app.get("/api/ecommerce/orders/stats?days=0").await.status,
        400
    );
    // Enforce (admin only): within the paid month nothing changes…
    let enforce = format!(
        "/api/rbac/subjects/{s}/ecommerce-module/products/{}/enforce",
        club["id"].as_str().unwrap()
    );
    assert_eq!(me.post(&enforce, &json!({})).await.status, 403);
    let r = app.post(&enforce, &json!({})).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        r.data()["orders"][0]["status"],
        json!("delivering"),
        "{}",
        r.text
    );
    let until = r.data()["orders"][0]["paidUntil"]
        .as_str()
        .unwrap()
        .to_owned();
    let until = stoa_kernel::value::parse_timestamp(&until).unwrap();
    let days = (until - now()).whole_days();
    assert!((27..=31).contains(&days), "a calendar month: {days} days");
    // A second buyer of the club: its lapse is found by the scheduled sweep, not by enforce.
    let (s2, jwt2) = guest(&app).await;
    let order2 = buy_now(&app.bearer(&jwt2), &s2, &club).await;
    app.drain_jobs().await;
    assert_eq!(
        order_row(&app, &order2).await["status"],
        json!("delivering")
    );
    assert!(holds(&app, &s2, &role["id"]).await);
    // The sweep's walk of delivering orders leaves a paid month alone too.
    let commerce = app
        .ctx
        .need::<stoa_ecommerce::orders::Commerce>()
        .expect("commerce");
    commerce.sweep().await.expect("sweep");
    assert_eq!(order_row(&app, &order).await["status"], json!("delivering"));
    assert_eq!(
        order_row(&app, &order2).await["status"],
        json!("delivering")
    );
    // …once the month is over (both payments moved 40 days back), the subscription lapses: the
    // order is delivered and the role goes.
    let invoices = app.get("/api/billing/invoices").await;
    assert_eq!(
        invoices.data().as_array().unwrap().len(),
        2,
        "{}",
        invoices.text
    );
    for i in invoices.data().as_array().unwrap() {
        let invoice = i["id"].as_str().unwrap().parse::<uuid::Uuid>().unwrap();
        app.write_raw(
            "billing.invoice",
            invoice,
            &[(
                "updatedAt",
                Val::Timestamp(now() - time::Duration::days(40)),
            )],
        )
        .await;
    }
    let r = app.post(&enforce, &json!({})).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        r.data()["orders"][0]["from"],
        json!("delivering"),
        "{}",
        r.text
    );
    assert_eq!(
        r.data()["orders"][0]["status"],
        json!("delivered"),
        "{}",
        r.text
    );
    app.drain_jobs().await;
    assert!(
        !holds(&app, &s, &role["id"]).await,
        "the role is revoked once the subscription lapsed"
    );
    let last = last_change(&app, &order).await;
    assert_eq!(last["reason"], json!("subscription lapsed"), "{last}");
    // Enforcing one buyer's product left the other's order alone; the sweep delivers it and its
    // buyer loses the role.
    assert_eq!(
        order_row(&app, &order2).await["status"],
        json!("delivering")
    );
    assert!(holds(&app, &s2, &role["id"]).await);
    commerce.sweep().await.expect("sweep");
    assert_eq!(order_row(&app, &order2).await["status"], json!("delivered"));
    app.drain_jobs().await;
    assert!(
        !holds(&app, &s2, &role["id"]).await,
        "the sweep's lapse revokes the role too"
    );
    let last = last_change(&app, &order2).await;
    assert_eq!(last["reason"], json!("subscription lapsed"), "{last}");
    // An abandoned cart is cleared; paid orders stay.
    let tree = c.tree.clone();
    let cart_order = me
        .post(&orders(&s), &json!({"productId": tree}))
        .await
        .data()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = app
        .post("/api/ecommerce/orders/clear-old-orders", &json!({}))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.data()["removed"], json!(1), "{}", r.text);
    assert_eq!(
        app.get(&format!("/api/ecommerce/orders/{cart_order}"))
            .await
            .status,
        404
    );
    assert_eq!(order_row(&app, &order).await["status"], json!("delivered"));
}
dual_test!(subscriptions_and_housekeeping, db);

/// Whether any product grants a role is read once and kept until those links change (a status
/// change skips the buyer's role check when none does): a role given to a product after its order
/// was checked out — when the kept answer was "none" — still reaches the buyer once paid.
async fn a_role_given_to_a_product_later_is_granted(db: Db) {
    let app = spawn_app_manual(db, |c| c.dummy_webhook_delay = 0)
        .await
        .expect("app");
    let c = catalog(&app).await;
    let club = monthly(&app, &c.price_key, &c.rub, "500").await;
    let bought = buy(
        &app,
        club["id"].as_str().unwrap(),
        1,
        json!({"provider": "dummy"}),
    )
    .await;
    let role = role_granted_by(&app, &club).await;
    app.drain_jobs().await;
    assert_eq!(
        order_row(&app, &bought.order).await["status"],
        json!("delivering")
    );
    assert!(
        holds(&app, &bought.subject, &role["id"]).await,
        "the role given after the checkout is granted on payment"
    );
}
dual_test!(a_role_given_to_a_product_later_is_granted, db);

/// Admin's `POST /api/billing/payment-intents/{id}/{provider}`: a new invoice for an intent whose
/// payment could not start, never a second one while an invoice is open or the intent is paid.
async fn invoice_for_intent(db: Db) {
    let app = app(db, None, 3600, 3600).await;
    let c = catalog(&app).await;
    let Bought {
        jwt,
        order,
        invoice: first,
        ..
    } = buy(&app, &c.tree, 3, json!({"provider": "dummy"})).await;
    let me = app.bearer(&jwt);
    let details = app
        .get(&format!("/api/ecommerce/orders/{order}/details"))
        .await;
    let intent = details.data()["paymentIntents"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let path = format!("/api/billing/payment-intents/{intent}/dummy");
    // Buyers and visitors may not; an open invoice blocks a second one.
    assert_eq!(me.post(&path, &json!({})).await.status, 403);
    assert_eq!(app.anon().post(&path, &json!({})).await.status, 401);
    let r = app.post(&path, &json!({})).await;
    assert_eq!(r.status, 409, "{}", r.text);
    assert!(r.text.contains(&first), "{}", r.text);
    // The first invoice failed (as when the provider did not answer): a new one opens.
    let r = app
        .patch(
            &format!("/api/billing/invoices/{first}"),
            &json!({"status": "failed"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let r = app
        .post(
            &format!("/api/billing/payment-intents/{intent}/nope"),
            &json!({}),
        )
        .await;
    assert_eq!(r.status, 422, "{}", r.text);
    assert!(r.text.contains("provider"), "{}", r.text);
    let r = app
        .post(
            &format!(
                "/api/billing/payment-intents/{}/dummy",
                uuid::Uuid::new_v4()
            ),
            &json!({}),
        )
        .await;
    assert_eq!(r.status, 404, "{}", r.text);
    let r = app
        .post(&path, &json!({"metadata": {"email": "not an email"}}))
        .await;
    assert_eq!(r.status, 422, "{}", r.text);
    let r = app
        .post(&path, &json!({"metadata": {"email": "Late@Example.com"}}))
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let second = r.data()["id"].as_str().unwrap().to_owned();
    assert_ne!(second, first);
    assert_eq!(r.data()["status"], json!("open"));
    assert_eq!(r.data()["amount"], json!("597"));
    assert!(
        r.data()["successUrl"]
            .as_str()
            .unwrap()
            .contains("/ecommerce/checkout/success"),
        "{}",
        r.text
    );
    // Paid through the new invoice; then the intent is settled and takes no more invoices.
    let hook = "/api/billing/payment-intents/dummy/webhook";
    let body = dummy_payment(&app, &second).await;
    assert_eq!(app.anon().post(hook, &body).await.status, 200);
    app.drain_jobs().await;
    assert_eq!(order_row(&app, &order).await["status"], json!("approving"));
    let r = app.post(&path, &json!({})).await;
    assert_eq!(r.status, 409, "{}", r.text);
    // Generic admin writes cannot pay, unpay or erase money records.
    let inv = format!("/api/billing/invoices/{second}");
    let failed = format!("/api/billing/invoices/{first}");
    let r = app.patch(&failed, &json!({"status": "paid"})).await;
    assert_eq!(r.status, 409, "{}", r.text);
    for (path, body) in [
        (inv.as_str(), json!({"status": "open"})),
        (
            &format!("/api/billing/payment-intents/{intent}") as &str,
            json!({"status": "requires_payment_method"}),
        ),
        (
            &format!("/api/ecommerce/orders/{order}") as &str,
            json!({"status": "paying"}),
        ),
    ] {
        let r = app.patch(path, &body).await;
        assert_eq!(r.status, 409, "{path} {body}: {}", r.text);
        let r = app.delete(path).await;
        assert_eq!(r.status, 409, "{path}: {}", r.text);
    }
    // A failed invoice is no record of money taken: it may go.
    let r = app.delete(&failed).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        app.get(&inv).await.data()["status"],
        json!("paid"),
        "still paid"
    );
    assert_eq!(order_row(&app, &order).await["status"], json!("approving"));
    for (path, body) in [
        (
            "/api/billing/invoices",
            json!({"status": "paid", "amount": "1"}),
        ),
        (
            "/api/billing/payment-intents",
            json!({"status": "succeeded", "amount": "1"}),
        ),
        ("/api/ecommerce/orders", json!({"status": "approving"})),
    ] {
        let r = app.post(path, &body).await;
        assert_eq!(r.status, 422, "{path}: {}", r.text);
        assert!(r.text.contains("status"), "{}", r.text);
    }
    // A cart goes; so does a failed invoice.
    let cart = app.create("/api/ecommerce/orders", &json!({})).await;
    let r = app
        .delete(&format!(
            "/api/ecommerce/orders/{}",
            cart["id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
}

dual_test!(invoice_for_intent, db);

/// The public webhook route is rate limited per client before the body is read or stored.
async fn webhook_flood(db: Db) {
    let app = spawn_app_manual(db, |c| c.webhook_rate = 5)
        .await
        .expect("app");
    let hook = "/api/billing/payment-intents/dummy/webhook";
    let anon = app.anon();
    for i in 0..5 {
        let r = anon
            .post(
                hook,
                &json!({"data": {"id": format!("x{i}"), "token": "t"}}),
            )
            .await;
        // Malformed (no invoice id): refused, and kept in the inbox.
        assert_eq!(r.status, 400, "{}", r.text);
    }
    let r = anon
        .post(hook, &json!({"data": {"id": "x6", "token": "t"}}))
        .await;
    assert_eq!(r.status, 429, "{}", r.text);
    assert!(r.text.contains("try again"), "{}", r.text);
    let stored = app.get("/api/billing/webhooks?count=true").await;
    assert_eq!(
        stored.data().as_array().unwrap().len(),
        5,
        "{}",
        stored.text
    );
}

dual_test!(webhook_flood, db);

/// A checkout cut off between its commit and the provider's answer (a crash) leaves draft
/// invoices: the order check gives the orders back to the cart after a grace period.
async fn cut_off_checkout(db: Db) {
    let app = app(db, None, 3600, 3600).await;
    let c = catalog(&app).await;
    let b = buy(&app, &c.tree, 2, json!({"provider": "dummy"})).await;
    let (s, order) = (b.subject, b.order);
    let me = app.bearer(&b.jwt);
    let invoice: uuid::Uuid = b.invoice.parse().unwrap();
    let check = format!("/api/ecommerce/orders/{order}/check");
    // As the crash left it: a draft, the provider never asked.
    app.write_raw(
        "billing.invoice",
        invoice,
        &[("status", Val::Text("draft".into()))],
    )
    .await;
    // Too recent: the checkout may still be asking the provider.
    let r = app.post(&check, &json!({})).await;
    assert_eq!(r.status, 409, "{}", r.text);
    assert_eq!(order_row(&app, &order).await["status"], json!("paying"));
    app.write_raw(
        "billing.invoice",
        invoice,
        &[(
            "createdAt",
            Val::Timestamp(now() - time::Duration::minutes(3)),
        )],
    )
    .await;
    let r = app.post(&check, &json!({})).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.data()["status"], json!("new"), "{}", r.text);
    let o = order_row(&app, &order).await;
    assert_eq!(
        (o["status"].as_str(), o["type"].as_str()),
        (Some("new"), Some("cart"))
    );
    assert_eq!(
        app.get(&format!("/api/billing/invoices/{invoice}"))
            .await
            .data()["status"],
        json!("failed")
    );
    // The buyer pays again from the cart.
    let r = me
        .post(
            &format!("{}/checkout", orders(&s)),
            &json!({"provider": "dummy"}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(order_row(&app, &order).await["status"], json!("paying"));
}

dual_test!(cut_off_checkout, db);

/// The ids of `subject`'s orders of `which` kind (cart, history, all), as its owner reads them.
async fn order_ids(app: &TestApp, jwt: &str, subject: &str, which: &str) -> Vec<String> {
    let r = app
        .bearer(jwt)
        .get(&format!("{}?type={which}", orders(subject)))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    r.data()
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|o| o["id"].as_str().map(str::to_owned))
        .collect()
}

/// The subject a token belongs to.
async fn subject_of(app: &TestApp, jwt: &str) -> String {
    let me = app.bearer(jwt).get(&format!("{AUTH}/me")).await;
    me.data()["id"].as_str().unwrap().to_owned()
}

/// A guest who put a tree in the cart and then registers, or signs in, keeps the cart: it moves
/// to the account. An account signing in as another keeps its own.
async fn a_guest_keeps_its_cart_when_it_signs_in(db: Db) {
    let app = app(db, None, 3600, 3600).await;
    let c = catalog(&app).await;
    // Registers from the guest's session.
    let (s, jwt) = guest(&app).await;
    let r = app
        .bearer(&jwt)
        .post(&orders(&s), &json!({"productId": c.tree, "quantity": 2}))
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let cart = r.data()["id"].as_str().unwrap().to_owned();
    let r = app
        .bearer(&jwt)
        .post(
            &format!("{AUTH}/email-and-password/registration"),
            &json!({"login": "donor@example.com", "password": stoa_testkit::users::PASSWORD}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let account_jwt = r.data()["jwt"].as_str().unwrap().to_owned();
    let account = subject_of(&app, &account_jwt).await;
    assert_ne!(account, s);
    assert_eq!(
        order_ids(&app, &account_jwt, &account, "all").await,
        std::slice::from_ref(&cart)
    );
    assert!(
        order_ids(&app, &jwt, &s, "all").await.is_empty(),
        "the guest has none left"
    );

    // Signs in from another guest's session: that cart joins the account's.
    let (s2, jwt2) = guest(&app).await;
    let r = app
        .bearer(&jwt2)
        .post(&orders(&s2), &json!({"productId": c.grove, "quantity": 1}))
        .await;
    let cart2 = r.data()["id"].as_str().unwrap().to_owned();
    let r = app
        .bearer(&jwt2)
        .post(
            &format!("{AUTH}/email-and-password/authentication"),
            &json!({"login": "donor@example.com", "password": stoa_testkit::users::PASSWORD}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let mut mine = order_ids(&app, &account_jwt, &account, "all").await;
    mine.sort();
    let mut both = vec![cart.clone(), cart2];
    both.sort();
    assert_eq!(mine, both);

    // An account is not a guest: signing in as another account from its session moves nothing.
    let other = app.register("other@example.com").await;
    let r = app
        .bearer(&account_jwt)
        .post(
            &format!("{AUTH}/email-and-password/authentication"),
            &json!({"login": "other@example.com", "password": stoa_testkit::users::PASSWORD}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(
        order_ids(&app, &account_jwt, &account, "all").await.len(),
        2
    );
    assert!(
        order_ids(&app, &other.jwt, &other.id, "all")
            .await
            .is_empty()
    );
}
dual_test!(a_guest_keeps_its_cart_when_it_signs_in, db);

/// A payment moves the public counters on every open page, and the buyer's own pages (the
/// success page, the order's page) follow the order: orders are private, so the live channel's
/// watch alone would tell only admins.
async fn open_pages_follow_a_payment(db: Db) {
    let app = app(db, None, 0, 3600).await;
    let c = catalog(&app).await;
    let mut visitor =
        stoa_testkit::live::Live::open(&app.plain, &app.url("/api/live"), None, None).await;
    let (s, jwt) = guest(&app).await;
    let mut buyer =
        stoa_testkit::live::Live::open(&app.plain, &app.url("/api/live"), Some(&jwt), None).await;
    let me = app.bearer(&jwt);
    let r = me
        .post(&orders(&s), &json!({"productId": c.tree, "quantity": 1}))
        .await;
    let order = r.data()["id"].as_str().unwrap().to_owned();
    let r = me
        .post(
            &format!("{}/checkout", orders(&s)),
            &json!({"provider": "dummy", "ecommerceModule": {"orders": [{"id": order}]}}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    for _ in 0..5 {
        app.drain_jobs().await;
    }
    assert_eq!(order_row(&app, &order).await["status"], json!("approving"));
    let wait = std::time::Duration::from_secs(5);
    assert!(
        visitor.revalidated("ecommerce.paid-orders", wait).await,
        "an anonymous page hears that the counters moved"
    );
    // The receipt written with the payment is hidden: no visitor's page is told to refetch files.
    assert!(
        !visitor
            .revalidated("file-storage.file", std::time::Duration::from_secs(1))
            .await,
        "a visitor's page heard of the buyer's receipt"
    );
    assert!(
        buyer.revalidated("ecommerce.order", wait).await,
        "the buyer's page hears that its order changed"
    );
}
dual_test!(open_pages_follow_a_payment, db);

/// Orders checked out at the same time get numbers people can read: each its own, one after
/// another from № 1001, and the buyer's mail names it.
async fn concurrent_checkouts_number_orders_apart(db: Db) {
    let app = app(db, None, 3600, 3600).await;
    let c = catalog(&app).await;
    let mut buyers = Vec::new();
    for _ in 0..6 {
        let (s, jwt) = guest(&app).await;
        let r = app
            .bearer(&jwt)
            .post(&orders(&s), &json!({"productId": c.tree, "quantity": 1}))
            .await;
        assert_eq!(r.status, 201, "{}", r.text);
        buyers.push((s, jwt, r.data()["id"].as_str().unwrap().to_owned()));
    }
    let app = &app;
    let answers = futures::future::join_all(buyers.iter().map(|(s, jwt, order)| async move {
        app.bearer(jwt)
            .post(
                &format!("{}/checkout", orders(s)),
                &json!({"provider": "dummy", "ecommerceModule": {"orders": [{"id": order}]}}),
            )
            .await
    }))
    .await;
    for r in &answers {
        assert_eq!(r.status, 201, "{}", r.text);
    }
    let mut numbers = Vec::new();
    for (_, _, order) in &buyers {
        numbers.push(order_row(app, order).await["number"].as_i64().unwrap());
    }
    numbers.sort_unstable();
    assert_eq!(numbers, (1001..1007).collect::<Vec<i64>>());
    // The owner reads the same number as the admin.
    let (s, jwt, order) = &buyers[0];
    let before = order_row(app, order).await["number"].clone();
    let r = app.bearer(jwt).get(&format!("{}/{order}", orders(s))).await;
    assert_eq!(
        r.data()["number"],
        before,
        "the owner reads the same number"
    );
}
dual_test!(concurrent_checkouts_number_orders_apart, db);

/// A number already in the column (a database restored without its counters, or a row numbered
/// by hand) is never given again: the next checkout goes on above it, and the one after that
/// one above again.
async fn order_numbers_go_on_above_the_column(db: Db) {
    let app = app(db, None, 3600, 3600).await;
    let c = catalog(&app).await;
    let first = buy(&app, &c.tree, 1, json!({"provider": "dummy"})).await;
    assert_eq!(order_row(&app, &first.order).await["number"], 1001);
    let sql = format!(
        "UPDATE ecommerce_order SET number = 5000 WHERE id = '{}'",
        first.order
    );
    let mut tx = app.store.db.begin().await.unwrap_or_else(|e| panic!("{e}"));
    match tx.exec().link {
        stoa_store::db::Link::Sqlite(c) => c.execute_batch(&sql).map_err(|e| e.to_string()),
        stoa_store::db::Link::Postgres(c) => sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
            .execute(&mut *c)
            .await
            .map(drop)
            .map_err(|e| e.to_string()),
    }
    .unwrap_or_else(|e| panic!("{e}"));
    tx.commit().await.unwrap_or_else(|e| panic!("{e}"));
    let mut numbers = Vec::new();
    for _ in 0..2 {
        let b = buy(&app, &c.tree, 1, json!({"provider": "dummy"})).await;
        numbers.push(order_row(&app, &b.order).await["number"].as_i64());
    }
    assert_eq!(numbers, [Some(5001), Some(5002)]);
}
dual_test!(order_numbers_go_on_above_the_column, db);

/// The admins' list of orders reads, for a page of orders at once, each one's total in its
/// currency, the provider and state of its latest invoice and its buyer: the order's address,
/// else the buyer's account's.
async fn the_admins_order_list_names_total_provider_and_buyer(db: Db) {
    let app = app(db, None, 3600, 3600).await;
    let c = catalog(&app).await;
    let paid = buy(
        &app,
        &c.tree,
        2,
        json!({"provider": "dummy", "email": "Buyer@Example.com"}),
    )
    .await;
    // A signed-in buyer's cart order, not checked out: no address of its own, no invoice.
    let account = app.register("member@example.com").await;
    let r = app
        .as_account(&account)
        .post(
            &orders(&account.id),
            &json!({"productId": c.tree, "quantity": 1}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let cart = r.data()["id"].as_str().unwrap().to_owned();
    let path = |ids: &str| format!("/api/ecommerce/orders/summaries?ids={ids}");
    let r = app.get(&path(&format!("{},{cart}", paid.order))).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let rows = r.data().as_array().unwrap().clone();
    assert_eq!(rows.len(), 2, "{}", r.text);
    let row = |id: &str| rows.iter().find(|o| o["id"] == id).unwrap().clone();
    let p = row(&paid.order);
    let line = app
        .get(&format!("/api/ecommerce/orders/{}/details", paid.order))
        .await;
    assert_eq!(p["checkoutTotal"], line.data()["checkoutTotal"], "{p}");
    assert!(p["checkoutTotal"].is_string(), "{p}");
    assert_eq!(p["billingModuleCurrency"]["slug"], "rub", "{p}");
    assert_eq!(p["provider"], "dummy", "{p}");
    assert_eq!(p["paymentStatus"], "open", "{p}");
    assert_eq!(p["email"], "buyer@example.com", "{p}");
    assert_eq!(p["subjectId"], paid.subject.as_str(), "{p}");
    let k = row(&cart);
    assert_eq!(k["provider"], Value::Null, "{k}");
    assert_eq!(k["paymentStatus"], Value::Null, "{k}");
    assert_eq!(k["email"], "member@example.com", "{k}");
    assert_eq!(k["subjectId"], account.id.as_str(), "{k}");
    assert!(!k["total"].as_array().unwrap().is_empty(), "{k}");

    // Admins only; a bad id or too many are a 400 naming `ids`.
    let r = app.bearer(&paid.jwt).get(&path(&paid.order)).await;
    assert_eq!(r.status, 403, "{}", r.text);
    let r = app.get(&path("nope")).await;
    assert_eq!(r.status, 400, "{}", r.text);
    assert!(r.text.contains("ids"), "{}", r.text);
    let many = vec![paid.order.as_str(); 51].join(",");
    let r = app.get(&path(&many)).await;
    assert_eq!(r.status, 400, "{}", r.text);
    assert!(r.text.contains("at most 50"), "{}", r.text);
}
dual_test!(the_admins_order_list_names_total_provider_and_buyer, db);

/// The calls the original system's clients make that it never served, or served wrongly (issue
/// 53): one cart order checked out by its own route, an order's total and quantity, a line's
/// quantity set through the order, and `PUT` as `PATCH`.
async fn the_original_clients_calls_answer(db: Db) {
    let app = app(db, None, 3600, 3600).await;
    let c = catalog(&app).await;
    let (s, jwt) = guest(&app).await;
    let me = app.bearer(&jwt);
    let r = me
        .post(&orders(&s), &json!({"productId": c.tree, "quantity": 2}))
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let order = r.data()["id"].as_str().unwrap().to_owned();
    let line = r.data()["ordersToProducts"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // The order's quantity and totals (one per line and currency the product is priced in).
    let q = app
        .get(&format!("/api/ecommerce/orders/{order}/quantity"))
        .await;
    assert_eq!((q.status, q.data().clone()), (200, json!(2)), "{}", q.text);
    let t = app
        .get(&format!("/api/ecommerce/orders/{order}/total"))
        .await;
    assert_eq!(t.status, 200, "{}", t.text);
    let rub: Vec<&Value> = t
        .data()
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["billingModuleCurrency"]["slug"] == "rub")
        .collect();
    assert_eq!(rub.len(), 1, "{}", t.text);
    assert_eq!(rub[0]["total"], json!("398"), "{}", t.text);
    assert_eq!(
        me.get(&format!("/api/ecommerce/orders/{order}/total"))
            .await
            .status,
        403,
        "admins only"
    );
    // A line's quantity through its order: PATCH, and PUT as its alias.
    let at = format!("/api/ecommerce/orders/{order}/orders-to-products/{line}");
    let r = app.patch(&at, &json!({"quantity": 3})).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.data()["quantity"], json!(3));
    let r = app.put(&at, &json!({"quantity": 4})).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        app.get(&format!("/api/ecommerce/orders/{order}/quantity"))
            .await
            .data(),
        &json!(4)
    );
    // Only the quantity, only of a line of that order (the original merged anything into any line).
    let r = app
        .patch(&at, &json!({"quantity": 2, "orderId": order}))
        .await;
    assert!(r.status == 422 || r.status == 400, "{}", r.text);
    let other = me
        .post(
            &orders(&s),
            &json!({"productId": c.tree, "billingModule": {"currency": {"id": c.kzt}}}),
        )
        .await;
    let other_line = other.data()["ordersToProducts"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = app
        .patch(
            &format!("/api/ecommerce/orders/{order}/orders-to-products/{other_line}"),
            &json!({"quantity": 2}),
        )
        .await;
    assert_eq!(r.status, 404, "{}", r.text);
    // One cart order checked out by its own route; someone else cannot check it out.
    let (_, stranger) = guest(&app).await;
    let stranger_id = app
        .bearer(&stranger)
        .get(&format!("{AUTH}/me"))
        .await
        .data()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = app
        .bearer(&stranger)
        .post(
            &format!("{}/{order}/checkout", orders(&stranger_id)),
            &json!({"provider": "dummy", "email": "x@example.com"}),
        )
        .await;
    assert_eq!(
        r.status, 404,
        "another subject's order is none of theirs: {}",
        r.text
    );
    let r = me
        .post(
            &format!("{}/{order}/checkout", orders(&s)),
            &json!({"provider": "dummy", "email": "buyer@example.com"}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(
        r.data()["ecommerceModule"]["orders"],
        json!([order]),
        "only that order"
    );
    assert_eq!(
        r.data()["billingModule"]["invoices"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    // Out of the cart: its lines no longer change; the other order is still in the cart.
    let r = app.patch(&at, &json!({"quantity": 1})).await;
    assert_eq!(r.status, 409, "{}", r.text);
    assert_eq!(
        me.get(&format!("{}/quantity", orders(&s))).await.data(),
        &json!(1)
    );
    // An order without lines holds nothing (the original answered 500).
    let empty = app.create("/api/ecommerce/orders", &json!({})).await;
    let q = app
        .get(&format!(
            "/api/ecommerce/orders/{}/quantity",
            empty["id"].as_str().unwrap()
        ))
        .await;
    assert_eq!((q.status, q.data().clone()), (200, json!(0)), "{}", q.text);
    // PUT on a generic route is PATCH: the same change, the same checks.
    let a = app
        .create(
            "/api/blog/articles",
            &json!({"slug": "put-me", "title": {"en": "Before"}}),
        )
        .await;
    let path = format!("/api/blog/articles/{}", a["id"].as_str().unwrap());
    let r = app.put(&path, &json!({"title": {"en": "After"}})).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(app.get(&path).await.data()["title"]["en"], "After");
    let anon = app
        .anon()
        .call("PUT", &path, Some(&json!({"title": {"en": "No"}})))
        .await;
    assert_eq!(anon.status, 401, "{}", anon.text);
}
dual_test!(the_original_clients_calls_answer, db);

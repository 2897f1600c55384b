//! ecommerce: stores, products, categories, attributes (prices are attributes), orders.
#![forbid(unsafe_code)]

pub mod http;
pub mod mail;
pub mod orders;
pub mod owners;
pub mod prices;
pub mod rows;
pub mod status;
pub mod views;

use stoa_kernel::model::*;

const M: &str = "ecommerce";

pub const ORDER_STATUSES: &[&str] = &[
    "new",
    "paying",
    "approving",
    "packaging",
    "delivering",
    "delivered",
    "canceled",
];

/// The links ecommerce owns under rbac's name (the original's tables and routes): which subject
/// placed which order and holds which product, and which roles a product gives. Ecommerce
/// declares and queries them (`owners`); rbac names no ecommerce entity.
pub fn rbac_links() -> Module {
    let s = |name: &'static str, right: (&'static str, &'static str)| {
        relation("rbac", name, ("subjectId", "rbac.subject"), right)
    };
    Module {
        name: "rbac",
        words: include_str!("rbac-links.toml"),
        entities: vec![
            relation(
                "rbac",
                "roles-to-ecommerce-module-products",
                ("roleId", "rbac.role"),
                ("ecommerceModuleProductId", "ecommerce.product"),
            )
            .build(),
            s(
                "subjects-to-ecommerce-module-orders",
                ("ecommerceModuleOrderId", "ecommerce.order"),
            )
            .follows_guest()
            .build(),
            s(
                "subjects-to-ecommerce-module-products",
                ("ecommerceModuleProductId", "ecommerce.product"),
            )
            .follows_guest()
            .build(),
        ],
    }
}

/// The entities and relations this module declares.
// long: the module's entities, one after another — a table read as one, which splitting would scatter.
pub fn declarations() -> Module {
    let r = |name: &'static str,
             l: (&'static str, &'static str),
             rr: (&'static str, &'static str)| relation(M, name, l, rr);
    Module {
        name: M,
        words: include_str!("words.toml"),
        entities: [
            stoa_kernel::model::attribute_models(M, &["feature", "price", "interval"], true)
                .to_vec(),
            vec![
                model(M, "category", "categories")
                    .content()
                    .tsd(true)
                    .build(),
                model(M, "order", "orders")
                    // Outgoing webhooks: any status move, and the move a payment makes.
                    .signal(Signal::moved("status-changed", "status", &[], &[]))
                    .signal(Signal::moved(
                        "paid",
                        "status",
                        &["paying"],
                        &["approving", "delivering"],
                    ))
                    .field(
                        enumeration("status", ORDER_STATUSES)
                            .required()
                            .default_text("new")
                            .list(),
                    )
                    .field(
                        enumeration("type", &["cart", "history"])
                            .required()
                            .default_text("cart")
                            .list(),
                    )
                    .field(text("receipt").required().default_text("").max_len(2000))
                    .field(text("comment").max_len(10_000))
                    .field(text("email").max_len(320).list().searchable())
                    .field(text("language").max_len(10))
                    // The number people read (№ 1042), given at checkout; the id stays the API's.
                    .field(Field {
                        server_owned: true,
                        ..int("number").unique().list()
                    })
                    .private()
                    .build(),
                model(M, "order-status-change", "order-status-changes")
                    .field(reference("orderId", "ecommerce.order").list())
                    .field(enumeration("from", ORDER_STATUSES).required().list())
                    .field(enumeration("to", ORDER_STATUSES).required().list())
                    .field(text("actor").required().max_len(200).list())
                    // Shown, not sorted on: no index for free text written at every status change.
                    .field(text("reason").max_len(2000).unsorted())
                    .field(boolean("override").required().default_bool(false).list())
                    .title("to")
                    .private()
                    .read_only()
                    .build(),
                model(M, "product", "products")
                    .content()
                    .field(
                        enumeration("type", &["one_off", "subscription"])
                            .required()
                            .default_text("one_off")
                            .list(),
                    )
                    .field(translations("title").list().searchable())
                    .field(translations("shortDescription"))
                    // The site search and the admin's find words inside the text too.
                    .field(rich_text("description").searchable())
                    .publishable()
                    .build(),
                model(M, "store", "stores")
                    .content()
                    .field(translations("title").list())
                    .field(translations("shortDescription"))
                    .field(rich_text("description"))
                    .build(),
                stoa_kernel::model::widget_model(M)
                    .field(text("anchor").max_len(200))
                    .variants(&[
                        "default",
                        "category-list-default",
                        "category-overview-default",
                        "order-list-default",
                        "product-list-default",
                        "product-overview-default",
                        "store-list-default",
                        "store-overview-default",
                        "for-planet-products-list-block-default",
                        // The same donation paid in the card provider's own widget (SPEC §2).
                        "for-planet-products-list-block-card-default",
                    ])
                    .build(),
                r(
                    "attribute-keys-to-attributes",
                    ("attributeKeyId", "ecommerce.attribute-key"),
                    ("attributeId", "ecommerce.attribute"),
                )
                .build(),
                r(
                    "attributes-to-billing-module-currencies",
                    ("attributeId", "ecommerce.attribute"),
                    ("billingModuleCurrencyId", "billing.currency"),
                )
                .build(),
                r(
                    "categories-to-file-storage-module-files",
                    ("categoryId", "ecommerce.category"),
                    ("fileStorageModuleFileId", "file-storage.file"),
                )
                .build(),
                r(
                    "categories-to-products",
                    ("categoryId", "ecommerce.category"),
                    ("productId", "ecommerce.product"),
                )
                .build(),
                r(
                    "orders-to-billing-module-currencies",
                    ("orderId", "ecommerce.order"),
                    ("billingModuleCurrencyId", "billing.currency"),
                )
                .field(int("quantity").required().default_int(1))
                .build(),
                r(
                    "orders-to-billing-module-payment-intents",
                    ("orderId", "ecommerce.order"),
                    ("billingModulePaymentIntentId", "billing.payment-intent"),
                )
                .build(),
                r(
                    "orders-to-file-storage-module-files",
                    ("orderId", "ecommerce.order"),
                    ("fileStorageModuleFileId", "file-storage.file"),
                )
                .variants(&["default", "attachment-default", "receipt-default"])
                .build(),
                r(
                    "orders-to-products",
                    ("orderId", "ecommerce.order"),
                    ("productId", "ecommerce.product"),
                )
                .field(int("quantity").required().default_int(1).list())
                .build(),
                r(
                    "orders-to-social-module-chats",
                    ("orderId", "ecommerce.order"),
                    ("socialModuleChatId", "social.chat"),
                )
                .build(),
                r(
                    "products-to-attributes",
                    ("productId", "ecommerce.product"),
                    ("attributeId", "ecommerce.attribute"),
                )
                .build(),
                r(
                    "products-to-file-storage-module-files",
                    ("productId", "ecommerce.product"),
                    ("fileStorageModuleFileId", "file-storage.file"),
                )
                .variants(&["default", "attachment-default"])
                .build(),
                r(
                    "products-to-website-builder-module-widgets",
                    ("productId", "ecommerce.product"),
                    ("websiteBuilderModuleWidgetId", "website-builder.widget"),
                )
                .build(),
                r(
                    "stores-to-attributes",
                    ("storeId", "ecommerce.store"),
                    ("attributeId", "ecommerce.attribute"),
                )
                .build(),
                r(
                    "stores-to-orders",
                    ("storeId", "ecommerce.store"),
                    ("orderId", "ecommerce.order"),
                )
                .build(),
                r(
                    "stores-to-products",
                    ("storeId", "ecommerce.store"),
                    ("productId", "ecommerce.product"),
                )
                .field(
                    text("sku")
                        .required()
                        .unique()
                        .max_len(200)
                        .list()
                        .searchable(),
                )
                .build(),
                r(
                    "stores-to-products-to-attributes",
                    ("storesToProductsId", "ecommerce.stores-to-products"),
                    ("attributeId", "ecommerce.attribute"),
                )
                .build(),
                r(
                    "widgets-to-categories",
                    ("widgetId", "ecommerce.widget"),
                    ("categoryId", "ecommerce.category"),
                )
                .build(),
                r(
                    "widgets-to-products",
                    ("widgetId", "ecommerce.widget"),
                    ("productId", "ecommerce.product"),
                )
                .build(),
                r(
                    "widgets-to-stores",
                    ("widgetId", "ecommerce.widget"),
                    ("storeId", "ecommerce.store"),
                )
                .build(),
            ],
        ]
        .concat(),
    }
}

/// The module: declarations, carts, checkout and the order lifecycle (routes, the status guard
/// on generic order edits, jobs and schedules), order emails, and prices in page bundles.
// long: the module's contract (declarations, services, routes, jobs, schedules), one entry after another.
pub fn module() -> stoa_api::module::ModuleDef {
    use std::sync::Arc;
    use std::time::Duration;
    use stoa_api::module::JobDef;

    use stoa_api::module::ModuleResult;

    fn commerce(ctx: &stoa_api::module::Context) -> ModuleResult<Arc<orders::Commerce>> {
        ctx.need::<orders::Commerce>()
    }
    fn order_of(p: &serde_json::Value, key: &str) -> ModuleResult<uuid::Uuid> {
        stoa_api::jobs::uuid_arg(p, key)
    }
    stoa_api::module::ModuleDef::new(declarations())
        // The kinds of this module's own mail templates.
        .variants(
            "notification.template",
            &["generate-email-ecommerce-order-status-changed-admin"],
        )
        // An account's products on rbac's account widget.
        .variants(
            "rbac.widget",
            &["subject-overview-ecommerce-module-product-list-default"],
        )
        .links(rbac_links())
        .setup(|ctx| {
            let c = Arc::new(orders::Commerce::new(ctx)?);
            ctx.store
                .guard("ecommerce.order", Arc::new(status::OrderGuard));
            ctx.need::<stoa_billing::service::Billing>()?.on_paid_in(
                orders::JOB_PAID,
                Arc::new(orders::PaidOrders(Arc::downgrade(&c))),
            );
            ctx.provide(c);
            Ok(())
        })
        .routes(|ctx| Ok(http::routes(commerce(ctx)?)))
        .seed(stoa_notification::mail::templates_seed(
            "ecommerce.templates.v1",
            mail::templates,
        ))
        .seed(|ctx| Box::pin(mail::update_templates(&ctx.store)))
        .seed(|ctx| {
            Box::pin(async move {
                let c = commerce(ctx).map_err(|e| stoa_kernel::Error::internal(e.to_string()))?;
                c.hide_old_receipts().await
            })
        })
        .seed(|ctx| {
            Box::pin(stoa_store::counters::ensure(
                &ctx.store.db,
                &[orders::ORDER_NUMBERS],
            ))
        })
        .job(JobDef::new(orders::JOB_PAID, |ctx, p| async move {
            let ids: Vec<uuid::Uuid> = p
                .get("intents")
                .and_then(|v| v.as_array())
                .map(|a| a.iter().filter_map(|x| x.as_str()?.parse().ok()).collect())
                .unwrap_or_default();
            commerce(&ctx)?.intents_paid(&ids).await.map_err(Into::into)
        }))
        .job(JobDef::new(orders::JOB_TIMEOUT, |ctx, p| async move {
            match commerce(&ctx)?.check(order_of(&p, "order")?).await {
                Ok(_)
                | Err(stoa_kernel::Error::Conflict { .. })
                | Err(stoa_kernel::Error::NotFound { .. }) => Ok(()),
                Err(e) => Err(e.into()),
            }
        }))
        .job(
            JobDef::new(orders::JOB_NOTIFY, |ctx, p| async move {
                let from = p
                    .get("from")
                    .and_then(|v| v.as_str())
                    .unwrap_or_default()
                    .to_owned();
                let to = p
                    .get("to")
                    .and_then(|v| v.as_str())
                    .unwrap_or_default()
                    .to_owned();
                commerce(&ctx)?
                    .notify(order_of(&p, "order")?, &from, &to)
                    .await
                    .map_err(Into::into)
            })
            .attempts(3)
            .background(),
        )
        .job(JobDef::new(
            orders::JOB_SUBJECT_CHECK,
            |ctx, p| async move {
                commerce(&ctx)?
                    .check_order_subject(order_of(&p, "order")?)
                    .await
                    .map_err(Into::into)
            },
        ))
        .job(JobDef::new(orders::JOB_CLEAR, |ctx, _| async move {
            commerce(&ctx)?
                .clear_old()
                .await
                .map(|_| ())
                .map_err(Into::into)
        }))
        .job(JobDef::new(orders::JOB_SWEEP, |ctx, _| async move {
            commerce(&ctx)?.sweep().await.map_err(Into::into)
        }))
        .schedule(
            orders::JOB_CLEAR,
            Duration::from_secs(3600),
            serde_json::json!({}),
        )
        .schedule(
            orders::JOB_SWEEP,
            Duration::from_secs(300),
            serde_json::json!({}),
        )
        .bundle_part(prices::BundlePrices)
}

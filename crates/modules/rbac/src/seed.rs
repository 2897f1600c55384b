//! The default roles and permissions, written once per database (seed `rbac.defaults.v1`):
//! roles `admin` (holding the root permission) and `user` (open to registration); public reads
//! of every entity that is not private; the account endpoints; the public CRM form and payment
//! webhooks; and the owner routes of the `user` role. No accounts are created.

use serde_json::json;
use stoa_kernel::Result;
use stoa_kernel::model::{Entity, Kind};
use stoa_kernel::registry::Registry;
use stoa_store::Store;

pub const SEED: &str = "rbac.defaults.v1";

/// Payment providers whose webhooks are public (their signatures are checked by billing).
pub const PAYMENT_PROVIDERS: &[&str] = &[
    "stripe",
    "0xprocessing",
    "cloudpayments",
    "payselection",
    "payselection-international",
    "tiptoppay",
    "paykeeper",
    "dummy",
];

/// Is `e` readable by visitors? Private entities, and relations touching a private entity or a
/// subject, are not.
pub fn publicly_readable(reg: &Registry, e: &Entity) -> bool {
    if e.private {
        return false;
    }
    e.fields
        .iter()
        .filter(|f| f.kind == Kind::Reference)
        .filter_map(|f| f.target)
        .all(|t| t != "rbac.subject" && reg.by_key(t).is_none_or(|x| !x.private))
}

/// `(method, path)` of every public permission.
pub fn public_permissions(reg: &Registry) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut add = |m: &str, p: String| out.push((m.to_owned(), p));
    for p in [
        "/health",
        "/ready",
        "/api/meta",
        "/api/openapi.json",
        "/api/docs",
        "/api/docs/*",
    ] {
        add("GET", p.to_owned());
    }
    for e in reg.entities() {
        if publicly_readable(reg, e) {
            let base = format!("/api/{}/{}", e.module, e.route);
            add("GET", base.clone());
            add("GET", format!("{base}/[{}.{}.id]", e.module, e.route));
        }
    }
    let a = "/api/rbac/subjects/authentication";
    for p in ["init", "me", "is-authorized"] {
        add("GET", format!("{a}/{p}"));
    }
    for p in [
        "init",
        "refresh",
        "logout",
        "email-and-password/authentication",
        "email-and-password/registration",
        "email-and-password/forgot-password",
        "email-and-password/reset-password",
        "ethereum-virtual-machine",
        "ethereum-virtual-machine/nonce",
    ] {
        add("POST", format!("{a}/{p}"));
    }
    add("POST", "/api/crm/forms/[crm.forms.id]/requests".to_owned());
    add(
        "GET",
        "/api/ecommerce/orders/paid-orders-to-products-quantity".to_owned(),
    );
    add("GET", "/api/revalidation/revalidate".to_owned());
    for p in PAYMENT_PROVIDERS {
        add("POST", format!("/api/billing/payment-intents/{p}/webhook"));
    }
    out
}

/// `(method, path)` granted to the `user` role: the caller's own account routes (ownership of
/// `[rbac.subjects.id]` is enforced for every subject-scoped route).
pub fn user_permissions() -> Vec<(String, String)> {
    let s = "/api/rbac/subjects/[rbac.subjects.id]";
    [
        ("GET", format!("{s}/identities")),
        ("POST", format!("{s}/identities")),
        ("PATCH", format!("{s}/identities/[rbac.identities.id]")),
        ("DELETE", format!("{s}/identities/[rbac.identities.id]")),
        (
            "PATCH",
            "/api/rbac/identities/[rbac.identities.id]/change-password".to_owned(),
        ),
    ]
    .into_iter()
    .map(|(m, p)| (m.to_owned(), p))
    .collect()
}

/// Public permissions added after a database was first seeded: each release's new public routes
/// are granted once (seed `rbac.public.v2`), without re-adding any an admin removed before.
pub const PUBLIC_SYNC: &str = "rbac.public.v2";

async fn sync_public(store: &Store) -> Result<()> {
    if stoa_store::seed::applied(&store.db, PUBLIC_SYNC).await? {
        return Ok(());
    }
    let perm = store.entity("rbac.permission")?;
    let have: std::collections::HashSet<(String, String)> = store
        .all(&perm, usize::MAX)
        .await?
        .iter()
        .map(|p| {
            (
                p.text("method").unwrap_or_default().to_owned(),
                p.text("path").unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let mut tx = store.db.begin().await?;
    {
        let mut exec = tx.exec();
        for (m, p) in public_permissions(&store.registry) {
            if !have.contains(&(m.clone(), p.clone())) {
                let v = json!({"method": m, "path": p});
                store
                    .create_in(
                        &mut exec,
                        &perm,
                        v.as_object().unwrap_or(&Default::default()),
                    )
                    .await?;
            }
        }
        stoa_store::seed::mark(&mut exec, PUBLIC_SYNC).await?;
    }
    tx.commit().await?;
    store.touch(&perm);
    Ok(())
}

pub async fn seed(store: &Store) -> Result<()> {
    if stoa_store::seed::applied(&store.db, SEED).await? {
        return sync_public(store).await;
    }
    let role = store.entity("rbac.role")?;
    let perm = store.entity("rbac.permission")?;
    let link = store.entity("rbac.roles-to-permissions")?;
    let obj = |v: serde_json::Value| v.as_object().cloned().unwrap_or_default();
    let mut tx = store.db.begin().await?;
    {
        let mut exec = tx.exec();
        let mut create = async |e: &Entity, v: serde_json::Value| -> Result<uuid::Uuid> {
            let r = store.create_in(&mut exec, e, &obj(v)).await?;
            r.id()
                .ok_or_else(|| stoa_kernel::Error::internal("row without id"))
        };
        let admin = create(
            &role,
            json!({"title": "Admin", "slug": "admin", "availableOnRegistration": false}),
        )
        .await?;
        let user = create(
            &role,
            json!({"title": "User", "slug": "user", "availableOnRegistration": true}),
        )
        .await?;
        let root = create(&perm, json!({"method": "*", "path": "*"})).await?;
        create(&link, json!({"roleId": admin, "permissionId": root})).await?;
        for (m, p) in public_permissions(&store.registry) {
            create(&perm, json!({"method": m, "path": p})).await?;
        }
        for (m, p) in user_permissions() {
            let id = create(&perm, json!({"method": m, "path": p})).await?;
            create(&link, json!({"roleId": user, "permissionId": id})).await?;
        }
        stoa_store::seed::mark(&mut exec, SEED).await?;
    }
    tx.commit().await?;
    for e in [&role, &perm, &link] {
        store.touch(e);
    }
    {
        let mut tx = store.db.begin().await?;
        stoa_store::seed::mark(&mut tx.exec(), PUBLIC_SYNC).await?;
        tx.commit().await?;
    }
    tracing::info!(
        seed = SEED,
        "seeded roles admin and user and the default permissions"
    );
    Ok(())
}

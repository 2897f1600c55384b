//! The default roles and permissions. Roles `admin` (holding the root permission) and `user`
//! (open to registration) are written once per database (seed `rbac.defaults.v1`). Permissions
//! come from the route book: every operation states its default access, and each default grant
//! is written once and recorded (`rbac.grant <METHOD> <path>` in `stoa_seeds`), so a route added
//! by a later release is granted on the next start while a grant an admin removed stays removed.
//! rbac names no other module's route. No accounts are created.

use std::collections::HashSet;

use serde_json::json;
use stoa_api::routes::{Access, Operation};
use stoa_kernel::Result;
use stoa_kernel::model::Entity;
use stoa_kernel::value::{Val, fields};
use stoa_store::Store;

use crate::rows::{PermissionRow, RolePermissionRow, read_all};

pub const SEED: &str = "rbac.defaults.v1";
/// The `guest` role: held by anonymous subjects (a visitor's cart before any sign-in).
pub const GUEST_SEED: &str = "rbac.guest.v1";
pub const GUEST: &str = "guest";
/// Permissions written before the `public` flag, flagged (see [`public_flag`]).
pub const PUBLIC_FLAG_SEED: &str = "rbac.public-flag.v1";
const GRANT: &str = "rbac.grant ";

/// A route path in the permission table's shape: `/api/blog/articles/{id}` →
/// `/api/blog/articles/[blog.articles.id]` (a dynamic segment names what it identifies).
pub fn permission_path(path: &str) -> String {
    let segs: Vec<&str> = path.split('/').collect();
    let module = if segs.get(1) == Some(&"api") {
        segs.get(2).copied().unwrap_or("")
    } else {
        ""
    };
    let mut prev = "";
    let mut out = Vec::with_capacity(segs.len());
    for s in &segs {
        match s.strip_prefix('{').and_then(|x| x.strip_suffix('}')) {
            Some(p) => {
                let p = p.trim_start_matches('*');
                let field = if p.len() > 2 && p.ends_with("Id") {
                    "id"
                } else {
                    p
                };
                out.push(format!("[{module}.{prev}.{field}]"));
            }
            None => {
                prev = s;
                out.push((*s).to_owned());
            }
        }
    }
    out.join("/")
}

/// Two templates match the same requests when they agree on every literal segment.
pub(crate) fn shape(path: &str) -> String {
    path.trim_matches('/')
        .split('/')
        .map(|s| {
            if s.starts_with('[') || s.starts_with('{') || s.starts_with(':') {
                "·".to_owned()
            } else {
                s.to_ascii_lowercase()
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

impl PermissionRow {
    /// `(METHOD, shape of the path)`: what a default grant is matched against.
    fn key(&self) -> (String, String) {
        (
            self.method
                .as_deref()
                .unwrap_or_default()
                .to_ascii_uppercase(),
            shape(self.path.as_deref().unwrap_or_default()),
        )
    }
}

/// `(method, permission path, access)` of every operation that needs a permission row (admin
/// routes need none: the root permission covers them).
pub fn defaults(ops: &[Operation]) -> Vec<(String, String, Access)> {
    let mut seen = HashSet::new();
    ops.iter()
        .filter(|o| o.access != Access::Admin)
        .map(|o| (o.method.to_owned(), permission_path(&o.path), o.access))
        .filter(|(m, p, _)| seen.insert((m.clone(), shape(p))))
        .collect()
}

async fn create(
    store: &Store,
    exec: &mut stoa_store::Exec<'_>,
    e: &Entity,
    v: serde_json::Value,
) -> Result<uuid::Uuid> {
    store
        .create_in(exec, e, &fields(v))
        .await?
        .id()
        .ok_or_else(|| stoa_kernel::Error::internal("row without id"))
}

/// Roles `admin` and `user` and the root permission, once per database.
async fn roles(store: &Store) -> Result<()> {
    if stoa_store::seed::applied(&store.db, SEED).await? {
        return Ok(());
    }
    let role = store.entity("rbac.role")?;
    let perm = store.entity("rbac.permission")?;
    let link = store.entity("rbac.roles-to-permissions")?;
    let mut tx = store.begin().await?;
    {
        let mut exec = tx.exec();
        let admin = create(
            store,
            &mut exec,
            &role,
            json!({"title": "Admin", "slug": "admin", "availableOnRegistration": false}),
        )
        .await?;
        create(
            store,
            &mut exec,
            &role,
            json!({"title": "User", "slug": "user", "availableOnRegistration": true}),
        )
        .await?;
        let root = create(store, &mut exec, &perm, json!({"method": "*", "path": "*"})).await?;
        create(
            store,
            &mut exec,
            &link,
            json!({"roleId": admin, "permissionId": root}),
        )
        .await?;
        stoa_store::seed::mark(&mut exec, SEED).await?;
    }
    tx.commit().await?;
    tracing::info!(seed = SEED, "seeded roles admin and user");
    Ok(())
}

/// The `guest` role, once per database (databases seeded before it existed get it too).
async fn guest_role(store: &Store) -> Result<()> {
    if stoa_store::seed::applied(&store.db, GUEST_SEED).await? {
        return Ok(());
    }
    let role = store.entity("rbac.role")?;
    let mut tx = store.begin().await?;
    {
        let mut exec = tx.exec();
        create(
            store,
            &mut exec,
            &role,
            json!({"title": "Guest", "slug": GUEST, "availableOnRegistration": false}),
        )
        .await?;
        stoa_store::seed::mark(&mut exec, GUEST_SEED).await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Grants every default of `ops` not granted before: public routes get a public permission (no
/// role), signed-in routes one linked to the `user` role, owner routes one linked to `user` and
/// `guest` (the handler or the middleware checks that the caller owns what it touches). One
/// transaction.
async fn grants(store: &Store, ops: &[Operation]) -> Result<usize> {
    let done = stoa_store::seed::applied_with_prefix(&store.db, GRANT).await?;
    let todo: Vec<(String, String, Access)> = defaults(ops)
        .into_iter()
        .filter(|(m, p, _)| !done.contains(&format!("{GRANT}{m} {}", shape(p))))
        .collect();
    if todo.is_empty() {
        return Ok(0);
    }
    let perm = store.entity("rbac.permission")?;
    let link = store.entity("rbac.roles-to-permissions")?;
    let role = store.entity("rbac.role")?;
    // Rows that already exist (written by an earlier release, or by an admin) are kept as they are.
    let have: HashSet<(String, String)> =
        read_all::<PermissionRow>(&store.all(&perm, usize::MAX).await?)?
            .iter()
            .map(PermissionRow::key)
            .collect();
    let user = store
        .find_by(&role, &[("slug", Val::Text("user".into()))], 1)
        .await?
        .first()
        .and_then(|r| r.id());
    let guest = store
        .find_by(&role, &[("slug", Val::Text(GUEST.into()))], 1)
        .await?
        .first()
        .and_then(|r| r.id());
    let mut tx = store.begin().await?;
    let mut written = 0;
    {
        let mut exec = tx.exec();
        for (m, p, access) in &todo {
            if !have.contains(&(m.clone(), shape(p))) {
                let public = *access == Access::Public;
                let id = create(
                    store,
                    &mut exec,
                    &perm,
                    json!({"method": m, "path": p, "public": public}),
                )
                .await?;
                let holders = match access {
                    Access::SignedIn => vec![user],
                    Access::Owner => vec![user, guest],
                    Access::Public | Access::Admin => Vec::new(),
                };
                for role in holders.into_iter().flatten() {
                    create(
                        store,
                        &mut exec,
                        &link,
                        json!({"roleId": role, "permissionId": id}),
                    )
                    .await?;
                }
                written += 1;
            }
            stoa_store::seed::mark(&mut exec, &format!("{GRANT}{m} {}", shape(p))).await?;
        }
    }
    tx.commit().await?;
    if written > 0 {
        tracing::info!(
            permissions = written,
            "granted the default permissions of new routes"
        );
    }
    Ok(written)
}

/// Databases seeded before permissions had a `public` flag read "no role" as public. Once: a
/// permission no role holds is marked public when its route is declared public; the rest (routes
/// that are no longer public, a deleted role's leftovers, rows an admin added without a role) now
/// grant nothing, as the flag means.
async fn public_flag(store: &Store, ops: &[Operation]) -> Result<()> {
    if stoa_store::seed::applied(&store.db, PUBLIC_FLAG_SEED).await? {
        return Ok(());
    }
    let perm = store.entity("rbac.permission")?;
    let link = store.entity("rbac.roles-to-permissions")?;
    let public: HashSet<(String, String)> = defaults(ops)
        .into_iter()
        .filter(|(_, _, a)| *a == Access::Public)
        .map(|(m, p, _)| (m, shape(&p)))
        .collect();
    let held: HashSet<uuid::Uuid> =
        read_all::<RolePermissionRow>(&store.all(&link, usize::MAX).await?)?
            .iter()
            .filter_map(|l| l.permission_id)
            .collect();
    let mut tx = store.begin().await?;
    let mut opened = 0;
    {
        let mut exec = tx.exec();
        for p in read_all::<PermissionRow>(&store.all(&perm, usize::MAX).await?)? {
            let id = p.id;
            if !held.contains(&id) && public.contains(&p.key()) {
                store
                    .update_in(&mut exec, &perm, id, &fields(json!({"public": true})))
                    .await?;
                opened += 1;
            }
        }
        stoa_store::seed::mark(&mut exec, PUBLIC_FLAG_SEED).await?;
    }
    tx.commit().await?;
    tracing::info!(public = opened, "permissions marked public (explicit flag)");
    Ok(())
}

/// Roles once, then the default grant of every route not granted before.
pub async fn seed(store: &Store, ops: &[Operation]) -> Result<()> {
    roles(store).await?;
    guest_role(store).await?;
    public_flag(store, ops).await?;
    grants(store, ops).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn route_paths_become_permission_templates() {
        assert_eq!(
            permission_path("/api/blog/articles/{id}"),
            "/api/blog/articles/[blog.articles.id]"
        );
        assert_eq!(
            permission_path("/api/rbac/subjects/{id}/identities/{identityId}"),
            "/api/rbac/subjects/[rbac.subjects.id]/identities/[rbac.identities.id]"
        );
        assert_eq!(permission_path("/health"), "/health");
        assert_eq!(
            shape("/api/blog/articles/[blog.articles.id]"),
            shape("/api/blog/articles/{id}")
        );
        assert_ne!(
            shape("/api/blog/articles"),
            shape("/api/blog/articles/{id}")
        );
    }
}

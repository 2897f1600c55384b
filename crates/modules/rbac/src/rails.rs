//! Guard rails on generic writes of accounts, roles and permissions (by an admin, or by a role an
//! admin granted such writes). Through the API nobody can delete their own account, take away
//! their own admin rights, delete the role or the permission that makes admins, or leave the site
//! with no admin; each is a 409 with the reason.
//! (The command line, `stoa admin`, stays the way back in.)
//!
//! A write is checked by replaying it on the rows that make admins (the root permission, its
//! links to roles, and those roles' links to subjects) and comparing who is admin before and
//! after. Checked writes run one at a time, so two concurrent edits cannot each remove "one of
//! two" admins.

use std::collections::HashSet;

use axum::http::Method;
use serde_json::{Map, Value};
use stoa_kernel::value::Val;
use stoa_kernel::{Error, Result};
use stoa_store::{Record, Store};
use uuid::Uuid;

/// The entities whose writes can change who is admin, by route.
const ROUTES: [&str; 5] = [
    "subjects",
    "roles",
    "permissions",
    "roles-to-permissions",
    "subjects-to-roles",
];

/// A write the rails look at: DELETE or PATCH of one row, or a bulk PATCH.
#[derive(Debug, PartialEq, Eq)]
pub struct Write {
    route: &'static str,
    /// `None`: the bulk route.
    id: Option<Uuid>,
    delete: bool,
}

/// The write `method path` is, when it is one the rails check.
pub fn write_of(method: &Method, path: &str) -> Option<Write> {
    let delete = *method == Method::DELETE;
    if !delete && *method != Method::PATCH {
        return None;
    }
    let rest = path.strip_prefix("/api/rbac/")?;
    let (route, tail) = rest.split_once('/')?;
    let route = ROUTES.into_iter().find(|r| *r == route)?;
    if tail.contains('/') {
        return None;
    }
    if tail == "bulk" {
        return (!delete).then_some(Write {
            route,
            id: None,
            delete,
        });
    }
    Some(Write {
        route,
        id: Some(path_id(tail)?),
        delete,
    })
}

/// A link row: its id and the two ids it joins.
#[derive(Clone, Debug)]
struct Link {
    id: Uuid,
    left: Uuid,
    right: Uuid,
}

/// The rows that make admins.
#[derive(Clone, Debug, Default)]
struct Admins {
    /// Permissions `*` `*`.
    root: HashSet<Uuid>,
    /// Roles-to-permissions rows of root permissions: (role, permission).
    grants: Vec<Link>,
    /// Subjects-to-roles rows of roles holding a root permission: (subject, role).
    holders: Vec<Link>,
}

impl Admins {
    fn root_roles(&self) -> HashSet<Uuid> {
        self.grants
            .iter()
            .filter(|g| self.root.contains(&g.right))
            .map(|g| g.left)
            .collect()
    }

    fn subjects(&self) -> HashSet<Uuid> {
        let roles = self.root_roles();
        self.holders
            .iter()
            .filter(|h| roles.contains(&h.right))
            .map(|h| h.left)
            .collect()
    }
}

fn link(r: &Record, left: &str, right: &str) -> Option<Link> {
    Some(Link {
        id: r.id()?,
        left: r.uuid(left)?,
        right: r.uuid(right)?,
    })
}

async fn load(store: &Store) -> Result<Admins> {
    let perm = store.entity("rbac.permission")?;
    let r2p = store.entity("rbac.roles-to-permissions")?;
    let s2r = store.entity("rbac.subjects-to-roles")?;
    let mut a = Admins::default();
    for p in store
        .find_by(
            &perm,
            &[
                ("method", Val::Text("*".into())),
                ("path", Val::Text("*".into())),
            ],
            100,
        )
        .await?
    {
        a.root.extend(p.id());
    }
    for root in a.root.clone() {
        for g in store
            .find_by(&r2p, &[("permissionId", Val::Uuid(root))], 1000)
            .await?
        {
            a.grants.extend(link(&g, "roleId", "permissionId"));
        }
    }
    for role in a.root_roles() {
        for h in store
            .find_by(&s2r, &[("roleId", Val::Uuid(role))], 10_000)
            .await?
        {
            a.holders.extend(link(&h, "subjectId", "roleId"));
        }
    }
    Ok(a)
}

fn conflict(message: &str) -> Error {
    Error::Conflict {
        message: message.to_owned(),
        fields: Default::default(),
    }
}

fn uuid_in(data: &Map<String, Value>, key: &str) -> Option<Uuid> {
    data.get(key)
        .and_then(Value::as_str)
        .and_then(|s| Uuid::try_parse(s).ok())
}

/// Applies a delete (`data` none) or an edit of row `id` of `route` to `a`; refuses what may
/// never happen to the rows that make admins.
fn apply(a: &mut Admins, route: &str, id: Uuid, data: Option<&Map<String, Value>>) -> Result<()> {
    match (route, data) {
        ("subjects", None) => a.holders.retain(|h| h.left != id),
        ("roles", None) if a.root_roles().contains(&id) => {
            return Err(conflict(
                "the role that holds the root permission cannot be deleted; give its members \
                 another role instead",
            ));
        }
        ("permissions", None) if a.root.contains(&id) => {
            return Err(conflict(
                "the root permission (* *) cannot be deleted: it is what makes admins",
            ));
        }
        ("permissions", Some(d)) if a.root.contains(&id) => {
            let changes = |k: &str| d.get(k).is_some_and(|v| v.as_str() != Some("*"));
            if changes("method") || changes("path") {
                return Err(conflict(
                    "the root permission (* *) cannot be changed: it is what makes admins",
                ));
            }
        }
        ("roles-to-permissions", d) => {
            if let Some(g) = a.grants.iter_mut().find(|g| g.id == id) {
                match d {
                    None => g.right = Uuid::nil(),
                    Some(d) => {
                        g.left = uuid_in(d, "roleId").unwrap_or(g.left);
                        g.right = uuid_in(d, "permissionId").unwrap_or(g.right);
                    }
                }
            }
        }
        ("subjects-to-roles", d) => {
            if let Some(h) = a.holders.iter_mut().find(|h| h.id == id) {
                match d {
                    None => h.right = Uuid::nil(),
                    Some(d) => {
                        h.left = uuid_in(d, "subjectId").unwrap_or(h.left);
                        h.right = uuid_in(d, "roleId").unwrap_or(h.right);
                    }
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// Refuses `w` (with `body`, for a PATCH) when it would delete the caller's own account, take
/// away the caller's admin rights, delete or change what makes admins, or leave no admin.
pub async fn check(
    store: &Store,
    caller: Option<Uuid>,
    w: &Write,
    body: Option<&Value>,
) -> Result<()> {
    if w.route == "subjects" && w.delete && w.id.is_some() && w.id == caller {
        return Err(conflict(
            "you cannot delete your own account; another admin can",
        ));
    }
    let before = load(store).await?;
    let mut after = before.clone();
    match (w.id, w.delete) {
        (Some(id), true) => apply(&mut after, w.route, id, None)?,
        (Some(id), false) => {
            let empty = Map::new();
            let data = body
                .and_then(|b| b.get("data").unwrap_or(b).as_object())
                .unwrap_or(&empty);
            apply(&mut after, w.route, id, Some(data))?;
        }
        (None, _) => {
            for item in body.and_then(Value::as_array).into_iter().flatten() {
                let id = item
                    .get("id")
                    .and_then(Value::as_str)
                    .and_then(|s| Uuid::try_parse(s).ok());
                let data = item.get("data").and_then(Value::as_object);
                if let (Some(id), Some(data)) = (id, data) {
                    apply(&mut after, w.route, id, Some(data))?;
                }
            }
        }
    }
    let (was, is) = (before.subjects(), after.subjects());
    if let Some(me) = caller
        && was.contains(&me)
        && !is.contains(&me)
    {
        return Err(conflict(
            "you cannot take away your own admin rights; another admin can",
        ));
    }
    if !was.is_empty() && is.is_empty() {
        return Err(conflict(
            "this would leave the site without an admin; make someone else admin first",
        ));
    }
    Ok(())
}

/// The id a raw path segment names, read as the router's path extraction reads it
/// (percent-decoded, then any spelling `Uuid` accepts), so a check on the raw path and the
/// handler behind it agree on which record is meant.
pub(crate) fn path_id(raw: &str) -> Option<Uuid> {
    let decoded = percent_encoding::percent_decode_str(raw)
        .decode_utf8()
        .ok()?;
    Uuid::try_parse(&decoded).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_writes_the_rails_check() {
        let id = Uuid::now_v7();
        let w = write_of(&Method::DELETE, &format!("/api/rbac/roles/{id}")).unwrap();
        assert_eq!((w.route, w.id, w.delete), ("roles", Some(id), true));
        let w = write_of(&Method::PATCH, "/api/rbac/subjects-to-roles/bulk").unwrap();
        assert_eq!((w.route, w.id), ("subjects-to-roles", None));
        assert!(write_of(&Method::DELETE, "/api/rbac/subjects-to-roles/bulk").is_none());
        assert!(write_of(&Method::GET, &format!("/api/rbac/roles/{id}")).is_none());
        assert!(write_of(&Method::POST, "/api/rbac/roles").is_none());
        assert!(write_of(&Method::DELETE, &format!("/api/rbac/identities/{id}")).is_none());
        assert!(
            write_of(
                &Method::DELETE,
                &format!("/api/rbac/subjects/{id}/identities/{id}")
            )
            .is_none()
        );
        let enc: String = id
            .to_string()
            .chars()
            .map(|c| format!("%{:02x}", c as u32))
            .collect();
        assert_eq!(
            write_of(&Method::DELETE, &format!("/api/rbac/subjects/{enc}"))
                .unwrap()
                .id,
            Some(id)
        );
    }

    #[test]
    fn admins_follow_the_root_grants() {
        let (root, admin_role, s1, s2) = (
            Uuid::now_v7(),
            Uuid::now_v7(),
            Uuid::now_v7(),
            Uuid::now_v7(),
        );
        let mut a = Admins {
            root: [root].into(),
            grants: vec![Link {
                id: Uuid::now_v7(),
                left: admin_role,
                right: root,
            }],
            holders: vec![
                Link {
                    id: Uuid::now_v7(),
                    left: s1,
                    right: admin_role,
                },
                Link {
                    id: Uuid::now_v7(),
                    left: s2,
                    right: admin_role,
                },
            ],
        };
        assert_eq!(a.subjects(), [s1, s2].into());
        a.holders.retain(|h| h.left != s1);
        assert_eq!(a.subjects(), [s2].into());
        a.grants[0].right = Uuid::nil();
        assert!(a.subjects().is_empty());
    }
}

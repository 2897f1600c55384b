//! Authorization as data: permission rows `(method, path template)` linked to roles. A template's
//! dynamic segments are written `[module.entity.field]` and match one path segment; a final `*`
//! matches the rest; the path `*` matches everything. The root permission (`*`, `*`) makes its
//! roles admin; a permission linked to no role is public; anything unmatched is denied.

use std::collections::HashSet;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use stoa_kernel::Result;
use stoa_store::Store;
use uuid::Uuid;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Seg {
    Lit(String),
    Param,
    Rest,
}

#[derive(Debug)]
struct Rule {
    method: String,
    /// `None`: the path `*`.
    segs: Option<Vec<Seg>>,
    roles: Vec<Uuid>,
}

/// A compiled permission table.
#[derive(Debug, Default)]
pub struct Table {
    rules: Vec<Rule>,
    root_roles: HashSet<Uuid>,
}

/// What the table says about a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// A role of the caller holds the root permission.
    Admin,
    /// A matching permission is public or held by one of the caller's roles.
    Allow,
    Deny,
}

fn parse(path: &str) -> Option<Vec<Seg>> {
    if path.trim() == "*" {
        return None;
    }
    let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
    let n = parts.len();
    Some(
        parts
            .into_iter()
            .enumerate()
            .map(|(i, p)| {
                if p == "*" && i + 1 == n {
                    Seg::Rest
                } else if p.starts_with('[') && p.ends_with(']')
                    || p.starts_with('{') && p.ends_with('}')
                    || p.starts_with(':')
                {
                    Seg::Param
                } else {
                    Seg::Lit(p.to_ascii_lowercase())
                }
            })
            .collect(),
    )
}

fn matches(segs: &[Seg], path: &str) -> bool {
    let mut it = path.trim_matches('/').split('/');
    for s in segs {
        match s {
            Seg::Rest => return true,
            Seg::Param => match it.next() {
                Some(p) if !p.is_empty() => {}
                _ => return false,
            },
            Seg::Lit(l) => match it.next() {
                Some(p) if p.eq_ignore_ascii_case(l) => {}
                _ => return false,
            },
        }
    }
    it.next().is_none()
}

impl Table {
    /// Builds the table from `(id, method, path)` permissions and `(role, permission)` links.
    pub fn build(perms: &[(Uuid, String, String)], links: &[(Uuid, Uuid)]) -> Self {
        let mut t = Table::default();
        for (id, method, path) in perms {
            let roles: Vec<Uuid> = links
                .iter()
                .filter(|(_, p)| p == id)
                .map(|(r, _)| *r)
                .collect();
            let segs = parse(path);
            if method == "*" && segs.is_none() {
                t.root_roles.extend(roles.iter().copied());
                // A root permission with no role would make everything public: ignore it.
                continue;
            }
            t.rules.push(Rule {
                method: method.to_ascii_uppercase(),
                segs,
                roles,
            });
        }
        t
    }

    pub fn decide(&self, method: &str, path: &str, roles: &[Uuid]) -> Verdict {
        if roles.iter().any(|r| self.root_roles.contains(r)) {
            return Verdict::Admin;
        }
        let method = if method.eq_ignore_ascii_case("HEAD") {
            "GET"
        } else {
            method
        };
        for r in &self.rules {
            if r.method != "*" && !r.method.eq_ignore_ascii_case(method) {
                continue;
            }
            if let Some(segs) = &r.segs
                && !matches(segs, path)
            {
                continue;
            }
            if r.roles.is_empty() || r.roles.iter().any(|x| roles.contains(x)) {
                return Verdict::Allow;
            }
        }
        Verdict::Deny
    }
}

/// A built table, the versions it was built from, and when.
type Cached = (Arc<Table>, [u64; 2], Instant);

/// The table, rebuilt when the permission, link or role tables change (and at least every
/// `max_age`, which bounds staleness when another instance made the change).
pub struct Policy {
    store: Store,
    max_age: Duration,
    cached: RwLock<Option<Cached>>,
}

const KEYS: [&str; 2] = ["rbac.permission", "rbac.roles-to-permissions"];

impl Policy {
    pub fn new(store: Store, max_age: Duration) -> Self {
        Self {
            store,
            max_age,
            cached: RwLock::new(None),
        }
    }

    fn versions(&self) -> [u64; 2] {
        KEYS.map(|k| self.store.version(k))
    }

    pub async fn table(&self) -> Result<Arc<Table>> {
        let v = self.versions();
        if let Ok(g) = self.cached.read()
            && let Some((t, tv, at)) = g.as_ref()
            && *tv == v
            && at.elapsed() < self.max_age
        {
            return Ok(t.clone());
        }
        let t = Arc::new(self.load().await?);
        if let Ok(mut g) = self.cached.write() {
            *g = Some((t.clone(), v, Instant::now()));
        }
        Ok(t)
    }

    async fn load(&self) -> Result<Table> {
        let pe = self.store.entity(KEYS[0])?;
        let le = self.store.entity(KEYS[1])?;
        let mut perms = Vec::new();
        for r in all(&self.store, &pe).await? {
            if let (Some(id), Some(m), Some(p)) = (r.id(), r.text("method"), r.text("path")) {
                perms.push((id, m.to_owned(), p.to_owned()));
            }
        }
        let mut links = Vec::new();
        for r in all(&self.store, &le).await? {
            if let (Some(role), Some(p)) = (r.uuid("roleId"), r.uuid("permissionId")) {
                links.push((role, p));
            }
        }
        Ok(Table::build(&perms, &links))
    }
}

/// Every row of `e`.
pub async fn all(store: &Store, e: &stoa_kernel::model::Entity) -> Result<Vec<stoa_store::Record>> {
    store.all(e, usize::MAX).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u128) -> Uuid {
        Uuid::from_u128(n)
    }

    #[test]
    fn templates_roles_root_and_public() {
        let (admin, user) = (id(1), id(2));
        let perms = vec![
            (id(10), "*".into(), "*".into()),
            (
                id(11),
                "GET".into(),
                "/api/blog/articles/[blog.articles.id]".into(),
            ),
            (
                id(12),
                "POST".into(),
                "/api/rbac/subjects/[rbac.subjects.id]/identities".into(),
            ),
            (id(13), "GET".into(), "/assets/*".into()),
        ];
        let links = vec![(admin, id(10)), (user, id(12))];
        let t = Table::build(&perms, &links);
        assert_eq!(t.decide("DELETE", "/api/x", &[admin]), Verdict::Admin);
        assert_eq!(
            t.decide("GET", "/api/blog/articles/abc", &[]),
            Verdict::Allow
        );
        assert_eq!(
            t.decide("HEAD", "/api/BLOG/articles/abc", &[]),
            Verdict::Allow
        );
        assert_eq!(t.decide("GET", "/api/blog/articles", &[]), Verdict::Deny);
        assert_eq!(
            t.decide("GET", "/api/blog/articles/a/b", &[]),
            Verdict::Deny
        );
        assert_eq!(
            t.decide("POST", "/api/rbac/subjects/s/identities", &[]),
            Verdict::Deny
        );
        assert_eq!(
            t.decide("POST", "/api/rbac/subjects/s/identities", &[user]),
            Verdict::Allow
        );
        assert_eq!(t.decide("GET", "/assets/a/b.js", &[]), Verdict::Allow);
        assert_eq!(t.decide("GET", "/assets", &[]), Verdict::Allow);
    }

    #[test]
    fn a_root_permission_without_roles_grants_nothing() {
        let t = Table::build(&[(id(1), "*".into(), "*".into())], &[]);
        assert_eq!(t.decide("GET", "/api/x", &[]), Verdict::Deny);
    }
}

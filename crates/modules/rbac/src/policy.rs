//! Authorization as data: permission rows `(method, path template)` linked to roles. A template's
//! dynamic segments are written `[module.entity.field]` and match one path segment; a final `*`
//! matches the rest; the path `*` matches everything. The root permission (`*`, `*`) makes its
//! roles admin; a permission marked `public` is open to everyone; a permission grants its roles
//! and nobody else (one that no role holds grants nothing); anything unmatched is denied.

use std::collections::HashSet;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use stoa_kernel::Result;
use stoa_store::Store;
use uuid::Uuid;

use crate::rows::{PermissionRow, RolePermissionRow, read_all};

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
    public: bool,
    /// `METHOD path`, as the row writes it.
    label: String,
}

/// One permission row as the table reads it.
#[derive(Clone, Debug)]
pub struct Perm {
    pub id: Uuid,
    pub method: String,
    pub path: String,
    pub public: bool,
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

/// What the table says about a route and why, as the admin's screens show it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Why {
    /// A role holds the root permission.
    Admin,
    /// The permission `METHOD path` grants it: open to everyone, or held by one of the roles.
    Granted {
        rule: String,
        public: bool,
    },
    Denied,
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
    matches_as(segs, path, false)
}

/// Does a template match `path`? With `route`, `path` is itself a route template whose `{x}`
/// segments stand for any value: only a dynamic segment (or a final `*`) matches them.
fn matches_as(segs: &[Seg], path: &str, route: bool) -> bool {
    let mut it = path.trim_matches('/').split('/');
    for s in segs {
        match s {
            Seg::Rest => return true,
            Seg::Param => match it.next() {
                // A route's catch-all (`{*rest}`) can be many segments: one never covers it.
                Some(p) if route && p.starts_with("{*") => return false,
                Some(p) if !p.is_empty() => {}
                _ => return false,
            },
            Seg::Lit(l) => match it.next() {
                Some(p) if route && p.starts_with('{') && p.ends_with('}') => return false,
                Some(p) if p.eq_ignore_ascii_case(l) => {}
                _ => return false,
            },
        }
    }
    it.next().is_none()
}

impl Table {
    /// Builds the table from permissions and `(role, permission)` links.
    pub fn build(perms: &[Perm], links: &[(Uuid, Uuid)]) -> Self {
        let mut t = Table::default();
        for Perm {
            id,
            method,
            path,
            public,
        } in perms
        {
            let roles: Vec<Uuid> = links
                .iter()
                .filter(|(_, p)| p == id)
                .map(|(r, _)| *r)
                .collect();
            let segs = parse(path);
            let label = format!("{} {path}", method.to_ascii_uppercase());
            if method == "*" && segs.is_none() {
                // Only ever its roles' (never public: that would open everything).
                t.root_roles.extend(roles.iter().copied());
                continue;
            }
            t.rules.push(Rule {
                method: method.to_ascii_uppercase(),
                segs,
                roles,
                public: *public,
                label,
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
            if r.public || r.roles.iter().any(|x| roles.contains(x)) {
                return Verdict::Allow;
            }
        }
        Verdict::Deny
    }

    /// The roles holding the root permission.
    pub fn root_roles(&self) -> impl Iterator<Item = &Uuid> {
        self.root_roles.iter()
    }

    /// What the table says about the route `method template` (as the route book writes it:
    /// `/api/blog/articles/{id}`) for `roles`, and which permission decides: one open to
    /// everyone before one a role holds. It allows exactly when [`Table::decide`] allows every
    /// request of the route.
    pub fn explain(&self, method: &str, template: &str, roles: &[Uuid]) -> Why {
        if roles.iter().any(|r| self.root_roles.contains(r)) {
            return Why::Admin;
        }
        let mut held = None;
        for r in &self.rules {
            if r.method != "*" && !r.method.eq_ignore_ascii_case(method) {
                continue;
            }
            if let Some(segs) = &r.segs
                && !matches_as(segs, template, true)
            {
                continue;
            }
            if r.public {
                return Why::Granted {
                    rule: r.label.clone(),
                    public: true,
                };
            }
            if held.is_none() && r.roles.iter().any(|x| roles.contains(x)) {
                held = Some(Why::Granted {
                    rule: r.label.clone(),
                    public: false,
                });
            }
        }
        held.unwrap_or(Why::Denied)
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

    /// Tells a visitor's answer being kept ([`stoa_api::answers`]) that the verdict comes from
    /// these tables as they are now: call before deciding.
    pub fn depends(&self) {
        for k in KEYS {
            stoa_api::answers::depends_on(&self.store, k);
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
        for r in read_all::<PermissionRow>(&all(&self.store, &pe).await?)? {
            if let (Some(method), Some(path)) = (r.method, r.path) {
                perms.push(Perm {
                    id: r.id,
                    method,
                    path,
                    public: r.public.unwrap_or(false),
                });
            }
        }
        let mut links = Vec::new();
        for r in read_all::<RolePermissionRow>(&all(&self.store, &le).await?)? {
            if let (Some(role), Some(p)) = (r.role_id, r.permission_id) {
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

    fn perm(n: u128, method: &str, path: &str, public: bool) -> Perm {
        Perm {
            id: id(n),
            method: method.into(),
            path: path.into(),
            public,
        }
    }

    #[test]
    fn templates_roles_root_and_public() {
        let (admin, user) = (id(1), id(2));
        let perms = vec![
            perm(10, "*", "*", false),
            perm(11, "GET", "/api/blog/articles/[blog.articles.id]", true),
            perm(
                12,
                "POST",
                "/api/rbac/subjects/[rbac.subjects.id]/identities",
                false,
            ),
            perm(13, "GET", "/assets/*", true),
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
    fn a_permission_no_role_holds_grants_nothing_unless_public() {
        let user = id(2);
        // The root permission with no role, even marked public, opens nothing.
        let t = Table::build(&[perm(1, "*", "*", true)], &[]);
        assert_eq!(t.decide("GET", "/api/x", &[]), Verdict::Deny);
        // A role's permission after the role is gone (its links went with it): denied.
        let t = Table::build(&[perm(2, "GET", "/api/x", false)], &[]);
        assert_eq!(t.decide("GET", "/api/x", &[]), Verdict::Deny);
        assert_eq!(t.decide("GET", "/api/x", &[user]), Verdict::Deny);
        let t = Table::build(&[perm(2, "GET", "/api/x", true)], &[]);
        assert_eq!(t.decide("GET", "/api/x", &[]), Verdict::Allow);
    }

    #[test]
    fn a_route_is_explained_by_the_permission_that_opens_it() {
        let (admin, user) = (id(1), id(2));
        let perms = vec![
            perm(10, "*", "*", false),
            perm(11, "GET", "/api/blog/articles/[blog.articles.id]", true),
            perm(12, "GET", "/api/blog/articles/[blog.articles.id]", false),
            perm(
                13,
                "POST",
                "/api/rbac/subjects/[rbac.subjects.id]/totp",
                false,
            ),
            perm(14, "GET", "/api/blog/articles/drafts", false),
            perm(15, "GET", "/assets/*", true),
        ];
        let links = vec![
            (admin, id(10)),
            (user, id(12)),
            (user, id(13)),
            (user, id(14)),
        ];
        let t = Table::build(&perms, &links);
        let granted = |rule: &str, public| Why::Granted {
            rule: rule.into(),
            public,
        };
        assert_eq!(t.explain("DELETE", "/api/x/{id}", &[admin]), Why::Admin);
        assert_eq!(t.root_roles().collect::<Vec<_>>(), vec![&admin]);
        // The public permission explains it even for a role that holds another.
        let articles = "GET /api/blog/articles/[blog.articles.id]";
        assert_eq!(
            t.explain("GET", "/api/blog/articles/{id}", &[user]),
            granted(articles, true)
        );
        assert_eq!(
            t.explain("post", "/api/rbac/subjects/{id}/totp", &[user]),
            granted("POST /api/rbac/subjects/[rbac.subjects.id]/totp", false)
        );
        assert_eq!(
            t.explain("POST", "/api/rbac/subjects/{id}/totp", &[]),
            Why::Denied
        );
        // A literal segment of a permission never matches a route's `{x}`: the drafts
        // permission does not open every article.
        assert_eq!(
            t.explain("GET", "/api/blog/{kind}/drafts", &[user]),
            Why::Denied
        );
        assert_eq!(
            t.explain("GET", "/assets/{*rest}", &[]),
            granted("GET /assets/*", true)
        );
        // A one-segment permission does not open a catch-all route (`/files/a/b` would not match).
        let files = Table::build(
            &[perm(20, "GET", "/files/[file-storage.files.key]", true)],
            &[],
        );
        assert_eq!(files.explain("GET", "/files/{*key}", &[]), Why::Denied);
        assert_eq!(
            files.explain("GET", "/files/{key}", &[]),
            granted("GET /files/[file-storage.files.key]", true)
        );
    }
}

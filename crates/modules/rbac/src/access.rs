//! What a subject, a role or a visitor may call, answered from the permission table the gate
//! decides with ([`crate::policy::Table::explain`]) over every route of the route book: the
//! admin's roles-and-permissions screen shows this answer and mirrors no rule of its own.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use stoa_api::routes::Operation;
use stoa_kernel::{Error, Result};
use uuid::Uuid;

use crate::policy::Why;
use crate::seed::{permission_path, shape};
use crate::service::Auth;

/// Whose access to answer: one subject's (its roles), one role's, or, with neither, a visitor's
/// (no role).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Whose {
    /// The subject whose roles to decide with
    pub subject_id: Option<Uuid>,
    /// The role to decide with
    pub role_id: Option<Uuid>,
}

/// One route of the API and whether the roles may call it.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "RbacRouteAccess")]
pub struct RouteAccess {
    /// Upper-case HTTP method
    pub method: &'static str,
    /// The route as the API document writes it (`/api/blog/articles/{id}`)
    pub path: String,
    /// Who may call it before an admin changes the permissions
    pub access: stoa_api::Access,
    /// The path a permission row for this route is written with
    /// (`/api/blog/articles/[blog.articles.id]`)
    pub permission: String,
    /// Method and shape: the routes and permission rows with the same key match the same requests
    /// (`GET api/blog/articles/·`)
    pub key: String,
    /// The roles may call it
    pub allowed: bool,
    /// The permission (`METHOD path`) that lets them, when one does (not for an admin)
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
    /// That permission is open to everyone
    pub public: bool,
}

/// What the roles may call (`rbacAccess`).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "RbacAccess")]
pub struct AccessMap {
    /// The roles decided with: the subject's, the one asked about, or none for a visitor
    pub roles: Vec<Uuid>,
    /// One of the roles holds the root permission: everything is allowed
    pub admin: bool,
    /// The roles that hold the root permission
    pub root_roles: Vec<Uuid>,
    /// Every route of the API, in the document's order
    pub routes: Vec<RouteAccess>,
}

/// A route's method and shape (see [`RouteAccess::key`]).
pub fn key(method: &str, path: &str) -> String {
    format!("{} {}", method.to_ascii_uppercase(), shape(path))
}

impl Auth {
    /// The roles `whose` names: a subject's, one role (which must exist), or none.
    async fn roles_for(&self, whose: &Whose) -> Result<Vec<Uuid>> {
        match (whose.subject_id, whose.role_id) {
            (Some(_), Some(_)) => Err(Error::invalid_field(
                "roleId",
                "send subjectId or roleId, not both",
            )),
            (Some(s), None) => {
                self.store.get(&self.e.subject, s).await?;
                Ok(self.roles_of(s).await?.to_vec())
            }
            (None, Some(r)) => {
                self.store.get(&self.e.role, r).await?;
                Ok(vec![r])
            }
            (None, None) => Ok(Vec::new()),
        }
    }

    /// What `whose` may call, route by route.
    pub async fn access(&self, whose: &Whose) -> Result<AccessMap> {
        let roles = self.roles_for(whose).await?;
        let table = self.policy.table().await?;
        let book: &[Operation] = self.book.get().map_or(&[], Vec::as_slice);
        let routes = book
            .iter()
            .map(|o| {
                let why = table.explain(o.method, &o.path, &roles);
                let (allowed, via, public) = match why {
                    Why::Admin => (true, None, false),
                    Why::Granted { rule, public } => (true, Some(rule), public),
                    Why::Denied => (false, None, false),
                };
                RouteAccess {
                    method: o.method,
                    path: o.path.clone(),
                    access: o.access,
                    permission: permission_path(&o.path),
                    key: key(o.method, &o.path),
                    allowed,
                    via,
                    public,
                }
            })
            .collect();
        let mut root_roles: Vec<Uuid> = table.root_roles().copied().collect();
        root_roles.sort();
        Ok(AccessMap {
            admin: roles.iter().any(|r| root_roles.contains(r)),
            roles,
            root_roles,
            routes,
        })
    }
}

//! Who is calling: set on every request by the authorization middleware (rbac) and read by
//! handlers through `Extension<Caller>`.

use uuid::Uuid;

/// The header that carries the server-to-server secret key.
pub const SECRET_KEY_HEADER: &str = "x-rbac-secret-key";
/// The cookie that carries a browser's access token.
pub const JWT_COOKIE: &str = "rbac.subject.jwt";
/// The cookie that carries a browser's refresh token.
pub const REFRESH_COOKIE: &str = "rbac.subject.refresh";

/// Whether `headers` carry anything that may name a caller: an `Authorization`, the secret key,
/// or a session cookie. A request without any is a visitor's whoever sends it (what may be
/// answered for everyone: `crate::answers`).
pub fn has_credentials(headers: &axum::http::HeaderMap) -> bool {
    headers.contains_key(axum::http::header::AUTHORIZATION)
        || headers.contains_key(SECRET_KEY_HEADER)
        || headers.get_all(axum::http::header::COOKIE).iter().any(|v| {
            let v = v.as_bytes();
            [JWT_COOKIE, REFRESH_COOKIE]
                .iter()
                .any(|c| v.windows(c.len()).any(|w| w == c.as_bytes()))
        })
}

/// How the caller proved who they are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Via {
    #[default]
    Nothing,
    /// `Authorization: Bearer <access JWT>`.
    Bearer,
    /// The `rbac.subject.jwt` cookie.
    Cookie,
    /// `X-RBAC-SECRET-KEY` (trusted server-to-server call).
    SecretKey,
    /// `Authorization: Bearer stoa_ak_…`: an API key an admin made (for an agent, a script),
    /// acting for its account with no more than the key's roles.
    ApiKey,
}

#[derive(Clone, Debug, Default)]
pub struct Caller {
    /// The signed-in subject.
    pub subject: Option<Uuid>,
    /// The session (refresh-token family) the access token belongs to.
    pub session: Option<Uuid>,
    /// Holds a role linked to the root permission, or called with the secret key.
    pub admin: bool,
    pub via: Via,
    /// The session was opened with a second factor.
    pub second_factor: bool,
    /// An admin treated as a visitor until the second factor (`STOA_ADMIN_2FA=required`).
    pub restricted_admin: bool,
    /// The API key the call came with (`Via::ApiKey`).
    pub key: Option<Uuid>,
    /// The account the API key acts for, kept when `subject` is cleared: on a route open to
    /// everyone a key is anyone (see rbac's gate), but what it may do elsewhere is still asked
    /// for its account ([`Authorize::may`]).
    pub key_subject: Option<Uuid>,
}

impl Caller {
    /// Who made `req` (rbac's layer puts it in the request; anonymous when it did not).
    pub fn of<B>(req: &axum::http::Request<B>) -> Caller {
        req.extensions()
            .get::<Caller>()
            .cloned()
            .unwrap_or_default()
    }

    /// May act on `/api/rbac/subjects/{subject}/…`?
    pub fn owns(&self, subject: Uuid) -> bool {
        self.admin || self.subject == Some(subject)
    }

    /// `subject` when the caller may act for it: 401 when not signed in, 403 for someone else.
    pub fn acting_for(&self, subject: Uuid) -> stoa_kernel::Result<Uuid> {
        if self.owns(subject) {
            Ok(subject)
        } else if self.subject.is_none() {
            Err(stoa_kernel::Error::Unauthorized(
                "sign in to do this".into(),
            ))
        } else {
            Err(stoa_kernel::Error::Forbidden(
                "only the account's owner may do this".into(),
            ))
        }
    }
}

/// Recognising an admin on the site's own routes (which are not behind the API's authorization
/// layer): the page preview. Provided by the module that owns accounts.
pub trait Identify: Send + Sync {
    /// Whether `headers` carry the session of an admin (with its second factor where one is
    /// required).
    fn is_admin<'a>(
        &'a self,
        headers: &'a axum::http::HeaderMap,
    ) -> crate::module::BoxFuture<'a, bool>;
}

/// Whether a caller may make a request, asked without making it: the same permission table,
/// ownership and account rules the authorization layer applies (the MCP server lists only the
/// tools a key may use, and refuses a dry run of a write it could not confirm). Provided by the
/// module that owns accounts.
pub trait Authorize: Send + Sync {
    /// `Ok(())`, or the 401/403 the request would get.
    fn may<'a>(
        &'a self,
        caller: &'a Caller,
        method: &'a str,
        path: &'a str,
    ) -> crate::module::BoxFuture<'a, stoa_kernel::Result<()>>;
}

/// Creating administrators from the command line (`stoa admin create`), provided by the module
/// that owns accounts, so the server does not name it.
pub trait AccountAdmin: Send + Sync {
    fn create_admin<'a>(
        &'a self,
        email: &'a str,
        password: &'a str,
    ) -> crate::module::BoxFuture<'a, stoa_kernel::Result<Uuid>>;
}

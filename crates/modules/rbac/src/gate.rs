//! The one middleware that decides every request: credentials → caller → permission table →
//! ownership → second factor → CSRF, and who the audit log records as the author.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use cookie::Cookie;
use serde_json::Value;
use stoa_api::auth::{Caller, Via};
use stoa_api::error::error_response;
use stoa_kernel::{Error, Result};
use uuid::Uuid;

use crate::policy::Verdict;
use crate::service::Auth;

// The credentials' names are the API's (`stoa_api::auth`): what may be answered for everyone
// is decided by the same names.
pub(crate) use stoa_api::auth::SECRET_KEY_HEADER as SECRET_HEADER;
pub use stoa_api::auth::{JWT_COOKIE, REFRESH_COOKIE};

/// Every `(name, value)` of the request's `Cookie` headers.
pub(crate) fn cookies(headers: &HeaderMap) -> impl Iterator<Item = (String, String)> + '_ {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| Cookie::split_parse(v.to_owned()))
        .filter_map(|c| c.ok())
        .map(|c| (c.name().to_owned(), c.value().to_owned()))
}

pub(crate) fn cookie_value(headers: &HeaderMap, name: &str) -> Option<String> {
    cookies(headers).find(|(n, _)| n == name).map(|(_, v)| v)
}

pub(crate) fn bearer(headers: &HeaderMap) -> Option<&str> {
    let v = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = v.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then_some(token.trim())
}

/// Whose route `/api/rbac/subjects/{id}/…` is.
#[derive(Debug, PartialEq, Eq)]
enum Scope {
    /// Not a subject-scoped route (`/api/rbac/subjects/authentication/…`, or another prefix).
    Unscoped,
    Subject(Uuid),
    /// A segment that is neither an id nor a route word (`%7B…%7D`, a stray `%`): refused rather
    /// than let a handler decode an id the check did not see.
    Unclear,
}

/// The subject a path is scoped to. The id segment is percent-decoded first, as the router's
/// path extraction decodes it, so an encoded id cannot slip past the ownership check.
fn scoped_subject(path: &str) -> Scope {
    let Some(rest) = path.strip_prefix("/api/rbac/subjects/") else {
        return Scope::Unscoped;
    };
    let Some((raw, tail)) = rest.split_once('/') else {
        return Scope::Unscoped;
    };
    if tail.is_empty() {
        return Scope::Unscoped;
    }
    if let Some(u) = crate::rails::path_id(raw) {
        return Scope::Subject(u);
    }
    if !raw.is_empty() && raw.bytes().all(|b| b.is_ascii_lowercase() || b == b'-') {
        return Scope::Unscoped;
    }
    Scope::Unclear
}

/// The verdict for `caller` on `method path`: Ok, or the 401/403 to answer.
/// Marks `c` admin when one of its roles holds the root permission.
pub(crate) async fn decide(auth: &Auth, c: &mut Caller, method: &str, path: &str) -> Result<()> {
    let subject = c.subject;
    let deny = |why: &str| {
        tracing::info!(event = "authz_denied", method, path = %path.chars().take(200).collect::<String>(), subject = ?subject, reason = why, "request denied");
        if subject.is_none() {
            Error::Unauthorized("sign in to do this".into())
        } else {
            Error::Forbidden("you do not have access to this resource".into())
        }
    };
    // A key never acts on accounts: no write under /api/rbac/, and none of the account's own
    // routes (sign-in, linking a provider, `me`) or its live channel, whatever the method.
    if c.via == Via::ApiKey
        && ((!matches!(method, "GET" | "HEAD" | "OPTIONS") && path.starts_with("/api/rbac/"))
            || path.starts_with("/api/rbac/subjects/authentication/")
            || path == "/api/live")
    {
        tracing::info!(event = "authz_denied", method, path = %path.chars().take(200).collect::<String>(), key = ?c.key, reason = "api key on accounts", "request denied");
        return Err(Error::Forbidden(
            "an API key cannot change accounts, sign-in methods, roles, permissions or keys; sign in as a person to do this".into(),
        ));
    }
    if !c.admin {
        let roles = match (c.subject, c.key) {
            (Some(s), Some(k)) => auth.key_roles(k, s).await?,
            (Some(s), None) => auth.roles_of(s).await?,
            (None, _) => Arc::new(Vec::new()),
        };
        let table = auth.policy.table().await?;
        match table.decide(method, path, &roles) {
            Verdict::Admin => c.admin = true,
            Verdict::Allow => {}
            Verdict::Deny => return Err(deny("no permission")),
        }
        // A key brings its account only where its roles are what let it in: on a route open to
        // everyone it is anyone (a public route that reads the caller — a cart, a profile's own
        // view — would otherwise serve the account past the key's roles).
        if c.via == Via::ApiKey && table.decide(method, path, &[]) == Verdict::Allow {
            c.subject = None;
        }
    }
    match scoped_subject(path) {
        Scope::Subject(owner) if !c.owns(owner) => Err(deny("not the owner")),
        Scope::Unclear if !c.admin => Err(Error::bad_request(
            "the subject id in the path is not an id; send the subject's id as it is",
        )),
        _ => Ok(()),
    }
}

/// With `STOA_ADMIN_2FA=required`, an admin whose session has no second factor is no admin:
/// it may do what a visitor may, read itself, and enrol; anything else is a 403 saying so.
async fn second_factor_gate(auth: &Auth, c: &mut Caller, method: &str, path: &str) -> Result<()> {
    if !(auth.cfg.admin_2fa_required
        && c.admin
        && matches!(c.via, Via::Bearer | Via::Cookie)
        && !c.second_factor)
    {
        return Ok(());
    }
    c.admin = false;
    c.restricted_admin = true;
    let own = c
        .subject
        .map(|s| format!("/api/rbac/subjects/{s}/totp"))
        .unwrap_or_default();
    let enrolment = !own.is_empty() && (path == own || path == format!("{own}/confirm"));
    let public = auth.policy.table().await?.decide(method, path, &[]) == Verdict::Allow;
    if enrolment || public {
        return Ok(());
    }
    tracing::info!(event = "second_factor_required", subject = ?c.subject, "admin without a second factor refused");
    Err(Error::Forbidden(
        "turn on two-factor sign-in first: administrators must use it on this site (account settings → security)"
            .into(),
    ))
}

fn same_origin(auth: &Auth, headers: &HeaderMap) -> bool {
    let origin = headers
        .get(header::ORIGIN)
        .and_then(|v| v.to_str().ok())
        .or_else(|| headers.get(header::REFERER).and_then(|v| v.to_str().ok()));
    let Some(origin) = origin else {
        return false;
    };
    let authority = |u: &str| -> String {
        let rest = u.split_once("://").map_or(u, |(_, r)| r);
        rest.split('/').next().unwrap_or("").to_ascii_lowercase()
    };
    let o = authority(origin);
    !o.is_empty()
        && (o == auth.cfg.domain().to_ascii_lowercase()
            || headers
                .get(header::HOST)
                .and_then(|h| h.to_str().ok())
                .is_some_and(|h| h.eq_ignore_ascii_case(&o)))
}

/// The largest body of a write the guard rails read (PATCH of roles, links and permissions).
const RAILS_BODY: usize = 1024 * 1024;

/// Runs an admin's write of accounts, roles or permissions past the guard rails, one at a time.
async fn guarded(
    auth: &Auth,
    caller: Option<Uuid>,
    w: &crate::rails::Write,
    req: Request,
    next: Next,
) -> Result<Response> {
    let (parts, body) = req.into_parts();
    let bytes = stoa_api::body::read(body, RAILS_BODY).await?;
    // Read as the rails read it, or not at all: a body they cannot read (multipart, say) could
    // carry a change they did not check.
    let json: Option<Value> = if bytes.is_empty() {
        None
    } else {
        Some(serde_json::from_slice(&bytes).map_err(|_| {
            Error::UnsupportedMediaType(
                "changes to accounts, roles and permissions are sent as JSON".into(),
            )
        })?)
    };
    let _one_at_a_time = auth.rails.lock().await;
    crate::rails::check(&auth.store, caller, w, json.as_ref()).await?;
    Ok(next
        .run(Request::from_parts(parts, axum::body::Body::from(bytes)))
        .await)
}

/// May an unsafe request without a bearer token or the secret key go ahead? Every browser marks
/// its requests: `Sec-Fetch-Site` (modern browsers) or `Origin` (every cross-origin POST), so a
/// request that says it comes from another site — a form posted to the sign-in route, say — is
/// refused whether or not it carries a cookie. A request with neither header is not from a
/// browser page (a server, a script); it is refused only when it carries a session cookie and no
/// same-site `Referer`, as a browser too old to send either would.
fn from_this_site(auth: &Auth, headers: &HeaderMap, has_session_cookie: bool) -> bool {
    if let Some(site) = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()) {
        // `none`: the user's own action (typed, bookmarked), never a page's.
        return matches!(site, "same-origin" | "none")
            && (headers.get(header::ORIGIN).is_none() || same_origin(auth, headers));
    }
    if headers.get(header::ORIGIN).is_some() {
        return same_origin(auth, headers);
    }
    !has_session_cookie || same_origin(auth, headers)
}

impl stoa_api::auth::Identify for Auth {
    fn is_admin<'a>(&'a self, headers: &'a HeaderMap) -> stoa_api::module::BoxFuture<'a, bool> {
        Box::pin(async move {
            let token = bearer(headers)
                .map(str::to_owned)
                .or_else(|| cookie_value(headers, JWT_COOKIE));
            let Some(Ok(Some(a))) = (match &token {
                Some(t) => Some(self.verify_access(t).await),
                None => None,
            }) else {
                return false;
            };
            if self.cfg.admin_2fa_required && !a.mfa {
                return false;
            }
            let Ok(roles) = self.roles_of(a.subject).await else {
                return false;
            };
            matches!(self.policy.table().await, Ok(t) if t.decide("GET", "/", &roles) == Verdict::Admin)
        })
    }
}

impl stoa_api::auth::Authorize for Auth {
    fn may<'a>(
        &'a self,
        caller: &'a Caller,
        method: &'a str,
        path: &'a str,
    ) -> stoa_api::module::BoxFuture<'a, Result<()>> {
        Box::pin(async move {
            let mut c = caller.clone();
            if c.via == Via::ApiKey {
                c.subject = c.key_subject;
            }
            decide(self, &mut c, method, path).await?;
            second_factor_gate(self, &mut c, method, path).await
        })
    }
}

/// The account-security routes whose writes are recorded for every signed-in account (an
/// admin's writes are recorded everywhere): sign-in factors, sessions, identities, passwords.
fn account_security(path: &str) -> bool {
    if let Some(rest) = path.strip_prefix("/api/rbac/subjects/")
        && let Some((_, tail)) = rest.split_once('/')
    {
        return ["totp", "sessions", "identities"]
            .iter()
            .any(|p| tail == *p || tail.starts_with(&format!("{p}/")));
    }
    path.starts_with("/api/rbac/identities/") && path.ends_with("/change-password")
}

/// Who makes `req`, for the audit log.
pub fn who_of(c: &Caller, req: &Request) -> stoa_store::audit::Who {
    let header = |h: header::HeaderName| {
        req.headers()
            .get(h)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    stoa_store::audit::Who {
        actor: match (c.via, c.subject) {
            (Via::SecretKey, _) => "secret-key".to_owned(),
            (Via::ApiKey, _) => format!("api-key:{}", c.key.unwrap_or_default()),
            (_, Some(s)) => format!("subject:{s}"),
            _ => "anonymous".to_owned(),
        },
        subject: c.subject,
        ip: Some(stoa_api::rate::client_ip(req)),
        user_agent: header(header::USER_AGENT),
        request_id: Some(stoa_api::error::request_id()),
        ..Default::default()
    }
}

/// Runs `f` with drafts visible when `drafts`, and its writes recorded as `who`'s.
async fn scoped<F: std::future::Future>(
    drafts: bool,
    who: Option<stoa_store::audit::Who>,
    f: F,
) -> F::Output {
    let f = async move {
        match who {
            Some(w) => stoa_store::audit::recording(w, f).await,
            None => f.await,
        }
    };
    if drafts {
        stoa_store::publish::with_drafts(f).await
    } else {
        f.await
    }
}

/// Establishes the caller and enforces the permission table, ownership and CSRF on every request.
pub async fn authorize(State(auth): State<Arc<Auth>>, mut req: Request, next: Next) -> Response {
    let mut c = Caller::default();
    let (has_session_cookie, jwt_cookie) = session_cookies(req.headers());
    if let Err(e) = secret_key(&auth, req.headers(), &mut c) {
        return error_response(&e);
    }
    if c.via == Via::Nothing
        && let Err(e) = token_caller(&auth, req.headers(), jwt_cookie, &mut c).await
    {
        return error_response(&e);
    }
    let method = req.method().clone();
    let unsafe_method = !matches!(method, Method::GET | Method::HEAD | Method::OPTIONS);
    if let Err(e) = same_site_write(&auth, req.headers(), &method, c.via, has_session_cookie) {
        return error_response(&e);
    }
    let path = req.uri().path().to_owned();
    // A visitor's answer may be kept for the next visitor: it depends on the permission table;
    // anyone else's is theirs.
    let anonymous = c.via == Via::Nothing && !has_session_cookie;
    if anonymous && stoa_api::answers::collecting() {
        auth.policy.depends();
    }
    if let Err(e) = decide(&auth, &mut c, method.as_str(), &path).await {
        return error_response(&e);
    }
    if !anonymous || c.admin {
        stoa_api::answers::personal();
    }
    if let Err(e) = second_factor_gate(&auth, &mut c, method.as_str(), &path).await {
        return error_response(&e);
    }
    let credentialed = c.via != Via::Nothing || path.starts_with("/api/rbac/");
    // Whoever the permission table let through (an admin, or a role granted these writes).
    let rails = crate::rails::write_of(&method, &path);
    let caller = c.subject;
    let key = c.key;
    // Admins see drafts; their writes, and everyone's account changes, go to the audit log.
    let drafts = c.admin;
    // Every write made with an API key is recorded, whatever its roles.
    let who = (unsafe_method
        && (c.admin || c.via == Via::ApiKey || (c.subject.is_some() && account_security(&path))))
    .then(|| who_of(&c, &req));
    req.extensions_mut().insert(c);
    let who = named(&auth, who, caller, key).await;
    let run = async move {
        match rails {
            None => next.run(req).await,
            Some(w) => match guarded(&auth, caller, &w, req, next).await {
                Ok(r) => r,
                Err(e) => error_response(&e),
            },
        }
    };
    let mut res = scoped(drafts, who, run).await;
    if credentialed {
        res.headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    res.into_response()
}

/// One pass over the cookies: whether any session cookie came, and the access token.
fn session_cookies(headers: &HeaderMap) -> (bool, Option<String>) {
    let mut has_session_cookie = false;
    let mut jwt_cookie = None;
    for (name, value) in cookies(headers) {
        has_session_cookie |= name == JWT_COOKIE || name == REFRESH_COOKIE;
        if name == JWT_COOKIE {
            jwt_cookie = Some(value);
        }
    }
    (has_session_cookie, jwt_cookie)
}

/// Makes `c` an admin when the secret key came and is right; a wrong one is refused.
fn secret_key(auth: &Auth, headers: &HeaderMap, c: &mut Caller) -> Result<()> {
    let Some(k) = headers.get(SECRET_HEADER) else {
        return Ok(());
    };
    match auth.secret_key_ok(k.to_str().unwrap_or("")) {
        Some(true) => {
            c.admin = true;
            c.via = Via::SecretKey;
        }
        Some(false) => {
            tracing::warn!(event = "secret_key_rejected", "wrong X-RBAC-SECRET-KEY");
            return Err(Error::Unauthorized("the secret key is wrong".into()));
        }
        None => {}
    }
    Ok(())
}

/// Takes the caller into `c` from an API key, else a bearer access token, else the access
/// cookie; a key or bearer token that does not hold is refused, a stale cookie is not.
async fn token_caller(
    auth: &Auth,
    headers: &HeaderMap,
    jwt_cookie: Option<String>,
    c: &mut Caller,
) -> Result<()> {
    if let Some(t) = bearer(headers).filter(|t| t.starts_with(crate::service::KEY_PREFIX)) {
        let Some(k) = auth.verify_api_key(t).await? else {
            return Err(Error::Unauthorized(
                "the API key is unknown, turned off or expired; ask an administrator for a new one"
                    .into(),
            ));
        };
        c.subject = Some(k.subject);
        c.key = Some(k.key);
        c.key_subject = Some(k.subject);
        c.via = Via::ApiKey;
    } else if let Some(t) = bearer(headers) {
        let Some(a) = auth.verify_access(t).await? else {
            return Err(Error::Unauthorized(
                "the access token is invalid or expired; refresh it or sign in again".into(),
            ));
        };
        c.subject = Some(a.subject);
        c.session = Some(a.session);
        c.second_factor = a.mfa;
        c.via = Via::Bearer;
    } else if let Some(t) = jwt_cookie {
        // A stale cookie reads as signed out (the client refreshes).
        if let Some(a) = auth.verify_access(&t).await? {
            c.subject = Some(a.subject);
            c.session = Some(a.session);
            c.second_factor = a.mfa;
            c.via = Via::Cookie;
        }
    }
    Ok(())
}

/// Refuses a write from a browser on another site (the CSRF check): one without a bearer token,
/// an API key or the secret key must come from this site.
fn same_site_write(
    auth: &Auth,
    headers: &HeaderMap,
    method: &Method,
    via: Via,
    has_session_cookie: bool,
) -> Result<()> {
    let unsafe_method = !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS);
    if unsafe_method
        && !matches!(via, Via::Bearer | Via::SecretKey | Via::ApiKey)
        && !from_this_site(auth, headers, has_session_cookie)
    {
        tracing::info!(event = "csrf_rejected", method = %method, "write from another site refused");
        return Err(Error::Forbidden(
            "a write from a browser must come from this site (Origin header); other clients send \
             an Authorization header"
                .into(),
        ));
    }
    Ok(())
}

/// `who` with the actor named as people know them: the subject's email and the API key's title
/// (one lookup, for recorded requests only).
async fn named(
    auth: &Auth,
    who: Option<stoa_store::audit::Who>,
    caller: Option<Uuid>,
    key: Option<Uuid>,
) -> Option<stoa_store::audit::Who> {
    match (who, caller) {
        (Some(mut w), None) if key.is_some() => {
            let title = auth.key_title(key.unwrap_or_default()).await;
            w.name = Some(format!("API key «{title}»"));
            Some(w)
        }
        (Some(mut w), Some(s)) => {
            w.name = auth.email_of(s).await;
            if let Some(k) = key {
                let title = auth.key_title(k).await;
                w.name = Some(match w.name {
                    Some(n) => format!("{n} · API key «{title}»"),
                    None => format!("API key «{title}»"),
                });
            }
            Some(w)
        }
        (w, _) => w,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_account_security_writes_of_visitors_are_recorded() {
        let s = "/api/rbac/subjects/0197a0b0-0000-7000-8000-000000000001";
        for p in [
            "totp",
            "totp/confirm",
            "sessions/x",
            "identities",
            "identities/y",
        ] {
            assert!(account_security(&format!("{s}/{p}")), "{p}");
        }
        assert!(account_security("/api/rbac/identities/z/change-password"));
        for p in [
            "social-module/chats/c/messages",
            "ecommerce-module/orders",
            "totpx",
        ] {
            assert!(!account_security(&format!("{s}/{p}")), "{p}");
        }
    }

    #[test]
    fn the_scoped_subject_is_read_as_the_router_reads_it() {
        let id = Uuid::now_v7();
        let plain = format!("/api/rbac/subjects/{id}/ecommerce-module/orders");
        assert_eq!(scoped_subject(&plain), Scope::Subject(id));
        // Percent-encoded, braced or simple forms name the same subject.
        let s = id.to_string();
        let encoded: String = s.chars().map(|c| format!("%{:02X}", c as u32)).collect();
        for raw in [encoded, format!("%7B{s}%7D"), id.simple().to_string()] {
            let p = format!("/api/rbac/subjects/{raw}/ecommerce-module/orders");
            assert_eq!(scoped_subject(&p), Scope::Subject(id), "{p}");
        }
        assert_eq!(
            scoped_subject("/api/rbac/subjects/authentication/me"),
            Scope::Unscoped
        );
        assert_eq!(scoped_subject("/api/rbac/subjects"), Scope::Unscoped);
        assert_eq!(
            scoped_subject(&format!("/api/rbac/subjects/{id}")),
            Scope::Unscoped
        );
        assert_eq!(scoped_subject("/api/blog/articles/x/y"), Scope::Unscoped);
        for bad in ["%ZZ", "%FF%FE", "x%2Fy", "Me", "0190"] {
            let p = format!("/api/rbac/subjects/{bad}/ecommerce-module/orders");
            assert_eq!(scoped_subject(&p), Scope::Unclear, "{p}");
        }
    }
}

//! The account endpoints and the subject-scoped identity routes: one table of routes
//! ([`routes`]). The middleware that decides every request is `gate`'s.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use axum::extract::{Path, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use axum::routing::{MethodRouter, on};
use cookie::{Cookie, SameSite};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use stoa_api::auth::Caller;
use stoa_api::body::{answer_schema_of, schema_of, typed};
use stoa_api::crud::{data, parse_id};
use stoa_api::error::error_response;
use stoa_api::openapi::{custom, path_params};
use stoa_api::{Access, ApiResult, AppState, RouteBook};
use stoa_kernel::query::parse_qs;
use stoa_kernel::{Error, Result};
use uuid::Uuid;

use crate::bodies;
use crate::service::{Auth, Ctx, SignIn, Tokens};

pub use crate::gate::{JWT_COOKIE, REFRESH_COOKIE};
use crate::gate::{cookie_value, decide};

fn ctx(headers: &HeaderMap, ip: String) -> Ctx {
    let stated = stoa_api::body::accept_language(headers, "");
    let language_stated = !stated.is_empty();
    let language = if language_stated {
        stated
    } else {
        "en".to_owned()
    };
    Ctx {
        ip,
        user_agent: headers
            .get(header::USER_AGENT)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned),
        language,
        language_stated,
        guest: None,
    }
}

/// The subject of the session a request already carries: its access token's, else (expired)
/// its refresh cookie's. A sign-in takes over a guest's orders from it.
async fn carried(auth: &Auth, caller: Option<Uuid>, headers: &HeaderMap) -> Option<Uuid> {
    if caller.is_some() {
        return caller;
    }
    let token = cookie_value(headers, REFRESH_COOKIE)?;
    auth.refresh_subject(&token).await.ok().flatten()
}

/// The JSON body as an object; an empty body is `{}`.
async fn body(state: &AppState, req: Request) -> Result<Map<String, Value>> {
    stoa_api::body::object_or_empty(req, state.limits).await
}

fn secure(auth: &Auth, headers: &HeaderMap) -> bool {
    auth.cfg.https()
        || headers
            .get("x-forwarded-proto")
            .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"https"))
}

fn set_cookie(res: &mut Response, name: &str, value: &str, max_age: i64, secure: bool) {
    let c = Cookie::build((name.to_owned(), value.to_owned()))
        .http_only(true)
        .same_site(SameSite::Lax)
        .path("/")
        .secure(secure)
        .max_age(cookie::time::Duration::seconds(max_age))
        .build();
    if let Ok(v) = HeaderValue::from_str(&c.to_string()) {
        res.headers_mut().append(header::SET_COOKIE, v);
    }
}

fn token_response(auth: &Auth, headers: &HeaderMap, t: &Tokens, status: StatusCode) -> Response {
    let mut res = data(status, t);
    session_cookies(auth, headers, t, &mut res);
    res
}

/// The session's cookies (access and refresh token) on `res`.
fn session_cookies(auth: &Auth, headers: &HeaderMap, t: &Tokens, res: &mut Response) {
    let s = secure(auth, headers);
    set_cookie(res, JWT_COOKIE, &t.jwt, auth.cfg.access_ttl, s);
    set_cookie(res, REFRESH_COOKIE, &t.refresh, auth.cfg.refresh_ttl, s);
}

fn cleared(auth: &Auth, headers: &HeaderMap, mut res: Response) -> Response {
    let s = secure(auth, headers);
    set_cookie(&mut res, JWT_COOKIE, "", 0, s);
    set_cookie(&mut res, REFRESH_COOKIE, "", 0, s);
    res
}

fn ok_true(status: StatusCode) -> Response {
    data(status, json!({"ok": true}))
}

fn roles_from(roles: &Value) -> Result<Vec<String>> {
    match roles {
        Value::Null => Ok(Vec::new()),
        Value::Array(a) => a
            .iter()
            .map(|r| match r {
                Value::String(s) => Ok(s.clone()),
                Value::Object(o) => o
                    .get("slug")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .ok_or_else(|| Error::invalid_field("roles", "each role needs a slug")),
                _ => Err(Error::invalid_field(
                    "roles",
                    "must be a list of role slugs",
                )),
            })
            .collect(),
        _ => Err(Error::invalid_field(
            "roles",
            "must be a list of role slugs",
        )),
    }
}

// ---- handlers ------------------------------------------------------------------------------

/// What every account route gets: the app state, its path parameters and the request (whose
/// body is read, typed, only where the route takes one, and after any rate check).
struct In {
    s: AppState,
    params: HashMap<String, String>,
    req: Request,
}

impl In {
    fn caller(&self) -> Caller {
        Caller::of(&self.req)
    }

    fn headers(&self) -> HeaderMap {
        self.req.headers().clone()
    }

    fn ctx(&self) -> Ctx {
        ctx(self.req.headers(), stoa_api::rate::client_ip(&self.req))
    }

    /// The uuid path parameter `name`.
    fn id(&self, name: &str) -> Result<Uuid> {
        parse_id(self.params.get(name).map_or("", String::as_str))
    }

    /// The subject in the path (`{id}`): the caller's own, or any for an admin.
    fn owner(&self) -> Result<Uuid> {
        self.caller().acting_for(self.id("id")?)
    }

    /// The JSON body as `T` (an empty body is `{}`); a 422 names the field that does not fit.
    async fn body<T: DeserializeOwned>(self) -> Result<T> {
        typed(body(&self.s, self.req).await?)
    }
}

async fn me(auth: Arc<Auth>, i: In) -> ApiResult<Response> {
    let c = i.caller();
    let Some(subject) = c.subject else {
        return Ok(data(StatusCode::OK, Value::Null));
    };
    let row = auth.store.get(auth.subject_entity(), subject).await?;
    let mut v = row.to_json();
    let role_e = auth.store.entity("rbac.role")?;
    let mut roles = Vec::new();
    for r in auth.roles_of(subject).await?.iter() {
        if let Ok(r) = auth.store.get(&role_e, *r).await {
            roles.push(r.to_json());
        }
    }
    v["roles"] = json!(roles);
    v["identities"] = json!(auth.identities(subject).await?);
    v["admin"] = json!(c.admin);
    v["secondFactor"] = auth
        .second_factor_state(subject, c.second_factor, c.admin || c.restricted_admin)
        .await?;
    Ok(data(StatusCode::OK, v))
}

async fn is_authorized(auth: Arc<Auth>, i: In) -> ApiResult<Response> {
    let mut c = i.caller();
    let qs = parse_qs(i.req.uri().query().unwrap_or(""))?;
    let action = qs.get("action");
    let route = action
        .and_then(|a| a.get("route"))
        .and_then(|v| v.as_str())
        .ok_or_else(|| Error::bad_field("action[route]", "is required"))?;
    let method = action
        .and_then(|a| a.get("method"))
        .and_then(|v| v.as_str())
        .unwrap_or("GET")
        .to_ascii_uppercase();
    let path = route.split('?').next().unwrap_or(route);
    decide(&auth, &mut c, &method, path).await?;
    Ok(ok_true(StatusCode::OK))
}

async fn init_anonymous(auth: Arc<Auth>, i: In) -> ApiResult<Response> {
    let t = auth.anonymous(&i.ctx()).await?;
    Ok(token_response(&auth, &i.headers(), &t, StatusCode::CREATED))
}

async fn refresh(auth: Arc<Auth>, i: In) -> ApiResult<Response> {
    let h = i.headers();
    let b: bodies::Refresh = i.body().await?;
    let token = match b.refresh {
        Some(t) => t,
        None => cookie_value(&h, REFRESH_COOKIE).ok_or_else(|| {
            Error::Unauthorized("no refresh token: send {\"refresh\": …} or the cookie".into())
        })?,
    };
    match auth.refresh(&token).await {
        Ok(t) => Ok(token_response(&auth, &h, &t, StatusCode::CREATED)),
        Err(e) => Ok(cleared(&auth, &h, error_response(&e))),
    }
}

async fn logout(auth: Arc<Auth>, i: In) -> ApiResult<Response> {
    let c = i.caller();
    let h = i.headers();
    // A body that cannot be read still signs out (the cookie's session ends).
    let b: bodies::Refresh = i.body().await.unwrap_or_default();
    if let Some(sid) = c.session {
        auth.revoke(sid).await?;
    }
    let token = b.refresh.or_else(|| cookie_value(&h, REFRESH_COOKIE));
    if let Some(sid) = token.as_deref().and_then(crate::tokens::refresh_session)
        && Some(sid) != c.session
    {
        // Only the holder of the token may end its session: the rotation check proves it.
        if let Ok(t) = auth.refresh(token.as_deref().unwrap_or_default()).await {
            auth.revoke(t.session).await?;
        }
    }
    Ok(cleared(&auth, &h, ok_true(StatusCode::OK)))
}

// ---- sign in with an OpenID Connect provider ----------------------------------------------

/// The query of a browser's request, as a map (the last value of a repeated key).
fn query_map(i: &In) -> HashMap<String, String> {
    form_urlencoded::parse(i.req.uri().query().unwrap_or("").as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// `path` when it is a path of this site; else `fallback`. A browser drops tabs and newlines
/// from an address and reads a backslash as `/`, so `/<tab>/evil.example` would leave the site:
/// no control character, no backslash, and no `//` at the start.
fn site_path(path: Option<&String>, fallback: String) -> String {
    match path {
        Some(p) if is_site_path(p) => p.clone(),
        _ => fallback,
    }
}

fn is_site_path(p: &str) -> bool {
    p.len() <= 2000
        && p.starts_with('/')
        && !p.starts_with("//")
        && !p.chars().any(|c| c.is_control() || c == '\\')
}

/// A language of the site (`ru`, `en`) from `lang`, else the request's.
fn language_of(lang: Option<&String>, ctx: &Ctx) -> String {
    match lang.map(String::as_str) {
        Some(l) if stoa_kernel::model::LANGUAGES.contains(&l) => l.to_owned(),
        _ if stoa_kernel::model::LANGUAGES.contains(&ctx.language.as_str()) => ctx.language.clone(),
        _ => "en".to_owned(),
    }
}

fn see_other(location: &str) -> Response {
    let mut res = Response::new(axum::body::Body::empty());
    *res.status_mut() = StatusCode::FOUND;
    if let Ok(v) = HeaderValue::from_str(location) {
        res.headers_mut().insert(header::LOCATION, v);
    }
    res.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res
}

/// Sets (or, with `max_age` 0, clears) the cookie of an OIDC flow.
fn flow_cookie(res: &mut Response, value: &str, max_age: i64, secure: bool) {
    let c = Cookie::build((crate::oidc_login::FLOW_COOKIE, value.to_owned()))
        .http_only(true)
        // The provider sends the browser back with a top-level GET: Lax sends it then.
        .same_site(SameSite::Lax)
        .path("/api/rbac/subjects/authentication/oidc")
        .secure(secure)
        .max_age(cookie::time::Duration::seconds(max_age))
        .build();
    if let Ok(v) = HeaderValue::from_str(&c.to_string()) {
        res.headers_mut().append(header::SET_COOKIE, v);
    }
}

/// The sign-in screen in `lang`, saying why (`oidcError`), then on to `redirect`.
fn oidc_refused(auth: &Auth, h: &HeaderMap, lang: &str, redirect: &str, why: &str) -> Response {
    let q: String = form_urlencoded::Serializer::new(String::new())
        .append_pair("oidcError", why)
        .append_pair("redirect", redirect)
        .finish();
    let mut res = see_other(&format!(
        "/{lang}/rbac/subject/authentication/select-method?{q}"
    ));
    flow_cookie(&mut res, "", 0, secure(auth, h));
    res
}

/// `GET …/oidc/start?redirect=/ru/…&lang=ru[&link=1]`: to the provider's sign-in page, with the
/// flow's secrets in a cookie. `link=1` (signed in, recently): link the provider to this account.
async fn oidc_start(auth: Arc<Auth>, i: In) -> ApiResult<Response> {
    let Some(oidc) = auth.oidc.clone() else {
        return Err(Error::not_found("this site offers no sign-in with a provider").into());
    };
    let (h, ctx, q) = (i.headers(), i.ctx(), query_map(&i));
    oidc.rate.check(&ctx.ip).await?;
    let lang = language_of(q.get("lang"), &ctx);
    let redirect = site_path(q.get("redirect"), format!("/{lang}/"));
    let link = if q.get("link").map(String::as_str) == Some("1") {
        // Linking changes the account: only from this site's own pages (a browser says where a
        // navigation came from; a page elsewhere cannot link a provider to the visitor's account).
        let from = h.get("sec-fetch-site").and_then(|v| v.to_str().ok());
        if from.is_some_and(|f| f != "same-origin" && f != "none") {
            return Err(Error::Forbidden(
                "link a provider from your account page on this site".into(),
            )
            .into());
        }
        let c = i.caller();
        let subject = c.subject.ok_or_else(|| {
            Error::Unauthorized("sign in first to link a provider to your account".into())
        })?;
        // Only a person in their own session links a provider (never a key or the secret key).
        if c.session.is_none() {
            return Err(Error::Forbidden(
                "link a provider while signed in as yourself, from your account page".into(),
            )
            .into());
        }
        auth.require_recent_sign_in(c.session).await?;
        auth.require_confirmed_email(subject).await?;
        Some(subject)
    } else {
        None
    };
    let state = auth.nonces.issue().await?;
    let (url, flow) = match oidc
        .begin(state, redirect.clone(), lang.clone(), link)
        .await
    {
        Ok(x) => x,
        Err(e) => {
            tracing::warn!(error = %e, "an OIDC sign-in could not start");
            return Ok(oidc_refused(&auth, &h, &lang, &redirect, "provider"));
        }
    };
    let mut res = see_other(&url);
    let secs = crate::siwe_login::NONCE_TTL.as_secs() as i64;
    flow_cookie(&mut res, &oidc.seal(&flow)?, secs, secure(&auth, &h));
    Ok(res)
}

/// `GET …/oidc/callback?code=…&state=…`: where the provider sends the browser back. Signs in
/// (cookies set) and goes on to the flow's page; or says on the sign-in screen why not.
async fn oidc_callback(auth: Arc<Auth>, i: In) -> ApiResult<Response> {
    use crate::oidc_login::Refusal;
    let Some(oidc) = auth.oidc.clone() else {
        return Err(Error::not_found("this site offers no sign-in with a provider").into());
    };
    let (h, mut ctx, q) = (i.headers(), i.ctx(), query_map(&i));
    oidc.rate.check(&ctx.ip).await?;
    let fallback = language_of(None, &ctx);
    let Some(flow) = cookie_value(&h, crate::oidc_login::FLOW_COOKIE).and_then(|v| oidc.open(&v))
    else {
        return Ok(oidc_refused(
            &auth,
            &h,
            &fallback,
            &format!("/{fallback}/"),
            Refusal::State.code(),
        ));
    };
    let refuse = |why: &str| oidc_refused(&auth, &h, &flow.lang, &flow.redirect, why);
    let same = q.get("state").is_some_and(|s| {
        bool::from(subtle::ConstantTimeEq::ct_eq(
            s.as_bytes(),
            flow.state.as_bytes(),
        ))
    });
    // The state is spent whatever comes next: a callback URL works once.
    if !same || !auth.nonces.spend(&flow.state).await? {
        return Ok(refuse(Refusal::State.code()));
    }
    if let Some(e) = q.get("error") {
        let why = if e == "access_denied" {
            Refusal::Cancelled
        } else {
            Refusal::Provider
        };
        return Ok(refuse(why.code()));
    }
    let Some(code) = q.get("code") else {
        return Ok(refuse(Refusal::Provider.code()));
    };
    let claims = match oidc.finish(code, &flow).await {
        Ok(c) => c,
        Err(r) => return Ok(refuse(r.code())),
    };
    ctx.guest = carried(&auth, i.caller().subject, &h).await;
    let signed = auth
        .oidc_sign_in(&oidc.cfg.issuer, &oidc.cfg.name, &claims, flow.link, &ctx)
        .await;
    let mut res = match signed {
        Ok(crate::service::OidcOutcome::SignedIn(SignIn::Done(t))) => {
            let mut res = see_other(&flow.redirect);
            session_cookies(&auth, &h, &t, &mut res);
            res
        }
        Ok(crate::service::OidcOutcome::SignedIn(SignIn::SecondFactor { challenge })) => {
            let q: String = form_urlencoded::Serializer::new(String::new())
                .append_pair("challenge", &challenge)
                .append_pair("redirect", &flow.redirect)
                .finish();
            see_other(&format!(
                "/{}/rbac/subject/authentication/select-method?{q}",
                flow.lang
            ))
        }
        Ok(crate::service::OidcOutcome::Linked) => see_other(&flow.redirect),
        Err(Error::Conflict { fields, .. }) if fields.contains_key("email") => {
            return Ok(refuse("unconfirmed"));
        }
        Err(Error::Conflict { fields, .. }) if fields.contains_key("provider") => {
            return Ok(refuse("elsewhere"));
        }
        Err(Error::TooManyRequests { .. }) => return Ok(refuse("busy")),
        // Two callbacks racing to make the same identity: the first signed in; the second is
        // told to start again (a browser navigation gets the sign-in screen, not a JSON page).
        Err(Error::Conflict { .. }) => return Ok(refuse(Refusal::State.code())),
        Err(Error::Unavailable(_)) => return Ok(refuse(Refusal::Provider.code())),
        Err(e) => return Err(e.into()),
    };
    flow_cookie(&mut res, "", 0, secure(&auth, &h));
    Ok(res)
}

/// Tokens (and cookies) for a finished sign-in; the challenge of its second step otherwise.
fn sign_in_response(auth: &Auth, headers: &HeaderMap, t: &SignIn) -> Response {
    match t {
        SignIn::Done(t) => token_response(auth, headers, t, StatusCode::CREATED),
        SignIn::SecondFactor { challenge } => data(
            StatusCode::OK,
            json!({"secondFactor": "totp", "challenge": challenge}),
        ),
    }
}

/// A credential request's headers, context and typed body: the client IP's rate is checked
/// first, so a client over its limit costs no body read.
async fn credential<T: DeserializeOwned>(auth: &Auth, i: In) -> Result<(HeaderMap, Ctx, T)> {
    let (h, mut c) = (i.headers(), i.ctx());
    auth.limits.ip(&c.ip).await?;
    c.guest = carried(auth, i.caller().subject, &h).await;
    // JSON only: a form or text body is what a page on another site can post without asking.
    if stoa_api::body::media_type(&h) != "application/json" {
        return Err(Error::UnsupportedMediaType(
            "send the credentials as JSON (Content-Type: application/json)".into(),
        ));
    }
    Ok((h, c, i.body().await?))
}

async fn login(auth: Arc<Auth>, i: In) -> ApiResult<Response> {
    let (h, c, b): (_, _, bodies::Credentials) = credential(&auth, i).await?;
    let t = auth.login(&b.login, &b.password, &c).await?;
    Ok(sign_in_response(&auth, &h, &t))
}

async fn setup_state(auth: Arc<Auth>, _i: In) -> ApiResult<Response> {
    let needed = auth.setup_code().await?.is_some();
    Ok(data(StatusCode::OK, json!({"needed": needed})))
}

async fn first_admin(auth: Arc<Auth>, i: In) -> ApiResult<Response> {
    let (h, c, b): (_, _, bodies::FirstAdmin) = credential(&auth, i).await?;
    let t = auth.first_admin(&b.code, &b.login, &b.password, &c).await?;
    Ok(sign_in_response(&auth, &h, &t))
}

async fn login_second_factor(auth: Arc<Auth>, i: In) -> ApiResult<Response> {
    let (h, c, b): (_, _, bodies::SecondFactor) = credential(&auth, i).await?;
    let t = auth
        .second_factor_sign_in(&b.challenge, &b.code, &c)
        .await?;
    Ok(token_response(&auth, &h, &t, StatusCode::CREATED))
}

async fn register(auth: Arc<Auth>, i: In) -> ApiResult<Response> {
    let (h, c, b): (_, _, bodies::Registration) = credential(&auth, i).await?;
    let roles = roles_from(&b.roles)?;
    let t = auth.register(&b.login, &b.password, &roles, &c).await?;
    Ok(token_response(&auth, &h, &t, StatusCode::CREATED))
}

async fn forgot(auth: Arc<Auth>, i: In) -> ApiResult<Response> {
    let (_, c, b): (_, _, bodies::ForgotPassword) = credential(&auth, i).await?;
    auth.forgot_password(&b.email, &c).await?;
    Ok(ok_true(StatusCode::CREATED))
}

async fn reset(auth: Arc<Auth>, i: In) -> ApiResult<Response> {
    let (_, _, b): (_, _, bodies::ResetPassword) = credential(&auth, i).await?;
    let outcome = auth
        .reset_password(&b.code, &b.password, &b.password_confirmation)
        .await?;
    Ok(data(StatusCode::CREATED, outcome))
}

async fn nonce(auth: Arc<Auth>, i: In) -> ApiResult<Response> {
    Ok(data(
        StatusCode::CREATED,
        auth.wallet_nonce(&i.ctx()).await?,
    ))
}

async fn wallet(auth: Arc<Auth>, i: In) -> ApiResult<Response> {
    let (h, c, b): (_, _, bodies::WalletSignIn) = credential(&auth, i).await?;
    let t = auth
        .wallet_login(&b.message, &b.signature, &b.address, &c)
        .await?;
    Ok(sign_in_response(&auth, &h, &t))
}

async fn totp_start(auth: Arc<Auth>, i: In) -> ApiResult<Response> {
    Ok(data(
        StatusCode::CREATED,
        auth.totp_start(i.owner()?).await?,
    ))
}

async fn totp_confirm(auth: Arc<Auth>, i: In) -> ApiResult<Response> {
    let (c, subject, h) = (i.caller(), i.owner()?, i.headers());
    let b: bodies::TotpConfirm = i.body().await?;
    // Only the account's own session is upgraded (an admin enrolling someone else gets codes).
    let session = c.session.filter(|_| c.subject == Some(subject));
    // The owner proves it is them with the password (when the account has one): a stolen
    // session alone must not put a factor on the account and sign its owner out everywhere.
    if c.subject == Some(subject) {
        auth.confirm_password(subject, b.password.as_deref())
            .await?;
    }
    let (codes, jwt) = auth.totp_confirm(subject, session, &b.code).await?;
    let mut res = data(StatusCode::OK, json!({"recoveryCodes": codes, "jwt": jwt}));
    if let Some(jwt) = jwt {
        set_cookie(
            &mut res,
            JWT_COOKIE,
            &jwt,
            auth.cfg.access_ttl,
            secure(&auth, &h),
        );
    }
    Ok(res)
}

async fn totp_disable(auth: Arc<Auth>, i: In) -> ApiResult<Response> {
    let (c, subject) = (i.caller(), i.owner()?);
    let b: bodies::TotpDisable = i.body().await?;
    let for_other = c.admin && c.subject != Some(subject);
    auth.totp_disable(subject, b.code.as_deref(), for_other)
        .await?;
    Ok(ok_true(StatusCode::OK))
}

async fn list_sessions(auth: Arc<Auth>, i: In) -> ApiResult<Response> {
    let views = auth.sessions(i.owner()?, i.caller().session).await?;
    Ok(data(StatusCode::OK, views))
}

async fn end_session(auth: Arc<Auth>, i: In) -> ApiResult<Response> {
    auth.revoke_session(i.owner()?, i.id("sessionId")?).await?;
    Ok(ok_true(StatusCode::OK))
}

async fn list_identities(auth: Arc<Auth>, i: In) -> ApiResult<Response> {
    Ok(data(StatusCode::OK, auth.identities(i.owner()?).await?))
}

/// The caller's session when it changes its own account (`None` for an admin acting for another).
fn own_session(c: &Caller, subject: Uuid) -> Option<Uuid> {
    c.session.filter(|_| c.subject == Some(subject))
}

async fn add_identity(auth: Arc<Auth>, i: In) -> ApiResult<Response> {
    let (subject, x) = (i.owner()?, i.ctx());
    let own = own_session(&i.caller(), subject);
    let b: bodies::NewIdentity = i.body().await.map_err(|e| match e {
        // serde reads the tag before any field: an unknown one is the provider's fault.
        Error::Invalid { message, fields } if fields.is_empty() => Error::invalid_field(
            "provider",
            format!("must be email_and_password, ethereum_virtual_machine or telegram ({message})"),
        ),
        e => e,
    })?;
    let row = auth.add_identity(subject, &b, &x, own).await?;
    Ok(data(StatusCode::CREATED, row))
}

async fn patch_identity(auth: Arc<Auth>, i: In) -> ApiResult<Response> {
    let (c, subject, identity, x) = (i.caller(), i.owner()?, i.id("identityId")?, i.ctx());
    let b: bodies::IdentityChange = i.body().await?;
    let row = auth
        .update_identity(subject, identity, c.session, &b, &x)
        .await?;
    Ok(data(StatusCode::OK, row))
}

async fn send_verification(auth: Arc<Auth>, i: In) -> ApiResult<Response> {
    let out = auth
        .request_verification(i.owner()?, i.id("identityId")?, &i.ctx())
        .await?;
    Ok(data(StatusCode::CREATED, out))
}

async fn verify_identity(auth: Arc<Auth>, i: In) -> ApiResult<Response> {
    let (subject, identity, x) = (i.owner()?, i.id("identityId")?, i.ctx());
    let b: bodies::Code = i.body().await?;
    let row = auth.verify_identity(subject, identity, &b.code, &x).await?;
    Ok(data(StatusCode::OK, row))
}

async fn delete_identity(auth: Arc<Auth>, i: In) -> ApiResult<Response> {
    let subject = i.owner()?;
    let own = own_session(&i.caller(), subject);
    let row = auth
        .delete_identity(subject, i.id("identityId")?, own, &i.ctx())
        .await?;
    Ok(data(StatusCode::OK, row))
}

async fn admin_email_identity(auth: Arc<Auth>, i: In) -> ApiResult<Response> {
    if !i.caller().admin {
        return Err(Error::Forbidden("only an admin may create identities here".into()).into());
    }
    let b: bodies::AdminEmailIdentity = i.body().await?;
    Ok(data(
        StatusCode::CREATED,
        auth.admin_email_identity(&b).await?,
    ))
}

async fn change_password(auth: Arc<Auth>, i: In) -> ApiResult<Response> {
    let c = i.caller();
    let identity = i.id("id")?;
    let subject = auth.identity_subject(identity).await?;
    if !c.owns(subject) {
        return Err(Error::not_found(format!("rbac.identity {identity} not found")).into());
    }
    let x = i.ctx();
    let b: bodies::PasswordChange = i.body().await?;
    let change = bodies::IdentityChange {
        password: b.password,
        new_password: Some(b.new_password),
        email: None,
    };
    let row = auth
        .update_identity(subject, identity, own_session(&c, subject), &change, &x)
        .await?;
    Ok(data(StatusCode::OK, row))
}

async fn notify(auth: Arc<Auth>, i: In) -> ApiResult<Response> {
    let subject = i.id("id")?;
    let b: bodies::Notify = i.body().await?;
    Ok(data(StatusCode::OK, auth.notify(subject, &b).await?))
}

async fn api_key_token(auth: Arc<Auth>, i: In) -> ApiResult<Response> {
    let (token, shown) = auth.issue_api_key(i.id("id")?).await?;
    Ok(data(
        StatusCode::CREATED,
        json!({"token": token, "tokenPrefix": shown}),
    ))
}

// ---- routes --------------------------------------------------------------------------------

type Fut = Pin<Box<dyn Future<Output = ApiResult<Response>> + Send>>;

/// One account route: its access, method and path, what the OpenAPI document says of it, and
/// its handler.
struct Route {
    access: Access,
    method: &'static str,
    path: &'static str,
    id: &'static str,
    summary: &'static str,
    body: Option<fn() -> Value>,
    status: u16,
    result: fn() -> Value,
    errs: &'static [u16],
    handler: fn(Arc<Auth>, In) -> Fut,
}

/// An async handler of the route table as a plain function pointer.
macro_rules! h {
    ($f:ident) => {{
        fn call(a: Arc<Auth>, i: In) -> Fut {
            Box::pin($f(a, i))
        }
        call
    }};
}

/// A path under the authentication prefix.
macro_rules! auth {
    ($p:literal) => {
        concat!("/api/rbac/subjects/authentication", $p)
    };
}

fn r(n: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{n}")})
}

fn identity() -> Value {
    r("RbacIdentity")
}

fn identities() -> Value {
    json!({"type": "array", "items": r("RbacIdentity")})
}

fn tokens() -> Value {
    answer_schema_of::<Tokens>()
}

fn setup_state_schema() -> Value {
    json!({"title": "RbacSetupState", "type": "object", "properties": {
        "needed": {"type": "boolean", "description": "No account is an admin yet: the first is made with the setup code the server printed in its log"}
    }, "required": ["needed"]})
}

/// The answer of a browser redirect: none (see `Location`).
fn empty() -> Value {
    json!({"type": "object", "description": "No body: the browser follows Location"})
}

fn ok_schema() -> Value {
    json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]})
}

/// The signed-in subject with its roles and identities, or null (`me`, `GET init`).
fn me_schema() -> Value {
    json!({"anyOf": [
        {"title": "RbacMe", "allOf": [r("RbacSubject"), {
            "type": "object",
            "properties": {
                "roles": {"type": "array", "items": r("RbacRole")},
                "identities": {"type": "array", "items": r("RbacIdentity")},
                "admin": {"type": "boolean", "description": "Holds the root permission (false until the second factor when STOA_ADMIN_2FA=required)"},
                "secondFactor": {"title": "RbacSecondFactorState", "type": "object", "properties": {
                    "enabled": {"type": "boolean", "description": "The account signs in with a TOTP code"},
                    "required": {"type": "boolean", "description": "This account must (an admin under STOA_ADMIN_2FA=required)"},
                    "satisfied": {"type": "boolean", "description": "False: enrol before anything else"}
                }, "required": ["enabled", "required", "satisfied"]}
            },
            "required": ["roles", "identities", "admin", "secondFactor"]
        }]},
        {"type": "null"}
    ]})
}

fn reset_outcome() -> Value {
    json!({"title": "RbacResetOutcome", "type": "object", "properties": {
        "ok": {"type": "boolean"},
        "removedIdentities": {"type": "array", "description": "Sign-in methods removed because they were added while the address was unconfirmed", "items": {"type": "object", "properties": {
            "provider": {"type": ["string", "null"]}, "email": {"type": ["string", "null"]}, "account": {"type": ["string", "null"]}
        }, "required": ["provider", "email", "account"]}},
        "secondFactorRemoved": {"type": "boolean"}
    }, "required": ["ok", "removedIdentities", "secondFactorRemoved"]})
}

fn wallet_nonce() -> Value {
    json!({"type": "object", "description": "What the wallet signs (EIP-4361)", "properties": {
        "nonce": {"type": "string"}, "domain": {"type": "string"}, "uri": {"type": "string"},
        "chainIds": {"type": "array", "items": {"type": "integer"}}, "version": {"type": "string"},
        "issuedAt": {"type": "string", "format": "date-time"}, "expiresAt": {"type": "string", "format": "date-time"}
    }, "required": ["nonce", "domain", "uri", "chainIds", "version", "issuedAt", "expiresAt"]})
}

fn totp_enrolment() -> Value {
    json!({"title": "RbacTotpEnrolment", "type": "object", "properties": {
        "secret": {"type": "string", "description": "Base32, for typing into an authenticator app"},
        "otpauthUrl": {"type": "string"},
        "digits": {"type": "integer"},
        "period": {"type": "integer"},
        "algorithm": {"type": "string"}
    }, "required": ["secret", "otpauthUrl", "digits", "period", "algorithm"]})
}

fn recovery_codes() -> Value {
    json!({"title": "RbacRecoveryCodes", "type": "object", "properties": {
        "recoveryCodes": {"type": "array", "items": {"type": "string"}},
        "jwt": {"type": ["string", "null"], "description": "A new access token for this session, now with its second factor (also set as the cookie)"}
    }, "required": ["recoveryCodes", "jwt"]})
}

fn sessions() -> Value {
    let mut view = answer_schema_of::<crate::rows::SessionView>();
    // A title names the component the document lifts it into (the web reads `RbacSessionView`).
    view["title"] = json!("RbacSessionView");
    json!({"type": "array", "items": view})
}

fn sent_to() -> Value {
    json!({"type": "object", "properties": {"ok": {"type": "boolean"}, "sentTo": {"type": "string", "format": "email"}}, "required": ["ok", "sentTo"]})
}

fn key_token() -> Value {
    json!({"title": "RbacApiKeyToken", "type": "object", "properties": {
        "token": {"type": "string", "description": "The key, shown this once: send it as `Authorization: Bearer <token>`"},
        "tokenPrefix": {"type": "string", "description": "Its beginning, shown in the admin from now on"}
    }, "required": ["token", "tokenPrefix"]})
}

fn queued() -> Value {
    json!({"type": "object", "properties": {"queued": {"type": "integer"}, "notifications": {"type": "array", "items": {"type": "string", "format": "uuid"}}}, "required": ["queued", "notifications"]})
}

/// Sign-ins that may answer 200 with the second step's challenge instead of 201 with tokens.
const CHALLENGED: [&str; 2] = ["authLogin", "authWallet"];

/// The account routes: one line of access, method, path and document per route.
#[rustfmt::skip]
fn table() -> Vec<Route> {
    use Access::{Admin, Owner, Public};
    let route = |access, method, path, id, summary, body: Option<fn() -> Value>, status, result: fn() -> Value, errs, handler| Route { access, method, path, id, summary, body, status, result, errs, handler };
    vec![
        route(Public, "GET", auth!("/init"), "authInit", "The current subject, or null (creates nothing)", None, 200, me_schema, &[401], h!(me)),
        route(Public, "POST", auth!("/init"), "authInitAnonymous", "Starts an anonymous session (a subject with no identity)", None, 201, tokens, &[429], h!(init_anonymous)),
        route(Public, "GET", auth!("/me"), "authMe", "The signed-in subject with roles and identities, or null", None, 200, me_schema, &[401], h!(me)),
        route(Public, "GET", auth!("/is-authorized"), "authIsAuthorized", "May the caller call action[method] action[route]?", None, 200, ok_schema, &[400, 401, 403], h!(is_authorized)),
        route(Public, "POST", auth!("/refresh"), "authRefresh", "Rotates the refresh token (body or cookie) and issues a new pair", Some(schema_of::<bodies::Refresh>), 201, tokens, &[400, 401], h!(refresh)),
        route(Public, "POST", auth!("/logout"), "authLogout", "Ends the session and clears the cookies", None, 200, ok_schema, &[403], h!(logout)),
        route(Public, "POST", auth!("/email-and-password/authentication"), "authLogin", "Signs in with email and password (201 with tokens, or 200 with the second step's challenge)", Some(schema_of::<bodies::Credentials>), 201, tokens, &[400, 401, 422, 429], h!(login)),
        route(Public, "POST", auth!("/email-and-password/registration"), "authRegister", "Creates an account with the roles open to registration", Some(schema_of::<bodies::Registration>), 201, tokens, &[400, 403, 409, 422, 429], h!(register)),
        route(Public, "POST", auth!("/email-and-password/forgot-password"), "authForgotPassword", "Mails a reset link when the account exists (same answer either way)", Some(schema_of::<bodies::ForgotPassword>), 201, ok_schema, &[400, 422, 429], h!(forgot)),
        route(Public, "POST", auth!("/email-and-password/reset-password"), "authResetPassword", "Sets a new password with a reset code; every session ends", Some(schema_of::<bodies::ResetPassword>), 201, reset_outcome, &[400, 422, 429], h!(reset)),
        route(Public, "POST", auth!("/ethereum-virtual-machine/nonce"), "authWalletNonce", "A single-use nonce (5 min) and the fields a Sign-In with Ethereum message must carry", None, 201, wallet_nonce, &[429], h!(nonce)),
        route(Public, "POST", auth!("/ethereum-virtual-machine"), "authWallet", "Signs in with an EIP-4361 message signed by the wallet (201 with tokens, or 200 with the second step's challenge)", Some(schema_of::<bodies::WalletSignIn>), 201, tokens, &[400, 401, 409, 429], h!(wallet)),
        route(Public, "GET", auth!("/oidc/start"), "authOidcStart", "Starts sign-in with the site's OpenID Connect provider (a browser navigation): 302 to the provider's page; `redirect` is where to go after, `link=1` links it to the signed-in account", None, 302, empty, &[401, 403, 404, 409, 429], h!(oidc_start)),
        route(Public, "GET", auth!("/oidc/callback"), "authOidcCallback", "Where the provider sends the browser back (code, state): 302 to the page the sign-in started from, signed in; or to the sign-in screen with `oidcError` (state, token, provider, cancelled, unconfirmed, elsewhere, busy)", None, 302, empty, &[404, 429], h!(oidc_callback)),
        route(Public, "POST", auth!("/second-factor"), "authLoginSecondFactor", "The second step of a sign-in: the challenge the first step returned and a TOTP code or a recovery code", Some(schema_of::<bodies::SecondFactor>), 201, tokens, &[401, 422, 429], h!(login_second_factor)),
        route(Public, "GET", auth!("/setup"), "rbacSetupState", "Whether the site still waits for its first admin", None, 200, setup_state_schema, &[], h!(setup_state)),
        route(Public, "POST", auth!("/setup"), "rbacSetup", "Creates the first admin with the one-time setup code `stoa serve` printed in its log, and signs in (only while no account is an admin)", Some(schema_of::<bodies::FirstAdmin>), 201, tokens, &[400, 409, 415, 422, 429], h!(first_admin)),
        route(Owner, "POST", "/api/rbac/subjects/{id}/totp", "subjectTotpStart", "Starts two-factor enrolment: a new secret (and otpauth URL for a QR code), active once confirmed", None, 201, totp_enrolment, &[401, 403, 409], h!(totp_start)),
        route(Owner, "POST", "/api/rbac/subjects/{id}/totp/confirm", "subjectTotpConfirm", "Confirms enrolment with a code: two-factor sign-in is on, other sessions end, and the recovery codes are returned (shown once)", Some(schema_of::<bodies::TotpConfirm>), 200, recovery_codes, &[401, 403, 409, 422], h!(totp_confirm)),
        route(Owner, "DELETE", "/api/rbac/subjects/{id}/totp", "subjectTotpDisable", "Turns two-factor sign-in off ({code}: a TOTP or recovery code; an admin acting for another account sends none)", Some(schema_of::<bodies::TotpDisable>), 200, ok_schema, &[401, 403, 409, 422], h!(totp_disable)),
        route(Owner, "GET", "/api/rbac/subjects/{id}/sessions", "subjectSessions", "The account's live sessions, most recently used first", None, 200, sessions, &[401, 403], h!(list_sessions)),
        route(Owner, "DELETE", "/api/rbac/subjects/{id}/sessions/{sessionId}", "subjectEndSession", "Ends one of the account's sessions at once", None, 200, ok_schema, &[401, 403, 404], h!(end_session)),
        route(Owner, "GET", "/api/rbac/subjects/{id}/identities", "subjectIdentities", "The subject's identities", None, 200, identities, &[400, 401, 403], h!(list_identities)),
        route(Owner, "POST", "/api/rbac/subjects/{id}/identities", "subjectAddIdentity", "Adds an email identity, links a wallet (a signed EIP-4361 message) or Telegram (the Login Widget's signed fields)", Some(schema_of::<bodies::NewIdentity>), 201, identity, &[400, 401, 403, 409, 422, 429], h!(add_identity)),
        route(Owner, "PATCH", "/api/rbac/subjects/{id}/identities/{identityId}", "subjectUpdateIdentity", "Changes the password ({password, newPassword}), or asks to change the email ({email, password}): the new address gets a code and becomes the identity's when the code is confirmed (pendingEmail until then); the current address is told", Some(schema_of::<bodies::IdentityChange>), 200, identity, &[400, 401, 403, 404, 409, 422], h!(patch_identity)),
        route(Owner, "DELETE", "/api/rbac/subjects/{id}/identities/{identityId}", "subjectDeleteIdentity", "Deletes an identity (never the last one)", None, 200, identity, &[400, 401, 403, 404, 409], h!(delete_identity)),
        route(Owner, "POST", "/api/rbac/subjects/{id}/identities/{identityId}/verification", "subjectSendVerification", "Mails a new confirmation code to the identity's address, or to the address waiting to replace it", None, 201, sent_to, &[400, 401, 403, 404, 409, 429], h!(send_verification)),
        route(Owner, "POST", "/api/rbac/subjects/{id}/identities/{identityId}/verify", "subjectVerifyIdentity", "Confirms the identity's address with the mailed code, or moves it to the address waiting to replace it", Some(schema_of::<bodies::Code>), 200, identity, &[400, 401, 403, 404, 409, 422, 429], h!(verify_identity)),
        route(Admin, "POST", "/api/rbac/identities/email-and-password", "identityCreateEmailAndPassword", "Admin: creates an email-and-password identity (for subjectId, or a new subject)", Some(schema_of::<bodies::AdminEmailIdentity>), 201, identity, &[400, 401, 403, 409, 422], h!(admin_email_identity)),
        route(Owner, "PATCH", "/api/rbac/identities/{id}/change-password", "identityChangePassword", "Changes the password of one of the caller's identities (current password required)", Some(schema_of::<bodies::PasswordChange>), 200, identity, &[400, 401, 403, 404, 422], h!(change_password)),
        route(Admin, "POST", "/api/rbac/subjects/{id}/notify", "subjectNotify", "Queues a notification to the subject's addresses: one per email identity, or per linked Telegram", Some(schema_of::<bodies::Notify>), 200, queued, &[400, 401, 403, 404, 422], h!(notify)),
        route(Admin, "POST", "/api/rbac/api-keys/{id}/token", "rbacApiKeyToken", "Admin: makes a new token for the API key, shown this once (the key's previous token stops working); only its hash is kept", None, 201, key_token, &[401, 403, 404], h!(api_key_token)),
    ]
}

/// The `{name}` parameters of a path template.
fn params_of(path: &str) -> Vec<&str> {
    path.split('/')
        .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
        .collect()
}

/// The OpenAPI operation of `r`.
fn document(r: &Route) -> Value {
    let mut op = custom(
        "rbac",
        r.id,
        r.summary,
        path_params(&params_of(r.path)),
        r.body.map(|b| b()),
        r.status,
        (r.result)(),
        r.errs,
    );
    if r.id == "authIsAuthorized" {
        op["parameters"] = json!([
            {"name": "action[route]", "in": "query", "required": true, "schema": {"type": "string"}},
            {"name": "action[method]", "in": "query", "required": false, "schema": {"type": "string", "enum": ["GET", "POST", "PATCH", "DELETE"]}},
            {"name": "action[type]", "in": "query", "required": false, "schema": {"type": "string", "enum": ["HTTP"]}}
        ]);
    }
    // Browser navigations that answer with a redirect, not API: routes, but not in the
    // document (as the reference pages are). The callback takes whatever parameters the
    // provider adds (scope, authuser, prompt, iss…), which a documented operation would refuse.
    if matches!(r.id, "authOidcStart" | "authOidcCallback") {
        op["x-hidden"] = json!(true);
    }
    if CHALLENGED.contains(&r.id) {
        let challenge = json!({"title": "RbacSecondFactorChallenge", "type": "object", "properties": {
            "secondFactor": {"type": "string", "enum": ["totp"]},
            "challenge": {"type": "string", "description": "Send it with a code to authLoginSecondFactor within 5 minutes"}
        }, "required": ["secondFactor", "challenge"]});
        op["responses"]["200"] = stoa_api::openapi::ok("A second factor is needed", challenge);
    }
    op
}

/// The axum route of `r`, reading its path parameters (if any) for the handler.
fn handler(auth: Arc<Auth>, r: &Route) -> MethodRouter<AppState> {
    let f = r.handler;
    let filter = stoa_api::call::method_filter(r.method);
    if params_of(r.path).is_empty() {
        on(filter, move |State(s): State<AppState>, req: Request| {
            f(
                auth.clone(),
                In {
                    s,
                    params: HashMap::new(),
                    req,
                },
            )
        })
    } else {
        on(
            filter,
            move |State(s): State<AppState>,
                  Path(params): Path<HashMap<String, String>>,
                  req: Request| f(auth.clone(), In { s, params, req }),
        )
    }
}

/// The account endpoints and subject-scoped identity routes.
pub fn routes(auth: Arc<Auth>) -> RouteBook<AppState> {
    table().iter().fold(RouteBook::new(), |b, r| {
        b.add(
            r.access,
            r.method,
            r.path,
            handler(auth.clone(), r),
            document(r),
        )
    })
}

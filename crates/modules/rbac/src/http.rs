//! The account endpoints, the subject-scoped identity routes, and the one middleware that decides
//! every request: credentials → caller → permission table → ownership → CSRF.

use std::sync::Arc;

use axum::extract::{Path, RawQuery, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, patch, post};
use cookie::{Cookie, SameSite};
use serde_json::{Map, Value, json};
use stoa_api::auth::{Caller, Via};
use stoa_api::body::{schema_of, typed};
use stoa_api::crud::{data, parse_id};
use stoa_api::error::error_response;
use stoa_api::openapi::{custom, path_params};
use stoa_api::{Access, ApiResult, AppState, RouteBook};
use stoa_kernel::query::parse_qs;
use stoa_kernel::{Error, Result};
use uuid::Uuid;

use crate::bodies;
use crate::policy::Verdict;
use crate::service::{Auth, Ctx, SignIn, Tokens, str_field};

pub const JWT_COOKIE: &str = "rbac.subject.jwt";
pub const REFRESH_COOKIE: &str = "rbac.subject.refresh";
const SECRET_HEADER: &str = "x-rbac-secret-key";
const AUTH: &str = "/api/rbac/subjects/authentication";

/// Every `(name, value)` of the request's `Cookie` headers.
fn cookies(headers: &HeaderMap) -> impl Iterator<Item = (String, String)> + '_ {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| Cookie::split_parse(v.to_owned()))
        .filter_map(|c| c.ok())
        .map(|c| (c.name().to_owned(), c.value().to_owned()))
}

fn cookie_value(headers: &HeaderMap, name: &str) -> Option<String> {
    cookies(headers).find(|(n, _)| n == name).map(|(_, v)| v)
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    let v = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = v.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then_some(token.trim())
}

fn ctx(headers: &HeaderMap, ip: String) -> Ctx {
    let language = stoa_api::body::accept_language(headers, "en");
    Ctx {
        ip,
        user_agent: headers
            .get(header::USER_AGENT)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned),
        language,
    }
}

/// A credential request's headers, context and body: the client IP's rate is checked first, so a
/// client over its limit costs no body read.
async fn credential(
    auth: &Auth,
    s: &AppState,
    req: Request,
) -> Result<(HeaderMap, Ctx, Map<String, Value>)> {
    let h = req.headers().clone();
    let c = ctx(&h, stoa_api::rate::client_ip(&req));
    auth.limits.ip(&c.ip).await?;
    // JSON only: a form or text body is what a page on another site can post without asking.
    if stoa_api::body::media_type(&h) != "application/json" {
        return Err(Error::UnsupportedMediaType(
            "send the credentials as JSON (Content-Type: application/json)".into(),
        ));
    }
    let b = body(s, req).await?;
    Ok((h, c, b))
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
    let s = secure(auth, headers);
    set_cookie(&mut res, JWT_COOKIE, &t.jwt, auth.cfg.access_ttl, s);
    set_cookie(
        &mut res,
        REFRESH_COOKIE,
        &t.refresh,
        auth.cfg.refresh_ttl,
        s,
    );
    res
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

async fn me(auth: Arc<Auth>, req: Request) -> ApiResult<Response> {
    let c = Caller::of(&req);
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

async fn is_authorized(auth: Arc<Auth>, req: Request, q: Option<String>) -> ApiResult<Response> {
    let mut c = Caller::of(&req);
    let qs = parse_qs(q.as_deref().unwrap_or(""))?;
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

async fn init_get(auth: Arc<Auth>, req: Request) -> ApiResult<Response> {
    me(auth, req).await
}

async fn init_post(auth: Arc<Auth>, req: Request) -> ApiResult<Response> {
    let h = req.headers().clone();
    let t = auth
        .anonymous(&ctx(&h, stoa_api::rate::client_ip(&req)))
        .await?;
    Ok(token_response(&auth, &h, &t, StatusCode::CREATED))
}

async fn refresh(auth: Arc<Auth>, s: AppState, req: Request) -> ApiResult<Response> {
    let h = req.headers().clone();
    let b = body(&s, req).await?;
    let token = match b.get("refresh") {
        Some(Value::String(t)) => t.clone(),
        Some(_) => return Err(Error::invalid_field("refresh", "must be a string").into()),
        None => cookie_value(&h, REFRESH_COOKIE).ok_or_else(|| {
            Error::Unauthorized("no refresh token: send {\"refresh\": …} or the cookie".into())
        })?,
    };
    match auth.refresh(&token).await {
        Ok(t) => Ok(token_response(&auth, &h, &t, StatusCode::CREATED)),
        Err(e) => Ok(cleared(&auth, &h, error_response(&e))),
    }
}

async fn logout(auth: Arc<Auth>, s: AppState, req: Request) -> ApiResult<Response> {
    let c = Caller::of(&req);
    let h = req.headers().clone();
    let b = body(&s, req).await.unwrap_or_default();
    if let Some(sid) = c.session {
        auth.revoke(sid).await?;
    }
    let token = b
        .get("refresh")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| cookie_value(&h, REFRESH_COOKIE));
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

async fn login(auth: Arc<Auth>, s: AppState, req: Request) -> ApiResult<Response> {
    let (h, c, b) = credential(&auth, &s, req).await?;
    let b: bodies::Credentials = typed(b)?;
    let t = auth.login(&b.login, &b.password, &c).await?;
    Ok(sign_in_response(&auth, &h, &t))
}

async fn login_second_factor(auth: Arc<Auth>, s: AppState, req: Request) -> ApiResult<Response> {
    let (h, c, b) = credential(&auth, &s, req).await?;
    let b: bodies::SecondFactor = typed(b)?;
    let t = auth
        .second_factor_sign_in(&b.challenge, &b.code, &c)
        .await?;
    Ok(token_response(&auth, &h, &t, StatusCode::CREATED))
}

async fn totp_start(auth: Arc<Auth>, id: String, req: Request) -> ApiResult<Response> {
    let subject = owner(&Caller::of(&req), &id)?;
    Ok(data(StatusCode::CREATED, auth.totp_start(subject).await?))
}

async fn totp_confirm(
    auth: Arc<Auth>,
    s: AppState,
    id: String,
    req: Request,
) -> ApiResult<Response> {
    let c = Caller::of(&req);
    let subject = owner(&c, &id)?;
    let h = req.headers().clone();
    let b = body(&s, req).await?;
    // Only the account's own session is upgraded (an admin enrolling someone else gets codes).
    let session = c.session.filter(|_| c.subject == Some(subject));
    // The owner proves it is them with the password (when the account has one): a stolen
    // session alone must not put a factor on the account and sign its owner out everywhere.
    if c.subject == Some(subject) {
        auth.confirm_password(subject, b.get("password").and_then(Value::as_str))
            .await?;
    }
    let (codes, jwt) = auth
        .totp_confirm(subject, session, str_field(&b, "code")?)
        .await?;
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

async fn totp_disable(
    auth: Arc<Auth>,
    s: AppState,
    id: String,
    req: Request,
) -> ApiResult<Response> {
    let c = Caller::of(&req);
    let subject = owner(&c, &id)?;
    let b = body(&s, req).await?;
    let for_other = c.admin && c.subject != Some(subject);
    let code = b.get("code").and_then(Value::as_str);
    auth.totp_disable(subject, code, for_other).await?;
    Ok(ok_true(StatusCode::OK))
}

async fn list_sessions(auth: Arc<Auth>, id: String, req: Request) -> ApiResult<Response> {
    let c = Caller::of(&req);
    let subject = owner(&c, &id)?;
    Ok(data(
        StatusCode::OK,
        auth.sessions(subject, c.session).await?,
    ))
}

async fn end_session(auth: Arc<Auth>, p: (String, String), req: Request) -> ApiResult<Response> {
    let subject = owner(&Caller::of(&req), &p.0)?;
    auth.revoke_session(subject, parse_id(&p.1)?).await?;
    Ok(ok_true(StatusCode::OK))
}

async fn register(auth: Arc<Auth>, s: AppState, req: Request) -> ApiResult<Response> {
    let (h, c, b) = credential(&auth, &s, req).await?;
    let b: bodies::Registration = typed(b)?;
    let roles = roles_from(&b.roles)?;
    let t = auth.register(&b.login, &b.password, &roles, &c).await?;
    Ok(token_response(&auth, &h, &t, StatusCode::CREATED))
}

async fn forgot(auth: Arc<Auth>, s: AppState, req: Request) -> ApiResult<Response> {
    let (_, c, b) = credential(&auth, &s, req).await?;
    let b: bodies::ForgotPassword = typed(b)?;
    auth.forgot_password(&b.email, &c).await?;
    Ok(ok_true(StatusCode::CREATED))
}

async fn reset(auth: Arc<Auth>, s: AppState, req: Request) -> ApiResult<Response> {
    let (_, _, b) = credential(&auth, &s, req).await?;
    let b: bodies::ResetPassword = typed(b)?;
    let outcome = auth
        .reset_password(&b.code, &b.password, &b.password_confirmation)
        .await?;
    Ok(data(StatusCode::CREATED, outcome))
}

async fn nonce(auth: Arc<Auth>, req: Request) -> ApiResult<Response> {
    let v = auth
        .wallet_nonce(&ctx(req.headers(), stoa_api::rate::client_ip(&req)))
        .await?;
    Ok(data(StatusCode::CREATED, v))
}

async fn wallet(auth: Arc<Auth>, s: AppState, req: Request) -> ApiResult<Response> {
    let (h, c, b) = credential(&auth, &s, req).await?;
    let b: bodies::WalletSignIn = typed(b)?;
    let t = auth
        .wallet_login(&b.message, &b.signature, &b.address, &c)
        .await?;
    Ok(sign_in_response(&auth, &h, &t))
}

fn owner(c: &Caller, id: &str) -> Result<Uuid> {
    c.acting_for(parse_id(id)?)
}

async fn list_identities(auth: Arc<Auth>, id: String, req: Request) -> ApiResult<Response> {
    let subject = owner(&Caller::of(&req), &id)?;
    Ok(data(StatusCode::OK, auth.identities(subject).await?))
}

async fn add_identity(
    auth: Arc<Auth>,
    s: AppState,
    id: String,
    req: Request,
) -> ApiResult<Response> {
    let c = Caller::of(&req);
    let subject = owner(&c, &id)?;
    let own = c.session.filter(|_| c.subject == Some(subject));
    let (h, ip) = (req.headers().clone(), stoa_api::rate::client_ip(&req));
    let b = body(&s, req).await?;
    let row = auth.add_identity(subject, &b, &ctx(&h, ip), own).await?;
    Ok(data(StatusCode::CREATED, row))
}

async fn patch_identity(
    auth: Arc<Auth>,
    s: AppState,
    (id, identity): (String, String),
    req: Request,
) -> ApiResult<Response> {
    let c = Caller::of(&req);
    let subject = owner(&c, &id)?;
    let identity = parse_id(&identity)?;
    let (h, ip) = (req.headers().clone(), stoa_api::rate::client_ip(&req));
    let b = body(&s, req).await?;
    let row = auth
        .update_identity(subject, identity, c.session, &b, &ctx(&h, ip))
        .await?;
    Ok(data(StatusCode::OK, row))
}

async fn send_verification(
    auth: Arc<Auth>,
    (id, identity): (String, String),
    req: Request,
) -> ApiResult<Response> {
    let subject = owner(&Caller::of(&req), &id)?;
    let c = ctx(req.headers(), stoa_api::rate::client_ip(&req));
    let out = auth
        .request_verification(subject, parse_id(&identity)?, &c)
        .await?;
    Ok(data(StatusCode::CREATED, out))
}

async fn verify_identity(
    auth: Arc<Auth>,
    s: AppState,
    (id, identity): (String, String),
    req: Request,
) -> ApiResult<Response> {
    let subject = owner(&Caller::of(&req), &id)?;
    let (h, ip) = (req.headers().clone(), stoa_api::rate::client_ip(&req));
    let b = body(&s, req).await?;
    let row = auth
        .verify_identity(
            subject,
            parse_id(&identity)?,
            str_field(&b, "code")?,
            &ctx(&h, ip),
        )
        .await?;
    Ok(data(StatusCode::OK, row))
}

async fn delete_identity(
    auth: Arc<Auth>,
    (id, identity): (String, String),
    req: Request,
) -> ApiResult<Response> {
    let c = Caller::of(&req);
    let subject = owner(&c, &id)?;
    let own = c.session.filter(|_| c.subject == Some(subject));
    let x = ctx(req.headers(), stoa_api::rate::client_ip(&req));
    let row = auth
        .delete_identity(subject, parse_id(&identity)?, own, &x)
        .await?;
    Ok(data(StatusCode::OK, row))
}

async fn admin_email_identity(auth: Arc<Auth>, s: AppState, req: Request) -> ApiResult<Response> {
    if !Caller::of(&req).admin {
        return Err(Error::Forbidden("only an admin may create identities here".into()).into());
    }
    let b = body(&s, req).await?;
    Ok(data(
        StatusCode::CREATED,
        auth.admin_email_identity(&b).await?,
    ))
}

async fn change_password(
    auth: Arc<Auth>,
    s: AppState,
    id: String,
    req: Request,
) -> ApiResult<Response> {
    let c = Caller::of(&req);
    let identity = parse_id(&id)?;
    let subject = auth.identity_subject(identity).await?;
    if !c.owns(subject) {
        return Err(Error::not_found(format!("rbac.identity {identity} not found")).into());
    }
    let (req_headers, ip) = (req.headers().clone(), stoa_api::rate::client_ip(&req));
    let mut b = body(&s, req).await?;
    if !b.contains_key("newPassword") {
        return Err(Error::invalid_field("newPassword", "is required").into());
    }
    b.remove("email");
    let keep = if c.subject == Some(subject) {
        c.session
    } else {
        None
    };
    let c = ctx(&req_headers, ip);
    let row = auth
        .update_identity(subject, identity, keep, &b, &c)
        .await?;
    Ok(data(StatusCode::OK, row))
}

// ---- routes --------------------------------------------------------------------------------

fn obj_schema(props: &[(&str, Value)], required: &[&str]) -> Value {
    let p: Map<String, Value> = props
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect();
    json!({"type": "object", "properties": p, "required": required})
}

fn string() -> Value {
    json!({"type": "string"})
}

fn op(
    id: &str,
    summary: &str,
    params: &[&str],
    body: Option<Value>,
    status: u16,
    result: Value,
    errs: &[u16],
) -> Value {
    custom(
        "rbac",
        id,
        summary,
        path_params(params),
        body,
        status,
        result,
        errs,
    )
}

fn tokens_schema() -> Value {
    obj_schema(
        &[("jwt", string()), ("refresh", string())],
        &["jwt", "refresh"],
    )
}

/// The signed-in subject with its roles and identities, or null (`me`, `GET init`).
fn me_schema() -> Value {
    let r = |n: &str| json!({"$ref": format!("#/components/schemas/{n}")});
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

/// Adds the 200 answer of a sign-in whose account has a second factor.
fn with_challenge(mut op: Value) -> Value {
    let challenge = json!({"title": "RbacSecondFactorChallenge", "type": "object", "properties": {
        "secondFactor": {"type": "string", "enum": ["totp"]},
        "challenge": {"type": "string", "description": "Send it with a code to authLoginSecondFactor within 5 minutes"}
    }, "required": ["secondFactor", "challenge"]});
    op["responses"]["200"] = stoa_api::openapi::ok("A second factor is needed", challenge);
    op
}

fn ok_schema() -> Value {
    obj_schema(&[("ok", json!({"type": "boolean"}))], &["ok"])
}

/// The account endpoints and subject-scoped identity routes.
pub fn routes(auth: Arc<Auth>) -> RouteBook<AppState> {
    let a = || auth.clone();
    let identity = json!({"$ref": "#/components/schemas/RbacIdentity"});
    let mut b = RouteBook::new();
    let x = a();
    b = b.add(
        Access::Public,
        "GET",
        &format!("{AUTH}/init"),
        get(move |req: Request| init_get(x.clone(), req)),
        op(
            "authInit",
            "The current subject, or null (creates nothing)",
            &[],
            None,
            200,
            me_schema(),
            &[401],
        ),
    );
    let x = a();
    b = b.add(
        Access::Public,
        "POST",
        &format!("{AUTH}/init"),
        post(move |req: Request| init_post(x.clone(), req)),
        op(
            "authInitAnonymous",
            "Starts an anonymous session (a subject with no identity)",
            &[],
            None,
            201,
            tokens_schema(),
            &[429],
        ),
    );
    let x = a();
    b = b.add(
        Access::Public,
        "GET",
        &format!("{AUTH}/me"),
        get(move |req: Request| me(x.clone(), req)),
        op(
            "authMe",
            "The signed-in subject with roles and identities, or null",
            &[],
            None,
            200,
            me_schema(),
            &[401],
        ),
    );
    let x = a();
    b = b.add(Access::Public, "GET", &format!("{AUTH}/is-authorized"), get(move |RawQuery(q): RawQuery, req: Request| is_authorized(x.clone(), req, q)),
        {
            let mut o = op("authIsAuthorized", "May the caller call action[method] action[route]?", &[], None, 200, ok_schema(), &[400, 401, 403]);
            o["parameters"] = json!([
                {"name": "action[route]", "in": "query", "required": true, "schema": {"type": "string"}},
                {"name": "action[method]", "in": "query", "required": false, "schema": {"type": "string", "enum": ["GET", "POST", "PATCH", "DELETE"]}},
                {"name": "action[type]", "in": "query", "required": false, "schema": {"type": "string", "enum": ["HTTP"]}}
            ]);
            o
        });
    let x = a();
    b = b.add(
        Access::Public,
        "POST",
        &format!("{AUTH}/refresh"),
        post(move |State(s): State<AppState>, req: Request| refresh(x.clone(), s, req)),
        op(
            "authRefresh",
            "Rotates the refresh token (body or cookie) and issues a new pair",
            &[],
            Some(obj_schema(&[("refresh", string())], &[])),
            201,
            tokens_schema(),
            &[400, 401],
        ),
    );
    let x = a();
    b = b.add(
        Access::Public,
        "POST",
        &format!("{AUTH}/logout"),
        post(move |State(s): State<AppState>, req: Request| logout(x.clone(), s, req)),
        op(
            "authLogout",
            "Ends the session and clears the cookies",
            &[],
            None,
            200,
            ok_schema(),
            &[403],
        ),
    );
    let x = a();
    b = b.add(
        Access::Public,
        "POST",
        &format!("{AUTH}/email-and-password/authentication"),
        post(move |State(s): State<AppState>, req: Request| login(x.clone(), s, req)),
        with_challenge(op(
            "authLogin",
            "Signs in with email and password (201 with tokens, or 200 with the second step's challenge)",
            &[],
            Some(schema_of::<bodies::Credentials>()),
            201,
            tokens_schema(),
            &[400, 401, 422, 429],
        )),
    );
    let x = a();
    b = b.add(
        Access::Public,
        "POST",
        &format!("{AUTH}/email-and-password/registration"),
        post(move |State(s): State<AppState>, req: Request| register(x.clone(), s, req)),
        op(
            "authRegister",
            "Creates an account with the roles open to registration",
            &[],
            Some(schema_of::<bodies::Registration>()),
            201,
            tokens_schema(),
            &[400, 403, 409, 422, 429],
        ),
    );
    let x = a();
    b = b.add(
        Access::Public,
        "POST",
        &format!("{AUTH}/email-and-password/forgot-password"),
        post(move |State(s): State<AppState>, req: Request| forgot(x.clone(), s, req)),
        op(
            "authForgotPassword",
            "Mails a reset link when the account exists (same answer either way)",
            &[],
            Some(schema_of::<bodies::ForgotPassword>()),
            201,
            ok_schema(),
            &[400, 422, 429],
        ),
    );
    let x = a();
    b = b.add(
        Access::Public,
        "POST",
        &format!("{AUTH}/email-and-password/reset-password"),
        post(move |State(s): State<AppState>, req: Request| reset(x.clone(), s, req)),
        op(
            "authResetPassword",
            "Sets a new password with a reset code; every session ends",
            &[],
            Some(schema_of::<bodies::ResetPassword>()),
            201,
            json!({"title": "RbacResetOutcome", "type": "object", "properties": {
                "ok": {"type": "boolean"},
                "removedIdentities": {"type": "array", "description": "Sign-in methods removed because they were added while the address was unconfirmed", "items": {"type": "object", "properties": {
                    "provider": {"type": ["string", "null"]}, "email": {"type": ["string", "null"]}, "account": {"type": ["string", "null"]}
                }, "required": ["provider", "email", "account"]}},
                "secondFactorRemoved": {"type": "boolean"}
            }, "required": ["ok", "removedIdentities", "secondFactorRemoved"]}),
            &[400, 422, 429],
        ),
    );
    let x = a();
    b = b.add(
        Access::Public,
        "POST",
        &format!("{AUTH}/ethereum-virtual-machine/nonce"),
        post(move |req: Request| nonce(x.clone(), req)),
        op(
            "authWalletNonce",
            "A single-use nonce (5 min) and the fields a Sign-In with Ethereum message must carry",
            &[],
            None,
            201,
            json!({"type": "object", "description": "What the wallet signs (EIP-4361)", "properties": {
                "nonce": {"type": "string"}, "domain": {"type": "string"}, "uri": {"type": "string"},
                "chainIds": {"type": "array", "items": {"type": "integer"}}, "version": {"type": "string"},
                "issuedAt": {"type": "string", "format": "date-time"}, "expiresAt": {"type": "string", "format": "date-time"}
            }, "required": ["nonce", "domain", "uri", "chainIds", "version", "issuedAt", "expiresAt"]}),
            &[429],
        ),
    );
    let x = a();
    b = b.add(
        Access::Public,
        "POST",
        &format!("{AUTH}/ethereum-virtual-machine"),
        post(move |State(s): State<AppState>, req: Request| wallet(x.clone(), s, req)),
        with_challenge(op(
            "authWallet",
            "Signs in with an EIP-4361 message signed by the wallet (201 with tokens, or 200 with the second step's challenge)",
            &[],
            Some(schema_of::<bodies::WalletSignIn>()),
            201,
            tokens_schema(),
            &[400, 401, 409, 429],
        )),
    );
    let x = a();
    b = b.add(
        Access::Public,
        "POST",
        &format!("{AUTH}/second-factor"),
        post(move |State(s): State<AppState>, req: Request| login_second_factor(x.clone(), s, req)),
        op(
            "authLoginSecondFactor",
            "The second step of a sign-in: the challenge the first step returned and a TOTP code or a recovery code",
            &[],
            Some(schema_of::<bodies::SecondFactor>()),
            201,
            tokens_schema(),
            &[401, 422, 429],
        ),
    );
    let totp = "/api/rbac/subjects/{id}/totp";
    let x = a();
    b = b.add(
        Access::Owner,
        "POST",
        totp,
        post(move |Path(id): Path<String>, req: Request| totp_start(x.clone(), id, req)),
        op(
            "subjectTotpStart",
            "Starts two-factor enrolment: a new secret (and otpauth URL for a QR code), active once confirmed",
            &["id"],
            None,
            201,
            json!({"title": "RbacTotpEnrolment", "type": "object", "properties": {
                "secret": {"type": "string", "description": "Base32, for typing into an authenticator app"},
                "otpauthUrl": {"type": "string"},
                "digits": {"type": "integer"},
                "period": {"type": "integer"},
                "algorithm": {"type": "string"}
            }, "required": ["secret", "otpauthUrl", "digits", "period", "algorithm"]}),
            &[401, 403, 409],
        ),
    );
    let x = a();
    b = b.add(
        Access::Owner,
        "POST",
        &format!("{totp}/confirm"),
        post(move |State(s): State<AppState>, Path(id): Path<String>, req: Request| totp_confirm(x.clone(), s, id, req)),
        op(
            "subjectTotpConfirm",
            "Confirms enrolment with a code: two-factor sign-in is on, other sessions end, and the recovery codes are returned (shown once)",
            &["id"],
            Some(obj_schema(&[
                ("code", json!({"type": "string", "minLength": 1, "maxLength": 64})),
                ("password", json!({"type": "string", "maxLength": 128, "description": "The account's current password (required when it has one and enrols itself)"})),
            ], &["code"])),
            200,
            json!({"title": "RbacRecoveryCodes", "type": "object", "properties": {
                "recoveryCodes": {"type": "array", "items": {"type": "string"}},
                "jwt": {"type": ["string", "null"], "description": "A new access token for this session, now with its second factor (also set as the cookie)"}
            }, "required": ["recoveryCodes", "jwt"]}),
            &[401, 403, 409, 422],
        ),
    );
    let x = a();
    b = b.add(
        Access::Owner,
        "DELETE",
        totp,
        delete(move |State(s): State<AppState>, Path(id): Path<String>, req: Request| totp_disable(x.clone(), s, id, req)),
        op(
            "subjectTotpDisable",
            "Turns two-factor sign-in off ({code}: a TOTP or recovery code; an admin acting for another account sends none)",
            &["id"],
            Some(obj_schema(&[("code", json!({"type": "string", "minLength": 1, "maxLength": 64}))], &[])),
            200,
            ok_schema(),
            &[401, 403, 409, 422],
        ),
    );
    let x = a();
    b = b.add(
        Access::Owner,
        "GET",
        "/api/rbac/subjects/{id}/sessions",
        get(move |Path(id): Path<String>, req: Request| list_sessions(x.clone(), id, req)),
        op(
            "subjectSessions",
            "The account's live sessions, most recently used first",
            &["id"],
            None,
            200,
            json!({"type": "array", "items": {"title": "RbacSessionView", "type": "object", "properties": {
                "id": {"type": "string", "format": "uuid"},
                "createdAt": {"type": "string", "format": "date-time"},
                "lastUsedAt": {"type": "string", "format": "date-time", "description": "The last token refresh (within the access-token lifetime of the last use)"},
                "userAgent": {"type": ["string", "null"]},
                "ip": {"type": ["string", "null"]},
                "secondFactor": {"type": "boolean"},
                "current": {"type": "boolean", "description": "The session of this request"}
            }, "required": ["id", "createdAt", "lastUsedAt", "userAgent", "ip", "secondFactor", "current"]}}),
            &[401, 403],
        ),
    );
    let x = a();
    b = b.add(
        Access::Owner,
        "DELETE",
        "/api/rbac/subjects/{id}/sessions/{sessionId}",
        delete(move |Path(p): Path<(String, String)>, req: Request| end_session(x.clone(), p, req)),
        op(
            "subjectEndSession",
            "Ends one of the account's sessions at once",
            &["id", "sessionId"],
            None,
            200,
            ok_schema(),
            &[401, 403, 404],
        ),
    );
    let base = "/api/rbac/subjects/{id}/identities";
    let x = a();
    b = b.add(
        Access::Owner,
        "GET",
        base,
        get(move |Path(id): Path<String>, req: Request| list_identities(x.clone(), id, req)),
        op(
            "subjectIdentities",
            "The subject's identities",
            &["id"],
            None,
            200,
            json!({"type": "array", "items": identity}),
            &[400, 401, 403],
        ),
    );
    let x = a();
    b = b.add(Access::Owner, "POST", base, post(move |State(s): State<AppState>, Path(id): Path<String>, req: Request| add_identity(x.clone(), s, id, req)),
        op("subjectAddIdentity", "Adds an email identity ({provider: email_and_password, email, password}), links a wallet ({provider: ethereum_virtual_machine, message, signature, address}) or Telegram (provider: telegram and the Login Widget's fields: id, first_name, username, photo_url, auth_date, hash)", &["id"], Some(json!({"type": "object", "properties": {"provider": {"type": "string", "enum": ["email_and_password", "ethereum_virtual_machine", "telegram"]}}, "required": ["provider"]})), 201, identity.clone(), &[400, 401, 403, 409, 422, 429]));
    let item = "/api/rbac/subjects/{id}/identities/{identityId}";
    let x = a();
    b = b.add(
        Access::Owner,
        "PATCH",
        item,
        patch(
            move |State(s): State<AppState>, Path(p): Path<(String, String)>, req: Request| {
                patch_identity(x.clone(), s, p, req)
            },
        ),
        op(
            "subjectUpdateIdentity",
            "Changes the password ({password, newPassword}), or asks to change the email ({email, password}): the new address gets a code and becomes the identity's when the code is confirmed (pendingEmail until then); the current address is told",
            &["id", "identityId"],
            Some(json!({"type": "object"})),
            200,
            identity.clone(),
            &[400, 401, 403, 404, 409, 422],
        ),
    );
    let x = a();
    b = b.add(
        Access::Owner,
        "DELETE",
        item,
        delete(move |Path(p): Path<(String, String)>, req: Request| {
            delete_identity(x.clone(), p, req)
        }),
        op(
            "subjectDeleteIdentity",
            "Deletes an identity (never the last one)",
            &["id", "identityId"],
            None,
            200,
            identity.clone(),
            &[400, 401, 403, 404, 409],
        ),
    );
    let x = a();
    b = b.add(
        Access::Owner,
        "POST",
        &format!("{item}/verification"),
        post(move |Path(p): Path<(String, String)>, req: Request| {
            send_verification(x.clone(), p, req)
        }),
        op(
            "subjectSendVerification",
            "Mails a new confirmation code to the identity's address, or to the address waiting to replace it",
            &["id", "identityId"],
            None,
            201,
            json!({"type": "object", "properties": {"ok": {"type": "boolean"}, "sentTo": {"type": "string", "format": "email"}}, "required": ["ok", "sentTo"]}),
            &[400, 401, 403, 404, 409, 429],
        ),
    );
    let x = a();
    b = b.add(
        Access::Owner,
        "POST",
        &format!("{item}/verify"),
        post(
            move |State(s): State<AppState>, Path(p): Path<(String, String)>, req: Request| {
                verify_identity(x.clone(), s, p, req)
            },
        ),
        op(
            "subjectVerifyIdentity",
            "Confirms the identity's address with the mailed code, or moves it to the address waiting to replace it",
            &["id", "identityId"],
            Some(obj_schema(
                &[(
                    "code",
                    json!({"type": "string", "minLength": 1, "maxLength": 64, "description": "The six digits from the mail"}),
                )],
                &["code"],
            )),
            200,
            identity.clone(),
            &[400, 401, 403, 404, 409, 422, 429],
        ),
    );
    let x = a();
    b = b.add(
        Access::Admin,
        "POST",
        "/api/rbac/identities/email-and-password",
        post(move |State(s): State<AppState>, req: Request| {
            admin_email_identity(x.clone(), s, req)
        }),
        op(
            "identityCreateEmailAndPassword",
            "Admin: creates an email-and-password identity (for subjectId, or a new subject)",
            &[],
            Some(obj_schema(
                &[
                    ("email", string()),
                    ("password", string()),
                    ("subjectId", json!({"type": "string", "format": "uuid"})),
                ],
                &["email", "password"],
            )),
            201,
            identity.clone(),
            &[400, 401, 403, 409, 422],
        ),
    );
    let x = a();
    b = b.add(
        Access::Owner,
        "PATCH",
        "/api/rbac/identities/{id}/change-password",
        patch(
            move |State(s): State<AppState>, Path(id): Path<String>, req: Request| {
                change_password(x.clone(), s, id, req)
            },
        ),
        op(
            "identityChangePassword",
            "Changes the password of one of the caller's identities (current password required)",
            &["id"],
            Some(obj_schema(
                &[("password", string()), ("newPassword", string())],
                &["password", "newPassword"],
            )),
            200,
            identity,
            &[400, 401, 403, 404, 422],
        ),
    );
    let x = a();
    b = b.add(
        Access::Admin,
        "POST",
        "/api/rbac/subjects/{id}/notify",
        stoa_api::call::route(x, "POST", notify),
        stoa_api::openapi::custom(
            "rbac",
            "subjectNotify",
            "Queues a notification to the subject's addresses ({notification: {topic: {slug}, template: {variant}, notification: {method: email|telegram, data, sendAfter?}}, language?}): one per email identity, or per linked Telegram",
            stoa_api::openapi::path_params(&["id"]),
            Some(json!({"type": "object", "properties": {"notification": {"type": "object"}, "language": {"type": "string"}}, "required": ["notification"]})),
            200,
            json!({"type": "object", "properties": {"queued": {"type": "integer"}, "notifications": {"type": "array", "items": {"type": "string", "format": "uuid"}}}}),
            &[400, 401, 403, 404, 422],
        ),
    );
    b
}

fn notify(auth: Arc<Auth>, x: stoa_api::call::Call) -> stoa_api::call::Fut {
    Box::pin(async move { stoa_api::call::ok(auth.notify(x.id("id")?, &x.body).await?) })
}

// ---- the middleware ------------------------------------------------------------------------

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

/// The id a raw path segment names, read as the router's path extraction reads it
/// (percent-decoded, then any spelling `Uuid` accepts), so a check on the raw path and the
/// handler behind it agree on which record is meant.
pub(crate) fn path_id(raw: &str) -> Option<Uuid> {
    let decoded = percent_encoding::percent_decode_str(raw)
        .decode_utf8()
        .ok()?;
    Uuid::try_parse(&decoded).ok()
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
    if let Some(u) = path_id(raw) {
        return Scope::Subject(u);
    }
    if !raw.is_empty() && raw.bytes().all(|b| b.is_ascii_lowercase() || b == b'-') {
        return Scope::Unscoped;
    }
    Scope::Unclear
}

/// The verdict for `caller` on `method path`: Ok, or the 401/403 to answer.
/// Marks `c` admin when one of its roles holds the root permission.
async fn decide(auth: &Auth, c: &mut Caller, method: &str, path: &str) -> Result<()> {
    let subject = c.subject;
    let deny = |why: &str| {
        tracing::info!(event = "authz_denied", method, path = %path.chars().take(200).collect::<String>(), subject = ?subject, reason = why, "request denied");
        if subject.is_none() {
            Error::Unauthorized("sign in to do this".into())
        } else {
            Error::Forbidden("you do not have access to this resource".into())
        }
    };
    if !c.admin {
        let roles = match c.subject {
            Some(s) => auth.roles_of(s).await?,
            None => Arc::new(Vec::new()),
        };
        match auth.policy.table().await?.decide(method, path, &roles) {
            Verdict::Admin => c.admin = true,
            Verdict::Allow => {}
            Verdict::Deny => return Err(deny("no permission")),
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
    let bytes = axum::body::to_bytes(body, RAILS_BODY).await.map_err(|_| {
        Error::PayloadTooLarge(format!("the body is larger than {RAILS_BODY} bytes"))
    })?;
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
    let headers = req.headers();
    // One pass over the cookies: the access token, and whether any session cookie came.
    let mut has_session_cookie = false;
    let mut jwt_cookie = None;
    for (name, value) in cookies(headers) {
        has_session_cookie |= name == JWT_COOKIE || name == REFRESH_COOKIE;
        if name == JWT_COOKIE {
            jwt_cookie = Some(value);
        }
    }
    if let Some(k) = headers.get(SECRET_HEADER) {
        match auth.secret_key_ok(k.to_str().unwrap_or("")) {
            Some(true) => {
                c.admin = true;
                c.via = Via::SecretKey;
            }
            Some(false) => {
                tracing::warn!(event = "secret_key_rejected", "wrong X-RBAC-SECRET-KEY");
                return error_response(&Error::Unauthorized("the secret key is wrong".into()));
            }
            None => {}
        }
    }
    if c.via == Via::Nothing {
        if let Some(t) = bearer(headers) {
            match auth.verify_access(t).await {
                Err(e) => return error_response(&e),
                Ok(Some(a)) => {
                    c.subject = Some(a.subject);
                    c.session = Some(a.session);
                    c.second_factor = a.mfa;
                    c.via = Via::Bearer;
                }
                Ok(None) => {
                    return error_response(&Error::Unauthorized(
                        "the access token is invalid or expired; refresh it or sign in again"
                            .into(),
                    ));
                }
            }
        } else if let Some(t) = jwt_cookie {
            match auth.verify_access(&t).await {
                Err(e) => return error_response(&e),
                Ok(Some(a)) => {
                    c.subject = Some(a.subject);
                    c.session = Some(a.session);
                    c.second_factor = a.mfa;
                    c.via = Via::Cookie;
                }
                // A stale cookie reads as signed out (the client refreshes).
                Ok(None) => {}
            }
        }
    }
    let method = req.method().clone();
    let unsafe_method = !matches!(method, Method::GET | Method::HEAD | Method::OPTIONS);
    if unsafe_method
        && !matches!(c.via, Via::Bearer | Via::SecretKey)
        && !from_this_site(&auth, req.headers(), has_session_cookie)
    {
        tracing::info!(event = "csrf_rejected", method = %method, "write from another site refused");
        return error_response(&Error::Forbidden(
            "a write from a browser must come from this site (Origin header); other clients send \
             an Authorization header"
                .into(),
        ));
    }
    let path = req.uri().path().to_owned();
    if let Err(e) = decide(&auth, &mut c, method.as_str(), &path).await {
        return error_response(&e);
    }
    if let Err(e) = second_factor_gate(&auth, &mut c, method.as_str(), &path).await {
        return error_response(&e);
    }
    let credentialed = c.via != Via::Nothing || path.starts_with("/api/rbac/");
    // Whoever the permission table let through (an admin, or a role granted these writes).
    let rails = crate::rails::write_of(&method, &path);
    let caller = c.subject;
    // Admins see drafts; their writes, and everyone's account changes, go to the audit log.
    let drafts = c.admin;
    let who = (unsafe_method && (c.admin || (c.subject.is_some() && account_security(&path))))
        .then(|| who_of(&c, &req));
    req.extensions_mut().insert(c);
    // The log names the actor as people know them (one lookup, for recorded requests only).
    let who = match (who, caller) {
        (Some(mut w), Some(s)) => {
            w.name = auth.email_of(s).await;
            Some(w)
        }
        (w, _) => w,
    };
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

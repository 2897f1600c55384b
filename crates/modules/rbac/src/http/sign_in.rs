//! Sign-in, sign-up and the session: who the caller is, tokens and their cookies.

use std::sync::Arc;

use axum::http::{HeaderMap, StatusCode};
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use stoa_api::endpoint::{Answer, Extended, In, Json, Later, Lenient, Nothing, Reply, Row};
use stoa_kernel::{Error, Result};
use uuid::Uuid;

use super::{clear_cookies, ctx, session_cookies};
use crate::bodies;
use crate::gate::{REFRESH_COOKIE, cookie_value, decide};
use crate::service::{Auth, Ctx, SignIn, Tokens};
use crate::views::{
    DONE, Done, Me, MeAnswer, ResetOutcome, SecondFactorChallenge, SetupState, WalletNonce,
};

/// The subject of the session a request already carries: its access token's, else (expired)
/// its refresh cookie's. A sign-in takes over a guest's orders from it.
pub(super) async fn carried(
    auth: &Auth,
    caller: Option<Uuid>,
    headers: &axum::http::HeaderMap,
) -> Option<Uuid> {
    if caller.is_some() {
        return caller;
    }
    let token = cookie_value(headers, REFRESH_COOKIE)?;
    auth.refresh_subject(&token).await.ok().flatten()
}

/// Tokens with the session's cookies.
fn tokens(auth: &Auth, headers: &HeaderMap, t: Tokens) -> Reply<Tokens> {
    let mut reply = Reply::new(t.clone());
    session_cookies(auth, headers, &t, reply.headers_mut());
    reply
}

/// A sign-in's answer: 201 with tokens and cookies when it is done, 200 with the challenge of
/// its second step otherwise (documented with `Endpoint::also`).
pub(super) enum SignedIn {
    Done(Reply<Tokens>),
    Challenge(SecondFactorChallenge),
}

impl Answer for SignedIn {
    type Doc = Tokens;

    fn respond(self, status: StatusCode) -> axum::response::Response {
        match self {
            SignedIn::Done(r) => r.respond(status),
            SignedIn::Challenge(c) => Reply::new(c).respond(StatusCode::OK),
        }
    }
}

fn signed_in(auth: &Auth, headers: &HeaderMap, s: SignIn) -> SignedIn {
    match s {
        SignIn::Done(t) => SignedIn::Done(tokens(auth, headers, t)),
        SignIn::SecondFactor { challenge } => SignedIn::Challenge(SecondFactorChallenge {
            second_factor: "totp",
            challenge,
        }),
    }
}

/// A credential request's context, headers and typed body: the client address's rate is
/// checked first, so a client over its limit costs no body read.
async fn credential<T: DeserializeOwned + JsonSchema + Send + 'static>(
    auth: &Auth,
    x: Credential<T>,
) -> Result<(Ctx, HeaderMap, T)> {
    let mut c = ctx(&x.headers, x.client.clone());
    auth.limits.ip(&c.ip).await?;
    c.guest = carried(auth, x.caller.subject, &x.headers).await;
    // JSON only: a form or text body is what a page on another site can post without asking.
    if stoa_api::body::media_type(&x.headers) != "application/json" {
        return Err(Error::UnsupportedMediaType(
            "send the credentials as JSON (Content-Type: application/json)".into(),
        ));
    }
    Ok((c, x.headers, x.body.read().await?.0))
}

/// The signed-in subject with its roles and identities, or null (`authMe`, `authInit`).
pub(super) async fn me(auth: Arc<Auth>, x: In) -> Result<MeAnswer> {
    let c = &x.caller;
    let Some(subject) = c.subject else {
        return Ok(None);
    };
    let row = auth.store.get(auth.subject_entity(), subject).await?;
    let role_e = auth.store.entity("rbac.role")?;
    let mut roles = Vec::new();
    for r in auth.roles_of(subject).await?.iter() {
        if let Ok(r) = auth.store.get(&role_e, *r).await {
            roles.push(Row::new(r.to_json()));
        }
    }
    let identities = auth
        .identities(subject)
        .await?
        .iter()
        .map(crate::views::identity_row)
        .collect();
    let second_factor = auth
        .second_factor_state(subject, c.second_factor, c.admin || c.restricted_admin)
        .await?;
    Ok(Some(Extended::new(
        row.to_json(),
        Me {
            roles,
            identities,
            admin: c.admin,
            second_factor,
        },
    )))
}

/// `GET …/is-authorized?action[route]=…&action[method]=…`.
#[derive(Deserialize, JsonSchema)]
pub(super) struct Action {
    #[serde(rename = "action[route]")]
    route: String,
    #[serde(rename = "action[method]")]
    #[schemars(extend("enum" = ["GET", "POST", "PATCH", "DELETE"]))]
    method: Option<String>,
    #[serde(rename = "action[type]")]
    #[schemars(extend("enum" = ["HTTP"]))]
    #[allow(dead_code)]
    kind: Option<String>,
}

pub(super) async fn is_authorized(auth: Arc<Auth>, x: In<Nothing, Action>) -> Result<Done> {
    let mut c = x.caller;
    let method = x
        .query
        .method
        .as_deref()
        .unwrap_or("GET")
        .to_ascii_uppercase();
    let route = &x.query.route;
    let path = route.split('?').next().unwrap_or(route);
    decide(&auth, &mut c, &method, path).await?;
    Ok(DONE)
}

pub(super) async fn init_anonymous(auth: Arc<Auth>, x: In) -> Result<Reply<Tokens>> {
    let t = auth.anonymous(&ctx(&x.headers, x.client.clone())).await?;
    Ok(tokens(&auth, &x.headers, t))
}

pub(super) async fn refresh(
    auth: Arc<Auth>,
    x: In<Nothing, Nothing, Json<bodies::Refresh>>,
) -> Result<Reply<Tokens>> {
    let token = match x.body.0.refresh.clone() {
        Some(t) => t,
        None => cookie_value(&x.headers, REFRESH_COOKIE).ok_or_else(|| {
            Error::Unauthorized("no refresh token: send {\"refresh\": …} or the cookie".into())
        })?,
    };
    match auth.refresh(&token).await {
        Ok(t) => Ok(tokens(&auth, &x.headers, t)),
        Err(e) => {
            // A refused token ends the browser's session too: its cookies are cleared.
            let mut reply = Reply::refused(e);
            clear_cookies(&auth, &x.headers, reply.headers_mut());
            Ok(reply)
        }
    }
}

/// Signs out whatever the body holds: a body that cannot be read still ends the session.
pub(super) async fn logout(
    auth: Arc<Auth>,
    x: In<Nothing, Nothing, Lenient<bodies::Refresh>>,
) -> Result<Reply<Done>> {
    let c = &x.caller;
    if let Some(sid) = c.session {
        auth.revoke(sid).await?;
    }
    let token = x
        .body
        .0
        .refresh
        .clone()
        .or_else(|| cookie_value(&x.headers, REFRESH_COOKIE));
    if let Some(sid) = token.as_deref().and_then(crate::tokens::refresh_session)
        && Some(sid) != c.session
    {
        // Only the holder of the token may end its session: the rotation check proves it.
        if let Ok(t) = auth.refresh(token.as_deref().unwrap_or_default()).await {
            auth.revoke(t.session).await?;
        }
    }
    let mut reply = Reply::new(DONE);
    clear_cookies(&auth, &x.headers, reply.headers_mut());
    Ok(reply)
}

type Credential<T> = In<Nothing, Nothing, Later<Json<T>>>;

pub(super) async fn login(auth: Arc<Auth>, x: Credential<bodies::Credentials>) -> Result<SignedIn> {
    let (c, h, b) = credential(&auth, x).await?;
    let t = auth.login(&b.login, &b.password, &c).await?;
    Ok(signed_in(&auth, &h, t))
}

pub(super) async fn setup_state(auth: Arc<Auth>, _x: In) -> Result<SetupState> {
    Ok(SetupState {
        needed: auth.setup_code().await?.is_some(),
    })
}

pub(super) async fn first_admin(
    auth: Arc<Auth>,
    x: Credential<bodies::FirstAdmin>,
) -> Result<SignedIn> {
    let (c, h, b) = credential(&auth, x).await?;
    let t = auth.first_admin(&b.code, &b.login, &b.password, &c).await?;
    Ok(signed_in(&auth, &h, t))
}

pub(super) async fn second_factor(
    auth: Arc<Auth>,
    x: Credential<bodies::SecondFactor>,
) -> Result<Reply<Tokens>> {
    let (c, h, b) = credential(&auth, x).await?;
    let t = auth
        .second_factor_sign_in(&b.challenge, &b.code, &c)
        .await?;
    Ok(tokens(&auth, &h, t))
}

pub(super) async fn register(
    auth: Arc<Auth>,
    x: Credential<bodies::Registration>,
) -> Result<Reply<Tokens>> {
    let (c, h, b) = credential(&auth, x).await?;
    let roles = roles_from(&b.roles)?;
    let t = auth.register(&b.login, &b.password, &roles, &c).await?;
    Ok(tokens(&auth, &h, t))
}

pub(super) async fn forgot(auth: Arc<Auth>, x: Credential<bodies::ForgotPassword>) -> Result<Done> {
    let (c, _, b) = credential(&auth, x).await?;
    auth.forgot_password(&b.email, &c).await?;
    Ok(DONE)
}

pub(super) async fn reset(
    auth: Arc<Auth>,
    x: Credential<bodies::ResetPassword>,
) -> Result<ResetOutcome> {
    let (_, _, b) = credential(&auth, x).await?;
    auth.reset_password(&b.code, &b.password, &b.password_confirmation)
        .await
}

pub(super) async fn nonce(auth: Arc<Auth>, x: In) -> Result<WalletNonce> {
    auth.wallet_nonce(&ctx(&x.headers, x.client.clone())).await
}

pub(super) async fn wallet(
    auth: Arc<Auth>,
    x: Credential<bodies::WalletSignIn>,
) -> Result<SignedIn> {
    let (c, h, b) = credential(&auth, x).await?;
    let t = auth
        .wallet_login(&b.message, &b.signature, &b.address, &c)
        .await?;
    Ok(signed_in(&auth, &h, t))
}

/// The roles a registration asks for: slugs, or `{slug}` objects as the original client sends.
fn roles_from(roles: &Value) -> Result<Vec<String>> {
    let bad = || Error::invalid_field("roles", "must be a list of role slugs");
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
                _ => Err(bad()),
            })
            .collect(),
        _ => Err(bad()),
    }
}

//! The account endpoints and the subject-scoped identity routes, one table of typed routes
//! ([`routes`]): sign-in and sessions ([`sign_in`]), sign-in with an OpenID Connect provider
//! ([`oidc`]) and what an account does with its own identities, factors and sessions
//! ([`account`]). The middleware that decides every request is `gate`'s.

mod account;
mod oidc;
mod sign_in;

use std::sync::Arc;

use axum::http::{HeaderMap, HeaderValue, header};
use cookie::{Cookie, SameSite};
use schemars::JsonSchema;
use serde::Deserialize;
use stoa_api::endpoint::Endpoint;
use stoa_api::{Access, AppState, RouteBook};
use uuid::Uuid;

use crate::service::{Auth, Ctx, Tokens};
use crate::views::SecondFactorChallenge;

pub use crate::gate::{JWT_COOKIE, REFRESH_COOKIE};

/// The request's context for the services: its address, agent and language.
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

fn secure(auth: &Auth, headers: &HeaderMap) -> bool {
    auth.cfg.https()
        || headers
            .get("x-forwarded-proto")
            .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"https"))
}

/// Sets (or, with `max_age` 0, clears) the cookie `name` on the answer's `headers`.
fn set_cookie(out: &mut HeaderMap, name: &str, value: &str, max_age: i64, secure: bool) {
    cookie_at(out, "/", name, value, max_age, secure);
}

/// Sets (or clears) the cookie `name` for the paths under `path`: HTTP only, and sent on a
/// top-level navigation from elsewhere (`Lax`: a provider sends the browser back with a GET).
fn cookie_at(
    out: &mut HeaderMap,
    path: &'static str,
    name: &str,
    value: &str,
    max_age: i64,
    secure: bool,
) {
    let c = Cookie::build((name.to_owned(), value.to_owned()))
        .http_only(true)
        .same_site(SameSite::Lax)
        .path(path)
        .secure(secure)
        .max_age(cookie::time::Duration::seconds(max_age))
        .build();
    if let Ok(v) = HeaderValue::from_str(&c.to_string()) {
        out.append(header::SET_COOKIE, v);
    }
}

/// The session's cookies (access and refresh token).
fn session_cookies(auth: &Auth, headers: &HeaderMap, t: &Tokens, out: &mut HeaderMap) {
    let s = secure(auth, headers);
    set_cookie(out, JWT_COOKIE, &t.jwt, auth.cfg.access_ttl, s);
    set_cookie(out, REFRESH_COOKIE, &t.refresh, auth.cfg.refresh_ttl, s);
}

/// The session's cookies, cleared.
fn clear_cookies(auth: &Auth, headers: &HeaderMap, out: &mut HeaderMap) {
    let s = secure(auth, headers);
    set_cookie(out, JWT_COOKIE, "", 0, s);
    set_cookie(out, REFRESH_COOKIE, "", 0, s);
}

/// A subject's session (`…/subjects/{id}/sessions/{sessionId}`).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct SubjectSession {
    id: Uuid,
    session_id: Uuid,
}

/// A subject's identity (`…/subjects/{id}/identities/{identityId}`).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct SubjectIdentity {
    id: Uuid,
    identity_id: Uuid,
}

/// A route of module rbac whose body and answer keep the names the document gave them.
fn route(method: &'static str, path: &'static str, id: &'static str) -> Endpoint {
    Endpoint::new("rbac", method, path, id).named_by_operation()
}

/// A path under the authentication prefix.
macro_rules! auth {
    ($p:literal) => {
        concat!("/api/rbac/subjects/authentication", $p)
    };
}

/// The account endpoints and subject-scoped identity routes.
#[rustfmt::skip]
pub fn routes(auth: Arc<Auth>) -> RouteBook<AppState> {
    use Access::{Admin, Owner, Public};
    let a = || auth.clone();
    RouteBook::new()
        .endpoint(a(), route("GET", auth!("/init"), "authInit").access(Public).summary("The current subject, or null (creates nothing)").errors(&[401]), sign_in::me)
        .endpoint_replying(a(), route("POST", auth!("/init"), "authInitAnonymous").access(Public).summary("Starts an anonymous session (a subject with no identity)").status(201).errors(&[429]), sign_in::init_anonymous)
        .endpoint(a(), route("GET", auth!("/me"), "authMe").access(Public).summary("The signed-in subject with roles and identities, or null").errors(&[401]), sign_in::me)
        .endpoint(a(), route("GET", auth!("/is-authorized"), "authIsAuthorized").access(Public).summary("May the caller call action[method] action[route]?").errors(&[400, 401, 403]), sign_in::is_authorized)
        .endpoint_replying(a(), route("POST", auth!("/refresh"), "authRefresh").access(Public).summary("Rotates the refresh token (body or cookie) and issues a new pair").status(201).errors(&[400, 401]), sign_in::refresh)
        .endpoint_replying(a(), route("POST", auth!("/logout"), "authLogout").access(Public).summary("Ends the session and clears the cookies").errors(&[403]), sign_in::logout)
        .endpoint_replying(a(), route("POST", auth!("/email-and-password/authentication"), "authLogin").access(Public).summary("Signs in with email and password (201 with tokens, or 200 with the second step's challenge)").status(201).errors(&[400, 401, 422, 429]).also::<SecondFactorChallenge>(200, "A second factor is needed"), sign_in::login)
        .endpoint_replying(a(), route("POST", auth!("/email-and-password/registration"), "authRegister").access(Public).summary("Creates an account with the roles open to registration").status(201).errors(&[400, 403, 409, 422, 429]), sign_in::register)
        .endpoint(a(), route("POST", auth!("/email-and-password/forgot-password"), "authForgotPassword").access(Public).summary("Mails a reset link when the account exists (same answer either way)").status(201).errors(&[400, 422, 429]), sign_in::forgot)
        .endpoint(a(), route("POST", auth!("/email-and-password/reset-password"), "authResetPassword").access(Public).summary("Sets a new password with a reset code; every session ends").status(201).errors(&[400, 422, 429]), sign_in::reset)
        .endpoint(a(), route("POST", auth!("/ethereum-virtual-machine/nonce"), "authWalletNonce").access(Public).summary("A single-use nonce (5 min) and the fields a Sign-In with Ethereum message must carry").status(201).errors(&[429]), sign_in::nonce)
        .endpoint_replying(a(), route("POST", auth!("/ethereum-virtual-machine"), "authWallet").access(Public).summary("Signs in with an EIP-4361 message signed by the wallet (201 with tokens, or 200 with the second step's challenge)").status(201).errors(&[400, 401, 409, 429]).also::<SecondFactorChallenge>(200, "A second factor is needed"), sign_in::wallet)
        .endpoint_replying(a(), route("GET", auth!("/oidc/start"), "authOidcStart").access(Public).summary("Starts sign-in with the site's OpenID Connect provider (a browser navigation): 302 to the provider's page; `redirect` is where to go after, `link=1` links it to the signed-in account").status(302).errors(&[401, 403, 404, 409, 429]).hidden(), oidc::start)
        .endpoint_replying(a(), route("GET", auth!("/oidc/callback"), "authOidcCallback").access(Public).summary("Where the provider sends the browser back (code, state): 302 to the page the sign-in started from, signed in; or to the sign-in screen with `oidcError` (state, token, provider, cancelled, unconfirmed, elsewhere, busy)").status(302).errors(&[404, 429]).hidden(), oidc::callback)
        .endpoint_replying(a(), route("POST", auth!("/second-factor"), "authLoginSecondFactor").access(Public).summary("The second step of a sign-in: the challenge the first step returned and a TOTP code or a recovery code").status(201).errors(&[401, 422, 429]), sign_in::second_factor)
        .endpoint(a(), route("GET", auth!("/setup"), "rbacSetupState").access(Public).summary("Whether the site still waits for its first admin"), sign_in::setup_state)
        .endpoint_replying(a(), route("POST", auth!("/setup"), "rbacSetup").access(Public).summary("Creates the first admin with the one-time setup code `stoa serve` printed in its log, and signs in (only while no account is an admin)").status(201).errors(&[400, 409, 415, 422, 429]), sign_in::first_admin)
        .endpoint(a(), route("POST", "/api/rbac/subjects/{id}/totp", "subjectTotpStart").access(Owner).summary("Starts two-factor enrolment: a new secret (and otpauth URL for a QR code), active once confirmed").status(201).errors(&[401, 403, 409]), account::totp_start)
        .endpoint_replying(a(), route("POST", "/api/rbac/subjects/{id}/totp/confirm", "subjectTotpConfirm").access(Owner).summary("Confirms enrolment with a code: two-factor sign-in is on, other sessions end, and the recovery codes are returned (shown once)").errors(&[401, 403, 409, 422]), account::totp_confirm)
        .endpoint(a(), route("DELETE", "/api/rbac/subjects/{id}/totp", "subjectTotpDisable").access(Owner).summary("Turns two-factor sign-in off ({code}: a TOTP or recovery code; an admin acting for another account sends none)").errors(&[401, 403, 409, 422]), account::totp_disable)
        .endpoint(a(), route("GET", "/api/rbac/subjects/{id}/sessions", "subjectSessions").access(Owner).summary("The account's live sessions, most recently used first").errors(&[401, 403]), account::sessions)
        .endpoint(a(), route("DELETE", "/api/rbac/subjects/{id}/sessions/{sessionId}", "subjectEndSession").access(Owner).summary("Ends one of the account's sessions at once").errors(&[401, 403, 404]), account::end_session)
        .endpoint(a(), route("GET", "/api/rbac/subjects/{id}/identities", "subjectIdentities").access(Owner).summary("The subject's identities").errors(&[400, 401, 403]), account::identities)
        .endpoint(a(), route("POST", "/api/rbac/subjects/{id}/identities", "subjectAddIdentity").access(Owner).summary("Adds an email identity, links a wallet (a signed EIP-4361 message) or Telegram (the Login Widget's signed fields)").status(201).errors(&[400, 401, 403, 409, 422, 429]), account::add_identity)
        .endpoint(a(), route("PATCH", "/api/rbac/subjects/{id}/identities/{identityId}", "subjectUpdateIdentity").access(Owner).summary("Changes the password ({password, newPassword}), or asks to change the email ({email, password}): the new address gets a code and becomes the identity's when the code is confirmed (pendingEmail until then); the current address is told").errors(&[400, 401, 403, 404, 409, 422]), account::update_identity)
        .endpoint(a(), route("DELETE", "/api/rbac/subjects/{id}/identities/{identityId}", "subjectDeleteIdentity").access(Owner).summary("Deletes an identity (never the last one)").errors(&[400, 401, 403, 404, 409]), account::delete_identity)
        .endpoint(a(), route("POST", "/api/rbac/subjects/{id}/identities/{identityId}/verification", "subjectSendVerification").access(Owner).summary("Mails a new confirmation code to the identity's address, or to the address waiting to replace it").status(201).errors(&[400, 401, 403, 404, 409, 429]), account::send_verification)
        .endpoint(a(), route("POST", "/api/rbac/subjects/{id}/identities/{identityId}/verify", "subjectVerifyIdentity").access(Owner).summary("Confirms the identity's address with the mailed code, or moves it to the address waiting to replace it").errors(&[400, 401, 403, 404, 409, 422, 429]), account::verify_identity)
        .endpoint(a(), route("POST", "/api/rbac/identities/email-and-password", "identityCreateEmailAndPassword").access(Admin).summary("Admin: creates an email-and-password identity (for subjectId, or a new subject)").status(201).errors(&[400, 401, 403, 409, 422]), account::admin_email_identity)
        .endpoint(a(), route("PATCH", "/api/rbac/identities/{id}/change-password", "identityChangePassword").access(Owner).summary("Changes the password of one of the caller's identities (current password required)").errors(&[400, 401, 403, 404, 422]), account::change_password)
        .endpoint(a(), route("POST", "/api/rbac/subjects/{id}/notify", "subjectNotify").access(Admin).summary("Queues a notification to the subject's addresses: one per email identity, or per linked Telegram").errors(&[400, 401, 403, 404, 422]), account::notify)
        .endpoint(a(), route("GET", "/api/rbac/access", "rbacAccess").access(Admin).summary("Admin: what a subject (its roles), a role, or a visitor (neither) may call, route by route, decided by the permission table the server decides with, and the permission that lets them").errors(&[401, 403, 404, 422]), account::access)
        .endpoint(a(), route("POST", "/api/rbac/api-keys/{id}/token", "rbacApiKeyToken").access(Admin).summary("Admin: makes a new token for the API key, shown this once (the key's previous token stops working); only its hash is kept").status(201).errors(&[401, 403, 404]), account::api_key_token)
}

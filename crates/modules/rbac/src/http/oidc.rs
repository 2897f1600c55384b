//! Sign-in with the site's OpenID Connect provider: browser navigations that answer with
//! redirects, so they are routed but not in the document.

use std::sync::Arc;

use axum::http::HeaderMap;
use schemars::JsonSchema;
use serde::Deserialize;
use stoa_api::endpoint::{In, Nothing, Redirect};
use stoa_kernel::{Error, Result};

use super::sign_in::carried;
use super::{cookie_at, ctx, secure, session_cookies};
use crate::gate::cookie_value;
use crate::oidc_login::{FLOW_COOKIE, Refusal};
use crate::service::{Auth, Ctx, OidcOutcome, SignIn};

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

/// Sets (or, with `max_age` 0, clears) the cookie of an OIDC flow.
fn flow_cookie(out: &mut HeaderMap, value: &str, max_age: i64, secure: bool) {
    let path = "/api/rbac/subjects/authentication/oidc";
    cookie_at(out, path, FLOW_COOKIE, value, max_age, secure);
}

/// The sign-in screen in `lang`, saying why (`oidcError`), then on to `redirect`.
fn refused(auth: &Auth, h: &HeaderMap, lang: &str, redirect: &str, why: &str) -> Redirect {
    let q: String = form_urlencoded::Serializer::new(String::new())
        .append_pair("oidcError", why)
        .append_pair("redirect", redirect)
        .finish();
    let mut to = Redirect::to(format!(
        "/{lang}/rbac/subject/authentication/select-method?{q}"
    ));
    flow_cookie(to.headers_mut(), "", 0, secure(auth, h));
    to
}

/// `GET …/oidc/start?redirect=/ru/…&lang=ru[&link=1]`.
#[derive(Deserialize, JsonSchema)]
pub(super) struct Start {
    redirect: Option<String>,
    lang: Option<String>,
    link: Option<String>,
}

/// To the provider's sign-in page, with the flow's secrets in a cookie. `link=1` (signed in,
/// recently): link the provider to this account.
pub(super) async fn start(auth: Arc<Auth>, x: In<Nothing, Start>) -> Result<Redirect> {
    let Some(oidc) = auth.oidc.clone() else {
        return Err(Error::not_found(
            "this site offers no sign-in with a provider",
        ));
    };
    let (h, q) = (&x.headers, &x.query);
    let ctx = ctx(h, x.client.clone());
    oidc.rate.check(&ctx.ip).await?;
    let lang = language_of(q.lang.as_ref(), &ctx);
    let redirect = site_path(q.redirect.as_ref(), format!("/{lang}/"));
    let link = if q.link.as_deref() == Some("1") {
        // Linking changes the account: only from this site's own pages (a browser says where a
        // navigation came from; a page elsewhere cannot link a provider to the visitor's account).
        let from = h.get("sec-fetch-site").and_then(|v| v.to_str().ok());
        if from.is_some_and(|f| f != "same-origin" && f != "none") {
            return Err(Error::Forbidden(
                "link a provider from your account page on this site".into(),
            ));
        }
        let c = &x.caller;
        let subject = c.subject.ok_or_else(|| {
            Error::Unauthorized("sign in first to link a provider to your account".into())
        })?;
        // Only a person in their own session links a provider (never a key or the secret key).
        if c.session.is_none() {
            return Err(Error::Forbidden(
                "link a provider while signed in as yourself, from your account page".into(),
            ));
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
            return Ok(refused(&auth, h, &lang, &redirect, "provider"));
        }
    };
    let mut to = Redirect::to(url);
    let secs = crate::siwe_login::NONCE_TTL.as_secs() as i64;
    flow_cookie(to.headers_mut(), &oidc.seal(&flow)?, secs, secure(&auth, h));
    Ok(to)
}

/// `GET …/oidc/callback?code=…&state=…` (or `error=…`), with whatever else the provider adds.
#[derive(Deserialize, JsonSchema)]
pub(super) struct Callback {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
}

/// Where the provider sends the browser back. Signs in (cookies set) and goes on to the flow's
/// page; or says on the sign-in screen why not.
pub(super) async fn callback(auth: Arc<Auth>, x: In<Nothing, Callback>) -> Result<Redirect> {
    let Some(oidc) = auth.oidc.clone() else {
        return Err(Error::not_found(
            "this site offers no sign-in with a provider",
        ));
    };
    let (h, q) = (&x.headers, &x.query);
    let mut ctx = ctx(h, x.client.clone());
    oidc.rate.check(&ctx.ip).await?;
    let fallback = language_of(None, &ctx);
    let Some(flow) = cookie_value(h, FLOW_COOKIE).and_then(|v| oidc.open(&v)) else {
        return Ok(refused(
            &auth,
            h,
            &fallback,
            &format!("/{fallback}/"),
            Refusal::State.code(),
        ));
    };
    let refuse = |why: &str| refused(&auth, h, &flow.lang, &flow.redirect, why);
    let same = q.state.as_ref().is_some_and(|s| {
        bool::from(subtle::ConstantTimeEq::ct_eq(
            s.as_bytes(),
            flow.state.as_bytes(),
        ))
    });
    // The state is spent whatever comes next: a callback URL works once.
    if !same || !auth.nonces.spend(&flow.state).await? {
        return Ok(refuse(Refusal::State.code()));
    }
    if let Some(e) = &q.error {
        let why = if e == "access_denied" {
            Refusal::Cancelled
        } else {
            Refusal::Provider
        };
        return Ok(refuse(why.code()));
    }
    let Some(code) = &q.code else {
        return Ok(refuse(Refusal::Provider.code()));
    };
    let claims = match oidc.finish(code, &flow).await {
        Ok(c) => c,
        Err(r) => return Ok(refuse(r.code())),
    };
    ctx.guest = carried(&auth, x.caller.subject, h).await;
    let signed = auth
        .oidc_sign_in(&oidc.cfg.issuer, &oidc.cfg.name, &claims, flow.link, &ctx)
        .await;
    let mut to = match onward(&auth, h, &flow, signed)? {
        Ok(to) => to,
        Err(why) => return Ok(refuse(why)),
    };
    flow_cookie(to.headers_mut(), "", 0, secure(&auth, h));
    Ok(to)
}

/// Where a sign-in's outcome sends the browser: on, signed in (or to the second step); else the
/// refusal the sign-in screen explains (`Err`), or an error of ours.
fn onward(
    auth: &Auth,
    h: &HeaderMap,
    flow: &crate::oidc_login::Flow,
    signed: Result<OidcOutcome>,
) -> Result<std::result::Result<Redirect, &'static str>> {
    Ok(Ok(match signed {
        Ok(OidcOutcome::SignedIn(SignIn::Done(t))) => {
            let mut to = Redirect::to(flow.redirect.clone());
            session_cookies(auth, h, &t, to.headers_mut());
            to
        }
        Ok(OidcOutcome::SignedIn(SignIn::SecondFactor { challenge })) => {
            let q: String = form_urlencoded::Serializer::new(String::new())
                .append_pair("challenge", &challenge)
                .append_pair("redirect", &flow.redirect)
                .finish();
            Redirect::to(format!(
                "/{}/rbac/subject/authentication/select-method?{q}",
                flow.lang
            ))
        }
        Ok(OidcOutcome::Linked) => Redirect::to(flow.redirect.clone()),
        Err(Error::Conflict { fields, .. }) if fields.contains_key("email") => {
            return Ok(Err("unconfirmed"));
        }
        Err(Error::Conflict { fields, .. }) if fields.contains_key("provider") => {
            return Ok(Err("elsewhere"));
        }
        Err(Error::TooManyRequests { .. }) => return Ok(Err("busy")),
        // Two callbacks racing to make the same identity: the first signed in; the second is
        // told to start again (a browser navigation gets the sign-in screen, not a JSON page).
        Err(Error::Conflict { .. }) => return Ok(Err(Refusal::State.code())),
        Err(Error::Unavailable(_)) => return Ok(Err(Refusal::Provider.code())),
        Err(e) => return Err(e),
    }))
}

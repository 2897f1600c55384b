//! Sign in with Google or any OpenID Connect provider: the relying party's side of the
//! authorization code flow (OpenID Connect Core 1.0 §3.1) with PKCE (RFC 7636), state and nonce,
//! through the `openidconnect` crate.
//!
//! - The provider's metadata and keys come from its discovery document, kept for ten minutes
//!   (read again at once when a token's signature does not check, for a provider that rotated
//!   its keys).
//! - The flow's secrets (the PKCE verifier, the nonce, the state, where to go after) stay in the
//!   browser that started it, in an HttpOnly cookie signed with the server's key: a callback
//!   from another browser, or with another state, is refused. The state is also a single-use
//!   server nonce, so a callback URL replayed in the same browser is refused too.
//! - The ID token's signature (the provider's keys), issuer, audience, expiry and nonce are
//!   checked by the crate; the caller gets the subject and the email only when it is verified.

use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, Instant};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use openidconnect::core::{CoreAuthenticationFlow, CoreClient, CoreProviderMetadata};
use openidconnect::{
    AuthorizationCode, ClientId, ClientSecret, CsrfToken, EndpointMaybeSet, EndpointNotSet,
    EndpointSet, HttpRequest, HttpResponse, IssuerUrl, Nonce, PkceCodeChallenge, PkceCodeVerifier,
    RedirectUrl, Scope, TokenResponse,
};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use stoa_kernel::{Error, Result};
use uuid::Uuid;

/// A client made from discovery: its authorization endpoint is known, its token and userinfo
/// endpoints are as the provider's metadata names them.
type Rp = CoreClient<
    EndpointSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointMaybeSet,
    EndpointMaybeSet,
>;

/// How long the provider's metadata and keys are kept.
const METADATA_TTL: Duration = Duration::from_secs(600);
/// The most of a provider's answer that is read.
const MAX_ANSWER: usize = 1 << 20;
/// The path the provider sends the browser back to (under the public URL).
pub const CALLBACK: &str = "/api/rbac/subjects/authentication/oidc/callback";
/// The cookie that carries a flow's secrets between the start and the callback.
pub const FLOW_COOKIE: &str = "stoa_oidc";

/// The provider, as configured (`STOA_OIDC_*`).
#[derive(Clone, Debug)]
pub struct OidcConfig {
    pub issuer: String,
    pub client_id: String,
    pub client_secret: String,
    /// What the button says after "Sign in with" (`Google`).
    pub name: String,
}

/// A flow under way: what the callback needs, kept in the browser's signed cookie.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Flow {
    pub state: String,
    pub verifier: String,
    pub nonce: String,
    /// Where the browser goes after (a path of this site).
    pub redirect: String,
    /// The language of the page that started it (for the error page).
    pub lang: String,
    /// Link the identity to this signed-in account instead of signing in.
    pub link: Option<Uuid>,
}

/// Who the provider says signed in.
#[derive(Clone, Debug)]
pub struct Claims {
    pub subject: String,
    /// The address, only when the provider says it is verified.
    pub email: Option<String>,
    pub name: Option<String>,
}

/// Why a callback was refused, for the page the browser lands on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// No flow cookie, a state that does not match it, or one already used or expired.
    State,
    /// The provider's answer did not check (signature, issuer, audience, nonce, expiry).
    Token,
    /// The provider could not be reached or refused the code.
    Provider,
    /// The person cancelled at the provider.
    Cancelled,
}

impl Refusal {
    pub fn code(self) -> &'static str {
        match self {
            Refusal::State => "state",
            Refusal::Token => "token",
            Refusal::Provider => "provider",
            Refusal::Cancelled => "cancelled",
        }
    }
}

#[derive(Debug)]
pub struct HttpError(String);

impl std::fmt::Display for HttpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for HttpError {}

type HttpFuture =
    Pin<Box<dyn Future<Output = std::result::Result<HttpResponse, HttpError>> + Send>>;

pub struct Oidc {
    pub cfg: OidcConfig,
    issuer: IssuerUrl,
    redirect: RedirectUrl,
    http: reqwest::Client,
    metadata: tokio::sync::Mutex<Option<(Instant, CoreProviderMetadata)>>,
    key: Vec<u8>,
    /// Starts and callbacks per client address: a budget of their own, so a page elsewhere that
    /// loads the start address many times cannot spend the visitor's password sign-ins.
    pub rate: stoa_api::rate::Budget,
}

/// One request to the provider through our client: no redirects followed, time and size bounded.
fn send(client: reqwest::Client, req: HttpRequest) -> HttpFuture {
    Box::pin(async move {
        let (parts, body) = req.into_parts();
        let mut res = client
            .request(parts.method, parts.uri.to_string())
            .headers(parts.headers)
            .body(body)
            .send()
            .await
            .map_err(|e| HttpError(format!("the provider could not be reached: {e}")))?;
        let status = res.status();
        let headers = res.headers().clone();
        let mut body = Vec::new();
        while let Some(chunk) = res
            .chunk()
            .await
            .map_err(|e| HttpError(format!("the provider's answer broke off: {e}")))?
        {
            if body.len() + chunk.len() > MAX_ANSWER {
                return Err(HttpError("the provider's answer is too large".into()));
            }
            body.extend_from_slice(&chunk);
        }
        let mut out = http::Response::new(body);
        *out.status_mut() = status;
        *out.headers_mut() = headers;
        Ok(out)
    })
}

impl Oidc {
    /// The provider of `cfg`, sending people back to `public_url`; `key` signs flow cookies.
    pub fn new(
        cfg: OidcConfig,
        public_url: &str,
        key: &[u8],
        shared: Option<stoa_store::cluster::Shared>,
    ) -> stoa_api::module::ModuleResult<Self> {
        // Exactly as configured: discovery requires the provider's `issuer` to equal it, and some
        // end with a slash (Auth0's do).
        let issuer =
            IssuerUrl::new(cfg.issuer.clone()).map_err(|e| format!("STOA_OIDC_ISSUER: {e}"))?;
        let redirect = RedirectUrl::new(format!("{}{CALLBACK}", public_url.trim_end_matches('/')))
            .map_err(|e| format!("the OIDC redirect address: {e}"))?;
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(Duration::from_secs(5))
            .timeout(Duration::from_secs(10))
            .user_agent("Stoa")
            .build()
            .map_err(|e| format!("an HTTP client for the OIDC provider: {e}"))?;
        let mut mac = Hmac::<Sha256>::new_from_slice(key).map_err(|e| e.to_string())?;
        mac.update(b"stoa oidc flow cookie");
        Ok(Self {
            cfg,
            issuer,
            redirect,
            http,
            metadata: tokio::sync::Mutex::new(None),
            key: mac.finalize().into_bytes().to_vec(),
            rate: stoa_api::rate::Budget::new(
                30,
                Duration::from_secs(60),
                "OIDC sign-ins per address",
                shared.map(|s| (s, "rbac.oidc")),
            ),
        })
    }

    fn http(&self) -> impl Fn(HttpRequest) -> HttpFuture + use<> {
        let client = self.http.clone();
        move |req| send(client.clone(), req)
    }

    /// The provider's metadata and keys (`fresh`: read again now).
    async fn metadata(&self, fresh: bool) -> Result<CoreProviderMetadata> {
        let mut held = self.metadata.lock().await;
        if !fresh
            && let Some((at, m)) = held.as_ref()
            && at.elapsed() < METADATA_TTL
        {
            return Ok(m.clone());
        }
        let http = self.http();
        let m = CoreProviderMetadata::discover_async(self.issuer.clone(), &http)
            .await
            .map_err(|e| {
                tracing::warn!(issuer = %self.cfg.issuer, error = %e, "the OIDC provider's discovery failed");
                Error::Unavailable(format!(
                    "{} cannot be reached right now; try again or sign in another way",
                    self.cfg.name
                ))
            })?;
        *held = Some((Instant::now(), m.clone()));
        Ok(m)
    }

    fn client(&self, m: CoreProviderMetadata) -> Rp {
        CoreClient::from_provider_metadata(
            m,
            ClientId::new(self.cfg.client_id.clone()),
            Some(ClientSecret::new(self.cfg.client_secret.clone())),
        )
        .set_redirect_uri(self.redirect.clone())
    }

    /// The provider's sign-in page for a new flow with `state` (a single-use server nonce), and
    /// the flow to keep in the browser.
    pub async fn begin(
        &self,
        state: String,
        redirect: String,
        lang: String,
        link: Option<Uuid>,
    ) -> Result<(String, Flow)> {
        let client = self.client(self.metadata(false).await?);
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let given = state.clone();
        let (url, _, nonce) = client
            .authorize_url(
                CoreAuthenticationFlow::AuthorizationCode,
                move || CsrfToken::new(given),
                Nonce::new_random,
            )
            .add_scope(Scope::new("email".into()))
            .add_scope(Scope::new("profile".into()))
            .set_pkce_challenge(challenge)
            .url();
        let flow = Flow {
            state,
            verifier: verifier.secret().clone(),
            nonce: nonce.secret().clone(),
            redirect,
            lang,
            link,
        };
        Ok((url.to_string(), flow))
    }

    /// Redeems `code` for the flow's ID token and checks it.
    pub async fn finish(&self, code: &str, flow: &Flow) -> std::result::Result<Claims, Refusal> {
        let m = self.metadata(false).await.map_err(|_| Refusal::Provider)?;
        let client = self.client(m);
        let http = self.http();
        let request = client
            .exchange_code(AuthorizationCode::new(code.to_owned()))
            .map_err(|e| {
                tracing::warn!(error = %e, "the OIDC provider names no token endpoint");
                Refusal::Provider
            })?
            .set_pkce_verifier(PkceCodeVerifier::new(flow.verifier.clone()));
        let token = request.request_async(&http).await.map_err(|e| {
            tracing::info!(error = %e, "the OIDC provider refused the code");
            Refusal::Provider
        })?;
        let Some(id_token) = token.id_token() else {
            tracing::info!("the OIDC provider answered without an ID token");
            return Err(Refusal::Token);
        };
        let nonce = Nonce::new(flow.nonce.clone());
        match claims_of(&client, id_token, &nonce) {
            Ok(c) => Ok(c),
            // The keys may have rotated since they were read: read them once more and check
            // the same token again (the code is spent; it is never redeemed twice).
            Err(e) if e.contains("signature") || e.contains("key") => {
                tracing::info!(error = %e, "an OIDC ID token's signature did not check; reading the provider's keys again");
                let m = self.metadata(true).await.map_err(|_| Refusal::Provider)?;
                claims_of(&self.client(m), id_token, &nonce).map_err(|e| {
                    tracing::warn!(error = %e, "an OIDC ID token was refused");
                    Refusal::Token
                })
            }
            Err(e) => {
                tracing::warn!(error = %e, "an OIDC ID token was refused");
                Err(Refusal::Token)
            }
        }
    }

    /// The flow as a cookie value: its JSON, base64url, and an HMAC-SHA256 of that.
    pub fn seal(&self, flow: &Flow) -> Result<String> {
        let body = URL_SAFE_NO_PAD.encode(serde_json::to_vec(flow).map_err(Error::internal)?);
        Ok(format!("{body}.{}", self.mac(&body)))
    }

    /// The flow a cookie value carries, when it is one this server sealed.
    pub fn open(&self, value: &str) -> Option<Flow> {
        let (body, sig) = value.split_once('.')?;
        let want = self.mac(body);
        if !bool::from(subtle::ConstantTimeEq::ct_eq(
            want.as_bytes(),
            sig.as_bytes(),
        )) {
            return None;
        }
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(body).ok()?).ok()
    }

    fn mac(&self, body: &str) -> String {
        let Ok(mut m) = Hmac::<Sha256>::new_from_slice(&self.key) else {
            return String::new();
        };
        m.update(body.as_bytes());
        hex::encode(m.finalize().into_bytes())
    }
}

/// The checked claims of `id_token` (signature, issuer, audience, expiry, nonce).
fn claims_of(
    client: &Rp,
    id_token: &openidconnect::core::CoreIdToken,
    nonce: &Nonce,
) -> std::result::Result<Claims, String> {
    let c = id_token
        .claims(&client.id_token_verifier(), nonce)
        .map_err(|e| e.to_string())?;
    Ok(Claims {
        subject: c.subject().as_str().to_owned(),
        email: c
            .email()
            .filter(|_| c.email_verified() == Some(true))
            .map(|e| e.as_str().trim().to_lowercase()),
        name: c
            .name()
            .and_then(|n| n.get(None))
            .map(|n| n.as_str().to_owned()),
    })
}

/// The login key of a provider's subject: issuer and subject (a subject is unique per issuer).
pub fn account_key(issuer: &str, subject: &str) -> String {
    format!("{}#{subject}", issuer.trim_end_matches('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn oidc() -> Oidc {
        stoa_api::tls::install();
        let cfg = OidcConfig {
            issuer: "https://accounts.example.com".into(),
            client_id: "c".into(),
            client_secret: "s".into(),
            name: "Example".into(),
        };
        match Oidc::new(
            cfg,
            "https://site.example",
            b"0123456789abcdef0123456789abcdef",
            None,
        ) {
            Ok(o) => o,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn a_sealed_flow_opens_only_as_sealed() {
        let o = oidc();
        let flow = Flow {
            state: "st".into(),
            verifier: "v".into(),
            nonce: "n".into(),
            redirect: "/ru/".into(),
            lang: "ru".into(),
            link: None,
        };
        let sealed = o.seal(&flow).unwrap_or_default();
        assert_eq!(o.open(&sealed).map(|f| f.state), Some("st".into()));
        // Any change to the body or the signature is refused.
        let (body, sig) = sealed.split_once('.').unwrap_or_default();
        let mut other = flow.clone();
        other.link = Some(Uuid::nil());
        let forged = o.seal(&other).unwrap_or_default();
        let forged_body = forged.split_once('.').map(|(b, _)| b).unwrap_or_default();
        assert!(o.open(&format!("{forged_body}.{sig}")).is_none());
        assert!(o.open(&format!("{body}.{}", "0".repeat(64))).is_none());
        assert!(o.open(body).is_none());
        // Another server's key does not open it.
        let cfg = o.cfg.clone();
        let other_server = Oidc::new(
            cfg,
            "https://site.example",
            b"another key, 32 bytes long......",
            None,
        );
        assert!(other_server.is_ok_and(|s| s.open(&sealed).is_none()));
    }
}

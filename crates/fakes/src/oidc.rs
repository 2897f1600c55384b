//! A local OpenID Connect provider for the authorization code flow with PKCE, written from
//! OpenID Connect Core 1.0 (<https://openid.net/specs/openid-connect-core-1_0.html>: §3.1 the code
//! flow, §2 and §3.1.3.6 the ID token, §5.3 UserInfo), OpenID Connect Discovery 1.0
//! (<https://openid.net/specs/openid-connect-discovery-1_0.html>: §4 the provider metadata),
//! RFC 7636 (<https://www.rfc-editor.org/rfc/rfc7636>: PKCE, `S256` only), RFC 6749
//! (<https://www.rfc-editor.org/rfc/rfc6749>: §2.3.1 client authentication, §4.1 the code grant,
//! §5 token responses and errors), RFC 7517 (JWKS) and RFC 6750 (Bearer tokens).
//!
//! One confidential client is registered. `/authorize` approves at once (no login page) and signs in
//! the person set with [`OidcFake::set_user`]; the ID tokens it issues can be spoiled on request
//! ([`Tamper`]) so a relying party's validation can be tested.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Map, Value, json};
use sha2::{Digest as _, Sha256};
use time::OffsetDateTime;

use crate::util::{ct_eq, random_alnum};

// The signing keys: RSA 2048, PKCS#1 PEM (`openssl genrsa -traditional 2048`). They are committed to
// the repository and so are public: they are for local tests only and must never sign anything real.
// Key 1 signs the ID tokens and is published at `/jwks`; key 2 is published nowhere (Tamper::WrongKey).
const KEY_1_PEM: &str = include_str!("../assets/oidc-key-1.pem");
const KEY_2_PEM: &str = include_str!("../assets/oidc-key-2.pem");

/// Key 1's modulus, base64url without padding (RFC 7518 §6.3.1.1), as published in the JWKS.
const JWK_N: &str = "ofNn0FG8w5YM5n4AJwZm2czKwg3I70kSWPEoqqi-ftutdLQOb5z3CWxkPPuvsBOqkrcH8bFZ3637Vab5-KZmniAkMWSkOfLYP3XnI15XUREQGPApMIECHWXaWm69Yt_WwZe3-Zaj5IccE7pBBa3kBFlwr_8VZFnqps3u7HMQMrsviKYqDEB9K6Zl4DWZEFqsQTtyndGdhmhvj0vr2LjZ1s29W4MaaRIYnBfnNw847YK2zcUdZFIpP6kgKG8xtdgM_yVGjm5v6kNDIRbk89OJ25fMLGuCMJYwT-OdiVKQIrrDfkuMhU5moD0IkCfvxIX90RYZcuv-FW9_QkLyCO6gvQ";
/// Key 1's public exponent (65537), base64url without padding.
const JWK_E: &str = "AQAB";
const KID: &str = "fake-1";

const CLIENT_ID: &str = "stoa-test-client";
const CLIENT_SECRET: &str = "stoa-test-secret";
/// The `iss` of `Tamper::WrongIssuer` tokens.
const OTHER_ISSUER: &str = "https://issuer.example.invalid";
/// The `aud` of `Tamper::WrongAudience` tokens.
const OTHER_CLIENT: &str = "another-client";

/// How long an authorization code can be redeemed (RFC 6749 §4.1.2 recommends at most 10 minutes).
const CODE_LIFETIME: Duration = Duration::from_secs(600);
/// `expires_in` of the access tokens.
const ACCESS_TOKEN_SECONDS: u64 = 3600;
/// ID token lifetime (`exp` − `iat`).
const ID_TOKEN_SECONDS: i64 = 300;

/// How the ID tokens deviate from honest ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tamper {
    None,
    /// signed by a key not in the JWKS (same kid)
    WrongKey,
    /// a claim changed after signing (payload edited, signature kept)
    EditedPayload,
    /// the nonce claim is not the one the client sent
    WrongNonce,
    /// aud is another client
    WrongAudience,
    /// exp in the past
    Expired,
    /// iss is another issuer
    WrongIssuer,
}

/// The person an authorization signs in.
#[derive(Clone, Debug)]
struct User {
    sub: String,
    email: Option<String>,
    email_verified: bool,
    name: String,
}

impl Default for User {
    fn default() -> Self {
        User {
            sub: "user-1".to_owned(),
            email: Some("ada@example.com".to_owned()),
            email_verified: true,
            name: "Ada".to_owned(),
        }
    }
}

/// An authorization code not yet redeemed.
struct Grant {
    redirect_uri: String,
    nonce: Option<String>,
    code_challenge: String,
    user: User,
    /// Unix seconds of the (automatic) authentication.
    auth_time: i64,
    issued: Instant,
}

struct AccessToken {
    user: User,
    expires: Instant,
}

struct Inner {
    user: User,
    tamper: Tamper,
    codes: HashMap<String, Grant>,
    /// Codes already redeemed → the access token each gave (revoked if the code is replayed).
    redeemed: HashMap<String, String>,
    access_tokens: HashMap<String, AccessToken>,
    tokens_issued: usize,
}

impl Default for Inner {
    fn default() -> Self {
        Inner {
            user: User::default(),
            tamper: Tamper::None,
            codes: HashMap::new(),
            redeemed: HashMap::new(),
            access_tokens: HashMap::new(),
            tokens_issued: 0,
        }
    }
}

struct Shared {
    issuer: String,
    client_id: String,
    client_secret: String,
    /// Key 1: signs the ID tokens, published at `/jwks`.
    signing_key: EncodingKey,
    /// Key 2: published nowhere.
    stranger_key: EncodingKey,
    inner: Mutex<Inner>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A running fake provider.
#[derive(Clone)]
pub struct OidcFake {
    /// `http://127.0.0.1:PORT`, no trailing slash: the `iss` of its tokens and the base of its endpoints.
    pub issuer: String,
    pub client_id: String,
    pub client_secret: String,
    shared: Arc<Shared>,
}

impl OidcFake {
    /// Starts on 127.0.0.1 on a free port with client id "stoa-test-client" and secret "stoa-test-secret".
    pub async fn start() -> std::io::Result<OidcFake> {
        let signing_key = rsa_key(KEY_1_PEM)?;
        let stranger_key = rsa_key(KEY_2_PEM)?;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr: SocketAddr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            issuer: format!("http://{addr}"),
            client_id: CLIENT_ID.to_owned(),
            client_secret: CLIENT_SECRET.to_owned(),
            signing_key,
            stranger_key,
            inner: Mutex::new(Inner::default()),
        });
        let app = Router::new()
            .route("/.well-known/openid-configuration", get(discovery))
            .route("/jwks", get(jwks))
            .route("/authorize", get(authorize))
            .route("/token", post(token))
            .route("/userinfo", get(userinfo).post(userinfo))
            .with_state(Arc::clone(&shared));
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(OidcFake {
            issuer: shared.issuer.clone(),
            client_id: shared.client_id.clone(),
            client_secret: shared.client_secret.clone(),
            shared,
        })
    }

    /// The person the next authorization signs in (default: sub "user-1", email Some("ada@example.com"),
    /// verified true, name "Ada"). The name stays "Ada".
    pub fn set_user(&self, sub: &str, email: Option<&str>, email_verified: bool) {
        let mut st = self.shared.lock();
        st.user.sub = sub.to_owned();
        st.user.email = email.map(str::to_owned);
        st.user.email_verified = email_verified;
    }

    /// How the next ID tokens are spoiled (default Tamper::None). It stays until set again.
    pub fn set_tamper(&self, t: Tamper) {
        self.shared.lock().tamper = t;
    }

    /// How many authorization codes were redeemed at the token endpoint.
    pub fn tokens_issued(&self) -> usize {
        self.shared.lock().tokens_issued
    }
}

/// A PKCS#1 PEM RSA private key as a signing key. (The workspace builds jsonwebtoken without its
/// `use_pem` feature, so the PEM armour is removed here and the DER given to `from_rsa_der`.)
fn rsa_key(pem: &str) -> std::io::Result<EncodingKey> {
    if !pem
        .trim_start()
        .starts_with("-----BEGIN RSA PRIVATE KEY-----")
    {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "oidc fake: the key is not a PKCS#1 PEM RSA private key",
        ));
    }
    let b64: String = pem
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with("-----"))
        .collect();
    let der = STANDARD
        .decode(b64)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
    Ok(EncodingKey::from_rsa_der(&der))
}

fn unix_now() -> i64 {
    OffsetDateTime::now_utc().unix_timestamp()
}

/// BASE64URL(SHA256(ASCII(code_verifier))), RFC 7636 §4.2.
fn s256(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// 43 to 128 characters of `[A-Z] / [a-z] / [0-9] / "-" / "." / "_" / "~"` (RFC 7636 §4.1, §4.2).
fn pkce_value_ok(s: &str) -> bool {
    (43..=128).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
}

/// Form parameters. Empty values count as omitted and a repeated parameter is an error naming it
/// (RFC 6749 §3.1, §3.2).
fn params(raw: &[u8]) -> Result<HashMap<String, String>, String> {
    let mut out: HashMap<String, String> = HashMap::new();
    for (k, v) in form_urlencoded::parse(raw) {
        if v.is_empty() {
            continue;
        }
        match out.entry(k.into_owned()) {
            Entry::Occupied(e) => return Err(e.key().clone()),
            Entry::Vacant(e) => {
                e.insert(v.into_owned());
            }
        }
    }
    Ok(out)
}

/// Decodes one `application/x-www-form-urlencoded` value (`+` is a space, `%XX` a byte).
fn form_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b'%' => {
                let hex = s.get(i + 1..i + 3)?;
                if !hex.bytes().all(|c| c.is_ascii_hexdigit()) {
                    return None;
                }
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// `Authorization: Basic base64(urlencode(client_id) ":" urlencode(client_secret))`, RFC 6749 §2.3.1.
fn basic_credentials(value: &str) -> Option<(String, String)> {
    let (scheme, rest) = value.trim().split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let raw = String::from_utf8(STANDARD.decode(rest.trim()).ok()?).ok()?;
    let (id, secret) = raw.split_once(':')?;
    Some((form_decode(id)?, form_decode(secret)?))
}

/// `Authorization: Bearer <token>`, RFC 6750 §2.1.
fn bearer(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, rest) = value.trim().split_once(' ')?;
    let token = rest.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then(|| token.to_owned())
}

/// An RFC 6749 §5.2 error answer: 401 for `invalid_client`, else 400.
fn oauth_error(error: &str, description: &str) -> Response {
    let body = Json(json!({"error": error, "error_description": description}));
    if error == "invalid_client" {
        (
            StatusCode::UNAUTHORIZED,
            [
                (header::WWW_AUTHENTICATE, "Basic realm=\"stoa-fake-oidc\""),
                (header::CACHE_CONTROL, "no-store"),
            ],
            body,
        )
            .into_response()
    } else {
        (
            StatusCode::BAD_REQUEST,
            [(header::CACHE_CONTROL, "no-store")],
            body,
        )
            .into_response()
    }
}

/// The profile claims: email and email_verified when the user has an email, and name.
fn profile_claims(user: &User, c: &mut Map<String, Value>) {
    if let Some(email) = &user.email {
        c.insert("email".to_owned(), json!(email));
        c.insert("email_verified".to_owned(), json!(user.email_verified));
    }
    c.insert("name".to_owned(), json!(user.name));
}

/// Discovery 1.0 §4: the provider metadata.
async fn discovery(State(s): State<Arc<Shared>>) -> Response {
    let iss = &s.issuer;
    Json(json!({
        "issuer": iss,
        "authorization_endpoint": format!("{iss}/authorize"),
        "token_endpoint": format!("{iss}/token"),
        "jwks_uri": format!("{iss}/jwks"),
        "userinfo_endpoint": format!("{iss}/userinfo"),
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
        "scopes_supported": ["openid", "email", "profile"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        "code_challenge_methods_supported": ["S256"],
        "claims_supported": [
            "iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "at_hash",
            "email", "email_verified", "name"
        ],
    }))
    .into_response()
}

/// RFC 7517 §5: the public key of key 1.
async fn jwks() -> Response {
    Json(json!({
        "keys": [{"kty": "RSA", "use": "sig", "alg": "RS256", "kid": KID, "n": JWK_N, "e": JWK_E}]
    }))
    .into_response()
}

/// Core §3.1.2: the authorization endpoint, approving at once.
async fn authorize(State(s): State<Arc<Shared>>, RawQuery(query): RawQuery) -> Response {
    let bad = |msg: &str| (StatusCode::BAD_REQUEST, msg.to_owned()).into_response();
    let p = match params(query.as_deref().unwrap_or("").as_bytes()) {
        Ok(p) => p,
        Err(name) => return bad(&format!("parameter {name} is repeated")),
    };
    match p.get("client_id") {
        Some(id) if *id == s.client_id => {}
        Some(_) => return bad("unknown client_id"),
        None => return bad("client_id is missing"),
    }
    let Some(redirect_uri) = p.get("redirect_uri") else {
        return bad("redirect_uri is missing");
    };
    let http = redirect_uri.starts_with("http://") || redirect_uri.starts_with("https://");
    if !http || redirect_uri.contains('#') {
        return bad("redirect_uri must be an absolute http(s) URL without a fragment");
    }
    match p.get("response_type").map(String::as_str) {
        Some("code") => {}
        Some(_) => return bad("unsupported response_type: only code"),
        None => return bad("response_type is missing"),
    }
    let openid = p
        .get("scope")
        .is_some_and(|scope| scope.split(' ').any(|x| x == "openid"));
    if !openid {
        return bad("scope must contain openid");
    }
    let Some(code_challenge) = p.get("code_challenge") else {
        return bad("code_challenge is missing (PKCE is required)");
    };
    if p.get("code_challenge_method").map(String::as_str) != Some("S256") {
        return bad("code_challenge_method must be S256");
    }
    if !pkce_value_ok(code_challenge) {
        return bad("code_challenge is malformed");
    }

    let code = random_alnum(32);
    {
        let mut st = s.lock();
        let user = st.user.clone();
        st.codes.insert(
            code.clone(),
            Grant {
                redirect_uri: redirect_uri.clone(),
                nonce: p.get("nonce").cloned(),
                code_challenge: code_challenge.clone(),
                user,
                auth_time: unix_now(),
                issued: Instant::now(),
            },
        );
    }
    let sep = if !redirect_uri.contains('?') {
        "?"
    } else if redirect_uri.ends_with('?') || redirect_uri.ends_with('&') {
        ""
    } else {
        "&"
    };
    let mut q = form_urlencoded::Serializer::new(String::new());
    q.append_pair("code", &code);
    if let Some(state) = p.get("state") {
        q.append_pair("state", state);
    }
    let location = format!("{redirect_uri}{sep}{}", q.finish());
    (StatusCode::FOUND, [(header::LOCATION, location)]).into_response()
}

/// RFC 6749 §4.1.3 / Core §3.1.3: the token endpoint.
async fn token(State(s): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let media_type = content_type.split(';').next().unwrap_or("").trim();
    if !media_type.eq_ignore_ascii_case("application/x-www-form-urlencoded") {
        return oauth_error(
            "invalid_request",
            "the body must be application/x-www-form-urlencoded",
        );
    }
    let p = match params(&body) {
        Ok(p) => p,
        Err(name) => {
            return oauth_error("invalid_request", &format!("parameter {name} is repeated"));
        }
    };

    // Client authentication: exactly one of client_secret_basic and client_secret_post (RFC 6749 §2.3).
    let basic = match headers.get(header::AUTHORIZATION) {
        None => None,
        Some(v) => match v.to_str().ok().and_then(basic_credentials) {
            Some(c) => Some(c),
            None => return oauth_error("invalid_client", "malformed Basic credentials"),
        },
    };
    let (id, secret) = match (basic, p.get("client_secret")) {
        (Some(_), Some(_)) => {
            return oauth_error(
                "invalid_request",
                "more than one client authentication method",
            );
        }
        (Some((id, secret)), None) => {
            if p.get("client_id").is_some_and(|c| *c != id) {
                return oauth_error(
                    "invalid_client",
                    "client_id differs from the Basic credentials",
                );
            }
            (id, secret)
        }
        (None, Some(secret)) => match p.get("client_id") {
            Some(id) => (id.clone(), secret.clone()),
            None => return oauth_error("invalid_client", "client_id is missing"),
        },
        (None, None) => return oauth_error("invalid_client", "client authentication is required"),
    };
    // Both compared, in constant time.
    let known = ct_eq(&id, &s.client_id) & ct_eq(&secret, &s.client_secret);
    if !known {
        return oauth_error("invalid_client", "unknown client or wrong secret");
    }

    match p.get("grant_type").map(String::as_str) {
        Some("authorization_code") => {}
        Some(_) => {
            return oauth_error(
                "unsupported_grant_type",
                "only authorization_code is supported",
            );
        }
        None => return oauth_error("invalid_request", "grant_type is missing"),
    }
    let Some(code) = p.get("code") else {
        return oauth_error("invalid_request", "code is missing");
    };
    let Some(redirect_uri) = p.get("redirect_uri") else {
        return oauth_error("invalid_request", "redirect_uri is missing");
    };
    let Some(verifier) = p.get("code_verifier") else {
        return oauth_error("invalid_request", "code_verifier is missing");
    };

    // The code is spent by this attempt, successful or not.
    let (grant, tamper) = {
        let mut st = s.lock();
        let Some(grant) = st.codes.remove(code.as_str()) else {
            // A replayed code: revoke the access token it gave (RFC 6749 §4.1.2).
            if let Some(access_token) = st.redeemed.get(code.as_str()).cloned() {
                st.access_tokens.remove(&access_token);
                return oauth_error("invalid_grant", "the authorization code was already used");
            }
            return oauth_error("invalid_grant", "unknown authorization code");
        };
        (grant, st.tamper)
    };
    if grant.issued.elapsed() > CODE_LIFETIME {
        return oauth_error("invalid_grant", "the authorization code expired");
    }
    if grant.redirect_uri != *redirect_uri {
        return oauth_error(
            "invalid_grant",
            "redirect_uri differs from the authorization request's",
        );
    }
    let proven = pkce_value_ok(verifier) && ct_eq(&s256(verifier), &grant.code_challenge);
    if !proven {
        return oauth_error(
            "invalid_grant",
            "code_verifier does not match the code_challenge",
        );
    }

    let access_token = random_alnum(43);
    let id_token = match id_token(&s, &grant, &access_token, tamper, unix_now()) {
        Ok(t) => t,
        Err(e) => {
            return (
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("oidc fake: cannot sign the ID token: {e}"),
            )
                .into_response();
        }
    };
    {
        let mut st = s.lock();
        st.access_tokens.insert(
            access_token.clone(),
            AccessToken {
                user: grant.user.clone(),
                expires: Instant::now() + Duration::from_secs(ACCESS_TOKEN_SECONDS),
            },
        );
        st.redeemed.insert(code.clone(), access_token.clone());
        st.tokens_issued += 1;
    }
    (
        StatusCode::OK,
        [
            (header::CACHE_CONTROL, "no-store"),
            (header::PRAGMA, "no-cache"),
        ],
        Json(json!({
            "access_token": access_token,
            "token_type": "Bearer",
            "expires_in": ACCESS_TOKEN_SECONDS,
            "id_token": id_token,
            "scope": "openid email profile",
        })),
    )
        .into_response()
}

/// The ID token (Core §2, §3.1.3.6) for `grant`, spoiled as `tamper` says.
fn id_token(
    s: &Shared,
    grant: &Grant,
    access_token: &str,
    tamper: Tamper,
    now: i64,
) -> Result<String, String> {
    let iss = if tamper == Tamper::WrongIssuer {
        OTHER_ISSUER
    } else {
        s.issuer.as_str()
    };
    let aud = if tamper == Tamper::WrongAudience {
        OTHER_CLIENT
    } else {
        s.client_id.as_str()
    };
    let (iat, exp) = if tamper == Tamper::Expired {
        (now - 900, now - 600)
    } else {
        (now, now + ID_TOKEN_SECONDS)
    };
    let nonce = if tamper == Tamper::WrongNonce {
        Some(random_alnum(32))
    } else {
        grant.nonce.clone()
    };
    // Core §3.1.3.6: the left half of SHA-256 of the access token, base64url.
    let at_hash = URL_SAFE_NO_PAD.encode(&Sha256::digest(access_token.as_bytes())[..16]);

    let mut c = Map::new();
    c.insert("iss".to_owned(), json!(iss));
    c.insert("sub".to_owned(), json!(grant.user.sub));
    c.insert("aud".to_owned(), json!(aud));
    c.insert("exp".to_owned(), json!(exp));
    c.insert("iat".to_owned(), json!(iat));
    c.insert("auth_time".to_owned(), json!(grant.auth_time.min(iat)));
    if let Some(nonce) = nonce {
        c.insert("nonce".to_owned(), json!(nonce));
    }
    c.insert("at_hash".to_owned(), json!(at_hash));
    profile_claims(&grant.user, &mut c);

    let mut head = Header::new(Algorithm::RS256);
    head.kid = Some(KID.to_owned());
    let key = if tamper == Tamper::WrongKey {
        &s.stranger_key
    } else {
        &s.signing_key
    };
    let jwt = jsonwebtoken::encode(&head, &c, key).map_err(|e| e.to_string())?;
    if tamper != Tamper::EditedPayload {
        return Ok(jwt);
    }
    // Another subject in the payload, the original signature kept.
    c.insert(
        "sub".to_owned(),
        json!(format!("{}-edited", grant.user.sub)),
    );
    let payload = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&c).map_err(|e| e.to_string())?);
    let mut parts = jwt.split('.');
    let (Some(h), Some(_), Some(sig)) = (parts.next(), parts.next(), parts.next()) else {
        return Err("the signed token is not a compact JWS".to_owned());
    };
    Ok(format!("{h}.{payload}.{sig}"))
}

/// Core §5.3: the UserInfo endpoint (GET and POST), with the access token as a Bearer header.
async fn userinfo(State(s): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    let Some(token) = bearer(&headers) else {
        return (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            "an access token is required",
        )
            .into_response();
    };
    let user = s
        .lock()
        .access_tokens
        .get(&token)
        .filter(|a| a.expires > Instant::now())
        .map(|a| a.user.clone());
    let Some(user) = user else {
        return (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer error=\"invalid_token\"")],
            "the access token is unknown, revoked or expired",
        )
            .into_response();
    };
    let mut c = Map::new();
    c.insert("sub".to_owned(), json!(user.sub));
    profile_claims(&user, &mut c);
    Json(Value::Object(c)).into_response()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use jsonwebtoken::{DecodingKey, Validation, decode, decode_header};

    const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
    const REDIRECT: &str = "http://127.0.0.1:9/callback?from=test";

    fn jwks_key() -> DecodingKey {
        DecodingKey::from_rsa_components(JWK_N, JWK_E).unwrap()
    }

    fn validation(f: &OidcFake) -> Validation {
        let mut v = Validation::new(Algorithm::RS256);
        v.set_audience(&[f.client_id.as_str()]);
        v.set_issuer(&[f.issuer.as_str()]);
        v.leeway = 0;
        v
    }

    #[test]
    fn jwks_constants_are_key_1() {
        let mut head = Header::new(Algorithm::RS256);
        head.kid = Some(KID.to_owned());
        let claims = json!({"sub": "x", "exp": unix_now() + 60});
        let mut v = Validation::new(Algorithm::RS256);
        v.validate_aud = false;
        let t1 = jsonwebtoken::encode(&head, &claims, &rsa_key(KEY_1_PEM).unwrap()).unwrap();
        let got = decode::<Value>(&t1, &jwks_key(), &v).unwrap();
        assert_eq!(got.claims["sub"], "x");
        assert_eq!(got.header.kid.as_deref(), Some(KID));
        let t2 = jsonwebtoken::encode(&head, &claims, &rsa_key(KEY_2_PEM).unwrap()).unwrap();
        assert!(decode::<Value>(&t2, &jwks_key(), &v).is_err());
    }

    #[test]
    fn s256_is_rfc7636_appendix_b() {
        assert_eq!(
            s256(VERIFIER),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
        assert!(pkce_value_ok(VERIFIER));
        assert!(pkce_value_ok(&s256(VERIFIER)));
        assert!(!pkce_value_ok("short"));
        assert!(!pkce_value_ok(&format!("{VERIFIER}+")));
    }

    #[test]
    fn basic_credentials_are_form_decoded() {
        let h = format!("Basic {}", STANDARD.encode("a%3Ab+c:s%25e+cret"));
        assert_eq!(
            basic_credentials(&h),
            Some(("a:b c".to_owned(), "s%e cret".to_owned()))
        );
        assert_eq!(basic_credentials("Bearer abc"), None);
        assert_eq!(
            basic_credentials(&format!("Basic {}", STANDARD.encode("%zz:x"))),
            None
        );
    }

    fn client() -> reqwest::Client {
        let _ = rustls::crypto::ring::default_provider().install_default();
        reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap()
    }

    /// Authorizes with `nonce` and state "s t&ü", returning the code.
    async fn authorize_code(c: &reqwest::Client, f: &OidcFake, nonce: &str) -> String {
        let challenge = s256(VERIFIER);
        let r = c
            .get(format!("{}/authorize", f.issuer))
            .query(&[
                ("response_type", "code"),
                ("client_id", f.client_id.as_str()),
                ("redirect_uri", REDIRECT),
                ("scope", "openid email profile"),
                ("state", "s t&ü"),
                ("nonce", nonce),
                ("code_challenge", challenge.as_str()),
                ("code_challenge_method", "S256"),
            ])
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 302);
        let location = r.headers()["location"].to_str().unwrap().to_owned();
        assert!(location.starts_with("http://127.0.0.1:9/callback?from=test&code="));
        let url = reqwest::Url::parse(&location).unwrap();
        let q: HashMap<String, String> = url.query_pairs().into_owned().collect();
        assert_eq!(q["state"], "s t&ü");
        assert_eq!(q["from"], "test");
        q["code"].clone()
    }

    async fn redeem(c: &reqwest::Client, f: &OidcFake, code: &str) -> reqwest::Response {
        c.post(format!("{}/token", f.issuer))
            .basic_auth(&f.client_id, Some(&f.client_secret))
            .form(&[
                ("grant_type", "authorization_code"),
                ("code", code),
                ("redirect_uri", REDIRECT),
                ("code_verifier", VERIFIER),
            ])
            .send()
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn code_flow_with_pkce() {
        let f = OidcFake::start().await.unwrap();
        let c = client();
        let d: Value = c
            .get(format!("{}/.well-known/openid-configuration", f.issuer))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(d["issuer"], f.issuer.as_str());
        assert_eq!(d["token_endpoint"], format!("{}/token", f.issuer).as_str());
        let jwks: Value = c
            .get(format!("{}/jwks", f.issuer))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(jwks["keys"][0]["kid"], KID);

        // A bad authorization request is refused.
        let r = c
            .get(format!(
                "{}/authorize?response_type=code&client_id={}&redirect_uri={REDIRECT}&scope=openid",
                f.issuer, f.client_id
            ))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 400);

        let code = authorize_code(&c, &f, "n-0S6_WzA2Mj").await;
        // Wrong secret (client_secret_post).
        let r = c
            .post(format!("{}/token", f.issuer))
            .form(&[
                ("grant_type", "authorization_code"),
                ("code", code.as_str()),
                ("redirect_uri", REDIRECT),
                ("code_verifier", VERIFIER),
                ("client_id", f.client_id.as_str()),
                ("client_secret", "nope"),
            ])
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 401);
        let e: Value = r.json().await.unwrap();
        assert_eq!(e["error"], "invalid_client");

        let r = redeem(&c, &f, &code).await;
        assert_eq!(r.status(), 200);
        assert_eq!(r.headers()["cache-control"], "no-store");
        let t: Value = r.json().await.unwrap();
        assert_eq!(t["token_type"], "Bearer");
        let id_token = t["id_token"].as_str().unwrap();
        assert_eq!(decode_header(id_token).unwrap().kid.as_deref(), Some(KID));
        let claims = decode::<Value>(id_token, &jwks_key(), &validation(&f))
            .unwrap()
            .claims;
        assert_eq!(claims["sub"], "user-1");
        assert_eq!(claims["nonce"], "n-0S6_WzA2Mj");
        assert_eq!(claims["email"], "ada@example.com");
        assert_eq!(claims["email_verified"], true);
        assert_eq!(f.tokens_issued(), 1);

        let access = t["access_token"].as_str().unwrap().to_owned();
        let r = c
            .get(format!("{}/userinfo", f.issuer))
            .bearer_auth(&access)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let u: Value = r.json().await.unwrap();
        assert_eq!(u["sub"], "user-1");
        assert_eq!(u["name"], "Ada");

        // The code is single-use; its replay revokes the access token.
        let r = redeem(&c, &f, &code).await;
        assert_eq!(r.status(), 400);
        let e: Value = r.json().await.unwrap();
        assert_eq!(e["error"], "invalid_grant");
        let r = c
            .get(format!("{}/userinfo", f.issuer))
            .bearer_auth(&access)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 401);
        assert_eq!(f.tokens_issued(), 1);

        // A verifier that does not match the challenge.
        let code = authorize_code(&c, &f, "n2").await;
        let r = c
            .post(format!("{}/token", f.issuer))
            .basic_auth(&f.client_id, Some(&f.client_secret))
            .form(&[
                ("grant_type", "authorization_code"),
                ("code", code.as_str()),
                ("redirect_uri", REDIRECT),
                ("code_verifier", "x".repeat(43).as_str()),
            ])
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 400);
        let e: Value = r.json().await.unwrap();
        assert_eq!(e["error"], "invalid_grant");

        // Another user, without an email.
        f.set_user("user-2", None, false);
        let code = authorize_code(&c, &f, "n3").await;
        let t: Value = redeem(&c, &f, &code).await.json().await.unwrap();
        let claims = decode::<Value>(
            t["id_token"].as_str().unwrap(),
            &jwks_key(),
            &validation(&f),
        )
        .unwrap()
        .claims;
        assert_eq!(claims["sub"], "user-2");
        assert!(claims.get("email").is_none());
        assert_eq!(f.tokens_issued(), 2);
    }

    #[tokio::test]
    async fn tampered_id_tokens() {
        let f = OidcFake::start().await.unwrap();
        let c = client();
        for tamper in [
            Tamper::None,
            Tamper::WrongKey,
            Tamper::EditedPayload,
            Tamper::WrongNonce,
            Tamper::WrongAudience,
            Tamper::Expired,
            Tamper::WrongIssuer,
        ] {
            f.set_tamper(tamper);
            let code = authorize_code(&c, &f, "nonce-1").await;
            let r = redeem(&c, &f, &code).await;
            assert_eq!(r.status(), 200, "{tamper:?}");
            let t: Value = r.json().await.unwrap();
            let id_token = t["id_token"].as_str().unwrap();
            assert_eq!(decode_header(id_token).unwrap().kid.as_deref(), Some(KID));
            let got = decode::<Value>(id_token, &jwks_key(), &validation(&f));
            match tamper {
                Tamper::None => assert_eq!(got.unwrap().claims["nonce"], "nonce-1"),
                Tamper::WrongNonce => {
                    assert_ne!(got.unwrap().claims["nonce"], "nonce-1")
                }
                _ => assert!(got.is_err(), "{tamper:?} token accepted"),
            }
        }
        assert_eq!(f.tokens_issued(), 7);
    }
}

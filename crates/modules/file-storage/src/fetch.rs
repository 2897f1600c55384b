//! Downloads for create-from-url, safe from server-side request forgery: the name is resolved
//! once, every address it gives must be public (loopback, private, link-local, multicast,
//! unspecified, shared, documentation and cloud-metadata ranges are refused in every spelling,
//! IPv4-mapped and -embedded IPv6 included), and the connection goes to that checked address
//! only. Redirects are followed by hand (at most three), each checked the same way. Time and
//! size are bounded.

use std::net::SocketAddr;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use stoa_kernel::{Error, Result};
use url::{Host, Url};

pub const MAX_REDIRECTS: usize = 3;

/// What a download brought.
#[derive(Debug)]
pub struct Download {
    pub bytes: Bytes,
    /// The last path segment of the final URL, for metadata.
    pub name: Option<String>,
}

#[derive(Clone, Debug)]
pub struct Fetcher {
    /// Private addresses an operator allowed (`STOA_FETCH_ALLOW`).
    pub allow: Vec<SocketAddr>,
    pub timeout: Duration,
    pub max_bytes: usize,
}

/// `10.0.0.5:443,[fd00::1]:80` → the addresses.
pub fn parse_allow(v: Option<&str>) -> Result<Vec<SocketAddr>, String> {
    stoa_api::outbound::parse_allow(v, "STOA_FETCH_ALLOW")
}

fn refuse(msg: impl Into<String>) -> Error {
    Error::invalid_field("url", msg)
}

impl Fetcher {
    /// The one address `url` may be fetched from.
    async fn address(&self, url: &Url) -> Result<SocketAddr> {
        stoa_api::outbound::public_address(url, &self.allow, "url").await
    }

    /// Downloads `raw`, following at most [`MAX_REDIRECTS`] redirects.
    pub async fn get(&self, raw: &str) -> Result<Download> {
        let mut url = Url::parse(raw.trim()).map_err(|e| refuse(format!("not a URL: {e}")))?;
        let started = tokio::time::Instant::now();
        for hop in 0..=MAX_REDIRECTS {
            fetchable(&url)?;
            let res = self.request(&url, started).await?;
            let status = res.status();
            if status.is_redirection() {
                url = redirected(&url, &res, hop)?;
                continue;
            }
            if !status.is_success() {
                return Err(refuse(format!("the server answered {status}")));
            }
            let bytes = self.body(res).await?;
            let name = url
                .path_segments()
                .and_then(|mut s| s.next_back().map(str::to_owned))
                .filter(|s| !s.is_empty());
            return Ok(Download { bytes, name });
        }
        Err(refuse(format!("more than {MAX_REDIRECTS} redirects")))
    }

    /// Sends the request for `url` to its one checked address, in the time left since `started`.
    async fn request(&self, url: &Url, started: tokio::time::Instant) -> Result<reqwest::Response> {
        let addr = self.address(url).await?;
        let left = self
            .timeout
            .checked_sub(started.elapsed())
            .ok_or_else(|| refuse("the download took too long"))?;
        let mut builder = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .connect_timeout(Duration::from_secs(5))
            .timeout(left)
            .user_agent("stoa-file-storage");
        if let Some(Host::Domain(d)) = url.host() {
            // The connection goes to the checked address, never to a second lookup's answer.
            builder = builder.resolve(d, addr);
        }
        let client = builder
            .build()
            .map_err(|e| Error::internal(format!("http client: {e}")))?;
        client
            .get(url.clone())
            .send()
            .await
            .map_err(|e| refuse(format!("the download failed: {}", short(&e))))
    }

    /// The body of `res`, refused when it is larger than the limit.
    async fn body(&self, mut res: reqwest::Response) -> Result<Bytes> {
        if res
            .content_length()
            .is_some_and(|n| n > self.max_bytes as u64)
        {
            return Err(self.too_large());
        }
        let mut buf = BytesMut::new();
        while let Some(chunk) = res
            .chunk()
            .await
            .map_err(|e| refuse(format!("the download failed: {}", short(&e))))?
        {
            if buf.len() + chunk.len() > self.max_bytes {
                return Err(self.too_large());
            }
            buf.extend_from_slice(&chunk);
        }
        Ok(buf.freeze())
    }

    /// The file is larger than the limit (413).
    fn too_large(&self) -> Error {
        Error::PayloadTooLarge(format!(
            "the file is larger than {} bytes (STOA_UPLOAD_LIMIT)",
            self.max_bytes
        ))
    }
}

/// Refuses a URL that is not http(s) or carries credentials.
fn fetchable(url: &Url) -> Result<()> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err(refuse("only http and https URLs are fetched"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(refuse("URLs with credentials are not fetched"));
    }
    Ok(())
}

/// Where the redirect `res` to the request for `url` (the `hop`th) points; refused without a
/// `Location` or past [`MAX_REDIRECTS`].
fn redirected(url: &Url, res: &reqwest::Response, hop: usize) -> Result<Url> {
    let status = res.status();
    let to = res
        .headers()
        .get(reqwest::header::LOCATION)
        .and_then(|v| v.to_str().ok())
        .ok_or_else(|| refuse(format!("the server answered {status} without a Location")))?;
    if hop == MAX_REDIRECTS {
        return Err(refuse(format!("more than {MAX_REDIRECTS} redirects")));
    }
    url.join(to)
        .map_err(|e| refuse(format!("the redirect is not a URL: {e}")))
}

fn short(e: &reqwest::Error) -> String {
    if e.is_timeout() {
        "it took too long".into()
    } else if e.is_connect() {
        "could not connect".into()
    } else {
        e.to_string().chars().take(200).collect()
    }
}

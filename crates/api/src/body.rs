//! Request bodies: `application/json` everywhere; on routes that take files also
//! `multipart/form-data` (or `x-www-form-urlencoded`) with a `data` part holding the JSON plus one
//! part per file field. Either way the handler gets the JSON value the client meant and the files
//! it sent.

use axum::body::Body as AxumBody;
use axum::extract::Request;
use axum::http::header;
use bytes::Bytes;
use serde_json::Value;
use stoa_kernel::{Error, Result};

/// Body limits, configured by the server. What bodies may hold at once, per address and in
/// time is the [`crate::gate`]'s, in front of every route.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// JSON and form bodies.
    pub json: usize,
    /// One uploaded file.
    pub file: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            json: 2 << 20,
            file: 20 << 20,
        }
    }
}

/// The JSON limit of the route a request is for, when it is smaller than [`Limits::json`] (set
/// by the request rules: a refresh token is not 2 MiB).
#[derive(Clone, Copy, Debug)]
pub struct RouteLimit(pub usize);

impl Limits {
    /// These limits for `req`'s route.
    pub fn for_request(self, req: &Request) -> Self {
        match req.extensions().get::<RouteLimit>() {
            Some(l) => Self {
                json: l.0.min(self.json),
                ..self
            },
            None => self,
        }
    }

    /// The largest multipart body a route with `file_fields` takes.
    pub fn multipart(self, file_fields: usize) -> usize {
        // 64 KiB of headroom for part headers and boundaries.
        self.json
            .saturating_add(self.file.saturating_mul(file_fields))
            .saturating_add(64 << 10)
    }
}

/// Reads and drops a moderately oversized body (declared `len`, over `cap`) so the client
/// finishes sending and reads the 413: closing with unread data makes clients see a broken pipe
/// instead. Chunk by chunk, keeping none: draining costs no memory, and the body gate's deadline
/// bounds its time.
pub(crate) async fn drain(body: AxumBody, len: usize, cap: usize) {
    if len <= cap.saturating_mul(4) && len <= 8 << 20 {
        use futures::StreamExt;
        let mut chunks = body.into_data_stream();
        let mut seen = 0usize;
        while let Some(Ok(c)) = chunks.next().await {
            seen += c.len();
            if seen >= len {
                break;
            }
        }
    }
}

/// An uploaded file part.
#[derive(Debug, Clone)]
pub struct FilePart {
    /// The form field (the entity field the file is for).
    pub field: String,
    pub file_name: Option<String>,
    pub content_type: Option<String>,
    pub bytes: Bytes,
}

#[derive(Debug)]
pub struct Body {
    pub data: Value,
    pub files: Vec<FilePart>,
}

impl Body {
    pub fn new(data: Value, files: Vec<FilePart>) -> Self {
        Self { data, files }
    }
}

/// A body read's error as the client should hear it: over `limit` is a 413, a body the gate
/// stopped (too slow, no room) its answer, anything else a 400.
pub fn read_error(e: &(dyn std::error::Error + 'static), limit: usize) -> Error {
    if let Some(st) = crate::gate::stopped(e) {
        return st.error();
    }
    let mut src: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(s) = src {
        if s.is::<http_body_util::LengthLimitError>() {
            return Error::PayloadTooLarge(format!("the body is larger than {limit} bytes"));
        }
        src = s.source();
    }
    Error::bad_request(format!("could not read the body: {e}"))
}

/// Reads a whole body of at most `limit` bytes: over it is a 413, a broken read a 400.
pub async fn read(body: AxumBody, limit: usize) -> Result<Bytes> {
    axum::body::to_bytes(body, limit)
        .await
        .map_err(|e| read_error(&e, limit))
}

fn parse_json(bytes: &[u8], what: &str) -> Result<Value> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(Error::bad_request(format!(
            "{what} is empty; send a JSON value"
        )));
    }
    serde_json::from_slice(bytes)
        .map_err(|e| Error::bad_request(format!("{what} is not valid JSON: {e}")))
}

/// The body of `req` as a JSON object; no body at all (or `null`) is `{}` — for routes whose
/// body is optional.
pub async fn object_or_empty(
    req: Request,
    limits: Limits,
) -> Result<serde_json::Map<String, serde_json::Value>> {
    let h = req.headers();
    let empty = h
        .get(header::CONTENT_LENGTH)
        .is_some_and(|v| v.as_bytes() == b"0")
        || (h.get(header::CONTENT_TYPE).is_none()
            && h.get(header::TRANSFER_ENCODING).is_none()
            && h.get(header::CONTENT_LENGTH).is_none());
    if empty {
        return Ok(serde_json::Map::new());
    }
    match parse(req, limits).await?.data {
        serde_json::Value::Object(m) => Ok(m),
        serde_json::Value::Null => Ok(serde_json::Map::new()),
        _ => Err(Error::bad_request("the body must be a JSON object")),
    }
}

/// Reads and parses the body of `req` for a route that takes no file: a multipart body is read
/// with the JSON limit and a file part is refused when its header arrives, before its bytes.
pub async fn parse(req: Request, limits: Limits) -> Result<Body> {
    parse_files(req, limits, &[]).await
}

/// The first of the site's languages `Accept-Language` lists (`ru-RU,en;q=0.8` → `ru`), else
/// `fallback`.
pub fn accept_language(headers: &axum::http::HeaderMap, fallback: &str) -> String {
    headers
        .get(axum::http::header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.split(',')
                .map(|l| {
                    l.split([';', '-'])
                        .next()
                        .unwrap_or("")
                        .trim()
                        .to_ascii_lowercase()
                })
                .find(|l| stoa_kernel::model::LANGUAGES.contains(&l.as_str()))
        })
        .unwrap_or_else(|| fallback.to_owned())
}

/// The request's media type, lower-cased, without parameters (`""` when none is sent).
pub fn media_type(headers: &axum::http::HeaderMap) -> String {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// Reads and parses the body of `req` for a route whose `file_fields` take one file part each
/// (up to `limits.file` bytes apiece). A file part for any other name is refused before it is
/// read; without a `data` field a multipart body that carries files means `{}`.
pub async fn parse_files(req: Request, limits: Limits, file_fields: &[&str]) -> Result<Body> {
    let limits = limits.for_request(&req);
    // The boundary is case-sensitive (`----WebKitFormBoundaryAbC…`): only the type is compared
    // case-insensitively, the header itself is kept as sent.
    let ct = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let mime = media_type(req.headers());
    if file_fields.is_empty() && mime != "application/json" && !mime.is_empty() {
        // Forms are for routes that take files; everything else is JSON (which an HTML form on
        // another site cannot send without a preflight).
        return Err(Error::UnsupportedMediaType(format!(
            "content type '{mime}' is not taken here: send the body as application/json"
        )));
    }
    let cap = if mime == "multipart/form-data" {
        limits.multipart(file_fields.len())
    } else {
        limits.json
    };
    if let Some(len) = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<usize>().ok())
        && len > cap
    {
        drain(req.into_body(), len, cap).await;
        return Err(Error::PayloadTooLarge(format!(
            "the body is larger than {cap} bytes"
        )));
    }
    parse_mime(req, &mime, &ct, limits, file_fields, cap).await
}

async fn parse_mime(
    req: Request,
    mime: &str,
    ct: &str,
    limits: Limits,
    file_fields: &[&str],
    cap: usize,
) -> Result<Body> {
    match mime {
        "application/json" | "" => {
            let bytes = read(req.into_body(), limits.json).await?;
            Ok(Body::new(parse_json(&bytes, "the body")?, Vec::new()))
        }
        "application/x-www-form-urlencoded" => {
            let bytes = read(req.into_body(), limits.json).await?;
            let data = form_urlencoded::parse(&bytes)
                .find(|(k, _)| k == "data")
                .map(|(_, v)| v.into_owned())
                .ok_or_else(|| Error::bad_request("the form needs a `data` field holding JSON"))?;
            Ok(Body::new(
                parse_json(data.as_bytes(), "the `data` field")?,
                Vec::new(),
            ))
        }
        "multipart/form-data" => multipart(req, ct, limits, file_fields, cap).await,
        other => Err(Error::UnsupportedMediaType(format!(
            "content type '{other}' is not taken here: send application/json, or multipart/form-data with the JSON in a `data` part and one part per file"
        ))),
    }
}

async fn multipart(
    req: Request,
    ct: &str,
    limits: Limits,
    file_fields: &[&str],
    cap: usize,
) -> Result<Body> {
    let boundary = multer::parse_boundary(ct)
        .map_err(|e| Error::bad_request(format!("malformed multipart body: {e}")))?;
    let mut size = multer::SizeLimit::new()
        .whole_stream(cap as u64)
        .per_field(limits.json as u64);
    for f in file_fields {
        size = size.for_field(*f, limits.file as u64);
    }
    let constraints = multer::Constraints::new().size_limit(size);
    let stream = req.into_body().into_data_stream();
    let mut mp = multer::Multipart::with_constraints(stream, boundary, constraints);
    let mut data = None;
    let mut files: Vec<FilePart> = Vec::new();
    let mp_err = |e: multer::Error| match e {
        multer::Error::StreamReadFailed(inner) => match crate::gate::stopped(&*inner) {
            Some(s) => s.error(),
            None => Error::bad_request(format!("malformed multipart body: {inner}")),
        },
        multer::Error::StreamSizeExceeded { .. } => {
            Error::PayloadTooLarge(format!("the body is larger than {cap} bytes"))
        }
        multer::Error::FieldSizeExceeded { field_name, .. } => {
            let name = field_name.unwrap_or_default();
            if file_fields.contains(&name.as_str()) {
                Error::PayloadTooLarge(format!(
                    "file '{name}' is larger than {} bytes (STOA_UPLOAD_LIMIT)",
                    limits.file
                ))
            } else {
                Error::PayloadTooLarge(format!(
                    "the multipart field '{name}' is larger than {} bytes",
                    limits.json
                ))
            }
        }
        other => Error::bad_request(format!("malformed multipart body: {other}")),
    };
    while let Some(field) = mp.next_field().await.map_err(mp_err)? {
        let name = field.name().unwrap_or("").to_owned();
        let file_name = field.file_name().map(str::to_owned);
        if file_name.is_some() || (name != "data" && file_fields.contains(&name.as_str())) {
            // Refused on its header: the bytes of a file nobody takes are never buffered.
            if !file_fields.contains(&name.as_str()) {
                return Err(if file_fields.is_empty() {
                    Error::bad_field(
                        &name,
                        "this route takes no file; send the fields as JSON (or in a multipart `data` field)",
                    )
                } else {
                    Error::bad_field(
                        &name,
                        format!(
                            "not a file field here; files go in {}",
                            file_fields.join(", ")
                        ),
                    )
                });
            }
            if files.iter().any(|f| f.field == name) {
                return Err(Error::bad_field(&name, "send one file per field"));
            }
            let content_type = field.content_type().map(|m| m.to_string());
            let bytes = field.bytes().await.map_err(mp_err)?;
            files.push(FilePart {
                field: name,
                file_name,
                content_type,
                bytes,
            });
        } else if name == "data" {
            let bytes = field.bytes().await.map_err(mp_err)?;
            data = Some(parse_json(&bytes, "the `data` field")?);
        } else {
            // Other text fields are read (within the JSON limit) and ignored.
            field.bytes().await.map_err(mp_err)?;
        }
    }
    let data = match data {
        Some(d) => d,
        None if !files.is_empty() => Value::Object(serde_json::Map::new()),
        None => {
            return Err(Error::bad_request(
                "the multipart body needs a `data` field holding JSON",
            ));
        }
    };
    Ok(Body::new(data, files))
}

/// A request body read as the typed struct `T` (serde): a 422 names the field that does not
/// fit — missing (`is required`), of the wrong type, or refused by `T`'s own rules.
pub fn typed<T: serde::de::DeserializeOwned>(
    body: serde_json::Map<String, serde_json::Value>,
) -> Result<T> {
    serde_path_to_error::deserialize(serde_json::Value::Object(body)).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        // serde names a missing field only in its message: "missing field `login`".
        if let Some(name) = inner
            .strip_prefix("missing field `")
            .and_then(|r| r.split('`').next())
        {
            let field = if path == "." {
                name.to_owned()
            } else {
                format!("{path}.{name}")
            };
            return Error::invalid_field(&field, "is required");
        }
        let message = if inner.contains("expected a string") {
            "must be a string".to_owned()
        } else {
            inner
        };
        if path == "." {
            Error::Invalid {
                message,
                fields: Default::default(),
            }
        } else {
            Error::invalid_field(&path, message)
        }
    })
}

/// The OpenAPI schema of the typed body `T`, generated from its declaration (schemars).
pub fn schema_of<T: schemars::JsonSchema>() -> serde_json::Value {
    schema_for::<T>(schemars::generate::Contract::Deserialize)
}

/// The OpenAPI schema of the typed answer `T`: what it serialises to (an `Option` field is there,
/// as `null` when empty, rather than optional).
pub fn answer_schema_of<T: schemars::JsonSchema>() -> serde_json::Value {
    schema_for::<T>(schemars::generate::Contract::Serialize)
}

fn schema_for<T: schemars::JsonSchema>(
    contract: schemars::generate::Contract,
) -> serde_json::Value {
    // Nested types are written in place: the operation's schema stands alone in the document
    // (no `$defs` to point into).
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
            s.contract = contract;
        })
        .into_generator();
    let mut v = serde_json::to_value(generator.into_root_schema_for::<T>()).unwrap_or_default();
    if let Some(o) = v.as_object_mut() {
        o.remove("$schema");
        // The generator titles the root with the type's name; a title the type declares
        // (`#[schemars(title = "RbacMe")]`) is kept: the document names the component after it.
        if o.get("title").and_then(serde_json::Value::as_str) == Some(&*T::schema_name()) {
            o.remove("title");
        }
        // A field that defaults to nothing is optional, not "null by default" (generated
        // clients would make it required).
        if let Some(props) = o.get_mut("properties").and_then(|p| p.as_object_mut()) {
            for p in props.values_mut().filter_map(|p| p.as_object_mut()) {
                if p.get("default").is_some_and(serde_json::Value::is_null) {
                    p.remove("default");
                }
            }
        }
    }
    v
}

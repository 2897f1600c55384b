//! Small helpers shared by the fakes: digests, ids, decimals, form and multipart bodies, HTML escaping.

use base64::Engine as _;
use hmac::{Hmac, Mac};
use md5::{Digest as _, Md5};
use rand::Rng as _;
use serde_json::{Map, Value};
use sha2::Sha256;
use subtle::ConstantTimeEq as _;
use time::OffsetDateTime;

/// HMAC-SHA256 of `msg` under `key`.
pub fn hmac_sha256(key: &[u8], msg: &[u8]) -> Vec<u8> {
    match Hmac::<Sha256>::new_from_slice(key) {
        Ok(mut mac) => {
            mac.update(msg);
            mac.finalize().into_bytes().to_vec()
        }
        // HMAC takes keys of any length; this arm is unreachable.
        Err(_) => Vec::new(),
    }
}

pub fn hmac_sha256_hex(key: &str, msg: &str) -> String {
    hex::encode(hmac_sha256(key.as_bytes(), msg.as_bytes()))
}

pub fn hmac_sha256_b64(key: &str, msg: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(hmac_sha256(key.as_bytes(), msg))
}

/// Lower-case hex MD5 (PayKeeper and 0xProcessing impose it).
pub fn md5_hex(s: &str) -> String {
    hex::encode(Md5::digest(s.as_bytes()))
}

pub fn ct_eq(a: &str, b: &str) -> bool {
    a.len() == b.len() && bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

pub fn random_alnum(n: usize) -> String {
    rand::rng()
        .sample_iter(&rand::distr::Alphanumeric)
        .take(n)
        .map(char::from)
        .collect()
}

pub fn random_digits(n: usize) -> String {
    let mut rng = rand::rng();
    (0..n)
        .map(|_| char::from(b'0' + rng.random_range(0..10u8)))
        .collect()
}

pub fn random_hex(n: usize) -> String {
    let mut rng = rand::rng();
    (0..n)
        .map(|_| char::from(b"0123456789abcdef"[rng.random_range(0..16usize)]))
        .collect()
}

pub fn now() -> OffsetDateTime {
    OffsetDateTime::now_utc()
}

/// `yyyy-MM-dd HH:mm:ss` in UTC.
pub fn fmt_datetime(t: OffsetDateTime) -> String {
    let f = time::macros::format_description!("[year]-[month]-[day] [hour]:[minute]:[second]");
    t.format(&f).unwrap_or_default()
}

/// `yyyy-MM-ddTHH:mm:ss` (no offset), as CloudPayments' `…Iso` fields.
pub fn fmt_iso_local(t: OffsetDateTime) -> String {
    let f = time::macros::format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]");
    t.format(&f).unwrap_or_default()
}

pub fn fmt_date(t: OffsetDateTime) -> String {
    let f = time::macros::format_description!("[year]-[month]-[day]");
    t.format(&f).unwrap_or_default()
}

/// A decimal in major units as minor units with `exp` fraction digits: "10.5" → 1050 (exp 2).
/// `None` when the text is not a plain non-negative decimal or has more fraction digits than `exp`.
pub fn to_minor(s: &str, exp: u32) -> Option<i64> {
    let s = s.trim();
    let (int, frac) = match s.split_once('.') {
        Some((i, f)) => (i, f),
        None => (s, ""),
    };
    if int.is_empty()
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    if frac.len() > exp as usize {
        return None;
    }
    let mut v: i64 = int.parse().ok()?;
    for _ in 0..exp {
        v = v.checked_mul(10)?;
    }
    let mut f: i64 = 0;
    for (i, c) in frac.bytes().enumerate() {
        let mut d = i64::from(c - b'0');
        for _ in 0..(exp as usize - i - 1) {
            d *= 10;
        }
        f += d;
    }
    v.checked_add(f)
}

/// Minor units back to a decimal with `exp` fraction digits: 1050 → "10.50".
pub fn from_minor(v: i64, exp: u32) -> String {
    if exp == 0 {
        return v.to_string();
    }
    let p = 10i64.pow(exp);
    format!("{}.{:0width$}", v / p, (v % p).abs(), width = exp as usize)
}

/// An amount as sent, rendered with two decimals when it is a plain decimal ("199" → "199.00").
pub fn two_dp(s: &str) -> String {
    match to_minor(s, 2) {
        Some(m) => from_minor(m, 2),
        None => s.to_string(),
    }
}

/// A JSON number or string as the text of a decimal.
pub fn json_decimal_text(v: &Value) -> Option<String> {
    match v {
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

pub fn is_email(s: &str) -> bool {
    match s.split_once('@') {
        Some((l, d)) => {
            !l.is_empty()
                && d.contains('.')
                && !d.starts_with('.')
                && !d.ends_with('.')
                && !s.contains(char::is_whitespace)
        }
        None => false,
    }
}

pub fn is_upper_iso_currency(s: &str) -> bool {
    s.len() == 3 && s.bytes().all(|b| b.is_ascii_uppercase())
}

pub fn parse_form(body: &[u8]) -> Vec<(String, String)> {
    form_urlencoded::parse(body)
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

pub fn encode_form(pairs: &[(String, String)]) -> String {
    let mut s = form_urlencoded::Serializer::new(String::new());
    for (k, v) in pairs {
        s.append_pair(k, v);
    }
    s.finish()
}

/// Percent-decodes a whole form body (`+` as space) while keeping its `&` and `=` separators —
/// the "URL-decoded" text CloudPayments signs for `X-Content-HMAC`.
pub fn url_decode_body(body: &str) -> String {
    let bytes = body.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b'%' if i + 2 < bytes.len() => {
                match (
                    char::from(bytes[i + 1]).to_digit(16),
                    char::from(bytes[i + 2]).to_digit(16),
                ) {
                    (Some(h), Some(l)) => {
                        out.push(u8::try_from(h * 16 + l).unwrap_or(b'?'));
                        i += 3;
                    }
                    _ => {
                        out.push(b'%');
                        i += 1;
                    }
                }
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Text fields of a `multipart/form-data` body (files are kept as their lossy text).
pub fn parse_multipart(content_type: &str, body: &[u8]) -> Option<Vec<(String, String)>> {
    let boundary = content_type
        .split(';')
        .map(str::trim)
        .find_map(|p| p.strip_prefix("boundary="))?
        .trim_matches('"')
        .to_string();
    let text = String::from_utf8_lossy(body);
    let delim = format!("--{boundary}");
    let mut out = Vec::new();
    for part in text.split(delim.as_str()).skip(1) {
        if part.starts_with("--") {
            break;
        }
        let part = part.strip_prefix("\r\n").unwrap_or(part);
        let (head, value) = part.split_once("\r\n\r\n")?;
        let value = value.strip_suffix("\r\n").unwrap_or(value);
        let name = head.lines().find_map(|l| {
            let lower = l.to_ascii_lowercase();
            if !lower.starts_with("content-disposition") {
                return None;
            }
            let idx = lower
                .find(" name=\"")
                .map(|i| i + 7)
                .or_else(|| lower.find(";name=\"").map(|i| i + 7))?;
            let rest = &l[idx..];
            rest.split('"').next().map(str::to_string)
        })?;
        out.push((name, value.to_string()));
    }
    Some(out)
}

/// Stripe's bracket notation (`a[b][0][c]=v`) as nested JSON; objects whose keys are all indices become arrays.
pub fn nest_form(pairs: &[(String, String)]) -> Value {
    let mut root = Value::Object(Map::new());
    for (k, v) in pairs {
        let mut segs: Vec<String> = Vec::new();
        match k.find('[') {
            Some(i) => {
                segs.push(k[..i].to_string());
                for s in k[i..].split('[').skip(1) {
                    segs.push(s.trim_end_matches(']').to_string());
                }
            }
            None => segs.push(k.clone()),
        }
        let mut cur = &mut root;
        let last = segs.len().saturating_sub(1);
        for (i, s) in segs.iter().enumerate() {
            let Value::Object(map) = cur else { break };
            if i == last {
                map.insert(s.clone(), Value::String(v.clone()));
                break;
            }
            let entry = map
                .entry(s.clone())
                .or_insert_with(|| Value::Object(Map::new()));
            if !entry.is_object() {
                *entry = Value::Object(Map::new());
            }
            cur = entry;
        }
    }
    arrayify(root)
}

fn arrayify(v: Value) -> Value {
    match v {
        Value::Object(map) => {
            let all_idx = !map.is_empty() && map.keys().all(|k| k.parse::<usize>().is_ok());
            if all_idx {
                let mut items: Vec<(usize, Value)> = map
                    .into_iter()
                    .map(|(k, v)| (k.parse::<usize>().unwrap_or(0), arrayify(v)))
                    .collect();
                items.sort_by_key(|(i, _)| *i);
                Value::Array(items.into_iter().map(|(_, v)| v).collect())
            } else {
                Value::Object(map.into_iter().map(|(k, v)| (k, arrayify(v))).collect())
            }
        }
        other => other,
    }
}

/// Every string leaf replaced by a fresh UUID: a reference that was never issued.
pub fn randomize_strings(v: &Value) -> Value {
    match v {
        Value::String(_) => Value::String(uuid::Uuid::new_v4().to_string()),
        Value::Array(a) => Value::Array(a.iter().map(randomize_strings).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), randomize_strings(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

pub fn html_escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// `host` and `host:port` of an absolute http(s) URL.
pub fn url_hosts(url: &str) -> Vec<String> {
    let rest = url.split_once("://").map(|(_, r)| r).unwrap_or(url);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    if authority.is_empty() {
        return Vec::new();
    }
    let mut out = vec![authority.to_string()];
    if let Some((h, p)) = authority.rsplit_once(':')
        && !h.is_empty()
        && !p.is_empty()
        && p.bytes().all(|b| b.is_ascii_digit())
    {
        out.push(h.to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minor_units() {
        assert_eq!(to_minor("10.5", 2), Some(1050));
        assert_eq!(to_minor("199", 2), Some(19900));
        assert_eq!(to_minor("0.07", 2), Some(7));
        assert_eq!(to_minor("1.005", 2), None);
        assert_eq!(to_minor("-1", 2), None);
        assert_eq!(from_minor(1050, 2), "10.50");
        assert_eq!(from_minor(7, 2), "0.07");
        assert_eq!(from_minor(500, 0), "500");
        assert_eq!(two_dp("199"), "199.00");
    }

    #[test]
    fn nesting() {
        let v = nest_form(&[
            ("line_items[0][price_data][currency]".into(), "usd".into()),
            ("line_items[0][quantity]".into(), "2".into()),
            ("metadata[a]".into(), "b".into()),
            ("mode".into(), "payment".into()),
        ]);
        assert_eq!(v["line_items"][0]["price_data"]["currency"], "usd");
        assert_eq!(v["line_items"][0]["quantity"], "2");
        assert_eq!(v["metadata"]["a"], "b");
        assert_eq!(v["mode"], "payment");
    }

    #[test]
    fn multipart() {
        let body = b"--XX\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--XX\r\nContent-Disposition: form-data; name=\"b\"\r\n\r\nx y\r\n--XX--\r\n";
        let v = parse_multipart("multipart/form-data; boundary=XX", body);
        assert_eq!(
            v,
            Some(vec![("a".into(), "1".into()), ("b".into(), "x y".into())])
        );
    }

    #[test]
    fn decoding_and_hosts() {
        assert_eq!(
            url_decode_body("a=1+2&b=%7B%22x%22%3A1%7D"),
            "a=1 2&b={\"x\":1}"
        );
        assert_eq!(
            url_hosts("http://127.0.0.1:4000/api/x"),
            vec!["127.0.0.1:4000".to_string(), "127.0.0.1".to_string()]
        );
        assert_eq!(
            url_hosts("https://shop.example/x"),
            vec!["shop.example".to_string()]
        );
        assert_eq!(md5_hex("abc"), "900150983cd24fb0d6963f7d28e17f72");
    }
}

//! Parse, don't validate: JSON input becomes typed [`Val`]s checked against the declaration.

use std::str::FromStr;

use rust_decimal::Decimal;
use serde_json::{Map, Value};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use uuid::Uuid;

use crate::error::{Error, FieldErrors, Result};
use crate::model::{DefaultValue, EMPTY_DOC, Entity, Field, Format, Kind, LANGUAGES};
use crate::words;

/// A typed value, ready to bind.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    Null,
    Text(String),
    Int(i64),
    Bool(bool),
    Decimal(Decimal),
    Timestamp(OffsetDateTime),
    Uuid(Uuid),
    Json(Value),
}

/// Longest text value accepted, in bytes, when the field sets no `max_len`.
pub const MAX_TEXT: usize = 1 << 20;

/// Formats a timestamp the way the wire and SQLite hold it: RFC 3339, UTC, microseconds.
pub fn format_timestamp(t: OffsetDateTime) -> String {
    let t = t.to_offset(time::UtcOffset::UTC);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        t.microsecond()
    )
}

/// Current time truncated to microseconds (what both databases keep).
pub fn now() -> OffsetDateTime {
    let t = OffsetDateTime::now_utc();
    t.replace_nanosecond(t.microsecond() * 1000).unwrap_or(t)
}

pub fn parse_timestamp(s: &str) -> Option<OffsetDateTime> {
    if let Ok(t) = OffsetDateTime::parse(s, &Rfc3339) {
        return Some(
            t.replace_nanosecond(t.microsecond() * 1000)
                .unwrap_or(t)
                .to_offset(time::UtcOffset::UTC),
        );
    }
    // Date only: midnight UTC.
    let fmt = time::macros::format_description!("[year]-[month]-[day]");
    time::Date::parse(s, &fmt)
        .ok()
        .map(|d| d.midnight().assume_utc())
}

fn is_language_key(k: &str) -> bool {
    let mut parts = k.splitn(2, '-');
    let lang = parts.next().unwrap_or("");
    (2..=3).contains(&lang.len())
        && lang.chars().all(|c| c.is_ascii_lowercase())
        && parts.next().is_none_or(|r| {
            (2..=8).contains(&r.len()) && r.chars().all(|c| c.is_ascii_alphanumeric())
        })
}

fn empty_doc() -> Value {
    serde_json::from_str(EMPTY_DOC).unwrap_or(Value::Null)
}

/// A plain string becomes a document with one paragraph holding it.
fn text_doc(s: &str) -> Value {
    if let Ok(v @ Value::Object(_)) = serde_json::from_str::<Value>(s)
        && v.get("type").and_then(Value::as_str) == Some("doc")
    {
        return v;
    }
    if s.is_empty() {
        return empty_doc();
    }
    serde_json::json!({"type": "doc", "content": [{"type": "paragraph", "content": [{"type": "text", "text": s}]}]})
}

/// The value a default produces.
pub fn default_val(field: &Field) -> Option<Val> {
    Some(match &field.default {
        DefaultValue::None => return None,
        DefaultValue::Text(s) if field.kind == Kind::Decimal => {
            Val::Decimal(Decimal::from_str(s).unwrap_or_default())
        }
        DefaultValue::Text(s) => Val::Text((*s).to_owned()),
        DefaultValue::Int(i) => Val::Int(*i),
        DefaultValue::Bool(b) => Val::Bool(*b),
        DefaultValue::Json(s) => Val::Json(serde_json::from_str(s).unwrap_or(Value::Null)),
        DefaultValue::EmptyDoc => Val::Json(Value::Object(
            LANGUAGES
                .iter()
                .map(|l| ((*l).to_owned(), empty_doc()))
                .collect(),
        )),
        DefaultValue::Now => Val::Timestamp(now()),
        DefaultValue::NewId => Val::Uuid(Uuid::now_v7()),
        DefaultValue::RandomSlug => Val::Text(words::random_slug()),
        DefaultValue::RandomTitle => Val::Text(words::random_title()),
        DefaultValue::RandomSecret => Val::Text(
            rand::random::<[u8; 32]>()
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect(),
        ),
    })
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Uuid | Kind::Reference => "a uuid",
        Kind::Text | Kind::Enum => "a string",
        Kind::Int => "an integer",
        Kind::Bool => "a boolean",
        Kind::Decimal => "a decimal number (as a string)",
        Kind::Timestamp => "an RFC 3339 timestamp",
        Kind::Translations => "an object of language → text",
        Kind::RichText => "an object of language → rich-text document",
        Kind::Json => "JSON",
    }
}

/// Coerces one input value for `field`. `Err` holds a message for the field.
pub fn coerce(field: &Field, v: &Value) -> std::result::Result<Val, String> {
    if v.is_null() {
        return if field.required {
            Err("is required".into())
        } else {
            Ok(Val::Null)
        };
    }
    let wrong = || format!("must be {}", kind_name(field.kind));
    match field.kind {
        Kind::Uuid | Kind::Reference => {
            let s = v.as_str().ok_or_else(wrong)?;
            Uuid::parse_str(s).map(Val::Uuid).map_err(|_| wrong())
        }
        Kind::Text | Kind::Enum => {
            let s = match v {
                Value::String(s) => s.clone(),
                Value::Number(n) if field.kind == Kind::Text => n.to_string(),
                _ => return Err(wrong()),
            };
            // Blank is not a value: a required text must say something (as the admin's form
            // checks before it sends).
            // (A field declared with an empty default takes blank on purpose.)
            if field.required
                && field.kind == Kind::Text
                && field.default != crate::model::DefaultValue::Text("")
                && s.trim().is_empty()
            {
                return Err("is required".into());
            }
            check_text(field, &s)?;
            Ok(Val::Text(s))
        }
        Kind::Int => {
            let n = match v {
                Value::Number(n) => n.as_i64(),
                Value::String(s) => s.trim().parse::<i64>().ok(),
                _ => None,
            };
            n.map(Val::Int).ok_or_else(wrong)
        }
        Kind::Bool => match v {
            Value::Bool(b) => Ok(Val::Bool(*b)),
            Value::String(s) if s == "true" => Ok(Val::Bool(true)),
            Value::String(s) if s == "false" => Ok(Val::Bool(false)),
            _ => Err(wrong()),
        },
        Kind::Decimal => {
            let s = match v {
                Value::String(s) => s.trim().to_owned(),
                Value::Number(n) => n.to_string(),
                _ => return Err(wrong()),
            };
            Decimal::from_str(&s)
                .or_else(|_| Decimal::from_scientific(&s))
                .map(Val::Decimal)
                .map_err(|_| wrong())
        }
        Kind::Timestamp => {
            let s = v.as_str().ok_or_else(wrong)?;
            parse_timestamp(s).map(Val::Timestamp).ok_or_else(wrong)
        }
        Kind::Translations => {
            let obj = v.as_object().ok_or_else(wrong)?;
            for (k, t) in obj {
                if !is_language_key(k) {
                    return Err(format!("'{k}' is not a language code"));
                }
                match t {
                    Value::String(s) if s.len() <= MAX_TEXT => {}
                    Value::Null => {}
                    _ => return Err(format!("{k} must be a string")),
                }
            }
            Ok(Val::Json(v.clone()))
        }
        Kind::RichText => {
            let obj = v.as_object().ok_or_else(wrong)?;
            let mut out = Map::new();
            for (k, d) in obj {
                if !is_language_key(k) {
                    return Err(format!("'{k}' is not a language code"));
                }
                let doc = match d {
                    Value::String(s) => {
                        let d = text_doc(s);
                        check_node(&d, k, 0)?;
                        d
                    }
                    Value::Object(o) if o.get("type").and_then(Value::as_str) == Some("doc") => {
                        check_node(d, k, 0)?;
                        d.clone()
                    }
                    _ => {
                        return Err(format!(
                            "{k} must be a rich-text document ({{\"type\":\"doc\",\"content\":[…]}}) or a string"
                        ));
                    }
                };
                out.insert(k.clone(), doc);
            }
            Ok(Val::Json(Value::Object(out)))
        }
        Kind::Json => Ok(Val::Json(v.clone())),
    }
}

/// How deep a rich-text document may nest.
const MAX_DOC_DEPTH: usize = 48;

/// Checks one node of a rich-text (TipTap / ProseMirror JSON) document at `at`: an object with
/// a string `type` and only `attrs` (object), `content` (nodes), `marks` (`{type, attrs?}`)
/// and `text` (string, on text nodes) besides.
fn check_node(v: &Value, at: &str, depth: usize) -> std::result::Result<(), String> {
    if depth > MAX_DOC_DEPTH {
        return Err(format!(
            "{at}: the document nests deeper than {MAX_DOC_DEPTH} levels"
        ));
    }
    let o = v
        .as_object()
        .ok_or_else(|| format!("{at} must be a node object ({{\"type\": …}})"))?;
    let ty = o
        .get("type")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty() && t.len() <= 64)
        .ok_or_else(|| format!("{at}.type must be the node's type name"))?;
    for (key, x) in o {
        match key.as_str() {
            "type" => {}
            "attrs" if x.is_object() || x.is_null() => {}
            "attrs" => return Err(format!("{at}.attrs must be an object")),
            "text" if x.is_string() => {}
            "text" => return Err(format!("{at}.text must be a string")),
            "content" => {
                let items = x
                    .as_array()
                    .ok_or_else(|| format!("{at}.content must be an array of nodes"))?;
                for (i, n) in items.iter().enumerate() {
                    check_node(n, &format!("{at}.content[{i}]"), depth + 1)?;
                }
            }
            "marks" => {
                let marks = x
                    .as_array()
                    .ok_or_else(|| format!("{at}.marks must be an array of marks"))?;
                for (i, m) in marks.iter().enumerate() {
                    let ok = m.as_object().is_some_and(|m| {
                        m.get("type")
                            .and_then(Value::as_str)
                            .is_some_and(|t| !t.is_empty())
                            && m.iter().all(|(k, v)| {
                                k == "type" || (k == "attrs" && (v.is_object() || v.is_null()))
                            })
                    });
                    if !ok {
                        return Err(format!(
                            "{at}.marks[{i}] must be {{\"type\": …, \"attrs\"?: {{…}}}}"
                        ));
                    }
                }
            }
            other => return Err(format!("{at}: '{other}' is not a key of a rich-text node")),
        }
    }
    if ty == "text" && !o.get("text").is_some_and(Value::is_string) {
        return Err(format!("{at}: a text node needs its text"));
    }
    Ok(())
}

fn check_text(field: &Field, s: &str) -> std::result::Result<(), String> {
    let max = field.max_len.unwrap_or(MAX_TEXT);
    if s.chars().count() > max {
        return Err(format!("must be at most {max} characters"));
    }
    if field.kind == Kind::Enum && !field.values.contains(&s) {
        return Err(format!("'{s}' is not one of: {}", field.values.join(", ")));
    }
    if s.contains('\0') {
        return Err("must not contain NUL characters".into());
    }
    match field.format {
        Format::Slug => {
            if s.is_empty()
                || !s
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
            {
                return Err("must be lower-case letters, digits, '-' or '_'".into());
            }
        }
        Format::Email => {
            if !is_email(s) {
                return Err("must be an email address".into());
            }
        }
        Format::None | Format::File => {}
    }
    Ok(())
}

/// Is `s` shaped like an email address (local part, '@', a dotted domain, no spaces)?
pub fn is_email(s: &str) -> bool {
    s.len() <= 320
        && s.split_once('@').is_some_and(|(l, d)| {
            !l.is_empty() && d.contains('.') && !d.starts_with('.') && !d.ends_with('.')
        })
        && !s.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// An email address trimmed and lower-cased, or 422 naming `field`.
pub fn normalise_email(field: &str, raw: &str) -> crate::Result<String> {
    let e = raw.trim().to_lowercase();
    if is_email(&e) {
        Ok(e)
    } else {
        Err(crate::Error::invalid_field(
            field,
            "must be an email address",
        ))
    }
}

/// A record's own title (the first language of `title` that has text, cut to `max_len`
/// characters), which an admin title left out is made from rather than random words.
fn title_text(input: &Map<String, Value>, max_len: Option<usize>) -> Option<Val> {
    let text = match input.get("title")? {
        // A page's title is one text, not one per language.
        Value::String(s) => Some(s.trim()).filter(|s| !s.is_empty())?,
        Value::Object(title) => LANGUAGES
            .iter()
            .filter_map(|l| title.get(*l))
            .chain(title.values())
            .filter_map(Value::as_str)
            .map(str::trim)
            .find(|s| !s.is_empty())?,
        _ => return None,
    };
    let text: String = text.chars().take(max_len.unwrap_or(usize::MAX)).collect();
    Some(Val::Text(text.trim_end().to_owned()))
}

/// The checked values for an insert: every non-server-owned field sent, defaults for the rest,
/// server-owned fields set here. Unknown keys are ignored. Secret fields are never taken from input.
pub fn prepare_create(entity: &Entity, input: &Map<String, Value>) -> Result<Vec<(usize, Val)>> {
    let mut out = Vec::with_capacity(entity.fields.len());
    let mut errors = FieldErrors::new();
    for (i, f) in entity.fields.iter().enumerate() {
        let given = if f.server_owned || f.secret {
            None
        } else {
            input.get(f.name)
        };
        let val = match given {
            Some(v) if !(v.is_null() && f.has_default()) => match coerce(f, v) {
                Ok(v) => Some(v),
                Err(m) => {
                    errors.entry(f.name.to_owned()).or_default().push(m);
                    continue;
                }
            },
            _ if f.default == crate::model::DefaultValue::RandomTitle => {
                title_text(input, f.max_len).or_else(|| default_val(f))
            }
            _ => default_val(f),
        };
        match val {
            Some(v) => out.push((i, v)),
            None if f.required && !f.secret => {
                errors
                    .entry(f.name.to_owned())
                    .or_default()
                    .push("is required".to_owned());
            }
            None => {}
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(Error::invalid_fields(errors))
    }
}

/// The checked values for an update: only the keys sent, plus `updatedAt`.
pub fn prepare_patch(entity: &Entity, input: &Map<String, Value>) -> Result<Vec<(usize, Val)>> {
    let mut out = Vec::new();
    let mut errors = FieldErrors::new();
    for (i, f) in entity.fields.iter().enumerate() {
        if f.name == "updatedAt" {
            out.push((i, Val::Timestamp(now())));
            continue;
        }
        if f.server_owned || f.secret {
            continue;
        }
        if let Some(v) = input.get(f.name) {
            match coerce(f, v) {
                Ok(v) => out.push((i, v)),
                Err(m) => {
                    errors.entry(f.name.to_owned()).or_default().push(m);
                }
            }
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(Error::invalid_fields(errors))
    }
}

/// Reads a JSON object or fails with a 422 naming what was expected.
/// The fields of a `json!({...})` object literal, as the store's inputs take them (anything but
/// an object gives no fields).
pub fn fields(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

pub fn as_object(v: &Value) -> Result<&Map<String, Value>> {
    v.as_object().ok_or_else(|| Error::Invalid {
        message: "the body must be a JSON object".into(),
        fields: FieldErrors::new(),
    })
}

/// The words of a rich-text value (a document per language, `{"en": {"type": "doc", …}}`) as
/// plain text, every language's in turn: the text of each text node, words split by marks kept
/// together, a space after each block. What a search index holds for a rich-text field.
pub fn plain_text(v: &Value) -> String {
    fn words(v: &Value, out: &mut String) {
        match v {
            Value::Object(m) => {
                if let Some(Value::String(t)) = m.get("text") {
                    out.push_str(t);
                }
                match m.get("content") {
                    Some(Value::Array(c)) => {
                        c.iter().for_each(|n| words(n, out));
                        // Blocks end with a space, so their words do not run together.
                        out.push(' ');
                    }
                    // A map of languages: each document in turn.
                    _ if !m.contains_key("type") => m.values().for_each(|d| {
                        words(d, out);
                        out.push(' ');
                    }),
                    _ => {}
                }
            }
            Value::Array(a) => a.iter().for_each(|n| words(n, out)),
            Value::String(s) => {
                out.push_str(s);
                out.push(' ');
            }
            _ => {}
        }
    }
    let mut out = String::new();
    words(v, &mut out);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rich_text_reads_as_its_words_in_every_language() {
        let doc = serde_json::json!({
            "en": {"type": "doc", "content": [
                {"type": "heading", "content": [{"type": "text", "text": "Why"}]},
                {"type": "paragraph", "content": [
                    {"type": "text", "text": "for"},
                    {"type": "text", "text": "ests", "marks": [{"type": "bold"}]},
                    {"type": "text", "text": " grow"}
                ]}
            ]},
            "ru": {"type": "doc", "content": [{"type": "paragraph", "content": [{"type": "text", "text": "Лес растёт"}]}]}
        });
        assert_eq!(plain_text(&doc), "Why forests grow Лес растёт");
        assert_eq!(plain_text(&serde_json::json!({})), "");
        assert_eq!(
            plain_text(&serde_json::json!({"en": "plain", "ru": null})),
            "plain"
        );
    }
    use crate::model::*;
    use serde_json::json;

    fn page() -> Entity {
        model("host", "page", "pages")
            .admin_title()
            .field(text("title").required().default_text("Page"))
            .field(text("url").required().unique().default_text("/"))
            .field(translations("subtitle"))
            .field(int("width"))
            .field(text("secret").secret())
            .build()
    }

    #[test]
    fn an_admin_title_left_out_is_the_records_title() {
        let e = model("blog", "article", "articles")
            .admin_title()
            .field(translations("title"))
            .build();
        let at = e
            .fields
            .iter()
            .position(|f| f.name == "adminTitle")
            .unwrap();
        let admin_title = |input: Value| {
            let vals = prepare_create(&e, input.as_object().unwrap()).unwrap();
            match vals.into_iter().find(|(i, _)| *i == at).unwrap().1 {
                Val::Text(s) => s,
                other => panic!("{other:?}"),
            }
        };
        assert_eq!(
            admin_title(json!({"title": {"ru": "  Привет, мир ", "en": ""}})),
            "Привет, мир"
        );
        assert_eq!(
            admin_title(json!({"title": {"ru": "Мир", "en": "World"}})),
            "World",
            "the first language of the site's order"
        );
        assert_eq!(
            admin_title(json!({"title": {"en": "x".repeat(600)}})).len(),
            500
        );
        assert_eq!(
            admin_title(json!({"adminTitle": "Mine", "title": {"en": "T"}})),
            "Mine"
        );
        let random = admin_title(json!({"title": {"en": "  "}}));
        assert_eq!(
            random.split(' ').count(),
            3,
            "no title: random words ({random})"
        );
    }

    #[test]
    fn rich_text_must_be_a_document_of_nodes() {
        let f = rich_text("body");
        let good = json!({"en": {"type": "doc", "content": [{"type": "paragraph", "attrs": {"textAlign": null}, "content": [
            {"type": "text", "text": "Hi", "marks": [{"type": "bold"}, {"type": "link", "attrs": {"href": "/x"}}]}
        ]}]}, "ru": "Привет"});
        assert!(coerce(&f, &good).is_ok());
        for (bad, says) in [
            (
                json!({"en": {"type": "doc", "content": "x"}}),
                "en.content must be an array",
            ),
            (
                json!({"en": {"type": "doc", "content": [1, 2]}}),
                "en.content[0] must be a node",
            ),
            (
                json!({"en": {"type": "doc", "content": [{"text": "x"}]}}),
                "en.content[0].type",
            ),
            (
                json!({"en": {"type": "doc", "content": [{"type": "text"}]}}),
                "needs its text",
            ),
            (
                json!({"en": {"type": "doc", "content": [{"type": "p", "marks": [{}]}]}}),
                "marks[0]",
            ),
            (
                json!({"en": {"type": "doc", "content": [{"type": "p", "style": "x"}]}}),
                "'style'",
            ),
            (json!({"en": {"type": "doc", "attrs": []}}), "en.attrs"),
            (
                json!({"en": "{\"type\":\"doc\",\"content\":{}}"}),
                "en.content",
            ),
            (json!({"en": 5}), "must be a rich-text document"),
        ] {
            match coerce(&f, &bad) {
                Err(m) => assert!(m.contains(says), "{bad}: {m}"),
                Ok(v) => panic!("{bad} was accepted as {v:?}"),
            }
        }
        let mut deep = json!({"type": "text", "text": "x"});
        for _ in 0..100 {
            deep = json!({"type": "blockquote", "content": [deep]});
        }
        let deep = json!({"en": {"type": "doc", "content": [deep]}});
        assert!(coerce(&f, &deep).is_err_and(|m| m.contains("nests deeper")));
    }

    #[test]
    fn create_fills_defaults_and_ignores_server_owned_and_secret_keys() {
        let e = page();
        let id = "00000000-0000-0000-0000-000000000001";
        let vals = prepare_create(
            &e,
            json!({"id": id, "secret": "x", "width": "12"})
                .as_object()
                .unwrap_or(&Map::new()),
        )
        .unwrap_or_default();
        let get = |n: &str| {
            vals.iter()
                .find(|(i, _)| e.fields[*i].name == n)
                .map(|(_, v)| v.clone())
        };
        assert_ne!(
            get("id"),
            Some(Val::Uuid(Uuid::parse_str(id).unwrap_or_default()))
        );
        assert_eq!(get("title"), Some(Val::Text("Page".into())));
        assert_eq!(get("subtitle"), Some(Val::Json(json!({}))));
        assert_eq!(get("width"), Some(Val::Int(12)));
        assert_eq!(get("secret"), None);
        assert!(matches!(get("adminTitle"), Some(Val::Text(t)) if t.split(' ').count() == 3));
    }

    #[test]
    fn a_bad_variant_and_a_bad_type_are_named() {
        let e = page();
        let err = prepare_create(
            &e,
            json!({"variant": "nope", "width": "wide"})
                .as_object()
                .unwrap_or(&Map::new()),
        );
        let Err(Error::Invalid { fields, .. }) = err else {
            panic!("expected 422")
        };
        assert!(fields.contains_key("variant"));
        assert!(fields.contains_key("width"));
    }

    #[test]
    fn patch_touches_only_sent_keys() {
        let e = page();
        let vals = prepare_patch(
            &e,
            json!({"title": "New"}).as_object().unwrap_or(&Map::new()),
        )
        .unwrap_or_default();
        let names: Vec<_> = vals.iter().map(|(i, _)| e.fields[*i].name).collect();
        assert_eq!(names, vec!["updatedAt", "title"]);
    }

    #[test]
    fn rich_text_accepts_documents_and_wraps_plain_strings() {
        let f = rich_text("description");
        let v = coerce(
            &f,
            &json!({"en": "hello", "ru": {"type": "doc", "content": []}}),
        )
        .unwrap_or(Val::Null);
        let Val::Json(v) = v else { panic!() };
        assert_eq!(v["en"]["content"][0]["content"][0]["text"], "hello");
        assert_eq!(v["ru"]["type"], "doc");
        assert!(coerce(&f, &json!({"en": 5})).is_err());
    }

    #[test]
    fn timestamps_keep_microseconds_in_utc() {
        let t = parse_timestamp("2024-05-01T10:00:00.1234567+02:00")
            .unwrap_or(OffsetDateTime::UNIX_EPOCH);
        assert_eq!(format_timestamp(t), "2024-05-01T08:00:00.123456Z");
        assert!(parse_timestamp("yesterday").is_none());
    }
}

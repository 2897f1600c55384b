//! A row as the API returns it: fields in declaration order, JSON columns kept as raw JSON text
//! (no parse-and-reserialise on the read path).

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

#[derive(Clone, Debug)]
pub enum Cell {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    /// Text, and everything the wire carries as a string (uuids, decimals, timestamps).
    Text(String),
    /// A JSON document, as validated text.
    Json(Box<RawValue>),
    /// A JSON document as stored by Stoa in SQLite (written by serde_json; not re-parsed on the
    /// read path). Validated when serialised through serde; copied as is by [`Record::write_json`].
    JsonText(String),
}

/// A cell borrowed from a database row or a [`Cell`]: what [`CellRef::write_json`] writes.
#[derive(Clone, Copy, Debug)]
pub enum CellRef<'a> {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Text(&'a str),
    /// Validated JSON text.
    Json(&'a str),
    /// JSON text as Stoa stored it (see [`Cell::JsonText`]).
    JsonText(&'a str),
}

impl CellRef<'_> {
    /// Appends the cell as JSON: strings escaped by serde_json, JSON documents copied verbatim.
    pub fn write_json(self, out: &mut Vec<u8>) {
        match self {
            CellRef::Null => out.extend_from_slice(b"null"),
            CellRef::Bool(b) => out.extend_from_slice(if b { b"true" } else { b"false" }),
            CellRef::Int(i) => out.extend_from_slice(i.to_string().as_bytes()),
            CellRef::Float(x) => {
                let _ = serde_json::to_writer(&mut *out, &x);
            }
            CellRef::Text(t) => {
                let _ = serde_json::to_writer(&mut *out, t);
            }
            CellRef::Json(t) => out.extend_from_slice(t.as_bytes()),
            CellRef::JsonText(t) if looks_like_json_document(t) => {
                out.extend_from_slice(t.as_bytes())
            }
            CellRef::JsonText(t) => {
                let v: Value = serde_json::from_str(t).unwrap_or(Value::Null);
                let _ = serde_json::to_writer(&mut *out, &v);
            }
        }
    }

    pub fn to_owned(self) -> Cell {
        match self {
            CellRef::Null => Cell::Null,
            CellRef::Bool(b) => Cell::Bool(b),
            CellRef::Int(i) => Cell::Int(i),
            CellRef::Float(x) => Cell::Float(x),
            CellRef::Text(t) => Cell::Text(t.to_owned()),
            CellRef::Json(t) => RawValue::from_string(t.to_owned()).map_or(Cell::Null, Cell::Json),
            CellRef::JsonText(t) => Cell::JsonText(t.to_owned()),
        }
    }
}

/// Appends `{"name":value,…}` for `cells` to `out`.
pub fn write_object<'a>(out: &mut Vec<u8>, cells: impl Iterator<Item = (&'a str, CellRef<'a>)>) {
    out.push(b'{');
    for (n, (k, v)) in cells.enumerate() {
        if n > 0 {
            out.push(b',');
        }
        let _ = serde_json::to_writer(&mut *out, k);
        out.push(b':');
        v.write_json(out);
    }
    out.push(b'}');
}

impl Cell {
    pub fn as_ref(&self) -> CellRef<'_> {
        match self {
            Cell::Null => CellRef::Null,
            Cell::Bool(b) => CellRef::Bool(*b),
            Cell::Int(i) => CellRef::Int(*i),
            Cell::Float(x) => CellRef::Float(*x),
            Cell::Text(t) => CellRef::Text(t),
            Cell::Json(r) => CellRef::Json(r.get()),
            Cell::JsonText(t) => CellRef::JsonText(t),
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Cell::Text(s) => Some(s),
            _ => None,
        }
    }
}

impl Serialize for Cell {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Cell::Null => s.serialize_none(),
            Cell::Bool(b) => s.serialize_bool(*b),
            Cell::Int(i) => s.serialize_i64(*i),
            Cell::Float(x) => s.serialize_f64(*x),
            Cell::Text(t) => s.serialize_str(t),
            Cell::Json(r) => r.serialize(s),
            Cell::JsonText(t) => match RawValue::from_string(t.clone()) {
                Ok(r) => r.serialize(s),
                Err(_) => s.serialize_none(),
            },
        }
    }
}

/// One record: `(wire name, value)` pairs in declaration order, secrets never included.
#[derive(Clone, Debug, Default)]
pub struct Record(pub Vec<(&'static str, Cell)>);

impl Record {
    pub fn get(&self, name: &str) -> Option<&Cell> {
        self.0.iter().find(|(k, _)| *k == name).map(|(_, v)| v)
    }

    /// The record's id.
    pub fn id(&self) -> Option<uuid::Uuid> {
        self.uuid("id")
    }

    /// The id of a row read back from the database (always present; an internal error if not).
    pub fn must_id(&self) -> stoa_kernel::Result<uuid::Uuid> {
        self.id()
            .ok_or_else(|| stoa_kernel::Error::internal("a row without an id"))
    }

    /// A decimal field, exact (stored as text on SQLite, numeric on PostgreSQL).
    pub fn decimal(&self, name: &str) -> Option<rust_decimal::Decimal> {
        use std::str::FromStr;
        match self.get(name)? {
            Cell::Text(s) => rust_decimal::Decimal::from_str(s).ok(),
            Cell::Int(i) => Some(rust_decimal::Decimal::from(*i)),
            Cell::Float(f) => rust_decimal::Decimal::from_str(&f.to_string()).ok(),
            _ => None,
        }
    }

    /// A text (or uuid, decimal, timestamp) field; `None` when absent or NULL.
    pub fn text(&self, name: &str) -> Option<&str> {
        self.get(name).and_then(Cell::as_str)
    }

    pub fn uuid(&self, name: &str) -> Option<uuid::Uuid> {
        self.text(name).and_then(|s| uuid::Uuid::parse_str(s).ok())
    }

    pub fn int(&self, name: &str) -> Option<i64> {
        match self.get(name) {
            Some(Cell::Int(i)) => Some(*i),
            _ => None,
        }
    }

    pub fn bool(&self, name: &str) -> Option<bool> {
        match self.get(name) {
            Some(Cell::Bool(b)) => Some(*b),
            Some(Cell::Int(i)) => Some(*i != 0),
            _ => None,
        }
    }

    /// A JSON field, parsed.
    pub fn json(&self, name: &str) -> Option<Value> {
        match self.get(name)? {
            Cell::Json(r) => serde_json::from_str(r.get()).ok(),
            Cell::JsonText(t) => serde_json::from_str(t).ok(),
            _ => None,
        }
    }

    /// The record as a JSON object.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// Does `t` look like a JSON object or array we wrote? (A cheap guard, not a parse: only Stoa
/// writes these columns, through serde_json.)
fn looks_like_json_document(t: &str) -> bool {
    let t = t.trim();
    (t.starts_with('{') && t.ends_with('}')) || (t.starts_with('[') && t.ends_with(']'))
}

impl Record {
    /// Appends the record as a JSON object to `out` (the fast path for responses).
    pub fn write_json(&self, out: &mut Vec<u8>) {
        write_object(out, self.0.iter().map(|(k, v)| (*k, v.as_ref())));
    }
}

impl Serialize for Record {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fast_writer_and_serde_agree() {
        let r = Record(vec![
            ("id", Cell::Text("a\"b".into())),
            ("n", Cell::Int(-3)),
            ("ok", Cell::Bool(true)),
            ("none", Cell::Null),
            (
                "title",
                Cell::JsonText(r#"{"en":"Hi \"x\"","ru":"Привет"}"#.into()),
            ),
            ("bad", Cell::JsonText("not json".into())),
        ]);
        let mut fast = Vec::new();
        r.write_json(&mut fast);
        let fast: Value = serde_json::from_slice(&fast).unwrap_or(Value::Null);
        let slow = serde_json::to_value(&r).unwrap_or(Value::Null);
        assert_eq!(fast, slow);
        assert_eq!(fast["title"]["ru"], "Привет");
        assert_eq!(fast["bad"], Value::Null);
    }
}

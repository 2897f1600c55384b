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
    /// Text, and everything the wire carries as a string (uuids, decimals, timestamps).
    Text(String),
    /// A JSON document, as text.
    Json(Box<RawValue>),
}

impl Cell {
    /// The JSON value of this cell.
    pub fn to_value(&self) -> Value {
        match self {
            Cell::Null => Value::Null,
            Cell::Bool(b) => Value::Bool(*b),
            Cell::Int(i) => Value::from(*i),
            Cell::Text(s) => Value::String(s.clone()),
            Cell::Json(r) => serde_json::from_str(r.get()).unwrap_or(Value::Null),
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
            Cell::Text(t) => s.serialize_str(t),
            Cell::Json(r) => r.serialize(s),
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
        self.get("id")
            .and_then(Cell::as_str)
            .and_then(|s| uuid::Uuid::parse_str(s).ok())
    }

    /// The record as a JSON object.
    pub fn to_value(&self) -> Value {
        Value::Object(
            self.0
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.to_value()))
                .collect(),
        )
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

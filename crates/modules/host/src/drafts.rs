//! Unsaved edits an admin's page builder shows before saving: `POST /api/host/pages/drafts`
//! keeps a few record changes (`[{id, fields}]`) under a random key for ten minutes, and the
//! admin's framed preview (`?preview=1&frame=1&draft=<key>`) renders the page with them laid
//! over its records. Nothing is written to the database; the store is bounded (entries, their
//! size, their age), so a busy admin cannot grow it.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rand::RngCore;
use serde_json::{Map, Value};
use stoa_kernel::{Error, Result};
use uuid::Uuid;

/// How long a draft is kept.
const TTL: Duration = Duration::from_secs(600);
/// Drafts kept at once (the oldest goes first).
const MAX_DRAFTS: usize = 256;
/// Records one draft changes.
pub const MAX_PATCHES: usize = 20;

/// One record's unsaved fields.
#[derive(Clone, Debug, PartialEq)]
pub struct Patch {
    pub id: Uuid,
    pub fields: Map<String, Value>,
}

#[derive(Default)]
pub struct Drafts {
    map: Mutex<HashMap<String, (Instant, Vec<Patch>)>>,
}

impl Drafts {
    /// Reads `[{id, fields}]` (400 naming what is wrong) and keeps it; answers its key.
    pub fn keep(&self, body: &Value) -> Result<String> {
        let list = body
            .get("patches")
            .and_then(Value::as_array)
            .ok_or_else(|| Error::bad_field("patches", "send a list of {id, fields}"))?;
        if list.len() > MAX_PATCHES {
            return Err(Error::bad_field(
                "patches",
                format!("at most {MAX_PATCHES} records at once"),
            ));
        }
        let patches = list
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let id = p
                    .get("id")
                    .and_then(Value::as_str)
                    .and_then(|s| Uuid::parse_str(s).ok())
                    .ok_or_else(|| {
                        Error::bad_field(&format!("patches[{i}].id"), "must be a record id")
                    })?;
                let fields = p
                    .get("fields")
                    .and_then(Value::as_object)
                    .cloned()
                    .ok_or_else(|| {
                        Error::bad_field(&format!("patches[{i}].fields"), "must be an object")
                    })?;
                Ok(Patch { id, fields })
            })
            .collect::<Result<Vec<_>>>()?;
        self.keep_patches(patches)
    }

    /// Keeps `patches` (at most [`MAX_PATCHES`]); answers the draft's key.
    pub fn keep_patches(&self, patches: Vec<Patch>) -> Result<String> {
        if patches.len() > MAX_PATCHES {
            return Err(Error::bad_field(
                "patches",
                format!("at most {MAX_PATCHES} records at once"),
            ));
        }
        let mut bytes = [0u8; 16];
        rand::rng().fill_bytes(&mut bytes);
        let key: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let mut map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        map.retain(|_, (at, _)| now.duration_since(*at) < TTL);
        while map.len() >= MAX_DRAFTS {
            let Some(oldest) = map
                .iter()
                .min_by_key(|(_, (at, _))| *at)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            map.remove(&oldest);
        }
        map.insert(key.clone(), (now, patches));
        Ok(key)
    }

    /// The draft under `key`, while it is kept.
    pub fn get(&self, key: &str) -> Option<Vec<Patch>> {
        let map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        map.get(key)
            .filter(|(at, _)| at.elapsed() < TTL)
            .map(|(_, p)| p.clone())
    }
}

/// Whether a draft's `new` value may stand in for a record's `old` one in the renderer: the same
/// JSON type (or null on either side), and a translation map stays a map of texts. The form checks
/// types before it sends a draft; this keeps a hand-made draft from feeding the renderer a shape
/// it never gets from the store.
fn fits(old: &Value, new: &Value) -> bool {
    let texts = |m: &Map<String, Value>| m.values().all(|v| v.is_string() || v.is_null());
    match (old, new) {
        (_, Value::Null) | (Value::Null, _) => true,
        (Value::Object(o), Value::Object(n)) => !texts(o) || o.is_empty() || texts(n),
        (Value::String(_), Value::String(_))
        | (Value::Number(_), Value::Number(_))
        | (Value::Bool(_), Value::Bool(_))
        | (Value::Array(_), Value::Array(_)) => true,
        _ => false,
    }
}

/// `bundle` with each patch's fields laid over every record of that id it holds (only fields the
/// record has, with values of the shape it has: a draft cannot add what the page does not show,
/// nor hand the renderer a number where a text was).
pub fn apply(bundle: &mut Value, patches: &[Patch]) {
    match bundle {
        Value::Object(m) => {
            let id = m
                .get("id")
                .and_then(Value::as_str)
                .and_then(|s| Uuid::parse_str(s).ok());
            if let Some(p) = id.and_then(|id| patches.iter().find(|p| p.id == id)) {
                for (k, v) in &p.fields {
                    if k == "id" {
                        continue;
                    }
                    if let Some(old) = m.get_mut(k)
                        && fits(old, v)
                    {
                        *old = v.clone();
                    }
                }
            }
            for v in m.values_mut() {
                apply(v, patches);
            }
        }
        Value::Array(a) => {
            for v in a {
                apply(v, patches);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_draft_changes_the_records_it_names_and_nothing_else() {
        let a = Uuid::now_v7();
        let b = Uuid::now_v7();
        let mut bundle = json!({"page": {"id": b, "title": "Page"}, "widgets": [
            {"id": a, "title": {"ru": "Старое"}, "variant": "default", "_externals": [{"widget": {"id": a, "title": {"ru": "Старое"}}}]}
        ]});
        let fields = json!({"title": {"ru": "Новое"}, "id": Uuid::now_v7(), "secret": "x"});
        apply(
            &mut bundle,
            &[Patch {
                id: a,
                fields: fields.as_object().unwrap().clone(),
            }],
        );
        assert_eq!(bundle["widgets"][0]["title"]["ru"], "Новое");
        assert_eq!(
            bundle["widgets"][0]["_externals"][0]["widget"]["title"]["ru"],
            "Новое"
        );
        assert_eq!(bundle["widgets"][0]["id"], json!(a), "the id stays");
        assert!(
            bundle["widgets"][0].get("secret").is_none(),
            "nothing the record lacks is added"
        );
        assert_eq!(bundle["page"]["title"], "Page");
    }

    #[test]
    fn a_draft_value_of_another_shape_is_left_out() {
        let a = Uuid::now_v7();
        let mut bundle = json!({"widgets": [
            {"id": a, "title": {"ru": "Старое"}, "orderIndex": 1, "url": "/a", "subtitle": null, "flag": true}
        ]});
        let fields = json!({
            "title": {"ru": 5},
            "orderIndex": "first",
            "url": {"x": 1},
            "subtitle": {"ru": "Новый"},
            "flag": false
        });
        apply(
            &mut bundle,
            &[Patch {
                id: a,
                fields: fields.as_object().unwrap().clone(),
            }],
        );
        let w = &bundle["widgets"][0];
        assert_eq!(w["title"]["ru"], "Старое", "a translation stays texts");
        assert_eq!(w["orderIndex"], 1, "a number stays a number");
        assert_eq!(w["url"], "/a", "a text stays a text");
        assert_eq!(w["subtitle"]["ru"], "Новый", "an empty field takes a value");
        assert_eq!(w["flag"], false, "a value of the same shape is taken");
    }

    #[test]
    fn drafts_are_read_checked_and_bounded() {
        let d = Drafts::default();
        assert!(d.keep(&json!({})).is_err());
        assert!(
            d.keep(&json!({"patches": [{"id": "nope", "fields": {}}]}))
                .is_err()
        );
        let many: Vec<Value> = (0..=MAX_PATCHES)
            .map(|_| json!({"id": Uuid::now_v7(), "fields": {}}))
            .collect();
        assert!(d.keep(&json!({"patches": many})).is_err());
        let id = Uuid::now_v7();
        let key = d
            .keep(&json!({"patches": [{"id": id, "fields": {"title": "x"}}]}))
            .unwrap();
        assert_eq!(key.len(), 32);
        assert_eq!(d.get(&key).unwrap()[0].id, id);
        assert!(d.get("unknown").is_none());
        for _ in 0..MAX_DRAFTS + 5 {
            d.keep(&json!({"patches": []})).unwrap();
        }
        assert!(d.map.lock().unwrap().len() <= MAX_DRAFTS);
    }
}

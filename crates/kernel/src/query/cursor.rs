//! Keyset paging cursors: the sort values of a page's last row (each `orderBy` column, then `id`)
//! and the sort they belong to, as opaque base64url JSON. The next page starts after that row, so
//! a deep page costs what the first one does; an `offset` walks every row before it.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::Value;

use super::Order;
use crate::error::{Error, Result};
use crate::model::{Entity, Kind};
use crate::value::{Val, coerce};

/// Longest cursor accepted, in characters (sort values are bounded text; this is generous).
const MAX_LEN: usize = 4096;

/// The sort a cursor belongs to: `field:a|d` per order item.
fn signature(entity: &Entity, order: &[Order]) -> String {
    order
        .iter()
        .map(|o| {
            format!(
                "{}:{}",
                entity.fields[o.field].name,
                if o.desc { 'd' } else { 'a' }
            )
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// The cursor for a row whose sort values (as the wire writes them: one per `order` item, then
/// the row's `id`) are `values`.
pub fn encode(entity: &Entity, order: &[Order], values: Vec<Value>) -> String {
    let doc = serde_json::json!({ "s": signature(entity, order), "v": values });
    URL_SAFE_NO_PAD.encode(doc.to_string())
}

fn bad() -> Error {
    Error::bad_field(
        "after",
        "is not a cursor of this list and sort; take it from the X-Next-Cursor header of the previous page, or start again without it",
    )
}

/// The typed sort values `raw` holds, checked against `order` (the request's sort).
pub fn decode(entity: &Entity, order: &[Order], raw: &str) -> Result<Vec<Val>> {
    if raw.len() > MAX_LEN {
        return Err(bad());
    }
    let bytes = URL_SAFE_NO_PAD.decode(raw.trim()).map_err(|_| bad())?;
    let doc: Value = serde_json::from_slice(&bytes).map_err(|_| bad())?;
    if doc.get("s").and_then(Value::as_str) != Some(signature(entity, order).as_str()) {
        return Err(bad());
    }
    let values = doc.get("v").and_then(Value::as_array).ok_or_else(bad)?;
    typed(entity, order, values)
}

/// The sort values of a row as the wire writes them (one per `order` item, then the row's `id`),
/// typed by their fields: what [`decode`] reads out of a cursor, and what a scan of the store
/// pages on from without making one.
pub fn typed(entity: &Entity, order: &[Order], values: &[Value]) -> Result<Vec<Val>> {
    let id = entity.field_index("id").ok_or_else(bad)?;
    let fields = order.iter().map(|o| o.field).chain([id]);
    if values.len() != order.len() + 1 {
        return Err(bad());
    }
    fields
        .zip(values)
        .map(|(i, v)| {
            let f = &entity.fields[i];
            if v.is_null() {
                // The primary key is never null.
                return if f.name == "id" {
                    Err(bad())
                } else {
                    Ok(Val::Null)
                };
            }
            if matches!(f.kind, Kind::Text | Kind::Enum) {
                // No database text holds a NUL (PostgreSQL refuses one outright).
                return v
                    .as_str()
                    .filter(|s| !s.contains('\0') && s.len() <= MAX_LEN)
                    .map(|s| Val::Text(s.to_owned()))
                    .ok_or_else(bad);
            }
            let mut loose = f.clone();
            loose.required = true;
            coerce(&loose, v).map_err(|_| bad())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::*;

    fn article() -> Entity {
        model("blog", "article", "articles")
            .field(text("slug").unique())
            .field(int("rank").list())
            .build()
    }

    #[test]
    fn a_cursor_reads_back_typed_for_its_own_sort_only() {
        let e = article();
        let order = vec![Order {
            field: e.field_index("rank").unwrap(),
            path: None,
            desc: true,
        }];
        let id = "0190a5b2-7c3e-7000-8000-000000000001";
        let c = encode(&e, &order, vec![Value::from(7), Value::from(id)]);
        let got = decode(&e, &order, &c).unwrap();
        assert_eq!(got[0], Val::Int(7));
        assert!(matches!(got[1], Val::Uuid(_)));
        // Nulls sort too.
        let c = encode(&e, &order, vec![Value::Null, Value::from(id)]);
        assert_eq!(decode(&e, &order, &c).unwrap()[0], Val::Null);
        // Another sort, another entity's shape, tampering and junk are all refused.
        let asc = vec![Order {
            desc: false,
            ..order[0].clone()
        }];
        assert!(decode(&e, &asc, &c).is_err());
        assert!(decode(&e, &[], &c).is_err());
        for junk in [
            "",
            "%%%",
            "bm9wZQ",
            &URL_SAFE_NO_PAD.encode(r#"{"s":"rank:d","v":["x","y"]}"#),
        ] {
            assert!(decode(&e, &order, junk).is_err(), "{junk}");
        }
        let null_id = encode(&e, &order, vec![Value::from(1), Value::Null]);
        assert!(decode(&e, &order, &null_id).is_err());
    }
}

//! `GET /api/meta`: what the admin renders — every entity with its fields, kinds, defaults,
//! variants, references and admin hints.

use serde_json::{Value, json};
use stoa_kernel::model::{Entity, LANGUAGES};
use stoa_kernel::registry::Registry;

fn entity(reg: &Registry, e: &Entity) -> Value {
    let fields: Vec<Value> = e
        .public_fields()
        .map(|f| {
            json!({
                "name": f.name,
                "kind": f.kind,
                "required": f.required,
                "default": f.default,
                "unique": f.unique,
                "serverOwned": f.server_owned,
                "values": if f.values.is_empty() { Value::Null } else { json!(f.values) },
                "target": f.target,
                "format": f.format,
                "maxLength": f.max_len,
                "list": f.list,
                "searchable": f.searchable,
            })
        })
        .collect();
    let list_columns: Vec<&str> = e
        .public_fields()
        .filter(|f| f.list)
        .map(|f| f.name)
        .collect();
    let referenced_by: Vec<Value> = reg
        .referencing(&e.key())
        .into_iter()
        .map(|(r, field)| json!({"module": r.module, "name": r.name, "route": r.route, "field": field}))
        .collect();
    json!({
        "module": e.module,
        "name": e.name,
        "route": e.route,
        "path": format!("/api/{}/{}", e.module, e.route),
        "kind": e.kind,
        "table": e.table,
        "titleField": e.title_field,
        "listColumns": list_columns,
        "variants": e.variants,
        "ops": e.ops,
        "fields": fields,
        "referencedBy": referenced_by,
    })
}

pub fn meta(reg: &Registry) -> Value {
    let mut modules: Vec<&str> = reg.entities().iter().map(|e| e.module).collect();
    modules.sort_unstable();
    modules.dedup();
    json!({
        "languages": LANGUAGES,
        "modules": modules,
        "entities": reg.entities().iter().map(|e| entity(reg, e)).collect::<Vec<_>>(),
    })
}

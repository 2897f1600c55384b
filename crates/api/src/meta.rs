//! `GET /api/meta`: what the admin renders — every entity with its fields, kinds, defaults,
//! variants, references and admin hints.

use serde_json::{Value, json};
use stoa_kernel::model::{Entity, LANGUAGES};
use stoa_kernel::registry::Registry;

fn entity(reg: &Registry, e: &Entity) -> Value {
    let words = reg.words();
    let fields: Vec<Value> = e
        .public_fields()
        .map(|f| {
            let w = words.field(e.module, e.name, f.name, &f.values);
            let value_labels = match &w {
                Some(w) if !f.values.is_empty() => json!(w.values),
                _ => Value::Null,
            };
            json!({
                "label": w.as_ref().map(|w| &w.label),
                "help": w.as_ref().and_then(|w| w.help.as_ref()),
                "valueLabels": value_labels,
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
                "sortable": e.sortable(f),
                "advanced": f.advanced,
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
    let label = words.entity(e.module, e.name);
    json!({
        "label": label.as_ref().map(|l| &l.one),
        "labelMany": label.as_ref().map(|l| &l.many),
        "help": label.as_ref().and_then(|l| l.help.as_ref()),
        "group": label.as_ref().and_then(|l| l.group.as_ref()),
        "rank": label.as_ref().and_then(|l| l.rank),
        "module": e.module,
        "name": e.name,
        "route": e.route,
        "path": crate::crud::collection_path(e),
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
    let module_labels: serde_json::Map<String, Value> = modules
        .iter()
        .filter_map(|m| {
            let w = reg.words();
            w.module(m).map(|l| {
                (
                    (*m).to_owned(),
                    json!({"label": l, "help": w.module_help(m)}),
                )
            })
        })
        .collect();
    json!({
        "languages": LANGUAGES,
        "modules": modules,
        "moduleLabels": module_labels,
        "entities": reg.entities().iter().map(|e| entity(reg, e)).collect::<Vec<_>>(),
    })
}

/// The OpenAPI schemas of `/api/meta`: `Meta`, `MetaEntity`, `MetaField`. Field kinds and formats
/// are listed from the kernel, so the web's generated types change when one is added.
pub fn schemas() -> serde_json::Map<String, Value> {
    use stoa_kernel::model::{Format, Kind};
    let names = |v: Vec<Value>| Value::Array(v);
    let kinds = names(Kind::ALL.iter().map(|k| json!(k)).collect());
    let formats = names(Format::ALL.iter().map(|f| json!(f)).collect());
    let s = |t: &str| json!({"type": t});
    let nullable = |t: &str| json!({"type": [t, "null"]});
    let strings = json!({"type": "array", "items": {"type": "string"}});
    let words = json!({"anyOf": [{"$ref": "#/components/schemas/MetaWords"}, {"type": "null"}]});
    let mut out = serde_json::Map::new();
    out.insert(
        "MetaWords".into(),
        json!({"type": "object", "description": "Words people read, in each language", "properties": {
            "en": s("string"), "ru": s("string")
        }, "required": ["en", "ru"]}),
    );
    out.insert(
        "MetaField".into(),
        json!({"type": "object", "properties": {
            "label": words.clone(),
            "help": words.clone(),
            "valueLabels": {"type": ["object", "null"], "description": "Each enum value's words", "additionalProperties": {"$ref": "#/components/schemas/MetaWords"}},
            "name": s("string"),
            "kind": {"type": "string", "enum": kinds},
            "required": s("boolean"),
            "default": {"oneOf": [
                {"type": "object", "properties": {"type": s("string"), "value": {}}, "required": ["type"]},
                {"type": "null"}
            ]},
            "unique": s("boolean"),
            "serverOwned": s("boolean"),
            "values": {"type": ["array", "null"], "items": {"type": "string"}},
            "target": nullable("string"),
            "format": {"type": "string", "enum": formats},
            "maxLength": nullable("integer"),
            "list": s("boolean"),
            "searchable": s("boolean"),
            "sortable": s("boolean"),
            "advanced": {"type": "boolean", "description": "A technical field (style class, variant, admin name, address, position): the record form keeps it in its closed 'Advanced' section"}
        }, "required": ["label", "help", "valueLabels", "name", "kind", "required", "default", "unique", "serverOwned", "values", "target", "format", "maxLength", "list", "searchable", "sortable", "advanced"]}),
    );
    out.insert(
        "MetaEntity".into(),
        json!({"type": "object", "properties": {
            "label": words.clone(),
            "labelMany": words.clone(),
            "help": words.clone(),
            "group": {"anyOf": [{"type": "string", "enum": stoa_kernel::labels::PURPOSES}, {"type": "null"}], "description": "Where the admin's side list puts it (none for relations a module leaves unplaced)"},
            "rank": {"type": ["integer", "null"], "description": "Its place in that group (smaller first)"},
            "module": s("string"),
            "name": s("string"),
            "route": s("string"),
            "path": s("string"),
            "kind": {"type": "string", "enum": ["model", "relation"]},
            "table": s("string"),
            "titleField": nullable("string"),
            "listColumns": strings,
            "variants": strings,
            "ops": {"type": "object", "properties": {
                "create": s("boolean"), "update": s("boolean"), "delete": s("boolean"),
                "findOrCreate": s("boolean"), "bulk": s("boolean")
            }, "required": ["create", "update", "delete", "findOrCreate", "bulk"]},
            "fields": {"type": "array", "items": {"$ref": "#/components/schemas/MetaField"}},
            "referencedBy": {"type": "array", "items": {"type": "object", "properties": {
                "module": s("string"), "name": s("string"), "route": s("string"), "field": s("string")
            }, "required": ["module", "name", "route", "field"]}}
        }, "required": ["label", "labelMany", "help", "group", "rank", "module", "name", "route", "path", "kind", "table", "titleField", "listColumns", "variants", "ops", "fields", "referencedBy"]}),
    );
    out.insert(
        "Meta".into(),
        json!({"type": "object", "properties": {
            "languages": strings,
            "modules": strings,
            "moduleLabels": {"type": "object", "description": "Each module's words", "additionalProperties": {"type": "object", "properties": {
                "label": {"$ref": "#/components/schemas/MetaWords"}, "help": words
            }, "required": ["label", "help"]}},
            "entities": {"type": "array", "items": {"$ref": "#/components/schemas/MetaEntity"}}
        }, "required": ["languages", "modules", "moduleLabels", "entities"]}),
    );
    out
}

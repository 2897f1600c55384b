//! OpenAPI 3.1: schemas generated from the declarations, operations from the route book.

use serde_json::{Map, Value, json};
use stoa_kernel::model::{Entity, Field, Format, Kind};

/// What `Format::Slug` accepts (kernel `value::check_text`).
const SLUG_PATTERN: &str = "^[a-z0-9_-]+$";
/// What a translation map key must look like (kernel `value::is_language_key`).
const LANGUAGE_PATTERN: &str = "^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$";
use stoa_kernel::query::{MAX_LIMIT, Op};
use stoa_kernel::registry::Registry;

use crate::routes::Operation;

/// `website-builder` + `buttons-array` → `WebsiteBuilderButtonsArray`.
pub fn schema_name(e: &Entity) -> String {
    let pascal = |s: &str| -> String {
        s.split(['-', '_'])
            .map(|w| {
                let mut c = w.chars();
                c.next()
                    .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                    .unwrap_or_default()
            })
            .collect()
    };
    format!("{}{}", pascal(e.module), pascal(e.name))
}

fn sref(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

fn field_schema(f: &Field) -> Value {
    let mut s = match f.kind {
        Kind::Uuid => json!({"type": "string", "format": "uuid"}),
        Kind::Reference => json!({"type": "string", "format": "uuid", "x-references": f.target}),
        Kind::Text => {
            let mut s = json!({"type": "string"});
            if let Some(m) = f.max_len {
                s["maxLength"] = json!(m);
            }
            match f.format {
                Format::Slug => {
                    s["pattern"] = json!(SLUG_PATTERN);
                    s["minLength"] = json!(1);
                }
                Format::Email => s["format"] = json!("email"),
                Format::None | Format::File => {}
            }
            s
        }
        Kind::Enum => json!({"type": "string", "enum": f.values}),
        Kind::Int => json!({"type": "integer", "format": "int64"}),
        Kind::Bool => json!({"type": "boolean"}),
        Kind::Decimal => {
            json!({"type": "string", "format": "decimal", "pattern": "^-?[0-9]+(\\.[0-9]+)?$"})
        }
        Kind::Timestamp => json!({"type": "string", "format": "date-time"}),
        Kind::Translations => sref("Translations"),
        Kind::RichText => sref("RichText"),
        Kind::Json => json!({}),
    };
    if !f.required && !matches!(f.kind, Kind::Json) {
        s = match s {
            Value::Object(mut m) if m.contains_key("type") => {
                let t = m.remove("type").unwrap_or(Value::Null);
                m.insert("type".into(), json!([t, "null"]));
                if let Some(Value::Array(vals)) = m.get_mut("enum") {
                    vals.push(Value::Null);
                }
                Value::Object(m)
            }
            other => json!({"oneOf": [other, {"type": "null"}]}),
        };
    }
    s
}

/// The three schemas of an entity: the record, the create body and the patch body.
fn entity_schemas(e: &Entity, out: &mut Map<String, Value>) {
    let name = schema_name(e);
    let mut props = Map::new();
    let mut required = Vec::new();
    let mut create_props = Map::new();
    let mut create_required = Vec::new();
    for f in e.public_fields() {
        props.insert(f.name.to_owned(), field_schema(f));
        required.push(f.name);
        if !f.server_owned {
            create_props.insert(f.name.to_owned(), field_schema(f));
            if f.required && !f.has_default() {
                create_required.push(f.name);
            }
        }
    }
    out.insert(
        name.clone(),
        json!({"type": "object", "description": format!("{} ({})", e.key(), e.table), "properties": props, "required": required}),
    );
    out.insert(
        format!("{name}Create"),
        json!({"type": "object", "properties": create_props.clone(), "required": create_required}),
    );
    out.insert(
        format!("{name}Patch"),
        json!({"type": "object", "properties": create_props}),
    );
}

fn envelope(schema: Value) -> Value {
    json!({"type": "object", "properties": {"data": schema}, "required": ["data"]})
}

fn content(schema: Value) -> Value {
    json!({"application/json": {"schema": schema}})
}

/// A JSON or multipart (`data` field) request body.
pub fn request_body(schema: Value) -> Value {
    request_body_with_files(schema, &[])
}

/// A JSON or multipart request body whose multipart form may carry one file part for each of
/// `files` (the rest of the body is the JSON in `data`).
pub fn request_body_with_files(schema: Value, files: &[&str]) -> Value {
    let mut props = Map::new();
    props.insert(
        "data".into(),
        json!({"type": "string", "description": "The JSON body as a string"}),
    );
    for f in files {
        props.insert(
            (*f).into(),
            json!({"type": "string", "format": "binary", "description": "The file (its type is read from the bytes)"}),
        );
    }
    let required: Vec<&str> = if files.is_empty() {
        vec!["data"]
    } else {
        vec![]
    };
    json!({
        "required": true,
        "content": {
            "application/json": {"schema": schema},
            "multipart/form-data": {"schema": {
                "type": "object",
                "properties": props,
                "additionalProperties": false,
                "required": required
            }}
        }
    })
}

/// The wire names of `e`'s file fields.
pub fn file_fields(e: &Entity) -> Vec<&'static str> {
    e.fields
        .iter()
        .filter(|f| f.format == Format::File)
        .map(|f| f.name)
        .collect()
}

/// A response with a `{"data": …}` body.
pub fn ok(description: &str, schema: Value) -> Value {
    json!({"description": description, "content": content(envelope(schema))})
}

/// The error responses every operation may give.
pub fn errors(codes: &[u16]) -> Map<String, Value> {
    codes
        .iter()
        .map(|c| {
            let d = match c {
                400 => "Malformed request",
                401 => "Not signed in",
                403 => "Not allowed",
                404 => "Not found",
                409 => "Conflicts with existing data",
                413 => "Body too large",
                415 => "Unsupported content type",
                422 => "Invalid values",
                429 => "Too many requests",
                503 => "Unavailable",
                _ => "Error",
            };
            (
                c.to_string(),
                json!({"description": d, "content": content(sref("Error"))}),
            )
        })
        .collect()
}

pub fn operation(
    e: Option<&Entity>,
    id: String,
    summary: String,
    params: Vec<Value>,
    body: Option<Value>,
    responses: Map<String, Value>,
) -> Value {
    let mut op = json!({"operationId": id, "summary": summary, "responses": responses});
    if let Some(e) = e {
        op["tags"] = json!([e.module]);
    }
    if !params.is_empty() {
        op["parameters"] = json!(params);
    }
    if let Some(b) = body {
        op["requestBody"] = b;
    }
    op
}

/// The operation of a hand-written route: its parameters, optional JSON body, success status and
/// schema (in the `{data}` envelope), error statuses, and tag.
#[allow(clippy::too_many_arguments)]
pub fn custom(
    tag: &str,
    id: &str,
    summary: &str,
    params: Vec<Value>,
    body: Option<Value>,
    status: u16,
    result: Value,
    errs: &[u16],
) -> Value {
    let mut responses = errors(errs);
    responses.insert(status.to_string(), ok(summary, result));
    let mut o = operation(
        None,
        id.to_owned(),
        summary.to_owned(),
        params,
        body.map(request_body),
        responses,
    );
    o["tags"] = json!([tag]);
    o
}

/// Required uuid path parameters.
pub fn path_params(names: &[&str]) -> Vec<Value> {
    names
        .iter()
        .map(|n| json!({"name": n, "in": "path", "required": true, "schema": {"type": "string", "format": "uuid"}}))
        .collect()
}

/// Required string query parameters.
pub fn query_params(names: &[&str]) -> Vec<Value> {
    names
        .iter()
        .map(|n| json!({"name": n, "in": "query", "required": true, "schema": {"type": "string"}}))
        .collect()
}

fn id_param() -> Value {
    json!({"name": "id", "in": "path", "required": true, "schema": {"type": "string", "format": "uuid"}})
}

/// Operation objects for the generic routes.
pub mod ops {
    use super::*;

    fn with(mut responses: Map<String, Value>, more: Map<String, Value>) -> Map<String, Value> {
        responses.extend(more);
        responses
    }

    fn oid(e: &Entity, verb: &str) -> String {
        format!("{verb}{}", schema_name(e))
    }

    pub fn find(e: &Entity) -> Value {
        let filterable: Vec<&str> = e.public_fields().map(|f| f.name).collect();
        let params = vec![
            json!({"name": "filters", "in": "query", "style": "deepObject", "explode": true,
                "description": format!("qs bracket notation: filters[and][i][column|method|value]. Columns: {}. Methods: {}. Translation maps: column `title->>en`.", filterable.join(", "), Op::ALL.join(", ")),
                "schema": {"type": "object"}}),
            json!({"name": "orderBy", "in": "query", "style": "deepObject", "explode": true,
                "description": "orderBy[and][i][column] and orderBy[and][i][method] (asc|desc)", "schema": {"type": "object"}}),
            json!({"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 0, "maximum": MAX_LIMIT, "default": 100}}),
            json!({"name": "offset", "in": "query", "schema": {"type": "integer", "minimum": 0, "default": 0}}),
            json!({"name": "count", "in": "query", "description": "`true`: the X-Total-Count header carries the number of matching rows", "schema": {"type": "boolean"}}),
            json!({"name": "search", "in": "query", "description": "Case-insensitive text matched against the searchable fields", "schema": {"type": "string", "maxLength": 200}}),
        ];
        let mut responses = Map::new();
        responses.insert(
            "200".into(),
            ok(
                "Matching records",
                json!({"type": "array", "items": sref(&schema_name(e))}),
            ),
        );
        operation(
            Some(e),
            oid(e, "find"),
            format!("Find {}", e.key()),
            params,
            None,
            with(responses, errors(&[400, 503])),
        )
    }

    pub fn get(e: &Entity) -> Value {
        let mut r = Map::new();
        r.insert("200".into(), ok("The record", sref(&schema_name(e))));
        operation(
            Some(e),
            oid(e, "get"),
            format!("Get one {}", e.key()),
            vec![id_param()],
            None,
            with(r, errors(&[400, 404])),
        )
    }

    pub fn create(e: &Entity) -> Value {
        let mut r = Map::new();
        r.insert("201".into(), ok("Created", sref(&schema_name(e))));
        operation(
            Some(e),
            oid(e, "create"),
            format!("Create {}", e.key()),
            vec![],
            Some(request_body_with_files(
                sref(&format!("{}Create", schema_name(e))),
                &file_fields(e),
            )),
            with(r, errors(&[400, 409, 413, 415, 422])),
        )
    }

    pub fn update(e: &Entity) -> Value {
        let mut r = Map::new();
        r.insert("200".into(), ok("Updated", sref(&schema_name(e))));
        operation(
            Some(e),
            oid(e, "update"),
            format!("Update {} (only the keys sent change)", e.key()),
            vec![id_param()],
            Some(request_body_with_files(
                sref(&format!("{}Patch", schema_name(e))),
                &file_fields(e),
            )),
            with(r, errors(&[400, 404, 409, 413, 415, 422])),
        )
    }

    pub fn delete(e: &Entity) -> Value {
        let mut r = Map::new();
        r.insert(
            "200".into(),
            ok("The deleted record", sref(&schema_name(e))),
        );
        operation(
            Some(e),
            oid(e, "delete"),
            format!("Delete {}", e.key()),
            vec![id_param()],
            None,
            with(r, errors(&[400, 404])),
        )
    }

    pub fn find_or_create(e: &Entity) -> Value {
        let mut r = Map::new();
        r.insert(
            "200".into(),
            ok("An existing record matched", sref(&schema_name(e))),
        );
        r.insert("201".into(), ok("Created", sref(&schema_name(e))));
        operation(
            Some(e),
            oid(e, "findOrCreate"),
            format!("Find {} by the values sent, or create it", e.key()),
            vec![],
            Some(request_body_with_files(
                sref(&format!("{}Create", schema_name(e))),
                &file_fields(e),
            )),
            with(r, errors(&[400, 409, 413, 415, 422])),
        )
    }

    pub fn bulk_create(e: &Entity) -> Value {
        let item = json!({"type": "object", "properties": {"data": sref(&format!("{}Create", schema_name(e)))}, "required": ["data"]});
        let mut r = Map::new();
        r.insert(
            "201".into(),
            ok(
                "Created, in order",
                json!({"type": "array", "items": sref(&schema_name(e))}),
            ),
        );
        operation(
            Some(e),
            oid(e, "bulkCreate"),
            format!("Create up to 100 {} in one transaction", e.key()),
            vec![],
            Some(request_body(
                json!({"type": "array", "items": item, "maxItems": 100, "minItems": 1}),
            )),
            with(r, errors(&[400, 409, 413, 415, 422])),
        )
    }

    pub fn bulk_update(e: &Entity) -> Value {
        let item = json!({"type": "object", "properties": {"id": {"type": "string", "format": "uuid"}, "data": sref(&format!("{}Patch", schema_name(e)))}, "required": ["id", "data"]});
        let mut r = Map::new();
        r.insert(
            "200".into(),
            ok(
                "Updated, in order",
                json!({"type": "array", "items": sref(&schema_name(e))}),
            ),
        );
        operation(
            Some(e),
            oid(e, "bulkUpdate"),
            format!("Update up to 100 {} in one transaction", e.key()),
            vec![],
            Some(request_body(
                json!({"type": "array", "items": item, "maxItems": 100, "minItems": 1}),
            )),
            with(r, errors(&[400, 404, 409, 413, 415, 422])),
        )
    }
}

/// The whole document for `ops`.
pub fn document(registry: &Registry, operations: &[Operation], version: &str) -> Value {
    let mut schemas = Map::new();
    schemas.insert(
        "Error".into(),
        json!({"type": "object", "properties": {
            "status": {"type": "integer"}, "code": {"type": "string"}, "error": {"type": "string"},
            "fields": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}},
            "requestId": {"type": "string"}
        }, "required": ["status", "code", "error", "requestId"]}),
    );
    schemas.insert(
        "Translations".into(),
        json!({"type": "object", "description": "Text per language code", "propertyNames": {"pattern": LANGUAGE_PATTERN}, "additionalProperties": {"type": ["string", "null"]}, "examples": [{"en": "Hello", "ru": "Привет"}]}),
    );
    schemas.insert(
        "RichText".into(),
        json!({"type": "object", "description": "A TipTap document per language code", "propertyNames": {"pattern": LANGUAGE_PATTERN},
            "additionalProperties": {"type": "object", "properties": {"type": {"const": "doc"}, "content": {"type": "array"}}, "required": ["type"]}}),
    );
    schemas.extend(crate::meta::schemas());
    for e in registry.entities() {
        entity_schemas(e, &mut schemas);
    }
    let mut paths: Map<String, Value> = Map::new();
    for op in operations {
        let entry = paths.entry(op.path.clone()).or_insert_with(|| json!({}));
        entry[op.method.to_ascii_lowercase()] = op.doc.clone();
    }
    let mut tags: Vec<&str> = registry.entities().iter().map(|e| e.module).collect();
    tags.sort_unstable();
    tags.dedup();
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Stoa API",
            "version": version,
            "description": "Every entity of every module at /api/{module}/{route}. Responses are {\"data\": …}; errors are {status, code, error, fields?, requestId}."
        },
        "tags": tags.iter().map(|t| json!({"name": t})).collect::<Vec<_>>(),
        "paths": paths,
        "components": {"schemas": schemas}
    })
}

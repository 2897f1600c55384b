//! OpenAPI 3.1: schemas generated from the declarations, operations from the route book.

use serde_json::{Map, Value, json};
use stoa_kernel::model::{Entity, Field, Format, Kind, LANGUAGES};

/// What `Format::Slug` accepts (kernel `value::check_text`).
const SLUG_PATTERN: &str = "^[a-z0-9_-]+$";
/// What a translation map key must look like (kernel `value::is_language_key`).
const LANGUAGE_PATTERN: &str = "^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$";
use stoa_kernel::query::{MAX_LIMIT, MAX_OFFSET, Op};
use stoa_kernel::registry::Registry;

use crate::routes::{Access, Operation};

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
        obj([
            ("type", "object".into()),
            ("description", format!("{} ({})", e.key(), e.table).into()),
            ("properties", Value::Object(props)),
            ("required", required.into()),
        ]),
    );
    out.insert(
        format!("{name}Create"),
        obj([
            ("type", "object".into()),
            ("properties", Value::Object(create_props.clone())),
            ("required", create_required.into()),
        ]),
    );
    out.insert(
        format!("{name}Patch"),
        obj([
            ("type", "object".into()),
            ("properties", Value::Object(create_props)),
        ]),
    );
    let (filters, order) = query_schemas(e);
    out.insert(format!("{name}Filters"), filters);
    out.insert(format!("{name}OrderBy"), order);
}

/// The JSON forms of `filters` and `orderBy` for `e`: its columns (a language of a translated
/// field as `title->>en`, a key of a JSON field as `data->>key`) and the methods.
fn query_schemas(e: &Entity) -> (Value, Value) {
    let mut columns: Vec<String> = Vec::new();
    let mut free: Vec<&str> = Vec::new();
    for f in e.public_fields().filter(|f| f.filterable()) {
        match f.kind {
            Kind::Translations | Kind::RichText => {
                columns.push(f.name.to_owned());
                columns.extend(LANGUAGES.iter().map(|l| format!("{}->>{l}", f.name)));
            }
            Kind::Json => {
                columns.push(f.name.to_owned());
                free.push(f.name);
            }
            _ => columns.push(f.name.to_owned()),
        }
    }
    let column = if free.is_empty() {
        json!({"type": "string", "enum": columns})
    } else {
        json!({"anyOf": [
            {"type": "string", "enum": columns},
            {"type": "string", "pattern": format!("^({})->>[A-Za-z0-9_-]{{1,64}}$", free.join("|"))}
        ]})
    };
    let scalar = json!({"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}]});
    let name = schema_name(e);
    let filters = json!({
        "type": "object",
        "description": format!("Filters of {} (the `filters` query parameter as JSON): every condition must hold.", e.key()),
        "properties": {"and": {"type": "array", "maxItems": 100, "items": {
            "type": "object",
            "title": format!("{name}Filter"),
            "properties": {
                "column": column,
                "method": {"type": "string", "enum": Op::ALL},
                "value": {"description": "The value to compare with (by the column's type); an array for inArray/notInArray; none for isNull/isNotNull", "anyOf": [scalar.clone(), {"type": "array", "items": scalar}]}
            },
            "required": ["column", "method"],
            "additionalProperties": false
        }}},
        "required": ["and"],
        "additionalProperties": false
    });
    let order = json!({
        "type": "array",
        "description": format!("The sort of {} (the `orderBy` query parameter as JSON), first key first.", e.key()),
        "maxItems": 10,
        "items": {
            "type": "object",
            "title": format!("{name}Order"),
            "properties": {
                "column": {"type": "string", "enum": e.sortable_names(), "description": "Lists sort on indexed columns only"},
                "method": {"type": "string", "enum": ["asc", "desc"], "default": "asc"}
            },
            "required": ["column"],
            "additionalProperties": false
        }
    });
    (filters, order)
}

/// An object of `pairs`, moved in. (`json!` serialises every non-literal value it is given into a
/// copy; over 1 085 operations those copies were a fifth of the start.)
fn obj<const N: usize>(pairs: [(&str, Value); N]) -> Value {
    Value::Object(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

fn envelope(schema: Value) -> Value {
    obj([
        ("type", "object".into()),
        ("properties", obj([("data", schema)])),
        ("required", json!(["data"])),
    ])
}

fn content(schema: Value) -> Value {
    obj([("application/json", obj([("schema", schema)]))])
}

/// A JSON request body.
pub fn request_body(schema: Value) -> Value {
    obj([("required", true.into()), ("content", content(schema))])
}

/// The request body of a route whose `files` take one uploaded file each: a multipart form with
/// the JSON (`schema`) in its `data` part and one part per file field. Without `files` it is a
/// JSON body. (Such routes take a JSON body without files as well; the document names only the
/// form, as generators cope badly with a body of two types.)
pub fn request_body_with_files(schema: Value, files: &[&str]) -> Value {
    if files.is_empty() {
        return request_body(schema);
    }
    let mut props = Map::new();
    props.insert("data".into(), schema);
    for f in files {
        props.insert(
            (*f).into(),
            json!({"type": "string", "format": "binary", "description": "The file (its type is read from the bytes)"}),
        );
    }
    json!({
        "required": true,
        "description": "A multipart form: the fields as JSON in the `data` part, and a part per file field. The same fields as an application/json body (without files) are taken too.",
        "content": {
            "multipart/form-data": {
                "schema": {"type": "object", "properties": props},
                "encoding": {"data": {"contentType": "application/json"}}
            }
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
    obj([
        ("description", description.into()),
        ("content", content(envelope(schema))),
    ])
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
            let mut r = json!({"description": d, "content": content(sref("Error"))});
            if *c == 429 {
                r["headers"] = json!({"Retry-After": {"description": "Seconds to wait before trying again", "schema": {"type": "integer", "minimum": 0}}});
            }
            (c.to_string(), r)
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
    let mut op = obj([
        ("operationId", id.into()),
        ("summary", summary.into()),
        ("responses", Value::Object(responses)),
    ]);
    if let Some(e) = e {
        op["tags"] = json!([e.module]);
        // The generic routes of an entity: their bodies are checked by the declaration (with
        // its coercions and messages), not by the strict layer's schema check.
        op["x-entity"] = json!(e.key());
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
        let name = schema_name(e);
        let params = vec![
            json!({"name": "filters", "in": "query",
                "description": format!("The conditions rows must all meet, as JSON: `{{\"and\": [{{\"column\": \"slug\", \"method\": \"eq\", \"value\": \"x\"}}]}}` (or just the array); see the {name}Filters schema for the columns and methods. `inArray`/`notInArray` take an array of values. The same in bracket notation is taken too: `filters[and][0][column]=slug&filters[and][0][method]=eq&filters[and][0][value]=x` (an inArray value as `value[0]=a&value[1]=b` or `value=a,b`)."),
                "schema": {"type": "string", "contentMediaType": "application/json", "contentSchema": sref(&format!("{name}Filters"))},
                "x-bracket-notation": true}),
            json!({"name": "orderBy", "in": "query",
                "description": format!("The sort, as JSON: `[{{\"column\": \"createdAt\", \"method\": \"desc\"}}]` (or `{{\"and\": […]}}`); see the {name}OrderBy schema. Bracket notation is taken too: `orderBy[and][0][column]=createdAt&orderBy[and][0][method]=desc`."),
                "schema": {"type": "string", "contentMediaType": "application/json", "contentSchema": sref(&format!("{name}OrderBy"))},
                "x-bracket-notation": true}),
            json!({"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 0, "maximum": MAX_LIMIT, "default": 100}}),
            json!({"name": "offset", "in": "query", "description": format!("Rows to skip, at most {MAX_OFFSET}; page further with `after`"), "schema": {"type": "integer", "minimum": 0, "maximum": MAX_OFFSET, "default": 0}}),
            json!({"name": "after", "in": "query", "description": "Keyset paging: the X-Next-Cursor header of the previous page (same filters and sort). The page starts after that page's last row, at any depth for the cost of a first page", "schema": {"type": "string", "maxLength": 4096}}),
            json!({"name": "count", "in": "query", "description": "`true`: the X-Total-Count header carries the number of matching rows", "schema": {"type": "boolean"}}),
            json!({"name": "search", "in": "query", "description": "Case-insensitive text matched against the searchable fields", "schema": {"type": "string", "maxLength": 200}}),
        ];
        let mut responses = Map::new();
        let mut found = ok(
            "Matching records",
            json!({"type": "array", "items": sref(&schema_name(e))}),
        );
        found["headers"] = json!({
            "X-Total-Count": {"description": "With `count=true`: the number of matching rows", "schema": {"type": "integer", "minimum": 0}},
            "X-Total-Count-Exact": {"description": "With `count=true`: `false` when the total is an estimate (a large table without filters)", "schema": {"type": "string", "enum": ["true", "false"]}},
            "X-Next-Cursor": {"description": "When the page is full: the `after` value of the next page", "schema": {"type": "string"}}
        });
        responses.insert("200".into(), found);
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
            Some(request_body(obj([
                ("type", "array".into()),
                ("items", item),
                ("maxItems", 100.into()),
                ("minItems", 1.into()),
            ]))),
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
            Some(request_body(obj([
                ("type", "array".into()),
                ("items", item),
                ("maxItems", 100.into()),
                ("minItems", 1.into()),
            ]))),
            with(r, errors(&[400, 404, 409, 413, 415, 422])),
        )
    }
}

/// The schemas of rich text: a document per language, each a tree of TipTap (ProseMirror JSON)
/// nodes — what `stoa_kernel::value` checks on every write.
fn rich_text_schemas(out: &mut Map<String, Value>) {
    out.insert(
        "RichTextMark".into(),
        json!({"type": "object", "description": "A mark on a text node (bold, italic, link…)",
            "properties": {"type": {"type": "string", "minLength": 1}, "attrs": {"type": "object", "additionalProperties": true}},
            "required": ["type"], "additionalProperties": false}),
    );
    out.insert(
        "RichTextNode".into(),
        json!({"type": "object", "description": "A node: paragraph, heading, list, image, text…; a text node has `text`",
            "properties": {
                "type": {"type": "string", "minLength": 1, "maxLength": 64},
                "attrs": {"type": "object", "additionalProperties": true},
                "content": {"type": "array", "items": sref("RichTextNode")},
                "marks": {"type": "array", "items": sref("RichTextMark")},
                "text": {"type": "string"}
            },
            "required": ["type"], "additionalProperties": false}),
    );
    out.insert(
        "RichTextDocument".into(),
        json!({"type": "object", "description": "A TipTap document (a string is taken on writes too: it becomes one paragraph)",
            "properties": {
                "type": {"type": "string", "enum": ["doc"]},
                "attrs": {"type": "object", "additionalProperties": true},
                "content": {"type": "array", "items": sref("RichTextNode")}
            },
            "required": ["type"], "additionalProperties": false,
            "examples": [{"type": "doc", "content": [{"type": "paragraph", "content": [{"type": "text", "text": "Hello"}]}]}]}),
    );
    out.insert(
        "RichText".into(),
        json!({"type": "object", "description": "A rich-text document per language code", "propertyNames": {"pattern": LANGUAGE_PATTERN},
            "additionalProperties": sref("RichTextDocument")}),
    );
}

/// `opId` → `OpId`.
pub(crate) fn pascal(id: &str) -> String {
    let mut c = id.chars();
    c.next()
        .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
        .unwrap_or_default()
}

/// Moves an inline object schema at `slot` into the components under its `title` or `name`
/// (a name already taken by another shape gets a number), leaving a `$ref`: generators then
/// give request bodies and results the names we chose instead of inventing them.
fn hoist(slot: &mut Value, name: String, schemas: &mut Map<String, Value>) {
    let hoistable = slot.get("$ref").is_none()
        && (slot.get("properties").is_some()
            || slot.get("allOf").is_some()
            || slot.get("anyOf").is_some()
            || slot.get("oneOf").is_some());
    if !hoistable {
        return;
    }
    let mut schema = slot.take();
    // `type: [object, null]` goes into the components as an object, and the slot says "or null"
    // (generators read a nullable component as a union and build its members twice).
    let mut nullable = false;
    if let Some(Value::Array(types)) = schema.get("type")
        && types.len() == 2
        && types.contains(&json!("null"))
        && let Some(t) = types.iter().find(|t| **t != json!("null")).cloned()
    {
        schema["type"] = t;
        nullable = true;
    }
    let base = schema
        .as_object_mut()
        .and_then(|o| o.remove("title"))
        .and_then(|t| t.as_str().map(str::to_owned))
        .unwrap_or(name);
    let mut name = base.clone();
    let mut n = 2;
    while let Some(existing) = schemas.get(&name) {
        if *existing == schema {
            break;
        }
        name = format!("{base}{n}");
        n += 1;
    }
    schemas.insert(name.clone(), schema);
    *slot = if nullable {
        json!({"anyOf": [sref(&name), {"type": "null"}]})
    } else {
        sref(&name)
    };
}

/// Every schema in `v` that carries a `title` becomes a named component (innermost first), so a
/// route can declare named, even recursive, shapes inline (`RbacMe` in `RbacMe | null`, a page
/// bundle's records) and generators name them as we did.
fn hoist_titled(v: &mut Value, schemas: &mut Map<String, Value>) {
    match v {
        Value::Object(m) => {
            m.values_mut().for_each(|x| hoist_titled(x, schemas));
            let schema_like = ["type", "allOf", "anyOf", "oneOf", "properties"]
                .iter()
                .any(|k| m.contains_key(*k));
            if schema_like && let Some(title) = m.get("title").and_then(Value::as_str) {
                let title = title.to_owned();
                hoist(v, title, schemas);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| hoist_titled(x, schemas)),
        _ => {}
    }
}

/// `{"type": "object"}` with nothing said about its keys means "any keys" — said explicitly,
/// since generators otherwise type it as an object with no keys at all.
fn free_form(v: &mut Value) {
    match v {
        Value::Object(m) => {
            if m.get("type") == Some(&json!("object"))
                && !m.contains_key("properties")
                && !m.contains_key("additionalProperties")
                && !m.contains_key("patternProperties")
                && !m.contains_key("allOf")
            {
                m.insert("additionalProperties".into(), json!(true));
            }
            m.values_mut().for_each(free_form);
        }
        Value::Array(a) => a.iter_mut().for_each(free_form),
        _ => {}
    }
}

/// Security, named bodies and results, and the 401/403 a non-public operation can give.
fn finish_operation(doc: &mut Value, access: Access, schemas: &mut Map<String, Value>) {
    let id = doc
        .get("operationId")
        .and_then(Value::as_str)
        .map(pascal)
        .unwrap_or_default();
    if doc.get("tags").is_none() {
        doc["tags"] = json!(["platform"]);
    }
    free_form(doc);
    hoist_titled(doc, schemas);
    let signed = [json!({"bearerAuth": []}), json!({"cookieAuth": []})];
    doc["security"] = match access {
        // Anyone may call it; a signed-in caller may see more (their own drafts, an admin all).
        Access::Public => json!([{}, signed[0], signed[1]]),
        Access::SignedIn | Access::Owner => json!([signed[0], signed[1]]),
        Access::Admin => json!([signed[0], signed[1], {"secretKey": []}]),
    };
    if let Some(r) = doc.get_mut("responses").and_then(Value::as_object_mut) {
        // Any route answers 400 to a query parameter it does not take (`strict`).
        let mut codes = vec![400];
        if access != Access::Public {
            codes.extend([401, 403]);
        }
        for (code, e) in errors(&codes) {
            r.entry(code).or_insert(e);
        }
        // Every error answer is the Error body, whatever a route's own declaration left out.
        for (code, res) in r.iter_mut() {
            if (code.starts_with('4') || code.starts_with('5')) && res.get("content").is_none() {
                res["content"] = content(sref("Error"));
            }
        }
    }
    if !id.is_empty() {
        if let Some(body) = doc
            .get_mut("requestBody")
            .and_then(|b| b.get_mut("content"))
            .and_then(Value::as_object_mut)
        {
            for (_, media) in body.iter_mut() {
                if let Some(slot) = media.get_mut("schema") {
                    hoist(slot, format!("{id}Body"), schemas);
                }
            }
        }
        if let Some(r) = doc.get_mut("responses").and_then(Value::as_object_mut) {
            for (code, res) in r.iter_mut() {
                if !code.starts_with('2') {
                    continue;
                }
                let Some(data) =
                    res.pointer_mut("/content/application~1json/schema/properties/data")
                else {
                    continue;
                };
                if data.get("type").and_then(Value::as_str) == Some("array") {
                    if let Some(items) = data.get_mut("items") {
                        hoist(items, format!("{id}Item"), schemas);
                    }
                } else {
                    hoist(data, format!("{id}Result"), schemas);
                }
            }
        }
    }
}

/// Adds every `#/components/schemas/…` name `v` refers to (directly) to `out`.
fn schema_refs(v: &Value, out: &mut std::collections::HashSet<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                match (k.as_str(), x.as_str()) {
                    ("$ref", Some(r)) => {
                        if let Some(name) = r.strip_prefix("#/components/schemas/")
                            && !out.contains(name)
                        {
                            out.insert(name.to_owned());
                        }
                    }
                    _ => schema_refs(x, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| schema_refs(x, out)),
        _ => {}
    }
}

/// The whole document for `ops`: served at `/api/openapi.json`, naming `servers`. Operations
/// marked `x-hidden` (the document itself, the reference pages) are routes but not API.
pub fn document(
    registry: &Registry,
    operations: &[Operation],
    version: &str,
    servers: &[String],
) -> Value {
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
    rich_text_schemas(&mut schemas);
    schemas.extend(crate::meta::schemas());
    for e in registry.entities() {
        entity_schemas(e, &mut schemas);
    }
    let mut paths: Map<String, Value> = Map::new();
    for op in operations {
        if op.doc.get("x-hidden").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        let mut doc = op.document();
        finish_operation(&mut doc, op.access, &mut schemas);
        let entry = paths.entry(op.path.clone()).or_insert_with(|| json!({}));
        entry[op.method.to_ascii_lowercase()] = doc;
    }
    // A Create or Patch shape no route takes (an entity written only by its module) is left out.
    // (One walk collecting the references: searching the serialised document for each name was
    // most of a cold start.)
    let mut used = std::collections::HashSet::new();
    for v in paths.values().chain(schemas.values()) {
        schema_refs(v, &mut used);
    }
    schemas.retain(|name, _| {
        !(name.ends_with("Create") || name.ends_with("Patch")) || used.contains(name)
    });
    let mut tags: Vec<String> = registry
        .entities()
        .iter()
        .map(|e| e.module.to_owned())
        .collect();
    for item in paths.values() {
        for op in item.as_object().into_iter().flat_map(|o| o.values()) {
            for t in op
                .get("tags")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(t) = t.as_str() {
                    tags.push(t.to_owned());
                }
            }
        }
    }
    tags.sort_unstable();
    tags.dedup();
    // The two large maps are moved in afterwards: `json!` would serialise each into a copy
    // (that copy was a fifth of the start).
    let mut doc = json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Stoa API",
            "version": version,
            "description": "Every entity of every module at /api/{module}/{route}. Responses are {\"data\": …}; errors are {status, code, error, fields?, requestId}. Sign in at /api/rbac/subjects/authentication/email-and-password/authentication and send the `jwt` it returns as `Authorization: Bearer …`. Bodies are JSON, except where a route takes files (multipart). An unknown query parameter is a 400.",
            "license": {"name": "MIT", "identifier": "MIT"}
        },
        "servers": servers.iter().map(|u| json!({"url": u})).collect::<Vec<_>>(),
        "tags": tags.iter().map(|t| json!({"name": t, "description": format!("The {t} module")})).collect::<Vec<_>>(),
        "paths": {},
        "components": {
            "schemas": {},
            "securitySchemes": {
                "bearerAuth": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT", "description": "The `jwt` from signing in"},
                "cookieAuth": {"type": "apiKey", "in": "cookie", "name": "rbac.subject.jwt", "description": "The session cookie the browser gets on signing in (writes also need a same-site Origin)"},
                "secretKey": {"type": "apiKey", "in": "header", "name": "X-RBAC-SECRET-KEY", "description": "The server's STOA_SECRET_KEY: a trusted server-to-server caller, with an administrator's rights"}
            }
        }
    });
    doc["paths"] = Value::Object(paths);
    doc["components"]["schemas"] = Value::Object(schemas);
    doc
}

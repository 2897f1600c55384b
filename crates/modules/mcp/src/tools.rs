//! The tools, made from the API's own description: per entity, the generic find, get, create,
//! update and delete operations; beside them, every operation a module marked worth an agent's
//! time (`x-agent`: publishing, order transitions, sending a notification, revalidation). Each
//! tool's input is the operation's path and query parameters and its body (as `data`), with the
//! schemas the HTTP API documents and checks; its description is the operation's summary with the
//! content model's words for the entity.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};
use stoa_kernel::registry::Registry;

/// What a tool does to the site.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verb {
    Find,
    Get,
    Create,
    Update,
    Delete,
    /// An operation a module marked `x-agent`.
    Custom,
}

impl Verb {
    pub fn writes(self) -> bool {
        !matches!(self, Verb::Find | Verb::Get)
    }
}

/// A query parameter and whether its value is sent JSON-encoded (filters, orderBy).
#[derive(Clone, Debug)]
pub struct Query {
    pub name: String,
    pub json: bool,
}

#[derive(Clone, Debug)]
pub struct Tool {
    pub name: String,
    pub verb: Verb,
    pub method: String,
    /// The path with `{name}` parameters.
    pub path: String,
    pub path_params: Vec<String>,
    pub query: Vec<Query>,
    /// Takes a JSON body (`data`).
    pub body: bool,
    /// The MCP tool as listed (`name`, `title`, `description`, `inputSchema`, `annotations`).
    pub listed: Value,
}

impl Tool {
    /// The path with every parameter a placeholder id: what the permission table is asked about
    /// when listing.
    pub fn sample_path(&self) -> String {
        let mut p = self.path.clone();
        for n in &self.path_params {
            p = p.replace(&format!("{{{n}}}"), "00000000-0000-0000-0000-000000000000");
        }
        p
    }
}

const CONFIRM_NOTE: &str = "A write takes two calls: without `confirmation` nothing is changed and the tool answers what would change and a `confirmation`; call it again with the same arguments and that confirmation (once, within minutes) to make the change.";

fn en(v: Option<Value>) -> Option<String> {
    let v = v?;
    v.get("en")
        .and_then(Value::as_str)
        .or_else(|| v.as_str())
        .map(str::to_owned)
}

/// Every `#/components/schemas/…` name `v` refers to.
fn refs(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            if let Some(r) = m.get("$ref").and_then(Value::as_str)
                && let Some(n) = r.strip_prefix("#/components/schemas/")
            {
                out.insert(n.to_owned());
            }
            m.values().for_each(|x| refs(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| refs(x, out)),
        _ => {}
    }
}

/// `v` with its component references pointing into the tool schema's own `$defs`.
fn local(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| {
                    if k == "$ref"
                        && let Some(n) = x
                            .as_str()
                            .and_then(|r| r.strip_prefix("#/components/schemas/"))
                    {
                        (k.clone(), json!(format!("#/$defs/{n}")))
                    } else {
                        (k.clone(), local(x))
                    }
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(local).collect()),
        other => other.clone(),
    }
}

/// The components `schema` needs, transitively, made local.
fn defs(schema: &Value, components: &Map<String, Value>) -> Map<String, Value> {
    let mut todo = BTreeSet::new();
    refs(schema, &mut todo);
    let mut done: BTreeMap<String, Value> = BTreeMap::new();
    while let Some(n) = todo.pop_first() {
        if done.contains_key(&n) {
            continue;
        }
        let Some(c) = components.get(&n) else {
            continue;
        };
        let mut more = BTreeSet::new();
        refs(c, &mut more);
        todo.extend(more.into_iter().filter(|m| !done.contains_key(m)));
        done.insert(n, local(c));
    }
    done.into_iter().collect()
}

/// The JSON schema of an operation's body: its JSON content, or the `data` part of a form.
fn body_schema(op: &Value) -> Option<(Value, bool)> {
    let rb = op.get("requestBody")?;
    let content = rb.get("content")?;
    let schema = content
        .get("application/json")
        .and_then(|c| c.get("schema"))
        .cloned()
        .or_else(|| {
            content
                .get("multipart/form-data")
                .and_then(|c| c.pointer("/schema/properties/data"))
                .cloned()
        })?;
    Some((
        schema,
        rb.get("required").and_then(Value::as_bool) == Some(true),
    ))
}

/// A tool's inputs from the operation's parameters: their schemas, which are required, and which
/// go in the path and which in the query.
#[derive(Default)]
struct Inputs {
    props: Map<String, Value>,
    required: Vec<Value>,
    path_params: Vec<String>,
    query: Vec<Query>,
}

/// The operation's path and query parameters as tool inputs (others are left out).
fn parameters(op: &Value) -> Inputs {
    let mut inputs = Inputs::default();
    for p in op
        .get("parameters")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let (Some(n), Some(at)) = (
            p.get("name").and_then(Value::as_str),
            p.get("in").and_then(Value::as_str),
        ) else {
            continue;
        };
        let schema = p.get("schema").cloned().unwrap_or(json!({}));
        let (mut s, json) = match schema.get("contentSchema") {
            Some(inner) => (inner.clone(), true),
            None => (schema, false),
        };
        if let (Some(d), Some(o)) = (p.get("description"), s.as_object_mut()) {
            o.entry("description").or_insert(d.clone());
        }
        match at {
            "path" => {
                inputs.path_params.push(n.to_owned());
                inputs.required.push(json!(n));
            }
            "query" => {
                if p.get("required").and_then(Value::as_bool) == Some(true) {
                    inputs.required.push(json!(n));
                }
                inputs.query.push(Query {
                    name: n.to_owned(),
                    json,
                });
            }
            _ => continue,
        }
        inputs.props.insert(n.to_owned(), s);
    }
    inputs
}

/// The tool's input schema: the parameters `props`, the body as `data` and a write's
/// `confirmation`, with the components they refer to made local `$defs`.
fn input_schema(
    doc: &Value,
    mut props: Map<String, Value>,
    mut required: Vec<Value>,
    body: Option<&(Value, bool)>,
    verb: Verb,
) -> Value {
    let components = doc
        .pointer("/components/schemas")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    if let Some((s, req)) = body {
        let mut s = s.clone();
        if let Some(o) = s.as_object_mut() {
            o.entry("description").or_insert(json!("The request body"));
        }
        props.insert("data".into(), s);
        if *req {
            required.push(json!("data"));
        }
    }
    if verb.writes() {
        props.insert(
            "confirmation".into(),
            json!({"type": "string", "description": "The confirmation the dry run (the same call without it) answered"}),
        );
    }
    let mut schema = json!({
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": false,
    });
    let d = defs(&schema, &components);
    schema = local(&schema);
    if !d.is_empty() {
        schema["$defs"] = Value::Object(d);
    }
    schema
}

/// The tool's title and what it says of its entity, in the content model's words (the summary
/// and nothing when the operation names no entity).
fn title_and_about(reg: &Registry, op: &Value, verb: Verb, summary: &str) -> (String, String) {
    let entity = op
        .get("x-entity")
        .and_then(Value::as_str)
        .and_then(|k| reg.entities().iter().find(|e| e.key() == k));
    let Some(e) = entity else {
        return (summary.to_owned(), String::new());
    };
    let label = reg.words().entity(e.module, e.name);
    let one = label
        .as_ref()
        .and_then(|l| en(serde_json::to_value(&l.one).ok()))
        .unwrap_or_else(|| e.name.to_owned());
    let many = label
        .as_ref()
        .and_then(|l| en(serde_json::to_value(&l.many).ok()))
        .unwrap_or_else(|| e.route.to_owned());
    let help = label
        .as_ref()
        .and_then(|l| en(l.help.as_ref().and_then(|h| serde_json::to_value(h).ok())))
        .unwrap_or_default();
    let title = match verb {
        Verb::Find => format!("Find {}", many.to_lowercase()),
        Verb::Get => format!("Read one {}", one.to_lowercase()),
        Verb::Create => format!("Create a {}", one.to_lowercase()),
        Verb::Update => format!("Change a {}", one.to_lowercase()),
        Verb::Delete => format!("Delete a {}", one.to_lowercase()),
        Verb::Custom => summary.to_owned(),
    };
    (title, format!("{one} ({}): {help}", e.key()))
}

/// The tool's description: the summary, what it says of its entity, and for a write how to
/// confirm it.
fn describe(summary: &str, about: &str, verb: Verb) -> String {
    let mut description = summary.to_owned();
    if !about.is_empty() {
        description.push_str(". ");
        description.push_str(about);
    }
    if verb.writes() {
        description.push(' ');
        description.push_str(CONFIRM_NOTE);
    }
    description
}

fn tool(
    doc: &Value,
    reg: &Registry,
    method: &str,
    path: &str,
    op: &Value,
    verb: Verb,
) -> Option<Tool> {
    let name = op.get("operationId")?.as_str()?.to_owned();
    let Inputs {
        props,
        required,
        path_params,
        query,
    } = parameters(op);
    let body = body_schema(op);
    let schema = input_schema(doc, props, required, body.as_ref(), verb);
    let summary = op
        .get("summary")
        .and_then(Value::as_str)
        .unwrap_or(&name)
        .to_owned();
    let (title, about) = title_and_about(reg, op, verb, &summary);
    let description = describe(&summary, &about, verb);
    let listed = json!({
        "name": name,
        "title": title,
        "description": description,
        "inputSchema": schema,
        "annotations": {
            "title": title,
            "readOnlyHint": !verb.writes(),
            "destructiveHint": verb == Verb::Delete,
            "idempotentHint": matches!(verb, Verb::Find | Verb::Get | Verb::Update | Verb::Delete),
            "openWorldHint": false,
        },
    });
    Some(Tool {
        name,
        verb,
        method: method.to_ascii_uppercase(),
        path: path.to_owned(),
        path_params,
        query,
        body: body.is_some(),
        listed,
    })
}

/// Every tool the API document offers, in the document's order.
pub fn catalogue(doc: &Value, reg: &Registry) -> Vec<Tool> {
    let mut out = Vec::new();
    let Some(paths) = doc.get("paths").and_then(Value::as_object) else {
        return out;
    };
    for e in reg.entities() {
        let collection = stoa_api::crud::collection_path(e);
        let item = format!("{collection}/{{id}}");
        for (path, method, verb) in [
            (&collection, "get", Verb::Find),
            (&item, "get", Verb::Get),
            (&collection, "post", Verb::Create),
            (&item, "patch", Verb::Update),
            (&item, "delete", Verb::Delete),
        ] {
            if let Some(op) = paths.get(path.as_str()).and_then(|p| p.get(method))
                && let Some(t) = tool(doc, reg, method, path, op, verb)
            {
                out.push(t);
            }
        }
    }
    for (path, item) in paths {
        for (method, op) in item.as_object().into_iter().flatten() {
            if op.get(stoa_api::routes::AGENT).and_then(Value::as_bool) == Some(true)
                && let Some(t) = tool(doc, reg, method, path, op, Verb::Custom)
            {
                out.push(t);
            }
        }
    }
    out
}

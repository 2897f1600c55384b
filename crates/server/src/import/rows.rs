//! From an SPS table and row to a Stoa entity and its input: which column feeds which field
//! (foreign keys by where they point, as SPS abbreviates their names), the values in Stoa's
//! forms (rich text parsed, numerics as text, timestamps in UTC), and what is left behind.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value};
use stoa_kernel::model::{Entity, Kind, snake};
use stoa_kernel::value::Val;
use stoa_store::Store;
use uuid::Uuid;

use super::report::Table;
use super::source::Shape;
use super::tables::{TABLES, stoa_key};
use crate::Config;

/// How an SPS row may join a record Stoa already has.
pub enum Merge {
    No,
    /// The Stoa record with the same values of these fields.
    By(&'static [&'static str]),
}

/// One SPS table's way into Stoa.
pub struct Plan {
    pub table: String,
    /// `module.name` in SPS's words.
    pub sps_key: String,
    /// None: Stoa has no such entity, or the SPS database has no such table.
    pub entity: Option<Arc<Entity>>,
    /// Stoa field → SPS column.
    pub columns: Vec<(&'static str, String)>,
    pub merge: Merge,
    pub warnings: Vec<String>,
}

/// What a row becomes: the input the entity validates, and the values the server sets itself
/// (id, timestamps, a password hash) by field index.
pub struct Prepared {
    pub input: Map<String, Value>,
    pub own: Vec<(usize, Val)>,
}

fn merge_rule(stoa: &str) -> Merge {
    match stoa {
        "rbac.role" | "billing.currency" | "notification.topic" | "notification.template" => {
            Merge::By(&["slug"])
        }
        "rbac.permission" => Merge::By(&["method", "path"]),
        "rbac.roles-to-permissions" => Merge::By(&["roleId", "permissionId"]),
        _ => Merge::No,
    }
}

/// SPS's abbreviation of a foreign-key column: each word of the field's name (without `Id`)
/// as its first and last letters (`fileStorageModuleFileId` → `fe_se_me_fe_id`).
fn abbreviated(field: &str) -> String {
    let base = field.strip_suffix("Id").unwrap_or(field);
    let words: Vec<String> = snake(base)
        .split('_')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            match (c.next(), c.next_back()) {
                (Some(a), Some(b)) => format!("{a}{b}"),
                (Some(a), None) => a.to_string(),
                _ => String::new(),
            }
        })
        .collect();
    format!("{}_id", words.join("_"))
}

const COMMON: &[&str] = &["id", "created_at", "updated_at"];

/// Every SPS table's plan, in an order where each table comes after those its references need.
pub fn plans(store: &Store, shapes: &HashMap<String, Shape>) -> anyhow::Result<Vec<Plan>> {
    let table_of: HashMap<String, &str> = TABLES
        .iter()
        .map(|(m, n, t)| (stoa_key(m, n), *t))
        .collect();
    let mut out = Vec::new();
    for (m, n, table) in TABLES {
        let sps_key = format!("{m}.{n}");
        let key = stoa_key(m, n);
        let mut plan = Plan {
            table: (*table).to_owned(),
            sps_key,
            entity: None,
            columns: Vec::new(),
            merge: merge_rule(&key),
            warnings: Vec::new(),
        };
        let Some(shape) = shapes.get(*table) else {
            plan.warnings
                .push("the SPS database has no such table: nothing to import".into());
            out.push(plan);
            continue;
        };
        let Ok(e) = store.entity(&key) else {
            plan.warnings
                .push(format!("Stoa has no {key}: its rows are not imported"));
            out.push(plan);
            continue;
        };
        let mut used: Vec<String> = COMMON.iter().map(|c| (*c).to_owned()).collect();
        for f in &e.fields {
            if COMMON.contains(&snake(f.name).as_str()) {
                continue;
            }
            let column = if f.kind == Kind::Reference {
                let target = f.target.and_then(|t| table_of.get(t));
                let by_fk = shape
                    .references
                    .iter()
                    .filter(|(c, t)| Some(&t.as_str()) == target && !used.contains(c))
                    .map(|(c, _)| c.clone())
                    .min();
                by_fk.or_else(|| {
                    [snake(f.name), abbreviated(f.name)]
                        .into_iter()
                        .find(|c| shape.columns.contains_key(c) && !used.contains(c))
                })
            } else {
                Some(snake(f.name)).filter(|c| shape.columns.contains_key(c))
            };
            let Some(c) = column else { continue };
            used.push(c.clone());
            if f.server_owned || (key == "rbac.permission" && f.name == "public") {
                // Set by Stoa itself (a verification time, a second factor, an order's number),
                // or deliberately not taken from SPS: an imported permission is never public.
                plan.warnings
                    .push(format!("{c}: Stoa sets {} itself; not imported", f.name));
                continue;
            }
            if f.secret && !(key == "rbac.identity" && f.name == "password") {
                // Left in `used`: warned about here, not as a column Stoa lacks.
                plan.warnings.push(match f.name {
                    "salt" => "salt: not needed, a bcrypt hash holds its salt".to_owned(),
                    "code" => "code: reset codes are not imported (a reset starts anew)".to_owned(),
                    other => format!("{other}: a secret Stoa sets itself; not imported"),
                });
                continue;
            }
            plan.columns.push((f.name, c));
        }
        // A reference SPS kept without a foreign key: the one uuid column nothing else took.
        for f in e.fields.iter().filter(|f| f.kind == Kind::Reference) {
            if plan.columns.iter().any(|(n, _)| *n == f.name) {
                continue;
            }
            let free: Vec<&String> = shape
                .columns
                .iter()
                .filter(|(c, ty)| *ty == "uuid" && !used.contains(c))
                .map(|(c, _)| c)
                .collect();
            if let [c] = free[..] {
                used.push(c.clone());
                plan.columns.push((f.name, c.clone()));
            } else {
                plan.warnings.push(format!(
                    "no column found for {}: rows are skipped as Stoa requires it",
                    f.name
                ));
            }
        }
        for c in shape.columns.keys() {
            if !used.contains(c) {
                plan.warnings.push(match (key.as_str(), c.as_str()) {
                    ("rbac.roles-to-permissions", "condition") => {
                        "condition: SPS never evaluated it; dropped".to_owned()
                    }
                    _ => format!("column {c}: Stoa has no such field; dropped"),
                });
            }
        }
        if key == "rbac.permission" {
            plan.warnings.push(
                "SPS made an action no role held public; imported actions are closed unless Stoa \
                 already had the same method and path (merged, Stoa's setting kept): grant them \
                 to roles in the admin"
                    .into(),
            );
        }
        plan.entity = Some(e);
        out.push(plan);
    }
    Ok(order(out))
}

/// Plans ordered so each comes after the entities it references (declaration order otherwise).
fn order(mut plans: Vec<Plan>) -> Vec<Plan> {
    let mut out: Vec<Plan> = Vec::with_capacity(plans.len());
    let mut placed: std::collections::HashSet<String> = std::collections::HashSet::new();
    while !plans.is_empty() {
        let ready = plans.iter().position(|p| {
            p.entity.as_ref().is_none_or(|e| {
                e.fields.iter().all(|f| {
                    f.kind != Kind::Reference
                        || f.target.is_none_or(|t| {
                            t == e.key()
                                || placed.contains(t)
                                || !plans
                                    .iter()
                                    .any(|q| q.entity.as_ref().is_some_and(|qe| qe.key() == t))
                        })
                })
            })
        });
        let p = plans.remove(ready.unwrap_or(0));
        if let Some(e) = &p.entity {
            placed.insert(e.key());
        }
        out.push(p);
    }
    out
}

pub fn id_of(row: &Map<String, Value>) -> Option<Uuid> {
    row.get("id")
        .and_then(Value::as_str)
        .and_then(|s| Uuid::parse_str(s).ok())
}

pub fn id_text(row: &Map<String, Value>) -> String {
    match row.get("id") {
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
        None => "(no id)".into(),
    }
}

/// An SPS `timestamp` (no zone, UTC) as Stoa's time.
fn utc(v: &Value) -> Option<String> {
    let s = v.as_str()?;
    let zoned = s.ends_with('Z') || s.get(10..).is_some_and(|t| t.contains(['+', '-']));
    Some(if zoned { s.to_owned() } else { format!("{s}Z") })
}

/// A rich-text value: SPS kept each language's document as JSON text. Text that is not a
/// document is refused (reported), never wrapped or trimmed into one.
fn rich_text(field: &str, v: &Value) -> Result<Value, String> {
    let Value::Object(langs) = v else {
        return Ok(v.clone());
    };
    let mut out = Map::new();
    for (lang, d) in langs {
        let doc = match d {
            Value::String(s) if s.trim().is_empty() => {
                serde_json::from_str(stoa_kernel::model::EMPTY_DOC).unwrap_or(Value::Null)
            }
            Value::String(s) => match serde_json::from_str::<Value>(s) {
                Ok(doc @ Value::Object(_)) if doc.get("type") == Some(&Value::from("doc")) => doc,
                Ok(_) => {
                    return Err(format!(
                        "{field}.{lang} is not a rich-text document (no \"type\":\"doc\")"
                    ));
                }
                Err(e) => {
                    return Err(format!("{field}.{lang} is not a rich-text document: {e}"));
                }
            },
            other => other.clone(),
        };
        out.insert(lang.clone(), doc);
    }
    Ok(Value::Object(out))
}

/// The row's input and server-set values for `e`.
pub fn prepare(
    plan: &Plan,
    e: &Entity,
    row: &Map<String, Value>,
    remap: &HashMap<(String, Uuid), Uuid>,
    t: &mut Table,
) -> Result<Prepared, String> {
    let mut input = Map::new();
    let mut own = Vec::new();
    let index = |name: &str| e.fields.iter().position(|f| f.name == name);
    if let (Some(i), Some(id)) = (index("id"), id_of(row)) {
        own.push((i, Val::Uuid(id)));
    }
    for (name, column) in [("createdAt", "created_at"), ("updatedAt", "updated_at")] {
        if let (Some(i), Some(ts)) = (
            index(name),
            row.get(column)
                .and_then(utc)
                .and_then(|s| stoa_kernel::value::parse_timestamp(&s)),
        ) {
            own.push((i, Val::Timestamp(ts)));
        }
    }
    for (name, column) in &plan.columns {
        let Some(v) = row.get(column.as_str()) else {
            continue;
        };
        let Some(i) = index(name) else { continue };
        let f = &e.fields[i];
        let v = match f.kind {
            _ if v.is_null() => Value::Null,
            Kind::Timestamp => utc(v).map_or(Value::Null, Value::String),
            Kind::Decimal => match v {
                Value::Number(n) => Value::String(n.to_string()),
                other => other.clone(),
            },
            Kind::RichText => rich_text(name, v)?,
            Kind::Uuid | Kind::Reference => {
                let id = v.as_str().and_then(|s| Uuid::parse_str(s.trim()).ok());
                match (id, f.target) {
                    (Some(id), Some(target)) => Value::String(
                        remap
                            .get(&(target.to_owned(), id))
                            .copied()
                            .unwrap_or(id)
                            .to_string(),
                    ),
                    _ => v.clone(),
                }
            }
            _ => v.clone(),
        };
        if f.secret {
            if e.key() == "rbac.identity" && *name == "password" {
                match v.as_str() {
                    Some(h) if stoa_rbac::password::importable(h) => {
                        own.push((i, Val::Text(h.to_owned())));
                    }
                    Some(_) => t.warn(
                        "password: a hash that is not a well-formed bcrypt hash of 10 rounds was left out; that account resets its password",
                    ),
                    None => {}
                }
            }
            continue;
        }
        input.insert((*name).to_owned(), v);
    }
    if e.key() == "rbac.identity" {
        identity(&mut input)?;
    }
    Ok(Prepared { input, own })
}

/// An identity's sign-in key as Stoa keeps it (`provider:address`, the address lower-cased).
fn identity(input: &mut Map<String, Value>) -> Result<(), String> {
    let provider = input
        .get("provider")
        .and_then(Value::as_str)
        .unwrap_or("email")
        .to_owned();
    if let Some(Value::String(email)) = input.get("email") {
        let normal = email.trim().to_lowercase();
        input.insert("email".into(), Value::String(normal));
    }
    let key = match provider.as_str() {
        stoa_rbac::service::EMAIL | stoa_rbac::service::ADDRESS => input.get("email"),
        _ => input.get("account"),
    }
    .and_then(Value::as_str)
    .map(|k| k.trim().to_lowercase());
    match key {
        Some(k) if !k.is_empty() => {
            input.insert(
                "login".into(),
                Value::String(stoa_rbac::service::login_key(&provider, &k)),
            );
            Ok(())
        }
        _ => Err(format!(
            "a {provider} identity without its address or account cannot sign in"
        )),
    }
}

/// An SPS action must name a route Stoa has (its `[module.model.field]` segments standing for
/// Stoa's `{param}`s), or `*`.
pub fn check_route(input: &Map<String, Value>, routes: &[(String, String)]) -> Result<(), String> {
    let method = input.get("method").and_then(Value::as_str).unwrap_or("GET");
    let path = input.get("path").and_then(Value::as_str).unwrap_or("/");
    if path.trim() == "*" {
        return Ok(());
    }
    let segs: Vec<String> = path
        .trim_end_matches('/')
        .split('/')
        .map(str::to_lowercase)
        .collect();
    let found = routes.iter().any(|(m, p)| {
        (method == "*" || m.eq_ignore_ascii_case(method)) && {
            let theirs: Vec<&str> = p.trim_end_matches('/').split('/').collect();
            theirs.len() == segs.len()
                && theirs.iter().zip(&segs).all(|(a, b)| {
                    let param = a.starts_with('{');
                    let mask = b.starts_with('[') && b.ends_with(']');
                    param || (!mask && a.eq_ignore_ascii_case(b))
                })
        }
    });
    if found {
        Ok(())
    } else {
        Err(format!(
            "{method} {path}: Stoa has no such route, so no permission can name it"
        ))
    }
}

/// Where SPS kept a file: its name in `--files` (`/file-storage/static/a.webp` → `a.webp`, an
/// absolute URL → its path) and the key Stoa keeps it under (`sps/a.webp`; a URL's host is kept,
/// `sps/cdn.example.com/a.png`, so two hosts' files never share a key). None for a name Stoa's
/// storage would not serve (`..`, spaces, `%`, anything but letters, digits, `-_./`).
pub fn file_key(address: &str) -> Option<(String, String)> {
    let (host, path) = match address
        .strip_prefix("https://")
        .or_else(|| address.strip_prefix("http://"))
    {
        Some(rest) => match rest.split_once('/') {
            Some((h, p)) => (Some(h), p),
            None => (Some(rest), ""),
        },
        None => (None, address),
    };
    let path = path.split(['?', '#']).next().unwrap_or("");
    let name = path
        .trim_start_matches('/')
        .trim_start_matches("file-storage/static/");
    let key = match host {
        Some(h) => format!("sps/{}/{name}", h.to_ascii_lowercase()),
        None => format!("sps/{name}"),
    };
    let ok = !name.is_empty()
        && name
            .split('/')
            .all(|s| !s.is_empty() && s != ".." && s != ".")
        && stoa_api::files::safe_key(&key);
    ok.then(|| (name.to_owned(), key))
}

/// Where SPS's files are read from.
pub struct Files(stoa_file_storage::storage::Storage);

impl Files {
    pub fn open(spec: &str, config: &Config) -> anyhow::Result<Self> {
        let storage = if spec.starts_with("s3://") {
            let mut cfg = config.files.clone();
            cfg.files = Some(spec.to_owned());
            stoa_file_storage::storage::Storage::from_config(&cfg, std::path::Path::new("."))
        } else {
            let dir = std::path::Path::new(spec);
            if !dir.is_dir() {
                anyhow::bail!("--files {spec}: no such folder");
            }
            stoa_file_storage::storage::Storage::local(dir)
        }
        .map_err(|e| anyhow::anyhow!("--files: {e}"))?;
        Ok(Self(storage))
    }

    pub async fn read(&self, key: &str) -> Result<Option<bytes::Bytes>, String> {
        self.0.read(key).await.map_err(|e| e.public_message())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_keys_stay_under_sps_and_servable() {
        assert_eq!(
            file_key("/file-storage/static/a1.webp"),
            Some(("a1.webp".into(), "sps/a1.webp".into()))
        );
        assert_eq!(
            file_key("https://CDN.example.com/media/a.png?X-Amz-Signature=s"),
            Some((
                "media/a.png".into(),
                "sps/cdn.example.com/media/a.png".into()
            ))
        );
        for bad in [
            "/file-storage/static/../../etc/passwd",
            "/file-storage/static/a b.png",
            "/file-storage/static/%2e%2e/x.png",
            "/file-storage/static/",
            "https://cdn.example.com/",
            "/file-storage/static/./x.png",
        ] {
            assert_eq!(file_key(bad), None, "{bad}");
        }
    }

    #[test]
    fn abbreviated_foreign_keys_follow_sps() {
        assert_eq!(abbreviated("fileStorageModuleFileId"), "fe_se_me_fe_id");
        assert_eq!(abbreviated("widgetId"), "wt_id");
        assert_eq!(abbreviated("storesToProductsId"), "ss_to_ps_id");
    }
}

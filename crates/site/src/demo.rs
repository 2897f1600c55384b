//! The demo site ('for planet', SPEC §1): `stoa seed --demo`. The content is one JSON document
//! (`demo/site.json`) of nested records; its images ship in `demo/files` and are copied into the
//! data folder's `files/demo/`.
//!
//! Format: a list of records, each `{"$entity": "module.name", …fields}`. Inside a record:
//! - a key naming a relation whose first end is this record's entity holds the linked records
//!   (`"widgets-to-features": [{…feature…}]`), created in order (`orderIndex`), each item's
//!   `"$rel"` adding fields to the relation row (`{"variant": "additional"}`);
//! - `"$id": "name"` names a record, `{"$ref": "name"}` in a list links that record instead of
//!   creating one, and `"^relation-name": ["name", …]` links named records on the relation's
//!   first end to this one;
//! - on a host widget, `"$external": [{"module": "blog", …module widget…}]` creates the module's
//!   widget and the host widget's link to it;
//! - `"$file": "tree.svg"` on a file record fills its path, size, type and extension;
//! - a record without an admin name or a title is named after the titles of what it holds (a
//!   group of buttons: "How it works, Blog, Store"), and a record without an address gets one from
//!   its `$id` or its name (transliterated, made unique): the admin never shows the random words
//!   the store makes up for records created without them.

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::{Map, Value, json};
use stoa_kernel::model::{Entity, EntityKind};
use stoa_kernel::{Error, Result};
use stoa_store::{Exec, Store};
use uuid::Uuid;

/// The seed's name in `stoa_seeds`: it loads once per database.
pub const SEED: &str = "demo.for-planet.v1";

const SITE: &str = include_str!("../demo/site.json");

/// The demo's images: `(name, bytes, width, height)`.
pub const FILES: &[(&str, &[u8], i64, i64)] = &[
    (
        "logo.svg",
        include_bytes!("../demo/files/logo.svg"),
        160,
        40,
    ),
    (
        "hero.svg",
        include_bytes!("../demo/files/hero.svg"),
        1200,
        800,
    ),
    (
        "seedling.svg",
        include_bytes!("../demo/files/seedling.svg"),
        400,
        400,
    ),
    (
        "forest.svg",
        include_bytes!("../demo/files/forest.svg"),
        800,
        600,
    ),
    (
        "planting.svg",
        include_bytes!("../demo/files/planting.svg"),
        800,
        600,
    ),
    (
        "river.svg",
        include_bytes!("../demo/files/river.svg"),
        800,
        600,
    ),
    (
        "map.svg",
        include_bytes!("../demo/files/map.svg"),
        1000,
        560,
    ),
    ("qr.svg", include_bytes!("../demo/files/qr.svg"), 290, 290),
    (
        "person-1.svg",
        include_bytes!("../demo/files/person-1.svg"),
        300,
        300,
    ),
    (
        "person-2.svg",
        include_bytes!("../demo/files/person-2.svg"),
        300,
        300,
    ),
    (
        "person-3.svg",
        include_bytes!("../demo/files/person-3.svg"),
        300,
        300,
    ),
    (
        "tree.svg",
        include_bytes!("../demo/files/tree.svg"),
        600,
        600,
    ),
    (
        "video.svg",
        include_bytes!("../demo/files/video.svg"),
        640,
        360,
    ),
];

/// Where the demo's images are served from.
pub const FILES_URL: &str = "/files/demo";

struct Loader<'s> {
    store: &'s Store,
    refs: HashMap<String, Uuid>,
    created: usize,
    /// The addresses given so far, per entity.
    slugs: HashMap<String, HashSet<String>>,
    /// The addresses the document itself writes (anywhere): a made-up one never takes one of them.
    reserved: HashSet<String>,
}

/// Every `slug` the document writes, at any depth.
fn explicit_slugs(v: &Value, out: &mut HashSet<String>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(s)) = m.get("slug") {
                out.insert(s.clone());
            }
            m.values().for_each(|v| explicit_slugs(v, out));
        }
        Value::Array(a) => a.iter().for_each(|v| explicit_slugs(v, out)),
        _ => {}
    }
}

/// The text of a title: one text, or the first language of a translation that has one.
fn title_of(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.trim().to_owned()).filter(|s| !s.is_empty()),
        Value::Object(t) => stoa_kernel::model::LANGUAGES
            .iter()
            .filter_map(|l| t.get(*l))
            .filter_map(Value::as_str)
            .map(str::trim)
            .find(|s| !s.is_empty())
            .map(str::to_owned),
        _ => None,
    }
}

/// An address made of `text`: transliterated to ASCII, lower case, words joined by '-'.
fn slugify(text: &str) -> String {
    let ascii = deunicode::deunicode(text).to_lowercase();
    let words: Vec<&str> = ascii
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let mut out = words.join("-");
    out.truncate(60);
    out.trim_end_matches('-').to_owned()
}

impl Loader<'_> {
    /// The words of a module widget's variant (`{"module": "blog", "variant": "…"}`), in English.
    fn variant_words(&self, w: &Value) -> Option<String> {
        let module = w.get("module")?.as_str()?;
        let variant = w.get("variant")?.as_str()?;
        let e = self.store.registry.by_key(&format!("{module}.widget"))?;
        let values = e
            .field("variant")
            .map(|f| f.values.clone())
            .unwrap_or_default();
        let label = self
            .store
            .registry
            .words()
            .field(module, "widget", "variant", &values)?;
        label.values.get(variant).map(|t| t.en.clone())
    }

    /// Names a record the seed left unnamed (see the module's notes).
    fn name(
        &mut self,
        e: &Entity,
        input: &Map<String, Value>,
        children: &[(Arc<Entity>, &Vec<Value>)],
        own: &mut Map<String, Value>,
    ) {
        if e.field("adminTitle").is_some()
            && !own.contains_key("adminTitle")
            && title_of(own.get("title")).is_none()
        {
            // What it holds: its linked records, or a host widget's module widgets (by their
            // title, else by the words of their variant).
            let externals = input.get("$external").and_then(Value::as_array);
            let held: Vec<String> = children
                .iter()
                .flat_map(|(_, items)| items.iter())
                .chain(externals.into_iter().flatten())
                .filter_map(|i| title_of(i.get("title")).or_else(|| self.variant_words(i)))
                .take(3)
                .collect();
            if !held.is_empty() {
                own.insert("adminTitle".into(), json!(held.join(", ")));
            }
        }
        if e.field("slug").is_some() && !own.contains_key("slug") {
            let base = input
                .get("$id")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .or_else(|| title_of(own.get("adminTitle")))
                .or_else(|| title_of(own.get("title")))
                .map(|t| slugify(&t))
                .filter(|s| !s.is_empty());
            if let Some(base) = base {
                let used = self.slugs.entry(e.key()).or_default();
                let slug = (1..)
                    .map(|n| {
                        if n == 1 {
                            base.clone()
                        } else {
                            format!("{base}-{n}")
                        }
                    })
                    .find(|s| !used.contains(s) && !self.reserved.contains(s))
                    .unwrap_or(base);
                used.insert(slug.clone());
                own.insert("slug".into(), json!(slug));
            }
        }
    }

    fn file_fields(&self, name: &str, out: &mut Map<String, Value>) -> Result<()> {
        let (_, bytes, w, h) = FILES
            .iter()
            .find(|f| f.0 == name)
            .ok_or_else(|| Error::internal(format!("demo file {name} is not shipped")))?;
        let ext = name.rsplit('.').next().unwrap_or_default();
        out.insert("file".into(), json!(format!("{FILES_URL}/{name}")));
        out.insert("size".into(), json!(bytes.len()));
        out.insert("width".into(), json!(w));
        out.insert("height".into(), json!(h));
        out.insert("extension".into(), json!(ext));
        out.insert(
            "mimeType".into(),
            json!(if ext == "svg" {
                "image/svg+xml"
            } else {
                "image/png"
            }),
        );
        out.entry("adminTitle").or_insert_with(|| json!(name));
        Ok(())
    }

    fn load<'a>(
        &'a mut self,
        exec: &'a mut Exec<'_>,
        key: &'a str,
        input: &'a Map<String, Value>,
    ) -> Pin<Box<dyn Future<Output = Result<Uuid>> + Send + 'a>> {
        Box::pin(async move {
            if let Some(name) = input.get("$ref").and_then(Value::as_str) {
                return self.refs.get(name).copied().ok_or_else(|| {
                    Error::internal(format!("demo: {name} is used before it is made"))
                });
            }
            let store = self.store;
            let e = store.entity(key)?;
            let mut own = Map::new();
            let mut children: Vec<(Arc<Entity>, &Vec<Value>)> = Vec::new();
            for (k, v) in input {
                if k.starts_with('$') || k.starts_with('^') {
                    continue;
                }
                match (relation_at(store, k, 0, key), v) {
                    (Some(rel), Value::Array(items)) => children.push((rel, items)),
                    (Some(_), _) => {
                        return Err(Error::internal(format!("demo: {key}.{k} must be a list")));
                    }
                    (None, _) => {
                        own.insert(k.clone(), v.clone());
                    }
                }
            }
            if let Some(name) = input.get("$file").and_then(Value::as_str) {
                self.file_fields(name, &mut own)?;
            }
            self.name(&e, input, &children, &mut own);
            let row = store.create_in(exec, &e, &own).await.map_err(|err| {
                Error::internal(format!(
                    "demo: creating {key} {}: {err}",
                    Value::Object(own.clone())
                ))
            })?;
            let id = row.id().ok_or_else(|| Error::internal("row without id"))?;
            self.created += 1;
            if let Some(name) = input.get("$id").and_then(Value::as_str) {
                self.refs.insert(name.to_owned(), id);
            }
            for (rel, items) in children {
                let ends = rel.relation_ends();
                let (left, right) = (ends[0], ends[1]);
                let target = right
                    .target
                    .ok_or_else(|| Error::internal("relation end without target"))?;
                for (i, item) in items.iter().enumerate() {
                    let item = item.as_object().cloned().unwrap_or_default();
                    let child = self.load(exec, target, &item).await?;
                    let mut link = stoa_kernel::value::fields(
                        json!({left.name: id, right.name: child, "orderIndex": i}),
                    );
                    if let Some(Value::Object(extra)) = item.get("$rel") {
                        link.extend(extra.clone());
                    }
                    store.create_in(exec, &rel, &link).await?;
                    self.created += 1;
                }
            }
            for (k, v) in input.iter().filter(|(k, _)| k.starts_with('^')) {
                let rel = relation_at(store, &k[1..], 1, key)
                    .ok_or_else(|| Error::internal(format!("demo: no relation {k}")))?;
                let ends = rel.relation_ends();
                for name in v.as_array().into_iter().flatten().filter_map(Value::as_str) {
                    let other =
                        self.refs.get(name).copied().ok_or_else(|| {
                            Error::internal(format!("demo: {name} is not made yet"))
                        })?;
                    store
                        .create_in(
                            exec,
                            &rel,
                            &stoa_kernel::value::fields(
                                json!({ends[0].name: other, ends[1].name: id}),
                            ),
                        )
                        .await?;
                    self.created += 1;
                }
            }
            if let Some(Value::Array(ext)) = input.get("$external") {
                let link = store.entity("host.widgets-to-external-widgets")?;
                for (i, w) in ext.iter().enumerate() {
                    let mut w = w.as_object().cloned().unwrap_or_default();
                    let module = w
                        .remove("module")
                        .and_then(|m| m.as_str().map(str::to_owned))
                        .ok_or_else(|| Error::internal("demo: $external needs a module"))?;
                    let wkey = format!("{module}.widget");
                    let wid = self.load(exec, &wkey, &w).await?;
                    let mut l = stoa_kernel::value::fields(
                        json!({"widgetId": id, "externalModule": module, "externalWidgetId": wid, "orderIndex": i}),
                    );
                    if let Some(Value::Object(extra)) = w.get("$rel") {
                        l.extend(extra.clone());
                    }
                    store.create_in(exec, &link, &l).await?;
                    self.created += 1;
                }
            }
            Ok(id)
        })
    }
}

/// The relation called `name` whose end number `end` (0: first, 1: second) is the entity `key`.
/// Names repeat across modules (`attribute-keys-to-attributes`), so the end decides.
fn relation_at(store: &Store, name: &str, end: usize, key: &str) -> Option<Arc<Entity>> {
    store
        .registry
        .entities()
        .iter()
        .find(|r| {
            r.kind == EntityKind::Relation
                && r.name == name
                && r.relation_ends().get(end).and_then(|f| f.target) == Some(key)
        })
        .cloned()
}

/// The demo images: (name, bytes); they are served as `/files/demo/<name>`.
pub fn images() -> impl Iterator<Item = (&'static str, &'static [u8])> {
    FILES
        .iter()
        .map(|(name, bytes, _, _)| (*name, *bytes as &'static [u8]))
}

/// Writes the demo images into `data_dir/files/demo`.
pub fn write_files(data_dir: &Path) -> std::io::Result<()> {
    let dir = data_dir.join("files").join("demo");
    std::fs::create_dir_all(&dir)?;
    for (name, bytes, _, _) in FILES {
        std::fs::write(dir.join(name), bytes)?;
    }
    Ok(())
}

/// Loads the demo site once per database (and its images into `data_dir` every time, so a
/// moved data folder heals). Returns the number of rows written, 0 when it was already there.
pub async fn seed(store: &Store, data_dir: &Path) -> Result<usize> {
    write_files(data_dir).map_err(|e| Error::internal(format!("writing the demo images: {e}")))?;
    if stoa_store::seed::applied(&store.db, SEED).await? {
        return Ok(0);
    }
    let doc: Value =
        serde_json::from_str(SITE).map_err(|e| Error::internal(format!("demo/site.json: {e}")))?;
    let mut reserved = HashSet::new();
    explicit_slugs(&doc, &mut reserved);
    let mut loader = Loader {
        store,
        refs: HashMap::new(),
        created: 0,
        slugs: HashMap::new(),
        reserved,
    };
    let mut tx = store.begin().await?;
    {
        let mut exec = tx.exec();
        for r in doc["records"].as_array().into_iter().flatten() {
            let r = r.as_object().cloned().unwrap_or_default();
            let key = r
                .get("$entity")
                .and_then(Value::as_str)
                .ok_or_else(|| Error::internal("demo: a record without $entity"))?
                .to_owned();
            loader.load(&mut exec, &key, &r).await?;
        }
        stoa_store::seed::mark(&mut exec, SEED).await?;
    }
    tx.commit().await?;
    tracing::info!(seed = SEED, rows = loader.created, "loaded the demo site");
    Ok(loader.created)
}

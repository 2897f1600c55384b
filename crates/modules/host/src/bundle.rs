//! A page bundle: the page a URL shows with every record its renderer needs — layouts, host
//! widgets, each host widget's module widgets and their trees (buttons arrays, buttons, features,
//! sliders, slides, files…), the lists and the record an overview shows, product prices, and the
//! page's metadata over the site defaults. One read builds it; the server embeds it in the HTML so
//! the first render makes no API call, and client navigation fetches it in one request.
//!
//! Shape: every record carries `_entity` (`module.name`). Relations below a record are under
//! `_rel[<relation name>]` as the relation rows (variant, orderIndex…) each with the linked record
//! in `_to`, in `orderIndex` order. List widgets get `_list`, overview widgets `_record`; other modules
//! add theirs (ecommerce: `_prices` on products).

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::{Map, Value, json};
use stoa_kernel::model::{Entity, EntityKind};
use stoa_kernel::value::Val;
use stoa_kernel::{Error, Result};
use stoa_store::{Record, Store};
use uuid::Uuid;

use crate::rows::{
    ExternalRow, LayoutWidgetRow, MetadataRow, PageLayoutRow, PageMetadataRow, PageRow,
    PageWidgetRow, typed, with_rows,
};

type Node = Map<String, Value>;
/// A metadata record with its typed row (its tags are read by name, [`META_FIELDS`]).
type Meta = (MetadataRow, Record);

/// Depth of relation trees below a module widget.
const DEPTH: u8 = 6;
/// Most records one bundle holds; past it, trees are cut (and the cut is logged).
const MAX_RECORDS: usize = 3_000;
/// Most rows of one relation below one level.
const MAX_LINKS: usize = 1_000;
/// Items a list widget shows when nothing is linked to it.
const LIST_CAP: usize = 100;

/// The record a list or overview widget is about, read from the declarations: a widget of module
/// `m` whose variant starts with `<entity name>-list` lists that entity of `m`
/// (`category-list-default` → `blog.category`), `<entity name>-overview` shows one record of it.
fn widget_subject(store: &Store, module: &str, variant: &str, kind: &str) -> Option<Arc<Entity>> {
    store
        .registry
        .entities()
        .iter()
        .filter(|e| e.module == module && e.kind == EntityKind::Model && e.name != "widget")
        .filter(|e| {
            variant
                .strip_prefix(e.name)
                .and_then(|rest| rest.strip_prefix('-'))
                .is_some_and(|rest| rest.starts_with(kind))
        })
        .max_by_key(|e| e.name.len())
        .cloned()
}

struct Ctx<'a> {
    store: &'a Store,
    records: usize,
    cut: bool,
    /// Child relations per entity key, worked out once per bundle.
    children: HashMap<String, Arc<Vec<Child>>>,
}

impl Ctx<'_> {
    fn children(&mut self, e: &Entity) -> Arc<Vec<Child>> {
        let store = self.store;
        self.children
            .entry(e.key())
            .or_insert_with(|| Arc::new(child_relations(store, e)))
            .clone()
    }
}

fn node(e: &Entity, r: &Record) -> Node {
    let mut n = match r.to_json() {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    n.insert("_entity".into(), Value::String(e.key()));
    n
}

fn id_of(n: &Node) -> Option<Uuid> {
    n.get("id")
        .and_then(Value::as_str)
        .and_then(|s| Uuid::parse_str(s).ok())
}

fn readable(store: &Store, e: &Entity) -> bool {
    store.registry.publicly_readable(e)
}

/// Relations that hang below `e`: their first reference points at `e`, their second at a record
/// visitors may read. Host relations are composed by the page itself.
type Child = (Arc<Entity>, &'static str, &'static str, Arc<Entity>);

fn child_relations(store: &Store, e: &Entity) -> Vec<Child> {
    let key = e.key();
    let mut out = Vec::new();
    for r in store.registry.entities() {
        if r.kind != EntityKind::Relation || r.module == "host" || !readable(store, r) {
            continue;
        }
        let ends = r.relation_ends();
        let (Some(left), Some(right)) = (ends.first(), ends.get(1)) else {
            continue;
        };
        if left.target != Some(key.as_str()) {
            continue;
        }
        let Some(target) = right.target.and_then(|t| store.registry.by_key(t)) else {
            continue;
        };
        if target.private_links || !readable(store, target) {
            continue;
        }
        out.push((r.clone(), left.name, right.name, target.clone()));
    }
    out
}

async fn by_ids(store: &Store, e: &Entity, ids: &[Uuid]) -> Result<HashMap<Uuid, Record>> {
    let vals: Vec<Val> = ids.iter().copied().map(Val::Uuid).collect();
    Ok(store
        .find_in(e, "id", &vals, ids.len())
        .await?
        .into_iter()
        .filter_map(|r| Some((r.id()?, r)))
        .collect())
}

/// Attaches each node's relation trees, one query per relation and level for all nodes at once.
fn expand<'a>(
    ctx: &'a mut Ctx<'_>,
    e: &'a Entity,
    nodes: &'a mut [Node],
    depth: u8,
) -> Pin<Box<dyn Future<Output = Result<()>> + Send + 'a>> {
    Box::pin(async move {
        if depth == 0 || nodes.is_empty() {
            return Ok(());
        }
        let ids: Vec<Val> = nodes.iter().filter_map(id_of).map(Val::Uuid).collect();
        for (rel, left, right, target) in ctx.children(e).iter().cloned() {
            if ctx.records >= MAX_RECORDS {
                ctx.cut = true;
                break;
            }
            let links = ctx.store.find_in(&rel, left, &ids, MAX_LINKS).await?;
            if links.is_empty() {
                continue;
            }
            let wanted: Vec<Uuid> = {
                let set: HashSet<Uuid> = links.iter().filter_map(|l| l.uuid(right)).collect();
                set.into_iter().collect()
            };
            let found = by_ids(ctx.store, &target, &wanted).await?;
            let mut children: Vec<Node> = wanted
                .iter()
                .filter_map(|id| found.get(id))
                .map(|r| node(&target, r))
                .collect();
            ctx.records += links.len() + children.len();
            expand(ctx, &target, &mut children, depth - 1).await?;
            let children: HashMap<Uuid, Node> = children
                .into_iter()
                .filter_map(|n| Some((id_of(&n)?, n)))
                .collect();
            for n in nodes.iter_mut() {
                let Some(id) = id_of(n) else { continue };
                let list: Vec<Value> = links
                    .iter()
                    .filter(|l| l.uuid(left) == Some(id))
                    .filter_map(|l| {
                        let child = children.get(&l.uuid(right)?)?;
                        let mut link = node(&rel, l);
                        link.insert("_to".into(), Value::Object(child.clone()));
                        Some(Value::Object(link))
                    })
                    .collect();
                if list.is_empty() {
                    continue;
                }
                let rels = n.entry("_rel").or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(m) = rels {
                    m.insert(rel.name.to_owned(), Value::Array(list));
                }
            }
        }
        Ok(())
    })
}

/// The records linked below `n` through `relation`, in order.
fn linked(n: &Node, relation: &str) -> Vec<Value> {
    n.get("_rel")
        .and_then(|r| r.get(relation))
        .and_then(Value::as_array)
        .map(|l| l.iter().filter_map(|x| x.get("_to").cloned()).collect())
        .unwrap_or_default()
}

/// `_list` and `_record` of module widgets whose variant lists or overviews records (see
/// [`widget_subject`]). A list holds the records linked to the widget, or every record when none
/// are.
async fn widget_extras(ctx: &mut Ctx<'_>, module: &str, n: &mut Node, url: &str) -> Result<()> {
    let variant = n
        .get("variant")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let widget_key = format!("{module}.widget");
    if let Some(e) =
        widget_subject(ctx.store, module, &variant, "list").filter(|e| readable(ctx.store, e))
    {
        let key = e.key();
        let picked: Vec<Value> = ctx
            .children(&*ctx.store.entity(&widget_key)?)
            .iter()
            .filter(|(_, _, _, target)| target.key() == key)
            .flat_map(|(rel, ..)| linked(n, rel.name))
            .collect();
        let list = if picked.is_empty() {
            // The newest LIST_CAP (ids are time-ordered), shown in the order they were made.
            let newest = stoa_kernel::query::FindQuery::all()
                .sort(&e, "id", true)?
                .take(LIST_CAP as u64);
            let mut rows = ctx.store.find(&e, &newest).await?.rows;
            rows.reverse();
            let mut nodes: Vec<Node> = rows.iter().map(|r| node(&e, r)).collect();
            ctx.records += nodes.len();
            expand(ctx, &e, &mut nodes, 2).await?;
            nodes.into_iter().map(Value::Object).collect()
        } else {
            picked
        };
        n.insert("_list".into(), Value::Array(list));
    }
    if let Some(e) = widget_subject(ctx.store, module, &variant, "overview") {
        let segment = format!("{module}.{}.slug", e.route);
        let record = match crate::pages::segment_value(ctx.store, url, &segment).await? {
            Some(slug) if readable(ctx.store, &e) => ctx
                .store
                .find_by(&e, &[("slug", Val::Text(slug))], 1)
                .await?
                .into_iter()
                .next(),
            _ => None,
        };
        let value = match record {
            Some(r) => {
                let mut nodes = vec![node(&e, &r)];
                ctx.records += 1;
                expand(ctx, &e, &mut nodes, 4).await?;
                nodes.pop().map_or(Value::Null, Value::Object)
            }
            None => Value::Null,
        };
        n.insert("_record".into(), value);
    }
    Ok(())
}

/// Metadata columns merged from the site defaults (variant `primary`) and the page's own.
const META_FIELDS: &[&str] = &[
    "title",
    "description",
    "keywords",
    "author",
    "viewport",
    "opengraphTitle",
    "opengraphDescription",
    "opengraphUrl",
    "opengraphType",
    "opengraphSiteName",
    "opengraphLocale",
    "twitterCard",
    "twitterSite",
    "twitterCreator",
    "twitterTitle",
    "twitterDescription",
    "twitterUrl",
    "twitterDomain",
    "twitterAppCountry",
];

/// The page's metadata over the site defaults: `(any language, per language)`. For each language
/// the record written in it is taken, else one written for any language (empty `language`),
/// field by field over the defaults chosen the same way.
async fn metadata(
    store: &Store,
    pid: Uuid,
    page: &PageRow,
    shown: Option<&Value>,
) -> Result<(Value, Value)> {
    let (own, defaults) = metadata_records(store, pid).await?;
    let merged =
        |lang: Option<&str>| -> Value { merged_metadata(page, shown, &own, &defaults, lang) };
    let mut by_language = Map::new();
    for l in stoa_kernel::model::LANGUAGES {
        by_language.insert((*l).to_owned(), merged(Some(l)));
    }
    Ok((merged(None), Value::Object(by_language)))
}

/// The own metadata records of page `pid`, in the order it links them, and the site defaults
/// (variant `primary`).
async fn metadata_records(store: &Store, pid: Uuid) -> Result<(Vec<Meta>, Vec<Meta>)> {
    let meta = store.entity("host.metadata")?;
    let defaults = store
        .find_by(&meta, &[("variant", Val::Text("primary".into()))], 10)
        .await?;
    let links: Vec<PageMetadataRow> = typed(
        &store
            .find_in(
                &*store.entity("host.pages-to-metadata")?,
                "pageId",
                &[Val::Uuid(pid)],
                10,
            )
            .await?,
    )?;
    let ids: Vec<Uuid> = links.iter().filter_map(|l| l.metadata_id).collect();
    let mut found = by_ids(store, &meta, &ids).await?;
    // In the order the page links them.
    let own: Vec<Record> = ids.iter().filter_map(|id| found.remove(id)).collect();
    Ok((with_rows(own)?, with_rows(defaults)?))
}

/// The metadata record of `rows` for `lang`: the one written in it, else one written for any
/// language (else, when no language is asked for, the first).
fn metadata_for(rows: &[Meta], lang: Option<&str>) -> Option<Record> {
    let written_in = |r: &&Meta, l: &str| r.0.language.as_deref().unwrap_or_default() == l;
    lang.and_then(|l| rows.iter().find(|r| written_in(r, l)))
        .or_else(|| rows.iter().find(|r| written_in(r, "")))
        .or_else(|| if lang.is_none() { rows.first() } else { None })
        .map(|(_, r)| r.clone())
}

/// The metadata of the page in `lang` (`None`: any language): the record it shows, its own
/// metadata over the `defaults`, field by field, and its title and description last.
fn merged_metadata(
    page: &PageRow,
    shown: Option<&Value>,
    own: &[Meta],
    defaults: &[Meta],
    lang: Option<&str>,
) -> Value {
    let (own, default) = (metadata_for(own, lang), metadata_for(defaults, lang));
    let mut out = Map::new();
    // The record the page shows gives the title and description, in the language asked
    // for (else any), unless the page has metadata of its own in that language.
    if let (Some(r), Some(l), true) = (shown, lang, own.is_none()) {
        shown_texts(r, l, &mut out);
    }
    for f in META_FIELDS {
        let pick = own
            .as_ref()
            .and_then(|r| r.text(f))
            .filter(|s| !s.trim().is_empty())
            .or_else(|| {
                default
                    .as_ref()
                    .and_then(|r| r.text(f))
                    .filter(|s| !s.trim().is_empty())
            });
        if let Some(v) = pick
            && !out.contains_key(*f)
        {
            out.insert((*f).to_owned(), Value::String(v.to_owned()));
        }
    }
    if !out.contains_key("title") {
        out.insert(
            "title".into(),
            Value::String(page.title.as_deref().unwrap_or("Stoa").to_owned()),
        );
    }
    if !out.contains_key("description")
        && let Some(d) = page.description.as_deref().filter(|d| !d.is_empty())
    {
        out.insert("description".into(), Value::String(d.to_owned()));
    }
    Value::Object(out)
}

/// Puts into `out` the title and description of the record `r` a page shows, in language `l`
/// (else any).
fn shown_texts(r: &Value, l: &str, out: &mut Map<String, Value>) {
    let text = |k: &str| -> Option<String> {
        match &r[k] {
            Value::String(s) => Some(s.clone()),
            Value::Object(m) => m
                .get(l)
                .or_else(|| m.values().next())
                .and_then(Value::as_str)
                .map(str::to_owned),
            _ => None,
        }
        .filter(|s| !s.trim().is_empty())
    };
    if let Some(t) = text("title") {
        out.insert("title".into(), Value::String(t));
    }
    if let Some(d) = text("shortDescription").or_else(|| text("subtitle")) {
        out.insert("description".into(), Value::String(d));
    }
}

/// Host widgets by id, each with its module widgets under `_externals`
/// (`[{module, variant, widget}]`).
async fn host_widgets(ctx: &mut Ctx<'_>, ids: &[Uuid], url: &str) -> Result<HashMap<Uuid, Value>> {
    let store = ctx.store;
    let hw = store.entity("host.widget")?;
    let rows = by_ids(store, &hw, ids).await?;
    let ext: Vec<(ExternalRow, Record)> = with_rows(
        store
            .find_in(
                &*store.entity("host.widgets-to-external-widgets")?,
                "widgetId",
                &ids.iter().copied().map(Val::Uuid).collect::<Vec<_>>(),
                MAX_LINKS,
            )
            .await?,
    )?;
    // Module widgets, one query per module.
    let mut by_module: HashMap<String, Vec<Uuid>> = HashMap::new();
    for (l, _) in &ext {
        if let (Some(m), Some(id)) = (&l.external_module, l.external_widget_id) {
            by_module.entry(m.clone()).or_default().push(id);
        }
    }
    let mut widgets: HashMap<(String, Uuid), Node> = HashMap::new();
    for (module, wanted) in by_module {
        let Some(e) = store.registry.by_route(&module, "widgets").cloned() else {
            continue;
        };
        if !readable(store, &e) {
            continue;
        }
        let found = by_ids(store, &e, &wanted).await?;
        let mut nodes: Vec<Node> = found.values().map(|r| node(&e, r)).collect();
        ctx.records += nodes.len();
        expand(ctx, &e, &mut nodes, DEPTH).await?;
        for mut n in nodes {
            widget_extras(ctx, &module, &mut n, url).await?;
            if let Some(id) = id_of(&n) {
                widgets.insert((module.clone(), id), n);
            }
        }
    }
    let link_entity = store.entity("host.widgets-to-external-widgets")?;
    let mut out = HashMap::new();
    for (id, r) in rows {
        let mut n = node(&hw, &r);
        let externals: Vec<Value> = ext
            .iter()
            .filter(|(l, _)| l.widget_id == Some(id))
            .filter_map(|(l, row)| {
                let module = l.external_module.clone()?;
                let w = widgets.get(&(module.clone(), l.external_widget_id?))?;
                let mut link = node(&link_entity, row);
                link.insert("module".into(), Value::String(module));
                link.insert("widget".into(), Value::Object(w.clone()));
                Some(Value::Object(link))
            })
            .collect();
        n.insert("_externals".into(), Value::Array(externals));
        out.insert(id, Value::Object(n));
    }
    Ok(out)
}

/// The bundle of the page `url` shows (404 when no page does).
/// `parts` add what other modules' records need (see [`stoa_api::module::BundlePart`]).
pub async fn build(
    store: &Store,
    url: &str,
    parts: &[Arc<dyn stoa_api::module::BundlePart>],
) -> Result<Value> {
    let path = crate::pages::normalise(url)?;
    let (page_row, page) = crate::pages::find_page(store, &path).await?;
    let pid = page
        .id()
        .ok_or_else(|| Error::internal("page without id"))?;
    let mut ctx = Ctx {
        store,
        records: 0,
        cut: false,
        children: HashMap::new(),
    };
    let layouts = page_layouts(store, pid).await?;
    let p2w: Vec<PageWidgetRow> = typed(
        &store
            .find_in(
                &*store.entity("host.pages-to-widgets")?,
                "pageId",
                &[Val::Uuid(pid)],
                MAX_LINKS,
            )
            .await?,
    )?;
    let wanted = widget_ids(&layouts.links, &p2w);
    let widgets = host_widgets(&mut ctx, &wanted, &path).await?;
    let layouts = layout_nodes(&layouts, &widgets);
    let content = picked(&widgets, p2w.iter().map(|l| l.widget_id));
    let shown = shown_record(&content);
    let (meta, meta_by_language) = metadata(store, pid, &page_row, shown).await?;
    let mut out = json!({
        "page": node(&*store.entity("host.page")?, &page),
        "url": path,
        "meta": meta,
        "metaByLanguage": meta_by_language,
        "layouts": layouts,
        "widgets": content,
    });
    for part in parts {
        part.contribute(store, &mut out).await?;
    }
    if ctx.cut {
        tracing::warn!(url = %path, records = ctx.records, "page bundle cut at its record limit");
    }
    Ok(out)
}

/// A page's layouts (variant `default`) and their links to host widgets.
struct PageLayouts {
    entity: Arc<Entity>,
    /// In the order the page links them.
    ids: Vec<Uuid>,
    rows: HashMap<Uuid, Record>,
    /// Layouts-to-widgets rows.
    links: Vec<LayoutWidgetRow>,
}

/// The layouts of page `pid` and their widget links.
async fn page_layouts(store: &Store, pid: Uuid) -> Result<PageLayouts> {
    let p2l: Vec<PageLayoutRow> = typed(
        &store
            .find_in(
                &*store.entity("host.pages-to-layouts")?,
                "pageId",
                &[Val::Uuid(pid)],
                50,
            )
            .await?,
    )?;
    let ids: Vec<Uuid> = p2l
        .iter()
        .filter(|l| l.variant.as_deref() == Some("default"))
        .filter_map(|l| l.layout_id)
        .collect();
    let entity = store.entity("host.layout")?;
    let rows = by_ids(store, &entity, &ids).await?;
    let links: Vec<LayoutWidgetRow> = typed(
        &store
            .find_in(
                &*store.entity("host.layouts-to-widgets")?,
                "layoutId",
                &ids.iter().copied().map(Val::Uuid).collect::<Vec<_>>(),
                MAX_LINKS,
            )
            .await?,
    )?;
    Ok(PageLayouts {
        entity,
        ids,
        rows,
        links,
    })
}

/// The host widgets the layouts' and the page's links name, each once.
fn widget_ids(l2w: &[LayoutWidgetRow], p2w: &[PageWidgetRow]) -> Vec<Uuid> {
    let mut wanted: Vec<Uuid> = l2w
        .iter()
        .map(|l| l.widget_id)
        .chain(p2w.iter().map(|l| l.widget_id))
        .flatten()
        .collect();
    wanted.sort();
    wanted.dedup();
    wanted
}

/// The host widgets of links naming `widget_ids`, in order (those not found left out).
fn picked(
    widgets: &HashMap<Uuid, Value>,
    widget_ids: impl Iterator<Item = Option<Uuid>>,
) -> Vec<Value> {
    widget_ids
        .filter_map(|id| widgets.get(&id?).cloned())
        .collect()
}

/// The layouts' nodes, each with its widgets before (`_before`) and after (`_after`) the page's.
fn layout_nodes(layouts: &PageLayouts, widgets: &HashMap<Uuid, Value>) -> Vec<Value> {
    layouts
        .ids
        .iter()
        .filter_map(|id| {
            let r = layouts.rows.get(id)?;
            let mut n = node(&layouts.entity, r);
            let mine = |variant: &str| {
                picked(
                    widgets,
                    layouts
                        .links
                        .iter()
                        .filter(|l| {
                            l.layout_id == Some(*id) && l.variant.as_deref() == Some(variant)
                        })
                        .map(|l| l.widget_id),
                )
            };
            n.insert("_before".into(), Value::Array(mine("default")));
            n.insert("_after".into(), Value::Array(mine("additional")));
            Some(Value::Object(n))
        })
        .collect()
}

/// The record a page shows, when it shows one (an article, a product): it titles the page.
fn shown_record(content: &[Value]) -> Option<&Value> {
    content.iter().find_map(|w| {
        w["_externals"].as_array()?.iter().find_map(|x| {
            let r = &x["widget"]["_record"];
            r.is_object().then_some(r)
        })
    })
}

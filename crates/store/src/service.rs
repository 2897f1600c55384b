//! The generic entity service: validated create, update, delete, find-or-create and bulk writes
//! for any declared entity, each in one transaction. Module services build on these.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Map, Value as Json};
use stoa_kernel::model::{DefaultValue, Entity, Kind};
use stoa_kernel::query::FindQuery;
use stoa_kernel::registry::Registry;
use stoa_kernel::value::{Val, prepare_create, prepare_patch};
use stoa_kernel::{Error, Result, words};
use uuid::Uuid;

use crate::db::{Db, Exec};
use crate::read::{Keep, Total, cursor_values};
use crate::repo::{self, Record};

/// Most items a bulk request may carry.
pub const MAX_BULK: usize = 100;

#[derive(Clone)]
pub struct Store {
    pub db: Db,
    pub registry: Arc<Registry>,
    versions: Arc<Versions>,
    guards: Arc<crate::guard::Guards>,
    /// Each public link table's references to publishable entities, by table (see
    /// [`crate::publish::published_refs`]); built once, read on every visitor read.
    links: Arc<HashMap<String, Vec<(usize, String)>>>,
    /// Bumps the counters of what a committed [`Store::begin`] transaction wrote.
    on_commit: crate::db::OnCommit,
    /// Hears the row writes of [`Store::begin`] transactions (see [`crate::tap`]).
    tap: Arc<std::sync::OnceLock<Arc<dyn crate::tap::WriteTap>>>,
}

/// Told each `module.entity` key this process changes (see [`Store::tell_changes`]).
pub type TellChanges = Box<dyn Fn(&str) + Send + Sync>;

/// A change counter per entity, bumped after every committed write through the store: caches
/// built from a table (permissions, roles) compare versions instead of polling the database.
/// Counters are per process; on PostgreSQL each change is also sent to the other instances
/// (`stoa_api::cluster`), which bump theirs.
#[derive(Default)]
struct Versions {
    /// Each entity's counters, and whether visitors may read it.
    each: HashMap<String, Counters>,
    /// Bumped with every entity's counter: "has anything changed?" in one load.
    any: AtomicU64,
    /// Bumped only when an entity visitors may read changes: what public caches (page
    /// bundles, the sitemap) are keyed on, so private writes (form requests, chat messages,
    /// orders, analytics counters, jobs) never clear them.
    public: AtomicU64,
    /// Told each key this process changes, so other instances can be told (see
    /// `stoa_api::cluster`); unset with one instance.
    elsewhere: std::sync::OnceLock<TellChanges>,
}

/// One entity's change counters.
struct Counters {
    /// Every committed change.
    all: AtomicU64,
    /// Changes to rows that existed (updates and deletes; inserts do not move it): caches of
    /// rows that only an update or a delete can make stale.
    rows: AtomicU64,
    /// Changes a visitor may see: all but inserts of rows visitors cannot read (a hidden file,
    /// a draft).
    seen: AtomicU64,
    /// Visitors may read the entity.
    public: bool,
}

impl Versions {
    /// `key` changed here (`rows`: rows that existed changed, not only new ones; `seen`: a
    /// visitor may see the change): bump its counters and tell the other instances (which count
    /// every change as seen).
    fn touch(&self, key: &str, rows: bool, seen: bool) {
        self.bump(key, rows, seen);
        if let Some(tell) = self.elsewhere.get() {
            tell(key);
        }
    }

    fn bump(&self, key: &str, rows: bool, seen: bool) {
        if let Some(c) = self.each.get(key) {
            c.all.fetch_add(1, Ordering::AcqRel);
            if rows {
                c.rows.fetch_add(1, Ordering::AcqRel);
            }
            if seen {
                c.seen.fetch_add(1, Ordering::AcqRel);
                if c.public {
                    self.public.fetch_add(1, Ordering::AcqRel);
                }
            }
        }
        self.any.fetch_add(1, Ordering::AcqRel);
    }
}

pub struct Page {
    pub rows: Vec<Record>,
    pub total: Option<Total>,
}

/// A list page as the API sends it: see [`Store::find_json`].
pub struct JsonPage {
    /// `{"data":[…]}`
    pub body: Vec<u8>,
    pub total: Option<Total>,
    /// The `after` cursor of the next page, when this page is full.
    pub next: Option<String>,
}

/// A query's rows page by page: see [`Store::walk`].
pub struct Walk<'s> {
    store: &'s Store,
    e: &'s Entity,
    q: FindQuery,
    /// The cursor's fields; `None` when the sort cannot be a cursor (pages go by offset).
    names: Option<Vec<&'static str>>,
    /// Rows still to hand out.
    left: usize,
    /// No page is fetched past this (see [`Walk::within`]).
    deadline: Option<std::time::Instant>,
    done: bool,
}

impl Walk<'_> {
    /// A walk that fetches no page once `budget` has passed from now: what a periodic job does
    /// with a table of any size (the rest waits for its next run, from [`Walk::after`]).
    pub fn within(mut self, budget: std::time::Duration) -> Self {
        // A budget past what an `Instant` can hold is no budget.
        self.deadline = std::time::Instant::now().checked_add(budget);
        self
    }

    /// The next page; `None` once the rows, the cap or the time budget ran out.
    pub async fn next(&mut self) -> Result<Option<Vec<Record>>> {
        if self.done()
            || self
                .deadline
                .is_some_and(|d| std::time::Instant::now() >= d)
        {
            return Ok(None);
        }
        let mut rows = self.store.find(self.e, &self.q).await?.rows;
        self.done = (rows.len() as u64) < self.q.limit;
        rows.truncate(self.left);
        self.left -= rows.len();
        match (rows.last(), self.names.as_deref()) {
            (Some(r), Some(names)) => {
                let values = cursor_values(r, names);
                self.q.after = Some(stoa_kernel::query::cursor::typed(
                    self.e,
                    &self.q.order,
                    &values,
                )?);
                // The cursor is where the next page starts: a caller's offset applied once.
                self.q.offset = 0;
            }
            (Some(_), None) => self.q.offset += self.q.limit,
            (None, _) => self.done = true,
        }
        Ok((!rows.is_empty()).then_some(rows))
    }

    /// The keyset cursor after the last row handed out (before the first page, the query's own
    /// `after`; `None` for a sort a cursor cannot hold): a later walk of the same query with it
    /// as `after` goes on from there.
    pub fn after(&self) -> Option<&[Val]> {
        self.q.after.as_deref()
    }

    /// Whether the rows ran out (a walk stopped before that has more to give).
    pub fn done(&self) -> bool {
        self.done || self.left == 0
    }
}

/// The fields a cursor of `q` names (its sort fields, then `id`); `None` when the sort is on
/// something a cursor cannot hold (a JSON key).
fn cursor_names(e: &Entity, q: &FindQuery) -> Option<Vec<&'static str>> {
    q.order.iter().all(|o| o.path.is_none()).then(|| {
        q.order
            .iter()
            .map(|o| e.fields[o.field].name)
            .chain(["id"])
            .collect()
    })
}

/// The guarded fields of `old` as a compare-and-set condition.
fn held(g: &dyn crate::guard::WriteGuard, e: &Entity, old: &Record) -> Vec<(usize, Val)> {
    g.fields()
        .iter()
        .filter_map(|name| {
            let v = old
                .text(name)
                .map_or(Val::Null, |t| Val::Text(t.to_owned()));
            Some((e.field_index(name)?, v))
        })
        .collect()
}

fn changed(e: &Entity, id: Uuid) -> Error {
    Error::Conflict {
        message: format!(
            "{} {id} changed while this change was checked; reload it and try again",
            e.key()
        ),
        fields: Default::default(),
    }
}

fn missing(e: &Entity, id: Uuid) -> Error {
    Error::not_found(format!("{} {id} not found", e.key()))
}

impl Store {
    pub fn new(db: Db, registry: Arc<Registry>) -> Self {
        let versions = Versions {
            each: registry
                .entities()
                .iter()
                .map(|e| {
                    let counters = Counters {
                        all: AtomicU64::new(0),
                        rows: AtomicU64::new(0),
                        seen: AtomicU64::new(0),
                        public: registry.publicly_readable(e),
                    };
                    (e.key(), counters)
                })
                .collect(),
            any: AtomicU64::new(0),
            public: AtomicU64::new(0),
            elsewhere: std::sync::OnceLock::new(),
        };
        let links = registry
            .entities()
            .iter()
            .map(|e| {
                (
                    e.table.clone(),
                    crate::publish::published_refs(&registry, e),
                )
            })
            .filter(|(_, refs)| !refs.is_empty())
            .collect();
        let versions = Arc::new(versions);
        // Which relations a delete of each entity cascades to.
        let cascades: HashMap<String, Vec<String>> = registry
            .entities()
            .iter()
            .map(|e| {
                let key = e.key();
                let refs = registry
                    .referencing(&key)
                    .into_iter()
                    .map(|(r, _)| r.key())
                    .collect();
                (key, refs)
            })
            .collect();
        let on_commit: crate::db::OnCommit = {
            let versions = versions.clone();
            Arc::new(move |w: &crate::db::Written| {
                for (key, deleted, changed, seen) in w.keys() {
                    versions.touch(key, changed, seen);
                    if deleted {
                        for r in cascades.get(key).into_iter().flatten() {
                            versions.touch(r, true, true);
                        }
                    }
                }
            })
        };
        Self {
            db,
            registry,
            versions,
            on_commit,
            guards: Arc::default(),
            links: Arc::new(links),
            tap: Arc::default(),
        }
    }

    /// The references reads of `e` made here must find published (none where drafts show).
    fn hidden_refs(&self, e: &Entity) -> &[(usize, String)] {
        if crate::publish::drafts_visible() {
            return &[];
        }
        self.links.get(e.table.as_str()).map_or(&[], Vec::as_slice)
    }

    /// The entities a read of `e` made here reads: `e`, and the entities of its references that
    /// must be visible (a visitor's read of a link table). What a cache of its answers keys on.
    pub fn read_keys(&self, e: &Entity) -> Vec<String> {
        let mut keys = vec![e.key()];
        for (i, _) in self.hidden_refs(e) {
            if let Some(t) = e.fields.get(*i).and_then(|f| f.target) {
                keys.push(t.to_owned());
            }
        }
        keys
    }

    /// The change counter of `key` (`module.entity`).
    pub fn version(&self, key: &str) -> u64 {
        self.versions
            .each
            .get(key)
            .map_or(0, |c| c.all.load(Ordering::Acquire))
    }

    /// The counter of committed changes to `key` a visitor may see: every change but inserts of
    /// rows visitors cannot read (a hidden file, a draft). What tells open pages to refetch.
    pub fn seen_version(&self, key: &str) -> u64 {
        self.versions
            .each
            .get(key)
            .map_or(0, |c| c.seen.load(Ordering::Acquire))
    }

    /// The counter of committed changes to rows of `key` that already existed: updates and
    /// deletes (cascades included) move it, inserts do not. A cache of rows that only an update
    /// or a delete can make stale (a live session: revoked, or gone) keys on this, so the steady
    /// stream of new rows does not empty it.
    pub fn rows_changed_version(&self, key: &str) -> u64 {
        self.versions
            .each
            .get(key)
            .map_or(0, |c| c.rows.load(Ordering::Acquire))
    }

    /// A counter that moves whenever any entity changes.
    pub fn any_version(&self) -> u64 {
        self.versions.any.load(Ordering::Acquire)
    }

    /// A counter that moves whenever an entity visitors may read changes (caches of public
    /// data built from many tables).
    pub fn public_version(&self) -> u64 {
        self.versions.public.load(Ordering::Acquire)
    }

    /// Puts every update of `entity` (generic PATCH and bulk update included) through `guard`.
    pub fn guard(&self, entity: &str, guard: Arc<dyn crate::guard::WriteGuard>) {
        self.guards.set(entity, guard);
    }

    /// Records that `e` changed outside the store's transactions (a write made through
    /// [`Db::begin`] or another process's database): writes through [`Store::begin`] and the
    /// store's own methods count themselves.
    pub fn touch(&self, e: &Entity) {
        self.versions.touch(&e.key(), true, true);
    }

    /// A write transaction whose commit bumps the change counters of every entity it wrote
    /// (and, for deletes, of the relations a delete cascades to).
    pub async fn begin(&self) -> Result<crate::db::Tx> {
        let tx = self.db.begin().await?.told(self.on_commit.clone());
        Ok(match self.tap.get() {
            Some(tap) => tx.tapped(tap.clone()),
            None => tx,
        })
    }

    /// Makes `tap` hear the row writes of every transaction this store begins (once; false when
    /// a tap is already set).
    pub fn set_tap(&self, tap: Arc<dyn crate::tap::WriteTap>) -> bool {
        self.tap.set(tap).is_ok()
    }

    /// Sends every key this process changes to `tell` as well (once; false when already set).
    pub fn tell_changes(&self, tell: TellChanges) -> bool {
        self.versions.elsewhere.set(tell).is_ok()
    }

    /// Another instance changed `key` (`module.entity`): caches built from it here are stale.
    pub fn changed_elsewhere(&self, key: &str) {
        // Whether it only inserted is not said: every counter moves.
        self.versions.bump(key, true, true);
    }

    /// Another instance may have changed anything (its messages were lost): every cache is stale.
    pub fn all_changed_elsewhere(&self) {
        for c in self.versions.each.values() {
            c.all.fetch_add(1, Ordering::AcqRel);
            c.rows.fetch_add(1, Ordering::AcqRel);
            c.seen.fetch_add(1, Ordering::AcqRel);
        }
        self.versions.public.fetch_add(1, Ordering::AcqRel);
        self.versions.any.fetch_add(1, Ordering::AcqRel);
    }

    /// Rows of `e` whose fields equal the given values (`Val::Null` matches NULL), at most
    /// `limit`, through the read path. Secret fields cannot be matched here (see `repo`).
    pub async fn find_by(&self, e: &Entity, eq: &[(&str, Val)], limit: u64) -> Result<Vec<Record>> {
        let mut q = FindQuery::all().take(limit);
        for (name, v) in eq {
            q = q.eq(e, name, v.clone())?;
        }
        Ok(self.find(e, &q).await?.rows)
    }

    /// Rows of `e` whose `field` is one of `values` (relations in `orderIndex` order, models in
    /// list order), at most `limit` in all. One query per 500 values: callers batch a whole
    /// level of a tree into one call instead of one query per parent.
    pub async fn find_in(
        &self,
        e: &Entity,
        field: &str,
        values: &[Val],
        limit: usize,
    ) -> Result<Vec<Record>> {
        let mut out = Vec::new();
        for chunk in values.chunks(500) {
            if out.len() >= limit {
                break;
            }
            let mut q = FindQuery::all().any_of(e, field, chunk.to_vec())?;
            if e.field_index("orderIndex").is_some() {
                q = q.sort(e, "orderIndex", false)?;
            }
            self.pages(e, q, limit, &mut out).await?;
        }
        out.truncate(limit);
        Ok(out)
    }

    /// Follows link entity `link` from `ids` (in its field `from`) to the ids in its field `to`:
    /// the other side of a relation, distinct, in link order, at most `cap`.
    pub async fn linked(
        &self,
        link: &Entity,
        from: &str,
        ids: &[Uuid],
        to: &str,
        cap: usize,
    ) -> Result<Vec<Uuid>> {
        let vals: Vec<Val> = ids.iter().copied().map(Val::Uuid).collect();
        let mut seen = std::collections::HashSet::new();
        Ok(self
            .find_in(link, from, &vals, cap)
            .await?
            .iter()
            .filter_map(|l| l.uuid(to))
            .filter(|id| seen.insert(*id))
            .collect())
    }

    /// Writes one row of link entity `link` joining `a.1` (in field `a.0`) to `b.1` (in `b.0`),
    /// inside the caller's transaction: the write side of [`Store::linked`].
    pub async fn link_in(
        &self,
        exec: &mut Exec<'_>,
        link: &Entity,
        a: (&str, Uuid),
        b: (&str, Uuid),
    ) -> Result<Record> {
        let mut input = Map::new();
        input.insert(a.0.to_owned(), Json::String(a.1.to_string()));
        input.insert(b.0.to_owned(), Json::String(b.1.to_string()));
        self.create_in(exec, link, &input).await
    }

    /// [`Self::link_in`] for a link row the caller never reads back (see [`Self::create_later`]).
    pub async fn link_later(
        &self,
        exec: &mut Exec<'_>,
        link: &Entity,
        a: (&str, Uuid),
        b: (&str, Uuid),
    ) -> Result<()> {
        let mut input = Map::new();
        input.insert(a.0.to_owned(), Json::String(a.1.to_string()));
        input.insert(b.0.to_owned(), Json::String(b.1.to_string()));
        self.create_later(exec, link, &input).await
    }

    /// [`Self::create_in`] for a row the caller never reads back. On PostgreSQL it is held and
    /// sent with the transaction's next statement ([`Exec::hold`]), which saves its round trip;
    /// a reference to nothing then fails that statement, or the commit, instead of this call.
    /// Written at once, as `create_in` writes it, where something reads the new row (a guard,
    /// the audit trail, a write tap, a schedule, a generated slug) and on SQLite.
    pub async fn create_later(
        &self,
        exec: &mut Exec<'_>,
        e: &Entity,
        input: &Map<String, Json>,
    ) -> Result<()> {
        let holdable = exec.can_hold()
            && self.guards.get(&e.key()).is_none()
            && !e.publishable
            && e.visible_when().is_none()
            && !crate::audit::heard(e)
            && exec.tap().is_none_or(|t| !t.wants(e));
        if holdable && let Some(shared) = self.registry.by_key(&e.key()) {
            let vals = prepare_create(e, input)?;
            if generated_slug(e, input, &vals).is_none() {
                let insert = repo::insert_statement(e, &vals, exec.backend())?;
                exec.hold(shared.clone(), insert);
                return Ok(());
            }
        }
        self.create_in(exec, e, input).await.map(drop)
    }

    /// The rows of `q`, page by page, at most `cap` of them.
    pub async fn find_in_query(&self, e: &Entity, q: FindQuery, cap: usize) -> Result<Vec<Record>> {
        let mut out = Vec::new();
        self.pages(e, q, cap, &mut out).await?;
        out.truncate(cap);
        Ok(out)
    }

    /// Appends the rows of `q` to `out`, page by page, until `out` holds `cap` or `q` runs out.
    async fn pages(
        &self,
        e: &Entity,
        q: FindQuery,
        cap: usize,
        out: &mut Vec<Record>,
    ) -> Result<()> {
        self.scan(e, q, cap, |rows| out.extend(rows)).await
    }

    /// Hands the rows of `q` to `each`, a page of up to 1 000 at a time, at most `cap` rows in
    /// all (a [`Walk`] driven to its end).
    pub async fn scan(
        &self,
        e: &Entity,
        q: FindQuery,
        cap: usize,
        mut each: impl FnMut(Vec<Record>),
    ) -> Result<()> {
        let mut walk = self.walk(e, q, stoa_kernel::query::MAX_LIMIT, cap);
        while let Some(rows) = walk.next().await? {
            each(rows);
        }
        Ok(())
    }

    /// The rows of `q` in its list order (by id when it names no sort), `page` at a time, at
    /// most `cap` in all, each page pulled by [`Walk::next`] when the caller wants it (work,
    /// writes or a time budget between pages). Each page starts after the previous page's last
    /// row (keyset), so the last page costs what the first does, and [`Walk::after`] is where a
    /// walk stopped early goes on from (as `q.after`).
    pub fn walk<'s>(&'s self, e: &'s Entity, mut q: FindQuery, page: u64, cap: usize) -> Walk<'s> {
        q.limit = page.clamp(1, stoa_kernel::query::MAX_LIMIT);
        q.spell_implicit_order(e);
        let names = cursor_names(e, &q);
        Walk {
            store: self,
            e,
            q,
            names,
            left: cap,
            deadline: None,
            done: false,
        }
    }

    /// The entity `module.entity`, which must be declared.
    pub fn entity(&self, key: &str) -> Result<Arc<Entity>> {
        self.registry
            .by_key(key)
            .cloned()
            .ok_or_else(|| Error::internal(format!("entity {key} is not declared")))
    }

    /// Every row of `e` in list order, page by page, at most `cap` of them.
    pub async fn all(&self, e: &Entity, cap: usize) -> Result<Vec<Record>> {
        let mut out = Vec::new();
        self.pages(e, FindQuery::all(), cap, &mut out).await?;
        out.truncate(cap);
        Ok(out)
    }

    /// How many rows `e` holds (an estimate for big PostgreSQL tables, see [`Reader::total`](crate::Reader::total)).
    pub async fn count(&self, e: &Entity) -> Result<u64> {
        let mut q = FindQuery::all();
        q.limit = 0;
        q.count = true;
        Ok(self.find(e, &q).await?.total.map_or(0, |t| t.n))
    }

    /// The sum of `sum` over the rows of `e` whose reference `via` points at a `target` row
    /// matching `q`'s filters, per value of `group` (as text): one aggregate query.
    pub async fn sum_by(
        &self,
        e: &Entity,
        sum: &str,
        group: &str,
        via: &str,
        target: &Entity,
        q: &FindQuery,
    ) -> Result<Vec<(Option<String>, i64)>> {
        let s = repo::sum_statement(e, sum, group, via, target, q, self.db.backend())?;
        self.db.reader().await?.text_sums(e, &s).await
    }

    pub async fn find(&self, e: &Entity, q: &FindQuery) -> Result<Page> {
        let narrowed = crate::publish::visible_query(e, self.hidden_refs(e), q)?;
        let plan = self.db.plan(e, narrowed.as_ref().unwrap_or(q)).await?;
        let mut r = self.db.reader().await?;
        let rows = r.records(e, &plan.rows, false).await?;
        let total = r.total(e, &plan).await?;
        Ok(Page { rows, total })
    }

    /// `{"data":[…]}` for `q`, written straight into a buffer, the total when asked for, and
    /// the cursor of the next page when this one is full.
    pub async fn find_json(&self, e: &Entity, q: &FindQuery) -> Result<JsonPage> {
        let narrowed = crate::publish::visible_query(e, self.hidden_refs(e), q)?;
        let q = narrowed.as_ref().unwrap_or(q);
        let mut out = Vec::with_capacity(256 + usize::try_from(q.limit).unwrap_or(100) * 512);
        out.extend_from_slice(b"{\"data\":[");
        let limit = usize::try_from(q.limit).unwrap_or(usize::MAX);
        let names = cursor_names(e, q).filter(|_| limit > 0);
        let mut last = Vec::new();
        let plan = self.db.plan(e, q).await?;
        let keep = names.as_deref().map(|names| Keep {
            at: limit.saturating_sub(1),
            names,
            values: &mut last,
        });
        let mut r = self.db.reader().await?;
        let rows = r.write_json(e, &plan.rows, false, &mut out, keep).await?;
        let total = r.total(e, &plan).await?;
        out.extend_from_slice(b"]}");
        let next = (rows == limit && !last.is_empty())
            .then(|| stoa_kernel::query::cursor::encode(e, &q.order, last));
        Ok(JsonPage {
            body: out,
            total,
            next,
        })
    }

    /// `{"data":{…}}` for one record, written straight into a buffer.
    pub async fn get_json(&self, e: &Entity, id: Uuid) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(1024);
        out.extend_from_slice(b"{\"data\":");
        let s = self.get_visible(e, id);
        if self
            .db
            .reader()
            .await?
            .write_json(e, &s, true, &mut out, None)
            .await?
            == 0
        {
            return Err(missing(e, id));
        }
        out.push(b'}');
        Ok(out)
    }

    pub async fn get(&self, e: &Entity, id: Uuid) -> Result<Record> {
        let s = self.get_visible(e, id);
        self.db
            .reader()
            .await?
            .records(e, &s, true)
            .await?
            .into_iter()
            .next()
            .ok_or_else(|| missing(e, id))
    }

    /// The select of row `id` of `e`, if visible to this read.
    fn get_visible(&self, e: &Entity, id: Uuid) -> sea_query::SelectStatement {
        crate::publish::get_visible_statement(e, id, self.db.backend(), self.hidden_refs(e))
    }

    pub async fn create(&self, e: &Entity, input: &Map<String, Json>) -> Result<Record> {
        let mut tx = self.begin().await?;
        let row = self.create_in(&mut tx.exec(), e, input).await?;
        tx.commit().await?;
        Ok(row)
    }

    /// Creates inside a caller's transaction.
    pub async fn create_in(
        &self,
        exec: &mut Exec<'_>,
        e: &Entity,
        input: &Map<String, Json>,
    ) -> Result<Record> {
        self.create_with_in(exec, e, input, &[]).await
    }

    /// [`Self::create_in`] with values the server sets itself: each `(field index, value)` of
    /// `own` replaces what the input or the default gave — server-owned and secret fields too
    /// (the id, a token's hash), which no input can set. One INSERT where a create and an update
    /// of what it just made were two.
    pub async fn create_with_in(
        &self,
        exec: &mut Exec<'_>,
        e: &Entity,
        input: &Map<String, Json>,
        own: &[(usize, Val)],
    ) -> Result<Record> {
        if let Some(g) = self.guards.get(&e.key()) {
            g.check_create(input)?;
        }
        let mut vals = prepare_create(e, input)?;
        for (i, v) in own {
            match vals.iter_mut().find(|(j, _)| j == i) {
                Some(slot) => slot.1 = v.clone(),
                None => vals.push((*i, v.clone())),
            }
        }
        let inserted = match generated_slug(e, input, &vals) {
            Some(slot) => insert_fresh_slug(exec, e, &mut vals, slot).await,
            None => repo::insert(exec, e, &vals).await,
        };
        let row = match inserted {
            Err(Error::Invalid { message, fields }) if fields.is_empty() => Err(self
                .explain_missing_reference(exec, e, &vals)
                .await
                .unwrap_or(Error::Invalid { message, fields })),
            other => other,
        }?;
        after_write(exec, e, None, Some(&row), Some(input)).await?;
        Ok(row)
    }

    /// SQLite does not say which foreign key failed: find the reference that points nowhere.
    async fn explain_missing_reference(
        &self,
        exec: &mut Exec<'_>,
        e: &Entity,
        vals: &[(usize, Val)],
    ) -> Option<Error> {
        for (i, v) in vals {
            let f = &e.fields[*i];
            if f.kind != Kind::Reference || *v == Val::Null {
                continue;
            }
            let target = self.registry.by_key(f.target?)?;
            if let Val::Uuid(id) = v
                && repo::get(exec, target, *id).await.ok()?.is_none()
            {
                return Some(Error::invalid_field(
                    f.name,
                    format!("no {} with id {id}", target.key()),
                ));
            }
        }
        None
    }

    pub async fn update(&self, e: &Entity, id: Uuid, input: &Map<String, Json>) -> Result<Record> {
        let mut tx = self.begin().await?;
        let row = self.update_in(&mut tx.exec(), e, id, input).await?;
        tx.commit().await?;
        Ok(row)
    }

    pub async fn update_in(
        &self,
        exec: &mut Exec<'_>,
        e: &Entity,
        id: Uuid,
        input: &Map<String, Json>,
    ) -> Result<Record> {
        let vals = prepare_patch(e, input)?;
        let mut expect = Vec::new();
        let mut effects = crate::guard::Effects::default();
        let guard = self.guards.get(&e.key());
        // The row as it was, for the guard and the audit log.
        let old = if guard.is_some() || crate::audit::current().is_some() {
            Some(
                repo::get(exec, e, id)
                    .await?
                    .ok_or_else(|| missing(e, id))?,
            )
        } else {
            None
        };
        if let (Some(g), Some(old)) = (&guard, &old) {
            effects = g.check(old, input, &crate::guard::actor())?;
            expect = held(&**g, e, old);
        }
        let written = if expect.is_empty() {
            repo::update(exec, e, id, &vals).await
        } else {
            match repo::update_if(exec, e, id, &vals, &expect).await {
                Ok(None) => return Err(changed(e, id)),
                other => other,
            }
        };
        for (key, input) in &effects.rows {
            self.create_in(exec, &*self.entity(key)?, input).await?;
        }
        for job in &effects.jobs {
            crate::jobs::enqueue(exec, job).await?;
        }
        match written {
            Ok(Some(row)) => {
                after_write(exec, e, old.as_ref(), Some(&row), Some(input)).await?;
                Ok(row)
            }
            Ok(None) => Err(missing(e, id)),
            Err(Error::Invalid { message, fields }) if fields.is_empty() => Err(self
                .explain_missing_reference(exec, e, &vals)
                .await
                .unwrap_or(Error::Invalid { message, fields })),
            Err(err) => Err(err),
        }
    }

    /// Deletes row `id`; a guarded entity's guard may refuse, and the delete happens only if the
    /// guarded fields still hold what the guard saw.
    pub async fn delete(&self, e: &Entity, id: Uuid) -> Result<Record> {
        let mut tx = self.begin().await?;
        if let Some(g) = self.guards.get(&e.key()) {
            // The row as it is, then a delete only if the guarded fields still hold (as updates do).
            let old = repo::get(&mut tx.exec(), e, id)
                .await?
                .ok_or_else(|| missing(e, id))?;
            g.check_delete(&old)?;
            let row = repo::delete_if(&mut tx.exec(), e, id, &held(&*g, e, &old))
                .await?
                .ok_or_else(|| changed(e, id))?;
            crate::audit::write_in(&mut tx.exec(), e, Some(&row), None, None).await?;
            tx.commit().await?;
            return Ok(row);
        }
        let row = repo::delete(&mut tx.exec(), e, id)
            .await?
            .ok_or_else(|| missing(e, id))?;
        crate::audit::write_in(&mut tx.exec(), e, Some(&row), None, None).await?;
        tx.commit().await?;
        Ok(row)
    }

    /// Returns the first row whose fields equal the ones sent (JSON values compared as JSON), or
    /// creates one.
    /// `true` when created.
    pub async fn find_or_create(
        &self,
        e: &Entity,
        input: &Map<String, Json>,
    ) -> Result<(Record, bool)> {
        let mut keys = Vec::new();
        for (k, v) in input {
            let Some(i) = e.field_index(k) else { continue };
            let f = &e.fields[i];
            if f.secret || f.server_owned {
                continue;
            }
            let val =
                stoa_kernel::value::coerce(f, v).map_err(|m| Error::invalid_field(f.name, m))?;
            keys.push((i, val));
        }
        if keys.is_empty() {
            return Err(Error::Invalid {
                message: "find-or-create needs at least one field to match on".into(),
                fields: Default::default(),
            });
        }
        let mut tx = self.begin().await?;
        let mut exec = tx.exec();
        if let Some(row) = repo::find_eq(&mut exec, e, &keys).await? {
            tx.commit().await?;
            return Ok((row, false));
        }
        let row = self.create_in(&mut exec, e, input).await?;
        tx.commit().await?;
        Ok((row, true))
    }

    /// Creates every item or none.
    pub async fn bulk_create(
        &self,
        e: &Entity,
        items: &[Map<String, Json>],
    ) -> Result<Vec<Record>> {
        check_bulk(items.len())?;
        let mut tx = self.begin().await?;
        let mut out = Vec::with_capacity(items.len());
        {
            let mut exec = tx.exec();
            for (n, item) in items.iter().enumerate() {
                out.push(
                    self.create_in(&mut exec, e, item)
                        .await
                        .map_err(|x| x.with_field_prefix(&format!("[{n}].")))?,
                );
            }
        }
        tx.commit().await?;
        Ok(out)
    }

    /// Updates every item or none.
    pub async fn bulk_update(
        &self,
        e: &Entity,
        items: &[(Uuid, Map<String, Json>)],
    ) -> Result<Vec<Record>> {
        check_bulk(items.len())?;
        let mut tx = self.begin().await?;
        let mut out = Vec::with_capacity(items.len());
        {
            let mut exec = tx.exec();
            for (n, (id, item)) in items.iter().enumerate() {
                out.push(
                    self.update_in(&mut exec, e, *id, item)
                        .await
                        .map_err(|x| x.with_field_prefix(&format!("[{n}].")))?,
                );
            }
        }
        tx.commit().await?;
        Ok(out)
    }
}

/// After a row of `e` is written in `exec`: a scheduled row's publishing job, and the audit entry.
async fn after_write(
    exec: &mut Exec<'_>,
    e: &Entity,
    before: Option<&Record>,
    after: Option<&Record>,
    input: Option<&Map<String, Json>>,
) -> Result<()> {
    if let Some(row) = after
        && let Some(job) = crate::publish::after_write(e, row)?
    {
        crate::jobs::enqueue(exec, &job).await?;
    }
    crate::audit::write_in(exec, e, before, after, input).await
}

fn check_bulk(n: usize) -> Result<()> {
    if n == 0 {
        return Err(Error::bad_request("a bulk request needs at least one item"));
    }
    if n > MAX_BULK {
        return Err(Error::bad_request(format!(
            "a bulk request takes at most {MAX_BULK} items, got {n}"
        )));
    }
    Ok(())
}

fn rand_suffix() -> String {
    let id = Uuid::new_v4().simple().to_string();
    id[..6].to_owned()
}

/// The place in `vals` of the slug the store generates for this row: the unique field with a
/// random default (`slug_field`, one an entity at most), when `input` does not give it.
fn generated_slug(e: &Entity, input: &Map<String, Json>, vals: &[(usize, Val)]) -> Option<usize> {
    vals.iter().position(|(i, _)| {
        let f = &e.fields[*i];
        f.unique
            && f.default == DefaultValue::RandomSlug
            && input.get(f.name).is_none_or(Json::is_null)
    })
}

/// Inserts `vals` with the generated slug at `slot`, drawing another when it is taken (the
/// insert skips a taken slug rather than fail), so a random clash never reaches the client as a
/// 409 it did not cause.
async fn insert_fresh_slug(
    exec: &mut Exec<'_>,
    e: &Entity,
    vals: &mut [(usize, Val)],
    slot: usize,
) -> Result<Record> {
    for attempt in 0..=20 {
        if let Some(row) = repo::insert_unless_taken(exec, e, vals, vals[slot].0).await? {
            return Ok(row);
        }
        let base = words::random_slug();
        vals[slot].1 = Val::Text(if attempt < 3 {
            base
        } else {
            format!("{base}-{}", rand_suffix())
        });
    }
    Err(Error::internal("could not generate a unique slug"))
}

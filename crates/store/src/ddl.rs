//! Tables and indexes generated from the declarations, and the migrator that brings a database up
//! to them. The migrator is additive: it creates missing tables, columns and indexes, records what
//! it ran in `stoa_migrations`, and never drops anything on its own.

use std::collections::{BTreeSet, HashMap, HashSet};

use sha2::{Digest, Sha256};
use sqlx::Row;
use stoa_kernel::model::{DefaultValue, Entity, EntityKind, Field, Kind, OnDelete};
use stoa_kernel::registry::Registry;
use stoa_kernel::{Error, Result};

use crate::db::{Backend, Db, Exec, Link};
use crate::errors::{pool_err, sqlite_err};
pub use crate::names::{ident, q, unique_index};

fn sql_type(kind: Kind, b: Backend) -> &'static str {
    match (kind, b) {
        (Kind::Uuid | Kind::Reference, Backend::Postgres) => "UUID",
        (Kind::Int, Backend::Postgres) => "BIGINT",
        (Kind::Int, Backend::Sqlite) => "INTEGER",
        (Kind::Bool, Backend::Postgres) => "BOOLEAN",
        (Kind::Bool, Backend::Sqlite) => "INTEGER",
        (Kind::Decimal, Backend::Postgres) => "NUMERIC",
        (Kind::Timestamp, Backend::Postgres) => "TIMESTAMPTZ",
        (Kind::Translations | Kind::RichText | Kind::Json, Backend::Postgres) => "JSONB",
        _ => "TEXT",
    }
}

fn literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// A database-level default, so that columns added later fill existing rows.
fn sql_default(f: &Field, b: Backend) -> Option<String> {
    Some(match (&f.default, b) {
        (DefaultValue::Text(s), _) => literal(s),
        (DefaultValue::Int(i), _) => i.to_string(),
        (DefaultValue::Bool(v), Backend::Postgres) => v.to_string(),
        (DefaultValue::Bool(v), Backend::Sqlite) => (*v as i32).to_string(),
        (DefaultValue::Json(s), Backend::Postgres) => format!("{}::jsonb", literal(s)),
        (DefaultValue::Json(s), Backend::Sqlite) => literal(s),
        (DefaultValue::EmptyDoc, _) => {
            let v = stoa_kernel::value::default_val(f)
                .and_then(|v| {
                    if let stoa_kernel::value::Val::Json(j) = v {
                        Some(j.to_string())
                    } else {
                        None
                    }
                })
                .unwrap_or_else(|| "{}".into());
            if b == Backend::Postgres {
                format!("{}::jsonb", literal(&v))
            } else {
                literal(&v)
            }
        }
        (DefaultValue::Now, Backend::Postgres) => "now()".into(),
        (DefaultValue::Now, Backend::Sqlite) => "(strftime('%Y-%m-%dT%H:%M:%fZ','now'))".into(),
        _ => return None,
    })
}

fn column_def(e: &Entity, f: &Field, reg: &Registry, b: Backend, for_alter: bool) -> String {
    let mut s = format!("{} {}", q(&f.column), sql_type(f.kind, b));
    if f.name == "id" {
        s.push_str(" PRIMARY KEY");
        return s;
    }
    let default = sql_default(f, b);
    // A NOT NULL column added to an existing table needs a default to fill old rows.
    if f.required && (!for_alter || default.is_some()) {
        s.push_str(" NOT NULL");
    }
    if let Some(d) = default {
        s.push_str(" DEFAULT ");
        s.push_str(&d);
    }
    if let (Kind::Reference, Some(t)) = (f.kind, f.target)
        && let Some(target) = reg.by_key(t)
    {
        let action = match f.on_delete {
            OnDelete::Cascade => "CASCADE",
            OnDelete::SetNull => "SET NULL",
            OnDelete::Restrict => "RESTRICT",
        };
        let fk = ident(&format!("fk_{}_{}", e.table, f.column));
        if b == Backend::Postgres && !for_alter {
            s.push_str(&format!(" CONSTRAINT {}", q(&fk)));
        }
        s.push_str(&format!(
            " REFERENCES {}({}) ON DELETE {action}",
            q(&target.table),
            q("id")
        ));
    }
    s
}

/// Indexes for an entity: (name, unique, columns).
fn indexes(e: &Entity) -> Vec<(String, bool, Vec<String>)> {
    let mut out = Vec::new();
    for f in &e.fields {
        if f.unique {
            out.push((
                unique_index(&e.table, &f.column),
                true,
                vec![f.column.clone()],
            ));
        }
        // The admin sorts its tables by their list columns (and the newest first): keep that an
        // index walk at any size (`Entity::sortable`).
        if e.has_list_index(f) || f.name == "createdAt" {
            out.push((list_index(e, f), false, vec![f.column.clone(), "id".into()]));
        }
        if f.kind == Kind::Reference
            || (e.kind == EntityKind::Relation && f.kind == Kind::Uuid && f.name != "id")
        {
            if e.kind == EntityKind::Relation {
                out.push((
                    ident(&format!("ix_{}_{}_order", e.table, f.column)),
                    false,
                    vec![f.column.clone(), "order_index".into()],
                ));
            } else {
                out.push((
                    ident(&format!("ix_{}_{}", e.table, f.column)),
                    false,
                    vec![f.column.clone()],
                ));
            }
        }
    }
    for fields in &e.lookups {
        let mut cols: Vec<String> = fields
            .iter()
            .filter_map(|f| e.field(f))
            .map(|f| f.column.clone())
            .collect();
        cols.push("id".into());
        out.push((lookup_index(e, &cols), false, cols));
    }
    out
}

/// The prefix of a lookup index's name ([`Entity::lookups`]): it survives [`ident`]'s shortening,
/// so the migrator knows one it no longer declares.
const LOOKUP: &str = "lx_";

/// The name of the lookup index over `cols` of `e`: the columns joined by a double underscore,
/// which no column name holds, so another list of columns never gets the same name.
fn lookup_index(e: &Entity, cols: &[String]) -> String {
    ident(&format!("{LOOKUP}{}__{}", e.table, cols.join("__")))
}

/// The name of the list index `(column, id)` of field `f`.
fn list_index(e: &Entity, f: &Field) -> String {
    ident(&format!("ix_{}_{}_list", e.table, f.column))
}

fn create_index(e: &Entity, (name, unique, cols): &(String, bool, Vec<String>)) -> String {
    let cols: Vec<String> = cols.iter().map(|c| q(c)).collect();
    format!(
        "CREATE {}INDEX IF NOT EXISTS {} ON {} ({})",
        if *unique { "UNIQUE " } else { "" },
        q(name),
        q(&e.table),
        cols.join(", ")
    )
}

/// The text columns `search` looks in, when the entity has any: a searchable text, choice or
/// translation's own column, a searchable rich text's [`text_column`].
pub fn search_columns(e: &Entity) -> Vec<String> {
    e.public_fields()
        .filter(|f| f.searchable)
        .filter_map(search_column)
        .collect()
}

/// The column a search of field `f` looks in (see [`search_columns`]), when it can have one.
pub fn search_column(f: &Field) -> Option<String> {
    match f.kind {
        Kind::Text | Kind::Enum | Kind::Translations => Some(f.column.clone()),
        Kind::RichText => text_column(f),
        _ => None,
    }
}

/// The derived column of a searchable rich-text field: its words as plain text in every language
/// (`stoa_kernel::value::plain_text`), written by the store with the field and indexed for
/// `search`, never read into a record or an answer (it is no declared field). A document's JSON
/// is not searched itself: its node types and marks would match ("paragraph", "bold").
pub fn text_column(f: &Field) -> Option<String> {
    (f.kind == Kind::RichText && f.searchable).then(|| format!("{}__text", f.column))
}

/// Every derived [`text_column`] of `e`, with its field.
pub fn text_columns(e: &Entity) -> impl Iterator<Item = (&Field, String)> {
    e.fields
        .iter()
        .filter_map(|f| text_column(f).map(|c| (f, c)))
}

/// The statement that fills the derived [`text_column`] `c` of field `f` where it is empty (rows
/// written before the field was searched), in SQL: each text node's text, a space between.
fn text_column_backfill(e: &Entity, f: &Field, c: &str, b: Backend) -> String {
    let (t, src, dst) = (q(&e.table), q(&f.column), q(c));
    match b {
        Backend::Sqlite => format!(
            "UPDATE {t} SET {dst} = (SELECT group_concat(j.value, ' ') FROM json_tree({t}.{src}) j WHERE j.key = 'text' AND j.type = 'text') WHERE {dst} IS NULL AND json_valid({src})"
        ),
        Backend::Postgres => format!(
            "UPDATE {t} SET {dst} = (SELECT string_agg(x #>> '{{}}', ' ') FROM jsonb_path_query({t}.{src}, 'strict $.**.text ? (@.type() == \"string\")') x) WHERE {dst} IS NULL AND {src} IS NOT NULL"
        ),
    }
}

/// PostgreSQL: what the trigram index of search column `c` indexes, and what the search matches:
/// the column, or a translation map's JSON text (`(title::text)`), which holds every language.
pub fn search_expr(e: &Entity, c: &str) -> String {
    let json = e
        .fields
        .iter()
        .any(|f| f.column == c && f.kind == Kind::Translations);
    if json {
        format!("({}::text)", q(c))
    } else {
        q(c)
    }
}

/// SQLite: the FTS5 trigram index that answers `search` on `e` (see [`search_index`]).
pub fn search_table(e: &Entity) -> String {
    ident(&format!("{}_search", e.table))
}

/// SQLite: the rows whose search-index entries wait for their transaction's commit (see
/// [`search_index`]): which index, whether the entry is removed (`del`) or added, the row, and
/// its searched values in `c0`, `c1`, ….
pub const SEARCH_PENDING: &str = "stoa_search_pending";
/// SQLite: per search index, the statement that moves its pending entries into it.
pub const SEARCH_FLUSH: &str = "stoa_search_flush";
/// Value columns the pending table is made with (more are added when an entity needs them).
const PENDING_VALUES: usize = 8;

/// SQLite: the pending table and the flush table, or the value columns the pending table lacks.
fn search_pending_tables(reg: &Registry, ex: &Existing) -> Vec<String> {
    let need = reg
        .creation_order()
        .iter()
        .map(|e| search_columns(e).len())
        .max()
        .unwrap_or(0)
        .max(PENDING_VALUES);
    let mut out = Vec::new();
    match ex.columns.get(SEARCH_PENDING) {
        None => {
            let values = (0..need).map(|i| format!(", c{i}")).collect::<String>();
            out.push(format!(
                "CREATE TABLE {SEARCH_PENDING} (seq INTEGER PRIMARY KEY, fts TEXT NOT NULL, del INTEGER NOT NULL, rid INTEGER NOT NULL{values})"
            ));
        }
        Some(have) => {
            for i in 0..need {
                if !have.contains(&format!("c{i}")) {
                    out.push(format!("ALTER TABLE {SEARCH_PENDING} ADD COLUMN c{i}"));
                }
            }
        }
    }
    if !ex.columns.contains_key(SEARCH_FLUSH) {
        out.push(format!(
            "CREATE TABLE {SEARCH_FLUSH} (fts TEXT PRIMARY KEY, sql TEXT NOT NULL)"
        ));
    }
    out
}

/// Statements for the index behind `search`, so a contains-search stays fast at millions of rows.
/// SQLite: an external-content FTS5 table with the trigram tokenizer (substring matching, case
/// folded), filled once and kept in step by triggers. PostgreSQL: a pg_trgm GIN index per
/// column, which `ILIKE '%term%'` uses.
///
/// On SQLite the triggers do not write the index itself: they queue the change in
/// [`SEARCH_PENDING`], and the transaction moves its queue into the index just before it commits
/// (`group.rs`, with the statement kept in [`SEARCH_FLUSH`]), so a search sees a row from the
/// moment its transaction commits, as before. Written directly, an FTS5 table touched in a
/// transaction flushes its pending terms to a new segment at every later savepoint — every writer
/// of a group commit opens one — so each searchable row cost a segment write and later merges on
/// the one writer (a sixth of its time in bench/checkout.sh); queued, a group commit of twenty
/// writers writes one segment per index.
fn search_index(e: &Entity, b: Backend, ex: &Existing) -> Vec<String> {
    let cols = search_columns(e);
    if cols.is_empty() {
        return search_index_dropped(e, &cols, b, ex);
    }
    let t = q(&e.table);
    match b {
        Backend::Sqlite => {
            let fts = search_table(e);
            let f = q(&fts);
            let trigger = |suffix: &str| q(&search_trigger(&fts, suffix));
            let mut out = Vec::new();
            let list = cols.iter().map(|c| q(c)).collect::<Vec<_>>().join(", ");
            let values = (0..cols.len())
                .map(|i| format!("c{i}"))
                .collect::<Vec<_>>()
                .join(", ");
            let of = |row: &str| {
                cols.iter()
                    .map(|c| format!("{row}.{}", q(c)))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let name = literal(&fts);
            let queue = |del: u8, row: &str| {
                format!(
                    "INSERT INTO {SEARCH_PENDING}(fts, del, rid, {values}) VALUES ({name}, {del}, {row}.rowid, {})",
                    of(row)
                )
            };
            let flush = format!(
                "INSERT INTO {f}({f}, rowid, {list}) SELECT CASE del WHEN 1 THEN 'delete' END, rid, {values} FROM {SEARCH_PENDING} WHERE fts = {name} ORDER BY seq"
            );
            // The three triggers that queue, and the statement that empties the queue into the
            // index (kept with the schema, so it changes in the same migration).
            let queueing = [
                format!(
                    "CREATE TRIGGER {} AFTER INSERT ON {t} BEGIN {}; END",
                    trigger("ai"),
                    queue(0, "new")
                ),
                format!(
                    "CREATE TRIGGER {} AFTER DELETE ON {t} BEGIN {}; END",
                    trigger("ad"),
                    queue(1, "old")
                ),
                // Only an update that sets a searched column touches the index: a status
                // change (most updates) leaves it alone.
                format!(
                    "CREATE TRIGGER {} AFTER UPDATE OF {list} ON {t} BEGIN {}; {}; END",
                    trigger("au"),
                    queue(1, "old"),
                    queue(0, "new")
                ),
                format!(
                    "INSERT OR REPLACE INTO {SEARCH_FLUSH}(fts, sql) VALUES ({name}, {})",
                    literal(&flush)
                ),
            ];
            if let Some(have) = ex.columns.get(&fts) {
                if cols.len() == have.len() && cols.iter().all(|c| have.contains(c)) {
                    // Made before the index was written at commit (or lost): made again.
                    let current = ["ai", "ad", "au"].iter().all(|sfx| {
                        ex.triggers
                            .get(&search_trigger(&fts, sfx))
                            .is_some_and(|sql| sql.contains(SEARCH_PENDING))
                    });
                    if !current {
                        for sfx in ["ai", "ad", "au"] {
                            out.push(format!("DROP TRIGGER IF EXISTS {}", trigger(sfx)));
                        }
                        out.extend(queueing);
                    }
                    return out;
                }
                // The searchable fields changed (translated titles joined, say): rebuild, and
                // drop what was queued for the old index.
                for sfx in ["ai", "ad", "au"] {
                    out.push(format!("DROP TRIGGER IF EXISTS {}", trigger(sfx)));
                }
                out.push(format!("DROP TABLE IF EXISTS {f}"));
                out.push(format!("DELETE FROM {SEARCH_PENDING} WHERE fts = {name}"));
            }
            out.push(format!(
                "CREATE VIRTUAL TABLE {f} USING fts5({list}, content={t}, content_rowid='rowid', tokenize='trigram')"
            ));
            out.extend(queueing);
            out.push(format!("INSERT INTO {f}({f}) VALUES ('rebuild')"));
            out
        }
        Backend::Postgres => {
            // A column no longer searched loses its index (each one costs every insert).
            let mut out = search_index_dropped(e, &cols, b, ex);
            if !ex.trigram {
                return out;
            }
            out.extend(
                cols.iter()
                    .map(|c| (trigram_index(e, c), c))
                    .filter(|(name, _)| !ex.indexes.contains(name))
                    .map(|(name, c)| {
                        format!(
                            "CREATE INDEX IF NOT EXISTS {} ON {t} USING gin ({} gin_trgm_ops)",
                            q(&name),
                            search_expr(e, c)
                        )
                    }),
            );
            out
        }
    }
}

/// PostgreSQL: the name of the trigram index of search column `c`.
fn trigram_index(e: &Entity, c: &str) -> String {
    ident(&format!("ix_{}_{}_trgm", e.table, c))
}

/// SQLite: the name of the search index trigger `suffix` (`ai`, `ad`, `au`) of index `fts`.
fn search_trigger(fts: &str, suffix: &str) -> String {
    ident(&format!("{fts}_{suffix}"))
}

/// The search index of what `e` no longer searches (`cols`: what it searches now), dropped: on
/// SQLite the whole index with its triggers and queued entries once no column is searched, on
/// PostgreSQL each column's.
fn search_index_dropped(e: &Entity, cols: &[String], b: Backend, ex: &Existing) -> Vec<String> {
    match b {
        Backend::Sqlite => {
            let fts = search_table(e);
            if !cols.is_empty() || !ex.columns.contains_key(&fts) {
                return Vec::new();
            }
            let name = literal(&fts);
            let mut out: Vec<String> = ["ai", "ad", "au"]
                .iter()
                .map(|sfx| format!("DROP TRIGGER IF EXISTS {}", q(&search_trigger(&fts, sfx))))
                .collect();
            out.push(format!("DROP TABLE IF EXISTS {}", q(&fts)));
            out.push(format!("DELETE FROM {SEARCH_PENDING} WHERE fts = {name}"));
            out.push(format!("DELETE FROM {SEARCH_FLUSH} WHERE fts = {name}"));
            out
        }
        Backend::Postgres => e
            .fields
            .iter()
            .flat_map(|f| [f.column.clone(), format!("{}__text", f.column)])
            .filter(|c| !cols.contains(c))
            .map(|c| trigram_index(e, &c))
            .filter(|name| ex.indexes.contains(name))
            .map(|name| format!("DROP INDEX IF EXISTS {}", q(&name)))
            .collect(),
    }
}

/// What exists in the database now.
#[derive(Default)]
struct Existing {
    columns: HashMap<String, HashSet<String>>,
    indexes: HashSet<String>,
    /// The lookup indexes ([`LOOKUP`]) by table.
    lookups: HashMap<String, Vec<String>>,
    /// SQLite: each trigger's statement, by name.
    triggers: HashMap<String, String>,
    /// PostgreSQL: pg_trgm is installed or can be.
    trigram: bool,
    trigram_installed: bool,
}

impl Existing {
    /// Notes the indexes that exist, as (name, table) pairs.
    fn note_indexes(&mut self, pairs: impl IntoIterator<Item = (String, String)>) {
        for (name, table) in pairs {
            if name.starts_with(LOOKUP) {
                self.lookups.entry(table).or_default().push(name.clone());
            }
            self.indexes.insert(name);
        }
    }
}

async fn existing(exec: &mut Exec<'_>) -> Result<Existing> {
    let mut ex = Existing::default();
    match &mut exec.link {
        Link::Sqlite(c) => {
            let pairs = |sql: &str| -> rusqlite::Result<Vec<(String, String)>> {
                let mut st = c.prepare(sql)?;
                st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect()
            };
            let columns = pairs(
                "SELECT m.name, p.name FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.type = 'table'",
            )
            .map_err(sqlite_err)?;
            for (t, c) in columns {
                ex.columns.entry(t).or_default().insert(c);
            }
            let indexes = pairs(
                "SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND name IS NOT NULL",
            )
            .map_err(sqlite_err)?;
            ex.note_indexes(indexes);
            ex.triggers = pairs("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'")
                .map_err(sqlite_err)?
                .into_iter()
                .collect();
        }
        Link::Postgres(c) => {
            let rows = sqlx::query(
                "SELECT table_name::text AS t, column_name::text AS c FROM information_schema.columns WHERE table_schema = current_schema()",
            )
            .fetch_all(&mut **c)
            .await
            .map_err(pool_err)?;
            for r in rows {
                ex.columns
                    .entry(r.get::<String, _>("t"))
                    .or_default()
                    .insert(r.get("c"));
            }
            let rows = sqlx::query(
                "SELECT indexname::text AS n, tablename::text AS t FROM pg_indexes WHERE schemaname = current_schema()",
            )
            .fetch_all(&mut **c)
            .await
            .map_err(pool_err)?;
            ex.note_indexes(rows.iter().map(|r| (r.get("n"), r.get("t"))));
            let row = sqlx::query(
                "SELECT (SELECT count(*) FROM pg_available_extensions WHERE name = 'pg_trgm') AS available, (SELECT count(*) FROM pg_extension WHERE extname = 'pg_trgm') AS installed",
            )
            .fetch_one(&mut **c)
            .await
            .map_err(pool_err)?;
            ex.trigram_installed = row.get::<i64, _>("installed") > 0;
            ex.trigram = ex.trigram_installed || row.get::<i64, _>("available") > 0;
        }
    }
    Ok(ex)
}

fn migrations_table(b: Backend) -> String {
    let id = if b == Backend::Postgres {
        "BIGSERIAL PRIMARY KEY"
    } else {
        "INTEGER PRIMARY KEY AUTOINCREMENT"
    };
    format!(
        "CREATE TABLE IF NOT EXISTS stoa_migrations (id {id}, checksum TEXT NOT NULL, statements TEXT NOT NULL, applied_at TEXT NOT NULL)"
    )
}

/// The statements that bring the database to the declared schema, in order.
async fn plan_on(exec: &mut Exec<'_>, reg: &Registry) -> Result<Vec<String>> {
    let b = exec.backend();
    let ex = existing(exec).await?;
    let mut out = Vec::new();
    let mut warnings = BTreeSet::new();
    let mut trigram_added = false;
    if b == Backend::Sqlite {
        out.extend(search_pending_tables(reg, &ex));
    }
    for e in reg.creation_order() {
        match ex.columns.get(&e.table) {
            None => {
                let cols: Vec<String> = e
                    .fields
                    .iter()
                    .map(|f| format!("  {}", column_def(&e, f, reg, b, false)))
                    .chain(text_columns(&e).map(|(_, c)| format!("  {} TEXT", q(&c))))
                    .collect();
                out.push(format!(
                    "CREATE TABLE {} (\n{}\n)",
                    q(&e.table),
                    cols.join(",\n")
                ));
            }
            Some(have) => {
                for f in &e.fields {
                    if !have.contains(&f.column) {
                        out.push(format!(
                            "ALTER TABLE {} ADD COLUMN {}",
                            q(&e.table),
                            column_def(&e, f, reg, b, true)
                        ));
                    }
                }
                for (f, c) in text_columns(&e) {
                    if !have.contains(&c) {
                        out.push(format!(
                            "ALTER TABLE {} ADD COLUMN {} TEXT",
                            q(&e.table),
                            q(&c)
                        ));
                        out.push(text_column_backfill(&e, f, &c, b));
                    }
                }
                let derived: Vec<String> = text_columns(&e).map(|(_, c)| c).collect();
                let declared: HashSet<&str> = e
                    .fields
                    .iter()
                    .map(|f| f.column.as_str())
                    .chain(derived.iter().map(String::as_str))
                    .collect();
                for c in have {
                    if !declared.contains(c.as_str()) {
                        warnings.insert(format!(
                            "-- {}.{} is no longer declared; left in place",
                            e.table, c
                        ));
                    }
                }
            }
        }
        let declared = indexes(&e);
        for ix in &declared {
            if !ex.indexes.contains(&ix.0) {
                out.push(create_index(&e, ix));
            }
        }
        // A list index no longer declared (its column no longer listed, or the `variant` of an
        // entity with one variant) is dropped: it only served sorts, and every write paid for it.
        for f in &e.fields {
            let name = list_index(&e, f);
            if ex.indexes.contains(&name) && !declared.iter().any(|ix| ix.0 == name) {
                out.push(format!("DROP INDEX IF EXISTS {}", q(&name)));
            }
        }
        // So is a lookup index no longer declared: its lookup is gone or changed.
        for name in ex.lookups.get(&e.table).into_iter().flatten() {
            if !declared.iter().any(|ix| &ix.0 == name) {
                out.push(format!("DROP INDEX IF EXISTS {}", q(name)));
            }
        }
        let search = search_index(&e, b, &ex);
        if b == Backend::Postgres && !search.is_empty() && !ex.trigram_installed && !trigram_added {
            // Trusted since PostgreSQL 13: the database owner may create it.
            out.push("CREATE EXTENSION IF NOT EXISTS pg_trgm".into());
            trigram_added = true;
        }
        out.extend(search);
    }
    out.extend(warnings);
    Ok(out)
}

/// Prints what `migrate` would run, without running it.
pub async fn plan(db: &Db, reg: &Registry) -> Result<Vec<String>> {
    let mut conn = db.read().await?;
    let mut exec = conn.exec();
    let mut out = vec![migrations_table(db.backend())];
    out.extend(plan_on(&mut exec, reg).await?);
    Ok(out)
}

/// Applies the plan in one transaction (serialised across instances on PostgreSQL by an
/// advisory lock) and records it. Returns the statements run.
pub async fn migrate(db: &Db, reg: &Registry) -> Result<Vec<String>> {
    let mut tx = db.begin().await?;
    let mut exec = tx.exec();
    let b = exec.backend();
    if b == Backend::Postgres {
        // Index builds on big tables may take longer than a request may.
        run(&mut exec, "SET LOCAL statement_timeout = 0").await?;
        run(&mut exec, "SELECT pg_advisory_xact_lock(5470616)").await?;
    }
    run(&mut exec, &migrations_table(b)).await?;
    let stmts: Vec<String> = plan_on(&mut exec, reg)
        .await?
        .into_iter()
        .filter(|s| !s.starts_with("--"))
        .collect();
    if stmts.is_empty() {
        tx.commit().await?;
        return Ok(stmts);
    }
    for s in &stmts {
        run(&mut exec, s)
            .await
            .map_err(|e| Error::internal(format!("migration failed on `{s}`: {e}")))?;
    }
    let all = stmts.join(";\n");
    let checksum: String = Sha256::digest(all.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let now = stoa_kernel::value::format_timestamp(stoa_kernel::value::now());
    let sql = match b {
        Backend::Postgres => {
            "INSERT INTO stoa_migrations (checksum, statements, applied_at) VALUES ($1, $2, $3)"
        }
        Backend::Sqlite => {
            "INSERT INTO stoa_migrations (checksum, statements, applied_at) VALUES (?, ?, ?)"
        }
    };
    match &mut exec.link {
        Link::Sqlite(c) => c
            .execute(sql, [&checksum, &all, &now])
            .map(|_| ())
            .map_err(sqlite_err)?,
        Link::Postgres(c) => sqlx::query(sql)
            .bind(&checksum)
            .bind(&all)
            .bind(&now)
            .execute(&mut **c)
            .await
            .map(|_| ())
            .map_err(pool_err)?,
    }
    tx.commit().await?;
    Ok(stmts)
}

/// Runs `sql` (one or more statements, no rows back) on either backend: the migrator's DDL, and
/// what a test sets up as an older schema left it.
pub async fn run(exec: &mut Exec<'_>, sql: &str) -> Result<()> {
    exec.settle().await?;
    match &mut exec.link {
        // DDL and index builds can take a while: off the worker's other tasks.
        Link::Sqlite(c) => {
            crate::sqlite_read::blocking(|| c.execute_batch(sql)).map_err(sqlite_err)
        }
        Link::Postgres(c) => sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_owned()))
            .execute(&mut **c)
            .await
            .map(|_| ())
            .map_err(|e| Error::internal(e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Entity::sortable` (what the API lets a list sort on) and `indexes` (what the migrator
    /// builds) are two rules: every sortable column must lead an index, so no allowed sort is a
    /// sort of the whole table. `orderIndex` is the exception ADR 0016 names: it is the implicit
    /// order, served by `(reference, order_index)` once a relation list is narrowed to one side.
    #[test]
    fn every_sortable_column_leads_an_index() {
        use stoa_kernel::model::*;
        let entities = [
            model("t", "thing", "things")
                .content()
                .field(text("slug").unique())
                .field(text("name").list())
                .field(int("rank").list())
                .field(decimal("price").list())
                .field(boolean("on").list())
                .field(timestamp("due").list())
                .field(enumeration("kind", &["a", "b"]).list())
                .field(translations("title").list())
                .field(text("note"))
                .field(reference("ownerId", "t.owner"))
                .lookup(&["kind", "due"])
                .build(),
            relation(
                "t",
                "things-to-owners",
                ("thingId", "t.thing"),
                ("ownerId", "t.owner"),
            )
            .build(),
        ];
        for e in &entities {
            let leading: Vec<String> = indexes(e)
                .into_iter()
                .map(|(_, _, c)| c[0].clone())
                .collect();
            for f in e.fields.iter().filter(|f| e.sortable(f)) {
                if f.name == "id" || f.name == "orderIndex" {
                    continue;
                }
                assert!(
                    leading.contains(&f.column),
                    "{}.{} is sortable but no index leads with it",
                    e.key(),
                    f.name
                );
            }
            // And what is not sortable is refused for a reason: no index, or not a column.
            for f in e.fields.iter().filter(|f| !e.sortable(f)) {
                assert!(
                    f.kind.is_json() || !leading.contains(&f.column),
                    "{}.{} leads an index but is not sortable",
                    e.key(),
                    f.name
                );
            }
        }
    }

    #[test]
    fn long_identifiers_are_shortened_uniquely() {
        let a = ident(&format!("ix_{}_a", "x".repeat(80)));
        let b = ident(&format!("ix_{}_b", "x".repeat(80)));
        assert!(a.len() <= 63 && b.len() <= 63);
        assert_ne!(a, b);
        assert_eq!(ident("short"), "short");
    }
}

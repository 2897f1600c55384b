//! The generic repository: SQL for any declared entity, built with sea-query for the connected
//! dialect, every value bound as a parameter. Rows come back as JSON objects in wire shape
//! (camelCase keys, decimals and timestamps as strings, secrets never selected).

use rust_decimal::prelude::ToPrimitive;
use sea_query::extension::postgres::PgExpr;
use sea_query::{
    Alias, CommonTableExpression, Condition, Expr, ExprTrait, LikeExpr, OnConflict,
    Order as SqOrder, PostgresQueryBuilder, Query, SelectStatement, SqliteQueryBuilder,
    SubQueryStatement, Value, WithClause, WithQuery,
};
use sea_query_sqlx::{SqlxBinder, SqlxValues};
use serde_json::value::RawValue;
use sqlx::Row;
use sqlx::postgres::PgRow;
use stoa_kernel::model::{Entity, Field, Kind};
use stoa_kernel::query::{Filter, FilterValue, FindQuery, Op};
use stoa_kernel::value::{Val, format_timestamp};
use stoa_kernel::{Error, Result};
use uuid::Uuid;

use crate::db::{Backend, Exec, Held, Link};
use crate::names::q;
use crate::sqlite_read::{select_columns, sqlite_rows};

pub use crate::errors::{db_error, sqlite_error};

pub use crate::record::{Cell, Record};

pub(crate) fn col(name: &str) -> Expr {
    Expr::col(Alias::new(name))
}

/// Binds a typed value for a column of `kind` on `backend` (NULLs are typed, so PostgreSQL
/// accepts them).
pub fn to_value(kind: Kind, v: &Val, b: Backend) -> Value {
    let pg = b == Backend::Postgres;
    match (v, kind) {
        (Val::Null, Kind::Int) => Value::BigInt(None),
        (Val::Null, Kind::Bool) => Value::Bool(None),
        (Val::Null, Kind::Uuid | Kind::Reference) if pg => Value::Uuid(None),
        (Val::Null, Kind::Timestamp) if pg => Value::TimeDateTimeWithTimeZone(None),
        (Val::Null, Kind::Decimal) if pg => Value::Decimal(None),
        (Val::Null, Kind::Translations | Kind::RichText | Kind::Json) if pg => Value::Json(None),
        (Val::Null, _) => Value::String(None),
        (Val::Text(s), _) => Value::String(Some(s.clone())),
        (Val::Int(i), _) => Value::BigInt(Some(*i)),
        (Val::Bool(x), _) => Value::Bool(Some(*x)),
        (Val::Decimal(d), _) if pg => Value::Decimal(Some(*d)),
        (Val::Decimal(d), _) => Value::String(Some(d.normalize().to_string())),
        (Val::Timestamp(t), _) if pg => Value::TimeDateTimeWithTimeZone(Some(*t)),
        (Val::Timestamp(t), _) => Value::String(Some(format_timestamp(*t))),
        (Val::Uuid(u), _) if pg => Value::Uuid(Some(*u)),
        (Val::Uuid(u), _) => Value::String(Some(u.to_string())),
        (Val::Json(j), _) if pg => Value::Json(Some(Box::new(j.clone()))),
        (Val::Json(j), _) => Value::String(Some(j.to_string())),
    }
}

pub(crate) fn build<S: SqlxBinder>(stmt: &S, b: Backend) -> (String, SqlxValues) {
    match b {
        Backend::Sqlite => stmt.build_sqlx(SqliteQueryBuilder),
        Backend::Postgres => stmt.build_sqlx(PostgresQueryBuilder),
    }
}

/// `main` with the inserts `held` before it as data-modifying `WITH` parts (PostgreSQL runs
/// each exactly once, whether or not anything reads it; they see the statement's snapshot, so
/// `main` is never one that reads their tables).
pub(crate) fn with_held(held: &[Held], main: impl Into<SubQueryStatement>) -> WithQuery {
    let mut with = WithClause::new();
    for (i, h) in held.iter().enumerate() {
        with.cte(
            CommonTableExpression::new()
                .query(h.insert.clone())
                .table_name(Alias::new(format!("held_{i}")))
                .to_owned(),
        );
    }
    with.query(main)
}

/// The error of a statement that carried the inserts `held`: a refusal of one of their tables
/// is told as theirs (the field of a held link row), anything else as `e`'s.
pub(crate) fn held_error(held: &[Held], e: &Entity, err: sqlx::Error) -> Error {
    let table = err
        .as_database_error()
        .and_then(|d| d.try_downcast_ref::<sqlx::postgres::PgDatabaseError>())
        .and_then(|d| d.table())
        .map(str::to_owned);
    match table.and_then(|t| held.iter().find(|h| h.entity.table == t)) {
        Some(h) => db_error(&h.entity, err),
        None => db_error(e, err),
    }
}

/// sea-query substitutes `$n` in custom expressions only for PostgreSQL and `?` only for SQLite
/// (other placeholders are silently dropped), so templates are written with `$1…$9` in order and
/// rewritten here for SQLite.
fn tpl(template: &str, b: Backend) -> String {
    if b == Backend::Postgres {
        return template.to_owned();
    }
    let mut out = String::with_capacity(template.len());
    let mut chars = template.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '$' && chars.peek().is_some_and(char::is_ascii_digit) {
            chars.next();
            out.push('?');
        } else {
            out.push(c);
        }
    }
    out
}

/// The column expression a filter or order addresses.
fn target(e: &Entity, field: usize, path: &Option<String>, b: Backend) -> Expr {
    let f = &e.fields[field];
    match path {
        Some(p) => {
            Expr::cust_with_values(tpl(&format!("({} ->> $1)", q(&f.column)), b), [p.clone()])
        }
        None if f.kind == Kind::Decimal && b == Backend::Sqlite => {
            Expr::cust(format!("CAST({} AS REAL)", q(&f.column)))
        }
        None => col(&f.column),
    }
}

fn filter_val(e: &Entity, f: &Filter, v: &Val, b: Backend) -> Value {
    if f.path.is_some() {
        return to_value(Kind::Text, v, b);
    }
    compared_value(&e.fields[f.field], v, b)
}

/// `v` bound to be compared with the column of `field` as [`target`] addresses it (a SQLite
/// decimal is compared as a number, `CAST(column AS REAL)`).
fn compared_value(field: &Field, v: &Val, b: Backend) -> Value {
    match (v, field.kind, b) {
        (Val::Decimal(d), Kind::Decimal, Backend::Sqlite) => Value::Double(d.to_f64()),
        _ => to_value(field.kind, v, b),
    }
}

fn ilike(target: Expr, pattern: String, b: Backend, negate: bool) -> Expr {
    match b {
        Backend::Postgres if negate => target.not_ilike(LikeExpr::new(pattern)),
        Backend::Postgres => target.ilike(LikeExpr::new(pattern)),
        Backend::Sqlite => {
            let sql = if negate {
                "lower($1) NOT LIKE lower($2)"
            } else {
                "lower($1) LIKE lower($2)"
            };
            Expr::cust_with_exprs(tpl(sql, b), [target, Expr::val(pattern)])
        }
    }
}

/// `%term%` with the term's own `%`, `_` and `\` matched literally (`\` is the escape character
/// of both databases' LIKE: PostgreSQL's default, and SQLite's through `ESCAPE`).
fn contains_pattern(term: &str) -> String {
    let mut p = String::with_capacity(term.len() + 2);
    p.push('%');
    for c in term.chars() {
        if matches!(c, '%' | '_' | '\\') {
            p.push('\\');
        }
        p.push(c);
    }
    p.push('%');
    p
}

/// A case-insensitive "contains `term`" test of `target`, wildcards in the term taken literally.
fn contains(target: Expr, term: &str, b: Backend) -> Expr {
    let pattern = contains_pattern(term);
    match b {
        // Backslash is PostgreSQL's default LIKE escape (and sea-query parenthesises an explicit
        // ESCAPE around a bound pattern into invalid SQL).
        Backend::Postgres => target.ilike(LikeExpr::new(pattern)),
        Backend::Sqlite => Expr::cust_with_exprs(
            tpl("lower($1) LIKE lower($2) ESCAPE '\\'", b),
            [target, Expr::val(pattern)],
        ),
    }
}

/// A filter's condition. `unindexed` (SQLite, a search read from its index's few matches) writes
/// the column as `+column`, which no index serves: SQLite then starts from the matches' rowids
/// instead of walking a filter column's index in list order and testing every row against them
/// (a visitor's `status = 'published'` did that: 6.5 ms at 100 000 articles instead of 0.15).
fn filter_expr(e: &Entity, f: &Filter, b: Backend, unindexed: bool) -> Expr {
    let t = target(e, f.field, &f.path, b);
    let t = if unindexed {
        Expr::cust_with_exprs(tpl("+$1", b), [t])
    } else {
        t
    };
    let one = |v: &FilterValue| match v {
        FilterValue::One(v) => filter_val(e, f, v, b),
        _ => Value::String(None),
    };
    let pattern = || match &f.value {
        FilterValue::One(Val::Text(s)) => s.clone(),
        _ => String::new(),
    };
    match f.op {
        Op::Eq => t.eq(one(&f.value)),
        Op::Ne => t.ne(one(&f.value)),
        Op::Gt => t.gt(one(&f.value)),
        Op::Gte => t.gte(one(&f.value)),
        Op::Lt => t.lt(one(&f.value)),
        Op::Lte => t.lte(one(&f.value)),
        Op::Like => t.like(LikeExpr::new(pattern())),
        Op::NotLike => t.not_like(LikeExpr::new(pattern())),
        Op::Ilike => ilike(t, pattern(), b, false),
        Op::NotIlike => ilike(t, pattern(), b, true),
        Op::InArray | Op::NotInArray => {
            let vals: Vec<Value> = match &f.value {
                FilterValue::Many(vs) => vs.iter().map(|v| filter_val(e, f, v, b)).collect(),
                _ => Vec::new(),
            };
            match (f.op, vals.is_empty()) {
                (Op::InArray, true) => Expr::cust("1 = 0"),
                (_, true) => Expr::cust("1 = 1"),
                (Op::InArray, false) => t.is_in(vals),
                _ => t.is_not_in(vals),
            }
        }
        Op::IsNull => t.is_null(),
        Op::IsNotNull => t.is_not_null(),
        Op::IsEmpty => Expr::cust_with_exprs(tpl("COALESCE($1, '') = ''", b), [t]),
        Op::IsNotEmpty => Expr::cust_with_exprs(tpl("COALESCE($1, '') <> ''", b), [t]),
    }
}

/// How an indexed search joins the list (SQLite): a set of matching rowids, or a probe of the
/// index per row in list order. A set is cheap when few rows match; a probe when many do, because
/// the list then fills its page after a few rows instead of fetching and sorting every match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchPlan {
    Set,
    Probe,
}

/// Above this many matches a probe beats a set (1 M rows, a 20-row page: docs/benchmarks.md).
/// Equal to the search count's cap, so the capped index count decides.
pub const PROBE_FROM: u64 = SEARCH_COUNT_CAP;

/// Whether `query`'s search can use the SQLite FTS5 index of `e` (trigrams need 3 characters).
fn uses_fts(e: &Entity, query: &FindQuery, b: Backend) -> bool {
    b == Backend::Sqlite
        && query
            .search
            .as_ref()
            .is_some_and(|t| t.chars().count() >= 3)
        && !crate::ddl::search_columns(e).is_empty()
}

fn fts_phrase(term: &str) -> String {
    format!("\"{}\"", term.replace('"', "\"\""))
}

/// SQLite: `SELECT COUNT(*)` of the search's index matches, capped like every narrowed count;
/// `None` when the search does not use the index.
pub fn search_matches_statement(e: &Entity, query: &FindQuery) -> Option<(String, SqlxValues)> {
    if !uses_fts(e, query, Backend::Sqlite) {
        return None;
    }
    let fts = crate::ddl::q(&crate::ddl::search_table(e));
    let sql = format!(
        "SELECT COUNT(*) FROM (SELECT rowid FROM {fts} WHERE {fts} MATCH ? LIMIT {})",
        count_cap(query) + 1
    );
    let term = query.search.as_deref().unwrap_or_default();
    Some((
        sql,
        SqlxValues(sea_query::Values(vec![fts_phrase(term).into()])),
    ))
}

/// Whether every searchable field of `e` is in its search index (so an indexed search looks
/// nowhere else).
pub fn search_is_index_only(e: &Entity) -> bool {
    let indexed = crate::ddl::search_columns(e);
    e.public_fields()
        .filter(|f| f.searchable)
        .all(|f| crate::ddl::search_column(f).is_some_and(|c| indexed.contains(&c)))
}

/// Whether the search is the only thing narrowing `query` (so its index count is the list's).
pub fn only_search(query: &FindQuery) -> bool {
    // A term that is an id also matches the record with that id, which the index does not know.
    query.filters.is_empty()
        && query.published_refs.is_empty()
        && query
            .search
            .as_deref()
            .is_some_and(|t| Uuid::parse_str(t).is_err())
}

fn conditions(e: &Entity, query: &FindQuery, b: Backend, plan: SearchPlan) -> Condition {
    let mut all = Condition::all();
    let from_matches = plan == SearchPlan::Set && uses_fts(e, query, b);
    for f in &query.filters {
        all = all.add(filter_expr(e, f, b, from_matches));
    }
    for r in &query.published_refs {
        all = all.add(published_ref(r));
    }
    if let Some(term) = &query.search {
        let mut any = Condition::any();
        let indexed = crate::ddl::search_columns(e);
        // SQLite answers through the FTS5 trigram index, which needs three characters to match;
        // PostgreSQL's pg_trgm index serves the ILIKE below directly.
        let fts = uses_fts(e, query, b);
        if fts {
            let f = crate::ddl::q(&crate::ddl::search_table(e));
            let sql = match plan {
                SearchPlan::Set => format!("rowid IN (SELECT rowid FROM {f} WHERE {f} MATCH ?)"),
                SearchPlan::Probe => format!(
                    "EXISTS (SELECT 1 FROM {f} WHERE {f} MATCH ? AND {f}.rowid = {}.rowid)",
                    crate::ddl::q(&e.table)
                ),
            };
            any = any.add(Expr::cust_with_values(sql, [fts_phrase(term)]));
        }
        // Under 3 characters a trigram index cannot narrow anything, yet PostgreSQL's planner may
        // still walk the whole GIN index; an expression it cannot index keeps it on a scan that
        // stops at the page's rows.
        let short = term.chars().count() < 3;
        for f in e.public_fields().filter(|f| f.searchable) {
            // A rich text is searched in its derived plain text (`ddl::text_column`).
            let column = crate::ddl::search_column(f).unwrap_or_else(|| f.column.clone());
            if fts && indexed.contains(&column) {
                continue;
            }
            let json = f.kind == Kind::Translations;
            let target = match (b, short, json) {
                (Backend::Postgres, true, true) => {
                    Expr::cust_with_exprs("(($1::text) || '')", [col(&column)])
                }
                (Backend::Postgres, true, false) => {
                    Expr::cust_with_exprs("($1 || '')", [col(&column)])
                }
                // The expression the trigram index is built on (`ddl::search_expr`).
                (Backend::Postgres, false, true) => {
                    Expr::cust_with_exprs("($1::text)", [col(&column)])
                }
                _ => col(&column),
            };
            any = any.add(contains(target, term, b));
        }
        for f in e.public_fields().filter(|f| f.search_whole) {
            any = any.add(col(&f.column).eq(to_value(f.kind, &Val::Text(term.clone()), b)));
        }
        if let Ok(id) = Uuid::parse_str(term) {
            any = any.add(col("id").eq(to_value(Kind::Uuid, &Val::Uuid(id), b)));
        }
        all = all.add(any);
    }
    all
}

pub(crate) fn base_select(e: &Entity) -> SelectStatement {
    let mut s = Query::select();
    s.from(Alias::new(e.table.as_str()));
    for f in select_columns(e) {
        s.column(Alias::new(f.column.as_str()));
    }
    s
}

pub(crate) fn returning(e: &Entity) -> sea_query::ReturningClause {
    Query::returning().columns(
        select_columns(e)
            .into_iter()
            .map(|f| Alias::new(f.column.as_str())),
    )
}

fn decode_pg(e: &Entity, cols: &[&Field], row: &PgRow) -> Result<Record> {
    let mut out = Vec::with_capacity(cols.len());
    for (i, f) in cols.iter().enumerate() {
        let v = match f.kind {
            Kind::Int => row
                .try_get::<Option<i64>, _>(i)
                .map(|v| v.map_or(Cell::Null, Cell::Int)),
            Kind::Bool => row
                .try_get::<Option<bool>, _>(i)
                .map(|v| v.map_or(Cell::Null, Cell::Bool)),
            Kind::Uuid | Kind::Reference => row
                .try_get::<Option<Uuid>, _>(i)
                .map(|v| v.map_or(Cell::Null, |u| Cell::Text(u.to_string()))),
            Kind::Decimal => row
                .try_get::<Option<rust_decimal::Decimal>, _>(i)
                .map(|v| v.map_or(Cell::Null, |d| Cell::Text(d.normalize().to_string()))),
            Kind::Timestamp => row
                .try_get::<Option<time::OffsetDateTime>, _>(i)
                .map(|v| v.map_or(Cell::Null, |t| Cell::Text(format_timestamp(t)))),
            Kind::Translations | Kind::RichText | Kind::Json => row
                .try_get::<Option<sqlx::types::Json<Box<RawValue>>>, _>(i)
                .map(|v| v.map_or(Cell::Null, |j| Cell::Json(j.0))),
            Kind::Text | Kind::Enum => row
                .try_get::<Option<String>, _>(i)
                .map(|v| v.map_or(Cell::Null, Cell::Text)),
        }
        .map_err(|err| Error::internal(format!("decode {}.{}: {err}", e.table, f.column)))?;
        out.push((f.name, v));
    }
    Ok(Record(out))
}

/// Writes one PostgreSQL row as the JSON object [`Record::write_json`] writes for the record
/// [`decode_pg`] makes of it, without the record: text and JSON are copied from the row's buffer.
fn write_pg_row(e: &Entity, cols: &[&Field], row: &PgRow, out: &mut Vec<u8>) -> Result<()> {
    fn string(out: &mut Vec<u8>, s: &str) {
        let _ = serde_json::to_writer(&mut *out, s);
    }
    out.push(b'{');
    for (i, f) in cols.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        string(out, f.name);
        out.push(b':');
        let fail =
            |err: sqlx::Error| Error::internal(format!("decode {}.{}: {err}", e.table, f.column));
        let null = |out: &mut Vec<u8>| out.extend_from_slice(b"null");
        match f.kind {
            Kind::Int => match row.try_get::<Option<i64>, _>(i).map_err(fail)? {
                Some(v) => out.extend_from_slice(v.to_string().as_bytes()),
                None => null(out),
            },
            Kind::Bool => match row.try_get::<Option<bool>, _>(i).map_err(fail)? {
                Some(true) => out.extend_from_slice(b"true"),
                Some(false) => out.extend_from_slice(b"false"),
                None => null(out),
            },
            Kind::Uuid | Kind::Reference => {
                match row.try_get::<Option<Uuid>, _>(i).map_err(fail)? {
                    Some(u) => {
                        let mut buf = Uuid::encode_buffer();
                        string(out, u.hyphenated().encode_lower(&mut buf));
                    }
                    None => null(out),
                }
            }
            Kind::Decimal => {
                match row
                    .try_get::<Option<rust_decimal::Decimal>, _>(i)
                    .map_err(fail)?
                {
                    Some(d) => string(out, &d.normalize().to_string()),
                    None => null(out),
                }
            }
            Kind::Timestamp => match row
                .try_get::<Option<time::OffsetDateTime>, _>(i)
                .map_err(fail)?
            {
                Some(t) => string(out, &format_timestamp(t)),
                None => null(out),
            },
            Kind::Translations | Kind::RichText | Kind::Json => match row
                .try_get::<Option<sqlx::types::Json<&RawValue>>, _>(i)
                .map_err(fail)?
            {
                Some(j) => out.extend_from_slice(j.0.get().as_bytes()),
                None => null(out),
            },
            Kind::Text | Kind::Enum => match row.try_get::<Option<&str>, _>(i).map_err(fail)? {
                Some(t) => string(out, t),
                None => null(out),
            },
        }
    }
    out.push(b'}');
    Ok(())
}

/// The rows of select `s` on PostgreSQL written into `out` as comma-separated JSON objects as
/// they arrive (no records in between); the number written, and the record of row `keep` (for a
/// cursor).
pub(crate) async fn write_json_pg(
    c: &mut sqlx::PgConnection,
    e: &Entity,
    s: &SelectStatement,
    out: &mut Vec<u8>,
    keep: Option<usize>,
) -> Result<(usize, Option<Record>)> {
    use futures::TryStreamExt;
    let (sql, values) = build(s, Backend::Postgres);
    let cols = select_columns(e);
    let mut rows = sqlx::query_with(sqlx::AssertSqlSafe(sql), values).fetch(&mut *c);
    let (mut n, mut kept) = (0, None);
    while let Some(row) = rows.try_next().await.map_err(|x| db_error(e, x))? {
        if n > 0 {
            out.push(b',');
        }
        write_pg_row(e, &cols, &row, out)?;
        if keep == Some(n) {
            kept = Some(decode_pg(e, &cols, &row)?);
        }
        n += 1;
    }
    Ok((n, kept))
}

pub(crate) async fn fetch_all<S: SqlxBinder>(
    exec: &mut Exec<'_>,
    e: &Entity,
    stmt: &S,
) -> Result<Vec<Record>> {
    exec.settle().await?;
    fetch_all_now(exec, e, stmt, &[]).await
}

/// [`fetch_all`] of a statement that carries the inserts `held` (their errors are theirs).
async fn fetch_all_now<S: SqlxBinder>(
    exec: &mut Exec<'_>,
    e: &Entity,
    stmt: &S,
    held: &[Held],
) -> Result<Vec<Record>> {
    let (sql, values) = build(stmt, exec.backend());
    let cols = select_columns(e);
    match &mut exec.link {
        Link::Sqlite(c) => sqlite_rows(c, e, &sql, &values, usize::MAX, |r| {
            crate::sqlite_read::decode(&cols, r)
        }),
        Link::Postgres(c) => {
            let rows = sqlx::query_with(sqlx::AssertSqlSafe(sql), values)
                .fetch_all(&mut **c)
                .await
                .map_err(|x| held_error(held, e, x))?;
            rows.iter().map(|r| decode_pg(e, &cols, r)).collect()
        }
    }
}

/// [`fetch_all`] of `stmt`, an insert into `e` or an update of `e`'s rows by their own columns,
/// which reads no other table: it carries the held inserts (as `WITH` parts) when none of them
/// is into `e`'s table, so it reads nothing they write, its `ON CONFLICT` and `RETURNING` are
/// its own, and the foreign keys, checked at the statement's end, see every row.
async fn fetch_carrying<S>(exec: &mut Exec<'_>, e: &Entity, stmt: S) -> Result<Vec<Record>>
where
    S: SqlxBinder + Into<SubQueryStatement>,
{
    if exec.held_apart_from(&e.table) {
        let held = exec.take_held();
        fetch_all_now(exec, e, &with_held(&held, stmt), &held).await
    } else {
        fetch_all(exec, e, &stmt).await
    }
}

async fn fetch_one<S: SqlxBinder>(
    exec: &mut Exec<'_>,
    e: &Entity,
    stmt: &S,
) -> Result<Option<Record>> {
    Ok(fetch_all(exec, e, stmt).await?.into_iter().next())
}

/// The select for `query` on `e`.
pub fn find_statement(e: &Entity, query: &FindQuery, b: Backend) -> SelectStatement {
    find_statement_with(e, query, b, SearchPlan::Set)
}

/// [`find_statement`] with the given search plan.
pub fn find_statement_with(
    e: &Entity,
    query: &FindQuery,
    b: Backend,
    plan: SearchPlan,
) -> SelectStatement {
    let mut s = base_select(e);
    s.cond_where(conditions(e, query, b, plan));
    for o in &query.order {
        s.order_by_expr(
            target(e, o.field, &o.path, b),
            if o.desc { SqOrder::Desc } else { SqOrder::Asc },
        );
    }
    if query.order.is_empty() && e.has_field("orderIndex") {
        s.order_by(Alias::new("order_index"), SqOrder::Asc);
    }
    // uuid v7 ids are time-ordered: a stable, index-backed tiebreaker, walked the way the first
    // sort key is (so `(column, id)` indexes serve descending sorts too). Not twice: SQLite
    // sorts a list ordered by `id, id` in a temporary tree, even one an index walks by id.
    let by_id = query
        .order
        .last()
        .is_some_and(|o| o.path.is_none() && e.fields.get(o.field).is_some_and(|f| f.name == "id"));
    if !by_id {
        s.order_by(
            Alias::new("id"),
            if id_desc(query) {
                SqOrder::Desc
            } else {
                SqOrder::Asc
            },
        );
    }
    if let Some(after) = &query.after {
        s.and_where(keyset(e, query, after, b));
    }
    s.limit(query.limit).offset(query.offset);
    s
}

/// Whether the `id` tiebreaker runs descending: as the first sort key does.
pub fn id_desc(query: &FindQuery) -> bool {
    query.order.first().is_some_and(|o| o.desc)
}

/// The rows after the cursor row `after` (its sort values, then its id) in the list's order:
/// `k0 ≥ v0 AND (k0 > v0 OR (k0 = v0 AND (k1 > v1 OR …)))`. The leading range lets the sort
/// column's index start at the cursor; NULLs sort where each backend puts them (first in SQLite's
/// ascending order, last in PostgreSQL's).
fn keyset(e: &Entity, query: &FindQuery, after: &[Val], b: Backend) -> Expr {
    let id = e.field_index("id").unwrap_or(0);
    // (column, descending, value or None for NULL)
    let keys: Vec<(Expr, bool, Option<Value>)> = query
        .order
        .iter()
        .map(|o| (o.field, o.desc))
        .chain([(id, id_desc(query))])
        .zip(after)
        .map(|((field, desc), v)| {
            let value = (*v != Val::Null).then(|| compared_value(&e.fields[field], v, b));
            (target(e, field, &None, b), desc, value)
        })
        .collect();
    let nulls_first = b == Backend::Sqlite;
    // Strictly after `v` in ascending storage order (NULL smallest on SQLite, largest on PG).
    let greater = |t: &Expr, v: &Option<Value>| match (v, nulls_first) {
        (None, true) => t.clone().is_not_null(),
        (None, false) => Expr::cust("1 = 0"),
        (Some(v), true) => t.clone().gt(v.clone()),
        (Some(v), false) => t.clone().gt(v.clone()).or(t.clone().is_null()),
    };
    let less = |t: &Expr, v: &Option<Value>| match (v, nulls_first) {
        (None, true) => Expr::cust("1 = 0"),
        (None, false) => t.clone().is_not_null(),
        (Some(v), true) => t.clone().lt(v.clone()).or(t.clone().is_null()),
        (Some(v), false) => t.clone().lt(v.clone()),
    };
    let equal = |t: &Expr, v: &Option<Value>| match v {
        None => t.clone().is_null(),
        Some(v) => t.clone().eq(v.clone()),
    };
    let beyond = |(t, desc, v): &(Expr, bool, Option<Value>)| {
        if *desc { less(t, v) } else { greater(t, v) }
    };
    // Built from the last key outwards: after_i OR (eq_i AND rest).
    let mut cond: Option<Expr> = None;
    for k in keys.iter().rev() {
        cond = Some(match cond {
            None => beyond(k),
            Some(rest) => beyond(k).or(equal(&k.0, &k.2).and(rest)),
        });
    }
    let cond = cond.unwrap_or_else(|| Expr::cust("1 = 1"));
    match keys.first() {
        Some(k) if keys.len() > 1 => beyond(k).or(equal(&k.0, &k.2)).and(cond),
        _ => cond,
    }
}

/// Counts of filtered lists stop here: past it the admin shows "10 000+", and a count never
/// scans more than this many matches.
pub const COUNT_CAP: u64 = 10_000;
/// Counts of searched lists stop earlier: a substring match costs more per row, and "1 000+"
/// says enough about a search (at 1 M rows: 16 ms instead of 244 ms on PostgreSQL).
pub const SEARCH_COUNT_CAP: u64 = 1_000;

/// Where the count of `query` stops.
pub fn count_cap(query: &FindQuery) -> u64 {
    if query.search.is_some() {
        SEARCH_COUNT_CAP
    } else {
        COUNT_CAP
    }
}
/// PostgreSQL: an unfiltered table at least this large is counted from the planner's estimate.
pub const ESTIMATE_FROM: u64 = 100_000;

pub(crate) fn narrowed(query: &FindQuery) -> bool {
    !query.filters.is_empty() || query.search.is_some() || !query.published_refs.is_empty()
}

/// Whether a count `n` from [`count`] is exact: capped counts of narrowed lists and PostgreSQL's
/// estimates of big tables are not.
pub fn count_is_exact(b: Backend, query: &FindQuery, n: u64) -> bool {
    if narrowed(query) {
        n <= count_cap(query)
    } else {
        b == Backend::Sqlite || n < ESTIMATE_FROM
    }
}

/// `SELECT COUNT(*)` for `query` on `e`; narrowed lists count at most [`count_cap`] + 1 matches.
pub fn count_statement(e: &Entity, query: &FindQuery, b: Backend) -> SelectStatement {
    let mut s = Query::select();
    if narrowed(query) {
        let mut inner = Query::select();
        inner
            .from(Alias::new(e.table.as_str()))
            .expr(Expr::cust("1"))
            .cond_where(conditions(e, query, b, SearchPlan::Set))
            .limit(count_cap(query) + 1);
        s.expr(Expr::cust("COUNT(*)"))
            .from_subquery(inner, Alias::new("capped"));
    } else {
        s.from(Alias::new(e.table.as_str()))
            .expr(Expr::cust("COUNT(*)"));
    }
    s
}

/// `SELECT CAST(group AS TEXT), SUM(sum) FROM e WHERE via IN (SELECT id FROM target WHERE
/// <query's filters>) GROUP BY group`: one aggregate over the rows of `e` whose reference `via`
/// points at a matching `target` row (the paid quantity per product, say).
pub fn sum_statement(
    e: &Entity,
    sum: &str,
    group: &str,
    via: &str,
    target: &Entity,
    query: &FindQuery,
    b: Backend,
) -> Result<SelectStatement> {
    let column = |ent: &Entity, name: &str| {
        ent.field(name)
            .map(|f| f.column.clone())
            .ok_or_else(|| Error::internal(format!("{} has no field {name}", ent.key())))
    };
    let (sum, group, via) = (column(e, sum)?, column(e, group)?, column(e, via)?);
    let mut inner = Query::select();
    inner
        .from(Alias::new(target.table.as_str()))
        .column(Alias::new("id"))
        .cond_where(conditions(target, query, b, SearchPlan::Set));
    let mut s = Query::select();
    s.from(Alias::new(e.table.as_str()))
        .expr(Expr::cust(format!("CAST({} AS TEXT)", q(&group))))
        .expr(Expr::cust(format!("CAST(SUM({}) AS BIGINT)", q(&sum))))
        .and_where(col(&via).in_subquery(inner))
        .group_by_col(Alias::new(group.as_str()));
    Ok(s)
}

/// The select of one record by id.
pub fn get_statement(e: &Entity, id: Uuid, b: Backend) -> SelectStatement {
    let mut s = base_select(e);
    s.and_where(col("id").eq(id_value(id, b)));
    s
}

/// The condition of a reference that must find a visible row
/// ([`crate::publish::published_refs`]).
pub(crate) fn published_ref(r: &(usize, String)) -> Expr {
    Expr::cust(r.1.clone())
}

/// Builds SQL and values for `b`.
pub fn sql<S: SqlxBinder>(stmt: &S, b: Backend) -> (String, SqlxValues) {
    build(stmt, b)
}

/// Rows matching `query`, and the total when asked for.
pub async fn find(
    exec: &mut Exec<'_>,
    e: &Entity,
    query: &FindQuery,
) -> Result<(Vec<Record>, Option<u64>)> {
    let s = find_statement(e, query, exec.backend());
    let rows = fetch_all(exec, e, &s).await?;
    let total = if query.count {
        Some(count(exec, e, query).await?)
    } else {
        None
    };
    Ok((rows, total))
}

/// The rows of `e` whose field `by` holds what `by` holds in a row whose field `via` is one of
/// `vals` — on a link table, every link of the rows that `vals` link to (the other intents of
/// the orders an intent pays) — in one statement where a read of the matching links and then of
/// their rows' links were two. At most `cap` rows, in no particular order.
pub async fn find_siblings(
    exec: &mut Exec<'_>,
    e: &Entity,
    via: &str,
    vals: &[Val],
    by: &str,
    cap: u64,
) -> Result<Vec<Record>> {
    let field = |name: &str| {
        e.field_index(name)
            .map(|i| &e.fields[i])
            .ok_or_else(|| Error::internal(format!("{} has no field {name}", e.key())))
    };
    let (via, by) = (field(via)?, field(by)?);
    if vals.is_empty() {
        return Ok(Vec::new());
    }
    let b = exec.backend();
    let table = Alias::new(e.table.as_str());
    let mut inner = Query::select();
    inner
        .from(table.clone())
        .column(Alias::new(by.column.as_str()))
        .and_where(
            col(&via.column).is_in(vals.iter().map(|v| Expr::val(to_value(via.kind, v, b)))),
        );
    let mut s = Query::select();
    s.from(table)
        .columns(
            select_columns(e)
                .into_iter()
                .map(|f| Alias::new(f.column.as_str())),
        )
        .and_where(col(&by.column).in_subquery(inner))
        .limit(cap);
    fetch_all(exec, e, &s).await
}

/// The capped count of `query` inside a transaction (see [`count_statement`]); lists read
/// through [`Reader::total`](crate::Reader::total), which also estimates big tables on PostgreSQL.
pub async fn count(exec: &mut Exec<'_>, e: &Entity, query: &FindQuery) -> Result<u64> {
    exec.settle().await?;
    let b = exec.backend();
    let (sql, values) = build(&count_statement(e, query, b), b);
    let n: i64 = match &mut exec.link {
        Link::Sqlite(c) => {
            let params = crate::sqlite_read::params(&values)?;
            c.prepare_cached(&sql)
                .and_then(|mut s| {
                    s.query_row(rusqlite::params_from_iter(params.iter()), |r| r.get(0))
                })
                .map_err(|x| sqlite_error(e, x))?
        }
        Link::Postgres(c) => sqlx::query_scalar_with(sqlx::AssertSqlSafe(sql), values)
            .fetch_one(&mut **c)
            .await
            .map_err(|x| db_error(e, x))?,
    };
    Ok(u64::try_from(n).unwrap_or(0))
}

fn id_value(id: Uuid, b: Backend) -> Value {
    to_value(Kind::Uuid, &Val::Uuid(id), b)
}

pub async fn get(exec: &mut Exec<'_>, e: &Entity, id: Uuid) -> Result<Option<Record>> {
    let s = get_statement(e, id, exec.backend());
    fetch_one(exec, e, &s).await
}

/// The first row whose fields equal the given values.
pub async fn find_eq(
    exec: &mut Exec<'_>,
    e: &Entity,
    vals: &[(usize, Val)],
) -> Result<Option<Record>> {
    Ok(find_all_eq(exec, e, vals, 1).await?.into_iter().next())
}

/// `field = value` for each pair (`Val::Null`: IS NULL; JSON compared as JSON on SQLite).
fn equal_to(e: &Entity, vals: &[(usize, Val)], b: Backend) -> Condition {
    vals.iter().fold(Condition::all(), |c, (i, v)| {
        let f = &e.fields[*i];
        c.add(match v {
            Val::Null => col(&f.column).is_null(),
            v if f.kind.is_json() && b == Backend::Sqlite => Expr::cust_with_exprs(
                tpl("json($1) = json($2)", b),
                [col(&f.column), Expr::val(to_value(f.kind, v, b))],
            ),
            v => col(&f.column).eq(to_value(f.kind, v, b)),
        })
    })
}

/// `SET column = value, …` for `vals`.
pub(crate) fn assignments(e: &Entity, vals: &[(usize, Val)], b: Backend) -> Vec<(Alias, Expr)> {
    vals.iter()
        .map(|(i, v)| {
            let f = &e.fields[*i];
            (
                Alias::new(f.column.as_str()),
                Expr::val(to_value(f.kind, v, b)),
            )
        })
        .chain(derived(e, vals, b))
        .collect()
}

/// The derived columns written with `vals`: a searchable rich text's plain text
/// (`ddl::text_column`), kept in step with every write of the field.
fn derived<'a>(
    e: &'a Entity,
    vals: &'a [(usize, Val)],
    b: Backend,
) -> impl Iterator<Item = (Alias, Expr)> + 'a {
    vals.iter().filter_map(move |(i, v)| {
        let column = crate::ddl::text_column(&e.fields[*i])?;
        let text = match v {
            Val::Json(doc) => Val::Text(stoa_kernel::value::plain_text(doc)),
            _ => Val::Null,
        };
        Some((
            Alias::new(column),
            Expr::val(to_value(Kind::Text, &text, b)),
        ))
    })
}

/// Does any row have `value` in `field`?
pub async fn exists(exec: &mut Exec<'_>, e: &Entity, field: usize, value: &Val) -> Result<bool> {
    Ok(find_eq(exec, e, &[(field, value.clone())]).await?.is_some())
}

/// `INSERT INTO e (…) VALUES (…)` of `vals`.
pub(crate) fn insert_statement(
    e: &Entity,
    vals: &[(usize, Val)],
    b: Backend,
) -> Result<sea_query::InsertStatement> {
    let mut s = Query::insert();
    s.into_table(Alias::new(e.table.as_str()));
    let all = assignments(e, vals, b);
    s.columns(all.iter().map(|(c, _)| c.clone()));
    s.values(all.into_iter().map(|(_, v)| v))
        .map_err(Error::internal)?;
    Ok(s)
}

pub async fn insert(exec: &mut Exec<'_>, e: &Entity, vals: &[(usize, Val)]) -> Result<Record> {
    let s = insert_statement(e, vals, exec.backend())?;
    inserted(exec, e, s)
        .await?
        .ok_or_else(|| Error::internal("insert returned no row"))
}

/// Runs insert `s`, returning the row it wrote (none when its `ON CONFLICT` skipped it), recorded
/// in `exec` and told to its tap.
async fn inserted(
    exec: &mut Exec<'_>,
    e: &Entity,
    mut s: sea_query::InsertStatement,
) -> Result<Option<Record>> {
    s.returning(returning(e));
    let Some(row) = fetch_carrying(exec, e, s).await?.into_iter().next() else {
        return Ok(None);
    };
    exec.inserted(e, visible(e, &row));
    crate::tap::tell(exec, e, crate::tap::Change::Created(&row)).await?;
    Ok(Some(row))
}

/// Whether visitors may read `row` of `e` (the entity's visibility rule, when it has one: a
/// hidden file or a draft is not theirs to read).
fn visible(e: &Entity, row: &Record) -> bool {
    match e.visible_when() {
        Some((field, Val::Bool(b))) => row.bool(field) == Some(b),
        Some((field, Val::Text(t))) => row.text(field) == Some(t.as_str()),
        _ => true,
    }
}

/// Inserts the row `vals` unless its unique field `key` holds the same value in another row
/// (`INSERT … ON CONFLICT (key) DO NOTHING`): `None` then, and nothing written. A generated slug
/// is tried this way, one statement where a check and an insert were two.
pub async fn insert_unless_taken(
    exec: &mut Exec<'_>,
    e: &Entity,
    vals: &[(usize, Val)],
    key: usize,
) -> Result<Option<Record>> {
    let mut s = insert_statement(e, vals, exec.backend())?;
    s.on_conflict(
        OnConflict::column(Alias::new(e.fields[key].column.as_str()))
            .do_nothing()
            .to_owned(),
    );
    inserted(exec, e, s).await
}

/// Inserts the row `vals`, or — when its unique field `key` is taken — adds the new row's
/// `counter` to the existing row's (`INSERT … ON CONFLICT (key) DO UPDATE SET counter = counter +
/// excluded.counter`): a counter bumped in one statement, whoever else bumps it. Returns the
/// rows written (1).
pub async fn add_to(
    exec: &mut Exec<'_>,
    e: &Entity,
    vals: &[(usize, Val)],
    key: usize,
    counter: usize,
) -> Result<u64> {
    let mut s = insert_statement(e, vals, exec.backend())?;
    let c = e.fields[counter].column.as_str();
    s.on_conflict(
        OnConflict::column(Alias::new(e.fields[key].column.as_str()))
            .value(
                Alias::new(c),
                Expr::col((Alias::new(e.table.as_str()), Alias::new(c)))
                    .add(Expr::col((Alias::new("excluded"), Alias::new(c)))),
            )
            .to_owned(),
    );
    execute(exec, e, &s).await
}

pub async fn update(
    exec: &mut Exec<'_>,
    e: &Entity,
    id: Uuid,
    vals: &[(usize, Val)],
) -> Result<Option<Record>> {
    update_if(exec, e, id, vals, &[]).await
}

pub async fn delete(exec: &mut Exec<'_>, e: &Entity, id: Uuid) -> Result<Option<Record>> {
    let b = exec.backend();
    let mut s = Query::delete();
    s.from_table(Alias::new(e.table.as_str()));
    s.and_where(col("id").eq(id_value(id, b)));
    s.returning(returning(e));
    let row = fetch_one(exec, e, &s).await?;
    deleted(exec, e, row).await
}

/// Deletes row `id` if every field in `expect` still holds its value; `None` when it does not
/// (or the row is gone).
pub async fn delete_if(
    exec: &mut Exec<'_>,
    e: &Entity,
    id: Uuid,
    expect: &[(usize, Val)],
) -> Result<Option<Record>> {
    let b = exec.backend();
    let mut s = Query::delete();
    s.from_table(Alias::new(e.table.as_str()));
    s.and_where(col("id").eq(id_value(id, b)));
    s.cond_where(equal_to(e, expect, b));
    s.returning(returning(e));
    let row = fetch_one(exec, e, &s).await?;
    deleted(exec, e, row).await
}

/// Text columns of one row, secrets included: for trusted module code only (never a response).
pub async fn read_text(
    exec: &mut Exec<'_>,
    e: &Entity,
    id: Uuid,
    fields: &[&str],
) -> Result<Option<Vec<Option<String>>>> {
    let b = exec.backend();
    let mut s = Query::select();
    s.from(Alias::new(e.table.as_str()));
    for name in fields {
        let f = e
            .field(name)
            .ok_or_else(|| Error::internal(format!("{} has no field {name}", e.key())))?;
        s.column(Alias::new(f.column.as_str()));
    }
    s.and_where(col("id").eq(id_value(id, b)));
    let (sql, values) = build(&s, b);
    exec.settle().await?;
    match &mut exec.link {
        Link::Sqlite(c) => Ok(sqlite_rows(c, e, &sql, &values, 1, |r| {
            (0..fields.len())
                .map(|i| {
                    r.get::<_, Option<String>>(i)
                        .map_err(|x| sqlite_error(e, x))
                })
                .collect()
        })?
        .pop()),
        Link::Postgres(c) => {
            let row = sqlx::query_with(sqlx::AssertSqlSafe(sql), values)
                .fetch_optional(&mut **c)
                .await
                .map_err(|x| db_error(e, x))?;
            row.map(|r| {
                (0..fields.len())
                    .map(|i| r.try_get::<Option<String>, _>(i).map_err(Error::internal))
                    .collect()
            })
            .transpose()
        }
    }
}

/// Every row whose fields equal the given values (at most `limit`), in id order. Trusted code may
/// match on secret columns; the rows returned never carry them.
pub async fn find_all_eq(
    exec: &mut Exec<'_>,
    e: &Entity,
    vals: &[(usize, Val)],
    limit: u64,
) -> Result<Vec<Record>> {
    let mut s = base_select(e);
    s.cond_where(equal_to(e, vals, exec.backend()));
    s.order_by(Alias::new("id"), SqOrder::Asc).limit(limit);
    fetch_all(exec, e, &s).await
}

/// Sets any fields (secrets included) of one row, but only while every `expect` field still holds
/// its value (`Val::Null` means IS NULL): a compare-and-set for state changes that must happen
/// once. `None` when the row is missing or no longer matches.
pub async fn update_if(
    exec: &mut Exec<'_>,
    e: &Entity,
    id: Uuid,
    vals: &[(usize, Val)],
    expect: &[(usize, Val)],
) -> Result<Option<Record>> {
    let b = exec.backend();
    let mut s = Query::update();
    s.table(Alias::new(e.table.as_str()));
    s.values(assignments(e, vals, b));
    s.and_where(col("id").eq(id_value(id, b)));
    s.cond_where(equal_to(e, expect, b));
    s.returning(returning(e));
    let row = fetch_carrying(exec, e, s).await?.into_iter().next();
    let row = written(exec, e, false, row)?;
    if let Some(row) = &row {
        let change = crate::tap::Change::Updated {
            row,
            set: vals,
            expected: expect,
        };
        crate::tap::tell(exec, e, change).await?;
    }
    Ok(row)
}

/// [`update_if`] with fields named: sets `set` on row `id` if every field in `expect` still holds
/// its value (compare-and-set); `None` when it does not (or the row is gone).
pub async fn set_if(
    exec: &mut Exec<'_>,
    e: &Entity,
    id: Uuid,
    set: &[(&str, Val)],
    expect: &[(&str, Val)],
) -> Result<Option<Record>> {
    let named = |v: &[(&str, Val)]| -> Result<Vec<(usize, Val)>> {
        v.iter()
            .map(|(n, x)| {
                e.field_index(n)
                    .map(|i| (i, x.clone()))
                    .ok_or_else(|| Error::internal(format!("{} has no field {n}", e.key())))
            })
            .collect()
    };
    update_if(exec, e, id, &named(set)?, &named(expect)?).await
}

/// Runs a statement that returns no rows; answers how many rows it changed.
pub(crate) async fn execute<S: SqlxBinder>(
    exec: &mut Exec<'_>,
    e: &Entity,
    stmt: &S,
) -> Result<u64> {
    exec.settle().await?;
    let (sql, values) = build(stmt, exec.backend());
    let n = match &mut exec.link {
        Link::Sqlite(c) => {
            let params = crate::sqlite_read::params(&values)?;
            c.prepare_cached(&sql)
                .and_then(|mut s| s.execute(rusqlite::params_from_iter(params.iter())))
                .map(|n| n as u64)
                .map_err(|x| sqlite_error(e, x))
        }
        Link::Postgres(c) => sqlx::query_with(sqlx::AssertSqlSafe(sql), values)
            .execute(&mut **c)
            .await
            .map(|r| r.rows_affected())
            .map_err(|x| db_error(e, x)),
    }?;
    if n > 0 {
        exec.wrote(e, false);
    }
    Ok(n)
}

/// `row`, recording in `exec` that `e` was written (`deleted`: a row removed) when there is one.
fn written(
    exec: &mut Exec<'_>,
    e: &Entity,
    deleted: bool,
    row: Option<Record>,
) -> Result<Option<Record>> {
    if row.is_some() {
        exec.wrote(e, deleted);
    }
    Ok(row)
}

/// A row deleted (or none), recorded in `exec` and told to its tap.
async fn deleted(exec: &mut Exec<'_>, e: &Entity, row: Option<Record>) -> Result<Option<Record>> {
    let row = written(exec, e, true, row)?;
    if let Some(row) = &row {
        crate::tap::tell(exec, e, crate::tap::Change::Deleted(row)).await?;
    }
    Ok(row)
}

/// Sets fields on every row matching `filter` (see [`update_if`]), except the row `except`;
/// returns how many rows changed.
pub async fn update_where(
    exec: &mut Exec<'_>,
    e: &Entity,
    vals: &[(usize, Val)],
    filter: &[(usize, Val)],
    except: Option<Uuid>,
) -> Result<u64> {
    let b = exec.backend();
    let mut s = Query::update();
    s.table(Alias::new(e.table.as_str()));
    s.values(assignments(e, vals, b));
    s.cond_where(equal_to(e, filter, b));
    if let Some(id) = except {
        s.and_where(col("id").ne(id_value(id, b)));
    }
    execute(exec, e, &s).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_paths_bind_their_key_on_both_dialects() {
        for b in [Backend::Sqlite, Backend::Postgres] {
            let mut s = Query::select();
            s.from(Alias::new("t")).column(Alias::new("a"));
            s.and_where(Expr::cust_with_values(tpl("(\"title\" ->> $1)", b), ["en"]).eq("Hi"));
            s.and_where(ilike(col("c"), "%x%".into(), b, false));
            let (sql, values) = build(&s, b);
            assert_eq!(values.0.0.len(), 3, "{sql}");
            let has_dollar: bool = sql.as_str().contains("$1");
            let pg: bool = matches!(b, Backend::Postgres);
            assert_eq!(has_dollar, pg, "{sql}");
        }
    }
}

#[cfg(test)]
mod contains_tests {
    use super::*;

    #[test]
    fn search_wildcards_are_escaped() {
        assert_eq!(contains_pattern("100%_\\"), "%100\\%\\_\\\\%");
        for b in [Backend::Sqlite, Backend::Postgres] {
            let mut s = Query::select();
            s.from(Alias::new("t")).column(Alias::new("a"));
            s.and_where(contains(col("c"), "%", b));
            let (sql, values) = build(&s, b);
            assert_eq!(
                sql.as_str().contains("ESCAPE"),
                b == Backend::Sqlite,
                "{sql}"
            );
            assert!(
                format!("{values:?}").as_str().contains("%\\\\%%"),
                "{sql} {values:?}"
            );
        }
    }
    #[test]
    fn a_search_read_from_few_matches_starts_from_them() {
        use stoa_kernel::model::{model, text};
        let e = model("blog", "article", "articles")
            .field(text("adminTitle").searchable())
            .field(text("status").list())
            .build();
        let q = FindQuery::all()
            .eq(&e, "status", Val::Text("published".into()))
            .unwrap();
        let q = FindQuery {
            search: Some("alpha".into()),
            ..q
        };
        let sql = |plan, b| build(&find_statement_with(&e, &q, b, plan), b).0;
        // Few matches (SQLite): the filter's column is written so that no index serves it.
        assert!(
            sql(SearchPlan::Set, Backend::Sqlite)
                .as_str()
                .contains("+\"status\"")
        );
        // Many matches walk the list's order, where the filter's index helps; PostgreSQL plans alone.
        assert!(
            !sql(SearchPlan::Probe, Backend::Sqlite)
                .as_str()
                .contains("+\"status\"")
        );
        assert!(
            !sql(SearchPlan::Set, Backend::Postgres)
                .as_str()
                .contains("+\"status\"")
        );
        // Without a search nothing changes.
        let plain = FindQuery {
            search: None,
            ..q.clone()
        };
        assert!(
            !build(
                &find_statement_with(&e, &plain, Backend::Sqlite, SearchPlan::Set),
                Backend::Sqlite
            )
            .0
            .as_str()
            .contains('+')
        );
    }
}

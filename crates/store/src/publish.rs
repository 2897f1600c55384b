//! Drafts and publishing. A publishable entity (see `EntityBuilder::publishable`) has a `status`
//! (draft, published, scheduled) and a `publishAt`. Every read through the store shows only
//! published rows of such entities, unless it runs inside [`with_drafts`]: the API wraps admin
//! requests, previews, jobs and seeds in it. Hiding is the default, so a read path nobody thought
//! of (a new bundle part, a sitemap) cannot show a draft to a visitor.
//!
//! A row saved as `scheduled` enqueues [`JOB`] at its `publishAt`, in the write's transaction;
//! the job publishes the row when it is still scheduled for that time (a later edit that moved
//! the time left its own job).

use std::future::Future;

use serde_json::json;
use stoa_kernel::model::{Entity, EntityKind, Kind, PUBLISH_AT, SCHEDULED, STATUS};
use stoa_kernel::query::FindQuery;
use stoa_kernel::registry::Registry;
use stoa_kernel::value::Val;
use stoa_kernel::{Error, Result};

use sea_query::{ExprTrait, SelectStatement};
use uuid::Uuid;

use crate::db::Backend;
use crate::jobs::NewJob;
use crate::record::Record;

/// The job that publishes a scheduled row: payload `{"entity": "module.name", "id": "…",
/// "at": "<publishAt>"}`.
pub const JOB: &str = "platform.publish";

tokio::task_local! {
    static DRAFTS: bool;
}

/// Runs `f` with drafts and scheduled rows visible to its reads (admins, previews, jobs, seeds).
pub async fn with_drafts<F: Future>(f: F) -> F::Output {
    DRAFTS.scope(true, f).await
}

/// Runs `f` as a visitor reads, drafts hidden, whoever asked (what shared caches are filled in).
pub async fn without_drafts<F: Future>(f: F) -> F::Output {
    DRAFTS.scope(false, f).await
}

/// Whether reads made here see unpublished rows.
pub fn drafts_visible() -> bool {
    DRAFTS.try_with(|v| *v).unwrap_or(false)
}

/// Whether reads of `e` made here must leave out unpublished rows.
pub fn hides(e: &Entity) -> bool {
    e.visible_when().is_some() && !drafts_visible()
}

/// The references of public link table `e` to publishable or hideable entities, each as
/// `(field index, SQL condition)` — the condition is true when the row referenced is one a
/// visitor may read: what a visitor's read of the links must find — a visitor must not learn,
/// through the links, which drafts a page, category or store holds (nor reach their metadata,
/// files or prices), nor which hidden files a profile keeps. Computed once per entity by the
/// store; table and column names come from the declarations, never from a request.
pub fn published_refs(registry: &Registry, e: &Entity) -> Vec<(usize, String)> {
    if e.kind != EntityKind::Relation || !registry.publicly_readable(e) {
        return Vec::new();
    }
    e.fields
        .iter()
        .enumerate()
        .filter(|(_, f)| f.kind == Kind::Reference)
        .filter_map(|(i, f)| {
            let t = registry.by_key(f.target?)?;
            let visible = visible_sql(t)?;
            let tt = crate::names::q(&t.table);
            Some((
                i,
                format!(
                    "EXISTS (SELECT 1 FROM {tt} WHERE {tt}.{} = {}.{} AND {visible})",
                    crate::names::q("id"),
                    crate::names::q(&e.table),
                    crate::names::q(&f.column),
                ),
            ))
        })
        .collect()
}

/// The condition, on `t`'s own table, that a row of `t` is readable by visitors.
fn visible_sql(t: &Entity) -> Option<String> {
    let tt = crate::names::q(&t.table);
    match t.visible_when()? {
        (col, Val::Text(v)) => Some(format!("{tt}.{} = '{v}'", crate::names::q(col))),
        (col, Val::Bool(false)) => Some(format!("NOT {tt}.{}", crate::names::q(col))),
        _ => None,
    }
}

/// `q` narrowed to visible rows (published, not hidden), and to links to visible rows (`refs`:
/// the entity's [`published_refs`] when reads here hide drafts, else none).
pub fn visible_query(
    e: &Entity,
    refs: &[(usize, String)],
    q: &FindQuery,
) -> Result<Option<FindQuery>> {
    let hidden = if hides(e) { e.visible_when() } else { None };
    if hidden.is_none() && refs.is_empty() {
        return Ok(None);
    }
    let mut q = q.clone();
    if let Some((col, v)) = hidden {
        q = q.eq(e, col, v)?;
    }
    q.published_refs = refs.to_vec();
    Ok(Some(q))
}

/// After a write of `row`: a scheduled row needs its time, and gets its job.
pub fn after_write(e: &Entity, row: &Record) -> Result<Option<NewJob>> {
    if !e.publishable || row.text(STATUS) != Some(SCHEDULED) {
        return Ok(None);
    }
    let at = row.text(PUBLISH_AT).ok_or_else(|| {
        Error::invalid_field(
            PUBLISH_AT,
            "a scheduled record needs the time to publish it",
        )
    })?;
    let when = time::OffsetDateTime::parse(at, &time::format_description::well_known::Rfc3339)
        .map_err(|_| Error::invalid_field(PUBLISH_AT, "is not a valid time"))?;
    let id = row
        .id()
        .ok_or_else(|| Error::internal("a written row has no id"))?;
    Ok(Some(
        NewJob::now(JOB, json!({"entity": e.key(), "id": id, "at": at})).at(when),
    ))
}

/// [`get_statement`](crate::repo::get_statement), narrowed to a visible row (published, not hidden) when reads of `e` hide
/// drafts here.
pub fn get_visible_statement(
    e: &Entity,
    id: Uuid,
    b: Backend,
    refs: &[(usize, String)],
) -> SelectStatement {
    let mut s = crate::repo::get_statement(e, id, b);
    if let Some((c, v)) = e.visible_when().filter(|_| hides(e)) {
        let kind = e.field(c).map_or(Kind::Text, |f| f.kind);
        s.and_where(crate::repo::col(c).eq(crate::repo::to_value(kind, &v, b)));
    }
    for r in refs {
        s.and_where(crate::repo::published_ref(r));
    }
    s
}

//! The platform's own module: the job queue and the audit log (declared like every entity, so the
//! admin lists them), publishing scheduled rows, restoring a record to a version from its history,
//! and the audit log's retention.

use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, post};
use serde_json::{Map, Value, json};
use stoa_kernel::model::{Entity, PUBLISHED, SCHEDULED, STATUS};
use stoa_kernel::query::FindQuery;
use stoa_kernel::value::Val;
use stoa_kernel::{Error, Result};
use stoa_store::{Record, Store, audit, publish};
use uuid::Uuid;

use crate::crud::{AppState, data, parse_id};
use crate::error::ApiResult;
use crate::module::{Context, JobDef, ModuleDef};
use crate::routes::{Access, RouteBook};

/// The most newer entries a restore walks back through.
const MAX_WALK: usize = 2_000;
/// The job that deletes audit entries older than the retention.
pub const JOB_RETENTION: &str = "platform.audit-retention";
/// Entries one retention run deletes at most (the next day's run takes the rest).
const RETENTION_BATCH: usize = 20_000;
/// The job that deletes finished jobs older than `STOA_JOBS_KEPT_DAYS`.
pub const JOB_PRUNE: &str = "platform.jobs-prune";
/// Finished jobs one prune transaction deletes.
const PRUNE_BATCH: u64 = 5_000;

/// The platform module: declarations, jobs, schedules and routes.
pub fn module() -> ModuleDef {
    ModuleDef::new(audit::declarations(stoa_store::jobs::module()))
        .routes(|_| Ok(routes()))
        .job(JobDef::new(publish::JOB, |ctx, payload| async move {
            publish_due(&ctx.store, &payload).await
        }))
        .job(
            JobDef::new(JOB_RETENTION, |ctx, _| async move {
                retention(&ctx).await.map_err(Into::into)
            })
            .timeout(Duration::from_secs(1800))
            .background(),
        )
        .schedule(JOB_RETENTION, Duration::from_secs(24 * 3600), json!({}))
        .job(
            JobDef::new(JOB_PRUNE, |ctx, _| async move {
                prune_jobs(&ctx).await.map(drop).map_err(Into::into)
            })
            .timeout(Duration::from_secs(600))
            .background(),
        )
        .schedule(JOB_PRUNE, Duration::from_secs(3600), json!({}))
}

/// Deletes finished jobs older than the configured days, a batch per transaction.
pub async fn prune_jobs(ctx: &Context) -> Result<u64> {
    let days = ctx.config.jobs_kept_days;
    if days == 0 {
        return Ok(0);
    }
    let cutoff = stoa_kernel::value::now() - time::Duration::days(i64::from(days));
    let mut deleted = 0;
    loop {
        let n = stoa_store::jobs::prune(&ctx.store.db, cutoff, PRUNE_BATCH).await?;
        deleted += n;
        if n < PRUNE_BATCH {
            break;
        }
    }
    if deleted > 0 {
        tracing::info!(
            event = "jobs_pruned",
            deleted,
            days,
            "finished jobs deleted"
        );
    }
    Ok(deleted)
}

/// Publishes the row a [`publish::JOB`] names, when it is still scheduled for the job's time.
pub async fn publish_due(store: &Store, payload: &Value) -> crate::module::ModuleResult<()> {
    let key = payload
        .get("entity")
        .and_then(Value::as_str)
        .ok_or_else(|| crate::module::ModuleError::payload("the job names no entity"))?;
    let id = crate::jobs::uuid_arg(payload, "id")?;
    let at = payload.get("at").and_then(Value::as_str);
    // An entity this site does not declare (a payload from another version) never will be.
    let e = store
        .entity(key)
        .map_err(|_| crate::module::ModuleError::payload(format!("no entity {key} to publish")))?;
    let published: Result<()> = publish::with_drafts(async {
        let row = match store.get(&e, id).await {
            Ok(r) => r,
            // Deleted since: nothing to publish.
            Err(Error::NotFound { .. }) => return Ok(()),
            Err(err) => return Err(err),
        };
        if row.text(STATUS) != Some(SCHEDULED) || row.text(stoa_kernel::model::PUBLISH_AT) != at {
            return Ok(());
        }
        let mut input = Map::new();
        input.insert(STATUS.into(), Value::String(PUBLISHED.into()));
        let who = audit::Who {
            actor: format!("job:{}", publish::JOB),
            ..Default::default()
        };
        audit::recording(who, store.update(&e, id, &input)).await?;
        Ok(())
    })
    .await;
    Ok(published?)
}

async fn retention(ctx: &Context) -> Result<()> {
    let days = ctx.config.audit_retention_days;
    if days == 0 {
        return Ok(());
    }
    let e = ctx.store.entity(audit::KEY)?;
    let cutoff = stoa_kernel::value::now() - time::Duration::days(i64::from(days));
    let q = FindQuery::all().filter(
        &e,
        "createdAt",
        stoa_kernel::query::Op::Lt,
        stoa_kernel::query::FilterValue::One(Val::Timestamp(cutoff)),
    )?;
    let old = ctx.store.find_in_query(&e, q, RETENTION_BATCH).await?;
    for r in &old {
        ctx.store.delete(&e, r.must_id()?).await?;
    }
    if !old.is_empty() {
        tracing::info!(
            event = "audit_retention",
            deleted = old.len(),
            days,
            "old audit entries deleted"
        );
    }
    Ok(())
}

fn routes() -> RouteBook<AppState> {
    let result = json!({"type": "object", "additionalProperties": true, "description": "The record as it is after the restore."});
    RouteBook::new()
        .add(
            Access::Admin,
            "GET",
            "/api/platform/scheduled",
            get(|State(s): State<AppState>| async move {
                let v = publish::with_drafts(scheduled(&s.store)).await?;
                ApiResult::Ok(data(StatusCode::OK, v))
            }),
            crate::openapi::custom(
                "platform",
                "scheduledPublications",
                "How many records wait for their publication time, per publishable entity (one count each, for the admin's start page)",
                Vec::new(),
                None,
                200,
                json!({"title": "ScheduledPublications", "type": "object", "properties": {
                    "total": {"type": "integer", "description": "Records scheduled in all"},
                    "exact": {"type": "boolean", "description": "False when a count stopped at its cap"},
                    "entities": {"type": "array", "description": "The entities with scheduled records, most first", "items": {"type": "object", "properties": {
                        "entity": {"type": "string", "description": "module.name"},
                        "count": {"type": "integer"}
                    }, "required": ["entity", "count"]}}
                }, "required": ["total", "exact", "entities"]}),
                &[],
            ),
        )
        .add(
        Access::Admin,
        "POST",
        "/api/platform/audits/{id}/restore",
        post(|State(s): State<AppState>, Path(id): Path<String>| restore_route(s, id)),
        crate::openapi::custom(
            "platform",
            "restoreAuditVersion",
            "Restore a record to its state right after this audit entry (recorded as a restore)",
            crate::openapi::path_params(&["id"]),
            None,
            200,
            result,
            &[404, 409],
        ),
    )
}

/// How many records of each publishable entity are scheduled: one count per entity (capped as the
/// store caps a narrowed count), the entities with none left out.
pub async fn scheduled(store: &Store) -> Result<Value> {
    let mut entities = Vec::new();
    let (mut total, mut exact) = (0u64, true);
    for e in store.registry.entities().iter().filter(|e| e.publishable) {
        let mut q = FindQuery::all().eq(e, STATUS, Val::Text(SCHEDULED.into()))?;
        q.limit = 0;
        q.count = true;
        let Some(t) = store.find(e, &q).await?.total else {
            continue;
        };
        exact &= t.exact;
        if t.n > 0 {
            total += t.n;
            entities.push((e.key(), t.n));
        }
    }
    entities.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let entities: Vec<Value> = entities
        .into_iter()
        .map(|(entity, count)| json!({"entity": entity, "count": count}))
        .collect();
    Ok(json!({"total": total, "exact": exact, "entities": entities}))
}

async fn restore_route(s: AppState, id: String) -> ApiResult<Response> {
    let row = restore(&s.store, parse_id(&id)?).await?;
    Ok(data(StatusCode::OK, row))
}

/// Restores the record of audit entry `entry` to its state right after that entry.
pub async fn restore(store: &Store, entry: Uuid) -> Result<Record> {
    let log = store.entity(audit::KEY)?;
    let k = store.get(&log, entry).await?;
    let key = k
        .text("entity")
        .ok_or_else(|| Error::internal("an audit entry names no entity"))?;
    let e = store
        .registry
        .by_key(key)
        .cloned()
        .ok_or_else(|| Error::Conflict {
            message: format!("{key} is no longer declared; its records cannot be restored"),
            fields: Default::default(),
        })?;
    // Accounts, roles and permissions change through their own routes, where the guard rails
    // (no site without an admin, nobody removing their own rights) check every write.
    if e.module == "rbac" || e.module == "platform" || !e.ops.update {
        return Err(Error::Conflict {
            message: format!(
                "{key} records are not restored from the log; edit them where the guard rails check the change"
            ),
            fields: Default::default(),
        });
    }
    let record = k.uuid("recordId").ok_or_else(|| Error::Conflict {
        message: "this entry is not about one record".into(),
        fields: Default::default(),
    })?;
    if k.text("action") == Some("delete") {
        return Err(Error::Conflict {
            message: "this entry deleted the record; restore an entry from before it".into(),
            fields: Default::default(),
        });
    }
    let current = publish::with_drafts(store.get(&e, record))
        .await
        .map_err(|err| match err {
            Error::NotFound { .. } => Error::Conflict {
                message: format!("{key} {record} was deleted; it cannot be restored from here"),
                fields: Default::default(),
            },
            other => other,
        })?;
    let newer = newer_entries(store, &log, key, record, &k).await?;
    let target = state_after(&e, &current, &newer);
    let patch = patch_to(&e, &current, &target);
    if patch.is_empty() {
        return Ok(current);
    }
    let mut who = audit::current().unwrap_or_default();
    who.action = Some("restore");
    who.restored_from = Some(entry);
    let actor = who.actor.clone();
    publish::with_drafts(audit::recording(
        who,
        stoa_store::guard::acting(actor, store.update(&e, record, &patch)),
    ))
    .await
}

/// The entries of `record` made after `k`, newest first.
async fn newer_entries(
    store: &Store,
    log: &Entity,
    key: &str,
    record: Uuid,
    k: &Record,
) -> Result<Vec<Record>> {
    let q = FindQuery::all()
        .eq(log, "entity", Val::Text(key.into()))?
        .eq(log, "recordId", Val::Uuid(record))?
        .sort(log, "createdAt", true)?
        .sort(log, "id", true)?;
    let all = store.find_in_query(log, q, MAX_WALK + 1).await?;
    let kid = k.must_id()?;
    let Some(pos) = all.iter().position(|r| r.id() == Some(kid)) else {
        return Err(Error::Conflict {
            message: format!(
                "this entry is more than {MAX_WALK} changes ago; restore a newer version"
            ),
            fields: Default::default(),
        });
    };
    Ok(all.into_iter().take(pos).collect())
}

/// The record's fields right after the entry older than every one of `newer` (newest first).
fn state_after(e: &Entity, current: &Record, newer: &[Record]) -> Map<String, Value> {
    let mut state = match current.to_json() {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    for entry in newer {
        let Some(Value::Object(changes)) = entry.json("changes") else {
            continue;
        };
        for (field, change) in changes {
            if e.field(&field).is_none_or(|f| f.secret || f.server_owned) {
                continue;
            }
            if let Some(before) = change.get("before") {
                state.insert(field, before.clone());
            }
        }
    }
    state
}

/// The fields of `target` that differ from `current`, as a PATCH body.
fn patch_to(e: &Entity, current: &Record, target: &Map<String, Value>) -> Map<String, Value> {
    let now = match current.to_json() {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    let mut patch = Map::new();
    for f in &e.fields {
        if f.secret || f.server_owned {
            continue;
        }
        if let Some(v) = target.get(f.name)
            && now.get(f.name) != Some(v)
        {
            patch.insert(f.name.to_owned(), v.clone());
        }
    }
    patch
}

//! The audit log: `platform.audit`, one row per recorded write — who (actor and subject), when
//! (`createdAt`), from where (IP, user agent, request id), what (entity, record, action) and the
//! changed fields before and after. Secret fields are recorded as changed, never with a value.
//!
//! Writes are recorded by the store itself, in the write's own transaction (a rolled-back change
//! leaves no entry, a committed one always has one), whenever they run inside [`recording`]: the
//! API wraps admin requests and account-security requests in it. Modules record events that are
//! not row writes (a sign-in factor changed, a session revoked) with [`event_in`].
//!
//! A record's history is its entries, newest first; the state right after entry *k* is the
//! current row with the `before` values of every newer entry applied, newest first — so a
//! version can be restored from diffs alone (see `stoa_api::platform`).

use std::future::Future;

use serde_json::{Map, Value};
use stoa_kernel::model::{Entity, Module, enumeration, json, model, text, uuid};
use stoa_kernel::value::prepare_create;
use stoa_kernel::{Error, Result};

use crate::db::Exec;
use crate::record::Record;

pub const KEY: &str = "platform.audit";

/// Who is writing, and from where.
#[derive(Clone, Debug, Default)]
pub struct Who {
    /// `subject:<id>`, `secret-key`, `system`, `job:<name>`.
    pub actor: String,
    pub subject: Option<uuid::Uuid>,
    /// How people know the actor (an email), for the log's readers.
    pub name: Option<String>,
    pub ip: Option<String>,
    pub user_agent: Option<String>,
    pub request_id: Option<String>,
    /// Recorded as this action instead of the write's own (`restore`).
    pub action: Option<&'static str>,
    /// The entry a restore went back to.
    pub restored_from: Option<uuid::Uuid>,
}

tokio::task_local! {
    static WHO: Option<Who>;
}

/// Runs `f` with its writes recorded as made by `who`.
pub async fn recording<F: Future>(who: Who, f: F) -> F::Output {
    WHO.scope(Some(who), f).await
}

/// Runs `f` with its writes not recorded, inside a recorded request too: the platform's own work
/// that a request only happens to trigger (an order moving with a payment an admin's status check
/// applied is not the admin's write), as it is not recorded when a job does it.
pub async fn unrecorded<F: Future>(f: F) -> F::Output {
    WHO.scope(None, f).await
}

/// Who writes here, when writes here are recorded.
pub fn current() -> Option<Who> {
    WHO.try_with(Clone::clone).ok().flatten()
}

/// The declarations of `platform.audit`.
pub fn entity() -> Entity {
    model("platform", "audit", "audits")
        .field(
            enumeration(
                "action",
                &["create", "update", "delete", "restore", "event"],
            )
            .required()
            .list(),
        )
        .field(text("entity").required().max_len(200).list())
        .field(uuid("recordId").list())
        .field(text("actor").required().max_len(200).list())
        .field(uuid("subjectId").list())
        .field(text("actorName").max_len(320).list())
        .field(text("ip").max_len(100).list())
        .field(text("userAgent").max_len(500))
        .field(text("requestId").max_len(100))
        .field(json("changes").required().default_json("{}"))
        // Secret fields the write changed, by name only (never a value).
        .field(json("redacted").required().default_json("[]"))
        .field(text("summary").max_len(500).list())
        // A restore: the entry it went back to.
        .field(uuid("restoredFrom"))
        .title("summary")
        .private()
        .read_only()
        .build()
}

/// The platform's own declarations with the audit log.
pub fn declarations(mut m: Module) -> Module {
    m.entities.push(entity());
    m
}

static AUDIT: std::sync::LazyLock<Entity> = std::sync::LazyLock::new(entity);

/// Entities never recorded: the log itself and the job queue.
/// Whether a write of `e` now goes into the audit trail (an actor is set, and `e` is recorded).
pub(crate) fn heard(e: &Entity) -> bool {
    current().is_some() && recorded(e)
}

fn recorded(e: &Entity) -> bool {
    e.module != "platform"
}

/// What changed between `before` and `after` (either may be absent): the fields whose values
/// differ, as `{field: {"before": …, "after": …}}`, and the secret fields `input` wrote, by name.
pub fn diff(
    e: &Entity,
    before: Option<&Record>,
    after: Option<&Record>,
    input: Option<&Map<String, Value>>,
) -> (Map<String, Value>, Vec<Value>) {
    let b = before.map(Record::to_json).unwrap_or(Value::Null);
    let a = after.map(Record::to_json).unwrap_or(Value::Null);
    let mut out = Map::new();
    let mut secrets = Vec::new();
    for f in &e.fields {
        if f.server_owned {
            continue;
        }
        if f.secret {
            if input.is_some_and(|i| i.get(f.name).is_some_and(|v| !v.is_null())) {
                secrets.push(Value::String(f.name.to_owned()));
            }
            continue;
        }
        let old = b.get(f.name).cloned().unwrap_or(Value::Null);
        let new = a.get(f.name).cloned().unwrap_or(Value::Null);
        if old != new {
            let mut m = Map::new();
            m.insert("before".into(), old);
            m.insert("after".into(), new);
            out.insert(f.name.to_owned(), Value::Object(m));
        }
    }
    (out, secrets)
}

/// Records a write of `e` when writes here are recorded: `before` absent for a create, `after`
/// absent for a delete. An update that changed nothing is not recorded.
pub async fn write_in(
    exec: &mut Exec<'_>,
    e: &Entity,
    before: Option<&Record>,
    after: Option<&Record>,
    input: Option<&Map<String, Value>>,
) -> Result<()> {
    let Some(who) = current() else {
        return Ok(());
    };
    if !recorded(e) {
        return Ok(());
    }
    let (changes, secrets) = diff(e, before, after, input);
    let action = match (before, after) {
        (None, _) => "create",
        (Some(_), None) => "delete",
        (Some(_), Some(_)) if changes.is_empty() && secrets.is_empty() => return Ok(()),
        _ => "update",
    };
    let id = after.or(before).and_then(Record::id);
    let summary = title_of(e, after.or(before));
    insert(
        exec,
        &who,
        who.action.unwrap_or(action),
        &e.key(),
        id,
        (changes, secrets),
        summary,
    )
    .await
}

/// Records an event that is not a row write: `summary` says what happened, `changes` what it
/// changed (`{field: {before, after}}`), `secrets` the secret fields it wrote, by name.
pub async fn event_in(
    exec: &mut Exec<'_>,
    who: &Who,
    entity: &str,
    id: Option<uuid::Uuid>,
    summary: &str,
    changes: Map<String, Value>,
    secrets: &[&str],
) -> Result<()> {
    let secrets = secrets
        .iter()
        .map(|s| Value::String((*s).to_owned()))
        .collect();
    insert(
        exec,
        who,
        "event",
        entity,
        id,
        (changes, secrets),
        Some(summary.to_owned()),
    )
    .await
}

/// What names `row` in the log: its `title` (a translation map gives its first filled
/// language), else its title field.
fn title_of(e: &Entity, row: Option<&Record>) -> Option<String> {
    let row = row?;
    let read = |name: &str| -> Option<String> {
        let v = row
            .json(name)
            .or_else(|| row.text(name).map(|t| Value::String(t.into())))?;
        match v {
            Value::String(s) if !s.trim().is_empty() => Some(s),
            Value::Object(m) => m
                .values()
                .filter_map(Value::as_str)
                .find(|s| !s.trim().is_empty())
                .map(str::to_owned),
            _ => None,
        }
    };
    let s = e
        .field("title")
        .and_then(|f| read(f.name))
        .or_else(|| e.title_field.and_then(read))?;
    Some(s.chars().take(200).collect())
}

async fn insert(
    exec: &mut Exec<'_>,
    who: &Who,
    action: &str,
    entity: &str,
    id: Option<uuid::Uuid>,
    (changes, secrets): (Map<String, Value>, Vec<Value>),
    summary: Option<String>,
) -> Result<()> {
    let mut m = Map::new();
    let mut put = |k: &str, v: Option<String>| {
        if let Some(v) = v {
            m.insert(k.to_owned(), Value::String(v));
        }
    };
    put("action", Some(action.to_owned()));
    put("entity", Some(entity.to_owned()));
    put("recordId", id.map(|i| i.to_string()));
    put("actor", Some(cut(&who.actor, 200)));
    put("subjectId", who.subject.map(|s| s.to_string()));
    put("ip", who.ip.as_deref().map(|s| cut(s, 100)));
    put("userAgent", who.user_agent.as_deref().map(|s| cut(s, 500)));
    put("requestId", who.request_id.as_deref().map(|s| cut(s, 100)));
    put("actorName", who.name.as_deref().map(|s| cut(s, 320)));
    put("summary", summary.map(|s| cut(&s, 500)));
    put("restoredFrom", who.restored_from.map(|i| i.to_string()));
    m.insert("changes".into(), Value::Object(changes));
    m.insert("redacted".into(), Value::Array(secrets));
    let vals = prepare_create(&AUDIT, &m)?;
    crate::repo::insert(exec, &AUDIT, &vals)
        .await
        .map_err(|e| Error::internal(format!("the audit entry could not be written: {e}")))?;
    Ok(())
}

fn cut(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_is_private_and_read_only() {
        let e = entity();
        assert!(e.private);
        assert!(!e.ops.create && !e.ops.update && !e.ops.delete && !e.ops.bulk);
        assert!(!recorded(&e));
    }
}

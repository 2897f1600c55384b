//! The store's write tap: which events a write is, which active endpoints subscribed to them, and
//! — in the writing transaction — one event row, one delivery per endpoint and one sending job
//! per endpoint (an endpoint that is off gets its deliveries too: they wait until it is on
//! again). What endpoints subscribe to is kept in memory and read again whenever the
//! endpoints change (the store's change counter, moved by other instances too).

use std::sync::{Arc, RwLock};

use serde_json::{Map, Value, json};
use stoa_kernel::Result;
use stoa_kernel::model::Entity;
use stoa_kernel::value::{Val, now};
use stoa_store::db::Exec;
use stoa_store::jobs::{NewJob, enqueue};
use stoa_store::tap::{BoxFuture, Change, WriteTap};
use stoa_store::{Record, Store, repo};
use uuid::Uuid;

use crate::rows::EndpointRow;
use crate::service::PUMP_JOB;

/// What the active endpoints subscribe to, as of a change counter.
#[derive(Default)]
struct Subscriptions {
    version: u64,
    loaded: bool,
    endpoints: Vec<(Uuid, Vec<String>)>,
}

/// The tap: provided as a service too, so the routes can list the event names.
pub struct Tap {
    store: Store,
    t: crate::Tables,
    subs: RwLock<Arc<Subscriptions>>,
}

/// The patterns of an endpoint's `events`: names split on spaces and commas.
pub fn patterns(events: &str) -> Vec<String> {
    events
        .split([' ', ',', '\n', '\t'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Entities written on a visitor's every step (a session's renewal, an analytics hit): their
/// events are sent only to endpoints that name them whole, never through a `*`, so a wildcard
/// subscription cannot turn page views into webhook traffic.
const NAMED_ONLY: &[&str] = &["rbac.session.", "analytic."];

/// Does `pattern` match the event `name`? `*` matches everything; `ecommerce.*` and
/// `ecommerce.order.*` a prefix; anything else the whole name (see [`NAMED_ONLY`]).
pub fn matches(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix) && !NAMED_ONLY.iter().any(|n| name.starts_with(n)),
        None => pattern == name,
    }
}

/// Could `pattern` match any event of `e` (`module.entity.…`)?
fn may_match(pattern: &str, key: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => {
            let whole = format!("{key}.");
            (whole.starts_with(prefix) || prefix.starts_with(&whole))
                && !NAMED_ONLY.iter().any(|n| whole.starts_with(n))
        }
        None => {
            pattern.len() > key.len()
                && pattern.starts_with(key)
                && pattern.as_bytes()[key.len()] == b'.'
        }
    }
}

/// The module tap's own entities and the queue are never heard.
fn heard_at_all(e: &Entity) -> bool {
    e.module != crate::M && e.module != "platform"
}

/// Every event name an endpoint may subscribe to, sorted: every heard entity's, then the ones
/// modules name themselves.
pub fn names(registry: &stoa_kernel::registry::Registry) -> Vec<String> {
    let mut out: Vec<String> = registry
        .entities()
        .iter()
        .filter(|e| heard_at_all(e))
        .flat_map(|e| names_of(e))
        .chain(crate::service::NAMED.iter().map(|n| (*n).to_owned()))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Every event name a write of `e` can be.
pub fn names_of(e: &Entity) -> Vec<String> {
    let key = e.key();
    let mut out: Vec<String> = ["created", "updated", "deleted"]
        .iter()
        .map(|a| format!("{key}.{a}"))
        .collect();
    out.extend(e.signals.iter().map(|s| format!("{key}.{}", s.name)));
    out
}

/// The events `change` of `e` is, by name, with what the field held before where a named move
/// says.
fn events_of(e: &Entity, change: &Change<'_>) -> Vec<(String, Map<String, Value>)> {
    let key = e.key();
    let mut out = Vec::new();
    match change {
        Change::Created(_) => {
            out.push((format!("{key}.created"), Map::new()));
            for s in e.signals.iter().filter(|s| s.field.is_none()) {
                out.push((format!("{key}.{}", s.name), Map::new()));
            }
        }
        Change::Updated { row, set, expected } => {
            let mut previous = Map::new();
            for (i, v) in expected.iter() {
                if set.iter().any(|(j, _)| j == i)
                    && let Some(f) = e.fields.get(*i)
                    && !f.secret
                {
                    previous.insert(f.name.to_owned(), val_json(v));
                }
            }
            out.push((format!("{key}.updated"), previous.clone()));
            for s in &e.signals {
                let Some(field) = s.field else { continue };
                let Some(i) = e.field_index(field) else {
                    continue;
                };
                if !set.iter().any(|(j, _)| *j == i) {
                    continue;
                }
                let before = expected.iter().find(|(j, _)| *j == i).map(|(_, v)| v);
                let before = match before {
                    Some(Val::Text(t)) => Some(t.as_str()),
                    _ => None,
                };
                if s.moves(before, row.text(field)) {
                    out.push((format!("{key}.{}", s.name), previous.clone()));
                }
            }
        }
        Change::Deleted(_) => out.push((format!("{key}.deleted"), Map::new())),
        Change::Named { name, .. } => out.push(((*name).to_owned(), Map::new())),
    }
    out
}

/// A value a write expected, as the event's `previous` carries it (as the API writes it).
fn val_json(v: &Val) -> Value {
    match v {
        Val::Null => Value::Null,
        Val::Text(t) => Value::String(t.clone()),
        Val::Int(i) => json!(i),
        Val::Bool(b) => json!(b),
        Val::Decimal(d) => json!(d.to_string()),
        Val::Timestamp(t) => json!(stoa_kernel::value::format_timestamp(*t)),
        Val::Uuid(u) => json!(u.to_string()),
        Val::Json(j) => j.clone(),
    }
}

impl Tap {
    pub fn new(store: Store) -> stoa_api::module::ModuleResult<Self> {
        Ok(Self {
            t: crate::Tables::of(&store)?,
            store,
            subs: RwLock::new(Arc::default()),
        })
    }

    fn current(&self) -> Arc<Subscriptions> {
        self.subs.read().map(|s| s.clone()).unwrap_or_default()
    }

    fn stale(&self, subs: &Subscriptions) -> bool {
        !subs.loaded || subs.version != self.store.version("webhook.endpoint")
    }

    /// What the active endpoints subscribe to, read again on `exec` when they changed.
    async fn subscriptions(&self, exec: &mut Exec<'_>) -> Result<Arc<Subscriptions>> {
        let subs = self.current();
        if !self.stale(&subs) {
            return Ok(subs);
        }
        let version = self.store.version("webhook.endpoint");
        // Endpoints that are off too: their events wait for them (see the sweep for how long).
        let rows = repo::find_all_eq(exec, &self.t.endpoint, &[], 10_000).await?;
        let fresh = Arc::new(Subscriptions {
            version,
            loaded: true,
            endpoints: rows
                .iter()
                .filter_map(|r| EndpointRow::of(r).ok())
                .map(|e| (e.id, patterns(e.events.as_deref().unwrap_or_default())))
                .collect(),
        });
        if let Ok(mut s) = self.subs.write() {
            *s = fresh.clone();
        }
        Ok(fresh)
    }

    async fn record(&self, exec: &mut Exec<'_>, e: &Entity, change: Change<'_>) -> Result<()> {
        let subs = self.subscriptions(exec).await?;
        if subs.endpoints.is_empty() {
            return Ok(());
        }
        let row = change.row();
        let mut woken: Vec<Uuid> = Vec::new();
        for (name, previous) in events_of(e, &change) {
            let to: Vec<Uuid> = subs
                .endpoints
                .iter()
                .filter(|(_, p)| p.iter().any(|p| matches(p, &name)))
                .map(|(id, _)| *id)
                .collect();
            if to.is_empty() {
                continue;
            }
            let event = self.write_event(exec, e, &name, row, previous).await?;
            for endpoint in to {
                write_delivery(
                    exec,
                    &self.t.delivery,
                    (endpoint, event),
                    &name,
                    Written::Pending(false),
                )
                .await?;
                if !woken.contains(&endpoint) {
                    woken.push(endpoint);
                }
            }
        }
        // One wake-up per endpoint and second, however many writes: a worker sends everything
        // due when it runs (and looks again after letting go), and the minute's sweep wakes an
        // endpoint a lost race left waiting.
        let second = now().unix_timestamp();
        for endpoint in woken {
            let job = NewJob::now(PUMP_JOB, json!({"endpoint": endpoint}))
                .dedupe(format!("{PUMP_JOB}:{endpoint}:{second}"));
            enqueue(exec, &job).await?;
        }
        Ok(())
    }

    /// Writes the event `name` about `row` of `e`: the body every endpoint receives.
    async fn write_event(
        &self,
        exec: &mut Exec<'_>,
        e: &Entity,
        name: &str,
        row: &Record,
        previous: Map<String, Value>,
    ) -> Result<Uuid> {
        let id = Uuid::now_v7();
        let created = now();
        let mut payload = Map::new();
        payload.insert("id".into(), json!(id));
        payload.insert("type".into(), json!(name));
        payload.insert(
            "createdAt".into(),
            json!(
                created
                    .format(&time::format_description::well_known::Rfc3339)
                    .unwrap_or_default()
            ),
        );
        payload.insert("entity".into(), json!(e.key()));
        payload.insert("data".into(), row.to_json());
        if !previous.is_empty() {
            payload.insert("previous".into(), Value::Object(previous));
        }
        let mut input = Map::new();
        input.insert("id".into(), json!(id));
        input.insert("type".into(), json!(name));
        input.insert("entity".into(), json!(e.key()));
        input.insert("recordId".into(), json!(row.id()));
        input.insert("payload".into(), Value::Object(payload));
        insert(exec, &self.t.event, &input, id).await?;
        Ok(id)
    }
}

/// How a delivery is written.
pub(crate) enum Written<'a> {
    /// Waiting to be sent, due now (`true`: an admin's replay).
    Pending(bool),
    /// Already sent (a test): its status and what came back.
    Done(&'a str, &'a crate::send::Outcome),
}

/// Writes a delivery of `(endpoint, event)`, named `name`.
pub(crate) async fn write_delivery(
    exec: &mut Exec<'_>,
    delivery: &Entity,
    (endpoint, event): (Uuid, Uuid),
    name: &str,
    how: Written<'_>,
) -> Result<Record> {
    let mut input = Map::new();
    input.insert("endpointId".into(), json!(endpoint));
    input.insert("eventId".into(), json!(event));
    input.insert("type".into(), json!(name));
    match how {
        Written::Pending(replay) => {
            input.insert("isReplay".into(), json!(replay));
        }
        Written::Done(status, o) => {
            input.insert("status".into(), json!(status));
            input.insert("attempts".into(), json!(1));
            input.insert("responseStatus".into(), json!(o.status));
            input.insert(
                "error".into(),
                json!(
                    o.error
                        .as_ref()
                        .map(|e| e.chars().take(1000).collect::<String>())
                ),
            );
            input.insert("response".into(), json!(o.response));
            input.insert("durationMs".into(), json!(o.duration_ms));
            if o.ok {
                input.insert(
                    "deliveredAt".into(),
                    json!(
                        now()
                            .format(&time::format_description::well_known::Rfc3339)
                            .unwrap_or_default()
                    ),
                );
            }
        }
    }
    insert(exec, delivery, &input, Uuid::now_v7()).await
}

/// Inserts `input` as a row of `e` with id `id` (the module's own rows: no guard, no audit).
pub(crate) async fn insert(
    exec: &mut Exec<'_>,
    e: &Entity,
    input: &Map<String, Value>,
    id: Uuid,
) -> Result<Record> {
    let mut vals = stoa_kernel::value::prepare_create(e, input)?;
    if let Some(i) = e.field_index("id") {
        vals.retain(|(j, _)| *j != i);
        vals.push((i, Val::Uuid(id)));
    }
    repo::insert(exec, e, &vals).await
}

impl WriteTap for Tap {
    fn wants(&self, e: &Entity) -> bool {
        if !heard_at_all(e) {
            return false;
        }
        let subs = self.current();
        if self.stale(&subs) {
            return true;
        }
        let key = e.key();
        subs.endpoints
            .iter()
            .any(|(_, p)| p.iter().any(|p| may_match(p, &key)))
    }

    fn heard<'a>(
        &'a self,
        exec: &'a mut Exec<'_>,
        e: &'a Entity,
        change: Change<'a>,
    ) -> BoxFuture<'a, Result<()>> {
        Box::pin(self.record(exec, e, change))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn previous_values_are_written_as_the_api_writes_them() {
        let t = time::macros::datetime!(2026-11-29 20:31:07.5 UTC);
        assert_eq!(
            val_json(&Val::Timestamp(t)),
            json!(stoa_kernel::value::format_timestamp(t))
        );
        assert_eq!(val_json(&Val::Text("paying".into())), json!("paying"));
        assert_eq!(val_json(&Val::Json(json!({"a": 1}))), json!({"a": 1}));
        assert_eq!(val_json(&Val::Null), Value::Null);
    }

    #[test]
    fn patterns_match_whole_names_and_prefixes() {
        assert!(matches("*", "ecommerce.order.paid"));
        assert!(matches("ecommerce.*", "ecommerce.order.paid"));
        assert!(matches("ecommerce.order.*", "ecommerce.order.paid"));
        assert!(matches("ecommerce.order.paid", "ecommerce.order.paid"));
        assert!(!matches("ecommerce.order.paid", "ecommerce.order.updated"));
        assert!(!matches(
            "ecommerce.order.*",
            "ecommerce.order-status-change.created"
        ));
        assert_eq!(
            patterns("ecommerce.order.paid, billing.invoice.paid\ncrm.*"),
            vec!["ecommerce.order.paid", "billing.invoice.paid", "crm.*"]
        );
    }

    #[test]
    fn an_entity_is_heard_only_when_a_pattern_can_match_its_events() {
        assert!(may_match("*", "ecommerce.order"));
        assert!(may_match("ecommerce.*", "ecommerce.order"));
        assert!(may_match("ecommerce.order.*", "ecommerce.order"));
        assert!(may_match("ecommerce.order.paid", "ecommerce.order"));
        assert!(may_match("ecommerce.ord*", "ecommerce.order"));
        assert!(!may_match(
            "ecommerce.order.paid",
            "ecommerce.order-status-change"
        ));
        assert!(!may_match(
            "ecommerce.order-status-change.*",
            "ecommerce.order"
        ));
        assert!(!may_match("billing.*", "ecommerce.order"));
        assert!(!may_match("*", "rbac.session"));
        assert!(may_match("rbac.session.updated", "rbac.session"));
    }
}

//! Write guards: a module may refuse, or add rows to, generic updates of its own entities (the
//! order status machine is one), and refuse creates and deletes that would bypass its rules. The guard runs inside the update's transaction against the row
//! as it is, and the update is written only if the guarded fields still hold the values the guard
//! saw (compare-and-set), so two concurrent edits cannot both pass a check made for one state.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, RwLock};

use serde_json::{Map, Value as Json};
use stoa_kernel::{Error, Result};

use crate::record::Record;

tokio::task_local! {
    static ACTOR: String;
}

/// Runs `f` with `actor` (`subject:<id>`, `secret-key`, `job:<name>`) as the author of the
/// writes it makes; guards record it.
pub async fn acting<F: Future>(actor: String, f: F) -> F::Output {
    ACTOR.scope(actor, f).await
}

/// Who is writing: set by [`acting`], `system` outside it.
pub fn actor() -> String {
    ACTOR
        .try_with(Clone::clone)
        .unwrap_or_else(|_| "system".to_owned())
}

/// What a guard asks to happen with the update, in its transaction: rows to create
/// (`(entity key, input)`) and jobs to enqueue.
#[derive(Default, Debug)]
pub struct Effects {
    pub rows: Vec<(String, Map<String, Json>)>,
    pub jobs: Vec<crate::jobs::NewJob>,
}

pub trait WriteGuard: Send + Sync {
    /// Text fields whose current value must still hold when the update is written.
    fn fields(&self) -> &[&'static str];
    /// The entities [`WriteGuard::check`] may create rows of (their caches are invalidated on
    /// commit).
    fn writes(&self) -> &[&'static str];
    /// `old` is the row before the change, `input` the fields sent. An error refuses the update
    /// (a 409 naming the field, usually); otherwise what to write with it.
    fn check(&self, old: &Record, input: &Map<String, Json>, actor: &str) -> Result<Effects>;
    /// A create of the entity (generic POST, bulk and the module's own): an error refuses it.
    fn check_create(&self, _input: &Map<String, Json>) -> Result<()> {
        Ok(())
    }
    /// A delete of `old` (generic DELETE and the module's own through the store): an error refuses it.
    fn check_delete(&self, _old: &Record) -> Result<()> {
        Ok(())
    }
}

/// The guards of a store, by entity key.
#[derive(Default)]
pub struct Guards(RwLock<HashMap<String, Arc<dyn WriteGuard>>>);

impl Guards {
    pub fn set(&self, entity: &str, guard: Arc<dyn WriteGuard>) {
        if let Ok(mut m) = self.0.write() {
            m.insert(entity.to_owned(), guard);
        }
    }

    pub fn get(&self, entity: &str) -> Option<Arc<dyn WriteGuard>> {
        self.0.read().ok()?.get(entity).cloned()
    }
}

/// Status rules for generic writes of an entity with a `status` field: the only moves an edit may
/// make, the statuses a create may start with, and the statuses whose rows are kept (a record of
/// money taken, say). `what` names a row in messages ("an invoice"); `hint` ends them (where the
/// other changes are made). A guard on its own, or the rules inside a richer guard.
pub struct StatusRules {
    pub what: &'static str,
    pub moves: &'static [(&'static str, &'static str)],
    pub born: &'static [&'static str],
    pub kept: &'static [&'static str],
    pub hint: &'static str,
}

impl StatusRules {
    /// The statuses an edit may move a row in `from` to.
    pub fn next(&self, from: &str) -> Vec<&'static str> {
        self.moves
            .iter()
            .filter(|(f, _)| *f == from)
            .map(|(_, t)| *t)
            .collect()
    }

    /// May an edit move a row from `from` to `to`?
    pub fn allows(&self, from: &str, to: &str) -> bool {
        self.moves.contains(&(from, to))
    }

    /// The status change `input` asks of `old`, if any and allowed: `Some((from, to))`; `None`
    /// when the status does not change; 409 naming `status` when the move is not allowed.
    pub fn check_move<'a>(
        &self,
        old: &'a Record,
        input: &'a Map<String, Json>,
    ) -> Result<Option<(&'a str, &'a str)>> {
        let from = old.text("status").unwrap_or_default();
        let Some(to) = input.get("status").and_then(Json::as_str) else {
            return Ok(None);
        };
        if to == from {
            return Ok(None);
        }
        if self.allows(from, to) {
            return Ok(Some((from, to)));
        }
        let next = self.next(from);
        Err(Error::conflict_field(
            "status",
            if next.is_empty() {
                format!(
                    "{} in '{from}' cannot be moved to '{to}' by an edit; {}",
                    self.what, self.hint
                )
            } else {
                format!(
                    "{} in '{from}' can only move to {} by an edit; {}",
                    self.what,
                    next.join(" or "),
                    self.hint
                )
            },
        ))
    }
}

impl WriteGuard for StatusRules {
    fn fields(&self) -> &[&'static str] {
        &["status"]
    }

    fn writes(&self) -> &[&'static str] {
        &[]
    }

    fn check(&self, old: &Record, input: &Map<String, Json>, _actor: &str) -> Result<Effects> {
        self.check_move(old, input)?;
        Ok(Effects::default())
    }

    fn check_create(&self, input: &Map<String, Json>) -> Result<()> {
        match input.get("status") {
            None | Some(Json::Null) => Ok(()),
            Some(Json::String(s)) if self.born.contains(&s.as_str()) => Ok(()),
            Some(_) => Err(Error::invalid_field(
                "status",
                format!(
                    "{} starts as {}; {}",
                    self.what,
                    self.born.join(" or "),
                    self.hint
                ),
            )),
        }
    }

    fn check_delete(&self, old: &Record) -> Result<()> {
        match old.text("status") {
            Some(s) if self.kept.contains(&s) => Err(Error::conflict_field(
                "status",
                format!(
                    "{} in '{s}' records money and is kept; {}",
                    self.what, self.hint
                ),
            )),
            _ => Ok(()),
        }
    }
}

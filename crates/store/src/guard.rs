//! Update guards: a module may refuse, or add rows to, generic updates of its own entities (the
//! order status machine is one), and refuse creates and deletes that would bypass its rules. The guard runs inside the update's transaction against the row
//! as it is, and the update is written only if the guarded fields still hold the values the guard
//! saw (compare-and-set), so two concurrent edits cannot both pass a check made for one state.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, RwLock};

use serde_json::{Map, Value as Json};
use stoa_kernel::Result;

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

pub trait UpdateGuard: Send + Sync {
    /// Text fields whose current value must still hold when the update is written.
    fn fields(&self) -> &[&'static str];
    /// The entities [`UpdateGuard::check`] may create rows of (their caches are invalidated on
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
pub struct Guards(RwLock<HashMap<String, Arc<dyn UpdateGuard>>>);

impl Guards {
    pub fn set(&self, entity: &str, guard: Arc<dyn UpdateGuard>) {
        if let Ok(mut m) = self.0.write() {
            m.insert(entity.to_owned(), guard);
        }
    }

    pub fn get(&self, entity: &str) -> Option<Arc<dyn UpdateGuard>> {
        self.0.read().ok()?.get(entity).cloned()
    }
}

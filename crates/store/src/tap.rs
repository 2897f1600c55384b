//! Write taps: a service above the store hears of row writes as they are made, inside the
//! writing transaction, so what it records about them (outgoing webhooks' events) commits or
//! rolls back with the write itself — never an event for a change that did not happen, never a
//! change without its event.
//!
//! The repository's row writes call the tap of the transaction they run in: an insert
//! ([`Change::Created`]), an update of one row by id, compare-and-set included
//! ([`Change::Updated`], with the fields it set and the values it expected), a delete by id
//! ([`Change::Deleted`]); and a module names an event that is not a field move with [`emit_in`]
//! (an account registered). Counters bumped in place (`repo::add_to`) and updates by filter
//! (`repo::update_where`) are bookkeeping, not heard. A transaction begun by [`crate::Store::begin`]
//! carries the store's tap; writes outside one are not heard.
//!
//! Cost when nobody listens: one call to [`WriteTap::wants`] per write (an in-memory lookup).

use std::future::Future;
use std::pin::Pin;

use stoa_kernel::Result;
use stoa_kernel::model::Entity;
use stoa_kernel::value::Val;

use crate::db::Exec;
use crate::record::Record;

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// One row write.
#[derive(Clone, Copy, Debug)]
pub enum Change<'a> {
    Created(&'a Record),
    /// The row after; the fields set (by index into the entity's fields) and the values the
    /// write expected them to hold (a compare-and-set's condition; empty when it had none).
    Updated {
        row: &'a Record,
        set: &'a [(usize, Val)],
        expected: &'a [(usize, Val)],
    },
    Deleted(&'a Record),
    /// An event a module names (`rbac.subject.registered`), about `row`.
    Named {
        name: &'a str,
        row: &'a Record,
    },
}

impl Change<'_> {
    pub fn row(&self) -> &Record {
        match self {
            Change::Created(r) | Change::Deleted(r) => r,
            Change::Updated { row, .. } | Change::Named { row, .. } => row,
        }
    }
}

pub trait WriteTap: Send + Sync {
    /// Does the tap want to hear writes of `e`? Called on every row write: keep it cheap.
    fn wants(&self, e: &Entity) -> bool;
    /// `change` of `e` was written on `exec`; what the tap writes there commits with it.
    fn heard<'a>(
        &'a self,
        exec: &'a mut Exec<'_>,
        e: &'a Entity,
        change: Change<'a>,
    ) -> BoxFuture<'a, Result<()>>;
}

/// Tells the tap of `exec`'s transaction, if it wants writes of `e`.
pub(crate) async fn tell(exec: &mut Exec<'_>, e: &Entity, change: Change<'_>) -> Result<()> {
    let Some(tap) = exec.tap() else {
        return Ok(());
    };
    if !tap.wants(e) {
        return Ok(());
    }
    tap.heard(&mut exec.reborrow(), e, change).await
}

/// Names an event about `row` of `e` in the writing transaction (`name` is the whole event
/// name, `module.entity.event`): heard like a row write.
pub async fn emit_in(exec: &mut Exec<'_>, e: &Entity, name: &str, row: &Record) -> Result<()> {
    tell(exec, e, Change::Named { name, row }).await
}

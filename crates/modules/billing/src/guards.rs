//! What generic admin edits may do to money records: give up on an invoice or an intent, never pay
//! one. `paid` and `succeeded` are set only by a verified webhook (the service writes them with
//! its own compare-and-set, not through these edits).

use serde_json::{Map, Value};
use stoa_kernel::{Error, Result};
use stoa_store::Record;
use stoa_store::guard::{Effects, UpdateGuard};

/// A status guard: `moves` are the only status changes an edit may make; `born` the statuses a
/// create may start with.
pub struct StatusGuard {
    pub what: &'static str,
    pub moves: &'static [(&'static str, &'static str)],
    pub born: &'static [&'static str],
    /// Statuses whose rows are the record of money taken: never deleted.
    pub kept: &'static [&'static str],
}

/// Invoices: a draft or open invoice may be given up (`failed`, `void`).
pub const INVOICE: StatusGuard = StatusGuard {
    what: "invoice",
    moves: &[
        ("draft", "failed"),
        ("open", "failed"),
        ("draft", "void"),
        ("open", "void"),
    ],
    born: &["draft", "open", "failed", "void"],
    kept: &["paid"],
};

/// Payment intents: one not yet paid may be canceled.
pub const INTENT: StatusGuard = StatusGuard {
    what: "payment intent",
    moves: &[
        ("requires_payment_method", "canceled"),
        ("requires_action", "canceled"),
        ("requires_confirmation", "canceled"),
        ("processing", "canceled"),
    ],
    born: &["requires_payment_method"],
    kept: &["succeeded"],
};

fn status(input: &Map<String, Value>) -> Option<&str> {
    input.get("status").and_then(Value::as_str)
}

impl UpdateGuard for StatusGuard {
    fn fields(&self) -> &[&'static str] {
        &["status"]
    }

    fn writes(&self) -> &[&'static str] {
        &[]
    }

    fn check(&self, old: &Record, input: &Map<String, Value>, _actor: &str) -> Result<Effects> {
        let from = old.text("status").unwrap_or_default();
        match status(input) {
            Some(to) if to != from && !self.moves.contains(&(from, to)) => {
                let next: Vec<&str> = self
                    .moves
                    .iter()
                    .filter(|(f, _)| *f == from)
                    .map(|(_, t)| *t)
                    .collect();
                Err(Error::conflict_field(
                    "status",
                    if next.is_empty() {
                        format!(
                            "a {} in '{from}' cannot be changed by an edit; payments set it",
                            self.what
                        )
                    } else {
                        format!(
                            "a {} in '{from}' can only be set to {} by an edit; payments set the rest",
                            self.what,
                            next.join(" or ")
                        )
                    },
                ))
            }
            _ => Ok(Effects::default()),
        }
    }

    fn check_create(&self, input: &Map<String, Value>) -> Result<()> {
        match status(input) {
            Some(s) if !self.born.contains(&s) => Err(Error::invalid_field(
                "status",
                format!(
                    "a new {} starts as {}; payments set the rest",
                    self.what,
                    self.born.join(" or ")
                ),
            )),
            _ => Ok(()),
        }
    }

    fn check_delete(&self, old: &Record) -> Result<()> {
        match old.text("status") {
            Some(s) if self.kept.contains(&s) => Err(Error::conflict_field(
                "status",
                format!("a {} in '{s}' records money taken and is kept", self.what),
            )),
            _ => Ok(()),
        }
    }
}

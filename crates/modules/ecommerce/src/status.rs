//! The order state machine, in one place. Every status change (checkout, payment, timeout, admin
//! edits through the generic PATCH and bulk update, overrides) goes through [`allowed`] and is
//! recorded as an `ecommerce.order-status-change` row: from, to, who or what, when, why.

use serde_json::{Map, Value, json};
use stoa_kernel::value::fields;
use stoa_kernel::{Error, Result};
use stoa_store::Record;
use stoa_store::guard::{Effects, UpdateGuard};
use stoa_store::jobs::NewJob;

/// Who may make a change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum By {
    /// The platform itself: checkout, the payment check, timeouts, subscription lapse.
    System,
    /// An administrator editing the order.
    Admin,
}

/// DOMAIN §5.2's status table, and nothing else.
pub fn allowed(from: &str, to: &str, by: By) -> bool {
    match by {
        By::System => matches!(
            (from, to),
            ("new", "paying")
                // Only when the provider did not start the payment (checkout gives the cart back).
                | ("paying", "new")
                | ("paying", "approving")
                | ("paying", "delivering")
                | ("paying", "canceled")
                | ("delivering", "delivered")
                | ("canceled", "delivered")
        ),
        By::Admin => matches!(
            (from, to),
            ("approving", "packaging") | ("packaging", "delivering") | ("delivering", "delivered")
        ),
    }
}

/// Where an administrator may move an order from `from` (the admin UI offers only these).
pub fn admin_next(from: &str) -> &'static [&'static str] {
    match from {
        "approving" => &["packaging"],
        "packaging" => &["delivering"],
        "delivering" => &["delivered"],
        _ => &[],
    }
}

/// Statuses after which an order is history rather than cart.
pub fn settles(to: &str) -> bool {
    matches!(
        to,
        "approving" | "delivering" | "canceled" | "packaging" | "delivered"
    )
}

/// What one status change writes with it: its history row, the job that mails the buyer and the
/// admins, and the job that re-checks the buyer's product roles. The service's transitions and
/// the guard on generic edits both use this.
pub fn effects(
    order: &str,
    from: &str,
    to: &str,
    actor: &str,
    reason: Option<&str>,
    overridden: bool,
) -> Effects {
    let actor: String = actor.chars().take(200).collect();
    let row = fields(json!({
        "orderId": order, "from": from, "to": to, "actor": actor, "reason": reason, "override": overridden,
    }));
    Effects {
        rows: vec![("ecommerce.order-status-change".into(), row)],
        jobs: vec![
            NewJob::now(
                crate::orders::JOB_NOTIFY,
                json!({"order": order, "from": from, "to": to}),
            ),
            NewJob::now(crate::orders::JOB_SUBJECT_CHECK, json!({"order": order})),
        ],
    }
}

/// Generic updates of `ecommerce.order` (admin PATCH, bulk update): a status change must be one
/// an admin may make (409 otherwise, pointing at the override action), and is recorded.
pub struct OrderGuard;

impl UpdateGuard for OrderGuard {
    fn fields(&self) -> &[&'static str] {
        &["status"]
    }

    fn writes(&self) -> &[&'static str] {
        &["ecommerce.order-status-change"]
    }

    fn check(&self, old: &Record, input: &Map<String, Value>, actor: &str) -> Result<Effects> {
        let from = old.text("status").unwrap_or("new");
        let Some(to) = input.get("status").and_then(Value::as_str) else {
            return Ok(Effects::default());
        };
        if to == from {
            return Ok(Effects::default());
        }
        if !allowed(from, to, By::Admin) {
            let next = admin_next(from);
            return Err(Error::conflict_field(
                "status",
                if next.is_empty() {
                    format!(
                        "an order in '{from}' cannot be moved to '{to}' by an edit; use the override action (with a reason) to correct it"
                    )
                } else {
                    format!(
                        "an order in '{from}' can only move to {}; use the override action (with a reason) to correct it",
                        next.join(", ")
                    )
                },
            ));
        }
        let id = old.id().map(|i| i.to_string()).unwrap_or_default();
        Ok(effects(&id, from, to, actor, None, false))
    }

    /// Orders are born in the cart: any other status is reached by the machine or the override.
    fn check_create(&self, input: &Map<String, Value>) -> Result<()> {
        match input.get("status") {
            None | Some(Value::Null) => Ok(()),
            Some(Value::String(s)) if s == "new" => Ok(()),
            Some(_) => Err(Error::invalid_field(
                "status",
                "a new order starts as 'new'; create it, then use the override action (with a reason) to set another status",
            )),
        }
    }

    /// Money in flight or taken keeps its order: only carts, canceled and delivered orders go.
    fn check_delete(&self, old: &Record) -> Result<()> {
        match old.text("status").unwrap_or("new") {
            s @ ("paying" | "approving" | "packaging" | "delivering") => {
                Err(Error::conflict_field(
                    "status",
                    format!(
                        "an order in '{s}' has a payment and cannot be deleted; cancel it with the override action first"
                    ),
                ))
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::ORDER_STATUSES as ALL;

    #[test]
    fn only_the_status_table() {
        let mut system = Vec::new();
        let mut admin = Vec::new();
        for f in ALL {
            for t in ALL {
                if allowed(f, t, By::System) {
                    system.push(format!("{f}>{t}"));
                }
                if allowed(f, t, By::Admin) {
                    admin.push(format!("{f}>{t}"));
                }
            }
        }
        assert_eq!(
            system,
            [
                "new>paying",
                "paying>new",
                "paying>approving",
                "paying>delivering",
                "paying>canceled",
                "delivering>delivered",
                "canceled>delivered"
            ]
        );
        assert_eq!(
            admin,
            [
                "approving>packaging",
                "packaging>delivering",
                "delivering>delivered"
            ]
        );
        for f in ALL {
            for t in admin_next(f) {
                assert!(allowed(f, t, By::Admin));
            }
        }
    }
}

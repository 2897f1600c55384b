//! The order state machine, in one place. Every status change (checkout, payment, timeout, admin
//! edits through the generic PATCH and bulk update, overrides) goes through [`allowed`] and is
//! recorded as an `ecommerce.order-status-change` row: from, to, who or what, when, why.

use serde_json::{Map, Value, json};
use stoa_kernel::Result;
use stoa_kernel::value::fields;
use stoa_store::Record;
use stoa_store::guard::{Effects, StatusRules, WriteGuard};
use stoa_store::jobs::NewJob;

/// Who may make a change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum By {
    /// The platform itself: checkout, the payment check, timeouts, subscription lapse.
    System,
    /// An administrator editing the order.
    Admin,
}

/// What an administrator may do to an order through generic writes: DOMAIN §5.2's admin rows
/// (approving → packaging → delivering → delivered), orders born in the cart, and orders with
/// money in flight or taken kept. Everything else goes through the override, with a reason.
pub const ADMIN: StatusRules = StatusRules {
    what: "an order",
    moves: &[
        ("approving", "packaging"),
        ("packaging", "delivering"),
        ("delivering", "delivered"),
    ],
    born: &["new"],
    kept: &["paying", "approving", "packaging", "delivering"],
    hint: "use the override action (with a reason) to correct it",
};

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
        By::Admin => ADMIN.allows(from, to),
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

impl WriteGuard for OrderGuard {
    fn fields(&self) -> &[&'static str] {
        &["status"]
    }

    fn writes(&self) -> &[&'static str] {
        &["ecommerce.order-status-change"]
    }

    fn check(&self, old: &Record, input: &Map<String, Value>, actor: &str) -> Result<Effects> {
        match ADMIN.check_move(old, input)? {
            Some((from, to)) => {
                let id = old.id().map(|i| i.to_string()).unwrap_or_default();
                Ok(effects(&id, from, to, actor, None, false))
            }
            None => Ok(Effects::default()),
        }
    }

    fn check_create(&self, input: &Map<String, Value>) -> Result<()> {
        ADMIN.check_create(input)
    }

    fn check_delete(&self, old: &Record) -> Result<()> {
        ADMIN.check_delete(old)
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
            for t in ADMIN.next(f) {
                assert!(allowed(f, t, By::Admin));
            }
        }
    }
}

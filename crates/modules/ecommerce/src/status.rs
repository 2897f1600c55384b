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

/// Whether a move to `to` mails anyone: the buyer hears of every status an order reaches after
/// it was paid for (and of a cancel); nobody is mailed for a cart becoming an order or going back.
pub fn mails(to: &str) -> bool {
    !matches!(to, "new" | "paying")
}

/// Whether a move can change the buyer's product roles: roles follow the orders that are
/// `delivering` (granted) and `paying` or `delivered` (revoked), so only a move into or out of one
/// of those can.
pub fn moves_roles(from: &str, to: &str) -> bool {
    let counts = |s: &str| matches!(s, "delivering" | "paying" | "delivered");
    counts(from) || counts(to)
}

/// What one status change writes with it: its history row, the job that mails the buyer and the
/// admins (when the new status mails anyone), and the job that re-checks the buyer's product
/// roles (when the move can change them and `roles`: the caller knows whether the order's
/// products carry roles; the guard on generic edits does not and passes `true`). The service's
/// transitions and the guard both use this.
pub fn effects(
    order: &str,
    from: &str,
    to: &str,
    actor: &str,
    reason: Option<&str>,
    overridden: bool,
    roles: bool,
) -> Effects {
    let actor: String = actor.chars().take(200).collect();
    let row = fields(json!({
        "orderId": order, "from": from, "to": to, "actor": actor, "reason": reason, "override": overridden,
    }));
    let mut jobs = Vec::new();
    if mails(to) {
        jobs.push(NewJob::now(
            crate::orders::JOB_NOTIFY,
            json!({"order": order, "from": from, "to": to}),
        ));
    }
    if roles && moves_roles(from, to) {
        jobs.push(NewJob::now(
            crate::orders::JOB_SUBJECT_CHECK,
            json!({"order": order}),
        ));
    }
    Effects {
        rows: vec![("ecommerce.order-status-change".into(), row)],
        jobs,
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
                Ok(effects(&id, from, to, actor, None, false, true))
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

    fn job_names(e: &Effects) -> Vec<&str> {
        e.jobs.iter().map(|j| j.name.as_str()).collect()
    }

    #[test]
    fn a_change_queues_only_the_jobs_that_can_do_something() {
        use crate::orders::{JOB_NOTIFY, JOB_SUBJECT_CHECK};
        let moves =
            |from, to, roles| job_names(&effects("o", from, to, "a", None, false, roles)).join(" ");
        // A cart becoming an order mails nobody; the roles follow `paying` orders.
        assert_eq!(moves("new", "paying", true), JOB_SUBJECT_CHECK);
        assert_eq!(moves("new", "paying", false), "");
        assert_eq!(moves("paying", "new", false), "");
        // Paid: the buyer and the admins are mailed; the roles only when products carry any.
        assert_eq!(moves("paying", "approving", false), JOB_NOTIFY);
        assert_eq!(
            moves("paying", "approving", true),
            format!("{JOB_NOTIFY} {JOB_SUBJECT_CHECK}")
        );
        // Neither status counts for roles.
        assert_eq!(moves("approving", "packaging", true), JOB_NOTIFY);
        assert_eq!(
            moves("packaging", "delivering", true),
            format!("{JOB_NOTIFY} {JOB_SUBJECT_CHECK}")
        );
        // The history row is written whatever the jobs.
        assert_eq!(
            effects("o", "new", "paying", "a", None, false, false)
                .rows
                .len(),
            1
        );
    }
}

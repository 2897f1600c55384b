//! The order state machine, in one place. Every status change (checkout, payment, timeout, admin
//! edits through the generic PATCH and bulk update, overrides) goes through [`allowed`] and is
//! recorded as an `ecommerce.order-status-change` row: from, to, who or what, when, why.

use serde_json::{Map, Value, json};
use stoa_kernel::{Error, Result};
use stoa_store::Record;
use stoa_store::guard::{UpdateGuard, Writes};

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

/// The history row of one change.
pub fn history(
    order: &str,
    from: &str,
    to: &str,
    actor: &str,
    reason: Option<&str>,
    overridden: bool,
) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("orderId".into(), json!(order));
    m.insert("from".into(), json!(from));
    m.insert("to".into(), json!(to));
    m.insert(
        "actor".into(),
        json!(actor.chars().take(200).collect::<String>()),
    );
    if let Some(r) = reason {
        m.insert("reason".into(), json!(r));
    }
    m.insert("override".into(), json!(overridden));
    m
}

/// The job row that mails the buyer and the admins about a change (written with it).
pub fn notify_job(order: &str, from: &str, to: &str) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("name".into(), json!(crate::orders::JOB_NOTIFY));
    m.insert(
        "payload".into(),
        json!({"order": order, "from": from, "to": to}),
    );
    m
}

/// The job row that grants or revokes the buyer's product roles after a change.
pub fn roles_job(order: &str) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("name".into(), json!(crate::orders::JOB_SUBJECT_CHECK));
    m.insert("payload".into(), json!({"order": order}));
    m
}

/// Generic updates of `ecommerce.order` (admin PATCH, bulk update): a status change must be one
/// an admin may make (409 otherwise, pointing at the override action), and is recorded.
pub struct OrderGuard;

impl UpdateGuard for OrderGuard {
    fn fields(&self) -> &[&'static str] {
        &["status"]
    }

    fn writes(&self) -> &[&'static str] {
        &["ecommerce.order-status-change", "platform.job"]
    }

    fn check(&self, old: &Record, input: &Map<String, Value>, actor: &str) -> Result<Writes> {
        let from = old.text("status").unwrap_or("new");
        let Some(to) = input.get("status").and_then(Value::as_str) else {
            return Ok(Vec::new());
        };
        if to == from {
            return Ok(Vec::new());
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
        Ok(vec![
            (
                "ecommerce.order-status-change".into(),
                history(&id, from, to, actor, None, false),
            ),
            ("platform.job".into(), notify_job(&id, from, to)),
            ("platform.job".into(), roles_job(&id)),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: &[&str] = &[
        "new",
        "paying",
        "approving",
        "packaging",
        "delivering",
        "delivered",
        "canceled",
    ];

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

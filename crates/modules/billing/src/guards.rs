//! What generic admin edits may do to money records: give up on an invoice or an intent, never pay
//! one. `paid` and `succeeded` are set only by a verified webhook (the service writes them with
//! its own compare-and-set, not through these edits).

use stoa_store::guard::StatusRules;

const HINT: &str = "payments set the other statuses";

/// Invoices: a draft or open invoice may be given up (`failed`, `void`).
pub const INVOICE: StatusRules = StatusRules {
    what: "an invoice",
    moves: &[
        ("draft", "failed"),
        ("open", "failed"),
        ("draft", "void"),
        ("open", "void"),
    ],
    born: &["draft", "open", "failed", "void"],
    kept: &["paid"],
    hint: HINT,
};

/// Payment intents: one not yet paid may be canceled.
pub const INTENT: StatusRules = StatusRules {
    what: "a payment intent",
    moves: &[
        ("requires_payment_method", "canceled"),
        ("requires_action", "canceled"),
        ("requires_confirmation", "canceled"),
        ("processing", "canceled"),
    ],
    born: &["requires_payment_method"],
    kept: &["succeeded"],
    hint: HINT,
};

//! Payselection (and Payselection International — the same protocol under other credentials):
//! `POST /webpayments/paylink_create` (webform.payselection.com) with `X-SITE-ID`, `X-REQUEST-ID`,
//! `X-REQUEST-SIGNATURE`; the status API `GET /orders/{OrderId}` and `GET /transactions/{TransactionId}`
//! (gw.payselection.com); JSON webhooks signed with `X-WEBHOOK-SIGNATURE`.
//!
//! Request signature (`X-REQUEST-SIGNATURE`) = lower-case hex HMAC-SHA256 over
//! `"{METHOD}\n{line 2}\n{X-SITE-ID}\n{X-REQUEST-ID}\n{body}"`:
//! * `paylink_create`: key = the site's **public key**, line 2 = the merchant's site name (Payselection's own
//!   1C-Bitrix module sends its HTTP host). The fake also accepts the request path `/webpayments/paylink_create`
//!   as line 2 (the form every other Payselection method uses) — both with the public key.
//! * the gateway API (`/orders/…`, `/transactions/…`): key = the **secret key**, line 2 = the request path;
//!   a GET has no body (the string ends after the request id, with or without a final `\n`).
//!
//! Webhook signature (`X-WEBHOOK-SIGNATURE`) = hex HMAC-SHA256(secret key, `"POST\n{webhook URL}\n{site id}\n{body}"`).

use serde_json::{Map, Value, json};

use crate::util::{self, hmac_sha256_hex};
use crate::{Effect, Inner, Kind, Notice, Outcome, PayStatus, Payment, Rec, Req, Resp, Tamper};

const PAYLINK_PATH: &str = "/webpayments/paylink_create";

fn error(status: u16, code: &str, description: &str) -> Resp {
    Resp::json(status, &json!({"Code": code, "Description": description}))
}

fn is_amount_text(s: &str) -> bool {
    let (i, f) = s.split_once('.').unwrap_or((s, ""));
    !i.is_empty()
        && i.bytes().all(|b| b.is_ascii_digit())
        && f.len() <= 2
        && f.bytes().all(|b| b.is_ascii_digit())
        && !(s.contains('.') && f.is_empty())
}

fn sig_matches(key: &str, msg: &str, sig: &str) -> bool {
    util::ct_eq(&hmac_sha256_hex(key, msg), &sig.to_ascii_lowercase())
}

pub(crate) fn api(inner: &Inner, req: &Req, failing: bool) -> Outcome {
    let segs: Vec<&str> = req.path.trim_matches('/').split('/').collect();
    let site = req.header("x-site-id").unwrap_or("").to_string();
    let auth_ok = site == inner.creds.public_id;
    match (req.method.as_str(), segs.as_slice()) {
        ("POST", ["webpayments", "paylink_create"]) => paylink_create(inner, req, failing, auth_ok),
        ("GET", ["orders", id]) => status(
            inner,
            req,
            failing,
            auth_ok,
            Lookup::Order((*id).to_string()),
        ),
        ("GET", ["transactions", id]) => status(
            inner,
            req,
            failing,
            auth_ok,
            Lookup::Transaction((*id).to_string()),
        ),
        _ => crate::unknown_endpoint(req, error(404, "NotFound", "Unknown method")),
    }
}

fn request_headers(req: &Req, problems: &mut Vec<String>) -> (String, String, String) {
    let mut h = |name: &str| match req.header(name) {
        Some(v) if !v.is_empty() => v.to_string(),
        _ => {
            problems.push(format!("{} missing", name.to_ascii_uppercase()));
            String::new()
        }
    };
    (h("x-site-id"), h("x-request-id"), h("x-request-signature"))
}

fn outcome(resp: Resp, auth_ok: bool, signature_ok: bool, problems: Vec<String>) -> Outcome {
    Outcome {
        resp,
        auth_ok,
        signature_ok: Some(signature_ok),
        problems,
    }
}

/// The 401 for an unknown site or, failing that, a bad signature.
fn rejection(auth_ok: bool, signature_ok: bool) -> Option<Resp> {
    if !auth_ok {
        Some(error(401, "Unauthorized", "Unknown X-SITE-ID"))
    } else if !signature_ok {
        Some(error(
            401,
            "InvalidSignature",
            "Request signature is invalid",
        ))
    } else {
        None
    }
}

fn failed() -> Resp {
    error(500, "InternalError", "Internal server error")
}

fn paylink_create(inner: &Inner, req: &Req, failing: bool, auth_ok: bool) -> Outcome {
    let mut problems = Vec::new();
    let (site, rid, sig) = request_headers(req, &mut problems);
    let body = req.body_text();
    if req.content_type() != "application/json" {
        problems.push(format!(
            "Content-Type must be application/json (got {:?})",
            req.content_type()
        ));
    }
    if !rid.is_empty() {
        let mut s = inner.lock();
        if s.request_ids.contains(&rid) {
            problems.push(format!(
                "X-REQUEST-ID {rid} reused (it is the request's idempotency key)"
            ));
        } else {
            s.request_ids.push(rid.clone());
        }
    }
    let parsed = req.json();
    // Candidate second lines: the request path, and the merchant's site name in its plausible forms.
    let mut line2 = vec![PAYLINK_PATH.to_string()];
    {
        let s = inner.lock();
        if let Some(n) = &s.site_name {
            line2.push(n.clone());
        }
        if let Some(u) = &s.webhook_url {
            line2.extend(util::url_hosts(u));
        }
    }
    if let Some(extra) = parsed
        .as_ref()
        .and_then(|v| v.pointer("/PaymentRequest/ExtraData"))
        .and_then(Value::as_object)
    {
        for v in extra.values().filter_map(Value::as_str) {
            line2.extend(util::url_hosts(v));
        }
    }
    let signature_ok = if sig.is_empty() {
        false
    } else {
        let with = |key: &str| {
            line2
                .iter()
                .any(|l| sig_matches(key, &format!("POST\n{l}\n{site}\n{rid}\n{body}"), &sig))
        };
        if with(&inner.creds.extra) {
            true
        } else {
            if with(&inner.creds.secret) {
                problems.push("X-REQUEST-SIGNATURE is made with the secret key; paylink_create is signed with the public key".to_string());
            } else {
                problems.push(
                    "X-REQUEST-SIGNATURE does not verify: expected hex HMAC-SHA256(public key, \"POST\\n{site name or /webpayments/paylink_create}\\n{X-SITE-ID}\\n{X-REQUEST-ID}\\n{body}\")".to_string(),
                );
            }
            false
        }
    };
    let out = |resp: Resp, problems: Vec<String>| outcome(resp, auth_ok, signature_ok, problems);
    if let Some(resp) = rejection(auth_ok, signature_ok) {
        return out(resp, problems);
    }
    let Some(Value::Object(root)) = parsed else {
        problems.push("body is not a JSON object".to_string());
        return out(
            error(400, "InvalidRequest", "Body must be a JSON object"),
            problems,
        );
    };
    for k in root.keys() {
        if ![
            "MetaData",
            "PaymentRequest",
            "ReceiptData",
            "CustomerInfo",
            "RecurringData",
        ]
        .contains(&k.as_str())
        {
            problems.push(format!("unknown top-level field {k}"));
        }
    }
    let Some(Value::Object(pr)) = root.get("PaymentRequest") else {
        problems.push("PaymentRequest missing".to_string());
        return out(
            error(400, "InvalidRequest", "PaymentRequest is required"),
            problems,
        );
    };
    for k in pr.keys() {
        if ![
            "OrderId",
            "Amount",
            "Currency",
            "Description",
            "RebillFlag",
            "ExtraData",
            "PaymentMethod",
            "PaymentDetails",
        ]
        .contains(&k.as_str())
        {
            if k == "CustomerInfo" {
                problems.push(
                    "CustomerInfo belongs at the top level of the body, not inside PaymentRequest"
                        .to_string(),
                );
            } else {
                problems.push(format!("unknown field PaymentRequest.{k}"));
            }
        }
    }
    let s = |m: &Map<String, Value>, k: &str| {
        m.get(k)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let Some(order_id) = s(pr, "OrderId") else {
        problems.push("PaymentRequest.OrderId missing".to_string());
        return out(
            error(400, "InvalidRequest", "PaymentRequest.OrderId is required"),
            problems,
        );
    };
    let amount = match pr.get("Amount") {
        Some(Value::String(a)) => {
            if !is_amount_text(a) {
                problems.push(format!("PaymentRequest.Amount must be a decimal string with at most two decimals (got {a:?})"));
            }
            a.clone()
        }
        Some(Value::Number(n)) => {
            problems.push("PaymentRequest.Amount must be a string (e.g. \"100.00\")".to_string());
            n.to_string()
        }
        _ => {
            problems.push("PaymentRequest.Amount missing".to_string());
            return out(
                error(400, "InvalidRequest", "PaymentRequest.Amount is required"),
                problems,
            );
        }
    };
    let Some(currency) = s(pr, "Currency") else {
        problems.push("PaymentRequest.Currency missing".to_string());
        return out(
            error(400, "InvalidRequest", "PaymentRequest.Currency is required"),
            problems,
        );
    };
    if !util::is_upper_iso_currency(&currency) {
        problems.push(format!(
            "PaymentRequest.Currency must be upper-case ISO (got {currency})"
        ));
    }
    let Some(description) = s(pr, "Description") else {
        problems.push("PaymentRequest.Description missing".to_string());
        return out(
            error(
                400,
                "InvalidRequest",
                "PaymentRequest.Description is required",
            ),
            problems,
        );
    };
    if let Some(rf) = pr.get("RebillFlag")
        && !rf.is_boolean()
    {
        problems.push("PaymentRequest.RebillFlag must be a boolean".to_string());
    }
    let extra = pr
        .get("ExtraData")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let email = root
        .get("CustomerInfo")
        .and_then(Value::as_object)
        .and_then(|c| s(c, "Email"));
    if let Some(e) = &email
        && !util::is_email(e)
    {
        problems.push(format!("CustomerInfo.Email malformed ({e})"));
    }
    if failing {
        return out(failed(), problems);
    }
    let id = uuid::Uuid::new_v4().to_string();
    let url = format!("{}/pay/{id}", inner.base_url);
    inner.push_rec(Rec {
        payment: Payment {
            id: id.clone(),
            amount: amount.clone(),
            currency: currency.clone(),
            email: email.clone(),
            reference: Some(order_id.clone()),
            success_url: s(&extra, "SuccessUrl"),
            raw: Value::Object(root.clone()),
        },
        status: PayStatus::Open,
        created: util::now(),
        paid_at: None,
        txn: None,
        data: json!({
            "OrderId": order_id,
            "Amount": amount,
            "Currency": currency,
            "Description": description,
            "Email": email,
            "WebhookUrl": s(&extra, "WebhookUrl"),
        }),
    });
    out(Resp::json(200, &json!({"Id": id, "Url": url})), problems)
}

enum Lookup {
    Order(String),
    Transaction(String),
}

fn status(inner: &Inner, req: &Req, failing: bool, auth_ok: bool, what: Lookup) -> Outcome {
    let mut problems = Vec::new();
    let (site, rid, sig) = request_headers(req, &mut problems);
    let base = format!("GET\n{}\n{site}\n{rid}", req.path);
    let signature_ok = !sig.is_empty()
        && (sig_matches(&inner.creds.secret, &base, &sig)
            || sig_matches(&inner.creds.secret, &format!("{base}\n"), &sig));
    if !sig.is_empty() && !signature_ok {
        problems.push("X-REQUEST-SIGNATURE does not verify: expected hex HMAC-SHA256(secret key, \"GET\\n{path}\\n{X-SITE-ID}\\n{X-REQUEST-ID}\")".to_string());
    }
    let out = |resp: Resp, problems: Vec<String>| outcome(resp, auth_ok, signature_ok, problems);
    if let Some(resp) = rejection(auth_ok, signature_ok) {
        return out(resp, problems);
    }
    if failing {
        return out(failed(), problems);
    }
    let recs = inner.lock().recs.clone();
    match what {
        Lookup::Order(order) => {
            let list: Vec<Value> = recs
                .iter()
                .filter(|r| {
                    r.txn.is_some()
                        && r.data.get("OrderId").and_then(Value::as_str) == Some(order.as_str())
                })
                .map(transaction)
                .collect();
            if list.is_empty() {
                out(error(404, "OrderNotFound", "Order not found"), problems)
            } else {
                out(Resp::json(200, &Value::Array(list)), problems)
            }
        }
        Lookup::Transaction(t) => {
            match recs.iter().find(|r| r.txn.as_deref() == Some(t.as_str())) {
                Some(r) => out(Resp::json(200, &transaction(r)), problems),
                None => out(
                    error(404, "TransactionNotFound", "Transaction not found"),
                    problems,
                ),
            }
        }
    }
}

fn transaction(r: &Rec) -> Value {
    let paid = r.status == PayStatus::Paid;
    json!({
        "TransactionState": if paid { "success" } else { "declined" },
        "TransactionId": r.txn,
        "OrderId": r.data.get("OrderId"),
        "StateDetails": {
            "Amount": r.payment.amount,
            "Currency": r.payment.currency,
            "ProcessingAmount": r.payment.amount,
            "RebillId": null,
            "Email": r.payment.email,
            "PayoutToken": null,
        },
    })
}

/// Where Payselection posts when `set_webhook_url` was not called: the request's `ExtraData.WebhookUrl`.
pub(crate) fn fallback_webhook_url(inner: &Inner, rec: &Rec) -> Option<String> {
    match inner.kind {
        Kind::Payselection | Kind::PayselectionInternational => rec
            .data
            .get("WebhookUrl")
            .and_then(Value::as_str)
            .map(str::to_string),
        _ => None,
    }
}

/// The `X-WEBHOOK-SIGNATURE` of `body` posted to `url`.
pub(crate) fn webhook_signature(secret: &str, url: &str, site_id: &str, body: &str) -> String {
    hmac_sha256_hex(secret, &format!("POST\n{url}\n{site_id}\n{body}"))
}

pub(crate) fn notify(inner: &Inner, rec: &Rec, tamper: &Tamper, txn: &str, url: &str) -> Notice {
    let unknown = *tamper == Tamper::UnknownPayment;
    let declined = *tamper == Tamper::Declined;
    let d = &rec.data;
    let amount = match tamper {
        Tamper::Amount(a) => a.clone(),
        _ => rec.payment.amount.clone(),
    };
    let currency = match tamper {
        Tamper::Currency(c) => c.clone(),
        _ => rec.payment.currency.clone(),
    };
    let order_id = if unknown {
        uuid::Uuid::new_v4().to_string()
    } else {
        d.get("OrderId")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let txn = if unknown {
        format!("PS9{}", util::random_digits(13))
    } else {
        txn.to_string()
    };
    let f = time::macros::format_description!("[day].[month].[year] [hour]:[minute]:[second]");
    let mut body = json!({
        "Event": if declined { "Fail" } else { "Payment" },
        "TransactionId": txn,
        "OrderId": order_id,
        "Amount": amount,
        "Currency": currency,
        "DateTime": util::now().format(&f).unwrap_or_default(),
        "IsTest": 1,
        "Email": rec.payment.email,
        "Phone": "",
        "Description": d.get("Description"),
        "Service_Id": inner.creds.public_id,
        "Brand": "VISA",
        "Country_Code_Alpha2": "RU",
        "Bank": "Fake Bank",
        "CardMasked": "411111******1111",
        "CardHolder": "CARD HOLDER",
        "ExpirationDate": "12/30",
        "RRN": util::random_digits(12),
    });
    if declined {
        body["ErrorMessage"] = json!("Insufficient funds");
    }
    let text = body.to_string();
    let secret = if *tamper == Tamper::ForgedSignature {
        "forged-secret-key"
    } else {
        inner.creds.secret.as_str()
    };
    let sig = webhook_signature(secret, url, &inner.creds.public_id, &text);
    let sent = if *tamper == Tamper::BodyChangedAfterSigning {
        let mut changed = body.clone();
        let bumped = util::to_minor(&amount, 2)
            .map(|m| util::from_minor(m + 100, 2))
            .unwrap_or_else(|| "1.00".to_string());
        changed["Amount"] = json!(bumped);
        changed.to_string()
    } else {
        text
    };
    let mut headers = vec![
        ("Content-Type".to_string(), "application/json".to_string()),
        ("X-SITE-ID".to_string(), inner.creds.public_id.clone()),
    ];
    if *tamper != Tamper::MissingSignature {
        headers.push(("X-WEBHOOK-SIGNATURE".to_string(), sig));
    }
    crate::single(headers, sent, Effect::of(tamper))
}

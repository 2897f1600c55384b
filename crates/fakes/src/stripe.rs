//! Stripe: Checkout Sessions (`POST /v1/checkout/sessions`, `GET /v1/checkout/sessions/{id}`), events
//! (`GET /v1/events/{id}`) and signed webhooks (`Stripe-Signature: t=…,v1=…`).
//!
//! The fake answers as an account pinned to API version 2024-06-20: an `invoice` carries `subscription` and
//! `subscription_details.metadata`.

use serde_json::{Map, Value, json};

use crate::util::{self, from_minor, hmac_sha256_hex, nest_form, random_alnum};
use crate::{Effect, Inner, Notice, Outcome, Outgoing, PayStatus, Payment, Rec, Req, Resp, Tamper};

pub(crate) const API_VERSION: &str = "2024-06-20";

const ZERO_DECIMAL: [&str; 16] = [
    "bif", "clp", "djf", "gnf", "jpy", "kmf", "krw", "mga", "pyg", "rwf", "ugx", "vnd", "vuv",
    "xaf", "xof", "xpf",
];
const THREE_DECIMAL: [&str; 5] = ["bhd", "jod", "kwd", "omr", "tnd"];

/// Fraction digits of a currency's minor unit, as Stripe counts them.
pub(crate) fn exponent(currency: &str) -> u32 {
    let c = currency.to_ascii_lowercase();
    if ZERO_DECIMAL.contains(&c.as_str()) {
        0
    } else if THREE_DECIMAL.contains(&c.as_str()) {
        3
    } else {
        2
    }
}

const KNOWN_PARAMS: [&str; 37] = [
    "after_expiration",
    "allow_promotion_codes",
    "automatic_tax",
    "billing_address_collection",
    "cancel_url",
    "client_reference_id",
    "consent_collection",
    "currency",
    "custom_fields",
    "custom_text",
    "customer",
    "customer_creation",
    "customer_email",
    "customer_update",
    "discounts",
    "expand",
    "expires_at",
    "invoice_creation",
    "line_items",
    "locale",
    "metadata",
    "mode",
    "payment_intent_data",
    "payment_method_collection",
    "payment_method_configuration",
    "payment_method_options",
    "payment_method_types",
    "phone_number_collection",
    "redirect_on_completion",
    "return_url",
    "saved_payment_method_options",
    "setup_intent_data",
    "shipping_address_collection",
    "shipping_options",
    "submit_type",
    "subscription_data",
    "success_url",
];

fn err(status: u16, typ: &str, code: Option<&str>, param: Option<&str>, message: &str) -> Resp {
    let mut e = Map::new();
    if let Some(c) = code {
        e.insert("code".into(), json!(c));
        e.insert(
            "doc_url".into(),
            json!(format!(
                "https://stripe.com/docs/error-codes/{}",
                c.replace('_', "-")
            )),
        );
    }
    e.insert("message".into(), json!(message));
    if let Some(p) = param {
        e.insert("param".into(), json!(p));
    }
    e.insert("type".into(), json!(typ));
    Resp::json(status, &json!({ "error": e }))
        .with_header("request-id", &format!("req_{}", random_alnum(14)))
}

fn missing(param: &str) -> Resp {
    err(
        400,
        "invalid_request_error",
        Some("parameter_missing"),
        Some(param),
        &format!("Missing required param: {param}."),
    )
}

fn invalid(param: &str, message: &str) -> Resp {
    err(
        400,
        "invalid_request_error",
        Some("parameter_invalid"),
        Some(param),
        message,
    )
}

fn server_error() -> Resp {
    err(500, "api_error", None, None, "An unknown error occurred")
}

fn auth(inner: &Inner, req: &Req) -> Result<(), Resp> {
    let key = req.bearer().or_else(|| req.basic().map(|(u, _)| u));
    match key {
        None => Err(err(
            401,
            "invalid_request_error",
            None,
            None,
            "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY'). See https://stripe.com/docs/api#authentication for details, or we can help at https://support.stripe.com/.",
        )),
        Some(k) if util::ct_eq(&k, &inner.creds.secret) => Ok(()),
        Some(k) => {
            let tail: String = k
                .chars()
                .rev()
                .take(4)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            let prefix: String = k.chars().take(8).collect();
            Err(err(
                401,
                "invalid_request_error",
                None,
                None,
                &format!("Invalid API Key provided: {prefix}****{tail}"),
            ))
        }
    }
}

pub(crate) fn api(inner: &Inner, req: &Req, failing: bool) -> Outcome {
    let segs: Vec<&str> = req.path.trim_matches('/').split('/').collect();
    let route = match (req.method.as_str(), segs.as_slice()) {
        ("POST", ["v1", "checkout", "sessions"]) => Route::Create,
        ("GET", ["v1", "checkout", "sessions", id]) => Route::Session((*id).to_string()),
        ("GET", ["v1", "events", id]) => Route::Event((*id).to_string()),
        _ => {
            let msg = format!(
                "Unrecognized request URL ({}: {}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.",
                req.method, req.path
            );
            return crate::unknown_endpoint(
                req,
                err(404, "invalid_request_error", None, None, &msg),
            );
        }
    };
    if let Err(resp) = auth(inner, req) {
        return Outcome {
            resp,
            auth_ok: false,
            signature_ok: None,
            problems: Vec::new(),
        };
    }
    let mut problems = Vec::new();
    let resp = match route {
        Route::Create => create(inner, req, failing, &mut problems),
        Route::Session(id) => {
            if failing {
                server_error()
            } else {
                match inner.find(&id) {
                    Some(rec) => Resp::json(200, &session_json(inner, &rec, None)),
                    None => err(
                        404,
                        "invalid_request_error",
                        Some("resource_missing"),
                        Some("session"),
                        &format!("No such checkout.session: '{id}'"),
                    ),
                }
            }
        }
        Route::Event(id) => {
            if failing {
                server_error()
            } else {
                let ev = inner
                    .lock()
                    .events
                    .iter()
                    .find(|e| e.get("id").and_then(Value::as_str) == Some(id.as_str()))
                    .cloned();
                match ev {
                    Some(e) => Resp::json(200, &e),
                    None => err(
                        404,
                        "invalid_request_error",
                        Some("resource_missing"),
                        Some("id"),
                        &format!("No such event: '{id}'"),
                    ),
                }
            }
        }
    };
    Outcome {
        resp,
        auth_ok: true,
        signature_ok: None,
        problems,
    }
}

enum Route {
    Create,
    Session(String),
    Event(String),
}

fn create(inner: &Inner, req: &Req, failing: bool, problems: &mut Vec<String>) -> Resp {
    if req.content_type() != "application/x-www-form-urlencoded" {
        problems.push(format!(
            "Content-Type must be application/x-www-form-urlencoded (got {:?})",
            req.content_type()
        ));
    }
    let body = req.body_text();
    let idem_key = req.header("idempotency-key").map(str::to_string);
    if let Some(k) = &idem_key {
        let prior = inner
            .lock()
            .idempotency
            .iter()
            .find(|(key, _, _, _)| key == k)
            .cloned();
        if let Some((_, prior_body, status, resp_body)) = prior {
            if prior_body == body {
                return Resp {
                    status,
                    content_type: "application/json; charset=utf-8",
                    headers: Vec::new(),
                    body: resp_body,
                }
                .with_header("idempotent-replayed", "true");
            }
            return err(
                400,
                "idempotency_error",
                None,
                None,
                &format!(
                    "Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '{k}' if you meant to execute a different request."
                ),
            );
        }
    }
    let resp = create_inner(inner, req, failing, problems);
    if let Some(k) = idem_key
        && resp.status < 500
    {
        inner
            .lock()
            .idempotency
            .push((k, body, resp.status, resp.body.clone()));
    }
    resp
}

fn create_inner(inner: &Inner, req: &Req, failing: bool, problems: &mut Vec<String>) -> Resp {
    let pairs = req.form();
    let raw = nest_form(&pairs);
    let get = |k: &str| {
        pairs
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.clone())
    };
    for (k, _) in &pairs {
        let top = k.split('[').next().unwrap_or("");
        if !KNOWN_PARAMS.contains(&top) {
            return err(
                400,
                "invalid_request_error",
                Some("parameter_unknown"),
                Some(k),
                &format!("Received unknown parameter: {k}"),
            );
        }
    }
    let mode = match get("mode") {
        Some(m) => m,
        None => return missing("mode"),
    };
    if !["payment", "subscription"].contains(&mode.as_str()) {
        return invalid(
            "mode",
            &format!("Invalid mode: {mode}. The fake supports `payment` and `subscription`."),
        );
    }
    let mut items = Vec::new();
    let mut currency: Option<String> = None;
    let mut any_recurring = false;
    let mut interval: Option<(String, i64)> = None;
    let mut total: i64 = 0;
    for i in 0.. {
        let p = format!("line_items[{i}]");
        if !pairs.iter().any(|(k, _)| k.starts_with(&p)) {
            break;
        }
        if let Some(price) = get(&format!("{p}[price]")) {
            return err(
                400,
                "invalid_request_error",
                Some("resource_missing"),
                Some(&format!("{p}[price]")),
                &format!("No such price: '{price}' (the fake implements `price_data` only)"),
            );
        }
        let cur_key = format!("{p}[price_data][currency]");
        let cur = match get(&cur_key) {
            Some(c) => c,
            None => return missing(&cur_key),
        };
        if cur.len() != 3 || !cur.bytes().all(|b| b.is_ascii_alphabetic()) {
            return invalid(&cur_key, &format!("Invalid currency: {cur}."));
        }
        if cur != cur.to_ascii_lowercase() {
            problems.push(format!(
                "{cur_key} must be a lower-case ISO currency code (got {cur})"
            ));
        }
        let cur = cur.to_ascii_lowercase();
        if let Some(prev) = &currency
            && *prev != cur
        {
            return invalid(&cur_key, "All line items must use the same currency.");
        }
        currency = Some(cur);
        let ua_key = format!("{p}[price_data][unit_amount]");
        let unit = match (
            get(&ua_key),
            get(&format!("{p}[price_data][unit_amount_decimal]")),
        ) {
            (Some(u), _) => match u.parse::<i64>() {
                Ok(v) if v >= 0 => v,
                _ => return invalid(&ua_key, &format!("Invalid integer: {u}")),
            },
            (None, Some(d)) => match d.parse::<f64>() {
                Ok(v) if v >= 0.0 && v.fract() == 0.0 => v as i64,
                _ => {
                    problems.push(format!("{p}[price_data][unit_amount_decimal] with a fraction is not supported by the fake"));
                    return invalid(
                        &format!("{p}[price_data][unit_amount_decimal]"),
                        &format!("Invalid decimal: {d}"),
                    );
                }
            },
            (None, None) => return missing(&ua_key),
        };
        let name_key = format!("{p}[price_data][product_data][name]");
        let product = get(&format!("{p}[price_data][product]"));
        let name = get(&name_key);
        if product.is_none() && name.as_deref().is_none_or(str::is_empty) {
            return missing(&name_key);
        }
        let q_key = format!("{p}[quantity]");
        let qty = match get(&q_key) {
            Some(q) => match q.parse::<i64>() {
                Ok(v) if v >= 1 => v,
                _ => return invalid(&q_key, &format!("Invalid positive integer: {q}")),
            },
            None => return missing(&q_key),
        };
        let iv_key = format!("{p}[price_data][recurring][interval]");
        let recurring = match get(&iv_key) {
            Some(iv) => {
                if !["day", "week", "month", "year"].contains(&iv.as_str()) {
                    return invalid(
                        &iv_key,
                        &format!(
                            "Invalid recurring[interval]: must be one of day, week, month, or year (got {iv})"
                        ),
                    );
                }
                let count = get(&format!("{p}[price_data][recurring][interval_count]"))
                    .and_then(|c| c.parse::<i64>().ok())
                    .unwrap_or(1);
                interval = Some((iv.clone(), count));
                any_recurring = true;
                true
            }
            None => false,
        };
        let amount = match unit.checked_mul(qty) {
            Some(a) => a,
            None => return invalid(&q_key, "Amount too large"),
        };
        total = total.saturating_add(amount);
        items.push(json!({
            "id": format!("li_{}", random_alnum(24)),
            "object": "item",
            "amount_subtotal": amount,
            "amount_total": amount,
            "currency": currency,
            "description": name.clone().unwrap_or_default(),
            "quantity": qty,
            "price": {
                "id": format!("price_{}", random_alnum(24)),
                "object": "price",
                "currency": currency,
                "unit_amount": unit,
                "product": product.unwrap_or_else(|| format!("prod_{}", random_alnum(14))),
                "recurring": if recurring { json!({"interval": interval.as_ref().map(|i| i.0.clone()), "interval_count": interval.as_ref().map(|i| i.1)}) } else { Value::Null },
                "type": if recurring { "recurring" } else { "one_time" },
            },
        }));
    }
    if items.is_empty() {
        return missing("line_items");
    }
    if mode == "payment" && any_recurring {
        return invalid(
            "line_items",
            "You specified `payment` mode but passed a recurring price. Either switch to `subscription` mode or use only one-time prices.",
        );
    }
    if mode == "subscription" && !any_recurring {
        return invalid(
            "line_items",
            "You must provide at least one recurring price in `subscription` mode when using prices.",
        );
    }
    if mode == "payment"
        && pairs
            .iter()
            .any(|(k, _)| k.starts_with("subscription_data"))
    {
        return invalid(
            "subscription_data",
            "You can not pass `subscription_data` in `payment` mode.",
        );
    }
    if mode == "subscription"
        && pairs
            .iter()
            .any(|(k, _)| k.starts_with("payment_intent_data"))
    {
        return invalid(
            "payment_intent_data",
            "You can not pass `payment_intent_data` in `subscription` mode.",
        );
    }
    let email = get("customer_email");
    if let Some(e) = &email
        && !util::is_email(e)
    {
        return invalid("customer_email", &format!("Invalid email address: {e}"));
    }
    let client_ref = get("client_reference_id");
    if client_ref.as_ref().is_some_and(|c| c.chars().count() > 200) {
        return invalid(
            "client_reference_id",
            "client_reference_id must be at most 200 characters",
        );
    }
    let metadata = metadata_of(&pairs, "metadata", problems);
    let sub_metadata = metadata_of(&pairs, "subscription_data[metadata]", problems);
    if let Some(p) = problems
        .iter()
        .find(|p| p.starts_with("metadata") || p.starts_with("subscription_data"))
    {
        let p = p.clone();
        return invalid("metadata", &p);
    }
    let success_url = get("success_url");
    if success_url.is_none() {
        problems.push(
            "success_url missing (hosted Checkout redirects there after payment)".to_string(),
        );
    }
    if failing {
        return server_error();
    }
    let currency = currency.unwrap_or_default();
    let id = format!("cs_test_{}", random_alnum(58));
    let created = util::now();
    let reference = client_ref
        .clone()
        .or_else(|| (!metadata.is_empty()).then(|| Value::Object(metadata.clone()).to_string()));
    let sent_currency =
        get("line_items[0][price_data][currency]").unwrap_or_else(|| currency.clone());
    let rec = Rec {
        payment: Payment {
            id: id.clone(),
            amount: from_minor(total, exponent(&currency)),
            currency: sent_currency,
            email: email.clone(),
            reference,
            success_url: success_url.clone(),
            raw,
        },
        status: PayStatus::Open,
        created,
        paid_at: None,
        txn: None,
        data: json!({
            "mode": mode,
            "amount_total": total,
            "currency": currency,
            "customer_email": email,
            "client_reference_id": client_ref,
            "metadata": metadata,
            "subscription_metadata": sub_metadata,
            "success_url": success_url,
            "cancel_url": get("cancel_url"),
            "created": created.unix_timestamp(),
            "interval": interval.as_ref().map(|i| i.0.clone()),
            "interval_count": interval.as_ref().map(|i| i.1),
            "line_items": items,
        }),
    };
    let body = session_json(inner, &rec, None);
    inner.push_rec(rec);
    Resp::json(200, &body)
}

fn metadata_of(
    pairs: &[(String, String)],
    prefix: &str,
    problems: &mut Vec<String>,
) -> Map<String, Value> {
    let mut m = Map::new();
    let p = format!("{prefix}[");
    for (k, v) in pairs {
        if let Some(rest) = k.strip_prefix(&p) {
            let key = rest.trim_end_matches(']');
            if key.chars().count() > 40 {
                problems.push(format!("{prefix} key {key:?} is longer than 40 characters"));
            }
            if v.chars().count() > 500 {
                problems.push(format!("{prefix}[{key}] is longer than 500 characters"));
            }
            m.insert(key.to_string(), json!(v));
        }
    }
    if m.len() > 50 {
        problems.push(format!("{prefix} has more than 50 keys"));
    }
    m
}

/// Ids derived from the session id, so the session, its events and the status API agree.
fn derived(prefix: &str, session_id: &str) -> String {
    let tail: String = session_id
        .trim_start_matches("cs_test_")
        .chars()
        .take(24)
        .collect();
    format!("{prefix}_{tail}")
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum View {
    Complete,
    Expired,
}

/// The Checkout Session object: current state, or as it is when `view` happens.
fn session_json(inner: &Inner, rec: &Rec, view: Option<View>) -> Value {
    let d = &rec.data;
    let id = rec.payment.id.as_str();
    let mode = d.get("mode").and_then(Value::as_str).unwrap_or("payment");
    let view = view.or(match rec.status {
        PayStatus::Open => None,
        PayStatus::Paid => Some(View::Complete),
        PayStatus::Declined => Some(View::Expired),
    });
    let (status, payment_status) = match view {
        None => ("open", "unpaid"),
        Some(View::Complete) => ("complete", "paid"),
        Some(View::Expired) => ("expired", "unpaid"),
    };
    let complete = view == Some(View::Complete);
    let subscription = mode == "subscription" && complete;
    let email = d.get("customer_email").cloned().unwrap_or(Value::Null);
    let created = d.get("created").and_then(Value::as_i64).unwrap_or(0);
    json!({
        "id": id,
        "object": "checkout.session",
        "after_expiration": null,
        "allow_promotion_codes": null,
        "amount_subtotal": d.get("amount_total"),
        "amount_total": d.get("amount_total"),
        "automatic_tax": {"enabled": false, "liability": null, "status": null},
        "billing_address_collection": null,
        "cancel_url": d.get("cancel_url"),
        "client_reference_id": d.get("client_reference_id"),
        "client_secret": null,
        "created": created,
        "currency": d.get("currency"),
        "customer": if subscription { json!(derived("cus", id)) } else { Value::Null },
        "customer_creation": if mode == "payment" { json!("if_required") } else { Value::Null },
        "customer_details": if complete { json!({"address": null, "email": email, "name": null, "phone": null, "tax_exempt": "none", "tax_ids": []}) } else { Value::Null },
        "customer_email": email,
        "expires_at": created + 86_400,
        "invoice": if subscription { json!(derived("in", id)) } else { Value::Null },
        "livemode": false,
        "locale": null,
        "metadata": d.get("metadata").cloned().unwrap_or_else(|| json!({})),
        "mode": mode,
        "payment_intent": if complete && mode == "payment" { rec.txn.clone().map(Value::String).unwrap_or(Value::Null) } else { Value::Null },
        "payment_link": null,
        "payment_method_collection": "always",
        "payment_method_types": ["card"],
        "payment_status": payment_status,
        "setup_intent": null,
        "status": status,
        "submit_type": null,
        "subscription": if subscription { json!(derived("sub", id)) } else { Value::Null },
        "success_url": d.get("success_url"),
        "total_details": {"amount_discount": 0, "amount_shipping": 0, "amount_tax": 0},
        "ui_mode": "hosted",
        "url": if view.is_none() { json!(format!("{}/pay/{}", inner.base_url, id)) } else { Value::Null },
    })
}

fn invoice_json(
    inner: &Inner,
    session: &Value,
    sub_metadata: &Value,
    interval: &str,
    count: i64,
) -> Value {
    let id = session.get("id").and_then(Value::as_str).unwrap_or("");
    let now = util::now().unix_timestamp();
    let secs = match interval {
        "day" => 86_400,
        "week" => 7 * 86_400,
        "year" => 365 * 86_400,
        _ => 30 * 86_400,
    } * count.max(1);
    let amount = session.get("amount_total").cloned().unwrap_or(json!(0));
    let currency = session.get("currency").cloned().unwrap_or(Value::Null);
    let inv = derived("in", id);
    let sub = derived("sub", id);
    json!({
        "id": inv,
        "object": "invoice",
        "account_country": "US",
        "amount_due": amount,
        "amount_paid": amount,
        "amount_remaining": 0,
        "attempt_count": 1,
        "attempted": true,
        "billing_reason": "subscription_create",
        "collection_method": "charge_automatically",
        "created": now,
        "currency": currency,
        "customer": derived("cus", id),
        "customer_email": session.get("customer_email"),
        "hosted_invoice_url": format!("{}/pay/{}", inner.base_url, id),
        "lines": {
            "object": "list",
            "data": [{
                "id": format!("il_{}", random_alnum(24)),
                "object": "line_item",
                "amount": amount,
                "currency": currency,
                "metadata": sub_metadata,
                "period": {"start": now, "end": now + secs},
                "quantity": 1,
                "subscription": sub,
                "type": "subscription",
            }],
            "has_more": false,
            "total_count": 1,
            "url": format!("/v1/invoices/{inv}/lines"),
        },
        "livemode": false,
        "metadata": {},
        "paid": true,
        "period_end": now,
        "period_start": now,
        "status": "paid",
        "subscription": sub,
        "subscription_details": {"metadata": sub_metadata},
        "subtotal": amount,
        "total": amount,
    })
}

fn event(typ: &str, object: Value) -> Value {
    json!({
        "id": format!("evt_{}", random_alnum(24)),
        "object": "event",
        "api_version": API_VERSION,
        "created": util::now().unix_timestamp(),
        "data": {"object": object},
        "livemode": false,
        "pending_webhooks": 1,
        "request": {"id": null, "idempotency_key": null},
        "type": typ,
    })
}

/// The `Stripe-Signature` header value for `payload` signed at `t`.
pub(crate) fn signature_header(secret: &str, t: i64, payload: &str) -> String {
    format!(
        "t={t},v1={}",
        hmac_sha256_hex(secret, &format!("{t}.{payload}"))
    )
}

pub(crate) fn notify(inner: &Inner, rec: &Rec, tamper: &Tamper, txn: &str) -> Notice {
    let mut rec = rec.clone();
    rec.txn = Some(txn.to_string());
    let unknown = *tamper == Tamper::UnknownPayment;
    if unknown {
        rec.payment.id = format!("cs_test_{}", random_alnum(58));
        let d = rec.data.as_object().cloned().unwrap_or_default();
        let mut d = Value::Object(d);
        d["client_reference_id"] = json!(uuid::Uuid::new_v4().to_string());
        d["metadata"] = util::randomize_strings(d.get("metadata").unwrap_or(&json!({})));
        d["subscription_metadata"] =
            util::randomize_strings(d.get("subscription_metadata").unwrap_or(&json!({})));
        if d.get("amount_total").is_none() {
            d["amount_total"] = json!(10_000);
            d["currency"] = json!("usd");
            d["mode"] = json!("payment");
            d["created"] = json!(util::now().unix_timestamp());
        }
        rec.data = d;
    }
    let declined = *tamper == Tamper::Declined;
    let mut session = session_json(
        inner,
        &rec,
        Some(if declined {
            View::Expired
        } else {
            View::Complete
        }),
    );
    let currency = session
        .get("currency")
        .and_then(Value::as_str)
        .unwrap_or("usd")
        .to_string();
    match tamper {
        Tamper::Amount(a) => {
            let minor = util::to_minor(a, exponent(&currency)).unwrap_or(0);
            session["amount_total"] = json!(minor);
            session["amount_subtotal"] = json!(minor);
        }
        Tamper::Currency(c) => session["currency"] = json!(c.to_ascii_lowercase()),
        _ => {}
    }
    let mut events = vec![event(
        if declined {
            "checkout.session.expired"
        } else {
            "checkout.session.completed"
        },
        session.clone(),
    )];
    let mode = rec
        .data
        .get("mode")
        .and_then(Value::as_str)
        .unwrap_or("payment");
    if mode == "subscription" && !declined {
        let sub_md = rec
            .data
            .get("subscription_metadata")
            .cloned()
            .unwrap_or_else(|| json!({}));
        let interval = rec
            .data
            .get("interval")
            .and_then(Value::as_str)
            .unwrap_or("month")
            .to_string();
        let count = rec
            .data
            .get("interval_count")
            .and_then(Value::as_i64)
            .unwrap_or(1);
        events.push(event(
            "invoice.paid",
            invoice_json(inner, &session, &sub_md, &interval, count),
        ));
    }
    let now = util::now().unix_timestamp();
    let t = if *tamper == Tamper::OldTimestamp {
        now - 600
    } else {
        now
    };
    let mut out = Vec::new();
    for ev in events {
        let payload = serde_json::to_string_pretty(&ev).unwrap_or_default();
        let secret = if *tamper == Tamper::ForgedSignature {
            "whsec_forged_by_someone_else_0000000000"
        } else {
            inner.creds.extra.as_str()
        };
        let sig = signature_header(secret, t, &payload);
        let sent = if *tamper == Tamper::BodyChangedAfterSigning {
            let mut changed = ev.clone();
            let obj = &mut changed["data"]["object"];
            for k in [
                "amount_total",
                "amount_subtotal",
                "amount_paid",
                "amount_due",
                "total",
                "subtotal",
            ] {
                if let Some(v) = obj.get(k).and_then(Value::as_i64) {
                    obj[k] = json!(v + 100);
                }
            }
            serde_json::to_string_pretty(&changed).unwrap_or_default()
        } else {
            payload
        };
        let mut headers = vec![
            (
                "Content-Type".to_string(),
                "application/json; charset=utf-8".to_string(),
            ),
            (
                "User-Agent".to_string(),
                "Stripe/1.0 (+https://stripe.com/docs/webhooks)".to_string(),
            ),
            ("Cache-Control".to_string(), "no-cache".to_string()),
        ];
        if *tamper != Tamper::MissingSignature {
            headers.push(("Stripe-Signature".to_string(), sig));
        }
        if !matches!(tamper, Tamper::ForgedSignature | Tamper::MissingSignature) {
            inner.lock().events.push(ev);
        }
        out.push(Outgoing {
            headers,
            body: sent,
        });
    }
    let effect = match tamper {
        Tamper::None => Effect::MarkPaid,
        Tamper::Declined => Effect::MarkDeclined,
        _ => Effect::Nothing,
    };
    (out, effect)
}

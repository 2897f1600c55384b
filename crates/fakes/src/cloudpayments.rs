//! CloudPayments (api.cloudpayments.ru) and its Kazakh clone TipTop Pay (api.tiptoppay.kz): HTTP Basic
//! `PublicId:ApiSecret`; `POST /orders/create` (a payment link); the status API `POST /payments/find`
//! (and `/v2/payments/find`) by InvoiceId, `POST /payments/get` by TransactionId, `POST /payments/list` by
//! Date; `POST /test`. Notifications (Pay, Fail) are form-urlencoded (the cabinet's default "CloudPayments"
//! format) and carry `Content-HMAC` (base64 HMAC-SHA256 of the raw body under the API secret) and
//! `X-Content-HMAC` (the same over the URL-decoded body).

use serde_json::{Map, Value, json};

use crate::util::{
    self, encode_form, hmac_sha256_b64, random_alnum, random_digits, two_dp, url_decode_body,
};
use crate::{Effect, Inner, Kind, Notice, Outcome, PayStatus, Payment, Rec, Req, Resp, Tamper};

/// ISO currencies CloudPayments lists, with its numeric CurrencyCode.
const CURRENCIES: [(&str, i64); 20] = [
    ("RUB", 0),
    ("USD", 1),
    ("EUR", 2),
    ("GBP", 3),
    ("UAH", 4),
    ("BYN", 5),
    ("KZT", 7),
    ("AZN", 8),
    ("CHF", 9),
    ("CZK", 10),
    ("CAD", 11),
    ("PLN", 12),
    ("SEK", 13),
    ("TRY", 14),
    ("CNY", 15),
    ("INR", 16),
    ("BRL", 17),
    ("ZAR", 18),
    ("UZS", 19),
    ("BGN", 20),
];

fn currency_code(c: &str) -> i64 {
    CURRENCIES
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(c))
        .map(|(_, v)| *v)
        .unwrap_or(-1)
}

fn default_currency(kind: Kind) -> &'static str {
    if kind == Kind::TipTopPay {
        "KZT"
    } else {
        "RUB"
    }
}

fn fail(message: &str) -> Resp {
    Resp::json(
        200,
        &json!({"Model": null, "Success": false, "Message": message}),
    )
}

fn ok(model: Value) -> Resp {
    Resp::json(
        200,
        &json!({"Model": model, "Success": true, "Message": null}),
    )
}

fn server_error() -> Resp {
    Resp::json(
        500,
        &json!({"Model": null, "Success": false, "Message": "Internal server error"}),
    )
}

/// The request's parameters: a JSON object, or form fields as strings.
fn params(req: &Req, problems: &mut Vec<String>) -> Map<String, Value> {
    let ct = req.content_type();
    if ct == "application/json" {
        match req.json() {
            Some(Value::Object(m)) => m,
            _ => {
                problems.push("body is not a JSON object".to_string());
                Map::new()
            }
        }
    } else if ct == "application/x-www-form-urlencoded" {
        req.form()
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect()
    } else if req.body.is_empty() {
        Map::new()
    } else {
        problems.push(format!(
            "Content-Type must be application/json (got {ct:?})"
        ));
        match req.json() {
            Some(Value::Object(m)) => m,
            _ => req
                .form()
                .into_iter()
                .map(|(k, v)| (k, Value::String(v)))
                .collect(),
        }
    }
}

fn str_param(p: &Map<String, Value>, k: &str) -> Option<String> {
    match p.get(k) {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    }
}

pub(crate) fn api(inner: &Inner, req: &Req, failing: bool) -> Outcome {
    let path = req.path.trim_end_matches('/').to_ascii_lowercase();
    let known = [
        "/test",
        "/orders/create",
        "/payments/find",
        "/v2/payments/find",
        "/payments/get",
        "/payments/list",
    ];
    if req.method != "POST" || !known.contains(&path.as_str()) {
        return crate::unknown_endpoint(req, Resp::text(404, ""));
    }
    let auth_ok = req
        .basic()
        .is_some_and(|(u, p)| u == inner.creds.public_id && util::ct_eq(&p, &inner.creds.secret));
    if !auth_ok {
        let resp = Resp::text(401, "").with_header("www-authenticate", "Basic realm=\"api\"");
        return Outcome {
            resp,
            auth_ok: false,
            signature_ok: None,
            problems: Vec::new(),
        };
    }
    let mut problems = Vec::new();
    let p = params(req, &mut problems);
    let resp = if failing {
        server_error()
    } else {
        match path.as_str() {
            "/test" => Resp::json(
                200,
                &json!({"Success": true, "Message": uuid::Uuid::new_v4().to_string()}),
            ),
            "/orders/create" => create(inner, &p, &mut problems),
            "/payments/find" | "/v2/payments/find" => match str_param(&p, "InvoiceId") {
                Some(inv) => {
                    let found = inner
                        .lock()
                        .recs
                        .iter()
                        .rev()
                        .find(|r| {
                            r.txn.is_some()
                                && r.data.get("InvoiceId").and_then(Value::as_str)
                                    == Some(inv.as_str())
                        })
                        .cloned();
                    match found {
                        Some(r) => ok(transaction(inner.kind, &r)),
                        None => fail("Not found"),
                    }
                }
                None => {
                    problems.push("InvoiceId missing".to_string());
                    fail("InvoiceId is required")
                }
            },
            "/payments/get" => match str_param(&p, "TransactionId") {
                Some(t) => {
                    let found = inner
                        .lock()
                        .recs
                        .iter()
                        .find(|r| r.txn.as_deref() == Some(t.as_str()))
                        .cloned();
                    match found {
                        Some(r) => ok(transaction(inner.kind, &r)),
                        None => fail("Not found"),
                    }
                }
                None => {
                    problems.push("TransactionId missing".to_string());
                    fail("TransactionId is required")
                }
            },
            _ => match str_param(&p, "Date") {
                Some(date) => {
                    if let Some(tz) = str_param(&p, "TimeZone")
                        && tz != "UTC"
                    {
                        problems.push(format!(
                            "the fake lists by UTC dates only (TimeZone {tz} ignored)"
                        ));
                    }
                    let list: Vec<Value> = inner
                        .lock()
                        .recs
                        .iter()
                        .filter(|r| r.paid_at.is_some_and(|t| util::fmt_date(t) == date))
                        .map(|r| transaction(inner.kind, r))
                        .collect();
                    ok(Value::Array(list))
                }
                None => {
                    problems.push("Date missing".to_string());
                    fail("Date is required")
                }
            },
        }
    };
    Outcome {
        resp,
        auth_ok,
        signature_ok: None,
        problems,
    }
}

fn create(inner: &Inner, p: &Map<String, Value>, problems: &mut Vec<String>) -> Resp {
    let amount = match p.get("Amount") {
        None | Some(Value::Null) => {
            problems.push("Amount missing".to_string());
            return fail("Amount is required");
        }
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::String(s)) => {
            problems.push("Amount should be a JSON number".to_string());
            s.clone()
        }
        Some(other) => {
            problems.push(format!("Amount must be a number (got {other})"));
            return fail("Amount is invalid");
        }
    };
    match amount.parse::<f64>() {
        Ok(a) if a > 0.0 => {}
        _ => {
            problems.push(format!("Amount must be a positive number (got {amount})"));
            return fail("Amount is invalid");
        }
    }
    if amount.split_once('.').is_some_and(|(_, f)| f.len() > 2) {
        problems.push(format!("Amount has more than two decimals ({amount})"));
    }
    let description = match str_param(p, "Description") {
        Some(d) => d,
        None => {
            problems.push("Description missing".to_string());
            return fail("Description is required");
        }
    };
    let currency = match str_param(p, "Currency") {
        Some(c) => {
            if !util::is_upper_iso_currency(&c) {
                problems.push(format!("Currency must be upper-case ISO (got {c})"));
            }
            if currency_code(&c) < 0 {
                problems.push(format!(
                    "Currency {c} is not in the provider's currency list"
                ));
                return fail("Currency is not supported");
            }
            c
        }
        None => default_currency(inner.kind).to_string(),
    };
    let email = str_param(p, "Email");
    if let Some(e) = &email
        && !util::is_email(e)
    {
        problems.push(format!("Email malformed ({e})"));
    }
    let json_data = match p.get("JsonData") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => {
            if serde_json::from_str::<Value>(s).is_err() {
                problems.push("JsonData is a string that is not JSON".to_string());
            }
            Some(s.clone())
        }
        Some(v) => Some(v.to_string()),
    };
    for b in ["RequireConfirmation", "SendEmail", "SendSms", "SendViber"] {
        if let Some(v) = p.get(b)
            && !v.is_boolean()
            && !matches!(v.as_str(), Some("true" | "false"))
        {
            problems.push(format!("{b} must be a boolean"));
        }
    }
    let seq = inner.next_seq();
    let id = random_alnum(16);
    let now = util::now();
    let ms = now.unix_timestamp() * 1000 + i64::from(now.millisecond());
    let amount_num: Value = serde_json::from_str(&amount).unwrap_or(json!(0));
    let model = json!({
        "Id": id,
        "Number": seq,
        "Amount": amount_num,
        "Currency": currency,
        "CurrencyCode": currency_code(&currency),
        "Email": email,
        "Phone": str_param(p, "Phone"),
        "Description": description,
        "RequireConfirmation": p.get("RequireConfirmation").map(|v| v.as_bool().unwrap_or(v.as_str() == Some("true"))).unwrap_or(false),
        "Url": format!("{}/pay/{id}", inner.base_url),
        "CultureName": str_param(p, "CultureName").unwrap_or_else(|| "ru-RU".to_string()),
        "CreatedDate": format!("/Date({ms})/"),
        "CreatedDateIso": util::fmt_iso_local(now),
        "PaymentDate": null,
        "PaymentDateIso": null,
        "StatusCode": 0,
        "Status": "Created",
        "InternalId": 7_000 + seq,
    });
    let invoice_id = str_param(p, "InvoiceId");
    let rec = Rec {
        payment: Payment {
            id: id.clone(),
            amount: amount.clone(),
            currency: currency.clone(),
            email: email.clone(),
            reference: invoice_id.clone().or_else(|| json_data.clone()),
            success_url: str_param(p, "SuccessRedirectUrl"),
            raw: Value::Object(p.clone()),
        },
        status: PayStatus::Open,
        created: now,
        paid_at: None,
        txn: None,
        data: json!({
            "Amount": amount,
            "Currency": currency,
            "Description": description,
            "Email": email,
            "InvoiceId": invoice_id,
            "AccountId": str_param(p, "AccountId"),
            "JsonData": json_data,
        }),
    };
    inner.push_rec(rec);
    ok(model)
}

fn transaction(kind: Kind, r: &Rec) -> Value {
    let d = &r.data;
    let created = r.paid_at.unwrap_or(r.created);
    let ms = created.unix_timestamp() * 1000;
    let paid = r.status == PayStatus::Paid;
    let amount: Value = serde_json::from_str(&r.payment.amount).unwrap_or(json!(0));
    let cur = r.payment.currency.clone();
    json!({
        "ReasonCode": if paid { 0 } else { 5051 },
        "PublicId": null,
        "TerminalUrl": null,
        "TransactionId": r.txn.as_deref().and_then(|t| t.parse::<i64>().ok()),
        "Amount": amount,
        "Currency": cur,
        "CurrencyCode": currency_code(&cur),
        "PaymentAmount": amount,
        "PaymentCurrency": cur,
        "PaymentCurrencyCode": currency_code(&cur),
        "InvoiceId": d.get("InvoiceId"),
        "AccountId": d.get("AccountId"),
        "Email": d.get("Email"),
        "Description": d.get("Description"),
        "JsonData": d.get("JsonData"),
        "CreatedDate": format!("/Date({ms})/"),
        "CreatedDateIso": util::fmt_iso_local(created),
        "AuthDate": if paid { json!(format!("/Date({ms})/")) } else { Value::Null },
        "AuthDateIso": if paid { json!(util::fmt_iso_local(created)) } else { Value::Null },
        "ConfirmDate": if paid { json!(format!("/Date({ms})/")) } else { Value::Null },
        "ConfirmDateIso": if paid { json!(util::fmt_iso_local(created)) } else { Value::Null },
        "AuthCode": if paid { json!("A1B2C3") } else { Value::Null },
        "TestMode": true,
        "Rrn": null,
        "OriginalTransactionId": null,
        "FallBackScenarioDeclinedTransactionId": null,
        "IpAddress": "127.0.0.1",
        "IpCountry": if kind == Kind::TipTopPay { "KZ" } else { "RU" },
        "IpCity": null,
        "IpRegion": null,
        "IpDistrict": null,
        "IpLatitude": null,
        "IpLongitude": null,
        "CardFirstSix": "424242",
        "CardLastFour": "4242",
        "CardExpDate": "12/30",
        "CardType": "Visa",
        "CardProduct": null,
        "CardCategory": null,
        "EscrowAccumulationId": null,
        "IssuerBankCountry": if kind == Kind::TipTopPay { "KZ" } else { "RU" },
        "Issuer": "Fake Bank",
        "CardTypeCode": 0,
        "Status": if paid { "Completed" } else { "Declined" },
        "StatusCode": if paid { 3 } else { 5 },
        "CultureName": "ru",
        "Reason": if paid { "Approved" } else { "InsufficientFunds" },
        "CardHolderMessage": if paid { "Оплата успешно проведена" } else { "Недостаточно средств на карте" },
        "Type": 0,
        "Refunded": false,
        "Name": "CARD HOLDER",
        "Token": null,
        "SubscriptionId": null,
        "GatewayName": "Test",
        "AndroidPay": false,
        "WalletType": "",
        "TotalFee": 0,
    })
}

pub(crate) fn notify(inner: &Inner, rec: &Rec, tamper: &Tamper, txn: &str) -> Notice {
    let d = &rec.data;
    let get = |k: &str| d.get(k).and_then(Value::as_str).map(str::to_string);
    let unknown = *tamper == Tamper::UnknownPayment;
    let amount = match tamper {
        Tamper::Amount(a) => two_dp(a),
        _ => two_dp(&rec.payment.amount),
    };
    let currency = match tamper {
        Tamper::Currency(c) => c.clone(),
        _ => rec.payment.currency.clone(),
    };
    let txn = if unknown {
        format!("9{}", random_digits(9))
    } else {
        txn.to_string()
    };
    let invoice_id = if unknown {
        Some(uuid::Uuid::new_v4().to_string())
    } else {
        get("InvoiceId")
    };
    let account_id = if unknown {
        Some(uuid::Uuid::new_v4().to_string())
    } else {
        get("AccountId")
    };
    let data = match get("JsonData") {
        Some(j) if unknown => Some(match serde_json::from_str::<Value>(&j) {
            Ok(v) => util::randomize_strings(&v).to_string(),
            Err(_) => uuid::Uuid::new_v4().to_string(),
        }),
        Some(j) => Some(j),
        None if unknown => Some(json!({"invoiceId": uuid::Uuid::new_v4().to_string()}).to_string()),
        None => None,
    };
    let country = if inner.kind == Kind::TipTopPay {
        "KZ"
    } else {
        "RU"
    };
    let declined = *tamper == Tamper::Declined;
    let mut f: Vec<(String, String)> = Vec::new();
    let mut push = |k: &str, v: &str| f.push((k.to_string(), v.to_string()));
    push("TransactionId", &txn);
    push("Amount", &amount);
    push("Currency", &currency);
    push("PaymentAmount", &amount);
    push("PaymentCurrency", &currency);
    push("OperationType", "Payment");
    if let Some(v) = &invoice_id {
        push("InvoiceId", v);
    }
    if let Some(v) = &account_id {
        push("AccountId", v);
    }
    push("SubscriptionId", "");
    push("Name", "CARD HOLDER");
    if let Some(v) = &rec.payment.email {
        push("Email", v);
    }
    push("DateTime", &util::fmt_datetime(util::now()));
    push("IpAddress", "127.0.0.1");
    push("IpCountry", country);
    push("IpCity", "");
    push("IpRegion", "");
    push("IpDistrict", "");
    push("IpLatitude", "");
    push("IpLongitude", "");
    push("CardId", &util::random_hex(32));
    push("CardFirstSix", "424242");
    push("CardLastFour", "4242");
    push("CardType", "Visa");
    push("CardExpDate", "12/30");
    push("Issuer", "Fake Bank");
    push("IssuerBankCountry", country);
    if let Some(v) = get("Description") {
        push("Description", &v);
    }
    push("TestMode", "1");
    if declined {
        push("Reason", "InsufficientFunds");
        push("ReasonCode", "5051");
    } else {
        push("AuthCode", "A1B2C3");
        push("Token", &format!("tk_{}", random_alnum(24)));
        push("Status", "Completed");
        push("TotalFee", "0.00");
    }
    push("GatewayName", "Test");
    push("Rrn", &random_digits(12));
    if let Some(v) = &data {
        push("Data", v);
    }
    let body = encode_form(&f);
    let secret = if *tamper == Tamper::ForgedSignature {
        "forged-api-secret"
    } else {
        inner.creds.secret.as_str()
    };
    let content_hmac = hmac_sha256_b64(secret, body.as_bytes());
    let x_content_hmac = hmac_sha256_b64(secret, url_decode_body(&body).as_bytes());
    let sent = if *tamper == Tamper::BodyChangedAfterSigning {
        let bumped = util::to_minor(&amount, 2)
            .map(|m| util::from_minor(m + 100, 2))
            .unwrap_or_else(|| "1.00".to_string());
        let changed: Vec<(String, String)> = f
            .iter()
            .map(|(k, v)| {
                if k == "Amount" || k == "PaymentAmount" {
                    (k.clone(), bumped.clone())
                } else {
                    (k.clone(), v.clone())
                }
            })
            .collect();
        encode_form(&changed)
    } else {
        body
    };
    let mut headers = vec![(
        "Content-Type".to_string(),
        "application/x-www-form-urlencoded; charset=utf-8".to_string(),
    )];
    if *tamper != Tamper::MissingSignature {
        headers.push(("Content-HMAC".to_string(), content_hmac));
        headers.push(("X-Content-HMAC".to_string(), x_content_hmac));
    }
    crate::single(headers, sent, Effect::of(tamper))
}

// ---------------------------------------------------------------------------------------------------------
// The payment widget: its script and the call its "Pay" makes.

/// The widget's script, where each provider serves it (`widget.cloudpayments.ru/bundles/cloudpayments.js`,
/// `widget.tiptoppay.kz/bundles/widget.js`; both paths answer here).
const WIDGET_JS: &str = include_str!("../assets/widget.js");

/// `GET /bundles/cloudpayments.js` · `/bundles/widget.js`: the script. `POST /widget/pay` (from the
/// page, cross-origin, as `text/plain` JSON so no preflight is needed; `OPTIONS` answered anyway): the
/// card form's "Pay" — checked like the widget checks its options (`publicId` must be this terminal's,
/// `amount` > 0, a currency the terminal takes, a description, an email when `requireEmail`), recorded as
/// a payment with the page's `invoiceId` and `accountId`, and paid: the Pay notification goes to the shop
/// as for a hosted payment. Answers `{success, transactionId}` or `{success: false, message}`.
pub(crate) async fn widget(inner: &std::sync::Arc<Inner>, req: &Req) -> Option<Resp> {
    let cors = |r: Resp| {
        r.with_header("access-control-allow-origin", "*")
            .with_header("access-control-allow-methods", "POST, OPTIONS")
            .with_header("access-control-allow-headers", "content-type")
    };
    match (req.method.as_str(), req.path.as_str()) {
        ("GET", "/bundles/cloudpayments.js" | "/bundles/widget.js") => Some(Resp {
            status: 200,
            content_type: "text/javascript; charset=utf-8",
            headers: vec![("access-control-allow-origin".into(), "*".into())],
            body: WIDGET_JS.to_string(),
        }),
        ("OPTIONS", "/widget/pay") => Some(cors(Resp::text(204, ""))),
        ("POST", "/widget/pay") => Some(cors(widget_pay(inner, req).await)),
        _ => None,
    }
}

async fn widget_pay(inner: &std::sync::Arc<Inner>, req: &Req) -> Resp {
    let refuse = |m: &str| Resp::json(200, &json!({"success": false, "message": m}));
    let Some(Value::Object(o)) = req.json() else {
        return refuse("the body must be a JSON object");
    };
    if str_param(&o, "publicId").as_deref() != Some(inner.creds.public_id.as_str()) {
        return refuse("publicId is not this terminal's");
    }
    if !matches!(str_param(&o, "mode").as_deref(), Some("auth" | "charge")) {
        return refuse("mode must be auth or charge");
    }
    let email = str_param(&o, "email");
    if o.get("requireEmail") == Some(&Value::Bool(true))
        && !email.as_deref().is_some_and(util::is_email)
    {
        return refuse("an email is required");
    }
    let mut p = Map::new();
    p.insert(
        "Amount".into(),
        o.get("amount").cloned().unwrap_or(Value::Null),
    );
    for (ours, theirs) in [
        ("currency", "Currency"),
        ("description", "Description"),
        ("invoiceId", "InvoiceId"),
        ("accountId", "AccountId"),
    ] {
        if let Some(v) = str_param(&o, ours) {
            p.insert(theirs.into(), Value::String(v));
        }
    }
    if let Some(e) = email {
        p.insert("Email".into(), Value::String(e));
    }
    if let Some(d) = o.get("data").filter(|d| !d.is_null()) {
        p.insert("JsonData".into(), Value::String(d.to_string()));
    }
    let mut problems = Vec::new();
    let made = create(inner, &p, &mut problems);
    let model: Value = serde_json::from_str(&made.body).unwrap_or(Value::Null);
    let Some(id) = model["Model"]["Id"].as_str().map(str::to_owned) else {
        return refuse(
            model["Message"]
                .as_str()
                .unwrap_or("the payment was refused"),
        );
    };
    if !problems.is_empty() {
        return refuse(&problems.join("; "));
    }
    crate::pay(inner, &id, &Tamper::None).await;
    let txn = inner.find(&id).and_then(|r| r.txn).unwrap_or_default();
    Resp::json(200, &json!({"success": true, "transactionId": txn}))
}

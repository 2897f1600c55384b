//! 0xProcessing "payment form with fixed amount": `POST /Payment` (x-www-form-urlencoded or form-data) with
//! MerchantId, Currency, Amount or AmountUSD, Email, ClientId, BillingID, Test, ReturnUrl, SuccessUrl,
//! CancelUrl. With `ReturnUrl=true` the answer is JSON with the payment form's URL (`redirectUrl`) and the
//! payment id; without it the browser is redirected (302) to the form. There is no authentication besides the
//! MerchantId. The webhook is JSON with `Signature = md5("{PaymentId}:{MerchantId}:{Email}:{Currency}:{webhook
//! password}")` — it covers neither the amount nor the status; the merchant must answer HTTP 200 (within 3 s).
//!
//! Field names are matched case-insensitively (an ASP.NET form binder does); a spelling that differs from the
//! documented one is recorded as a problem.

use serde_json::{Map, Value, json};

use crate::util::{self, md5_hex};
use crate::{Effect, Inner, Notice, Outcome, PayStatus, Payment, Rec, Req, Resp, Tamper};

const FIELDS: [&str; 14] = [
    "Amount",
    "AmountUSD",
    "Currency",
    "Email",
    "FirstName",
    "LastName",
    "ClientId",
    "MerchantId",
    "BillingID",
    "Test",
    "ReturnUrl",
    "CancelUrl",
    "SuccessUrl",
    "AutoReturn",
];

fn error(status: u16, msg: &str) -> Resp {
    Resp::json(status, &json!({"error": msg}))
}

/// The webhook's `Signature`.
pub(crate) fn signature(
    payment_id: &str,
    merchant_id: &str,
    email: &str,
    currency: &str,
    password: &str,
) -> String {
    md5_hex(&format!(
        "{payment_id}:{merchant_id}:{email}:{currency}:{password}"
    ))
}

fn is_bool_text(s: &str) -> bool {
    s.eq_ignore_ascii_case("true") || s.eq_ignore_ascii_case("false")
}

pub(crate) fn api(inner: &Inner, req: &Req, failing: bool) -> Outcome {
    if req.method != "POST"
        || !req
            .path
            .trim_end_matches('/')
            .eq_ignore_ascii_case("/payment")
    {
        return crate::unknown_endpoint(req, Resp::text(404, "Not Found"));
    }
    let mut problems = Vec::new();
    if req.path.trim_end_matches('/') != "/Payment" {
        problems.push(format!(
            "path {} differs from the documented /Payment",
            req.path
        ));
    }
    let ct = req.content_type();
    let pairs: Vec<(String, String)> = if ct == "application/x-www-form-urlencoded" {
        req.form()
    } else if ct == "multipart/form-data" {
        util::parse_multipart(req.header("content-type").unwrap_or(""), &req.body)
            .unwrap_or_default()
    } else {
        problems.push(format!("Content-Type must be application/x-www-form-urlencoded or multipart/form-data (got {ct:?})"));
        match req.json() {
            Some(Value::Object(m)) => m
                .into_iter()
                .map(|(k, v)| {
                    (
                        k,
                        util::json_decimal_text(&v).unwrap_or_else(|| v.to_string()),
                    )
                })
                .collect(),
            _ => req.form(),
        }
    };
    let mut fields: Map<String, Value> = Map::new();
    for (k, v) in &pairs {
        match FIELDS.iter().find(|f| f.eq_ignore_ascii_case(k)) {
            Some(doc) => {
                if doc != k {
                    problems.push(format!("field {k} should be spelled {doc}"));
                }
                fields.insert((*doc).to_string(), json!(v));
            }
            None => problems.push(format!("unknown field {k}")),
        }
    }
    let get = |k: &str| {
        fields
            .get(k)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let merchant = get("MerchantId");
    let auth_ok = merchant.as_deref() == Some(inner.creds.public_id.as_str());
    let out = |resp: Resp, problems: Vec<String>| Outcome {
        resp,
        auth_ok,
        signature_ok: None,
        problems,
    };
    if merchant.is_none() {
        problems.push("MerchantId missing".to_string());
    }
    if !auth_ok {
        return out(error(400, "Merchant not found"), problems);
    }
    let amount_usd = get("AmountUSD");
    let amount = get("Amount");
    for (name, v) in [("AmountUSD", &amount_usd), ("Amount", &amount)] {
        if let Some(v) = v
            && !v.parse::<f64>().is_ok_and(|x| x > 0.0)
        {
            problems.push(format!("{name} must be a positive number (got {v:?})"));
            return out(error(400, &format!("{name} is invalid")), problems);
        }
    }
    if amount_usd.is_none() && amount.is_none() {
        problems.push("Amount or AmountUSD missing".to_string());
        return out(error(400, "Amount or AmountUSD is required"), problems);
    }
    let Some(currency) = get("Currency") else {
        problems.push("Currency missing".to_string());
        return out(error(400, "Currency is required"), problems);
    };
    if ["USDT", "USDC"].contains(&currency.to_ascii_uppercase().as_str()) {
        problems.push(format!("Currency {currency:?} names no network; the documented values do, e.g. \"USDT (TRC20)\""));
    }
    let Some(email) = get("Email") else {
        problems.push("Email missing".to_string());
        return out(error(400, "Email is required"), problems);
    };
    if !util::is_email(&email) {
        problems.push(format!("Email malformed ({email})"));
    }
    let Some(client_id) = get("ClientId") else {
        problems.push("ClientId missing".to_string());
        return out(error(400, "ClientId is required"), problems);
    };
    for b in ["Test", "ReturnUrl", "AutoReturn"] {
        if let Some(v) = get(b)
            && !is_bool_text(&v)
        {
            problems.push(format!("{b} must be true or false (got {v:?})"));
        }
    }
    if failing {
        return out(Resp::text(500, "Internal Server Error"), problems);
    }
    let id = format!("{}", 100_000 + inner.next_seq());
    let url = format!("{}/pay/{id}", inner.base_url);
    let test = get("Test").is_some_and(|t| t.eq_ignore_ascii_case("true"));
    inner.push_rec(Rec {
        payment: Payment {
            id: id.clone(),
            amount: amount_usd
                .clone()
                .or_else(|| amount.clone())
                .unwrap_or_default(),
            currency: currency.clone(),
            email: Some(email.clone()),
            reference: get("BillingID"),
            success_url: get("SuccessUrl"),
            raw: Value::Object(pairs.iter().map(|(k, v)| (k.clone(), json!(v))).collect()),
        },
        status: PayStatus::Open,
        created: util::now(),
        paid_at: None,
        txn: None,
        data: json!({
            "MerchantId": inner.creds.public_id,
            "Currency": currency,
            "Email": email,
            "ClientId": client_id,
            "BillingID": get("BillingID"),
            "AmountUSD": amount_usd,
            "Amount": amount,
            "Test": test,
            "SuccessUrl": get("SuccessUrl"),
            "CancelUrl": get("CancelUrl"),
        }),
    });
    let resp = if get("ReturnUrl").is_some_and(|r| r.eq_ignore_ascii_case("true")) {
        Resp::json(
            200,
            &json!({"redirectUrl": url, "id": id.parse::<i64>().unwrap_or(0)}),
        )
    } else {
        Resp::redirect(302, &url)
    };
    out(resp, problems)
}

fn num(s: &str) -> Value {
    serde_json::from_str::<Value>(s.trim())
        .ok()
        .filter(Value::is_number)
        .unwrap_or(json!(0))
}

pub(crate) fn notify(inner: &Inner, rec: &Rec, tamper: &Tamper, _txn: &str) -> Notice {
    let unknown = *tamper == Tamper::UnknownPayment;
    let d = &rec.data;
    let get = |k: &str| d.get(k).and_then(Value::as_str).map(str::to_string);
    let payment_id = if unknown {
        format!("9{}", util::random_digits(8))
    } else {
        rec.payment.id.clone()
    };
    let currency = match tamper {
        Tamper::Currency(c) => c.clone(),
        _ => rec.payment.currency.clone(),
    };
    let email = rec.payment.email.clone().unwrap_or_default();
    let (usd, crypto) = match tamper {
        Tamper::Amount(a) => (a.clone(), a.clone()),
        _ => {
            let usd = get("AmountUSD")
                .or_else(|| get("Amount"))
                .unwrap_or_else(|| rec.payment.amount.clone());
            let crypto = get("Amount").unwrap_or_else(|| usd.clone());
            (usd, crypto)
        }
    };
    let merchant = inner.creds.public_id.clone();
    let password = if *tamper == Tamper::ForgedSignature {
        "forged-webhook-password"
    } else {
        inner.creds.secret.as_str()
    };
    let sig = signature(&payment_id, &merchant, &email, &currency, password);
    let (usd_sent, crypto_sent) = if *tamper == Tamper::BodyChangedAfterSigning {
        let bump = |s: &str| {
            s.trim()
                .parse::<f64>()
                .map(|x| format!("{}", x + 1.0))
                .unwrap_or_else(|_| "1".to_string())
        };
        (bump(&usd), bump(&crypto))
    } else {
        (usd, crypto)
    };
    let mut body = json!({
        "PaymentId": payment_id.parse::<i64>().unwrap_or(0),
        "MerchantId": merchant,
        "ShopId": merchant,
        "Amount": num(&crypto_sent),
        "AmountUSD": num(&usd_sent),
        "TotalAmount": num(&crypto_sent),
        "TotalAmountUSD": num(&usd_sent),
        "Currency": currency,
        "Email": email,
        "Status": if *tamper == Tamper::Declined { "Canceled" } else { "Success" },
        "BillingID": if unknown { json!(uuid::Uuid::new_v4().to_string()) } else { json!(get("BillingID")) },
        "Signature": sig,
        "Insufficient": false,
        "Test": d.get("Test").and_then(Value::as_bool).unwrap_or(false),
        "ClientId": if unknown { uuid::Uuid::new_v4().to_string() } else { get("ClientId").unwrap_or_default() },
        "TxHashes": [format!("0x{}", util::random_hex(64))],
    });
    if *tamper == Tamper::MissingSignature
        && let Some(m) = body.as_object_mut()
    {
        m.remove("Signature");
    }
    let headers = vec![("Content-Type".to_string(), "application/json".to_string())];
    crate::single(headers, body.to_string(), Effect::of(tamper))
}

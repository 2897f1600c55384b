//! PayKeeper JSON API: HTTP Basic (user:password) on every call; `GET /info/settings/token/` issues the
//! security token every POST must carry; `POST /change/invoice/preview/` (form) prepares an invoice and
//! returns its link; `GET /info/invoice/byid/?id=` reads it back (`status` created → paid). Errors are
//! `{"result":"fail","msg":…}`. After a payment PayKeeper POSTs a form notification (`id, sum, clientid,
//! orderid, key`, …) with `key = md5(id + sum + clientid + orderid + secret seed)` and expects the answer
//! `OK md5(id + secret seed)`; any other answer counts as undelivered.

use serde_json::{Map, Value, json};

use crate::util::{self, encode_form, md5_hex, two_dp};
use crate::{
    Creds, Delivered, Effect, Inner, Notice, Outcome, PayStatus, Payment, Rec, Req, Resp, Tamper,
};

fn fail(msg: &str) -> Resp {
    Resp::json(200, &json!({"result": "fail", "msg": msg}))
}

pub(crate) fn api(inner: &Inner, req: &Req, failing: bool) -> Outcome {
    let path = format!("{}/", req.path.trim_end_matches('/'));
    let route = match (req.method.as_str(), path.as_str()) {
        ("GET", "/info/settings/token/") => 0,
        ("POST", "/change/invoice/preview/") => 1,
        ("GET", "/info/invoice/byid/") => 2,
        _ => return crate::unknown_endpoint(req, Resp::text(404, "Not Found")),
    };
    let auth_ok = req
        .basic()
        .is_some_and(|(u, p)| u == inner.creds.public_id && util::ct_eq(&p, &inner.creds.secret));
    if !auth_ok {
        let resp = Resp::text(401, "Unauthorized")
            .with_header("www-authenticate", "Basic realm=\"PayKeeper\"");
        return Outcome {
            resp,
            auth_ok,
            signature_ok: None,
            problems: Vec::new(),
        };
    }
    let mut problems = Vec::new();
    if !req.path.ends_with('/') {
        problems.push(format!("{} should end with '/' as documented", req.path));
    }
    let resp = if failing {
        Resp::json(
            500,
            &json!({"result": "fail", "msg": "Internal server error"}),
        )
    } else {
        match route {
            0 => {
                let token = util::random_hex(64);
                inner.lock().tokens.push(token.clone());
                Resp::json(200, &json!({"token": token}))
            }
            1 => preview(inner, req, &mut problems),
            _ => match req.query_param("id") {
                Some(id) => match inner.find(&id) {
                    Some(r) => Resp::json(200, &invoice_json(&r)),
                    None => fail("Счёт не найден"),
                },
                None => {
                    problems.push("id missing".to_string());
                    fail("Не указан id счёта")
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

fn preview(inner: &Inner, req: &Req, problems: &mut Vec<String>) -> Resp {
    if req.content_type() != "application/x-www-form-urlencoded" {
        problems.push(format!(
            "Content-Type must be application/x-www-form-urlencoded (got {:?})",
            req.content_type()
        ));
    }
    let form = req.form();
    let get = |k: &str| {
        form.iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.clone())
            .filter(|v| !v.is_empty())
    };
    match get("token") {
        None => {
            problems.push("token missing".to_string());
            return fail("Не передан токен безопасности");
        }
        Some(t) if !inner.lock().tokens.contains(&t) => {
            problems.push("token was not issued by /info/settings/token/".to_string());
            return fail("Неверный токен безопасности");
        }
        Some(_) => {}
    }
    let Some(amount) = get("pay_amount") else {
        problems.push("pay_amount missing".to_string());
        return fail("Не указана сумма счёта");
    };
    match util::to_minor(&amount, 2) {
        Some(m) if m > 0 => {}
        _ => {
            problems.push(format!(
                "pay_amount must be a positive decimal with at most two decimals (got {amount:?})"
            ));
            return fail("Неверная сумма счёта");
        }
    }
    if let Some(e) = get("client_email")
        && !util::is_email(&e)
    {
        problems.push(format!("client_email malformed ({e})"));
    }
    if let Some(x) = get("expiry") {
        let ok = x.len() >= 10
            && time::Date::parse(
                &x[..10],
                time::macros::format_description!("[year]-[month]-[day]"),
            )
            .is_ok();
        if !ok {
            problems.push(format!("expiry must be a date YYYY-MM-DD (got {x:?})"));
        }
    }
    let known = [
        "pay_amount",
        "clientid",
        "orderid",
        "service_name",
        "client_email",
        "client_phone",
        "expiry",
        "token",
        "cart",
        "user_result_callback",
    ];
    for (k, _) in &form {
        if !known.contains(&k.as_str()) {
            problems.push(format!("unknown field {k}"));
        }
    }
    let now = util::now();
    let id = format!("{}{:03}", now.unix_timestamp(), inner.next_seq() % 1000);
    let raw: Map<String, Value> = form.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
    inner.push_rec(Rec {
        payment: Payment {
            id: id.clone(),
            amount: amount.clone(),
            currency: "RUB".to_string(),
            email: get("client_email"),
            reference: get("orderid"),
            success_url: None,
            raw: Value::Object(raw),
        },
        status: PayStatus::Open,
        created: now,
        paid_at: None,
        txn: None,
        data: json!({
            "pay_amount": amount,
            "clientid": get("clientid"),
            "orderid": get("orderid"),
            "service_name": get("service_name"),
            "client_email": get("client_email"),
            "client_phone": get("client_phone"),
            "expiry": get("expiry"),
        }),
    });
    let url = format!("{}/bill/{id}/", inner.base_url);
    Resp::json(
        200,
        &json!({"invoice_id": id, "invoice_url": url, "invoice": format!("Счёт №{id} на сумму {amount} руб. Оплатить: {url}")}),
    )
}

fn invoice_json(r: &Rec) -> Value {
    let d = &r.data;
    json!({
        "id": r.payment.id,
        "user_id": "fake",
        "status": match r.status { PayStatus::Open => "created", PayStatus::Paid => "paid", PayStatus::Declined => "created" },
        "pay_amount": r.payment.amount,
        "clientid": d.get("clientid"),
        "orderid": d.get("orderid"),
        "paymentid": r.txn,
        "service_name": d.get("service_name"),
        "client_email": d.get("client_email"),
        "client_phone": d.get("client_phone"),
        "expiry_datetime": d.get("expiry"),
        "created_datetime": util::fmt_datetime(r.created),
        "paid_datetime": r.paid_at.map(util::fmt_datetime),
    })
}

/// The notification's `key`.
pub(crate) fn key(id: &str, sum: &str, clientid: &str, orderid: &str, seed: &str) -> String {
    md5_hex(&format!("{id}{sum}{clientid}{orderid}{seed}"))
}

/// The answer PayKeeper requires: `OK md5(id + secret seed)`.
pub(crate) fn expected_answer(id: &str, seed: &str) -> String {
    format!("OK {}", md5_hex(&format!("{id}{seed}")))
}

pub(crate) fn answer_ok(creds: &Creds, d: &Delivered) -> bool {
    let id = util::parse_form(d.sent_body.as_bytes())
        .into_iter()
        .find(|(k, _)| k == "id")
        .map(|(_, v)| v);
    id.is_some_and(|id| d.body.trim() == expected_answer(&id, &creds.extra))
}

pub(crate) fn notify(inner: &Inner, rec: &Rec, tamper: &Tamper, txn: &str) -> Notice {
    let unknown = *tamper == Tamper::UnknownPayment;
    let d = &rec.data;
    let get = |k: &str| d.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let id = if unknown {
        format!("9{}", util::random_digits(8))
    } else {
        txn.to_string()
    };
    let sum = match tamper {
        Tamper::Amount(a) => two_dp(a),
        _ => two_dp(&rec.payment.amount),
    };
    let clientid = if unknown {
        uuid::Uuid::new_v4().to_string()
    } else {
        get("clientid")
    };
    let orderid = if unknown {
        uuid::Uuid::new_v4().to_string()
    } else {
        get("orderid")
    };
    let seed = if *tamper == Tamper::ForgedSignature {
        "forged-secret-seed"
    } else {
        inner.creds.extra.as_str()
    };
    let k = key(&id, &sum, &clientid, &orderid, seed);
    let sent_sum = if *tamper == Tamper::BodyChangedAfterSigning {
        util::to_minor(&sum, 2)
            .map(|m| util::from_minor(m + 100, 2))
            .unwrap_or_else(|| "1.00".to_string())
    } else {
        sum
    };
    let mut f: Vec<(String, String)> = vec![
        ("id".into(), id),
        ("sum".into(), sent_sum),
        ("clientid".into(), clientid),
        ("orderid".into(), orderid),
    ];
    if *tamper != Tamper::MissingSignature {
        f.push(("key".into(), k));
    }
    for (name, v) in [
        ("service_name", get("service_name")),
        (
            "client_email",
            rec.payment.email.clone().unwrap_or_default(),
        ),
        ("client_phone", get("client_phone")),
        ("ps_id", "1".to_string()),
        ("batch_date", String::new()),
        ("fop_receipt_key", String::new()),
        ("bank_id", String::new()),
        ("card_number", "411111******1111".to_string()),
        ("card_holder", "CARD HOLDER".to_string()),
        ("card_expiry", "12/30".to_string()),
    ] {
        f.push((name.to_string(), v));
    }
    let headers = vec![(
        "Content-Type".to_string(),
        "application/x-www-form-urlencoded".to_string(),
    )];
    // PayKeeper notifies successful payments only: Declined and Currency (no currency field) post as None does.
    let effect = match tamper {
        Tamper::None | Tamper::OldTimestamp | Tamper::Declined | Tamper::Currency(_) => {
            Effect::MarkPaid
        }
        _ => Effect::Nothing,
    };
    crate::single(headers, encode_form(&f), effect)
}

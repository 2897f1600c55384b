//! The hosted payment page every fake serves at `/pay/{id}` (PayKeeper's documented `/bill/{id}/` too).
//!
//! * `GET /pay/{id}[?return=URL]` — an accessible page: the amount and currency, a "Pay" button and a
//!   "Decline" button.
//! * `POST /pay/{id}[?return=URL]` — "the buyer paid": the fake posts the provider's notification exactly as
//!   `Fake::pay(id, Tamper::None)` does, then answers 303 to the payment's success URL (Stripe: `success_url`
//!   with `{CHECKOUT_SESSION_ID}` filled in; CloudPayments: `SuccessRedirectUrl`; Payselection:
//!   `ExtraData.SuccessUrl`; 0xProcessing: `SuccessUrl`) or, when the create call had none (PayKeeper never
//!   has one), to the `return` query parameter (or form field). With neither, it answers 200 with a page.
//! * `POST /pay/{id}/decline[?return=URL]` — the buyer's card was declined: posts the provider's failure
//!   notification (`Tamper::Declined`) and answers 303 to the cancel/fail URL, else `return`, else a page.

use std::sync::Arc;

use serde_json::Value;

use crate::util::html_escape;
use crate::{Inner, Kind, PayStatus, Req, Resp, Tamper};

pub(crate) async fn handle(inner: &Arc<Inner>, req: &Req) -> Option<Resp> {
    let rest = req
        .path
        .strip_prefix("/pay/")
        .or_else(|| req.path.strip_prefix("/bill/"))?;
    let rest = rest.trim_end_matches('/');
    let (id, decline) = match rest.strip_suffix("/decline") {
        Some(id) => (id, true),
        None => (rest, false),
    };
    if id.is_empty() || id.contains('/') {
        return None;
    }
    let form = if req.method == "POST" {
        req.form()
    } else {
        Vec::new()
    };
    let ret = req.query_param("return").or_else(|| {
        form.iter()
            .find(|(k, _)| k == "return")
            .map(|(_, v)| v.clone())
    });
    let rec = match inner.find(id) {
        Some(r) => r,
        None => {
            return Some(html(
                404,
                "Payment not found",
                "<p>There is no payment with this id.</p>",
            ));
        }
    };
    match (req.method.as_str(), decline) {
        ("GET", false) => Some(show(inner.kind, &rec, id, ret.as_deref())),
        ("POST", false) => {
            if rec.status != PayStatus::Paid {
                let _ = crate::pay(inner, id, &Tamper::None).await;
            }
            Some(after(
                success_url(inner.kind, &rec),
                ret,
                "Payment complete",
                "The payment was made.",
            ))
        }
        ("POST", true) => {
            if rec.status == PayStatus::Open {
                let _ = crate::pay(inner, id, &Tamper::Declined).await;
            }
            Some(after(
                cancel_url(inner.kind, &rec),
                ret,
                "Payment declined",
                "The payment was declined.",
            ))
        }
        _ => Some(Resp::text(405, "method not allowed")),
    }
}

fn show(kind: Kind, rec: &crate::Rec, id: &str, ret: Option<&str>) -> Resp {
    let amount = html_escape(&rec.payment.amount);
    let currency = html_escape(&rec.payment.currency);
    let q = match ret {
        Some(r) => format!(
            "?return={}",
            form_urlencoded::byte_serialize(r.as_bytes()).collect::<String>()
        ),
        None => String::new(),
    };
    let id_enc: String = form_urlencoded::byte_serialize(id.as_bytes()).collect();
    let status = match rec.status {
        PayStatus::Open => "Awaiting payment",
        PayStatus::Paid => "Paid",
        PayStatus::Declined => "Declined",
    };
    let buttons = if rec.status != PayStatus::Paid {
        format!(
            "<form method=\"post\" action=\"/pay/{id_enc}{q}\"><button type=\"submit\">Pay</button></form>\n\
             <form method=\"post\" action=\"/pay/{id_enc}/decline{q}\"><button type=\"submit\">Decline</button></form>"
        )
    } else {
        String::new()
    };
    let body = format!(
        "<p>Amount: <strong data-testid=\"amount\">{amount}</strong> <span data-testid=\"currency\">{currency}</span></p>\n\
         <p>Status: <span data-testid=\"status\">{status}</span></p>\n{buttons}"
    );
    html(
        200,
        &format!("{} (fake) — pay {amount} {currency}", kind.title()),
        &body,
    )
}

fn after(target: Option<String>, ret: Option<String>, title: &str, text: &str) -> Resp {
    match target.or(ret) {
        Some(url) if !url.is_empty() => Resp::redirect(303, &url),
        _ => html(200, title, &format!("<p>{}</p>", html_escape(text))),
    }
}

fn html(status: u16, title: &str, body: &str) -> Resp {
    let t = html_escape(title);
    Resp {
        status,
        content_type: "text/html; charset=utf-8",
        headers: Vec::new(),
        body: format!(
            "<!doctype html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><link rel=\"icon\" href=\"data:,\">\
             <title>{t}</title></head>\n<body><main>\n<h1>{t}</h1>\n{body}\n</main></body>\n</html>\n"
        ),
    }
}

fn str_at(v: &Value, path: &[&str]) -> Option<String> {
    let mut cur = v;
    for p in path {
        cur = cur.get(*p)?;
    }
    cur.as_str().filter(|s| !s.is_empty()).map(str::to_string)
}

fn success_url(kind: Kind, rec: &crate::Rec) -> Option<String> {
    let url = rec.payment.success_url.clone()?;
    Some(match kind {
        Kind::Stripe => url.replace("{CHECKOUT_SESSION_ID}", &rec.payment.id),
        _ => url,
    })
}

fn cancel_url(kind: Kind, rec: &crate::Rec) -> Option<String> {
    let raw = &rec.payment.raw;
    match kind {
        Kind::Stripe => str_at(raw, &["cancel_url"]),
        Kind::CloudPayments | Kind::TipTopPay => str_at(raw, &["FailRedirectUrl"]),
        Kind::Payselection | Kind::PayselectionInternational => {
            str_at(raw, &["PaymentRequest", "ExtraData", "DeclineUrl"])
                .or_else(|| str_at(raw, &["PaymentRequest", "ExtraData", "FailUrl"]))
                .or_else(|| str_at(raw, &["PaymentRequest", "ExtraData", "CancelUrl"]))
        }
        Kind::PayKeeper => None,
        Kind::OxProcessing => rec
            .data
            .get("CancelUrl")
            .and_then(Value::as_str)
            .map(str::to_string),
    }
}

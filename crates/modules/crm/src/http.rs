//! Form submissions: `POST /api/crm/forms/{id}/requests` (anyone) and
//! `POST /api/rbac/subjects/{id}/crm-module/form/request` (a signed-in sender, `{formId, …}`), and
//! an admin's reply. Typed routes (`stoa_api::endpoint`, types in `views`); the rates are
//! counted before a body is read.

use std::sync::Arc;

use stoa_api::endpoint::{ById, Endpoint, In, Json, Later, Nothing, Row};
use stoa_api::rate::Budget;
use stoa_api::{Access, AppState, RouteBook};

use crate::requests::{Requests, Submitted};
use crate::views::{CrmRequest, FormValues, ReplyBody, SignedFormValues};

/// The rate limits of submissions: per sender (client IP, or account) and form, and per form —
/// counted by all instances together on PostgreSQL.
pub struct Limits {
    pub sender: Budget,
    pub form: Budget,
}

const TAG: &str = "crm";

fn answer(s: Submitted) -> Row<CrmRequest> {
    Row::new(match s {
        Submitted::Stored(row) => row.to_json(),
        Submitted::Ignored(v) => v,
    })
}

/// The service and its limits, as the handlers get them.
pub struct Crm {
    pub requests: Arc<Requests>,
    pub limits: Limits,
}

pub fn routes(requests: Arc<Requests>, limits: Limits) -> RouteBook<AppState> {
    let crm = Arc::new(Crm { requests, limits });
    RouteBook::new()
        .endpoint(
            crm.clone(),
            Endpoint::post(TAG, "/api/crm/forms/{id}/requests", "crmFormRequestCreate")
                .access(Access::Public)
                .status(201)
                .summary("Submit a form: the values keyed by each input's slug (required inputs filled, emails are addresses, numbers within the input's min and max); 10 a minute per address and form")
                .errors(&[400, 404, 413, 415, 422, 429]),
            |c: Arc<Crm>, x: In<ById, Nothing, Later<Json<FormValues>>>| async move {
                let form = x.path.id;
                // Checked before the body is read.
                c.limits.sender.check(&format!("{}|{form}", x.client)).await?;
                c.limits.form.check(&form.to_string()).await?;
                let lang = stoa_api::body::accept_language(&x.headers, &c.requests.default_language());
                let Json(FormValues(values)) = x.body.read().await?;
                Ok(answer(c.requests.submit(form, &values, None, &lang).await?))
            },
        )
        .endpoint(
            crm.clone(),
            Endpoint::post(TAG, "/api/rbac/subjects/{id}/crm-module/form/request", "subjectCrmFormRequest")
                .access(Access::Owner)
                .status(201)
                .summary("Submit a form as the signed-in subject: {formId, …values by input slug}; the request records who sent it")
                .errors(&[400, 401, 403, 404, 413, 415, 422, 429]),
            |c: Arc<Crm>, x: In<ById, Nothing, Later<Json<SignedFormValues>>>| async move {
                let subject = x.caller.acting_for(x.path.id)?;
                c.limits.sender.check(&format!("subject:{subject}")).await?;
                let lang = stoa_api::body::accept_language(&x.headers, &c.requests.default_language());
                let Json(body) = x.body.read().await?;
                c.limits.form.check(&body.form_id.to_string()).await?;
                Ok(answer(c.requests.submit(body.form_id, &body.values, Some(subject), &lang).await?))
            },
        )
        .endpoint(
            crm,
            Endpoint::post(TAG, "/api/crm/requests/{id}/reply", "crmRequestReply")
                .summary("Answers a submission by mail to its sender, in the sender's language; a new one becomes 'in progress'")
                .errors(&[400, 401, 403, 404, 413, 415, 422]),
            |c: Arc<Crm>, x: In<ById, Nothing, Json<ReplyBody>>| async move {
                let Json(b) = x.body;
                c.requests.reply(x.path.id, &b.subject, &b.text).await
            },
        )
}

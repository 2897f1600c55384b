//! Requests visitors submit through a public form: checked against the form's inputs, stored with
//! their link to the form in one transaction.

use serde_json::{Map, Value, json};
use stoa_kernel::error::FieldErrors;
use stoa_kernel::value::Val;
use stoa_kernel::{Error, Result};
use stoa_store::{Record, Store};
use uuid::Uuid;

/// Longest value of one input, in characters.
pub const MAX_VALUE: usize = 10_000;
/// Most inputs a form may have that a request fills.
const MAX_INPUTS: usize = 200;

/// The inputs of `form`, in the form's order.
pub async fn inputs(store: &Store, form: Uuid) -> Result<Vec<Record>> {
    let links = store
        .find_in(
            &*store.entity("crm.forms-to-inputs")?,
            "formId",
            &[Val::Uuid(form)],
            MAX_INPUTS,
        )
        .await?;
    let ids: Vec<Val> = links
        .iter()
        .filter_map(|l| l.uuid("inputId").map(Val::Uuid))
        .collect();
    let mut found = store
        .find_in(&*store.entity("crm.input")?, "id", &ids, MAX_INPUTS)
        .await?;
    let order: Vec<Uuid> = links.iter().filter_map(|l| l.uuid("inputId")).collect();
    found.sort_by_key(|r| r.id().and_then(|id| order.iter().position(|x| *x == id)));
    Ok(found)
}

/// The key a submitted value is sent under: the input's slug.
fn key(input: &Record) -> &str {
    input.text("slug").unwrap_or_default()
}

fn as_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.trim().to_owned()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null => Some(String::new()),
        _ => None,
    }
}

/// Checks `values` against the inputs: every required input filled, numbers are numbers, no value
/// longer than [`MAX_VALUE`]; keys that name no input are dropped.
pub fn check(inputs: &[Record], values: &Map<String, Value>) -> Result<Map<String, Value>> {
    let mut errors = FieldErrors::new();
    let mut out = Map::new();
    for input in inputs {
        let k = key(input);
        let raw = values.get(k).unwrap_or(&Value::Null);
        let Some(text) = as_text(raw) else {
            errors
                .entry(k.to_owned())
                .or_default()
                .push("must be text or a number".into());
            continue;
        };
        if text.is_empty() {
            if input.bool("isRequired").unwrap_or(false) {
                errors
                    .entry(k.to_owned())
                    .or_default()
                    .push("is required".into());
            }
            continue;
        }
        if text.chars().count() > MAX_VALUE {
            errors
                .entry(k.to_owned())
                .or_default()
                .push(format!("must be at most {MAX_VALUE} characters"));
            continue;
        }
        let number =
            input.text("type") == Some("number") || input.text("variant") == Some("number-default");
        if number && text.parse::<f64>().map_or(true, |n| !n.is_finite()) {
            errors
                .entry(k.to_owned())
                .or_default()
                .push("must be a number".into());
            continue;
        }
        out.insert(k.to_owned(), Value::String(text));
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(Error::invalid_fields(errors))
    }
}

/// Stores a request for `form` with `values` (already the submitted object).
pub async fn submit(store: &Store, form: Uuid, values: &Map<String, Value>) -> Result<Record> {
    let forms = store.entity("crm.form")?;
    store.get(&forms, form).await?;
    let inputs = inputs(store, form).await?;
    let checked = check(&inputs, values)?;
    let request = store.entity("crm.request")?;
    let link = store.entity("crm.forms-to-requests")?;
    let obj = |v: Value| v.as_object().cloned().unwrap_or_default();
    let mut tx = store.db.begin().await?;
    let row = {
        let mut exec = tx.exec();
        let row = store
            .create_in(
                &mut exec,
                &request,
                &obj(json!({"payload": {"formId": form, "values": checked}})),
            )
            .await?;
        let id = row
            .id()
            .ok_or_else(|| Error::internal("request without id"))?;
        store
            .create_in(
                &mut exec,
                &link,
                &obj(json!({"formId": form, "requestId": id})),
            )
            .await?;
        row
    };
    tx.commit().await?;
    store.touch(&request);
    store.touch(&link);
    tracing::info!(form = %form, "crm form request received");
    Ok(row)
}

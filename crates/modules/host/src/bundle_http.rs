//! `GET /api/host/pages/bundle?url=` and `/api/revalidation/revalidate` (GET: a no-op that
//! answers 200, as the error screen calls it; POST, admins only: clears the page caches).

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::Query;
use axum::http::StatusCode;
use axum::routing::get;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use stoa_api::endpoint::{Endpoint, In, Json, Nothing};
use stoa_api::openapi::{custom, query_params};
use stoa_api::{Access, ApiResult, AppState, RouteBook};
use stoa_kernel::{Error, Result};
use uuid::Uuid;

use crate::cache::Bundles;

pub fn routes(bundles: Arc<Bundles>) -> RouteBook<AppState> {
    let b = bundles.clone();
    RouteBook::new()
        .add(
            Access::Public,
            "GET",
            "/api/host/pages/bundle",
            get(move |Query(q): Query<HashMap<String, String>>| {
                let b = b.clone();
                async move {
                    let url = q
                        .get("url")
                        .ok_or_else(|| Error::bad_field("url", "is required"))?;
                    // No page is an answer, not an error: the site then shows a built-in screen
                    // or its not-found page (find-by-url is the call that answers 404).
                    // `preview=true` from an admin (whose requests see drafts): the page as
                    // it will look, drafts included, never cached.
                    let preview = q.get("preview").is_some_and(|v| v == "true" || v == "1");
                    let bundle = if preview && stoa_store::publish::drafts_visible() {
                        b.preview(url).await?
                    } else {
                        b.get(url).await?
                    };
                    ApiResult::Ok(stoa_api::crud::data(StatusCode::OK, bundle.as_deref()))
                }
            }),
            custom(
                "host",
                "hostPageBundle",
                "The page a URL shows with every record its widgets render (layouts, module widgets and their trees, lists, the overview record, prices, metadata); null when no page has the URL",
                {
                    let mut p = query_params(&["url"]);
                    p.push(json!({"name": "preview", "in": "query", "required": false, "schema": {"type": "boolean"}, "description": "Admins: include drafts and scheduled records (never cached)"}));
                    p
                },
                None,
                200,
                bundle_schema(),
                &[400],
            ),
        )
        .endpoint(
            bundles.clone(),
            Endpoint::post("host", "/api/host/pages/drafts", "hostPageDraft")
                .summary("Admins: keeps unsaved record changes ({patches: [{id, fields}]}, at most 20 records) for ten minutes; the page's framed preview (?preview=1&frame=1&draft=<key>) shows them before they are saved")
                .status(201)
                .errors(&[400, 401, 403, 413, 415, 422]),
            keep_draft,
        )
        .endpoint(
            bundles.clone(),
            Endpoint::get("host", "/api/revalidation/revalidate", "revalidateCheck")
                .access(Access::Public)
                .summary("Answers 200 and changes nothing (pages revalidate themselves when data changes; clearing is the admin POST)")
                .named_by_operation(),
            |_: Arc<Bundles>, _: In| async { Ok(Unchanged { revalidated: false }) },
        )
        .endpoint(
            bundles,
            Endpoint::post("host", "/api/revalidation/revalidate", "revalidate")
                .summary("Clears the rendered-page caches (admins)")
                .errors(&[401, 403])
                .named_by_operation()
                .for_agents(),
            |b: Arc<Bundles>, _: In| async move {
                let cleared = b.clear();
                tracing::info!(cleared, "page caches cleared");
                Ok(Cleared {
                    revalidated: true,
                    cleared,
                })
            },
        )
}

/// Unsaved changes of one record.
#[derive(Deserialize, JsonSchema)]
pub struct DraftPatch {
    id: Uuid,
    fields: Map<String, Value>,
}

/// Unsaved changes of a few records (`hostPageDraft`).
#[derive(Deserialize, JsonSchema)]
pub struct PageDraftBody {
    #[schemars(length(max = crate::drafts::MAX_PATCHES))]
    patches: Vec<DraftPatch>,
}

/// The key a framed preview shows the changes under (`?draft=<key>`).
#[derive(Serialize, JsonSchema)]
pub struct PageDraft {
    key: String,
}

async fn keep_draft(
    b: Arc<Bundles>,
    x: In<Nothing, Nothing, Json<PageDraftBody>>,
) -> Result<PageDraft> {
    let patches = x
        .body
        .0
        .patches
        .into_iter()
        .map(|p| crate::drafts::Patch {
            id: p.id,
            fields: p.fields,
        })
        .collect();
    Ok(PageDraft {
        key: b.drafts.keep_patches(patches)?,
    })
}

/// Nothing revalidated (the check).
#[derive(Serialize, JsonSchema)]
pub struct Unchanged {
    revalidated: bool,
}

/// The caches cleared: how many pages they held.
#[derive(Serialize, JsonSchema)]
pub struct Cleared {
    revalidated: bool,
    cleared: usize,
}

/// The page bundle: records as host builds them (crates/modules/host/src/bundle.rs) — each with
/// its `_entity`, linked records under `_rel[relation]` (relation rows holding the record in
/// `_to`), list widgets' `_list`, overview widgets' `_record`, products' `_prices` — plus the
/// page's layouts and widgets and its metadata per language.
fn bundle_schema() -> Value {
    let r = |n: &str| json!({"$ref": format!("#/components/schemas/{n}")});
    let strings = json!({"type": "object", "additionalProperties": {"type": "string"}});
    let record = json!({
        "title": "HostBundleRecord",
        "type": "object",
        "description": "A record of any entity, with what the page shows of its links; its own fields are those of its entity (`_entity`)",
        "properties": {
            "id": {"type": "string", "format": "uuid"},
            "_entity": {"type": "string", "description": "module.entity"},
            "_rel": {"type": "object", "description": "Linked records per relation, in order", "additionalProperties": {"type": "array", "items": {
                "title": "HostBundleLink",
                "description": "A relation row, with the linked record in `_to`",
                "allOf": [r("HostBundleRecord"), {"type": "object", "properties": {"_to": r("HostBundleRecord"), "orderIndex": {"type": ["integer", "null"]}}, "required": ["_to"]}]
            }}},
            "_list": {"type": "array", "description": "The records a list widget shows", "items": r("HostBundleRecord")},
            "_record": {"anyOf": [r("HostBundleRecord"), {"type": "null"}], "description": "The record an overview widget shows"},
            "_prices": {"type": "array", "description": "A product's prices", "items": {
                "title": "EcommerceBundlePrice",
                "type": "object",
                "properties": {
                    "amount": {"type": "string", "format": "decimal"},
                    "currency": {"type": "object", "properties": {"id": {"type": "string", "format": "uuid"}, "slug": {"type": "string"}, "symbol": {"type": "string"}, "title": {"type": "string"}, "isDefault": {"type": "boolean"}}, "required": ["id", "slug", "symbol", "title", "isDefault"]}
                },
                "required": ["amount", "currency"]
            }}
        },
        "required": ["id", "_entity"],
        "additionalProperties": true
    });
    let widget = json!({
        "title": "HostBundleWidget",
        "description": "A host widget with the module widgets it shows",
        "allOf": [r("HostBundleRecord"), {"type": "object", "properties": {"_externals": {"type": "array", "items": {
            "title": "HostBundleExternal",
            "description": "A widgets-to-external-widgets row with the module widget it points at",
            "allOf": [r("HostBundleRecord"), {"type": "object", "properties": {"module": {"type": "string"}, "widget": r("HostBundleRecord")}, "required": ["module", "widget"]}]
        }}}, "required": ["_externals"]}]
    });
    json!({"anyOf": [{
        "title": "HostPageBundle",
        "type": "object",
        "properties": {
            "page": record,
            "url": {"type": "string"},
            "meta": strings,
            "metaByLanguage": {"type": "object", "description": "The metadata per language", "additionalProperties": strings},
            "layouts": {"type": "array", "items": {
                "title": "HostBundleLayout",
                "description": "A layout with the widgets it puts before and after the page's own",
                "allOf": [r("HostBundleRecord"), {"type": "object", "properties": {
                    "_before": {"type": "array", "items": widget.clone()},
                    "_after": {"type": "array", "items": r("HostBundleWidget")}
                }, "required": ["_before", "_after"]}]
            }},
            "widgets": {"type": "array", "items": r("HostBundleWidget")}
        },
        "required": ["page", "url", "meta", "metaByLanguage", "layouts", "widgets"]
    }, {"type": "null"}]})
}

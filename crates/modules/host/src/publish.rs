//! `POST /api/host/pages/{id}/publish`: publishing a page publishes what it needs, or says what is
//! still a draft. A page shows its own widgets and its layouts' widgets; a draft among them would
//! be left out of the published page, so publishing either takes them along (`withWidgets`) or
//! answers 409 naming them — never a page that looks finished in the admin and half-empty live.
//! With `publishAt` it schedules instead: the page and the widgets it takes along go live at
//! that moment together (a widget already scheduled earlier keeps its time).

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use stoa_api::endpoint::{ById, Endpoint, In, Json, Nothing, Row};
use stoa_api::{AppState, RouteBook};
use stoa_kernel::model::{PUBLISH_AT, PUBLISHED, SCHEDULED, STATUS};
use stoa_kernel::{Error, Result};
use stoa_store::Store;
use uuid::Uuid;

use crate::rows::{WidgetRow, typed};

/// Most widgets one page publish takes along.
const MAX_WIDGETS: usize = 500;

/// What a publish takes.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PagePublishBody {
    /// Publish the page's unpublished widgets with it.
    #[serde(default)]
    pub with_widgets: bool,
    /// Schedule instead of publishing now: the page and the widgets it takes along go live at
    /// this moment.
    #[schemars(extend("format" = "date-time"))]
    pub publish_at: Option<String>,
}

/// A page published (or scheduled), with the widgets it took along.
#[derive(Serialize, JsonSchema)]
pub struct PagePublished {
    pub page: Row<crate::http::HostPage>,
    /// The widgets published with it.
    pub widgets: Vec<Row<HostWidget>>,
}

stoa_api::component!(HostWidget);

pub fn routes(store: Arc<Store>) -> RouteBook<AppState> {
    RouteBook::new().endpoint(
        store,
        Endpoint::post("host", "/api/host/pages/{id}/publish", "hostPagePublish")
            .summary("Publishes a page, or schedules it with publishAt; with withWidgets its draft and scheduled widgets (its own and its layouts') too, otherwise a 409 names them")
            .errors(&[404, 409])
            .for_agents(),
        |s: Arc<Store>, x: In<ById, Nothing, Json<PagePublishBody>>| async move {
            let Json(b) = x.body;
            let mut done = publish_at(&s, x.path.id, b.with_widgets, b.publish_at.as_deref()).await?;
            let widgets = match done["widgets"].take() {
                Value::Array(w) => w.into_iter().map(Row::new).collect(),
                _ => Vec::new(),
            };
            Ok(PagePublished {
                page: Row::new(done["page"].take()),
                widgets,
            })
        },
    )
}

/// The unpublished widgets page `id` shows.
async fn unpublished_widgets(store: &Store, id: Uuid) -> Result<Vec<WidgetRow>> {
    let p2w = store.entity("host.pages-to-widgets")?;
    let p2l = store.entity("host.pages-to-layouts")?;
    let l2w = store.entity("host.layouts-to-widgets")?;
    let widget = store.entity("host.widget")?;
    let mut ids = store
        .linked(&p2w, "pageId", &[id], "widgetId", MAX_WIDGETS)
        .await?;
    let layouts = store
        .linked(&p2l, "pageId", &[id], "layoutId", MAX_WIDGETS)
        .await?;
    for w in store
        .linked(&l2w, "layoutId", &layouts, "widgetId", MAX_WIDGETS)
        .await?
    {
        if !ids.contains(&w) {
            ids.push(w);
        }
    }
    let vals: Vec<_> = ids.into_iter().map(stoa_kernel::value::Val::Uuid).collect();
    let found: Vec<WidgetRow> = typed(&store.find_in(&widget, "id", &vals, MAX_WIDGETS).await?)?;
    Ok(found
        .into_iter()
        .filter(|w| w.status.as_deref() != Some(PUBLISHED))
        .collect())
}

pub async fn publish(store: &Store, id: Uuid, with_widgets: bool) -> Result<Value> {
    publish_at(store, id, with_widgets, None).await
}

/// Publishes page `id` now, or with `at` schedules it for then, with the widgets it shows that are
/// not published yet (or a 409 naming them, without `with_widgets`).
pub async fn publish_at(
    store: &Store,
    id: Uuid,
    with_widgets: bool,
    at: Option<&str>,
) -> Result<Value> {
    stoa_store::publish::with_drafts(async {
        let page_e = store.entity("host.page")?;
        let widget = store.entity("host.widget")?;
        store.get(&page_e, id).await?;
        let drafts = unpublished_widgets(store, id).await?;
        if !drafts.is_empty() && !with_widgets {
            let names: Vec<String> = drafts
                .iter()
                .map(|w| {
                    w.admin_title
                        .as_deref()
                        .or(w.slug.as_deref())
                        .unwrap_or("a widget")
                        .to_owned()
                })
                .collect();
            let message = format!(
                "these widgets of the page are not published yet: {}; publish them with the page (withWidgets) or first",
                names.join(", ")
            );
            // `fields.widgets`: the names, for a client to list.
            let mut fields = stoa_kernel::error::FieldErrors::new();
            fields.insert("widgets".into(), names);
            return Err(Error::Conflict { message, fields });
        }
        let mut set = Map::new();
        match at {
            None => {
                set.insert(STATUS.into(), Value::String(PUBLISHED.into()));
            }
            Some(at) => {
                set.insert(STATUS.into(), Value::String(SCHEDULED.into()));
                set.insert(PUBLISH_AT.into(), Value::String(at.to_owned()));
            }
        }
        let mut tx = store.begin().await?;
        let (page, widgets) = {
            let mut exec = tx.exec();
            let mut widgets = Vec::with_capacity(drafts.len());
            for w in &drafts {
                // Already going live before the page: left as it is.
                if at.is_some() && w.status.as_deref() == Some(SCHEDULED) && earlier(w, at) {
                    continue;
                }
                let wid = w.id;
                // Published meanwhile (by another admin): scheduling must not take it offline.
                if at.is_some() {
                    let now = stoa_store::repo::read_text(&mut exec, &widget, wid, &[STATUS])
                        .await?
                        .and_then(|v| v.into_iter().next().flatten());
                    if now.as_deref() == Some(PUBLISHED) {
                        continue;
                    }
                }
                widgets.push(store.update_in(&mut exec, &widget, wid, &set).await?);
            }
            (store.update_in(&mut exec, &page_e, id, &set).await?, widgets)
        };
        tx.commit().await?;
        Ok(json!({"page": page, "widgets": widgets}))
    })
    .await
}

/// Whether widget `w`'s publication time comes before `at` (both as the store writes them).
fn earlier(w: &WidgetRow, at: Option<&str>) -> bool {
    // As the store reads a time: RFC 3339, or a bare date (midnight UTC).
    let parse = stoa_kernel::value::parse_timestamp;
    match (w.publish_at.as_deref().and_then(parse), at.and_then(parse)) {
        (Some(mine), Some(page)) => mine <= page,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stoa_store::record::{Cell, Record};

    /// A widget as publishing reads it from a row of `cells` (and an id).
    fn widget(mut cells: Vec<(&'static str, Cell)>) -> WidgetRow {
        cells.push(("id", Cell::Text(Uuid::nil().to_string())));
        WidgetRow::of(&Record(cells)).expect("a widget row")
    }

    #[test]
    fn a_widget_going_live_sooner_is_told_by_the_times_the_store_reads() {
        let w = widget(vec![(
            PUBLISH_AT,
            Cell::Text("2030-01-01T10:00:00Z".into()),
        )]);
        assert!(
            earlier(&w, Some("2030-01-02")),
            "a bare date is that day's midnight"
        );
        assert!(
            !earlier(&w, Some("2030-01-01")),
            "midnight comes before ten"
        );
        assert!(earlier(&w, Some("2030-01-01T10:00:00Z")));
        assert!(!earlier(&w, Some("not a time")));
        assert!(!earlier(&widget(vec![]), Some("2030-01-02")));
    }
}

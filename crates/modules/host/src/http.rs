//! `/api/host/pages/find-by-url`, `/urls` and `/url-segment-value`. Typed routes
//! (`stoa_api::endpoint`).

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use stoa_api::endpoint::{Endpoint, In, Nothing, Row};
use stoa_api::{Access, AppState, RouteBook};
use stoa_store::Store;

use crate::pages;

const TAG: &str = "host";

stoa_api::component!(HostPage);

/// A URL to match against the pages.
#[derive(Deserialize, JsonSchema)]
pub struct ByUrl {
    pub url: String,
}

/// A URL and the template segment whose value is wanted.
#[derive(Deserialize, JsonSchema)]
pub struct UrlSegment {
    pub url: String,
    /// The segment's name in the template (`blog.articles.slug`).
    pub segment: String,
}

/// Every page's URL template.
#[derive(Serialize, JsonSchema)]
pub struct PageUrlsResult {
    pub urls: Vec<PageUrl>,
}

/// A page's URL template.
#[derive(Serialize, JsonSchema)]
pub struct PageUrl {
    pub url: String,
}

pub fn routes(store: Arc<Store>) -> RouteBook<AppState> {
    RouteBook::new()
        .endpoint(
            store.clone(),
            Endpoint::get(TAG, "/api/host/pages/find-by-url", "hostPageFindByUrl")
                .access(Access::Public)
                .summary("The page a URL shows (templates with [module.route.field] and pagination segments are matched, one lookup per segment)")
                .errors(&[400, 404]),
            |s: Arc<Store>, x: In<Nothing, ByUrl>| async move {
                let page = pages::find_by_url(&s, &x.query.url).await?;
                Ok(Row::<HostPage>::new(page.to_json()))
            },
        )
        .endpoint(
            store.clone(),
            Endpoint::get(TAG, "/api/host/pages/urls", "hostPageUrls")
                .access(Access::Public)
                .summary("Every page's URL template"),
            |s: Arc<Store>, _: In| async move {
                let urls = pages::all_pages(&s)
                    .await?
                    .into_iter()
                    .map(|p| PageUrl {
                        url: p.url.unwrap_or_default(),
                    })
                    .collect();
                Ok(PageUrlsResult { urls })
            },
        )
        .endpoint(
            store,
            Endpoint::get(TAG, "/api/host/pages/url-segment-value", "hostPageUrlSegmentValue")
                .access(Access::Public)
                .summary("The part of a URL at the template segment naming `segment` (blog.articles.slug); null when absent")
                .errors(&[400]),
            |s: Arc<Store>, x: In<Nothing, UrlSegment>| async move {
                pages::segment_value(&s, &x.query.url, &x.query.segment).await
            },
        )
}

//! The public site's server side: page bundles with a cache, the HTML head of a page, the
//! `/api/host/pages/bundle` and revalidation routes, and the demo site.
#![forbid(unsafe_code)]

pub mod bundle;
pub mod cache;
pub mod demo;
pub mod head;
pub mod http;

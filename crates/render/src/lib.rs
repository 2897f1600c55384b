//! Public pages rendered on the server, and the bytes that serve them (ARCHITECTURE §7).
//!
//! - [`engine`]: a pool of embedded JavaScript engines (QuickJS) running the site's server script.
//!
//! The bytes a rendered page is kept as (compressed once, with an ETag) are `stoa_api::pack`.

pub mod engine;

pub use engine::{Options, RenderError, Renderer};

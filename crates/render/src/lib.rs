//! Public pages rendered on the server, and the bytes that serve them (ARCHITECTURE §7).
//!
//! - [`engine`]: a pool of embedded JavaScript engines (QuickJS) running the site's server script.
//! - [`pack`]: response bodies compressed once (gzip, brotli) with an ETag.

pub mod engine;
pub mod pack;

pub use engine::{Options, RenderError, Renderer};
pub use pack::{Encoding, Packed};

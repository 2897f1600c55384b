//! Stoa's kernel: errors, the entity model, values, the query model and the registry.
//! Everything here is storage- and HTTP-agnostic.
#![forbid(unsafe_code)]

pub mod error;
pub mod labels;
pub mod markup;
pub mod model;
pub mod query;
pub mod registry;
pub mod value;
pub mod words;

pub use error::{Error, FieldErrors, Result};

//! startup: the site's own extension layer (the 'for planet' campaign lives here).
#![forbid(unsafe_code)]

use stoa_kernel::model::*;

const M: &str = "startup";

/// The entities and relations this module declares.
pub fn declarations() -> Module {
    Module {
        name: M,
        words: include_str!("words.toml"),
        entities: vec![stoa_kernel::model::widget_model(M).build()],
    }
}

/// The module: its declarations (no custom behaviour yet).
pub fn module() -> stoa_api::module::ModuleDef {
    stoa_api::module::ModuleDef::new(declarations())
}

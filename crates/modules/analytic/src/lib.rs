//! analytic: metrics and analytic widgets.
#![forbid(unsafe_code)]

use stoa_kernel::model::*;

const M: &str = "analytic";

/// The entities and relations this module declares.
pub fn declarations() -> Module {
    Module {
        name: M,
        entities: vec![
            model(M, "metric", "metrics")
                .field(text("title").required().max_len(500).list().searchable())
                .field(int("value").required().list())
                .title("title")
                .private()
                .build(),
            model(M, "widget", "widgets").content().tsd(false).build(),
        ],
    }
}

/// The module: its declarations (no custom behaviour yet).
pub fn module() -> stoa_api::module::ModuleDef {
    stoa_api::module::ModuleDef::new(declarations())
}

//! analytic: metrics and analytic widgets.
#![forbid(unsafe_code)]

use stoa_kernel::model::*;

const M: &str = "analytic";

pub fn module() -> Module {
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

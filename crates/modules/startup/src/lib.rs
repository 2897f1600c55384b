//! startup: the site's own extension layer (the 'for planet' campaign lives here).
#![forbid(unsafe_code)]

use stoa_kernel::model::*;

const M: &str = "startup";

pub fn module() -> Module {
    Module {
        name: M,
        entities: vec![model(M, "widget", "widgets").content().tsd(false).build()],
    }
}

//! crm: forms, their inputs and the requests visitors submit.
#![forbid(unsafe_code)]

pub mod http;
pub mod requests;

use stoa_kernel::model::*;

const M: &str = "crm";

/// The entities and relations this module declares.
pub fn declarations() -> Module {
    Module {
        name: M,
        entities: vec![
            model(M, "form", "forms").content().tsd(true).build(),
            model(M, "input", "inputs")
                .content()
                .tsd(false)
                .field(
                    enumeration(
                        "type",
                        &["default", "text", "textarea", "number", "email", "tel"],
                    )
                    .required()
                    .default_text("default"),
                )
                .field(boolean("isRequired").required().default_bool(false).list())
                .field(translations("placeholder"))
                .field(translations("label"))
                .variants(&[
                    "default",
                    "text-default",
                    "textarea-default",
                    "number-default",
                ])
                .build(),
            model(M, "request", "requests")
                .field(json("payload").required().default_json("{}"))
                .private()
                .build(),
            model(M, "widget", "widgets")
                .content()
                .tsd(false)
                .variants(&["default", "form-list-default"])
                .build(),
            relation(
                M,
                "forms-to-inputs",
                ("formId", "crm.form"),
                ("inputId", "crm.input"),
            )
            .build(),
            relation(
                M,
                "forms-to-requests",
                ("formId", "crm.form"),
                ("requestId", "crm.request"),
            )
            .build(),
            relation(
                M,
                "widgets-to-forms",
                ("widgetId", "crm.widget"),
                ("formId", "crm.form"),
            )
            .build(),
        ],
    }
}

/// The module: declarations and the public form submission.
pub fn module() -> stoa_api::module::ModuleDef {
    stoa_api::module::ModuleDef::new(declarations()).routes(|ctx| {
        Ok(http::routes(std::sync::Arc::new(
            stoa_api::rate::Keyed::new(
                ctx.config.form_rate.max(1),
                std::time::Duration::from_secs(60),
                "ip",
            ),
        )))
    })
}

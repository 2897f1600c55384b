//! rbac: subjects, identities, roles, permissions (route rules as data) and sessions.
#![forbid(unsafe_code)]

pub mod http;
pub mod limits;
pub mod password;
pub mod policy;
pub mod seed;
pub mod service;
pub mod siwe_login;
pub mod tokens;

pub use service::{Auth, AuthConfig};

use stoa_kernel::model::*;

const M: &str = "rbac";

pub const IDENTITY_PROVIDERS: &[&str] = &[
    "email_and_password",
    "ethereum_virtual_machine",
    "email",
    "telegram",
];

pub fn module() -> Module {
    let s = |name: &'static str, right: (&'static str, &'static str)| {
        relation(M, name, ("subjectId", "rbac.subject"), right)
    };
    Module {
        name: M,
        entities: vec![
            model(M, "permission", "permissions")
                .field(
                    enumeration("type", &["HTTP"])
                        .required()
                        .default_text("HTTP"),
                )
                .field(
                    enumeration("method", &["*", "GET", "POST", "PATCH", "DELETE"])
                        .required()
                        .default_text("GET")
                        .list(),
                )
                .field(
                    text("path")
                        .required()
                        .default_text("/")
                        .max_len(2000)
                        .list()
                        .searchable(),
                )
                .title("path")
                .private()
                .build(),
            model(M, "identity", "identities")
                .field(text("email").email().max_len(320).list().searchable())
                .field(text("account").max_len(200).list().searchable())
                .field(
                    enumeration("provider", IDENTITY_PROVIDERS)
                        .required()
                        .default_text("email")
                        .list(),
                )
                .field(text("password").secret())
                .field(text("salt").secret())
                .field(text("code").secret())
                .field(timestamp("resetExpiresAt"))
                .field(int("resetAttempts").required().default_int(0))
                .field(text("login").unique().max_len(400))
                .title("email")
                .private()
                .build(),
            model(M, "role", "roles")
                .field(
                    text("title")
                        .required()
                        .unique()
                        .max_len(200)
                        .list()
                        .searchable(),
                )
                .field(slug_field().list())
                .field(
                    boolean("availableOnRegistration")
                        .required()
                        .default_bool(false)
                        .list(),
                )
                .title("title")
                .build(),
            model(M, "session", "sessions")
                .field(reference("subjectId", "rbac.subject").list())
                .field(timestamp("expiresAt").required().list())
                .field(timestamp("revokedAt").list())
                .field(timestamp("lastUsedAt").list())
                .field(text("userAgent").max_len(500).list())
                .field(text("ip").max_len(64).list())
                .field(json("options").required().default_json("{}"))
                .field(text("tokenHash").secret())
                .field(text("spentHashes").secret())
                .private()
                .build(),
            model(M, "subject", "subjects")
                .field(slug_field())
                .title("slug")
                .build(),
            model(M, "widget", "widgets")
                .content()
                .tsd(false)
                .variants(&[
                    "default",
                    "subject-authentication-email-and-password-forgot-password-form-default",
                    "subject-authentication-select-method-default",
                    "subject-authentication-email-and-password-registration-form-default",
                    "subject-authentication-email-and-password-reset-password-form-default",
                    "subject-overview-default",
                    "subject-list-default",
                    "subject-list-social-module-profile-default",
                    "subject-identity-settings-default",
                    "subject-authentication-logout-action-default",
                    "subject-overview-ecommerce-module-product-list-default",
                    "subject-overview-social-module-profile-overview-default",
                ])
                .build(),
            relation(
                M,
                "roles-to-permissions",
                ("roleId", "rbac.role"),
                ("permissionId", "rbac.permission"),
            )
            .field(text("condition").max_len(2000))
            .build(),
            relation(
                M,
                "roles-to-ecommerce-module-products",
                ("roleId", "rbac.role"),
                ("ecommerceModuleProductId", "ecommerce.product"),
            )
            .build(),
            s(
                "subjects-to-billing-module-payment-intents",
                ("billingModulePaymentIntentId", "billing.payment-intent"),
            )
            .build(),
            s(
                "subjects-to-blog-module-articles",
                ("blogModuleArticleId", "blog.article"),
            )
            .build(),
            s(
                "subjects-to-ecommerce-module-orders",
                ("ecommerceModuleOrderId", "ecommerce.order"),
            )
            .build(),
            s(
                "subjects-to-ecommerce-module-products",
                ("ecommerceModuleProductId", "ecommerce.product"),
            )
            .build(),
            s("subjects-to-identities", ("identityId", "rbac.identity")).build(),
            s(
                "subjects-to-notification-module-topics",
                ("notificationModuleTopicId", "notification.topic"),
            )
            .build(),
            s("subjects-to-roles", ("roleId", "rbac.role")).build(),
            s("subjects-to-sessions", ("sessionId", "rbac.session")).build(),
            s(
                "subjects-to-social-module-profiles",
                ("socialModuleProfileId", "social.profile"),
            )
            .build(),
        ],
    }
}

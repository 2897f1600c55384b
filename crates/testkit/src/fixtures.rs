//! Fixtures generated from the declarations: a valid body for any entity, its references
//! satisfied by records created through the API.

use std::future::Future;
use std::pin::Pin;

use serde_json::{Map, Value, json};
use stoa_kernel::model::{DefaultValue, Entity, Field, Format, Kind};

use crate::TestApp;

pub fn path(e: &Entity) -> String {
    format!("/api/{}/{}", e.module, e.route)
}

fn token() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..12].to_owned()
}

/// A random valid value for `f`.
pub fn random_value(f: &Field) -> Value {
    match f.kind {
        Kind::Text => match f.format {
            Format::Email => json!(format!("u{}@example.com", token())),
            Format::Slug => json!(format!("s-{}", token())),
            // An address where one is asked for (an outgoing webhook's target must be one).
            Format::None if f.name == "url" || f.name.ends_with("Url") => {
                json!(format!("https://example.com/t-{}", token()))
            }
            Format::None => json!(format!("t-{}", token())),
            Format::File => json!(format!("/files/{}.png", token())),
        },
        Kind::Enum => json!(f.values.first().copied().unwrap_or("default")),
        Kind::Int => json!(rand_int()),
        Kind::Bool => json!(true),
        Kind::Decimal => json!(format!("{}.25", rand_int())),
        Kind::Timestamp => json!(format!(
            "2025-03-04T05:{:02}:{:02}.{:06}Z",
            rand_int() % 60,
            rand_int() % 60,
            rand_int() % 1_000_000
        )),
        Kind::Uuid | Kind::Reference => json!(uuid::Uuid::now_v7().to_string()),
        Kind::Translations => {
            json!({"en": format!("en {}", token()), "ru": format!("ru {}", token())})
        }
        Kind::RichText => json!({"en": {"type": "doc", "content": [{"type": "paragraph"}]}}),
        Kind::Json => json!({"k": token()}),
    }
}

fn rand_int() -> i64 {
    i64::from(uuid::Uuid::new_v4().as_bytes()[0]) * 1000
        + i64::from(uuid::Uuid::new_v4().as_bytes()[1])
}

/// A valid create body for `e`.
pub fn body<'a>(
    app: &'a TestApp,
    e: &'a Entity,
) -> Pin<Box<dyn Future<Output = Map<String, Value>> + Send + 'a>> {
    Box::pin(async move {
        let mut out = Map::new();
        for f in e.fields.iter().filter(|f| !f.server_owned && !f.secret) {
            if f.kind == Kind::Reference {
                let target = app.registry.by_key(f.target.unwrap_or_default()).cloned();
                let Some(target) = target else {
                    panic!("{} references an unknown entity", f.name)
                };
                let b = body(app, &target).await;
                let created = app.create(&path(&target), &Value::Object(b)).await;
                out.insert(f.name.to_owned(), created["id"].clone());
            } else if (f.required && !f.has_default())
                || (f.unique && f.default != DefaultValue::RandomSlug)
            {
                out.insert(f.name.to_owned(), random_value(f));
            }
        }
        out
    })
}

/// A scalar field whose random value tells a new record from existing ones.
pub fn distinguishing_field(e: &Entity) -> Option<&Field> {
    let writable = || e.fields.iter().filter(|f| !f.server_owned && !f.secret);
    writable()
        .find(|f| f.kind == Kind::Text)
        .or_else(|| {
            writable()
                .find(|f| matches!(f.kind, Kind::Int | Kind::Decimal) && f.name != "orderIndex")
        })
        .or_else(|| writable().find(|f| f.kind == Kind::Uuid))
        .or_else(|| writable().find(|f| f.kind == Kind::Int))
        .or_else(|| writable().find(|f| f.kind == Kind::Timestamp))
        .or_else(|| writable().find(|f| f.kind == Kind::Json))
}

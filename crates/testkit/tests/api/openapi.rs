//! The OpenAPI document is valid 3.1 and lists exactly the routes the router serves.

use std::collections::BTreeSet;

use serde_json::{Value, json};
use stoa_testkit::{TestApp, dual_test};

fn refs(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                if k == "$ref" {
                    if let Some(s) = x.as_str() {
                        out.push(s.to_owned());
                    }
                } else {
                    refs(x, out);
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| refs(x, out)),
        _ => {}
    }
}

async fn the_document_is_valid_openapi_3_1(app: TestApp) {
    let r = app.get("/api/openapi.json").await;
    assert_eq!(r.status, 200);
    let doc = r.body.clone();
    let schema: Value =
        serde_json::from_str(include_str!("../data/openapi-3.1.schema.json")).unwrap_or_default();
    let validator = match jsonschema::validator_for(&schema) {
        Ok(v) => v,
        Err(e) => panic!("schema: {e}"),
    };
    let errors: Vec<String> = validator
        .iter_errors(&doc)
        .take(10)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let mut all = Vec::new();
    refs(&doc, &mut all);
    assert!(!all.is_empty());
    for r in all {
        let name = r.trim_start_matches("#/components/schemas/");
        assert!(
            doc["components"]["schemas"].get(name).is_some(),
            "dangling $ref {r}"
        );
    }
    // The formats the API enforces are stated, so generated clients validate the same way.
    let schemas = &doc["components"]["schemas"];
    assert_eq!(
        schemas["BlogArticleCreate"]["properties"]["slug"]["pattern"],
        "^[a-z0-9_-]+$"
    );
    assert_eq!(
        schemas["RbacIdentityCreate"]["properties"]["email"]["type"],
        json!(["string", "null"])
    );
    assert_eq!(
        schemas["RbacIdentityCreate"]["properties"]["email"]["format"],
        "email"
    );
    assert!(schemas["Translations"]["propertyNames"]["pattern"].is_string());
    assert!(
        schemas["RbacIdentity"]["properties"]
            .get("password")
            .is_none(),
        "a secret in the schema"
    );
    assert_eq!(
        schemas["WebsiteBuilderButtonCreate"]["properties"]["variant"]["enum"]
            .as_array()
            .map(Vec::len),
        Some(16)
    );
    // Every schema of every entity is there.
    assert!(
        doc["components"]["schemas"]
            .as_object()
            .map(|m| m.len())
            .unwrap_or(0)
            >= 3 * app.registry.entities().len()
    );
}
dual_test!(the_document_is_valid_openapi_3_1);

async fn the_document_lists_exactly_the_routes_served(app: TestApp) {
    let doc = app.get("/api/openapi.json").await.body;
    let documented: BTreeSet<(String, String)> = doc["paths"]
        .as_object()
        .into_iter()
        .flatten()
        .flat_map(|(p, ops)| {
            ops.as_object()
                .into_iter()
                .flatten()
                .map(move |(m, _)| (m.to_uppercase(), p.clone()))
        })
        .collect();
    let registered: BTreeSet<(String, String)> = app
        .operations
        .iter()
        .map(|o| (o.method.to_owned(), o.path.clone()))
        .collect();
    assert_eq!(documented, registered);
    // Every `{param}` of every path is declared as a path parameter of its operation.
    for (path, ops) in doc["paths"].as_object().into_iter().flatten() {
        let params: Vec<&str> = path
            .split('/')
            .filter_map(|seg| seg.strip_prefix('{')?.strip_suffix('}'))
            .collect();
        for (method, op) in ops.as_object().into_iter().flatten() {
            for p in &params {
                let declared = op["parameters"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|x| x["in"] == "path" && x["name"] == *p);
                assert!(declared, "{method} {path}: path parameter {p} not declared");
            }
        }
    }
    // Every documented operation reaches a handler (not the router's 404/405).
    let id = uuid::Uuid::now_v7().to_string();
    for (method, path) in &documented {
        let url = path.replace("{id}", &id).replace("{file}", "index.css");
        let req = app
            .client
            .request(method.parse().unwrap_or_default(), app.url(&url))
            .json(&json!({}));
        let r = app.send(req).await;
        assert!(r.status < 500, "{method} {path}: {}", r.text);
        let code = r.body["code"].as_str().unwrap_or("");
        assert!(
            code != "route_not_found" && code != "method_not_allowed",
            "{method} {path} is documented but not routed"
        );
    }
    // And a route that is not documented is not served.
    let r = app.get("/api/blog/undocumented").await;
    assert_eq!(r.body["code"], "route_not_found");
}
dual_test!(the_document_lists_exactly_the_routes_served);

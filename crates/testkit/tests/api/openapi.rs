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

/// The two large documents (the API description and `/api/meta`) are compressed once and sent
/// as they are, with an ETag a client revalidates against, in whichever encoding it takes.
async fn the_large_documents_are_sent_precompressed(app: TestApp) {
    use std::io::Read;
    for path in ["/api/openapi.json", "/api/meta"] {
        let get = |enc: &'static str| {
            app.plain
                .get(app.url(path))
                .header("accept-encoding", enc)
                .send()
        };
        let plain = get("identity").await.unwrap();
        assert_eq!(plain.status(), 200, "{path}");
        assert!(plain.headers().get("content-encoding").is_none(), "{path}");
        assert_eq!(plain.headers()["content-type"], "application/json");
        let plain: Value = serde_json::from_slice(&plain.bytes().await.unwrap()).unwrap();
        for (enc, suffix) in [("br", "-br\""), ("gzip", "-gz\"")] {
            let r = get(enc).await.unwrap();
            assert_eq!(r.status(), 200, "{path} {enc}");
            assert_eq!(r.headers()["content-encoding"], enc, "{path}");
            assert_eq!(r.headers()["vary"], "Accept-Encoding", "{path}");
            let etag = r.headers()["etag"].to_str().unwrap().to_owned();
            assert!(etag.ends_with(suffix), "{path}: {etag}");
            let body = r.bytes().await.unwrap();
            let mut text = Vec::new();
            if enc == "br" {
                brotli::Decompressor::new(&body[..], 4096)
                    .read_to_end(&mut text)
                    .unwrap();
            } else {
                flate2::read::GzDecoder::new(&body[..])
                    .read_to_end(&mut text)
                    .unwrap();
            }
            let decoded: Value = serde_json::from_slice(&text).unwrap();
            assert!(
                decoded == plain,
                "{path}: the {enc} body is the same document"
            );
            let again = app
                .plain
                .get(app.url(path))
                .header("accept-encoding", enc)
                .header("if-none-match", &etag)
                .send()
                .await
                .unwrap();
            assert_eq!(again.status(), 304, "{path} {enc}: revalidated");
            assert!(again.bytes().await.unwrap().is_empty());
        }
    }
}
dual_test!(the_large_documents_are_sent_precompressed);

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
    // Every route but the reference pages and the document itself (`x-hidden`).
    let registered: BTreeSet<(String, String)> = app
        .operations
        .iter()
        .filter(|o| o.doc.get("x-hidden").is_none())
        .map(|o| (o.method.to_owned(), o.path.clone()))
        .collect();
    assert!(!registered.is_empty());
    assert!(documented.iter().all(|(_, p)| !p.starts_with("/api/docs")));
    assert!(!documented.contains(&("GET".to_owned(), "/api/openapi.json".to_owned())));
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

/// Every schema object reachable from `v` that declares `"type": "array"` says what its items are.
fn arrays_have_items(v: &Value, at: &str, bad: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            if m.get("type") == Some(&json!("array")) && !m.contains_key("items") {
                bad.push(at.to_owned());
            }
            for (k, x) in m {
                arrays_have_items(x, &format!("{at}/{k}"), bad);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                arrays_have_items(x, &format!("{at}/{i}"), bad);
            }
        }
        _ => {}
    }
}

/// What generated clients need: security declared per operation, 401/403 where a caller can
/// be refused, JSON bodies (multipart only where files go), complete schemas, the count headers,
/// the JSON filter form, servers.
async fn the_document_serves_generated_clients(app: TestApp) {
    let doc = app.get("/api/openapi.json").await.body;
    let schemes = &doc["components"]["securitySchemes"];
    assert_eq!(schemes["bearerAuth"]["scheme"], "bearer");
    assert_eq!(schemes["cookieAuth"]["in"], "cookie");
    assert!(
        doc["servers"][0]["url"]
            .as_str()
            .is_some_and(|u| u.starts_with("http"))
    );
    let mut ops = 0;
    let mut multipart = Vec::new();
    for (path, item) in doc["paths"].as_object().into_iter().flatten() {
        for (method, op) in item.as_object().into_iter().flatten() {
            ops += 1;
            let at = format!("{method} {path}");
            let security = op["security"]
                .as_array()
                .unwrap_or_else(|| panic!("{at}: no security"));
            let access = op["x-access"].as_str().unwrap_or_default();
            let optional = security.iter().any(|s| s == &json!({}));
            assert_eq!(
                optional,
                access == "public",
                "{at}: {security:?} for {access}"
            );
            assert!(op["responses"].get("400").is_some(), "{at}: no 400");
            if access != "public" {
                for code in ["401", "403"] {
                    assert!(op["responses"].get(code).is_some(), "{at}: no {code}");
                }
            }
            if let Some(content) = op["requestBody"]["content"].as_object() {
                assert_eq!(content.len(), 1, "{at}: one body type");
                if content.contains_key("multipart/form-data") {
                    multipart.push(at.clone());
                } else {
                    assert!(content.contains_key("application/json"), "{at}");
                }
            }
        }
    }
    assert!(ops > 900, "{ops} operations");
    // Multipart only where a file field is (the file-storage file routes, chat attachments).
    assert!(!multipart.is_empty());
    assert!(
        multipart
            .iter()
            .all(|m| m.contains("/api/file-storage/files")
                || m.ends_with("/social-module/profiles/{profileId}/files")),
        "{multipart:?}"
    );
    let mut bad = Vec::new();
    arrays_have_items(&doc, "", &mut bad);
    assert!(bad.is_empty(), "arrays without items: {bad:?}");
    let schemas = &doc["components"]["schemas"];
    assert_eq!(
        schemas["RichTextNode"]["properties"]["content"]["items"]["$ref"],
        "#/components/schemas/RichTextNode"
    );
    let find = &doc["paths"]["/api/blog/articles"]["get"];
    assert!(
        find["responses"]["200"]["headers"]
            .get("X-Total-Count")
            .is_some()
    );
    let filters = find["parameters"]
        .as_array()
        .and_then(|p| p.iter().find(|p| p["name"] == "filters"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(filters["schema"]["type"], "string");
    let columns = &schemas["BlogArticleFilters"]["properties"]["and"]["items"]["properties"]["column"]
        ["enum"];
    for c in ["slug", "title->>ru", "createdAt"] {
        assert!(
            columns.as_array().is_some_and(|a| a.contains(&json!(c))),
            "{c} in {columns}"
        );
    }
    // Typed results: who is signed in.
    let me = &doc["paths"]["/api/rbac/subjects/authentication/me"]["get"]["responses"]["200"];
    let me = me.to_string();
    assert!(me.contains("#/components/schemas/"), "{me}");
    assert!(schemas["RbacMe"]["allOf"].is_array());
    // A rate-limited route says how long to wait.
    let login = &doc["paths"]["/api/rbac/subjects/authentication/email-and-password/authentication"]
        ["post"];
    assert!(
        login["responses"]["429"]["headers"]
            .get("Retry-After")
            .is_some(),
        "{login}"
    );
    // The reference pages are not API.
    assert!(doc["paths"].get("/api/docs/").is_none());
}
dual_test!(the_document_serves_generated_clients);

//! The public site on the demo data: page bundles, the CRM form submission, the paid counter.

use serde_json::{Value, json};
use stoa_testkit::{TestApp, dual_test};

async fn seeded(app: &TestApp) {
    let dir = std::env::temp_dir().join(format!("stoa-demo-{}", uuid::Uuid::now_v7().simple()));
    let n = stoa_site::demo::seed(&app.store, &dir).await.unwrap();
    assert!(n > 300, "the demo wrote {n} rows");
    assert_eq!(
        stoa_site::demo::seed(&app.store, &dir).await.unwrap(),
        0,
        "once per database"
    );
    assert!(dir.join("files/demo/hero.svg").exists());
    let _ = std::fs::remove_dir_all(dir);
}

fn variants(bundle: &Value) -> Vec<String> {
    bundle["widgets"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|w| w["_externals"].as_array().unwrap().clone())
        .map(|e| e["widget"]["variant"].as_str().unwrap().to_owned())
        .collect()
}

async fn a_page_bundle_holds_everything_its_widgets_render(app: TestApp) {
    seeded(&app).await;
    let visitor = app.anon();
    let home = visitor.get("/api/host/pages/bundle?url=/").await;
    assert_eq!(home.status, 200, "{}", home.text);
    let b = home.data();
    let v = variants(b);
    for want in [
        "content-block-for-planet-heading",
        "content-block-for-planet-faq",
        "for-planet-products-list-block-default",
    ] {
        assert!(v.iter().any(|x| x == want), "{want} in {v:?}");
    }
    assert_eq!(b["meta"]["title"], "Для планеты — посадим миллион деревьев");
    assert_eq!(
        b["meta"]["author"], "Фонд «для планеты»",
        "site defaults fill in"
    );
    let layout = &b["layouts"][0];
    assert_eq!(layout["_before"].as_array().unwrap().len(), 1);
    assert_eq!(layout["_after"].as_array().unwrap().len(), 1);
    // The donation block lists the tree with both prices.
    let text = home.text.clone();
    assert!(text.contains("\"amount\":\"199\"") && text.contains("\"symbol\":\"₽\""));
    assert!(text.contains("\"amount\":\"995\"") && text.contains("\"symbol\":\"₸\""));

    let article = visitor
        .get("/api/host/pages/bundle?url=/blog/articles/how-we-plant")
        .await;
    let record = &article.data()["widgets"][0]["_externals"][0]["widget"]["_record"];
    assert_eq!(record["slug"], "how-we-plant");
    assert_eq!(
        record["_rel"]["articles-to-ecommerce-module-products"][0]["_to"]["slug"],
        "tree"
    );
    let missing = visitor.get("/api/host/pages/bundle?url=/nowhere").await;
    assert_eq!(missing.status, 200);
    assert!(missing.data().is_null());
    assert_eq!(visitor.get("/api/host/pages/bundle").await.status, 400);
    // A write shows up in the next bundle (the cache follows the change counters).
    let page_id = b["page"]["id"].as_str().unwrap().to_owned();
    app.patch(
        &format!("/api/host/pages/{page_id}"),
        &json!({"title": "Home"}),
    )
    .await;
    let again = visitor.get("/api/host/pages/bundle?url=/").await;
    assert_eq!(again.data()["page"]["title"], "Home");
    assert_eq!(
        visitor
            .post("/api/revalidation/revalidate", &json!({}))
            .await
            .status,
        401
    );
    assert_eq!(
        app.post("/api/revalidation/revalidate", &json!({}))
            .await
            .status,
        200
    );
    assert_eq!(
        visitor.get("/api/revalidation/revalidate").await.status,
        200
    );
}
dual_test!(a_page_bundle_holds_everything_its_widgets_render);

async fn a_form_request_is_checked_against_the_inputs(app: TestApp) {
    seeded(&app).await;
    let visitor = app.anon();
    let forms = visitor
        .get("/api/crm/forms?filters[and][0][column]=slug&filters[and][0][method]=eq&filters[and][0][value]=contact")
        .await;
    let id = forms.data()[0]["id"].as_str().unwrap().to_owned();
    let path = format!("/api/crm/forms/{id}/requests");
    let bad = visitor
        .post(&path, &json!({"name": "Vera", "trees": "many"}))
        .await;
    assert_eq!(bad.status, 422, "{}", bad.text);
    assert!(bad.body["fields"]["email"].is_array());
    assert!(bad.body["fields"]["message"].is_array());
    assert!(bad.body["fields"]["trees"].is_array());
    let ok = visitor
        .post(
            &path,
            &json!({"name": "Vera", "email": "v@e.test", "message": "Hi", "trees": 3, "extra": "dropped"}),
        )
        .await;
    assert_eq!(ok.status, 201, "{}", ok.text);
    assert_eq!(ok.data()["payload"]["values"]["trees"], "3");
    assert!(ok.data()["payload"]["values"].get("extra").is_none());
    assert_eq!(visitor.get("/api/crm/requests").await.status, 401);
    let stored = app.get("/api/crm/requests").await;
    assert_eq!(stored.data().as_array().unwrap().len(), 1);
    let unknown = visitor
        .post(
            &format!("/api/crm/forms/{}/requests", uuid::Uuid::now_v7()),
            &json!({}),
        )
        .await;
    assert_eq!(unknown.status, 404);
    assert_eq!(
        visitor
            .get("/api/ecommerce/orders/paid-orders-to-products-quantity")
            .await
            .data(),
        &json!(0)
    );
}
dual_test!(a_form_request_is_checked_against_the_inputs);

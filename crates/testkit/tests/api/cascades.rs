//! Deleting a record removes the relation rows that point at it.

use serde_json::json;
use stoa_testkit::{TestApp, dual_test};

async fn count(app: &TestApp, route: &str, column: &str, id: &str) -> usize {
    app.rows_where(route, column, id).await.len()
}

async fn deleting_a_page_removes_its_relation_rows(app: TestApp) {
    let page = app.create("/api/host/pages", &json!({"url": "/p"})).await;
    let pid = page["id"].as_str().unwrap_or_default();
    let widget = app.create("/api/host/widgets", &json!({})).await;
    let layout = app.create("/api/host/layouts", &json!({})).await;
    app.create(
        "/api/host/pages-to-widgets",
        &json!({"pageId": pid, "widgetId": widget["id"]}),
    )
    .await;
    app.create(
        "/api/host/pages-to-layouts",
        &json!({"pageId": pid, "layoutId": layout["id"]}),
    )
    .await;
    assert_eq!(
        count(&app, "/api/host/pages-to-widgets", "pageId", pid).await,
        1
    );
    assert_eq!(
        app.delete(&format!("/api/host/pages/{pid}")).await.status,
        200
    );
    assert_eq!(
        count(&app, "/api/host/pages-to-widgets", "pageId", pid).await,
        0
    );
    assert_eq!(
        count(&app, "/api/host/pages-to-layouts", "pageId", pid).await,
        0
    );
    // The other ends survive.
    assert_eq!(
        app.get(&format!(
            "/api/host/widgets/{}",
            widget["id"].as_str().unwrap_or_default()
        ))
        .await
        .status,
        200
    );
}
dual_test!(deleting_a_page_removes_its_relation_rows);

async fn deleting_a_widget_removes_every_relation_pointing_at_it(app: TestApp) {
    let w = app.create("/api/website-builder/widgets", &json!({})).await;
    let wid = w["id"].as_str().unwrap_or_default();
    let slider = app.create("/api/website-builder/sliders", &json!({})).await;
    let feature = app
        .create("/api/website-builder/features", &json!({}))
        .await;
    app.create(
        "/api/website-builder/widgets-to-sliders",
        &json!({"widgetId": wid, "sliderId": slider["id"]}),
    )
    .await;
    app.create(
        "/api/website-builder/widgets-to-features",
        &json!({"widgetId": wid, "featureId": feature["id"], "variant": "additional"}),
    )
    .await;
    let article = app.create("/api/blog/articles", &json!({})).await;
    app.create(
        "/api/blog/articles-to-website-builder-module-widgets",
        &json!({"articleId": article["id"], "websiteBuilderModuleWidgetId": wid}),
    )
    .await;
    assert_eq!(
        app.delete(&format!("/api/website-builder/widgets/{wid}"))
            .await
            .status,
        200
    );
    for (route, column) in [
        ("/api/website-builder/widgets-to-sliders", "widgetId"),
        ("/api/website-builder/widgets-to-features", "widgetId"),
        (
            "/api/blog/articles-to-website-builder-module-widgets",
            "websiteBuilderModuleWidgetId",
        ),
    ] {
        assert_eq!(
            count(&app, route, column, wid).await,
            0,
            "{route} kept a row for the deleted widget"
        );
    }
}
dual_test!(deleting_a_widget_removes_every_relation_pointing_at_it);

async fn a_reference_to_nothing_is_422_naming_the_field(app: TestApp) {
    let page = app.create("/api/host/pages", &json!({"url": "/q"})).await;
    let r = app
        .post(
            "/api/host/pages-to-widgets",
            &json!({"pageId": page["id"], "widgetId": uuid::Uuid::now_v7().to_string()}),
        )
        .await;
    assert_eq!(r.status, 422, "{}", r.text);
    assert!(r.body["fields"].get("widgetId").is_some(), "{}", r.text);
}
dual_test!(a_reference_to_nothing_is_422_naming_the_field);

//! The filter language: every method, JSON paths, typed coercion, ordering and paging.

use serde_json::{Value, json};
use stoa_testkit::{TestApp, dual_test};

fn enc(s: &str) -> String {
    form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// `filters[and][0][column]=…&…[method]=…&…[value]=…` (an array value gets indices).
fn filter(column: &str, method: &str, value: &Value) -> String {
    let mut q = format!(
        "filters[and][0][column]={}&filters[and][0][method]={method}",
        enc(column)
    );
    match value {
        Value::Array(vs) => {
            for (i, v) in vs.iter().enumerate() {
                q.push_str(&format!(
                    "&filters[and][0][value][{i}]={}",
                    enc(v.as_str().unwrap_or_default())
                ));
            }
        }
        Value::Null => {}
        v => q.push_str(&format!(
            "&filters[and][0][value]={}",
            enc(v.as_str().unwrap_or_default())
        )),
    }
    q
}

/// `field` of every returned record, in response order.
fn in_order<'a>(r: &'a stoa_testkit::Res, field: &str) -> Vec<&'a str> {
    r.data()
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m[field].as_str())
        .collect()
}

fn titles(r: &stoa_testkit::Res) -> Vec<String> {
    let mut t: Vec<String> = r
        .data()
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["title"].as_str().map(str::to_owned))
        .collect();
    t.sort();
    t
}

async fn find(app: &TestApp, route: &str, q: &str) -> stoa_testkit::Res {
    let r = app.get(&format!("{route}?{q}")).await;
    assert_eq!(r.status, 200, "{q}: {}", r.text);
    r
}

async fn every_filter_method_works(app: TestApp) {
    for (t, v) in [("a", 1), ("b", 2), ("c", 3), ("Bc", 4)] {
        app.create("/api/analytic/metrics", &json!({"title": t, "value": v}))
            .await;
    }
    let m = "/api/analytic/metrics";
    let cases: Vec<(&str, &str, Value, Vec<&str>)> = vec![
        ("title", "eq", json!("a"), vec!["a"]),
        ("title", "ne", json!("a"), vec!["Bc", "b", "c"]),
        ("value", "gt", json!("2"), vec!["Bc", "c"]),
        ("value", "gte", json!("2"), vec!["Bc", "b", "c"]),
        ("value", "lt", json!("2"), vec!["a"]),
        ("value", "lte", json!("2"), vec!["a", "b"]),
        ("title", "like", json!("c"), vec!["Bc", "c"]),
        ("title", "like", json!("B%"), vec!["Bc"]),
        ("title", "ilike", json!("b"), vec!["Bc", "b"]),
        ("title", "notLike", json!("c"), vec!["a", "b"]),
        ("title", "notIlike", json!("b"), vec!["a", "c"]),
        ("title", "inArray", json!(["a", "b"]), vec!["a", "b"]),
        ("title", "notInArray", json!(["a", "b"]), vec!["Bc", "c"]),
        ("title", "isNotNull", Value::Null, vec!["Bc", "a", "b", "c"]),
        ("title", "isNull", Value::Null, vec![]),
    ];
    for (col, method, value, expected) in cases {
        let r = find(&app, m, &filter(col, method, &value)).await;
        assert_eq!(titles(&r), expected, "{col} {method} {value}");
        // The JSON form (what generated clients send) returns the same rows.
        let mut cond = json!({"column": col, "method": method});
        if !value.is_null() {
            cond["value"] = value.clone();
        }
        let as_json = format!("filters={}", enc(&json!({"and": [cond]}).to_string()));
        let r = find(&app, m, &as_json).await;
        assert_eq!(titles(&r), expected, "JSON form: {col} {method} {value}");
    }
    // A comma list is a list for inArray; JSON arrays take typed values; a bare array is `and`.
    let r = find(&app, m, &filter("title", "inArray", &json!("a,c"))).await;
    assert_eq!(titles(&r), vec!["a", "c"]);
    let q = format!(
        "filters={}&orderBy={}",
        enc(r#"[{"column":"value","method":"inArray","value":[1,4]}]"#),
        enc(r#"[{"column":"value","method":"desc"}]"#)
    );
    assert_eq!(in_order(&find(&app, m, &q).await, "title"), vec!["Bc", "a"]);
    // inArray with an empty list matches nothing; notInArray with one matches everything.
    let r = find(
        &app,
        m,
        "filters[and][0][column]=title&filters[and][0][method]=inArray&filters[and][0][value]=",
    )
    .await;
    assert_eq!(titles(&r), Vec::<String>::new());
    let r = find(
        &app,
        m,
        "filters[and][0][column]=title&filters[and][0][method]=notInArray",
    )
    .await;
    assert_eq!(titles(&r).len(), 4);
    // Two filters are ANDed.
    let q = format!(
        "{}&filters[and][1][column]=value&filters[and][1][method]=lt&filters[and][1][value]=4",
        filter("title", "ilike", &json!("b"))
    );
    assert_eq!(titles(&find(&app, m, &q).await), vec!["b"]);
}
dual_test!(every_filter_method_works);

async fn order_offset_limit_and_count(app: TestApp) {
    for (t, v) in [("a", 1), ("b", 2), ("c", 3), ("d", 4)] {
        app.create("/api/analytic/metrics", &json!({"title": t, "value": v}))
            .await;
    }
    let r = find(
        &app,
        "/api/analytic/metrics",
        "orderBy[and][0][column]=value&orderBy[and][0][method]=desc&offset=1&limit=2&count=true",
    )
    .await;
    let got = in_order(&r, "title");
    assert_eq!(got, vec!["c", "b"]);
    assert_eq!(r.header("x-total-count"), Some("4"));
    let r = find(
        &app,
        "/api/analytic/metrics",
        "orderBy[and][0][column]=title&orderBy[and][0][method]=asc",
    )
    .await;
    let got = in_order(&r, "title");
    assert_eq!(got, vec!["a", "b", "c", "d"]);
    let r = find(&app, "/api/analytic/metrics", "limit=1000000").await;
    assert_eq!(r.data().as_array().map(Vec::len), Some(4));
}
dual_test!(order_offset_limit_and_count);

async fn translation_paths_and_typed_values(app: TestApp) {
    app.create(
        "/api/blog/articles",
        &json!({"title": {"en": "Hello", "ru": "Привет"}}),
    )
    .await;
    app.create("/api/blog/articles", &json!({"title": {"en": "World"}}))
        .await;
    let r = find(
        &app,
        "/api/blog/articles",
        &filter("title->>en", "eq", &json!("Hello")),
    )
    .await;
    assert_eq!(r.data().as_array().map(Vec::len), Some(1), "{}", r.text);
    assert_eq!(r.data()[0]["title"]["ru"], "Привет");
    let r = find(
        &app,
        "/api/blog/articles",
        &filter("title->>ru", "isNull", &Value::Null),
    )
    .await;
    assert_eq!(r.data()[0]["title"]["en"], "World");
    let r = find(
        &app,
        "/api/blog/articles",
        &filter("title->>en", "ilike", &json!("O")),
    )
    .await;
    let mut got: Vec<&str> = r
        .data()
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|a| a["title"]["en"].as_str())
        .collect();
    got.sort_unstable();
    assert_eq!(got, vec!["Hello", "World"]);
    // A JSON key is filterable but not a sort: no index leads it, so sorting by it would sort
    // the whole table on every request (issue 17, fix 1).
    let r = app
        .get(&format!(
            "/api/blog/articles?orderBy[and][0][column]={}&orderBy[and][0][method]=desc",
            enc("title->>en")
        ))
        .await;
    assert_eq!(r.status, 400, "{}", r.text);
    assert!(r.text.contains("indexed columns only"), "{}", r.text);

    // Decimals compare as numbers, booleans and timestamps by kind.
    let attr = "/api/ecommerce/attributes";
    app.create(
        attr,
        &json!({"number": "9", "boolean": true, "date": "2024-01-01T00:00:00Z"}),
    )
    .await;
    app.create(
        attr,
        &json!({"number": "10.25", "boolean": false, "date": "2025-06-01T12:00:00Z"}),
    )
    .await;
    app.create(attr, &json!({"boolean": false})).await;
    let nums = |r: &stoa_testkit::Res| -> Vec<String> {
        r.data()
            .as_array()
            .into_iter()
            .flatten()
            .map(|a| a["number"].as_str().unwrap_or("null").to_owned())
            .collect()
    };
    assert_eq!(
        nums(&find(&app, attr, &filter("number", "gt", &json!("9.5"))).await),
        vec!["10.25"]
    );
    assert_eq!(
        nums(&find(&app, attr, &filter("boolean", "eq", &json!("true"))).await),
        vec!["9"]
    );
    assert_eq!(
        nums(
            &find(
                &app,
                attr,
                &filter("date", "gte", &json!("2025-01-01T00:00:00Z"))
            )
            .await
        ),
        vec!["10.25"]
    );
    assert_eq!(
        nums(&find(&app, attr, &filter("number", "isNull", &Value::Null)).await),
        vec!["null"]
    );
    let id = app.get(attr).await.data()[0]["id"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert_eq!(
        find(&app, attr, &filter("id", "eq", &json!(id)))
            .await
            .data()
            .as_array()
            .map(Vec::len),
        Some(1)
    );
}
dual_test!(translation_paths_and_typed_values);

async fn search_matches_searchable_fields(app: TestApp) {
    app.create(
        "/api/blog/categories",
        &json!({"adminTitle": "Trees of the North", "slug": "north"}),
    )
    .await;
    app.create(
        "/api/blog/categories",
        &json!({"adminTitle": "Rivers", "slug": "south-trees"}),
    )
    .await;
    app.create(
        "/api/blog/categories",
        &json!({"adminTitle": "Deserts", "slug": "dry"}),
    )
    .await;
    let r = find(&app, "/api/blog/categories", "search=TREES&count=true").await;
    assert_eq!(r.header("x-total-count"), Some("2"), "{}", r.text);
    assert_eq!(r.header("x-total-count-exact"), Some("true"));

    // The search index follows updates and deletes.
    let dry = find(&app, "/api/blog/categories", "search=dry")
        .await
        .data()[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    app.patch(
        &format!("/api/blog/categories/{dry}"),
        &json!({"adminTitle": "Desert trees"}),
    )
    .await;
    let r = find(&app, "/api/blog/categories", "search=trees&count=true").await;
    assert_eq!(r.header("x-total-count"), Some("3"), "{}", r.text);
    app.delete(&format!("/api/blog/categories/{dry}")).await;
    let r = find(&app, "/api/blog/categories", "search=trees&count=true").await;
    assert_eq!(r.header("x-total-count"), Some("2"), "{}", r.text);
    let r = find(&app, "/api/blog/categories", "search=Desert&count=true").await;
    assert_eq!(r.header("x-total-count"), Some("0"), "{}", r.text);

    // Short terms, and terms that mean something to a query language, are plain substrings.
    let r = find(&app, "/api/blog/categories", "search=RI&count=true").await;
    assert_eq!(r.header("x-total-count"), Some("1"), "{}", r.text);
    for odd in [
        "%22tree",
        "tre%22%22s",
        "north%20OR%20dry",
        "*",
        "NEAR(a%20b)",
    ] {
        let r = find(&app, "/api/blog/categories", &format!("search={odd}")).await;
        assert_eq!(r.status, 200, "{odd}: {}", r.text);
    }
    let r = find(&app, "/api/blog/categories", "search=of%20the%20north").await;
    assert_eq!(r.data().as_array().map(Vec::len), Some(1), "{}", r.text);
    // LIKE wildcards are literal characters: `%` and `_` match only themselves.
    app.create(
        "/api/blog/categories",
        &json!({"adminTitle": "100% trees_ok", "slug": "percent"}),
    )
    .await;
    for (term, want) in [
        ("%25", "1"),
        ("_", "1"),
        ("%25%25", "0"),
        ("t_ees", "0"),
        ("0%25%20t", "1"),
        ("%5C", "0"),
    ] {
        let r = find(
            &app,
            "/api/blog/categories",
            &format!("search={term}&count=true"),
        )
        .await;
        assert_eq!(r.header("x-total-count"), Some(want), "{term}: {}", r.text);
    }
    // A NUL (which no database text holds) is a 400 naming the problem, wherever it is.
    for q in [
        "search=a%00b",
        "search=%00",
        "filters[and][0][column]=slug&filters[and][0][method]=eq&filters[and][0][value]=%00",
        "orderBy[and][0][column]=slug%00",
    ] {
        let r = app.get(&format!("/api/blog/categories?{q}")).await;
        assert_eq!(r.status, 400, "{q}: {}", r.text);
        assert!(r.text.contains("NUL"), "{q}: {}", r.text);
    }
}
dual_test!(search_matches_searchable_fields);

async fn a_huge_limit_is_capped_at_1000(app: TestApp) {
    for b in 0..11 {
        let items: Vec<Value> = (0..100)
            .map(|i| json!({"data": {"title": format!("m{b}-{i}"), "value": i}}))
            .collect();
        let r = app
            .post("/api/analytic/metrics/bulk", &Value::Array(items))
            .await;
        assert_eq!(r.status, 201, "{}", r.text);
    }
    let r = find(&app, "/api/analytic/metrics", "limit=1000000&count=true").await;
    assert_eq!(r.data().as_array().map(Vec::len), Some(1000));
    assert_eq!(r.header("x-total-count"), Some("1100"));
    let r = find(&app, "/api/analytic/metrics", "").await;
    assert_eq!(
        r.data().as_array().map(Vec::len),
        Some(100),
        "default page size"
    );
}
dual_test!(a_huge_limit_is_capped_at_1000);

async fn a_common_search_term_pages_in_list_order(app: TestApp) {
    // More matches than PROBE_FROM: SQLite walks the list order and probes the index per row.
    for chunk in 0..22 {
        let items: Vec<_> = (0..100)
            .map(|i| {
                let n = chunk * 100 + i;
                let title = if n % 10 == 9 {
                    format!("Rock {n}")
                } else {
                    format!("Tree {n}")
                };
                json!({"data": {"adminTitle": title, "slug": format!("c-{n:05}")}})
            })
            .collect();
        let r = app
            .post(
                "/api/blog/categories/bulk",
                &serde_json::Value::Array(items),
            )
            .await;
        assert_eq!(r.status, 201, "{}", r.text);
    }
    let r = find(
        &app,
        "/api/blog/categories",
        "search=tree&count=true&limit=20",
    )
    .await;
    // 1 980 match; a search counts up to 1 000 and says "more" with one over, not exact.
    assert_eq!(r.header("x-total-count"), Some("1001"), "{}", r.text);
    assert_eq!(r.header("x-total-count-exact"), Some("false"));
    let slugs: Vec<String> = r
        .data()
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["slug"].as_str().unwrap().to_owned())
        .collect();
    let expected: Vec<String> = (0..22)
        .filter(|n| n % 10 != 9)
        .take(20)
        .map(|n| format!("c-{n:05}"))
        .collect();
    assert_eq!(slugs, expected);
    let r = find(
        &app,
        "/api/blog/categories",
        "search=tree&limit=3&offset=1&orderBy[and][0][column]=slug&orderBy[and][0][method]=desc",
    )
    .await;
    let slugs: Vec<&str> = r
        .data()
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["slug"].as_str().unwrap())
        .collect();
    assert_eq!(slugs, ["c-02197", "c-02196", "c-02195"]);
    let r = find(
        &app,
        "/api/blog/categories",
        "search=rock&count=true&limit=5",
    )
    .await;
    assert_eq!(r.header("x-total-count"), Some("220"), "{}", r.text);
    assert_eq!(r.header("x-total-count-exact"), Some("true"));
    let r = find(&app, "/api/blog/categories", "count=true&limit=5").await;
    assert_eq!(r.header("x-total-count"), Some("2200"), "{}", r.text);
    assert_eq!(r.header("x-total-count-exact"), Some("true"));
}
dual_test!(a_common_search_term_pages_in_list_order);

async fn what_the_server_does_not_understand_is_a_400_naming_it(app: TestApp) {
    for (t, v) in [("a", 1), ("b", 2)] {
        app.create("/api/analytic/metrics", &json!({"title": t, "value": v}))
            .await;
    }
    let m = "/api/analytic/metrics";
    let bad = |q: String, name: &'static str| {
        let app = &app;
        async move {
            let r = app.get(&format!("{m}?{q}")).await;
            assert_eq!(r.status, 400, "{q}: {}", r.text);
            assert!(
                r.body["fields"].get(name).is_some(),
                "{q} names {name}: {}",
                r.text
            );
        }
    };
    // The nested-object mistake: a client that flattens {filters: {and: […]}} sends `and=…`;
    // it used to return every row with 200.
    bad(format!("and={}", enc("[object Object]")), "and").await;
    bad(
        "and[0][column]=title&and[0][method]=eq&and[0][value]=a".to_owned(),
        "and",
    )
    .await;
    bad("limt=1".into(), "limt").await;
    bad(
        "filters[and][0][colum]=title&filters[and][0][method]=eq&filters[and][0][value]=a".into(),
        "filters[and][0].colum",
    )
    .await;
    bad(format!("filters={}", enc("{\"and\": [")), "filters").await;
    bad("count=maybe".into(), "count").await;
    // By id, and on hand-written routes: the declared parameters only.
    let id = app.get(m).await.data()[0]["id"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let r = app.get(&format!("{m}/{id}?fields=title")).await;
    assert_eq!(r.status, 400, "{}", r.text);
    assert!(r.body["fields"].get("fields").is_some(), "{}", r.text);
    let r = app.get("/api/analytic/dashboard?dayz=7").await;
    assert_eq!(r.status, 400, "{}", r.text);
    assert!(r.text.contains("it takes: days"), "{}", r.text);
    let r = app.get("/api/analytic/dashboard?days=7").await;
    assert_eq!(r.status, 200, "{}", r.text);
    let r = app.anon().get("/api/host/pages/bundle?url=/&lang=ru").await;
    assert_eq!(r.status, 400, "{}", r.text);
    // Still 200 for what is declared.
    assert_eq!(
        find(&app, m, "limit=1&offset=1&count=true")
            .await
            .data()
            .as_array()
            .map(Vec::len),
        Some(1)
    );
}
dual_test!(what_the_server_does_not_understand_is_a_400_naming_it);

/// Sorting is on indexed columns only, `offset` is bounded, and the `after` cursor pages on from
/// any depth: each page starts at its cursor row (issue 17, fix 1).
async fn sorts_are_indexed_and_cursors_page_through_everything(app: TestApp) {
    let route = "/api/ecommerce/attributes";
    // Ties (equal numbers) and NULLs, so the id tiebreak and NULL order are exercised.
    let numbers = [
        Some("3"),
        Some("1"),
        None,
        Some("2"),
        Some("3"),
        None,
        Some("10.5"),
        Some("2"),
        Some("3"),
        None,
        Some("-1"),
        Some("7"),
        Some("3"),
    ];
    let mut ids = Vec::new();
    for n in numbers {
        let body = match n {
            Some(n) => json!({"number": n}),
            None => json!({"boolean": true}),
        };
        let r = app.post(route, &body).await;
        assert_eq!(r.status, 201, "{}", r.text);
        ids.push(r.data()["id"].as_str().unwrap().to_owned());
    }
    for (sort, desc) in [
        ("", false),
        ("number", false),
        ("number", true),
        ("id", true),
        ("createdAt", true),
    ] {
        let order = if sort.is_empty() {
            String::new()
        } else {
            format!(
                "&orderBy[and][0][column]={sort}&orderBy[and][0][method]={}",
                if desc { "desc" } else { "asc" }
            )
        };
        // The whole list in one page, the reference order.
        let all = find(&app, route, &format!("limit=100{order}")).await;
        let want: Vec<String> = in_order(&all, "id")
            .into_iter()
            .map(str::to_owned)
            .collect();
        assert_eq!(want.len(), numbers.len());
        assert!(
            all.header("x-next-cursor").is_none(),
            "a short page has no next page"
        );
        // Pages of 3, each started from the previous page's cursor.
        let mut got = Vec::new();
        let mut after: Option<String> = None;
        for _ in 0..10 {
            let q = match &after {
                Some(c) => format!("limit=3{order}&after={}", enc(c)),
                None => format!("limit=3{order}"),
            };
            let r = find(&app, route, &q).await;
            got.extend(in_order(&r, "id").into_iter().map(str::to_owned));
            match r.header("x-next-cursor") {
                Some(c) => after = Some(c.to_owned()),
                None => break,
            }
        }
        assert_eq!(
            got, want,
            "cursor pages in the order of one page (sort {sort} {desc})"
        );
    }
    // A cursor of one sort is refused for another; junk is refused; a cursor with an offset too.
    let r = find(&app, route, "limit=2&orderBy[and][0][column]=number").await;
    let c = r.header("x-next-cursor").expect("full page").to_owned();
    for q in [
        format!(
            "limit=2&orderBy[and][0][column]=number&orderBy[and][0][method]=desc&after={}",
            enc(&c)
        ),
        format!("limit=2&after={}", enc(&c)),
        "limit=2&after=not-a-cursor".to_owned(),
        format!(
            "limit=2&orderBy[and][0][column]=number&offset=2&after={}",
            enc(&c)
        ),
    ] {
        let r = app.get(&format!("{route}?{q}")).await;
        assert_eq!(r.status, 400, "{q}: {}", r.text);
        assert!(r.text.contains("after"), "{q}: {}", r.text);
    }
    // Sorting on a column no index leads is refused and names the ones that work.
    let r = app
        .get(&format!("{route}?orderBy[and][0][column]=boolean"))
        .await;
    assert_eq!(r.status, 400, "{}", r.text);
    assert!(r.text.contains("createdAt"), "{}", r.text);
    // The offset is bounded; past it the message says how to go on.
    let r = app.get(&format!("{route}?offset=10000")).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let r = app.get(&format!("{route}?offset=10001")).await;
    assert_eq!(r.status, 400, "{}", r.text);
    assert!(r.text.contains("X-Next-Cursor"), "{}", r.text);
}
dual_test!(sorts_are_indexed_and_cursors_page_through_everything);

/// Internal scans (`Store::all`, the sitemap's record URLs) page by keyset past their 1 000-row
/// page: every row once, in list order, with ties in the sort and a cap mid-page.
async fn scans_page_through_every_row_once(app: TestApp) {
    use stoa_kernel::query::FindQuery;
    let e = app.store.entity("analytic.metric").expect("entity");
    for chunk in 0..21 {
        let items: Vec<serde_json::Map<String, Value>> = (0..100)
            .map(|i| {
                let n = chunk * 100 + i;
                json!({"title": format!("m{n}"), "value": n % 7})
                    .as_object()
                    .cloned()
                    .unwrap_or_default()
            })
            .collect();
        app.store.bulk_create(&e, &items).await.expect("bulk");
    }
    let ids = |rows: &[stoa_store::Record]| -> Vec<String> {
        rows.iter()
            .filter_map(|r| r.id().map(|u| u.to_string()))
            .collect()
    };
    let all = ids(&app.store.all(&e, usize::MAX).await.expect("all"));
    let mut sorted = all.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(all.len(), 2100);
    assert_eq!(all, sorted, "every row once, in id order");
    // A sort with ties (7 values), descending, stopped at 1 500 rows.
    let q = FindQuery::all().sort(&e, "value", true).expect("sort");
    let mut got: Vec<(i64, String)> = Vec::new();
    app.store
        .scan(&e, q, 1500, |rows| {
            got.extend(
                rows.iter()
                    .filter_map(|r| Some((r.int("value")?, r.id()?.to_string()))),
            )
        })
        .await
        .expect("scan");
    assert_eq!(got.len(), 1500);
    let mut want = got.clone();
    want.sort_by(|a, b| b.cmp(a));
    assert_eq!(got, want, "value descending, then id descending");
    let mut unique: Vec<&String> = got.iter().map(|(_, id)| id).collect();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 1500, "no row twice across pages");
    assert_eq!(got[0].0, 6);
    // A pulled walk (what the order sweep does): pages of 64, stopped after the third page and
    // taken up later from where it stopped, deleting each page's last row as it goes; every row
    // once.
    let mut walk = app.store.walk(&e, FindQuery::all(), 64, usize::MAX);
    let mut walked = Vec::new();
    for _ in 0..3 {
        let rows = walk.next().await.expect("page").expect("a page");
        assert_eq!(rows.len(), 64);
        walked.extend(ids(&rows));
    }
    assert!(!walk.done(), "rows are left");
    let resume = walk.after().map(<[stoa_kernel::value::Val]>::to_vec);
    assert!(resume.is_some());
    let mut q = FindQuery::all();
    q.after = resume;
    let mut walk = app.store.walk(&e, q, 64, usize::MAX);
    let mut pages = 0;
    while let Some(rows) = walk.next().await.expect("page") {
        pages += 1;
        // Deleting the row the cursor stands on does not move the walk (keyset, not offset).
        let last = rows.last().and_then(stoa_store::Record::id).expect("id");
        app.store.delete(&e, last).await.expect("delete");
        walked.extend(ids(&rows));
    }
    assert!(walk.done());
    assert_eq!(
        pages,
        (2100 - 192_usize).div_ceil(64),
        "full pages, then a short one"
    );
    assert_eq!(
        walked, all,
        "every row once, in id order, across the two walks"
    );
    // A walk whose time budget is spent fetches nothing, and is not done.
    let mut spent = app
        .store
        .walk(&e, FindQuery::all(), 64, usize::MAX)
        .within(std::time::Duration::ZERO);
    assert!(spent.next().await.expect("none").is_none());
    assert!(!spent.done());
    // A query's offset skips rows once, before the first page, not again before each page.
    let left = app.store.all(&e, usize::MAX).await.expect("all").len();
    let mut q = FindQuery::all();
    q.offset = 10;
    let mut walk = app.store.walk(&e, q, 64, usize::MAX);
    let mut seen = 0;
    while let Some(rows) = walk.next().await.expect("page") {
        seen += rows.len();
    }
    assert_eq!(seen, left - 10);
}
dual_test!(scans_page_through_every_row_once);

/// Nested savepoints (billing applies a payment, and the work hooked on it, in savepoints of the
/// payment's transaction): each end reaches only its own level, whichever `Exec` of the
/// transaction ends it, and whatever inner level was left open; an inner rollback keeps the
/// outer work; an outer rollback takes the released inner work with it; ending a level that is
/// not open is refused, not sent.
async fn nested_savepoints_end_only_their_own_level(app: TestApp) {
    let e = app.store.entity("analytic.metric").expect("entity");
    let currencies = app.store.entity("billing.currency").expect("entity");
    // A metric titled `t`, written on `x`.
    async fn add(
        app: &TestApp,
        x: &mut stoa_store::Exec<'_>,
        e: &stoa_kernel::model::Entity,
        t: &str,
    ) {
        let item = json!({"title": t, "value": 1});
        app.store
            .create_in(x, e, item.as_object().expect("an object"))
            .await
            .expect("metric");
    }
    let mut tx = app.store.begin().await.expect("begin");
    let (one, two) = {
        let mut x = tx.exec();
        add(&app, &mut x, &e, "outer").await;
        let one = x.begin_nested().await.unwrap();
        add(&app, &mut x, &e, "kept").await;
        let two = x.begin_nested().await.unwrap();
        add(&app, &mut x, &e, "undone").await;
        x.end_nested(two, false).await.unwrap();
        // Level 2 again, ended through another borrow of the transaction.
        let two = x.begin_nested().await.unwrap();
        add(&app, &mut x, &e, "kept too").await;
        (one, two)
    };
    tx.exec().end_nested(two, true).await.unwrap();
    tx.exec().end_nested(one, true).await.unwrap();
    {
        let mut x = tx.exec();
        assert!(x.end_nested(one, true).await.is_err(), "none is open");
        // Released inner work goes with its outer level's rollback.
        let one = x.begin_nested().await.unwrap();
        add(&app, &mut x, &e, "gone").await;
        let two = x.begin_nested().await.unwrap();
        add(&app, &mut x, &e, "gone too").await;
        x.end_nested(two, true).await.unwrap();
        x.end_nested(one, false).await.unwrap();
        add(&app, &mut x, &e, "last").await;
        // An inner level left open (a caller that returned early) does not move the outer
        // one's end: level 1's rollback reaches level 1 and takes level 2 with it.
        let one = x.begin_nested().await.unwrap();
        add(&app, &mut x, &e, "gone 3").await;
        let left_open = x.begin_nested().await.unwrap();
        add(&app, &mut x, &e, "gone 4").await;
        x.end_nested(one, false).await.unwrap();
        // …and levels count from 1 again.
        let one = x.begin_nested().await.unwrap();
        assert!(
            x.end_nested(left_open, false).await.is_err(),
            "level 2 is not open"
        );
        x.end_nested(one, true).await.unwrap();
        // A statement failing inside a level (a duplicate): on PostgreSQL that aborts the
        // transaction, so releasing the level fails and it is rolled back instead (what billing
        // does), reaching that level only; the work of the level around it stays.
        let rub = json!({"slug": "dup", "symbol": "d", "title": "d"})
            .as_object()
            .cloned()
            .unwrap_or_default();
        let one = x.begin_nested().await.unwrap();
        app.store
            .create_in(&mut x, &currencies, &rub)
            .await
            .unwrap();
        let two = x.begin_nested().await.unwrap();
        assert!(
            app.store
                .create_in(&mut x, &currencies, &rub)
                .await
                .is_err()
        );
        let kept = x.end_nested(two, true).await;
        assert_eq!(
            kept.is_err(),
            app.store.db.backend() == stoa_store::Backend::Postgres,
            "{kept:?}"
        );
        if kept.is_err() {
            x.end_nested(two, false).await.unwrap();
        }
        x.end_nested(one, true).await.unwrap();
    }
    tx.commit().await.expect("commit");
    let dup = app
        .store
        .find_by(
            &currencies,
            &[("slug", stoa_kernel::value::Val::Text("dup".into()))],
            5,
        )
        .await
        .expect("find");
    assert_eq!(dup.len(), 1, "the outer level's currency stays");
    let mut titles: Vec<String> = app
        .store
        .all(&e, 100)
        .await
        .expect("all")
        .iter()
        .filter_map(|r| r.text("title").map(str::to_owned))
        .collect();
    titles.sort();
    assert_eq!(titles, ["kept", "kept too", "last", "outer"]);
    // Outside a transaction there is nothing to nest in.
    let mut conn = app.store.db.read().await.expect("conn");
    assert!(conn.exec().begin_nested().await.is_err());
}
dual_test!(nested_savepoints_end_only_their_own_level);

/// A list writes each row as the same JSON the record's own read writes (PostgreSQL lists are
/// written straight from the rows, SQLite's from its reader): every kind of column — uuid,
/// reference, text, enum, int, bool, decimal, timestamp, translations, rich text and JSON, null
/// or set.
async fn list_rows_are_the_records_reads(app: TestApp) {
    let rub = app
        .create(
            "/api/billing/currencies",
            &json!({"slug": "rub", "symbol": "₽", "title": "Рубль \"quoted\"\n", "isDefault": true}),
        )
        .await;
    let article = app
        .create(
            "/api/blog/articles",
            &json!({"slug": "kinds", "title": {"en": "Kinds", "ru": "Виды «все»"}}),
        )
        .await;
    app.create("/api/blog/articles", &json!({"slug": "bare"}))
        .await;
    app.create("/api/ecommerce/attributes", &json!({"boolean": false}))
        .await;
    let attr = app
        .create(
            "/api/ecommerce/attributes",
            &json!({"number": "199.50", "boolean": true, "datetime": "2026-11-24T10:11:12.345Z", "string": {"en": "x\u{1}y"}}),
        )
        .await;
    app.create(
        "/api/ecommerce/attributes-to-billing-module-currencies",
        &json!({"attributeId": attr["id"], "billingModuleCurrencyId": rub["id"]}),
    )
    .await;
    for route in [
        "/api/billing/currencies",
        "/api/blog/articles",
        "/api/ecommerce/attributes",
        "/api/ecommerce/attributes-to-billing-module-currencies",
        "/api/rbac/roles",
        "/api/rbac/permissions",
    ] {
        let list = app.get(&format!("{route}?limit=1000")).await;
        assert_eq!(list.status, 200, "{route}: {}", list.text);
        let rows = list.data().as_array().cloned().unwrap_or_default();
        assert!(!rows.is_empty(), "{route}");
        for row in rows {
            let one = app
                .get(&format!("{route}/{}", row["id"].as_str().unwrap()))
                .await;
            assert_eq!(one.status, 200, "{route}: {}", one.text);
            assert_eq!(
                &row,
                one.data(),
                "{route}: the list's row and the record differ"
            );
        }
    }
    // The article's values came through intact.
    let one = app
        .get(&format!(
            "/api/blog/articles/{}",
            article["id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(one.data()["title"]["ru"], "Виды «все»");
}
dual_test!(list_rows_are_the_records_reads);

//! Times one receipt (the 1485 × 1050 template as PNG), single-threaded, each receipt another
//! order's (its number and address): from its prepared first layer with its text elements kept
//! (what a paid order gets), the same with its text parsed whole, and in one rendering (every
//! layer each time, as every receipt was made before): `cargo run --release -p stoa-file-storage --example
//! receipt_time`. Figures in docs/benchmarks.md ("The receipt").
use std::time::Instant;

fn main() -> Result<(), stoa_kernel::Error> {
    let data = serde_json::json!({"language": "ru", "site": {"name": "forplanet.org"},
        "paidAt": "2026-11-27 21:00 UTC",
        "ecommerce": {"order": {"id": "0192f0a4-1111-7000-8000-000000000001", "number": 4242,
        "email": "b1@example.com", "billingModuleCurrency": {"symbol": "₽"}, "checkoutTotal": "199",
        "ordersToProducts": [{"quantity": 1, "product": {"title": {"en": "tree", "ru": "дерево"}},
            "total": [{"total": "199", "billingModuleCurrency": {"symbol": "₽"}}]}]}}});
    let variant = stoa_file_storage::render::RECEIPT;
    let n = 40;
    type Render = fn(&str, u32, u32, &serde_json::Value) -> Result<Vec<u8>, stoa_kernel::Error>;
    let ways: [(&str, Render); 3] = [
        ("from the prepared layer", stoa_file_storage::render::png),
        (
            "from the prepared layer, its text parsed whole",
            stoa_file_storage::render::png_parsed_whole,
        ),
        (
            "in one rendering",
            stoa_file_storage::render::png_in_one_rendering,
        ),
    ];
    // RECEIPT_PNG=path: the receipt as a paid order gets it, to look at.
    if let Ok(path) = std::env::var("RECEIPT_PNG") {
        // RECEIPT_LANG=en: the same order's receipt in English.
        let mut data = data.clone();
        if let Ok(lang) = std::env::var("RECEIPT_LANG") {
            data["language"] = serde_json::json!(lang);
        }
        let png = stoa_file_storage::render::png(variant, 1485, 1050, &data)?;
        std::fs::write(&path, png).map_err(|e| stoa_kernel::Error::internal(e.to_string()))?;
    }
    // `receipt_time prepared`: only the first way (for a profiler).
    let only = std::env::args().nth(1);
    for (way, render) in ways {
        if only.is_some() && !way.contains(only.as_deref().unwrap_or_default()) {
            continue;
        }
        for round in 0..3 {
            // Each receipt of another order (its number and address), as in a run of payments.
            let orders: Vec<_> = (0..n)
                .map(|i| {
                    let mut d = data.clone();
                    let o = &mut d["ecommerce"]["order"];
                    o["number"] = serde_json::json!(5000 + round * n + i);
                    o["email"] = serde_json::json!(format!("b{}@example.com", round * n + i));
                    d
                })
                .collect();
            let t = Instant::now();
            let mut size = 0;
            for d in &orders {
                size = render(variant, 1485, 1050, d)?.len();
            }
            let ms = t.elapsed().as_secs_f64() * 1000.0 / f64::from(n);
            println!("{way}: {ms:.2} ms per receipt, {size} bytes");
        }
    }
    Ok(())
}

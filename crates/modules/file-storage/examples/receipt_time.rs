//! Times one receipt (the 1485 × 1050 template, rendered and encoded as PNG), single-threaded:
//! `cargo run --release -p stoa-file-storage --example receipt_time`. Figures in
//! docs/benchmarks.md ("The receipt").
use std::time::Instant;

fn main() -> Result<(), stoa_kernel::Error> {
    let data = serde_json::json!({"language": "ru", "site": {"name": "forplanet.org"},
        "paidAt": "2026-11-27 21:00 UTC",
        "ecommerce": {"order": {"id": "0192f0a4-1111-7000-8000-000000000001",
        "email": "b1@example.com", "billingModuleCurrency": {"symbol": "₽"}, "checkoutTotal": "199",
        "ordersToProducts": [{"quantity": 1, "product": {"title": {"en": "tree", "ru": "дерево"}},
            "total": [{"total": "199", "billingModuleCurrency": {"symbol": "₽"}}]}]}}});
    let variant = stoa_file_storage::render::RECEIPT;
    let n = 40;
    for _ in 0..3 {
        let t = Instant::now();
        let mut size = 0;
        for _ in 0..n {
            size = stoa_file_storage::render::png(variant, 1485, 1050, &data)?.len();
        }
        let ms = t.elapsed().as_secs_f64() * 1000.0 / f64::from(n);
        println!("{ms:.2} ms per receipt, {size} bytes");
    }
    Ok(())
}

//! Prices: an attribute linked to a product, to the attribute key of type `price` and to one
//! billing currency (one such attribute per currency). Totals are computed here, never taken
//! from a client.

use std::collections::{HashMap, HashSet};

use rust_decimal::Decimal;
use serde::Serialize;
use stoa_kernel::Result;
use stoa_kernel::query::FindQuery;
use stoa_kernel::value::Val;
use stoa_store::{Record, Store};
use uuid::Uuid;

use crate::rows::{
    AttributeCurrencyRow, AttributeRow, KeyAttributeRow, ProductAttributeRow, StoreProductRow,
};

/// One price of a product.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Price {
    /// Exact; serialised as a decimal string (`"199"`, `"2.50"`).
    pub amount: Decimal,
    pub currency: Currency,
}

/// A currency as a price, a total or an order names it.
#[derive(Clone, Debug, Serialize, PartialEq, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "EcommerceCurrencyCard")]
pub struct Currency {
    pub id: Uuid,
    pub slug: String,
    pub symbol: String,
    pub title: String,
    pub is_default: bool,
}

const CAP: usize = 10_000;

fn uuids(rows: &[stoa_store::Record], field: &str) -> Vec<Val> {
    let set: HashSet<Uuid> = rows.iter().filter_map(|r| r.uuid(field)).collect();
    set.into_iter().map(Val::Uuid).collect()
}

/// The attributes of `products` linked to an attribute key of type `kind` (`price`,
/// `interval`): the product ↔ attribute links and the attribute rows. The one walk prices and
/// intervals share.
async fn keyed_attributes(
    store: &Store,
    products: &[Uuid],
    kind: &str,
) -> Result<(Vec<Record>, Vec<Record>)> {
    if products.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let keys = store
        .find_by(
            &*store.entity("ecommerce.attribute-key")?,
            &[("type", Val::Text(kind.into()))],
            100,
        )
        .await?;
    if keys.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let ids: Vec<Val> = products.iter().copied().map(Val::Uuid).collect();
    let p2a = store
        .find_in(
            &*store.entity("ecommerce.products-to-attributes")?,
            "productId",
            &ids,
            CAP,
        )
        .await?;
    let key_ids: HashSet<Uuid> = keys.iter().filter_map(|k| k.id()).collect();
    let keyed: Vec<Val> = store
        .find_in(
            &*store.entity("ecommerce.attribute-keys-to-attributes")?,
            "attributeId",
            &uuids(&p2a, "attributeId"),
            CAP,
        )
        .await?
        .iter()
        .filter_map(|l| KeyAttributeRow::of(l).ok())
        .filter(|l| l.key_id.is_some_and(|k| key_ids.contains(&k)))
        .filter_map(|l| l.attribute_id)
        .collect::<HashSet<_>>()
        .into_iter()
        .map(Val::Uuid)
        .collect();
    let attrs = store
        .find_in(&*store.entity("ecommerce.attribute")?, "id", &keyed, CAP)
        .await?;
    Ok((p2a, attrs))
}

/// The prices of each product in `products` (products without a price are absent).
pub async fn of(store: &Store, products: &[Uuid]) -> Result<HashMap<Uuid, Vec<Price>>> {
    let mut out: HashMap<Uuid, Vec<Price>> = HashMap::new();
    let (p2a, rows) = keyed_attributes(store, products, "price").await?;
    if rows.is_empty() {
        return Ok(out);
    }
    let attrs: HashMap<Uuid, Decimal> = rows
        .iter()
        .filter_map(|a| {
            let a = AttributeRow::of(a).ok()?;
            Some((a.id, a.number?))
        })
        .collect();
    let priced_vals: Vec<Val> = attrs.keys().copied().map(Val::Uuid).collect();
    let a2c = store
        .find_in(
            &*store.entity("ecommerce.attributes-to-billing-module-currencies")?,
            "attributeId",
            &priced_vals,
            CAP,
        )
        .await?;
    let currencies: HashMap<Uuid, Currency> = store
        .find_in(
            &*store.entity("billing.currency")?,
            "id",
            &uuids(&a2c, "billingModuleCurrencyId"),
            CAP,
        )
        .await?
        .iter()
        .filter_map(|c| {
            let c = stoa_billing::rows::CurrencyRow::of(c).ok()?;
            Some((
                c.id,
                Currency {
                    id: c.id,
                    slug: c.slug.unwrap_or_default(),
                    symbol: c.symbol.unwrap_or_default(),
                    title: c.title.unwrap_or_default(),
                    is_default: c.is_default.unwrap_or(false),
                },
            ))
        })
        .collect();
    let currency_of: HashMap<Uuid, Uuid> = a2c
        .iter()
        .filter_map(|l| {
            let l = AttributeCurrencyRow::of(l).ok()?;
            Some((l.attribute_id?, l.currency_id?))
        })
        .collect();
    for link in &p2a {
        let link = ProductAttributeRow::of(link)?;
        let (Some(product), Some(attr)) = (link.product_id, link.attribute_id) else {
            continue;
        };
        let (Some(amount), Some(currency)) = (
            attrs.get(&attr),
            currency_of.get(&attr).and_then(|c| currencies.get(c)),
        ) else {
            continue;
        };
        out.entry(product).or_default().push(Price {
            amount: *amount,
            currency: currency.clone(),
        });
    }
    Ok(out)
}

/// A product as the cart and the checkout read it: its row (absent when it does not exist or
/// the reader may not see it; only the fields a cart shows, [`LISTED_FIELDS`]), its prices, its
/// subscription interval, and the stores that sell it (two at most: more than one is already
/// ambiguous).
#[derive(Debug, Default)]
pub struct Listing {
    pub product: Option<Record>,
    pub prices: Vec<Price>,
    pub interval: Option<String>,
    pub stores: Vec<Uuid>,
}

/// The tables a [`Listing`] is read from: a committed change to any of them (here, or on another
/// instance, through its change notice) empties the catalogue.
const LISTING_TABLES: [&str; 8] = [
    "ecommerce.product",
    "ecommerce.attribute-key",
    "ecommerce.attribute",
    "ecommerce.products-to-attributes",
    "ecommerce.attribute-keys-to-attributes",
    "ecommerce.attributes-to-billing-module-currencies",
    "billing.currency",
    "ecommerce.stores-to-products",
];
/// The product fields a listing keeps (a cart's line shows them; the checkout reads the type):
/// not the descriptions, which may be long.
const LISTED_FIELDS: [&str; 5] = ["id", "slug", "title", "type", "adminTitle"];
/// Listings kept at most: a spray of made-up product ids fills the map, which is then emptied
/// (a listing is its fields above — the title in each language, bounded by its field's
/// length — a price per currency and a few ids, so the catalogue stays within a few MiB).
const LISTINGS_MAX: usize = 10_000;
/// The longest a listing is served without being read again (bounds what a lost change notice
/// from another instance can leave stale).
const LISTING_MAX_AGE: std::time::Duration = std::time::Duration::from_secs(10);

/// Listings kept in memory while their tables do not change. Every add to cart and every
/// checkout read a product's row, prices, interval and stores: about fifteen reads, the same for
/// every buyer of the product. Kept apart for readers who see drafts (the admin, jobs) and
/// readers who do not (visitors).
#[derive(Default)]
pub struct Catalog {
    kept: std::sync::RwLock<Kept>,
}

#[derive(Default)]
struct Kept {
    /// The tables' change counters the listings were read at.
    versions: [u64; LISTING_TABLES.len()],
    since: Option<std::time::Instant>,
    listings: HashMap<(bool, Uuid), std::sync::Arc<Listing>>,
}

impl Kept {
    fn fresh(&self, versions: &[u64; LISTING_TABLES.len()]) -> bool {
        self.versions == *versions && self.since.is_some_and(|t| t.elapsed() < LISTING_MAX_AGE)
    }
}

impl Catalog {
    /// The listing of each of `products` (one for every id asked, empty for an unknown one).
    pub async fn listings(
        &self,
        store: &Store,
        products: &[Uuid],
    ) -> Result<HashMap<Uuid, std::sync::Arc<Listing>>> {
        // Read before the tables are: a change committed meanwhile moves a counter past these,
        // so what is read now is never kept under counters newer than it.
        let versions = LISTING_TABLES.map(|k| store.version(k));
        let drafts = stoa_store::publish::drafts_visible();
        let mut out = HashMap::with_capacity(products.len());
        let mut missing = Vec::new();
        if let Ok(kept) = self.kept.read() {
            let fresh = kept.fresh(&versions);
            for p in products {
                match kept.listings.get(&(drafts, *p)) {
                    Some(l) if fresh => {
                        out.insert(*p, l.clone());
                    }
                    _ => missing.push(*p),
                }
            }
        } else {
            missing.extend_from_slice(products);
        }
        missing.sort_unstable();
        missing.dedup();
        if missing.is_empty() {
            return Ok(out);
        }
        let read = read_listings(store, &missing).await?;
        if let Ok(mut kept) = self.kept.write() {
            let newer = versions
                .iter()
                .zip(kept.versions.iter())
                .all(|(now, then)| now >= then);
            if !kept.fresh(&versions) && newer {
                *kept = Kept {
                    versions,
                    since: Some(std::time::Instant::now()),
                    listings: HashMap::new(),
                };
            }
            if kept.versions == versions && read.len() <= LISTINGS_MAX {
                if kept.listings.len() + read.len() > LISTINGS_MAX {
                    kept.listings.clear();
                }
                for (p, l) in &read {
                    kept.listings.insert((drafts, *p), l.clone());
                }
            }
        }
        out.extend(read);
        Ok(out)
    }
}

/// The listings of `ids`, read from the tables.
async fn read_listings(
    store: &Store,
    ids: &[Uuid],
) -> Result<HashMap<Uuid, std::sync::Arc<Listing>>> {
    let vals: Vec<Val> = ids.iter().copied().map(Val::Uuid).collect();
    let mut rows: HashMap<Uuid, Record> = store
        .find_in(
            &*store.entity("ecommerce.product")?,
            "id",
            &vals,
            vals.len() + 1,
        )
        .await?
        .into_iter()
        .filter_map(|p| {
            let id = p.id()?;
            let kept =
                p.0.into_iter()
                    .filter(|(name, _)| LISTED_FIELDS.contains(name))
                    .collect();
            Some((id, Record(kept)))
        })
        .collect();
    let mut prices = of(store, ids).await?;
    let mut intervals = intervals(store, ids).await?;
    let stores = selling_stores(store, ids).await?;
    let mut out = HashMap::with_capacity(ids.len());
    for id in ids {
        let product = rows.remove(id);
        let stores = match &product {
            Some(_) => stores.get(id).cloned().unwrap_or_default(),
            None => Vec::new(),
        };
        out.insert(
            *id,
            std::sync::Arc::new(Listing {
                product,
                prices: prices.remove(id).unwrap_or_default(),
                interval: intervals.remove(id),
                stores,
            }),
        );
    }
    Ok(out)
}

/// Up to two distinct stores selling each of `ids`: one read for all of them; a product whose
/// links that read cut short is read again on its own.
async fn selling_stores(store: &Store, ids: &[Uuid]) -> Result<HashMap<Uuid, Vec<Uuid>>> {
    let s2p = store.entity("ecommerce.stores-to-products")?;
    let vals: Vec<Val> = ids.iter().copied().map(Val::Uuid).collect();
    let cap = (ids.len() * 3).min(CAP);
    let links = store.find_in(&s2p, "productId", &vals, cap).await?;
    let cut = links.len() >= cap;
    let mut out: HashMap<Uuid, Vec<Uuid>> = HashMap::new();
    let add = |out: &mut HashMap<Uuid, Vec<Uuid>>, l: &Record| {
        if let Ok(StoreProductRow {
            product_id: Some(p),
            store_id: Some(s),
        }) = StoreProductRow::of(l)
        {
            let v = out.entry(p).or_default();
            if v.len() < 2 && !v.contains(&s) {
                v.push(s);
            }
        }
    };
    for l in &links {
        add(&mut out, l);
    }
    if cut {
        for id in ids {
            if out.get(id).is_none_or(|v| v.len() < 2) {
                for l in store
                    .find_by(&s2p, &[("productId", Val::Uuid(*id))], 3)
                    .await?
                {
                    add(&mut out, &l);
                }
            }
        }
    }
    Ok(out)
}

/// Order statuses that mean the order was paid.
pub const PAID: &[&str] = &["approving", "packaging", "delivering", "delivered"];

/// The quantity of products in paid orders, per product, for the public counter. Every request
/// is a lookup: the sums are computed in one pass when orders or lines changed, one computation at
/// a time, and after a change no sooner than ten times the last computation took (so recounting
/// costs at most a tenth of a core however large the tables grow; callers in between get the
/// previous sums). A spray of requests, or of made-up product ids, costs a map lookup each.
#[derive(Default)]
pub struct PaidCounter {
    state: tokio::sync::Mutex<Option<Sums>>,
}

struct Sums {
    version: u64,
    at: std::time::Instant,
    took: std::time::Duration,
    total: i64,
    by_product: HashMap<Uuid, i64>,
}

/// The longest sums are served after a change.
const PAID_STALE_MAX: std::time::Duration = std::time::Duration::from_secs(5);

impl PaidCounter {
    pub async fn get(&self, store: &Store, product: Option<Uuid>) -> Result<i64> {
        let version = store
            .version("ecommerce.order")
            .wrapping_add(store.version("ecommerce.orders-to-products"));
        let mut g = self.state.lock().await;
        let fresh = g.as_ref().is_some_and(|s| {
            s.version == version || s.at.elapsed() < (s.took * 10).min(PAID_STALE_MAX)
        });
        if !fresh {
            *g = Some(paid_sums(store, version).await?);
        }
        let s = g
            .as_ref()
            .ok_or_else(|| stoa_kernel::Error::internal("paid sums missing"))?;
        Ok(match product {
            Some(p) => s.by_product.get(&p).copied().unwrap_or(0),
            None => s.total,
        })
    }
}

async fn paid_sums(store: &Store, version: u64) -> Result<Sums> {
    let started = std::time::Instant::now();
    let orders = store.entity("ecommerce.order")?;
    let lines = store.entity("ecommerce.orders-to-products")?;
    let statuses: Vec<Val> = PAID.iter().map(|s| Val::Text((*s).into())).collect();
    let paid = FindQuery::all().any_of(&orders, "status", statuses)?;
    // One aggregate in the database: no order or line row reaches the server.
    let sums = store
        .sum_by(&lines, "quantity", "productId", "orderId", &orders, &paid)
        .await?;
    let mut by_product: HashMap<Uuid, i64> = HashMap::new();
    let mut total = 0i64;
    for (product, q) in sums {
        total = total.saturating_add(q);
        if let Some(p) = product.and_then(|p| Uuid::parse_str(&p).ok()) {
            let e = by_product.entry(p).or_default();
            *e = e.saturating_add(q);
        }
    }
    Ok(Sums {
        version,
        at: std::time::Instant::now(),
        took: started.elapsed(),
        total,
        by_product,
    })
}

/// Calls `f` with every product node (`_entity: ecommerce.product`) in `v` and its id, at any
/// depth.
fn each_product(
    v: &mut serde_json::Value,
    f: &mut impl FnMut(Uuid, &mut serde_json::Map<String, serde_json::Value>),
) {
    use serde_json::Value;
    match v {
        Value::Object(m) => {
            if m.get("_entity").and_then(Value::as_str) == Some("ecommerce.product")
                && let Some(id) = m
                    .get("id")
                    .and_then(Value::as_str)
                    .and_then(|s| Uuid::parse_str(s).ok())
            {
                f(id, m);
            }
            m.values_mut().for_each(|x| each_product(x, f));
        }
        Value::Array(a) => a.iter_mut().for_each(|x| each_product(x, f)),
        _ => {}
    }
}

/// Page bundles: every product carries its prices under `_prices`, read in one batch.
pub struct BundlePrices;

impl stoa_api::module::BundlePart for BundlePrices {
    fn contribute<'a>(
        &'a self,
        store: &'a Store,
        bundle: &'a mut serde_json::Value,
    ) -> stoa_api::module::BoxFuture<'a, Result<()>> {
        Box::pin(async move {
            let mut ids = HashSet::new();
            each_product(bundle, &mut |id, _| {
                ids.insert(id);
            });
            if ids.is_empty() {
                return Ok(());
            }
            let ids: Vec<Uuid> = ids.into_iter().collect();
            let prices: HashMap<Uuid, serde_json::Value> = of(store, &ids)
                .await?
                .into_iter()
                .map(|(k, v)| {
                    (
                        k,
                        serde_json::to_value(v).unwrap_or(serde_json::Value::Null),
                    )
                })
                .collect();
            each_product(bundle, &mut |id, m| {
                if let Some(p) = prices.get(&id) {
                    m.insert("_prices".into(), p.clone());
                }
            });
            Ok(())
        })
    }
}

/// The subscription interval of each product in `products` that has one: an attribute linked to
/// the attribute key of type `interval`, its value in `string` (`{"en": "month"}`).
pub async fn intervals(store: &Store, products: &[Uuid]) -> Result<HashMap<Uuid, String>> {
    let mut out = HashMap::new();
    let (p2a, rows) = keyed_attributes(store, products, "interval").await?;
    let values: HashMap<Uuid, String> = rows
        .iter()
        .filter_map(|a| {
            let a = AttributeRow::of(a).ok()?;
            let m = a.string?;
            let v = m
                .get("en")
                .and_then(|v| v.as_str())
                .or_else(|| m.as_object()?.values().find_map(|v| v.as_str()))?
                .trim()
                .to_lowercase();
            matches!(
                v.as_str(),
                "minute" | "hour" | "day" | "week" | "month" | "year"
            )
            .then_some((a.id, v))
        })
        .collect();
    for l in &p2a {
        if let ProductAttributeRow {
            product_id: Some(p),
            attribute_id: Some(a),
        } = ProductAttributeRow::of(l)?
            && let Some(v) = values.get(&a)
        {
            out.insert(p, v.clone());
        }
    }
    Ok(out)
}

//! Page URLs: which page a URL shows, every page's URL, and the value of one template segment.
//!
//! A page's `url` is a template: static segments, `[module.route.field]` segments that name one
//! record by a field (`/blog/articles/[blog.articles.slug]`), and `[module.route:pagination:N]`
//! segments (`""`, `2` … `ceil(count / N)`). A URL is resolved by matching it against each
//! template and looking up the one record each dynamic segment names — never by expanding every
//! record into every URL.

use stoa_kernel::markup::escape;
use stoa_kernel::model::{Entity, Kind};
use stoa_kernel::value::Val;
use stoa_kernel::{Error, Result};
use stoa_store::{Record, Store};

use crate::rows::{PageRow, with_rows};

/// Longest URL looked up.
pub use stoa_api::module::MAX_PAGE_URL as MAX_URL;

/// One segment of a page URL template.
#[derive(Debug, PartialEq, Eq)]
pub enum Segment<'a> {
    Static(&'a str),
    Record {
        module: &'a str,
        route: &'a str,
        field: &'a str,
    },
    Pagination {
        module: &'a str,
        route: &'a str,
        per_page: u64,
    },
}

/// The segments of a path (`/a/b/` → `["a", "b"]`, `/` → `[]`).
pub fn segments(path: &str) -> Vec<&str> {
    path.split('/').filter(|s| !s.is_empty()).collect()
}

/// Parses one template segment.
pub fn parse_segment(s: &str) -> Segment<'_> {
    let Some(inner) = s.strip_prefix('[').and_then(|x| x.strip_suffix(']')) else {
        return Segment::Static(s);
    };
    if let Some((target, per)) = inner.split_once(":pagination:")
        && let Some((module, route)) = target.split_once('.')
        && let Ok(per_page) = per.parse::<u64>()
        && per_page > 0
    {
        return Segment::Pagination {
            module,
            route,
            per_page,
        };
    }
    let mut parts = inner.splitn(3, '.');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(module), Some(route), Some(field)) if !field.is_empty() => Segment::Record {
            module,
            route,
            field,
        },
        _ => Segment::Static(s),
    }
}

pub use stoa_api::module::page_path as normalise;

pub(crate) fn entity_by_route<'s>(
    store: &'s Store,
    module: &str,
    route: &str,
) -> Option<&'s Entity> {
    store
        .registry
        .entities()
        .iter()
        .map(|e| e.as_ref())
        .find(|e| e.module == module && (e.route == route || e.name == route))
}

fn typed(e: &Entity, field: &str, raw: &str) -> Option<Val> {
    match e.field(field)?.kind {
        Kind::Text | Kind::Enum => Some(Val::Text(raw.to_owned())),
        Kind::Uuid | Kind::Reference => uuid::Uuid::parse_str(raw).ok().map(Val::Uuid),
        Kind::Int => raw.parse().ok().map(Val::Int),
        _ => None,
    }
}

/// Whether `value` (one URL segment) fits template segment `t`.
async fn fits(store: &Store, t: &Segment<'_>, value: Option<&str>) -> Result<bool> {
    match (t, value) {
        (Segment::Static(s), Some(v)) => Ok(*s == v),
        (
            Segment::Record {
                module,
                route,
                field,
            },
            Some(v),
        ) => {
            let Some(e) = entity_by_route(store, module, route) else {
                return Ok(false);
            };
            let Some(val) = typed(e, field, v) else {
                return Ok(false);
            };
            Ok(!store.find_by(e, &[(field, val)], 1).await?.is_empty())
        }
        (Segment::Pagination { .. }, None) => Ok(true),
        (
            Segment::Pagination {
                module,
                route,
                per_page,
            },
            Some(v),
        ) => {
            let Ok(page) = v.parse::<u64>() else {
                return Ok(false);
            };
            if page < 2 {
                return Ok(false);
            }
            let Some(e) = entity_by_route(store, module, route) else {
                return Ok(false);
            };
            Ok(page <= store.count(e).await?.div_ceil(*per_page))
        }
        (_, None) => Ok(false),
    }
}

/// Whether `url` (segments) is one of the URLs of `template`.
async fn matches(store: &Store, template: &str, url: &[&str]) -> Result<bool> {
    let t: Vec<Segment> = segments(template).into_iter().map(parse_segment).collect();
    let paginated = t.iter().any(|s| matches!(s, Segment::Pagination { .. }));
    if !(t.len() == url.len() || (paginated && t.len() == url.len() + 1)) {
        return Ok(false);
    }
    // Cheap checks first: every static segment, then one lookup per dynamic one.
    let mut pairs = Vec::with_capacity(t.len());
    let mut i = 0;
    for seg in &t {
        let v = if matches!(seg, Segment::Pagination { .. }) && t.len() > url.len() {
            None
        } else {
            let v = url.get(i).copied();
            i += 1;
            v
        };
        if let Segment::Static(s) = seg
            && v != Some(*s)
        {
            return Ok(false);
        }
        pairs.push((seg, v));
    }
    for (seg, v) in pairs {
        if !matches!(seg, Segment::Static(_)) && !fits(store, seg, v).await? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Every page, in a stable order (static templates before dynamic ones, then by id).
pub(crate) async fn all_pages(store: &Store) -> Result<Vec<PageRow>> {
    pages_up_to(store, usize::MAX).await
}

/// At most `cap` pages, in [`all_pages`]' order.
pub(crate) async fn pages_up_to(store: &Store, cap: usize) -> Result<Vec<PageRow>> {
    Ok(page_records(store, cap)
        .await?
        .into_iter()
        .map(|(p, _)| p)
        .collect())
}

/// At most `cap` pages with their records, in [`all_pages`]' order.
async fn page_records(store: &Store, cap: usize) -> Result<Vec<(PageRow, Record)>> {
    let mut out = with_rows::<PageRow>(store.all(&*store.entity("host.page")?, cap).await?)?;
    out.sort_by_key(|(p, _)| p.url.as_deref().unwrap_or_default().contains('['));
    Ok(out)
}

/// The page `url` shows.
pub async fn find_by_url(store: &Store, url: &str) -> Result<Record> {
    Ok(find_page(store, url).await?.1)
}

/// The page `url` shows, with its record.
pub(crate) async fn find_page(store: &Store, url: &str) -> Result<(PageRow, Record)> {
    let path = normalise(url)?;
    let wanted = segments(&path);
    for (page, record) in page_records(store, usize::MAX).await? {
        let template = page.url.as_deref().unwrap_or_default();
        if matches(store, template, &wanted).await? {
            return Ok((page, record));
        }
    }
    Err(Error::not_found(format!("Page with url {path} not found")))
}

/// The part of `url` at the template segment containing `segment` (`blog.articles.slug`);
/// pagination defaults to `"1"`. `None` when the page or the segment is not there.
pub async fn segment_value(store: &Store, url: &str, segment: &str) -> Result<Option<String>> {
    let page = match find_page(store, url).await {
        Ok((p, _)) => p,
        Err(Error::NotFound { .. }) => return Ok(None),
        Err(e) => return Err(e),
    };
    let template = page.url.as_deref().unwrap_or_default();
    let t = segments(template);
    let path = normalise(url)?;
    let u = segments(&path);
    let Some(at) = t.iter().position(|s| s.contains(segment)) else {
        return Ok(None);
    };
    if matches!(parse_segment(t[at]), Segment::Pagination { .. }) {
        return Ok(Some(if u.len() < t.len() {
            "1".to_owned()
        } else {
            u.get(at).map_or("1".to_owned(), |s| (*s).to_owned())
        }));
    }
    Ok(u.get(at).map(|s| (*s).to_owned()))
}

/// The sitemap protocol's limit of URLs per file.
pub const MAX_SITEMAP_URLS: usize = 50_000;
/// The most pages a sitemap lists in all (its files together): a bound on what one build holds
/// (the paths, about 60 bytes each, and every file rendered, about 250 bytes an entry).
pub const MAX_SITEMAP_PATHS: usize = 100_000;

/// Every value of `field` in `e`, in list order, up to `cap`: read a page at a time, keeping
/// only the values.
async fn field_values(store: &Store, e: &Entity, field: &str, cap: usize) -> Result<Vec<String>> {
    let mut out = Vec::new();
    store
        .scan(e, stoa_kernel::query::FindQuery::all(), cap, |rows| {
            out.extend(rows.iter().filter_map(|r| match r.get(field) {
                Some(stoa_store::Cell::Text(s)) => Some(s.clone()),
                Some(stoa_store::Cell::Int(i)) => Some(i.to_string()),
                _ => None,
            }))
        })
        .await?;
    Ok(out)
}

/// Every concrete URL of every page (templates expanded: one URL per record, per page of a
/// paginated list), at most `cap`. This is for the sitemap; resolving one URL never expands
/// anything.
pub async fn concrete_urls(store: &Store, cap: usize) -> Result<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    for page in all_pages(store).await? {
        let template = page.url.unwrap_or_default();
        let mut urls: Vec<String> = vec![String::new()];
        for seg in segments(&template).into_iter().map(parse_segment) {
            let room = cap.saturating_sub(out.len()).max(1);
            let options: Vec<String> = match seg {
                Segment::Static(s) => vec![s.to_owned()],
                Segment::Record {
                    module,
                    route,
                    field,
                } => match entity_by_route(store, module, route) {
                    Some(e) if e.has_field(field) => field_values(store, e, field, room).await?,
                    _ => Vec::new(),
                },
                Segment::Pagination {
                    module,
                    route,
                    per_page,
                } => {
                    let total = match entity_by_route(store, module, route) {
                        Some(e) => store.count(e).await?,
                        None => 0,
                    };
                    let pages = total.div_ceil(per_page).max(1);
                    std::iter::once(String::new())
                        .chain((2..=pages).map(|p| p.to_string()))
                        .collect()
                }
            };
            let mut next = Vec::with_capacity(urls.len() * options.len().max(1));
            'outer: for u in &urls {
                for o in &options {
                    if next.len() >= room {
                        break 'outer;
                    }
                    next.push(if o.is_empty() {
                        u.clone()
                    } else {
                        format!("{u}/{o}")
                    });
                }
            }
            urls = next;
        }
        out.extend(
            urls.into_iter()
                .map(|u| if u.is_empty() { "/".to_owned() } else { u }),
        );
        if out.len() >= cap {
            out.truncate(cap);
            break;
        }
    }
    out.dedup();
    Ok(out)
}

/// Most entries in a feed.
pub const FEED_ENTRIES: u64 = 30;

/// The newest records of `module.route` that a page shows one by one (`/blog/[blog.articles.slug]`),
/// newest first, at most `cap`, each with its path; drafts never. `None` when no page shows
/// them one by one (the site has no feed of them).
pub async fn feed_entries(
    store: &Store,
    module: &str,
    route: &str,
    cap: u64,
) -> Result<Option<Vec<(String, Record)>>> {
    let Some(e) = entity_by_route(store, module, route) else {
        return Ok(None);
    };
    for page in all_pages(store).await? {
        let template = page.url.unwrap_or_default();
        let segs: Vec<Segment<'_>> = segments(&template).into_iter().map(parse_segment).collect();
        let dynamic: Vec<&Segment<'_>> = segs
            .iter()
            .filter(|s| !matches!(s, Segment::Static(_)))
            .collect();
        let [
            Segment::Record {
                module: m,
                route: r,
                field,
            },
        ] = dynamic.as_slice()
        else {
            continue;
        };
        if *m != module || !(*r == e.route || *r == e.name) || !e.has_field(field) {
            continue;
        }
        let q = stoa_kernel::query::FindQuery::all()
            .sort(e, "createdAt", true)?
            .take(cap);
        let rows = stoa_store::publish::without_drafts(store.find(e, &q))
            .await?
            .rows;
        let entries = rows
            .into_iter()
            .filter_map(|row| {
                let value = match row.get(field) {
                    Some(stoa_store::Cell::Text(s)) => s.clone(),
                    Some(stoa_store::Cell::Int(i)) => i.to_string(),
                    _ => return None,
                };
                let path: Vec<String> = segs
                    .iter()
                    .map(|s| match s {
                        Segment::Static(x) => (*x).to_owned(),
                        _ => value.clone(),
                    })
                    .collect();
                Some((format!("/{}", path.join("/")), row))
            })
            .collect();
        return Ok(Some(entries));
    }
    Ok(None)
}

/// A translation of `field` of `row` in `lang` (else English, else any), or plain text.
fn translated(row: &Record, field: &str, lang: &str) -> Option<String> {
    match row.json(field) {
        Some(serde_json::Value::Object(m)) => [lang, "en"]
            .iter()
            .find_map(|l| m.get(*l).and_then(|v| v.as_str()).filter(|s| !s.is_empty()))
            .or_else(|| {
                m.values()
                    .find_map(|v| v.as_str().filter(|s| !s.is_empty()))
            })
            .map(str::to_owned),
        Some(serde_json::Value::String(s)) if !s.is_empty() => Some(s),
        _ => row.text(field).filter(|s| !s.is_empty()).map(str::to_owned),
    }
}

/// An Atom feed (RFC 4287) in `lang` of `entries` (paths and records), titled `title`.
pub fn feed_xml(base: &str, lang: &str, title: &str, entries: &[(String, Record)]) -> String {
    let base = base.trim_end_matches('/');
    let stamp = |r: &Record, f: &str| r.text(f).map(str::to_owned);
    let updated = entries
        .iter()
        .filter_map(|(_, r)| stamp(r, "updatedAt").or_else(|| stamp(r, "createdAt")))
        .max()
        .unwrap_or_else(|| stoa_kernel::value::format_timestamp(stoa_kernel::value::now()));
    let home = format!("{base}/{lang}");
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:lang=\"{}\">\n  <title>{}</title>\n  <id>{}/</id>\n  <link rel=\"alternate\" type=\"text/html\" href=\"{}\"/>\n  <link rel=\"self\" type=\"application/atom+xml\" href=\"{}/feed.xml\"/>\n  <updated>{}</updated>\n",
        escape(lang),
        escape(title),
        escape(&home),
        escape(&home),
        escape(&home),
        escape(&updated),
    );
    for (path, r) in entries {
        let url = format!("{home}{path}");
        let name = translated(r, "title", lang)
            .or_else(|| r.text("adminTitle").map(str::to_owned))
            .unwrap_or_default();
        let published = stamp(r, "publishAt")
            .or_else(|| stamp(r, "createdAt"))
            .unwrap_or_else(|| updated.clone());
        let changed = stamp(r, "updatedAt").unwrap_or_else(|| published.clone());
        out.push_str(&format!(
            "  <entry>\n    <title>{}</title>\n    <link rel=\"alternate\" type=\"text/html\" href=\"{}\"/>\n    <id>{}</id>\n    <published>{}</published>\n    <updated>{}</updated>\n",
            escape(&name),
            escape(&url),
            escape(&url),
            escape(&published),
            escape(&changed),
        ));
        if let Some(summary) = translated(r, "subtitle", lang) {
            out.push_str(&format!("    <summary>{}</summary>\n", escape(&summary)));
        }
        out.push_str("  </entry>\n");
    }
    out.push_str("</feed>\n");
    out
}

/// The sitemap file of `urls` (paths, `/` for the home page): each in every language, with
/// hreflang alternates. The caller keeps `urls.len() × languages.len()` within
/// [`MAX_SITEMAP_URLS`].
pub fn sitemap_xml(urls: &[String], base: &str, languages: &[&str]) -> String {
    let base = base.trim_end_matches('/');
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\" xmlns:xhtml=\"http://www.w3.org/1999/xhtml\">\n",
    );
    for url in urls {
        let path = if url == "/" { "" } else { url.as_str() };
        for lang in languages {
            out.push_str(&format!(
                "  <url><loc>{}</loc>",
                escape(&format!("{base}/{lang}{path}"))
            ));
            for alt in languages {
                out.push_str(&format!(
                    "<xhtml:link rel=\"alternate\" hreflang=\"{alt}\" href=\"{}\"/>",
                    escape(&format!("{base}/{alt}{path}"))
                ));
            }
            out.push_str("</url>\n");
        }
    }
    out.push_str("</urlset>\n");
    out
}

/// The sitemap index of `files` sitemap files, `/sitemaps/1.xml` …
pub fn sitemap_index_xml(base: &str, files: usize) -> String {
    let base = base.trim_end_matches('/');
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    for n in 1..=files {
        out.push_str(&format!(
            "  <sitemap><loc>{}</loc></sitemap>\n",
            escape(&format!("{base}/sitemaps/{n}.xml"))
        ));
    }
    out.push_str("</sitemapindex>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_segments_parse() {
        assert_eq!(parse_segment("blog"), Segment::Static("blog"));
        assert_eq!(
            parse_segment("[blog.articles.slug]"),
            Segment::Record {
                module: "blog",
                route: "articles",
                field: "slug"
            }
        );
        assert_eq!(
            parse_segment("[blog.articles:pagination:10]"),
            Segment::Pagination {
                module: "blog",
                route: "articles",
                per_page: 10
            }
        );
        assert_eq!(parse_segment("[broken]"), Segment::Static("[broken]"));
        assert_eq!(
            parse_segment("[blog.articles:pagination:0]"),
            Segment::Static("[blog.articles:pagination:0]")
        );
    }

    #[test]
    fn urls_normalise() {
        assert_eq!(normalise("/blog?x=1#top").unwrap(), "/blog");
        assert_eq!(normalise("index").unwrap(), "/");
        assert_eq!(normalise("").unwrap(), "/");
        assert_eq!(normalise("//blog///a/").unwrap(), "/blog/a");
        assert_eq!(normalise("/blog/").unwrap(), "/blog");
        assert_eq!(normalise("//////").unwrap(), "/");
        assert_eq!(segments("/a/b/"), ["a", "b"]);
        assert!(segments("/").is_empty());
        assert!(normalise(&"a".repeat(MAX_URL + 1)).is_err());
    }
}

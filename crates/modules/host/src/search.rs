//! `GET /api/host/search?q=&lang=`: the visitors' site search. What it searches comes from the
//! site itself: every published page, and the records of every entity a published page template
//! shows (`/blog/articles/[blog.articles.slug]` makes articles searchable, at that address), through
//! the store's search indexes (SQLite FTS5 trigrams, PostgreSQL pg_trgm), published rows only.
//!
//! Word forms: each word of the query is cut to its stem in the visitor's language (Snowball:
//! "деревья" → "дерев", "planting" → "plant"), and the index finds the stem inside the words it
//! holds ("дерево", "деревьев"). The longest stem goes to the index; a record must hold the others
//! too. Typos: when nothing holds the words as typed, each word of six letters or more is looked
//! up by its two halves (one typo leaves one half whole, which the trigram index finds), and a
//! record counts when it holds a word within one edit (two for words of eight letters or more) of
//! every word of the query; the answer says it shows close spellings. Cost per request is bounded: the query's length, its words, the entities searched, the
//! candidates read per entity and the results answered are all capped, and what is searchable is
//! worked out once per change of the published data. Only entities any visitor may read are
//! searched (an account's page template never makes accounts searchable).

use std::sync::{Arc, Mutex};

use rust_stemmers::{Algorithm, Stemmer};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use stoa_api::endpoint::{Endpoint, In, Nothing};
use stoa_api::{Access, AppState, RouteBook};
use stoa_kernel::model::{Entity, LANGUAGES};
use stoa_kernel::query::FindQuery;
use stoa_kernel::{Error, Result};
use stoa_store::{Record, Store};

use crate::pages::{Segment, parse_segment, segments};
use crate::rows::PageRow;

/// Most characters of a query.
pub const MAX_QUERY: usize = 100;
/// Most words of a query that count.
const MAX_WORDS: usize = 5;
/// The shortest stem the index can find (trigrams).
const MIN_STEM: usize = 3;
/// Most entities searched (pages and the records of page templates).
const MAX_TARGETS: usize = 8;
/// Candidates read per entity (the index's matches, before the other words and the order).
const CANDIDATES: u64 = 30;
/// Most results answered.
pub const MAX_RESULTS: usize = 20;
/// Characters of a snippet.
const SNIPPET: usize = 180;
/// Pages read to find the page templates (a site has tens).
const MAX_PAGES: usize = 2_000;
/// Characters of a record's field looked at for close spellings.
const MAX_TEXT: usize = 4_000;
/// Characters of a record's text (an article's body) looked at for the words and the snippet:
/// the index finds words anywhere in it, so the check must read as far.
const MAX_BODY: usize = 200_000;
/// Pages never offered as results.
const NOT_RESULTS: &[&str] = &["/404", "/500"];

/// What the search looks through: an entity, and how a record's address is made.
#[derive(Clone, Debug)]
struct Target {
    entity: Arc<Entity>,
    /// `None`: a page, at its own `url`; else the template's segments, one of them the record's field.
    template: Option<String>,
}

/// The searched entities, worked out again when the published data changes.
#[derive(Default)]
pub struct Search {
    targets: Mutex<Option<(u64, Arc<Vec<Target>>)>>,
}

impl Search {
    async fn targets(&self, store: &Store) -> Result<Arc<Vec<Target>>> {
        // What is searchable follows the pages alone (and the declarations, fixed at start).
        let stamp = store.version("host.page");
        if let Some((at, t)) = self
            .targets
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            && *at == stamp
        {
            return Ok(t.clone());
        }
        let found = Arc::new(stoa_store::publish::without_drafts(find_targets(store)).await?);
        *self.targets.lock().unwrap_or_else(|p| p.into_inner()) = Some((stamp, found.clone()));
        Ok(found)
    }
}

/// Pages, then each entity a published template shows through one of its record fields.
async fn find_targets(store: &Store) -> Result<Vec<Target>> {
    let page = store.entity("host.page")?;
    let mut out = vec![Target {
        entity: page,
        template: None,
    }];
    for p in crate::pages::pages_up_to(store, MAX_PAGES).await? {
        let url = p.url.as_deref().unwrap_or_default();
        let records: Vec<_> = segments(url)
            .into_iter()
            .map(parse_segment)
            .filter(|s| !matches!(s, Segment::Static(_)))
            .collect();
        // One record per address (no pagination, no nesting).
        let [Segment::Record { module, route, .. }] = records.as_slice() else {
            continue;
        };
        let Some(e) = crate::pages::entity_by_route(store, module, route) else {
            continue;
        };
        let e = store.entity(&e.key())?;
        // Only what any visitor may read (never accounts, orders, messages), and only what an
        // index can search.
        if !store.registry.publicly_readable(&e)
            || stoa_store::ddl::search_columns(&e).is_empty()
            || out.iter().any(|t| t.entity.key() == e.key())
        {
            continue;
        }
        out.push(Target {
            entity: e.clone(),
            template: Some(url.to_owned()),
        });
        if out.len() >= MAX_TARGETS {
            break;
        }
    }
    Ok(out)
}

/// The stems of the query's words in `lang` (lower case; a word too short to stem whole).
pub fn stems(q: &str, lang: &str) -> Vec<String> {
    let stemmer = Stemmer::create(if lang == "ru" {
        Algorithm::Russian
    } else {
        Algorithm::English
    });
    let mut out: Vec<String> = Vec::new();
    for w in q
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(MAX_WORDS)
    {
        let w = w.to_lowercase();
        let s = stemmer.stem(&w).into_owned();
        let s = if s.chars().count() >= MIN_STEM { s } else { w };
        if s.chars().count() >= MIN_STEM && !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

/// The text of a value in `lang`: a plain text, a translation, or a rich-text document's words.
fn text_in(v: Option<&Value>, lang: &str) -> String {
    fn words(v: &Value, out: &mut String) {
        match v {
            Value::Object(m) => {
                if let Some(Value::String(t)) = m.get("text") {
                    out.push_str(t);
                }
                if let Some(Value::Array(c)) = m.get("content") {
                    for n in c {
                        words(n, out);
                    }
                    // Blocks end with a space, so their words do not run together.
                    out.push(' ');
                }
            }
            Value::Array(a) => a.iter().for_each(|n| words(n, out)),
            _ => {}
        }
    }
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Object(m)) => {
            let own = m
                .get(lang)
                .filter(|x| !x.is_null() && x.as_str() != Some(""))
                .or_else(|| {
                    LANGUAGES
                        .iter()
                        .find_map(|l| m.get(*l).filter(|x| !x.is_null()))
                });
            match own {
                Some(Value::String(s)) => s.clone(),
                Some(doc @ Value::Object(_)) => {
                    let mut out = String::new();
                    words(doc, &mut out);
                    out.split_whitespace().collect::<Vec<_>>().join(" ")
                }
                _ => String::new(),
            }
        }
        _ => String::new(),
    }
}

/// The fields a record's snippet is read from, as its entity declares them: its translated and
/// rich texts other than the title, and its long plain texts (a page's description) — never a
/// technical field, a list column or one the index already searches.
fn snippet_fields(e: &Entity) -> impl Iterator<Item = &stoa_kernel::model::Field> {
    use stoa_kernel::model::{Format, Kind};
    e.public_fields().filter(|f| match f.kind {
        Kind::Translations | Kind::RichText => f.name != "title",
        Kind::Text => {
            !f.list
                && !f.advanced
                && !f.searchable
                && f.format == Format::None
                && f.max_len.is_none_or(|n| n >= 500)
        }
        _ => false,
    })
}

/// At most `n` characters of `text` (a record's text can be long; the search reads its start).
fn cut(text: &str, n: usize) -> String {
    match text.char_indices().nth(n) {
        Some((at, _)) => text[..at].to_owned(),
        None => text.to_owned(),
    }
}

/// `text` cut into parts, the ones holding a stem marked: `[{"text": …, "match": bool}]`. With
/// `window`, only about that many characters around the first match (or from the start).
fn marked(text: &str, stems: &[String], window: Option<usize>) -> Vec<Part> {
    let chars: Vec<char> = text.chars().collect();
    // Lower case char for char, so a position in it is one in `chars`.
    let lower: String = chars
        .iter()
        .map(|c| c.to_lowercase().next().unwrap_or(*c))
        .collect();
    let (from, to) = match window {
        Some(w) if chars.len() > w => {
            // The first word found, by the substring search (a long text is not walked stem by
            // stem at every character).
            let first = stems
                .iter()
                .filter(|s| !s.is_empty())
                .filter_map(|s| lower.find(s.as_str()).map(|b| lower[..b].chars().count()))
                .min()
                .unwrap_or(0);
            let from = first.saturating_sub(w / 3);
            // Back to a word's start, but never far (text without spaces).
            let from = (from.saturating_sub(20)..=from)
                .rev()
                .find(|&i| i == 0 || chars[i - 1].is_whitespace())
                .unwrap_or(from);
            (from, (from + w).min(chars.len()))
        }
        _ => (0, chars.len()),
    };
    // The marks, within what is shown.
    let lower: Vec<char> = lower.chars().skip(from).take(to - from).collect();
    let mut hit = vec![false; chars.len()];
    for s in stems {
        let s: Vec<char> = s.chars().collect();
        if s.is_empty() || s.len() > lower.len() {
            continue;
        }
        for i in 0..=lower.len() - s.len() {
            if lower[i..i + s.len()] == s[..] {
                // The whole word that holds the stem ("деревьев", not "дерев").
                let mut a = i;
                while a > 0 && lower[a - 1].is_alphanumeric() {
                    a -= 1;
                }
                let mut b = i + s.len();
                while b < lower.len() && lower[b].is_alphanumeric() {
                    b += 1;
                }
                hit[from + a..from + b].iter_mut().for_each(|h| *h = true);
            }
        }
    }
    let mut parts: Vec<Part> = Vec::new();
    if from > 0 {
        parts.push(Part::plain("…"));
    }
    let mut i = from;
    while i < to {
        let m = hit[i];
        let mut j = i;
        while j < to && hit[j] == m {
            j += 1;
        }
        parts.push(Part {
            text: chars[i..j].iter().collect(),
            matched: m,
        });
        i = j;
    }
    if to < chars.len() {
        parts.push(Part::plain("…"));
    }
    parts
}

/// A record's address on the site (without the language), or `None` when it has none.
fn address(t: &Target, r: &Record) -> Result<Option<String>> {
    let Some(template) = &t.template else {
        // A page, at its own URL.
        let url = PageRow::of(r)?.url;
        return Ok(url.filter(|u| !u.contains('[') && !NOT_RESULTS.contains(&u.as_str())));
    };
    Ok(template_address(template, r))
}

/// The address of record `r` under page URL template `template` (`None`: it has none).
fn template_address(template: &str, r: &Record) -> Option<String> {
    let mut out = String::new();
    for seg in segments(template) {
        out.push('/');
        match parse_segment(seg) {
            Segment::Static(s) => out.push_str(s),
            Segment::Record { field, .. } => {
                out.push_str(r.get(field)?.as_str()?);
            }
            Segment::Pagination { .. } => return None,
        }
    }
    Some(if out.is_empty() { "/".into() } else { out })
}

/// The shortest word looked up with a typo (its halves must be trigrams).
const MIN_FUZZY: usize = 6;

/// The edits a word of `n` letters may be away from the query's.
fn edits_for(n: usize) -> usize {
    if n >= 8 { 2 } else { 1 }
}

/// The part of `text` (lower case) closest to `stem` within its edits: the start of one of its
/// words, of about the stem's length. `None` when no word is that close.
fn near(text: &str, stem: &str) -> Option<String> {
    let n = stem.chars().count();
    let k = edits_for(n);
    let mut best: Option<(usize, String)> = None;
    for w in text.split(|c: char| !c.is_alphanumeric()) {
        let chars: Vec<char> = w.chars().collect();
        if chars.len() + k < n {
            continue;
        }
        for len in n.saturating_sub(k).max(MIN_STEM)..=(n + k).min(chars.len()) {
            let prefix: String = chars[..len].iter().collect();
            let d = strsim::levenshtein(&prefix, stem);
            if d <= k && best.as_ref().is_none_or(|(bd, _)| d < *bd) {
                best = Some((d, prefix));
            }
        }
    }
    best.map(|(_, p)| p)
}

/// The two halves of `word` the index looks up when it may hold a typo (each a trigram or more).
fn halves(word: &str) -> Option<[String; 2]> {
    let chars: Vec<char> = word.chars().collect();
    (chars.len() >= MIN_FUZZY).then(|| {
        let mid = chars.len() / 2;
        [chars[..mid].iter().collect(), chars[mid..].iter().collect()]
    })
}

/// The search: at most [`MAX_RESULTS`] records holding every stem of `q`, those with it in their
/// title first; when none does, records holding words a typo away (`fuzzy`).
async fn search(store: &Store, targets: &[Target], q: &str, lang: &str) -> Result<Found> {
    let found = |results, too_short, fuzzy| Found {
        query: q.to_owned(),
        too_short,
        fuzzy,
        results,
    };
    let stems = stems(q, lang);
    let Some(longest) = stems.iter().max_by_key(|s| s.chars().count()).cloned() else {
        return Ok(found(Vec::new(), true, false));
    };
    let exact = find(
        store,
        targets,
        std::slice::from_ref(&longest),
        &stems,
        lang,
        false,
    )
    .await?;
    if !exact.is_empty() {
        return Ok(found(exact, false, false));
    }
    // Nothing as typed: the longest word's halves find the candidates, every word a typo away.
    let word = q
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| w.starts_with(&longest) || self::stems(w, lang).contains(&longest))
        .max_by_key(|w| w.chars().count())
        .unwrap_or_else(|| longest.clone());
    let key = if longest.chars().count() >= MIN_FUZZY {
        longest.clone()
    } else {
        word
    };
    let Some(lookups) = halves(&key) else {
        return Ok(found(Vec::new(), false, false));
    };
    let near_hits = find(store, targets, &lookups, &stems, lang, true).await?;
    let fuzzy = !near_hits.is_empty();
    Ok(found(near_hits, false, fuzzy))
}

/// The records the index finds for any of `lookups` that hold every one of `stems` (as typed,
/// or with `fuzzy` within a typo), those with them in their title first.
async fn find(
    store: &Store,
    targets: &[Target],
    lookups: &[String],
    stems: &[String],
    lang: &str,
    fuzzy: bool,
) -> Result<Vec<Hit>> {
    let words = store.registry.words();
    let mut hits: Vec<(u8, usize, Hit)> = Vec::new();
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    for (order, t) in targets.iter().enumerate() {
        let e = &t.entity;
        for r in candidates(store, e, lookups).await? {
            if let Some(id) = r.id()
                && !seen.insert(format!("{}:{id}", e.key()))
            {
                continue;
            }
            if let Some((in_title, hit)) = hit_of(t, &r, stems, lang, fuzzy, words)? {
                hits.push((u8::from(!in_title), order, hit));
            }
        }
    }
    hits.sort_by_key(|(rank, order, _)| (*rank, *order));
    hits.truncate(MAX_RESULTS);
    Ok(hits.into_iter().map(|(_, _, v)| v).collect())
}

/// The rows of `e` the search index finds for each of `lookups` (at most [`CANDIDATES`] each).
async fn candidates(store: &Store, e: &Entity, lookups: &[String]) -> Result<Vec<Record>> {
    let mut rows = Vec::new();
    for l in lookups {
        let mut fq = FindQuery::all();
        fq.search = Some(l.clone());
        fq.limit = CANDIDATES;
        rows.extend(store.find(e, &fq).await?.rows);
    }
    Ok(rows)
}

/// What record `r` of target `t` answers, and whether its title holds every word (`None`: it has
/// no address on the site, or does not hold every one of `stems`).
fn hit_of(
    t: &Target,
    r: &Record,
    stems: &[String],
    lang: &str,
    fuzzy: bool,
    words: &stoa_kernel::labels::Words,
) -> Result<Option<(bool, Hit)>> {
    let e = &t.entity;
    let Some(path) = address(t, r)? else {
        return Ok(None);
    };
    let Value::Object(fields) = r.to_json() else {
        return Ok(None);
    };
    let title = title_of(&fields, lang);
    let body = body_of(e, &fields, lang);
    // A close spelling is looked for at the start of the text only: each word there is
    // compared with each of the query's, which costs with the text's length.
    let looked_at = if fuzzy {
        cut(&body, MAX_TEXT)
    } else {
        body.clone()
    };
    let all = searched_text(e, &fields, &title, &looked_at, lang);
    let Some(held) = held_words(&all, stems, fuzzy) else {
        return Ok(None);
    };
    let stems = &held;
    let in_title = {
        let t = title.to_lowercase();
        stems.iter().all(|s| t.contains(s.as_str()))
    };
    let kind = words
        .entity(e.module, e.name)
        .map(|l| if lang == "ru" { l.one.ru } else { l.one.en })
        .unwrap_or_else(|| e.name.to_owned());
    Ok(Some((
        in_title,
        Hit {
            entity: e.key(),
            kind,
            url: format!("/{lang}{}", if path == "/" { "" } else { path.as_str() }),
            title: marked(&title, stems, None),
            snippet: marked(&body, stems, Some(SNIPPET)),
        },
    )))
}

/// A record's title in `lang` (its admin title when it has none), cut short.
fn title_of(fields: &Map<String, Value>, lang: &str) -> String {
    let title = text_in(fields.get("title"), lang);
    let title = if title.trim().is_empty() {
        text_in(fields.get("adminTitle"), lang)
    } else {
        title
    };
    cut(&title, MAX_TEXT / 8)
}

/// A record's snippet text in `lang`: its snippet fields, cut short.
fn body_of(e: &Entity, fields: &Map<String, Value>, lang: &str) -> String {
    let body = snippet_fields(e)
        .map(|f| cut(&text_in(fields.get(f.name), lang), MAX_BODY))
        .filter(|s| !s.trim().is_empty())
        .collect::<Vec<_>>()
        // A subtitle and a text read as two parts, not one run-on sentence.
        .join(" · ");
    cut(&body, MAX_BODY)
}

/// Everything a record holds that the query's words are looked for in, lowercased: its title,
/// `looked_at` of its snippet and its searched fields (in `lang` and English).
fn searched_text(
    e: &Entity,
    fields: &Map<String, Value>,
    title: &str,
    looked_at: &str,
    lang: &str,
) -> String {
    format!(
        "{title} {looked_at} {}",
        stoa_store::ddl::search_columns(e)
            .iter()
            .filter_map(|c| e.fields.iter().find(|f| f.column == *c))
            .map(|f| {
                cut(&text_in(fields.get(f.name), lang), MAX_TEXT)
                    + " "
                    + &cut(&text_in(fields.get(f.name), "en"), MAX_TEXT)
            })
            .collect::<Vec<_>>()
            .join(" ")
    )
    .to_lowercase()
}

/// The words as the record's text `all` holds them: the query's stems, or with `fuzzy` the
/// nearest spellings (`None`: one of them is missing).
fn held_words(all: &str, stems: &[String], fuzzy: bool) -> Option<Vec<String>> {
    if fuzzy {
        let found: Vec<String> = stems.iter().filter_map(|s| near(all, s)).collect();
        if found.len() < stems.len() {
            return None;
        }
        Some(found)
    } else {
        if !stems.iter().all(|s| all.contains(s.as_str())) {
            return None;
        }
        Some(stems.to_vec())
    }
}

/// Searches one address may make in [`PER`] (a person types a few a minute).
const SEARCHES: u32 = 120;
const PER: std::time::Duration = std::time::Duration::from_secs(60);

/// Part of a title or snippet: its text, and whether it holds a word of the query.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct Part {
    pub text: String,
    /// This part holds a word of the query
    #[serde(rename = "match")]
    pub matched: bool,
}

impl Part {
    fn plain(text: &str) -> Self {
        Part {
            text: text.to_owned(),
            matched: false,
        }
    }
}

/// A record found: what it is, where it is and its words found, marked.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Hit {
    pub entity: String,
    /// What it is, in the visitor's language
    pub kind: String,
    /// Its address on the site, with the language
    pub url: String,
    pub title: Vec<Part>,
    pub snippet: Vec<Part>,
}

/// What a search found (`siteSearch`).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "SiteSearch")]
pub struct Found {
    pub query: String,
    /// No word of the query has three letters: nothing was searched
    pub too_short: bool,
    /// Nothing held the words as typed: the results hold words a typo away (their marks show the spellings found)
    pub fuzzy: bool,
    #[schemars(length(max = MAX_RESULTS))]
    pub results: Vec<Hit>,
}

/// `GET /api/host/search?q=…&lang=…`.
#[derive(Deserialize, JsonSchema)]
pub struct Asked {
    #[schemars(length(max = MAX_QUERY))]
    q: String,
    #[schemars(extend("enum" = LANGUAGES))]
    lang: Option<String>,
}

/// The search route's service: the targets, the store and the per-address rate.
pub struct Searcher {
    search: Arc<Search>,
    store: Store,
    rate: stoa_api::rate::Keyed,
}

async fn site_search(s: Arc<Searcher>, x: In<Nothing, Asked>) -> Result<Found> {
    s.rate.check(&x.client)?;
    let query = x.query.q.trim();
    if query.chars().count() > MAX_QUERY {
        return Err(Error::invalid_field(
            "q",
            format!("must be at most {MAX_QUERY} characters"),
        ));
    }
    let lang = x
        .query
        .lang
        .as_deref()
        .filter(|l| LANGUAGES.contains(l))
        .unwrap_or(LANGUAGES[0]);
    let targets = s.search.targets(&s.store).await?;
    stoa_store::publish::without_drafts(search(&s.store, &targets, query, lang)).await
}

pub fn routes(search: Arc<Search>, store: Store) -> RouteBook<AppState> {
    let svc = Arc::new(Searcher {
        search,
        store,
        rate: stoa_api::rate::Keyed::new(SEARCHES, PER, "site searches per address"),
    });
    RouteBook::new().endpoint(
        svc,
        Endpoint::get("host", "/api/host/search", "siteSearch")
            .access(Access::Public)
            .summary("Visitors' search of the site: published pages and the records published page templates show, by word forms in the visitor's language, the words found marked")
            .errors(&[422, 429]),
        site_search,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn word_forms_come_to_one_stem() {
        assert_eq!(stems("деревья", "ru"), vec!["дерев"]);
        assert_eq!(stems("Дерево", "ru"), vec!["дерев"]);
        assert_eq!(stems("planting trees", "en"), vec!["plant", "tree"]);
        // Too short to find anything: left out.
        assert!(stems("в и", "ru").is_empty());
        assert_eq!(stems("лес", "ru"), vec!["лес"]);
    }

    #[test]
    fn the_words_found_are_marked_in_a_window_around_the_first() {
        let v =
            serde_json::to_value(marked("Как мы сажаем деревья", &["дерев".into()], None)).unwrap();
        assert_eq!(
            v,
            json!([{"text": "Как мы сажаем ", "match": false}, {"text": "деревья", "match": true}])
        );
        let long = format!("{} лес {}", "слово ".repeat(60), "слово ".repeat(60));
        let parts = serde_json::to_value(marked(&long, &["лес".into()], Some(60))).unwrap();
        let a = parts.as_array().unwrap();
        assert_eq!(a[0]["text"], "…");
        assert!(a.iter().any(|p| p["match"] == true && p["text"] == "лес"));
        assert_eq!(a.last().unwrap()["text"], "…");
        let shown: usize = a
            .iter()
            .map(|p| p["text"].as_str().unwrap().chars().count())
            .sum();
        assert!(shown <= 62, "{shown}");
    }

    #[test]
    fn a_document_is_read_as_its_words() {
        let doc = json!({"ru": {"type": "doc", "content": [
            {"type": "heading", "content": [{"type": "text", "text": "Почему"}]},
            {"type": "paragraph", "content": [{"type": "text", "text": "лес"}]}
        ]}});
        assert_eq!(text_in(Some(&doc), "ru"), "Почему лес");
        assert_eq!(
            text_in(Some(&json!({"en": "Forest", "ru": ""})), "ru"),
            "Forest"
        );
    }
}

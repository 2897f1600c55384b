//! The HTML of a public page before any JavaScript runs: `<head>` tags from the page's metadata
//! (title, description, keywords, Open Graph, Twitter, canonical URL, hreflang alternates) and the
//! page bundle embedded as JSON for the first render.

use serde_json::{Value, json};

/// Where a page is and which languages the site has.
pub struct Place<'a> {
    /// Public origin, `https://example.com`.
    pub base: &'a str,
    pub lang: &'a str,
    /// The page path without the language (`/`, `/blog`).
    pub path: &'a str,
    pub languages: &'a [&'a str],
    pub default_language: &'a str,
    /// The Telegram bot accounts are linked with (its Login Widget), when one is configured.
    pub telegram_bot: Option<&'a str>,
    /// The OpenID Connect provider's name ("Google") when visitors may sign in with it.
    pub oidc: Option<&'a str>,
}

impl Place<'_> {
    fn url(&self, lang: &str) -> String {
        let base = self.base.trim_end_matches('/');
        if self.path == "/" {
            format!("{base}/{lang}")
        } else {
            format!("{base}/{lang}{}", self.path)
        }
    }
}

/// The share image of a page: `/files/share/<lang>/<page>.png`, or `None` for a path that
/// cannot name a stored file. `v` changes with the title, so caches fetch the new image.
pub fn share_image(place: &Place<'_>, title: &str, site: &str) -> Option<String> {
    let page = if place.path == "/" {
        "index"
    } else {
        place.path.trim_matches('/')
    };
    if !stoa_api::files::safe_key(page) {
        return None;
    }
    let v = stoa_api::files::share_version(place.lang, title, site);
    Some(format!(
        "{}/files/share/{}/{page}.png?v={v}",
        place.base.trim_end_matches('/'),
        place.lang
    ))
}

pub use stoa_api::module::bundle_meta as meta_in;

/// The site's name for share images and the feed's link: the metadata's, else the public
/// origin's host.
pub fn site_name<'a>(meta: &'a Value, base: &'a str) -> &'a str {
    meta.get("opengraphSiteName")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| {
            base.split_once("://")
                .map_or(base, |x| x.1)
                .trim_end_matches('/')
        })
}

/// The blog feed's title in `lang` (`for planet — блог`): the feed's own and its link's in heads.
pub fn feed_title(site: &str, lang: &str) -> String {
    format!("{site} — {}", if lang == "ru" { "блог" } else { "blog" })
}

/// The title share images show.
pub fn share_title(meta: &Value) -> &str {
    let get = |k: &str| {
        meta.get(k)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    get("opengraphTitle").or(get("title")).unwrap_or("Stoa")
}

/// Escapes text for an HTML attribute or element.
pub use stoa_kernel::markup::escape;

/// JSON safe inside `<script type="application/json">`: no `</script>`, no `<!--`, no line
/// separators that would end a JavaScript string.
pub fn script_json(v: &Value) -> String {
    let s = v.to_string();
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// `<meta {attr}="{key}" content="…">` when there is content (`name` for most, `property` for
/// Open Graph).
fn meta_tag(out: &mut String, attr: &str, key: &str, content: Option<&str>) {
    if let Some(c) = content.filter(|c| !c.trim().is_empty()) {
        out.push_str(&format!(
            "<meta {attr}=\"{}\" content=\"{}\">",
            escape(key),
            escape(c)
        ));
    }
}

fn locale(lang: &str) -> &str {
    match lang {
        "ru" => "ru_RU",
        "en" => "en_US",
        other => other,
    }
}

/// The `<head>` tags of a page whose merged metadata is `meta`.
pub fn tags(meta: &Value, place: &Place<'_>) -> String {
    let get = |k: &str| meta.get(k).and_then(Value::as_str);
    let title = get("title").unwrap_or("Stoa");
    let description = get("description");
    let canonical = place.url(place.lang);
    let mut out = format!("<title>{}</title>", escape(title));
    meta_tag(&mut out, "name", "description", description);
    meta_tag(&mut out, "name", "keywords", get("keywords"));
    meta_tag(&mut out, "name", "author", get("author"));
    out.push_str(&format!(
        "<link rel=\"canonical\" href=\"{}\">",
        escape(&canonical)
    ));
    for l in place.languages {
        out.push_str(&format!(
            "<link rel=\"alternate\" hreflang=\"{l}\" href=\"{}\">",
            escape(&place.url(l))
        ));
    }
    out.push_str(&format!(
        "<link rel=\"alternate\" hreflang=\"x-default\" href=\"{}\">",
        escape(&place.url(place.default_language))
    ));
    // The page's language's Atom feed, for readers that find feeds through any page.
    out.push_str(&format!(
        "<link rel=\"alternate\" type=\"application/atom+xml\" title=\"{}\" href=\"{}/{}/feed.xml\">",
        escape(&feed_title(site_name(meta, place.base), place.lang)),
        escape(place.base.trim_end_matches('/')),
        escape(place.lang)
    ));
    meta_tag(
        &mut out,
        "property",
        "og:title",
        get("opengraphTitle").or(Some(title)),
    );
    meta_tag(
        &mut out,
        "property",
        "og:description",
        get("opengraphDescription").or(description),
    );
    meta_tag(
        &mut out,
        "property",
        "og:url",
        get("opengraphUrl").or(Some(canonical.as_str())),
    );
    meta_tag(
        &mut out,
        "property",
        "og:type",
        get("opengraphType").or(Some("website")),
    );
    meta_tag(
        &mut out,
        "property",
        "og:site_name",
        get("opengraphSiteName"),
    );
    let image = get("opengraphImage")
        .map(str::to_owned)
        .or_else(|| share_image(place, share_title(meta), site_name(meta, place.base)));
    if let Some(img) = &image {
        meta_tag(&mut out, "property", "og:image", Some(img));
        if get("opengraphImage").is_none() {
            meta_tag(&mut out, "property", "og:image:width", Some("1200"));
            meta_tag(&mut out, "property", "og:image:height", Some("630"));
        }
        meta_tag(&mut out, "name", "twitter:image", Some(img));
    }
    meta_tag(
        &mut out,
        "property",
        "og:locale",
        get("opengraphLocale").or(Some(locale(place.lang))),
    );
    for l in place.languages.iter().filter(|l| **l != place.lang) {
        meta_tag(&mut out, "property", "og:locale:alternate", Some(locale(l)));
    }
    meta_tag(
        &mut out,
        "name",
        "twitter:card",
        get("twitterCard").or(Some("summary_large_image")),
    );
    meta_tag(&mut out, "name", "twitter:site", get("twitterSite"));
    meta_tag(&mut out, "name", "twitter:creator", get("twitterCreator"));
    meta_tag(
        &mut out,
        "name",
        "twitter:title",
        get("twitterTitle")
            .or(get("opengraphTitle"))
            .or(Some(title)),
    );
    meta_tag(
        &mut out,
        "name",
        "twitter:description",
        get("twitterDescription")
            .or(get("opengraphDescription"))
            .or(description),
    );
    meta_tag(&mut out, "name", "twitter:url", get("twitterUrl"));
    meta_tag(&mut out, "name", "twitter:domain", get("twitterDomain"));
    meta_tag(
        &mut out,
        "name",
        "twitter:app:country",
        get("twitterAppCountry"),
    );
    out
}

/// What the client reads before its first render (`<script id="stoa-page">`).
pub fn boot(place: &Place<'_>, status: u16, bundle: Option<&Value>) -> Value {
    json!({
        "site": {"languages": place.languages, "defaultLanguage": place.default_language, "telegramBot": place.telegram_bot, "oidc": place.oidc.map(|name| json!({"name": name}))},
        "lang": place.lang,
        "url": place.path,
        "status": status,
        "bundle": bundle.map(slim),
    })
}

/// The bundle as the page embeds it: without record timestamps and empty (`null`) fields, which
/// no public widget shows — a quarter of the home page's bundle. The API's bundle keeps them.
pub fn slim(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, x)| {
                    !x.is_null() && k.as_str() != "createdAt" && k.as_str() != "updatedAt"
                })
                .map(|(k, x)| (k.clone(), slim(x)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(slim).collect()),
        other => other.clone(),
    }
}

/// `shell` (the built index.html) with the language, head tags and boot data put in.
/// `root` is the page's markup rendered on the server (empty: the browser renders it).
/// `boot` is the boot data as [`script_json`] writes it.
pub fn inject(shell: &str, lang: &str, head: &str, boot: &str, root: &str) -> String {
    let mut html = shell.replacen(
        "<html lang=\"en\">",
        &format!("<html lang=\"{}\">", escape(lang)),
        1,
    );
    // The shell's own placeholder title gives way to the page's.
    let mut title_at = None;
    if let (Some(a), Some(b)) = (html.find("<title>"), html.find("</title>"))
        && a < b
    {
        html.replace_range(a..b + "</title>".len(), "");
        title_at = Some(a);
    }
    let at = html
        .find("</head>")
        .or(title_at)
        .or_else(|| {
            html.find('>')
                .filter(|_| html.starts_with("<!"))
                .map(|i| i + 1)
        })
        .unwrap_or(0);
    html.insert_str(at, head);
    let script = format!("<script id=\"stoa-page\" type=\"application/json\">{boot}</script>");
    match html.find("<div id=\"root\">") {
        Some(at) => {
            html.insert_str(at + "<div id=\"root\">".len(), root);
            html.insert_str(at, &script);
        }
        None => html.push_str(&script),
    }
    html
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_json_cannot_close_the_script() {
        let s = script_json(&json!({"x": "</script><script>alert(1)</script>\u{2028}"}));
        assert!(!s.contains("</script"));
        assert!(!s.contains('\u{2028}'));
        let back: Value = serde_json::from_str(&s).unwrap();
        assert_eq!(back["x"], "</script><script>alert(1)</script>\u{2028}");
    }

    #[test]
    fn tags_escape_and_fall_back() {
        let place = Place {
            base: "https://x.org/",
            lang: "en",
            path: "/blog",
            languages: &["ru", "en"],
            default_language: "ru",
            telegram_bot: None,
            oidc: None,
        };
        let t = tags(
            &json!({"title": "A \"quoted\" <title>", "description": "D"}),
            &place,
        );
        assert!(t.contains("<title>A &quot;quoted&quot; &lt;title&gt;</title>"));
        assert!(t.contains("<link rel=\"canonical\" href=\"https://x.org/en/blog\">"));
        assert!(t.contains("hreflang=\"ru\" href=\"https://x.org/ru/blog\""));
        assert!(t.contains("hreflang=\"x-default\" href=\"https://x.org/ru/blog\""));
        assert!(t.contains("<link rel=\"alternate\" type=\"application/atom+xml\" title=\"x.org — blog\" href=\"https://x.org/en/feed.xml\">"));
        assert!(t.contains("<meta property=\"og:description\" content=\"D\">"));
        assert!(t.contains("<meta property=\"og:locale\" content=\"en_US\">"));
    }

    #[test]
    fn the_embedded_bundle_leaves_out_timestamps_and_nulls() {
        let b = json!({"page": {"id": "p", "createdAt": "t", "updatedAt": "t", "className": null,
            "title": {"ru": "Т"}}, "widgets": [{"id": "w", "createdAt": "t", "n": 0, "s": ""}]});
        assert_eq!(
            slim(&b),
            json!({"page": {"id": "p", "title": {"ru": "Т"}}, "widgets": [{"id": "w", "n": 0, "s": ""}]})
        );
    }

    #[test]
    fn inject_replaces_the_title_and_sets_the_language() {
        let shell = "<!doctype html><html lang=\"en\"><head><title>Stoa</title></head><body><div id=\"root\"></div></body></html>";
        let html = inject(
            shell,
            "ru",
            "<title>Т</title>",
            &script_json(&json!({"a": 1})),
            "<p>x</p>",
        );
        assert!(html.contains("<html lang=\"ru\">"));
        assert_eq!(html.matches("<title>").count(), 1);
        assert!(html.contains("<title>Т</title></head>"));
        assert!(html.contains(
            "<script id=\"stoa-page\" type=\"application/json\">{\"a\":1}</script><div id=\"root\">"
        ));
    }
}

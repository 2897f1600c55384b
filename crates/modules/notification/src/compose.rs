//! A notification's text made into the message people receive: the plain text as rendered, and
//! an HTML alternative in the site's look (paragraphs, links that can be clicked, the site's name
//! and brand colour), both UTF-8. The HTML is made from the text — escaped, never the template's
//! own markup — so an edited template cannot inject anything into it.

use std::fmt::Write as _;

use stoa_kernel::markup::escape_into;

/// How the HTML part looks: the site's name (the From address's display name) and brand colour.
#[derive(Clone, Debug)]
pub struct Look {
    pub site: String,
    /// A CSS colour (`#166534`).
    pub brand: String,
}

impl Default for Look {
    fn default() -> Self {
        Self {
            site: "Stoa".into(),
            brand: DEFAULT_BRAND.into(),
        }
    }
}

/// The demo's green, dark enough for white text on it (contrast 7.1:1).
pub const DEFAULT_BRAND: &str = "#166534";

/// `colour` when it is a plain `#rgb`/`#rrggbb` colour, else the default (it goes into a style).
pub fn brand_colour(colour: Option<&str>) -> String {
    match colour.map(str::trim) {
        Some(c)
            if (c.len() == 4 || c.len() == 7)
                && c.starts_with('#')
                && c[1..].bytes().all(|b| b.is_ascii_hexdigit()) =>
        {
            c.to_owned()
        }
        _ => DEFAULT_BRAND.into(),
    }
}

/// Where the absolute `http(s)://` links of `text` are: `(start, link)`, in order, apart. A
/// link starts a word and runs to whitespace or `<>"«»`, without trailing punctuation.
fn link_spans(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("http").map(|i| from + i) {
        let rest = &text[at..];
        let starts_word = !text[..at].ends_with(char::is_alphanumeric);
        let end = rest
            .find(|c: char| c.is_whitespace() || matches!(c, '<' | '>' | '"' | '«' | '»'))
            .unwrap_or(rest.len());
        let url = rest[..end].trim_end_matches(['.', ',', ';', ':', '!', '?', ')', '\'']);
        let scheme = ["https://", "http://"]
            .into_iter()
            .find(|p| url.starts_with(p));
        if starts_word && scheme.is_some_and(|p| url.len() > p.len()) {
            out.push((at, url));
            from = at + url.len();
        } else {
            from = at + "http".len();
        }
    }
    out
}

/// The absolute `http(s)://` links in `text`, in order, each once.
pub fn links(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (_, url) in link_spans(text) {
        if !out.iter().any(|u| u == url) {
            out.push(url.to_owned());
        }
    }
    out
}

/// One line, escaped, its links made clickable.
fn line_html(line: &str, brand: &str, out: &mut String) {
    let mut done = 0;
    for (at, url) in link_spans(line) {
        escape_into(&line[done..at], out);
        out.push_str("<a href=\"");
        escape_into(url, out);
        let _ = write!(
            out,
            "\" style=\"color:{brand};text-decoration:underline;word-break:break-all\">"
        );
        escape_into(url, out);
        out.push_str("</a>");
        done = at + url.len();
    }
    escape_into(&line[done..], out);
}

/// The HTML alternative of `text` in `language`: a blank line starts a paragraph, a line break
/// stays a line break, a line starting with "- " is a list item.
pub fn html(text: &str, subject: &str, language: &str, look: &Look) -> String {
    let brand = brand_colour(Some(&look.brand));
    let mut body = String::new();
    for para in text.split("\n\n").map(str::trim).filter(|p| !p.is_empty()) {
        let lines: Vec<&str> = para.lines().collect();
        if lines.iter().all(|l| l.trim_start().starts_with("- ")) {
            body.push_str("<ul style=\"margin:0 0 16px;padding-left:20px\">");
            for l in lines {
                body.push_str("<li>");
                line_html(l.trim_start().trim_start_matches("- "), &brand, &mut body);
                body.push_str("</li>");
            }
            body.push_str("</ul>");
            continue;
        }
        body.push_str("<p style=\"margin:0 0 16px\">");
        for (i, l) in lines.iter().enumerate() {
            if i > 0 {
                body.push_str("<br>");
            }
            line_html(l, &brand, &mut body);
        }
        body.push_str("</p>");
    }
    let mut out = String::with_capacity(body.len() + 1200);
    out.push_str("<!doctype html><html lang=\"");
    escape_into(language, &mut out);
    out.push_str("\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>");
    escape_into(subject, &mut out);
    out.push_str("</title></head><body style=\"margin:0;padding:0;background:#f4f4f5\">");
    out.push_str("<table role=\"presentation\" width=\"100%\" cellpadding=\"0\" cellspacing=\"0\" style=\"background:#f4f4f5;padding:24px 12px\"><tr><td align=\"center\">");
    out.push_str("<table role=\"presentation\" width=\"100%\" cellpadding=\"0\" cellspacing=\"0\" style=\"max-width:600px;background:#ffffff;border-radius:8px;overflow:hidden\">");
    let _ = write!(
        out,
        "<tr><td style=\"background:{brand};color:#ffffff;padding:16px 24px;font:600 18px/1.3 -apple-system,'Segoe UI',Roboto,Arial,sans-serif\">"
    );
    escape_into(&look.site, &mut out);
    out.push_str("</td></tr><tr><td style=\"padding:24px;color:#18181b;font:16px/1.55 -apple-system,'Segoe UI',Roboto,Arial,sans-serif\">");
    out.push_str(&body);
    out.push_str("</td></tr></table></td></tr></table></body></html>");
    out
}

/// The display name of a From address (`Stoa <no-reply@…>` → `Stoa`), else its domain.
pub fn site_of(from: &str) -> String {
    if let Some((name, _)) = from.split_once('<') {
        let name = name.trim().trim_matches('"');
        if !name.is_empty() {
            return name.to_owned();
        }
    }
    from.rsplit('@')
        .next()
        .unwrap_or("")
        .trim_end_matches('>')
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_found_once_without_trailing_punctuation() {
        let t = "Open https://x.test/ru/a?b=1. Or (https://x.test/ru/a?b=1) and http://y.test/c,\nnothttps://z";
        assert_eq!(links(t), vec!["https://x.test/ru/a?b=1", "http://y.test/c"]);
    }

    #[test]
    fn html_escapes_text_and_makes_links_clickable() {
        let h = html(
            "Hello <b>you</b> & co\n\nOpen https://x.test/a?b=1&c=2\n\n- one\n- two",
            "Subj <i>",
            "ru",
            &Look::default(),
        );
        assert!(h.contains("Hello &lt;b&gt;you&lt;/b&gt; &amp; co"), "{h}");
        assert!(
            h.contains("<a href=\"https://x.test/a?b=1&amp;c=2\""),
            "{h}"
        );
        assert!(h.contains("<li>one</li><li>two</li>"), "{h}");
        assert!(h.contains("<title>Subj &lt;i&gt;</title>"), "{h}");
        assert!(h.contains("lang=\"ru\""), "{h}");
        assert!(!h.contains("<b>"), "{h}");
    }

    #[test]
    fn a_colour_that_is_not_plain_falls_back() {
        assert_eq!(brand_colour(Some("#0a0")), "#0a0");
        assert_eq!(brand_colour(Some("red;background:url(x)")), DEFAULT_BRAND);
        assert_eq!(brand_colour(None), DEFAULT_BRAND);
    }

    #[test]
    fn the_site_is_the_from_name() {
        assert_eq!(site_of("За планету <no-reply@x.test>"), "За планету");
        assert_eq!(site_of("no-reply@x.test"), "x.test");
    }
}

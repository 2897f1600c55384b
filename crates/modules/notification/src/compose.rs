//! A notification's text made into the message people receive: the plain text as rendered, and
//! an HTML alternative in the site's look (paragraphs, links that can be clicked, the site's name
//! and brand colour), both UTF-8. The HTML is made from the text — escaped, never the template's
//! own markup — so an edited template cannot inject anything into it.

use std::fmt::Write as _;

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

/// The absolute `http(s)://` links in `text`, in order, each once.
pub fn links(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (start, _) in text.match_indices("http") {
        let rest = &text[start..];
        if !(rest.starts_with("http://") || rest.starts_with("https://")) {
            continue;
        }
        if start > 0 && !text[..start].ends_with(|c: char| !c.is_alphanumeric()) {
            continue;
        }
        let url = link_at(rest);
        if url.len() > "https://".len() && !out.iter().any(|u| u == url) {
            out.push(url.to_owned());
        }
    }
    out
}

/// The link at the start of `s`: up to whitespace or `<>"`, without trailing punctuation.
fn link_at(s: &str) -> &str {
    let end = s
        .find(|c: char| c.is_whitespace() || matches!(c, '<' | '>' | '"' | '«' | '»'))
        .unwrap_or(s.len());
    s[..end].trim_end_matches(['.', ',', ';', ':', '!', '?', ')', '\''])
}

fn escape(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

/// One line, escaped, its links made clickable.
fn line_html(line: &str, brand: &str, out: &mut String) {
    let mut rest = line;
    while let Some(at) = rest.find("http") {
        let tail = &rest[at..];
        let boundary = at == 0 || rest[..at].ends_with(|c: char| !c.is_alphanumeric());
        if boundary && (tail.starts_with("http://") || tail.starts_with("https://")) {
            let url = link_at(tail);
            escape(&rest[..at], out);
            out.push_str("<a href=\"");
            escape(url, out);
            let _ = write!(
                out,
                "\" style=\"color:{brand};text-decoration:underline;word-break:break-all\">"
            );
            escape(url, out);
            out.push_str("</a>");
            rest = &tail[url.len()..];
        } else {
            escape(&rest[..at + 4], out);
            rest = &rest[at + 4..];
        }
    }
    escape(rest, out);
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
    escape(language, &mut out);
    out.push_str("\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>");
    escape(subject, &mut out);
    out.push_str("</title></head><body style=\"margin:0;padding:0;background:#f4f4f5\">");
    out.push_str("<table role=\"presentation\" width=\"100%\" cellpadding=\"0\" cellspacing=\"0\" style=\"background:#f4f4f5;padding:24px 12px\"><tr><td align=\"center\">");
    out.push_str("<table role=\"presentation\" width=\"100%\" cellpadding=\"0\" cellspacing=\"0\" style=\"max-width:600px;background:#ffffff;border-radius:8px;overflow:hidden\">");
    let _ = write!(
        out,
        "<tr><td style=\"background:{brand};color:#ffffff;padding:16px 24px;font:600 18px/1.3 -apple-system,'Segoe UI',Roboto,Arial,sans-serif\">"
    );
    escape(&look.site, &mut out);
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

//! Text made safe inside HTML and XML (element content and quoted attributes): one escape for
//! the page head, the mail's HTML part and the sitemap and feed.

/// Appends `s` to `out` with `& < > " '` escaped.
pub fn escape_into(s: &str, out: &mut String) {
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

/// `s` with `& < > " '` escaped.
///
/// ```
/// assert_eq!(stoa_kernel::markup::escape("a<b & 'c'"), "a&lt;b &amp; &#39;c&#39;");
/// ```
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    escape_into(s, &mut out);
    out
}

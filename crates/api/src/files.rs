//! Stored files as the generic API sees them: a module (file-storage) keeps the bytes, and the
//! generic create and update hand it each file part sent for a `Format::File` field.

use axum::http::HeaderMap;
use axum::response::Response;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use stoa_kernel::Result;

use crate::body::FilePart;
use crate::module::BoxFuture;

/// A kept file: the URL the field holds and what was learnt from the bytes (`size`, `mimeType`,
/// `extension`, `width`, `height`, `originalName`), written into the fields the entity has.
#[derive(Debug, Clone)]
pub struct Stored {
    pub url: String,
    pub meta: Map<String, Value>,
}

/// Keeps uploaded files (provided by file-storage).
pub trait Uploads: Send + Sync {
    /// Checks and keeps `part`; a type outside the allow-list or a bad image is a 4xx.
    fn store<'a>(&'a self, part: &'a FilePart) -> BoxFuture<'a, Result<Stored>>;

    /// Checks and keeps `part` as a hidden `file-storage.file` row — listed to admins only, and
    /// read by others through the module that links it (an account's chat attachment). The
    /// row as JSON.
    fn keep_hidden<'a>(&'a self, part: &'a FilePart) -> BoxFuture<'a, Result<Value>>;

    /// Deletes the file row `id` when it is hidden (an upload nobody sent); a public file is
    /// never touched. Whether a row was deleted. The bytes go with the next storage sweep.
    fn discard_hidden<'a>(&'a self, id: uuid::Uuid) -> BoxFuture<'a, Result<bool>>;
}

/// Reads kept files back by URL (provided by file-storage): mail attachments.
pub trait FileReader: Send + Sync {
    /// The bytes and MIME type of the file at `url` (`/files/…`), `None` when there is none.
    fn load<'a>(
        &'a self,
        url: &'a str,
    ) -> BoxFuture<'a, Result<Option<(bytes::Bytes, &'static str)>>>;
}

/// Does `path` name a stored file (`demo/logo.svg`)? Segments of letters, digits, `.`, `-` and
/// `_`, none empty or starting with a dot, 512 bytes at most: no way out of the store.
pub fn safe_key(path: &str) -> bool {
    !path.is_empty()
        && path.len() <= 512
        && path.split('/').all(|seg| {
            !seg.is_empty()
                && !seg.starts_with('.')
                && seg
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-' || b == b'_')
        })
}

/// The id of a page's share image: what it shows (language, title, site name), hashed.
pub fn share_id(lang: &str, title: &str, site: &str) -> String {
    Sha256::digest(format!("{lang}\n{title}\n{site}").as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A short version of a share image's inputs, for its URL (`?v=`): it changes with the title.
pub fn share_version(lang: &str, title: &str, site: &str) -> String {
    share_id(lang, title, site)[..12].to_owned()
}

/// What the site's server needs of the stored files (provided by file-storage): pages' share
/// images, and a place for the files the platform brings (the demo's images).
pub trait SiteFiles: Send + Sync {
    /// The share image of a page titled `title` in `lang` on site `site`: made once, then served
    /// from the store (`client`'s address counts against the making).
    fn share<'a>(
        &'a self,
        lang: &'a str,
        title: &'a str,
        site: &'a str,
        client: Option<std::net::IpAddr>,
        headers: &'a HeaderMap,
    ) -> BoxFuture<'a, Response>;

    /// Whether files are kept on the local disk (the data directory), not in a bucket.
    fn on_disk(&self) -> bool;

    /// Keeps `bytes` under `key` as they are (files the platform brings, not uploads).
    fn put<'a>(&'a self, key: &'a str, bytes: bytes::Bytes) -> BoxFuture<'a, Result<()>>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_stay_inside_the_store() {
        assert!(safe_key("demo/logo.svg"));
        assert!(safe_key("share/ru/about-us.png"));
        for bad in [
            "", "../x", "a//b", ".env", "a/.git/x", "a b", "a\\b", "%2e%2e/x",
        ] {
            assert!(!safe_key(bad), "{bad}");
        }
        assert!(!safe_key(&"a".repeat(513)));
    }

    #[test]
    fn a_share_image_version_follows_what_it_shows() {
        let v = share_version("ru", "О нас", "Stoa");
        assert_eq!(v.len(), 12);
        assert_eq!(v, share_version("ru", "О нас", "Stoa"));
        assert_ne!(v, share_version("en", "О нас", "Stoa"));
        assert_ne!(v, share_version("ru", "Контакты", "Stoa"));
        assert_eq!(&share_id("ru", "О нас", "Stoa")[..12], v);
    }
}

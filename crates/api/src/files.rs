//! Stored files as the generic API sees them: a module (file-storage) keeps the bytes, and the
//! generic create and update hand it each file part sent for a `Format::File` field.

use serde_json::{Map, Value};
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

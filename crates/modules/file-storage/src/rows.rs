//! The records of files as typed rows (a test holds them against the declarations). Public: a
//! module that is handed a file's record (ecommerce: its receipt) reads it through these.

use uuid::Uuid;

stoa_store::typed_row! {
    /// A stored file: where it is served from, and what it is.
    pub struct FileRow for "file-storage.file" {
        id: Uuid = "id",
        /// The URL it is served at
        file: Option<String> = "file",
        mime_type: Option<String> = "mimeType",
        /// Bytes
        size: Option<i64> = "size",
        admin_title: Option<String> = "adminTitle",
    }
}

stoa_store::rows_declared!([crate::declarations()], FileRow,);

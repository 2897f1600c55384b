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

#[cfg(test)]
mod tests {
    use stoa_store::typed::{TypedRow, undeclared};

    use super::*;

    fn check<T: TypedRow>() {
        let m = crate::declarations();
        let e = m
            .entities
            .iter()
            .find(|e| e.key() == T::ENTITY)
            .unwrap_or_else(|| panic!("{} is not declared", T::ENTITY));
        assert!(
            undeclared::<T>(e).is_empty(),
            "{}: {:?}",
            T::ENTITY,
            undeclared::<T>(e)
        );
    }

    #[test]
    fn every_typed_row_reads_declared_columns() {
        check::<FileRow>();
    }
}

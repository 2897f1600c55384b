//! The names of tables, columns, indexes and constraints as SQL spells them: the bottom of the
//! store's layers (nothing here imports another module of the crate).

use sha2::{Digest, Sha256};

const MAX_IDENT: usize = 63;

/// An identifier no longer than PostgreSQL's 63 bytes: long names keep a prefix and a hash.
pub fn ident(name: &str) -> String {
    if name.len() <= MAX_IDENT {
        return name.to_owned();
    }
    let hash = Sha256::digest(name.as_bytes());
    let tag: String = hash.iter().take(4).map(|b| format!("{b:02x}")).collect();
    format!("{}_{tag}", &name[..MAX_IDENT - 9])
}

pub fn q(ident: &str) -> String {
    format!("\"{}\"", ident.replace('"', "\"\""))
}

/// Name of the unique index on `table.column`.
pub fn unique_index(table: &str, column: &str) -> String {
    ident(&format!("ux_{table}_{column}"))
}

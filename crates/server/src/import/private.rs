//! Files that belong to one buyer or one chat. SPS kept every file row public; Stoa hides a
//! receipt (the buyer's email, items and amount on the image) and a chat attachment from the
//! public file list and reads by id, and shows them only through the order or the chat. The
//! import hides the files only orders and chat messages link; a file public records link too
//! (a product photo reused as an order's attachment) stays public, and the report names it.

use std::collections::BTreeSet;

use stoa_kernel::model::Kind;
use stoa_kernel::query::FindQuery;
use stoa_kernel::value::Val;
use stoa_store::Store;
use uuid::Uuid;

use super::report::Report;

const FILE: &str = "file-storage.file";
const FILE_ID: &str = "fileStorageModuleFileId";

/// The links whose files are private: an order's (receipt, attachment) and a chat message's.
pub const PRIVATE_LINKS: &[&str] = &[
    "ecommerce.orders-to-file-storage-module-files",
    "social.messages-to-file-storage-module-files",
];

/// Links that make a file neither private nor public: in Stoa a profile's files are its chat
/// uploads (hidden until sent), so one does not show that a file is on a public page.
const NEUTRAL_LINKS: &[&str] = &["social.profiles-to-file-storage-module-files"];

/// Hides the files only private links point to; answers how many it hid. Files another
/// entity links are named in the report of the private link's table.
pub async fn hide(
    store: &Store,
    files: &stoa_file_storage::Files,
    report: &mut Report,
) -> anyhow::Result<u64> {
    let mut hidden = 0;
    for key in PRIVATE_LINKS {
        let Ok(link) = store.entity(key) else {
            continue;
        };
        let mut candidates = BTreeSet::new();
        let mut walk = store.walk(&link, FindQuery::all(), 500, usize::MAX);
        while let Some(page) = stoa_store::publish::with_drafts(walk.next()).await? {
            candidates.extend(page.iter().filter_map(|r| r.uuid(FILE_ID)));
        }
        if candidates.is_empty() {
            continue;
        }
        let shared = linked_publicly(store, &candidates).await?;
        let private: Vec<Uuid> = candidates.difference(&shared).copied().collect();
        hidden += files.hide(&private).await?;
        if let Some(t) = report.tables.iter_mut().find(|t| t.entity == *key) {
            for id in &shared {
                t.warn(format!(
                    "file {id} is linked here and from public records too: it stays public (hide it in the admin if it is private)"
                ));
            }
        }
    }
    Ok(hidden)
}

/// Which of `ids` a record other than a private link points to (a product, an article, a
/// widget, a profile), in any of its file references.
async fn linked_publicly(store: &Store, ids: &BTreeSet<Uuid>) -> anyhow::Result<BTreeSet<Uuid>> {
    let vals: Vec<Val> = ids.iter().map(|id| Val::Uuid(*id)).collect();
    let mut found = BTreeSet::new();
    for e in store.registry.entities() {
        let key = e.key();
        if key == FILE
            || PRIVATE_LINKS.contains(&key.as_str())
            || NEUTRAL_LINKS.contains(&key.as_str())
        {
            continue;
        }
        for f in &e.fields {
            if f.kind != Kind::Reference || f.target != Some(FILE) {
                continue;
            }
            let rows =
                stoa_store::publish::with_drafts(store.find_in(e, f.name, &vals, usize::MAX))
                    .await?;
            found.extend(rows.iter().filter_map(|r| r.uuid(f.name)));
        }
    }
    Ok(found)
}

//! Files that belong to one buyer or one chat. SPS kept every file row public; Stoa hides a
//! receipt (the buyer's email, items and amount on the image) and a chat attachment from the
//! public file list and reads by id, and shows them only through the order or the chat. The
//! import hides the files only the orders and chat messages it imported link; a file public
//! records link too (a product photo reused as an order's attachment, a profile's avatar) stays
//! public, and the report names it. Stoa's own links are left as Stoa made them.

use std::collections::{BTreeSet, HashSet};

use stoa_kernel::query::FindQuery;
use stoa_kernel::value::Val;
use stoa_store::Store;
use uuid::Uuid;

use super::report::Report;

const FILE: &str = "file-storage.file";
const FILE_ID: &str = "fileStorageModuleFileId";
/// Files hidden in one transaction.
const BATCH: usize = 500;

/// The links whose files are private: an order's (receipt, attachment) and a chat message's.
pub const PRIVATE_LINKS: &[&str] = &[
    "ecommerce.orders-to-file-storage-module-files",
    "social.messages-to-file-storage-module-files",
];

/// Hides the files only imported private links point to; answers how many it hid. Files
/// another record links are named in the report of the private link's table. `imported`: the
/// Stoa ids of the rows the import wrote, per entity (its ledger).
pub async fn hide(
    store: &Store,
    files: &stoa_file_storage::Files,
    imported: &dyn Fn(&str) -> HashSet<Uuid>,
    report: &mut Report,
) -> anyhow::Result<u64> {
    let mut hidden = 0;
    for key in PRIVATE_LINKS {
        let Ok(link) = store.entity(key) else {
            continue;
        };
        let ours = imported(key);
        if ours.is_empty() {
            continue;
        }
        let mut candidates = BTreeSet::new();
        let mut walk = store.walk(&link, FindQuery::all(), 500, usize::MAX);
        while let Some(page) = stoa_store::publish::with_drafts(walk.next()).await? {
            candidates.extend(
                page.iter()
                    .filter(|r| r.id().is_some_and(|id| ours.contains(&id)))
                    .filter_map(|r| r.uuid(FILE_ID)),
            );
        }
        if candidates.is_empty() {
            continue;
        }
        let shared = linked_publicly(store, &candidates).await?;
        let private: Vec<Uuid> = candidates.difference(&shared).copied().collect();
        for chunk in private.chunks(BATCH) {
            hidden += files.hide(chunk).await?;
        }
        if let Some(t) = report.tables.iter_mut().find(|t| t.entity == *key) {
            for id in &shared {
                t.warn(format!(
                    "file {id} is linked here and from public records too: the import leaves it as it is (hide it in the admin if it is private)"
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
    for (e, field) in store.registry.referencing(FILE) {
        if PRIVATE_LINKS.contains(&e.key().as_str()) {
            continue;
        }
        let rows =
            stoa_store::publish::with_drafts(store.find_in(&e, field, &vals, usize::MAX)).await?;
        found.extend(rows.iter().filter_map(|r| r.uuid(field)));
    }
    Ok(found)
}

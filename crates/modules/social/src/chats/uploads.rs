//! Attachments: a member's upload before its message, counted and bounded, swept when never sent.

use super::*;

impl Chats {
    /// Keeps `part` as an attachment `profile` (of `subject`) may send: a hidden file, linked
    /// to the profile. The file row.
    pub async fn upload(&self, subject: Uuid, profile: Uuid, part: &FilePart) -> Result<Value> {
        self.owned(subject, profile).await?;
        let uploads = self.uploads.as_ref().ok_or_else(|| {
            Error::Unavailable("file storage is not installed on this site".into())
        })?;
        let row = uploads.keep_hidden(part).await?;
        let id = row
            .get("id")
            .and_then(Value::as_str)
            .and_then(|s| Uuid::parse_str(s).ok())
            .ok_or_else(|| Error::internal("a kept file has no id"))?;
        let own = self.store.entity(OWN_FILES)?;
        let linked = async {
            let mut tx = self.store.begin().await?;
            self.store
                .link_in(&mut tx.exec(), &own, ("profileId", profile), (FILE_ID, id))
                .await?;
            tx.commit().await
        }
        .await;
        if let Err(e) = linked {
            // An upload no link names would never be swept: take it back.
            if let Err(x) = uploads.discard_hidden(id).await {
                tracing::error!(file = %id, error = %x, "an unlinked upload was not deleted");
            }
            return Err(e);
        }
        Ok(row)
    }

    /// The uploads limit, counted before the body is read: [`UPLOADS_PER_HOUR`] per subject.
    pub async fn count_upload(&self, subject: Uuid) -> Result<()> {
        self.uploads_rate.check(&subject.to_string()).await
    }

    /// 422 unless `profile` may attach each of `files`: its own uploads, or files anyone may
    /// read (an admin reads every file). The profile's upload links of `files`, which sending
    /// spends (an upload goes to one message; what is never sent is swept).
    pub(super) async fn attachable(&self, profile: Uuid, files: &[Uuid]) -> Result<Vec<Uuid>> {
        if files.is_empty() {
            return Ok(Vec::new());
        }
        let vals: Vec<Val> = files.iter().copied().map(Val::Uuid).collect();
        let own = self.store.entity(OWN_FILES)?;
        let q = FindQuery::all()
            .eq(&own, "profileId", Val::Uuid(profile))?
            .any_of(&own, FILE_ID, vals.clone())?;
        let links: Vec<OwnFileRow> = typed(
            &stoa_store::publish::with_drafts(self.store.find_in_query(&own, q, files.len() * 2))
                .await?,
        )?;
        let mine: HashSet<Uuid> = links.iter().filter_map(|l| l.file_id).collect();
        let spent: Vec<Uuid> = links.iter().map(|l| l.id).collect();
        // What the caller may read as it is (an admin reads hidden files too), before the one
        // read that sees every file.
        let sees_hidden = stoa_store::publish::drafts_visible();
        let file_e = self.store.entity(FILE)?;
        let hidden = |r: &Record| r.bool(stoa_kernel::model::HIDDEN) == Some(true);
        let found =
            stoa_store::publish::with_drafts(self.store.find_in(&file_e, "id", &vals, files.len()))
                .await?;
        let ok = found
            .iter()
            .filter(|r| r.id().is_some_and(|id| mine.contains(&id)) || sees_hidden || !hidden(r))
            .count();
        if ok != files.len() {
            return Err(Error::invalid_field(
                "fileIds",
                "no such file among your uploads: upload it first",
            ));
        }
        Ok(spent)
    }

    /// Deletes uploads older than `grace` that were never sent: the profile's upload link and
    /// the hidden file (its bytes go with file storage's sweep). How many were deleted.
    pub async fn sweep_uploads(&self, grace: Duration) -> Result<usize> {
        let Some(uploads) = &self.uploads else {
            return Ok(0);
        };
        let own = self.store.entity(OWN_FILES)?;
        let cutoff = now() - grace;
        let q = FindQuery::all().filter(
            &own,
            "createdAt",
            Op::Lt,
            FilterValue::One(Val::Timestamp(cutoff)),
        )?;
        // Links to hidden files are themselves hidden from every reader but the module.
        let links: Vec<OwnFileRow> = typed(
            &stoa_store::publish::with_drafts(self.store.find_in_query(&own, q, SWEEP_BATCH))
                .await?,
        )?;
        let mut gone = 0;
        for l in &links {
            let Some(file) = l.file_id else {
                continue;
            };
            // Only an upload (a hidden file) is deleted, and its upload link with it (the
            // reference cascades); a public file an admin linked stays.
            if uploads.discard_hidden(file).await? {
                gone += 1;
            }
        }
        Ok(gone)
    }
}

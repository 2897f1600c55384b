//! A subject's own profiles: listed, created, and the unread counts across their chats.

use super::*;

impl Chats {
    /// The profiles `subject` owns (cards).
    pub async fn own_profiles(&self, subject: Uuid) -> Result<Vec<ProfileCard>> {
        let ids = self.owners.profiles(subject, MAX_OWN_PROFILES).await?;
        let cards = self.profile_cards(&ids).await?;
        Ok(ids.iter().filter_map(|p| cards.get(p).cloned()).collect())
    }

    /// Creates a profile for `subject` (a name to chat under), at most [`MAX_OWN_PROFILES`].
    pub async fn create_profile(&self, subject: Uuid, body: &NewProfile) -> Result<ProfileCard> {
        let name = body.title.trim();
        if name.is_empty() || name.chars().count() > 100 {
            return Err(Error::invalid_field(
                "title",
                "give the profile a name of 1 to 100 characters",
            ));
        }
        self.rate.check(&subject.to_string()).await?;
        if self.owners.profiles(subject, MAX_OWN_PROFILES).await?.len() >= MAX_OWN_PROFILES {
            return Err(Error::invalid_field(
                "title",
                format!("an account may have at most {MAX_OWN_PROFILES} profiles"),
            ));
        }
        let e = self.store.entity(PROFILE)?;
        let mut tx = self.store.begin().await?;
        let id = {
            let mut exec = tx.exec();
            let row = self
                .store
                .create_in(
                    &mut exec,
                    &e,
                    &obj(json!({"adminTitle": name, "title": {"en": name, "ru": name}})),
                )
                .await?;
            let id = Record::must_id(&row)?;
            self.owners.link_profile(&mut exec, subject, id).await?;
            id
        };
        tx.commit().await?;
        self.profile_cards(&[id])
            .await?
            .remove(&id)
            .ok_or_else(|| Error::internal("the new profile vanished"))
    }

    /// Unread messages over all chats of all profiles of `subject` (capped at [`UNREAD_CAP`]):
    /// the navbar badge.
    pub async fn unread(&self, subject: Uuid) -> Result<Unread> {
        let profiles = self.owners.profiles(subject, 20).await?;
        let e = self.store.entity(MEMBERS)?;
        let vals: Vec<Val> = profiles.iter().copied().map(Val::Uuid).collect();
        let memberships: Vec<MemberRow> = if vals.is_empty() {
            Vec::new()
        } else {
            typed(
                &self
                    .store
                    .find_in(&e, "profileId", &vals, MAX_CHATS)
                    .await?,
            )?
        };
        let mut total = 0u64;
        let mut chats = 0u64;
        for m in &memberships {
            if total >= UNREAD_CAP {
                break;
            }
            let Some(c) = m.chat_id else { continue };
            let n = self.unread_in(c, m.last_read.unwrap_or(0)).await?;
            if n > 0 {
                chats += 1;
            }
            total += n;
        }
        Ok(Unread {
            unread: total.min(UNREAD_CAP),
            capped: total >= UNREAD_CAP,
            chats,
            profile_ids: profiles,
        })
    }
}

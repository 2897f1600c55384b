//! The link social owns under rbac's name ([`crate::rbac_links`]): which subject owns which
//! profile. Social alone reads and writes it; rbac names no social entity (ADR 0008).

use stoa_kernel::Result;
use stoa_kernel::value::Val;
use stoa_store::{Exec, Store};
use uuid::Uuid;

const PROFILES: &str = "rbac.subjects-to-social-module-profiles";

pub struct Owners {
    store: Store,
}

impl Owners {
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    /// The profiles `subject` owns, at most `cap`.
    pub async fn profiles(&self, subject: Uuid, cap: usize) -> Result<Vec<Uuid>> {
        let e = self.store.entity(PROFILES)?;
        self.store
            .linked(&e, "subjectId", &[subject], "socialModuleProfileId", cap)
            .await
    }

    /// Does `subject` own `profile`?
    pub async fn owns_profile(&self, subject: Uuid, profile: Uuid) -> Result<bool> {
        let e = self.store.entity(PROFILES)?;
        Ok(!self
            .store
            .find_by(
                &e,
                &[
                    ("subjectId", Val::Uuid(subject)),
                    ("socialModuleProfileId", Val::Uuid(profile)),
                ],
                1,
            )
            .await?
            .is_empty())
    }

    /// The subjects owning any of `profiles` (distinct).
    pub async fn profile_owners(&self, profiles: &[Uuid]) -> Result<Vec<Uuid>> {
        let e = self.store.entity(PROFILES)?;
        self.store
            .linked(
                &e,
                "socialModuleProfileId",
                profiles,
                "subjectId",
                profiles.len().max(1) * 4,
            )
            .await
    }

    /// Records that `subject` owns `profile` (inside the caller's transaction).
    pub async fn link_profile(
        &self,
        exec: &mut Exec<'_>,
        subject: Uuid,
        profile: Uuid,
    ) -> Result<()> {
        let e = self.store.entity(PROFILES)?;
        self.store
            .link_in(
                exec,
                &e,
                ("subjectId", subject),
                ("socialModuleProfileId", profile),
            )
            .await?;
        Ok(())
    }
}

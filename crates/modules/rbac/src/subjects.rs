//! What other modules may ask about subjects: their email addresses and languages, the
//! administrators' addresses, roles by slug, and granting or revoking roles. Higher modules call
//! these instead of reading rbac's tables; the links they own to subjects (orders, profiles) they
//! query themselves.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, RwLock};

use serde_json::json;
use stoa_kernel::query::FindQuery;
use stoa_kernel::value::{Val, fields};
use stoa_kernel::{Error, Result};
use stoa_store::{Exec, Store};
use uuid::Uuid;

use crate::rows::{IdentityRow, SubjectIdentityRow, SubjectRoleRow, SubjectRow, read_all};

/// Role ids by slug, and the change counter of `rbac.role` they were read at.
type RoleIds = (u64, HashMap<&'static str, Option<Uuid>>);

#[derive(Clone)]
pub struct Subjects {
    store: Store,
    /// Role ids by slug (none for a missing role), with the change counter of `rbac.role` they
    /// were read at.
    role_ids: Arc<RwLock<RoleIds>>,
}

impl Subjects {
    pub fn new(store: Store) -> Self {
        Self {
            store,
            role_ids: Arc::new(RwLock::new((u64::MAX, HashMap::new()))),
        }
    }

    /// The id of role `slug` (none when there is no such role), read again only after roles
    /// changed: every anonymous visitor's first request asks for the guest role, every paid
    /// order's admin mail for the admin role.
    pub async fn role_id(&self, slug: &'static str) -> Result<Option<Uuid>> {
        let version = self.store.version("rbac.role");
        if let Ok(g) = self.role_ids.read()
            && g.0 == version
            && let Some(id) = g.1.get(slug)
        {
            return Ok(*id);
        }
        let id = self
            .store
            .find_by(
                &*self.store.entity("rbac.role")?,
                &[("slug", Val::Text(slug.into()))],
                1,
            )
            .await?
            .first()
            .and_then(|r| r.id());
        if let Ok(mut g) = self.role_ids.write() {
            if g.0 != version {
                *g = (version, HashMap::new());
            }
            g.1.insert(slug, id);
        }
        Ok(id)
    }

    /// Does the subject exist?
    pub async fn exists(&self, subject: Uuid) -> Result<bool> {
        let e = self.store.entity("rbac.subject")?;
        Ok(!self
            .store
            .find_by(&e, &[("id", Val::Uuid(subject))], 1)
            .await?
            .is_empty())
    }

    /// Makes sure `subject` has an identity with `email` (checkout by a guest: "deanonymise").
    /// The identity is provider `email`: an address to write to, not a way to sign in.
    pub async fn ensure_email(
        &self,
        exec: &mut Exec<'_>,
        subject: Uuid,
        email: &str,
    ) -> Result<bool> {
        // Read through the caller's transaction: a pooled read while it holds a connection
        // would need a second one (concurrent checkouts could exhaust the pool waiting).
        let identity = self.store.entity("rbac.identity")?;
        let s2i = self.store.entity("rbac.subjects-to-identities")?;
        let links = FindQuery::all()
            .eq(&s2i, "subjectId", Val::Uuid(subject))?
            .take(100);
        let ids: Vec<Val> =
            read_all::<SubjectIdentityRow>(&stoa_store::repo::find(exec, &s2i, &links).await?.0)?
                .iter()
                .filter_map(|l| l.identity_id)
                .map(Val::Uuid)
                .collect();
        if !ids.is_empty() {
            let same = FindQuery::all()
                .any_of(&identity, "id", ids)?
                .eq(&identity, "email", Val::Text(email.to_owned()))?
                .take(1);
            if !stoa_store::repo::find(exec, &identity, &same)
                .await?
                .0
                .is_empty()
            {
                return Ok(false);
            }
        }
        let row = self
            .store
            .create_in(
                exec,
                &identity,
                &fields(json!({"provider": "email", "email": email})),
            )
            .await?;
        let id = row
            .id()
            .ok_or_else(|| Error::internal("identity without id"))?;
        self.store
            .link_in(exec, &s2i, ("subjectId", subject), ("identityId", id))
            .await?;
        Ok(true)
    }

    /// The email addresses of `subject`'s identities (lower-case, distinct).
    pub async fn emails(&self, subject: Uuid) -> Result<Vec<String>> {
        self.emails_of_subjects(&[subject], 100).await
    }

    /// An email address of each of `subjects` that has one (lower-case; at most eight identities
    /// a subject are read).
    pub async fn first_emails(&self, subjects: &[Uuid]) -> Result<HashMap<Uuid, String>> {
        let link = self.store.entity("rbac.subjects-to-identities")?;
        let vals: Vec<Val> = subjects.iter().copied().map(Val::Uuid).collect();
        let links: Vec<SubjectIdentityRow> = read_all(
            &self
                .store
                .find_in(&link, "subjectId", &vals, subjects.len().max(1) * 8)
                .await?,
        )?;
        let ids: Vec<Val> = links
            .iter()
            .filter_map(|l| l.identity_id)
            .map(Val::Uuid)
            .collect();
        let identities: Vec<IdentityRow> = read_all(
            &self
                .store
                .find_in(
                    &*self.store.entity("rbac.identity")?,
                    "id",
                    &ids,
                    ids.len().max(1),
                )
                .await?,
        )?;
        let email: HashMap<Uuid, String> = identities
            .iter()
            .filter_map(|r| Some((r.id, lower_email(r)?)))
            .collect();
        let mut out = HashMap::new();
        for l in &links {
            if let (Some(s), Some(e)) = (l.subject_id, l.identity_id.and_then(|i| email.get(&i))) {
                out.entry(s).or_insert_with(|| e.clone());
            }
        }
        Ok(out)
    }

    /// The email addresses of `subjects`' identities (at most `cap` identities).
    async fn emails_of_subjects(&self, subjects: &[Uuid], cap: usize) -> Result<Vec<String>> {
        let mut seen = HashSet::new();
        Ok(self
            .identity_rows(subjects, cap)
            .await?
            .iter()
            .filter_map(lower_email)
            .filter(|e| seen.insert(e.clone()))
            .collect())
    }

    /// The identities of `subjects` (at most `cap`).
    async fn identity_rows(&self, subjects: &[Uuid], cap: usize) -> Result<Vec<IdentityRow>> {
        let identities = self
            .store
            .linked(
                &*self.store.entity("rbac.subjects-to-identities")?,
                "subjectId",
                subjects,
                "identityId",
                cap,
            )
            .await?;
        let vals: Vec<Val> = identities.iter().copied().map(Val::Uuid).collect();
        read_all(
            &self
                .store
                .find_in(&*self.store.entity("rbac.identity")?, "id", &vals, cap)
                .await?,
        )
    }

    /// The subjects holding the `admin` role (at most 100).
    async fn admins(&self) -> Result<Vec<Uuid>> {
        let Some(admin) = self.role_id("admin").await? else {
            return Ok(Vec::new());
        };
        self.store
            .linked(
                &*self.store.entity("rbac.subjects-to-roles")?,
                "roleId",
                &[admin],
                "subjectId",
                100,
            )
            .await
    }

    /// The addresses of every subject holding the `admin` role (at most 100 admins).
    pub async fn admin_emails(&self) -> Result<Vec<String>> {
        let holders = self.admins().await?;
        self.emails_of_subjects(&holders, 1000).await
    }

    /// Every admin's addresses, each with the language that admin last used (`None`: never
    /// seen; the caller's default applies). Admin mail goes out in it.
    pub async fn admin_recipients(&self) -> Result<Vec<(String, Option<String>)>> {
        let holders = self.admins().await?;
        let ids: Vec<Val> = holders.iter().copied().map(Val::Uuid).collect();
        let subjects: Vec<SubjectRow> = read_all(
            &self
                .store
                .find_in(&*self.store.entity("rbac.subject")?, "id", &ids, ids.len())
                .await?,
        )?;
        let language: HashMap<Uuid, String> = subjects
            .into_iter()
            .filter_map(|r| Some((r.id, r.language?)))
            .collect();
        let links: Vec<SubjectIdentityRow> = read_all(
            &self
                .store
                .find_in(
                    &*self.store.entity("rbac.subjects-to-identities")?,
                    "subjectId",
                    &ids,
                    1000,
                )
                .await?,
        )?;
        let owner: HashMap<Uuid, Uuid> = links
            .iter()
            .filter_map(|l| Some((l.identity_id?, l.subject_id?)))
            .collect();
        let identity_ids: Vec<Val> = owner.keys().copied().map(Val::Uuid).collect();
        let identities: Vec<IdentityRow> = read_all(
            &self
                .store
                .find_in(
                    &*self.store.entity("rbac.identity")?,
                    "id",
                    &identity_ids,
                    1000,
                )
                .await?,
        )?;
        let mut seen = HashSet::new();
        Ok(identities
            .iter()
            .filter_map(|r| {
                let email = lower_email(r)?;
                let subject = owner.get(&r.id)?;
                seen.insert(email.clone())
                    .then(|| (email, language.get(subject).cloned()))
            })
            .collect())
    }

    /// The language `subject` last used on the site (signing in, registering, paying).
    pub async fn language_of(&self, subject: Uuid) -> Result<Option<String>> {
        match self
            .store
            .get(&*self.store.entity("rbac.subject")?, subject)
            .await
        {
            Ok(r) => Ok(SubjectRow::of(&r)?.language),
            Err(Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The Telegram chat ids of `subjects` (their linked Telegram identities).
    pub async fn telegram_chats(&self, subjects: &[Uuid]) -> Result<Vec<String>> {
        let mut seen = HashSet::new();
        Ok(self
            .identity_rows(subjects, 1000)
            .await?
            .into_iter()
            .filter(|r| r.provider.as_deref() == Some(crate::service::TELEGRAM))
            .filter_map(|r| r.account)
            .filter(|a| !a.is_empty())
            .filter(|a| seen.insert(a.clone()))
            .collect())
    }

    /// The Telegram chat ids of every admin who linked Telegram.
    pub async fn admin_telegram_chats(&self) -> Result<Vec<String>> {
        let holders = self.admins().await?;
        self.telegram_chats(&holders).await
    }

    /// Adds the roles in `grant` that `subject` lacks and removes those in `revoke` (a role in
    /// both is kept). Returns (added, removed).
    pub async fn sync_roles(
        &self,
        subject: Uuid,
        grant: &HashSet<Uuid>,
        revoke: &HashSet<Uuid>,
    ) -> Result<(usize, usize)> {
        let s2r = self.store.entity("rbac.subjects-to-roles")?;
        let have: Vec<SubjectRoleRow> = read_all(
            &self
                .store
                .find_by(&s2r, &[("subjectId", Val::Uuid(subject))], 1000)
                .await?,
        )?;
        let held: HashSet<Uuid> = have.iter().filter_map(|r| r.role_id).collect();
        let mut tx = self.store.begin().await?;
        let (mut added, mut removed) = (0, 0);
        {
            let mut exec = tx.exec();
            for r in grant.difference(&held) {
                self.store
                    .link_in(&mut exec, &s2r, ("subjectId", subject), ("roleId", *r))
                    .await?;
                added += 1;
            }
            for link in &have {
                let Some(role) = link.role_id else {
                    continue;
                };
                if revoke.contains(&role) && !grant.contains(&role) {
                    stoa_store::repo::delete(&mut exec, &s2r, link.id).await?;
                    removed += 1;
                }
            }
        }
        tx.commit().await?;
        Ok((added, removed))
    }
}

/// An identity's address, lower-case (none when it has none, or an empty one).
fn lower_email(r: &IdentityRow) -> Option<String> {
    r.email
        .as_deref()
        .filter(|e| !e.is_empty())
        .map(str::to_lowercase)
}

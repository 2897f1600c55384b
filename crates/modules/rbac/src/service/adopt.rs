//! A guest signing in: what its anonymous subject had — orders and carts, payments, profiles and
//! their chats, subscriptions — moves to the account, in the sign-in's transaction, so nothing
//! a visitor did before signing in is lost. Only a guest's things move: a subject that can sign
//! in (any identity but a typed address) is an account of its own and keeps what it has.

use super::*;
use crate::rows::{IdentityRow, SubjectIdentityRow, read_all};

/// The subject's links that move: those their owners declare `follows_guest` (orders, payments,
/// products, profiles, topics, articles — whichever modules are installed); its roles, sessions
/// and identities stay with it.
fn moving(store: &stoa_store::Store) -> impl Iterator<Item = Arc<stoa_kernel::model::Entity>> + '_ {
    store
        .registry
        .entities()
        .iter()
        .filter(|e| {
            e.follows_guest
                && e.fields
                    .iter()
                    .any(|f| f.name == "subjectId" && f.target == Some("rbac.subject"))
        })
        .cloned()
}

/// Most links of one kind moved at a sign-in (a guest with more is not a visitor).
const MOVED_CAP: u64 = 1000;

impl Auth {
    /// Is `subject` a guest: no identity it can sign in with (an address typed at checkout is
    /// where to write, not a way in)?
    pub(crate) async fn is_guest_in(&self, exec: &mut Exec<'_>, subject: Uuid) -> Result<bool> {
        let links = stoa_kernel::query::FindQuery::all()
            .eq(&self.e.s2i, "subjectId", Val::Uuid(subject))?
            .take(100);
        let ids: Vec<Val> =
            read_all::<SubjectIdentityRow>(&repo::find(exec, &self.e.s2i, &links).await?.0)?
                .iter()
                .filter_map(|l| l.identity_id)
                .map(Val::Uuid)
                .collect();
        if ids.is_empty() {
            return Ok(true);
        }
        let q = stoa_kernel::query::FindQuery::all()
            .any_of(&self.e.identity, "id", ids)?
            .take(100);
        Ok(
            read_all::<IdentityRow>(&repo::find(exec, &self.e.identity, &q).await?.0)?
                .iter()
                .all(|i| i.provider.as_deref() == Some(ADDRESS)),
        )
    }

    /// Moves `guest`'s things to `account` (nothing when `guest` is not a guest). A link the
    /// account already has is dropped from the guest instead of doubled.
    pub(crate) async fn adopt(
        &self,
        exec: &mut Exec<'_>,
        guest: Uuid,
        account: Uuid,
    ) -> Result<usize> {
        if !self.is_guest_in(exec, guest).await? {
            return Ok(0);
        }
        let mut moved = 0;
        for e in moving(&self.store).collect::<Vec<_>>() {
            let Some(other) = e
                .fields
                .iter()
                .find(|f| f.kind == stoa_kernel::model::Kind::Reference && f.name != "subjectId")
                .map(|f| f.name)
            else {
                continue;
            };
            let q = stoa_kernel::query::FindQuery::all()
                .eq(&e, "subjectId", Val::Uuid(guest))?
                .take(MOVED_CAP);
            let rows = repo::find(exec, &e, &q).await?.0;
            if rows.is_empty() {
                continue;
            }
            let targets: Vec<Val> = rows
                .iter()
                .filter_map(|r| r.uuid(other))
                .map(Val::Uuid)
                .collect();
            let held = stoa_kernel::query::FindQuery::all()
                .eq(&e, "subjectId", Val::Uuid(account))?
                .any_of(&e, other, targets)?
                .take(MOVED_CAP);
            let has: std::collections::HashSet<Uuid> = repo::find(exec, &e, &held)
                .await?
                .0
                .iter()
                .filter_map(|r| r.uuid(other))
                .collect();
            for r in rows {
                let id = Record::must_id(&r)?;
                if r.uuid(other).is_some_and(|o| has.contains(&o)) {
                    repo::delete(exec, &e, id).await?;
                } else {
                    repo::set_if(exec, &e, id, &[("subjectId", Val::Uuid(account))], &[]).await?;
                    moved += 1;
                }
            }
        }
        if moved > 0 {
            tracing::info!(%guest, %account, moved, event = "guest_adopted", "a guest's orders and profiles moved to the account it signed in to");
        }
        Ok(moved)
    }
}

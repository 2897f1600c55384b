//! Status moves: the status machine's compare-and-set, the change recorded, its mails and role check enqueued.

use super::*;
use crate::views::{EcommerceOrder, Override};

/// One status move: where to, who made it (recorded), why, and whether it is an administrator's
/// correction (which the status table does not limit).
#[derive(Clone, Copy, Debug)]
pub struct Move<'a> {
    pub to: &'a str,
    pub actor: &'a str,
    pub reason: Option<&'a str>,
    pub overridden: bool,
}

impl<'a> Move<'a> {
    /// The platform's move (checkout, the payment check, timeouts, a subscription's lapse):
    /// one the status table allows.
    pub fn to(to: &'a str, actor: &'a str) -> Self {
        Self {
            to,
            actor,
            reason: None,
            overridden: false,
        }
    }

    /// An administrator's correction to any status, with its reason.
    pub fn correction(to: &'a str, actor: &'a str, reason: &'a str) -> Self {
        Self {
            to,
            actor,
            reason: Some(reason),
            overridden: true,
        }
    }

    /// The move, with the reason recorded beside it.
    pub fn because(self, reason: &'a str) -> Self {
        Self {
            reason: Some(reason),
            ..self
        }
    }
}

impl Commerce {
    /// Moves one order as `mv` says inside the caller's transaction: checks the status table
    /// (unless correcting), compares-and-sets the status, records the change and enqueues its
    /// emails and role check (`roles`: whether any product carries roles).
    pub(super) async fn transition_in(
        &self,
        exec: &mut Exec<'_>,
        order: &Record,
        mv: Move<'_>,
        roles: bool,
    ) -> Result<Record> {
        self.transition_with(exec, order, mv, roles, Vec::new(), &[])
            .await
    }

    /// [`Self::transition_in`], with `extra` fields written in the same statement as the status
    /// (the checkout's buyer, language and number: one round trip, not four).
    pub(super) async fn transition_with(
        &self,
        exec: &mut Exec<'_>,
        order: &Record,
        mv: Move<'_>,
        roles: bool,
        extra: Vec<(&str, Val)>,
        held: &[(&str, Val)],
    ) -> Result<Record> {
        let Move {
            to,
            actor,
            reason,
            overridden,
        } = mv;
        let OrderRow {
            id: oid,
            status: from,
            ..
        } = OrderRow::of(order)?;
        if !overridden && !status::allowed(&from, to, By::System) {
            return Err(Error::conflict_field(
                "status",
                format!("an order in '{from}' cannot move to '{to}'"),
            ));
        }
        let mut set = vec![("status", Val::Text(to.into()))];
        if status::settles(to) {
            set.push(("type", Val::Text("history".into())));
        } else if to == "new" {
            set.push(("type", Val::Text("cart".into())));
        }
        set.extend(extra);
        let row = repo::set_if(
            exec,
            &self.e.order,
            oid,
            &set,
            &[&[("status", Val::Text(from.clone()))], held].concat(),
        )
        .await?
        .ok_or_else(|| Error::conflict_field("status", "the order changed meanwhile; reload it"))?;
        let effects = status::effects(
            &oid.to_string(),
            &from,
            to,
            actor,
            reason,
            overridden,
            roles,
        );
        for (_, row) in &effects.rows {
            self.store.create_in(exec, &self.e.change, row).await?;
        }
        for job in &effects.jobs {
            enqueue(exec, job).await?;
        }
        // An admin's transition is in the audit log like any admin write.
        stoa_store::audit::write_in(exec, &self.e.order, Some(order), Some(&row), None).await?;
        Ok(row)
    }

    /// One transition in its own transaction.
    pub async fn transition(&self, order: Uuid, mv: Move<'_>) -> Result<Record> {
        let row = self.store.get(&self.e.order, order).await?;
        let roles = self.owners.products_carry_roles().await?;
        let mut tx = self.store.begin().await?;
        let out = self.transition_in(&mut tx.exec(), &row, mv, roles).await?;
        tx.commit().await?;
        Ok(out)
    }

    /// Admin correction: any status, with a reason, recorded as an override.
    pub async fn override_status(
        &self,
        order: Uuid,
        body: &Override,
        actor: &str,
    ) -> Result<Row<EcommerceOrder>> {
        let to = body.status.as_str();
        if !crate::ORDER_STATUSES.contains(&to) {
            return Err(Error::invalid_field(
                "status",
                format!("must be one of {}", crate::ORDER_STATUSES.join(", ")),
            ));
        }
        let reason = body.reason.trim();
        if reason.chars().count() < 3 {
            return Err(Error::invalid_field(
                "reason",
                "say why the order is corrected (at least 3 characters)",
            ));
        }
        if reason.chars().count() > 2000 {
            return Err(Error::invalid_field("reason", "at most 2000 characters"));
        }
        let row = self.store.get(&self.e.order, order).await?;
        if OrderRow::of(&row)?.status == to {
            return Err(Error::conflict_field(
                "status",
                format!("the order is already '{to}'"),
            ));
        }
        let out = self
            .transition(order, Move::correction(to, actor, reason))
            .await?;
        Ok(Row::new(out.to_json()))
    }
}

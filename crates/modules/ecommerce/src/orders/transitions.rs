//! Status moves: the status machine's compare-and-set, the change recorded, its mails and role check enqueued.

use super::*;
use crate::views::{EcommerceOrder, Override};

impl Commerce {
    /// Moves one order to `to` inside the caller's transaction: checks the status table (unless
    /// overriding), compares-and-sets the status, records the change and enqueues its emails and
    /// role check.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn transition_in(
        &self,
        exec: &mut Exec<'_>,
        order: &Record,
        to: &str,
        by: By,
        actor: &str,
        reason: Option<&str>,
        overridden: bool,
        roles: bool,
    ) -> Result<Record> {
        let oid = Record::must_id(order)?;
        let from = order.text("status").unwrap_or("new").to_owned();
        if !overridden && !status::allowed(&from, to, by) {
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
        let row = repo::set_if(
            exec,
            &self.e.order,
            oid,
            &set,
            &[("status", Val::Text(from.clone()))],
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
    pub async fn transition(
        &self,
        order: Uuid,
        to: &str,
        by: By,
        actor: &str,
        reason: Option<&str>,
        overridden: bool,
    ) -> Result<Record> {
        let row = self.store.get(&self.e.order, order).await?;
        let roles = self.owners.products_carry_roles().await?;
        let mut tx = self.store.begin().await?;
        let out = self
            .transition_in(
                &mut tx.exec(),
                &row,
                to,
                by,
                actor,
                reason,
                overridden,
                roles,
            )
            .await?;
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
        if row.text("status") == Some(to) {
            return Err(Error::conflict_field(
                "status",
                format!("the order is already '{to}'"),
            ));
        }
        let out = self
            .transition(order, to, By::Admin, actor, Some(reason), true)
            .await?;
        Ok(Row::new(out.to_json()))
    }
}

//! The links ecommerce owns under rbac's name ([`crate::rbac_links`]): which subject placed which
//! order, and which roles buying a product gives. Ecommerce alone reads and writes them; rbac
//! names no ecommerce entity (ADR 0008).

use std::collections::HashSet;
use std::sync::Mutex;

use stoa_kernel::Result;
use stoa_kernel::query::FindQuery;
use stoa_kernel::value::Val;
use stoa_store::{Exec, Store};
use uuid::Uuid;

/// Most orders one subject's listing reads.
pub const MAX_ORDERS: usize = 1000;

/// Which subject placed which order.
const ORDERS: &str = "rbac.subjects-to-ecommerce-module-orders";
/// Roles granted by buying a product.
const PRODUCT_ROLES: &str = "rbac.roles-to-ecommerce-module-products";

pub struct Owners {
    store: Store,
    /// Whether any product grants a role, with the change counter of [`PRODUCT_ROLES`] it was
    /// read at.
    carry_roles: Mutex<Option<(u64, bool)>>,
}

impl Owners {
    pub fn new(store: Store) -> Self {
        Self {
            store,
            carry_roles: Mutex::new(None),
        }
    }

    /// Whether any product grants a role. Read once per change of the links (the store's change
    /// counter, which other instances' writes move too), so a status change of an order on a
    /// site without role-granting products skips the buyer's role check without a query.
    pub async fn products_carry_roles(&self) -> Result<bool> {
        let version = self.store.version(PRODUCT_ROLES);
        if let Some(carry) = self.carry_roles_at(version) {
            return Ok(carry);
        }
        let e = self.store.entity(PRODUCT_ROLES)?;
        let carry = !self.store.find_by(&e, &[], 1).await?.is_empty();
        if let Ok(mut guard) = self.carry_roles.lock() {
            *guard = Some((version, carry));
        }
        Ok(carry)
    }

    /// [`Self::products_carry_roles`] read through the caller's transaction (no second
    /// connection while it holds one). What it reads there is not cached: it may include writes
    /// that never commit.
    pub async fn products_carry_roles_in(&self, exec: &mut Exec<'_>) -> Result<bool> {
        let version = self.store.version(PRODUCT_ROLES);
        if let Some(carry) = self.carry_roles_at(version) {
            return Ok(carry);
        }
        let e = self.store.entity(PRODUCT_ROLES)?;
        let q = FindQuery::all().take(1);
        Ok(!stoa_store::repo::find(exec, &e, &q).await?.0.is_empty())
    }

    fn carry_roles_at(&self, version: u64) -> Option<bool> {
        let guard = self.carry_roles.lock().ok()?;
        guard.filter(|(v, _)| *v == version).map(|(_, carry)| carry)
    }

    /// The roles linked to any of `products`.
    pub async fn product_roles(&self, products: &[Uuid]) -> Result<HashSet<Uuid>> {
        Ok(self
            .store
            .linked(
                &*self.store.entity(PRODUCT_ROLES)?,
                "ecommerceModuleProductId",
                products,
                "roleId",
                1000,
            )
            .await?
            .into_iter()
            .collect())
    }

    /// Records that `subject` placed `order` (inside the caller's transaction).
    pub async fn link_order(&self, exec: &mut Exec<'_>, subject: Uuid, order: Uuid) -> Result<()> {
        let e = self.store.entity(ORDERS)?;
        self.store
            .link_later(
                exec,
                &e,
                ("subjectId", subject),
                ("ecommerceModuleOrderId", order),
            )
            .await
    }

    /// The ids of the orders `subject` placed (newest links last), at most [`MAX_ORDERS`].
    pub async fn order_ids(&self, subject: Uuid) -> Result<Vec<Uuid>> {
        let e = self.store.entity(ORDERS)?;
        self.store
            .linked(
                &e,
                "subjectId",
                &[subject],
                "ecommerceModuleOrderId",
                MAX_ORDERS,
            )
            .await
    }

    /// The subject that placed each of `orders` (orders without one are absent).
    pub async fn order_owners(&self, orders: &[Uuid]) -> Result<Vec<(Uuid, Uuid)>> {
        let e = self.store.entity(ORDERS)?;
        let vals: Vec<Val> = orders.iter().copied().map(Val::Uuid).collect();
        Ok(self
            .store
            .find_in(&e, "ecommerceModuleOrderId", &vals, orders.len().max(1) * 4)
            .await?
            .iter()
            .filter_map(|r| {
                let r = crate::rows::OrderOwnerRow::of(r).ok()?;
                Some((r.order_id?, r.subject_id?))
            })
            .collect())
    }
}

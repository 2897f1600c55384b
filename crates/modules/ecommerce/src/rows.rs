//! The records the shop's own logic reads, as typed rows: each field named once with its column
//! (a test holds them against the declarations).

use uuid::Uuid;

stoa_store::typed_row! {
    /// An order as the cart, the checkout and the status machine read it.
    pub struct OrderRow for "ecommerce.order" {
        id: Uuid = "id",
        status: String = "status",
        /// `cart` or `history`
        kind: String = "type",
        number: Option<i64> = "number",
        email: Option<String> = "email",
        language: Option<String> = "language",
        created_at: Option<String> = "createdAt",
        updated_at: Option<String> = "updatedAt",
    }
}

impl OrderRow {
    /// Still in the cart: new, and of the cart.
    pub fn in_cart(&self) -> bool {
        self.status == "new" && self.kind == "cart"
    }
}

stoa_store::typed_row! {
    /// A line of an order: a product and how many.
    pub struct LineRow for "ecommerce.orders-to-products" {
        id: Uuid = "id",
        order_id: Uuid = "orderId",
        product_id: Uuid = "productId",
        quantity: i64 = "quantity",
    }
}

stoa_store::typed_row! {
    /// A change of an order's status.
    pub struct ChangeRow for "ecommerce.order-status-change" {
        id: Uuid = "id",
        order_id: Uuid = "orderId",
        from: String = "from",
        to: String = "to",
        created_at: String = "createdAt",
    }
}

#[cfg(test)]
mod tests {
    use stoa_store::typed::{TypedRow, undeclared};

    use super::*;

    fn check<T: TypedRow>() {
        let m = crate::declarations();
        let e = m
            .entities
            .iter()
            .find(|e| e.key() == T::ENTITY)
            .unwrap_or_else(|| panic!("{} is not declared", T::ENTITY));
        assert!(
            undeclared::<T>(e).is_empty(),
            "{}: {:?}",
            T::ENTITY,
            undeclared::<T>(e)
        );
    }

    #[test]
    fn every_typed_row_reads_declared_columns() {
        check::<OrderRow>();
        check::<LineRow>();
        check::<ChangeRow>();
    }
}

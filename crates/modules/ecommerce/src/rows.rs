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
        /// Empty only on a line whose product link was cut
        product_id: Option<Uuid> = "productId",
        quantity: i64 = "quantity",
        /// The line as the API answers it
        record: stoa_store::Record = "*",
    }
}

stoa_store::typed_row! {
    /// A product as an order's lines show it and a checkout prices it.
    pub struct ProductRow for "ecommerce.product" {
        id: Uuid = "id",
        slug: Option<String> = "slug",
        title: Option<serde_json::Value> = "title",
        /// `one_off` or `subscription`
        kind: Option<String> = "type",
        admin_title: Option<String> = "adminTitle",
    }
}

stoa_store::typed_row! {
    /// The currency an order is priced in.
    pub struct OrderCurrencyRow for "ecommerce.orders-to-billing-module-currencies" {
        id: Uuid = "id",
        order_id: Option<Uuid> = "orderId",
        currency_id: Option<Uuid> = "billingModuleCurrencyId",
    }
}

stoa_store::typed_row! {
    /// A file of an order (its receipt: variant `receipt-default`).
    pub struct OrderFileRow for "ecommerce.orders-to-file-storage-module-files" {
        id: Uuid = "id",
        order_id: Option<Uuid> = "orderId",
        file_id: Option<Uuid> = "fileStorageModuleFileId",
        variant: Option<String> = "variant",
    }
}

stoa_store::typed_row! {
    /// A payment intent an order is paid through.
    pub struct OrderIntentRow for "ecommerce.orders-to-billing-module-payment-intents" {
        id: Uuid = "id",
        order_id: Option<Uuid> = "orderId",
        intent_id: Option<Uuid> = "billingModulePaymentIntentId",
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

stoa_store::typed_row! {
    /// The subject that placed an order (the link ecommerce declares under rbac's name).
    pub struct OrderOwnerRow for "rbac.subjects-to-ecommerce-module-orders" {
        order_id: Option<Uuid> = "ecommerceModuleOrderId",
        subject_id: Option<Uuid> = "subjectId",
    }
}

stoa_store::typed_row! {
    /// An attribute's value: a number (a price) or words (an interval, `{"en": "month"}`).
    pub struct AttributeRow for "ecommerce.attribute" {
        id: Uuid = "id",
        number: Option<rust_decimal::Decimal> = "number",
        string: Option<serde_json::Value> = "string",
    }
}

stoa_store::typed_row! {
    /// An attribute under an attribute key (whose type says what the attribute is).
    pub struct KeyAttributeRow for "ecommerce.attribute-keys-to-attributes" {
        key_id: Option<Uuid> = "attributeKeyId",
        attribute_id: Option<Uuid> = "attributeId",
    }
}

stoa_store::typed_row! {
    /// An attribute of a product.
    pub struct ProductAttributeRow for "ecommerce.products-to-attributes" {
        product_id: Option<Uuid> = "productId",
        attribute_id: Option<Uuid> = "attributeId",
    }
}

stoa_store::typed_row! {
    /// The currency of a price attribute.
    pub struct AttributeCurrencyRow for "ecommerce.attributes-to-billing-module-currencies" {
        attribute_id: Option<Uuid> = "attributeId",
        currency_id: Option<Uuid> = "billingModuleCurrencyId",
    }
}

stoa_store::typed_row! {
    /// A store that sells a product.
    pub struct StoreProductRow for "ecommerce.stores-to-products" {
        store_id: Option<Uuid> = "storeId",
        product_id: Option<Uuid> = "productId",
    }
}

stoa_store::rows_declared!(
    [crate::declarations(), crate::rbac_links()],
    OrderRow,
    LineRow,
    ChangeRow,
    ProductRow,
    OrderCurrencyRow,
    OrderIntentRow,
    OrderFileRow,
    OrderOwnerRow,
    AttributeRow,
    KeyAttributeRow,
    ProductAttributeRow,
    AttributeCurrencyRow,
    StoreProductRow,
);

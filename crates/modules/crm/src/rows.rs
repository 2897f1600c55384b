//! The records the form logic reads, as typed rows: each field named once with its column (a test
//! holds them against the declarations).

use rust_decimal::Decimal;
use serde_json::Value;
use uuid::Uuid;

stoa_store::typed_row! {
    /// A form, as its alerts, confirmations and replies name it.
    pub struct FormRow for "crm.form" {
        id: Option<Uuid> = "id",
        admin_title: Option<String> = "adminTitle",
        slug: Option<String> = "slug",
        /// Translations by language.
        title: Option<Value> = "title",
    }
}

stoa_store::typed_row! {
    /// An input of a form, as a submission is checked against it.
    pub struct InputRow for "crm.input" {
        /// The key its value is sent under.
        slug: Option<String> = "slug",
        kind: Option<String> = "type",
        variant: Option<String> = "variant",
        is_required: Option<bool> = "isRequired",
        min: Option<Decimal> = "min",
        max: Option<Decimal> = "max",
        /// Translations by language.
        label: Option<Value> = "label",
    }
}

stoa_store::typed_row! {
    /// A submission, as an admin's reply reads it.
    pub struct RequestRow for "crm.request" {
        email: Option<String> = "email",
        language: Option<String> = "language",
        status: Option<String> = "status",
    }
}

stoa_store::typed_row! {
    /// A form's link to one of its inputs.
    pub struct FormInputRow for "crm.forms-to-inputs" {
        input_id: Option<Uuid> = "inputId",
    }
}

stoa_store::typed_row! {
    /// A submission's link to its form.
    pub struct FormRequestRow for "crm.forms-to-requests" {
        form_id: Option<Uuid> = "formId",
    }
}

stoa_store::rows_declared!(
    [crate::declarations()],
    FormRow,
    InputRow,
    RequestRow,
    FormInputRow,
    FormRequestRow,
);

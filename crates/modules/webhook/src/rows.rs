//! The records the webhook logic reads, as typed rows: each field named once with its column (a
//! test holds them against the declarations).

use serde_json::Value;
use time::OffsetDateTime;
use uuid::Uuid;

stoa_store::typed_row! {
    /// An endpoint as the write tap, the workers and the sweep read it (never its secret).
    pub struct EndpointRow for "webhook.endpoint" {
        id: Uuid = "id",
        url: Option<String> = "url",
        /// Space- or comma-separated event names.
        events: Option<String> = "events",
        is_active: Option<bool> = "isActive",
        failing_since: Option<OffsetDateTime> = "failingSince",
        leased_by: Option<String> = "leasedBy",
        leased_until: Option<OffsetDateTime> = "leasedUntil",
    }
}

stoa_store::typed_row! {
    /// A delivery of an event to an endpoint.
    pub struct DeliveryRow for "webhook.delivery" {
        id: Uuid = "id",
        endpoint_id: Option<Uuid> = "endpointId",
        event_id: Option<Uuid> = "eventId",
        /// The event's name.
        kind: Option<String> = "type",
        attempts: Option<i64> = "attempts",
        next_attempt_at: Option<OffsetDateTime> = "nextAttemptAt",
    }
}

stoa_store::typed_row! {
    /// An event, as much of it as a delivery sends.
    pub struct EventRow for "webhook.event" {
        payload: Option<Value> = "payload",
    }
}

stoa_store::rows_declared!([crate::declarations()], EndpointRow, DeliveryRow, EventRow,);

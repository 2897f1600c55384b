//! The records the analytics read back, as typed rows (a test holds them against the
//! declarations).

stoa_store::typed_row! {
    /// One day's count of one key of a metric (`page` `/ru/`: 12).
    pub struct CountRow for "analytic.count" {
        day: Option<String> = "day",
        metric: Option<String> = "metric",
        key: Option<String> = "key",
        value: Option<i64> = "value",
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
        check::<CountRow>();
    }
}

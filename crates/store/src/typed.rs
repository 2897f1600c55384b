//! Typed rows: a module's own logic reads the records it owns as structs, declared once with the
//! column each field comes from ([`typed_row!`]), instead of by column name wherever it needs one.
//! A misspelt column is then one place to look, and a test can hold every declaration against
//! the entity's ([`TypedRow::COLUMNS`] against its fields).
//!
//! ```ignore
//! stoa_store::typed_row! {
//!     /// An order as the shop's logic reads it.
//!     pub struct OrderRow for "ecommerce.order" {
//!         id: Uuid = "id",
//!         status: String = "status",
//!         number: Option<i64> = "number",
//!         // The whole record, when the row is also answered as it is.
//!         record: stoa_store::Record = "*",
//!     }
//! }
//! let order = OrderRow::of(&record)?;
//! ```

use rust_decimal::Decimal;
use serde_json::Value;
use stoa_kernel::{Error, Result};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::record::{Cell, Record};

/// A field of a typed row read from its column: a value the column must hold, or an `Option`
/// of one (absent or NULL is `None`).
pub trait Field: Sized {
    /// Column `column` of `r`, a row of entity `entity` (named in the error when it lacks one).
    fn read(r: &Record, entity: &str, column: &str) -> Result<Self>;
}

/// A column's value as a type, when it holds one.
trait Value1: Sized {
    fn of(r: &Record, column: &str) -> Option<Self>;
}

impl Value1 for String {
    fn of(r: &Record, column: &str) -> Option<Self> {
        r.text(column).map(str::to_owned)
    }
}

impl Value1 for Uuid {
    fn of(r: &Record, column: &str) -> Option<Self> {
        r.uuid(column)
    }
}

impl Value1 for i64 {
    fn of(r: &Record, column: &str) -> Option<Self> {
        r.int(column)
    }
}

impl Value1 for bool {
    fn of(r: &Record, column: &str) -> Option<Self> {
        r.bool(column)
    }
}

impl Value1 for Decimal {
    fn of(r: &Record, column: &str) -> Option<Self> {
        r.decimal(column)
    }
}

impl Value1 for Value {
    fn of(r: &Record, column: &str) -> Option<Self> {
        r.json(column)
    }
}

impl Value1 for OffsetDateTime {
    fn of(r: &Record, column: &str) -> Option<Self> {
        match r.get(column)? {
            Cell::Text(t) => stoa_kernel::value::parse_timestamp(t),
            _ => None,
        }
    }
}

macro_rules! fields {
    ($($t:ty),+) => {$(
        impl Field for $t {
            fn read(r: &Record, entity: &str, column: &str) -> Result<Self> {
                <$t as Value1>::of(r, column).ok_or_else(|| {
                    Error::internal(format!("a row of {entity} without its {column}"))
                })
            }
        }

        impl Field for Option<$t> {
            fn read(r: &Record, _entity: &str, column: &str) -> Result<Self> {
                Ok(<$t as Value1>::of(r, column))
            }
        }
    )+};
}

fields!(String, Uuid, i64, bool, Decimal, Value, OffsetDateTime);

/// The whole record, for a row that is also answered as it is (column `"*"`).
impl Field for Record {
    fn read(r: &Record, _entity: &str, _column: &str) -> Result<Self> {
        Ok(r.clone())
    }
}

/// What [`typed_row!`] declares: the entity a row type reads, and the columns it reads.
pub trait TypedRow: Sized {
    /// The entity's key (`ecommerce.order`).
    const ENTITY: &'static str;
    /// The columns the fields come from, in order.
    const COLUMNS: &'static [&'static str];
    /// The typed row of `r`; an internal error when a column it needs is missing.
    fn of(r: &Record) -> Result<Self>;
}

/// Declares a typed row: a struct whose fields are read from the named columns of an entity's
/// record (see the module's documentation).
#[macro_export]
macro_rules! typed_row {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident for $entity:literal {
            $($(#[$fmeta:meta])* $field:ident : $t:ty = $column:literal),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug)]
        $vis struct $name {
            $($(#[$fmeta])* pub $field: $t,)+
        }

        impl $name {
            /// The typed row of `r`; an internal error when a column it needs is missing.
            #[allow(dead_code)]
            $vis fn of(r: &$crate::Record) -> stoa_kernel::Result<Self> {
                <Self as $crate::typed::TypedRow>::of(r)
            }
        }

        impl $crate::typed::TypedRow for $name {
            const ENTITY: &'static str = $entity;
            const COLUMNS: &'static [&'static str] = &[$($column),+];

            fn of(r: &$crate::Record) -> stoa_kernel::Result<Self> {
                Ok(Self {
                    $($field: <$t as $crate::typed::Field>::read(r, $entity, $column)?,)+
                })
            }
        }
    };
}

/// Every one of `records` as typed row `T` (an internal error at the first that lacks a column
/// `T` needs).
pub fn rows<T: TypedRow>(records: &[Record]) -> Result<Vec<T>> {
    records.iter().map(T::of).collect()
}

/// Each of `records` with its typed row, for records also answered as they are.
pub fn with_rows<T: TypedRow>(records: Vec<Record>) -> Result<Vec<(T, Record)>> {
    records
        .into_iter()
        .map(|r| -> Result<(T, Record)> { Ok((T::of(&r)?, r)) })
        .collect()
}

/// For a module's tests: panics unless one of `modules` declares `T`'s entity with every column
/// `T` reads.
pub fn assert_declared<T: TypedRow>(modules: &[&stoa_kernel::model::Module]) {
    let e = modules
        .iter()
        .flat_map(|m| &m.entities)
        .find(|e| e.key() == T::ENTITY)
        .unwrap_or_else(|| panic!("{} is not declared", T::ENTITY));
    let missing = undeclared::<T>(e);
    assert!(missing.is_empty(), "{}: {missing:?}", T::ENTITY);
}

/// The test that holds a module's typed rows against its declarations (a column the entity does
/// not declare fails it): `stoa_store::rows_declared!([crate::declarations()], OrderRow, LineRow);`
#[macro_export]
macro_rules! rows_declared {
    ([$($module:expr),+ $(,)?], $($row:ty),+ $(,)?) => {
        #[cfg(test)]
        #[test]
        fn every_typed_row_reads_declared_columns() {
            let modules = [$($module),+];
            let modules: Vec<&stoa_kernel::model::Module> = modules.iter().collect();
            $($crate::typed::assert_declared::<$row>(&modules);)+
        }
    };
}

/// The columns of typed row `T` that entity `e` does not declare (empty when it reads only
/// what is there): what a module's test checks of each of its typed rows.
pub fn undeclared<T: TypedRow>(e: &stoa_kernel::model::Entity) -> Vec<&'static str> {
    T::COLUMNS
        .iter()
        .copied()
        .filter(|c| *c != "id" && *c != "*" && !e.fields.iter().any(|f| f.name == *c))
        .filter(|c| !matches!(*c, "createdAt" | "updatedAt"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::typed_row! {
        /// A test row.
        struct Thing for "test.thing" {
            id: Uuid = "id",
            status: String = "status",
            number: Option<i64> = "number",
            at: Option<OffsetDateTime> = "createdAt",
        }
    }

    #[test]
    fn a_row_is_read_by_its_columns_and_a_missing_one_is_named() {
        let id = Uuid::new_v4();
        let r = Record(vec![
            ("id", Cell::Text(id.to_string())),
            ("status", Cell::Text("new".into())),
            ("number", Cell::Null),
            ("createdAt", Cell::Text("2026-11-30T10:00:00.000Z".into())),
        ]);
        let t = Thing::of(&r).expect("read");
        assert_eq!((t.id, t.status.as_str(), t.number), (id, "new", None));
        assert!(t.at.is_some());
        let lacking = Record(vec![("id", Cell::Text(id.to_string()))]);
        let e = Thing::of(&lacking).expect_err("status is missing");
        assert!(
            matches!(&e, Error::Internal(m) if m == "a row of test.thing without its status"),
            "{e:?}"
        );
        assert_eq!(Thing::COLUMNS, ["id", "status", "number", "createdAt"]);
    }
}

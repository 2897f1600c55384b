//! Database failures in the client's terms: a refused constraint names its field (409 or 422), a
//! busy or unreachable database is a 503, and anything else is our bug (500).

use stoa_kernel::Error;
use stoa_kernel::model::Entity;

use crate::names::unique_index;

pub(crate) fn pool_err(e: sqlx::Error) -> Error {
    match e {
        sqlx::Error::PoolTimedOut => Error::Unavailable("the database is busy; try again".into()),
        sqlx::Error::PoolClosed => Error::Unavailable("the server is shutting down".into()),
        sqlx::Error::Io(_) => Error::Unavailable("the database is unreachable".into()),
        // statement_timeout (the request timeout) stopped the query.
        sqlx::Error::Database(d) if d.code().as_deref() == Some("57014") => Error::Unavailable(
            "the query ran past the request timeout and was stopped; narrow the list (filters, a smaller limit) and try again".into(),
        ),
        other => Error::internal(other),
    }
}

/// A SQLite failure outside any entity's rules (schema, seeds, migrations).
pub(crate) fn sqlite_err(e: rusqlite::Error) -> Error {
    Error::internal(format!("sqlite: {e}"))
}

/// What a database refused, in either backend's words.
enum Refused {
    Unique,
    ForeignKey,
    Check,
    NotNull,
    /// Anything else: not the client's doing.
    Other,
}

/// A client error for a refusal on `e` (`constraint`: its name when the backend gives one).
fn refused(e: &Entity, what: Refused, constraint: Option<&str>, message: &str) -> Option<Error> {
    let field_of_column =
        |column: &str| e.fields.iter().find(|f| f.column == column).map(|f| f.name);
    Some(match what {
        Refused::Unique => {
            let by_constraint = constraint.and_then(|c| {
                e.fields
                    .iter()
                    .find(|f| unique_index(&e.table, &f.column) == c)
            });
            let by_message = message
                .rsplit_once('.')
                .and_then(|(_, c)| field_of_column(c.trim()));
            let field = by_constraint.map(|f| f.name).or(by_message).unwrap_or("id");
            Error::conflict_field(field, "already taken")
        }
        Refused::ForeignKey => {
            let field = constraint
                .and_then(|c| {
                    e.fields
                        .iter()
                        .find(|f| crate::names::ident(&format!("fk_{}_{}", e.table, f.column)) == c)
                })
                .map(|f| f.name);
            match field {
                Some(f) => Error::invalid_field(f, "references a record that does not exist"),
                None => Error::Invalid {
                    message: "a reference points to a record that does not exist".into(),
                    fields: Default::default(),
                },
            }
        }
        Refused::Check => Error::Invalid {
            message: message.to_owned(),
            fields: Default::default(),
        },
        // Not-null: SQLite "NOT NULL constraint failed: t.c", PostgreSQL code 23502.
        Refused::NotNull => {
            let column = message
                .rsplit_once('.')
                .map(|(_, c)| c.trim().to_owned())
                .unwrap_or_default();
            Error::invalid_field(field_of_column(&column).unwrap_or("body"), "is required")
        }
        Refused::Other => return None,
    })
}

/// Maps a PostgreSQL error on `e` to a client error where the database refused bad input.
pub fn db_error(e: &Entity, err: sqlx::Error) -> Error {
    if let sqlx::Error::Database(d) = &err {
        let what = if d.is_unique_violation() {
            Refused::Unique
        } else if d.is_foreign_key_violation() {
            Refused::ForeignKey
        } else if d.is_check_violation() {
            Refused::Check
        } else if d.code().as_deref() == Some("23502")
            || d.message().starts_with("NOT NULL constraint failed")
        {
            Refused::NotNull
        } else {
            Refused::Other
        };
        if let Some(x) = refused(e, what, d.constraint(), d.message()) {
            return x;
        }
    }
    pool_err(err)
}

/// Maps a SQLite error on `e` to a client error where the database refused bad input (SQLite
/// names no constraint: the column comes from the message).
pub fn sqlite_error(e: &Entity, err: rusqlite::Error) -> Error {
    use rusqlite::ffi;
    if let rusqlite::Error::SqliteFailure(f, msg) = &err {
        let message = msg.as_deref().unwrap_or_default();
        let what = match f.extended_code {
            ffi::SQLITE_CONSTRAINT_UNIQUE | ffi::SQLITE_CONSTRAINT_PRIMARYKEY => Refused::Unique,
            ffi::SQLITE_CONSTRAINT_FOREIGNKEY => Refused::ForeignKey,
            ffi::SQLITE_CONSTRAINT_CHECK => Refused::Check,
            ffi::SQLITE_CONSTRAINT_NOTNULL => Refused::NotNull,
            _ => Refused::Other,
        };
        if let Some(x) = refused(e, what, None, message) {
            return x;
        }
        if matches!(
            f.code,
            ffi::ErrorCode::DatabaseBusy | ffi::ErrorCode::DatabaseLocked
        ) {
            return Error::Unavailable("the database is busy; try again".into());
        }
    }
    Error::internal(format!("sqlite: {err}"))
}

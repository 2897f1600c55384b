//! Backups: `stoa backup` / `stoa restore`, and the snapshot `stoa migrate` keeps of a SQLite
//! database before it changes the schema.
//!
//! - SQLite: `VACUUM INTO` from a read-only connection — a consistent copy of the last committed
//!   state, taken while the server keeps reading and writing (WAL: the copy is one read
//!   transaction). Written to `<file>.partial` and renamed, so a file at the final name is whole.
//! - PostgreSQL: `pg_dump --format=custom` (and `pg_restore`) from the PostgreSQL client tools,
//!   when they are installed; the password goes through `PGPASSWORD`, never the command line.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};
use stoa_kernel::{Error, Result};

use crate::db::{is_postgres, sqlite_path};

/// How many pre-migration snapshots of a SQLite database are kept (the newest).
pub const SNAPSHOTS_KEPT: usize = 3;

fn fail(what: &str, e: impl std::fmt::Display) -> Error {
    Error::Unavailable(format!("{what}: {e}"))
}

/// Copies the database at `url` to the file `to` (which must not exist). Returns its size.
pub async fn backup(url: &str, to: &Path) -> Result<u64> {
    if to.exists() {
        return Err(Error::bad_request(format!(
            "{} exists; a backup never overwrites a file",
            to.display()
        )));
    }
    let partial = partial_of(to);
    let _ = std::fs::remove_file(&partial);
    if is_postgres(url) {
        pg_tool("pg_dump", url, |c| {
            c.arg("--format=custom")
                .arg("--no-owner")
                .arg("--file")
                .arg(&partial);
        })
        .await?;
    } else {
        let (db, out) = (sqlite_path(url), partial.clone());
        tokio::task::spawn_blocking(move || vacuum_into(&db, &out))
            .await
            .map_err(|e| fail("backup", e))??;
    }
    sync_file(&partial)?;
    std::fs::rename(&partial, to).map_err(|e| fail("backup", e))?;
    std::fs::metadata(to)
        .map(|m| m.len())
        .map_err(|e| fail("backup", e))
}

/// Replaces the database at `url` with the backup `from`. SQLite: refused while a server has the
/// database open; the current database is kept first as `<db>.before-restore-<time>`, and that
/// path is returned. PostgreSQL: `pg_restore --clean` in one transaction.
pub async fn restore(url: &str, from: &Path) -> Result<Option<PathBuf>> {
    if !from.is_file() {
        return Err(Error::bad_request(format!(
            "{} is not a file",
            from.display()
        )));
    }
    if is_postgres(url) {
        pg_tool("pg_restore", url, |c| {
            c.args([
                "--clean",
                "--if-exists",
                "--no-owner",
                "--single-transaction",
            ])
            .arg(from);
        })
        .await?;
        return Ok(None);
    }
    let (db, from) = (sqlite_path(url), from.to_owned());
    tokio::task::spawn_blocking(move || restore_sqlite(&db, &from))
        .await
        .map_err(|e| fail("restore", e))?
}

fn restore_sqlite(db: &Path, from: &Path) -> Result<Option<PathBuf>> {
    // The backup must be a whole Stoa database.
    let b = Connection::open_with_flags(from, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(|e| {
        Error::bad_request(format!("{}: not a SQLite database ({e})", from.display()))
    })?;
    let check: String = b
        .query_row("PRAGMA quick_check", [], |r| r.get(0))
        .map_err(|e| {
            Error::bad_request(format!("{}: not a SQLite database ({e})", from.display()))
        })?;
    let stoa = migrated(&b)?;
    drop(b);
    if check != "ok" || !stoa {
        return Err(Error::bad_request(format!(
            "{} is not a whole Stoa database (check: {check})",
            from.display()
        )));
    }
    let staged = partial_of(db);
    let _ = std::fs::remove_file(&staged);
    if let Some(dir) = db.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| fail("restore", e))?;
    }
    std::fs::copy(from, &staged).map_err(|e| fail("restore", e))?;
    sync_file(&staged)?;
    let mut kept = None;
    if db.exists() {
        // Nobody else may have it open: an exclusive lock, without waiting.
        let c = Connection::open(db).map_err(|e| fail("restore", e))?;
        c.busy_timeout(Duration::ZERO)
            .map_err(|e| fail("restore", e))?;
        let busy = c
            .execute_batch("PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; COMMIT;")
            .is_err();
        if busy {
            let _ = std::fs::remove_file(&staged);
            return Err(Error::Conflict {
                message: format!(
                    "{} is in use (a running server?); stop it before restoring",
                    db.display()
                ),
                fields: Default::default(),
            });
        }
        let before = stamped(db, "before-restore");
        c.execute("VACUUM INTO ?1", [before.to_string_lossy()])
            .map_err(|e| fail("restore: keeping the current database", e))?;
        drop(c);
        kept = Some(before);
    }
    for side in ["-wal", "-shm"] {
        let mut p = db.as_os_str().to_owned();
        p.push(side);
        let _ = std::fs::remove_file(PathBuf::from(p));
    }
    std::fs::rename(&staged, db).map_err(|e| fail("restore", e))?;
    Ok(kept)
}

/// SQLite: before `stoa migrate` changes the schema of a database that holds data, a copy of it
/// as `<db>.pre-migrate-<time>` (the newest [`SNAPSHOTS_KEPT`] are kept). `None` for a new or
/// empty database, and for PostgreSQL (use `stoa backup`).
pub async fn snapshot_before_migrate(url: &str) -> Result<Option<PathBuf>> {
    if is_postgres(url) {
        return Ok(None);
    }
    let db = sqlite_path(url);
    if std::fs::metadata(&db).map_or(true, |m| m.len() == 0) {
        return Ok(None);
    }
    tokio::task::spawn_blocking(move || {
        // Only a database Stoa has migrated before holds anything to keep.
        let c = Connection::open_with_flags(&db, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .map_err(|e| fail("snapshot", e))?;
        let stoa = migrated(&c)?;
        drop(c);
        if !stoa {
            return Ok(None);
        }
        // Written aside and renamed: a failed copy never counts as one of the kept.
        let to = stamped(&db, "pre-migrate");
        let partial = partial_of(&to);
        vacuum_into(&db, &partial)?;
        sync_file(&partial)?;
        std::fs::rename(&partial, &to).map_err(|e| fail("snapshot", e))?;
        prune(&db, "pre-migrate", SNAPSHOTS_KEPT);
        Ok(Some(to))
    })
    .await
    .map_err(|e| fail("snapshot", e))?
}

/// Whether Stoa has migrated the database on `c` (it holds `stoa_migrations`).
fn migrated(c: &Connection) -> Result<bool> {
    c.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'stoa_migrations'",
        [],
        |r| r.get::<_, i64>(0),
    )
    .map(|n| n > 0)
    .map_err(|e| fail("backup", e))
}

fn vacuum_into(db: &Path, to: &Path) -> Result<()> {
    if !db.is_file() {
        return Err(Error::bad_request(format!(
            "{}: no such database file",
            db.display()
        )));
    }
    let c = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(|e| fail("backup", e))?;
    c.busy_timeout(Duration::from_secs(30))
        .map_err(|e| fail("backup", e))?;
    c.execute("VACUUM INTO ?1", [to.to_string_lossy()])
        .map_err(|e| fail("backup", e))?;
    Ok(())
}

/// `<db>.<what>-<UTC time>` (`20261124T142726123456Z`: names sort by time).
fn stamped(db: &Path, what: &str) -> PathBuf {
    let t = stoa_kernel::value::format_timestamp(stoa_kernel::value::now())
        .replace(['-', ':', '.'], "");
    let mut p = db.as_os_str().to_owned();
    p.push(format!(".{what}-{t}"));
    PathBuf::from(p)
}

/// Removes all but the newest `keep` files `<db>.<what>-*` (their names sort by time).
fn prune(db: &Path, what: &str, keep: usize) {
    let (Some(dir), Some(name)) = (db.parent(), db.file_name()) else {
        return;
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let prefix = format!("{}.{what}-", name.to_string_lossy());
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(&prefix))
        })
        .collect();
    found.sort();
    let excess = found.len().saturating_sub(keep);
    for p in found.into_iter().take(excess) {
        let _ = std::fs::remove_file(p);
    }
}

fn partial_of(p: &Path) -> PathBuf {
    let mut s = p.as_os_str().to_owned();
    s.push(".partial");
    PathBuf::from(s)
}

fn sync_file(p: &Path) -> Result<()> {
    std::fs::File::open(p)
        .and_then(|f| f.sync_all())
        .map_err(|e| fail("backup", e))
}

/// Runs a PostgreSQL client tool against `url`: libpq reads the URL itself (`--dbname`, as sqlx
/// does: host, port, socket folders, `sslmode` and the rest), without its password, which goes in
/// `PGPASSWORD`.
async fn pg_tool(tool: &str, url: &str, args: impl FnOnce(&mut Command)) -> Result<()> {
    let mut u =
        url::Url::parse(url).map_err(|e| Error::bad_request(format!("DATABASE_URL: {e}")))?;
    let password = u.password().map(percent_decode);
    let _ = u.set_password(None);
    let mut c = Command::new(tool);
    c.arg(format!("--dbname={u}")).arg("--no-password");
    if let Some(p) = password {
        c.env("PGPASSWORD", p);
    }
    args(&mut c);
    let tool_name = tool.to_owned();
    let out = tokio::task::spawn_blocking(move || c.output())
        .await
        .map_err(|e| fail(&tool_name, e))?
        .map_err(|e| {
            Error::Unavailable(format!(
                "cannot run {tool_name} ({e}); install the PostgreSQL client tools (Debian: postgresql-client)"
            ))
        })?;
    if !out.status.success() {
        return Err(Error::Unavailable(format!(
            "{tool} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(())
}

/// A URL's percent-encoded part as text (`p%40ss+w` → `p@ss+w`: a `+` stays a plus).
fn percent_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_newest_snapshots_are_kept() {
        let dir = std::env::temp_dir().join(format!("stoa-prune-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("stoa.db");
        for t in [
            "20260101T000000000Z",
            "20260102T000000000Z",
            "20260103T000000000Z",
            "20260104T000000000Z",
        ] {
            std::fs::write(dir.join(format!("stoa.db.pre-migrate-{t}")), b"x").unwrap();
        }
        std::fs::write(dir.join("other.db.pre-migrate-20250101T000000000Z"), b"x").unwrap();
        prune(&db, "pre-migrate", 3);
        let mut left: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(
            left,
            [
                "other.db.pre-migrate-20250101T000000000Z",
                "stoa.db.pre-migrate-20260102T000000000Z",
                "stoa.db.pre-migrate-20260103T000000000Z",
                "stoa.db.pre-migrate-20260104T000000000Z"
            ]
        );
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_percent_encoded_password_is_decoded() {
        assert_eq!(percent_decode("p%40ss%2Fw"), "p@ss/w");
        assert_eq!(percent_decode("a+b%"), "a+b%");
        assert_eq!(percent_decode("plain"), "plain");
    }
}

//! The `stoa` binary: `config` redacts secrets, `migrate --plan` prints DDL and runs nothing,
//! `serve` answers and stops cleanly on SIGTERM.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn stoa() -> Command {
    Command::new(env!("CARGO_BIN_EXE_stoa"))
}

fn temp_db() -> (std::path::PathBuf, String) {
    let dir =
        std::env::temp_dir().join(format!("stoa-cli-{}-{}", std::process::id(), rand_suffix()));
    let url = format!("sqlite://{}/stoa.db", dir.display());
    (dir, url)
}

fn rand_suffix() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

fn http_get(port: u16, path: &str) -> Option<String> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut out = String::new();
    s.read_to_string(&mut out).ok()?;
    Some(out)
}

#[test]
fn config_redacts_the_database_password() {
    let out = stoa()
        .arg("config")
        .env("DATABASE_URL", "postgres://app:s3cret@db:5432/stoa")
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(text.contains("postgres://app:***@db:5432/stoa"), "{text}");
    assert!(!text.contains("s3cret"));
}

#[test]
fn migrate_plan_prints_ddl_and_changes_nothing() {
    let (dir, url) = temp_db();
    let out = stoa()
        .args(["migrate", "--plan"])
        .env("DATABASE_URL", &url)
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let plan = String::from_utf8_lossy(&out.stdout);
    assert!(plan.contains("CREATE TABLE \"blog_article\""), "{plan}");
    assert!(plan.contains("ON DELETE CASCADE"));
    // Nothing ran: planning again still plans every table.
    let again = stoa()
        .args(["migrate", "--plan"])
        .env("DATABASE_URL", &url)
        .output()
        .expect("run");
    assert_eq!(String::from_utf8_lossy(&again.stdout), plan);
    // migrate applies it; afterwards the plan is empty.
    let applied = stoa()
        .arg("migrate")
        .env("DATABASE_URL", &url)
        .output()
        .expect("run");
    assert!(applied.status.success());
    let after = stoa()
        .args(["migrate", "--plan"])
        .env("DATABASE_URL", &url)
        .output()
        .expect("run");
    let after = String::from_utf8_lossy(&after.stdout);
    assert!(!after.contains("CREATE TABLE \"blog_article\""), "{after}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn serve_answers_and_stops_on_sigterm() {
    let (dir, url) = temp_db();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("port");
    let mut child = stoa()
        .arg("serve")
        .env("DATABASE_URL", &url)
        .env("STOA_DATA_DIR", &dir)
        .env("STOA_ADDR", format!("127.0.0.1:{port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let started = Instant::now();
    let mut health = None;
    while started.elapsed() < Duration::from_secs(30) {
        if let Some(r) = http_get(port, "/health") {
            health = Some(r);
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let health = health.expect("the server never answered");
    assert!(health.starts_with("HTTP/1.1 200"), "{health}");
    assert!(health.to_ascii_lowercase().contains("x-request-id"));
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(10);
    let code = loop {
        if let Some(code) = child.try_wait().expect("wait") {
            break code;
        }
        assert!(
            Instant::now() < deadline,
            "still running 10 s after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(code.success(), "exit {code:?}");
    let mut logs = String::new();
    let _ = child.stderr.take().map(|mut e| e.read_to_string(&mut logs));
    let first = logs.lines().next().unwrap_or("");
    assert!(
        serde_json::from_str::<serde_json::Value>(first).is_ok(),
        "logs are not JSON lines: {first}"
    );
    assert!(logs.contains("stoa stopped"), "{logs}");
    let _ = std::fs::remove_dir_all(dir);
}

/// `serve` restarts itself once (same pid) with mimalloc's purge delay at 100 ms so freed memory
/// goes back soon after a burst; a delay set by the operator is kept.
#[cfg(all(target_os = "linux", feature = "mimalloc"))]
#[test]
fn serve_gives_freed_memory_back_unless_told_otherwise() {
    let (dir, url) = temp_db();
    for (given, expected) in [(None, "100"), (Some("1000"), "1000")] {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("port");
        let mut cmd = stoa();
        cmd.arg("serve")
            .env("DATABASE_URL", &url)
            .env("STOA_DATA_DIR", &dir)
            .env("STOA_ADDR", format!("127.0.0.1:{port}"))
            .env("STOA_LOG", "error")
            .env_remove("MIMALLOC_PURGE_DELAY")
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if let Some(v) = given {
            cmd.env("MIMALLOC_PURGE_DELAY", v);
        }
        let mut child = cmd.spawn().expect("spawn");
        let started = Instant::now();
        while http_get(port, "/health").is_none() {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "the server never answered"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        // The process we started is the one serving, with the setting in its environment.
        let environ = std::fs::read(format!("/proc/{}/environ", child.id())).expect("environ");
        let _ = child.kill();
        let _ = child.wait();
        let set: Vec<String> = environ
            .split(|b| *b == 0)
            .filter_map(|v| std::str::from_utf8(v).ok())
            .filter_map(|v| v.strip_prefix("MIMALLOC_PURGE_DELAY="))
            .map(str::to_owned)
            .collect();
        assert_eq!(set, [expected], "given {given:?}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn admin_create_prints_a_generated_password_once_and_refuses_duplicates() {
    let (dir, url) = temp_db();
    let run = |args: &[&str], stdin: &str| {
        let mut child = stoa()
            .args(args)
            .env("DATABASE_URL", &url)
            .env("STOA_DATA_DIR", &dir)
            .env("STOA_LOG", "error")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let _ = child
            .stdin
            .take()
            .map(|mut i| i.write_all(stdin.as_bytes()));
        child.wait_with_output().expect("output")
    };
    let out = run(&["admin", "create", "--email", "Root@Example.com"], "");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("created admin Root@Example.com"),
        "{stdout}"
    );
    let password = stdout
        .lines()
        .find_map(|l| l.strip_prefix("password: "))
        .expect("a generated password");
    assert!(password.len() >= 20, "{password}");
    let again = run(&["admin", "create", "--email", "root@example.com"], "");
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("already registered"));
    let weak = run(
        &[
            "admin",
            "create",
            "--email",
            "b@example.com",
            "--password-stdin",
        ],
        "short\n",
    );
    assert!(!weak.status.success());
    let given = run(
        &[
            "admin",
            "create",
            "--email",
            "c@example.com",
            "--password-stdin",
        ],
        "a-long-enough-passphrase\n",
    );
    let stdout = String::from_utf8_lossy(&given.stdout);
    assert!(given.status.success(), "{stdout}");
    assert!(
        !stdout.contains("password:"),
        "a given password is not echoed"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `stoa migrate` copies a SQLite database that holds data before it changes the schema; `stoa
/// backup` and `stoa restore` round-trip it, and neither overwrites what it should not.
#[test]
fn migrate_keeps_a_snapshot_and_backups_round_trip() {
    let (dir, url) = temp_db();
    let run = |args: &[&str], url: &str| {
        stoa()
            .args(args)
            .env("DATABASE_URL", url)
            .output()
            .expect("run")
    };
    assert!(run(&["migrate"], &url).status.success());
    let snapshots = || {
        std::fs::read_dir(&dir)
            .map(|d| {
                d.filter_map(|e| e.ok())
                    .filter(|e| e.file_name().to_string_lossy().contains(".pre-migrate-"))
                    .count()
            })
            .unwrap_or(0)
    };
    assert_eq!(snapshots(), 0, "a new database has nothing to keep");
    assert!(run(&["migrate"], &url).status.success());
    assert_eq!(snapshots(), 0, "no schema change, no copy");
    // A schema change (an index to build again) with data in the database.
    let db = dir.join("stoa.db");
    let c = rusqlite::Connection::open(&db).expect("open");
    let index: String = c
        .query_row(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'ix_%' LIMIT 1",
            [],
            |r| r.get(0),
        )
        .expect("an index");
    c.execute_batch(&format!("DROP INDEX \"{index}\""))
        .expect("drop");
    drop(c);
    let out = run(&["migrate"], &url);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(snapshots(), 1, "a copy before the change");
    // The copy is the database as it was: migrated, and still without the index.
    let copy = std::fs::read_dir(&dir)
        .expect("dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.to_string_lossy().contains(".pre-migrate-"))
        .expect("the copy");
    let c = rusqlite::Connection::open(&copy).expect("the copy opens");
    let (migrations, has_index): (i64, i64) = c
        .query_row(
            "SELECT (SELECT count(*) FROM stoa_migrations), (SELECT count(*) FROM sqlite_master WHERE name = ?1)",
            [&index],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .expect("query");
    assert!(migrations > 0);
    assert_eq!(has_index, 0, "taken before the migration rebuilt the index");
    drop(c);

    let backup = dir.join("copy.backup");
    let out = run(&["backup", backup.to_str().expect("path")], &url);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(backup.exists());
    let again = run(&["backup", backup.to_str().expect("path")], &url);
    assert!(!again.status.success(), "a backup never overwrites");
    assert!(String::from_utf8_lossy(&again.stderr).contains("exists"));
    let restored = format!("sqlite://{}/restored.db", dir.display());
    let out = run(&["restore", backup.to_str().expect("path")], &restored);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The restored database is current: nothing left to migrate.
    let plan = run(&["migrate", "--plan"], &restored);
    let plan = String::from_utf8_lossy(&plan.stdout);
    assert!(!plan.contains("CREATE TABLE \"blog_article\""), "{plan}");
    assert!(!plan.contains("CREATE INDEX"), "{plan}");
    // Junk is not restored.
    let junk = dir.join("junk.backup");
    std::fs::write(&junk, b"not a database").expect("write");
    let out = run(&["restore", junk.to_str().expect("path")], &restored);
    assert!(!out.status.success());
    let _ = std::fs::remove_dir_all(dir);
}

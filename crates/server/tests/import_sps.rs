#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // Tests fail by panicking.

//! `stoa import sps` against an SPS-shaped PostgreSQL database made from the fixture in
//! `tests/data/sps` (every table DOMAIN §2 lists, rows of every kind), created and dropped by each
//! test. Imports into SQLite and into PostgreSQL: every row accounted for, a second run writes
//! nothing, a run killed halfway and restarted ends identical to an uninterrupted one, the
//! imported site answers its pages with the imported titles, and a bcrypt account signs in once
//! with its old password and is argon2id afterwards.
//!
//! Needs PostgreSQL for the SPS side: without `STOA_TEST_POSTGRES_URL` the tests say so and pass.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const SCHEMA: &str = include_str!("data/sps/schema.sql");
const ROWS: &str = include_str!("data/sps/rows.sql");

fn fixture_files() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sps/files")
}

fn unique() -> String {
    format!(
        "{}_{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() % 1_000_000_000_000)
            .unwrap_or(0)
    )
}

fn admin_url() -> Option<String> {
    match std::env::var("STOA_TEST_POSTGRES_URL") {
        Ok(u) if !u.is_empty() => Some(u),
        _ => {
            eprintln!("STOA_TEST_POSTGRES_URL is not set: the SPS import tests need PostgreSQL");
            None
        }
    }
}

/// The URL of database `name` on the server of `admin`.
fn with_db(admin: &str, name: &str) -> String {
    let (base, _) = admin.rsplit_once('/').unwrap_or((admin, ""));
    format!("{base}/{name}")
}

/// A PostgreSQL database made for one test, dropped with it.
struct PgDb {
    admin: String,
    name: String,
    url: String,
}

impl PgDb {
    async fn create(admin: &str, prefix: &str) -> Self {
        let name = format!("{prefix}_{}", unique());
        let mut c = sqlx::postgres::PgConnection::connect(admin)
            .await
            .expect("connect");
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE \"{name}\"")))
            .execute(&mut c)
            .await
            .expect("create database");
        Self {
            admin: admin.to_owned(),
            url: with_db(admin, &name),
            name,
        }
    }

    /// The SPS fixture: its tables and rows.
    async fn sps(admin: &str) -> Self {
        let db = Self::create(admin, "sps_fixture").await;
        let mut c = sqlx::postgres::PgConnection::connect(&db.url)
            .await
            .expect("connect");
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!("{SCHEMA}\n{ROWS}")))
            .execute(&mut c)
            .await
            .expect("load the SPS fixture");
        db
    }

    async fn exec(&self, sql: &str) {
        let mut c = sqlx::postgres::PgConnection::connect(&self.url)
            .await
            .expect("connect");
        sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_owned()))
            .execute(&mut c)
            .await
            .expect("statement");
    }
}

impl Drop for PgDb {
    fn drop(&mut self) {
        let _ = Command::new("psql")
            .arg(&self.admin)
            .arg("-qc")
            .arg(format!(
                "DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)",
                self.name
            ))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

use sqlx::Connection;

/// Where an import writes: a SQLite file in a folder of its own, or a PostgreSQL database.
struct Target {
    dir: PathBuf,
    url: String,
    _pg: Option<PgDb>,
}

impl Target {
    fn sqlite() -> Self {
        let dir = std::env::temp_dir().join(format!("stoa-import-{}", unique()));
        std::fs::create_dir_all(&dir).expect("dir");
        Self {
            url: format!("sqlite://{}/stoa.db", dir.display()),
            dir,
            _pg: None,
        }
    }

    async fn postgres(admin: &str) -> Self {
        let pg = PgDb::create(admin, "stoa_import").await;
        let dir = std::env::temp_dir().join(format!("stoa-import-{}", unique()));
        std::fs::create_dir_all(&dir).expect("dir");
        Self {
            url: pg.url.clone(),
            dir,
            _pg: Some(pg),
        }
    }

    fn stoa(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_stoa"));
        c.env("DATABASE_URL", &self.url)
            .env("STOA_DATA_DIR", &self.dir)
            .env("STOA_JWT_SECRET", "an-import-test-secret-of-32-bytes!")
            .env("STOA_LOG", "warn")
            .env_remove("STOA_FILES");
        c
    }

    /// Runs the import; its JSON report.
    fn import(&self, from: &str, extra: &[&str]) -> Value {
        let out = self
            .stoa()
            .args(["import", "sps", "--from", from, "--json", "--files"])
            .arg(fixture_files())
            .args(extra)
            .output()
            .expect("run stoa import");
        assert!(
            out.status.success(),
            "import failed: {}\n{}",
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout)
        );
        serde_json::from_slice(&out.stdout).expect("a JSON report")
    }
}

impl Drop for Target {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn tables(report: &Value) -> &Vec<Value> {
    report["tables"].as_array().expect("tables")
}

fn table<'a>(report: &'a Value, name: &str) -> &'a Value {
    tables(report)
        .iter()
        .find(|t| t["table"] == name)
        .unwrap_or_else(|| panic!("no {name} in the report"))
}

fn n(v: &Value) -> u64 {
    v.as_u64().unwrap_or(0)
}

fn written(report: &Value) -> u64 {
    tables(report)
        .iter()
        .map(|t| n(&t["created"]) + n(&t["updated"]))
        .sum()
}

fn skipped_reasons(t: &Value) -> Vec<String> {
    t["skipped"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|s| format!("{} {}", s["id"], s["reason"]))
                .collect()
        })
        .unwrap_or_default()
}

/// Every row counted once, and the rows of every SPS table read.
async fn check_first_report(report: &Value, sps: &PgDb) {
    let mut c = sqlx::postgres::PgConnection::connect(&sps.url)
        .await
        .expect("connect");
    assert!(tables(report).len() >= 120, "{report}");
    for t in tables(report) {
        let name = t["table"].as_str().unwrap_or_default();
        let rows: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
            "SELECT COUNT(*) FROM \"{name}\""
        )))
        .fetch_one(&mut c)
        .await
        .expect("count");
        assert!(rows > 0, "the fixture has no rows in {name}");
        assert_eq!(n(&t["read"]), rows as u64, "{name}: {t}");
        let accounted = n(&t["created"])
            + n(&t["updated"])
            + n(&t["unchanged"])
            + n(&t["merged"])
            + t["skipped"].as_array().map_or(0, |a| a.len() as u64);
        assert_eq!(accounted, n(&t["read"]), "{name} does not add up: {t}");
    }
    // What the fixture holds that Stoa must refuse or leave, each with its reason.
    let articles = skipped_reasons(table(report, "sps_blog_article"));
    assert!(
        articles
            .iter()
            .any(|r| r.contains("description.ru is not a rich-text document")),
        "{articles:?}"
    );
    let actions = skipped_reasons(table(report, "sps_rc_action"));
    assert!(
        actions
            .iter()
            .any(|r| r.contains("/api/legacy/reports") && r.contains("no such route")),
        "{actions:?}"
    );
    let sessions = skipped_reasons(table(report, "sps_rc_session"));
    assert!(!sessions.is_empty() && sessions.iter().all(|r| r.contains("never used")));
    // Stoa's own roles take the SPS ones of the same slug.
    assert!(n(&table(report, "sps_rc_role")["merged"]) >= 2, "{report}");
    assert!(n(&table(report, "sps_rc_role")["created"]) >= 1, "{report}");
    // Five files copied; the absolute URL that cannot be read is kept with a warning.
    assert_eq!(n(&report["filesCopied"]), 5, "{report}");
    // The receipt and the chat photo only an order and a message link are hidden. The forest
    // photo an order links as its attachment, and the oak photo a message and a profile (its
    // avatar) link, stay as they are (pages show them), and are named.
    assert_eq!(n(&report["filesHidden"]), 2, "{report}");
    for (links, file) in [
        (
            "sps_ee_os_to_fe_se_me_fs_b06",
            "00000000-0000-4000-8000-049000000003",
        ),
        (
            "sl_ms_to_fe_se_me_fs_3v0",
            "00000000-0000-4000-8000-049000000002",
        ),
    ] {
        let warnings = table(report, links)["warnings"].to_string();
        assert!(
            warnings.contains(file) && warnings.contains("public records too"),
            "{links}: {warnings}"
        );
    }
    let warnings = table(report, "sps_f_s_file")["warnings"].to_string();
    assert!(
        warnings.contains("cdn.example.com/missing.png"),
        "{warnings}"
    );
    let grants = table(report, "sps_rc_rs_to_as_mz2")["warnings"].to_string();
    assert!(
        grants.contains("role 'pro-subscriber' holds the root permission"),
        "{grants}"
    );
    let identities = table(report, "sps_rc_identity")["warnings"].to_string();
    assert!(
        identities.contains("reset codes are not imported"),
        "{identities}"
    );
}

/// A second run: nothing written, every row unchanged or skipped again for the same reason.
fn check_second_report(first: &Value, second: &Value) {
    assert_eq!(written(second), 0, "{second}");
    assert_eq!(n(&second["filesHidden"]), 0, "hidden already: {second}");
    for (a, b) in tables(first).iter().zip(tables(second)) {
        assert_eq!(
            skipped_reasons(a),
            skipped_reasons(b),
            "{} skipped differently",
            a["table"]
        );
    }
}

fn http(port: u16, method: &str, path: &str, body: Option<&Value>) -> (u16, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20))).ok();
    let body = body.map(Value::to_string).unwrap_or_default();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .expect("write");
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).ok();
    let out = String::from_utf8_lossy(&raw).into_owned();
    let status = out
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (status, out)
}

/// `stoa serve` on the imported database, stopped when dropped.
struct Served(std::process::Child, u16);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(target: &Target) -> Served {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("port");
    let web = target.dir.join("web");
    std::fs::create_dir_all(&web).expect("web dir");
    std::fs::write(
        web.join("index.html"),
        "<!doctype html><html lang=\"en\"><head><title>Stoa</title></head><body><div id=\"root\"></div></body></html>",
    )
    .expect("shell");
    let served = Served(
        target
            .stoa()
            .env("STOA_ADDR", format!("127.0.0.1:{port}"))
            .env("STOA_WEB_DIR", &web)
            .env("STOA_PUBLIC_URL", format!("http://127.0.0.1:{port}"))
            .env("STOA_LOG", "info")
            .arg("serve")
            .stdout(Stdio::null())
            .stderr(
                std::fs::File::create(target.dir.join("serve.log"))
                    .map(Stdio::from)
                    .unwrap_or_else(|_| Stdio::null()),
            )
            .spawn()
            .expect("serve"),
        port,
    );
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(30) {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            let (s, _) = http(port, "GET", "/ready", None);
            if s == 200 {
                return served;
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("stoa serve did not start on the imported database");
}

const SIGN_IN: &str = "/api/rbac/subjects/authentication/email-and-password/authentication";

/// The imported site serves its pages with their titles, and an SPS account signs in with its
/// old password (its bcrypt hash replaced by argon2id then).
fn check_served(target: &Target) -> Served {
    let s = serve(target);
    let (status, body) = http(s.1, "GET", "/en/", None);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("Trees for the planet"), "{body}");
    for (path, title) in [
        ("/en/blog", "Trees for the planet — blog"),
        (
            "/en/blog/trees-clean-the-air",
            "Trees for the planet — article",
        ),
    ] {
        let (status, body) = http(s.1, "GET", path, None);
        assert_eq!(status, 200, "{path}: {body}");
        assert!(body.contains(title), "{path}: {body}");
    }
    // A file copied from --files is served from Stoa's storage.
    let (status, body) = http(s.1, "GET", "/files/sps/young-oak.png", None);
    assert_eq!(status, 200, "{body}");
    // A visitor reads a public file's row, not a buyer's receipt or a chat's photo.
    let file =
        |id: &str| format!("/api/file-storage/files/00000000-0000-4000-8000-04900000000{id}");
    for public in ["2", "3"] {
        let (status, body) = http(s.1, "GET", &file(public), None);
        assert_eq!(status, 200, "{body}");
    }
    for private in ["5", "6"] {
        let (status, body) = http(s.1, "GET", &file(private), None);
        assert_eq!(status, 404, "a visitor read file {private}: {body}");
    }
    let (status, body) = http(s.1, "GET", "/api/file-storage/files?limit=100", None);
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains("young-oak")
            && !body.contains("receipt-1001")
            && !body.contains("chat-photo"),
        "{body}"
    );
    // The start saw the imported bcrypt hashes: from the first check on, every check pays for
    // both kinds (the equal-timing rule), not only after an imported account is met.
    let log = std::fs::read_to_string(target.dir.join("serve.log")).unwrap_or_default();
    assert!(
        log.contains("bcrypt passwords from the original system are kept"),
        "the start did not notice the imported hashes:\n{log}"
    );
    let wrong = json!({"login": "olga@example.com", "password": "not-her-password"});
    let (status, refused) = http(s.1, "POST", SIGN_IN, Some(&wrong));
    assert_eq!(status, 401, "{refused}");
    let nobody = json!({"login": "nobody@example.com", "password": "not-her-password"});
    let (status, native) = http(s.1, "POST", SIGN_IN, Some(&nobody));
    assert_eq!(status, 401, "{native}");
    let message = |r: &str| {
        r.split("\r\n\r\n")
            .nth(1)
            .and_then(|b| serde_json::from_str::<Value>(b.trim()).ok())
            .map(|v| v["error"].clone())
    };
    assert_eq!(message(&refused), message(&native), "{refused}\n{native}");
    let right = json!({"login": "olga@example.com", "password": "old-sps-password-1"});
    let (status, body) = http(s.1, "POST", SIGN_IN, Some(&right));
    assert_eq!(status, 201, "{body}");
    let (status, body) = http(s.1, "POST", SIGN_IN, Some(&right));
    assert_eq!(status, 201, "signed in again after the rehash: {body}");
    s
}

async fn stored_hash(target: &Target) -> String {
    query_text(
        target,
        "SELECT password FROM rbac_identity WHERE email = 'olga@example.com'",
    )
    .await
}

/// The one text `sql` answers in the target database.
async fn query_text(target: &Target, sql: &str) -> String {
    if target.url.starts_with("sqlite") {
        let c = rusqlite::Connection::open(target.dir.join("stoa.db")).expect("open");
        c.query_row(sql, [], |r| r.get::<_, String>(0))
            .expect("query")
    } else {
        let mut c = sqlx::postgres::PgConnection::connect(&target.url)
            .await
            .expect("connect");
        sqlx::query_scalar(sqlx::AssertSqlSafe(sql.to_owned()))
            .fetch_one(&mut c)
            .await
            .expect("query")
    }
}

async fn import_into(target: Target, sps: &PgDb) {
    // A role that SPS gave its root action (everything): the report names it.
    sps.exec(
        "INSERT INTO sps_rc_rs_to_as_mz2 (id, re_id, an_id) VALUES \
         ('00000000-0000-4000-8000-095000000009', '00000000-0000-4000-8000-024000000003', \
          '00000000-0000-4000-8000-022000000001')",
    )
    .await;
    let dry = target.import(&sps.url, &["--dry-run"]);
    assert_eq!(dry["dryRun"], true);
    assert!(written(&dry) > 100, "{dry}");
    assert_eq!(n(&dry["filesCopied"]), 0, "a dry run copies no file");
    let first = target.import(&sps.url, &[]);
    assert_eq!(
        written(&first),
        written(&dry),
        "the dry run foretold the writes"
    );
    check_first_report(&first, sps).await;
    assert!(
        !target
            .dir
            .join("files/sps")
            .read_dir()
            .map_or(true, |mut d| d.next().is_none())
    );
    let second = target.import(&sps.url, &[]);
    check_second_report(&first, &second);

    assert!(stored_hash(&target).await.starts_with("$2a$10$"));
    let served = check_served(&target);
    drop(served);
    assert!(stored_hash(&target).await.starts_with("$argon2id$"));

    // A row changed in SPS afterwards: `--since` reads only it, and it is updated.
    sps.exec(
        "UPDATE sps_blog_category SET title = '{\"en\":\"Forests\",\"ru\":\"Леса\"}', \
         updated_at = '2031-01-01 00:00:00' WHERE id = (SELECT id FROM sps_blog_category ORDER BY id LIMIT 1)",
    )
    .await;
    // A public file an admin hid in Stoa since, changed in SPS: updated, and still hidden (the
    // import's own pass leaves it, as public records link it).
    let forest = "'00000000-0000-4000-8000-049000000003'";
    let hid = query_text(
        &target,
        &format!(
            "UPDATE file_storage_file SET hidden = (1 = 1) WHERE id = {forest} RETURNING 'hid'"
        ),
    )
    .await;
    assert_eq!(hid, "hid");
    sps.exec(&format!(
        "UPDATE sps_f_s_file SET alt = 'Pines at dawn', updated_at = '2031-01-01 00:00:00' WHERE id = {forest}"
    ))
    .await;
    let since = target.import(&sps.url, &["--since", "2030-01-01T00:00:00Z"]);
    let cat = table(&since, "sps_blog_category");
    assert_eq!((n(&cat["read"]), n(&cat["updated"])), (1, 1), "{since}");
    let files = table(&since, "sps_f_s_file");
    assert_eq!((n(&files["read"]), n(&files["updated"])), (1, 1), "{since}");
    assert_eq!(written(&since), 2, "{since}");
    assert_eq!(
        query_text(
            &target,
            &format!(
                "SELECT CASE WHEN hidden THEN 'hidden ' ELSE 'shown ' END || alt FROM file_storage_file WHERE id = {forest}"
            )
        )
        .await,
        "hidden Pines at dawn",
        "an update showed the file the admin hid"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn imports_into_sqlite() {
    let Some(admin) = admin_url() else { return };
    let sps = PgDb::sps(&admin).await;
    import_into(Target::sqlite(), &sps).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn imports_into_postgres() {
    let Some(admin) = admin_url() else { return };
    let sps = PgDb::sps(&admin).await;
    import_into(Target::postgres(&admin).await, &sps).await;
}

/// Every row the import wrote (the ledger's entries kept under their SPS id), as text, and the
/// ledger without its times: Stoa's own seeded rows differ between two databases, these must not.
fn dump(target: &Target) -> Vec<String> {
    let c = rusqlite::Connection::open(target.dir.join("stoa.db")).expect("open");
    let registry = stoa_server::registry().expect("registry");
    let mut st = c
        .prepare("SELECT entity, sps_id, stoa_id, fingerprint FROM stoa_import_sps ORDER BY entity, sps_id")
        .expect("ledger");
    let ledger: Vec<(String, String, String, String)> = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .expect("ledger rows")
        .map(|r| r.expect("row"))
        .collect();
    // A row merged into one Stoa seeded itself has that database's own id: named by the SPS id.
    let merged: Vec<(String, String)> = ledger
        .iter()
        .filter(|(_, s, t, _)| s != t)
        .map(|(_, s, t, _)| (t.clone(), format!("merged-into-stoa({s})")))
        .collect();
    let mut out = Vec::new();
    for (entity, sps_id, stoa_id, fingerprint) in &ledger {
        if sps_id != stoa_id {
            out.push(format!("ledger {entity} {sps_id} merged {fingerprint}"));
            continue;
        }
        out.push(format!("ledger {entity} {sps_id} {stoa_id} {fingerprint}"));
        let e = registry.by_key(entity).expect("entity");
        let mut st = c
            .prepare(&format!("SELECT * FROM \"{}\" WHERE id = ?1", e.table))
            .expect("select");
        let cols = st.column_count();
        let row = st
            .query_row([stoa_id], |r| {
                let mut line = e.table.clone();
                for i in 0..cols {
                    let v: rusqlite::types::Value = r.get(i)?;
                    line.push_str(&format!(" {v:?}"));
                }
                Ok(line)
            })
            .expect("the row the ledger names");
        out.push(
            merged
                .iter()
                .fold(row, |line, (id, name)| line.replace(id.as_str(), name)),
        );
    }
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_killed_halfway_resumes_to_the_same_end() {
    let Some(admin) = admin_url() else { return };
    let sps = PgDb::sps(&admin).await;
    let whole = Target::sqlite();
    whole.import(&sps.url, &[]);

    let killed = Target::sqlite();
    let out = killed
        .stoa()
        .args(["import", "sps", "--from", &sps.url, "--json", "--files"])
        .arg(fixture_files())
        .env("STOA_IMPORT_ABORT_AFTER", "150")
        .output()
        .expect("run");
    assert!(!out.status.success(), "the run was meant to die halfway");
    let resumed = killed.import(&sps.url, &[]);
    let created: u64 = tables(&resumed).iter().map(|t| n(&t["created"])).sum();
    assert!(created > 0 && n(&resumed["filesCopied"]) <= 5, "{resumed}");
    let unchanged: u64 = tables(&resumed).iter().map(|t| n(&t["unchanged"])).sum();
    assert!(
        unchanged >= 100,
        "the rows written before the crash are kept: {resumed}"
    );
    let (a, b) = (dump(&whole), dump(&killed));
    let (only_a, only_b): (Vec<_>, Vec<_>) = (
        a.iter().filter(|l| !b.contains(l)).collect(),
        b.iter().filter(|l| !a.contains(l)).collect(),
    );
    assert!(
        only_a.is_empty() && only_b.is_empty(),
        "only in the whole run: {only_a:#?}\nonly in the resumed one: {only_b:#?}"
    );
    assert!(a.len() > 200);
}

/// An unsigned PUT to moto (it takes them): a bucket, or an object's bytes.
fn s3_put(port: u16, path: &str, body: &[u8]) -> u16 {
    let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) else {
        return 0;
    };
    s.set_read_timeout(Some(Duration::from_secs(5))).ok();
    let head = format!(
        "PUT {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    if s.write_all(head.as_bytes())
        .and_then(|()| s.write_all(body))
        .is_err()
    {
        return 0;
    }
    let mut out = String::new();
    s.read_to_string(&mut out).ok();
    out.split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0)
}

/// `--files s3://bucket/prefix`: SPS's files read from a bucket (with Stoa's S3 settings) and
/// copied into Stoa's own storage.
#[tokio::test(flavor = "multi_thread")]
async fn files_come_from_an_s3_bucket() {
    let Some(admin) = admin_url() else { return };
    let moto = stoa_testkit::s3::start_s3("sps-files").await;
    let port = moto.port();
    for f in std::fs::read_dir(fixture_files()).expect("files") {
        let f = f.expect("file");
        let name = f.file_name().to_string_lossy().into_owned();
        let bytes = std::fs::read(f.path()).expect("read");
        assert_eq!(
            s3_put(port, &format!("/sps-files/static/{name}"), &bytes),
            200
        );
    }
    let sps = PgDb::sps(&admin).await;
    let target = Target::sqlite();
    let out = target
        .stoa()
        .args([
            "import",
            "sps",
            "--from",
            &sps.url,
            "--json",
            "--files",
            "s3://sps-files/static",
        ])
        .env("STOA_S3_ENDPOINT", &moto.endpoint)
        .env("STOA_S3_ACCESS_KEY_ID", "test")
        .env("STOA_S3_SECRET_ACCESS_KEY", "test")
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("report");
    assert_eq!(n(&report["filesCopied"]), 5, "{report}");
    let copied = std::fs::read(target.dir.join("files/sps/young-oak.png")).expect("copied");
    assert_eq!(
        copied,
        std::fs::read(fixture_files().join("young-oak.png")).expect("original")
    );
}

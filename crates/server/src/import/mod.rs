//! `stoa import sps`: the original system's database (SinglePageStartup, DOMAIN §2) into Stoa.
//!
//! Every SPS table with a Stoa counterpart is read in id order, a page at a time, and each row is
//! written with its id, timestamps, variant, order index and slug kept. A ledger table in Stoa's
//! database (`stoa_import_sps`) records, in the same transaction as the row, the row's fingerprint
//! (a hash of the SPS row as PostgreSQL serialises it) and the Stoa id it went to: a second run
//! leaves rows whose fingerprint did not change alone (writing nothing), updates the ones that
//! did, and a run killed halfway resumes where its last transaction ended. Rows Stoa refuses —
//! a rich-text document it does not accept, a link to a row that was not imported, a value its
//! rules reject — are skipped and reported with their id and reason, never changed to fit.
//!
//! Tables go in the order their references need (a link after both of its ends). Roles,
//! currencies, notification topics and templates, and route permissions that Stoa already has
//! under the same slug (or method and path) are merged into Stoa's record: the SPS id is mapped
//! to it, so links to them follow.

mod private;
pub mod report;
mod rows;
mod source;
pub mod tables;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use sha2::Digest;
use stoa_kernel::model::{Entity, Kind};
use stoa_kernel::value::Val;
use stoa_store::{Exec, Link, Store};
use uuid::Uuid;

use crate::Config;
use report::{Report, Skipped, Table};
use rows::{Plan, Prepared};
use source::Source;

/// Bumped when the importer writes rows differently: every row is then compared again.
const IMPORTER_VERSION: &str = "1";

/// What `stoa import sps` was asked.
pub struct Options {
    /// `postgres://…` of the SPS database (read only).
    pub from: String,
    /// Where SPS kept its files: a folder, or `s3://bucket[/prefix]` (with Stoa's S3 settings).
    pub files: Option<String>,
    pub dry_run: bool,
    /// Only rows changed after this time (RFC 3339).
    pub since: Option<String>,
}

/// Progress as the import goes: a table started (`done` 0) or more of its rows done.
pub struct Progress<'a> {
    pub table: &'a str,
    pub index: usize,
    pub tables: usize,
    pub done: u64,
    pub total: u64,
}

/// SPS tables whose rows have no meaning in Stoa, with the reason the report gives.
const LEFT_OUT: &[(&str, &str)] = &[
    (
        "rbac.session",
        "SPS sessions were never used and hold no token: accounts sign in again",
    ),
    (
        "rbac.subjects-to-sessions",
        "SPS sessions were never used and hold no token: accounts sign in again",
    ),
];

/// Runs the import into the database `config` names (migrating it first, as `serve` does).
pub async fn run(
    config: &Config,
    opts: &Options,
    progress: &mut (dyn FnMut(Progress<'_>) + Send),
) -> anyhow::Result<Report> {
    let since = match &opts.since {
        None => None,
        Some(s) => Some(naive_utc(s).ok_or_else(|| {
            anyhow::anyhow!(
                "--since must be an RFC 3339 time such as 2025-01-31T00:00:00Z, not '{s}'"
            )
        })?),
    };
    let source = Source::connect(&opts.from).await?;
    let shapes = source.shapes().await?;
    let platform = crate::prepare(config).await?;
    let store = platform.store.clone();
    let files = match &opts.files {
        None => None,
        Some(f) => Some(rows::Files::open(f, config)?),
    };
    let target = platform
        .ctx
        .need::<stoa_file_storage::Files>()
        .map_err(anyhow::Error::msg)?;
    let routes: Vec<(String, String)> = platform
        .ctx
        .operations()
        .iter()
        .map(|o| (o.method.to_owned(), o.path.clone()))
        .collect();

    let plans = rows::plans(&store, &shapes)?;
    let mut report = Report {
        dry_run: opts.dry_run,
        ..Default::default()
    };
    let mut importer = Importer {
        store: store.clone(),
        ledger: Ledger::load(&store).await?,
        remap: HashMap::new(),
        routes,
        files,
        target,
        dry_run: opts.dry_run,
        written: HashSet::new(),
        abort_after: std::env::var("STOA_IMPORT_ABORT_AFTER")
            .ok()
            .and_then(|v| v.parse().ok()),
        files_copied: 0,
        dry_tx: None,
    };
    importer.remap = importer.ledger.remaps();
    let n = plans.len();
    for (index, plan) in plans.iter().enumerate() {
        let mut t = Table {
            table: plan.table.clone(),
            entity: plan.entity.as_ref().map(|e| e.key()).unwrap_or_default(),
            ..Default::default()
        };
        let left_out = LEFT_OUT.iter().find(|(k, _)| *k == plan.sps_key);
        if left_out.is_none() {
            t.warnings.extend(plan.warnings.iter().cloned());
        }
        let Some(entity) = plan.entity.clone() else {
            report.tables.push(t);
            continue;
        };
        if let Some((_, why)) = left_out {
            let total = source.count(&plan.table, since.as_deref()).await?;
            t.read = u64::try_from(total).unwrap_or(0);
            t.entity.clear();
            let mut after = None;
            loop {
                let page = source.page(&plan.table, since.as_deref(), after).await?;
                let Some(last) = page.last() else { break };
                after = rows::id_of(&last.0);
                for (row, _) in &page {
                    t.skipped.push(Skipped {
                        id: rows::id_text(row),
                        reason: (*why).to_owned(),
                    });
                }
            }
            report.tables.push(t);
            continue;
        }
        let total = u64::try_from(source.count(&plan.table, since.as_deref()).await?)?;
        progress(Progress {
            table: &plan.table,
            index,
            tables: n,
            done: 0,
            total,
        });
        let mut after = None;
        loop {
            let page = source.page(&plan.table, since.as_deref(), after).await?;
            let Some(last) = page.last() else { break };
            after = rows::id_of(&last.0);
            importer.page(plan, &entity, &page, &mut t).await?;
            progress(Progress {
                table: &plan.table,
                index,
                tables: n,
                done: t.read,
                total,
            });
        }
        report.tables.push(t);
    }
    drop(importer.dry_tx.take());
    report.files_copied = importer.files_copied;
    // Receipts and chat attachments were public rows in SPS: hidden once every link is in
    // (the links this and earlier runs imported: the ledger as it is now). Files::hide writes
    // through the store, which counts the change itself.
    let hidden = if opts.dry_run {
        Ok(0)
    } else {
        match Ledger::load(&store).await {
            Ok(ledger) => {
                let imported = |key: &str| -> HashSet<Uuid> {
                    ledger
                        .rows
                        .iter()
                        .filter(|((e, _), _)| e == key)
                        .map(|(_, (stoa, _))| *stoa)
                        .collect()
                };
                private::hide(&store, &importer.target, &imported, &mut report).await
            }
            Err(e) => Err(e),
        }
    };
    for key in &importer.written {
        if let Ok(e) = store.entity(key) {
            store.touch(&e);
        }
    }
    report.files_hidden = hidden?;
    source.close().await;
    store.db.close().await;
    Ok(report)
}

/// An RFC 3339 time as PostgreSQL's `timestamp` (no zone; SPS wrote UTC) reads it.
fn naive_utc(s: &str) -> Option<String> {
    let t = stoa_kernel::value::parse_timestamp(s)?;
    let f = time::macros::format_description!(
        "[year]-[month]-[day] [hour]:[minute]:[second].[subsecond digits:6]"
    );
    t.format(&f).ok()
}

/// What was imported before: SPS row → (Stoa id, fingerprint), per Stoa entity.
struct Ledger {
    rows: HashMap<(String, Uuid), (Uuid, String)>,
}

const LEDGER_DDL: &str = "CREATE TABLE IF NOT EXISTS stoa_import_sps (\
    entity TEXT NOT NULL, sps_id TEXT NOT NULL, stoa_id TEXT NOT NULL, \
    fingerprint TEXT NOT NULL, imported_at TEXT NOT NULL, PRIMARY KEY (entity, sps_id))";

const LEDGER_PUT: &str = "INSERT INTO stoa_import_sps (entity, sps_id, stoa_id, fingerprint, imported_at) \
    VALUES ($1, $2, $3, $4, $5) ON CONFLICT (entity, sps_id) DO UPDATE SET \
    stoa_id = excluded.stoa_id, fingerprint = excluded.fingerprint, imported_at = excluded.imported_at";

impl Ledger {
    async fn load(store: &Store) -> anyhow::Result<Self> {
        let mut tx = store.begin().await?;
        exec_sql(&mut tx.exec(), LEDGER_DDL, &[]).await?;
        tx.commit().await?;
        let mut c = store.db.read().await?;
        let sql = "SELECT entity, sps_id, stoa_id, fingerprint FROM stoa_import_sps";
        let raw: Vec<(String, String, String, String)> = match c.exec().link {
            Link::Sqlite(c) => {
                let mut st = c.prepare(sql)?;
                st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
                    .collect::<rusqlite::Result<Vec<_>>>()?
            }
            Link::Postgres(c) => sqlx::query_as(sql).fetch_all(&mut *c).await?,
        };
        let mut rows = HashMap::new();
        for (e, s, t, f) in raw {
            if let (Ok(s), Ok(t)) = (Uuid::parse_str(&s), Uuid::parse_str(&t)) {
                rows.insert((e, s), (t, f));
            }
        }
        Ok(Self { rows })
    }

    fn remaps(&self) -> HashMap<(String, Uuid), Uuid> {
        self.rows
            .iter()
            .filter(|(k, v)| k.1 != v.0)
            .map(|(k, v)| (k.clone(), v.0))
            .collect()
    }
}

async fn exec_sql(exec: &mut Exec<'_>, sql: &str, args: &[String]) -> anyhow::Result<()> {
    match &mut exec.link {
        Link::Sqlite(c) => {
            c.prepare_cached(sql)?
                .execute(rusqlite::params_from_iter(args.iter()))?;
        }
        Link::Postgres(c) => {
            let mut q = sqlx::query(sqlx::AssertSqlSafe(sql.to_owned()));
            for a in args {
                q = q.bind(a.clone());
            }
            q.execute(&mut **c).await?;
        }
    }
    Ok(())
}

struct Importer {
    store: Store,
    ledger: Ledger,
    /// SPS id → the Stoa record it was merged into, per Stoa entity.
    remap: HashMap<(String, Uuid), Uuid>,
    /// Stoa's operations, `(METHOD, /api/path/{param})`: what an SPS action must name.
    routes: Vec<(String, String)>,
    files: Option<rows::Files>,
    target: Arc<stoa_file_storage::Files>,
    dry_run: bool,
    written: HashSet<String>,
    /// Testing a crash: the process aborts after this many rows, mid-transaction.
    abort_after: Option<u64>,
    files_copied: u64,
    /// A dry run's one transaction, never committed.
    dry_tx: Option<stoa_store::Tx>,
}

enum Outcome {
    Created,
    Updated,
    Merged,
}

impl Importer {
    async fn page(
        &mut self,
        plan: &Plan,
        e: &Arc<Entity>,
        page: &[(serde_json::Map<String, serde_json::Value>, String)],
        t: &mut Table,
    ) -> anyhow::Result<()> {
        // A dry run writes everything in one transaction, rolled back at the end, so each row
        // meets the rows before it as the real run would.
        let mut tx = match self.dry_tx.take() {
            Some(tx) => tx,
            None => self.store.begin().await?,
        };
        for (row, text) in page {
            t.read += 1;
            let id = rows::id_text(row);
            let Some(sps_id) = rows::id_of(row) else {
                t.skipped.push(Skipped {
                    id,
                    reason: "the id is not a uuid".into(),
                });
                continue;
            };
            let fingerprint = fingerprint(text);
            let key = e.key();
            if let Some((_, f)) = self.ledger.rows.get(&(key.clone(), sps_id))
                && *f == fingerprint
            {
                t.unchanged += 1;
                continue;
            }
            if let Some(n) = self.abort_after.as_mut() {
                if *n == 0 {
                    eprintln!("STOA_IMPORT_ABORT_AFTER reached: aborting mid-transaction");
                    std::process::abort();
                }
                *n -= 1;
            }
            let mut exec = tx.exec();
            let level = exec.begin_nested().await?;
            match self
                .row(&mut exec, plan, e, sps_id, row, &fingerprint, t)
                .await
            {
                Ok(outcome) => {
                    exec.end_nested(level, true).await?;
                    match outcome {
                        Outcome::Created => t.created += 1,
                        Outcome::Updated => t.updated += 1,
                        Outcome::Merged => t.merged += 1,
                    }
                }
                Err(reason) => {
                    exec.end_nested(level, false).await?;
                    t.skipped.push(Skipped { id, reason });
                }
            }
        }
        if self.dry_run {
            self.dry_tx = Some(tx);
        } else {
            tx.commit().await?;
        }
        Ok(())
    }

    /// One row: prepared, checked, written with its ledger entry. `Err` is the reason it was
    /// skipped (its savepoint is rolled back).
    #[allow(clippy::too_many_arguments)] // one row's whole context; a struct would only rename them
    async fn row(
        &mut self,
        exec: &mut Exec<'_>,
        plan: &Plan,
        e: &Arc<Entity>,
        sps_id: Uuid,
        row: &serde_json::Map<String, serde_json::Value>,
        fingerprint: &str,
        t: &mut Table,
    ) -> Result<Outcome, String> {
        let key = e.key();
        let Prepared { input, mut own } = rows::prepare(plan, e, row, &self.remap, t)?;
        // A record Stoa already has under the same name takes the SPS id's place.
        if let Some(existing) = self.existing_twin(exec, plan, e, &input, sps_id).await? {
            self.remap.insert((key.clone(), sps_id), existing);
            self.put_ledger(exec, &key, sps_id, existing, fingerprint)
                .await?;
            return Ok(Outcome::Merged);
        }
        if plan.sps_key == "rbac.action" {
            rows::check_route(&input, &self.routes)?;
        }
        if key == "file-storage.file" {
            self.copy_file(&input, &mut own, t).await?;
        }
        let mut vals = stoa_kernel::value::prepare_create(e, &input).map_err(describe)?;
        for (i, v) in own {
            match vals.iter_mut().find(|(j, _)| *j == i) {
                Some(slot) => slot.1 = v,
                None => vals.push((i, v)),
            }
        }
        for (i, v) in &vals {
            let f = &e.fields[*i];
            if f.kind != Kind::Reference {
                continue;
            }
            let (Val::Uuid(id), Some(target)) = (v, f.target) else {
                continue;
            };
            let te = self.store.entity(target).map_err(describe)?;
            if stoa_store::repo::get(exec, &te, *id)
                .await
                .map_err(describe)?
                .is_none()
            {
                return Err(format!(
                    "{} points to {target} {id}, which is not in Stoa (not in SPS, or skipped)",
                    f.name
                ));
            }
        }
        let before = stoa_store::repo::get(exec, e, sps_id)
            .await
            .map_err(describe)?;
        // Only a record this import made (the ledger says so) is updated: anything else with
        // the same id is Stoa's own and stays as it is.
        let ours = self
            .ledger
            .rows
            .get(&(key.clone(), sps_id))
            .is_some_and(|(stoa, _)| *stoa == sps_id);
        let outcome = match before {
            None => {
                stoa_store::repo::insert(exec, e, &vals)
                    .await
                    .map_err(describe)?;
                Outcome::Created
            }
            Some(_) if !ours => {
                return Err(format!(
                    "Stoa already has a {key} with this id that no import made; left as it is"
                ));
            }
            Some(_) => {
                // A password is never written over: the account may have signed in (its hash
                // is argon2id now) or reset it in Stoa since the first import.
                if vals.iter().any(|(i, _)| e.fields[*i].secret) {
                    t.warn(
                        "password: a change in SPS after the first import is not carried over; Stoa keeps the account's current password",
                    );
                }
                // Nor is the hidden flag: SPS has none, and Stoa's (a receipt's) stays.
                let vals: Vec<(usize, Val)> = vals
                    .into_iter()
                    .filter(|(i, _)| {
                        let f = &e.fields[*i];
                        f.name != "id" && !f.secret && f.name != stoa_kernel::model::HIDDEN
                    })
                    .collect();
                stoa_store::repo::update(exec, e, sps_id, &vals)
                    .await
                    .map_err(describe)?;
                Outcome::Updated
            }
        };
        if key == "rbac.roles-to-permissions" {
            self.root_grant(exec, &input, t).await?;
        }
        self.put_ledger(exec, &key, sps_id, sps_id, fingerprint)
            .await?;
        self.written.insert(key);
        Ok(outcome)
    }

    /// A role given the root permission (`*` `*`: everything, as admins) is named in the
    /// report: it is what SPS meant, and an operator should see it.
    async fn root_grant(
        &self,
        exec: &mut Exec<'_>,
        input: &serde_json::Map<String, serde_json::Value>,
        t: &mut Table,
    ) -> Result<(), String> {
        let id = |f: &str| {
            input
                .get(f)
                .and_then(|v| v.as_str())
                .and_then(|s| Uuid::parse_str(s).ok())
        };
        let (Some(role), Some(permission)) = (id("roleId"), id("permissionId")) else {
            return Ok(());
        };
        let pe = self.store.entity("rbac.permission").map_err(describe)?;
        let root = stoa_store::repo::get(exec, &pe, permission)
            .await
            .map_err(describe)?
            .is_some_and(|p| p.text("method") == Some("*") && p.text("path") == Some("*"));
        if root {
            let re = self.store.entity("rbac.role").map_err(describe)?;
            let name = stoa_store::repo::get(exec, &re, role)
                .await
                .map_err(describe)?
                .and_then(|r| r.text("slug").map(str::to_owned))
                .unwrap_or_else(|| role.to_string());
            t.warn(format!(
                "role '{name}' holds the root permission (* *): its accounts may do everything, as admins"
            ));
        }
        Ok(())
    }

    async fn put_ledger(
        &self,
        exec: &mut Exec<'_>,
        key: &str,
        sps_id: Uuid,
        stoa_id: Uuid,
        fingerprint: &str,
    ) -> Result<(), String> {
        exec_sql(
            exec,
            LEDGER_PUT,
            &[
                key.to_owned(),
                sps_id.to_string(),
                stoa_id.to_string(),
                fingerprint.to_owned(),
                stoa_kernel::value::format_timestamp(stoa_kernel::value::now()),
            ],
        )
        .await
        .map_err(|e| format!("recording the import failed: {e}"))
    }

    /// A record Stoa already has that this SPS row names (same slug; same method and path for
    /// a permission; the same two ends for a link), with another id.
    async fn existing_twin(
        &self,
        exec: &mut Exec<'_>,
        plan: &Plan,
        e: &Entity,
        input: &serde_json::Map<String, serde_json::Value>,
        sps_id: Uuid,
    ) -> Result<Option<Uuid>, String> {
        let eq: Vec<(usize, Val)> = match plan.merge {
            rows::Merge::No => return Ok(None),
            rows::Merge::By(fields) => {
                let mut eq = Vec::new();
                for f in fields {
                    let Some(v) = input.get(*f) else {
                        return Ok(None);
                    };
                    let i = e
                        .fields
                        .iter()
                        .position(|x| x.name == *f)
                        .ok_or_else(|| format!("no field {f}"))?;
                    eq.push((i, stoa_kernel::value::coerce(&e.fields[i], v)?));
                }
                eq
            }
        };
        let found = stoa_store::repo::find_eq(exec, e, &eq)
            .await
            .map_err(describe)?;
        Ok(found.and_then(|r| r.uuid("id")).filter(|id| *id != sps_id))
    }

    /// Copies an SPS file into Stoa's storage and points the row at it (`file` rewritten). A
    /// file the source does not have keeps its address, with a warning.
    async fn copy_file(
        &mut self,
        input: &serde_json::Map<String, serde_json::Value>,
        own: &mut Vec<(usize, Val)>,
        t: &mut Table,
    ) -> Result<(), String> {
        let Some(address) = input.get("file").and_then(|v| v.as_str()) else {
            return Ok(());
        };
        let Some(files) = &self.files else {
            t.warn("no --files given: file rows keep the SPS addresses, which Stoa does not serve");
            return Ok(());
        };
        let shown = address.split(['?', '#']).next().unwrap_or("");
        let Some((name, key)) = rows::file_key(address) else {
            t.warn(format!(
                "{shown}: not a file name Stoa can keep (letters, digits, '-', '_', '.', '/'); the row keeps the address"
            ));
            return Ok(());
        };
        let Some(bytes) = files.read(&name).await? else {
            t.warn(format!(
                "{shown}: not found in --files ({name}); the row keeps the address"
            ));
            return Ok(());
        };
        if !self.dry_run {
            self.target
                .storage
                .put(&key, bytes)
                .await
                .map_err(describe)?;
            self.files_copied += 1;
        }
        let e = self.store.entity("file-storage.file").map_err(describe)?;
        if let Some(i) = e.fields.iter().position(|f| f.name == "file") {
            own.push((i, Val::Text(format!("/files/{key}"))));
        }
        Ok(())
    }
}

fn fingerprint(text: &str) -> String {
    let mut h = sha2::Sha256::new();
    h.update(IMPORTER_VERSION.as_bytes());
    h.update(b"\0");
    h.update(text.as_bytes());
    hex::encode(&h.finalize()[..16])
}

/// A Stoa error as a reason in the report: its message and the fields it names.
fn describe(e: stoa_kernel::Error) -> String {
    match e {
        stoa_kernel::Error::Invalid { message, fields } if !fields.is_empty() => {
            let named: Vec<String> = fields
                .iter()
                .map(|(f, m)| format!("{f}: {}", m.join("; ")))
                .collect();
            let named = named.join(", ");
            if named.contains(&message) {
                named
            } else {
                format!("{message} ({named})")
            }
        }
        other => other.public_message(),
    }
}

//! `stoa`: serve the platform, migrate the database, print the configuration.
#![forbid(unsafe_code)]

use std::io::Write;

use clap::{Parser, Subcommand};
use stoa_server::Config;

/// mimalloc: glibc malloc spent ~45% of CPU on list responses (fragmentation and
/// `malloc_consolidate` on growing response buffers); see docs/benchmarks.md.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "stoa",
    version,
    about = "Stoa: content, commerce and community platform"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    config: Config,
}

#[derive(Subcommand)]
enum Command {
    /// Migrate the database and serve HTTP (the default).
    Serve,
    /// Bring the database schema up to the declarations.
    Migrate {
        /// Print the statements without running them.
        #[arg(long)]
        plan: bool,
    },
    /// Print the effective configuration (secrets redacted).
    Config,
    /// Copy the database to FILE while the server keeps serving (SQLite: a consistent online
    /// copy; PostgreSQL: `pg_dump --format=custom`, needs the PostgreSQL client tools).
    Backup { file: std::path::PathBuf },
    /// Replace the database with the backup FILE. SQLite: stop the server first; the current
    /// database is kept as `<db>.before-restore-<time>`. PostgreSQL: `pg_restore --clean`.
    Restore { file: std::path::PathBuf },
    /// Load seed data. `--demo`: the 'for planet' demo site (once per database).
    Seed {
        #[arg(long)]
        demo: bool,
    },
    /// Print the OpenAPI document (built on a throw-away database; touches nothing).
    Openapi,
    /// Import another system's database (`sps`: SinglePageStartup). See docs/migrating-from-sps.md.
    Import {
        #[command(subcommand)]
        command: ImportCommand,
    },
    /// Manage administrators.
    Admin {
        #[command(subcommand)]
        command: AdminCommand,
    },
}

#[derive(Subcommand)]
enum ImportCommand {
    /// Every SPS table with a Stoa counterpart, ids, slugs and timestamps kept. Idempotent: a
    /// second run writes nothing; a run stopped halfway resumes. Prints a report of every table.
    Sps {
        /// The SPS database: `postgres://user@host/db` (read only). Also read from
        /// `STOA_SPS_DATABASE_URL`, which keeps a password out of `ps` and the shell's history
        /// (or leave the password out and set `PGPASSWORD`).
        #[arg(long, env = "STOA_SPS_DATABASE_URL", hide_env_values = true)]
        from: String,
        /// Where SPS kept its files: a folder, or `s3://bucket[/prefix]` (read with the STOA_S3_*
        /// settings).
        #[arg(long)]
        files: Option<String>,
        /// Report what would be imported without writing anything.
        #[arg(long)]
        dry_run: bool,
        /// Only rows changed after this time (RFC 3339, e.g. 2025-01-31T00:00:00Z).
        #[arg(long)]
        since: Option<String>,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum AdminCommand {
    /// Create an account with the admin role. The password is read from stdin with
    /// `--password-stdin`; otherwise one is generated and printed once.
    Create {
        #[arg(long)]
        email: String,
        #[arg(long)]
        password_stdin: bool,
    },
}

fn generated_password() -> String {
    // 26 characters from two v4 uuids (122 random bits each), grouped for reading aloud.
    let raw: String = (0..2)
        .map(|_| uuid::Uuid::new_v4().simple().to_string())
        .collect();
    raw.as_bytes()
        .chunks(6)
        .take(4)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect::<Vec<_>>()
        .join("-")
}

fn init_logs(config: &Config) {
    let filter = tracing_subscriber::EnvFilter::try_new(&config.log)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    if config.log_format == "pretty" {
        builder.init();
    } else {
        builder
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .init();
    }
}

/// The variable that tells mimalloc how long freed memory waits before it goes back to the system.
#[cfg(all(feature = "mimalloc", target_os = "linux"))]
const PURGE_DELAY: &str = "MIMALLOC_PURGE_DELAY";

/// How long freed memory waits before mimalloc gives it back, in ms, unless the operator says.
/// mimalloc's own default (1 s, and a purge only when the thread next allocates) kept what a
/// burst of load took for long after it (195 against 52 MiB five seconds later; docs/benchmarks.md,
/// footprint). 0 gave it back at once but made every freed page a page fault again at its next
/// use: under `bench/checkout.sh` that was a tenth of the server's CPU, and 100 ms served 30 %
/// more paid checkouts (144 → 191 a second, three interleaved rounds) for ~8 MiB more right after
/// the load, back within a second (docs/benchmarks.md, "The allocator's purge delay").
#[cfg(all(feature = "mimalloc", target_os = "linux"))]
const PURGE_DELAY_MS: &str = "100";

/// mimalloc reads its purge delay from the environment when the process starts and offers no
/// safe call to change it later, so the server starts itself once more with it set (the same
/// program, `/proc/self/exe`, the same arguments and pid; a few milliseconds). An explicit
/// `MIMALLOC_PURGE_DELAY` is kept as it is.
#[cfg(all(feature = "mimalloc", target_os = "linux"))]
fn purge_promptly() {
    use std::os::unix::process::CommandExt;
    if std::env::var_os(PURGE_DELAY).is_some() {
        return;
    }
    let mut args = std::env::args_os();
    let name = args.next().unwrap_or_else(|| "stoa".into());
    let e = std::process::Command::new("/proc/self/exe")
        .arg0(name)
        .args(args)
        .env(PURGE_DELAY, PURGE_DELAY_MS)
        .exec();
    // Only reached when the exec failed: serve with mimalloc's default.
    eprintln!(
        "could not restart with {PURGE_DELAY}={PURGE_DELAY_MS} ({e}); freed memory is kept longer"
    );
}

fn main() -> anyhow::Result<()> {
    // No transparent huge pages: mimalloc asks for them on its arenas, and each 2 MiB region
    // touched was then zeroed and kept whole — at start that was half the CPU time and a third of
    // the idle memory (docs/benchmarks.md, footprint). Pages faulted from here on are 4 KiB.
    #[cfg(target_os = "linux")]
    if let Err(e) = rustix::thread::disable_transparent_huge_pages(true) {
        eprintln!("could not turn transparent huge pages off: {e}");
    }
    let cli = Cli::parse();
    #[cfg(all(feature = "mimalloc", target_os = "linux"))]
    if matches!(cli.command, None | Some(Command::Serve)) {
        purge_promptly();
    }
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(
            cli.config
                .blocking_threads
                .unwrap_or_else(|| {
                    4 * std::thread::available_parallelism().map_or(2, std::num::NonZero::get)
                })
                .max(4),
        )
        .thread_keep_alive(std::time::Duration::from_secs(2))
        .build()?
        .block_on(run(cli))
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    stoa_api::tls::install();
    let config = cli.config;
    match cli.command.unwrap_or(Command::Serve) {
        Command::Openapi => {
            let mut config = config;
            let dir = std::env::temp_dir().join(format!("stoa-openapi-{}", std::process::id()));
            std::fs::create_dir_all(&dir)?;
            config.database_url = format!("sqlite://{}", dir.join("stoa.db").display());
            config.data_dir = dir.display().to_string();
            config.jwt_secret = Some("x".repeat(32));
            let app = stoa_server::build(&config).await?;
            let store = app.store.clone();
            let res = tower::ServiceExt::oneshot(
                app.router,
                axum::http::Request::get("/api/openapi.json").body(axum::body::Body::empty())?,
            )
            .await?;
            let bytes = axum::body::to_bytes(res.into_body(), usize::MAX).await?;
            store.db.close().await;
            let _ = std::fs::remove_dir_all(&dir);
            std::io::stdout().lock().write_all(&bytes)?;
        }
        Command::Seed { demo } => {
            init_logs(&config);
            if demo {
                let n = stoa_server::seed_demo(&config).await?;
                if n == 0 {
                    println!("the demo site is already loaded");
                } else {
                    println!("loaded the demo site ({n} rows)");
                }
            } else {
                let p = stoa_server::prepare(&config).await?;
                p.store.db.close().await;
                println!("default roles, permissions and templates are in place");
            }
        }
        Command::Config => {
            println!("{}", serde_json::to_string_pretty(&config.redacted())?);
        }
        Command::Backup { file } => {
            let bytes = stoa_store::backup::backup(&config.database_url, &file)
                .await
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            println!("wrote {} ({bytes} bytes)", file.display());
        }
        Command::Restore { file } => {
            let kept = stoa_store::backup::restore(&config.database_url, &file)
                .await
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            if let Some(kept) = kept {
                println!("kept the previous database as {}", kept.display());
            }
            println!("restored {}", file.display());
        }
        Command::Migrate { plan } => {
            init_logs(&config);
            let registry = stoa_server::registry().map_err(anyhow::Error::msg)?;
            let db = stoa_server::connect(&config).await?;
            let stmts = if plan {
                stoa_store::ddl::plan(&db, &registry)
                    .await
                    .map_err(|e| anyhow::anyhow!("{e}"))?
            } else {
                stoa_server::migrate(&config, &db, &registry).await?
            };
            let mut out = std::io::stdout().lock();
            for s in &stmts {
                // A closed pipe (`| head`) is not an error worth a panic.
                if writeln!(out, "{s};").is_err() {
                    break;
                }
            }
            db.close().await;
            if !plan {
                eprintln!("applied {} statements", stmts.len());
                // Default roles, permissions and templates, once per database.
                let p = stoa_server::prepare(&config).await?;
                p.store.db.close().await;
            }
        }
        Command::Import {
            command:
                ImportCommand::Sps {
                    from,
                    files,
                    dry_run,
                    since,
                    json,
                },
        } => {
            init_logs(&config);
            let opts = stoa_server::import::Options {
                from,
                files,
                dry_run,
                since,
            };
            let tty = std::io::IsTerminal::is_terminal(&std::io::stderr());
            let mut progress = |p: stoa_server::import::Progress<'_>| {
                let width = 30;
                let filled = (p.index * width
                    + width * usize::from(p.total > 0) * usize::try_from(p.done).unwrap_or(0)
                        / usize::try_from(p.total.max(1)).unwrap_or(1))
                    / p.tables.max(1);
                let bar = format!(
                    "[{}{}] {}/{} {} {}/{}",
                    "#".repeat(filled.min(width)),
                    ".".repeat(width - filled.min(width)),
                    p.index + 1,
                    p.tables,
                    p.table,
                    p.done,
                    p.total
                );
                if tty {
                    eprint!("\r\x1b[2K{bar}");
                } else if p.done == p.total {
                    eprintln!("{bar}");
                }
            };
            let report = stoa_server::import::run(&config, &opts, &mut progress).await?;
            if tty {
                eprintln!();
            }
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                println!("{report}");
            }
        }
        Command::Admin {
            command:
                AdminCommand::Create {
                    email,
                    password_stdin,
                },
        } => {
            init_logs(&config);
            let (password, generated) = if password_stdin {
                let mut line = String::new();
                std::io::stdin().read_line(&mut line)?;
                (line.trim_end_matches(['\r', '\n']).to_owned(), false)
            } else {
                (generated_password(), true)
            };
            let id = stoa_server::create_admin(&config, &email, &password).await?;
            println!("created admin {email} (subject {id})");
            if generated {
                println!("password: {password}");
                println!("(shown once: store it now)");
            }
        }
        Command::Serve => {
            init_logs(&config);
            let app = stoa_server::build(&config).await?;
            let listener = tokio::net::TcpListener::bind(&config.addr).await?;
            stoa_server::serve(app, listener, stoa_server::shutdown_signal()).await?;
        }
    }
    Ok(())
}

//! `stoa`: serve the platform, migrate the database, print the configuration.
#![forbid(unsafe_code)]

use std::io::Write;

use clap::{Parser, Subcommand};
use stoa_server::Config;

/// mimalloc: glibc malloc spent ~45% of CPU on list responses (fragmentation and
/// `malloc_consolidate` on growing response buffers); see docs/benchmarks.md.
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

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let config = cli.config;
    match cli.command.unwrap_or(Command::Serve) {
        Command::Config => {
            println!("{}", serde_json::to_string_pretty(&config.redacted())?);
        }
        Command::Migrate { plan } => {
            init_logs(&config);
            let registry = stoa_server::registry().map_err(anyhow::Error::msg)?;
            let db = stoa_server::connect(&config).await?;
            let stmts = if plan {
                stoa_store::ddl::plan(&db, &registry).await
            } else {
                stoa_store::ddl::migrate(&db, &registry).await
            }
            .map_err(|e| anyhow::anyhow!("{e}"))?;
            let mut out = std::io::stdout().lock();
            for s in &stmts {
                // A closed pipe (`| head`) is not an error worth a panic.
                if writeln!(out, "{s};").is_err() {
                    break;
                }
            }
            if !plan {
                eprintln!("applied {} statements", stmts.len());
            }
            db.close().await;
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

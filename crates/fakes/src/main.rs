//! `stoa-fakes --kind <name> [--port N] [--webhook-url URL]`: starts one fake provider with the fixed test
//! credentials (`Creds::test`), prints `listening http://127.0.0.1:PORT` as its first line, then one
//! `env NAME=VALUE` line per server setting (`Creds::env`) and `ready`, and runs until killed.

use std::io::Write as _;
use std::net::SocketAddr;

use stoa_fakes::{Creds, Fake, Kind};

const USAGE: &str = "usage: stoa-fakes --kind <stripe|cloudpayments|tiptoppay|payselection|payselection-international|paykeeper|0xprocessing|oidc|chat> [--port N] [--webhook-url URL]";

struct Args {
    kind: Kind,
    port: u16,
    webhook_url: Option<String>,
}

fn parse(mut it: impl Iterator<Item = String>) -> Result<Args, String> {
    let (mut kind, mut port, mut webhook_url) = (None, 0u16, None);
    while let Some(a) = it.next() {
        let (name, inline) = match a.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
            _ => (a.clone(), None),
        };
        let mut value = |n: &str| {
            inline
                .clone()
                .or_else(|| it.next())
                .ok_or_else(|| format!("{n} needs a value"))
        };
        match name.as_str() {
            "--kind" => {
                let v = value("--kind")?;
                kind = Some(Kind::parse(&v).ok_or_else(|| format!("unknown kind {v:?}"))?);
            }
            "--port" => {
                let v = value("--port")?;
                port = v.parse().map_err(|_| format!("bad port {v:?}"))?;
            }
            "--webhook-url" => webhook_url = Some(value("--webhook-url")?),
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(Args {
        kind: kind.ok_or("--kind is required")?,
        port,
        webhook_url,
    })
}

/// Prints where a fake listens and the server settings that point at it, then serves until
/// interrupted (what the e2e harness reads).
async fn announce_and_wait(listening: &str, env: &[(&str, &str)]) -> std::process::ExitCode {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "listening {listening}");
    for (k, v) in env {
        let _ = writeln!(out, "env {k}={v}");
    }
    let _ = writeln!(out, "ready");
    let _ = out.flush();
    drop(out);
    let _ = tokio::signal::ctrl_c().await;
    std::process::ExitCode::SUCCESS
}

/// `--kind oidc`: the fake OpenID Connect provider (on a free port).
async fn oidc() -> std::process::ExitCode {
    match stoa_fakes::oidc::OidcFake::start().await {
        Ok(f) => {
            announce_and_wait(
                &f.issuer,
                &[
                    ("STOA_OIDC_ISSUER", &f.issuer),
                    ("STOA_OIDC_CLIENT_ID", &f.client_id),
                    ("STOA_OIDC_CLIENT_SECRET", &f.client_secret),
                    ("STOA_OIDC_NAME", "Example ID"),
                ],
            )
            .await
        }
        Err(e) => {
            eprintln!("stoa-fakes: the OIDC fake did not start: {e}");
            std::process::ExitCode::from(1)
        }
    }
}

/// `--kind chat`: the fake chat-completions API (on a free port).
async fn chat() -> std::process::ExitCode {
    match stoa_fakes::chat_completions::ChatFake::start().await {
        Ok(f) => {
            announce_and_wait(
                &f.base,
                &[("STOA_AI_BASE_URL", &f.base), ("STOA_AI_API_KEY", &f.key)],
            )
            .await
        }
        Err(e) => {
            eprintln!("stoa-fakes: the chat-completions fake did not start: {e}");
            std::process::ExitCode::from(1)
        }
    }
}

/// Whether the command line asks for `--kind <kind>`.
fn asks_for(kind: &str) -> bool {
    std::env::args()
        .skip(1)
        .collect::<Vec<_>>()
        .windows(2)
        .any(|w| w[0] == "--kind" && w[1] == kind)
        || std::env::args().any(|a| a == format!("--kind={kind}"))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::process::ExitCode {
    if asks_for("oidc") {
        return oidc().await;
    }
    if asks_for("chat") {
        return chat().await;
    }
    let args = match parse(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("stoa-fakes: {e}");
            }
            eprintln!("{USAGE}");
            return std::process::ExitCode::from(2);
        }
    };
    let addr = SocketAddr::from(([127, 0, 0, 1], args.port));
    let fake = match Fake::start_on(args.kind, Creds::test(args.kind), addr).await {
        Ok(f) => f,
        Err(e) => {
            eprintln!("stoa-fakes: cannot listen on {addr}: {e}");
            return std::process::ExitCode::from(1);
        }
    };
    if let Some(u) = &args.webhook_url {
        fake.set_webhook_url(u);
    }
    // First line: the address. Then the server settings that point at this fake (`env NAME=VALUE`) and
    // `ready` — web/e2e/harness.mjs reads them.
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "listening {}", fake.url);
    for (k, v) in fake.creds.env(args.kind, &fake.url) {
        let _ = writeln!(out, "env {k}={v}");
    }
    let _ = writeln!(out, "ready");
    let _ = out.flush();
    drop(out);
    let _ = tokio::signal::ctrl_c().await;
    fake.stop();
    std::process::ExitCode::SUCCESS
}

//! A local SMTP sink speaking enough of RFC 5321 for a real client (lettre): EHLO/HELO, MAIL,
//! RCPT, DATA, RSET, NOOP, QUIT. Tests point `STOA_SMTP_URL` at it and read what arrived.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use tokio::sync::Notify;

#[derive(Clone, Debug)]
pub struct Mail {
    pub from: String,
    pub to: Vec<String>,
    /// Headers and body as received (dot-unstuffed).
    pub raw: String,
}

/// One leaf part of a mail: its content type (and disposition) as a header line, and its
/// decoded body.
#[derive(Clone, Debug)]
pub struct Part {
    pub head: String,
    pub body: Vec<u8>,
}

impl Mail {
    /// The mail parsed as MIME (mail-parser): panics when it is not a message at all.
    pub fn parsed(&self) -> mail_parser::Message<'_> {
        mail_parser::MessageParser::default()
            .parse(self.raw.as_bytes())
            .unwrap_or_else(|| panic!("not a MIME message: {}", self.raw))
    }

    /// The text: the first text/plain part (or the body), decoded.
    pub fn text(&self) -> String {
        self.parsed()
            .body_text(0)
            .map(|t| t.into_owned())
            .unwrap_or_default()
    }

    /// The HTML alternative, when the mail has one.
    pub fn html(&self) -> Option<String> {
        let m = self.parsed();
        m.html_body
            .first()
            .and_then(|&i| m.parts.get(i as usize))
            .filter(|p| p.is_text_html())
            .and_then(|p| p.text_contents().map(str::to_owned))
    }

    /// Every leaf part, decoded.
    pub fn parts(&self) -> Vec<Part> {
        use mail_parser::MimeHeaders;
        let m = self.parsed();
        m.parts
            .iter()
            .filter(|p| !matches!(p.body, mail_parser::PartType::Multipart(_)))
            .map(|p| {
                let ct = p
                    .content_type()
                    .map(|c| format!("{}/{}", c.ctype(), c.subtype().unwrap_or_default()))
                    .unwrap_or_default();
                Part {
                    head: format!(
                        "Content-Type: {ct}\r\nContent-Disposition: {}",
                        p.content_disposition()
                            .map(|d| d.ctype().to_owned())
                            .unwrap_or_default()
                    ),
                    body: p.contents().to_vec(),
                }
            })
            .collect()
    }

    /// The six-digit confirmation code of an email confirmation mail (its link's `code=`).
    pub fn confirmation_code(&self) -> Option<String> {
        let text = self.text();
        let at = text.find("verify-email?")?;
        let rest = &text[at..];
        let code = &rest[rest.find("code=")? + 5..];
        let digits: String = code.chars().take_while(char::is_ascii_digit).collect();
        (digits.len() == 6).then_some(digits)
    }

    /// The Subject, decoded (RFC 2047).
    pub fn subject(&self) -> Option<String> {
        self.parsed().subject().map(str::to_owned)
    }
}

#[derive(Clone, Default)]
pub struct Sink {
    pub url: String,
    mails: Arc<Mutex<Vec<Mail>>>,
    arrived: Arc<Notify>,
    /// Messages still to refuse (`u64::MAX`: refuse every one), with a 451 after DATA.
    refuse: Arc<std::sync::atomic::AtomicU64>,
    /// When each refusal happened (to check the sender backs off).
    pub refused_at: Arc<Mutex<Vec<tokio::time::Instant>>>,
    /// When each accepted mail arrived.
    pub accepted_at: Arc<Mutex<Vec<tokio::time::Instant>>>,
    /// Connections made to it (a sender that keeps its connections makes few).
    pub connections: Arc<std::sync::atomic::AtomicU64>,
}

impl Sink {
    /// Listens on a free local port.
    pub async fn start() -> Sink {
        let listener = match TcpListener::bind("127.0.0.1:0").await {
            Ok(l) => l,
            Err(e) => panic!("smtp sink bind: {e}"),
        };
        let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
        let sink = Sink {
            url: format!("smtp://127.0.0.1:{port}"),
            ..Default::default()
        };
        let s = sink.clone();
        tokio::spawn(async move {
            while let Ok((sock, _)) = listener.accept().await {
                let s = s.clone();
                s.connections
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                tokio::spawn(async move {
                    let _ = s.session(sock).await;
                });
            }
        });
        sink
    }

    async fn session(&self, sock: tokio::net::TcpStream) -> std::io::Result<()> {
        let (r, mut w) = sock.into_split();
        let mut r = BufReader::new(r);
        w.write_all(b"220 stoa-sink ESMTP\r\n").await?;
        let (mut from, mut to) = (String::new(), Vec::new());
        let mut line = String::new();
        loop {
            line.clear();
            if r.read_line(&mut line).await? == 0 {
                return Ok(());
            }
            let cmd = line.trim_end().to_owned();
            let upper = cmd.to_ascii_uppercase();
            if upper.starts_with("EHLO") {
                w.write_all(b"250-stoa-sink\r\n250-8BITMIME\r\n250 SMTPUTF8\r\n")
                    .await?;
            } else if upper.starts_with("HELO") || upper.starts_with("NOOP") {
                w.write_all(b"250 OK\r\n").await?;
            } else if upper.starts_with("RSET") {
                from.clear();
                to.clear();
                w.write_all(b"250 OK\r\n").await?;
            } else if upper.starts_with("MAIL FROM:") {
                from = addr(&cmd[10..]);
                w.write_all(b"250 OK\r\n").await?;
            } else if upper.starts_with("RCPT TO:") {
                to.push(addr(&cmd[8..]));
                w.write_all(b"250 OK\r\n").await?;
            } else if upper == "DATA" {
                w.write_all(b"354 end with <CRLF>.<CRLF>\r\n").await?;
                let mut raw = String::new();
                loop {
                    line.clear();
                    if r.read_line(&mut line).await? == 0 {
                        return Ok(());
                    }
                    if line == ".\r\n" || line == ".\n" {
                        break;
                    }
                    let l = line.strip_prefix('.').unwrap_or(&line);
                    raw.push_str(l);
                }
                let left = self.refuse.load(std::sync::atomic::Ordering::Acquire);
                if left > 0 {
                    if left != u64::MAX {
                        self.refuse
                            .store(left - 1, std::sync::atomic::Ordering::Release);
                    }
                    if let Ok(mut t) = self.refused_at.lock() {
                        t.push(tokio::time::Instant::now());
                    }
                    to.clear();
                    w.write_all(b"451 4.3.0 try again later (test sink)\r\n")
                        .await?;
                    continue;
                }
                if let Ok(mut t) = self.accepted_at.lock() {
                    t.push(tokio::time::Instant::now());
                }
                if let Ok(mut m) = self.mails.lock() {
                    m.push(Mail {
                        from: from.clone(),
                        to: std::mem::take(&mut to),
                        raw,
                    });
                }
                self.arrived.notify_waiters();
                w.write_all(b"250 OK queued\r\n").await?;
            } else if upper.starts_with("QUIT") {
                w.write_all(b"221 bye\r\n").await?;
                return Ok(());
            } else {
                w.write_all(b"502 not implemented\r\n").await?;
            }
        }
    }

    /// Refuses the next `n` messages with a temporary error (`u64::MAX`: all of them).
    pub fn refuse(&self, n: u64) {
        self.refuse.store(n, std::sync::atomic::Ordering::Release);
    }

    pub fn mails(&self) -> Vec<Mail> {
        self.mails.lock().map(|m| m.clone()).unwrap_or_default()
    }

    /// Waits up to 10 s for a mail to `to`.
    pub async fn wait_for(&self, to: &str) -> Mail {
        self.wait_for_text(to, "").await
    }

    /// The newest mail to `to` whose text holds `needle`, if one has arrived.
    pub fn newest(&self, to: &str, needle: &str) -> Option<Mail> {
        self.mails()
            .into_iter()
            .rev()
            .find(|m| m.to.iter().any(|t| t == to) && m.text().contains(needle))
    }

    /// Why [`Sink::newest`] found nothing: the texts `to` got.
    pub fn missing(&self, to: &str, needle: &str) -> String {
        let got: Vec<String> = self
            .mails()
            .iter()
            .filter(|m| m.to.iter().any(|t| t == to))
            .map(Mail::text)
            .collect();
        format!("no mail to {to} with '{needle}'; it got: {got:?}")
    }

    /// Waits up to 10 s for a mail to `to` whose text holds `needle`; the newest such mail.
    pub async fn wait_for_text(&self, to: &str, needle: &str) -> Mail {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(m) = self.newest(to, needle) {
                return m;
            }
            let wait = self.arrived.notified();
            if tokio::time::timeout_at(deadline, async {
                tokio::select! {
                    _ = wait => {},
                    _ = tokio::time::sleep(Duration::from_millis(50)) => {},
                }
            })
            .await
            .is_err()
            {
                panic!("{} within 10 s", self.missing(to, needle));
            }
        }
    }
}

fn addr(s: &str) -> String {
    s.trim()
        .trim_start_matches('<')
        .split('>')
        .next()
        .unwrap_or("")
        .to_owned()
}

//! What request bodies may cost the server, settled before a byte of them is read.
//!
//! Every request that carries a body passes [`gate`] (one layer in front of every route, so no
//! handler, check or extractor can read a body outside it):
//! - it **reserves** the body's size (its `Content-Length`, or a first step when it is sent
//!   chunked, grown as it arrives) from one [`Budget`] shared by all requests, and keeps it until
//!   the handler has answered; a body that finds no room waits at most [`BUDGET_WAIT`], then gets
//!   a 503;
//! - **large bodies cannot take it all**: bodies over 1 MiB may fill half of the budget, bodies
//!   over 64 KiB seven eighths, so small ones (a sign-in, a comment, an admin's photo) still get
//!   through while strangers hold large ones;
//! - **one address gets a share**: at most `bodies_per_address` bodies over 64 KiB at once and an
//!   eighth of the budget (at least one largest body); past either it is a 429 at once;
//! - **a body must arrive in time**: one that is not whole within `body_timeout` (plus a second
//!   per MiB it declares, at most the request timeout) is dropped with a 408, and its room given
//!   back (a client that holds back the last bytes holds nothing long).
//!
//! Connections are bounded per address before any request is parsed (the server's listener).

use std::collections::HashMap;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{Method, header};
use axum::middleware::Next;
use axum::response::Response;
use bytes::Bytes;
use http_body::{Body as HttpBody, Frame, SizeHint};
use stoa_kernel::Error;

/// Bodies up to this size (declared) are "small": they may use the whole budget.
pub const SMALL_BODY: usize = 64 << 10;

/// Bodies over this size may use only half of the budget.
pub const LARGE_BODY: usize = 1 << 20;

/// How long a body waits for room in the [`Budget`].
pub const BUDGET_WAIT: Duration = Duration::from_secs(2);

/// What a chunked body (no `Content-Length`) reserves first, and each step it grows by.
const STEP: usize = 64 << 10;

/// The bytes of bodies held at once, as a whole and per client address.
#[derive(Debug)]
pub struct Budget {
    total: usize,
    per_address: usize,
    bodies_per_address: u32,
    state: Mutex<State>,
    freed: tokio::sync::Notify,
}

#[derive(Debug, Default)]
struct State {
    used: usize,
    by_address: HashMap<IpAddr, Share>,
}

#[derive(Debug, Default, Clone, Copy)]
struct Share {
    bytes: usize,
    bodies: u32,
}

/// Why a reservation was not made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The address already holds its share.
    Address,
    /// The budget (or the part of it bodies of this size may use) is full.
    Full,
}

impl Refusal {
    fn error(self) -> Error {
        match self {
            Refusal::Address => Error::TooManyRequests {
                message: "your address is sending too many request bodies at once; wait for the others to finish".into(),
                retry_after: 2,
            },
            Refusal::Full => Error::Unavailable(
                "the server is receiving too many large bodies at once; try again shortly".into(),
            ),
        }
    }
}

impl Budget {
    /// A budget of `total` bytes (at least 1 MiB) in which one address may hold at most
    /// `bodies_per_address` bodies and an eighth of it (at least `largest`, one largest body).
    pub fn new(total: usize, bodies_per_address: u32, largest: usize) -> Self {
        let total = total.max(1 << 20);
        Self {
            total,
            per_address: (total / 8).max(largest).min(total),
            bodies_per_address: bodies_per_address.max(1),
            state: Mutex::default(),
            freed: tokio::sync::Notify::new(),
        }
    }

    /// [`Budget::new`], kept for the life of the process.
    pub fn leak(total: usize, bodies_per_address: u32, largest: usize) -> &'static Budget {
        Box::leak(Box::new(Self::new(total, bodies_per_address, largest)))
    }

    /// What bodies of `bytes` may fill of the budget together with everything else.
    fn ceiling(&self, bytes: usize) -> usize {
        if bytes <= SMALL_BODY {
            self.total
        } else if bytes <= LARGE_BODY {
            self.total / 8 * 7
        } else {
            self.total / 2
        }
    }

    /// What a body of `bytes` reserves: a body larger than its part of the budget takes all of
    /// that part.
    fn need(&self, bytes: usize) -> usize {
        bytes.max(1).min(self.ceiling(bytes))
    }

    /// `new_body`: a body over [`SMALL_BODY`] starting (small ones are not counted: they arrive
    /// with their head, and an address's small slow ones are bounded by its connections, its
    /// bytes and the body timeout).
    /// `tier`: the whole size of the body, whose part of the budget applies (a chunked body
    /// growing by small steps is still judged by its whole size).
    fn try_take(
        &self,
        ip: Option<IpAddr>,
        bytes: usize,
        tier: usize,
        new_body: bool,
    ) -> Result<(), Refusal> {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let share = ip
            .and_then(|ip| s.by_address.get(&ip).copied())
            .unwrap_or_default();
        if ip.is_some()
            && ((new_body && share.bodies >= self.bodies_per_address)
                || share.bytes + bytes > self.per_address)
        {
            return Err(Refusal::Address);
        }
        if s.used + bytes > self.ceiling(tier) {
            return Err(Refusal::Full);
        }
        s.used += bytes;
        if let Some(ip) = ip {
            let e = s.by_address.entry(ip).or_default();
            e.bytes += bytes;
            e.bodies += u32::from(new_body);
        }
        Ok(())
    }

    fn give_back(&self, ip: Option<IpAddr>, bytes: usize, body: bool) {
        {
            let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
            s.used = s.used.saturating_sub(bytes);
            if let Some(ip) = ip
                && let Some(e) = s.by_address.get_mut(&ip)
            {
                e.bytes = e.bytes.saturating_sub(bytes);
                e.bodies = e.bodies.saturating_sub(u32::from(body));
                if e.bodies == 0 && e.bytes == 0 {
                    s.by_address.remove(&ip);
                }
            }
        }
        self.freed.notify_waiters();
    }

    /// Room for a new body of `bytes` from `ip`: at once, or after waiting at most
    /// [`BUDGET_WAIT`] for other bodies to give theirs back. An address over its share is
    /// refused at once.
    pub async fn reserve(&'static self, ip: Option<IpAddr>, bytes: usize) -> Result<Held, Refusal> {
        let need = self.need(bytes);
        let deadline = tokio::time::Instant::now() + BUDGET_WAIT;
        loop {
            let freed = self.freed.notified();
            match self.try_take(ip, need, need, need > SMALL_BODY) {
                Ok(()) => {
                    return Ok(Held {
                        budget: self,
                        ip,
                        bytes: need,
                        counted: need > SMALL_BODY,
                    });
                }
                Err(Refusal::Address) => return Err(Refusal::Address),
                Err(Refusal::Full) => {
                    if tokio::time::timeout_at(deadline, freed).await.is_err() {
                        return Err(Refusal::Full);
                    }
                }
            }
        }
    }

    /// Bytes held now (tests and metrics).
    pub fn used(&self) -> usize {
        self.state.lock().unwrap_or_else(|p| p.into_inner()).used
    }
}

/// A body's room in the [`Budget`], given back when dropped.
#[derive(Debug)]
pub struct Held {
    budget: &'static Budget,
    ip: Option<IpAddr>,
    bytes: usize,
    /// Counted among its address's bodies.
    counted: bool,
}

impl Held {
    /// `more` bytes on top, without waiting (a chunked body that outgrows its reservation).
    fn grow(&mut self, more: usize) -> Result<(), Refusal> {
        let total = self.budget.need(self.bytes + more);
        if total <= self.bytes {
            return Err(Refusal::Full);
        }
        // Counted among its address's bodies once it is no longer small.
        let newly = !self.counted && total > SMALL_BODY;
        self.budget
            .try_take(self.ip, total - self.bytes, total, newly)?;
        self.counted |= newly;
        self.bytes = total;
        Ok(())
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.budget.give_back(self.ip, self.bytes, self.counted);
    }
}

/// The gate's settings.
#[derive(Debug, Clone, Copy)]
pub struct Gate {
    pub budget: &'static Budget,
    /// How long a body may take to arrive whole, plus a second per MiB it declares (at most
    /// `longest`): a 2 MiB body has 12 s, a 20 MiB upload the request's whole time.
    pub body_timeout: Duration,
    /// The longest a body may take (the request timeout).
    pub longest: Duration,
    /// The largest body any route takes: a larger declared one is a 413 before it is read.
    pub largest: usize,
}

/// Why a gated body stopped (found in the source chain of a body read's error).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    /// It did not arrive whole within the body timeout.
    TooSlow(Duration),
    /// It outgrew its reservation and the budget had no more room.
    Refused(Refusal),
}

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stopped::TooSlow(d) => write!(
                f,
                "the body did not arrive within {} s; send it at once",
                d.as_secs()
            ),
            Stopped::Refused(_) => f.write_str("the server has no room for a body this large now"),
        }
    }
}

impl std::error::Error for Stopped {}

impl Stopped {
    /// The answer for a read stopped this way.
    pub fn error(self) -> Error {
        match self {
            Stopped::TooSlow(_) => Error::Http {
                status: 408,
                code: "body_timeout",
                message: self.to_string(),
            },
            Stopped::Refused(r) => r.error(),
        }
    }
}

/// The [`Stopped`] behind a body read's error, if the gate stopped it.
pub fn stopped(e: &(dyn std::error::Error + 'static)) -> Option<Stopped> {
    let mut src: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(s) = src {
        if let Some(st) = s.downcast_ref::<Stopped>() {
            return Some(*st);
        }
        src = s.source();
    }
    None
}

/// A body read under a deadline, growing its reservation as it outgrows it.
struct Gated {
    inner: Body,
    deadline: Pin<Box<tokio::time::Sleep>>,
    timeout: Duration,
    held: Arc<Mutex<Held>>,
    /// Bytes the reservation covers without growing (the declared length: hyper refuses more).
    covered: usize,
    seen: usize,
    done: bool,
}

impl HttpBody for Gated {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let this = self.get_mut();
        if this.done {
            return Poll::Ready(None);
        }
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(d) = frame.data_ref() {
                    this.seen += d.len();
                    if this.seen > this.covered {
                        let more = (this.seen - this.covered).max(STEP);
                        let grown = this
                            .held
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .grow(more);
                        if let Err(r) = grown {
                            this.done = true;
                            return Poll::Ready(Some(Err(axum::Error::new(Stopped::Refused(r)))));
                        }
                        this.covered += more;
                    }
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(None) => {
                this.done = true;
                Poll::Ready(None)
            }
            Poll::Ready(Some(Err(e))) => Poll::Ready(Some(Err(e))),
            Poll::Pending => {
                if this.deadline.as_mut().poll(cx).is_ready() {
                    this.done = true;
                    return Poll::Ready(Some(Err(axum::Error::new(Stopped::TooSlow(
                        this.timeout,
                    )))));
                }
                Poll::Pending
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.done || self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// Whether `req` carries a body (a declared non-zero length, or a chunked one).
pub(crate) fn has_body(req: &Request) -> bool {
    let h = req.headers();
    match h.get(header::CONTENT_LENGTH) {
        Some(v) => v.as_bytes() != b"0",
        None => h.contains_key(header::TRANSFER_ENCODING),
    }
}

/// The middleware: every body reserved, bounded in time and per address before it is read.
pub async fn gate(gate: Gate, req: Request, next: Next) -> Response {
    if !has_body(&req) {
        return next.run(req).await;
    }
    if matches!(*req.method(), Method::GET | Method::HEAD) {
        // A read never reads a body: one sent would hold its room until the answer.
        return crate::error::error_response(&Error::bad_request(format!(
            "a {} request takes no body; send the parameters in the query string",
            req.method()
        )));
    }
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<usize>().ok());
    if declared.is_some_and(|n| n > gate.largest) {
        return crate::error::error_response(&Error::PayloadTooLarge(format!(
            "the body is larger than {} bytes, the most any route here takes",
            gate.largest
        )));
    }
    let ip = req
        .extensions()
        .get::<crate::rate::ClientIp>()
        .map(|c| crate::rate::address_key(c.0));
    let first = declared.unwrap_or(STEP);
    let held = match gate.budget.reserve(ip, first).await {
        Ok(h) => Arc::new(Mutex::new(h)),
        Err(r) => return crate::error::error_response(&r.error()),
    };
    let (parts, body) = req.into_parts();
    let timeout = (gate.body_timeout + Duration::from_secs((declared.unwrap_or(0) >> 20) as u64))
        .min(gate.longest.max(gate.body_timeout));
    let gated = Gated {
        inner: body,
        deadline: Box::pin(tokio::time::sleep(timeout)),
        timeout,
        held: held.clone(),
        covered: first,
        seen: 0,
        done: false,
    };
    let res = next.run(Request::from_parts(parts, Body::new(gated))).await;
    // The room is given back once the handler has answered (it may have held the body until
    // then), whatever became of the body itself.
    drop(held);
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(n: u8) -> Option<IpAddr> {
        Some(IpAddr::from([10, 0, 0, n]))
    }

    /// Large bodies fill half the budget, middling ones seven eighths; small ones the rest.
    #[tokio::test]
    async fn large_bodies_leave_room_for_small_ones() {
        let b: &'static Budget = Budget::leak(16 << 20, 32, 2 << 20);
        let mut large = Vec::new();
        for n in 0..4 {
            large.push(b.reserve(ip(n), 2 << 20).await.expect("half the budget"));
        }
        assert_eq!(
            b.try_take(ip(9), 2 << 20, 2 << 20, true),
            Err(Refusal::Full),
            "a fifth large body is over half"
        );
        let mid = b
            .reserve(ip(10), 90 << 10)
            .await
            .expect("a 90 KiB body still gets in");
        let small = b.reserve(ip(11), 1 << 10).await.expect("a small body too");
        drop((large, mid, small));
        assert_eq!(b.used(), 0, "every byte given back");
    }

    /// One address holds at most its bodies and its share of bytes; another address is not held
    /// up by it.
    #[tokio::test]
    async fn one_address_gets_a_share() {
        let b: &'static Budget = Budget::leak(64 << 20, 3, 2 << 20);
        let mut held = Vec::new();
        for _ in 0..3 {
            held.push(b.reserve(ip(1), 100 << 10).await.expect("within the count"));
        }
        assert_eq!(
            b.reserve(ip(1), 100 << 10).await.err(),
            Some(Refusal::Address)
        );
        assert!(
            b.reserve(ip(1), 1 << 10).await.is_ok(),
            "small bodies are not counted"
        );
        assert!(b.reserve(ip(2), 100 << 10).await.is_ok(), "another address");
        drop(held);
        // Bytes: an eighth of 64 MiB is 8 MiB.
        let a = b.reserve(ip(3), 2 << 20).await.expect("2 MiB");
        let c = b.reserve(ip(3), 2 << 20).await.expect("4 MiB");
        let d = b.reserve(ip(3), 2 << 20).await.expect("6 MiB");
        assert_eq!(
            b.reserve(ip(3), 3 << 20).await.err(),
            Some(Refusal::Address),
            "9 MiB is over the address's share"
        );
        drop((a, c, d));
        assert_eq!(b.used(), 0);
    }

    /// A chunked body growing by small steps is judged by its whole size: past 1 MiB it may fill
    /// only half the budget, and past 64 KiB it counts among its address's bodies.
    #[tokio::test]
    async fn a_growing_body_is_judged_by_its_whole_size() {
        let b: &'static Budget = Budget::leak(8 << 20, 1, 8 << 20);
        let mut first = b.reserve(ip(1), STEP).await.expect("a first step");
        let mut grown = STEP;
        while grown < (4 << 20) {
            first.grow(STEP).expect("up to half");
            grown += STEP;
        }
        assert_eq!(
            first.grow(STEP),
            Err(Refusal::Full),
            "past half of the budget"
        );
        // The same address's next body over 64 KiB is over its count of one.
        assert_eq!(
            b.reserve(ip(1), 100 << 10).await.err(),
            Some(Refusal::Address)
        );
        drop(first);
        assert_eq!(b.used(), 0);
    }

    /// A full budget makes a body wait, then 503; room given back lets a waiting body in.
    #[tokio::test]
    async fn a_body_waits_for_room() {
        let b: &'static Budget = Budget::leak(4 << 20, 32, 4 << 20);
        let first = b.reserve(ip(1), 2 << 20).await.expect("half of 4 MiB");
        let t = tokio::time::Instant::now();
        assert_eq!(b.reserve(ip(2), 2 << 20).await.err(), Some(Refusal::Full));
        assert!(t.elapsed() >= BUDGET_WAIT, "it waited first");
        let waiting = tokio::spawn(b.reserve(ip(3), 2 << 20));
        tokio::time::sleep(Duration::from_millis(50)).await;
        drop(first);
        let got = tokio::time::timeout(Duration::from_secs(1), waiting)
            .await
            .expect("woken when room came back")
            .expect("joined");
        assert!(got.is_ok());
    }
}

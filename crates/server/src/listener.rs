//! The listener: connections bounded per client address before any request on them is parsed,
//! and each request told the address it came from.

use std::collections::HashMap;
use std::convert::Infallible;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use axum::Router;
use axum::extract::{ConnectInfo, Request};
use axum::response::Response;
use axum::serve::{IncomingStream, Listener};
use futures::future::Either;
use stoa_api::answers::Lookup;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

/// How many connections one address may hold.
#[derive(Clone, Debug)]
pub struct Bounds {
    pub per_address: u32,
    /// How long a connection may go without the server writing to it while the client has
    /// sent something (a request head or body not answered yet), or without any traffic at all
    /// (an idle keep-alive connection): past it the connection is closed
    /// (`STOA_CONNECTION_QUIET`, 60 s: longer than a request may take, so it never cuts an
    /// answer short). It ends slow headers (hyper's own header timeout needs a timer axum does
    /// not give it), idle connections and clients that read nothing of their answer, which would
    /// otherwise hold their address's slots.
    pub quiet: std::time::Duration,
    /// Proxies in front of the server: every client comes through them, so they are not counted.
    pub trusted: Arc<Vec<ipnet::IpNet>>,
}

type Open = Arc<Mutex<HashMap<IpAddr, u32>>>;

/// A TCP listener that closes a new connection at once when its address already holds
/// [`Bounds::per_address`].
pub struct Bounded {
    inner: TcpListener,
    bounds: Bounds,
    open: Open,
    refused: u64,
}

impl Bounded {
    pub fn new(inner: TcpListener, bounds: Bounds) -> Self {
        Self {
            inner,
            bounds,
            open: Arc::default(),
            refused: 0,
        }
    }
}

impl Listener for Bounded {
    type Io = Counted;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Counted, SocketAddr) {
        loop {
            let (io, addr) = Listener::accept(&mut self.inner).await;
            if stoa_api::rate::trusted_peer(addr.ip(), &self.bounds.trusted) {
                return (Counted::new(io, None, self.bounds.quiet), addr);
            }
            let key = stoa_api::rate::address_key(addr.ip());
            {
                let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
                let n = open.entry(key).or_insert(0);
                if *n < self.bounds.per_address {
                    *n += 1;
                    drop(open);
                    let slot = Slot {
                        key,
                        open: self.open.clone(),
                    };
                    return (Counted::new(io, Some(slot), self.bounds.quiet), addr);
                }
            }
            // Closed unread: a client holding this many connections gets no more.
            drop(io);
            self.refused += 1;
            if self.refused.is_power_of_two() {
                tracing::warn!(
                    address = %key,
                    refused = self.refused,
                    per_address = self.bounds.per_address,
                    "connections refused: an address holds STOA_CONNECTIONS_PER_ADDRESS"
                );
            }
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.inner.local_addr()
    }
}

/// A connection's place in its address's count, given back when the connection closes.
struct Slot {
    key: IpAddr,
    open: Open,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(n) = open.get_mut(&self.key) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                open.remove(&self.key);
            }
        }
    }
}

/// A counted connection.
pub struct Counted {
    io: TcpStream,
    slot: Option<Slot>,
    /// When the connection is closed unless the server writes first.
    quiet: Pin<Box<tokio::time::Sleep>>,
    /// The client sent something since the server last wrote.
    asked: bool,
    /// How long the connection may be quiet.
    allowed: std::time::Duration,
}

impl Counted {
    fn new(io: TcpStream, slot: Option<Slot>, quiet: std::time::Duration) -> Self {
        Self {
            io,
            slot,
            quiet: Box::pin(tokio::time::sleep(quiet)),
            asked: false,
            allowed: quiet,
        }
    }

    /// Whether this connection is counted against its address.
    #[allow(dead_code)]
    pub fn counted(&self) -> bool {
        self.slot.is_some()
    }

    /// `r`, a write's outcome, noted: a write restarts the quiet clock; a client that reads
    /// nothing of its answer holds its connection no longer than the quiet time.
    fn after_write(
        &mut self,
        r: Poll<io::Result<usize>>,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<usize>> {
        match r {
            Poll::Ready(Ok(n)) => self.wrote(n),
            Poll::Pending if self.quiet.as_mut().poll(cx).is_ready() => {
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "the client read nothing too long",
                )));
            }
            _ => {}
        }
        r
    }

    fn wrote(&mut self, n: usize) {
        if n > 0 {
            self.asked = false;
            self.quiet
                .as_mut()
                .reset(tokio::time::Instant::now() + self.allowed);
        }
    }
}

impl AsyncRead for Counted {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        match Pin::new(&mut this.io).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                if buf.filled().len() > before && !this.asked {
                    // The clock for an answer starts at the first byte of a request.
                    this.asked = true;
                    this.quiet
                        .as_mut()
                        .reset(tokio::time::Instant::now() + this.allowed);
                }
                Poll::Ready(Ok(()))
            }
            Poll::Pending => {
                if this.quiet.as_mut().poll(cx).is_ready() {
                    return Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the connection was quiet too long",
                    )));
                }
                Poll::Pending
            }
            other => other,
        }
    }
}

impl AsyncWrite for Counted {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.io).poll_write(cx, buf);
        this.after_write(r, cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.io).poll_write_vectored(cx, bufs);
        this.after_write(r, cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}

/// Makes the service of each connection: the router, with the peer's address on every request
/// (as `ConnectInfo<SocketAddr>`, which the client-address layer reads), and visitors' answers
/// kept by [`stoa_api::answers`] sent before routing.
#[derive(Clone)]
pub struct WithPeer {
    pub router: Router,
    pub answers: Option<Arc<stoa_api::answers::Answers>>,
}

impl<'a> tower::Service<IncomingStream<'a, Bounded>> for WithPeer {
    type Response = Peer;
    type Error = Infallible;
    type Future = std::future::Ready<Result<Peer, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, s: IncomingStream<'a, Bounded>) -> Self::Future {
        std::future::ready(Ok(Peer {
            router: self.router.clone(),
            answers: self.answers.clone(),
            addr: *s.remote_addr(),
        }))
    }
}

/// The router for one connection.
#[derive(Clone)]
pub struct Peer {
    router: Router,
    answers: Option<Arc<stoa_api::answers::Answers>>,
    addr: SocketAddr,
}

type Collecting = std::pin::Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

impl tower::Service<Request> for Peer {
    type Response = Response;
    type Error = Infallible;
    type Future = Either<
        Either<std::future::Ready<Result<Response, Infallible>>, Collecting>,
        axum::routing::future::RouteFuture<Infallible>,
    >;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, mut req: Request) -> Self::Future {
        req.extensions_mut().insert(ConnectInfo(self.addr));
        put_as_patch(&mut req);
        if let Some(answers) = &self.answers {
            let started = std::time::Instant::now();
            match answers.lookup(&req) {
                Lookup::Hit(res) => {
                    let res = crate::middleware::answered(&req, res, started);
                    return Either::Left(Either::Left(std::future::ready(Ok(res))));
                }
                Lookup::Miss(key) => {
                    let handle = tower::Service::call(&mut self.router, req);
                    let collect = answers.clone().collect(key, async move {
                        match handle.await {
                            Ok(res) => res,
                            Err(never) => match never {},
                        }
                    });
                    return Either::Left(Either::Right(Box::pin(async move { Ok(collect.await) })));
                }
                Lookup::Pass => {}
            }
        }
        Either::Right(tower::Service::call(&mut self.router, req))
    }
}

/// `PUT` on the API is the original system's spelling of `PATCH` (its spec's "PATCH (or PUT)",
/// DOMAIN §11): it is routed as `PATCH`, here before routing, so every layer, permission and body
/// check sees one method and answers as for `PATCH`.
fn put_as_patch(req: &mut Request) {
    if req.method() == axum::http::Method::PUT && req.uri().path().starts_with("/api/") {
        *req.method_mut() = axum::http::Method::PATCH;
    }
}

#[cfg(test)]
mod put_tests {
    use super::*;

    #[test]
    fn put_on_the_api_is_patch_and_nothing_else_changes() {
        let mut r = Request::builder()
            .method("PUT")
            .uri("/api/blog/articles/x")
            .body(axum::body::Body::empty())
            .unwrap();
        put_as_patch(&mut r);
        assert_eq!(r.method(), axum::http::Method::PATCH);
        let mut page = Request::builder()
            .method("PUT")
            .uri("/ru/blog")
            .body(axum::body::Body::empty())
            .unwrap();
        put_as_patch(&mut page);
        assert_eq!(
            page.method(),
            axum::http::Method::PUT,
            "pages are not the API"
        );
        let mut get = Request::builder()
            .uri("/api/blog/articles")
            .body(axum::body::Body::empty())
            .unwrap();
        put_as_patch(&mut get);
        assert_eq!(get.method(), axum::http::Method::GET);
    }
}

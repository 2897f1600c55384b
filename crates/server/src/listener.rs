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
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

/// How many connections one address may hold.
#[derive(Clone, Debug)]
pub struct Bounds {
    pub per_address: u32,
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
                return (Counted { io, slot: None }, addr);
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
                    return (
                        Counted {
                            io,
                            slot: Some(slot),
                        },
                        addr,
                    );
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
}

impl Counted {
    /// Whether this connection is counted against its address.
    #[allow(dead_code)]
    pub fn counted(&self) -> bool {
        self.slot.is_some()
    }
}

impl AsyncRead for Counted {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_read(cx, buf)
    }
}

impl AsyncWrite for Counted {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write_vectored(cx, bufs)
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
/// (as `ConnectInfo<SocketAddr>`, which the client-address layer reads).
#[derive(Clone)]
pub struct WithPeer(pub Router);

impl<'a> tower::Service<IncomingStream<'a, Bounded>> for WithPeer {
    type Response = Peer;
    type Error = Infallible;
    type Future = std::future::Ready<Result<Peer, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, s: IncomingStream<'a, Bounded>) -> Self::Future {
        std::future::ready(Ok(Peer {
            router: self.0.clone(),
            addr: *s.remote_addr(),
        }))
    }
}

/// The router for one connection.
#[derive(Clone)]
pub struct Peer {
    router: Router,
    addr: SocketAddr,
}

impl tower::Service<Request> for Peer {
    type Response = Response;
    type Error = Infallible;
    type Future = axum::routing::future::RouteFuture<Infallible>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, mut req: Request) -> Self::Future {
        req.extensions_mut().insert(ConnectInfo(self.addr));
        tower::Service::call(&mut self.router, req)
    }
}

//! Keyed rate limits (a burst per window for each key: a client IP, an account), answering 429
//! with `Retry-After`. Idle keys are dropped now and then, so the map stays small under a spray
//! of addresses.

use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use stoa_kernel::{Error, Result};

/// The client address a per-IP limit keys on: the connection's peer (`unknown` without one).
/// The one place to learn trusted proxies' forwarding headers.
pub fn client_ip(req: &axum::extract::Request) -> String {
    req.extensions()
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map_or_else(|| "unknown".to_owned(), |c| c.0.ip().to_string())
}

/// Checks between two prunes of idle keys.
const PRUNE_EVERY: u64 = 4096;

pub struct Keyed {
    limiter: DefaultKeyedRateLimiter<String>,
    what: &'static str,
    checks: AtomicU64,
}

fn quota(burst: u32, window: Duration) -> Quota {
    let n = NonZeroU32::new(burst.max(1)).unwrap_or(NonZeroU32::MIN);
    let period = window / n.get();
    Quota::with_period(period.max(Duration::from_nanos(1)))
        .unwrap_or_else(|| Quota::per_second(n))
        .allow_burst(n)
}

impl Keyed {
    /// `burst` requests per key in `window`, refilled evenly; `what` names it in logs.
    pub fn new(burst: u32, window: Duration, what: &'static str) -> Self {
        Self {
            limiter: RateLimiter::keyed(quota(burst, window)),
            what,
            checks: AtomicU64::new(0),
        }
    }

    /// One request for `key`: 429 with the seconds to wait when over the limit.
    pub fn check(&self, key: &str) -> Result<()> {
        if self.checks.fetch_add(1, Ordering::Relaxed) % PRUNE_EVERY == PRUNE_EVERY - 1 {
            self.prune();
        }
        match self.limiter.check_key(&key.to_owned()) {
            Ok(()) => Ok(()),
            Err(not_until) => {
                let wait = not_until.wait_time_from(DefaultClock::default().now());
                let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
                tracing::warn!(limit = self.what, retry_after = secs, "rate limit tripped");
                Err(Error::TooManyRequests {
                    message: format!("too many requests; try again in {secs} s"),
                    retry_after: secs.max(1),
                })
            }
        }
    }

    /// Drops idle keys.
    pub fn prune(&self) {
        self.limiter.retain_recent();
        self.limiter.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bursts_then_refuses_with_a_retry_after() {
        let l = Keyed::new(10, Duration::from_secs(60), "test");
        for _ in 0..10 {
            l.check("1.2.3.4").unwrap();
        }
        match l.check("1.2.3.4") {
            Err(Error::TooManyRequests { retry_after, .. }) => {
                assert!((1..=6).contains(&retry_after))
            }
            other => panic!("{other:?}"),
        }
        l.check("5.6.7.8").unwrap();
    }
}

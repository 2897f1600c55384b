//! Rate limits on credential endpoints, checked before any hashing: a burst per client IP and an
//! hourly budget per account (email, wallet address or identity). Both answer 429 with
//! `Retry-After` and lift by themselves.

use std::num::NonZeroU32;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use stoa_kernel::{Error, Result};

#[derive(Clone, Copy, Debug)]
pub struct RateConfig {
    /// Requests a client IP may make to credential endpoints in `ip_window`.
    pub ip_burst: u32,
    pub ip_window: Duration,
    /// Attempts per account per hour.
    pub account_per_hour: u32,
}

impl Default for RateConfig {
    fn default() -> Self {
        Self {
            ip_burst: 10,
            ip_window: Duration::from_secs(60),
            account_per_hour: 100,
        }
    }
}

pub struct Limits {
    ip: DefaultKeyedRateLimiter<String>,
    account: DefaultKeyedRateLimiter<String>,
}

fn quota(burst: u32, window: Duration) -> Quota {
    let n = NonZeroU32::new(burst.max(1)).unwrap_or(NonZeroU32::MIN);
    let period = window / n.get();
    Quota::with_period(period.max(Duration::from_nanos(1)))
        .unwrap_or_else(|| Quota::per_second(n))
        .allow_burst(n)
}

impl Limits {
    pub fn new(c: RateConfig) -> Self {
        Self {
            ip: RateLimiter::keyed(quota(c.ip_burst, c.ip_window)),
            account: RateLimiter::keyed(quota(c.account_per_hour, Duration::from_secs(3600))),
        }
    }

    fn check(l: &DefaultKeyedRateLimiter<String>, key: &str, what: &str) -> Result<()> {
        match l.check_key(&key.to_owned()) {
            Ok(()) => Ok(()),
            Err(not_until) => {
                let wait = not_until.wait_time_from(DefaultClock::default().now());
                let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
                tracing::warn!(limit = what, retry_after = secs, "rate limit tripped");
                Err(Error::TooManyRequests {
                    message: format!("too many attempts; try again in {secs} s"),
                    retry_after: secs.max(1),
                })
            }
        }
    }

    /// One credential request from `ip`.
    pub fn ip(&self, ip: &str) -> Result<()> {
        Self::check(&self.ip, ip, "ip")
    }

    /// One attempt on `account`.
    pub fn account(&self, account: &str) -> Result<()> {
        Self::check(&self.account, account, "account")
    }

    /// Drops idle keys (called now and then so the maps stay small).
    pub fn prune(&self) {
        self.ip.retain_recent();
        self.account.retain_recent();
        self.ip.shrink_to_fit();
        self.account.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bursts_then_refuses_with_a_retry_after() {
        let l = Limits::new(RateConfig::default());
        for _ in 0..10 {
            l.ip("1.2.3.4").unwrap();
        }
        match l.ip("1.2.3.4") {
            Err(Error::TooManyRequests { retry_after, .. }) => {
                assert!((1..=6).contains(&retry_after))
            }
            other => panic!("{other:?}"),
        }
        l.ip("5.6.7.8").unwrap();
    }
}

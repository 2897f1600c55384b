//! A value made after the server starts listening (the OpenAPI document, the request rules
//! derived from it): requests that need it before it exists wait for it, the rest never look.

use std::sync::OnceLock;
use std::time::Duration;

use tokio::sync::watch;

/// How long a request waits for a value still being made before it is told to come back.
const PATIENCE: Duration = Duration::from_secs(10);

pub struct Later<T> {
    value: OnceLock<T>,
    ready: watch::Sender<bool>,
}

impl<T> Default for Later<T> {
    fn default() -> Self {
        Self {
            value: OnceLock::new(),
            ready: watch::Sender::new(false),
        }
    }
}

impl<T> Later<T> {
    /// Sets the value once (a second value is dropped) and wakes whoever waits for it.
    pub fn set(&self, v: T) {
        let _ = self.value.set(v);
        self.ready.send_replace(true);
    }

    /// The maker failed (and logged why): whoever waits is answered at once, without a value.
    pub fn fail(&self) {
        self.ready.send_replace(true);
    }

    /// Makes the value of `what` with `make` and sets it. A panic in `make` is logged instead of
    /// ending the thread in silence, and the value [`Later::fail`]s: its requests get a 503 at
    /// once rather than after waiting in vain.
    pub fn make(&self, what: &str, make: impl FnOnce() -> T) -> Option<&T> {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(make)) {
            Ok(v) => {
                self.set(v);
                self.now()
            }
            Err(panic) => {
                let why = panic
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                tracing::error!(what, panic = %why, "making it failed: requests for it get a 503");
                self.fail();
                None
            }
        }
    }

    /// The value, if made.
    pub fn now(&self) -> Option<&T> {
        self.value.get()
    }

    /// The value, waiting up to 10 s while it is being made; `None` past that (a 503 for the
    /// caller: the maker failed, which it logs).
    pub async fn get(&self) -> Option<&T> {
        if let Some(v) = self.value.get() {
            return Some(v);
        }
        let mut rx = self.ready.subscribe();
        let _ = tokio::time::timeout(PATIENCE, rx.wait_for(|ready| *ready)).await;
        self.value.get()
    }
}

/// The 503 for a request that came before its [`Later`] value was made.
pub fn not_ready(what: &str) -> stoa_kernel::Error {
    stoa_kernel::Error::Unavailable(format!("{what} is not ready; try again in a moment"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[tokio::test]
    async fn a_waiter_gets_the_value_once_it_is_made() {
        let later = Arc::new(Later::<u32>::default());
        assert_eq!(later.now(), None);
        let l = later.clone();
        let waiter = tokio::spawn(async move { l.get().await.copied() });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiter.is_finished(), "it waits");
        later.set(7);
        assert_eq!(waiter.await.unwrap(), Some(7));
        later.set(8);
        assert_eq!(later.get().await, Some(&7), "set once");
    }

    #[tokio::test]
    async fn a_failed_maker_answers_waiters_at_once() {
        let later = Arc::new(Later::<u32>::default());
        let l = later.clone();
        let waiter = tokio::spawn(async move { l.get().await.copied() });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(later.make("a value", || panic!("broken")), None);
        let got = tokio::time::timeout(Duration::from_secs(1), waiter).await;
        assert_eq!(got.expect("answered at once").unwrap(), None);
        assert_eq!(later.get().await, None, "and so is the next one");
    }
}

//! Bounded authentication. A token check is an argon2 verification of about 19 MiB and
//! tens of milliseconds of CPU, so made-up tokens alone could exhaust memory: at most one
//! verification per core runs at a time (beyond that, 503 with `Retry-After`); a client
//! (by peer address) that fails too often in a window is refused with 429 before any
//! argon2 work; and a token verified a moment ago is remembered by its SHA-256 (never the
//! token itself), so a holder's repeated requests cost no argon2 at all.

use outfall_core::registry::Caller;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The limits of token checking.
#[derive(Clone, Copy, Debug)]
pub struct AuthPolicy {
    /// argon2 verifications run at once (default: the cores available).
    pub concurrent_verifications: usize,
    /// Failed checks a client may make in one `failure_window` before it is refused.
    pub failures_per_window: u32,
    pub failure_window: Duration,
    /// How long a verified token is remembered. Revocation and expiry are still checked on
    /// every request (one indexed row read), so this bounds only the argon2 work saved.
    pub cache_ttl: Duration,
    /// Most tokens remembered, and most clients whose failures are counted.
    pub max_entries: usize,
}

impl Default for AuthPolicy {
    fn default() -> Self {
        AuthPolicy {
            concurrent_verifications: std::thread::available_parallelism().map_or(1, |n| n.get()),
            failures_per_window: 10,
            failure_window: Duration::from_secs(60),
            cache_ttl: Duration::from_secs(60),
            max_entries: 4096,
        }
    }
}

/// A token's SHA-256: what the cache is keyed by.
pub type TokenKey = [u8; 32];

/// A token verified at `at`, with the stored hash its secret matched.
#[derive(Clone, Debug)]
pub struct Verified {
    pub caller: Caller,
    pub hash: String,
    at: Instant,
}

struct Window {
    start: Instant,
    failures: u32,
}

pub struct AuthGate {
    policy: AuthPolicy,
    slots: Arc<Semaphore>,
    failures: Mutex<HashMap<Option<IpAddr>, Window>>,
    cache: Mutex<HashMap<TokenKey, Verified>>,
    argon2_runs: AtomicU64,
}

fn locked<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // The maps hold no invariant a panic could break half-way.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl AuthGate {
    pub fn new(policy: AuthPolicy) -> AuthGate {
        AuthGate {
            slots: Arc::new(Semaphore::new(policy.concurrent_verifications.max(1))),
            policy,
            failures: Mutex::new(HashMap::new()),
            cache: Mutex::new(HashMap::new()),
            argon2_runs: AtomicU64::new(0),
        }
    }

    pub fn policy(&self) -> AuthPolicy {
        self.policy
    }

    pub fn key(token: &str) -> TokenKey {
        Sha256::digest(token.as_bytes()).into()
    }

    /// A token verified less than `cache_ttl` ago.
    pub fn cached(&self, key: &TokenKey) -> Option<Verified> {
        let mut cache = locked(&self.cache);
        match cache.get(key) {
            Some(v) if v.at.elapsed() < self.policy.cache_ttl => Some(v.clone()),
            Some(_) => {
                cache.remove(key);
                None
            }
            None => None,
        }
    }

    pub fn remember(&self, key: TokenKey, caller: Caller, hash: String) {
        let mut cache = locked(&self.cache);
        if cache.len() >= self.policy.max_entries {
            let ttl = self.policy.cache_ttl;
            cache.retain(|_, v| v.at.elapsed() < ttl);
            if cache.len() >= self.policy.max_entries {
                cache.clear();
            }
        }
        let at = Instant::now();
        cache.insert(key, Verified { caller, hash, at });
    }

    pub fn forget(&self, key: &TokenKey) {
        locked(&self.cache).remove(key);
    }

    /// Seconds until `peer` may try again, when it has used up its failures.
    pub fn refused_for(&self, peer: Option<IpAddr>) -> Option<u64> {
        let failures = locked(&self.failures);
        let w = failures.get(&peer)?;
        let left = self.policy.failure_window.checked_sub(w.start.elapsed())?;
        (w.failures >= self.policy.failures_per_window).then(|| left.as_secs().max(1))
    }

    /// Counts one failed check of `peer`.
    pub fn failed(&self, peer: Option<IpAddr>) {
        let mut failures = locked(&self.failures);
        let window = self.policy.failure_window;
        if failures.len() >= self.policy.max_entries {
            failures.retain(|_, w| w.start.elapsed() < window);
        }
        if failures.len() >= self.policy.max_entries && !failures.contains_key(&peer) {
            // Every slot holds a client still inside its window: the newest are not
            // counted rather than the oldest forgotten, so a flood of addresses cannot
            // wash out a counted client.
            return;
        }
        let now = Instant::now();
        let w = failures.entry(peer).or_insert(Window {
            start: now,
            failures: 0,
        });
        if w.start.elapsed() >= window {
            *w = Window {
                start: now,
                failures: 0,
            };
        }
        w.failures += 1;
    }

    /// A verification slot, or `None` when every one is busy.
    pub fn slot(&self) -> Option<OwnedSemaphorePermit> {
        let permit = self.slots.clone().try_acquire_owned().ok()?;
        self.argon2_runs.fetch_add(1, Ordering::Relaxed);
        Some(permit)
    }

    /// argon2 verifications started since the server began (what the tests count).
    pub fn argon2_runs(&self) -> u64 {
        self.argon2_runs.load(Ordering::Relaxed)
    }
}

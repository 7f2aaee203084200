//! Bounded authentication. A token check is an argon2 verification of about 19 MiB and
//! tens of milliseconds of CPU, so made-up tokens alone could exhaust memory: at most one
//! verification per core runs at a time (beyond that, 503 with `Retry-After`); failed checks
//! are counted per client address (`client`: the peer, or the address a trusted proxy names)
//! and per token id, and a client or a token id that fails too often in a window is refused
//! with 429 before any argon2 work; and a token verified a moment ago is remembered by its
//! SHA-256 (never the token itself), so a holder's repeated requests cost no argon2 at all.
//!
//! Those refusals must not lock out the holders of real tokens when many users share one
//! address (a proxy nobody declared trusted, an office's NAT): a token verified within
//! `holder_ttl` is never refused for failures, whoever made them. The exemption is the very
//! token's (its SHA-256), not its id's, which a guesser can copy.

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
    /// Failed checks a client address, or a token id, may have in one `failure_window`
    /// before it is refused.
    pub failures_per_window: u32,
    pub failure_window: Duration,
    /// How long a verified token costs no argon2. Revocation and expiry are still checked on
    /// every request (one indexed row read), so this bounds only the argon2 work saved.
    pub cache_ttl: Duration,
    /// How long a verified token is exempt from the failure limits (it is verified again,
    /// with argon2, once `cache_ttl` has passed).
    pub holder_ttl: Duration,
    /// Most tokens remembered, and most clients (and token ids) whose failures are counted.
    pub max_entries: usize,
}

impl Default for AuthPolicy {
    fn default() -> Self {
        AuthPolicy {
            concurrent_verifications: std::thread::available_parallelism().map_or(1, |n| n.get()),
            failures_per_window: 10,
            failure_window: Duration::from_secs(60),
            cache_ttl: Duration::from_secs(60),
            holder_ttl: Duration::from_secs(24 * 3600),
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

/// Failed checks per key (a client address, a token id) in the current window of each.
struct Failures<K> {
    windows: HashMap<K, Window>,
}

impl<K: std::hash::Hash + Eq> Failures<K> {
    fn new() -> Self {
        Failures {
            windows: HashMap::new(),
        }
    }

    /// Seconds until `key` may try again, when it has used up its failures.
    fn refused_for(&self, key: &K, policy: &AuthPolicy) -> Option<u64> {
        let w = self.windows.get(key)?;
        let left = policy.failure_window.checked_sub(w.start.elapsed())?;
        (w.failures >= policy.failures_per_window).then(|| left.as_secs().max(1))
    }

    fn count(&mut self, key: K, policy: &AuthPolicy) {
        let window = policy.failure_window;
        if self.windows.len() >= policy.max_entries {
            self.windows.retain(|_, w| w.start.elapsed() < window);
        }
        if self.windows.len() >= policy.max_entries && !self.windows.contains_key(&key) {
            // Every slot holds a key still inside its window: the newest are not counted
            // rather than the oldest forgotten, so a flood of addresses (or made-up ids)
            // cannot wash out a counted one.
            return;
        }
        let now = Instant::now();
        let w = self.windows.entry(key).or_insert(Window {
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
}

/// Why a check is refused before any argon2 work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The client address failed too often; retry after these seconds.
    Client(u64),
    /// The token id failed too often, from whatever addresses.
    TokenId(u64),
}

pub struct AuthGate {
    policy: AuthPolicy,
    slots: Arc<Semaphore>,
    by_client: Mutex<Failures<Option<IpAddr>>>,
    by_token_id: Mutex<Failures<String>>,
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
            by_client: Mutex::new(Failures::new()),
            by_token_id: Mutex::new(Failures::new()),
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

    /// How long a verified token is kept: for its argon2 and for its exemption.
    fn kept(&self) -> Duration {
        self.policy.cache_ttl.max(self.policy.holder_ttl)
    }

    /// The token verified less than `ttl` ago, if it was.
    fn verified_within(&self, key: &TokenKey, ttl: Duration) -> Option<Verified> {
        let mut cache = locked(&self.cache);
        let age = cache.get(key)?.at.elapsed();
        if age >= self.kept() {
            cache.remove(key);
        }
        cache.get(key).filter(|_| age < ttl).cloned()
    }

    /// A token verified less than `cache_ttl` ago: no argon2 needed.
    pub fn cached(&self, key: &TokenKey) -> Option<Verified> {
        self.verified_within(key, self.policy.cache_ttl)
    }

    /// Whether this very token was verified less than `holder_ttl` ago: then no failure,
    /// by any client, refuses it.
    pub fn is_holder(&self, key: &TokenKey) -> bool {
        self.verified_within(key, self.policy.holder_ttl).is_some()
    }

    pub fn remember(&self, key: TokenKey, caller: Caller, hash: String) {
        let kept = self.kept();
        let mut cache = locked(&self.cache);
        if cache.len() >= self.policy.max_entries {
            cache.retain(|_, v| v.at.elapsed() < kept);
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

    /// Why a check by `client` of a token with id `token_id` is refused before argon2:
    /// either has used up its failures in the window.
    pub fn refused(&self, client: Option<IpAddr>, token_id: Option<&str>) -> Option<Refusal> {
        let policy = &self.policy;
        if let Some(secs) = locked(&self.by_client).refused_for(&client, policy) {
            return Some(Refusal::Client(secs));
        }
        let id = token_id?.to_string();
        let secs = locked(&self.by_token_id).refused_for(&id, policy)?;
        Some(Refusal::TokenId(secs))
    }

    /// Counts one failed check, against `client` and against the token id it named.
    pub fn failed(&self, client: Option<IpAddr>, token_id: Option<&str>) {
        locked(&self.by_client).count(client, &self.policy);
        if let Some(id) = token_id {
            locked(&self.by_token_id).count(id.to_string(), &self.policy);
        }
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

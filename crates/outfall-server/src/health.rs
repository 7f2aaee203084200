//! Whether the server is draining, which `/readyz` (in `service.rs`) reports to a balancer.
//! A server told to stop first answers "not ready" for a moment while it still serves, so
//! the balancer moves new requests elsewhere before the listener closes (see `outfall serve
//! --drain-secs`).

use std::sync::atomic::{AtomicBool, Ordering};

/// Whether this server is on its way out.
#[derive(Default)]
pub struct Health {
    draining: AtomicBool,
}

impl Health {
    /// From now on `/readyz` answers 503; requests are still served.
    pub fn start_draining(&self) {
        self.draining.store(true, Ordering::SeqCst);
    }

    pub(crate) fn is_draining(&self) -> bool {
        self.draining.load(Ordering::SeqCst)
    }
}

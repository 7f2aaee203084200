//! How long a piece of work may run. A server answers 503 when its deadline passes, but a
//! thread cannot be killed: the work itself must stop. A `Budget` is a deadline and a
//! cancellation flag; the check polls it between its steps, and the heavy geometry loops
//! (overlay, acreage, trace) poll the budget the running thread entered, so that they need
//! no new parameter. Plain `std`: the core stays free of any async runtime.

use crate::error::{Error, Result};
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Clone, Debug, Default)]
pub struct Budget {
    deadline: Option<Instant>,
    cancelled: Arc<AtomicBool>,
}

thread_local! {
    static ENTERED: RefCell<Option<Budget>> = const { RefCell::new(None) };
}

impl Budget {
    /// No deadline: the CLI, start-up checks, tests.
    pub fn unlimited() -> Budget {
        Budget::default()
    }

    /// Work that must end `within` from now.
    pub fn within(within: Duration) -> Budget {
        Budget {
            deadline: Instant::now().checked_add(within),
            cancelled: Arc::default(),
        }
    }

    /// Stops the work at its next step (the server gave up waiting for it).
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    /// Whether the work should stop: cancelled, or past its deadline.
    pub fn expired(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed) || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// The deadline error when the budget is spent, naming the step it stopped before.
    pub fn check(&self, step: &str) -> Result<()> {
        if self.expired() {
            return Err(Error::Deadline {
                step: step.to_string(),
            });
        }
        Ok(())
    }

    /// Makes this the budget the loops of this thread poll (`spent`) until the guard drops.
    pub fn enter(&self) -> Entered {
        let before = ENTERED.with(|e| e.replace(Some(self.clone())));
        Entered { before }
    }
}

/// While alive, the thread's loops poll the entered budget; dropped, the one before returns.
pub struct Entered {
    before: Option<Budget>,
}

impl Drop for Entered {
    fn drop(&mut self) {
        let before = self.before.take();
        ENTERED.with(|e| *e.borrow_mut() = before);
    }
}

/// Whether the budget this thread entered is spent: what a geometry loop polls to stop
/// early. Its partial result is never used, since the step after it checks the budget.
pub fn spent() -> bool {
    ENTERED.with(|e| e.borrow().as_ref().is_some_and(Budget::expired))
}

/// The deadline error when the budget this thread entered is spent: how work whose loops
/// poll `spent` says it stopped, naming the step, so that no partial result is used.
pub fn check_spent(step: &str) -> Result<()> {
    if spent() {
        return Err(Error::Deadline {
            step: step.to_string(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spent_budget_says_so_and_names_the_step() {
        let b = Budget::within(Duration::ZERO);
        assert!(b.expired());
        let e = b.check("the overlay").unwrap_err().to_string();
        assert_eq!(e, "the work passed its deadline before the overlay");
        let open = Budget::unlimited();
        assert!(open.check("x").is_ok());
        open.cancel();
        assert!(open.check("x").is_err());
    }

    #[test]
    fn loops_poll_the_budget_their_thread_entered() {
        assert!(!spent());
        let spent_budget = Budget::within(Duration::ZERO);
        {
            let _in = spent_budget.enter();
            assert!(spent());
            {
                let _inner = Budget::unlimited().enter();
                assert!(!spent());
            }
            assert!(spent());
        }
        assert!(!spent());
    }
}

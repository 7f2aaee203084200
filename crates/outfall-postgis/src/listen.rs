//! Other servers' commits, as PostgreSQL tells them: the stamp trigger sends
//! `NOTIFY outfall_changes` (schema version 5), delivered when the writer commits, and a
//! connection of its own listens. Notifications reach only a connection that is listening,
//! so after the listener (re)connects, the first wait answers "maybe changed": the caller then
//! reads the stamp and misses nothing sent while no one listened.

use crate::rows::db_error;
use outfall_core::error::Result;
use postgres::fallible_iterator::FallibleIterator;
use postgres::{Client, NoTls};
use std::sync::Mutex;
use std::time::Duration;

/// The channel the stamp trigger notifies.
pub const CHANNEL: &str = "outfall_changes";

pub struct Listener {
    /// The connection URL, password included: never shown (messages use `label`).
    url: String,
    label: String,
    client: Mutex<Option<Client>>,
}

impl Listener {
    /// A listener that connects on its first wait (a server that never waits opens no
    /// second connection).
    pub fn new(url: &str, label: &str) -> Listener {
        Listener {
            url: url.to_string(),
            label: label.to_string(),
            client: Mutex::new(None),
        }
    }

    /// Waits at most `max` for a notification; true when one came (or the connection is new,
    /// see the module's note). A failed connection is dropped, to be made again next time.
    pub fn wait(&self, max: Duration) -> Result<bool> {
        let mut slot = self.client.lock().unwrap_or_else(|p| p.into_inner());
        let Some(client) = slot.as_mut() else {
            let mut client = Client::connect(&self.url, NoTls).map_err(|e| self.err(e))?;
            client
                .batch_execute(&format!("LISTEN {CHANNEL}"))
                .map_err(|e| self.err(e))?;
            *slot = Some(client);
            return Ok(true);
        };
        let got = {
            let mut notes = client.notifications();
            let first = notes.timeout_iter(max).next();
            // Several commits since the last wait need one reload: drain what is queued.
            first.and_then(|n| {
                while notes.iter().next()?.is_some() {}
                Ok(n)
            })
        };
        match got {
            Ok(n) => Ok(n.is_some()),
            Err(e) => {
                *slot = None;
                Err(self.err(e))
            }
        }
    }

    fn err(&self, e: postgres::Error) -> outfall_core::Error {
        db_error(&self.label, e)
    }
}

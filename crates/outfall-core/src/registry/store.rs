//! What a store gives the registry: its reads, and one write transaction with a few
//! primitive operations on it (rows in and rows out, no rules). What a write means (the
//! If-Match check, the change, the audit rows, the version) is written once, above these,
//! in `versioned` and `migrate`, for every store.

use super::{now_utc, AuditEntry, DisturbanceRecord, FieldChange, SiteRecord, TokenRecord};
use crate::error::Result;
use crate::record::{Inspection, InspectionQuery, Listing, RainfallDay};

/// Each guard's definition as the store reports it, by name.
pub type Guards = std::collections::BTreeMap<String, String>;

/// A place the registry is kept (a GeoPackage file, a PostGIS database). Every `Store` is a
/// `Registry` (see `versioned`).
pub trait Store: Send + Sync {
    /// Where the registry is, for messages (a file path, or a database without its password).
    fn describe(&self) -> String;
    /// A number that changes whenever another writer (QGIS, another server) commits.
    fn change_stamp(&self) -> Result<i64>;
    /// Waits at most `max` for another writer's commit; true when the sites may have
    /// changed. A store that cannot be told (a GeoPackage: SQLite has no notifications)
    /// sleeps and answers true, so the caller reads its stamp again.
    fn wait_for_change(&self, max: std::time::Duration) -> Result<bool> {
        std::thread::sleep(max);
        Ok(true)
    }
    /// Whether the sites were seeded (or created) already.
    fn is_seeded(&self) -> Result<bool>;
    /// Every site with its boundary, retired ones included, in the order they were stored.
    fn sites(&self) -> Result<Vec<SiteRecord>>;
    /// Every disturbance polygon that has a geometry, in the order they were stored.
    fn disturbance(&self) -> Result<Vec<DisturbanceRecord>>;
    /// The inspections `which` asks for, by date, filtered and paged in the store; a row
    /// that cannot be read is skipped and reported.
    fn inspections(&self, which: &InspectionQuery) -> Result<Listing<Inspection>>;
    /// The rainfall entered by hand, by date and source; a row that cannot be read is
    /// skipped and reported.
    fn rainfall(&self) -> Result<Listing<RainfallDay>>;
    /// The audit rows of one site, oldest first.
    fn history(&self, site_id: &str) -> Result<Vec<AuditEntry>>;
    /// The last audit row's id (0 for none), and the rows the outside-edit triggers wrote
    /// after row `after` up to it, oldest first.
    fn outside_edits(&self, after: i64) -> Result<(i64, Vec<AuditEntry>)>;
    /// The token with this id, revoked or expired ones included.
    fn token(&self, token_id: &str) -> Result<Option<TokenRecord>>;
    /// Every token, oldest first.
    fn tokens(&self) -> Result<Vec<TokenRecord>>;
    /// The SQL that creates the store's guards again (`guard`): run at every open, and
    /// whenever they were found changed.
    fn guard_sql(&self) -> &str;
    /// The definitions of the guards named `names`, as the store reports them (a missing one
    /// is absent).
    fn guards(&self, names: &[String]) -> Result<Guards>;
    /// Runs `work` in one transaction that holds the store's write lock for whatever it
    /// reads, so two writers never both read a version and then both write it. Commits when
    /// `work` succeeds (durable when this returns) and rolls back when it fails. Its writes
    /// carry the service's marker, for which the guards' triggers stand aside (the service
    /// audits its own writes); no other connection can set that marker.
    fn transaction(&self, work: &mut dyn FnMut(&mut dyn Tx) -> Result<()>) -> Result<()>;
}

/// One open write transaction of a store.
pub trait Tx {
    /// The site's row, locked until the transaction ends.
    fn site_for_update(&mut self, id: &str) -> Result<Option<SiteRecord>>;
    /// Every site row, locked, without boundaries (a row rewrite never touches them).
    fn site_rows(&mut self) -> Result<Vec<SiteRecord>>;
    /// A new row with the site's boundary; `Error::Exists` when the id is taken.
    fn insert_site(&mut self, site: &SiteRecord) -> Result<()>;
    /// Rewrites the site's row in place: its columns, attributes, version and retirement.
    fn write_site(&mut self, site: &SiteRecord) -> Result<()>;
    fn insert_disturbance(&mut self, polygon: &DisturbanceRecord) -> Result<()>;
    /// A new inspection row, recorded by `who` at `at`.
    fn insert_inspection(&mut self, inspection: &Inspection, who: &str, at: &str) -> Result<()>;
    /// The rain stored for one day and source, locked until the transaction ends.
    fn rain_for_update(&mut self, day: &RainfallDay) -> Result<Option<f64>>;
    /// Stores the rain of one day and source, replacing what was stored.
    fn put_rainfall(&mut self, day: &RainfallDay, who: &str, at: &str) -> Result<()>;
    fn insert_token(&mut self, token: &TokenRecord) -> Result<()>;
    /// Every token row, locked until the transaction ends, oldest first.
    fn token_rows(&mut self) -> Result<Vec<TokenRecord>>;
    /// Rewrites a token's hash, expiry and revocation (its id, name and role never change).
    fn write_token(&mut self, token: &TokenRecord) -> Result<()>;
    /// A new row of `outfall_meta`.
    fn insert_meta(&mut self, key: &str, value: &str) -> Result<()>;
    /// One row of the audit trail.
    fn audit(&mut self, row: &AuditRow) -> Result<()>;
    /// The highest schema version applied (0 for a new store), after taking whatever lock
    /// keeps two programs from migrating at once and creating the bookkeeping table.
    fn schema_version(&mut self) -> Result<i64>;
    /// Runs a migration's SQL.
    fn run_sql(&mut self, sql: &str) -> Result<()>;
    /// `Store::guards`, read inside this transaction.
    fn guards(&mut self, names: &[String]) -> Result<Guards>;
    /// Records that schema `version` was applied at `at`.
    fn record_version(&mut self, version: i64, at: &str) -> Result<()>;
}

/// One audit row as stored: the values are JSON text.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditRow<'a> {
    pub at: &'a str,
    pub who: &'a str,
    pub action: &'a str,
    pub site_id: Option<&'a str>,
    pub field: Option<&'a str>,
    pub old_value: Option<String>,
    pub new_value: Option<String>,
}

/// The audit rows of one write, all at one time: a row per changed field, or one bare row
/// when no field is named.
pub fn audit(
    tx: &mut dyn Tx,
    who: &str,
    action: &str,
    site_id: Option<&str>,
    changes: &[FieldChange],
) -> Result<()> {
    let at = now_utc();
    let bare = AuditRow {
        at: &at,
        who,
        action,
        site_id,
        field: None,
        old_value: None,
        new_value: None,
    };
    if changes.is_empty() {
        tx.audit(&bare)?;
    }
    for (field, old, new) in changes {
        tx.audit(&AuditRow {
            field: Some(field),
            old_value: Some(old.to_string()),
            new_value: Some(new.to_string()),
            ..bare.clone()
        })?;
    }
    Ok(())
}

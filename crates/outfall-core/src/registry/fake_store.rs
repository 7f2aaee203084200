//! The versioned writes run against a store kept in memory, which logs every primitive it
//! is asked for: what a write does is decided above the store, so it can be checked here
//! without a file or a database.

use super::store::{AuditRow, Store, Tx};
use super::{AuditEntry, DisturbanceRecord, Registry, SiteRecord, TokenRecord};
use crate::claims::Vocabulary;
use crate::error::{Error, Result};
use crate::record::{Inspection, InspectionQuery, Listing, RainfallDay};
use serde_json::{json, Map, Value};
use std::sync::Mutex;

/// An audit row kept: (site, action, field, old, new).
type Audited = (
    Option<String>,
    String,
    Option<String>,
    Option<String>,
    Option<String>,
);

#[derive(Clone, Default)]
struct Tables {
    sites: Vec<SiteRecord>,
    audit: Vec<Audited>,
}

#[derive(Default)]
struct Memory {
    tables: Mutex<Tables>,
    /// Every primitive called, committed or not.
    calls: Mutex<Vec<&'static str>>,
}

impl Memory {
    fn log(&self) -> Vec<&'static str> {
        std::mem::take(&mut *self.calls.lock().unwrap_or_else(|p| p.into_inner()))
    }
    fn tables(&self) -> Tables {
        self.tables
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}

struct MemoryTx<'a> {
    tables: Tables,
    calls: &'a Mutex<Vec<&'static str>>,
}

impl MemoryTx<'_> {
    fn call(&self, name: &'static str) {
        self.calls
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(name);
    }
}

impl Store for Memory {
    fn describe(&self) -> String {
        "memory".into()
    }
    fn change_stamp(&self) -> Result<i64> {
        Ok(0)
    }
    fn is_seeded(&self) -> Result<bool> {
        Ok(true)
    }
    fn sites(&self) -> Result<Vec<SiteRecord>> {
        Ok(self.tables().sites)
    }
    fn disturbance(&self) -> Result<Vec<DisturbanceRecord>> {
        Ok(Vec::new())
    }
    fn inspections(&self, _: &InspectionQuery) -> Result<Listing<Inspection>> {
        Ok(Listing::default())
    }
    fn rainfall(&self) -> Result<Listing<RainfallDay>> {
        Ok(Listing::default())
    }
    fn history(&self, _: &str) -> Result<Vec<AuditEntry>> {
        Ok(Vec::new())
    }
    fn outside_edits(&self, _: i64) -> Result<(i64, Vec<AuditEntry>)> {
        Ok((0, Vec::new()))
    }
    fn token(&self, _: &str) -> Result<Option<TokenRecord>> {
        Ok(None)
    }
    fn tokens(&self) -> Result<Vec<TokenRecord>> {
        Ok(Vec::new())
    }
    fn guard_sql(&self) -> &str {
        ""
    }
    fn guards(&self, _: &[String]) -> Result<super::guard::Guards> {
        Ok(Default::default())
    }
    /// Works on a copy of the tables, kept only when `work` succeeds.
    fn transaction(&self, work: &mut dyn FnMut(&mut dyn Tx) -> Result<()>) -> Result<()> {
        let mut tx = MemoryTx {
            tables: self.tables(),
            calls: &self.calls,
        };
        work(&mut tx)?;
        *self.tables.lock().unwrap_or_else(|p| p.into_inner()) = tx.tables;
        Ok(())
    }
}

impl Tx for MemoryTx<'_> {
    fn site_for_update(&mut self, id: &str) -> Result<Option<SiteRecord>> {
        self.call("site_for_update");
        Ok(self.tables.sites.iter().find(|s| s.site_id == id).cloned())
    }
    fn site_rows(&mut self) -> Result<Vec<SiteRecord>> {
        self.call("site_rows");
        Ok(self.tables.sites.clone())
    }
    fn insert_site(&mut self, site: &SiteRecord) -> Result<()> {
        self.call("insert_site");
        if self.tables.sites.iter().any(|s| s.site_id == site.site_id) {
            return Err(Error::Exists {
                kind: "site",
                id: site.site_id.clone(),
            });
        }
        self.tables.sites.push(site.clone());
        Ok(())
    }
    fn write_site(&mut self, site: &SiteRecord) -> Result<()> {
        self.call("write_site");
        for s in &mut self.tables.sites {
            if s.site_id == site.site_id {
                *s = site.clone();
            }
        }
        Ok(())
    }
    fn insert_disturbance(&mut self, _: &DisturbanceRecord) -> Result<()> {
        self.call("insert_disturbance");
        Ok(())
    }
    fn insert_inspection(&mut self, _: &Inspection, _: &str, _: &str) -> Result<()> {
        self.call("insert_inspection");
        Ok(())
    }
    fn rain_for_update(&mut self, _: &RainfallDay) -> Result<Option<f64>> {
        self.call("rain_for_update");
        Ok(None)
    }
    fn put_rainfall(&mut self, _: &RainfallDay, _: &str, _: &str) -> Result<()> {
        self.call("put_rainfall");
        Ok(())
    }
    fn insert_token(&mut self, _: &TokenRecord) -> Result<()> {
        self.call("insert_token");
        Ok(())
    }
    fn token_rows(&mut self) -> Result<Vec<TokenRecord>> {
        self.call("token_rows");
        Ok(Vec::new())
    }
    fn write_token(&mut self, _: &TokenRecord) -> Result<()> {
        self.call("write_token");
        Ok(())
    }
    fn insert_meta(&mut self, _: &str, _: &str) -> Result<()> {
        self.call("insert_meta");
        Ok(())
    }
    fn audit(&mut self, a: &AuditRow) -> Result<()> {
        self.call("audit");
        let own = |t: Option<&str>| t.map(str::to_string);
        self.tables.audit.push((
            own(a.site_id),
            a.action.to_string(),
            own(a.field),
            a.old_value.clone(),
            a.new_value.clone(),
        ));
        Ok(())
    }
    fn schema_version(&mut self) -> Result<i64> {
        self.call("schema_version");
        Ok(0)
    }
    fn run_sql(&mut self, _: &str) -> Result<()> {
        self.call("run_sql");
        Ok(())
    }
    fn guards(&mut self, _: &[String]) -> Result<super::guard::Guards> {
        self.call("guards");
        Ok(Default::default())
    }
    fn record_version(&mut self, _: i64, _: &str) -> Result<()> {
        self.call("record_version");
        Ok(())
    }
}

fn with_site() -> Memory {
    let memory = Memory::default();
    let site = SiteRecord {
        site_id: "S1".into(),
        properties: json!({"status": "planned", "name": "Lot 4"})
            .as_object()
            .cloned()
            .unwrap_or_default(),
        boundary: None,
        version: 1,
        retired: None,
        submitted_by: None,
    };
    memory.create_site(&site, &[], "officer").expect("created");
    memory.log();
    memory
}

fn change(body: Value) -> Map<String, Value> {
    body.as_object().cloned().unwrap_or_default()
}

#[test]
fn a_stale_if_match_is_a_conflict_that_writes_nothing() {
    let memory = with_site();
    let words = Vocabulary::default();
    let body = change(json!({"status": "approved"}));
    memory
        .update_site("S1", 1, &body, &words, "officer")
        .expect("first edit");
    memory.log();
    let before = memory.tables();
    let stale = memory.update_site("S1", 1, &change(json!({"name": "x"})), &words, "clerk");
    assert!(
        matches!(stale, Err(Error::Conflict { current: 2, .. })),
        "{stale:?}"
    );
    assert_eq!(memory.log(), ["site_for_update"], "read, then nothing");
    let after = memory.tables();
    assert_eq!(after.audit, before.audit, "no audit row");
    assert_eq!(after.sites, before.sites, "no version bump");
    let retire = memory.retire_site("S1", 1, "clerk");
    assert!(matches!(retire, Err(Error::Conflict { .. })), "{retire:?}");
    assert_eq!(memory.log(), ["site_for_update"]);
}

#[test]
fn an_edit_writes_the_row_one_version_up_and_an_audit_row_per_field() {
    let memory = with_site();
    let body = change(json!({"status": "Active", "name": "Lot 4"}));
    let next = memory
        .update_site("S1", 1, &body, &Vocabulary::default(), "officer")
        .expect("edit");
    assert_eq!(next.version, 2);
    assert_eq!(next.properties["status"], "under_construction");
    assert_eq!(memory.log(), ["site_for_update", "write_site", "audit"]);
    let last = memory.tables().audit.pop().expect("audited");
    let want = (
        Some("S1"),
        "update",
        Some("status"),
        "\"planned\"",
        "\"under_construction\"",
    );
    assert_eq!(
        (
            last.0.as_deref(),
            last.1.as_str(),
            last.2.as_deref(),
            last.3.as_deref().unwrap_or(""),
            last.4.as_deref().unwrap_or("")
        ),
        want
    );
    // The same change again changes nothing: no row, no audit, the version kept.
    let same = memory
        .update_site("S1", 2, &body, &Vocabulary::default(), "officer")
        .expect("no-op");
    assert_eq!(same.version, 2);
    assert_eq!(memory.log(), ["site_for_update"]);
}

#[test]
fn a_taken_id_or_a_bad_change_leaves_the_store_as_it_was() {
    let memory = with_site();
    let before = memory.tables();
    let taken = memory.create_site(&before.sites[0], &[], "officer");
    assert!(matches!(taken, Err(Error::Exists { .. })), "{taken:?}");
    let bad = change(json!({"status": "demolished"}));
    let refused = memory.update_site("S1", 1, &bad, &Vocabulary::default(), "officer");
    assert!(matches!(refused, Err(Error::Input(_))), "{refused:?}");
    let retired = memory.retire_site("S1", 1, "officer").expect("retired");
    assert_eq!(retired.version, 2);
    let after = memory.tables();
    assert_eq!(after.audit.len(), before.audit.len() + 1);
    assert_eq!(
        after.audit[before.audit.len()].2.as_deref(),
        Some("retired")
    );
}

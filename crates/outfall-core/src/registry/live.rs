//! The registry as the server sees it: a snapshot of the catalog with the registry's sites
//! and their reports, replaced whole after every change. A change (a write through the API,
//! or a commit by another program such as QGIS) rebuilds only the two site layers and checks
//! again only the sites whose records changed; the rest of the catalog, loaded once, is
//! shared.

use super::guard::Guards;
use super::{convert, DisturbanceRecord, Registry, SiteRecord};
use crate::catalog::Catalog;
use crate::error::Result;
use crate::report::Report;
use crate::screening;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};

/// What every request reads: one consistent version of the sites and their reports.
pub struct Snapshot {
    pub catalog: Arc<Catalog>,
    pub reports: Arc<HashMap<String, Report>>,
    /// Counts the snapshots; a cache keyed on the site layers is stale when it changes.
    pub generation: u64,
    /// Each site's records, as last checked: a site whose records are unchanged keeps its
    /// report.
    records: HashMap<String, (SiteRecord, Vec<DisturbanceRecord>)>,
}

pub struct Live {
    pub registry: Box<dyn Registry>,
    /// The catalog loaded from the files: every layer except the sites' own.
    base: Arc<Catalog>,
    snapshot: RwLock<Arc<Snapshot>>,
    /// The registry's change stamp when the snapshot was last built.
    stamp: Mutex<i64>,
    /// The guards as the registry made them at open or last put them back (`guard`).
    guards: Mutex<Guards>,
    /// The last audit row logged (`log_outside_edits`).
    audit_seen: Mutex<i64>,
}

impl Live {
    /// Opens the registry over a loaded catalog, seeding it from the file layers on first
    /// run, and checks every site once.
    pub fn start(registry: Box<dyn Registry>, base: Arc<Catalog>) -> Result<Live> {
        if !registry.is_seeded()? {
            let (sites, disturbance) = convert::records_from_catalog(&base);
            registry.seed(&sites, &disturbance, &base.manifest.words)?;
        }
        let live = Live {
            guards: Mutex::new(registry.guards()?),
            audit_seen: Mutex::new(registry.outside_edits(i64::MAX)?.0),
            registry,
            base: base.clone(),
            snapshot: RwLock::new(Arc::new(Snapshot {
                catalog: base,
                reports: Arc::new(HashMap::new()),
                generation: 0,
                records: HashMap::new(),
            })),
            stamp: Mutex::new(i64::MIN),
        };
        live.refresh()?;
        Ok(live)
    }

    /// The current snapshot.
    pub fn snapshot(&self) -> Arc<Snapshot> {
        self.snapshot
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Rebuilds the snapshot when another program changed the registry; true if it did.
    /// First puts back any guard another program dropped, changed or disabled.
    pub fn poll(&self) -> Result<bool> {
        self.check_guards()?;
        self.log_outside_edits()?;
        let stamp = self.registry.change_stamp()?;
        if *self.stamp.lock().unwrap_or_else(|p| p.into_inner()) == stamp {
            return Ok(false);
        }
        self.refresh()?;
        Ok(true)
    }

    /// Compares the guards with those the registry made, and creates them again when they
    /// differ (the registry logs and audits each one put back); their names.
    pub fn check_guards(&self) -> Result<Vec<String>> {
        let mut known = self.guards.lock().unwrap_or_else(|p| p.into_inner());
        if self.registry.guards()? == *known {
            return Ok(Vec::new());
        }
        let restored = self.registry.restore_guards()?;
        *known = self.registry.guards()?;
        Ok(restored)
    }

    /// Logs what the outside-edit triggers audited since the last poll: each refused token
    /// change as a warning, the edits kept as one line.
    fn log_outside_edits(&self) -> Result<()> {
        let mut seen = self.audit_seen.lock().unwrap_or_else(|p| p.into_inner());
        let (last, rows) = self.registry.outside_edits(*seen)?;
        *seen = last;
        let (refused, kept): (Vec<_>, Vec<_>) = rows
            .into_iter()
            .partition(|r| r.action == super::guard::REFUSED);
        for r in &refused {
            let field = r.field.as_deref().unwrap_or("");
            let text =
                |v: &Option<serde_json::Value>| v.as_ref().map_or("null".into(), |v| v.to_string());
            let (old, new) = (text(&r.old_value), text(&r.new_value));
            tracing::warn!(registry = %self.registry.describe(), field, %old, %new,
                "refused a change made outside the service that would grant access");
        }
        if !kept.is_empty() {
            tracing::info!(registry = %self.registry.describe(), rows = kept.len(),
                "audited edits made outside the service");
        }
        Ok(())
    }

    /// Follows other programs' commits, on its own thread, for as long as the registry is in
    /// use: waits up to `every` for the store to say something changed (PostGIS's
    /// `LISTEN/NOTIFY` wakes it at the commit; a GeoPackage sleeps and says "maybe"), then
    /// compares the stamp. The stamp is also read every `SAFETY_POLL`, whatever the store
    /// says, in case a notification was lost. A failed wait or poll is logged and tried again.
    pub fn watch(live: &Arc<Live>, every: std::time::Duration) -> std::thread::JoinHandle<()> {
        const SAFETY_POLL: std::time::Duration = std::time::Duration::from_secs(30);
        let weak = Arc::downgrade(live);
        std::thread::spawn(move || {
            let mut last_poll = std::time::Instant::now();
            loop {
                let Some(live) = weak.upgrade() else { return };
                let woke = live.registry.wait_for_change(every).unwrap_or_else(|e| {
                    tracing::warn!(error = %e, "waiting for registry changes failed");
                    std::thread::sleep(every);
                    true
                });
                if !woke && last_poll.elapsed() < SAFETY_POLL {
                    continue;
                }
                last_poll = std::time::Instant::now();
                match live.poll() {
                    Ok(true) => {
                        tracing::info!(registry = %live.registry.describe(), "sites changed by another program; reloaded")
                    }
                    Ok(false) => {}
                    Err(e) => tracing::warn!(error = %e, "registry poll failed"),
                }
            }
        })
    }

    /// Reads the registry and publishes a new snapshot, checking again the sites whose
    /// records differ from the last snapshot's. Called after every write.
    pub fn refresh(&self) -> Result<Arc<Snapshot>> {
        // One rebuild at a time: two writers' refreshes would otherwise race to publish.
        let mut stamp = self.stamp.lock().unwrap_or_else(|p| p.into_inner());
        let new_stamp = self.registry.change_stamp()?;
        let sites = self.registry.sites()?;
        let disturbance = self.registry.disturbance()?;
        let (site_layer, dist_layer) =
            convert::site_layers(&self.base, &self.registry.describe(), &sites, &disturbance);
        let catalog = Arc::new(self.base.with_site_layers(site_layer, dist_layer)?);
        let old = self.snapshot();
        let mut records: HashMap<String, (SiteRecord, Vec<DisturbanceRecord>)> = sites
            .into_iter()
            .filter(|s| s.retired.is_none())
            .map(|s| (s.site_id.clone(), (s, Vec::new())))
            .collect();
        for d in disturbance {
            if let Some(r) = records.get_mut(&d.site_id) {
                r.1.push(d);
            }
        }
        let mut reports = HashMap::with_capacity(records.len());
        for (id, rec) in &records {
            // An unchanged site keeps its report (its layer hash is then the one it was
            // checked with, which its unchanged records still reproduce).
            let unchanged = old.records.get(id) == Some(rec);
            let report = match (unchanged, old.reports.get(id)) {
                (true, Some(r)) => Some(r.clone()),
                _ => screening::check_site(&catalog, id).ok(),
            };
            if let Some(r) = report {
                reports.insert(id.clone(), r);
            }
        }
        let next = Arc::new(Snapshot {
            catalog,
            reports: Arc::new(reports),
            generation: old.generation + 1,
            records,
        });
        *self.snapshot.write().unwrap_or_else(|p| p.into_inner()) = next.clone();
        *stamp = new_stamp;
        Ok(next)
    }
}

//! The registry as the server sees it: a snapshot of the catalog with the registry's sites
//! and their reports, replaced whole after every change. A change (a write through the API,
//! or a commit by another program such as QGIS) rebuilds only the two site layers from the
//! sites' features as last checked, and checks again only the sites whose records changed;
//! the rest of the catalog, loaded once, is shared. A write checks its site before storing
//! it (`check_records`, `check_change`), in its caller's budget, and the refresh after it
//! takes that check. A pending application read at start or from another program's commit
//! waits for `check_waiting` when the registry is served, so that neither a start nor an
//! edit costs the checks of every pending application.

mod checks;

pub use checks::CheckCounts;

use super::convert::{self, SiteFeatures};
use super::guard::Guards;
use super::{DisturbanceRecord, Registry, SiteRecord};
use crate::catalog::Catalog;
use crate::error::Result;
use crate::report::Report;
use crate::screening;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, RwLock};

/// A site's record and its polygons, as the registry holds them.
type Records = (SiteRecord, Vec<DisturbanceRecord>);

/// A site as last checked: its records, its features and its report (none when the check
/// failed or its geometry was refused). Shared by the snapshots that keep it.
struct Checked {
    records: Records,
    features: SiteFeatures,
    report: Option<Report>,
}

/// What every request reads: one consistent version of the sites and their reports.
pub struct Snapshot {
    pub catalog: Arc<Catalog>,
    pub reports: Arc<HashMap<String, Report>>,
    /// Counts the snapshots; a cache keyed on the site layers is stale when it changes.
    pub generation: u64,
    /// Each site in the layers, as last checked: a site whose records are unchanged keeps
    /// its features and its report.
    checked: HashMap<String, Arc<Checked>>,
    /// The sites' ids in the registry's order, and the site of each polygon in its order.
    order: Vec<String>,
    polygon_sites: Vec<String>,
    /// Pending applications not checked yet (`check_waiting`), so not in the layers.
    waiting: HashMap<String, Records>,
}

impl Snapshot {
    /// Whether the site is a pending application not checked since the server started (or
    /// since another program changed it): it has no report yet, but will.
    pub fn is_waiting(&self, id: &str) -> bool {
        self.waiting.contains_key(id)
    }
}

/// When a refresh meets a pending application it has not checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checking {
    /// Check it then: what a command that reads the sites once needs.
    Everything,
    /// Leave it to `check_waiting` (the server's watcher runs it), so a start or an edit
    /// does not wait for every pending application's check.
    PendingLater,
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
    checking: Checking,
    /// Sites checked outside a refresh (a write's check, the check of a waiting
    /// application), taken by the next refresh that reads exactly those records.
    ready: Mutex<HashMap<String, Arc<Checked>>>,
    pub counts: CheckCounts,
}

impl Live {
    /// Opens the registry over a loaded catalog, seeding it from the file layers on first
    /// run, and checks every site once.
    pub fn start(registry: Box<dyn Registry>, base: Arc<Catalog>) -> Result<Live> {
        Live::open(registry, base, Checking::Everything)
    }

    /// `start`, with pending applications checked when `checking` says.
    pub fn open(
        registry: Box<dyn Registry>,
        base: Arc<Catalog>,
        checking: Checking,
    ) -> Result<Live> {
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
                checked: HashMap::new(),
                order: Vec::new(),
                polygon_sites: Vec::new(),
                waiting: HashMap::new(),
            })),
            stamp: Mutex::new(i64::MIN),
            checking,
            ready: Mutex::new(HashMap::new()),
            counts: CheckCounts::default(),
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
    /// use: checks the applications waiting (`check_waiting`), then waits up to `every` for
    /// the store to say something changed (PostGIS's `LISTEN/NOTIFY` wakes it at the commit;
    /// a GeoPackage sleeps and says "maybe"), then compares the stamp. The stamp is also
    /// read every `SAFETY_POLL`, whatever the store says, in case a notification was lost. A
    /// failed wait or poll is logged and tried again.
    pub fn watch(live: &Arc<Live>, every: std::time::Duration) -> std::thread::JoinHandle<()> {
        const SAFETY_POLL: std::time::Duration = std::time::Duration::from_secs(30);
        let weak = Arc::downgrade(live);
        std::thread::spawn(move || {
            let mut last_poll = std::time::Instant::now();
            loop {
                let Some(live) = weak.upgrade() else { return };
                if let Err(e) = live.check_waiting() {
                    tracing::warn!(error = %e, "checking the pending applications failed");
                }
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

    /// Reads the registry and publishes a new snapshot. A site whose records are unchanged
    /// keeps its features and report, one checked by a write or by `check_waiting` is taken
    /// as it was checked, a pending application is left waiting when `checking` says so, and
    /// any other is checked now. Called after every write.
    pub fn refresh(&self) -> Result<Arc<Snapshot>> {
        // One rebuild at a time: two writers' refreshes would otherwise race to publish.
        let mut stamp = self.stamp.lock().unwrap_or_else(|p| p.into_inner());
        let new_stamp = self.registry.change_stamp()?;
        let read = self.read()?;
        let store = self.registry.describe();
        let old = self.snapshot();
        let Sorted {
            mut checked,
            waiting,
            unchecked,
        } = self.sort_out(read.records, &old, &store);
        let order: Vec<String> = read
            .order
            .into_iter()
            .filter(|id| checked.contains_key(id))
            .collect();
        let mut polygon_sites = read.polygon_sites;
        polygon_sites.retain(|id| checked.contains_key(id));
        let features: HashMap<&str, &SiteFeatures> = checked
            .iter()
            .map(|(k, c)| (k.as_str(), &c.features))
            .collect();
        let catalog = Arc::new(self.catalog_of(&store, &features, &order, &polygon_sites)?);
        for id in unchecked {
            self.counts.sites.fetch_add(1, Ordering::Relaxed);
            let report = screening::check_site(&catalog, &id).ok();
            if let Some(c) = checked.get_mut(&id).and_then(Arc::get_mut) {
                c.report = report;
            }
        }
        let reports = checked
            .iter()
            .filter_map(|(id, c)| Some((id.clone(), c.report.clone()?)))
            .collect();
        let next = Arc::new(Snapshot {
            catalog,
            reports: Arc::new(reports),
            generation: old.generation + 1,
            checked,
            order,
            polygon_sites,
            waiting,
        });
        *self.snapshot.write().unwrap_or_else(|p| p.into_inner()) = next.clone();
        *stamp = new_stamp;
        Ok(next)
    }

    /// The registry's sites (not retired) with their polygons.
    fn read(&self) -> Result<Read> {
        let sites = self.registry.sites()?;
        let mut records: HashMap<String, Records> = sites
            .iter()
            .filter(|s| s.retired.is_none())
            .map(|s| (s.site_id.clone(), (s.clone(), Vec::new())))
            .collect();
        let mut polygon_sites = Vec::new();
        for d in self.registry.disturbance()? {
            if let Some(r) = records.get_mut(&d.site_id) {
                polygon_sites.push(d.site_id.clone());
                r.1.push(d);
            }
        }
        Ok(Read {
            order: sites.into_iter().map(|s| s.site_id).collect(),
            records,
            polygon_sites,
        })
    }

    /// Which sites keep their check, take one made outside the refresh, wait, or are
    /// checked now (their features are, here; their reports once the catalog is built).
    fn sort_out(&self, records: HashMap<String, Records>, old: &Snapshot, store: &str) -> Sorted {
        let mut ready = self.ready.lock().unwrap_or_else(|p| p.into_inner());
        let mut out = Sorted::default();
        for (id, rec) in records {
            let kept = old.checked.get(&id).filter(|c| c.records == rec).cloned();
            let taken = || match ready.get(&id) {
                Some(c) if c.records == rec => ready.remove(&id),
                // A check of an older version, or of the same one made otherwise: stale. A
                // newer one belongs to a write not yet stored.
                Some(c) if c.records.0.version <= rec.0.version => {
                    ready.remove(&id);
                    None
                }
                _ => None,
            };
            if let Some(c) = kept.or_else(taken) {
                out.checked.insert(id, c);
            } else if self.checking == Checking::PendingLater && is_pending(&rec.0) {
                out.waiting.insert(id, rec);
            } else {
                let features = self.features_of(store, &rec.0, &rec.1);
                out.unchecked.push(id.clone());
                let c = Checked {
                    records: rec,
                    features,
                    report: None,
                };
                out.checked.insert(id, Arc::new(c));
            }
        }
        out
    }
}

/// The registry as one refresh read it.
struct Read {
    /// Every site's id, in the registry's order.
    order: Vec<String>,
    /// The sites not retired, with their polygons.
    records: HashMap<String, Records>,
    /// The site of each polygon of those, in the registry's order.
    polygon_sites: Vec<String>,
}

/// A refresh's sites: kept or taken checks, the waiting, and those to check now (in
/// `checked` without a report until it is made).
#[derive(Default)]
struct Sorted {
    checked: HashMap<String, Arc<Checked>>,
    waiting: HashMap<String, Records>,
    unchecked: Vec<String>,
}

/// An application the officer has not decided: submitted by an applicant, still planned.
fn is_pending(site: &SiteRecord) -> bool {
    site.retired.is_none()
        && site.submitted_by.is_some()
        && site.properties.get("status").and_then(Value::as_str) == Some("planned")
}

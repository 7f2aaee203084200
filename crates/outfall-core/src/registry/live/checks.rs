//! The checks the registry's snapshots are made of, run outside a refresh: a write's check
//! of its own site (in the write's budget, before it stores the site), and the check of the
//! pending applications a served registry leaves waiting. Each is kept for the next refresh
//! that reads exactly the records checked.

use super::{Checked, Live, Records};
use crate::budget::Budget;
use crate::catalog::Catalog;
use crate::claims::Vocabulary;
use crate::error::{Error, Result};
use crate::registry::convert::{self, SiteFeatures};
use crate::registry::{apply_change, DisturbanceRecord, SiteRecord};
use crate::report::Report;
use crate::screening;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// How much checking the refreshes have done, for tests and logs.
#[derive(Debug, Default)]
pub struct CheckCounts {
    pub(super) sites: AtomicU64,
    pub(super) features: AtomicU64,
}

impl CheckCounts {
    /// (sites checked, sites whose features were checked).
    pub fn get(&self) -> (u64, u64) {
        (
            self.sites.load(Ordering::Relaxed),
            self.features.load(Ordering::Relaxed),
        )
    }
}

impl Live {
    /// Checks the pending applications the snapshot left waiting, one at a time, each
    /// published as it is done.
    pub fn check_waiting(&self) -> Result<()> {
        let waiting: Vec<Records> = self.snapshot().waiting.values().cloned().collect();
        for (site, polygons) in waiting {
            let id = site.site_id.clone();
            self.check_records(site, polygons, &Budget::unlimited())?;
            self.refresh()?;
            tracing::info!(site = %id, "pending application checked");
        }
        Ok(())
    }

    /// Checks a site's records as the next snapshot would hold them, within `budget` (a
    /// write runs this in its slot, under its deadline, before it stores them); the refresh
    /// after the write takes the check when the registry then holds exactly these records.
    pub fn check_records(
        &self,
        site: SiteRecord,
        polygons: Vec<DisturbanceRecord>,
        budget: &Budget,
    ) -> Result<Option<Report>> {
        let snap = self.snapshot();
        let store = self.registry.describe();
        let features = self.features_of(&store, &site, &polygons);
        budget.check("checking the site")?;
        let id = site.site_id.clone();
        let mut order = snap.order.clone();
        let mut polygon_sites: Vec<String> = snap
            .polygon_sites
            .iter()
            .filter(|s| **s != id)
            .cloned()
            .collect();
        if !order.contains(&id) {
            order.push(id.clone());
        }
        polygon_sites.extend(polygons.iter().map(|p| p.site_id.clone()));
        let mut checked: HashMap<&str, &SiteFeatures> = snap
            .checked
            .iter()
            .map(|(k, c)| (k.as_str(), &c.features))
            .collect();
        checked.insert(&id, &features);
        let catalog = self.catalog_of(&store, &checked, &order, &polygon_sites)?;
        let report = match catalog.site(&id) {
            Ok(s) => {
                let subject = screening::Subject::from_site(&catalog, s);
                Some(screening::check_within(&catalog, &subject, budget)?)
            }
            Err(_) => None,
        };
        self.counts.sites.fetch_add(1, Ordering::Relaxed);
        let c = Checked {
            records: (site, polygons),
            features,
            report: report.clone(),
        };
        self.ready
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id, Arc::new(c));
        Ok(report)
    }

    /// Checks what a `PATCH` of `id` at `version` makes of the site (`apply_change`), as
    /// `check_records` does; nothing when the change changes nothing.
    pub fn check_change(
        &self,
        id: &str,
        version: i64,
        change: &Map<String, Value>,
        words: &Vocabulary,
        budget: &Budget,
    ) -> Result<()> {
        let site = self
            .registry
            .sites()?
            .into_iter()
            .find(|s| s.site_id == id)
            .ok_or_else(|| Error::NotFound {
                kind: "site",
                id: id.to_string(),
            })?;
        if site.version != version {
            return Err(Error::Conflict {
                kind: "site",
                id: id.to_string(),
                current: site.version,
            });
        }
        // An edit never changes the polygons: the snapshot's are the site's unless another
        // program changed the site since it was read.
        let snap = self.snapshot();
        let known = snap
            .checked
            .get(id)
            .map(|c| &c.records)
            .or_else(|| snap.waiting.get(id));
        let polygons = match known {
            Some((s, polygons)) if *s == site => polygons.clone(),
            _ => self
                .registry
                .disturbance()?
                .into_iter()
                .filter(|d| d.site_id == id)
                .collect(),
        };
        let records = (site, polygons);
        let (mut next, changes) = apply_change(&records.0, change, words)?;
        if changes.is_empty() {
            return Ok(());
        }
        next.version += 1;
        self.check_records(next, records.1.clone(), budget)?;
        Ok(())
    }

    /// The site's features, checked as the loader checks a file's, counted.
    pub(super) fn features_of(
        &self,
        store: &str,
        site: &SiteRecord,
        polygons: &[DisturbanceRecord],
    ) -> SiteFeatures {
        self.counts.features.fetch_add(1, Ordering::Relaxed);
        convert::site_features(&self.base, store, site, polygons)
    }

    /// The catalog with the two site layers made of these sites' features.
    pub(super) fn catalog_of(
        &self,
        store: &str,
        checked: &HashMap<&str, &SiteFeatures>,
        order: &[String],
        polygon_sites: &[String],
    ) -> Result<Catalog> {
        let sites: Vec<&SiteFeatures> = order
            .iter()
            .filter_map(|id| checked.get(id.as_str()).copied())
            .collect();
        let polygons: Vec<(&str, &SiteFeatures)> = polygon_sites
            .iter()
            .filter_map(|id| Some((id.as_str(), *checked.get(id.as_str())?)))
            .collect();
        let (site_layer, dist_layer) = convert::site_layers(&self.base, store, &sites, &polygons);
        self.base.with_site_layers(site_layer, dist_layer)
    }

    /// Forgets a write's check when the write did not store its records.
    pub fn forget_check(&self, id: &str) {
        self.ready
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(id);
    }
}

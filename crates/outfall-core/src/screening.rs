//! A check: the subject's facts, then the law's findings, then the report that renders them.
//! Nothing here decides anything; `facts` gathers and `law` decides.

use crate::area::{self, Phase};
use crate::budget::Budget;
use crate::catalog::Catalog;
use crate::config::Rules;
use crate::error::{Error, Result};
use crate::facts::{self, Facts};
use crate::frame;
use crate::law::{self, Finding, RuleId};
use crate::record::Outcomes;
use crate::report::{Conditions, DataInfo, Disturbance, Entry, ImpairedWater, Report, SiteInfo};
pub use crate::subject::{parse_point, phases_from_features, Subject, SubjectKind, WHOLE_PARCEL};

fn met(findings: &[Finding], id: RuleId) -> Option<bool> {
    findings.iter().find(|f| f.rule == id).and_then(|f| f.met)
}

/// Checks a subject against the loaded data and the manifest's rules.
pub fn check(catalog: &Catalog, subject: &Subject) -> Report {
    let facts = facts::gather(catalog, subject);
    let findings = law::evaluate(&facts, &catalog.manifest.rules, &catalog.manifest.clauses);
    report(catalog, subject, facts, findings)
}

/// `check` within a budget: it stops at its next step once the budget is spent (the
/// geometry loops inside a step poll it too), answering `Error::Deadline` instead of a
/// report nobody waits for.
pub fn check_within(catalog: &Catalog, subject: &Subject, budget: &Budget) -> Result<Report> {
    let _entered = budget.enter();
    budget.check("gathering the facts")?;
    let facts = facts::gather(catalog, subject);
    budget.check("applying the law")?;
    let findings = law::evaluate(&facts, &catalog.manifest.rules, &catalog.manifest.clauses);
    budget.check("writing the report")?;
    Ok(report(catalog, subject, facts, findings))
}

fn report(catalog: &Catalog, subject: &Subject, f: Facts, findings: Vec<Finding>) -> Report {
    let conditions = Conditions {
        land_development_activity: met(&findings, RuleId::LandDevelopmentActivity),
        a: met(&findings, RuleId::ConditionA),
        b: met(&findings, RuleId::ConditionB),
        c: met(&findings, RuleId::ConditionC),
        five_acre_limit_exceeded: met(&findings, RuleId::FiveAcreLimit),
        exempt: met(&findings, RuleId::Exemption),
        in_jurisdiction: met(&findings, RuleId::Jurisdiction),
    };
    let entry_reason = law::describe_entry(&f);
    let site = site_info(subject, &f, &findings);
    let w = f.water;
    let framed = frame::frame(
        catalog,
        f.bbox,
        &site_polygons(subject),
        subject.outfall(),
        w.entry.reach_id.as_deref(),
        &w.downstream,
        w.listed.first().map(|l| l.reach_id.as_str()),
    );
    let rules = &catalog.manifest.rules;
    let impaired_waters: Vec<ImpairedWater> = w
        .listed
        .into_iter()
        .map(|l| impaired_water(l, rules))
        .collect();
    Report {
        site,
        disturbance: Disturbance {
            total_acres: f.acreage.total_acres,
            peak_acres: f.acreage.peak_acres,
            peak_date: f.acreage.peak_date,
            phases: f.acreage.phases,
            overlaps: f.acreage.overlaps,
            outside_parcels_acres: f.acreage.outside_parcels_acres,
            polygons: f.acreage.polygons,
        },
        conditions,
        receiving_water_names: w.names,
        receiving_water_sources: w.name_notes,
        receiving_waters: w.candidates,
        entry: Entry {
            rule: w.entry.rule.as_str().to_string(),
            reach_id: w.entry.reach_id,
            water_id: w.entry.water_id,
            water_kind: w.entry.water_kind,
            distance_m: w.entry.distance_m,
            reason: entry_reason,
            outfall: w.entry.outfall,
            sewer: w.sewer,
        },
        frame_bbox: framed.bbox,
        outfall_path: framed.outfall_path,
        downstream: w.downstream,
        trace_end: w.trace_end,
        divergences: w.divergences,
        first_impaired: impaired_waters.first().cloned(),
        impaired_waters,
        tmdl_watersheds: w.tmdl_entered,
        jurisdiction: f.jurisdiction,
        findings,
        data: DataInfo {
            law: catalog.manifest.clauses.law.clone(),
            data_set: catalog.manifest.name.clone(),
            layers: catalog.shown_sources(),
            problems: catalog.shown_problems(),
            generated: chrono::Local::now().date_naive(),
            outfall_version: env!("CARGO_PKG_VERSION"),
        },
    }
}

/// A listed water as the report shows it: its facts, and its causes that the law counts as
/// pollutants of concern under the construction reading.
fn impaired_water(l: facts::Impaired, r: &Rules) -> ImpairedWater {
    ImpairedWater {
        construction_causes: law::construction_causes(&l.causes, r),
        id: l.id,
        name: l.name,
        reach_id: l.reach_id,
        distance_m: l.distance_m,
        causes: l.causes,
        category: l.category,
        list_year: l.list_year,
        first_receiving: l.first_receiving,
    }
}

/// The report's site block: who and what the subject is, its record, and what the check
/// concluded about the record's fields.
fn site_info(subject: &Subject, f: &Facts, findings: &[Finding]) -> SiteInfo {
    // The exemption finding's per-claim outcomes, in the order of the claims.
    let verified: Vec<Option<bool>> = findings
        .iter()
        .find(|x| x.rule == RuleId::Exemption)
        .and_then(|x| x.facts.get("verified"))
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default();
    SiteInfo {
        id: subject.id().to_string(),
        kind: subject.kind,
        record: f.record.clone(),
        outcomes: Outcomes {
            single_family: f.land.single_family.clone(),
            agricultural: f.land.agricultural.clone(),
            verified,
        },
        parcel_ids: f.parcels.covered.clone(),
        bbox: f.bbox,
    }
}

/// The disturbance polygons, else the footprint's (a parcel, a site boundary).
fn site_polygons(subject: &Subject) -> Vec<&geo_types::Polygon<f64>> {
    let mut polys = subject.all_polygons();
    if polys.is_empty() {
        match &subject.footprint {
            Some(geo_types::Geometry::Polygon(p)) => polys.push(p),
            Some(geo_types::Geometry::MultiPolygon(mp)) => polys.extend(mp.0.iter()),
            _ => {}
        }
    }
    polys
}

/// Checks polygons drawn or uploaded by a user, after refusing what no real site can be:
/// no polygon, a polygon spanning more than 180° of longitude (it crosses the antimeridian,
/// or wraps the world, and its area would be the rest of the Earth), or a place farther than
/// the manifest's `outfall_max_km` from the data set's extent.
///
/// Two acres drawn in the Town of Clay (a rectangle 127.2 m by 63.6 m, in WGS84 degrees)
/// are a land development activity (one acre or more) under Condition B's five acres:
///
/// ```
/// use geo_types::{polygon, Geometry};
/// use outfall_core::load::Feature;
/// use outfall_core::{screening, Catalog};
///
/// let demo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/clay");
/// let catalog = Catalog::open(&demo)?;
/// let (west, south) = (-76.17, 43.18);
/// let (east, north) = (west + 2.0 * 0.000_782_45, south + 0.000_572_61);
/// let drawn = Feature {
///     id: "drawn-1".into(),
///     geometry: Geometry::Polygon(polygon![
///         (x: west, y: south), (x: east, y: south), (x: east, y: north), (x: west, y: north)
///     ]),
///     properties: Default::default(),
/// };
/// let report = screening::check_drawn(&catalog, "my-plan", &[drawn.clone()], None)?;
/// assert_eq!(format!("{:.2} acres", report.disturbance.total_acres), "2.00 acres");
/// assert_eq!(report.conditions.land_development_activity, Some(true));
/// assert_eq!(report.conditions.b, Some(false));
///
/// // Longitude and latitude swapped put the drawing in Antarctica: refused, not checked.
/// let mut swapped = drawn;
/// swapped.geometry = Geometry::Polygon(polygon![
///     (x: south, y: west), (x: north, y: west), (x: north, y: east), (x: south, y: east)
/// ]);
/// assert!(screening::check_drawn(&catalog, "my-plan", &[swapped], None).is_err());
/// # Ok::<(), outfall_core::Error>(())
/// ```
pub fn check_drawn(
    catalog: &Catalog,
    id: &str,
    features: &[crate::load::Feature],
    outfall: Option<geo_types::Point<f64>>,
) -> Result<Report> {
    refuse_impossible(catalog, features, outfall)?;
    let words = &catalog.manifest.words;
    Ok(check(
        catalog,
        &Subject::ad_hoc(id, features, outfall, words),
    ))
}

/// The refusals of `check_drawn`, for a caller that builds its own subject.
pub fn refuse_impossible(
    catalog: &Catalog,
    features: &[crate::load::Feature],
    outfall: Option<geo_types::Point<f64>>,
) -> Result<()> {
    use geo::BoundingRect;
    if !features
        .iter()
        .any(|f| !area::polygons_of(&f.geometry).is_empty())
    {
        return Err(Error::Input(
            "no Polygon or MultiPolygon; draw or upload the disturbed area".into(),
        ));
    }
    for f in features {
        if let Some(r) = f.geometry.bounding_rect() {
            if r.width() > 180.0 {
                return Err(Error::Input(format!(
                    "feature {}: spans {:.1}° of longitude, so it crosses the antimeridian or wraps the world; split it at ±180° or check its coordinates",
                    f.id,
                    r.width()
                )));
            }
        }
    }
    let max_km = catalog.manifest.outfall_max_km;
    if let Some(extent) = catalog.bbox() {
        let places = features
            .iter()
            .filter_map(|f| f.geometry.bounding_rect().map(|r| (f.id.clone(), r)))
            .chain(outfall.map(|p| ("outfall".to_string(), geo_types::Rect::new(p.0, p.0))));
        for (what, r) in places {
            let km = km_between(extent, r);
            if km > max_km {
                return Err(Error::Input(format!(
                    "{what} lies {km:.0} km from the data set (more than {max_km} km); check its coordinates (are longitude and latitude swapped?)"
                )));
            }
        }
    }
    Ok(())
}

/// Shortest distance between two lon/lat boxes, in km (0 when they meet). Spherical, which
/// is plenty for "is this anywhere near the data".
fn km_between(a: geo_types::Rect<f64>, b: geo_types::Rect<f64>) -> f64 {
    let gap = |lo1: f64, hi1: f64, lo2: f64, hi2: f64| (lo2 - hi1).max(lo1 - hi2).max(0.0);
    let dlat = gap(a.min().y, a.max().y, b.min().y, b.max().y);
    let lat = a.center().y.abs().max(b.center().y.abs()).min(89.0);
    let dlon = gap(a.min().x, a.max().x, b.min().x, b.max().x) * lat.to_radians().cos();
    111.195 * (dlat * dlat + dlon * dlon).sqrt()
}

/// The report of a site by id.
///
/// Site S04 of the demo data (a distribution center, Town of Clay) disturbs 8.51 acres and
/// drains to Sawmill Creek, inside the Onondaga Lake phosphorus TMDL watershed:
///
/// ```
/// use outfall_core::{screening, Catalog};
///
/// let demo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/clay");
/// let catalog = Catalog::open(&demo)?;
/// let report = screening::check_site(&catalog, "S04")?;
/// assert_eq!(format!("{:.2} acres", report.disturbance.total_acres), "8.51 acres");
/// assert_eq!(report.conditions.b, Some(true)); // five acres or more
/// assert_eq!(report.conditions.a, Some(true)); // discharges into the TMDL watershed
/// assert_eq!(report.receiving_water_names[0], "Sawmill Creek");
/// # Ok::<(), outfall_core::Error>(())
/// ```
pub fn check_site(catalog: &Catalog, id: &str) -> Result<Report> {
    let site = catalog.site(id)?;
    Ok(check(catalog, &Subject::from_site(catalog, site)))
}

/// The report of a parcel treated as the disturbed area (what an applicant asks before a
/// plan exists).
pub fn check_parcel(catalog: &Catalog, id: &str) -> Result<Report> {
    let mut s = Subject::from_parcel(catalog, id)?;
    if let Some(g) = &s.footprint {
        s.phases = vec![Phase {
            name: WHOLE_PARCEL.into(),
            start: None,
            end: None,
            polygons: area::polygons_of(g),
        }];
    }
    Ok(check(catalog, &s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Issue 22, attack 10: a check whose budget is spent answers the deadline error at its
    /// next step instead of running on; the geometry loops stop too.
    #[test]
    fn a_spent_budget_stops_the_check_before_its_work() {
        let demo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/clay");
        let catalog = Catalog::open(&demo).expect("the demo data set opens");
        let subject = Subject::from_site(&catalog, catalog.site("S04").expect("S04"));
        let spent = Budget::within(Duration::ZERO);
        match check_within(&catalog, &subject, &spent) {
            Err(Error::Deadline { step }) => assert_eq!(step, "gathering the facts"),
            other => panic!("expected the deadline error, got {other:?}"),
        }
        let whole = check_within(&catalog, &subject, &Budget::unlimited()).expect("report");
        assert!(whole.disturbance.total_acres > 8.0);
        let _in = spent.enter();
        let polygons = subject.all_polygons();
        assert!(!polygons.is_empty());
        assert!(area::union(polygons).0.is_empty(), "the union stopped");
    }
}

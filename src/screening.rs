//! Decisions of the local law for one subject (a site, a parcel or an ad-hoc polygon):
//! acreage, Conditions A/B/C, the five-acre limit, exemptions and what follows from them.
//! Each decision is a finding that cites its clause and says why in plain words.

use crate::area::{self, Phase};
use crate::catalog::{Catalog, Site};
use crate::config::{Clauses, Role, Rules};
use crate::error::{Error, Result};
use crate::load::{value_flag, value_text, Feature};
use crate::report::{Conditions, DataInfo, Disturbance, Finding, Report, SiteInfo};
use crate::waters::{self, WaterAssessment};
use geo::{BoundingRect, Intersects};
use geo_types::{Geometry, MultiPolygon, Point, Polygon};
use serde_json::{Map, Value};

/// The phase name of a parcel checked as if all of it were disturbed.
pub const WHOLE_PARCEL: &str = "whole parcel";

/// What is being checked, in WGS84.
#[derive(Debug, Clone)]
pub struct Subject {
    pub id: String,
    pub name: Option<String>,
    pub attributes: Map<String, Value>,
    pub phases: Vec<Phase>,
    /// Parcels named by the subject itself; otherwise the parcels its disturbance touches.
    pub parcel_ids: Vec<String>,
    /// The applicant's known storm-sewer outfall.
    pub outfall: Option<Point<f64>>,
    /// The footprint used to find receiving waters when there is no disturbance (e.g. a parcel).
    pub footprint: Option<Geometry<f64>>,
}

fn split_list(v: Option<&Value>) -> Vec<String> {
    v.and_then(value_text)
        .map(|s| {
            s.split([';', ','])
                .map(|p| p.trim().to_string())
                .filter(|p| !p.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// "lon,lat" (WGS84).
pub fn parse_point(s: &str) -> Option<Point<f64>> {
    let mut it = s.split([',', ' ']).filter(|p| !p.is_empty());
    let x: f64 = it.next()?.trim().parse().ok()?;
    let y: f64 = it.next()?.trim().parse().ok()?;
    ((-180.0..=180.0).contains(&x) && (-90.0..=90.0).contains(&y)).then(|| Point::new(x, y))
}

/// Groups disturbance features into dated phases.
pub fn phases_from_features<'a>(
    features: impl IntoIterator<Item = &'a Feature>,
    phase_field: Option<&str>,
    start_field: Option<&str>,
    end_field: Option<&str>,
) -> Vec<Phase> {
    let mut phases: Vec<Phase> = Vec::new();
    for f in features {
        let text =
            |field: Option<&str>| field.and_then(|n| f.properties.get(n)).and_then(value_text);
        let name = text(phase_field).unwrap_or_else(|| "1".into());
        let start = text(start_field).and_then(|s| area::parse_date(&s));
        let end = text(end_field).and_then(|s| area::parse_date(&s));
        let polys = area::polygons_of(&f.geometry);
        match phases
            .iter_mut()
            .find(|p| p.name == name && p.start == start && p.end == end)
        {
            Some(p) => p.polygons.extend(polys),
            None => phases.push(Phase {
                name,
                start,
                end,
                polygons: polys,
            }),
        }
    }
    phases
}

impl Subject {
    pub fn from_site(catalog: &Catalog, site: &Site) -> Subject {
        let dist = catalog.layer(Role::Disturbance);
        let phases = match dist {
            Some(d) => phases_from_features(
                site.disturbance.iter().map(|&i| &d.features[i]),
                d.config.phase_field.as_deref(),
                d.config.start_field.as_deref(),
                d.config.end_field.as_deref(),
            ),
            None => Vec::new(),
        };
        let sites_cfg = catalog.layer(Role::Sites).map(|l| &l.config);
        let col = |k: &'static str| sites_cfg.map_or(k, |c| c.field(k)).to_string();
        Subject {
            id: site.id.clone(),
            name: site.name.clone(),
            parcel_ids: split_list(site.attributes.get(&col("parcel_ids"))),
            outfall: site
                .attributes
                .get(&col("outfall"))
                .and_then(value_text)
                .and_then(|s| parse_point(&s)),
            footprint: site.boundary.clone(),
            attributes: site.attributes.clone(),
            phases,
        }
    }

    pub fn from_parcel(catalog: &Catalog, parcel_id: &str) -> Result<Subject> {
        let layer = catalog
            .layer(Role::Parcels)
            .ok_or_else(|| Error::Input("this data set has no parcels layer".into()))?;
        let f = layer.get(parcel_id).ok_or_else(|| Error::NotFound {
            kind: "parcel",
            id: parcel_id.to_string(),
        })?;
        Ok(Subject {
            id: parcel_id.to_string(),
            name: layer.name_of(f),
            attributes: Map::new(),
            phases: Vec::new(),
            parcel_ids: vec![parcel_id.to_string()],
            outfall: None,
            footprint: Some(f.geometry.clone()),
        })
    }

    /// An ad-hoc subject from uploaded or drawn polygons; `phase`, `start`, `end` properties
    /// are honoured when present, so a phasing plan can be checked before it is filed.
    pub fn ad_hoc(id: &str, features: &[Feature], outfall: Option<Point<f64>>) -> Subject {
        let phases = phases_from_features(features, Some("phase"), Some("start"), Some("end"));
        let attributes = features
            .first()
            .map(|f| f.properties.clone())
            .unwrap_or_default();
        Subject {
            id: id.to_string(),
            name: attributes.get("name").and_then(value_text),
            parcel_ids: split_list(attributes.get("parcel_ids")),
            outfall: outfall.or_else(|| {
                attributes
                    .get("outfall")
                    .and_then(value_text)
                    .and_then(|s| parse_point(&s))
            }),
            footprint: None,
            attributes,
            phases,
        }
    }

    fn flag(&self, catalog: &Catalog, key: &'static str) -> bool {
        let col = catalog
            .layer(Role::Sites)
            .map_or(key, |l| l.config.field(key));
        value_flag(self.attributes.get(col))
    }

    fn text(&self, catalog: &Catalog, key: &'static str) -> Option<String> {
        let col = catalog
            .layer(Role::Sites)
            .map_or(key, |l| l.config.field(key));
        self.attributes.get(col).and_then(value_text)
    }

    fn all_polygons(&self) -> Vec<&Polygon<f64>> {
        self.phases.iter().flat_map(|p| &p.polygons).collect()
    }
}

/// The parcels a subject covers: those it names, else those its disturbance (or footprint) meets.
fn subject_parcels<'a>(
    catalog: &'a Catalog,
    subject: &Subject,
    disturbed: &MultiPolygon<f64>,
) -> Vec<&'a Feature> {
    let Some(layer) = catalog.layer(Role::Parcels) else {
        return Vec::new();
    };
    if !subject.parcel_ids.is_empty() {
        return subject
            .parcel_ids
            .iter()
            .filter_map(|id| layer.get(id))
            .collect();
    }
    let probe: Geometry<f64> = if disturbed.0.is_empty() {
        match &subject.footprint {
            Some(g) => g.clone(),
            None => return Vec::new(),
        }
    } else {
        Geometry::MultiPolygon(disturbed.clone())
    };
    let Some(rect) = probe.bounding_rect() else {
        return Vec::new();
    };
    layer
        .query(rect)
        .map(|i| &layer.features[i])
        .filter(|f| f.geometry.intersects(&probe))
        .collect()
}

fn class_matches(catalog: &Catalog, parcels: &[&Feature], prefixes: &[String]) -> bool {
    let Some(layer) = catalog.layer(Role::Parcels) else {
        return false;
    };
    let field = layer.config.class_field.as_deref();
    !parcels.is_empty()
        && !prefixes.is_empty()
        && parcels.iter().all(|p| {
            layer
                .text(p, field)
                .is_some_and(|c| prefixes.iter().any(|pre| c.starts_with(pre.as_str())))
        })
}

/// Checks a subject against the loaded data and the manifest's rules.
pub fn check(catalog: &Catalog, subject: &Subject) -> Report {
    let rules = &catalog.manifest.rules;
    let clauses = &catalog.manifest.clauses;
    let polys = subject.all_polygons();
    let disturbed = area::union(polys.iter().copied());
    let total = area::area_acres(&disturbed);
    let peak = area::peak_at_one_time(&subject.phases);
    let parcels = subject_parcels(catalog, subject, &disturbed);
    let parcel_union = area::union(
        parcels
            .iter()
            .flat_map(|p| area::polygons_of(&p.geometry))
            .collect::<Vec<_>>()
            .iter(),
    );
    let outside = if catalog.layer(Role::Parcels).is_some() {
        area::difference_acres(&disturbed, &parcel_union)
    } else {
        0.0
    };
    let single_family = subject.flag(catalog, "single_family")
        || class_matches(catalog, &parcels, &rules.single_family_classes);
    let agricultural = subject.flag(catalog, "agricultural")
        || class_matches(catalog, &parcels, &rules.agricultural_classes);
    let common_plan = subject.flag(catalog, "common_plan");
    let approved_swppp = subject.flag(catalog, "approved_swppp");
    let exemptions = split_list(
        subject
            .text(catalog, "exemptions")
            .map(Value::String)
            .as_ref(),
    );

    let footprint: Option<Geometry<f64>> = if disturbed.0.is_empty() {
        subject.footprint.clone()
    } else {
        Some(Geometry::MultiPolygon(disturbed.clone()))
    };
    let water = waters::assess(catalog, footprint.as_ref(), subject.outfall);

    let bbox = footprint
        .as_ref()
        .and_then(|g| g.bounding_rect())
        .map(|r| [r.min().x, r.min().y, r.max().x, r.max().y]);
    let site = SiteInfo {
        id: subject.id.clone(),
        name: subject.name.clone(),
        status: subject.text(catalog, "status"),
        address: subject.text(catalog, "address"),
        applicant: subject.text(catalog, "applicant"),
        single_family,
        agricultural,
        common_plan,
        approved_swppp,
        exemptions,
        parcel_ids: parcels.iter().map(|p| p.id.clone()).collect(),
        bbox,
    };
    let disturbance = Disturbance {
        total_acres: total,
        peak_acres: peak.acres,
        peak_date: peak.date,
        phases: area::phase_acres(&subject.phases),
        outside_parcels_acres: outside,
        polygons: polys.len(),
    };
    decide(catalog, rules, clauses, site, disturbance, water)
}

fn acres(a: f64) -> String {
    format!("{a:.2} acres")
}

fn decide(
    catalog: &Catalog,
    rules: &Rules,
    clauses: &Clauses,
    site: SiteInfo,
    disturbance: Disturbance,
    water: WaterAssessment,
) -> Report {
    let total = disturbance.total_acres;
    let mut findings = Vec::new();
    let mut add = |rule: &str, clause: &str, met: Option<bool>, reason: String| {
        findings.push(Finding {
            rule: rule.into(),
            clause: clause.into(),
            met,
            reason,
        })
    };

    // A parcel checked before any plan exists: say that its acreage is an upper bound.
    let assumed = disturbance.phases.len() == 1 && disturbance.phases[0].phase == WHOLE_PARCEL;
    let mut add = |rule: &str, clause: &str, met: Option<bool>, reason: String| {
        let reason = if assumed && rule != "condition_a" && rule != "receiving_waters" {
            format!("If the whole parcel were disturbed: {reason}")
        } else {
            reason
        };
        add(rule, clause, met, reason)
    };
    let over_threshold = total >= rules.land_development_acres;
    let lda = over_threshold || (site.common_plan && total > 0.0);
    add(
        "land_development_activity",
        &clauses.land_development_activity,
        Some(lda),
        if over_threshold {
            format!(
                "{} disturbed, at or above the {} acre threshold.",
                acres(total),
                rules.land_development_acres
            )
        } else if lda {
            format!(
                "{} disturbed, below {} acre, but part of a larger common plan of development.",
                acres(total),
                rules.land_development_acres
            )
        } else if total == 0.0 {
            "No disturbance is recorded for this site.".into()
        } else {
            format!(
                "{} disturbed, below the {} acre threshold, and not part of a larger common plan.",
                acres(total),
                rules.land_development_acres
            )
        },
    );

    let mut exempt = false;
    for ex in &site.exemptions {
        let lower = ex.to_ascii_lowercase();
        let (ok, why) = if lower.contains("maintenance") {
            let ok = total < rules.condition_b_acres;
            (
                ok,
                if ok {
                    format!("Routine maintenance claimed; {} is under {} acres, so the exemption applies.", acres(total), rules.condition_b_acres)
                } else {
                    format!("Routine maintenance claimed, but {} is not under {} acres, so the exemption does not apply.", acres(total), rules.condition_b_acres)
                },
            )
        } else if lower.contains("agric") || lower.contains("silvic") {
            (true, format!("'{ex}' is claimed; agricultural and silvicultural activity is exempt. The officer should confirm the claim."))
        } else {
            (true, format!("'{ex}' is claimed under the exemptions clause; the officer should confirm it is one the law lists."))
        };
        exempt |= ok;
        add("exemption", &clauses.exemptions, Some(ok), why);
    }

    let b = total >= rules.condition_b_acres;
    add(
        "condition_b",
        &clauses.condition_b,
        Some(b),
        format!(
            "{} disturbed; Condition B applies at {} acres or more.",
            acres(total),
            rules.condition_b_acres
        ),
    );

    let in_c_range = total >= rules.land_development_acres && total < rules.condition_b_acres;
    let excluded = site.single_family || site.agricultural;
    let c = in_c_range && !excluded;
    add(
        "condition_c",
        &clauses.condition_c,
        Some(c),
        if !in_c_range {
            format!(
                "{} disturbed; Condition C covers {} to {} acres.",
                acres(total),
                rules.land_development_acres,
                rules.condition_b_acres
            )
        } else if site.single_family {
            format!("{} disturbed, but the site is a single-family residence, which Condition C excludes.", acres(total))
        } else if site.agricultural {
            format!(
                "{} disturbed, but the site is agricultural property, which Condition C excludes.",
                acres(total)
            )
        } else {
            format!("{} disturbed, within {} to {} acres, and not a single-family residence or agricultural property.", acres(total), rules.land_development_acres, rules.condition_b_acres)
        },
    );

    let over_peak = disturbance.peak_acres > rules.max_disturbed_at_once_acres + 1e-9;
    let five = over_peak && !site.approved_swppp;
    add(
        "five_acre_limit_exceeded",
        &clauses.five_acre_limit,
        Some(five),
        match (over_peak, site.approved_swppp) {
            (false, _) => format!(
                "Peak disturbed at one time is {}{}, within the {} acre limit{}.",
                acres(disturbance.peak_acres),
                disturbance.peak_date.map(|d| format!(" (from {d})")).unwrap_or_default(),
                rules.max_disturbed_at_once_acres,
                if total > rules.max_disturbed_at_once_acres { " even though the total is larger: the phasing keeps it under" } else { "" }
            ),
            (true, true) => format!("Peak disturbed at one time is {}, over {} acres, but an approved SWPPP allows it.", acres(disturbance.peak_acres), rules.max_disturbed_at_once_acres),
            (true, false) => format!(
                "Peak disturbed at one time is {}{}, over the {} acre limit, and there is no approved SWPPP allowing it.",
                acres(disturbance.peak_acres),
                disturbance.peak_date.map(|d| format!(" from {d}")).unwrap_or_default(),
                rules.max_disturbed_at_once_acres
            ),
        },
    );

    add(
        "condition_a",
        &clauses.condition_a,
        water.condition_a,
        if lda || water.condition_a.is_none() {
            water.condition_a_reason.clone()
        } else {
            format!(
                "{} The site is not a land development activity, so this has no consequence under the law.",
                water.condition_a_reason
            )
        },
    );
    add(
        "receiving_waters",
        &clauses.receiving_waters,
        Some(!water.names.is_empty()),
        if water.names.is_empty() {
            water.entry.reason.clone()
        } else {
            format!(
                "The SWPPP must name the receiving waters: {}.",
                water.names.join("; ")
            )
        },
    );

    let a = water.condition_a.unwrap_or(false);
    let full = lda && (a || b || c);
    add(
        "swppp_content",
        &clauses.post_construction,
        Some(full),
        if exempt {
            "An exemption applies; no SWPPP is required if the officer confirms it.".into()
        } else if full {
            let why: Vec<&str> = [(a, "A"), (b, "B"), (c, "C")]
                .iter()
                .filter(|x| x.0)
                .map(|x| x.1)
                .collect();
            let which = match why.as_slice() {
                [one] => format!("Condition {one} applies"),
                [init @ .., last] => format!("Conditions {} and {last} apply", init.join(", ")),
                [] => String::new(),
            };
            format!("{which}: the SWPPP must also include post-construction stormwater management practices.")
        } else if lda {
            "Land development activity without Condition A, B or C: a basic SWPPP with erosion and sediment controls only.".into()
        } else {
            "Not a land development activity: no SWPPP is required.".into()
        },
    );
    add(
        "licensed_professional",
        &clauses.licensed_professional,
        water.condition_a.map(|a| a && lda),
        match water.condition_a {
            Some(true) => "Condition A applies: a licensed professional must prepare the SWPPP.".into(),
            Some(false) => "Condition A does not apply: a licensed professional is not required by this clause.".into(),
            None => "Condition A is undetermined, so whether a licensed professional is required is undetermined.".into(),
        },
    );
    add(
        "inspections",
        &clauses.inspections,
        Some(lda && !exempt),
        if lda && !exempt {
            "Site inspections at least every 7 days and within 24 hours of a storm of 0.5 inch or more.".into()
        } else {
            "No inspection schedule is required for this site.".into()
        },
    );

    Report {
        site,
        conditions: Conditions {
            land_development_activity: lda,
            a: water.condition_a,
            b,
            c,
            five_acre_limit_exceeded: five,
            exempt,
        },
        disturbance,
        receiving_water_names: water.names,
        receiving_waters: water.candidates,
        entry: water.entry,
        downstream: water.downstream,
        trace_end: water.trace_end,
        divergences: water.divergences,
        first_impaired: water.first_impaired,
        tmdl_watersheds: water.tmdl,
        findings,
        data: DataInfo {
            law: clauses.law.clone(),
            data_set: catalog.manifest.name.clone(),
            layers: catalog.sources(),
            problems: catalog.problems(),
            generated: chrono::Utc::now().date_naive(),
            outfall_version: env!("CARGO_PKG_VERSION"),
        },
    }
}

/// Reports for a site by id.
pub fn check_site(catalog: &Catalog, id: &str) -> Result<Report> {
    let site = catalog.site(id)?;
    Ok(check(catalog, &Subject::from_site(catalog, site)))
}

/// Reports for a parcel treated as the disturbed area (what an applicant asks before a plan exists).
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

//! The demo data set gives, for every site, the results that data/clay/README.md documents
//! (the table in data/clay/expected_results.md, computed independently by the generator with
//! pyproj and shapely).

mod common;

use outfall_core::law::RuleId;
use outfall_core::screening::check_site;
use outfall_core::Catalog;

struct Expected {
    site: String,
    total: f64,
    peak: f64,
    peak_date: Option<String>,
    outside: f64,
    jurisdiction: Option<bool>,
    exemption: Option<bool>,
    lda: Option<bool>,
    b: Option<bool>,
    c: Option<bool>,
    limit_exceeded: Option<bool>,
    entry_rule: String,
    entry_reach: Option<String>,
    chain: Vec<String>,
    first_impaired_reach: Option<String>,
    a: Option<bool>,
    swppp_required: Option<bool>,
    swppp_full: Option<bool>,
    preparer: Option<bool>,
    inspections: Option<bool>,
    /// The five-acre limit's peak at one time before the approval date, when the cell gives it.
    before_approval: Option<f64>,
    status: Option<String>,
    status_recorded: Option<String>,
    approval: Option<Approval>,
    active_without_approval: Option<bool>,
    /// (fact, value, source): "single_family", "agricultural".
    land_use: Vec<(String, Option<bool>, Option<String>)>,
    /// (letter, verdict) of each claimed exemption.
    claims: Vec<(char, Option<bool>)>,
}

#[derive(Debug, PartialEq)]
struct Approval {
    decision: String,
    date: Option<String>,
    reference: Option<String>,
    body: Option<String>,
    source: String,
}

/// "approved 2026-03-20 ref SWPPP-2026-009 by officer from swppp_approval", or "none".
fn approval(cell: &str) -> Option<Approval> {
    if cell == "none" {
        return None;
    }
    let (head, source) = cell.split_once(" from ").expect("approval source");
    let w: Vec<&str> = head.split_whitespace().collect();
    assert_eq!((w[2], w[4]), ("ref", "by"), "{cell}");
    let opt = |s: &str| (s != "-" && s != "undated").then(|| s.to_string());
    Some(Approval {
        decision: w[0].to_string(),
        date: opt(w[1]),
        reference: opt(w[3]),
        body: opt(w[5]),
        source: source.to_string(),
    })
}

/// "single_family=no (site record: land_use); agricultural=no (parcel class 449)".
fn land_use(cell: &str) -> Vec<(String, Option<bool>, Option<String>)> {
    cell.split("; ")
        .map(|part| {
            let (fact, rest) = part.split_once('=').expect("fact=value");
            let (value, source) = rest.split_once(" (").expect("(source)");
            let source = source.trim_end_matches(')');
            (
                fact.to_string(),
                tri(value),
                (source != "no source").then(|| source.to_string()),
            )
        })
        .collect()
}

/// "(c) null; (k) null", or "none".
fn claims(cell: &str) -> Vec<(char, Option<bool>)> {
    if cell == "none" {
        return vec![];
    }
    cell.split("; ")
        .map(|part| {
            let letter = part.chars().nth(1).expect("(letter)");
            (letter, tri(&part[4..]))
        })
        .collect()
}

/// "yes", "no" or "null" as the cell's first word.
fn tri(s: &str) -> Option<bool> {
    let w = s.trim().split([' ', ':']).next().unwrap_or("");
    match w {
        "yes" => Some(true),
        "no" => Some(false),
        "null" => None,
        other => panic!("not yes/no/null: {other:?} in {s:?}"),
    }
}

fn expected_rows() -> Vec<Expected> {
    let text = std::fs::read_to_string(common::demo_dir().join("expected_results.md"))
        .expect("expected_results.md");
    text.lines()
        .filter(|l| l.starts_with("| S"))
        .map(|l| {
            let c: Vec<&str> = l.trim_matches('|').split(" | ").map(str::trim).collect();
            assert_eq!(c.len(), 25, "25 columns in {l}");
            let entry: Vec<&str> = c[12].split_whitespace().collect();
            let fi = c[14];
            Expected {
                site: c[0].split_whitespace().next().unwrap().to_string(),
                total: c[1].parse().unwrap(),
                peak: c[3].parse().unwrap(),
                peak_date: (c[4] != "-").then(|| c[4].to_string()),
                outside: c[5].parse().unwrap(),
                jurisdiction: tri(c[6]),
                exemption: tri(c[7]),
                lda: tri(c[8]),
                b: tri(c[9]),
                c: tri(c[10]),
                limit_exceeded: tri(c[11]),
                entry_rule: entry[0].to_string(),
                entry_reach: entry.get(1).filter(|s| **s != "-").map(|s| s.to_string()),
                chain: if c[13] == "-" {
                    vec![]
                } else {
                    c[13].split(" -> ").map(String::from).collect()
                },
                // "{name} {reach or waterbody id} ({listing}; {distance} m)"
                first_impaired_reach: (fi != "none").then(|| {
                    fi.split(" (")
                        .next()
                        .and_then(|head| head.split_whitespace().last())
                        .unwrap()
                        .to_string()
                }),
                a: tri(c[15]),
                swppp_required: tri(c[16]),
                swppp_full: tri(c[17]),
                preparer: tri(c[18]),
                inspections: tri(c[19]),
                before_approval: c[11]
                    .split_once(" (")
                    .filter(|(_, rest)| rest.contains("before the approval"))
                    .map(|(_, rest)| rest.split_whitespace().next().unwrap().parse().unwrap()),
                status: (c[20] != "not recorded")
                    .then(|| c[20].split_whitespace().next().unwrap().to_string()),
                status_recorded: match c[20].split_once(" (recorded '") {
                    Some((_, w)) => Some(w.trim_end_matches("')").to_string()),
                    None => (c[20] != "not recorded").then(|| c[20].to_string()),
                },
                approval: approval(c[21]),
                active_without_approval: tri(c[22]),
                land_use: land_use(c[23]),
                claims: claims(c[24]),
            }
        })
        .collect()
}

fn met(r: &outfall_core::report::Report, id: RuleId) -> Option<bool> {
    r.findings.iter().find(|f| f.rule == id).unwrap().met
}

#[test]
fn every_demo_site_matches_the_documented_results() {
    let cat = Catalog::open(&common::demo_dir()).expect("demo loads");
    assert!(
        cat.problems().is_empty(),
        "demo data has problems: {:?}",
        cat.problems()
    );
    let rows = expected_rows();
    assert_eq!(rows.len(), cat.sites.len(), "one documented row per site");
    assert!(
        rows.len() >= 14,
        "the demo covers the lake, outside and claim sites"
    );
    for e in rows {
        let r = check_site(&cat, &e.site).expect("site report");
        let d = &r.disturbance;
        let ctx = &e.site;
        assert!(
            (d.total_acres - e.total).abs() < 0.005,
            "{ctx} total {} vs {}",
            d.total_acres,
            e.total
        );
        assert!(
            (d.peak_acres - e.peak).abs() < 0.005,
            "{ctx} peak {} vs {}",
            d.peak_acres,
            e.peak
        );
        assert_eq!(
            d.peak_date.map(|x| x.to_string()),
            e.peak_date,
            "{ctx} peak date"
        );
        assert!(
            (d.outside_parcels_acres - e.outside).abs() < 0.005,
            "{ctx} outside {} vs {}",
            d.outside_parcels_acres,
            e.outside
        );
        let c = &r.conditions;
        let why = |id: RuleId| {
            let f = r.findings.iter().find(|f| f.rule == id).unwrap();
            format!("{}; needs {:?}", f.reason, f.missing)
        };
        assert_eq!(c.in_jurisdiction, e.jurisdiction, "{ctx} jurisdiction");
        assert_eq!(
            c.exempt,
            e.exemption,
            "{ctx} exemption: {}",
            why(RuleId::Exemption)
        );
        assert_eq!(
            (
                c.land_development_activity,
                c.b,
                c.c,
                c.five_acre_limit_exceeded
            ),
            (e.lda, e.b, e.c, e.limit_exceeded),
            "{ctx} LDA/B/C/5-acre"
        );
        assert_eq!(
            r.entry.rule, e.entry_rule,
            "{ctx} entry: {}",
            r.entry.reason
        );
        assert_eq!(r.entry.reach_id, e.entry_reach, "{ctx} entry reach");
        let mut chain: Vec<String> = Vec::new();
        for reach in &r.downstream {
            if chain.last() != Some(&reach.name) {
                chain.push(reach.name.clone());
            }
        }
        assert_eq!(chain, e.chain, "{ctx} downstream names");
        assert_eq!(
            r.first_impaired.as_ref().map(|f| f.reach_id.clone()),
            e.first_impaired_reach,
            "{ctx} first impaired"
        );
        assert_eq!(c.a, e.a, "{ctx} Condition A: {}", why(RuleId::ConditionA));
        assert_eq!(
            met(&r, RuleId::SwpppRequired),
            e.swppp_required,
            "{ctx} SWPPP required"
        );
        assert_eq!(met(&r, RuleId::SwpppFull), e.swppp_full, "{ctx} full SWPPP");
        assert_eq!(met(&r, RuleId::SwpppPreparer), e.preparer, "{ctx} preparer");
        assert_eq!(
            met(&r, RuleId::Inspections),
            e.inspections,
            "{ctx} inspections"
        );
        // The typed site record: the status code and the word recorded, the SWPPP decision
        // and where it was read, and the finding on work under way without an approval.
        assert_eq!(r.site.status(), e.status.as_deref(), "{ctx} status code");
        assert_eq!(
            r.site.status_recorded(),
            e.status_recorded.as_deref(),
            "{ctx} status as recorded"
        );
        let got = r.site.swppp_approval().as_ref().map(|a| Approval {
            decision: a.decision.as_str().to_string(),
            date: a.date.map(|d| d.to_string()),
            reference: a.reference.clone(),
            body: a.body.map(|b| {
                serde_json::to_value(b)
                    .unwrap()
                    .as_str()
                    .unwrap()
                    .to_string()
            }),
            source: a.source.clone(),
        });
        assert_eq!(got, e.approval, "{ctx} SWPPP approval");
        assert_eq!(
            r.site.approved_swppp(),
            e.approval
                .as_ref()
                .is_some_and(|a| a.decision == "approved"),
            "{ctx} approved_swppp"
        );
        assert_eq!(
            met(&r, RuleId::ActiveWithoutApproval),
            e.active_without_approval,
            "{ctx} active without approval: {}",
            why(RuleId::ActiveWithoutApproval)
        );
        let limit = r
            .findings
            .iter()
            .find(|f| f.rule == RuleId::FiveAcreLimit)
            .unwrap();
        match e.before_approval {
            Some(want) => {
                let got = limit.facts["before_approval_acres"].as_f64().unwrap();
                assert!(
                    (got - want).abs() < 0.005,
                    "{ctx} before approval {got} vs {want}"
                );
            }
            None => assert!(
                limit.met != Some(true) || limit.facts["before_approval_acres"].is_null(),
                "{ctx} the limit is exceeded before an approval the table does not show"
            ),
        }
        // Condition C's exclusion: the value and the source that decided it (the site
        // record first, the parcel class only when the record is silent), also among the
        // finding's sources.
        let c_sources = &r
            .findings
            .iter()
            .find(|f| f.rule == RuleId::ConditionC)
            .unwrap()
            .sources;
        for (fact, value, source) in &e.land_use {
            let (got, got_source) = match fact.as_str() {
                "single_family" => (r.site.single_family(), r.site.single_family_source()),
                "agricultural" => (r.site.agricultural(), r.site.agricultural_source()),
                other => panic!("{ctx}: unknown land-use fact {other}"),
            };
            assert_eq!(
                (got, got_source),
                (*value, source.as_deref()),
                "{ctx} {fact} and its source"
            );
            if let Some(s) = source {
                assert!(
                    c_sources.iter().any(|c| c == s),
                    "{ctx} C sources {c_sources:?}"
                );
            }
        }
        // Each claimed exemption by its (5) letter, and the verdict on it in the finding.
        let letters: Vec<Option<char>> = r.site.exemption_claims().iter().map(|x| x.code).collect();
        let want: Vec<Option<char>> = e.claims.iter().map(|x| Some(x.0)).collect();
        assert_eq!(letters, want, "{ctx} exemption claims");
        let ex = r
            .findings
            .iter()
            .find(|f| f.rule == RuleId::Exemption)
            .unwrap();
        for (letter, verdict) in &e.claims {
            let words = outfall_core::law::exemptions::code(*letter).unwrap().words;
            let verb = match verdict {
                Some(true) => "applies:",
                Some(false) => "does not apply:",
                None => "is claimed, unverified:",
            };
            let label = format!("(5)({letter}) \"{words}\" {verb}");
            assert!(
                ex.reason.contains(&label),
                "{ctx}: {label} in {}",
                ex.reason
            );
        }
        // A null finding always names what is missing.
        for f in &r.findings {
            assert_eq!(
                f.met.is_none(),
                !f.missing.is_empty(),
                "{ctx} {}: {:?}",
                f.rule.as_str(),
                f.missing
            );
        }
        // The applicant's names: the unnamed-tributary name, then the first named water.
        let want_names: Vec<String> = match e.chain.first() {
            Some(first) if first.starts_with("unnamed tributary to ") => {
                e.chain.iter().take(2).cloned().collect()
            }
            Some(first) => vec![first.clone()],
            None => vec![],
        };
        assert_eq!(
            r.receiving_water_names, want_names,
            "{ctx} receiving water names"
        );
    }
}

#[test]
fn the_demo_parcels_come_from_state_plane_feet_and_land_in_clay() {
    let cat = Catalog::open(&common::demo_dir()).expect("demo loads");
    let parcels = cat.layer(outfall_core::Role::Parcels).unwrap();
    let crs = parcels.source.crs.replace('_', " ");
    assert!(
        crs.contains("New York Central") && crs.contains("Feet"),
        "{crs}"
    );
    // Each parcel's own ACRES column (geodesic, from the generator) agrees with ours.
    for f in parcels.features.iter() {
        let theirs = f.properties.get("ACRES").and_then(|v| v.as_f64()).unwrap();
        let ours = outfall_core::area::area_acres(&geo_types::MultiPolygon(
            outfall_core::area::polygons_of(&f.geometry),
        ));
        assert!(
            (ours - theirs).abs() < 0.001 + theirs * 1e-4,
            "{}: {ours} vs {theirs}",
            f.id
        );
    }
    let bbox = parcels.bbox().unwrap();
    assert!(
        bbox.min().x > -76.35
            && bbox.max().x < -76.05
            && bbox.min().y > 43.08 // S15's lots, on Ley Creek south of the town line
            && bbox.max().y < 43.25,
        "{bbox:?}"
    );
}

/// The expected table's storm-sewer rows: (site, catch basins, pipe count, outfall id, entry
/// reach, first receiving water), read from the entry cell "storm_sewer 21974097 (catch
/// basins CB-04-1, CB-04-2 through 10 pipes, 1067 m, to outfall OF-04, ...)".
fn sewer_rows() -> Vec<(String, Vec<String>, usize, String, String, String)> {
    expected_rows()
        .into_iter()
        .filter(|e| e.entry_rule == "storm_sewer")
        .map(|e| {
            let text = std::fs::read_to_string(common::demo_dir().join("expected_results.md"))
                .expect("expected_results.md");
            let row = text
                .lines()
                .find(|l| l.starts_with(&format!("| {} ", e.site)))
                .expect("the row");
            let cell = row.split(" | ").nth(12).expect("entry cell");
            let inside = cell.split_once("(catch basins ").expect("catch basins").1;
            let (basins, rest) = inside.split_once(" through ").expect("through");
            let (pipes, rest) = rest.split_once(" pipes").expect("pipes");
            let outfall = rest.split_once("to outfall ").expect("outfall").1;
            let outfall = outfall.split(',').next().unwrap();
            (
                e.site.clone(),
                basins.split(", ").map(String::from).collect(),
                pipes.parse().expect("a pipe count"),
                outfall.to_string(),
                e.entry_reach.clone().expect("an entry reach"),
                e.chain[0].clone(),
            )
        })
        .collect()
}

/// The illustrative storm sewer (data/clay/storm.py): S04 drains through its pipes to Sawmill
/// Creek, and S05 to the tributary of Mud Creek although the Seneca River is nearer.
#[test]
fn the_demo_storm_sewer_sites_enter_at_their_outfalls() {
    let cat = Catalog::open(&common::demo_dir()).expect("demo loads");
    let rows = sewer_rows();
    let sites: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(sites, ["S04", "S05"], "two sites drain through pipes");
    for (site, basins, pipes, outfall, reach, water) in &rows {
        let r = check_site(&cat, site).expect("site report");
        assert_eq!(r.entry.rule, "storm_sewer", "{site}");
        assert_eq!(r.entry.reach_id.as_deref(), Some(reach.as_str()), "{site}");
        let sewer = r.entry.sewer.as_ref().expect("the sewer trace");
        assert!(sewer.unknown.is_none(), "{site}: {:?}", sewer.unknown);
        let inlets: Vec<&str> = sewer
            .trace
            .inlets
            .iter()
            .map(|i| i.inlet.as_str())
            .collect();
        assert_eq!(inlets, *basins, "{site} catch basins");
        assert_eq!(sewer.trace.pipes.len(), *pipes, "{site} pipes");
        assert!(sewer
            .trace
            .pipes
            .iter()
            .all(|p| p.evidence == outfall_core::storm::Evidence::Ids));
        assert_eq!(sewer.outfalls.len(), 1, "{site}");
        assert_eq!(sewer.outfalls[0].id, *outfall, "{site} outfall");
        assert_eq!(
            sewer.outfalls[0].receiving_water.as_deref(),
            Some(water.as_str()),
            "{site} receiving water"
        );
        assert_eq!(sewer.outfalls[0].source, Some("water at the outfall"));
    }
    // S05's pipes take its water away from its nearest water, the Seneca River (the flowline
    // nearest the disturbance is 21975029), to the tributary of Mud Creek.
    let s05 = check_site(&cat, "S05").unwrap();
    assert_eq!(rows[1].5, "unnamed tributary to Mud Creek");
    assert_ne!(s05.entry.reach_id.as_deref(), Some("21975029"));
    assert!(!s05
        .receiving_water_names
        .iter()
        .any(|n| n == "Seneca River"));
}

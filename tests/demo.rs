//! The demo data set gives, for every site, the results that data/clay/README.md documents
//! (the table in data/clay/expected_results.md, computed independently by the generator with
//! pyproj and shapely).

mod common;

use outfall::screening::check_site;
use outfall::Catalog;

struct Expected {
    site: String,
    total: f64,
    peak: f64,
    peak_date: Option<String>,
    outside: f64,
    lda: bool,
    b: bool,
    c: bool,
    limit_exceeded: bool,
    entry_rule: String,
    entry_reach: Option<String>,
    chain: Vec<String>,
    first_impaired_reach: Option<String>,
    a: Option<bool>,
}

fn yes(s: &str) -> bool {
    s.trim().starts_with("yes")
}

fn expected_rows() -> Vec<Expected> {
    let text = std::fs::read_to_string(common::demo_dir().join("expected_results.md"))
        .expect("expected_results.md");
    text.lines()
        .filter(|l| l.starts_with("| S"))
        .map(|l| {
            let c: Vec<&str> = l.trim_matches('|').split('|').map(str::trim).collect();
            let entry: Vec<&str> = c[11].split_whitespace().collect();
            let fi = c[13];
            Expected {
                site: c[0].split_whitespace().next().unwrap().to_string(),
                total: c[1].parse().unwrap(),
                peak: c[3].parse().unwrap(),
                peak_date: (c[4] != "-").then(|| c[4].to_string()),
                outside: c[5].parse().unwrap(),
                lda: yes(c[6]),
                b: yes(c[7]),
                c: yes(c[8]),
                limit_exceeded: yes(c[10]),
                entry_rule: entry[0].to_string(),
                entry_reach: entry.get(1).map(|s| s.to_string()),
                chain: if c[12] == "-" {
                    vec![]
                } else {
                    c[12].split(" -> ").map(String::from).collect()
                },
                first_impaired_reach: (fi != "none").then(|| {
                    fi.split_whitespace()
                        .find(|w| w.starts_with('R') && w[1..].chars().all(|x| x.is_ascii_digit()))
                        .unwrap()
                        .to_string()
                }),
                a: if c[14].starts_with("undetermined") {
                    None
                } else {
                    Some(yes(c[14]))
                },
            }
        })
        .collect()
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
        assert_eq!(
            c.a,
            e.a,
            "{ctx} Condition A: {}",
            r.findings
                .iter()
                .find(|f| f.rule == "condition_a")
                .map(|f| f.reason.as_str())
                .unwrap_or("")
        );
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
    let parcels = cat.layer(outfall::Role::Parcels).unwrap();
    let crs = parcels.source.crs.replace('_', " ");
    assert!(
        crs.contains("New York Central") && crs.contains("Feet"),
        "{crs}"
    );
    // Each parcel's own ACRES column (geodesic, from the generator) agrees with ours.
    for f in &parcels.features {
        let theirs = f.properties["ACRES"].as_f64().unwrap();
        let ours = outfall::area::area_acres(&geo_types::MultiPolygon(outfall::area::polygons_of(
            &f.geometry,
        )));
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
            && bbox.min().y > 43.1
            && bbox.max().y < 43.25,
        "{bbox:?}"
    );
}

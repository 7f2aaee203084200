//! Points all over the Town of Clay, checked against answers computed without the engine:
//! `data/clay/points.py` (shapely and pyproj, the NHDPlusV2 network walked by `DnHydroseq`)
//! wrote `tests/fixtures/clay_points.csv`. Each point is an 80 m square plan (1.6 acres).
//! For every point the engine must find the same entry water, the same names down to Lake
//! Ontario, the entry reach's PWL segment, the same first listed water and the same
//! Condition A (yes, no, or null when the 303(d) list loaded does not cover a water in scope).

mod common;

use outfall_core::attributes::Properties;
use outfall_core::load::Feature;
use outfall_core::screening::check_drawn;
use outfall_core::Catalog;
use std::collections::BTreeMap;

fn rows() -> Vec<BTreeMap<String, String>> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/clay_points.csv"
    );
    let mut rdr = csv::Reader::from_path(path).expect("clay_points.csv");
    rdr.deserialize().map(|r| r.expect("row")).collect()
}

/// The square plan from its "min_lon min_lat max_lon max_lat".
fn plan(id: &str, bbox: &str) -> Feature {
    let v: Vec<f64> = bbox.split(' ').map(|x| x.parse().unwrap()).collect();
    let rect = geo_types::Rect::new((v[0], v[1]), (v[2], v[3]));
    let geometry = geo_types::Geometry::Polygon(rect.to_polygon());
    let props = serde_json::json!({"phase": "1", "start": "2026-05-01", "end": "2026-09-30"});
    Feature {
        id: id.to_string(),
        geometry,
        properties: Properties::from(props.as_object().unwrap().clone()),
    }
}

fn tri(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "yes",
        Some(false) => "no",
        None => "null",
    }
}

#[test]
fn every_point_in_clay_drains_where_the_nhd_attributes_say() {
    let cat = Catalog::open(&common::demo_dir()).expect("demo loads");
    let rows = rows();
    assert_eq!(rows.len(), 150);
    let mut seen_null = 0;
    for e in &rows {
        let id = &e["id"];
        let r = check_drawn(&cat, id, &[plan(id, &e["bbox"])], None).expect("report");
        let ctx = format!("{id} at {},{}", e["lon"], e["lat"]);
        assert_eq!(r.entry.rule, e["entry_rule"], "{ctx}: {}", r.entry.reason);
        let water = r.entry.water_id.clone().unwrap_or_default();
        assert_eq!(water, e["entry_water"], "{ctx} entry water");
        assert_eq!(
            r.entry.reach_id.clone().unwrap_or_default(),
            e["entry_reach"],
            "{ctx} entry reach"
        );
        let mut chain: Vec<String> = Vec::new();
        if r.entry.water_kind.as_deref() == Some("waterbody") {
            let w = r.receiving_waters.iter().find(|w| w.id == water);
            chain.extend(w.map(|w| w.name.clone()));
        }
        for reach in &r.downstream {
            if chain.last() != Some(&reach.name) {
                chain.push(reach.name.clone());
            }
        }
        assert_eq!(chain.join(" -> "), e["names"], "{ctx} names");
        let segment = r.downstream.first().and_then(|s| s.segment.clone());
        assert_eq!(segment.unwrap_or_default(), e["segment"], "{ctx} segment");
        let fi = r.first_impaired.as_ref();
        assert_eq!(
            fi.map(|f| f.id.clone()).unwrap_or_default(),
            e["first_listed"],
            "{ctx} first listed water"
        );
        assert_eq!(
            fi.map(|f| f.reach_id.clone()).unwrap_or_default(),
            e["first_listed_reach"],
            "{ctx} where the path meets it"
        );
        assert_eq!(tri(r.conditions.a), e["water_test"], "{ctx} Condition A");
        if r.conditions.a.is_none() && r.entry.rule != "none" {
            seen_null += 1;
            let a = r
                .findings
                .iter()
                .find(|f| f.rule == outfall_core::law::RuleId::ConditionA)
                .unwrap();
            assert!(
                a.missing
                    .iter()
                    .any(|m| m.contains("the list loaded does not cover it")),
                "{ctx}: a null Condition A names the uncovered water: {:?}",
                a.missing
            );
        }
    }
    assert!(
        seen_null > 10,
        "points on the Oneida and Seneca rivers' waters are open questions"
    );
}

/// The engine's trace from every flowline of the county agrees, reach for reach, with a walk
/// down `DnHydroseq` read straight from the demo's flowline file.
#[test]
fn every_trace_in_the_county_follows_dnhydroseq() {
    let cat = Catalog::open(&common::demo_dir()).expect("demo loads");
    let hydro = cat.hydro.as_ref().expect("the demo has a network");
    let text = std::fs::read_to_string(common::demo_dir().join("flowlines.geojson")).unwrap();
    let fc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let feats = fc["features"].as_array().unwrap();
    let num = |f: &serde_json::Value, k: &str| f["properties"][k].as_i64().unwrap();
    let by_hydroseq: std::collections::HashMap<i64, i64> = feats
        .iter()
        .map(|f| (num(f, "Hydroseq"), num(f, "COMID")))
        .collect();
    let down: std::collections::HashMap<i64, Option<i64>> = feats
        .iter()
        .map(|f| {
            let next = by_hydroseq.get(&num(f, "DnHydroseq")).copied();
            (num(f, "COMID"), next)
        })
        .collect();
    let (li, layer) = cat
        .layers
        .iter()
        .enumerate()
        .find(|(_, l)| l.config.role == outfall_core::Role::Flowlines)
        .unwrap();
    assert_eq!(
        layer.features.len(),
        946,
        "the county's flowlines and their path to Lake Ontario"
    );
    for (fi, f) in layer.features.iter().enumerate() {
        let start = hydro.reach_of(li, fi).expect("every flowline is a reach");
        let (steps, _, _) = hydro.trace(start, f64::INFINITY);
        let engine: Vec<String> = steps
            .iter()
            .map(|s| hydro.reach_id(&cat.layers, s.reach).to_string())
            .collect();
        let mut walk = vec![f.id.clone()];
        let mut at: i64 = f.id.parse().unwrap();
        while let Some(Some(next)) = down.get(&at) {
            walk.push(next.to_string());
            at = *next;
        }
        assert_eq!(engine, walk, "trace from COMID {}", f.id);
        assert_eq!(
            walk.last().map(String::as_str),
            Some("21972746"),
            "ends at the Oswego River's mouth"
        );
    }
}

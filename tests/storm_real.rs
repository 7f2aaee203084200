//! The storm network on real municipal data (../shared/data/real/storm-canada and
//! stormcatchments): each direction rule on the city whose schema uses it, Calgary's
//! outfalls to the Bow River, and the Gwinnett and Johnson networks built and traced.

mod common;

use outfall_core::storm::{Evidence, StormNetwork};
use outfall_core::Catalog;
use std::collections::HashMap;
use std::path::Path;

/// Loads a manifest of storm layers over real files (absolute paths), or None to skip.
fn open(dir_rel: &str, layers: &str) -> Option<(tempfile::TempDir, Catalog)> {
    let dir = common::real(dir_rel)?;
    let manifest = format!(
        "allow_outside_paths = true\n{}",
        layers.replace("DIR", &dir.display().to_string())
    );
    let tmp = common::dataset(&manifest, &[]);
    let cat = Catalog::open(tmp.path()).unwrap_or_else(|e| panic!("{dir_rel} loads: {e}"));
    Some((tmp, cat))
}

fn net(cat: &Catalog) -> &StormNetwork {
    cat.storm.as_ref().expect("storm pipes build a network")
}

/// Each pipe's properties by id, read from the file itself (not through Outfall).
fn props(path: &Path, id_field: &str) -> HashMap<String, serde_json::Value> {
    let text = std::fs::read_to_string(path).expect("read geojson");
    let v: serde_json::Value = serde_json::from_str(&text).expect("geojson");
    v["features"]
        .as_array()
        .expect("features")
        .iter()
        .map(|f| {
            let p = f["properties"].clone();
            let id = match &p[id_field] {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            (id, p)
        })
        .collect()
}

const KITCHENER: &str = r#"
[[layer]]
role = "storm_pipes"
path = "DIR/pipes.geojson"
id_field = "STMPIPEID"
[layer.storm]
up_id_field = "UP_STMMANHOLEID"
down_id_field = "DN_STMMANHOLEID"
up_invert_field = "UP_INVERT"
down_invert_field = "DN_INVERT"
missing = ["-1", "0"]
[[layer]]
role = "storm_structures"
path = "DIR/manholes.geojson"
id_field = "STMMANHOLEID"
[layer.storm]
kind = "manhole"
[[layer]]
role = "storm_structures"
path = "DIR/outlets.geojson"
id_field = "STMOUTLETID"
[layer.storm]
kind = "outfall"
[[layer]]
role = "storm_structures"
path = "DIR/catchbasins.geojson"
id_field = "STMCATCHBASINID"
[layer.storm]
kind = "inlet"
"#;

#[test]
fn kitchener_pipes_are_directed_by_their_structure_ids() {
    let Some((_t, cat)) = open("storm-canada/kitchener", KITCHENER) else {
        return;
    };
    let net = net(&cat);
    let raw = props(
        &common::real_root().join("storm-canada/kitchener/pipes.geojson"),
        "STMPIPEID",
    );
    assert_eq!(net.pipes.len(), 55);
    let mut both = 0;
    for p in &net.pipes {
        let r = &raw[&p.id];
        let (up, dn) = (
            r["UP_STMMANHOLEID"].to_string(),
            r["DN_STMMANHOLEID"].to_string(),
        );
        if up != "-1" && dn != "-1" {
            both += 1;
            assert_eq!(p.evidence, Evidence::Ids, "pipe {}", p.id);
            assert_eq!(
                (net.nodes[p.from].id.as_str(), net.nodes[p.to].id.as_str()),
                (up.as_str(), dn.as_str())
            );
        }
    }
    assert!(both >= 42, "{both} pipes name both ends");
    // A -1 end is not an id: no node is called "-1".
    assert!(net.nodes.iter().all(|n| n.id != "-1"));
}

const CALGARY: &str = r#"
[[layer]]
role = "storm_pipes"
path = "DIR/storm_pipes.geojson"
id_field = "OBJECTID"
[layer.storm]
up_invert_field = "UP_INVERT"
down_invert_field = "DN_INVERT"
missing = ["0"]
[[layer]]
role = "storm_structures"
path = "DIR/manholes.geojson"
id_field = "OBJECTID"
[layer.storm]
kind = "manhole"
[[layer]]
role = "storm_structures"
path = "DIR/outfalls.geojson"
id_field = "STR_NUMBER"
[layer.storm]
kind = "outfall"
receiving_water_field = "OUT_INLET"
"#;

#[test]
fn calgary_pipes_run_downhill_by_their_inverts_and_zero_is_no_elevation() {
    let Some((_t, cat)) = open("storm-canada/calgary", CALGARY) else {
        return;
    };
    let net = net(&cat);
    let raw = props(
        &common::real_root().join("storm-canada/calgary/storm_pipes.geojson"),
        "OBJECTID",
    );
    let inv = |v: &serde_json::Value| v.as_f64().filter(|x| *x != 0.0);
    let mut by_inverts = 0;
    for p in &net.pipes {
        let r = &raw[&p.id];
        match (inv(&r["UP_INVERT"]), inv(&r["DN_INVERT"])) {
            (Some(u), Some(d)) if u != d => {
                by_inverts += 1;
                assert_eq!(p.evidence, Evidence::Inverts, "pipe {}", p.id);
            }
            _ => assert_eq!(
                p.evidence,
                Evidence::Undecided,
                "pipe {} has no two inverts",
                p.id
            ),
        }
    }
    assert_eq!(by_inverts, 32);
    // The two pipes whose up invert is below their down one are flagged.
    let adverse: Vec<&str> = net
        .problems
        .iter()
        .filter(|p| p.kind == "adverse_slope")
        .map(|p| p.feature.as_str())
        .collect();
    assert_eq!(adverse.len(), 2, "{adverse:?}");
}

#[test]
fn calgary_outfalls_reach_the_bow_river_and_their_pipes_say_so() {
    // Vertex order where a pipe lacks two inverts: B50 is cut off from its pipes otherwise
    // (its two nearest pipes each have a 0 invert).
    let fallback = CALGARY.replacen(
        "missing = [\"0\"]",
        "missing = [\"0\"]\nvertex_order = true",
        1,
    );
    let Some((_t, cat)) = open("storm-canada/calgary", &fallback) else {
        return;
    };
    let net = net(&cat);
    let raw = props(
        &common::real_root().join("storm-canada/calgary/storm_pipes.geojson"),
        "OBJECTID",
    );
    let outfalls: Vec<&str> = net
        .structures
        .iter()
        .filter(|s| s.kind.discharges())
        .map(|s| s.id.as_str())
        .collect();
    assert_eq!(outfalls.len(), 4);
    let mut drained = 0;
    for o in &outfalls {
        let s = &net.structures[net.structure(o).expect("outfall")];
        assert_eq!(s.receiving_water.as_deref(), Some("BOW RIVER"));
        let up = net.upstream(o).expect("an outfall is a node");
        assert!(!up.pipes.is_empty(), "pipes drain to {o}");
        drained += up.pipes.len();
        // No pipe the city files under one of these outfalls is traced to another. (Four
        // pipes filed under B53, an outfall outside the extract, run by their own inverts
        // into manhole 56118 and so to B51.)
        for p in &up.pipes {
            let filed = raw[&p.id]["OUTFALL"].as_str().unwrap_or_default();
            if outfalls.contains(&filed) {
                assert_eq!(filed, *o, "pipe {} drains to {o}", p.id);
            }
        }
    }
    // 1 + 8 + 13 + 4: every decided pipe but the dangling and the cut-off ones.
    assert_eq!(drained, 26, "pipes draining to the outfalls");
    // Downstream from every manhole on a decided pipe: each outfall reached is on the Bow.
    let manholes: Vec<usize> = (0..net.structures.len())
        .filter(|&i| net.structures[i].kind.as_str() == "manhole")
        .collect();
    let d = net.downstream(&manholes);
    assert!(!d.outfalls.is_empty());
    for o in d
        .outfalls
        .iter()
        .filter(|o| o.kind.is_some_and(|k| k.discharges()))
    {
        assert_eq!(o.receiving_water.as_deref(), Some("BOW RIVER"), "{}", o.id);
    }
}

const JOHNSON: &str = r#"
[[layer]]
role = "storm_pipes"
path = "DIR/storm_lines.shp"
id_field = "OBJECTID"
[layer.storm]
vertex_order = true
snap_m = 0.01
[[layer]]
role = "storm_structures"
path = "DIR/storm_pts.shp"
id_field = "OBJECTID"
[layer.storm]
type_field = "Type"
type_values = { "2" = "inlet", "8" = "culvert_inlet", "5" = "outfall", "9" = "culvert_outlet" }
"#;

#[test]
fn johnson_builds_by_vertex_order_and_names_the_point_off_every_line() {
    let Some((_t, cat)) = open("stormcatchments/johnson_vt", JOHNSON) else {
        return;
    };
    let net = net(&cat);
    assert_eq!(net.pipes.len(), 35);
    assert_eq!(net.structures.len(), 29);
    assert!(net
        .pipes
        .iter()
        .all(|p| p.evidence == Evidence::VertexOrder));
    let total_m: f64 = net.pipes.iter().map(|p| p.length_m).sum();
    assert!((total_m - 1461.54).abs() < 1.5, "{total_m}");
    let off: Vec<&str> = net
        .problems
        .iter()
        .filter(|p| p.kind == "unconnected_structure")
        .map(|p| p.feature.as_str())
        .collect();
    assert!(off.contains(&"244658"), "{off:?}");
    // Every catch basin on a pipe drains somewhere the pipes end.
    let basins: Vec<usize> = (0..net.structures.len())
        .filter(|&i| net.structures[i].kind.as_str() == "inlet")
        .collect();
    for &b in &basins {
        let d = net.downstream(&[b]);
        if !d.inlets[0].pipes.is_empty() {
            assert!(!d.outfalls.is_empty(), "{}", net.structures[b].id);
        }
    }
}

const GWINNETT: &str = r#"
[[layer]]
role = "storm_pipes"
path = "DIR/sw_closedconduit_0.shp"
id_field = "FACILITYID"
[layer.storm]
up_id_field = "USSTRUCTID"
down_id_field = "DSSTRUCTID"
up_invert_field = "UP_INVERT"
down_invert_field = "DOWN_INVER"
missing = ["0"]
[[layer]]
role = "storm_structures"
path = "DIR/sw_inlet_0.shp"
id_field = "FACILITYID"
[layer.storm]
kind = "inlet"
"#;

#[test]
fn gwinnett_builds_from_ids_and_traces() {
    let Some((_t, cat)) = open("stormcatchments/gwinnett", GWINNETT) else {
        return;
    };
    let net = net(&cat);
    assert_eq!(net.pipes.len(), 891);
    assert_eq!(net.structures.len(), 1140);
    assert!(net.pipes.iter().all(|p| p.evidence == Evidence::Ids));
    // The county digitised every pipe from its upstream structure: where both structures
    // are points, the upstream one sits at the first vertex.
    let on_points = net
        .pipes
        .iter()
        .filter(|p| net.nodes[p.from].structure.is_some() && net.nodes[p.to].structure.is_some())
        .count();
    assert_eq!(on_points, 865);
    for p in &net.pipes {
        let (Some(_), Some(_)) = (net.nodes[p.from].structure, net.nodes[p.to].structure) else {
            continue;
        };
        let coords: Vec<geo_types::Coord<f64>> =
            match &cat.layers[p.layer].features[p.feature].geometry {
                geo_types::Geometry::LineString(l) => l.0.clone(),
                geo_types::Geometry::MultiLineString(m) => {
                    m.0.iter().flat_map(|l| l.0.clone()).collect()
                }
                other => panic!("pipe {} is not a line: {other:?}", p.id),
            };
        let at = net.nodes[p.from].at;
        let d = |c: geo_types::Coord<f64>| (c.x - at[0]).hypot(c.y - at[1]);
        assert!(
            d(coords[0]) < d(coords[coords.len() - 1]),
            "pipe {} starts at its upstream structure",
            p.id
        );
    }
    assert!(
        !net.problems.iter().any(|p| p.kind == "cycle"),
        "the network is acyclic"
    );
    // Of 301 pairs of inverts, 182 put the upstream end lower: each is flagged.
    let against = net
        .problems
        .iter()
        .filter(|p| p.kind == "ids_against_inverts")
        .count();
    assert_eq!(against, 182);
    let start = net
        .structure(&net.nodes[net.pipes[0].from].id)
        .expect("a structure");
    let d = net.downstream(&[start]);
    assert!(d.complete() && !d.pipes.is_empty() && !d.outfalls.is_empty());
}

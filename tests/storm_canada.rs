//! The storm network on the six Canadian cities tests/storm_real.rs does not cover: Toronto,
//! Peterborough and Vancouver (direction from FROMMH/TOMH ids), Kingston
//! (UPSTREAM_INVERT/DOWNSTREAM_INVERT with a placeholder 1 m), Barrie (asset ids and inverts)
//! and Regina (STARTELEVATION/ENDELEVATION, then vertex order). Each manifest maps the city's
//! own schema, and each outcome is checked against the raw files read here with serde_json,
//! not through Outfall: the pipes each evidence decides, the path an id chain takes, the
//! sentinels that must never be read as elevations, and the problems `validate` reports.

mod common;

use outfall_core::storm::{Evidence, StormNetwork};
use outfall_core::Catalog;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// Loads a manifest of storm layers over the city's real files, or None to skip.
fn open(city: &str, layers: &str) -> Option<(tempfile::TempDir, Catalog)> {
    let dir = common::real(&format!("storm-canada/{city}"))?;
    let tmp = manifest_dir(&dir, layers);
    let cat = Catalog::open(tmp.path()).unwrap_or_else(|e| panic!("{city} loads: {e}"));
    Some((tmp, cat))
}

fn manifest_dir(dir: &std::path::Path, layers: &str) -> tempfile::TempDir {
    let manifest = format!(
        "allow_outside_paths = true\n{}",
        layers.replace("DIR", &dir.display().to_string())
    );
    common::dataset(&manifest, &[])
}

fn net(cat: &Catalog) -> &StormNetwork {
    cat.storm.as_ref().expect("storm pipes build a network")
}

/// The features of a real file, read as plain JSON.
fn features(city: &str, file: &str) -> Vec<Value> {
    let path = common::real_root().join(format!("storm-canada/{city}/{file}"));
    let text = std::fs::read_to_string(&path).expect("read geojson");
    let v: Value = serde_json::from_str(&text).expect("json");
    v["features"].as_array().expect("features").clone()
}

/// A property as text (numbers too), None when null, absent or blank.
fn text(f: &Value, key: &str) -> Option<String> {
    match &f["properties"][key] {
        Value::Null => None,
        Value::String(s) => Some(s.trim().to_string()).filter(|s| !s.is_empty()),
        other => Some(other.to_string()),
    }
}

fn number(f: &Value, key: &str) -> Option<f64> {
    f["properties"][key].as_f64()
}

/// The evidence Outfall gave each pipe, by pipe id.
fn evidence(net: &StormNetwork) -> HashMap<&str, Evidence> {
    net.pipes
        .iter()
        .map(|p| (p.id.as_str(), p.evidence))
        .collect()
}

fn count(net: &StormNetwork, e: Evidence) -> usize {
    net.pipes.iter().filter(|p| p.evidence == e).count()
}

fn problems<'a>(net: &'a StormNetwork, kind: &str) -> Vec<&'a str> {
    net.problems
        .iter()
        .filter(|p| p.kind == kind)
        .map(|p| p.feature.as_str())
        .collect()
}

/// Inverts of a pipe as the city files them, with the city's placeholders taken out.
fn inverts(f: &Value, up: &str, down: &str, real: impl Fn(f64) -> bool) -> Option<(f64, f64)> {
    let u = number(f, up).filter(|x| real(*x))?;
    let d = number(f, down).filter(|x| real(*x))?;
    Some((u, d))
}

/// (pipe id, up id, down id) of every pipe naming both ends.
fn id_pairs(pipes: &[Value], id: &str, up: &str, down: &str) -> Vec<(String, String, String)> {
    pipes
        .iter()
        .filter_map(|f| Some((text(f, id)?, text(f, up)?, text(f, down)?)))
        .collect()
}

/// The raw id chain from `start`: follow the one pipe whose up id is the current id, to its
/// down id, until none leaves. None when a node has two pipes leaving or the chain loops.
fn chain(pairs: &[(String, String, String)], start: &str) -> Option<(Vec<String>, String)> {
    let mut leaving: HashMap<&str, Vec<(&str, &str)>> = HashMap::new();
    for (p, u, d) in pairs {
        leaving.entry(u).or_default().push((p, d));
    }
    let (mut cur, mut path, mut seen) = (start, Vec::new(), HashSet::new());
    while let Some(next) = leaving.get(cur) {
        if next.len() != 1 || !seen.insert(cur) {
            return None;
        }
        path.push(next[0].0.to_string());
        cur = next[0].1;
    }
    Some((path, cur.to_string()))
}

/// Outfall's downstream trace from a structure, as (pipe ids in order, end node ids).
fn traced(net: &StormNetwork, start: &str) -> (Vec<String>, Vec<String>, f64) {
    let s = net.structure(start).expect("a structure");
    let d = net.downstream(&[s]);
    let ends = d.outfalls.iter().map(|o| o.id.clone()).collect();
    (d.inlets[0].pipes.clone(), ends, d.inlets[0].length_m)
}

/// Compares every structure's raw id chain (unambiguous, at least `min_len` pipes long) with
/// Outfall's trace from it: (how many agree, the structures where they differ). A chain can
/// differ only where a pipe without both ids joins it by snapping, which the ids cannot see.
fn chains_agree(
    net: &StormNetwork,
    pairs: &[(String, String, String)],
    min_len: usize,
) -> (usize, Vec<String>) {
    let (mut agreed, mut differ) = (0, Vec::new());
    for s in &net.structures {
        let Some((path, end)) = chain(pairs, &s.id) else {
            continue;
        };
        if path.len() < min_len {
            continue;
        }
        let (pipes, ends, _) = traced(net, &s.id);
        if pipes == path && ends == [end] {
            agreed += 1;
        } else {
            differ.push(s.id.clone());
        }
    }
    (agreed, differ)
}

const TORONTO: &str = r#"
[[layer]]
role = "storm_pipes"
path = "DIR/mains.geojson"
id_field = "FACILITYID"
[layer.storm]
up_id_field = "FROMMH"
down_id_field = "TOMH"
up_invert_field = "UPELEV"
down_invert_field = "DOWNELEV"
missing = ["0"]
[[layer]]
role = "storm_structures"
path = "DIR/manholes.geojson"
id_field = "FACILITYID"
[layer.storm]
kind = "manhole"
[[layer]]
role = "storm_structures"
path = "DIR/inlets.geojson"
id_field = "FACILITYID"
[layer.storm]
kind = "inlet"
"#;

#[test]
fn toronto_follows_frommh_tomh_and_names_the_inlets_no_lead_joins() {
    let Some((_t, cat)) = open("toronto", TORONTO) else {
        return;
    };
    let net = net(&cat);
    let mains = features("toronto", "mains.geojson");
    let pairs = id_pairs(&mains, "FACILITYID", "FROMMH", "TOMH");
    assert_eq!((net.pipes.len(), pairs.len()), (307, 307));
    assert_eq!(count(net, Evidence::Ids), 307, "every main names both ends");
    for (p, up, down) in &pairs {
        let pipe = net.pipes.iter().find(|x| &x.id == p).expect("pipe");
        assert_eq!(
            (&net.nodes[pipe.from].id, &net.nodes[pipe.to].id),
            (up, down),
            "pipe {p} runs FROMMH -> TOMH"
        );
    }
    // The city's inverts never contradict its ids, so validate finds no disagreement.
    let against = mains
        .iter()
        .filter_map(|f| inverts(f, "UPELEV", "DOWNELEV", |x| x != 0.0))
        .filter(|(u, d)| u < d)
        .count();
    assert_eq!(against, 0);
    assert!(problems(net, "ids_against_inverts").is_empty());
    // Every id chain of two pipes or more is the trace Outfall follows, pipe for pipe.
    let (agreed, differ) = chains_agree(net, &pairs, 2);
    assert!(differ.is_empty(), "{differ:?}");
    assert!(agreed >= 100, "{agreed} chains compared");
    // MH3452913603 drains through twelve storm mains to CN7781, a connection the extract
    // has no structure for: where the water goes next is outside the data, and no outfall
    // is claimed (Toronto's discharge-point layer is empty here).
    let (pipes, ends, length_m) = traced(net, "MH3452913603");
    assert_eq!(pipes.len(), 12);
    assert_eq!(
        (pipes[0].as_str(), ends),
        ("SL1475812", vec!["CN7781".to_string()])
    );
    assert!(length_m > 0.0);
    assert!(net.structures.iter().all(|s| !s.kind.discharges()));
    // Toronto publishes catch basins without their leads: each is on no pipe, and validate
    // says so for every one (none lies within the 1 m snap of a pipe end).
    let inlets: HashSet<String> = features("toronto", "inlets.geojson")
        .iter()
        .filter_map(|f| text(f, "FACILITYID"))
        .collect();
    let off: HashSet<String> = problems(net, "unconnected_structure")
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(inlets.len(), 350);
    assert!(inlets.is_subset(&off), "every inlet is flagged");
}

const PETERBOROUGH: &str = r#"
[[layer]]
role = "storm_pipes"
path = "DIR/mains.geojson"
id_field = "FACILITYID"
[layer.storm]
up_id_field = "FROMMH"
down_id_field = "TOMH"
up_invert_field = "UPELEV"
down_invert_field = "DOWNELEV"
missing = ["0"]
[[layer]]
role = "storm_structures"
path = "DIR/manholes.geojson"
id_field = "FACILITYID"
[layer.storm]
kind = "manhole"
[[layer]]
role = "storm_structures"
path = "DIR/inlets.geojson"
id_field = "FACILITYID"
[layer.storm]
kind = "inlet"
[[layer]]
role = "storm_structures"
path = "DIR/outfalls.geojson"
id_field = "FACILITYID"
[layer.storm]
kind = "outfall"
"#;

#[test]
fn peterborough_catch_basin_165374_reaches_outfall_139965_through_ten_pipes() {
    let Some((_t, cat)) = open("peterborough", PETERBOROUGH) else {
        return;
    };
    let net = net(&cat);
    let mains = features("peterborough", "mains.geojson");
    let pairs = id_pairs(&mains, "FACILITYID", "FROMMH", "TOMH");
    assert_eq!(net.pipes.len(), 815);
    let ev = evidence(net);
    for (p, _, _) in &pairs {
        assert_eq!(ev[p.as_str()], Evidence::Ids, "pipe {p}");
    }
    assert!(count(net, Evidence::Ids) >= pairs.len());
    // The lead from catch basin 165374 and nine mains to outfall 139965, by the ids in the
    // file; the length is the city's own SHAPE.STLength() summed (metres, UTM 17N).
    let (path, end) = chain(&pairs, "165374").expect("an unambiguous chain");
    assert_eq!((path.len(), end.as_str()), (10, "139965"));
    let city_m: f64 = mains
        .iter()
        .filter(|f| text(f, "FACILITYID").is_some_and(|id| path.contains(&id)))
        .map(|f| number(f, "SHAPE.STLength()").expect("length"))
        .sum();
    let s = net.structure("165374").expect("the catch basin");
    let d = net.downstream(&[s]);
    assert_eq!(d.inlets[0].pipes, path);
    assert_eq!(d.outfalls.len(), 1);
    assert_eq!(d.outfalls[0].id, "139965");
    assert_eq!(d.outfalls[0].kind.map(|k| k.as_str()), Some("outfall"));
    assert!(d.complete() && d.pipes.iter().all(|p| p.evidence == Evidence::Ids));
    let got = d.inlets[0].length_m;
    assert!(
        (got - city_m).abs() / city_m < 0.01,
        "{got} m vs the city's {city_m:.1} m"
    );
    // Upstream of the outfall, the catch basin and every pipe on its path.
    let up = net.upstream("139965").expect("the outfall is a node");
    assert!(up.structures.iter().any(|s| s.id == "165374"));
    assert!(path.iter().all(|p| up.pipes.iter().any(|x| &x.id == p)));
    // Where they differ, a pipe lacking an id joins the chain by snapping (e.g. 133883 at
    // manhole 305715 below 165246), which a walk over the ids alone cannot see.
    let (agreed, differ) = chains_agree(net, &pairs, 3);
    assert!(
        agreed >= 300 && differ.len() * 5 <= agreed,
        "{agreed} agree; {differ:?}"
    );
    assert!(differ.contains(&"165246".to_string()));
    // A pipe with ids never disagrees with its inverts here (checked on the raw file), and
    // validate names the one loop in the extract.
    let against = mains
        .iter()
        .filter(|f| text(f, "FROMMH").is_some() && text(f, "TOMH").is_some())
        .filter_map(|f| inverts(f, "UPELEV", "DOWNELEV", |x| x != 0.0))
        .filter(|(u, d)| u < d)
        .count();
    assert_eq!(against, problems(net, "ids_against_inverts").len());
    assert_eq!(
        problems(net, "cycle").len(),
        1,
        "{:?}",
        problems(net, "cycle")
    );
}

/// Vancouver: mains by `objectid`, since the city's `facilityid` repeats (509131 is on two).
const VANCOUVER: &str = r#"
[[layer]]
role = "storm_pipes"
path = "DIR/mains.geojson"
id_field = "objectid"
[layer.storm]
up_id_field = "frommh"
down_id_field = "tomh"
[[layer]]
role = "storm_structures"
path = "DIR/manholes.geojson"
id_field = "facilityid"
[layer.storm]
kind = "manhole"
"#;

#[test]
fn vancouver_runs_frommh_to_tomh_and_refuses_a_repeated_facility_id() {
    let Some((_t, cat)) = open("vancouver", VANCOUVER) else {
        return;
    };
    let net = net(&cat);
    let mains = features("vancouver", "mains.geojson");
    let pairs = id_pairs(&mains, "objectid", "frommh", "tomh");
    assert_eq!((net.pipes.len(), count(net, Evidence::Ids)), (137, 137));
    assert_eq!(pairs.len(), 137);
    let (agreed, differ) = chains_agree(net, &pairs, 2);
    assert!(
        differ.is_empty() && agreed >= 40,
        "{agreed} agree; {differ:?}"
    );
    assert!(problems(net, "undecided").is_empty() && problems(net, "cycle").is_empty());
    // The same mains keyed by the city's facilityid: the load refuses, naming the id.
    let dir = common::real_root().join("storm-canada/vancouver");
    let by_facility = VANCOUVER.replacen("id_field = \"objectid\"", "id_field = \"facilityid\"", 1);
    let tmp = manifest_dir(&dir, &by_facility);
    let err = Catalog::open(tmp.path())
        .expect_err("a repeated id")
        .to_string();
    assert!(
        err.contains("509131") && err.contains("mains.geojson"),
        "{err}"
    );
}

#[test]
fn vancouver_inverts_with_their_zero_rows_agree_with_the_ids() {
    let Some(dir) = common::real("storm-canada/vancouver") else {
        return;
    };
    // The as-built inverts are a separate Esri JSON table keyed by facilityid; Outfall reads
    // no table joins, so the test writes the mains with their inverts joined as GeoJSON.
    let rows = read_invert_rows(&dir.join("invert_rows.geojson"));
    let mut mains = features("vancouver", "mains.geojson");
    for f in &mut mains {
        let (u, d) = text(f, "facilityid")
            .and_then(|id| rows.get(&id).cloned())
            .unwrap_or((Value::Null, Value::Null));
        f["properties"]["UPSTREAM_INVERT"] = u;
        f["properties"]["DWNSTREAM_INVERT"] = d;
    }
    let joined = serde_json::json!({"type": "FeatureCollection", "features": mains});
    let layers = VANCOUVER.replace("DIR/mains.geojson", "mains_inverts.geojson").replace(
        "down_id_field = \"tomh\"",
        "down_id_field = \"tomh\"\nup_invert_field = \"UPSTREAM_INVERT\"\ndown_invert_field = \"DWNSTREAM_INVERT\"\nmissing = [\"0\"]",
    );
    let tmp = manifest_dir(&dir, &layers);
    std::fs::write(tmp.path().join("mains_inverts.geojson"), joined.to_string()).unwrap();
    let cat = Catalog::open(tmp.path()).expect("joined mains load");
    let net = net(&cat);
    // 0 is the source's missing-data marker: a pipe with a 0 is never compared, and of the
    // rest, those whose upstream invert is lower are the ones validate names.
    let real = |x: f64| x != 0.0;
    let zero_rows = mains
        .iter()
        .filter(|f| text(f, "UPSTREAM_INVERT").is_some())
        .filter(|f| inverts(f, "UPSTREAM_INVERT", "DWNSTREAM_INVERT", real).is_none())
        .count();
    assert!(zero_rows >= 10, "{zero_rows} rows carry the 0 marker");
    let mut want: Vec<String> = mains
        .iter()
        .filter(|f| matches!(inverts(f, "UPSTREAM_INVERT", "DWNSTREAM_INVERT", real), Some((u, d)) if u < d))
        .filter_map(|f| text(f, "objectid"))
        .collect();
    let mut got: Vec<String> = problems(net, "ids_against_inverts")
        .into_iter()
        .map(String::from)
        .collect();
    want.sort();
    got.sort();
    assert_eq!(got, want);
    assert_eq!(count(net, Evidence::Ids), 137, "ids still decide");
}

/// COV_SOURCE_KEY -> (UPSTREAM_INVERT, DWNSTREAM_INVERT) of the Esri JSON rows.
fn read_invert_rows(path: &std::path::Path) -> HashMap<String, (Value, Value)> {
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let a = &r["attributes"];
            let key = a["COV_SOURCE_KEY"].as_str().unwrap().to_string();
            (
                key,
                (a["UPSTREAM_INVERT"].clone(), a["DWNSTREAM_INVERT"].clone()),
            )
        })
        .collect()
}

/// Kingston's inlets sit about 1 m from their leads' ends, so the snap is 1.5 m; its only
/// placeholder invert in this extract is 1 (Lake Ontario is at 74.5 m).
const KINGSTON: &str = r#"
[[layer]]
role = "storm_pipes"
path = "DIR/mains.geojson"
id_field = "STORM_SEWER_ID"
[layer.storm]
up_invert_field = "UPSTREAM_INVERT"
down_invert_field = "DOWNSTREAM_INVERT"
missing = ["1"]
snap_m = 1.5
[[layer]]
role = "storm_structures"
path = "DIR/inlets.geojson"
id_field = "INLET_ID"
[layer.storm]
kind = "inlet"
"#;

/// Kingston's real inverts lie in (60, 200) m; rows at <= 2 m are placeholders (its note).
fn kingston_real(x: f64) -> bool {
    (60.0..200.0).contains(&x)
}

#[test]
fn kingston_runs_downhill_by_its_inverts_and_never_reads_the_1_m_placeholder() {
    let Some((_t, cat)) = open("kingston", KINGSTON) else {
        return;
    };
    let net = net(&cat);
    let mains = features("kingston", "mains.geojson");
    let (up, down) = ("UPSTREAM_INVERT", "DOWNSTREAM_INVERT");
    let ev = evidence(net);
    let mut by_inverts = 0;
    for f in &mains {
        let id = text(f, "STORM_SEWER_ID").unwrap();
        match inverts(f, up, down, kingston_real) {
            Some((u, d)) if u != d => {
                by_inverts += 1;
                assert_eq!(ev[id.as_str()], Evidence::Inverts, "pipe {id}");
            }
            _ => assert_eq!(ev[id.as_str()], Evidence::Undecided, "pipe {id}"),
        }
    }
    assert_eq!(count(net, Evidence::Inverts), by_inverts);
    assert!(by_inverts >= 70, "{by_inverts}");
    // A placeholder at one end leaves the pipe undecided: read as 1 m it would turn the
    // pipe toward that end (and call eight of them adverse).
    let half: Vec<&Value> = mains
        .iter()
        .filter(|f| {
            let real = [up, down].map(|k| number(f, k).map(kingston_real));
            matches!(real, [Some(true), Some(false)] | [Some(false), Some(true)])
        })
        .collect();
    assert_eq!(half.len(), 16);
    for f in &half {
        let id = text(f, "STORM_SEWER_ID").unwrap();
        assert_eq!(ev[id.as_str()], Evidence::Undecided, "pipe {id}");
    }
    let adverse = |real: &dyn Fn(f64) -> bool| {
        mains
            .iter()
            .filter_map(|f| inverts(f, up, down, real))
            .filter(|(u, d)| u < d)
            .count()
    };
    assert_eq!(
        problems(net, "adverse_slope").len(),
        adverse(&kingston_real)
    );
    let naive = KINGSTON.replacen("missing = [\"1\"]\n", "", 1);
    let (_t2, cat2) = open("kingston", &naive).expect("loads");
    let net2 = cat2.storm.as_ref().unwrap();
    assert_eq!(count(net2, Evidence::Inverts), by_inverts + 16);
    assert_eq!(
        problems(net2, "adverse_slope").len(),
        adverse(&|x| x != 0.0),
        "read as elevations, the placeholders make pipes adverse"
    );
    assert!(problems(net2, "adverse_slope").len() > problems(net, "adverse_slope").len());
    // The city's outlet column names where nine pipes discharge: each such pipe the inverts
    // decide ends where no decided pipe leaves.
    for f in mains
        .iter()
        .filter(|f| text(f, "DOWNSTREAM_OUTLET_ID").is_some())
    {
        let id = text(f, "STORM_SEWER_ID").unwrap();
        let p = net.pipes.iter().find(|p| p.id == id).unwrap();
        if p.evidence == Evidence::Inverts {
            assert!(
                !net.pipes
                    .iter()
                    .any(|q| q.from == p.to && q.evidence != Evidence::Undecided),
                "pipe {id} discharges at outlet {:?}",
                text(f, "DOWNSTREAM_OUTLET_ID")
            );
        }
    }
    // With the 1.5 m snap nearly every inlet is on its lead.
    let off = problems(net, "unconnected_structure").len();
    assert!(off <= 6, "{off} inlets off every pipe");
}

const BARRIE: &str = r#"
[[layer]]
role = "storm_pipes"
path = "DIR/mains.geojson"
id_field = "ASSETID"
[layer.storm]
up_id_field = "FROM_ID"
down_id_field = "TO_ID"
up_invert_field = "INV_UP_ELV"
down_invert_field = "INV_DN_ELV"
[[layer]]
role = "storm_structures"
path = "DIR/devices.geojson"
id_field = "ASSETID"
[layer.storm]
type_field = "TYPE"
type_values = { "CATCH BASIN" = "inlet", "DCB" = "inlet", "DICB" = "inlet", "DITCH INLET" = "inlet", "CBMH" = "inlet", "DCBMH" = "inlet", "MAINTENANCE HOLE" = "manhole", "JUNCTION" = "manhole", "OUTFALL" = "outfall", "HEADWALL" = "outfall" }
"#;

#[test]
fn barrie_takes_asset_ids_first_then_inverts_and_flags_where_they_disagree() {
    let Some((_t, cat)) = open("barrie", BARRIE) else {
        return;
    };
    let net = net(&cat);
    let mains = features("barrie", "mains.geojson");
    let devices: HashSet<String> = features("barrie", "devices.geojson")
        .iter()
        .filter_map(|f| text(f, "ASSETID"))
        .collect();
    let ev = evidence(net);
    let (mut want, mut against) = (HashMap::new(), Vec::new());
    for f in &mains {
        let id = text(f, "ASSETID").unwrap();
        let (u, d) = (text(f, "FROM_ID"), text(f, "TO_ID"));
        let on_device = |x: &Option<String>| x.as_ref().is_some_and(|x| devices.contains(x));
        let inv = inverts(f, "INV_UP_ELV", "INV_DN_ELV", |_| true);
        let e = if (u.is_some() && d.is_some()) || on_device(&u) || on_device(&d) {
            if matches!(inv, Some((a, b)) if a < b) {
                against.push(id.clone());
            }
            Evidence::Ids
        } else if matches!(inv, Some((a, b)) if a != b) {
            Evidence::Inverts
        } else {
            Evidence::Undecided
        };
        *want.entry(e).or_insert(0) += 1;
        assert_eq!(ev[id.as_str()], e, "pipe {id}");
    }
    assert_eq!(want[&Evidence::Ids], count(net, Evidence::Ids));
    assert!(want[&Evidence::Ids] >= 269 && want[&Evidence::Inverts] >= 1);
    let mut got: Vec<&str> = problems(net, "ids_against_inverts");
    got.sort();
    against.sort();
    assert_eq!(got, against);
    assert_eq!(against.len(), 2);
    // Catch basin 100103017 drains through twelve pipes to headwall 100102862.
    let pairs = id_pairs(&mains, "ASSETID", "FROM_ID", "TO_ID");
    let (path, end) = chain(&pairs, "100103017").expect("a chain");
    assert_eq!((path.len(), end.as_str()), (12, "100102862"));
    let (pipes, ends, length_m) = traced(net, "100103017");
    assert_eq!((pipes, ends), (path.clone(), vec![end]));
    let city_m: f64 = mains
        .iter()
        .filter(|f| text(f, "ASSETID").is_some_and(|id| path.contains(&id)))
        .map(|f| number(f, "SHAPE_Length").unwrap())
        .sum();
    assert!(
        (length_m - city_m).abs() / city_m < 0.01,
        "{length_m} vs {city_m}"
    );
    // As in Peterborough, a chain may differ where a pipe without both ids joins it by
    // snapping; most do not.
    let (agreed, differ) = chains_agree(net, &pairs, 3);
    assert!(
        agreed >= 100 && differ.len() * 5 <= agreed,
        "{agreed} agree; {differ:?}"
    );
}

/// Regina publishes no node ids: STARTELEVATION/ENDELEVATION, with 0 and the placeholder 1
/// as missing (its real inverts are 500-700 m).
const REGINA: &str = r#"
[[layer]]
role = "storm_pipes"
path = "DIR/storm_pipes.geojson"
id_field = "GISID"
[layer.storm]
up_invert_field = "STARTELEVATION"
down_invert_field = "ENDELEVATION"
missing = ["0", "1"]
[[layer]]
role = "storm_structures"
path = "DIR/manholes.geojson"
id_field = "GISID"
[layer.storm]
kind = "manhole"
[[layer]]
role = "storm_structures"
path = "DIR/catchbasins.geojson"
id_field = "GISID"
[layer.storm]
kind = "inlet"
[[layer]]
role = "storm_structures"
path = "DIR/outfalls.geojson"
id_field = "OUTLET_NUMBER"
[layer.storm]
kind = "outfall"
"#;

fn regina_real(x: f64) -> bool {
    (500.0..700.0).contains(&x)
}

#[test]
fn regina_runs_by_start_and_end_elevations_then_by_vertex_order() {
    let Some((_t, cat)) = open("regina", REGINA) else {
        return;
    };
    let net = net(&cat);
    let pipes = features("regina", "storm_pipes.geojson");
    let (s, e) = ("STARTELEVATION", "ENDELEVATION");
    let ev = evidence(net);
    let decided: Vec<&Value> = pipes
        .iter()
        .filter(|f| matches!(inverts(f, s, e, regina_real), Some((u, d)) if u != d))
        .collect();
    for f in &pipes {
        let id = text(f, "GISID").unwrap();
        let want = if decided.iter().any(|g| text(g, "GISID") == Some(id.clone())) {
            Evidence::Inverts
        } else {
            Evidence::Undecided
        };
        assert_eq!(ev[id.as_str()], want, "pipe {id}");
    }
    // GISID 1244 carries the placeholder 1.0 at both ends and 13166 a 0 at one: neither is
    // an elevation.
    assert_eq!(ev["1244"], Evidence::Undecided);
    assert_eq!(ev["13166"], Evidence::Undecided);
    let adverse = decided
        .iter()
        .filter(|f| matches!(inverts(f, s, e, regina_real), Some((u, d)) if u < d))
        .count();
    assert_eq!(problems(net, "adverse_slope").len(), adverse);
    // Each pipe the inverts decide starts at the end with the higher elevation.
    for f in &decided {
        let id = text(f, "GISID").unwrap();
        let (u, d) = inverts(f, s, e, regina_real).unwrap();
        let c = f["geometry"]["coordinates"].as_array().unwrap();
        let at = |v: &Value| [v[0].as_f64().unwrap(), v[1].as_f64().unwrap()];
        let high = if u > d {
            at(&c[0])
        } else {
            at(&c[c.len() - 1])
        };
        let p = net.pipes.iter().find(|p| p.id == id).unwrap();
        let from = net.nodes[p.from].at;
        let far = (from[0] - high[0]).hypot(from[1] - high[1]);
        assert!(far < 2e-5, "pipe {id} starts {far} deg from its high end");
    }
    // Catch basin 40326 drains to Wascana Creek outfall 143, and also, through pipe 5142
    // (whose labels are adverse, so it runs last vertex to first) to a bare dangling end:
    // both are named. The pipes' length is the city's own SHAPE.LEN (metres).
    let d = net.downstream(&[net.structure("40326").expect("catch basin")]);
    assert!(d.complete());
    let kinds: Vec<(&str, Option<&str>)> = d
        .outfalls
        .iter()
        .map(|o| (o.id.as_str(), o.kind.map(|k| k.as_str())))
        .collect();
    assert_eq!(kinds.len(), 2, "{kinds:?}");
    assert!(kinds.contains(&("143", Some("outfall"))), "{kinds:?}");
    assert!(kinds
        .iter()
        .any(|(id, k)| id.starts_with("end:") && k.is_none()));
    assert!(problems(net, "adverse_slope").contains(&"5142"));
    assert!(d.pipes.iter().any(|p| p.id == "5142"));
    let city_m: f64 = pipes
        .iter()
        .filter(|f| text(f, "GISID").is_some_and(|id| d.inlets[0].pipes.contains(&id)))
        .map(|f| number(f, "SHAPE.LEN").unwrap())
        .sum();
    let got = d.inlets[0].length_m;
    assert!((got - city_m).abs() / city_m < 0.01, "{got} vs {city_m}");
    // The outfalls on the creek bank stand off the pipe ends: each one that no pipe end
    // reaches within the snap is named.
    let off = problems(net, "unconnected_structure");
    assert!(off.contains(&"117"), "{off:?}");
    // With vertex order allowed, every pipe nothing else decides is decided by it, and
    // the inverts keep every pipe they decided.
    let fallback = REGINA.replacen(
        "missing = [\"0\", \"1\"]",
        "missing = [\"0\", \"1\"]\nvertex_order = true",
        1,
    );
    let (_t2, cat2) = open("regina", &fallback).expect("loads");
    let net2 = cat2.storm.as_ref().unwrap();
    assert_eq!(count(net2, Evidence::Inverts), decided.len());
    assert_eq!(
        count(net2, Evidence::VertexOrder),
        pipes.len() - decided.len()
    );
    assert_eq!(count(net2, Evidence::Undecided), 0);
}

//! Downstream trace: NHDPlusV2 ground truth (four real basins) and hand-made edge cases.

use std::collections::HashMap;
use std::path::PathBuf;

use geo_types::{coord, LineString};
use outfall_core::network::{
    clean_name, display_names, step_names, BuildMode, Network, NetworkAttrs, Reach, StepName,
    TraceEnd, DEFAULT_SNAP_TOLERANCE_M,
};

const REAL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/real");

const NEW_HOPE: &str = "nhdplusv2-new-hope-nc/new_hope_flowlines.geojson";
const YAHARA: &str = "nhdplusv2-yahara-wi/yahara_flowlines.geojson";
const PATAPSCO: &str = "nhdplusv2-patapsco-md/patapsco_flowlines.geojson";
const WALKER: &str = "nhdplusv2-walker-creek-ca/walker_flowlines.geojson";
const ALL: [&str; 4] = [NEW_HOPE, YAHARA, PATAPSCO, WALKER];

/// Path of a real data file, or `None` (with a SKIP note) when it is missing; panics under CI.
fn real(path: &str) -> Option<PathBuf> {
    let p = PathBuf::from(REAL).join(path);
    if p.exists() {
        Some(p)
    } else if std::env::var_os("CI").is_some() {
        panic!("real data missing at {} (CI is set)", p.display());
    } else {
        println!("SKIP: real data missing at {}", p.display());
        None
    }
}

/// One NHDPlus flowline file: reaches, attributes and the fields the checks need.
struct Nhd {
    reaches: Vec<Reach>,
    attrs: Vec<NetworkAttrs>,
    comid: Vec<i64>,
    lengthkm: Vec<f64>,
}

fn load(path: &str) -> Option<Nhd> {
    let text = std::fs::read_to_string(real(path)?).expect("read flowlines");
    let fc: geojson::FeatureCollection = serde_json::from_str(&text).expect("parse GeoJSON");
    let mut nhd = Nhd {
        reaches: Vec::new(),
        attrs: Vec::new(),
        comid: Vec::new(),
        lengthkm: Vec::new(),
    };
    for f in fc.features {
        let props = f.properties.expect("properties");
        let geom = f.geometry.expect("geometry");
        let line = LineString::<f64>::try_from(&geom.value).expect("LineString");
        let comid = props["COMID"].as_f64().expect("COMID") as i64;
        nhd.reaches.push(Reach {
            id: comid.to_string(),
            name: clean_name(props.get("GNIS_NAME").and_then(|v| v.as_str())),
            line,
        });
        nhd.attrs.push(NetworkAttrs::from_properties(&props));
        nhd.comid.push(comid);
        nhd.lengthkm
            .push(props["LENGTHKM"].as_f64().expect("LENGTHKM"));
    }
    Some(nhd)
}

impl Nhd {
    fn index(&self, comid: i64) -> usize {
        self.comid.iter().position(|&c| c == comid).expect("COMID")
    }

    fn by_hydroseq(&self) -> HashMap<i64, usize> {
        let hs = self.attrs.iter().enumerate();
        hs.map(|(i, a)| (a.hydroseq.unwrap(), i)).collect()
    }

    /// The DnHydroseq chain from `start` to the outlet, computed straight from the attributes.
    fn chain(&self, start: usize, by_hs: &HashMap<i64, usize>) -> Vec<usize> {
        let mut out = vec![start];
        while let Some(&next) = self.attrs[*out.last().unwrap()]
            .dn_hydroseq
            .and_then(|d| by_hs.get(&d))
        {
            out.push(next);
            assert!(out.len() <= self.comid.len(), "cycle in DnHydroseq data");
        }
        out
    }

    /// Index of the DnMinorHyd reach of `i`, if any.
    fn minor(&self, i: usize, by_hs: &HashMap<i64, usize>) -> Option<usize> {
        let m = self.attrs[i].dn_minor_hyd.filter(|&m| m != 0)?;
        by_hs.get(&m).copied()
    }
}

#[test]
fn attributes_trace_equals_dnhydroseq_chain_from_every_flowline() {
    for path in ALL {
        let Some(nhd) = load(path) else { continue };
        let by_hs = nhd.by_hydroseq();
        let net = Network::build(nhd.reaches.clone(), Some(nhd.attrs.clone()), 1.0);
        assert_eq!(net.mode(), BuildMode::Hydroseq, "{path}");
        let mut divergences = 0;
        for start in 0..net.len() {
            let chain = nhd.chain(start, &by_hs);
            let trace = net.trace(start, f64::INFINITY);
            let got: Vec<usize> = trace.steps.iter().map(|s| s.reach).collect();
            assert_eq!(got, chain, "{path}: trace from COMID {}", nhd.comid[start]);
            assert_eq!(trace.end, TraceEnd::Outlet);
            // Every DnMinorHyd on the chain is reported as a divergence at that step.
            for (k, &r) in chain.iter().enumerate() {
                if let Some(m) = nhd.minor(r, &by_hs) {
                    let d = trace.divergences.iter().find(|d| d.at_step == k);
                    let d = d.expect("divergence reported");
                    assert_eq!(d.main, chain[k + 1]);
                    assert!(d.minor.contains(&m));
                    divergences += 1;
                }
            }
        }
        println!(
            "{path}: {} reaches, all {} traces == DnHydroseq chain ({divergences} divergence passings checked)",
            net.len(),
            net.len()
        );
    }
}

#[test]
fn worked_traces_from_source_md() {
    // (file, start COMID, flowlines, km by LENGTHKM, outlet COMID)
    let cases = [
        (NEW_HOPE, 8898158, 30, 35.348, 8897784),
        (NEW_HOPE, 8893296, 44, 29.858, 8897784),
        (PATAPSCO, 11687120, 84, 112.005, 11690260),
        (YAHARA, 13293426, 43, 57.137, 13296606),
        (WALKER, 5329435, 18, 43.567, 5329303),
    ];
    for (path, start, count, km, outlet) in cases {
        let Some(nhd) = load(path) else { continue };
        let net = Network::build(nhd.reaches.clone(), Some(nhd.attrs.clone()), 1.0);
        let trace = net.trace(nhd.index(start), f64::INFINITY);
        assert_eq!(trace.steps.len(), count, "{path} {start}");
        assert_eq!(nhd.comid[trace.steps.last().unwrap().reach], outlet);
        let lengthkm: f64 = trace.steps.iter().map(|s| nhd.lengthkm[s.reach]).sum();
        assert!(
            (lengthkm - km).abs() < 0.0015,
            "{path} {start}: LENGTHKM sum {lengthkm}"
        );
        let last = trace.steps.last().unwrap();
        let geodesic_km = (last.distance_m + last.length_m) / 1000.0;
        let rel = (geodesic_km - km).abs() / km;
        println!(
            "{path} {start}: {count} flowlines, LENGTHKM {lengthkm:.3} km, geodesic {geodesic_km:.3} km ({:+.2}%)",
            100.0 * (geodesic_km - km) / km
        );
        assert!(rel < 0.01, "geodesic {geodesic_km} km vs {km} km");
    }
}

#[test]
fn geometry_only_trace_matches_chain_except_at_divergences() {
    for path in ALL {
        let Some(nhd) = load(path) else { continue };
        let by_hs = nhd.by_hydroseq();
        let net = Network::build(nhd.reaches.clone(), None, DEFAULT_SNAP_TOLERANCE_M);
        assert!(matches!(net.mode(), BuildMode::Geometry { .. }));
        // The geometric graph is exactly the FromNode/ToNode graph, and the DnHydroseq and
        // DnMinorHyd reaches are among the successors.
        let (mut nodes, mut main_right) = (0, 0);
        for i in 0..net.len() {
            let mut links: Vec<usize> = net.downstream(i).iter().map(|l| l.reach).collect();
            let chain = nhd.chain(i, &by_hs);
            let main = links.first().copied();
            assert_eq!(
                main.is_some(),
                chain.len() > 1,
                "{path} COMID {}",
                nhd.comid[i]
            );
            assert!(chain.get(1).is_none_or(|c| links.contains(c)));
            assert!(nhd.minor(i, &by_hs).is_none_or(|m| links.contains(&m)));
            assert!(net.downstream(i).iter().all(|l| l.entry_m == 0.0));
            if links.len() > 1 {
                nodes += 1;
                main_right += usize::from(main == chain.get(1).copied());
            }
            let mut by_node: Vec<usize> = (0..net.len())
                .filter(|&j| nhd.attrs[j].from_node == nhd.attrs[i].to_node)
                .collect();
            links.sort_unstable();
            by_node.sort_unstable();
            assert_eq!(links, by_node, "{path} COMID {}", nhd.comid[i]);
        }
        let (mut exact, mut exact_through_div, mut diverted) = (0, 0, 0);
        for start in 0..net.len() {
            let chain = nhd.chain(start, &by_hs);
            let trace = net.trace(start, f64::INFINITY);
            let got: Vec<usize> = trace.steps.iter().map(|s| s.reach).collect();
            let mut passed_divergence = false;
            for k in 0..chain.len() {
                assert_eq!(got[k], chain[k], "{path} from COMID {}", nhd.comid[start]);
                let Some(&next) = chain.get(k + 1) else {
                    assert_eq!(got.len(), chain.len());
                    assert_eq!(trace.end, TraceEnd::Outlet);
                    break;
                };
                match trace.divergences.iter().find(|d| d.at_step == k) {
                    None => assert_eq!(got.get(k + 1), Some(&next)),
                    Some(d) => {
                        // The true main successor is among the branches reported here.
                        assert!(d.main == next || d.minor.contains(&next));
                        passed_divergence = true;
                        if d.main != next {
                            break;
                        }
                    }
                }
            }
            if got == chain {
                exact += 1;
                exact_through_div += usize::from(passed_divergence);
            } else {
                diverted += 1;
            }
        }
        println!(
            "{path}: geometry only, {} starts: {exact} exact ({exact_through_div} of them through a divergence), \
             {diverted} left the DnHydroseq chain at a divergence; divergence nodes {nodes}, main branch guessed right at {main_right}",
            net.len()
        );
        assert!(exact * 10 >= net.len() * 9, "{path}: only {exact} exact");
    }
}

#[test]
fn nodes_mode_without_dnhydroseq() {
    for path in ALL {
        let Some(nhd) = load(path) else { continue };
        let by_hs = nhd.by_hydroseq();
        // DnHydroseq known on all but one reach: nodes mode, with DnHydroseq still choosing main.
        let mut attrs = nhd.attrs.clone();
        attrs[0].dn_hydroseq = None;
        let net = Network::build(nhd.reaches.clone(), Some(attrs.clone()), 1.0);
        assert_eq!(net.mode(), BuildMode::Nodes);
        for start in 1..net.len() {
            let chain = nhd.chain(start, &by_hs);
            let trace = net.trace(start, f64::INFINITY);
            let got: Vec<usize> = trace.steps.iter().map(|s| s.reach).collect();
            if !chain.contains(&0) {
                assert_eq!(got, chain, "{path} from COMID {}", nhd.comid[start]);
            }
        }
        // No DnHydroseq at all: the main branch is the geometry-mode guess.
        for a in &mut attrs {
            a.dn_hydroseq = None;
            a.dn_minor_hyd = None;
        }
        let net = Network::build(nhd.reaches.clone(), Some(attrs), 1.0);
        assert_eq!(net.mode(), BuildMode::Nodes);
        let exact = (0..net.len())
            .filter(|&start| {
                let trace = net.trace(start, f64::INFINITY);
                let got: Vec<usize> = trace.steps.iter().map(|s| s.reach).collect();
                got == nhd.chain(start, &by_hs)
            })
            .count();
        println!(
            "{path}: FromNode/ToNode without DnHydroseq: {exact}/{} traces exact",
            net.len()
        );
        assert!(exact * 10 >= net.len() * 9, "{path}: only {exact} exact");
    }
}

// ---- hand-made edge cases (lon/lat near Clay, NY; 0.01° lat ≈ 1.11 km) ----

fn reach(id: &str, name: Option<&str>, pts: &[(f64, f64)]) -> Reach {
    Reach {
        id: id.to_owned(),
        name: name.map(str::to_owned),
        line: pts.iter().map(|&(x, y)| coord! { x: x, y: y }).collect(),
    }
}

#[test]
fn cycle_of_three_terminates() {
    let (a, b, c) = ((-76.2, 43.1), (-76.19, 43.1), (-76.195, 43.11));
    let reaches = vec![
        reach("a", None, &[a, b]),
        reach("b", None, &[b, c]),
        reach("c", None, &[c, a]),
    ];
    let net = Network::from_geometry(reaches.clone(), DEFAULT_SNAP_TOLERANCE_M);
    let t = net.trace(1, f64::INFINITY);
    assert_eq!(
        t.steps.iter().map(|s| s.reach).collect::<Vec<_>>(),
        [1, 2, 0]
    );
    assert_eq!(t.end, TraceEnd::Cycle { reach: 1 });
    // Same with attributes.
    let attrs = (0..3)
        .map(|i| NetworkAttrs {
            hydroseq: Some(10 + i),
            dn_hydroseq: Some(10 + (i + 1) % 3),
            ..Default::default()
        })
        .collect();
    let net = Network::build(reaches, Some(attrs), 1.0);
    assert_eq!(net.mode(), BuildMode::Hydroseq);
    assert_eq!(net.trace(0, 1e9).end, TraceEnd::Cycle { reach: 0 });
}

/// The name a receiving water is given after: the first named reach below it, found round a
/// cycle wherever it sits on it, and none (not a hang) when the cycle has no name.
#[test]
fn first_named_below_goes_round_cycles_and_stops() {
    // A tail of four unnamed reaches, 0 -> 1 -> 2 -> 3, into a cycle of five, 4 -> ... -> 8 -> 4.
    let pts: Vec<(f64, f64)> = (0..9).map(|i| (-76.2 + 0.01 * i as f64, 43.1)).collect();
    let mut reaches: Vec<Reach> = (0..8)
        .map(|i| reach(&format!("r{i}"), None, &[pts[i], pts[i + 1]]))
        .collect();
    reaches.push(reach("r8", None, &[pts[8], pts[4]]));
    let net = Network::from_geometry(reaches, DEFAULT_SNAP_TOLERANCE_M);
    let down: Vec<usize> = (0..9).map(|i| net.downstream(i)[0].reach).collect();
    assert_eq!(down, [1, 2, 3, 4, 5, 6, 7, 8, 4], "the network as drawn");
    let unnamed = |_: usize| None;
    for r in 0..9 {
        assert_eq!(net.first_named_below(r, unnamed), None, "from {r}");
    }
    for named in 0..9 {
        let name_of = |x: usize| (x == named).then_some("Mud Creek");
        for r in 0..9 {
            // Below r: the rest of the tail, then the whole cycle (r itself excepted).
            let mut below = vec![];
            let mut at = r;
            for _ in 0..9 {
                at = down[at];
                if at == r || below.contains(&at) {
                    break;
                }
                below.push(at);
            }
            let want = below.contains(&named).then_some("Mud Creek");
            assert_eq!(
                net.first_named_below(r, name_of),
                want,
                "named {named}, from {r}"
            );
        }
    }
}

#[test]
fn empty_network() {
    let net = Network::build(Vec::new(), None, DEFAULT_SNAP_TOLERANCE_M);
    assert!(net.is_empty());
    let net = Network::build(Vec::new(), Some(Vec::new()), DEFAULT_SNAP_TOLERANCE_M);
    assert_eq!(net.len(), 0);
}

#[test]
fn disconnected_pieces_and_degenerate_lines() {
    let reaches = vec![
        reach("a1", Some("Alpha"), &[(-76.2, 43.1), (-76.2, 43.11)]),
        reach("a2", Some("Alpha"), &[(-76.2, 43.11), (-76.2, 43.12)]),
        reach("b1", Some("Beta"), &[(-76.1, 43.1), (-76.1, 43.11)]),
        reach("empty", None, &[]),
        reach("point", None, &[(-76.1, 43.11)]),
    ];
    let net = Network::from_geometry(reaches, DEFAULT_SNAP_TOLERANCE_M);
    let t = net.trace(0, f64::INFINITY);
    assert_eq!(t.steps.iter().map(|s| s.reach).collect::<Vec<_>>(), [0, 1]);
    assert_eq!(t.end, TraceEnd::Outlet);
    // b1 ends at the single-vertex "point" line: it links to it, and that one is an outlet.
    let t = net.trace(2, f64::INFINITY);
    assert_eq!(t.steps.iter().map(|s| s.reach).collect::<Vec<_>>(), [2, 4]);
    assert_eq!(net.trace(3, 1e9).steps.len(), 1);
    assert_eq!(net.trace(4, 1e9).end, TraceEnd::Outlet);
}

#[test]
fn limit_stops_the_trace() {
    let pts: Vec<(f64, f64)> = (0..6).map(|i| (-76.2, 43.1 + 0.01 * i as f64)).collect();
    let reaches: Vec<Reach> = (0..5)
        .map(|i| reach(&format!("r{i}"), None, &pts[i..i + 2]))
        .collect();
    let net = Network::from_geometry(reaches, DEFAULT_SNAP_TOLERANCE_M);
    let len = net.length_m(0);
    assert!((len - 1111.0).abs() < 5.0, "{len}");
    let t = net.trace(0, 1500.0);
    assert_eq!(t.steps.len(), 2);
    assert_eq!(t.end, TraceEnd::Limit);
    assert!((t.steps[1].distance_m - len).abs() < 1e-9);
    assert_eq!(net.trace(0, 0.0).steps.len(), 1);
    let t = net.trace(0, f64::INFINITY);
    assert_eq!((t.steps.len(), t.end), (5, TraceEnd::Outlet));
}

#[test]
fn unnamed_tributary_naming() {
    let reaches = vec![
        reach("t1", None, &[(-76.21, 43.1), (-76.2, 43.1)]),
        reach("t2", None, &[(-76.2, 43.1), (-76.19, 43.1)]),
        reach("mud", Some("Mud Creek"), &[(-76.19, 43.1), (-76.18, 43.1)]),
        reach("x", None, &[(-76.18, 43.1), (-76.17, 43.1)]),
    ];
    let net = Network::from_geometry(reaches, DEFAULT_SNAP_TOLERANCE_M);
    let t = net.trace(0, f64::INFINITY);
    assert_eq!(
        display_names(&t, |r| net.reach(r).name.as_deref()),
        [
            "unnamed tributary to Mud Creek",
            "unnamed tributary to Mud Creek",
            "Mud Creek",
            "unnamed tributary"
        ]
    );
    // The names kept unwritten match the written ones, and each matches only its own
    // text (a receiving water's name note finds its step by it).
    let written = display_names(&t, |r| net.reach(r).name.as_deref());
    let kept = step_names(&t, |r| net.reach(r).name.as_deref());
    for (k, w) in kept.iter().zip(&written) {
        assert_eq!(&k.to_string(), w);
        assert!(*k == *w.as_str());
    }
    assert!(kept[0] != *"unnamed tributary");
    assert!(kept[0] != *"Mud Creek");
    assert!(kept[2] != *"unnamed tributary to Mud Creek");
    assert!(kept[3] != *"unnamed tributary to Mud Creek");
    assert_eq!(clean_name(Some(" ")), None);
    assert_eq!(
        clean_name(Some(" Mud Creek ")).as_deref(),
        Some("Mud Creek")
    );
    assert_eq!(clean_name(None), None);
}

#[test]
fn geometry_divergence_prefers_same_name_then_named_then_shorter() {
    let reaches = vec![
        reach("in", Some("Mud Creek"), &[(-76.2, 43.09), (-76.2, 43.1)]),
        reach("long", None, &[(-76.2, 43.1), (-76.2, 43.12)]),
        reach(
            "side",
            Some("Mud Creek"),
            &[(-76.2, 43.1), (-76.19, 43.1), (-76.19, 43.13)],
        ),
        reach("short", None, &[(-76.2, 43.1), (-76.21, 43.1)]),
    ];
    let net = Network::from_geometry(reaches.clone(), DEFAULT_SNAP_TOLERANCE_M);
    let t = net.trace(0, f64::INFINITY);
    assert_eq!(t.steps.iter().map(|s| s.reach).collect::<Vec<_>>(), [0, 2]);
    assert_eq!(t.divergences.len(), 1);
    let d = &t.divergences[0];
    assert_eq!((d.at_step, d.main, &d.minor[..]), (0, 2, &[3, 1][..]));
    // Unnamed incoming reach: the named branch is main.
    let mut unnamed = reaches;
    unnamed[0].name = None;
    let net = Network::from_geometry(unnamed.clone(), DEFAULT_SNAP_TOLERANCE_M);
    assert_eq!(net.downstream(0)[0].reach, 2);
    // No names at all: the shorter branch is main.
    unnamed[2].name = None;
    let net = Network::from_geometry(unnamed, DEFAULT_SNAP_TOLERANCE_M);
    let order: Vec<usize> = net.downstream(0).iter().map(|l| l.reach).collect();
    assert_eq!(order, [3, 1, 2]);
}

#[test]
fn tributary_joining_mid_reach() {
    let reaches = vec![
        reach("main", Some("Mud Creek"), &[(-76.2, 43.1), (-76.2, 43.12)]),
        // Ends 0.3 m east of the main line, ~1111 m along it.
        reach("trib", None, &[(-76.21, 43.11), (-76.2 + 3.7e-6, 43.11)]),
    ];
    let net = Network::from_geometry(reaches.clone(), DEFAULT_SNAP_TOLERANCE_M);
    let link = net.downstream(1)[0];
    assert_eq!(link.reach, 0);
    assert!((link.entry_m - 1111.0).abs() < 5.0, "{}", link.entry_m);
    let t = net.trace(1, f64::INFINITY);
    assert_eq!(t.steps.len(), 2);
    assert!((t.steps[1].length_m - (net.length_m(0) - link.entry_m)).abs() < 1e-6);
    assert_eq!(
        display_names(&t, |r| net.reach(r).name.as_deref())[0],
        "unnamed tributary to Mud Creek"
    );
    // Farther than the tolerance: no link.
    let net = Network::from_geometry(reaches, 0.1);
    assert!(net.downstream(1).is_empty());
}

#[test]
fn attrs_from_geojson_properties() {
    let props: geojson::JsonObject = serde_json::from_str(
        r#"{"FromNode": 250031721.0, "tonode": "250031853", "Hydroseq": 250016373,
            "DnHydroseq": 0.0, "DnMinorHyd": null}"#,
    )
    .unwrap();
    let a = NetworkAttrs::from_properties(&props);
    assert_eq!(a.from_node, Some(250031721));
    assert_eq!(a.to_node, Some(250031853));
    assert_eq!(a.hydroseq, Some(250016373));
    assert_eq!(a.dn_hydroseq, Some(0));
    assert_eq!(a.dn_minor_hyd, None);
}

/// The names that walk past a trace's end (the national data set's): each step reads as its
/// reach's name on its own would, whether the trace stopped at its limit short of the named
/// water, went round a cycle, or reached an outlet with nothing named after it.
#[test]
fn step_names_beyond_read_as_each_reach_on_its_own() {
    // A chain 0 -> 1 -> ... -> 7 (reaches 0.01 deg, ~810 m, long), and the same chain with
    // its last reach turned back into reach 4.
    let pts: Vec<(f64, f64)> = (0..9).map(|i| (-76.2 + 0.01 * i as f64, 43.1)).collect();
    let chain: Vec<Reach> = (0..8)
        .map(|i| reach(&format!("r{i}"), None, &[pts[i], pts[i + 1]]))
        .collect();
    let mut looped = chain.clone();
    looped[7] = reach("r7", None, &[pts[7], pts[4]]);
    let mut seen_ends = Vec::new();
    for reaches in [chain, looped] {
        let net = Network::from_geometry(reaches, DEFAULT_SNAP_TOLERANCE_M);
        for named in [None, Some(1), Some(5), Some(7)] {
            let name_of = |x: usize| (Some(x) == named).then_some("Mud Creek");
            for limit_m in [1000.0, 2500.0, f64::INFINITY] {
                let t = net.trace(0, limit_m);
                seen_ends.push(t.end);
                let names = net.step_names_beyond(&t, name_of);
                for (step, name) in t.steps.iter().zip(&names) {
                    let own = name_of(step.reach).map(StepName::Own);
                    let below = net.first_named_below(step.reach, name_of);
                    let want = own
                        .or(below.map(StepName::TributaryTo))
                        .unwrap_or(StepName::Unnamed);
                    assert_eq!(*name, want, "named {named:?}, limit {limit_m}, {t:?}");
                }
            }
        }
    }
    // The three ways a trace ends were all met.
    assert!(seen_ends.contains(&TraceEnd::Limit));
    assert!(seen_ends.contains(&TraceEnd::Outlet));
    assert!(seen_ends
        .iter()
        .any(|e| matches!(e, TraceEnd::Cycle { .. })));
    // Stopped at its limit short of the named water, the trace still names its steps after it.
    let net = Network::from_geometry(
        (0..8)
            .map(|i| reach(&format!("r{i}"), None, &[pts[i], pts[i + 1]]))
            .collect(),
        DEFAULT_SNAP_TOLERANCE_M,
    );
    let t = net.trace(0, 1000.0);
    assert_eq!(t.end, TraceEnd::Limit);
    let names = net.step_names_beyond(&t, |x| (x == 7).then_some("Mud Creek"));
    assert!(
        names
            .iter()
            .all(|n| *n == *"unnamed tributary to Mud Creek"),
        "{names:?}"
    );
    assert!(step_names(&t, |x| (x == 7).then_some("Mud Creek"))
        .iter()
        .all(|n| *n == StepName::Unnamed));
}

/// A step's name written out for a report reads as its Display does, in a string of its own
/// length, for each kind of name.
#[test]
fn step_names_write_out_as_they_display_at_their_length() {
    for name in [
        StepName::Own("Ley Creek"),
        StepName::TributaryTo("Oneida River"),
        StepName::TributaryTo(""),
        StepName::Unnamed,
    ] {
        let text = name.text();
        assert_eq!(text, name.to_string());
        assert!(name == *text.as_str(), "{text} reads back as its name");
        assert_eq!(text.capacity(), text.len(), "{text}");
    }
}

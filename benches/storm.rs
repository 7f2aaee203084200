//! The storm network's speed on the Gwinnett County network (891 pipes, 1,140 inlets) of
//! `stormcatchments`: the build from the loaded layers (issue goal: under 50 ms), and one
//! downstream and one upstream trace (goal: under 1 ms each). Run with
//! `cargo bench --bench storm`; the data comes from ../shared/data/real.

use criterion::{criterion_group, criterion_main, Criterion};
use outfall_core::storm::{self, StormNetwork};
use outfall_core::Catalog;
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

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

fn gwinnett() -> Option<(tempfile::TempDir, Catalog)> {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/real/stormcatchments/gwinnett");
    if !dir.exists() {
        eprintln!("SKIP: {} missing", dir.display());
        return None;
    }
    let tmp = tempfile::tempdir().unwrap();
    let manifest = format!(
        "allow_outside_paths = true\n{}",
        GWINNETT.replace("DIR", &dir.display().to_string())
    );
    std::fs::write(tmp.path().join("outfall.toml"), manifest).unwrap();
    let cat = Catalog::open(tmp.path()).unwrap();
    Some((tmp, cat))
}

/// The inlet whose way down crosses the most pipes, and of the ends it reaches the one that
/// drains the most pipes: heavy single traces of this network.
fn heaviest(net: &StormNetwork) -> (usize, String) {
    let inlets = (0..net.structures.len()).filter(|&i| net.structures[i].kind.takes_runoff());
    let down = inlets
        .max_by_key(|&i| net.downstream(&[i]).pipes.len())
        .expect("an inlet");
    let ends: Vec<String> = net
        .downstream(&[down])
        .outfalls
        .iter()
        .map(|o| o.id.clone())
        .collect();
    let up = ends
        .into_iter()
        .max_by_key(|id| net.upstream(id).map_or(0, |u| u.pipes.len()))
        .expect("an outfall");
    (down, up)
}

fn storm(c: &mut Criterion) {
    let Some((_dir, cat)) = gwinnett() else {
        return;
    };
    let net = cat.storm.as_ref().expect("a network");
    assert_eq!(net.pipes.len(), 891);
    let (inlet, outfall) = heaviest(net);
    eprintln!(
        "gwinnett: downstream from {} crosses {} pipes; {} pipes drain to {outfall}",
        net.structures[inlet].id,
        net.downstream(&[inlet]).pipes.len(),
        net.upstream(&outfall).map_or(0, |u| u.pipes.len())
    );
    let mut g = c.benchmark_group("storm");
    g.sample_size(30).measurement_time(Duration::from_secs(10));
    g.bench_function("build_gwinnett_891_pipes", |b| {
        b.iter(|| storm::build(black_box(&cat.layers)).unwrap())
    });
    g.bench_function("downstream_trace_gwinnett", |b| {
        b.iter(|| net.downstream(black_box(&[inlet])))
    });
    g.bench_function("upstream_trace_gwinnett", |b| {
        b.iter(|| net.upstream(black_box(&outfall)))
    });
    g.finish();
}

criterion_group!(benches, storm);
criterion_main!(benches);

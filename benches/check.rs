//! Load-and-index time and per-site check latency on real data (Bellingham parcels, New Hope
//! NHDPlus), and on a network scaled to about 100k flowlines from tiled copies of New Hope.
//! Run with `cargo bench`; real data comes from ../shared/data/real.

use criterion::{criterion_group, criterion_main, Criterion};
use geo_types::{polygon, Geometry};
use outfall::load::Feature;
use outfall::screening::{check, check_parcel, Subject};
use outfall::{Catalog, Role};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn real(rel: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data/real")
        .join(rel);
    if p.exists() {
        Some(p)
    } else {
        eprintln!("SKIP: {} missing", p.display());
        None
    }
}

fn catalog(manifest: &str) -> (tempfile::TempDir, Catalog) {
    let dir = tempfile::tempdir().unwrap();
    // Real data lives in ../shared, outside the temp folder.
    let manifest = format!("allow_outside_paths = true\n{manifest}");
    std::fs::write(dir.path().join("outfall.toml"), manifest).unwrap();
    let cat = Catalog::open(dir.path()).unwrap();
    (dir, cat)
}

fn site_near(x: f64, y: f64) -> Subject {
    let d = 0.0006;
    let p = polygon![(x: x, y: y), (x: x + d, y: y), (x: x + d, y: y + d), (x: x, y: y + d)];
    Subject::ad_hoc(
        "bench",
        &[Feature {
            id: "bench".into(),
            geometry: Geometry::Polygon(p),
            properties: Default::default(),
        }],
        None,
    )
}

fn bellingham(c: &mut Criterion) {
    let Some(p) = real("massgis-bellingham-parcels/bellingham_ma_parcels_fy2026.geojson") else {
        return;
    };
    let m = format!(
        "[[layer]]\nrole = \"parcels\"\npath = {:?}\nid_field = \"LOC_ID\"\n",
        p.display().to_string()
    );
    let mut g = c.benchmark_group("bellingham");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    g.bench_function("load_and_index_6273_parcels", |b| b.iter(|| catalog(&m)));
    let (_d, cat) = catalog(&m);
    let ids: Vec<String> = cat
        .layer(Role::Parcels)
        .unwrap()
        .features
        .iter()
        .step_by(97)
        .map(|f| f.id.clone())
        .collect();
    g.sample_size(50).measurement_time(Duration::from_secs(10));
    let mut i = 0;
    g.bench_function("check_parcel", |b| {
        b.iter(|| {
            i = (i + 1) % ids.len();
            check_parcel(&cat, &ids[i]).unwrap()
        })
    });
    g.finish();
}

fn new_hope_manifest(path: &Path) -> String {
    format!(
        "[rules]\ntrace_limit_km = 50.0\n[[layer]]\nrole = \"flowlines\"\npath = {:?}\nid_field = \"COMID\"\nname_field = \"GNIS_NAME\"\n",
        path.display().to_string()
    )
}

/// New Hope tiled `copies` times on a grid, ids made unique, network attributes dropped so the
/// graph is built from geometry (the harder case).
fn scaled_network(src: &Path, copies: usize, out: &Path) {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(src).unwrap()).unwrap();
    let feats = v["features"].as_array().unwrap();
    let side = (copies as f64).sqrt().ceil() as usize;
    let mut all = Vec::with_capacity(feats.len() * copies);
    for k in 0..copies {
        let (dx, dy) = ((k % side) as f64 * 0.4, (k / side) as f64 * 0.3);
        for f in feats {
            let coords: Vec<serde_json::Value> = f["geometry"]["coordinates"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| {
                    serde_json::json!([c[0].as_f64().unwrap() + dx, c[1].as_f64().unwrap() + dy])
                })
                .collect();
            all.push(serde_json::json!({"type": "Feature",
                "properties": {"COMID": format!("{}-{k}", f["properties"]["COMID"]), "GNIS_NAME": f["properties"]["GNIS_NAME"]},
                "geometry": {"type": "LineString", "coordinates": coords}}));
        }
    }
    std::fs::write(
        out,
        serde_json::json!({"type": "FeatureCollection", "features": all}).to_string(),
    )
    .unwrap();
}

fn networks(c: &mut Criterion) {
    let Some(src) = real("nhdplusv2-new-hope-nc/new_hope_flowlines.geojson") else {
        return;
    };
    let mut g = c.benchmark_group("trace");
    g.sample_size(30).measurement_time(Duration::from_secs(10));
    let (_d, cat) = catalog(&new_hope_manifest(&src));
    // A site at the Morgan Creek headwater (COMID 8898158): 30 reaches to the outlet.
    let Geometry::LineString(l) = &cat
        .layer(Role::Flowlines)
        .unwrap()
        .get("8898158")
        .unwrap()
        .geometry
    else {
        return;
    };
    let (x, y) = (l.0[0].x, l.0[0].y);
    g.bench_function("check_with_trace_new_hope_746", |b| {
        b.iter(|| check(&cat, &site_near(x, y)))
    });

    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("scaled.geojson");
    scaled_network(&src, 134, &big);
    let t = std::time::Instant::now();
    let (_d2, cat_big) = catalog(&new_hope_manifest(&big));
    let n = cat_big.layer(Role::Flowlines).unwrap().features.len();
    eprintln!(
        "scaled network: {n} flowlines loaded, graph built and indexed in {:.2?}",
        t.elapsed()
    );
    g.bench_function(format!("check_with_trace_scaled_{n}"), |b| {
        b.iter(|| check(&cat_big, &site_near(x, y)))
    });
    g.finish();
}

/// `n` square phases of about 1 acre on a grid, each starting a day after the previous one and
/// open `days` days. With `overlap`, neighbours overlap.
fn phased_plan(n: usize, overlap: bool, days: u64) -> Vec<outfall::area::Phase> {
    let side = if overlap { 0.0009 } else { 0.0007 };
    let day0 = chrono::NaiveDate::from_ymd_opt(2026, 1, 1).unwrap();
    (0..n)
        .map(|i| {
            let (x, y) = (-76.2 + (i % 40) as f64 * 0.0008, 43.1 + (i / 40) as f64 * 0.0008);
            let start = day0 + chrono::Days::new(i as u64);
            outfall::area::Phase {
                name: i.to_string(),
                start: Some(start),
                end: Some(start + chrono::Days::new(days)),
                polygons: vec![polygon![(x: x, y: y), (x: x + side, y: y), (x: x + side, y: y + side), (x: x, y: y + side)]],
            }
        })
        .collect()
}

/// The peak-at-one-time sweep over 1,000 dated polygons (issue: it took 15 s).
fn peak(c: &mut Criterion) {
    let mut g = c.benchmark_group("peak");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    for (overlap, days, name) in [
        (false, 60, "peak_1000_dated_disjoint_60d"),
        (true, 60, "peak_1000_dated_overlapping_60d"),
        (true, 5000, "peak_1000_dated_overlapping_all_open"),
    ] {
        let plan = phased_plan(1000, overlap, days);
        g.bench_function(name, |b| b.iter(|| outfall::area::peak_at_one_time(&plan)));
    }
    g.finish();
}

criterion_group!(benches, bellingham, networks, peak);
criterion_main!(benches);

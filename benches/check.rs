//! Load-and-index time and per-site check latency on real data (Bellingham parcels, New Hope
//! NHDPlus), and on a network scaled to about 100k flowlines from tiled copies of New Hope.
//! Also the figures that used to be printed by tests: a 1,000-polygon tile encoded at z14,
//! and the New Hope network built (from attributes and from geometry) and traced from every
//! reach. Run with `cargo bench`; real data comes from ../shared/data/real.

use criterion::{criterion_group, criterion_main, Criterion};
use geo_types::{polygon, Geometry};
use outfall_core::load::Feature;
use outfall_core::screening::{check, check_parcel, Subject};
use outfall_core::{Catalog, Role};
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
        &Default::default(),
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
fn phased_plan(n: usize, overlap: bool, days: u64) -> Vec<outfall_core::area::Phase> {
    let side = if overlap { 0.0009 } else { 0.0007 };
    let day0 = chrono::NaiveDate::from_ymd_opt(2026, 1, 1).unwrap();
    (0..n)
        .map(|i| {
            let (x, y) = (-76.2 + (i % 40) as f64 * 0.0008, 43.1 + (i / 40) as f64 * 0.0008);
            let start = day0 + chrono::Days::new(i as u64);
            outfall_core::area::Phase {
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
        g.bench_function(name, |b| {
            b.iter(|| outfall_core::area::peak_at_one_time(&plan))
        });
    }
    g.finish();
}

/// One feature of a tile layer: id, geometry, properties.
type TileFeature = (
    u64,
    Geometry<f64>,
    serde_json::Map<String, serde_json::Value>,
);

/// 40 x 25 = 1,000 square parcels inside the z14 tile over Syracuse, 100 px from its edges
/// (the layer `tests/tiles.rs` checks the encoding of).
fn tile_parcels() -> (outfall_core::tiles::TileId, Vec<TileFeature>) {
    use outfall_core::tiles::{TileId, EXTENT};
    let tile = TileId::from_lonlat(-76.15, 43.05, 14).unwrap();
    let b = tile.bounds_lonlat();
    let (min, max) = (b.min(), b.max());
    let at = |fx: f64, fy: f64| (min.x + fx * (max.x - min.x), max.y - fy * (max.y - min.y));
    let (cols, rows) = (40u32, 25u32);
    let margin = 100.0 / f64::from(EXTENT);
    let cell_w = (1.0 - 2.0 * margin) / f64::from(cols);
    let cell_h = (1.0 - 2.0 * margin) / f64::from(rows);
    let mut features = Vec::new();
    for row in 0..rows {
        for col in 0..cols {
            let (fx0, fy0) = (
                margin + f64::from(col) * cell_w,
                margin + f64::from(row) * cell_h,
            );
            let (fx1, fy1) = (fx0 + 0.8 * cell_w, fy0 + 0.8 * cell_h);
            let ring = vec![
                at(fx0, fy0),
                at(fx0, fy1),
                at(fx1, fy1),
                at(fx1, fy0),
                at(fx0, fy0),
            ];
            let polygon = geo_types::Polygon::new(ring.into(), vec![]);
            let id = u64::from(row * cols + col);
            let serde_json::Value::Object(p) =
                serde_json::json!({"id": format!("P{id:04}"), "class": "210", "acres": 0.25})
            else {
                unreachable!()
            };
            features.push((id, Geometry::Polygon(polygon), p));
        }
    }
    (tile, features)
}

fn tiles(c: &mut Criterion) {
    let (tile, grid) = tile_parcels();
    let mut g = c.benchmark_group("tiles");
    g.sample_size(50).measurement_time(Duration::from_secs(10));
    g.bench_function("encode_1000_polygons_z14", |b| {
        b.iter(|| {
            outfall_core::tiles::encode_layer(
                tile,
                "parcels",
                grid.iter().map(|(id, g, p)| (*id, g, p)),
            )
            .unwrap()
        })
    });
    g.finish();
}

/// New Hope's flowlines as reaches and NHDPlus attributes, as `tests/network_trace.rs`
/// reads them.
fn new_hope_reaches(
    path: &Path,
) -> (
    Vec<outfall_core::network::Reach>,
    Vec<outfall_core::network::NetworkAttrs>,
) {
    use outfall_core::network::{clean_name, NetworkAttrs, Reach};
    let text = std::fs::read_to_string(path).unwrap();
    let fc: geojson::FeatureCollection = serde_json::from_str(&text).unwrap();
    let (mut reaches, mut attrs) = (Vec::new(), Vec::new());
    for f in fc.features {
        let props = f.properties.unwrap();
        let line = geo_types::LineString::<f64>::try_from(&f.geometry.unwrap().value).unwrap();
        reaches.push(Reach {
            id: (props["COMID"].as_f64().unwrap() as i64).to_string(),
            name: clean_name(props.get("GNIS_NAME").and_then(|v| v.as_str())),
            line,
        });
        attrs.push(NetworkAttrs::from_properties(&props));
    }
    (reaches, attrs)
}

/// Network build (from attributes, from geometry) and a 50 km trace from every reach.
fn network_build(c: &mut Criterion) {
    use outfall_core::network::{Network, DEFAULT_SNAP_TOLERANCE_M};
    let Some(src) = real("nhdplusv2-new-hope-nc/new_hope_flowlines.geojson") else {
        return;
    };
    let (reaches, attrs) = new_hope_reaches(&src);
    let mut g = c.benchmark_group("network");
    g.sample_size(20).measurement_time(Duration::from_secs(10));
    for (label, a) in [("attributes", Some(attrs)), ("geometry", None)] {
        g.bench_function(format!("build_new_hope_{label}"), |b| {
            b.iter(|| Network::build(reaches.clone(), a.clone(), DEFAULT_SNAP_TOLERANCE_M))
        });
        let net = Network::build(reaches.clone(), a.clone(), DEFAULT_SNAP_TOLERANCE_M);
        g.bench_function(format!("trace_every_reach_50km_new_hope_{label}"), |b| {
            b.iter(|| {
                (0..net.len())
                    .map(|i| net.trace(i, 50_000.0).steps.len())
                    .sum::<usize>()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bellingham, networks, network_build, peak, tiles);
criterion_main!(benches);

//! Outfall's side of the PostGIS / GeoPandas anchors (`../shared/bench/anchors/`): the same
//! work, in-process over the library, like the GeoPandas anchor. It prints one JSON line per
//! figure in the anchors' own format (`section`, `engine` = "outfall", `item`, `metric`,
//! `value`, `run`), so `scripts/bench-peers.sh` can put both in one table.
//!
//! Usage: outfall-bench --gen /tmp/outfall-anchors/data --real ../shared/data/real
//!        [--what load,site,steps,tiles,prepared] [--run N]
//!
//! A benchmark, not a test: it is never run by `make test`.

use outfall_core::screening::check_site;
use outfall_core::tiles::{encode_indexed_layer, TileId, BUFFER_PX, EXTENT};
use outfall_core::{Catalog, Role};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};
use std::time::Instant;

struct Args {
    gen: PathBuf,
    real: PathBuf,
    what: Vec<String>,
    run: u32,
    /// `--what scale`: a parcels GeoJSON to load, measure and check parcels of.
    parcels: Option<PathBuf>,
    /// `--what scale`: or a whole data directory, opened as `outfall serve` opens it (from its
    /// prepared cache when it has one).
    data: Option<PathBuf>,
    /// Timed passes over the sites (more passes give a profiler more samples).
    passes: usize,
    /// `--what reports`: where the reports are written, one JSON line per subject.
    out: Option<PathBuf>,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        gen: PathBuf::from("/tmp/outfall-anchors/data"),
        real: PathBuf::from("../shared/data/real"),
        what: vec!["load".into(), "site".into(), "tiles".into()],
        run: 1,
        parcels: None,
        data: None,
        passes: 1,
        out: None,
    };
    a.real = std::fs::canonicalize(&a.real).unwrap_or(a.real);
    let mut it = std::env::args().skip(1);
    let abs = |p: String| std::fs::canonicalize(&p).map_err(|e| format!("{p}: {e}"));
    while let Some(k) = it.next() {
        let v = it.next().ok_or_else(|| format!("{k} needs a value"))?;
        match k.as_str() {
            "--gen" => a.gen = abs(v)?,
            "--real" => a.real = abs(v)?,
            "--what" => a.what = v.split(',').map(str::to_string).collect(),
            "--parcels" => a.parcels = Some(abs(v)?),
            "--data" => a.data = Some(abs(v)?),
            "--out" => a.out = Some(PathBuf::from(v)),
            "--passes" => {
                a.passes = v
                    .parse()
                    .map_err(|_| format!("--passes {v}: not a number"))?
            }
            "--run" => a.run = v.parse().map_err(|_| format!("--run {v}: not a number"))?,
            _ => return Err(format!("unknown option {k}")),
        }
    }
    Ok(a)
}

fn emit(section: &str, item: &str, metric: &str, value: f64, run: u32) {
    println!(
        "{}",
        json!({"section": section, "engine": "outfall", "item": item, "metric": metric,
               "value": (value * 1e4).round() / 1e4, "run": run})
    );
}

/// Median, nearest-rank p99 and mean of latencies in ms, as the anchors' `stats.py` does.
fn emit_latencies(section: &str, item: &str, mut ms: Vec<f64>, run: u32) {
    if ms.is_empty() {
        return;
    }
    ms.sort_by(f64::total_cmp);
    let n = ms.len();
    let median = if n % 2 == 1 {
        ms[n / 2]
    } else {
        (ms[n / 2 - 1] + ms[n / 2]) / 2.0
    };
    let p99 = ms[((0.99 * n as f64).ceil() as usize).clamp(1, n) - 1];
    emit(section, item, "median_ms", median, run);
    emit(section, item, "p99_ms", p99, run);
    emit(
        section,
        item,
        "mean_ms",
        ms.iter().sum::<f64>() / n as f64,
        run,
    );
}

/// Resident set size now and at its peak (kB from /proc/self/status), in MiB.
fn rss_mib() -> (f64, f64) {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = |key: &str| {
        s.lines()
            .find(|l| l.starts_with(key))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (kb("VmRSS:") / 1024.0, kb("VmHWM:") / 1024.0)
}

fn open(dir: &Path, manifest: &str) -> Result<Catalog, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    std::fs::write(
        dir.join("outfall.toml"),
        format!("allow_outside_paths = true\n{manifest}"),
    )
    .map_err(|e| format!("{}: {e}", dir.display()))?;
    Catalog::open(dir).map_err(|e| e.to_string())
}

/// The 6k source keys parcels by `LOC_ID`; the 100k copies repeat it, so they use `pid`.
fn parcels_manifest(path: &Path, id_field: &str) -> String {
    format!(
        "[[layer]]\nrole = \"parcels\"\npath = {:?}\nid_field = {id_field:?}\n",
        path.display().to_string()
    )
}

fn coordinate_bytes(cat: &Catalog) -> f64 {
    use geo::CoordsIter;
    let n: usize = cat
        .layers
        .iter()
        .flat_map(|l| l.features.iter())
        .map(|f| f.geometry.coords_count())
        .sum();
    n as f64 * 16.0
}

/// The parcels files the load benchmarks read: (item, file, id field).
fn load_items(a: &Args) -> [(&'static str, PathBuf, &'static str); 2] {
    [
        (
            "bellingham_6k",
            a.real
                .join("massgis-bellingham-parcels/bellingham_ma_parcels_fy2026.geojson"),
            "LOC_ID",
        ),
        ("parcels_100k", a.gen.join("parcels_100k.geojson"), "pid"),
    ]
}

fn bench_load(a: &Args, work: &Path) -> Result<(), String> {
    for (item, path, id_field) in load_items(a) {
        let (rss0, _) = rss_mib();
        let t = Instant::now();
        let cat = open(&work.join(item), &parcels_manifest(&path, id_field))?;
        emit("load", item, "wall_s", t.elapsed().as_secs_f64(), a.run);
        let (rss1, _) = rss_mib();
        let coord = coordinate_bytes(&cat);
        emit("memory", item, "coord_mib", coord / 1048576.0, a.run);
        emit("memory", item, "rss_delta_mib", rss1 - rss0, a.run);
        emit(
            "memory",
            item,
            "rss_per_coord_byte",
            (rss1 - rss0) * 1048576.0 / coord,
            a.run,
        );
    }
    Ok(())
}

/// The prepared cache (`outfall prepare`) of the load items: the prepare time, the cache's
/// size on disk, then load + index from the cache in the same process (item `ITEM_prepared`,
/// paired with `load`'s GeoJSON figure for ITEM).
fn bench_prepared(a: &Args, work: &Path) -> Result<(), String> {
    for (item, path, id_field) in load_items(a) {
        let dir = work.join(format!("{item}_prepared"));
        open(&dir, &parcels_manifest(&path, id_field))?;
        let t = Instant::now();
        let layers = outfall_core::prepared::prepare(&dir).map_err(|e| e.to_string())?;
        emit("prepare", item, "wall_s", t.elapsed().as_secs_f64(), a.run);
        let bytes: u64 = layers.iter().map(|l| l.bytes).sum();
        emit(
            "prepare",
            item,
            "cache_mib",
            bytes as f64 / 1048576.0,
            a.run,
        );
        let t = Instant::now();
        let cat = Catalog::open(&dir).map_err(|e| e.to_string())?;
        emit(
            "load",
            &format!("{item}_prepared"),
            "wall_s",
            t.elapsed().as_secs_f64(),
            a.run,
        );
        std::hint::black_box(cat.layers.len());
    }
    Ok(())
}

/// The anchors' site-check data set: both networks, the CA 303(d) lines and polygons, and the
/// 3 disturbance polygons of each of the 1,000 sites. The rules are the ones under which
/// Outfall answers the anchors' question (see the side-by-side notes): a 2.5 km search, no
/// trace limit, and any overlap within 100 m counts as a match.
pub fn site_manifest(real: &Path, gen: &Path) -> String {
    let p = |rel: &str| format!("{:?}", real.join(rel).display().to_string());
    format!(
        "[rules]\nsearch_radius_m = 2500.0\ntrace_limit_km = 10000.0\nimpaired_match_m = 100.0\nimpaired_match_share = 1e-9\n\
         [[layer]]\nrole = \"flowlines\"\npath = {}\nid_field = \"COMID\"\nname_field = \"GNIS_NAME\"\n\
         [[layer]]\nrole = \"flowlines\"\npath = {}\nid_field = \"COMID\"\nname_field = \"GNIS_NAME\"\n\
         [[layer]]\nrole = \"impaired\"\npath = {}\nid_field = \"wbid\"\nname_field = \"wbname\"\ncauses_field = \"pollutant\"\n\
         [[layer]]\nrole = \"impaired\"\npath = {}\nid_field = \"wbid\"\nname_field = \"wbname\"\ncauses_field = \"pollutant\"\n\
         [[layer]]\nrole = \"disturbance\"\npath = {:?}\nsite_field = \"site_id\"\n",
        p("nhdplusv2-new-hope-nc/new_hope_flowlines.geojson"),
        p("nhdplusv2-walker-creek-ca/walker_flowlines.geojson"),
        p("ca-303d-2014-2016/ca_303d_2014_2016_lines.geojson"),
        p("ca-303d-2014-2016/ca_303d_2014_2016_polygons.geojson"),
        gen.join("disturbance.geojson").display().to_string(),
    )
}

/// The anchors' four steps and nothing else, through Outfall's library, as one call: (i) the
/// geodesic acres of the union of the site's disturbance polygons, (ii) the nearest flowline,
/// (iii) the downstream trace, (iv) the 303(d) listings on the traced reaches (matched to
/// each reach at load, so here a lookup). The full check also finds 20 receiving waters,
/// phases, parcels, the law's findings, the map frame and the report.
fn anchor_steps(cat: &Catalog, id: &str, split_ms: &mut [f64; 5]) -> Result<Value, String> {
    use outfall_core::area;
    *split_ms = [0.0; 5];
    let mut t = Instant::now();
    let mut lap = |i: usize| {
        split_ms[i] = t.elapsed().as_secs_f64() * 1e3;
        t = Instant::now();
    };
    let site = cat.site(id).map_err(|e| e.to_string())?;
    let polys: Vec<_> = site
        .disturbance
        .iter()
        .flat_map(|&(l, i)| area::polygons_of(&cat.layers[l].features[i].geometry))
        .collect();
    let union = area::union(&polys);
    lap(0);
    let acres = area::area_acres(&union);
    lap(1);
    let rules = &cat.manifest.rules;
    let footprint = geo_types::Geometry::MultiPolygon(union);
    let nearest = outfall_core::facts::water::nearest_water(cat, &footprint, rules.search_radius_m);
    lap(2);
    let hydro = cat.hydro.as_ref().ok_or("no flow network")?;
    let Some(start) = nearest.and_then(|(l, f, _)| hydro.reach_of(l, f)) else {
        return Ok(
            json!({"site_id": id, "acres": acres, "entry": null, "trace": 0, "first_impaired": null}),
        );
    };
    let (steps, _, _) = hydro.trace(start, rules.trace_limit_km * 1000.0);
    lap(3);
    let first_impaired = steps
        .iter()
        .find(|s| !s.impairments.is_empty())
        .map(|s| hydro.reach_id(&cat.layers, s.reach));
    lap(4);
    Ok(
        json!({"site_id": id, "acres": acres, "entry": hydro.reach_id(&cat.layers, start),
        "trace": steps.len(), "first_impaired": first_impaired}),
    )
}

/// `full`: also time the full check (`--what site`); `--what steps` times the four steps only.
fn bench_site(a: &Args, work: &Path, full: bool) -> Result<(), String> {
    let cat = open(&work.join("site"), &site_manifest(&a.real, &a.gen))?;
    let n = cat.sites.len() / 2;
    if n == 0 {
        return Err("no sites in disturbance.geojson".into());
    }
    let ids: Vec<String> = (1..=2 * n).map(|i| i.to_string()).collect();
    let mut answers = Vec::new();
    for id in &ids {
        // Warm-up pass, which also records the answers for the agreement check.
        let r = check_site(&cat, id).map_err(|e| format!("site {id}: {e}"))?;
        answers.push(json!({"site_id": id, "acres": r.disturbance.total_acres,
            "entry": r.entry.reach_id, "trace": r.downstream.len(),
            "first_impaired": r.first_impaired.as_ref().map(|i| i.reach_id.clone())}));
    }
    let mut ms = vec![Vec::new(), Vec::new()];
    let full_passes = if full { a.passes } else { 0 };
    for (i, id) in ids.iter().enumerate().cycle().take(ids.len() * full_passes) {
        let t = Instant::now();
        let r = check_site(&cat, id);
        ms[i / n].push(t.elapsed().as_secs_f64() * 1e3);
        std::hint::black_box(r.ok());
    }
    let [nh, wk]: [Vec<f64>; 2] = ms.try_into().expect("two networks");
    emit_latencies("site", "full_newhope", nh, a.run);
    emit_latencies("site", "full_walker", wk, a.run);
    // The anchors' steps (i)-(iv) only, checked against the full check's answers first.
    let mut split = [0.0; 5];
    for (id, full) in ids.iter().zip(&answers) {
        let steps = anchor_steps(&cat, id, &mut split)?;
        if &steps != full {
            return Err(format!(
                "site {id}: steps (i)-(iv) {steps} differ from the full check {full}"
            ));
        }
    }
    let mut ms = vec![Vec::new(), Vec::new()];
    // Per step and network: (i) union, then acres, (ii) nearest, (iii) trace, (iv) impaired.
    let mut step_ms = vec![vec![Vec::new(); 5], vec![Vec::new(); 5]];
    for (i, id) in ids.iter().enumerate().cycle().take(ids.len() * a.passes) {
        let t = Instant::now();
        let r = anchor_steps(&cat, id, &mut split);
        ms[i / n].push(t.elapsed().as_secs_f64() * 1e3);
        std::hint::black_box(r.ok());
        for (s, v) in split.iter().enumerate() {
            step_ms[i / n][s].push(*v);
        }
    }
    let [nh, wk]: [Vec<f64>; 2] = ms.try_into().expect("two networks");
    emit_latencies("site", "steps_newhope", nh, a.run);
    emit_latencies("site", "steps_walker", wk, a.run);
    for (net, per_step) in ["newhope", "walker"].iter().zip(step_ms) {
        for (name, v) in [
            "i_union",
            "i_acres",
            "ii_nearest",
            "iii_trace",
            "iv_impaired",
        ]
        .iter()
        .zip(per_step)
        {
            emit_latencies("site_step", &format!("{name}_{net}"), v, a.run);
        }
    }
    let out = work.join("outfall_answers.json");
    std::fs::write(&out, Value::Array(answers).to_string())
        .map_err(|e| format!("{}: {e}", out.display()))?;
    Ok(())
}

/// Writes every report a change must leave byte for byte the same, one JSON line each: the
/// demo's sites (`clay-sites.jsonl`), its parcels checked whole (`clay-parcels.jsonl`), the
/// 150 Clay points of `tests/fixtures/clay_points.csv` (`clay-points.jsonl`) and, when the
/// anchors' data is at `--gen`, their 1,000 sites (`anchor-sites.jsonl`). Not timed.
fn write_reports(a: &Args, work: &Path) -> Result<(), String> {
    use outfall_core::screening::{check_drawn, check_parcel};
    let out = a.out.clone().ok_or("--what reports needs --out DIR")?;
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let write = |name: &str, lines: Vec<String>| {
        let p = out.join(name);
        std::fs::write(&p, lines.join("\n") + "\n").map_err(|e| format!("{}: {e}", p.display()))
    };
    let json = |r: &outfall_core::report::Report| serde_json::to_string(r).unwrap_or_default();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let clay = Catalog::open(&root.join("data/clay")).map_err(|e| e.to_string())?;
    let mut lines = Vec::new();
    for s in &clay.sites {
        lines.push(check_site(&clay, &s.id).map_or_else(|e| e.to_string(), |r| json(&r)));
    }
    write("clay-sites.jsonl", lines)?;
    let parcels = clay.layer(Role::Parcels).ok_or("the demo has no parcels")?;
    let mut lines = Vec::new();
    for f in parcels.features.iter() {
        lines.push(check_parcel(&clay, &f.id).map_or_else(|e| e.to_string(), |r| json(&r)));
    }
    write("clay-parcels.jsonl", lines)?;
    let mut csv = csv::Reader::from_path(root.join("tests/fixtures/clay_points.csv"))
        .map_err(|e| e.to_string())?;
    let mut lines = Vec::new();
    for row in csv.deserialize::<std::collections::BTreeMap<String, String>>() {
        let row = row.map_err(|e| e.to_string())?;
        let (id, bbox) = (&row["id"], &row["bbox"]);
        let v: Vec<f64> = bbox.split(' ').filter_map(|x| x.parse().ok()).collect();
        let rect = geo_types::Rect::new((v[0], v[1]), (v[2], v[3]));
        let props = json!({"phase": "1", "start": "2026-05-01", "end": "2026-09-30"});
        let f = outfall_core::load::Feature {
            id: id.to_string(),
            geometry: geo_types::Geometry::Polygon(rect.to_polygon()),
            properties: outfall_core::attributes::Properties::from(
                props.as_object().cloned().unwrap_or_default(),
            ),
        };
        let r = check_drawn(&clay, id, &[f], None);
        lines.push(r.map_or_else(|e| e.to_string(), |r| json(&r)));
    }
    write("clay-points.jsonl", lines)?;
    if a.gen.join("disturbance.geojson").exists() {
        let cat = open(&work.join("site"), &site_manifest(&a.real, &a.gen))?;
        let mut lines = Vec::new();
        for s in &cat.sites {
            lines.push(check_site(&cat, &s.id).map_or_else(|e| e.to_string(), |r| json(&r)));
        }
        write("anchor-sites.jsonl", lines)?;
    } else {
        eprintln!(
            "outfall-bench reports: no anchors' data at {}; anchor sites skipped",
            a.gen.display()
        );
    }
    Ok(())
}

/// The anchors' tile list: every WebMercatorQuad tile of z14..z16 over the Bellingham extent.
fn tile_list(gen: &Path) -> Result<Vec<TileId>, String> {
    let path = gen.join("tiles.json");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let v: Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for t in v["tiles"].as_array().into_iter().flatten() {
        let g = |k: &str| t[k].as_u64().unwrap_or(0) as u32;
        for x in g("x0")..=g("x1") {
            for y in g("y0")..=g("y1") {
                out.extend(TileId::new(g("z") as u8, x, y));
            }
        }
    }
    Ok(out)
}

fn bench_tiles(a: &Args, work: &Path) -> Result<(), String> {
    let cat = open(
        &work.join("parcels_100k"),
        &parcels_manifest(&a.gen.join("parcels_100k.geojson"), "pid"),
    )?;
    let layer = cat.layer(Role::Parcels).ok_or("no parcels layer")?;
    let tiles = tile_list(&a.gen)?;
    // The anchors' 5 attributes, read per tile as the server (and ST_AsMVT) reads them.
    let keep = ["pid", "LOC_ID", "MAP_PAR_ID", "USE_CODE", "SITE_ADDR"];
    let attrs_of = |i: usize| -> Map<String, Value> {
        let p = &layer.features[i].properties;
        keep.iter()
            .filter_map(|k| p.get(k).map(|v| (k.to_string(), v)))
            .collect()
    };
    let mut ms = Vec::new();
    let mut bytes = [0usize; 3];
    let t_all = Instant::now();
    for pass in 0..2 {
        for &tid in &tiles {
            let t = Instant::now();
            let rect = tid.bounds_with_buffer_lonlat(BUFFER_PX, EXTENT);
            let hits: Vec<_> = layer.query_envelopes(rect).collect();
            let attrs: Vec<Map<String, Value>> = hits.iter().map(|&(i, _)| attrs_of(i)).collect();
            let tile = encode_indexed_layer(
                tid,
                "parcels",
                hits.iter()
                    .zip(&attrs)
                    .map(|(&(i, b), a)| (i as u64, &layer.features[i].geometry, a, b)),
            );
            ms.push(t.elapsed().as_secs_f64() * 1e3);
            if pass == 0 {
                bytes[(tid.z as usize).saturating_sub(14).min(2)] += tile.map_or(0, |b| b.len());
            }
        }
    }
    emit(
        "tiles",
        "c1",
        "per_s",
        ms.len() as f64 / t_all.elapsed().as_secs_f64(),
        a.run,
    );
    emit_latencies("tiles", "c1", ms, a.run);
    for (i, b) in bytes.iter().enumerate() {
        emit(
            "tiles_info",
            &format!("z{}", 14 + i),
            "bytes",
            *b as f64,
            a.run,
        );
    }
    Ok(())
}

/// The scale probe: load one (large) parcels file, or open a data directory, in a fresh
/// process; report the load time, the resident memory against the coordinate bytes, and the
/// latency of whole checks of parcels spread evenly over the layer (200 from a file, 1,000
/// from a directory, whose network makes each check trace downstream).
fn bench_scale(a: &Args, work: &Path) -> Result<(), String> {
    let (path, checks) = match (&a.data, &a.parcels) {
        (Some(dir), _) => (dir, 1000),
        (None, Some(path)) => (path, 200),
        (None, None) => return Err("--what scale needs --parcels FILE or --data DIR".into()),
    };
    let item = path
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    let (rss0, _) = rss_mib();
    let t = Instant::now();
    let cat = if a.data.is_some() {
        Catalog::open(path).map_err(|e| e.to_string())?
    } else {
        open(&work.join("scale"), &parcels_manifest(path, "pid"))?
    };
    emit("scale", &item, "load_s", t.elapsed().as_secs_f64(), a.run);
    let (rss1, hwm) = rss_mib();
    let coord = coordinate_bytes(&cat);
    let layer = cat.layer(Role::Parcels).ok_or("no parcels layer")?;
    emit(
        "scale",
        &item,
        "features",
        layer.features.len() as f64,
        a.run,
    );
    emit("scale", &item, "coord_mib", coord / 1048576.0, a.run);
    emit("scale", &item, "rss_mib", rss1 - rss0, a.run);
    emit("scale", &item, "peak_rss_mib", hwm, a.run);
    emit(
        "scale",
        &item,
        "rss_per_coord_byte",
        (rss1 - rss0) * 1048576.0 / coord,
        a.run,
    );
    let step = (layer.features.len() / checks).max(1);
    let mut ms = Vec::new();
    let mut traced = 0;
    // More passes give a profiler more samples; every pass is counted.
    let sample: Vec<_> = layer.features.iter().step_by(step).take(checks).collect();
    for f in sample.iter().cycle().take(sample.len() * a.passes) {
        let t = Instant::now();
        let r = outfall_core::screening::check_parcel(&cat, &f.id);
        ms.push(t.elapsed().as_secs_f64() * 1e3);
        traced += usize::from(r.as_ref().is_ok_and(|r| !r.downstream.is_empty()));
        std::hint::black_box(r.ok());
    }
    emit(
        "scale",
        &item,
        "checks_traced",
        (traced / a.passes) as f64,
        a.run,
    );
    emit_latencies("scale", &format!("{item}_check_parcel"), ms, a.run);
    Ok(())
}

fn main() {
    let a = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("outfall-bench: {e}");
            std::process::exit(2);
        }
    };
    let work = std::env::temp_dir().join(format!("outfall-bench-{}", std::process::id()));
    let mut failed = false;
    for w in a.what.clone() {
        let r = match w.as_str() {
            "load" => bench_load(&a, &work),
            "site" => bench_site(&a, &work, true),
            "steps" => bench_site(&a, &work, false),
            "tiles" => bench_tiles(&a, &work),
            "scale" => bench_scale(&a, &work),
            "prepared" => bench_prepared(&a, &work),
            "reports" => write_reports(&a, &work),
            other => Err(format!(
                "unknown benchmark '{other}' (load, site, tiles, scale, prepared)"
            )),
        };
        if let Err(e) = r {
            eprintln!("outfall-bench {w}: {e}");
            failed = true;
        }
    }
    if let Ok(keep) = std::env::var("OUTFALL_BENCH_KEEP") {
        let _ = std::fs::rename(work.join("outfall_answers.json"), keep);
    }
    let _ = std::fs::remove_dir_all(&work);
    if failed {
        std::process::exit(1);
    }
}

//! The prepared cache (`outfall prepare`): a load from the cache gives the very layers a
//! load from the sources gives (ids, coordinates bit for bit, attributes with their JSON
//! kinds, problems), the same determinations, and is ignored the moment a source changes
//! or the cache is damaged. A manifest layer may also be a `.fgb` file.

mod common;

use common::{dataset, demo_dir, layer_toml, real};
use outfall_core::catalog::Catalog;
use outfall_core::config::Manifest;
use outfall_core::layer::Layer;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A copy of a data folder's files (not its registry or cache) in a temp folder.
fn copy_of(src: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for e in std::fs::read_dir(src).expect("read data folder").flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().to_string();
        if p.is_file() && !name.starts_with("registry.gpkg") {
            std::fs::copy(&p, dir.path().join(&name)).expect("copy");
        }
    }
    dir
}

/// Whether each geometry layer of the manifest is read from the cache right now.
fn cached_layers(dir: &Path) -> Vec<(String, bool)> {
    let m = Manifest::read(dir).expect("manifest");
    m.layers
        .iter()
        .filter(|c| outfall_core::prepared::is_geometry_layer(c))
        .map(|c| {
            let r = outfall_core::prepared::read(&m.dir, c, m.max_rejected_share_of(c));
            (c.path.display().to_string(), matches!(r, Ok(Some(_))))
        })
        .collect()
}

fn bits(g: &geo_types::Geometry<f64>) -> Vec<(u64, u64)> {
    use geo::CoordsIter;
    g.coords_iter()
        .map(|c| (c.x.to_bits(), c.y.to_bits()))
        .collect()
}

/// Two loads of a layer agree on everything a user can see.
fn assert_same_layer(a: &Layer, b: &Layer) {
    let what = &a.source.path;
    assert_eq!(a.features.len(), b.features.len(), "{what}: feature count");
    for (fa, fb) in a.features.iter().zip(b.features.iter()) {
        assert_eq!(fa.id, fb.id, "{what}: ids in order");
        assert_eq!(
            std::mem::discriminant(&fa.geometry),
            std::mem::discriminant(&fb.geometry),
            "{what} {}: geometry type",
            fa.id
        );
        assert_eq!(fa.geometry, fb.geometry, "{what} {}: geometry", fa.id);
        assert_eq!(
            bits(&fa.geometry),
            bits(&fb.geometry),
            "{what} {}: bits",
            fa.id
        );
        // serde_json's Value compares 1 and 1.0 as different: the kinds survive too.
        assert_eq!(fa.properties, fb.properties, "{what} {}: properties", fa.id);
    }
    assert_eq!(a.problems.json(), b.problems.json(), "{what}: problems");
    assert_eq!(a.source.json(), b.source.json(), "{what}: source info");
    assert_eq!(a.bbox(), b.bbox(), "{what}: index extent");
    // The id lookup and the R-tree (built from what the cache hands over) answer alike.
    for (i, f) in a.features.iter().enumerate() {
        assert_eq!(
            a.position(&f.id),
            b.position(&f.id),
            "{what} {}: by id",
            f.id
        );
        if i % 25 == 0 {
            if let Some(r) = geo::BoundingRect::bounding_rect(&f.geometry) {
                let mut qa: Vec<usize> = a.query(r).collect();
                let mut qb: Vec<usize> = b.query(r).collect();
                qa.sort_unstable();
                qb.sort_unstable();
                assert_eq!(qa, qb, "{what} {}: features near it", f.id);
            }
        }
    }
}

/// Anything serializable as JSON text, to compare what a user would see.
trait Json {
    fn json(&self) -> String;
}
impl<T: serde::Serialize> Json for T {
    fn json(&self) -> String {
        serde_json::to_string(self).expect("serialize")
    }
}

fn assert_same_catalog(a: &Catalog, b: &Catalog) {
    assert_eq!(a.layers.len(), b.layers.len());
    for (la, lb) in a.layers.iter().zip(&b.layers) {
        assert_same_layer(la, lb);
    }
    assert_eq!(a.problems().json(), b.problems().json(), "all problems");
}

#[test]
fn demo_from_the_cache_equals_the_demo_from_its_sources() {
    let dir = copy_of(&demo_dir());
    let source = Catalog::open(dir.path()).expect("demo loads from its sources");
    let prepared = outfall_core::prepared::prepare(dir.path()).expect("prepare the demo");
    assert!(prepared.iter().all(|l| l.skipped.is_none()), "{prepared:?}");
    assert!(prepared
        .iter()
        .any(|l| l.path == "parcels.shp" && l.features > 400));
    let cached = cached_layers(dir.path());
    assert!(
        cached.iter().all(|(_, c)| *c),
        "every layer from the cache: {cached:?}"
    );
    let from_cache = Catalog::open(dir.path()).expect("demo loads from the cache");
    assert_same_catalog(&source, &from_cache);
    // The determinations: every site's full report, byte for byte.
    assert!(!source.sites.is_empty());
    for site in &source.sites {
        let a = outfall_core::screening::check_site(&source, &site.id).expect("check");
        let b = outfall_core::screening::check_site(&from_cache, &site.id).expect("check");
        assert_eq!(a.json(), b.json(), "site {}", site.id);
    }
    // validate reads the cache and reports the same.
    let va = outfall_core::catalog::validate(dir.path());
    assert!(va.passes(false), "{:?}", va.errors);
    assert_eq!(
        va.features,
        source
            .layers
            .iter()
            .map(|l| l.features.len())
            .sum::<usize>()
    );
}

#[test]
fn attributes_keep_their_kinds_nulls_and_absences() {
    let square = |x: f64| {
        format!(
            r#"{{"type":"Polygon","coordinates":[[[{x},43.1],[{x},43.11],[{},43.11],[{},43.1],[{x},43.1]]]}}"#,
            x + 0.01,
            x + 0.01
        )
    };
    let props = [
        // int, float that looks whole, null in a column every feature has, big unsigned,
        // mixed kinds, nested values, a key only some features have (once null), all-null.
        r#"{"id":"a","n":1,"f":2.0,"d":null,"u":18446744073709551615,"m":1,"nest":{"k":[1,2.5,"x",null]},"some":null,"none":null,"b":true,"s":"x"}"#,
        r#"{"id":"b","n":-7,"f":0.1,"d":"2024-05-01","u":1,"m":"one","nest":[],"none":null,"b":false,"s":""}"#,
        r#"{"id":"c","n":9007199254740993,"f":-0.0,"d":"2024-06-01","u":2,"m":1.5,"nest":null,"some":3,"none":null,"b":true,"s":"é"}"#,
    ];
    let features: Vec<String> = props
        .iter()
        .enumerate()
        .map(|(i, p)| {
            format!(
                r#"{{"type":"Feature","properties":{p},"geometry":{}}}"#,
                square(-76.2 + i as f64 * 0.02)
            )
        })
        .collect();
    let geojson = format!(
        r#"{{"type":"FeatureCollection","features":[{}]}}"#,
        features.join(",")
    );
    let dir = dataset(
        &layer_toml("parcels", Path::new("p.geojson"), "id_field = \"id\""),
        &[("p.geojson", geojson.as_bytes())],
    );
    let source = Catalog::open(dir.path()).expect("load");
    outfall_core::prepared::prepare(dir.path()).expect("prepare");
    assert!(cached_layers(dir.path()).iter().all(|(_, c)| *c));
    let cached = Catalog::open(dir.path()).expect("load from the cache");
    assert_same_catalog(&source, &cached);
    let l = cached.layer(outfall_core::Role::Parcels).expect("parcels");
    let a = l.get("a").expect("a").properties.to_map();
    assert!(a["n"].is_i64() && a["f"].is_f64());
    assert!(a["d"].is_null() && a["some"].is_null());
    assert!(
        !l.get("b").expect("b").properties.contains_key("some"),
        "absent stays absent"
    );
    assert_eq!(a["u"].as_u64(), Some(u64::MAX));
}

#[test]
fn a_source_changed_after_prepare_makes_its_cache_ignored() {
    let dir = copy_of(&demo_dir());
    outfall_core::prepared::prepare(dir.path()).expect("prepare");
    // Touched only: same bytes, newer modification time.
    let sites = dir.path().join("sites.geojson");
    let f = std::fs::File::options()
        .write(true)
        .open(&sites)
        .expect("open");
    f.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(5))
        .expect("touch");
    drop(f);
    // Edited: a shapefile's .dbf is part of the parcels layer.
    let dbf = dir.path().join("parcels.dbf");
    let mut bytes = std::fs::read(&dbf).expect("dbf");
    bytes.push(0x1a);
    std::fs::write(&dbf, bytes).expect("edit dbf");
    let m = Manifest::read(dir.path()).expect("manifest");
    for (layer, changed) in [
        ("sites.geojson", "sites.geojson"),
        ("parcels.shp", "parcels.dbf"),
    ] {
        let cfg = m
            .layers
            .iter()
            .find(|c| c.path == Path::new(layer))
            .expect("layer");
        let e = outfall_core::prepared::read(&m.dir, cfg, m.max_rejected_share_of(cfg))
            .expect_err("a stale cache is refused");
        let msg = e.to_string();
        assert!(
            msg.contains(".prepared") && msg.contains("out of date"),
            "{msg}"
        );
        assert!(msg.contains(changed), "names what changed: {msg}");
    }
    let cached = cached_layers(dir.path());
    assert!(
        cached.iter().any(|(p, c)| p == "flowlines.geojson" && *c),
        "{cached:?}"
    );
    // The catalog loads anyway, from the sources, with the same answers.
    let now = Catalog::open(dir.path()).expect("loads from the sources");
    let fresh = copy_of(dir.path());
    assert_same_catalog(&Catalog::open(fresh.path()).expect("load"), &now);
    // `prepare` again makes the cache current.
    outfall_core::prepared::prepare(dir.path()).expect("prepare again");
    assert!(cached_layers(dir.path()).iter().all(|(_, c)| *c));
}

/// The prepared file of a layer (the one `.fgb` whose name starts with the role).
#[test]
fn a_sidecar_id_order_that_is_wrong_is_not_trusted() {
    let dir = copy_of(&demo_dir());
    let source = Catalog::open(dir.path()).expect("demo loads from its sources");
    outfall_core::prepared::prepare(dir.path()).expect("prepare the demo");
    let fgb = prepared_file(dir.path(), "parcels");
    let json = fgb.with_extension("json");
    let mut side: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).expect("sidecar")).expect("json");
    let order = side["by_id"]
        .as_array_mut()
        .expect("the sidecar lists the id order");
    assert!(order.len() > 400);
    order.reverse();
    std::fs::write(&json, side.to_string()).expect("write sidecar");
    let from_cache = Catalog::open(dir.path()).expect("loads from the cache");
    assert!(cached_layers(dir.path()).iter().all(|(_, c)| *c));
    assert_same_catalog(&source, &from_cache);
}

/// A sidecar whose attribute names are out of order would misplace every value: the layer
/// is refused as damaged, by name, and read from its source.
#[test]
fn a_sidecar_with_unsorted_attribute_names_is_refused() {
    let dir = copy_of(&demo_dir());
    let source = Catalog::open(dir.path()).expect("demo loads from its sources");
    outfall_core::prepared::prepare(dir.path()).expect("prepare the demo");
    let json = prepared_file(dir.path(), "parcels").with_extension("json");
    let mut side: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).expect("sidecar")).expect("json");
    let keys = side["keys"]
        .as_array_mut()
        .expect("the sidecar lists the keys");
    assert!(keys.len() > 2);
    keys.swap(0, 1);
    std::fs::write(&json, side.to_string()).expect("write sidecar");
    let e = refusal(dir.path(), |c| c.role == outfall_core::Role::Parcels);
    assert!(e.contains("not sorted"), "{e}");
    let now = Catalog::open(dir.path()).expect("loads from the sources");
    assert_same_catalog(&source, &now);
}

/// One character of one parcel's attribute changed in the cache file (the same length, so
/// the file still parses): the load refuses the layer as damaged, by name, and reads the
/// source, rather than serving the changed value.
#[test]
fn a_changed_attribute_in_the_cache_is_refused() {
    let dir = copy_of(&demo_dir());
    let source = Catalog::open(dir.path()).expect("demo loads from its sources");
    outfall_core::prepared::prepare(dir.path()).expect("prepare the demo");
    let fgb = prepared_file(dir.path(), "parcels");
    let parcels = source.layer(outfall_core::Role::Parcels).expect("parcels");
    // A string value long enough to be found once in the file.
    let value = parcels
        .features
        .iter()
        .flat_map(|f| f.properties.raw_iter().map(|(_, t)| t.to_string()))
        .find(|t| t.starts_with('"') && t.len() > 12)
        .expect("a string attribute");
    let mut bytes = std::fs::read(&fgb).expect("read the cache");
    let at = bytes
        .windows(value.len())
        .position(|w| w == value.as_bytes())
        .expect("the value is in the cache file");
    let c = &mut bytes[at + 1];
    *c = if *c == b'Z' { b'Y' } else { b'Z' };
    std::fs::write(&fgb, bytes).expect("write");
    let msg = refusal(dir.path(), |c| c.role == outfall_core::Role::Parcels);
    assert!(
        msg.contains(&fgb.display().to_string()) && msg.contains("checksum"),
        "names the file and why: {msg}"
    );
    let now = Catalog::open(dir.path()).expect("loads from the sources");
    assert_same_catalog(&source, &now);
}

/// Why reading the cache of the manifest's layer that `pick` chooses is refused (the test
/// fails if it is read).
fn refusal(dir: &Path, pick: impl Fn(&outfall_core::config::LayerConfig) -> bool) -> String {
    let m = Manifest::read(dir).expect("manifest");
    let cfg = m.layers.iter().find(|c| pick(c)).expect("layer");
    outfall_core::prepared::read(&m.dir, cfg, m.max_rejected_share_of(cfg))
        .expect_err("the cache is refused")
        .to_string()
}

fn prepared_file(dir: &Path, role: &str) -> PathBuf {
    std::fs::read_dir(dir.join(".prepared"))
        .expect("cache folder")
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.extension().is_some_and(|e| e == "fgb")
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with(&format!("{role}-")))
        })
        .expect("prepared file")
}

#[test]
fn a_damaged_cache_is_reported_by_name_and_the_sources_are_read() {
    let dir = copy_of(&demo_dir());
    let source = Catalog::open(dir.path()).expect("load");
    outfall_core::prepared::prepare(dir.path()).expect("prepare");
    let parcels = prepared_file(dir.path(), "parcels");
    let roads = prepared_file(dir.path(), "basemap");
    // One cut short, one with its feature bytes overwritten (same length).
    let len = std::fs::metadata(&parcels).expect("meta").len();
    std::fs::File::options()
        .write(true)
        .open(&parcels)
        .expect("open")
        .set_len(len / 2)
        .expect("truncate");
    let mut bytes = std::fs::read(&roads).expect("read");
    let n = bytes.len();
    for b in &mut bytes[n / 2..n / 2 + 4096] {
        *b = 0xff;
    }
    std::fs::write(&roads, bytes).expect("write");
    for (layer, file) in [("parcels.shp", &parcels), ("roads.geojson", &roads)] {
        let msg = refusal(dir.path(), |c| c.path == Path::new(layer));
        assert!(
            msg.contains(&file.display().to_string()) && msg.contains("damaged"),
            "names the file: {msg}"
        );
    }
    let now = Catalog::open(dir.path()).expect("loads from the sources");
    assert_same_catalog(&source, &now);
}

#[test]
fn a_manifest_layer_may_be_a_flatgeobuf_file() {
    let demo = copy_of(&demo_dir());
    let source = Catalog::open(demo.path()).expect("load");
    let dir = dataset("", &[]);
    let a = source.layer(outfall_core::Role::Parcels).expect("parcels");
    write_typed_fgb(&a.features, &dir.path().join("parcels.fgb"));
    write_fgb_parcels_manifest(dir.path());
    let cat = Catalog::open(dir.path()).expect("a .fgb layer loads");
    let b = cat.layer(outfall_core::Role::Parcels).expect("parcels");
    assert_eq!(b.source.crs, "EPSG:4326", "CRS from the header");
    assert_eq!(a.features.len(), b.features.len());
    for f in a.features.iter() {
        let g = b
            .get(&f.id)
            .unwrap_or_else(|| panic!("parcel {} in the .fgb", f.id));
        assert_eq!(bits(&f.geometry), bits(&g.geometry), "{}", f.id);
        for (k, v) in f.properties.iter() {
            assert_eq!(g.properties.get(k), Some(v), "{} {k}", f.id);
        }
    }
    // A damaged .fgb layer is an error naming it, not a panic.
    let path = dir.path().join("parcels.fgb");
    let len = std::fs::metadata(&path).expect("meta").len();
    std::fs::File::options()
        .write(true)
        .open(&path)
        .expect("open")
        .set_len(len - 100)
        .expect("truncate");
    let e = Catalog::open(dir.path()).expect_err("a truncated .fgb fails to load");
    assert!(e.to_string().contains("parcels.fgb"), "{e}");
    std::fs::write(&path, b"not a flatgeobuf file at all").expect("write");
    let e = Catalog::open(dir.path()).expect_err("garbage fails to load");
    assert!(
        e.to_string().contains("parcels.fgb") && e.to_string().contains("FlatGeobuf"),
        "{e}"
    );
}

/// GDAL's `ogrinfo`, or None (skip outside CI, fail in CI).
fn gdal(tool: &str) -> Option<Command> {
    if Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return Some(Command::new(tool));
    }
    if std::env::var_os("CI").is_some() {
        panic!("{tool} (Debian gdal-bin) is required in CI");
    }
    eprintln!("SKIP: {tool} not installed (apt-get install gdal-bin)");
    None
}

#[test]
fn gdal_reads_the_prepared_files_and_outfall_reads_gdals() {
    let Some(mut ogrinfo) = gdal("ogrinfo") else {
        return;
    };
    let dir = copy_of(&demo_dir());
    let layers = outfall_core::prepared::prepare(dir.path()).expect("prepare");
    let parcels = layers
        .iter()
        .find(|l| l.role == "parcels")
        .expect("parcels");
    let out = ogrinfo
        .args(["-so", "-al"])
        .arg(&parcels.file)
        .output()
        .expect("run ogrinfo");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains(&format!("Feature Count: {}", parcels.features)),
        "{text}"
    );
    assert!(text.contains("ID[\"EPSG\",4326]"), "WGS84: {text}");
    for column in [
        "outfall_id: String",
        "outfall_order: Integer64",
        "outfall_properties: Binary",
    ] {
        assert!(text.contains(column), "the cache's columns: {text}");
    }

    // GDAL's own FlatGeobuf of the demo parcels, in their state-plane CRS: reprojected from
    // the header's CRS to the same places the shapefile loads to.
    let Some(mut ogr2ogr) = gdal("ogr2ogr") else {
        return;
    };
    let out_dir = tempfile::tempdir().expect("temp");
    let fgb = out_dir.path().join("parcels.fgb");
    let st = ogr2ogr
        .args(["-f", "FlatGeobuf"])
        .arg(&fgb)
        .arg(dir.path().join("parcels.shp"))
        .status()
        .expect("run ogr2ogr");
    assert!(st.success());
    write_fgb_parcels_manifest(out_dir.path());
    let gdal_cat = Catalog::open(out_dir.path()).expect("GDAL's .fgb loads");
    let ours = Catalog::open(dir.path()).expect("load");
    let (a, b) = (
        ours.layer(outfall_core::Role::Parcels).expect("parcels"),
        gdal_cat
            .layer(outfall_core::Role::Parcels)
            .expect("parcels"),
    );
    assert_eq!(a.features.len(), b.features.len());
    assert!(
        b.source.crs.contains("2261") || b.source.crs.contains("New York"),
        "{}",
        b.source.crs
    );
    for f in a.features.iter() {
        let g = b.get(&f.id).unwrap_or_else(|| panic!("parcel {}", f.id));
        use geo::CoordsIter;
        for (p, q) in f.geometry.coords_iter().zip(g.geometry.coords_iter()) {
            assert!(
                (p.x - q.x).abs() < 1e-9 && (p.y - q.y).abs() < 1e-9,
                "{} {p:?} {q:?}",
                f.id
            );
        }
    }
}

#[test]
fn real_bellingham_parcels_from_the_cache_equal_the_geojson_load() {
    let Some(path) = real("massgis-bellingham-parcels/bellingham_ma_parcels_fy2026.geojson") else {
        return;
    };
    let dir = dataset(
        &format!(
            "allow_outside_paths = true\n{}",
            layer_toml(
                "parcels",
                &path,
                "id_field = \"LOC_ID\"\nname_field = \"SITE_ADDR\""
            )
        ),
        &[],
    );
    let source = Catalog::open(dir.path()).expect("Bellingham parcels load");
    let layers = outfall_core::prepared::prepare(dir.path()).expect("prepare");
    assert!(layers.iter().all(|l| l.skipped.is_none()), "{layers:?}");
    assert!(cached_layers(dir.path()).iter().all(|(_, c)| *c));
    let cached = Catalog::open(dir.path()).expect("load from the cache");
    assert_same_catalog(&source, &cached);
    let layer = cached.layer(outfall_core::Role::Parcels).expect("parcels");
    assert!(
        !layer.problems.is_empty(),
        "the refused parcels are still reported"
    );
    let sample = layer.features.iter().step_by(500).map(|f| f.id.clone());
    for id in sample {
        let a = outfall_core::screening::check_parcel(&source, &id).map(|r| r.json());
        let b = outfall_core::screening::check_parcel(&cached, &id).map(|r| r.json());
        assert_eq!(a.ok(), b.ok(), "parcel {id}");
    }
}

/// A manifest whose one layer is the demo's parcels as `parcels.fgb`.
fn write_fgb_parcels_manifest(dir: &Path) {
    std::fs::write(
        dir.join("outfall.toml"),
        layer_toml(
            "parcels",
            Path::new("parcels.fgb"),
            "id_field = \"PARCEL_ID\"",
        ),
    )
    .expect("manifest");
}

/// The features as a FlatGeobuf file in WGS84 with a typed column per attribute (the kind
/// of its first non-null value: bool, integer, float, string, else JSON text), as another
/// tool would write one.
fn write_typed_fgb(features: &[outfall_core::load::Feature], path: &Path) {
    use flatgeobuf::geozero::{ColumnValue, PropertyProcessor};
    use flatgeobuf::{ColumnType, FgbCrs, FgbWriter, FgbWriterOptions, GeometryType};
    use serde_json::Value;
    let mut kinds: std::collections::BTreeMap<String, ColumnType> = Default::default();
    for f in features {
        for (k, v) in f.properties.iter() {
            let kind = match v {
                Value::Null => continue,
                Value::Bool(_) => ColumnType::Bool,
                Value::Number(n) if n.is_i64() => ColumnType::Long,
                Value::Number(_) => ColumnType::Double,
                Value::String(_) => ColumnType::String,
                _ => ColumnType::Json,
            };
            kinds.entry(k.to_string()).or_insert(kind);
        }
    }
    let options = FgbWriterOptions {
        detect_type: true,
        crs: FgbCrs {
            code: 4326,
            ..Default::default()
        },
        ..Default::default()
    };
    let mut fgb =
        FgbWriter::create_with_options("parcels", GeometryType::Unknown, options).expect("writer");
    for (name, kind) in &kinds {
        fgb.add_column(name, *kind, |_, c| c.nullable = true);
    }
    for f in features {
        fgb.add_feature_geom(f.geometry.clone(), |w| {
            for (i, (name, kind)) in kinds.iter().enumerate() {
                let Some(v) = f.properties.get(name) else {
                    continue;
                };
                let text = v.to_string();
                let value = match (&v, kind) {
                    (Value::Null, _) => continue,
                    (Value::Bool(b), _) => ColumnValue::Bool(*b),
                    (Value::Number(n), &ColumnType::Long) => {
                        ColumnValue::Long(n.as_i64().expect("integer"))
                    }
                    (Value::Number(n), _) => ColumnValue::Double(n.as_f64().expect("number")),
                    (Value::String(s), &ColumnType::String) => ColumnValue::String(s),
                    _ => ColumnValue::Json(&text),
                };
                w.property(i, name, &value).expect("property");
            }
        })
        .expect("feature");
    }
    let file = std::fs::File::create(path).expect("create .fgb");
    fgb.write(std::io::BufWriter::new(file))
        .expect("write .fgb");
}

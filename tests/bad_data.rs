//! Bad data must never silently change a finding (issue 9). A structural problem with a
//! layer is an error at load naming the file, the layer and, where there is one, the
//! feature; a problem with one feature is a named `LoadProblem` (with its site, for
//! disturbance). The corpus is made here, in a temp folder, from a copy of the demo data set
//! (`data/clay`) with one defect each, so CI needs nothing beyond `cargo test`.

mod common;

use outfall_core::{Catalog, Role};
use std::path::{Path, PathBuf};

/// The demo data set copied into a temp folder, ready to be broken.
struct Corpus {
    dir: tempfile::TempDir,
}

impl Corpus {
    fn demo() -> Corpus {
        let dir = tempfile::tempdir().expect("temp dir");
        for entry in std::fs::read_dir(common::demo_dir()).expect("demo dir") {
            let entry = entry.expect("entry");
            if entry.path().is_file() {
                std::fs::copy(entry.path(), dir.path().join(entry.file_name())).expect("copy");
            }
        }
        Corpus { dir }
    }

    /// An empty folder with just this manifest and these files.
    fn with(manifest: &str, files: &[(&str, &str)]) -> Corpus {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("outfall.toml"), manifest).expect("manifest");
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).expect("file");
        }
        Corpus { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn read(&self, name: &str) -> Vec<u8> {
        std::fs::read(self.path(name)).expect("read")
    }

    fn write(&self, name: &str, bytes: impl AsRef<[u8]>) {
        std::fs::write(self.path(name), bytes).expect("write");
    }

    /// Rewrites the manifest text.
    fn manifest(&self, edit: impl FnOnce(String) -> String) {
        let text = String::from_utf8(self.read("outfall.toml")).expect("utf-8");
        self.write("outfall.toml", edit(text));
    }

    /// Rewrites a GeoJSON file as JSON.
    fn geojson(&self, name: &str, edit: impl FnOnce(&mut serde_json::Value)) {
        let mut v: serde_json::Value = serde_json::from_slice(&self.read(name)).expect("json");
        edit(&mut v);
        self.write(name, serde_json::to_vec(&v).expect("json"));
    }

    fn open(&self) -> Result<Catalog, outfall_core::Error> {
        Catalog::open(self.dir.path())
    }

    fn err(&self) -> String {
        match self.open() {
            Ok(_) => panic!("expected the load to fail"),
            Err(e) => e.to_string(),
        }
    }

    /// "DIR/NAME" as the errors print it.
    fn shown(&self, name: &str) -> String {
        self.path(name).display().to_string()
    }
}

fn be(bytes: &[u8], at: usize) -> i32 {
    i32::from_be_bytes(bytes[at..at + 4].try_into().unwrap())
}

/// Byte offset of record `n` (1-based) in parcels.shp, from the .shx.
fn record_start(c: &Corpus, n: usize) -> usize {
    be(&c.read("parcels.shx"), 100 + (n - 1) * 8) as usize * 2
}

/// The demo's parcel count, from its .shx (100-byte header, 8 bytes a record).
fn shapes() -> usize {
    let shx = std::fs::read(common::demo_dir().join("parcels.shx")).expect("demo .shx");
    (shx.len() - 100) / 8
}

#[test]
fn the_demo_corpus_loads_every_parcel_clean() {
    let c = Corpus::demo();
    let cat = c.open().expect("demo loads");
    assert_eq!(cat.layer(Role::Parcels).unwrap().features.len(), shapes());
    assert!(cat.problems().is_empty(), "{:?}", cat.problems());
}

/// Sets the .dbf's record count, cutting or repeating records to match.
fn dbf_with_records(c: &Corpus, n: usize) {
    let dbf = c.read("parcels.dbf");
    let header = u16::from_le_bytes([dbf[8], dbf[9]]) as usize;
    let rec = u16::from_le_bytes([dbf[10], dbf[11]]) as usize;
    let mut out = dbf[..header].to_vec();
    out[4..8].copy_from_slice(&(n as u32).to_le_bytes());
    for i in 0..n {
        let k = i % shapes();
        out.extend_from_slice(&dbf[header + k * rec..header + (k + 1) * rec]);
    }
    out.push(0x1A);
    c.write("parcels.dbf", out);
}

#[test]
fn dbf_with_fewer_records_than_shapes() {
    let c = Corpus::demo();
    dbf_with_records(&c, 300);
    assert_eq!(
        c.err(),
        format!(
            "{}: parcels layer: parcels.dbf has 300 records but parcels.shp has {} shapes",
            c.shown("parcels.shp"),
            shapes()
        )
    );
}

#[test]
fn dbf_with_more_records_than_shapes() {
    let c = Corpus::demo();
    dbf_with_records(&c, 500);
    assert_eq!(
        c.err(),
        format!(
            "{}: parcels layer: parcels.dbf has 500 records but parcels.shp has {} shapes",
            c.shown("parcels.shp"),
            shapes()
        )
    );
}

#[test]
fn dbf_shorter_than_its_header_promises() {
    let c = Corpus::demo();
    let dbf = c.read("parcels.dbf");
    c.write("parcels.dbf", &dbf[..dbf.len() / 2]);
    let msg = c.err();
    assert!(
        msg.starts_with(&format!(
            "{}: parcels layer: parcels.dbf is truncated: its header promises {} records",
            c.shown("parcels.shp"),
            shapes()
        )),
        "{msg}"
    );
}

#[test]
fn record_header_claiming_a_gigabyte() {
    let c = Corpus::demo();
    let mut shp = c.read("parcels.shp");
    let at = record_start(&c, 5);
    shp[at + 4..at + 8].copy_from_slice(&(1i32 << 29).to_be_bytes());
    let size = shp.len();
    c.write("parcels.shp", shp);
    assert_eq!(
        c.err(),
        format!(
            "{}: parcels layer: parcels.shp: record 5 at byte {at} claims 1073741824 bytes, which runs past the end of the file ({size} bytes)",
            c.shown("parcels.shp")
        )
    );
}

#[test]
fn shp_cut_in_half_is_an_error_not_half_a_layer() {
    let c = Corpus::demo();
    let shp = c.read("parcels.shp");
    let half = shp.len() / 2;
    c.write("parcels.shp", &shp[..half]);
    assert_eq!(
        c.err(),
        format!(
            "{}: parcels layer: parcels.shp is truncated: its header says {} bytes but the file has {half}",
            c.shown("parcels.shp"),
            shp.len()
        )
    );
}

#[test]
fn one_corrupt_record_is_refused_by_name_and_the_rest_load() {
    let c = Corpus::demo();
    let id10 = c.open().unwrap().layer(Role::Parcels).unwrap().features[9]
        .id
        .clone();
    let mut shp = c.read("parcels.shp");
    let at = record_start(&c, 10);
    // The record's shape type (little-endian, after the 8-byte record header) becomes 99.
    shp[at + 8..at + 12].copy_from_slice(&99i32.to_le_bytes());
    c.write("parcels.shp", shp);
    let cat = c
        .open()
        .expect("one bad record of hundreds is under max_rejected_share");
    let layer = cat.layer(Role::Parcels).unwrap();
    assert_eq!(layer.features.len(), shapes() - 1);
    assert_eq!(layer.problems.len(), 1);
    let p = &layer.problems[0];
    assert_eq!(p.path, "parcels.shp");
    assert_eq!(p.feature, id10);
    assert_eq!(
        p.reason,
        format!("record 10 of parcels.shp (byte {at}) is corrupt: unknown shape type code 99")
    );
}

#[test]
fn corrupt_shx_offset_names_the_record() {
    let c = Corpus::demo();
    let mut shx = c.read("parcels.shx");
    let right = record_start(&c, 7);
    shx[100 + 6 * 8..100 + 6 * 8 + 4].copy_from_slice(&12345i32.to_be_bytes());
    c.write("parcels.shx", shx);
    assert_eq!(
        c.err(),
        format!(
            "{}: parcels layer: parcels.shx: record 7 points at byte 24690, but record 7 of parcels.shp starts at byte {right}",
            c.shown("parcels.shp")
        )
    );
}

#[test]
fn shx_indexing_fewer_records() {
    let c = Corpus::demo();
    let shx = c.read("parcels.shx");
    c.write("parcels.shx", &shx[..shx.len() - 16]);
    assert_eq!(
        c.err(),
        format!(
            "{}: parcels layer: parcels.shx indexes {} records but parcels.shp has {}",
            c.shown("parcels.shp"),
            shapes() - 2,
            shapes()
        )
    );
}

const DBF_COLUMNS: &str = "PARCEL_ID, ADDRESS, PROP_CLASS, ACRES";

#[test]
fn shapefile_field_names_must_be_dbf_columns() {
    for key in ["id_field", "name_field", "class_field"] {
        let c = Corpus::demo();
        let columns = {
            // The available list is the .dbf header, in its order.
            let dbf = c.read("parcels.dbf");
            let header = u16::from_le_bytes([dbf[8], dbf[9]]) as usize;
            (32..header - 1)
                .step_by(32)
                .map(|at| {
                    let raw = &dbf[at..at + 11];
                    let end = raw.iter().position(|&b| b == 0).unwrap_or(11);
                    String::from_utf8_lossy(&raw[..end]).to_string()
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        assert!(
            columns.starts_with("PARCEL_ID, ADDRESS, PROP_CLASS"),
            "{columns} vs {DBF_COLUMNS}"
        );
        c.manifest(|m| {
            let old = match key {
                "id_field" => "id_field = \"PARCEL_ID\"",
                "name_field" => "name_field = \"ADDRESS\"",
                _ => "class_field = \"PROP_CLASS\"",
            };
            m.replacen(old, &format!("{key} = \"TYPO\""), 1)
        });
        assert_eq!(
            c.err(),
            format!(
                "{}: parcels layer: {key} 'TYPO' is not a column of the file (available: {columns})",
                c.shown("parcels.shp")
            ),
            "{key}"
        );
    }
}

#[test]
fn geojson_field_names_must_be_properties() {
    let cases = [
        (
            "disturbance.geojson",
            "site_field = \"site_id\"",
            "site_field",
            "dist_id, end, phase, site_id, start",
        ),
        (
            "disturbance.geojson",
            "start_field = \"start\"",
            "start_field",
            "dist_id, end, phase, site_id, start",
        ),
        (
            "disturbance.geojson",
            "end_field = \"end\"",
            "end_field",
            "dist_id, end, phase, site_id, start",
        ),
        (
            "disturbance.geojson",
            "phase_field = \"phase\"",
            "phase_field",
            "dist_id, end, phase, site_id, start",
        ),
        (
            "flowlines.geojson",
            "join_field = \"pwl_id\"",
            "join_field",
            "COMID, DnHydroseq, DnMinorHyd, FTYPE, FromNode, GNIS_NAME, Hydroseq, LENGTHKM, LevelPathI, Pathlength, REACHCODE, StreamOrde, ToNode, TotDASqKM, WBAREACOMI, fact_sheet, name, name_source, pwl_class, pwl_id",
        ),
    ];
    for (file, old, key, available) in cases {
        let c = Corpus::demo();
        c.manifest(|m| m.replacen(old, &format!("{key} = \"TYPO\""), 1));
        let role = file.trim_end_matches(".geojson");
        assert_eq!(
            c.err(),
            format!(
                "{}: {role} layer: {key} 'TYPO' is not a column of the file (available: {available})",
                c.shown(file)
            ),
            "{key}"
        );
    }
}

#[test]
fn a_causes_field_must_be_a_column_of_the_table() {
    let c = Corpus::demo();
    c.manifest(|m| m.replacen("causes_field = \"pollutant\"", "causes_field = \"TYPO\"", 1));
    assert_eq!(
        c.err(),
        format!(
            "{}: impaired layer: causes_field 'TYPO' is not a column of the file (available: category, citation, pollutant, pwl_id, segment_name, source)",
            c.shown("impaired_303d.csv")
        )
    );
    // A GeoJSON listing is checked the same way.
    let c = Corpus::with(
        "[[layer]]\nrole = \"impaired\"\npath = \"l.geojson\"\nid_field = \"id\"\ncauses_field = \"cause\"\n",
        &[(
            "l.geojson",
            r#"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"id":"L1","pollutant":"silt"},"geometry":{"type":"LineString","coordinates":[[-76.2,43.1],[-76.19,43.1]]}}]}"#,
        )],
    );
    assert_eq!(
        c.err(),
        format!(
            "{}: impaired layer: causes_field 'cause' is not a column of the file (available: id, pollutant)",
            c.shown("l.geojson")
        )
    );
}

/// Sets one property of the disturbance feature `dist_id`.
fn set_dist(c: &Corpus, dist_id: &str, key: &str, value: serde_json::Value) {
    c.geojson("disturbance.geojson", |v| {
        let f = v["features"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|f| f["properties"]["dist_id"] == dist_id)
            .expect("feature");
        if key == "geometry" {
            f["geometry"] = value;
        } else {
            f["properties"][key] = value;
        }
    });
}

fn problems(cat: &Catalog) -> Vec<(String, String, String, Option<String>)> {
    cat.problems()
        .into_iter()
        .map(|p| (p.path, p.feature, p.reason, p.site))
        .collect()
}

#[test]
fn an_invalid_date_is_a_problem_naming_the_feature_and_its_site() {
    let c = Corpus::demo();
    set_dist(&c, "D01-1", "start", "2026-13-01".into());
    set_dist(&c, "D01-1", "end", "10/31/2026x".into());
    let cat = c.open().expect("loads");
    assert_eq!(
        problems(&cat),
        vec![
            (
                "disturbance.geojson".into(),
                "D01-1".into(),
                "start_field 'start' holds '2026-13-01', which is not a date (use YYYY-MM-DD)"
                    .into(),
                Some("S01".into())
            ),
            (
                "disturbance.geojson".into(),
                "D01-1".into(),
                "end_field 'end' holds '10/31/2026x', which is not a date (use YYYY-MM-DD)".into(),
                Some("S01".into())
            ),
        ]
    );
    // The feature still loads, so the site's acreage is not silently smaller.
    let d = cat.layer(Role::Disturbance).unwrap();
    assert!(d.get("D01-1").is_some());
    // Every report shows the data set's problems (shared by the reports, not copied).
    let report = outfall_core::screening::check_site(&cat, "S01").expect("S01 checks");
    let shown: Vec<_> = report
        .data
        .problems
        .iter()
        .map(|p| {
            (
                p.path.clone(),
                p.feature.clone(),
                p.reason.clone(),
                p.site.clone(),
            )
        })
        .collect();
    assert_eq!(shown, problems(&cat));
    assert_eq!(shown.len(), 2);
}

#[test]
fn an_end_before_its_start_is_a_problem() {
    let c = Corpus::demo();
    set_dist(&c, "D01-1", "end", "2026-01-31".into());
    let cat = c.open().expect("loads");
    assert_eq!(
        problems(&cat),
        vec![(
            "disturbance.geojson".into(),
            "D01-1".into(),
            "end 2026-01-31 is before start 2026-04-15".into(),
            Some("S01".into())
        )]
    );
}

#[test]
fn null_and_bowtie_disturbance_geometry_name_their_site() {
    let c = Corpus::demo();
    c.manifest(|m| {
        m.replacen(
            "site_field = \"site_id\"",
            "site_field = \"site_id\"\nmax_rejected_share = 0.2",
            1,
        )
    });
    set_dist(&c, "D01-1", "geometry", serde_json::Value::Null);
    set_dist(
        &c,
        "D02-1",
        "geometry",
        serde_json::json!({"type":"Polygon","coordinates":[[[-76.2,43.15],[-76.199,43.151],[-76.199,43.15],[-76.2,43.151],[-76.2,43.15]]]}),
    );
    let cat = c.open().expect("2 of 18 is under the layer's 20%");
    let got = problems(&cat);
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(
        got[0],
        (
            "disturbance.geojson".into(),
            "D01-1".into(),
            "no geometry (null)".into(),
            Some("S01".into())
        )
    );
    assert_eq!(got[1].1, "D02-1");
    assert_eq!(got[1].3.as_deref(), Some("S02"));
    assert!(
        got[1]
            .2
            .starts_with("invalid polygon: exterior ring has a self-intersection near"),
        "{}",
        got[1].2
    );
}

#[test]
fn more_than_the_allowed_share_refused_is_an_error() {
    let c = Corpus::demo();
    set_dist(&c, "D01-1", "geometry", serde_json::Value::Null);
    // 1 of 19 (5.3%) is over the default 5%.
    assert_eq!(
        c.err(),
        format!(
            "{}: disturbance layer: 1 of 19 features were refused, more than max_rejected_share = 0.05; the first: feature D01-1: no geometry (null)",
            c.shown("disturbance.geojson")
        )
    );
    // The manifest can allow more, at the top or per layer.
    c.manifest(|m| format!("max_rejected_share = 0.1\n{m}"));
    c.open().expect("10% allowed");
}

#[test]
fn a_wrong_prj_is_an_error_saying_where_the_coordinates_are_not() {
    let c = Corpus::demo();
    c.write(
        "parcels.prj",
        r#"GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]"#,
    );
    let msg = c.err();
    assert!(
        msg.starts_with(&format!(
            "{}: parcels layer: the coordinates are not where GCS_WGS_1984 puts them ({n} of {n} features were refused, more than max_rejected_share = 0.05); is the .prj or `crs` right?",
            c.shown("parcels.shp"),
            n = shapes()
        )),
        "{msg}"
    );
}

#[test]
fn duplicate_ids_in_a_layer_are_an_error() {
    let c = Corpus::demo();
    c.geojson("flowlines.geojson", |v| {
        let second = v["features"][1]["properties"]["COMID"].clone();
        v["features"][3]["properties"]["COMID"] = second;
    });
    let second = {
        let v: serde_json::Value = serde_json::from_slice(&c.read("flowlines.geojson")).unwrap();
        v["features"][1]["properties"]["COMID"].to_string()
    };
    assert_eq!(
        c.err(),
        format!(
            "{}: feature {second}: flowlines layer: duplicate id: loaded features 2 and 4 both have COMID '{second}'; ids must be unique",
            c.shown("flowlines.geojson")
        )
    );
}

#[test]
fn duplicate_site_ids_across_sites_layers_are_an_error() {
    let c = Corpus::demo();
    std::fs::copy(c.path("sites.geojson"), c.path("more_sites.geojson")).unwrap();
    c.geojson("more_sites.geojson", |v| {
        v["features"].as_array_mut().unwrap().truncate(1);
    });
    c.manifest(|m| {
        format!("{m}\n[[layer]]\nrole = \"sites\"\npath = \"more_sites.geojson\"\nid_field = \"site_id\"\n")
    });
    assert_eq!(
        c.err(),
        "more_sites.geojson: feature S01: sites layer: site id 'S01' is also a site of sites.geojson; site ids must be unique across sites layers"
    );
}

/// Sets one property of the site `id` in sites.geojson.
fn set_site(c: &Corpus, id: &str, key: &str, value: &str) {
    c.geojson("sites.geojson", |v| {
        let f = v["features"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|f| f["properties"]["site_id"] == id)
            .expect("site");
        f["properties"][key] = value.into();
    });
}

#[test]
fn a_typo_in_parcel_ids_names_the_site_and_the_id() {
    let c = Corpus::demo();
    set_site(&c, "S01", "parcel_ids", "020.-01-07.0;020.-01-O8.0");
    let cat = c.open().expect("loads");
    assert_eq!(
        problems(&cat),
        vec![(
            "sites.geojson".into(),
            "S01".into(),
            "parcel_ids names '020.-01-O8.0', which is not a parcel of any parcels layer".into(),
            Some("S01".into())
        )]
    );
}

#[test]
fn an_outfall_with_lon_and_lat_swapped_is_a_problem() {
    let c = Corpus::demo();
    set_site(&c, "S01", "outfall", "43.16,-76.18");
    set_site(&c, "S02", "outfall", "-73.9,40.7");
    set_site(&c, "S03", "outfall", "somewhere");
    let cat = c.open().expect("loads");
    let got = problems(&cat);
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!(
        got[0].2,
        "outfall '43.16,-76.18' lies outside the data set's extent; are lon and lat swapped?"
    );
    assert_eq!(got[0].3.as_deref(), Some("S01"));
    assert!(
        got[1].2.starts_with("outfall '-73.9,40.7' lies ")
            && got[1]
                .2
                .ends_with(" km outside the data set's extent (more than outfall_max_km = 50)"),
        "{}",
        got[1].2
    );
    assert_eq!(
        got[2].2,
        "outfall 'somewhere' is not a \"lon,lat\" point (WGS84 degrees)"
    );
    // The distance is the manifest's to choose.
    c.manifest(|m| format!("outfall_max_km = 1000.0\n{m}"));
    assert_eq!(problems(&c.open().unwrap()).len(), 2);
}

#[test]
fn a_one_number_position_is_a_problem_not_a_panic() {
    let c = Corpus::demo();
    c.manifest(|m| {
        m.replacen(
            "site_field = \"site_id\"",
            "site_field = \"site_id\"\nmax_rejected_share = 0.1",
            1,
        )
    });
    set_dist(
        &c,
        "D03-1",
        "geometry",
        serde_json::json!({"type":"Polygon","coordinates":[[[-76.18],[-76.17,43.1],[-76.17,43.11],[-76.18,43.1]]]}),
    );
    let cat = c.open().expect("loads");
    assert_eq!(
        problems(&cat),
        vec![(
            "disturbance.geojson".into(),
            "D03-1".into(),
            "a position must be 2 or 3 finite numbers, got [-76.18]".into(),
            Some("S03".into())
        )]
    );
    // An upload with the same defect gets the same problem.
    let upload = r#"{"type":"FeatureCollection","features":[
      {"type":"Feature","id":"a","properties":{},"geometry":{"type":"Point","coordinates":[-76.18]}},
      {"type":"Feature","id":"b","properties":{},"geometry":{"type":"Polygon","coordinates":[[[-76.2,43.1],[-76.199,43.1],[-76.199,43.101],[-76.2,43.1]]]}}
    ]}"#;
    let (features, probs) = outfall_core::load::parse_geojson(upload, "upload").expect("parses");
    assert_eq!(features.len(), 1);
    assert_eq!(probs.len(), 1);
    assert_eq!(
        (
            probs[0].path.as_str(),
            probs[0].feature.as_str(),
            probs[0].reason.as_str()
        ),
        (
            "upload",
            "a",
            "a position must be 2 or 3 finite numbers, got [-76.18]"
        )
    );
}

#[test]
fn an_upload_crs_must_be_a_code_not_a_proj_string() {
    let body = |crs: &str| {
        format!(
            r#"{{"type":"FeatureCollection","crs":{{"type":"name","properties":{{"name":"{crs}"}}}},"features":[{{"type":"Feature","properties":{{}},"geometry":{{"type":"Polygon","coordinates":[[[920000,1130000],[920100,1130000],[920100,1130100],[920000,1130100],[920000,1130000]]]}}}}]}}"#
        )
    };
    match outfall_core::load::parse_geojson(&body("+init=/etc/passwd:root"), "upload") {
        Err(e) => assert_eq!(
            e.to_string(),
            "upload: the `crs` '+init=/etc/passwd:root' is not accepted; name it as EPSG:n or urn:ogc:def:crs:EPSG::n, or send RFC 7946 lon/lat without a `crs`"
        ),
        Ok(_) => panic!("a PROJ string in an upload must be refused"),
    }
    let (features, probs) =
        outfall_core::load::parse_geojson(&body("urn:ogc:def:crs:EPSG::2261"), "upload")
            .expect("an OGC URN is fine");
    assert_eq!((features.len(), probs.len()), (1, 0));
    let (features, _) =
        outfall_core::load::parse_geojson(&body("EPSG:2261"), "upload").expect("EPSG:n is fine");
    assert_eq!(features.len(), 1);
}

#[test]
fn an_empty_layer_is_the_same_error_for_geojson_and_shapefile() {
    let c = Corpus::with(
        "[[layer]]\nrole = \"parcels\"\npath = \"p.geojson\"\nid_field = \"ID\"\n",
        &[("p.geojson", r#"{"type":"FeatureCollection","features":[]}"#)],
    );
    assert_eq!(
        c.err(),
        format!(
            "{}: parcels layer: the file has no features",
            c.shown("p.geojson")
        )
    );
    let c = Corpus::with(
        "[[layer]]\nrole = \"parcels\"\npath = \"p.shp\"\nid_field = \"ID\"\ncrs = \"EPSG:4326\"\n",
        &[],
    );
    common::write_shp(&c.path("p.shp"), &[], None);
    assert_eq!(
        c.err(),
        format!(
            "{}: parcels layer: the file has no features",
            c.shown("p.shp")
        )
    );
}

#[test]
fn problems_carry_relative_paths_and_plain_reasons() {
    let c = Corpus::demo();
    std::fs::create_dir(c.path("sub")).unwrap();
    std::fs::rename(
        c.path("disturbance.geojson"),
        c.path("sub/disturbance.geojson"),
    )
    .unwrap();
    c.manifest(|m| {
        m.replacen(
            "path = \"disturbance.geojson\"",
            "path = \"sub/disturbance.geojson\"",
            1,
        )
        .replacen(
            "site_field = \"site_id\"",
            "site_field = \"site_id\"\nmax_rejected_share = 0.1",
            1,
        )
    });
    c.geojson("sub/disturbance.geojson", |v| {
        v["features"][0]["geometry"] = serde_json::Value::Null;
    });
    let cat = c.open().expect("loads");
    let probs = cat.problems();
    assert_eq!(probs.len(), 1);
    assert_eq!(probs[0].path, "sub/disturbance.geojson");
    let text = serde_json::to_string(&probs).unwrap();
    let root = c.dir.path().display().to_string();
    assert!(!text.contains(&root), "{text}");
    assert!(!text.contains("Error("), "{text}");
}

#[test]
fn a_path_outside_the_data_folder_is_refused_unless_allowed() {
    let outer = tempfile::tempdir().unwrap();
    let data = outer.path().join("data");
    let outside = outer.path().join("outside");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(
        outside.join("secret.geojson"),
        r#"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"ID":"a"},"geometry":{"type":"Point","coordinates":[-76.2,43.1]}}]}"#,
    )
    .unwrap();
    let layer =
        |p: &str| format!("[[layer]]\nrole = \"parcels\"\npath = {p:?}\nid_field = \"ID\"\n");
    let absolute = outside.join("secret.geojson").display().to_string();
    for p in ["../outside/secret.geojson", absolute.as_str()] {
        std::fs::write(data.join("outfall.toml"), layer(p)).unwrap();
        let msg = Catalog::open(&data).map(|_| ()).unwrap_err().to_string();
        assert_eq!(
            msg,
            format!(
                "{}: manifest error: layer parcels ({p}): the path points outside the data folder; set `allow_outside_paths = true` at the top of the manifest to allow it",
                data.join("outfall.toml").display()
            )
        );
        std::fs::write(
            data.join("outfall.toml"),
            format!("allow_outside_paths = true\n{}", layer(p)),
        )
        .unwrap();
        Catalog::open(&data).expect("allowed");
    }
    // A symbolic link out of the folder is outside too.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(outside.join("secret.geojson"), data.join("link.geojson"))
            .unwrap();
        std::fs::write(data.join("outfall.toml"), layer("link.geojson")).unwrap();
        let msg = Catalog::open(&data).map(|_| ()).unwrap_err().to_string();
        assert!(msg.contains("points outside the data folder"), "{msg}");
    }
}

fn validate(dir: &Path, strict: bool) -> (i32, String) {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_outfall"));
    cmd.args(["validate", "--data"]).arg(dir);
    if strict {
        cmd.arg("--strict");
    }
    let out = cmd.output().expect("run outfall validate");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

#[test]
fn validate_command_passes_the_demo_and_lists_every_error_and_problem() {
    let (code, text) = validate(&common::demo_dir(), true);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("0 error(s), 0 problem(s) — valid"), "{text}");

    // Problems alone: exit 0 with warnings, non-zero under --strict.
    let c = Corpus::demo();
    set_site(&c, "S01", "outfall", "43.16,-76.18");
    let (code, text) = validate(c.dir.path(), false);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("warning: sites.geojson: feature S01 (site S01): outfall '43.16,-76.18' lies outside the data set's extent; are lon and lat swapped?"),
        "{text}"
    );
    let (code, _) = validate(c.dir.path(), true);
    assert_ne!(code, 0);

    // Two broken layers: both are named, and the command fails.
    let c = Corpus::demo();
    dbf_with_records(&c, 300);
    c.manifest(|m| m.replacen("join_field = \"pwl_id\"", "join_field = \"PWL\"", 1));
    let (code, text) = validate(c.dir.path(), false);
    assert_ne!(code, 0, "{text}");
    assert!(
        text.contains(&format!(
            "parcels.dbf has 300 records but parcels.shp has {} shapes",
            shapes()
        )),
        "{text}"
    );
    assert!(text.contains("join_field 'PWL' is not a column"), "{text}");
    assert!(text.contains("2 error(s)"), "{text}");
}

#[test]
fn corrupt_bytes_anywhere_in_a_record_never_panic() {
    let c = Corpus::with(
        "[[layer]]\nrole = \"parcels\"\npath = \"p.shp\"\nid_field = \"ID\"\ncrs = \"EPSG:4326\"\nmax_rejected_share = 1.0\n",
        &[],
    );
    let square = |x: f64| {
        geo_types::Polygon::new(
            vec![
                (x, 43.0),
                (x + 0.001, 43.0),
                (x + 0.001, 43.001),
                (x, 43.001),
            ]
            .into(),
            vec![],
        )
    };
    let polys: Vec<_> = (0..3)
        .map(|i| (format!("p{i}"), square(-76.3 + i as f64 * 0.01)))
        .collect();
    common::write_shp(&c.path("p.shp"), &polys, None);
    let good = c.read("p.shp");
    for at in 100..good.len() {
        for byte in [0x00, 0x7F, 0xFF] {
            let mut shp = good.clone();
            shp[at] = byte;
            c.write("p.shp", &shp);
            // Ok or Err, never a panic; and never a silent empty layer.
            if let Ok(cat) = c.open() {
                let layer = cat.layer(Role::Parcels).unwrap();
                assert_eq!(
                    layer.features.len() + layer.problems.len(),
                    3,
                    "byte {at} = {byte}: {:?}",
                    layer.problems
                );
            }
        }
    }
}

#[test]
fn a_wrong_crs_that_still_gives_lon_lat_is_caught_by_its_area_of_use() {
    // State-plane feet read as UTM zone 18N metres land in the Caribbean: valid lon/lat,
    // nothing refused, every parcel in the wrong place.
    let c = Corpus::demo();
    c.manifest(|m| {
        m.replacen(
            "path = \"parcels.shp\"",
            "path = \"parcels.shp\"\ncrs = \"EPSG:32618\"",
            1,
        )
    });
    let msg = c.err();
    let head = format!(
        "{}: parcels layer: the coordinates are not where EPSG:32618 puts them: ",
        c.shown("parcels.shp")
    );
    assert!(
        msg.starts_with(&head)
            && msg.contains(" features lie outside its area of use (lon -78..-72, lat 0..84) (the first at lon -71.10, lat 10.39); is the .prj or `crs` right?"),
        "{msg}"
    );
    // The right code loads.
    c.manifest(|m| m.replacen("EPSG:32618", "EPSG:2261", 1));
    c.open().expect("EPSG:2261 is right");
}

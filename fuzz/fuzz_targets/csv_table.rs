//! The CSV impaired-waters table: any bytes load as a table or give a clear error, and a
//! table that loads joins to a one-reach network without panicking.
#![no_main]
use libfuzzer_sys::fuzz_target;

const MANIFEST: &str = "[[layer]]\nrole = \"flowlines\"\npath = \"f.geojson\"\nid_field = \"id\"\njoin_field = \"pwl\"\n\
[[layer]]\nrole = \"impaired\"\npath = \"t.csv\"\nid_field = \"pwl\"\ncauses_field = \"pollutant\"\n";
const FLOW: &str = r#"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"id":"R1","pwl":"0702-0001"},"geometry":{"type":"LineString","coordinates":[[-76.2,43.1],[-76.19,43.11]]}}]}"#;

fuzz_target!(|data: &[u8]| {
    let Ok(dir) = tempfile::tempdir() else { return };
    let p = dir.path();
    let _ = std::fs::write(p.join("t.csv"), data);
    let _ = outfall::load::read_table(&p.join("t.csv"));
    let ok = std::fs::write(p.join("outfall.toml"), MANIFEST).is_ok()
        && std::fs::write(p.join("f.geojson"), FLOW).is_ok();
    if ok {
        let _ = outfall::Catalog::open(p);
    }
});

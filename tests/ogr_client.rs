//! A real client no one here wrote: GDAL's OGC API – Features driver (`ogrinfo`, `ogr2ogr`)
//! reads every collection from the running server on a loopback port.

mod common;

use std::process::Command;

fn gdal_available() -> bool {
    let ok = Command::new("ogrinfo")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        if std::env::var_os("CI").is_some() {
            panic!("ogrinfo (Debian gdal-bin) is required in CI");
        }
        eprintln!("SKIP: ogrinfo not installed (apt-get install gdal-bin)");
    }
    ok
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().expect("run GDAL");
    assert!(
        out.status.success(),
        "{:?} failed: {}",
        cmd,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn gdal_reads_every_collection_and_a_bbox_subset() {
    if !gdal_available() {
        return;
    }
    let server = common::start_demo_server();
    let cat = outfall_core::Catalog::open(&common::demo_dir()).unwrap();
    let ds = format!("OAPIF:{}/", server.url);
    let listing = run(Command::new("ogrinfo").args(["-ro", "-q", &ds]));
    for layer in &cat.layers {
        assert!(
            listing.contains(&layer.collection_id),
            "ogrinfo did not list {}: {listing}",
            layer.collection_id
        );
        let info = run(Command::new("ogrinfo").args(["-ro", "-so", &ds, &layer.collection_id]));
        let count = info
            .lines()
            .find_map(|l| l.strip_prefix("Feature Count: "))
            .unwrap_or_else(|| panic!("no feature count for {}: {info}", layer.collection_id));
        assert_eq!(
            count.trim().parse::<usize>().unwrap(),
            layer.features.len(),
            "{}",
            layer.collection_id
        );
    }
    // ogr2ogr pulls a bbox subset of parcels: the same number the API matches.
    let (x0, y0, x1, y1) = ("-76.19", "43.155", "-76.17", "43.17");
    let api: serde_json::Value = {
        let out = run(Command::new("curl").args([
            "-s",
            &format!(
                "{}/collections/parcels/items?bbox={x0},{y0},{x1},{y1}&limit=1",
                server.url
            ),
        ]));
        serde_json::from_str(&out).unwrap()
    };
    let want = api["numberMatched"].as_u64().unwrap();
    assert!(want > 3);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("subset.geojson");
    run(Command::new("ogr2ogr")
        .args(["-f", "GeoJSON"])
        .arg(&out)
        .args([&ds, "parcels", "-spat", x0, y0, x1, y1]));
    let got: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(got["features"].as_array().unwrap().len() as u64, want);
}

//! Shared test helpers: real data from ../shared/data/real (fails loudly in CI when missing,
//! skips elsewhere and says so) and throwaway data sets in temp folders.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The value of one sample line of the Prometheus text (`/metrics`), e.g.
/// `outfall_http_requests_total{method="GET",route="/healthz",status="200"}`.
pub fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines().find_map(|l| {
        l.strip_prefix(series)?
            .strip_prefix(' ')?
            .trim()
            .parse()
            .ok()
    })
}

pub fn real_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/real")
}

/// The path of a real data file, or None (with a SKIP line) when it is missing outside CI.
pub fn real(rel: &str) -> Option<PathBuf> {
    let p = real_root().join(rel);
    if p.exists() {
        return Some(p);
    }
    if std::env::var_os("CI").is_some() {
        panic!(
            "real data missing in CI: {} (expected ../shared/data/real beside the repo)",
            p.display()
        );
    }
    eprintln!("SKIP: real data missing at {}", p.display());
    None
}

/// A folder with an outfall.toml and the given files.
pub fn dataset(manifest: &str, files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("outfall.toml"), manifest).expect("write manifest");
    for (name, bytes) in files {
        std::fs::write(dir.path().join(name), bytes).expect("write file");
    }
    dir
}

/// A manifest layer entry pointing at a file in `dir` by absolute path.
pub fn layer_toml(role: &str, path: &Path, extra: &str) -> String {
    format!(
        "[[layer]]\nrole = \"{role}\"\npath = {:?}\n{extra}\n",
        path.display().to_string()
    )
}

pub fn demo_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/clay")
}

/// A copy of the demo data set in a temp folder, without its registry (the demo's own folder
/// is never written).
pub fn demo_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for e in std::fs::read_dir(demo_dir()).expect("demo dir") {
        let e = e.expect("entry");
        let name = e.file_name();
        if e.path().is_file() && !name.to_string_lossy().starts_with("registry.gpkg") {
            std::fs::copy(e.path(), dir.path().join(name)).expect("copy");
        }
    }
    dir
}

/// Writes polygons to a shapefile with an ID column (and a .prj when given).
pub fn write_shp(path: &Path, polys: &[(String, geo_types::Polygon<f64>)], prj: Option<&str>) {
    use shapefile::dbase::{FieldValue, Record, TableWriterBuilder};
    let table =
        TableWriterBuilder::new().add_character_field("ID".try_into().expect("field name"), 40);
    let mut w = shapefile::Writer::from_path(path, table).expect("create shapefile");
    for (id, p) in polys {
        let shape = shapefile::Polygon::from(p.clone());
        let mut rec = Record::default();
        rec.insert("ID".into(), FieldValue::Character(Some(id.clone())));
        w.write_shape_and_record(&shape, &rec).expect("write shape");
    }
    drop(w);
    if let Some(wkt) = prj {
        std::fs::write(path.with_extension("prj"), wkt).expect("write prj");
    }
}

/// The server's state over the demo data set, loaded once per test binary.
pub fn demo_state() -> outfall_server::AppState {
    static STATE: std::sync::OnceLock<outfall_server::AppState> = std::sync::OnceLock::new();
    STATE
        .get_or_init(|| {
            let cat = outfall_core::Catalog::open(&demo_dir()).expect("demo loads");
            outfall_server::AppState::new(
                std::sync::Arc::new(cat),
                Path::new(env!("CARGO_MANIFEST_DIR")).join("web"),
            )
        })
        .clone()
}

/// `outfall serve` over the demo on a free loopback port, stopped when dropped. It reads the
/// site files (`--registry none`): the client tests only read, and must never create or seed
/// a registry in the repository's demo folder while other tests read it.
pub struct DemoServer {
    child: std::process::Child,
    pub url: String,
}

impl Drop for DemoServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn start_demo_server() -> DemoServer {
    use std::io::BufRead;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_outfall"))
        .args(["serve", "--registry", "none", "--data"])
        .arg(demo_dir())
        .args(["--bind", "127.0.0.1:0", "--web"])
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/web"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start outfall serve");
    let stdout = child.stdout.take().expect("stdout");
    // The log shares standard output (a load logs its timings): the URL is on the
    // "serving" line.
    let mut reader = std::io::BufReader::new(stdout);
    let mut line = String::new();
    while !line.contains("Outfall is serving") {
        line.clear();
        let n = reader.read_line(&mut line).expect("server prints its URL");
        assert!(n > 0, "the server ended without a serving line");
    }
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .expect("URL on the serving line")
        .trim_end_matches('/')
        .to_string();
    DemoServer { child, url }
}

/// The URL of a new, empty database on the test's PostGIS server.
pub fn fresh_database() -> Option<String> {
    let Ok(base) = std::env::var("OUTFALL_TEST_POSTGRES") else {
        if std::env::var_os("CI").is_some() {
            panic!("OUTFALL_TEST_POSTGRES is not set in CI: run the registry tests through scripts/postgis-test.sh");
        }
        eprintln!(
            "SKIP: no PostGIS server (run scripts/postgis-test.sh to test the PostGIS registry)"
        );
        return None;
    };
    let mut b = [0u8; 6];
    getrandom::fill(&mut b).expect("random");
    let db = format!("outfall_test_{}", hex::encode(b));
    let mut admin = postgres::Client::connect(&base, postgres::NoTls).expect("PostGIS server");
    admin
        .batch_execute(&format!("CREATE DATABASE {db}"))
        .expect("create test database");
    let url = match base.rfind('/') {
        Some(i) if base[..i].contains("://") && i > base.find("://").unwrap_or(0) + 2 => {
            format!("{}/{db}", &base[..i])
        }
        _ => format!("{base}/{db}"),
    };
    Some(url)
}

pub mod town;

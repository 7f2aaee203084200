//! Issue 22's attacks on the write side that this suite holds bounded, through the HTTP API
//! on a copy of the demo with a GeoPackage registry: dates out of range refused on write
//! (3), a row typed in by hand skipped and named on every read instead of failing the list
//! (3), text caps and paged inspections read by site (8), the `/check` limits on `POST
//! /sites` and the pending-applications cap (3), and the loader's refusals (11).

mod common;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt;
use outfall_core::registry::{token, AccessRole, Checking, Live};
use outfall_core::{screening, Catalog};
use outfall_server::{app, AppState, Limits};
use serde_json::{json, Value};
use std::path::Path;
use std::sync::Arc;
use tower::ServiceExt;

struct Env {
    router: Router,
    live: Arc<Live>,
    rt: tokio::runtime::Runtime,
    officer: String,
    inspector: String,
    applicant: String,
    dir: tempfile::TempDir,
}

fn env_with(limits: Limits) -> Env {
    env_checking(limits, Checking::Everything)
}

/// A copy of the demo with a GeoPackage registry opened as `outfall serve` opens it when
/// `checking` is `PendingLater`.
fn env_checking(limits: Limits, checking: Checking) -> Env {
    let dir = common::demo_copy();
    let catalog = Arc::new(Catalog::open(dir.path()).expect("demo loads"));
    let store =
        outfall_postgis::open(None, dir.path(), &catalog.manifest.words).expect("registry opens");
    let live = Arc::new(Live::open(store, catalog, checking).expect("registry starts"));
    let tok =
        |name: &str, role| token::create(live.registry.as_ref(), name, role, 90).expect("token");
    let web = Path::new(env!("CARGO_MANIFEST_DIR")).join("web");
    Env {
        router: app(AppState::with_registry(web, live.clone()).with_limits(limits)),
        officer: tok("Pat Officer", AccessRole::Officer),
        inspector: tok("Ivy Inspector", AccessRole::Inspector),
        applicant: tok("Ann Applicant", AccessRole::Applicant),
        live,
        rt: tokio::runtime::Runtime::new().expect("runtime"),
        dir,
    }
}

fn env() -> Env {
    env_with(Limits::default())
}

impl Env {
    /// The same registry opened again, as a restarted `outfall serve` opens it.
    fn restarted(self) -> Env {
        let catalog = Arc::new(Catalog::open(self.dir.path()).expect("demo loads"));
        let store = outfall_postgis::open(None, self.dir.path(), &catalog.manifest.words)
            .expect("registry opens");
        let live = Arc::new(Live::open(store, catalog, Checking::PendingLater).expect("starts"));
        let web = Path::new(env!("CARGO_MANIFEST_DIR")).join("web");
        Env {
            router: app(AppState::with_registry(web, live.clone())),
            live,
            ..self
        }
    }

    /// (sites checked, sites whose features were checked) since the registry opened.
    fn checks(&self) -> (u64, u64) {
        self.live.counts.get()
    }
}

impl Env {
    /// Status and body (JSON when it is JSON, else the text as a JSON string).
    fn call(
        &self,
        method: &str,
        uri: &str,
        token: Option<&str>,
        body: Option<String>,
    ) -> (StatusCode, Value) {
        let mut req = Request::builder().method(method).uri(uri);
        if let Some(t) = token {
            req = req.header("authorization", format!("Bearer {t}"));
        }
        let req = match body {
            Some(b) => req
                .header("content-type", "application/json")
                .body(Body::from(b)),
            None => req.body(Body::empty()),
        }
        .expect("request");
        let router = self.router.clone();
        self.rt.block_on(async move {
            let res = router.oneshot(req).await.expect("response");
            let status = res.status();
            let bytes = res.into_body().collect().await.expect("body").to_bytes();
            let json = serde_json::from_slice(&bytes)
                .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
            (status, json)
        })
    }

    fn post(&self, uri: &str, token: &str, body: Value) -> (StatusCode, Value) {
        self.call("POST", uri, Some(token), Some(body.to_string()))
    }

    fn get(&self, uri: &str) -> (StatusCode, Value) {
        self.call("GET", uri, None, None)
    }

    fn registry(&self) -> rusqlite::Connection {
        rusqlite::Connection::open(self.dir.path().join("registry.gpkg")).expect("registry file")
    }
}

fn detail(v: &Value) -> String {
    v["detail"].as_str().unwrap_or_default().to_string()
}

fn square(x: f64, y: f64) -> Value {
    json!({"type": "Polygon", "coordinates": [[[x, y], [x + 0.00123, y], [x + 0.00123, y + 0.0009], [x, y + 0.0009], [x, y]]]})
}

fn application(site_id: &str, start: &str) -> Value {
    json!({
        "type": "FeatureCollection",
        "site": {"site_id": site_id, "name": "Clay test warehouse", "address": "1 Test Road",
                 "land_use": "commercial"},
        "features": [{"type": "Feature", "properties": {"phase": "1", "start": start},
                      "geometry": square(-76.1810, 43.1690)}]
    })
}

/// Issue 22, attack 4: dates out of the sane range are refused on every write, naming
/// the field, so no reader ever meets them.
#[test]
fn dates_out_of_range_are_refused_on_write_naming_the_field() {
    let e = env();
    let (s, v) = e.post(
        "/sites/S01/inspections",
        &e.inspector,
        json!({"date": "-0001-01-01", "findings": "fence down"}),
    );
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert!(detail(&v).contains("inspection: date: '-0001-01-01' is not a date YYYY-MM-DD between 1900-01-01 and 2100-12-31"), "{v}");
    let (s, v) = e.post(
        "/sites/S01/inspections",
        &e.inspector,
        json!({"date": "2026-05-01", "findings": "fence down", "corrective_due": "9999-12-31"}),
    );
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert!(
        detail(&v).contains("inspection: corrective_due: '9999-12-31'"),
        "{v}"
    );
    let (s, v) = e.post(
        "/rainfall",
        &e.officer,
        json!({"date": "+10000-01-01", "rain_in": 1.0}),
    );
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert!(
        detail(&v).contains("rainfall: date: '+10000-01-01' is not a date"),
        "{v}"
    );
    let (s, v) = e.post("/sites", &e.applicant, application("T-1", "9999-12-31"));
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert!(
        detail(&v).contains("start_field 'start' holds '9999-12-31', which is not a date"),
        "{v}"
    );
    let (s, v) = e.post("/sites", &e.applicant, application("T-2", "2026-06-01"));
    assert_eq!(s, StatusCode::CREATED, "{v}");
}

/// Issue 22, attack 4, on read: rows typed into the registry by another program with a day
/// no reader can parse are skipped and named; every list keeps answering.
#[test]
fn a_row_no_reader_can_parse_is_skipped_and_named_never_failing_a_list() {
    let e = env();
    let (s, v) = e.post(
        "/sites/S01/inspections",
        &e.inspector,
        json!({"date": "2026-05-01", "findings": "fence holding"}),
    );
    assert_eq!(s, StatusCode::CREATED, "{v}");
    e.registry()
        .execute_batch(
            "INSERT INTO inspections (site_id, date, inspector, findings, corrective_actions,
                 corrective_due, recorded_by, recorded_at)
             VALUES ('S01', '-0001-01-01', 'QGIS', 'typed by hand', '', NULL, 'qgis', 'now');
             INSERT INTO rainfall (date, rain_in, source, recorded_by, recorded_at)
             VALUES ('+10000-01-01', 2.0, 'typed by hand', 'qgis', 'now');",
        )
        .expect("rows inserted by hand");
    let (s, v) = e.get("/sites/S01/inspections");
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["inspections"].as_array().map(Vec::len), Some(1), "{v}");
    let problem = v["problems"][0].as_str().unwrap_or_default();
    assert!(problem.starts_with("table inspections row "), "{v}");
    assert!(problem.contains("date '-0001-01-01' is not a date between 1900-01-01 and 2100-12-31; the row is skipped"), "{v}");
    let (s, v) = e.get("/rainfall");
    assert_eq!(s, StatusCode::OK, "{v}");
    assert!(
        v["problems"][0]
            .as_str()
            .unwrap_or_default()
            .contains("'+10000-01-01'"),
        "{v}"
    );
    let (s, v) = e.get("/inspections/due?as_of=2026-11-30");
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["problems"].as_array().map(Vec::len), Some(2), "{v}");
    let (s, v) = e.get("/inspections/due.html?as_of=2026-11-30");
    assert_eq!(s, StatusCode::OK);
    assert!(v
        .as_str()
        .unwrap_or_default()
        .contains("Record skipped: table inspections row"));
    let data = e.dir.path().to_str().expect("utf-8 path");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_outfall"))
        .args(["inspections", "--data", data, "--as-of", "2026-11-30"])
        .output()
        .expect("run outfall");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("RECORDS SKIPPED"), "{text}");
    assert!(text.contains("'+10000-01-01'"), "{text}");
}

/// Issue 22, attack 8: every text of a write has a cap named in the refusal; a site's
/// inspections are read by site and paged, and an unknown parameter is refused.
#[test]
fn texts_are_capped_and_inspections_are_paged_by_site() {
    let e = env();
    let mut app = application("T-3", "2026-06-01");
    app["site"]["name"] = json!("x".repeat(1_000_000));
    let (s, v) = e.post("/sites", &e.applicant, app);
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{}", detail(&v));
    assert!(
        detail(&v).contains("name: 1000000 characters; at most 200 are accepted"),
        "{}",
        detail(&v)
    );
    let (s, v) = e.post(
        "/sites/S01/inspections",
        &e.inspector,
        json!({"date": "2026-05-01", "findings": "x".repeat(10_001)}),
    );
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{}", detail(&v));
    assert!(
        detail(&v).contains("inspection: findings: 10001 characters; at most 10000"),
        "{}",
        detail(&v)
    );
    for (site, day) in [
        ("S01", "2026-05-01"),
        ("S02", "2026-05-02"),
        ("S01", "2026-05-03"),
        ("S01", "2026-05-04"),
    ] {
        let (s, v) = e.post(
            &format!("/sites/{site}/inspections"),
            &e.inspector,
            json!({"date": day, "findings": format!("{site} on {day}")}),
        );
        assert_eq!(s, StatusCode::CREATED, "{v}");
    }
    let (s, v) = e.get("/sites/S01/inspections?limit=2");
    assert_eq!(s, StatusCode::OK, "{v}");
    let dates = |v: &Value| -> Vec<String> {
        v["inspections"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|i| i["date"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    assert_eq!(dates(&v), ["2026-05-01", "2026-05-03"]);
    let next = v["links"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|l| l["rel"] == "next");
    assert!(
        next.is_some_and(|l| l["href"]
            .as_str()
            .unwrap_or_default()
            .ends_with("/sites/S01/inspections?limit=2&offset=2")),
        "{v}"
    );
    let (_, v) = e.get("/sites/S01/inspections?limit=2&offset=2");
    assert_eq!(dates(&v), ["2026-05-04"]);
    let (s, v) = e.get("/sites/S01/inspections?page=2");
    assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
}

/// Issue 22, attack 3: `POST /sites` has the limits of `/check`: a 40,000-vertex polygon is
/// refused naming the limit, and an applicant's pending applications are capped.
#[test]
fn post_sites_has_the_limits_of_check_and_pending_applications_are_capped() {
    let e = env_with(Limits {
        max_pending_submissions: 1,
        ..Limits::default()
    });
    let n = 40_000;
    let ring: Vec<Value> = (0..=n)
        .map(|i| {
            let a = std::f64::consts::TAU * (i % n) as f64 / n as f64;
            json!([-76.1800 + 0.001 * a.cos(), 43.1695 + 0.001 * a.sin()])
        })
        .collect();
    let mut app = application("T-4", "2026-06-01");
    app["features"][0]["geometry"] = json!({"type": "Polygon", "coordinates": [ring]});
    let (s, v) = e.post("/sites", &e.applicant, app);
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{}", detail(&v));
    assert!(
        detail(&v).contains("40001 vertices; at most 20000 coordinates are accepted"),
        "{}",
        detail(&v)
    );
    let (s, v) = e.post("/sites", &e.applicant, application("T-5", "2026-06-01"));
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let (s, v) = e.post("/sites", &e.applicant, application("T-6", "2026-06-01"));
    assert_eq!(s, StatusCode::CONFLICT, "{v}");
    assert!(
        detail(&v).contains("at most 1 may be (max_pending_submissions)"),
        "{v}"
    );
    let (s, v) = e.post("/sites", &e.officer, application("T-7", "2026-06-01"));
    assert_eq!(s, StatusCode::CREATED, "{v}");
}

/// A star of `n` vertices, as issue 40's probe drew it: a polygon over many parcels' edges
/// whose check (the acres outside the parcels) takes seconds.
fn star(n: usize) -> Value {
    let (cx, cy) = (-76.1800_f64, 43.1695_f64);
    let mut ring: Vec<Value> = (0..n)
        .map(|i| {
            let a = std::f64::consts::TAU * i as f64 / n as f64;
            let r = if i % 2 == 0 { 0.01 } else { 0.004 };
            json!([cx + r * a.cos() / cy.to_radians().cos(), cy + r * a.sin()])
        })
        .collect();
    ring.push(ring[0].clone());
    json!({"type": "Polygon", "coordinates": [ring]})
}

/// Issue 40, item 5: a 19,990-vertex application (under the 20,000 cap) is refused as
/// `POST /check` refuses the same polygon: its reading and its check run in a check slot
/// under the same deadline, and nothing is stored.
#[test]
fn a_19990_vertex_application_is_refused_as_post_check_refuses_it() {
    let e = env_with(Limits {
        work_timeout: std::time::Duration::from_millis(1),
        ..Limits::default()
    });
    let plan = json!({"type": "Feature", "properties": {}, "geometry": star(19_990)});
    let (s, v) = e.call("POST", "/check", None, Some(plan.to_string()));
    assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE, "{v}");
    assert!(detail(&v).contains("did not finish within 0.001 s"), "{v}");
    let mut app = application("STAR-1", "2026-06-01");
    app["features"][0]["geometry"] = star(19_990);
    let (s, v) = e.post("/sites", &e.applicant, app);
    assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE, "{v}");
    assert!(
        detail(&v).contains("the application did not finish within 0.001 s"),
        "{v}"
    );
    let (s, _) = e.get("/sites/STAR-1");
    assert_eq!(s, StatusCode::NOT_FOUND, "nothing was stored");
}

/// Issue 40, item 5: a write checks its own site once, in its slot and under its deadline,
/// before storing it, and the refresh after it takes that check: the answer carries the
/// report and no other site is checked again, nor are the other sites' polygons. Before,
/// every refresh checked every polygon of every site again, so ten large pending
/// applications made each edit take seconds.
#[test]
fn a_write_checks_its_site_once_and_an_edit_checks_no_other_site() {
    let e = env_checking(Limits::default(), Checking::PendingLater);
    let before = e.checks();
    let (s, v) = e.post("/sites", &e.applicant, application("T-1", "2026-06-01"));
    assert_eq!(s, StatusCode::CREATED, "{v}");
    assert_eq!(v["report"]["site"]["id"], "T-1", "{v}");
    assert_eq!(
        e.checks(),
        (before.0 + 1, before.1 + 1),
        "the application, once"
    );
    let (_, site) = e.get("/sites/S01");
    let version = site["version"].as_i64().expect("version");
    let change = json!({"name": "Renamed"}).to_string();
    let (s, v) = e.rt.block_on(async {
        let req = Request::patch("/sites/S01")
            .header("authorization", format!("Bearer {}", e.officer))
            .header("if-match", format!("\"{version}\""))
            .header("content-type", "application/json")
            .body(Body::from(change))
            .expect("request");
        let res = e.router.clone().oneshot(req).await.expect("response");
        let status = res.status();
        let bytes = res.into_body().collect().await.expect("body").to_bytes();
        (
            status,
            serde_json::from_slice::<Value>(&bytes).expect("json"),
        )
    });
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["report"]["site"]["name"], "Renamed", "{v}");
    assert_eq!(
        e.checks(),
        (before.0 + 2, before.1 + 2),
        "the edited site, once"
    );
}

/// Issue 40, item 5: a restarted server does not wait for the pending applications'
/// checks: it starts with the town's sites checked, answers a pending application's report
/// with 503 and Retry-After, and its watcher checks the applications after.
#[test]
fn a_restart_leaves_pending_applications_to_the_watcher() {
    let e = env_checking(Limits::default(), Checking::PendingLater);
    for id in ["P-1", "P-2", "P-3"] {
        let (s, v) = e.post("/sites", &e.applicant, application(id, "2026-06-01"));
        assert_eq!(s, StatusCode::CREATED, "{v}");
    }
    let town = e.live.snapshot().reports.len() - 3;
    let e = e.restarted();
    assert_eq!(
        e.checks(),
        (town as u64, town as u64),
        "only the town's sites"
    );
    assert!(e.live.snapshot().is_waiting("P-2"));
    let (s, v) = e.get("/sites/P-2/report");
    assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE, "{v}");
    assert!(detail(&v).contains("being checked"), "{v}");
    e.live.check_waiting().expect("checked");
    assert_eq!(e.checks().0, town as u64 + 3);
    let (s, v) = e.get("/sites/P-2/report");
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["site"]["id"], "P-2");
}

/// Rewrites one site's feature in the copy's `file`.
fn edit_feature(dir: &Path, file: &str, site: &str, edit: impl Fn(&mut Value)) {
    let path = dir.join(file);
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
    let features = doc["features"].as_array_mut().expect("features");
    let f = features
        .iter_mut()
        .find(|f| f["properties"]["site_id"] == site)
        .expect("the site's feature");
    edit(f);
    std::fs::write(&path, doc.to_string()).expect("write");
}

/// Issue 22, attack 11: a disturbance polygon across ±180° is refused with a named problem
/// by `validate` and at load, as uploads are; an outfall that cannot be read makes the entry
/// and Condition A null instead of the nearest water.
#[test]
fn the_loader_refuses_a_polygon_across_the_antimeridian_and_an_unreadable_outfall_decides_nothing()
{
    let dir = common::demo_copy();
    edit_feature(dir.path(), "disturbance.geojson", "S01", |f| {
        f["geometry"] = json!({"type": "Polygon", "coordinates": [[[179.9, 43.1], [-179.9, 43.1], [-179.9, 43.2], [179.9, 43.2], [179.9, 43.1]]]});
    });
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_outfall"))
        .args(["validate", "--data", dir.path().to_str().expect("utf-8")])
        .output()
        .expect("run outfall");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("D01-1: spans 359.8° of longitude, so it crosses the antimeridian"),
        "{text}"
    );
    assert!(!out.status.success(), "{text}");
    // One of the demo's 18 polygons is over its refusal share: the load stops, naming it.
    let e = Catalog::open(dir.path())
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        e.contains("feature D01-1: spans 359.8° of longitude"),
        "{e}"
    );

    let dir = common::demo_copy();
    edit_feature(dir.path(), "sites.geojson", "S06", |f| {
        f["properties"]["outfall"] = json!("inf,43.1");
    });
    let catalog = Catalog::open(dir.path()).expect("the copy loads");
    let s06 = screening::check_site(&catalog, "S06").expect("S06");
    assert_eq!(s06.conditions.a, None);
    assert_eq!(s06.entry.rule, "unreadable_outfall");
    assert_eq!(s06.entry.reach_id, None);
    assert_eq!(s06.entry.water_id, None);
    assert!(
        s06.entry
            .reason
            .contains("cannot be read as longitude,latitude"),
        "{}",
        s06.entry.reason
    );
    assert!(s06.receiving_water_names.is_empty());
}

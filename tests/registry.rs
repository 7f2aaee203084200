//! The site registry end to end, through the HTTP API: the same suite runs on a GeoPackage
//! and on a real PostGIS server (`scripts/postgis-test.sh` starts one and sets
//! `OUTFALL_TEST_POSTGRES`; in CI a missing server fails the PostGIS tests, elsewhere they
//! skip and say so). Create, read on the map, patch, inspect, history; roles; concurrent
//! editors; an edit made by another program (QGIS) without a restart.

mod common;

use common::fresh_database;

use axum::body::Body;
use axum::http::{HeaderMap, Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt;
use outfall_core::claims::Vocabulary;
use outfall_core::registry::{self, token, AccessRole, Live};
use outfall_core::Catalog;
use outfall_server::{app, AppState};
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

fn env_with(spec: Option<String>) -> Env {
    let dir = common::demo_copy();
    let catalog = Arc::new(Catalog::open(dir.path()).expect("demo loads"));
    let store = outfall_postgis::open(spec.as_deref(), dir.path(), &catalog.manifest.words)
        .expect("registry opens");
    let live = Arc::new(Live::start(store, catalog).expect("registry starts"));
    let tok = |name: &str, role| {
        token::create(
            live.registry.as_ref(),
            name,
            role,
            token::DEFAULT_EXPIRES_DAYS,
        )
        .expect("token")
    };
    let web = Path::new(env!("CARGO_MANIFEST_DIR")).join("web");
    Env {
        router: app(AppState::with_registry(web, live.clone())),
        officer: tok("Pat Officer", AccessRole::Officer),
        inspector: tok("Ivy Inspector", AccessRole::Inspector),
        applicant: tok("Ann Applicant", AccessRole::Applicant),
        live,
        rt: tokio::runtime::Runtime::new().expect("runtime"),
        dir,
    }
}

fn gpkg() -> Env {
    env_with(None)
}

/// A fresh database on the test's PostGIS server, or None (SKIP) outside CI without one.
fn postgis() -> Option<Env> {
    fresh_database().map(|url| env_with(Some(url)))
}

struct Resp {
    status: StatusCode,
    headers: HeaderMap,
    json: Value,
}

impl Env {
    fn call(
        &self,
        method: &str,
        uri: &str,
        token: Option<&str>,
        if_match: Option<&str>,
        body: Option<Value>,
    ) -> Resp {
        let mut req = Request::builder().method(method).uri(uri);
        if let Some(t) = token {
            req = req.header("authorization", format!("Bearer {t}"));
        }
        if let Some(m) = if_match {
            req = req.header("if-match", m);
        }
        let req = match body {
            Some(b) => req
                .header("content-type", "application/json")
                .body(Body::from(b.to_string())),
            None => req.body(Body::empty()),
        }
        .expect("request");
        let router = self.router.clone();
        self.rt.block_on(async move {
            let res = router.oneshot(req).await.expect("response");
            let status = res.status();
            let headers = res.headers().clone();
            let bytes = res.into_body().collect().await.expect("body").to_bytes();
            Resp {
                status,
                headers,
                json: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
            }
        })
    }

    fn get(&self, uri: &str) -> Resp {
        self.call("GET", uri, None, None, None)
    }
}

fn etag(r: &Resp) -> String {
    r.headers
        .get("etag")
        .and_then(|v| v.to_str().ok())
        .expect("an ETag")
        .to_string()
}

/// Two squares of about 100 m (1 ha each) north of Route 31, in two phases, with an outfall;
/// a commercial building (Condition C excludes single-family homes, so it must be said).
fn application(site_id: &str) -> Value {
    let square = |x: f64, y: f64| json!({"type": "Polygon", "coordinates": [[[x, y], [x + 0.00123, y], [x + 0.00123, y + 0.0009], [x, y + 0.0009], [x, y]]]});
    json!({
        "type": "FeatureCollection",
        "site": {"site_id": site_id, "name": "Clay test warehouse", "applicant": "Ann Applicant",
                 "address": "1 Test Road", "outfall": "-76.1795,43.1700",
                 "land_use": "commercial"},
        "features": [
            {"type": "Feature", "properties": {"phase": "1", "start": "2026-06-01", "end": "2026-09-30"},
             "geometry": square(-76.1810, 43.1690)},
            {"type": "Feature", "properties": {"phase": "2", "start": "2026-10-01", "end": "2027-03-31"},
             "geometry": square(-76.1810 + 0.00123, 43.1690)}
        ]
    })
}

fn ids(list: &Value, key: &str) -> Vec<String> {
    list[key]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| {
                    s["id"]
                        .as_str()
                        .or(s["properties"]["site_id"].as_str())
                        .map(String::from)
                })
                .collect()
        })
        .unwrap_or_default()
}

fn round_trip(e: &Env) {
    // An applicant submits: the answer is the new site's report, and the map shows it.
    let checks = e.live.counts.get();
    let r = e.call(
        "POST",
        "/sites",
        Some(&e.applicant),
        None,
        Some(application("T-100")),
    );
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
    // Checked once, before it was stored: the store gives back exactly the records checked,
    // so the refresh after the write takes that check (issue 40, item 5).
    assert_eq!(e.live.counts.get(), (checks.0 + 1, checks.1 + 1));
    assert_eq!(etag(&r), "\"1\"");
    let report = &r.json["report"];
    assert_eq!(report["site"]["id"], "T-100");
    assert_eq!(report["site"]["status"], "planned");
    let acres = report["disturbance"]["total_acres"]
        .as_f64()
        .expect("acres");
    assert!(
        (4.7..5.0).contains(&acres),
        "two squares of about 1 ha: about 4.9 acres: {acres}"
    );
    assert_eq!(report["conditions"]["C"], true, "1 to 5 acres: Condition C");
    assert!(ids(&e.get("/sites").json, "sites").contains(&"T-100".to_string()));
    let items = e.get("/collections/disturbance/items?limit=1000").json;
    let dist_sites: Vec<&str> = items["features"]
        .as_array()
        .expect("features")
        .iter()
        .filter_map(|f| f["properties"]["site_id"].as_str())
        .collect();
    assert_eq!(dist_sites.iter().filter(|s| **s == "T-100").count(), 2);
    let items = e.get("/collections/sites/items?limit=1000").json;
    assert!(items["features"]
        .as_array()
        .expect("features")
        .iter()
        .any(|f| f["properties"]["site_id"] == "T-100"));

    // The officer records the approval and starts the work, against the version read.
    let read = e.get("/sites/T-100");
    assert_eq!(read.status, StatusCode::OK);
    let change = json!({"status": "active", "swppp_approval": {"decision": "approved",
        "date": "2026-05-20", "reference": "SWPPP-2026-031", "body": "officer"}});
    let r = e.call(
        "PATCH",
        "/sites/T-100",
        Some(&e.officer),
        Some(&etag(&read)),
        Some(change),
    );
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    assert_eq!(etag(&r), "\"2\"");
    // "active" is a word of the status vocabulary: the record keeps its code.
    assert_eq!(r.json["site"]["properties"]["status"], "under_construction");
    assert_eq!(
        r.json["site"]["properties"]["swppp_approval"],
        json!({"decision": "approved", "date": "2026-05-20", "reference": "SWPPP-2026-031",
            "body": "officer"})
    );
    assert_eq!(r.json["report"]["site"]["status"], "under_construction");
    assert_eq!(r.json["report"]["site"]["approved_swppp"], true);
    let approval = &r.json["report"]["site"]["swppp_approval"];
    assert_eq!(
        (
            &approval["decision"],
            &approval["date"],
            &approval["reference"]
        ),
        (
            &json!("approved"),
            &json!("2026-05-20"),
            &json!("SWPPP-2026-031")
        )
    );
    let active = e.get("/sites?status=under_construction").json;
    assert!(
        ids(&active, "sites").contains(&"T-100".to_string()),
        "the map's list shows the new status"
    );

    // An inspector records an inspection; the calendar reads it from the registry.
    let insp = json!({"date": "2026-06-08", "findings": "silt fence down on the east side",
                      "corrective_actions": "re-set the fence", "corrective_due": "2026-06-09"});
    let r = e.call(
        "POST",
        "/sites/T-100/inspections",
        Some(&e.inspector),
        None,
        Some(insp),
    );
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
    assert_eq!(r.json["inspection"]["inspector"], "Ivy Inspector");
    let all = e
        .live
        .registry
        .inspections(&outfall_core::record::InspectionQuery::ALL)
        .expect("inspections")
        .rows;
    assert!(all
        .iter()
        .any(|i| i.site_id == "T-100" && i.findings.contains("silt fence")));
    assert_eq!(
        e.get("/sites/T-100/inspections").json["inspections"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );

    // The officer enters a storm by hand.
    let r = e.call(
        "POST",
        "/rainfall",
        Some(&e.officer),
        None,
        Some(json!({"date": "2026-06-12", "rain_in": 0.8})),
    );
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
    let rain = e.live.registry.rainfall().expect("rainfall").rows;
    assert!(rain
        .iter()
        .any(|d| d.rain_in == 0.8 && d.source.contains("Pat Officer")));

    // Retiring keeps the row and the history, and takes the site off the map.
    let r = e.call(
        "DELETE",
        "/sites/T-100",
        Some(&e.officer),
        Some("\"2\""),
        None,
    );
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    assert!(!ids(&e.get("/sites").json, "sites").contains(&"T-100".to_string()));
    let kept = e.get("/sites/T-100");
    assert_eq!(kept.status, StatusCode::OK);
    assert!(kept.json["retired"].is_string());

    let h = e.get("/sites/T-100/history").json;
    let rows = h["history"].as_array().expect("history");
    let actions: Vec<&str> = rows.iter().filter_map(|r| r["action"].as_str()).collect();
    for a in ["create", "update", "inspect", "retire"] {
        assert!(actions.contains(&a), "history has {a}: {actions:?}");
    }
    let status = rows
        .iter()
        .find(|r| r["field"] == "status" && r["action"] == "update")
        .expect("status change");
    assert_eq!(
        (status["old_value"].as_str(), status["new_value"].as_str()),
        (Some("planned"), Some("under_construction"))
    );
    assert_eq!(status["who"], "Pat Officer");
}

fn roles(e: &Env) {
    let r = e.call(
        "PATCH",
        "/sites/S01",
        None,
        Some("\"1\""),
        Some(json!({"status": "closed"})),
    );
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert!(r.headers.get("www-authenticate").is_some());
    let bad = format!("{}x", &e.officer[..e.officer.len() - 1]);
    let r = e.call(
        "PATCH",
        "/sites/S01",
        Some(&bad),
        Some("\"1\""),
        Some(json!({"status": "closed"})),
    );
    assert_eq!(r.status, StatusCode::UNAUTHORIZED, "a wrong secret");
    let r = e.call(
        "PATCH",
        "/sites/S01",
        Some(&e.inspector),
        Some("\"1\""),
        Some(json!({"status": "closed"})),
    );
    assert_eq!(
        r.status,
        StatusCode::FORBIDDEN,
        "an inspector may not change a site"
    );
    let r = e.call(
        "POST",
        "/sites/S01/inspections",
        Some(&e.applicant),
        None,
        Some(json!({"date": "2026-06-01", "findings": "ok"})),
    );
    assert_eq!(
        r.status,
        StatusCode::FORBIDDEN,
        "an applicant may not inspect"
    );
    let mut app = application("T-200");
    app["site"]["swppp_approval"] = json!({"decision": "approved", "date": "2026-01-01"});
    let r = e.call("POST", "/sites", Some(&e.applicant), None, Some(app));
    assert_eq!(
        r.status,
        StatusCode::FORBIDDEN,
        "an applicant may not approve their own plan"
    );
    // Nor find or confirm an exemption: those are the officer's findings ((d), (g)-(k)).
    for (field, value) in [
        ("repair_deemed_necessary", json!(true)),
        ("exemption_verified_by", json!("Ann")),
        (
            "exemption_claims",
            json!([{"code": "i", "immediately_necessary": true}]),
        ),
        (
            "exemption_claims",
            json!([{"code": "c", "verified_by": "Ann"}]),
        ),
    ] {
        let mut app = application("T-200");
        app["site"][field] = value;
        let r = e.call("POST", "/sites", Some(&e.applicant), None, Some(app));
        assert_eq!(r.status, StatusCode::FORBIDDEN, "{field}: {}", r.json);
    }
    let r = e.call(
        "POST",
        "/rainfall",
        Some(&e.inspector),
        None,
        Some(json!({"date": "2026-06-12", "rain_in": 1.0})),
    );
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    // Nothing was changed by the refused writes.
    assert_eq!(e.get("/sites/S01").json["version"], 1);
    assert_eq!(e.get("/sites/T-200").status, StatusCode::NOT_FOUND);
    // Reads stay open; POST /check needs no token.
    assert_eq!(e.get("/sites/S01/report").status, StatusCode::OK);
    // An applicant sees their own submissions.
    let r = e.call(
        "POST",
        "/sites",
        Some(&e.applicant),
        None,
        Some(application("T-201")),
    );
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
    let mine = e.call("GET", "/submissions", Some(&e.applicant), None, None);
    assert_eq!(mine.status, StatusCode::OK);
    let list: Vec<&str> = mine.json["submissions"]
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|s| s["site_id"].as_str())
        .collect();
    assert_eq!(list, ["T-201"]);
}

fn concurrent_editors(e: &Env) {
    // Without If-Match an edit is refused; with a stale one, 412.
    let r = e.call(
        "PATCH",
        "/sites/S02",
        Some(&e.officer),
        None,
        Some(json!({"status": "stabilized"})),
    );
    assert_eq!(r.status, StatusCode::PRECONDITION_REQUIRED);
    let send = |change: Value| {
        let mut req = Request::builder()
            .method("PATCH")
            .uri("/sites/S02")
            .header("authorization", format!("Bearer {}", e.officer))
            .header("if-match", "\"1\"")
            .header("content-type", "application/json");
        req = req.header("x-test", "concurrent");
        let req = req.body(Body::from(change.to_string())).expect("request");
        e.router.clone().oneshot(req)
    };
    let (a, b) = e.rt.block_on(async {
        tokio::join!(
            send(json!({"status": "stabilized"})),
            send(json!({"address": "7421 Henry Clay Blvd, rear lot"}))
        )
    });
    let (a, b) = (a.expect("a").status(), b.expect("b").status());
    let mut got = [a, b];
    got.sort();
    assert_eq!(
        got,
        [StatusCode::OK, StatusCode::PRECONDITION_FAILED],
        "one wins, one is told"
    );
    // The loser reads again and redoes its edit: both edits are kept.
    let now = e.get("/sites/S02");
    assert_eq!(etag(&now), "\"2\"");
    let redo = if a == StatusCode::OK {
        json!({"address": "7421 Henry Clay Blvd, rear lot"})
    } else {
        json!({"status": "stabilized"})
    };
    let r = e.call(
        "PATCH",
        "/sites/S02",
        Some(&e.officer),
        Some(&etag(&now)),
        Some(redo),
    );
    assert_eq!(r.status, StatusCode::OK);
    let p = &e.get("/sites/S02").json["properties"];
    assert_eq!(p["status"], "stabilized");
    assert_eq!(p["address"], "7421 Henry Clay Blvd, rear lot");
}

/// The registry seeded from the demo's files decides every site as the files do.
fn same_as_files(e: &Env) {
    let files = Catalog::open(e.dir.path()).expect("files");
    let snap = e.live.snapshot();
    assert_eq!(snap.reports.len(), 15);
    for s in &files.sites {
        let f = outfall_core::screening::check_site(&files, &s.id).expect("file report");
        let r = snap.reports.get(&s.id).expect("registry report");
        assert_eq!(
            serde_json::to_value(&r.conditions).ok(),
            serde_json::to_value(&f.conditions).ok(),
            "{}",
            s.id
        );
        assert_eq!(r.receiving_water_names, f.receiving_water_names, "{}", s.id);
        assert!(
            (r.disturbance.total_acres - f.disturbance.total_acres).abs() < 1e-9,
            "{}",
            s.id
        );
        assert_eq!(r.site.status, f.site.status, "{}", s.id);
        // The seed stored the files' approval text as an object: the same approval, with
        // its source now the typed field (the audit keeps the text).
        let approval = |a: &Option<outfall_core::claims::SwpppApproval>| {
            a.as_ref()
                .map(|a| (a.decision, a.date, a.reference.clone(), a.body))
        };
        assert_eq!(
            approval(&r.site.swppp_approval),
            approval(&f.site.swppp_approval),
            "{}",
            s.id
        );
        assert_eq!(r.site.record_problems, f.site.record_problems, "{}", s.id);
    }
}

#[test]
fn gpkg_round_trip() {
    round_trip(&gpkg());
}

#[test]
fn gpkg_roles() {
    roles(&gpkg());
}

#[test]
fn gpkg_concurrent_editors() {
    concurrent_editors(&gpkg());
}

#[test]
fn gpkg_seeded_from_files_decides_the_same() {
    same_as_files(&gpkg());
}

#[test]
fn postgis_round_trip() {
    if let Some(e) = postgis() {
        round_trip(&e);
    }
}

#[test]
fn postgis_roles() {
    if let Some(e) = postgis() {
        roles(&e);
    }
}

#[test]
fn postgis_concurrent_editors() {
    if let Some(e) = postgis() {
        concurrent_editors(&e);
    }
}

#[test]
fn postgis_seeded_from_files_decides_the_same() {
    if let Some(e) = postgis() {
        same_as_files(&e);
    }
}

/// A GIS editor changes a site in QGIS (another SQLite connection to the same file): the
/// server shows it without a restart.
#[test]
fn an_edit_in_qgis_shows_without_a_restart() {
    let e = gpkg();
    let _watch = Live::watch(&e.live, std::time::Duration::from_millis(100));
    let before = e.get("/sites?status=closed");
    assert!(!ids(&before.json, "sites").contains(&"S03".to_string()));
    let other = rusqlite::Connection::open(e.dir.path().join("registry.gpkg")).expect("open");
    other
        .execute(
            "UPDATE sites SET status = 'closed', version = version + 1 WHERE site_id = 'S03'",
            [],
        )
        .expect("QGIS-style edit");
    drop(other);
    // Waits for the watcher to pick the edit up. The bound only ends a hung run: it is far
    // past any machine's load (the watcher polls every 0.1 s), and what is asserted is that
    // the edit shows, never how soon.
    let give_up = std::time::Instant::now() + std::time::Duration::from_secs(300);
    loop {
        let now = e.get("/sites?status=closed");
        if ids(&now.json, "sites").contains(&"S03".to_string()) {
            break;
        }
        assert!(
            std::time::Instant::now() < give_up,
            "the edit never showed (gave up after 300 s)"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(e.get("/sites/S03").json["version"], 2);
}

/// An edit rebuilds the two site layers and shares everything else with the snapshot before
/// it: the parcels, the waters and their indexes, the stream network. A copy of them after
/// every edit held 3.7 times a 1.2M-parcel data set's memory and took 1 to 2 s per edit.
#[test]
fn an_edit_shares_the_loaded_layers_instead_of_copying_them() {
    use outfall_core::config::Role;
    let e = gpkg();
    let before = e.live.snapshot();
    patched(&e, "S03", json!({"status": "closed"}));
    let after = e.live.snapshot();
    assert!(
        after.generation > before.generation,
        "the edit made a new snapshot"
    );
    assert_eq!(e.get("/sites/S03").json["properties"]["status"], "closed");
    let (old, new) = (&before.catalog, &after.catalog);
    assert_eq!(old.layers.len(), new.layers.len());
    let mut shared = 0;
    for (a, b) in old.layers.iter().zip(new.layers.iter()) {
        let same = Arc::ptr_eq(&a.features, &b.features) && Arc::ptr_eq(&a.index, &b.index);
        if matches!(a.config.role, Role::Sites | Role::Disturbance) {
            assert!(!same, "{}: the site layers are rebuilt", a.collection_id);
        } else {
            assert!(same, "{}: copied by an edit", a.collection_id);
            shared += 1;
        }
    }
    assert!(
        shared >= 5,
        "the demo's parcels, waters and boundary: {shared}"
    );
    let (h0, h1) = (old.hydro.as_ref(), new.hydro.as_ref());
    assert!(
        h0.zip(h1).is_some_and(|(a, b)| Arc::ptr_eq(a, b)),
        "the stream network is shared"
    );
}

/// After an edit the map's sites tile is encoded anew and shows it, while the parcels tile
/// of the same place comes from the cache: an edit no longer sends every tile of a state's
/// parcels to be encoded again.
#[test]
fn an_edit_renews_the_sites_tiles_and_keeps_the_parcels_tiles() {
    use outfall_core::tiles::TileId;
    let e = gpkg();
    let site = e.get("/collections/sites/items/S03").json;
    let at = &site["geometry"]["coordinates"][0][0];
    let (lon, lat) = (at[0].as_f64().expect("lon"), at[1].as_f64().expect("lat"));
    let TileId { z, x, y } = TileId::from_lonlat(lon, lat, 16).expect("a tile");
    let tile = |c: &str| {
        let r = e.get(&format!(
            "/collections/{c}/tiles/WebMercatorQuad/{z}/{y}/{x}"
        ));
        assert_eq!(r.status, StatusCode::OK, "{c} tile {z}/{y}/{x}");
        etag(&r)
    };
    // The tile cache's lookups so far, from `/metrics` (text, not JSON).
    let lookups = |result: &str| {
        let text = e.rt.block_on(async {
            let req = Request::get("/metrics")
                .body(Body::empty())
                .expect("request");
            let res = e.router.clone().oneshot(req).await.expect("response");
            assert_eq!(res.status(), StatusCode::OK);
            let bytes = res.into_body().collect().await.expect("body").to_bytes();
            String::from_utf8(bytes.to_vec()).expect("text")
        });
        let series = format!("outfall_tile_cache_lookups_total{{result=\"{result}\"}}");
        common::sample(&text, &series).unwrap_or(0.0)
    };
    let (sites_before, parcels_before) = (tile("sites"), tile("parcels"));
    let (hits, misses) = (lookups("hit"), lookups("miss"));
    patched(&e, "S03", json!({"status": "closed"}));
    let (sites_after, parcels_after) = (tile("sites"), tile("parcels"));
    assert_ne!(sites_before, sites_after, "the sites tile shows the edit");
    assert_eq!(parcels_before, parcels_after);
    assert_eq!(
        lookups("miss") - misses,
        1.0,
        "only the sites tile was encoded"
    );
    assert_eq!(
        lookups("hit") - hits,
        1.0,
        "the parcels tile came from the cache"
    );
}

/// Two servers over one PostGIS database: an edit through one wakes the other by
/// `LISTEN/NOTIFY` (no stamp polling), and after its reload the other serves the edit.
#[test]
fn an_edit_on_one_replica_notifies_the_others() {
    let Some(url) = fresh_database() else { return };
    let a = env_with(Some(url.clone()));
    let catalog = Arc::new(Catalog::open(a.dir.path()).expect("demo loads"));
    let store = outfall_postgis::open(Some(&url), a.dir.path(), &catalog.manifest.words)
        .expect("second server opens the registry");
    let b = Arc::new(Live::start(store, catalog).expect("second server starts"));
    let wait = |max_ms| {
        b.registry
            .wait_for_change(std::time::Duration::from_millis(max_ms))
            .expect("wait")
    };
    assert!(wait(1), "a new listener must answer \"maybe changed\" once");
    assert!(
        !wait(1),
        "nothing was committed, so nothing may be notified"
    );
    let old = b.snapshot().generation;
    patched(&a, "S03", json!({"status": "closed"}));
    // Only a notification can end this wait early; the bound ends a hung run.
    assert!(
        wait(300_000),
        "the commit on the other server was not notified"
    );
    assert!(b.poll().expect("reload"), "the notified server must reload");
    assert!(b.snapshot().generation > old);
    let b_router = app(AppState::with_registry(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("web"),
        b.clone(),
    ));
    let seen = a.rt.block_on(async {
        let req = Request::get("/sites/S03")
            .body(Body::empty())
            .expect("request");
        let res = b_router.oneshot(req).await.expect("response");
        let bytes = res.into_body().collect().await.expect("body").to_bytes();
        serde_json::from_slice::<Value>(&bytes).expect("json")
    });
    assert_eq!(seen["properties"]["status"], "closed", "{seen}");
    assert!(!wait(1), "one commit is one reload: the queue was drained");
}

/// A balancer asks `/readyz`: after PostgreSQL ends the server's connections (a restart, an
/// administrator), the server reconnects and is ready again; with the database gone it
/// answers 503 naming the registry as unreachable, and keeps serving reads.
#[test]
fn readiness_follows_the_registry() {
    let Some(url) = fresh_database() else { return };
    let e = env_with(Some(url.clone()));
    let ready = |e: &Env| e.get("/readyz");
    assert_eq!(ready(&e).status, StatusCode::OK);
    let db = url.rsplit('/').next().expect("database name").to_string();
    let base = std::env::var("OUTFALL_TEST_POSTGRES").expect("server");
    let mut admin = postgres::Client::connect(&base, postgres::NoTls).expect("admin");
    admin
        .execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1",
            &[&db],
        )
        .expect("end the server's connections");
    // The request that finds the connection closed may fail; the next one reconnects.
    let answers: Vec<StatusCode> = (0..3).map(|_| ready(&e).status).collect();
    assert_eq!(answers.last(), Some(&StatusCode::OK), "{answers:?}");
    assert_eq!(
        patched(&e, "S03", json!({"status": "closed"}))["site"]["version"],
        2
    );

    admin
        .batch_execute(&format!("DROP DATABASE {db} WITH (FORCE)"))
        .expect("drop the database");
    let gone: Vec<Resp> = (0..2).map(|_| ready(&e)).collect();
    for r in &gone {
        assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE, "{}", r.json);
        assert_eq!(r.json["registry"], "unreachable", "{}", r.json);
    }
    // The map and the reports are served from the last snapshot; a registry read says to
    // come back, without naming the database.
    assert_eq!(e.get("/sites/S03/report").status, StatusCode::OK);
    assert_eq!(e.get("/collections/sites/items").status, StatusCode::OK);
    let read = e.get("/sites/S03");
    assert_eq!(
        read.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "{}",
        read.json
    );
    assert!(read.headers.contains_key("retry-after"));
    assert!(
        !read.json.to_string().contains("127.0.0.1"),
        "{}",
        read.json
    );
}

/// The audit trail cannot be rewritten, not even by another program.
#[test]
fn the_audit_trail_is_append_only() {
    let e = gpkg();
    let other = rusqlite::Connection::open(e.dir.path().join("registry.gpkg")).expect("open");
    let upd = other.execute("UPDATE audit SET who = 'nobody'", []);
    let del = other.execute("DELETE FROM audit", []);
    assert!(upd.is_err() && del.is_err(), "{upd:?} {del:?}");
}

/// The file is a GeoPackage GDAL (and so QGIS) opens, with the sites as a layer in EPSG:4326.
#[test]
fn the_registry_is_a_geopackage_gdal_reads() {
    let e = gpkg();
    let path = e.dir.path().join("registry.gpkg");
    let out = match std::process::Command::new("ogrinfo")
        .arg("-so")
        .arg(&path)
        .arg("sites")
        .output()
    {
        Ok(o) => o,
        Err(_) if std::env::var_os("CI").is_none() => {
            eprintln!("SKIP: ogrinfo (gdal-bin) is not installed");
            return;
        }
        Err(e) => panic!("ogrinfo missing in CI: {e}"),
    };
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("Feature Count: 15"), "{text}");
    assert!(text.contains("WGS 84"), "{text}");
}

/// Only an argon2 hash is stored; a wrong secret, a secret wrong in its last character, an
/// unknown token id and a malformed token all run the same argon2 check (one verification,
/// at the cost of the real token's hash), so no early exit tells which part was wrong. The
/// check reports the work it did; nothing here is timed, so a busy machine cannot fail it.
#[test]
fn tokens_are_stored_hashed_and_checked_without_early_exit() {
    let e = gpkg();
    let (id, secret) = e.officer["ofl_".len()..]
        .split_once('_')
        .expect("ofl_<id>_<secret>");
    let db = rusqlite::Connection::open(e.dir.path().join("registry.gpkg")).expect("open");
    let hash: String = db
        .query_row("SELECT hash FROM tokens WHERE token_id = ?1", [id], |r| {
            r.get(0)
        })
        .expect("stored");
    assert!(hash.starts_with("$argon2id$"), "{hash}");
    assert!(!hash.contains(secret));
    let reg = e.live.registry.as_ref();
    assert!(token::verify(reg, &e.officer).expect("verify").is_some());
    let accepted = token::check(reg, &e.officer).expect("check");
    assert!(accepted.caller.is_some());
    assert_eq!(accepted.verifications, 1);
    // The cost is the stored hash's own parameters (argon2id, its version, m, t and p).
    assert!(
        accepted.cost.starts_with("argon2id v=19 m="),
        "{}",
        accepted.cost
    );
    assert!(
        hash.contains(&accepted.cost["argon2id v=19 ".len()..]),
        "{} {hash}",
        accepted.cost
    );
    let flip = |s: &str, at: usize| {
        let mut b = s.as_bytes().to_vec();
        b[at] = if b[at] == b'0' { b'1' } else { b'0' };
        String::from_utf8(b).expect("ascii")
    };
    let cases = [
        format!("ofl_{id}_{}", flip(secret, 0)),
        format!("ofl_{id}_{}", flip(secret, secret.len() - 1)),
        format!("ofl_{}_{secret}", flip(id, 0)),
        format!("ofl__{secret}"),
        "not-a-token".to_string(),
    ];
    for t in &cases {
        assert!(token::verify(reg, t).expect("verify").is_none(), "{t}");
        let refused = token::check(reg, t).expect("check");
        assert_eq!(
            refused,
            token::Checked {
                caller: None,
                verifications: 1,
                cost: accepted.cost.clone(),
                lapsed: None,
                matched_hash: None,
            },
            "{t} is refused after the same argon2 work as the real token"
        );
    }
}

/// With every log level on, a request's bearer token appears nowhere in the server's output.
#[test]
fn a_token_is_never_logged() {
    use std::io::{BufRead, Read, Write};
    let dir = common::demo_copy();
    let bin = env!("CARGO_BIN_EXE_outfall");
    let out = std::process::Command::new(bin)
        .args([
            "token", "create", "--role", "officer", "--name", "log test", "--data",
        ])
        .arg(dir.path())
        .output()
        .expect("token create");
    let tok = String::from_utf8(out.stdout)
        .expect("utf8")
        .trim()
        .to_string();
    assert!(tok.starts_with("ofl_"), "{tok}");
    let mut server = std::process::Command::new(bin)
        .args(["serve", "--bind", "127.0.0.1:0", "--data"])
        .arg(dir.path())
        .env("RUST_LOG", "trace,geo=info")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("serve");
    let mut stdout = std::io::BufReader::new(server.stdout.take().expect("stdout"));
    // The log goes to standard output too; the address is on the "serving" line.
    let mut line = String::new();
    let mut early_log = String::new();
    while !line.contains("Outfall is serving") {
        early_log.push_str(&line);
        line.clear();
        assert!(
            stdout.read_line(&mut line).expect("read") > 0,
            "no serving line: {early_log}"
        );
    }
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|s| s.split('/').next())
        .expect("address")
        .to_string();
    for (method, path, body) in [
        ("PATCH", "/sites/S01", "{\"status\":\"active\"}"),
        (
            "POST",
            "/rainfall",
            "{\"date\":\"2026-06-01\",\"rain_in\":0.7}",
        ),
        ("POST", "/rainfall", "not json"),
    ] {
        let mut s = std::net::TcpStream::connect(&addr).expect("connect");
        write!(
            s,
            "{method} {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {tok}\r\nIf-Match: \"1\"\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .expect("send");
        let mut answer = String::new();
        s.read_to_string(&mut answer).expect("answer");
        assert!(answer.starts_with("HTTP/1.1 "), "{answer}");
    }
    let _ = server.kill();
    let mut log = early_log;
    stdout.read_to_string(&mut log).expect("log");
    server
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut log)
        .expect("log");
    let _ = server.wait();
    assert!(log.len() > 200, "trace logging produced output: {log}");
    let secret = tok.rsplit('_').next().expect("secret");
    assert!(!log.contains(secret), "the token's secret is in the log");
}

/// The officer's logbook and hand-entered rain drive the inspection calendar of (9)(a)[2]:
/// an inspection recorded through the API restarts the site's 7-day cycle and answers the
/// storm it follows, and a storm entered by hand puts the site on the due list.
fn logbook_and_rain_drive_the_due_list(e: &Env) {
    let due = |as_of: &str| e.get(&format!("/inspections/due?as_of={as_of}")).json;
    let site = |list: &Value, id: &str| {
        list["sites"]
            .as_array()
            .and_then(|a| a.iter().find(|s| s["site_id"] == id).cloned())
    };
    let before = due("2026-11-30");
    let s01 = site(&before, "S01").expect("S01 (active, Condition A/C) owes inspections");
    assert_eq!(s01["urgency"], "overdue");
    assert!(s01["last_inspection"].is_null());
    // The inspector logs Sunday's inspection (the day of the 0.55 in storm).
    let r = e.call(
        "POST",
        "/sites/S01/inspections",
        Some(&e.inspector),
        None,
        Some(json!({"date": "2026-11-29", "inspector": "Ivy Inspector",
                    "findings": "silt fence down at the north outlet",
                    "corrective_actions": "reset the silt fence", "corrective_due": "2026-12-01"})),
    );
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
    let after = due("2026-11-30");
    let s01 = site(&after, "S01").expect("S01 still listed");
    assert_eq!(s01["last_inspection"], "2026-11-29", "{s01}");
    let items = s01["items"].as_array().cloned().unwrap_or_default();
    // The next weekly inspection counts from the logged one, not from the phase start.
    let cycle = items.iter().find(|i| i["kind"] == "cycle");
    assert!(
        cycle.is_none_or(|c| c["due"] == "2026-12-06"),
        "the 7-day cycle restarts at the logged inspection: {s01}"
    );
    assert!(
        !items
            .iter()
            .any(|i| i["kind"] == "storm" && i["storm"]["date"] == "2026-11-29"),
        "an inspection on the storm day answers that storm: {s01}"
    );
    // A storm the officer enters by hand puts the site back on the list with a 24-hour deadline.
    let r = e.call(
        "POST",
        "/rainfall",
        Some(&e.officer),
        None,
        Some(json!({"date": "2026-12-02", "rain_in": 0.9})),
    );
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
    let later = due("2026-12-03");
    let s01 = site(&later, "S01").expect("S01 listed after the storm");
    assert!(
        s01["items"]
            .as_array()
            .is_some_and(|a| a.iter().any(|i| i["kind"] == "storm"
                && i["storm"]["date"] == "2026-12-02"
                && i["due"] == "2026-12-03")),
        "the hand-entered 0.9 in storm is due within 24 hours: {s01}"
    );
    // The public may read the list but not log an inspection.
    let r = e.call(
        "POST",
        "/sites/S01/inspections",
        None,
        None,
        Some(json!({"date": "2026-11-30", "inspector": "x", "findings": "", "corrective_actions": ""})),
    );
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
}

#[test]
fn gpkg_logbook_and_rain_drive_the_due_list() {
    logbook_and_rain_drive_the_due_list(&gpkg());
}

#[test]
fn postgis_logbook_and_rain_drive_the_due_list() {
    if let Some(e) = postgis() {
        logbook_and_rain_drive_the_due_list(&e);
    }
}

/// The command line reads the same record as the map: after the officer activates S11 and
/// records its approval through the API, `outfall sites` and `outfall check` show it, and
/// `--registry none` still reads the files as they were.
#[test]
fn the_command_line_reads_the_registry() {
    let e = gpkg();
    let read = e.get("/sites/S11");
    assert_eq!(read.status, StatusCode::OK, "{}", read.json);
    let change = json!({"status": "active", "swppp_approval": {"decision": "approved",
        "date": "2026-11-30", "reference": "SWPPP-2026-099"}});
    let r = e.call(
        "PATCH",
        "/sites/S11",
        Some(&e.officer),
        Some(&etag(&read)),
        Some(change),
    );
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_outfall"))
            .args(args)
            .arg("--data")
            .arg(e.dir.path())
            .output()
            .expect("outfall runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let line = |text: &str| {
        text.lines()
            .find(|l| l.starts_with("S11 "))
            .map(String::from)
            .unwrap_or_default()
    };
    assert!(
        line(&run(&["sites"])).ends_with("under_construction"),
        "{}",
        run(&["sites"])
    );
    let report: Value =
        serde_json::from_str(&run(&["check", "--site", "S11", "--json"])).expect("JSON report");
    assert_eq!(report["site"]["status"], "under_construction");
    assert_eq!(report["site"]["approved_swppp"], true);
    assert!(line(&run(&["sites", "--registry", "none"])).ends_with("planned"));
}

/// A `PATCH` that must be refused: 422, a problem naming the field and every allowed value,
/// and the site unchanged.
fn refused(e: &Env, id: &str, change: Value, words: &[&str]) {
    let before = e.get(&format!("/sites/{id}"));
    let r = e.call(
        "PATCH",
        &format!("/sites/{id}"),
        Some(&e.officer),
        Some(&etag(&before)),
        Some(change.clone()),
    );
    assert_eq!(
        r.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{change}: {}",
        r.json
    );
    assert_eq!(
        r.headers.get("content-type").and_then(|v| v.to_str().ok()),
        Some("application/problem+json")
    );
    let detail = r.json["detail"].as_str().unwrap_or_default();
    for w in words {
        assert!(detail.contains(w), "{change}: '{w}' not in: {detail}");
    }
    assert_eq!(e.get(&format!("/sites/{id}")).json, before.json, "{change}");
}

fn patched(e: &Env, id: &str, change: Value) -> Value {
    let before = e.get(&format!("/sites/{id}"));
    let r = e.call(
        "PATCH",
        &format!("/sites/{id}"),
        Some(&e.officer),
        Some(&etag(&before)),
        Some(change.clone()),
    );
    assert_eq!(r.status, StatusCode::OK, "{change}: {}", r.json);
    r.json
}

/// Every typed field through `PATCH`: vocabulary words are stored as codes, objects as
/// objects, and a value no vocabulary knows is a 422 naming the allowed values.
fn typed_fields(e: &Env) {
    // The seed keeps the files' typed record (S01) and converts their old words: S02 says
    // "active", S10 has the old approved_swppp text "SWPPP-2026-047".
    let s01 = e.get("/sites/S01").json;
    assert_eq!(s01["properties"]["status"], "under_construction");
    assert_eq!(s01["properties"]["swppp_approval"]["decision"], "approved");
    assert_eq!(s01["properties"]["swppp_approval"]["date"], "2026-03-20");
    let s02 = e.get("/sites/S02").json;
    assert_eq!(s02["properties"]["status"], "under_construction", "{s02}");
    let s10 = e.get("/sites/S10").json;
    assert_eq!(
        s10["properties"]["swppp_approval"],
        json!({"decision": "approved", "reference": "SWPPP-2026-047"})
    );
    assert!(s10["properties"].get("approved_swppp").is_none(), "{s10}");
    let h = e.get("/sites/S10/history").json;
    assert!(
        h["history"]
            .as_array()
            .is_some_and(|rows| rows.iter().any(|r| r["who"] == "migration"
                && r["action"] == "convert"
                && r["field"] == "approved_swppp"
                && r["old_value"] == "SWPPP-2026-047")),
        "the audit keeps the file's text: {h}"
    );

    let statuses = [
        "planned",
        "approved",
        "under_construction",
        "stabilized",
        "closed",
        "withdrawn",
    ];
    refused(e, "S04", json!({"status": "demolished"}), &statuses);
    refused(e, "S04", json!({"status": null}), &statuses);
    let r = patched(e, "S04", json!({"status": "Final Stabilization"}));
    assert_eq!(r["site"]["properties"]["status"], "stabilized");
    assert_eq!(r["report"]["site"]["status"], "stabilized");

    let decisions = ["approved, denied, pending, withdrawn"];
    refused(
        e,
        "S04",
        json!({"swppp_approval": {"decision": "maybe"}}),
        &decisions,
    );
    refused(
        e,
        "S04",
        json!({"swppp_approval": {"date": "2026-04-01"}}),
        &decisions,
    );
    refused(
        e,
        "S04",
        json!({"swppp_approval": {"decision": "approved", "date": "April 1"}}),
        &["swppp_approval.date", "YYYY-MM-DD"],
    );
    refused(
        e,
        "S04",
        json!({"swppp_approval": {"decision": "approved", "body": "mayor"}}),
        &["planning_board, town_board, officer"],
    );
    refused(
        e,
        "S04",
        json!({"approved_swppp": "2026-04-01"}),
        &["swppp_approval", "decision"],
    );
    let r = patched(
        e,
        "S04",
        json!({"swppp_approval": {"decision": "under review", "reference": "SW-77"}}),
    );
    assert_eq!(
        r["site"]["properties"]["swppp_approval"],
        json!({"decision": "pending", "reference": "SW-77"})
    );
    assert_eq!(r["report"]["site"]["approved_swppp"], false);
    // null clears the approval, and the old text with it.
    let r = patched(e, "S01", json!({"swppp_approval": null}));
    assert!(r["site"]["properties"].get("swppp_approval").is_none());
    assert!(r["report"]["site"]["swppp_approval"].is_null());

    refused(
        e,
        "S04",
        json!({"exemption_claims": [{"code": "signage assignment"}]}),
        &["exemption_claims[0].code", "a to k"],
    );
    refused(
        e,
        "S04",
        json!({"exemption_claims": [{"code": "c", "maintains": true}]}),
        &["exemption_claims[0].maintains", "maintains_original"],
    );
    refused(
        e,
        "S04",
        json!({"exemption_claims": [{"code": "e", "plat_approved": "2007"}]}),
        &["exemption_claims[0].plat_approved", "YYYY-MM-DD"],
    );
    let r = patched(
        e,
        "S14",
        json!({"exemption_claims": [{"code": "Routine maintenance", "maintains_original": true,
            "verified_by": "Pat Officer", "verified_on": "2026-05-01"}]}),
    );
    assert_eq!(
        r["site"]["properties"]["exemption_claims"],
        json!([{"code": "c", "maintains_original": true, "verified_by": "Pat Officer",
            "verified_on": "2026-05-01"}])
    );
    assert!(r["site"]["properties"].get("exemptions").is_none());
    assert_eq!(r["report"]["site"]["exemption_claims"][0]["code"], "c");

    refused(
        e,
        "S04",
        json!({"land_use": "mall"}),
        &["single_family_residence, agricultural, other"],
    );
    refused(
        e,
        "S04",
        json!({"common_plan": "yes"}),
        &["common_plan", "true, false or null"],
    );
    refused(
        e,
        "S04",
        json!({"immediately_necessary": 1}),
        &["immediately_necessary"],
    );
    refused(
        e,
        "S04",
        json!({"owner": "me"}),
        &["'owner'", "exemption_claims", "land_use"],
    );
    let r = patched(
        e,
        "S04",
        json!({"land_use": "Single-Family Home", "common_plan": true, "common_plan_acres": 12.5,
            "activity_only": false, "plat_approved": "2007-06-01"}),
    );
    let p = &r["site"]["properties"];
    assert_eq!(p["land_use"], "single_family_residence");
    assert_eq!(
        (&p["common_plan"], &p["common_plan_acres"]),
        (&json!(true), &json!(12.5))
    );
    assert_eq!(r["report"]["site"]["single_family"], true);
    assert_eq!(
        r["report"]["site"]["single_family_source"],
        "site record: land_use"
    );
}

#[test]
fn gpkg_typed_fields() {
    typed_fields(&gpkg());
}

#[test]
fn postgis_typed_fields() {
    if let Some(e) = postgis() {
        typed_fields(&e);
    }
}

/// `POST /sites` takes the typed fields too, checked the same way.
fn application_with_typed_fields(e: &Env) {
    let mut app = application("T-300");
    app["site"]["land_use"] = json!("farm");
    app["site"]["common_plan"] = json!(false);
    app["site"]["exemption_claims"] =
        json!([{"code": "(5)(a)", "new_structures": false}, {"code": "logging"}]);
    // Farm status is the officer's to record (issue 22: an applicant's own record made a
    // 321-acre site exempt); the officer files it.
    let r = e.call(
        "POST",
        "/sites",
        Some(&e.applicant),
        None,
        Some(app.clone()),
    );
    assert_eq!(r.status, StatusCode::FORBIDDEN, "{}", r.json);
    let r = e.call("POST", "/sites", Some(&e.officer), None, Some(app));
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
    let p = &r.json["site"]["properties"];
    assert_eq!(p["land_use"], "agricultural");
    assert_eq!(p["status"], "planned");
    assert_eq!(
        p["exemption_claims"],
        json!([{"code": "a", "new_structures": false}, {"code": "b"}])
    );
    for (field, value, words) in [
        (
            "land_use",
            json!("mall"),
            "single_family_residence, agricultural, other",
        ),
        ("exemption_claims", json!([{"code": "z"}]), "a to k"),
        ("common_plan", json!("maybe"), "true, false or null"),
    ] {
        let mut app = application("T-301");
        app["site"][field] = value;
        let r = e.call("POST", "/sites", Some(&e.applicant), None, Some(app));
        assert_eq!(
            r.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{field}: {}",
            r.json
        );
        let detail = r.json["detail"].as_str().unwrap_or_default();
        assert!(detail.contains(field) && detail.contains(words), "{detail}");
    }
    // The officer may file a site with its status and approval, in the vocabulary's words.
    let mut app = application("T-302");
    app["site"]["status"] = json!("in progress");
    app["site"]["swppp_approval"] =
        json!({"decision": "approved", "date": "2026-05-01", "body": "Town Board"});
    let r = e.call("POST", "/sites", Some(&e.officer), None, Some(app));
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
    let p = &r.json["site"]["properties"];
    assert_eq!(p["status"], "under_construction");
    assert_eq!(p["swppp_approval"]["body"], "town_board");
    let mut app = application("T-303");
    app["site"]["status"] = json!("demolished");
    let r = e.call("POST", "/sites", Some(&e.officer), None, Some(app));
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.json);
    assert!(r.json["detail"]
        .as_str()
        .is_some_and(|d| d.contains("planned, approved, under_construction")));
    assert_eq!(e.get("/sites/T-303").status, StatusCode::NOT_FOUND);
}

#[test]
fn gpkg_application_with_typed_fields() {
    application_with_typed_fields(&gpkg());
}

#[test]
fn postgis_application_with_typed_fields() {
    if let Some(e) = postgis() {
        application_with_typed_fields(&e);
    }
}

/// Rows as the registry wrote them before the typed record (schema version 1): status words,
/// the `approved_swppp` text, an inspection and the audit of the seed. `exec` runs one SQL
/// statement on the store.
fn write_old_rows(exec: &mut dyn FnMut(&str)) {
    exec("CREATE TABLE outfall_migrations (version BIGINT PRIMARY KEY, applied_at TEXT NOT NULL)");
    exec("INSERT INTO outfall_migrations VALUES (1, '2026-01-05T10:00:00.000Z')");
    exec("INSERT INTO outfall_meta (key, value) VALUES ('seeded', '2026-01-05T10:00:00.000Z')");
    for (id, status, approval) in [
        ("S01", "active", "'2026-03-20'"),
        ("S03", "Active", "'SWPPP-2026-014'"),
        ("S05", "active", "'see the file'"),
        ("S09", "stabilized", "NULL"),
        ("S11", "planned", "'2026-04-10 SW-8'"),
        ("S12", "demolished", "'under review'"),
    ] {
        exec(&format!(
            "INSERT INTO sites (site_id, name, status, approved_swppp, exemptions, attributes, version) \
             VALUES ('{id}', 'site {id}', '{status}', {approval}, 'routine maintenance', \
             '{{\"common_plan\": false}}', 1)"
        ));
        exec(&format!(
            "INSERT INTO audit (at, who, action, site_id, field, old_value, new_value) \
             VALUES ('2026-01-05T10:00:00.000Z', 'outfall', 'seed', '{id}', 'source', 'null', \
             '\"the file layers\"')"
        ));
    }
    exec(
        "INSERT INTO inspections (site_id, date, inspector, findings, corrective_actions, \
          recorded_by, recorded_at) VALUES ('S01', '2026-04-02', 'Ivy', 'fence ok', '', 'Ivy', \
          '2026-04-02T09:00:00.000Z')",
    );
}

/// What opening the old rows must give: codes and objects where the conversion is certain,
/// the text kept and flagged where not, every row, inspection and audit row kept, and an
/// audit row by "migration" with the old value for each field converted or flagged.
fn check_migrated(store: &dyn registry::Registry) {
    let sites = store.sites().expect("sites");
    assert_eq!(sites.len(), 6, "every row survives");
    let site = |id: &str| {
        sites
            .iter()
            .find(|s| s.site_id == id)
            .unwrap_or_else(|| panic!("{id} kept"))
    };
    let p = |id: &str| Value::Object(site(id).properties.clone());
    assert_eq!(
        p("S01"),
        json!({"name": "site S01", "status": "under_construction", "exemptions": "routine maintenance",
            "common_plan": false, "swppp_approval": {"decision": "approved", "date": "2026-03-20"}})
    );
    assert_eq!(p("S03")["status"], "under_construction");
    assert_eq!(
        p("S03")["swppp_approval"],
        json!({"decision": "approved", "reference": "SWPPP-2026-014"})
    );
    assert_eq!(
        p("S11")["swppp_approval"],
        json!({"decision": "approved", "date": "2026-04-10", "reference": "SW-8"})
    );
    assert_eq!(p("S12")["swppp_approval"], json!({"decision": "pending"}));
    // Not certain: kept as written, and flagged.
    assert_eq!(p("S05")["approved_swppp"], "see the file");
    assert!(p("S05").get("swppp_approval").is_none());
    assert_eq!(p("S12")["status"], "demolished");
    assert_eq!(p("S09")["status"], "stabilized");
    let versions: Vec<(&str, i64)> = sites
        .iter()
        .map(|s| (s.site_id.as_str(), s.version))
        .collect();
    assert_eq!(
        versions,
        [
            ("S01", 2),
            ("S03", 2),
            ("S05", 2),
            ("S09", 1),
            ("S11", 2),
            ("S12", 2)
        ],
        "a converted row is one version up; a row with nothing to convert is untouched"
    );
    let notes = |id: &str| -> Vec<(String, String, Value, Value)> {
        store
            .history(id)
            .expect("history")
            .into_iter()
            .filter(|a| a.who == "migration")
            .map(|a| {
                (
                    a.action,
                    a.field.unwrap_or_default(),
                    a.old_value.unwrap_or(Value::Null),
                    a.new_value.unwrap_or(Value::Null),
                )
            })
            .collect()
    };
    let row = |action: &str, field: &str, old: Value, new: Value| {
        (action.to_string(), field.to_string(), old, new)
    };
    assert_eq!(
        notes("S01"),
        [
            row(
                "convert",
                "status",
                json!("active"),
                json!("under_construction")
            ),
            row(
                "convert",
                "approved_swppp",
                json!("2026-03-20"),
                Value::Null
            ),
            row(
                "convert",
                "swppp_approval",
                Value::Null,
                json!({"decision": "approved", "date": "2026-03-20"})
            ),
        ]
    );
    assert_eq!(
        notes("S05"),
        [
            row(
                "convert",
                "status",
                json!("active"),
                json!("under_construction")
            ),
            row(
                "flag",
                "approved_swppp",
                json!("see the file"),
                json!("see the file")
            ),
        ]
    );
    assert_eq!(
        notes("S12")[0],
        row("flag", "status", json!("demolished"), json!("demolished"))
    );
    assert!(notes("S09").is_empty());
    assert_eq!(store.history("S01").expect("history")[0].action, "seed");
    let logged = store.inspections(&outfall_core::record::InspectionQuery::ALL);
    assert_eq!(logged.expect("inspections").rows.len(), 1);
}

/// Opening the old rows twice converts once: the second open finds schema version 2 and
/// writes nothing.
fn migrates_once(open: &dyn Fn() -> Box<dyn registry::Registry>) {
    let store = open();
    check_migrated(store.as_ref());
    let audit_rows: usize = ["S01", "S03", "S05", "S09", "S11", "S12"]
        .iter()
        .map(|id| store.history(id).expect("history").len())
        .sum();
    let stamp = store.sites().expect("sites");
    drop(store);
    let again = open();
    check_migrated(again.as_ref());
    let after: usize = ["S01", "S03", "S05", "S09", "S11", "S12"]
        .iter()
        .map(|id| again.history(id).expect("history").len())
        .sum();
    assert_eq!(after, audit_rows, "no second conversion");
    assert_eq!(again.sites().expect("sites"), stamp);
}

#[test]
fn an_old_geopackage_registry_is_converted_once_on_open() {
    let dir = common::demo_copy();
    let path = dir.path().join("registry.gpkg");
    {
        let db = rusqlite::Connection::open(&path).expect("create");
        db.execute_batch(include_str!(
            "../crates/outfall-core/src/registry/gpkg_v1.sql"
        ))
        .expect("the version 1 schema");
        write_old_rows(&mut |sql| {
            db.execute_batch(sql)
                .unwrap_or_else(|e| panic!("{sql}: {e}"));
        });
    }
    let words = Vocabulary::default();
    let spec = path.display().to_string();
    migrates_once(&|| outfall_postgis::open(Some(&spec), dir.path(), &words).expect("opens"));
    // The server starts on it, and the report names the text it could not read.
    let catalog = Arc::new(Catalog::open(dir.path()).expect("demo loads"));
    let store = outfall_postgis::open(Some(&spec), dir.path(), &words).expect("opens");
    let live = Live::start(store, catalog).expect("starts without seeding again");
    let snap = live.snapshot();
    let s05 = snap.reports.get("S05").expect("S05 report");
    assert!(
        s05.site
            .record_problems
            .iter()
            .any(|p| p.contains("see the file")),
        "{:?}",
        s05.site.record_problems
    );
    assert_eq!(
        snap.reports["S01"].site.status.as_deref(),
        Some("under_construction")
    );
    assert_eq!(live.registry.sites().expect("sites").len(), 6);
}

#[test]
fn an_old_postgis_registry_is_converted_once_on_open() {
    let Some(url) = fresh_database() else { return };
    {
        let mut db = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
        db.batch_execute(include_str!("../crates/outfall-postgis/src/postgis_v1.sql"))
            .expect("the version 1 schema");
        write_old_rows(&mut |sql| {
            db.batch_execute(sql)
                .unwrap_or_else(|e| panic!("{sql}: {e}"));
        });
    }
    let words = Vocabulary::default();
    let dir = tempfile::tempdir().expect("temp dir");
    migrates_once(&|| outfall_postgis::open(Some(&url), dir.path(), &words).expect("opens"));
}

/// Issue 22, attack 12 on PostGIS: an edit made with another client (as QGIS makes it)
/// bumps the site's version and leaves an audit row; the service's own edit does not
/// trigger one (`SET LOCAL outfall.service`).
#[test]
fn postgis_outside_edit_changes_the_etag_and_is_audited() {
    let Some(url) = fresh_database() else { return };
    let e = env_with(Some(url.clone()));
    let before = e.get("/sites/S01");
    let mut db = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    db.execute(
        "UPDATE sites SET name = 'Renamed in QGIS' WHERE site_id = 'S01'",
        &[],
    )
    .expect("outside edit");
    let after = e.get("/sites/S01");
    assert_eq!(
        after.json["version"],
        before.json["version"].as_i64().unwrap_or(0) + 1
    );
    assert_ne!(etag(&before), etag(&after));
    let r = e.call(
        "PATCH",
        "/sites/S01",
        Some(&e.officer),
        Some(&etag(&after)),
        Some(json!({"name": "By the service"})),
    );
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    let history = e.get("/sites/S01/history").json;
    let outside: Vec<&Value> = history["history"]
        .as_array()
        .expect("history")
        .iter()
        .filter(|h| h["who"] == "outside the service")
        .collect();
    assert_eq!(outside.len(), 1, "{history}");
    assert_eq!(outside[0]["field"], "name");
    assert_eq!(outside[0]["new_value"], "Renamed in QGIS");
}

/// Another program's connection to a registry, as sqlite3 (or QGIS) or psql makes one.
enum Outside {
    File(rusqlite::Connection),
    Db(postgres::Client),
}

impl Outside {
    fn file(e: &Env) -> Outside {
        let path = e.dir.path().join("registry.gpkg");
        Outside::File(rusqlite::Connection::open(path).expect("open the file"))
    }

    fn db(url: &str) -> Outside {
        Outside::Db(postgres::Client::connect(url, postgres::NoTls).expect("connect"))
    }

    fn run(&mut self, sql: &str) {
        let done = match self {
            Outside::File(c) => c.execute_batch(sql).map_err(|e| e.to_string()),
            Outside::Db(c) => c.batch_execute(sql).map_err(|e| e.to_string()),
        };
        done.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }

    fn count(&mut self, sql: &str) -> i64 {
        match self {
            Outside::File(c) => c.query_row(sql, [], |r| r.get(0)).expect(sql),
            Outside::Db(c) => c.query_one(sql, &[]).expect(sql).get(0),
        }
    }
}

/// The audit rows of outside edits of a site, as `GET /sites/{id}/history` gives them.
fn outside_values(e: &Env, site: &str) -> Vec<Value> {
    let history = e.get(&format!("/sites/{site}/history")).json;
    history["history"]
        .as_array()
        .expect("history")
        .iter()
        .filter(|h| h["who"] == "outside the service")
        .map(|h| h["new_value"].clone())
        .collect()
}

/// Issue 40, item 8: the service's marker cannot be imitated by another connection. Each
/// `forge` transaction renames S01 (`{name}`) while imitating it: the edit is audited and
/// moves the version (so the ETag), as any outside edit.
fn a_forged_marker_hides_no_edit(e: &Env, outside: &mut Outside, forge: &[&str]) {
    let before = e.get("/sites/S01");
    for (n, sql) in forge.iter().enumerate() {
        outside.run(&sql.replace("{name}", &format!("Forged {n}")));
    }
    let after = e.get("/sites/S01");
    let moved = before.json["version"].as_i64().unwrap_or(0) + forge.len() as i64;
    assert_eq!(after.json["version"], moved, "{}", after.json);
    assert_ne!(etag(&before), etag(&after));
    let audited = outside_values(e, "S01");
    for n in 0..forge.len() {
        assert!(
            audited.contains(&json!(format!("Forged {n}"))),
            "{audited:?}"
        );
    }
}

/// The GeoPackage's old marker was a row of `outfall_writer`, which any connection could
/// insert in its own transaction; neither that nor a table standing for the list of the
/// connection's functions passes for the service.
#[test]
fn gpkg_a_forged_writer_marker_hides_no_edit() {
    let e = gpkg();
    let rename = "UPDATE sites SET name = '{name}' WHERE site_id = 'S01';";
    let forge = [
        format!("BEGIN; CREATE TABLE IF NOT EXISTS outfall_writer (since TEXT); INSERT INTO outfall_writer VALUES ('x'); {rename} DELETE FROM outfall_writer; COMMIT;"),
        format!("BEGIN; CREATE TEMP TABLE pragma_function_list (name TEXT); INSERT INTO pragma_function_list VALUES ('outfall_service_writer'); {rename} COMMIT;"),
        format!("BEGIN; CREATE TABLE pragma_function_list (name TEXT); INSERT INTO main.pragma_function_list VALUES ('outfall_service_writer'); {rename} DROP TABLE main.pragma_function_list; COMMIT;"),
    ];
    let forge: Vec<&str> = forge.iter().map(String::as_str).collect();
    a_forged_marker_hides_no_edit(&e, &mut Outside::file(&e), &forge);
}

/// PostGIS's old marker was `SET LOCAL outfall.service = 'on'`, any session's to set; a
/// guessed writer key, or a temporary table of keys, does not pass either.
#[test]
fn postgis_a_forged_writer_marker_hides_no_edit() {
    let Some(url) = fresh_database() else { return };
    let e = env_with(Some(url.clone()));
    let rename = "UPDATE sites SET name = '{name}' WHERE site_id = 'S01';";
    let forge = [
        format!("BEGIN; SET LOCAL outfall.service = 'on'; {rename} COMMIT;"),
        format!("BEGIN; SET LOCAL outfall.writer = 'a guess'; {rename} COMMIT;"),
        format!("BEGIN; CREATE TEMP TABLE outfall_writers (hash TEXT); INSERT INTO outfall_writers VALUES (encode(sha256('x'::bytea), 'hex')); SET LOCAL outfall.writer = 'x'; {rename} COMMIT;"),
    ];
    let forge: Vec<&str> = forge.iter().map(String::as_str).collect();
    a_forged_marker_hides_no_edit(&e, &mut Outside::db(&url), &forge);
}

/// Runs `f` with the log of this thread captured; gives its result and the log text.
fn logged<T>(f: impl FnOnce() -> T) -> (T, String) {
    #[derive(Clone, Default)]
    struct Sink(Arc<std::sync::Mutex<Vec<u8>>>);
    impl std::io::Write for Sink {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().expect("log").extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let sink = Sink::default();
    let writer = sink.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let out = tracing::subscriber::with_default(subscriber, f);
    let text = String::from_utf8_lossy(&sink.0.lock().expect("log")).into_owned();
    (out, text)
}

/// Issue 40, item 8: a guard another program dropped is put back at the next start, with an
/// audit row (and a log line), so outside edits are audited again; one dropped (or, in
/// PostGIS, disabled) while the server runs is put back at its next poll.
fn a_dropped_guard_is_restored(
    e: &Env,
    outside: &mut Outside,
    reopen: &dyn Fn() -> Box<dyn registry::Registry>,
    drop_sql: &str,
    while_running: &str,
) {
    let restored = "SELECT count(*) FROM audit WHERE who = 'outfall' AND action = 'restore'";
    assert_eq!(
        outside.count(restored),
        0,
        "nothing to restore at the first start"
    );
    outside.run(drop_sql);
    outside.run("UPDATE sites SET name = 'While dropped' WHERE site_id = 'S02'");
    assert!(!outside_values(e, "S02").contains(&json!("While dropped")));
    let ((), log) = logged(|| drop(reopen()));
    assert!(log.contains("restored it"), "no log line at start: {log}");
    assert_eq!(
        outside.count(restored),
        1,
        "the restart restored and audited it"
    );
    outside.run("UPDATE sites SET name = 'After the restart' WHERE site_id = 'S02'");
    assert!(outside_values(e, "S02").contains(&json!("After the restart")));
    // A second start finds nothing to put back.
    drop(reopen());
    assert_eq!(outside.count(restored), 1);
    outside.run(while_running);
    let (polled, log) = logged(|| e.live.poll());
    assert!(polled.is_ok());
    assert!(
        log.contains("restored it"),
        "no log line at the poll: {log}"
    );
    assert_eq!(
        outside.count(restored),
        2,
        "the poll restored and audited it"
    );
    outside.run("UPDATE sites SET name = 'After the poll' WHERE site_id = 'S02'");
    assert!(outside_values(e, "S02").contains(&json!("After the poll")));
}

#[test]
fn gpkg_a_dropped_guard_is_restored() {
    let e = gpkg();
    let words = Vocabulary::default();
    let reopen = || outfall_postgis::open(None, e.dir.path(), &words).expect("reopens");
    let drop_sql = "DROP TRIGGER sites_outside_update;";
    a_dropped_guard_is_restored(&e, &mut Outside::file(&e), &reopen, drop_sql, drop_sql);
}

#[test]
fn postgis_a_dropped_guard_is_restored() {
    let Some(url) = fresh_database() else { return };
    let e = env_with(Some(url.clone()));
    let words = Vocabulary::default();
    let reopen = || outfall_postgis::open(Some(&url), e.dir.path(), &words).expect("reopens");
    let drop_sql = "DROP TRIGGER sites_outside ON sites;";
    let disable = "ALTER TABLE sites DISABLE TRIGGER sites_outside;";
    a_dropped_guard_is_restored(&e, &mut Outside::db(&url), &reopen, drop_sql, disable);
}

/// Issue 40, item 8: a token changed outside the service so that it would grant access is
/// refused (the row stays as it was) and audited: a role raised from applicant to officer, a
/// token added under a new id with a copied hash, an expiry moved later. A change that only
/// takes access away, a revocation, is kept and audited.
fn token_edits_outside_are_refused_or_audited(e: &Env, outside: &mut Outside) {
    let (ann, secret) = e.applicant["ofl_".len()..].split_once('_').expect("id");
    let ivy = token::id_of(&e.inspector).expect("id");
    outside.run(&format!(
        "UPDATE tokens SET role = 'officer' WHERE token_id = '{ann}'"
    ));
    let who = e.call("GET", "/auth/whoami", Some(&e.applicant), None, None);
    assert_eq!(who.json["role"], "applicant", "{}", who.json);
    let before = e.get("/sites/S01");
    let r = e.call(
        "PATCH",
        "/sites/S01",
        Some(&e.applicant),
        Some(&etag(&before)),
        Some(json!({"status": "closed"})),
    );
    assert_eq!(r.status, StatusCode::FORBIDDEN, "{}", r.json);
    outside.run(&format!(
        "INSERT INTO tokens (token_id, name, role, hash, created_at, expires_at) \
         SELECT 'a1b2c3d4e5f6', 'Mallory', 'officer', hash, created_at, expires_at \
         FROM tokens WHERE token_id = '{ann}'"
    ));
    let copied = format!("ofl_a1b2c3d4e5f6_{secret}");
    let r = e.call("GET", "/auth/whoami", Some(&copied), None, None);
    assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{}", r.json);
    let expiry = |e: &Env| {
        e.live
            .registry
            .token(ann)
            .expect("read")
            .map(|t| t.expires_at)
    };
    let kept = expiry(e);
    outside.run(&format!(
        "UPDATE tokens SET expires_at = '2999-01-01T00:00:00.000Z' WHERE token_id = '{ann}'"
    ));
    assert_eq!(expiry(e), kept);
    outside.run(&format!(
        "UPDATE tokens SET revoked = '2026-01-01T00:00:00.000Z' WHERE token_id = '{ivy}'"
    ));
    let r = e.call("GET", "/auth/whoami", Some(&e.inspector), None, None);
    assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{}", r.json);
    let rows = |action: &str, field: &str| {
        format!("SELECT count(*) FROM audit WHERE who = 'outside the service' AND action = '{action}' AND field = '{field}'")
    };
    let refused = "outside edit refused";
    assert_eq!(
        outside.count(&rows(refused, &format!("token {ann} role"))),
        1
    );
    assert_eq!(outside.count(&rows(refused, "token a1b2c3d4e5f6")), 1);
    assert_eq!(
        outside.count(&rows(refused, &format!("token {ann} expires_at"))),
        1
    );
    assert_eq!(
        outside.count(&rows("outside edit", &format!("token {ivy} revoked"))),
        1
    );
    // What the server logs at its next poll: the refusals, by field.
    let (_, audited) = e.live.registry.outside_edits(0).expect("audit");
    let refusals: Vec<&str> = audited
        .iter()
        .filter(|r| r.action == registry::guard::REFUSED)
        .filter_map(|r| r.field.as_deref())
        .collect();
    assert!(
        refusals.contains(&format!("token {ann} role").as_str()),
        "{refusals:?}"
    );
    let (polled, log) = logged(|| e.live.poll());
    assert!(polled.is_ok());
    let role_line = log
        .lines()
        .find(|l| l.contains("refused a change made outside") && l.contains("role"));
    assert!(
        role_line.is_some_and(|l| l.contains("officer")),
        "no log line for the refused role change: {log}"
    );
    // Logged once: the next poll has nothing new to say.
    let ((), log) = logged(|| assert!(e.live.poll().is_ok()));
    assert!(!log.contains("refused a change"), "{log}");
}

#[test]
fn gpkg_token_edits_outside_are_refused_or_audited() {
    let e = gpkg();
    token_edits_outside_are_refused_or_audited(&e, &mut Outside::file(&e));
}

#[test]
fn postgis_token_edits_outside_are_refused_or_audited() {
    let Some(url) = fresh_database() else { return };
    let e = env_with(Some(url.clone()));
    token_edits_outside_are_refused_or_audited(&e, &mut Outside::db(&url));
}

//! Issue 22, attacks 1, 5, 6, 7, 9 and 12, each shown bounded: argon2 work is limited per
//! core, cached and refused to a guessing client; tokens expire, are unique by name,
//! listed, revoked and rotated; submissions belong to a token's id; an applicant cannot
//! state the officer's findings; slow clients cannot fill the connections; and an edit made
//! outside the service changes the ETag and leaves an audit row. Nothing here is timed.

mod common;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt;
use outfall_core::registry::{token, AccessRole, Live};
use outfall_core::Catalog;
use outfall_server::{app, AppState, AuthPolicy, TrustedProxies};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use tower::ServiceExt;

struct Env {
    router: Router,
    state: AppState,
    live: Arc<Live>,
    rt: tokio::runtime::Runtime,
    dir: tempfile::TempDir,
}

/// A copy of the demo with a fresh registry, and a gate that allows `failures` guesses.
fn env(failures: u32) -> Env {
    env_with(policy(failures), TrustedProxies::default())
}

/// A gate that allows `failures` guesses an hour and remembers a token for an hour.
fn policy(failures: u32) -> AuthPolicy {
    AuthPolicy {
        concurrent_verifications: 1,
        failures_per_window: failures,
        failure_window: Duration::from_secs(3600),
        cache_ttl: Duration::from_secs(3600),
        holder_ttl: Duration::from_secs(3600),
        max_entries: 64,
    }
}

fn env_with(policy: AuthPolicy, proxies: TrustedProxies) -> Env {
    let dir = common::demo_copy();
    let catalog = Arc::new(Catalog::open(dir.path()).expect("demo loads"));
    let store = outfall_postgis::open(None, dir.path(), &catalog.manifest.words).expect("opens");
    let live = Arc::new(Live::start(store, catalog).expect("starts"));
    let web = Path::new(env!("CARGO_MANIFEST_DIR")).join("web");
    let state = AppState::with_registry(web, live.clone())
        .with_auth_policy(policy)
        .with_trusted_proxies(proxies);
    Env {
        router: app(state.clone()),
        state,
        live,
        rt: tokio::runtime::Runtime::new().expect("runtime"),
        dir,
    }
}

struct Resp {
    status: StatusCode,
    retry_after: Option<String>,
    etag: Option<String>,
    cache_control: Option<String>,
    vary: Vec<String>,
    json: Value,
}

impl Env {
    fn token(&self, name: &str, role: AccessRole) -> String {
        token::create(self.live.registry.as_ref(), name, role, 90).expect("token")
    }

    /// A request from 192.0.2.7 (as `serve` marks it).
    fn call(&self, method: &str, uri: &str, token: Option<&str>, body: Option<Value>) -> Resp {
        self.call_from("192.0.2.7", None, method, uri, token, body)
    }

    /// A request whose TCP peer is `peer`, with `X-Forwarded-For: forwarded` if given.
    fn call_from(
        &self,
        peer: &str,
        forwarded: Option<&str>,
        method: &str,
        uri: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> Resp {
        let mut req = Request::builder().method(method).uri(uri);
        if let Some(t) = token {
            req = req.header("authorization", format!("Bearer {t}"));
        }
        if let Some(f) = forwarded {
            req = req.header("x-forwarded-for", f);
        }
        let mut req = match body {
            Some(b) => req
                .header("content-type", "application/json")
                .body(Body::from(b.to_string())),
            None => req.body(Body::empty()),
        }
        .expect("request");
        let peer: SocketAddr = format!("{peer}:5000").parse().expect("addr");
        req.extensions_mut().insert(ConnectInfo(peer));
        let router = self.router.clone();
        self.rt.block_on(async move {
            let res = router.oneshot(req).await.expect("response");
            let header = |h: &str| {
                res.headers()
                    .get(h)
                    .and_then(|v| v.to_str().ok())
                    .map(String::from)
            };
            let (status, retry_after, etag) = (res.status(), header("retry-after"), header("etag"));
            let cache_control = header("cache-control");
            let vary = res
                .headers()
                .get_all("vary")
                .iter()
                .filter_map(|v| v.to_str().ok())
                .map(|v| v.to_ascii_lowercase())
                .collect();
            let bytes = res.into_body().collect().await.expect("body").to_bytes();
            let json = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
            Resp {
                status,
                retry_after,
                etag,
                cache_control,
                vary,
                json,
            }
        })
    }

    fn whoami(&self, token: &str) -> Resp {
        self.call("GET", "/auth/whoami", Some(token), None)
    }

    fn whoami_from(&self, peer: &str, forwarded: Option<&str>, token: &str) -> Resp {
        self.call_from(peer, forwarded, "GET", "/auth/whoami", Some(token), None)
    }

    fn runs(&self) -> u64 {
        self.state.auth.argon2_runs()
    }
}

/// Issue 40, item 7: an answer that depends on the caller's token (who they are, what they
/// submitted) is stored by no cache, a shared one least, and says it varies by
/// Authorization; a public read sent with a token does not depend on it and stays public.
#[test]
fn answers_that_depend_on_the_token_are_private_and_never_stored() {
    let e = env(10);
    let ann = e.token("Ann Applicant", AccessRole::Applicant);
    for path in ["/auth/whoami", "/submissions"] {
        let r = e.call("GET", path, Some(&ann), None);
        assert_eq!(r.status, StatusCode::OK, "{path}: {}", r.json);
        assert_eq!(
            r.cache_control.as_deref(),
            Some("private, no-store"),
            "{path}"
        );
        assert!(
            r.vary.iter().any(|v| v.contains("authorization")),
            "{path}: Vary {:?}",
            r.vary
        );
    }
    let refused = e.call("GET", "/auth/whoami", None, None);
    assert_eq!(refused.status, StatusCode::UNAUTHORIZED);
    assert_eq!(refused.cache_control.as_deref(), Some("private, no-store"));
    let public = e.call("GET", "/rules", Some(&ann), None);
    assert_eq!(public.status, StatusCode::OK);
    assert_eq!(public.cache_control.as_deref(), Some("public, max-age=300"));
    assert!(!public.vary.iter().any(|v| v.contains("authorization")));
}

fn detail(r: &Resp) -> &str {
    r.json["detail"].as_str().unwrap_or_default()
}

/// Attack 1: made-up tokens cannot run more argon2 at once than there are slots, a
/// guessing client is refused before any argon2 work, and a holder's repeated requests cost
/// one verification; a revocation is seen at once despite the cache.
#[test]
fn argon2_work_is_bounded_cached_and_refused_to_guessers() {
    let e = env(3);
    let officer = e.token("Pat Officer", AccessRole::Officer);
    // Every slot busy: 503 with Retry-After, and no argon2 run.
    let held = e.state.auth.slot().expect("the one slot");
    let before = e.runs();
    let r = e.whoami("ofl_000000000000_made-up");
    assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE, "{}", r.json);
    assert_eq!(r.retry_after.as_deref(), Some("1"));
    assert_eq!(e.runs(), before);
    drop(held);
    // The holder: one verification, then none.
    let before = e.runs();
    for _ in 0..5 {
        let r = e.whoami(&officer);
        assert_eq!(r.status, StatusCode::OK, "{}", r.json);
        assert_eq!(r.json["name"], "Pat Officer");
    }
    assert_eq!(
        e.runs(),
        before + 1,
        "a repeated valid token costs no argon2"
    );
    // Three guesses are checked; the fourth is refused with 429 before any argon2.
    for i in 0..3 {
        let r = e.whoami(&format!("ofl_00000000000{i}_guess"));
        assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    }
    let before = e.runs();
    let r = e.whoami("ofl_000000000009_guess");
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS, "{}", r.json);
    assert!(r.retry_after.is_some());
    assert_eq!(e.runs(), before, "a refused guesser costs no argon2");
    // The remembered token still answers, and its revocation is seen at once.
    assert_eq!(e.whoami(&officer).status, StatusCode::OK);
    token::revoke(e.live.registry.as_ref(), "Pat Officer").expect("revoke");
    let r = e.whoami(&officer);
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert!(detail(&r).contains("revoked"), "{}", r.json);
}

/// A made-up token with its own id, so that only the address's count grows.
fn guess(i: usize) -> String {
    format!("ofl_{i:012x}_guess")
}

/// Issue 40, item 3: behind one shared address (a proxy not declared trusted, an office's
/// NAT), guessers' failures lock the address, but not an officer whose very token was
/// verified within the holder's time, even when that verification is no longer cached
/// (`cache_ttl` zero: every request runs argon2). A token never verified still waits.
#[test]
fn guessers_behind_one_address_do_not_lock_out_an_officer_verified_recently() {
    let e = env_with(
        AuthPolicy {
            cache_ttl: Duration::ZERO,
            ..policy(3)
        },
        TrustedProxies::default(),
    );
    let officer = e.token("Pat Officer", AccessRole::Officer);
    let inspector = e.token("Ivy Inspector", AccessRole::Inspector);
    assert_eq!(e.whoami(&officer).status, StatusCode::OK);
    for i in 0..10 {
        let r = e.whoami(&guess(i));
        assert!(
            [StatusCode::UNAUTHORIZED, StatusCode::TOO_MANY_REQUESTS].contains(&r.status),
            "{}",
            r.json
        );
    }
    assert_eq!(
        e.whoami(&guess(99)).status,
        StatusCode::TOO_MANY_REQUESTS,
        "the shared address is locked for guessers"
    );
    let before = e.runs();
    let r = e.whoami(&officer);
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    assert_eq!(r.json["name"], "Pat Officer");
    assert_eq!(
        e.runs(),
        before + 1,
        "checked again with argon2, not waved through"
    );
    let r = e.whoami(&inspector);
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS, "{}", r.json);
}

/// Issue 40, item 3: failed checks are counted per token id too, whatever the address: a
/// guesser spreading one id's guesses over many addresses is refused (429, no argon2) on
/// that id, while the same fresh address may still try another id, and the id's holder,
/// verified before, is never refused.
#[test]
fn failed_checks_are_counted_per_token_id() {
    let e = env(3);
    let officer = e.token("Pat Officer", AccessRole::Officer);
    assert_eq!(e.whoami(&officer).status, StatusCode::OK);
    let id = token::id_of(&officer).expect("an id");
    let wrong = format!("ofl_{id}_wrong");
    for i in 1..=3 {
        let r = e.whoami_from(&format!("198.51.100.{i}"), None, &wrong);
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{}", r.json);
    }
    let before = e.runs();
    let r = e.whoami_from("198.51.100.50", None, &wrong);
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS, "{}", r.json);
    assert!(detail(&r).contains("token id"), "{}", r.json);
    assert!(r.retry_after.is_some());
    assert_eq!(e.runs(), before, "refused before any argon2");
    let r = e.whoami_from("198.51.100.50", None, &guess(7));
    assert_eq!(
        r.status,
        StatusCode::UNAUTHORIZED,
        "the address itself is not locked"
    );
    let r = e.whoami_from("198.51.100.51", None, &officer);
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
}

/// Issue 40, item 3: `X-Forwarded-For` names the client only when the TCP peer is a
/// trusted proxy. Behind it, each client has its own count; from any other peer the header
/// is ignored, so a guesser cannot escape its count by writing a new address into it.
#[test]
fn forwarded_for_is_believed_from_trusted_proxies_only() {
    let proxies = TrustedProxies::new(vec!["10.0.0.0/8".parse().expect("range")]);
    let e = env_with(policy(3), proxies);
    for i in 0..3 {
        let r = e.whoami_from("10.0.0.1", Some("198.51.100.1"), &guess(i));
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{}", r.json);
    }
    let r = e.whoami_from("10.0.0.1", Some("198.51.100.1"), &guess(3));
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS, "{}", r.json);
    // Another client behind the same proxy, its address appended after a made-up one.
    let r = e.whoami_from("10.0.0.1", Some("198.51.100.1, 198.51.100.2"), &guess(4));
    assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{}", r.json);
    // An untrusted peer's header is not read: its count is its own address's.
    for i in 0..3 {
        let fake = format!("203.0.113.{i}");
        let r = e.whoami_from("192.0.2.50", Some(&fake), &guess(10 + i));
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{}", r.json);
    }
    let r = e.whoami_from("192.0.2.50", Some("203.0.113.99"), &guess(20));
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS, "{}", r.json);
}

/// Issue 40, item 9: a token whose expiry is missing or does not read as a time is refused
/// (401, saying so), whether it was checked a moment ago or not; before, `NULL` meant never
/// and `garbage` or `9999-99-99` sorted after every date. A token made without
/// `--expires-days` gets a readable expiry and works.
#[test]
fn a_token_without_a_readable_expiry_is_refused() {
    let e = env(100);
    let db = rusqlite::Connection::open(e.dir.path().join("registry.gpkg")).expect("open");
    let set = |id: &str, value: Option<&str>| {
        db.execute(
            "UPDATE tokens SET expires_at = ?2 WHERE token_id = ?1",
            rusqlite::params![id, value],
        )
        .expect("set the expiry");
    };
    for (n, value) in [None, Some("garbage"), Some("9999-99-99")]
        .into_iter()
        .enumerate()
    {
        // One token checked a moment ago (its check is remembered), one never checked.
        let used = e.token(&format!("Used {n}"), AccessRole::Officer);
        let fresh = e.token(&format!("Fresh {n}"), AccessRole::Officer);
        assert_eq!(e.whoami(&used).status, StatusCode::OK);
        for t in [&used, &fresh] {
            set(token::id_of(t).expect("id"), value);
            let r = e.whoami(t);
            assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{value:?}: {}", r.json);
            assert!(detail(&r).contains("no readable expiry"), "{}", r.json);
        }
    }
    let bin = env!("CARGO_BIN_EXE_outfall");
    let out = std::process::Command::new(bin)
        .args([
            "token",
            "create",
            "--role",
            "inspector",
            "--name",
            "No Days",
        ])
        .arg("--data")
        .arg(e.dir.path())
        .output()
        .expect("outfall token create");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let made = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let r = e.whoami(&made);
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    let list = std::process::Command::new(bin)
        .args(["token", "list", "--data"])
        .arg(e.dir.path())
        .output()
        .expect("outfall token list");
    let table = String::from_utf8_lossy(&list.stdout);
    assert!(table.contains("'garbage' (unreadable: expired)"), "{table}");
    assert!(table.contains("none (expired)"), "{table}");
}

/// Attack 7: tokens expire, and are listed, revoked and rotated; a rotated token's old
/// secret is refused even though it was remembered.
#[test]
fn tokens_expire_and_are_listed_revoked_and_rotated() {
    let e = env(100);
    let reg = e.live.registry.as_ref();
    let ann = e.token("Ann Applicant", AccessRole::Applicant);
    assert_eq!(e.whoami(&ann).status, StatusCode::OK);
    let (rotated, fresh) = token::rotate(reg, "Ann Applicant", 30).expect("rotate");
    let r = e.whoami(&ann);
    assert_eq!(
        r.status,
        StatusCode::UNAUTHORIZED,
        "the old secret is refused"
    );
    let r = e.whoami(&fresh);
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    assert_eq!(r.json["token_id"], rotated.token_id.as_str());
    // Expired (set in the file, as an officer's clock would reach it).
    let db = rusqlite::Connection::open(e.dir.path().join("registry.gpkg")).expect("open");
    db.execute(
        "UPDATE tokens SET expires_at = '2020-01-01T00:00:00.000Z' WHERE token_id = ?1",
        [&rotated.token_id],
    )
    .expect("expire");
    let r = e.whoami(&fresh);
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert!(detail(&r).contains("expired"), "{}", r.json);
    assert!(token::create(reg, "x", AccessRole::Officer, 0).is_err());
    let list = token::list(reg).expect("list");
    assert_eq!(list.len(), 1);
    assert_eq!(
        list[0].expires_at.as_deref(),
        Some("2020-01-01T00:00:00.000Z")
    );
    let shown = serde_json::to_string(&list[0]).expect("json");
    assert!(!shown.contains("argon2"), "{shown}");
    // The command line: list and revoke by id.
    let bin = env!("CARGO_BIN_EXE_outfall");
    let run = |args: &[&str]| {
        let out = std::process::Command::new(bin)
            .args(args)
            .arg("--data")
            .arg(e.dir.path())
            .output()
            .expect("outfall token");
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(out.status.success(), "{args:?}: {err}");
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let table = run(&["token", "list"]);
    assert!(
        table.contains("Ann Applicant") && table.contains("(expired)"),
        "{table}"
    );
    let out = run(&["token", "revoke", &rotated.token_id]);
    assert!(out.contains("revoked Ann Applicant"), "{out}");
    assert!(token::list(reg).expect("list")[0].revoked.is_some());
}

/// Attack 6: a second token cannot take a name, and a submission is its token's (by id),
/// not its name's.
#[test]
fn names_are_unique_and_submissions_belong_to_token_ids() {
    let e = env(100);
    let reg = e.live.registry.as_ref();
    let ann = e.token("Ann Applicant", AccessRole::Applicant);
    let err = token::create(reg, "Ann Applicant", AccessRole::Applicant, 90).unwrap_err();
    assert!(err.to_string().contains("exists already"), "{err}");
    let r = e.call(
        "POST",
        "/sites",
        Some(&ann),
        Some(application(0.0012, None)),
    );
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
    let id = token::list(reg).expect("list")[0].token_id.clone();
    assert_eq!(r.json["site"]["submitted_by"], id.as_str());
    // Revoked, the name stays taken; another applicant sees nothing of Ann's.
    token::revoke(reg, &id).expect("revoke");
    assert!(token::create(reg, "Ann Applicant", AccessRole::Applicant, 90).is_err());
    let bob = e.token("Bob Applicant", AccessRole::Applicant);
    let r = e.call("GET", "/submissions", Some(&bob), None);
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.json["submissions"], json!([]));
}

/// A FeatureCollection of one square north of Route 31, `side_deg` of latitude high, with a
/// claim.
fn application(side_deg: f64, claim: Option<Value>) -> Value {
    let (x, y) = (-76.1810, 43.1690);
    let w = side_deg * 1.37;
    let ring = json!([[
        [x, y],
        [x + w, y],
        [x + w, y + side_deg],
        [x, y + side_deg],
        [x, y]
    ]]);
    let mut site = json!({"name": "Attack 5", "outfall": "-76.1795,43.1700",
        "land_use": "commercial", "common_plan": false});
    if let Some(c) = claim {
        site["exemption_claims"] = json!([c]);
    }
    json!({"type": "FeatureCollection", "site": site, "features": [{"type": "Feature",
        "properties": {"phase": "1", "start": "2026-06-01", "end": "2026-09-30"},
        "geometry": {"type": "Polygon", "coordinates": ring}}]})
}

/// Attack 5: an applicant's 321-acre site claiming the (5)(d) repair finding is refused
/// naming the field; claimed without the finding, it is not exempt.
#[test]
fn an_applicant_cannot_certify_a_repair_exemption() {
    let e = env(100);
    let ann = e.token("Ann Applicant", AccessRole::Applicant);
    // 0.0103 degrees of latitude by 0.0141 of longitude at 43.17 N: about 321 acres.
    let found = json!({"code": "d", "repair_deemed_necessary": true});
    let r = e.call(
        "POST",
        "/sites",
        Some(&ann),
        Some(application(0.0103, Some(found))),
    );
    assert_eq!(r.status, StatusCode::FORBIDDEN, "{}", r.json);
    assert!(detail(&r).contains("repair_deemed_necessary"), "{}", r.json);
    for (field, value) in [
        ("building_permit_approved", json!("2007-01-01")),
        ("land_use", json!("farm")),
        ("agricultural", json!(true)),
    ] {
        let mut app = application(0.0103, None);
        app["site"][field] = value;
        let r = e.call("POST", "/sites", Some(&ann), Some(app));
        assert_eq!(r.status, StatusCode::FORBIDDEN, "{field}: {}", r.json);
        assert!(detail(&r).contains(field), "{}", r.json);
    }
    let claimed = json!({"code": "d"});
    let r = e.call(
        "POST",
        "/sites",
        Some(&ann),
        Some(application(0.0103, Some(claimed))),
    );
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
    let acres = r.json["report"]["disturbance"]["total_acres"].as_f64();
    let exempt = &r.json["report"]["conditions"]["exempt"];
    assert_ne!(exempt, &json!(true), "{}", r.json["report"]["conditions"]);
    assert!(acres.is_some_and(|a| a > 300.0), "{acres:?}");
}

/// Attack 12: an edit made with sqlite3 (as QGIS makes it) bumps the site's version, so
/// its ETag changes, and leaves audit rows naming the field; the service's own edit leaves
/// no such row.
#[test]
fn an_outside_edit_changes_the_etag_and_is_audited() {
    let e = env(100);
    let officer = e.token("Pat Officer", AccessRole::Officer);
    let before = e.call("GET", "/sites/S01", None, None);
    let db = rusqlite::Connection::open(e.dir.path().join("registry.gpkg")).expect("open");
    db.execute(
        "UPDATE sites SET name = 'Renamed in QGIS' WHERE site_id = 'S01'",
        [],
    )
    .expect("outside edit");
    let after = e.call("GET", "/sites/S01", None, None);
    assert_ne!(before.etag, after.etag);
    assert_eq!(
        after.json["version"],
        before.json["version"].as_i64().unwrap_or(0) + 1
    );
    let history = e.call("GET", "/sites/S01/history", None, None).json;
    let outside: Vec<&Value> = history["history"]
        .as_array()
        .expect("history")
        .iter()
        .filter(|h| h["who"] == "outside the service")
        .collect();
    assert_eq!(outside.len(), 1, "{history}");
    assert_eq!(outside[0]["field"], "name");
    assert_eq!(outside[0]["new_value"], "Renamed in QGIS");
    // A polygon edited outside moves its site's version too.
    db.execute(
        "UPDATE disturbance SET phase = '9' WHERE site_id = 'S01'",
        [],
    )
    .expect("outside polygon edit");
    let moved = e.call("GET", "/sites/S01", None, None);
    assert!(moved.json["version"].as_i64() > after.json["version"].as_i64());
    // The service's own edit audits itself once.
    let mut req = Request::builder()
        .method("PATCH")
        .uri("/sites/S01")
        .header("authorization", format!("Bearer {officer}"))
        .header("if-match", moved.etag.clone().unwrap_or_default())
        .header("content-type", "application/json")
        .body(Body::from(r#"{"name":"By the service"}"#))
        .expect("request");
    req.extensions_mut().insert(ConnectInfo(
        "192.0.2.8:1".parse::<SocketAddr>().expect("addr"),
    ));
    let router = e.router.clone();
    let status =
        e.rt.block_on(async move { router.oneshot(req).await.expect("patch").status() });
    assert_eq!(status, StatusCode::OK);
    let history = e.call("GET", "/sites/S01/history", None, None).json;
    let rows = history["history"].as_array().expect("history");
    let by_service = rows.iter().filter(|h| h["new_value"] == "By the service");
    assert_eq!(by_service.count(), 1, "{history}");
    assert!(rows
        .iter()
        .filter(|h| h["who"] == "outside the service")
        .all(|h| h["new_value"] != "By the service"));
}

/// Attack 9: many slow-header sockets from one address are closed past its share, and a
/// request from another address still answers; past the cap on waiting connections, the
/// longest-waiting one is closed. The server is a real listener; only a hang is guarded
/// against, nothing is timed.
#[test]
fn slow_clients_cannot_fill_the_connections() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let opts = outfall_server::ServeOptions {
            header_read_timeout: Duration::from_secs(3600),
            max_connections: 64,
            max_connections_per_client: 4,
            max_waiting_connections: 8,
            ..Default::default()
        };
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(outfall_server::serve(
            listener,
            app(common::demo_state()),
            opts,
            async {
                let _ = stopped.await;
            },
        ));
        let open_from = |ip: &'static str| async move {
            let sock = tokio::net::TcpSocket::new_v4().expect("socket");
            sock.bind(format!("{ip}:0").parse().expect("ip"))
                .expect("bind");
            let mut s = sock.connect(addr).await.expect("connect");
            s.write_all(b"GET /conformance HTTP/1.1\r\nHost: x\r\n")
                .await
                .expect("partial headers");
            s
        };
        // Whether the server closed the socket (a read ends); a guard, not a measurement.
        let closed = |mut s: tokio::net::TcpStream| async move {
            let mut b = [0u8; 64];
            matches!(
                tokio::time::timeout(Duration::from_secs(20), s.read(&mut b)).await,
                Ok(Ok(0)) | Ok(Err(_))
            )
        };
        let mut slow = Vec::new();
        for _ in 0..40 {
            slow.push(open_from("127.0.0.2").await);
        }
        let kept: Vec<_> = slow.drain(..4).collect();
        for s in slow {
            assert!(
                closed(s).await,
                "a socket past the address's share is closed"
            );
        }
        let answer = |ip: &'static str| async move {
            let mut s = open_from(ip).await;
            s.write_all(b"Connection: close\r\n\r\n")
                .await
                .expect("end headers");
            let mut text = String::new();
            let read = s.read_to_string(&mut text);
            tokio::time::timeout(Duration::from_secs(20), read)
                .await
                .expect("no hang")
                .expect("read");
            text
        };
        let text = answer("127.0.0.3").await;
        assert!(text.starts_with("HTTP/1.1 200"), "{text}");
        // Eight more addresses, one waiting socket each: the first ones to wait are closed.
        let mut many = Vec::new();
        for i in 10..18 {
            let ip: &'static str = Box::leak(format!("127.0.0.{i}").into_boxed_str());
            many.push(open_from(ip).await);
        }
        let mut closed_count = 0;
        for s in kept {
            closed_count += usize::from(closed(s).await);
        }
        assert_eq!(closed_count, 4, "the longest-waiting sockets were closed");
        let text = answer("127.0.0.4").await;
        assert!(text.starts_with("HTTP/1.1 200"), "{text}");
        drop(many);
        let _ = stop.send(());
        server.await.expect("join").expect("serve");
    });
}

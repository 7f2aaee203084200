//! Issue 9, server side: no request can pin a core or hold a connection. Deadlines on CPU
//! work, upload limits, connection limits on a real loopback server, headers, links from the
//! configured public URL, the static-file whitelist, problem+json for every rejection.
//! Timeouts are configured short (0–300 ms) and every assertion is about the outcome (the
//! status, the close, the answer), never about how long it took: work ahead of a deadline
//! is held by a gate the test opens, waits end on the event itself, and a bound on a wait
//! only ends a hung run. So a busy machine cannot fail these tests.

mod common;

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use http_body_util::BodyExt;
use outfall_server::{app, serve, AppState, Limits, ServeOptions, MAX_UPLOAD_VERTICES};
use serde_json::Value;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};
use tower::ServiceExt;

fn state() -> AppState {
    common::demo_state()
}

fn limits(work_ms: u64, body_ms: u64, checks: usize) -> Limits {
    Limits {
        work_timeout: Duration::from_millis(work_ms),
        body_timeout: Duration::from_millis(body_ms),
        max_concurrent_checks: checks,
        ..Limits::default()
    }
}

struct Resp {
    status: StatusCode,
    headers: axum::http::HeaderMap,
    body: Vec<u8>,
}

impl Resp {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
    fn header(&self, name: header::HeaderName) -> String {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string()
    }
    fn is_problem(&self) -> bool {
        self.header(header::CONTENT_TYPE) == "application/problem+json"
            && self.json()["status"] == self.status.as_u16()
    }
    fn detail(&self) -> String {
        self.json()["detail"].as_str().unwrap_or("").to_string()
    }
}

async fn send_to(st: AppState, req: Request<Body>) -> Resp {
    let res = app(st).oneshot(req).await.expect("response");
    let status = res.status();
    let headers = res.headers().clone();
    let body = res
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes()
        .to_vec();
    Resp {
        status,
        headers,
        body,
    }
}

async fn get_from(st: AppState, uri: &str) -> Resp {
    send_to(st, Request::get(uri).body(Body::empty()).unwrap()).await
}

async fn post_to(st: AppState, content_type: Option<&str>, body: Vec<u8>) -> Resp {
    let mut req = Request::post("/check");
    if let Some(ct) = content_type {
        req = req.header(header::CONTENT_TYPE, ct);
    }
    send_to(st, req.body(Body::from(body)).unwrap()).await
}

/// A valid star polygon with `n` vertices around the middle of the demo (the worst case
/// the soak script uses too).
fn star(n: usize) -> String {
    let (cx, cy) = (-76.17_f64, 43.15_f64);
    let mut pts: Vec<String> = (0..n)
        .map(|i| {
            let a = std::f64::consts::TAU * i as f64 / n as f64;
            let r = if i % 2 == 0 { 0.01 } else { 0.004 };
            format!(
                "[{:.7},{:.7}]",
                cx + r * a.cos() / cy.to_radians().cos(),
                cy + r * a.sin()
            )
        })
        .collect();
    pts.push(pts[0].clone());
    format!(
        r#"{{"type":"Feature","properties":{{}},"geometry":{{"type":"Polygon","coordinates":[[{}]]}}}}"#,
        pts.join(",")
    )
}

fn square(x: f64, y: f64, d: f64) -> String {
    format!(
        r#"{{"type":"Feature","properties":{{}},"geometry":{{"type":"Polygon","coordinates":[[[{x},{y}],[{x2},{y}],[{x2},{y2}],[{x},{y2}],[{x},{y}]]]}}}}"#,
        x2 = x + d,
        y2 = y + d
    )
}

fn small_site() -> String {
    let b = state().reports["S04"].site.bbox.unwrap();
    square(b[0], b[1], 0.0012)
}

// ---------------------------------------------------------------- 1. deadlines, limits

#[tokio::test]
async fn a_check_past_its_deadline_is_a_503_naming_the_vertices_and_the_server_carries_on() {
    let st = state().with_limits(limits(1, 5_000, 4));
    let r = post_to(
        st.clone(),
        Some("application/geo+json"),
        star(10_000).into(),
    )
    .await;
    assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE, "{}", r.text());
    assert!(r.is_problem());
    let d = r.detail();
    assert!(d.contains("did not finish within 0.001 s"), "{d}");
    assert!(d.contains("too complex (10001 vertices)"), "{d}");
    assert_eq!(r.header(header::CACHE_CONTROL), "no-store");
    // The abandoned work finishes in the background; the server answers meanwhile.
    let sites = get_from(st, "/sites").await;
    assert_eq!(sites.status, StatusCode::OK);
}

#[tokio::test]
async fn abandoned_checks_still_count_against_the_check_limit_until_they_end() {
    // One check at a time, a 1 ms deadline: the star times out but keeps computing, so the
    // next check is refused with Retry-After until the abandoned one has ended.
    let st = state().with_limits(limits(1, 5_000, 1));
    let first = post_to(
        st.clone(),
        Some("application/geo+json"),
        star(10_000).into(),
    )
    .await;
    assert!(
        first.detail().contains("did not finish"),
        "{}",
        first.text()
    );
    let second = post_to(
        st.clone(),
        Some("application/geo+json"),
        star(10_000).into(),
    )
    .await;
    assert_eq!(second.status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(second.is_problem());
    assert_eq!(second.header(header::RETRY_AFTER), "1");
    assert!(
        second.detail().contains("limit of 1 checks at once"),
        "{}",
        second.text()
    );
    // Once the abandoned work ends, its permit is released: checks run again.
    let until = Instant::now() + Duration::from_secs(120);
    loop {
        let r = post_to(
            st.clone(),
            Some("application/geo+json"),
            star(10_000).into(),
        )
        .await;
        if r.detail().contains("did not finish") {
            break;
        }
        assert!(r.detail().contains("checks at once"), "{}", r.text());
        assert!(
            Instant::now() < until,
            "the abandoned check never released its slot"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[test]
fn items_pages_tiles_and_searches_run_under_the_same_deadline() {
    // One blocking thread, held until the test lets it go: the page and the tile cannot
    // start, so their 300 ms deadline passes whatever the machine's speed or load.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .max_blocking_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let st = state().with_limits(limits(300, 5_000, 4));
        let (release, gate) = std::sync::mpsc::channel::<()>();
        let busy = tokio::task::spawn_blocking(move || {
            let _ = gate.recv();
        });
        let r = get_from(st.clone(), "/collections/parcels/items?limit=10").await;
        assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE, "{}", r.text());
        assert!(r.is_problem());
        assert!(
            r.detail()
                .contains("items page did not finish within 0.3 s"),
            "{}",
            r.text()
        );
        let b = state().reports["S04"].site.bbox.unwrap();
        let (x, y) = tile_of(b[0], b[1], 13);
        let r = get_from(
            st.clone(),
            &format!("/collections/parcels/tiles/WebMercatorQuad/13/{y}/{x}"),
        )
        .await;
        assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE, "{}", r.text());
        assert!(
            r.detail().contains("did not finish within 0.3 s"),
            "{}",
            r.text()
        );
        // Issue 40, item 2: a search runs there too, never on the threads that answer.
        let r = get_from(st.clone(), "/search?q=ley").await;
        assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE, "{}", r.text());
        assert!(
            r.detail()
                .contains("the search did not finish within 0.3 s"),
            "{}",
            r.text()
        );
        // All were answered while the only blocking thread was still held: the deadline
        // answered them, not the end of the work ahead of them.
        assert!(!busy.is_finished());
        release.send(()).expect("the busy task waits");
        busy.await.expect("the busy task ends");
        // Once the pool is free the same requests are served (the tile from the cache the
        // abandoned encoding filled, or encoded again).
        let ok = get_from(st.clone(), "/collections/parcels/items?limit=10").await;
        assert_eq!(ok.status, StatusCode::OK);
        let ok = get_from(
            st,
            &format!("/collections/parcels/tiles/WebMercatorQuad/13/{y}/{x}"),
        )
        .await;
        assert_eq!(ok.status, StatusCode::OK);
    });
}

fn tile_of(lon: f64, lat: f64, z: u32) -> (u32, u32) {
    let n = 2f64.powi(z as i32);
    let x = ((lon + 180.0) / 360.0 * n) as u32;
    let y = ((1.0 - lat.to_radians().tan().asinh() / std::f64::consts::PI) / 2.0 * n) as u32;
    (x, y)
}

#[tokio::test]
async fn an_upload_over_the_vertex_limit_is_refused_naming_the_limit() {
    // A line of MAX + 1 short positions: small in bytes, too many vertices.
    let n = MAX_UPLOAD_VERTICES + 1;
    let coords = vec!["[0,0]"; n].join(",");
    let body = format!(
        r#"{{"type":"Feature","properties":{{}},"geometry":{{"type":"LineString","coordinates":[{coords}]}}}}"#
    );
    assert!(body.len() < outfall_server::MAX_UPLOAD_BYTES);
    let r = post_to(state(), Some("application/geo+json"), body.into()).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text());
    assert!(r.is_problem());
    assert!(
        r.detail().contains(&format!("{n} vertices")),
        "{}",
        r.text()
    );
    assert!(
        r.detail()
            .contains(&format!("at most {MAX_UPLOAD_VERTICES}")),
        "{}",
        r.text()
    );
}

// ---------------------------------------------------------------- 6. uploads

#[tokio::test]
async fn uploads_need_a_geojson_media_type_and_may_start_with_a_bom() {
    for ct in [
        "application/geo+json",
        "application/json; charset=utf-8",
        "text/plain;charset=UTF-8",
        "Application/GEO+JSON",
    ] {
        let r = post_to(state(), Some(ct), small_site().into()).await;
        assert_eq!(r.status, StatusCode::OK, "{ct}: {}", r.text());
        assert_eq!(
            r.header(header::CACHE_CONTROL),
            "no-store",
            "POST answers are not cached"
        );
    }
    for ct in [
        Some("application/x-www-form-urlencoded"),
        Some("multipart/form-data; boundary=x"),
        None,
    ] {
        let r = post_to(state(), ct, small_site().into()).await;
        assert_eq!(r.status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{ct:?}");
        assert!(r.is_problem());
        assert!(r.detail().contains("application/geo+json"), "{}", r.text());
    }
    let mut bom = "\u{feff}".as_bytes().to_vec();
    bom.extend_from_slice(small_site().as_bytes());
    let r = post_to(state(), Some("application/geo+json"), bom).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
    assert!(r.json()["disturbance"]["total_acres"].as_f64().unwrap() > 1.0);
}

#[tokio::test]
async fn bad_paths_and_methods_answer_problem_json() {
    for (uri, status) in [
        (
            "/collections/parcels/tiles/WebMercatorQuad/999/0/0",
            StatusCode::BAD_REQUEST,
        ),
        (
            "/collections/parcels/tiles/WebMercatorQuad/3/abc/0",
            StatusCode::BAD_REQUEST,
        ),
        (
            "/collections/parcels/tiles/WebMercatorQuad/3/-1/0",
            StatusCode::BAD_REQUEST,
        ),
        ("/no/such/thing", StatusCode::NOT_FOUND),
        ("/vendor/maplibre-gl/nope.js", StatusCode::NOT_FOUND),
    ] {
        let r = get_from(state(), uri).await;
        assert_eq!(r.status, status, "{uri}: {}", r.text());
        assert!(r.is_problem(), "{uri}: {}", r.text());
        assert_eq!(r.header(header::CACHE_CONTROL), "no-store", "{uri}");
    }
    let r = send_to(
        state(),
        Request::delete("/sites").body(Body::empty()).unwrap(),
    )
    .await;
    assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED);
    assert!(r.is_problem());
    assert!(r.header(header::ALLOW).contains("GET"));
}

#[tokio::test]
async fn a_bbox_crossing_the_antimeridian_is_two_boxes_not_an_error() {
    let count = |v: &Value| v["numberMatched"].as_u64().unwrap();
    let crossing = get_from(state(), "/collections/parcels/items?bbox=170,40,-70,50").await;
    assert_eq!(crossing.status, StatusCode::OK, "{}", crossing.text());
    let west = get_from(state(), "/collections/parcels/items?bbox=-180,40,-70,50").await;
    assert!(count(&west.json()) > 0);
    assert_eq!(count(&crossing.json()), count(&west.json()));
    // The demo (near -76°) lies outside 170°E → 80°W.
    let outside = get_from(state(), "/collections/parcels/items?bbox=170,40,-80,50").await;
    assert_eq!(count(&outside.json()), 0);
    // Latitudes the wrong way round are still an error.
    let bad = get_from(state(), "/collections/parcels/items?bbox=-77,44,-76,43").await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    assert!(bad.is_problem());
}

// ---------------------------------------------------------------- 4. headers and links

#[tokio::test]
async fn every_answer_is_nosniff_with_a_csp_and_only_successful_gets_are_cached() {
    let page = get_from(state(), "/index.html").await;
    assert_eq!(page.status, StatusCode::OK);
    let csp = page.header(header::CONTENT_SECURITY_POLICY);
    for part in [
        "frame-ancestors 'self'",
        "script-src 'self'",
        "worker-src 'self' blob:",
        "img-src 'self' data: blob:",
        "object-src 'none'",
    ] {
        assert!(csp.contains(part), "CSP lacks {part}: {csp}");
    }
    for uri in [
        "/index.html",
        "/sites",
        "/sites/NOPE/report",
        "/conformance",
    ] {
        let r = get_from(state(), uri).await;
        assert_eq!(r.header(header::X_CONTENT_TYPE_OPTIONS), "nosniff", "{uri}");
        assert!(
            !r.header(header::CONTENT_SECURITY_POLICY).is_empty(),
            "{uri}"
        );
        let cache = r.header(header::CACHE_CONTROL);
        if r.status.is_success() {
            assert_eq!(cache, "public, max-age=300", "{uri}");
        } else {
            assert_eq!(cache, "no-store", "{uri} {}", r.status);
        }
    }
}

#[tokio::test]
async fn links_come_from_the_public_url_never_from_the_host_header() {
    let st = state()
        .with_public_url("https://maps.example.org/outfall/")
        .expect("a valid public URL");
    let base = "https://maps.example.org/outfall";
    let evil = |uri: &str| {
        Request::get(uri)
            .header(header::HOST, "evil.example")
            .header("X-Forwarded-Host", "evil.example")
            .header(header::ACCEPT, "application/json")
            .body(Body::empty())
            .unwrap()
    };
    let mut hrefs = Vec::new();
    for uri in [
        "/?f=json",
        "/collections",
        "/collections/parcels",
        "/collections/parcels/items?limit=2&offset=2&bbox=-77,43,-76,44",
        "/collections/parcels/tiles/WebMercatorQuad",
    ] {
        let r = send_to(st.clone(), evil(uri)).await;
        assert_eq!(r.status, StatusCode::OK, "{uri}");
        assert!(!r.text().contains("evil"), "{uri} echoed the Host header");
        collect_hrefs(&r.json(), &mut hrefs);
    }
    assert!(hrefs.len() > 10);
    for h in &hrefs {
        assert!(h.starts_with(base), "{h}");
    }
    assert!(hrefs
        .iter()
        .any(|h| h.contains("/items?limit=2&offset=4&bbox=-77,43,-76,44")));
    assert!(state().with_public_url("javascript:alert(1)").is_err());
    assert!(state().with_public_url("maps.example.org").is_err());
}

fn collect_hrefs(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                match (k.as_str(), x) {
                    ("href", Value::String(s)) => out.push(s.clone()),
                    ("tiles", Value::Array(a)) => {
                        out.extend(a.iter().filter_map(|t| t.as_str().map(String::from)))
                    }
                    _ => collect_hrefs(x, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| collect_hrefs(x, out)),
        _ => {}
    }
}

// ---------------------------------------------------------------- 5. static files

#[tokio::test]
async fn only_the_viewers_files_and_the_maplibre_bundle_are_served() {
    for ok in [
        "/index.html",
        "/app.js",
        "/style.css",
        "/vendor/maplibre-gl/maplibre-gl.mjs",
        "/vendor/maplibre-gl/maplibre-gl.css",
    ] {
        let r = get_from(state(), ok).await;
        assert_eq!(r.status, StatusCode::OK, "{ok}");
    }
    for hidden in [
        "/node_modules/maplibre-gl/package.json",
        "/node_modules/maplibre-gl/dist/maplibre-gl.mjs",
        "/node_modules/.package-lock.json",
        "/package.json",
        "/package-lock.json",
        "/README.md",
        "/vendor/maplibre-gl/../package.json",
        "/vendor/maplibre-gl/%2e%2e/package.json",
    ] {
        let r = get_from(state(), hidden).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{hidden}");
        assert!(r.is_problem(), "{hidden}");
        assert!(!r.text().contains("\"version\""), "{hidden} leaked");
    }
}

// ---------------------------------------------------------------- 2, 3. real connections

struct Server {
    addr: SocketAddr,
    _rt: tokio::runtime::Runtime,
}

fn start(st: AppState, opts: ServeOptions) -> Server {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .expect("bind loopback");
    let addr = listener.local_addr().expect("address");
    rt.spawn(serve(listener, app(st), opts, std::future::pending()));
    Server { addr, _rt: rt }
}

fn opts(header_ms: u64, max_connections: usize) -> ServeOptions {
    ServeOptions {
        header_read_timeout: Duration::from_millis(header_ms),
        max_connections,
        ..Default::default()
    }
}

fn connect(addr: SocketAddr) -> TcpStream {
    let s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s
}

/// Everything the server sends until it closes (or the read times out).
fn read_all(s: &mut TcpStream) -> String {
    let mut out = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// One response's head and body (Content-Length framed), leaving the connection open.
fn read_response(s: &mut TcpStream) -> String {
    let mut out = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        let text = String::from_utf8_lossy(&out).to_string();
        if let Some(end) = text.find("\r\n\r\n") {
            let len = text[..end]
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                })
                .unwrap_or(0);
            if out.len() >= end + 4 + len {
                return text;
            }
        }
        match s.read(&mut buf) {
            Ok(0) | Err(_) => return text,
            Ok(n) => out.extend_from_slice(&buf[..n]),
        }
    }
}

/// Everything the server sends until it closes the connection. Waits for the close itself;
/// the 300 s bound only ends a hung run (far past any machine's load) and fails it.
fn read_until_closed(s: &mut TcpStream) -> String {
    s.set_read_timeout(Some(Duration::from_secs(300))).unwrap();
    let mut out = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::ConnectionAborted
                ) =>
            {
                break
            }
            Err(e) => panic!(
                "the server never closed the connection ({e}); received: {}",
                String::from_utf8_lossy(&out)
            ),
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Nothing has arrived on `s` yet and it is still open (a read right now would block).
fn nothing_yet(s: &mut TcpStream) -> bool {
    s.set_nonblocking(true).unwrap();
    let mut b = [0u8; 64];
    let r = s.read(&mut b);
    s.set_nonblocking(false).unwrap();
    matches!(r, Err(e) if e.kind() == std::io::ErrorKind::WouldBlock)
}

#[test]
fn a_client_slow_to_send_its_headers_is_disconnected() {
    // Headers that never end: the header timeout (0.3 s) closes the connection without an
    // answer. Asserted is the close, not when it came (a busy machine makes it later).
    let server = start(state(), opts(300, 64));
    let mut slow = connect(server.addr);
    slow.write_all(b"GET /sites HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .unwrap();
    let got = read_until_closed(&mut slow);
    assert!(!got.contains("200 OK"), "{got}");
    let more = slow.write_all(b"Accept: */*\r\n\r\n").and_then(|_| {
        let mut b = [0u8; 64];
        slow.read(&mut b)
    });
    assert!(
        matches!(more, Ok(0) | Err(_)),
        "the connection is still open"
    );
}

#[test]
fn headers_that_arrive_within_the_header_timeout_are_answered_and_others_served_meanwhile() {
    // The counterpart of the test above, with no clock in it: under a long header timeout a
    // request whose headers come in two parts is kept open (no answer, no close) while
    // another client is served, and answered once they are complete. So the connection
    // above was closed by its timeout, not for being slow or incomplete.
    let server = start(state(), opts(600_000, 64));
    let mut slow = connect(server.addr);
    slow.write_all(b"GET /conformance HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .unwrap();
    let mut normal = connect(server.addr);
    normal
        .write_all(b"GET /conformance HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .unwrap();
    assert!(read_until_closed(&mut normal).starts_with("HTTP/1.1 200"));
    assert!(
        nothing_yet(&mut slow),
        "the slow client was answered or closed early"
    );
    slow.write_all(b"Connection: close\r\n\r\n").unwrap();
    let got = read_until_closed(&mut slow);
    assert!(got.starts_with("HTTP/1.1 200"), "{got}");
}

#[test]
fn a_stalled_upload_gets_408_after_the_body_timeout() {
    let server = start(state().with_limits(limits(5_000, 300, 4)), opts(10_000, 64));
    let mut s = connect(server.addr);
    s.write_all(
        b"POST /check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/geo+json\r\nContent-Length: 1000\r\n\r\n{\"type\":",
    )
    .unwrap();
    let got = read_until_closed(&mut s);
    assert!(got.starts_with("HTTP/1.1 408"), "{got}");
    assert!(got.contains("application/problem+json"), "{got}");
    assert!(got.contains("did not arrive within 0.3 s"), "{got}");
}

#[test]
fn an_upload_that_arrives_within_the_body_timeout_is_checked() {
    // The counterpart of the 408, with no clock in it: under a long body timeout an upload
    // sent in two parts is waited for (no answer while another client is served) and then
    // checked. So the 408 above came from the timeout, not from a body arriving in parts.
    let server = start(
        state().with_limits(limits(600_000, 600_000, 4)),
        opts(600_000, 64),
    );
    let body = small_site();
    let (head, tail) = body.split_at(body.len() / 2);
    let mut s = connect(server.addr);
    write!(
        s,
        "POST /check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/geo+json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{head}",
        body.len()
    )
    .unwrap();
    let mut other = connect(server.addr);
    other
        .write_all(b"GET /conformance HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .unwrap();
    assert!(read_until_closed(&mut other).starts_with("HTTP/1.1 200"));
    assert!(
        nothing_yet(&mut s),
        "the upload was answered before it arrived"
    );
    s.write_all(tail.as_bytes()).unwrap();
    let got = read_until_closed(&mut s);
    assert!(got.starts_with("HTTP/1.1 200"), "{got}");
}

#[test]
fn past_the_connection_limit_a_client_waits_for_a_free_slot() {
    // A header timeout far past any load, so the two idle connections hold their slots.
    let server = start(state(), opts(600_000, 2));
    let first = connect(server.addr);
    let _second = connect(server.addr);
    let mut third = connect(server.addr);
    third
        .write_all(b"GET /conformance HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .unwrap();
    // Half a second in which a wrong server would answer; a slow machine can only make
    // this pass, never fail (nothing is timed).
    third
        .set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let mut b = [0u8; 64];
    let early = third.read(&mut b);
    assert!(
        matches!(&early, Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut)),
        "the third connection was served while two were open: {early:?}"
    );
    drop(first);
    third
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let got = read_response(&mut third);
    assert!(got.starts_with("HTTP/1.1 200"), "{got}");
}

#[test]
fn a_client_that_sends_64_mib_before_reading_reads_its_413() {
    let server = start(state(), opts(10_000, 64));
    let mut s = connect(server.addr);
    let size = 64 * 1024 * 1024;
    write!(
        s,
        "POST /check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/geo+json\r\nContent-Length: {size}\r\n\r\n"
    )
    .unwrap();
    let chunk = vec![b' '; 1024 * 1024];
    for _ in 0..64 {
        s.write_all(&chunk)
            .expect("the server reads the whole body, so writing it never fails");
    }
    let got = read_all(&mut s);
    assert!(got.starts_with("HTTP/1.1 413"), "{got}");
    assert!(got.contains("application/problem+json"));
    assert!(got.contains("2 MiB limit"), "{got}");
}

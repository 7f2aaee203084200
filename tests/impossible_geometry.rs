//! Geometry no real site can have is refused with a clear reason, never reported as an
//! impossible acreage: across the antimeridian, the whole world, far from the data, a swapped
//! outfall; and a large valid polygon is checked quickly with sane numbers.

mod common;

use outfall_core::load::parse_geojson;
use outfall_core::screening::check_drawn;
use outfall_core::Catalog;

fn demo() -> Catalog {
    Catalog::open(&common::demo_dir()).expect("demo loads")
}

fn polygon(coords: &str) -> Vec<outfall_core::load::Feature> {
    let text = format!(
        r#"{{"type":"Feature","properties":{{}},"geometry":{{"type":"Polygon","coordinates":[{coords}]}}}}"#
    );
    let (features, problems) = parse_geojson(&text, "upload").expect("parses");
    assert!(problems.is_empty(), "{problems:?}");
    features
}

/// Why the polygon is refused: by the reader (a polygon wider than 180° of longitude is
/// refused there since issue 22, as in a data layer) or by the check.
fn refusal(cat: &Catalog, coords: &str, outfall: Option<geo_types::Point<f64>>) -> String {
    let text = format!(
        r#"{{"type":"Feature","properties":{{}},"geometry":{{"type":"Polygon","coordinates":[{coords}]}}}}"#
    );
    let (features, problems) = parse_geojson(&text, "upload").expect("parses");
    if let Some(p) = problems.first() {
        return p.reason.clone();
    }
    match check_drawn(cat, "t", &features, outfall) {
        Ok(r) => panic!("accepted with {} acres", r.disturbance.total_acres),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_box_across_the_antimeridian_is_refused_not_measured_as_the_earth() {
    let cat = demo();
    let e = refusal(
        &cat,
        "[[179.9,43.1],[-179.9,43.1],[-179.9,43.2],[179.9,43.2],[179.9,43.1]]",
        None,
    );
    assert!(e.contains("antimeridian"), "{e}");
    let e = refusal(
        &cat,
        "[[-180,-90],[180,-90],[180,90],[-180,90],[-180,-90]]",
        None,
    );
    assert!(
        e.contains("antimeridian") || e.contains("wraps the world"),
        "{e}"
    );
}

#[test]
fn a_place_far_from_the_data_or_a_swapped_outfall_is_refused() {
    let cat = demo();
    let e = refusal(
        &cat,
        "[[10.0,50.0],[10.001,50.0],[10.001,50.001],[10.0,50.001],[10.0,50.0]]",
        None,
    );
    assert!(e.contains("km from the data set"), "{e}");
    let clay = "[[-76.18,43.16],[-76.179,43.16],[-76.179,43.161],[-76.18,43.161],[-76.18,43.16]]";
    let swapped = geo_types::Point::new(43.16, -76.18);
    let e = refusal(&cat, clay, Some(swapped));
    assert!(e.contains("outfall") && e.contains("swapped"), "{e}");
    assert!(check_drawn(
        &cat,
        "t",
        &polygon(clay),
        Some(geo_types::Point::new(-76.18, 43.16))
    )
    .is_ok());
}

#[test]
fn a_large_valid_star_is_checked_with_sane_numbers() {
    let cat = demo();
    let n = 10_000;
    let (cx, cy) = (-76.18f64, 43.16f64);
    let mut pts: Vec<String> = (0..n)
        .map(|i| {
            let a = std::f64::consts::TAU * i as f64 / n as f64;
            let r = if i % 2 == 0 { 0.0012 } else { 0.0006 };
            format!(
                "[{},{}]",
                cx + r * a.cos() / cy.to_radians().cos(),
                cy + r * a.sin()
            )
        })
        .collect();
    pts.push(pts[0].clone());
    let r = check_drawn(
        &cat,
        "star",
        &polygon(&format!("[{}]", pts.join(","))),
        None,
    )
    .expect("a valid star is a site");
    let d = &r.disturbance;
    assert!((d.total_acres - 6.92).abs() < 0.01, "{}", d.total_acres);
    assert!(d.outside_parcels_acres >= 0.0 && d.outside_parcels_acres <= d.total_acres);
    assert!((d.peak_acres - d.total_acres).abs() < 1e-9);
}

#[test]
fn a_position_with_one_number_is_a_problem_not_a_panic() {
    let text = r#"{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[[[-76.18],[-76.17,43.1],[-76.17,43.2],[-76.18,43.1]]]}}"#;
    match parse_geojson(text, "upload") {
        Ok((features, problems)) => {
            assert!(features.is_empty());
            assert!(!problems.is_empty());
        }
        Err(e) => assert!(e.to_string().contains("position"), "{e}"),
    }
}

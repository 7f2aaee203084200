//! The peak-at-one-time sweep on hand-checked phase tables.

use chrono::NaiveDate;
use geo_types::{polygon, Polygon};
use outfall_core::area::{area_acres, peak_at_one_time, union, Phase};

/// A square of about `acres` acres with its south-west corner `east_m` metres east of a point near Clay.
fn square(acres: f64, east_m: f64) -> Polygon<f64> {
    let side_m = (acres * 4046.8564224).sqrt();
    let (lon0, lat0): (f64, f64) = (-76.2, 43.15);
    let m_lon = 111_412.84 * lat0.to_radians().cos() - 93.5 * (3.0 * lat0.to_radians()).cos();
    let m_lat = 111_132.954 - 559.822 * (2.0 * lat0.to_radians()).cos();
    let (x0, x1) = (lon0 + east_m / m_lon, lon0 + (east_m + side_m) / m_lon);
    let (y0, y1) = (lat0, lat0 + side_m / m_lat);
    polygon![(x: x0, y: y0), (x: x1, y: y0), (x: x1, y: y1), (x: x0, y: y1)]
}

fn d(s: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").ok()
}

fn phase(name: &str, start: &str, end: &str, polys: Vec<Polygon<f64>>) -> Phase {
    Phase {
        name: name.into(),
        start: d(start),
        end: d(end),
        polygons: polys,
    }
}

#[test]
fn sequential_phases_peak_at_the_largest_single_phase() {
    // Total 9 ac, but never more than 4 at once.
    let phases = vec![
        phase("1", "2026-04-01", "2026-05-31", vec![square(3.0, 0.0)]),
        phase("2", "2026-06-01", "2026-07-31", vec![square(4.0, 500.0)]),
        phase("3", "2026-08-01", "2026-09-30", vec![square(2.0, 1000.0)]),
    ];
    let p = peak_at_one_time(&phases);
    assert!((p.acres - 4.0).abs() < 0.01, "{}", p.acres);
    assert_eq!(p.date, d("2026-06-01"));
    let total = area_acres(&union(phases.iter().flat_map(|p| &p.polygons)));
    assert!((total - 9.0).abs() < 0.02, "{total}");
}

#[test]
fn overlapping_windows_add_and_end_dates_are_inclusive() {
    // Phase 2 starts on the day phase 1 ends: both are open that day, so 3 + 4 = 7.
    let phases = vec![
        phase("1", "2026-04-01", "2026-06-01", vec![square(3.0, 0.0)]),
        phase("2", "2026-06-01", "2026-07-31", vec![square(4.0, 500.0)]),
        phase("3", "2026-07-01", "2026-09-30", vec![square(2.0, 1000.0)]),
    ];
    let p = peak_at_one_time(&phases);
    assert!((p.acres - 7.0).abs() < 0.01, "{}", p.acres);
    assert_eq!(p.date, d("2026-06-01"));
}

#[test]
fn ground_reused_by_two_active_phases_counts_once() {
    // Phase 2 re-disturbs the same 3 ac as phase 1 plus 1 ac more, while phase 1 is open.
    let a = square(3.0, 0.0);
    let phases = vec![
        phase("1", "2026-04-01", "2026-08-31", vec![a.clone()]),
        phase("2", "2026-05-01", "2026-06-30", vec![a, square(1.0, 300.0)]),
    ];
    let p = peak_at_one_time(&phases);
    assert!((p.acres - 4.0).abs() < 0.01, "{}", p.acres);
    assert_eq!(p.date, d("2026-05-01"));
}

#[test]
fn undated_phases_are_always_open() {
    let phases = vec![
        phase("mobilization", "", "", vec![square(1.0, 0.0)]),
        phase("1", "2026-04-01", "2026-04-30", vec![square(2.0, 300.0)]),
        phase("2", "2026-05-01", "2026-05-31", vec![square(3.0, 600.0)]),
    ];
    let p = peak_at_one_time(&phases);
    assert!((p.acres - 4.0).abs() < 0.01, "{}", p.acres);
    assert_eq!(p.date, d("2026-05-01"));
    let none = peak_at_one_time(&phases[..1]);
    assert!((none.acres - 1.0).abs() < 0.01 && none.date.is_none());
}

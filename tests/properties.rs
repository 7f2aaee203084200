//! Invariants of the acreage on random polygons and phase plans (proptest): the union is no
//! larger than the sum of its parts and no smaller than its largest part, the peak at one time
//! never exceeds the total, and the acres outside the parcels lie between 0 and the total.

mod common;

use chrono::{Days, NaiveDate};
use geo_types::{polygon, Geometry, Polygon};
use outfall_core::area::{self, Phase};
use outfall_core::load::Feature;
use outfall_core::screening::{check, Subject};
use outfall_core::Catalog;
use proptest::prelude::*;

/// A rectangle or a triangle of up to ~300 m near Clay, in lon/lat.
fn shape() -> impl Strategy<Value = Polygon<f64>> {
    (
        0.0..0.004f64,
        0.0..0.004f64,
        0.0002..0.004f64,
        0.0002..0.003f64,
        any::<bool>(),
    )
        .prop_map(|(x, y, w, h, tri)| {
            let (x, y) = (-76.2 + x, 43.15 + y);
            if tri {
                polygon![(x: x, y: y), (x: x + w, y: y), (x: x + w / 2.0, y: y + h)]
            } else {
                polygon![(x: x, y: y), (x: x + w, y: y), (x: x + w, y: y + h), (x: x, y: y + h)]
            }
        })
}

fn plan() -> impl Strategy<Value = Vec<Phase>> {
    prop::collection::vec((shape(), 0u64..200, 0u64..120, any::<bool>()), 1..12).prop_map(|v| {
        let day0 = NaiveDate::from_ymd_opt(2026, 1, 1).unwrap();
        v.into_iter()
            .enumerate()
            .map(|(i, (p, start, len, dated))| Phase {
                name: i.to_string(),
                start: dated.then(|| day0 + Days::new(start)),
                end: dated.then(|| day0 + Days::new(start + len)),
                polygons: vec![p],
            })
            .collect()
    })
}

/// How far the geodesic acres of two tilings of the same lon/lat shape may differ: an edge is
/// measured as a geodesic, which bows poleward of the straight lon/lat edge by an area of
/// about L³·tan(lat)/(12·R), and a union cuts edges where polygons cross (each piece then
/// bows less). A peak whose pieces keep their whole edges can so exceed a total built from
/// cut ones: a 236 m top edge cut by a triangle's tip at 43° N was 0.105 m² (2.6 ppm). Twice
/// the bow of every edge bounds it; a real error (an overlap counted twice) is whole acres.
fn bulge_acres(polys: &[&Polygon<f64>]) -> f64 {
    const R_M: f64 = 6371008.8;
    let bow_m2: f64 = polys
        .iter()
        .flat_map(|p| p.exterior().lines())
        .map(|l| {
            let lat = ((l.start.y + l.end.y) / 2.0).to_radians();
            let dx = (l.end.x - l.start.x).to_radians() * lat.cos() * R_M;
            let dy = (l.end.y - l.start.y).to_radians() * R_M;
            dx.hypot(dy).powi(3) * lat.tan().abs() / (12.0 * R_M)
        })
        .sum();
    2.0 * bow_m2 / area::SQ_M_PER_ACRE + 1e-9
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn union_lies_between_the_largest_part_and_the_sum(polys in prop::collection::vec(shape(), 1..15)) {
        let each: Vec<f64> = polys.iter().map(|p| area::area_acres(&geo_types::MultiPolygon(vec![p.clone()]))).collect();
        let u = area::area_acres(&area::union(&polys));
        let sum: f64 = each.iter().sum();
        let max = each.iter().cloned().fold(0.0, f64::max);
        prop_assert!(u <= sum * (1.0 + 1e-7) + 1e-9, "union {u} > sum {sum}");
        prop_assert!(u >= max * (1.0 - 1e-7) - 1e-9, "union {u} < largest {max}");
    }

    #[test]
    fn peak_at_one_time_never_exceeds_the_total(phases in plan()) {
        let all: Vec<&Polygon<f64>> = phases.iter().flat_map(|p| &p.polygons).collect();
        let total = area::area_acres(&area::union(all.iter().copied()));
        let peak = area::peak_at_one_time(&phases);
        let slack = bulge_acres(&all);
        prop_assert!(peak.acres <= total + slack, "peak {} > total {total} (slack {slack})", peak.acres);
        prop_assert!(peak.acres >= 0.0);
    }
}

#[test]
fn outside_parcels_is_between_zero_and_the_total() {
    // Random parcels and random sites on one catalog: the report's numbers obey the bounds.
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(60));
    let parcels: Vec<String> = (0..6)
        .map(|i| {
            let (x, y) = (-76.2 + (i % 3) as f64 * 0.0015, 43.15 + (i / 3) as f64 * 0.0015);
            format!(
                r#"{{"type":"Feature","properties":{{"PID":"P{i}"}},"geometry":{{"type":"Polygon","coordinates":[[[{x},{y}],[{},{y}],[{},{}],[{x},{}],[{x},{y}]]]}}}}"#,
                x + 0.0014, x + 0.0014, y + 0.0014, y + 0.0014
            )
        })
        .collect();
    let fc = format!(
        r#"{{"type":"FeatureCollection","features":[{}]}}"#,
        parcels.join(",")
    );
    let dir = common::dataset(
        "[[layer]]\nrole = \"parcels\"\npath = \"p.geojson\"\nid_field = \"PID\"\n",
        &[("p.geojson", fc.as_bytes())],
    );
    let cat = Catalog::open(dir.path()).unwrap();
    runner
        .run(&prop::collection::vec(shape(), 1..6), |polys| {
            let feats: Vec<Feature> = polys
                .into_iter()
                .enumerate()
                .map(|(i, p)| Feature {
                    id: i.to_string(),
                    geometry: Geometry::Polygon(p),
                    properties: Default::default(),
                })
                .collect();
            let r = check(
                &cat,
                &Subject::ad_hoc("p", &feats, None, &Default::default()),
            );
            let d = &r.disturbance;
            prop_assert!(d.outside_parcels_acres >= 0.0);
            prop_assert!(
                d.outside_parcels_acres <= d.total_acres + 1e-9,
                "{} > {}",
                d.outside_parcels_acres,
                d.total_acres
            );
            prop_assert!(d.peak_acres <= d.total_acres + 1e-9);
            Ok(())
        })
        .unwrap();
}

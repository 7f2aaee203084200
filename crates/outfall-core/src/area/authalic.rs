//! Polygon area on the WGS84 ellipsoid, fast, for polygons with short edges (parcels, sites).
//!
//! The ellipsoid is mapped onto the authalic sphere (same longitude, authalic latitude ξ), an
//! exact equal-area mapping, and the area is the spherical polygon's with great-circle edges,
//! taken as a fan of triangles from one vertex (Van Oosterom & Strackee's excess formula on
//! vertex differences, so small triangles keep their precision). Per vertex that is a sine,
//! an atanh, a square root and one sine/cosine pair; geographiclib solves a full inverse
//! geodesic per edge (~1 µs each), a third of the anchors' four site-check steps.
//!
//! The only difference from geodesic edges is the shape of each edge: the image of an
//! ellipsoidal geodesic bends off the great circle by about e²·L²/(8R), and those bends do not
//! quite cancel around a polygon, so the error grows with edge length. Against an exact
//! reference (each edge densified along the geodesic, the fan taken in 40-digit arithmetic)
//! on 46 of the anchors' site unions it was within 9.2e-8 relative with edges up to 0.01°
//! (the largest on a 15-vertex 11.9-acre site with ~300 m edges; typically 1e-9 to 5e-9),
//! while geographiclib, referencing every edge to the equator, was up to 1.4e-6 off on a
//! 20 m² site. Edges longer than [`MAX_EDGE_DEG`] get their bend back exactly: geographiclib's
//! area under that one geodesic, less the area under its great-circle arc (one inverse
//! geodesic per long edge; a ring with one long edge used to go wholly to geographiclib, and
//! those rings were the slowest tenth of the site checks). It is within 8.5e-8 of
//! geographiclib on all 6,269 Bellingham parcels and 1.9e-8 on California's 303(d) water
//! polygons (`tests/acreage_real.rs`), and 1e-10 on a one-degree square. Polygons under
//! [`SMALL_M2`] also go to geographiclib: there its digit loss exceeds this method's error,
//! and pyproj (the anchors' reference, the same algorithm) loses the same digits, so the
//! anchors' 1e-6 agreement check keeps comparing like with like.

use geo::GeodesicArea;
use geo_types::{Coord, LineString, Polygon};

/// WGS84 semi-major axis (m) and flattening.
const A_M: f64 = 6_378_137.0;
const F: f64 = 1.0 / 298.257_223_563;

/// Edges spanning more than this in latitude or longitude (about 220 m north–south) get their
/// geodesic bend added back. Polygons beyond ±85° latitude (the authalic latitude loses digits
/// near the poles) or with an edge over 90° of longitude go to geographiclib.
pub const MAX_EDGE_DEG: f64 = 0.002;
/// Polygons smaller than this (about a quarter acre) are measured by geographiclib.
pub const SMALL_M2: f64 = 1_000.0;
const MAX_LAT_DEG: f64 = 85.0;

struct Authalic {
    e: f64,
    e2: f64,
    /// q at the pole: sin ξ = q(φ) / qp.
    qp: f64,
    /// Authalic radius squared (m²).
    r2: f64,
}

impl Authalic {
    fn wgs84() -> Authalic {
        let e2 = F * (2.0 - F);
        let e = e2.sqrt();
        let qp = 1.0 + (1.0 - e2) / e * e.atanh();
        Authalic {
            e,
            e2,
            qp,
            r2: A_M * A_M / 2.0 * qp,
        }
    }

    /// The authalic latitude ξ (radians) of a geodetic latitude in degrees.
    fn xi(&self, lat_deg: f64) -> f64 {
        let s = lat_deg.to_radians().sin();
        let q = (1.0 - self.e2) * (s / (1.0 - self.e2 * s * s) + atanh_small(self.e * s) / self.e);
        (q / self.qp).clamp(-1.0, 1.0).asin()
    }

    /// How much the area under a long edge (steradians, between the edge and the equator)
    /// grows because the edge is a geodesic: the area between the geodesic and the equator
    /// (geographiclib's S12), less the same under the great-circle arc on the authalic
    /// sphere, which maps the ellipsoid area for area, meridians to meridians and the
    /// equator to itself. So one inverse geodesic per long edge, not one per edge.
    fn bend(&self, a: Coord<f64>, b: Coord<f64>) -> f64 {
        use geographiclib_rs::{Geodesic, InverseGeodesic};
        static WGS84: std::sync::LazyLock<Geodesic> = std::sync::LazyLock::new(Geodesic::wgs84);
        let (_, _, _, _, _, _, s12_m2, _): (f64, f64, f64, f64, f64, f64, f64, f64) =
            WGS84.inverse(a.y, a.x, b.y, b.x);
        let (t1, t2) = ((self.xi(a.y) / 2.0).tan(), (self.xi(b.y) / 2.0).tan());
        let half_dl = (b.x - a.x).to_radians() / 2.0;
        let under_arc = 2.0 * (half_dl.tan() * (t1 + t2) / (1.0 + t1 * t2)).atan();
        s12_m2 / self.r2 - under_arc
    }

    /// The unit vector of (lon, lat) on the authalic sphere, longitude taken from `lon0` so
    /// the vectors of a small polygon stay close to (1, 0, z).
    fn unit(&self, lon_deg: f64, lat_deg: f64, lon0_deg: f64) -> [f64; 3] {
        let s = lat_deg.to_radians().sin();
        let q = (1.0 - self.e2) * (s / (1.0 - self.e2 * s * s) + atanh_small(self.e * s) / self.e);
        let sin_xi = (q / self.qp).clamp(-1.0, 1.0);
        let cos_xi = ((1.0 - sin_xi) * (1.0 + sin_xi)).sqrt();
        let (sl, cl) = (lon_deg - lon0_deg).to_radians().sin_cos();
        [cos_xi * cl, cos_xi * sl, sin_xi]
    }
}

/// atanh(x) for |x| ≤ e ≈ 0.082 by its series x + x³/3 + x⁵/5 + …, to x¹⁹/19: the next term
/// is below 1e-20 of x there, and a series is several times cheaper than `log1p`.
fn atanh_small(x: f64) -> f64 {
    let y = x * x;
    let mut sum = 1.0 / 19.0;
    for k in (0..9).rev() {
        sum = sum * y + 1.0 / (2 * k + 1) as f64;
    }
    x * sum
}

/// 2·atan(num/den) for den > 0, as `2 * num.atan2(den)`: by the series x − x³/3 + x⁵/5 − x⁷/7
/// when |x| ≤ 1e-3 (the next term is under 1e-24 of x), as it is for every triangle of a
/// site-sized ring, and by `atan2` otherwise.
fn twice_atan2(num: f64, den: f64) -> f64 {
    if den > 0.0 && num.abs() <= 1e-3 * den {
        let x = num / den;
        let y = x * x;
        2.0 * x * (1.0 - y * (1.0 / 3.0 - y * (1.0 / 5.0 - y / 7.0)))
    } else {
        2.0 * num.atan2(den)
    }
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// The ring is away from the poles and its edges span under 90° of longitude.
fn suits(ring: &LineString<f64>) -> bool {
    ring.0.iter().all(|c| c.y.abs() <= MAX_LAT_DEG)
        && ring.lines().all(|l| (l.end.x - l.start.x).abs() < 90.0)
}

/// An edge long enough that its geodesic's bend off the great circle counts.
fn is_long(a: Coord<f64>, b: Coord<f64>) -> bool {
    (b.x - a.x).abs() > MAX_EDGE_DEG || (b.y - a.y).abs() > MAX_EDGE_DEG
}

/// Signed spherical excess of a ring (counter-clockwise positive), fanned from `apex`.
fn ring_excess(au: &Authalic, ring: &LineString<f64>, apex: [f64; 3], lon0: f64) -> f64 {
    let mut sum = 0.0;
    let mut prev: Option<([f64; 3], Coord<f64>)> = None;
    for c in &ring.0 {
        let v = au.unit(c.x, c.y, lon0);
        if let Some((b, bc)) = prev {
            // a·(b×c) = a·((b−a)×(c−a)): the differences are small and exact enough.
            let num = dot(apex, cross(sub(b, apex), sub(v, apex)));
            let den = 1.0 + dot(apex, b) + dot(b, v) + dot(v, apex);
            sum += twice_atan2(num, den);
            if is_long(bc, *c) {
                // Areas under edges sum to minus the area of a counter-clockwise ring.
                sum -= au.bend(bc, *c);
            }
        }
        prev = Some((v, *c));
    }
    sum
}

/// The polygon's area in m² (exterior less holes, whatever the rings' directions), as geo's
/// `geodesic_area_unsigned` gives it.
pub fn polygon_area_m2(p: &Polygon<f64>) -> f64 {
    let rings = || std::iter::once(p.exterior()).chain(p.interiors());
    let Some(first) = p.exterior().0.first() else {
        return 0.0;
    };
    // Signed, not oriented and unsigned: a sliver an overlay leaves (1e-11° wide) can be
    // counter-clockwise to geo's planar `orient` and clockwise to geographiclib, which then
    // measured the rest of the Earth, 1.26e11 acres. Signed areas stay within half the
    // Earth, which no site or water comes near.
    let geographiclib = || p.geodesic_area_signed().abs();
    if !rings().all(suits) {
        return geographiclib();
    }
    let au = Authalic::wgs84();
    let apex = au.unit(first.x, first.y, first.x);
    let area = |r: &LineString<f64>| (ring_excess(&au, r, apex, first.x) * au.r2).abs();
    let holes: f64 = p.interiors().iter().map(area).sum();
    let m2 = (area(p.exterior()) - holes).abs();
    if m2 < SMALL_M2 {
        return geographiclib();
    }
    m2
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo_types::{polygon, Coord};

    fn rel(p: &Polygon<f64>) -> f64 {
        let g = p.geodesic_area_unsigned();
        (polygon_area_m2(p) - g).abs() / g
    }

    /// A square `side_deg` on a side (in latitude; longitude scaled) at `lat`, with `n`
    /// vertices per side so its edges stay short.
    fn square(lon: f64, lat: f64, side_deg: f64, n: usize) -> Polygon<f64> {
        let w = side_deg / lat.to_radians().cos();
        let mut pts = Vec::new();
        let corners = [(0.0, 0.0), (w, 0.0), (w, side_deg), (0.0, side_deg)];
        for k in 0..4 {
            let (a, b) = (corners[k], corners[(k + 1) % 4]);
            for i in 0..n {
                let t = i as f64 / n as f64;
                pts.push(Coord {
                    x: lon + a.0 + (b.0 - a.0) * t,
                    y: lat + a.1 + (b.1 - a.1) * t,
                });
            }
        }
        Polygon::new(LineString::from(pts), vec![])
    }

    /// A sliver of an overlay's output (a star less the parcels it crosses, in the Town of
    /// Clay): planar and geodesic orientation disagree on it.
    #[test]
    fn a_sliver_is_never_the_rest_of_the_earth() {
        let sliver = polygon![
            (x: -76.20564572690404, y: 43.16056968711235),
            (x: -76.20564702446922, y: 43.160569437183206),
            (x: -76.20564702445466, y: 43.1605694371541),
            (x: -76.20564572688949, y: 43.160569687068694),
        ];
        let mut reversed = sliver.clone();
        reversed.exterior_mut(|r| r.0.reverse());
        for p in [sliver, reversed] {
            let m2 = polygon_area_m2(&p);
            assert!((0.0..1e-3).contains(&m2), "{m2} m²");
        }
    }

    #[test]
    fn parcel_sized_polygons_agree_with_geographiclib() {
        for lat in [-40.0, 0.0, 35.9, 42.1, 60.0, 80.0] {
            // 100 m and 1 km squares, one edge per side and ten.
            for (side, n) in [(0.0009, 1), (0.009, 1), (0.009, 10)] {
                let p = square(-79.1, lat, side, n);
                assert!(rel(&p) < 1e-9, "lat {lat} side {side}: {:e}", rel(&p));
            }
        }
    }

    #[test]
    fn long_single_edges_agree_with_geographiclib() {
        // One edge per side, 1 to 50 km: each edge's geodesic bend is added back.
        for lat in [-40.0, 0.0, 35.9, 60.0, 80.0] {
            for side in [0.009, 0.09, 0.45] {
                let p = square(-122.8, lat, side, 1);
                assert!(rel(&p) < 1e-9, "lat {lat} side {side}: {:e}", rel(&p));
                let mut cw = p.clone();
                cw.exterior_mut(|r| r.0.reverse());
                let g = p.geodesic_area_unsigned();
                let cw_rel = (polygon_area_m2(&cw) - g).abs() / g;
                assert!(
                    cw_rel < 1e-9,
                    "clockwise, lat {lat} side {side}: {cw_rel:e}"
                );
            }
        }
    }

    #[test]
    fn a_ten_km_square_of_short_edges_agrees() {
        let p = square(-122.8, 38.2, 0.09, 100);
        assert!(rel(&p) < 1e-8, "{:e}", rel(&p));
    }

    #[test]
    fn holes_subtract_and_direction_does_not_matter() {
        let outer = square(-71.47, 42.08, 0.002, 4);
        let hole = square(-71.4695, 42.0805, 0.0005, 2);
        let with_hole = Polygon::new(outer.exterior().clone(), vec![hole.exterior().clone()]);
        let expected = polygon_area_m2(&outer) - polygon_area_m2(&hole);
        assert!((polygon_area_m2(&with_hole) - expected).abs() < 1e-6);
        assert!(rel(&with_hole) < 1e-9, "{:e}", rel(&with_hole));
        let mut cw = outer.clone();
        cw.exterior_mut(|r| r.0.reverse());
        assert!((polygon_area_m2(&cw) - polygon_area_m2(&outer)).abs() < 1e-6);
    }

    #[test]
    fn small_polygons_are_measured_by_geographiclib() {
        let p = square(-79.1, 35.9, 0.0002, 1);
        assert!(p.geodesic_area_unsigned() < SMALL_M2);
        assert_eq!(polygon_area_m2(&p), p.geodesic_area_unsigned());
    }

    #[test]
    fn degree_long_edges_agree_with_geographiclib() {
        // One degree on a side: the bends are large, and each is added back.
        let p =
            polygon![(x: 0.0, y: 40.0), (x: 1.0, y: 40.0), (x: 1.0, y: 41.0), (x: 0.0, y: 41.0)];
        assert!(rel(&p) < 1e-10, "{:e}", rel(&p));
    }
}

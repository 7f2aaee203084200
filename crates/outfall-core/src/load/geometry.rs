//! Each feature's geometry checked (empty, non-finite, not lon/lat, invalid polygon) and
//! oriented, once, at load.

use super::valid;
use geo_types::Geometry;

/// Checks and orients a WGS84 geometry. The reason names what is wrong in plain words.
pub(crate) fn check_geometry(geom: Geometry<f64>) -> std::result::Result<Geometry<f64>, String> {
    use geo::CoordsIter;
    // One pass: empty, non-finite and out-of-range coordinates; rings are read as slices
    // (geo's coordinate iterator was a tenth of a parcel layer's load).
    let mut scan = CoordScan::default();
    match &geom {
        Geometry::Polygon(p) => scan.polygon(p),
        Geometry::MultiPolygon(mp) => mp.0.iter().for_each(|p| scan.polygon(p)),
        Geometry::LineString(l) => scan.slice(&l.0),
        g => g.coords_iter().for_each(|c| scan.slice(&[c])),
    }
    if let Some(c) = scan.non_finite {
        return Err(format!("non-finite coordinate ({}, {})", c.x, c.y));
    }
    let CoordScan {
        count,
        min_x,
        max_x,
        max_y,
        out_of_range,
        ..
    } = scan;
    if count == 0 {
        return Err("empty geometry".into());
    }
    if out_of_range {
        return Err(format!(
            "coordinates ({max_x:.1}, {max_y:.1}) are not longitude/latitude; is the CRS right? (set `crs` in the manifest)"
        ));
    }
    // A polygon wider than half the world is drawn across ±180° (or wraps the world):
    // measured as given, its area is the rest of the Earth. Uploads are refused the same way.
    let polygonal = matches!(geom, Geometry::Polygon(_) | Geometry::MultiPolygon(_));
    if polygonal && max_x - min_x > 180.0 {
        return Err(format!(
            "spans {:.1}° of longitude, so it crosses the antimeridian or wraps the world; split it at ±180° or check its coordinates",
            max_x - min_x
        ));
    }
    // Oriented, and with no spare capacity: a layer keeps its coordinates for its lifetime.
    let geom = match geom {
        Geometry::Polygon(p) => Geometry::Polygon(exact(p)),
        Geometry::MultiPolygon(mp) => Geometry::MultiPolygon(geo_types::MultiPolygon(
            mp.0.into_iter().map(exact).collect(),
        )),
        Geometry::LineString(mut l) => {
            l.0.shrink_to_fit();
            Geometry::LineString(l)
        }
        Geometry::MultiLineString(mut ml) => {
            ml.0.iter_mut().for_each(|l| l.0.shrink_to_fit());
            ml.0.shrink_to_fit();
            Geometry::MultiLineString(ml)
        }
        g => g,
    };
    let polys: &[geo_types::Polygon<f64>] = match &geom {
        Geometry::Polygon(p) => std::slice::from_ref(p),
        Geometry::MultiPolygon(mp) => &mp.0,
        _ => &[],
    };
    for (i, p) in polys.iter().enumerate() {
        if let Some(reason) = valid::polygon_problem(p) {
            let part = if polys.len() > 1 {
                format!(" (part {})", i + 1)
            } else {
                String::new()
            };
            return Err(format!("invalid polygon{part}: {reason}"));
        }
    }
    match &geom {
        Geometry::LineString(l) if l.0.len() < 2 => {
            return Err("line with fewer than 2 points".into())
        }
        _ => {}
    }
    Ok(geom)
}

/// What `check_geometry` learns in its one pass over the coordinates.
struct CoordScan {
    count: usize,
    min_x: f64,
    max_x: f64,
    max_y: f64,
    out_of_range: bool,
    /// The first non-finite coordinate.
    non_finite: Option<geo_types::Coord<f64>>,
}

impl Default for CoordScan {
    fn default() -> Self {
        CoordScan {
            count: 0,
            min_x: f64::INFINITY,
            max_x: f64::NEG_INFINITY,
            max_y: f64::NEG_INFINITY,
            out_of_range: false,
            non_finite: None,
        }
    }
}

impl CoordScan {
    fn polygon(&mut self, p: &geo_types::Polygon<f64>) {
        self.slice(&p.exterior().0);
        p.interiors().iter().for_each(|r| self.slice(&r.0));
    }

    fn slice(&mut self, coords: &[geo_types::Coord<f64>]) {
        if self.non_finite.is_some() {
            return;
        }
        for c in coords {
            if !c.x.is_finite() || !c.y.is_finite() {
                self.non_finite = Some(*c);
                return;
            }
            self.min_x = self.min_x.min(c.x);
            self.max_x = self.max_x.max(c.x);
            self.max_y = self.max_y.max(c.y);
            self.out_of_range |= c.x < -180.0 || c.x > 180.0 || c.y < -90.0 || c.y > 90.0;
        }
        self.count += coords.len();
    }
}

/// The polygon oriented as geo's `orient(Direction::Default)` leaves it (exterior
/// counter-clockwise, holes clockwise, a ring of no winding as it was), in place rather than
/// cloned, with each ring's vector exactly as long as the ring.
fn exact(p: geo_types::Polygon<f64>) -> geo_types::Polygon<f64> {
    use geo::Winding;
    let (mut exterior, mut interiors) = p.into_inner();
    exterior.make_ccw_winding();
    exterior.0.shrink_to_fit();
    for r in &mut interiors {
        r.make_cw_winding();
        r.0.shrink_to_fit();
    }
    interiors.shrink_to_fit();
    geo_types::Polygon::new(exterior, interiors)
}

#[cfg(test)]
mod orient_tests {
    use geo::orient::{Direction, Orient};
    use geo_types::{polygon, Geometry, MultiPolygon};

    /// Oriented in place, a layer's polygons come out exactly as geo's `orient` gives them:
    /// either winding in, exterior counter-clockwise and holes clockwise out.
    #[test]
    fn polygons_are_oriented_as_geo_orients_them() {
        let cw_with_ccw_hole = polygon!(
            exterior: [(x: 0., y: 0.), (x: 0., y: 1.), (x: 1., y: 1.), (x: 1., y: 0.)],
            interiors: [[(x: 0.2, y: 0.2), (x: 0.4, y: 0.2), (x: 0.4, y: 0.4), (x: 0.2, y: 0.4)]]
        );
        let ccw = polygon![(x: 2., y: 0.), (x: 3., y: 0.), (x: 3., y: 1.), (x: 2., y: 1.)];
        for g in [
            Geometry::Polygon(cw_with_ccw_hole.clone()),
            Geometry::Polygon(ccw.clone()),
            Geometry::MultiPolygon(MultiPolygon(vec![cw_with_ccw_hole.clone(), ccw.clone()])),
        ] {
            let want = match &g {
                Geometry::Polygon(p) => Geometry::Polygon(p.orient(Direction::Default)),
                Geometry::MultiPolygon(p) => Geometry::MultiPolygon(p.orient(Direction::Default)),
                _ => unreachable!(),
            };
            assert_eq!(super::check_geometry(g.clone()), Ok(want));
        }
        let not_lonlat = polygon![(x: 500000., y: 4700000.), (x: 500100., y: 4700000.), (x: 500100., y: 4700100.)];
        let err = super::check_geometry(Geometry::Polygon(not_lonlat)).unwrap_err();
        assert!(
            err.contains("(500100.0, 4700100.0) are not longitude/latitude"),
            "{err}"
        );
        let mut hole_nan = cw_with_ccw_hole.clone();
        hole_nan.interiors_push(geo_types::LineString::from(vec![
            (0.5, 0.5),
            (0.6, f64::NAN),
            (f64::INFINITY, 0.6),
            (0.5, 0.5),
        ]));
        let err = super::check_geometry(Geometry::Polygon(hole_nan)).unwrap_err();
        assert_eq!(err, "non-finite coordinate (0.6, NaN)");
        // Issue 22, attack 11: a polygon across ±180° is refused naming its span.
        let wide = polygon![(x: 179.9, y: 43.0), (x: -179.9, y: 43.0), (x: -179.9, y: 43.1), (x: 179.9, y: 43.1)];
        let err = super::check_geometry(Geometry::Polygon(wide)).unwrap_err();
        assert!(
            err.starts_with("spans 359.8° of longitude, so it crosses the antimeridian"),
            "{err}"
        );
        let empty = Geometry::MultiPolygon(MultiPolygon(vec![]));
        assert_eq!(super::check_geometry(empty).unwrap_err(), "empty geometry");
        assert_ne!(
            super::check_geometry(Geometry::Polygon(cw_with_ccw_hole.clone())),
            Ok(Geometry::Polygon(cw_with_ccw_hole)),
            "the clockwise exterior must be turned"
        );
    }
}

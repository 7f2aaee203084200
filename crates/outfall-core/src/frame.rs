//! The view a report is shown in, the same on screen and on paper: the site, the applicant's
//! outfall point, the reach the discharge enters and the path down to the first impaired
//! water. Framing the site alone shows the stream next to it, which is not the receiving water
//! when an outfall point sends the discharge elsewhere.

use crate::catalog::Catalog;
use crate::config::Role;
use crate::report::Reach;
use geo::{BoundingRect, Closest, ClosestPoint};
use geo_types::{Geometry, Point, Polygon, Rect};
use serde::Serialize;

/// Without an impaired water downstream, the path is framed this far (a mile, Condition A's
/// default reach) so the view stays near the site.
const PATH_WITHOUT_LISTING_M: f64 = 1609.344;

/// What a map of the report shows beyond the site itself.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Frame {
    /// [min lon, min lat, max lon, max lat] of the site, the outfall, the entry reach and the
    /// path up to the first impaired water.
    pub bbox: Option<[f64; 4]>,
    /// From the site's nearest edge to the applicant's outfall point (lon/lat pairs).
    pub outfall_path: Option<[[f64; 2]; 2]>,
}

/// The downstream reaches a map of the report draws: up to and including the reach where the
/// path meets the first impaired water (`first_impaired_reach`), or the first mile when none
/// is listed.
pub fn framed_reaches<'a>(
    downstream: &'a [Reach],
    first_impaired_reach: Option<&str>,
) -> &'a [Reach] {
    let end = match first_impaired_reach.and_then(|id| downstream.iter().position(|r| r.id == id)) {
        Some(i) => i + 1,
        None => downstream
            .iter()
            .position(|r| r.distance_m > PATH_WITHOUT_LISTING_M)
            .unwrap_or(downstream.len())
            .max(1)
            .min(downstream.len()),
    };
    &downstream[..end]
}

/// The frame of one report. `site_bbox` is the footprint's; `polygons` are the site's, for
/// the start of the path to the outfall.
pub fn frame(
    catalog: &Catalog,
    site_bbox: Option<[f64; 4]>,
    polygons: &[&Polygon<f64>],
    outfall: Option<Point<f64>>,
    entry_reach: Option<&str>,
    downstream: &[Reach],
    first_impaired_reach: Option<&str>,
) -> Frame {
    let mut rects: Vec<Rect<f64>> = Vec::new();
    if let Some(b) = site_bbox {
        rects.push(Rect::new((b[0], b[1]), (b[2], b[3])));
    }
    if let Some(p) = outfall {
        rects.push(Rect::new(p.0, p.0));
    }
    let reaches = entry_reach.into_iter().chain(
        framed_reaches(downstream, first_impaired_reach)
            .iter()
            .map(|r| r.id.as_str()),
    );
    for id in reaches {
        rects.extend(reach_rect(catalog, id));
    }
    let bbox = rects
        .into_iter()
        .reduce(union)
        .map(|r| [r.min().x, r.min().y, r.max().x, r.max().y]);
    let outfall_path = outfall.and_then(|p| {
        let start = nearest_edge(polygons, p)?;
        Some([[start.x(), start.y()], [p.x(), p.y()]])
    });
    Frame { bbox, outfall_path }
}

fn reach_rect(catalog: &Catalog, id: &str) -> Option<Rect<f64>> {
    catalog
        .layers_of(Role::Flowlines)
        .find_map(|l| l.position(id).map(|i| &l.features[i].geometry))
        .and_then(Geometry::bounding_rect)
}

fn union(a: Rect<f64>, b: Rect<f64>) -> Rect<f64> {
    Rect::new(
        (a.min().x.min(b.min().x), a.min().y.min(b.min().y)),
        (a.max().x.max(b.max().x), a.max().y.max(b.max().y)),
    )
}

/// The point of the site nearest the outfall (the outfall itself when it lies inside).
/// Planar in degrees: over a site's few hundred metres the distortion cannot change which
/// edge is nearest enough to matter on a map.
fn nearest_edge(polygons: &[&Polygon<f64>], outfall: Point<f64>) -> Option<Point<f64>> {
    let mut best: Option<(f64, Point<f64>)> = None;
    for poly in polygons {
        let p = match poly.closest_point(&outfall) {
            Closest::Intersection(p) | Closest::SinglePoint(p) => p,
            Closest::Indeterminate => continue,
        };
        let d = (p.x() - outfall.x()).hypot(p.y() - outfall.y());
        if best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, p));
        }
    }
    best.map(|(_, p)| p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reach(id: &str, distance_m: f64) -> Reach {
        Reach {
            id: id.into(),
            name: id.into(),
            length_m: 500.0,
            distance_m,
            impaired: false,
            causes: vec![],
            impaired_ids: vec![],
            name_source: None,
            nhd_name: None,
            segment: None,
            assessment: "not assessed",
        }
    }

    #[test]
    fn the_path_is_framed_down_to_the_first_impaired_reach() {
        let path = [reach("R1", 0.0), reach("R2", 500.0), reach("R3", 4000.0)];
        let ids: Vec<_> = framed_reaches(&path, Some("R3"))
            .iter()
            .map(|r| r.id.as_str())
            .collect();
        assert_eq!(ids, ["R1", "R2", "R3"]);
        // Without a listing: the first mile only.
        let ids: Vec<_> = framed_reaches(&path, None)
            .iter()
            .map(|r| r.id.as_str())
            .collect();
        assert_eq!(ids, ["R1", "R2"]);
        assert!(framed_reaches(&[], None).is_empty());
    }

    #[test]
    fn the_outfall_path_starts_at_the_sites_nearest_edge() {
        let square = Polygon::new(
            geo_types::LineString::from(vec![
                (0.0, 0.0),
                (1.0, 0.0),
                (1.0, 1.0),
                (0.0, 1.0),
                (0.0, 0.0),
            ]),
            vec![],
        );
        let p = nearest_edge(&[&square], Point::new(3.0, 0.5)).unwrap();
        assert_eq!((p.x(), p.y()), (1.0, 0.5));
        assert!(nearest_edge(&[], Point::new(3.0, 0.5)).is_none());
    }
}

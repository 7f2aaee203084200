//! The union of a site's polygons, so that overlaps count once, and the part of one
//! area outside another: only polygons whose envelopes meet are handed to i_overlay.
//!
//! i_overlay is called directly, at 9.x, rather than through geo's `BooleanOps` (which
//! pins 4.5): one 4.5 call cannot be interrupted and ran 36 s to minutes on two
//! overlapping 9,000-vertex stars, or one 20,000-vertex star against a square, where 9.1
//! takes 0.9 s and 4.3 s. With the upload's vertex cap that bounds a check's one
//! uninterruptible step (`scripts/attack.sh`, attack 10).

use geo::orient::{Direction, Orient};
use geo_types::{Coord, LineString, MultiPolygon, Polygon};

/// Union of polygons. Polygons are grouped by overlapping envelopes and only groups of two
/// or more are unioned: a single valid polygon needs no union, and i_overlay's cost grows
/// steeply with vertex count (a valid 10,000-vertex star took minutes). Rings are oriented
/// on the way in: one fill rule serves every ring, and mixed directions give wrong unions.
pub fn union<'a>(polys: impl IntoIterator<Item = &'a Polygon<f64>>) -> MultiPolygon<f64> {
    let polys: Vec<&Polygon<f64>> = polys.into_iter().collect();
    let mut out = Vec::with_capacity(polys.len());
    for group in overlapping_groups(&polys) {
        // Spent: the caller's next step answers the deadline error, never this union.
        if crate::budget::spent() {
            break;
        }
        if let [one] = group.as_slice() {
            out.push(polys[*one].orient(Direction::Default));
        } else {
            out.extend(overlay_union(group.iter().map(|&i| polys[i])));
        }
    }
    MultiPolygon(out)
}

/// i_overlay's union under the positive fill rule, as geo's `unary_union` calls it, but with
/// each ring copied once, already in the direction that rule needs (exterior
/// counter-clockwise, holes clockwise), rather than oriented, cloned and converted in turn
/// (those copies were a fifth of the union). Output: exteriors counter-clockwise.
pub(super) fn overlay_union<'a>(
    polys: impl Iterator<Item = &'a Polygon<f64>>,
) -> Vec<Polygon<f64>> {
    use i_overlay::core::{fill_rule::FillRule, overlay_rule::OverlayRule};
    use i_overlay::float::overlay::{FloatOverlay, OverlayOptions};
    /// Unions up to this many vertices reuse their thread's overlay, so that what it keeps
    /// between calls stays small.
    const REUSED_UP_TO: usize = 4096;
    thread_local! {
        // A site's union is small and i_overlay's working storage is most of its cost
        // beyond the sweep: refilled rather than allocated anew, the same overlay with the
        // same adapter (`reinit_with_subj` scales as `with_subj_custom` does) gives the same
        // shapes.
        static OVERLAY: std::cell::RefCell<FloatOverlay<[f64; 2]>> = std::cell::RefCell::new(
            FloatOverlay::new_empty(OverlayOptions::ogc(), Default::default(), 0),
        );
    }
    let paths = paths_of(polys);
    let rule = (OverlayRule::Subject, FillRule::Positive);
    let fresh = |paths: &Vec<Vec<[f64; 2]>>| {
        FloatOverlay::with_subj_custom(paths, OverlayOptions::ogc(), Default::default())
            .overlay(rule.0, rule.1)
    };
    let shapes = if paths.iter().map(Vec::len).sum::<usize>() <= REUSED_UP_TO {
        OVERLAY.with(|cell| match cell.try_borrow_mut() {
            Ok(mut overlay) => {
                overlay.reinit_with_subj(&paths);
                overlay.overlay(rule.0, rule.1)
            }
            Err(_) => fresh(&paths),
        })
    } else {
        fresh(&paths)
    };
    polygons_from(shapes)
}

/// The parts of `a` outside `b` (each may overlap itself: the positive fill rule counts
/// a point once however many of its polygons hold it).
pub(super) fn overlay_difference(a: &[Polygon<f64>], b: &[Polygon<f64>]) -> Vec<Polygon<f64>> {
    use i_overlay::core::{fill_rule::FillRule, overlay_rule::OverlayRule};
    use i_overlay::float::overlay::{FloatOverlay, OverlayOptions};
    let (subj, clip) = (paths_of(a.iter()), paths_of(b.iter()));
    let shapes = FloatOverlay::with_subj_and_clip_custom(
        &subj,
        &clip,
        OverlayOptions::ogc(),
        Default::default(),
    )
    .overlay(OverlayRule::Difference, FillRule::Positive);
    polygons_from(shapes)
}

/// Every ring of the polygons as an i_overlay path, in the directions the positive fill
/// rule needs.
fn paths_of<'a>(polys: impl Iterator<Item = &'a Polygon<f64>>) -> Vec<Vec<[f64; 2]>> {
    let mut paths: Vec<Vec<[f64; 2]>> = Vec::new();
    for p in polys {
        paths.push(ring_path(p.exterior(), true));
        paths.extend(p.interiors().iter().map(|r| ring_path(r, false)));
    }
    paths.retain(|p| !p.is_empty());
    paths
}

/// i_overlay's shapes (outer path first, then holes) as closed polygons.
fn polygons_from(shapes: Vec<Vec<Vec<[f64; 2]>>>) -> Vec<Polygon<f64>> {
    shapes
        .into_iter()
        .map(|shape| {
            let mut rings = shape.into_iter().map(|path| {
                let mut ring = LineString(path.into_iter().map(|[x, y]| Coord { x, y }).collect());
                ring.close();
                ring
            });
            let exterior = rings.next().unwrap_or_else(|| LineString(Vec::new()));
            Polygon::new(exterior, rings.collect())
        })
        .collect()
}

/// A ring as an i_overlay path: without the closing vertex (its paths close implicitly),
/// counter-clockwise when `ccw`, else clockwise.
fn ring_path(ring: &LineString<f64>, ccw: bool) -> Vec<[f64; 2]> {
    let open = &ring.0[..ring.0.len().saturating_sub(1)];
    let mut path: Vec<[f64; 2]> = open.iter().map(|c| [c.x, c.y]).collect();
    // Twice the signed area (shoelace), positive counter-clockwise.
    let twice_area: f64 = ring
        .lines()
        .map(|l| l.start.x * l.end.y - l.end.x * l.start.y)
        .sum();
    if (twice_area > 0.0) != ccw {
        path.reverse();
    }
    path
}

/// Indices of polygons grouped so that polygons whose envelopes meet (directly or through
/// others) share a group, in order of their first member. Union-find over the pairs whose
/// envelopes meet: every pair for a few polygons (a site's handful), an R-tree beyond.
pub(super) fn overlapping_groups(polys: &[&Polygon<f64>]) -> Vec<Vec<usize>> {
    use geo::BoundingRect;
    use rstar::primitives::{GeomWithData, Rectangle};
    use rstar::{Envelope, RTreeObject};
    let rects: Vec<Option<Rectangle<[f64; 2]>>> = polys
        .iter()
        .map(|p| {
            p.bounding_rect()
                .map(|r| Rectangle::from_corners([r.min().x, r.min().y], [r.max().x, r.max().y]))
        })
        .collect();
    let mut parent: Vec<usize> = (0..polys.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut join = |i: usize, j: usize| {
        let (a, b) = (root(&mut parent, i), root(&mut parent, j));
        if a != b {
            parent[a.max(b)] = a.min(b);
        }
    };
    const PAIRWISE_UP_TO: usize = 16;
    if polys.len() <= PAIRWISE_UP_TO {
        for (i, a) in rects.iter().enumerate() {
            for (j, b) in rects.iter().enumerate().skip(i + 1) {
                if let (Some(a), Some(b)) = (a, b) {
                    if a.envelope().intersects(&b.envelope()) {
                        join(i, j);
                    }
                }
            }
        }
    } else {
        let tree = rstar::RTree::bulk_load(
            rects
                .iter()
                .enumerate()
                .filter_map(|(i, r)| r.map(|r| GeomWithData::new(r, i)))
                .collect(),
        );
        for (i, r) in rects.iter().enumerate() {
            let Some(r) = r else { continue };
            for other in tree.locate_in_envelope_intersecting(&r.envelope()) {
                join(i, other.data);
            }
        }
    }
    let mut groups: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for i in 0..polys.len() {
        let r = root(&mut parent, i);
        groups.entry(r).or_default().push(i);
    }
    groups.into_values().collect()
}

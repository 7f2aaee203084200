//! Polygon validity in O(n log n): ring self-intersections and crossing rings found with an
//! R-tree of segments. geo's `Validation` compares every segment pair, which took seconds on
//! real parcel layers with thousand-vertex road polygons.

use geo::line_intersection::{line_intersection, LineIntersection};
use geo::{Contains, RemoveRepeatedPoints};
use geo_types::{Line, LineString, Polygon};
use rstar::primitives::GeomWithData;
use rstar::RTree;

type Segment = GeomWithData<Line<f64>, (usize, usize)>;

/// Each segment's extent on x then y, and its index: (x0, x1, y0, y1, i).
type Span = (f64, f64, f64, f64, usize);

fn spans(segments: &[Segment]) -> Vec<Span> {
    segments
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let l = s.geom();
            (
                l.start.x.min(l.end.x),
                l.start.x.max(l.end.x),
                l.start.y.min(l.end.y),
                l.start.y.max(l.end.y),
                i,
            )
        })
        .collect()
}

/// Whether the sweep for bad pairs goes along x (else y): along the axis on which the
/// segments overlap least (the sum of their extents over the polygon's). A parcel's long
/// edges span most of it on one axis, and the sweep visits every segment that starts under
/// a long edge: on the Bellingham parcels, 1.68M pairs along the chosen axis against 3.87M
/// along x.
fn sweep_along_x(spans: &[Span]) -> bool {
    let (mut sum_x, mut sum_y) = (0.0, 0.0);
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    for &(x0, x1, y0, y1, _) in spans {
        sum_x += x1 - x0;
        sum_y += y1 - y0;
        lo = [lo[0].min(x0), lo[1].min(y0)];
        hi = [hi[0].max(x1), hi[1].max(y1)];
    }
    // Compared as cross products, so that a zero extent needs no division.
    sum_x * (hi[1] - lo[1]) <= sum_y * (hi[0] - lo[0])
}

/// Whether any two segments meet badly: segments sorted by their least coordinate along the
/// axis [`sweep_along_x`] chooses, each compared with those that start before it ends (on
/// that axis) and overlap it on the other.
fn any_bad_pair(segments: &[Segment], seg_counts: &[usize]) -> bool {
    // Sorted and compared as (along, along, across, across, i).
    let mut order = spans(segments);
    if !sweep_along_x(&order) {
        for s in &mut order {
            *s = (s.2, s.3, s.0, s.1, s.4);
        }
    }
    // Any order of equal starts finds a bad pair if there is one (the tree then names it).
    order.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
    for (k, &(_, a1, ao0, ao1, i)) in order.iter().enumerate() {
        for &(b0, _, bo0, bo1, j) in &order[k + 1..] {
            if b0 > a1 {
                break;
            }
            if bo0 > ao1 || ao0 > bo1 {
                continue;
            }
            // The pair in ring order, as the tree compares it.
            let (a, b) = if i < j {
                (&segments[i], &segments[j])
            } else {
                (&segments[j], &segments[i])
            };
            if is_bad(a, b, seg_counts) {
                return true;
            }
        }
    }
    false
}

/// Whether two segments of a polygon's rings meet where they must not: a ring crossing or
/// touching itself away from its neighbours, overlapping itself, or two rings crossing.
fn is_bad(a: &Segment, b: &Segment, seg_counts: &[usize]) -> bool {
    let ((ra, sa), (rb, sb)) = (a.data, b.data);
    let n = seg_counts[ra];
    let adjacent = ra == rb && (sb == sa + 1 || (sa == 0 && sb == n - 1));
    if adjacent {
        // Neighbours share a vertex, and most pairs a sweep meets are neighbours: they meet
        // badly only when they fold back over each other, which needs the robust predicate
        // to call them collinear, and then their directions' dot product, whose two terms
        // share a sign, is exact in sign.
        let (first, second) = if sb == sa + 1 { (a, b) } else { (b, a) };
        let (p, q, r) = (first.geom().start, first.geom().end, second.geom().end);
        if second.geom().start == q {
            use geo::kernels::{Kernel, Orientation, RobustKernel};
            if RobustKernel::orient2d(p, q, r) != Orientation::Collinear {
                return false;
            }
            return (q.x - p.x) * (r.x - q.x) + (q.y - p.y) * (r.y - q.y) < 0.0;
        }
    }
    let Some(hit) = line_intersection(*a.geom(), *b.geom()) else {
        return false;
    };
    match hit {
        LineIntersection::Collinear { intersection } => intersection.start != intersection.end,
        LineIntersection::SinglePoint { is_proper, .. } => {
            if ra == rb {
                !adjacent
            } else {
                is_proper
            }
        }
    }
}

/// The first reason the polygon is invalid, or None.
pub(crate) fn polygon_problem(p: &Polygon<f64>) -> Option<String> {
    // Copied only when it has repeated points to remove, which few real polygons have.
    let repeats = |r: &LineString<f64>| r.0.windows(2).any(|w| w[0] == w[1]);
    let deduped;
    let p = if repeats(p.exterior()) || p.interiors().iter().any(repeats) {
        deduped = p.remove_repeated_points();
        &deduped
    } else {
        p
    };
    let rings: Vec<&LineString<f64>> = std::iter::once(p.exterior()).chain(p.interiors()).collect();
    for (i, r) in rings.iter().enumerate() {
        if r.0.len() < 4 {
            let which = if i == 0 {
                "exterior ring".to_string()
            } else {
                format!("hole {i}")
            };
            return Some(format!("{which} has fewer than 4 distinct positions"));
        }
    }
    let seg_counts: Vec<usize> = rings.iter().map(|r| r.0.len() - 1).collect();
    let segments: Vec<Segment> = rings
        .iter()
        .enumerate()
        .flat_map(|(ri, r)| {
            r.lines()
                .enumerate()
                .map(move |(si, l)| GeomWithData::new(l, (ri, si)))
        })
        .collect();
    // A sweep along x finds most polygons valid sooner than building a tree. Any bad pair
    // sends the polygon to the tree, which names the same first one it always has.
    let clearly_valid = !any_bad_pair(&segments, &seg_counts);
    if !clearly_valid {
        if let Some(reason) = first_crossing(segments, &seg_counts) {
            return Some(reason);
        }
    }
    if p.interiors().is_empty() {
        return None;
    }
    let outer = Polygon::new(p.exterior().clone(), vec![]);
    for (i, hole) in p.interiors().iter().enumerate() {
        if !hole.0.iter().any(|c| outer.contains(c)) {
            return Some(format!("hole {} lies outside the exterior ring", i + 1));
        }
    }
    None
}

/// The first bad pair of segments as the R-tree meets them, described.
fn first_crossing(segments: Vec<Segment>, seg_counts: &[usize]) -> Option<String> {
    let tree = RTree::bulk_load(segments);
    for a in tree.iter() {
        let env = rstar::RTreeObject::envelope(a.geom());
        for b in tree.locate_in_envelope_intersecting(&env) {
            let ((ra, sa), (rb, sb)) = (a.data, b.data);
            if (rb, sb) <= (ra, sa) || !is_bad(a, b, seg_counts) {
                continue;
            }
            let at = a.geom().start;
            return Some(if ra == rb {
                format!(
                    "{} has a self-intersection near ({:.6}, {:.6})",
                    if ra == 0 {
                        "exterior ring".to_string()
                    } else {
                        format!("hole {ra}")
                    },
                    at.x,
                    at.y
                )
            } else {
                format!("rings {ra} and {rb} cross near ({:.6}, {:.6})", at.x, at.y)
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo_types::polygon;

    /// A comb of tall teeth is swept along x, and the same comb turned on its side along y;
    /// either way a valid comb is valid and a crossing tooth is found.
    #[test]
    fn the_sweep_finds_crossings_along_either_axis() {
        let comb = |cross: bool| {
            let mut pts = vec![(0.0, 0.0), (20.0, 0.0)];
            for i in (0..20).rev() {
                let x = i as f64;
                pts.push((x + 1.0, 1.0));
                pts.push((x + 0.5, 10.0));
            }
            if cross {
                // One tooth's tip pulled past its neighbour's: the two teeth cross.
                pts[5].0 -= 1.5;
            }
            pts.push((0.0, 1.0));
            pts
        };
        let polygon = |pts: &[(f64, f64)], turned: bool| {
            let pts: Vec<(f64, f64)> = pts
                .iter()
                .map(|&(x, y)| if turned { (y, x) } else { (x, y) })
                .collect();
            Polygon::new(LineString::from(pts), vec![])
        };
        let segments = |p: &Polygon<f64>| -> Vec<Segment> {
            p.exterior()
                .lines()
                .enumerate()
                .map(|(i, l)| GeomWithData::new(l, (0, i)))
                .collect()
        };
        for turned in [false, true] {
            let good = polygon(&comb(false), turned);
            assert_eq!(sweep_along_x(&spans(&segments(&good))), !turned);
            assert_eq!(polygon_problem(&good), None, "turned {turned}");
            let bad = polygon(&comb(true), turned);
            let reason = polygon_problem(&bad).expect("the crossing teeth");
            assert!(reason.contains("self-intersection"), "{reason}");
        }
    }

    #[test]
    fn finds_bowties_and_accepts_squares_with_holes() {
        let ok = polygon!(
            exterior: [(x: 0., y: 0.), (x: 10., y: 0.), (x: 10., y: 10.), (x: 0., y: 10.)],
            interiors: [[(x: 2., y: 2.), (x: 4., y: 2.), (x: 4., y: 4.), (x: 2., y: 4.)]]
        );
        assert_eq!(polygon_problem(&ok), None);
        let bowtie = polygon![(x: 0., y: 0.), (x: 1., y: 1.), (x: 1., y: 0.), (x: 0., y: 1.)];
        assert!(polygon_problem(&bowtie)
            .unwrap()
            .contains("self-intersection"));
        let crossing = polygon!(
            exterior: [(x: 0., y: 0.), (x: 10., y: 0.), (x: 10., y: 10.), (x: 0., y: 10.)],
            interiors: [[(x: 8., y: 2.), (x: 12., y: 2.), (x: 12., y: 4.), (x: 8., y: 4.)]]
        );
        assert!(polygon_problem(&crossing).unwrap().contains("cross"));
        let outside = polygon!(
            exterior: [(x: 0., y: 0.), (x: 10., y: 0.), (x: 10., y: 10.), (x: 0., y: 10.)],
            interiors: [[(x: 20., y: 2.), (x: 22., y: 2.), (x: 22., y: 4.), (x: 20., y: 4.)]]
        );
        assert!(polygon_problem(&outside).unwrap().contains("outside"));
        let spike = polygon![(x: 0., y: 0.), (x: 10., y: 0.), (x: 10., y: 10.), (x: 10., y: 5.), (x: 0., y: 10.)];
        assert!(polygon_problem(&spike).is_some());
        // A fold at the closing vertex, where the last segment and the first are neighbours.
        let fold_at_close = polygon![(x: 0., y: 0.), (x: 10., y: 0.), (x: 10., y: 10.), (x: 0., y: 10.), (x: 0., y: -5.)];
        assert!(polygon_problem(&fold_at_close).is_some());
        // Collinear neighbours that carry on, and a repeated vertex, are fine.
        let straight = polygon![(x: 0., y: 0.), (x: 5., y: 0.), (x: 10., y: 0.), (x: 10., y: 10.), (x: 10., y: 10.), (x: 0., y: 10.)];
        assert_eq!(polygon_problem(&straight), None);
    }

    /// The neighbours' shortcut in `is_bad` against the intersection it replaces, on every
    /// pair of segments of small rings on a coarse grid, where collinear and folding
    /// neighbours are common.
    #[test]
    fn the_neighbours_shortcut_agrees_with_the_intersection() {
        use proptest::prelude::*;
        use proptest::test_runner::{Config, TestRunner};
        fn by_intersection(a: &Segment, b: &Segment, seg_counts: &[usize]) -> bool {
            let ((ra, sa), (rb, sb)) = (a.data, b.data);
            let Some(hit) = line_intersection(*a.geom(), *b.geom()) else {
                return false;
            };
            let n = seg_counts[ra];
            let adjacent = ra == rb && (sb == sa + 1 || (sa == 0 && sb == n - 1));
            match hit {
                LineIntersection::Collinear { intersection } => {
                    intersection.start != intersection.end
                }
                LineIntersection::SinglePoint { is_proper, .. } => {
                    if ra == rb {
                        !adjacent
                    } else {
                        is_proper
                    }
                }
            }
        }
        let ring = prop::collection::vec((0i32..4, 0i32..4), 3..8);
        let mut runner = TestRunner::new(Config::with_cases(4000));
        let folds = std::cell::Cell::new(0usize);
        runner
            .run(&ring, |pts| {
                let mut pts: Vec<(f64, f64)> = pts
                    .iter()
                    .map(|&(x, y)| (x as f64 * 0.5, y as f64 * 0.25))
                    .collect();
                pts.dedup();
                if pts.len() > 1 && pts[0] == pts[pts.len() - 1] {
                    pts.pop();
                }
                prop_assume!(pts.len() >= 3);
                let r = LineString::from(pts);
                let p = Polygon::new(r, vec![]);
                let n = p.exterior().0.len() - 1;
                let segments: Vec<Segment> = p
                    .exterior()
                    .lines()
                    .enumerate()
                    .map(|(si, l)| GeomWithData::new(l, (0, si)))
                    .collect();
                for i in 0..n {
                    for j in i + 1..n {
                        let (a, b) = (&segments[i], &segments[j]);
                        let want = by_intersection(a, b, &[n]);
                        folds.set(
                            folds.get()
                                + usize::from(want && (j == i + 1 || (i == 0 && j == n - 1))),
                        );
                        prop_assert_eq!(is_bad(a, b, &[n]), want, "segments {} and {}", i, j);
                    }
                }
                Ok(())
            })
            .unwrap();
        let folds = folds.get();
        assert!(folds > 100, "the rings had too few folds to test: {folds}");
    }
}

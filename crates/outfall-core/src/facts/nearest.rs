//! The distance from a site to the waters around it, fast: the site is prepared once (projected
//! to metres, its boundary segments and vertices indexed), then the waters are visited nearest
//! bounding box first, and the exact distance is computed only for those that can still be
//! among the nearest. The exact distance is the same minimum of point-to-segment distances
//! that `geo`'s `Euclidean` distance takes, so the answers do not change; only the work does
//! (a 6,844-vertex site took 415 ms with geo's pairwise distance to every water in range).

use crate::measure::LocalFrame;
use geo::{BoundingRect, Distance, Euclidean, Intersects};
use geo_types::{Coord, Geometry, Line, LineString, Point, Polygon, Rect};
use rstar::primitives::{GeomWithData, Rectangle};
use rstar::{RTree, AABB};

/// A site's footprint (or an outfall point) in a local metric frame, ready for many distances.
pub struct PreparedProbe {
    pub frame: LocalFrame,
    /// The probe in metres.
    pub geometry: Geometry<f64>,
    /// Its bounding box in metres.
    pub rect_m: Rect<f64>,
    /// Polygon probes: every ring's segments and vertices, indexed. `None` for other shapes,
    /// which use geo's distance directly.
    rings: Option<RingIndex>,
}

struct RingIndex {
    /// The probe's bounding box in metres: a point or segment clear of it is clear of the
    /// probe, and its distance to the box bounds its distance to the probe from below.
    rect_m: Rect<f64>,
    segments: Segments,
}

/// Below this many segments the probe is scanned: building its two R-trees cost more than
/// they saved (a quarter of the anchors' four steps for a median site).
const INDEX_FROM_SEGMENTS: usize = 64;

/// Consecutive ring segments per R-tree entry. Neighbours along a boundary lie near each
/// other, so a run's box stays tight, and the tree has a sixteenth of the entries to build
/// (building one entry per segment and per vertex was a fifth of the four steps).
const RUN: usize = 16;

/// The polygons of a probe in metres (none for a point or line probe): the index keeps
/// only segments, and these are read in place for containment rather than copied.
fn polygons_of(g: &Geometry<f64>) -> &[Polygon<f64>] {
    match g {
        Geometry::Polygon(p) => std::slice::from_ref(p),
        Geometry::MultiPolygon(mp) => &mp.0,
        _ => &[],
    }
}

/// The probe's ring segments (whose starts are every vertex, rings being closed), scanned
/// or indexed by runs.
enum Segments {
    Scan(Vec<Line<f64>>),
    Runs {
        lines: Vec<Line<f64>>,
        runs: RTree<GeomWithData<Rectangle<[f64; 2]>, usize>>,
    },
}

impl PreparedProbe {
    pub fn new(probe: &Geometry<f64>, frame: LocalFrame) -> Option<PreparedProbe> {
        let geometry = frame.project(probe);
        let rect_m = geometry.bounding_rect()?;
        let polygons = polygons_of(&geometry);
        let rings = (!polygons.is_empty()).then(|| {
            let lines: Vec<Line<f64>> = polygons
                .iter()
                .flat_map(|p| std::iter::once(p.exterior()).chain(p.interiors()))
                .flat_map(|r| r.lines())
                .collect();
            let segments = if lines.len() < INDEX_FROM_SEGMENTS {
                Segments::Scan(lines)
            } else {
                Segments::runs(lines)
            };
            RingIndex { rect_m, segments }
        });
        Some(PreparedProbe {
            frame,
            geometry,
            rect_m,
            rings,
        })
    }

    /// A lower bound of the distance to a water whose lon/lat bounding box is `rect`: the gap
    /// between the two boxes in metres (the frame is linear per axis, so boxes map to boxes).
    pub fn lower_bound_m(&self, rect: Rect<f64>) -> f64 {
        let a = self.frame.to_m(rect.min());
        let b = self.frame.to_m(rect.max());
        let gap = |lo: f64, hi: f64, lo2: f64, hi2: f64| (lo2 - hi).max(lo - hi2).max(0.0);
        let dx = gap(self.rect_m.min().x, self.rect_m.max().x, a.x, b.x);
        let dy = gap(self.rect_m.min().y, self.rect_m.max().y, a.y, b.y);
        dx.hypot(dy)
    }

    /// The exact planar distance in metres from the probe to a lon/lat geometry when it is
    /// at most `bound_m`, else `None`. A water that cannot be among the nearest is given up
    /// as soon as that is certain: the bound prunes its segments from the start, where an
    /// unbounded measure first finds its own best (for a large site, most of the check).
    pub fn distance_within_m(&self, target: &Geometry<f64>, bound_m: f64) -> Option<f64> {
        let within = |d: f64| (d <= bound_m).then_some(d);
        if let Some(r) = &self.rings {
            // Lines (every flowline) are projected into this thread's buffers rather than
            // copied as a new geometry: most waters measured are lines, twenty per check.
            // A little above the bound, so that a distance equal to it is still measured.
            let seed = bound_m * (1.0 + 1e-9) + 1e-9;
            let polygons = polygons_of(&self.geometry);
            if let Some(d) = SCRATCH
                .with(|s| r.line_distance(polygons, target, &self.frame, seed, &mut s.borrow_mut()))
            {
                return within(d);
            }
        }
        let target_m = self.frame.project(target);
        within(
            self.rings
                .as_ref()
                .and_then(|r| r.distance(polygons_of(&self.geometry), &target_m))
                .unwrap_or_else(|| Euclidean.distance(&self.geometry, &target_m)),
        )
    }
}

/// Reused buffers of one thread's distances.
#[derive(Default)]
struct Scratch {
    /// The target's vertices in metres, line after line.
    coords: Vec<Coord<f64>>,
    /// Where each line ends in `coords`.
    ends: Vec<usize>,
    by_box: Vec<(f64, Coord<f64>)>,
    near: Vec<Coord<f64>>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
}

/// A target in metres, as the distance reads it: its lines as runs of vertices, its
/// polygons (for containment) and its points.
struct Target<'a> {
    coords: &'a [Coord<f64>],
    ends: &'a [usize],
    polygons: &'a [&'a Polygon<f64>],
    points: &'a [Coord<f64>],
    bbox: Option<Rect<f64>>,
}

impl Target<'_> {
    fn lines(&self) -> impl Iterator<Item = &[Coord<f64>]> + '_ {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(self.ends.iter().copied())
            .map(|(a, b)| &self.coords[a..b])
    }
}

fn segments(line: &[Coord<f64>]) -> impl Iterator<Item = Line<f64>> + '_ {
    line.windows(2).map(|w| Line::new(w[0], w[1]))
}

impl RingIndex {
    /// The distance to a LineString or MultiLineString, projected into `s`, or `seed` when
    /// it is no less (see [`Self::measure`]); `None` for other shapes.
    fn line_distance(
        &self,
        polygons: &[Polygon<f64>],
        target: &Geometry<f64>,
        frame: &LocalFrame,
        seed: f64,
        s: &mut Scratch,
    ) -> Option<f64> {
        match target {
            Geometry::LineString(l) => {
                Some(self.line_distance_of(polygons, std::iter::once(l), frame, seed, s))
            }
            Geometry::MultiLineString(ml) => {
                Some(self.line_distance_of(polygons, ml.iter(), frame, seed, s))
            }
            _ => None,
        }
    }

    fn line_distance_of<'a>(
        &self,
        polygons: &[Polygon<f64>],
        lines: impl Iterator<Item = &'a LineString<f64>>,
        frame: &LocalFrame,
        seed: f64,
        s: &mut Scratch,
    ) -> f64 {
        let Scratch {
            coords,
            ends,
            by_box,
            near,
        } = s;
        coords.clear();
        ends.clear();
        for l in lines {
            coords.extend(l.0.iter().map(|c| frame.to_m(*c)));
            ends.push(coords.len());
        }
        let bbox = bounds(coords);
        let t = Target {
            coords,
            ends,
            polygons: &[],
            points: &[],
            bbox,
        };
        self.measure(polygons, &t, seed, by_box, near)
    }

    /// `None` when the target's shape is one geo should measure.
    fn distance(&self, polygons: &[Polygon<f64>], target: &Geometry<f64>) -> Option<f64> {
        let mut lines: Vec<&LineString<f64>> = Vec::new();
        let mut target_polygons: Vec<&Polygon<f64>> = Vec::new();
        let mut points: Vec<Coord<f64>> = Vec::new();
        if !collect(target, &mut lines, &mut target_polygons, &mut points) {
            return None;
        }
        let mut coords = Vec::new();
        let mut ends = Vec::new();
        for l in &lines {
            coords.extend_from_slice(&l.0);
            ends.push(coords.len());
        }
        let t = Target {
            coords: &coords,
            ends: &ends,
            polygons: &target_polygons,
            points: &points,
            bbox: target.bounding_rect(),
        };
        Some(self.measure(
            polygons,
            &t,
            f64::INFINITY,
            &mut Vec::new(),
            &mut Vec::new(),
        ))
    }

    /// geo's distance from the probe to a target in metres: 0 when they meet, else the
    /// least distance between a vertex of one and a segment of the other; `seed` when that
    /// is no less (only what can beat the best so far is measured, and the best starts there).
    fn measure(
        &self,
        polygons: &[Polygon<f64>],
        t: &Target,
        seed: f64,
        by_box: &mut Vec<(f64, Coord<f64>)>,
        near: &mut Vec<Coord<f64>>,
    ) -> f64 {
        if self.meets(polygons, t) {
            return 0.0;
        }
        // Apart: the nearest pair of segments has an end point of one at its nearest to the
        // other. Target vertices to the probe's segments, through the index, then the probe's
        // vertices that can still beat that, to the target's segments.
        let best = self.reach_from_target_vertices(t, seed, by_box);
        self.reach_from_probe_vertices(t, best, near)
    }

    /// Whether the probe and the target meet (touching or crossing boundaries, or one inside
    /// the other), as geo's `intersects`.
    fn meets(&self, polygons: &[Polygon<f64>], t: &Target) -> bool {
        // Loops over each line's segments rather than one flattened iterator, which did not
        // compile to a plain loop and cost a twentieth of the check.
        let r = self.rect_m;
        for line in t.lines() {
            for seg in segments(line) {
                let (lo, hi) = (seg.start, seg.end);
                if lo.x.max(hi.x) < r.min().x
                    || lo.x.min(hi.x) > r.max().x
                    || lo.y.max(hi.y) < r.min().y
                    || lo.y.min(hi.y) > r.max().y
                {
                    continue;
                }
                if self.segments.any_meets(&seg) {
                    return true;
                }
            }
        }
        // No boundary meets: each target line lies wholly inside or outside the probe, and
        // the probe wholly inside or outside each target polygon, so one vertex decides.
        let firsts = t.lines().filter_map(|l| l.first()).chain(t.points);
        for c in firsts {
            if self.clear_of_box2(*c) == 0.0 && polygons.iter().any(|p| p.intersects(c)) {
                return true;
            }
        }
        for first in polygons.iter().filter_map(|p| p.exterior().0.first()) {
            if t.polygons.iter().any(|p| p.intersects(first)) {
                return true;
            }
        }
        false
    }

    /// The least distance from a target vertex to the probe's segments, if below `seed`
    /// (else `seed`): the first half of the nearest pair of segments of two shapes apart.
    fn reach_from_target_vertices(
        &self,
        t: &Target,
        seed: f64,
        by_box: &mut Vec<(f64, Coord<f64>)>,
    ) -> f64 {
        // Nearest the probe's box first: the first few set a best that the box distance of
        // the rest then beats, so most vertices are never measured against every segment
        // (that product was most of the anchors' check).
        by_box.clear();
        let reach2 = seed * seed * (1.0 + 1e-9);
        for c in t.coords.iter().chain(t.points) {
            let box2 = self.clear_of_box2(*c);
            if box2 <= reach2 {
                by_box.push((box2, *c));
            }
        }
        // The vertex nearest the box seeds the best, so only the few that can still beat it
        // are sorted (sorting every vertex of a long flowline cost more than measuring).
        let mut best = seed;
        if let Some(&(_, c)) = by_box.iter().min_by(|a, b| a.0.total_cmp(&b.0)) {
            best = self.segments.nearest_within(c, best);
            if best.is_finite() {
                by_box.retain(|(box2, _)| *box2 <= best * best * (1.0 + 1e-9));
            }
        }
        by_box.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
        for &(box2, c) in by_box.iter() {
            // A vertex farther from the probe's box than the best so far cannot beat it, nor
            // can any after it (a little slack for rounding, so the minimum stays geo's own).
            if box2 > best * best * (1.0 + 1e-9) {
                break;
            }
            best = self.segments.nearest_within(c, best);
        }
        best
    }

    /// The least of `best` and the distances from the probe's vertices to the target's
    /// segments: the second half of the nearest pair.
    fn reach_from_probe_vertices(
        &self,
        t: &Target,
        mut best: f64,
        near: &mut Vec<Coord<f64>>,
    ) -> f64 {
        let Some(bbox) = t.bbox else {
            return best;
        };
        let env = AABB::from_corners(
            [bbox.min().x - best, bbox.min().y - best],
            [bbox.max().x + best, bbox.max().y + best],
        );
        near.clear();
        self.segments.vertices_in(&env, near);
        // Squared distances filter; geo's exact distance is taken only where one can win
        // (with a little slack for rounding), so the minimum is geo's own value.
        let mut best2 = best * best * (1.0 + 1e-9);
        for line in t.lines() {
            for seg in segments(line) {
                // Every probe vertex lies in the probe's box, so a segment whose own box is
                // farther from it than the best cannot win: along a long flowline that is
                // nearly every segment, and the segment-by-vertex product was most of this
                // distance.
                if self.box_gap2(&seg) > best2 * (1.0 + 1e-6) {
                    continue;
                }
                for p in near.iter() {
                    if segment_distance2(*p, &seg) <= best2 {
                        best = best.min(Euclidean.distance(&seg, &Point(*p)));
                        best2 = best * best * (1.0 + 1e-9);
                    }
                }
            }
        }
        best
    }
}

/// The bounding box of some coordinates (`None` for none).
fn bounds(coords: &[Coord<f64>]) -> Option<Rect<f64>> {
    let first = *coords.first()?;
    let (lo, hi) = coords.iter().fold((first, first), |(lo, hi), c| {
        (
            Coord {
                x: lo.x.min(c.x),
                y: lo.y.min(c.y),
            },
            Coord {
                x: hi.x.max(c.x),
                y: hi.y.max(c.y),
            },
        )
    });
    Some(Rect::new(lo, hi))
}

impl Segments {
    fn runs(lines: Vec<Line<f64>>) -> Segments {
        let runs = lines
            .chunks(RUN)
            .enumerate()
            .map(|(i, run)| {
                let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
                for c in run.iter().flat_map(|l| [l.start, l.end]) {
                    lo = [lo[0].min(c.x), lo[1].min(c.y)];
                    hi = [hi[0].max(c.x), hi[1].max(c.y)];
                }
                GeomWithData::new(Rectangle::from_corners(lo, hi), i * RUN)
            })
            .collect();
        Segments::Runs {
            runs: RTree::bulk_load(runs),
            lines,
        }
    }

    /// Some probe segment meets `seg` (geo's `intersects`).
    fn any_meets(&self, seg: &Line<f64>) -> bool {
        match self {
            Segments::Scan(lines) => lines.iter().any(|s| s.intersects(seg)),
            Segments::Runs { lines, runs } => {
                let env = AABB::from_corners([seg.start.x, seg.start.y], [seg.end.x, seg.end.y]);
                runs.locate_in_envelope_intersecting(&env)
                    .any(|r| run_of(lines, r.data).iter().any(|s| s.intersects(seg)))
            }
        }
    }

    /// The least of `best` and geo's distance from `c` to the nearest probe segment. Only
    /// segments that can beat `best` are measured: a vertex inside a large site's box would
    /// otherwise search the whole index, for each of the twenty waters a check measures.
    fn nearest_within(&self, c: Coord<f64>, mut best: f64) -> f64 {
        // Squared filter with slack; geo's exact distance where one can win.
        let scan = |run: &[Line<f64>], best: &mut f64| {
            for s in run {
                if segment_distance2(c, s) <= *best * *best * (1.0 + 1e-9) {
                    *best = best.min(Euclidean.distance(s, &Point(c)));
                }
            }
        };
        match self {
            Segments::Scan(lines) => scan(lines, &mut best),
            Segments::Runs { lines, runs } if best.is_finite() => {
                // Any segment nearer than the best lies in the square of that half-width.
                let r = best * (1.0 + 1e-9);
                let env = AABB::from_corners([c.x - r, c.y - r], [c.x + r, c.y + r]);
                for run in runs.locate_in_envelope_intersecting(&env) {
                    scan(run_of(lines, run.data), &mut best);
                }
            }
            Segments::Runs { lines, runs } => {
                // Runs nearest box first; none can win once its box is farther than the best.
                for (r, d2) in runs.nearest_neighbor_iter_with_distance_2(&[c.x, c.y]) {
                    if d2 > best * best * (1.0 + 1e-9) {
                        break;
                    }
                    scan(run_of(lines, r.data), &mut best);
                }
            }
        }
        best
    }

    /// Adds the probe's ring vertices inside `env` (edges included) to `out`.
    fn vertices_in(&self, env: &AABB<[f64; 2]>, out: &mut Vec<Coord<f64>>) {
        let starts = |run: &[Line<f64>], out: &mut Vec<Coord<f64>>| {
            out.extend(
                run.iter()
                    .map(|l| l.start)
                    .filter(|c| rstar::Envelope::contains_point(env, &[c.x, c.y])),
            )
        };
        match self {
            Segments::Scan(lines) => starts(lines, out),
            Segments::Runs { lines, runs } => {
                for r in runs.locate_in_envelope_intersecting(env) {
                    starts(run_of(lines, r.data), out);
                }
            }
        }
    }
}

/// The run of segments that starts at `start`.
fn run_of(lines: &[Line<f64>], start: usize) -> &[Line<f64>] {
    &lines[start..(start + RUN).min(lines.len())]
}

impl RingIndex {
    /// Squared distance from a point to the probe's bounding box (0 inside it).
    fn clear_of_box2(&self, c: Coord<f64>) -> f64 {
        let (lo, hi) = (self.rect_m.min(), self.rect_m.max());
        let dx = (lo.x - c.x).max(c.x - hi.x).max(0.0);
        let dy = (lo.y - c.y).max(c.y - hi.y).max(0.0);
        dx * dx + dy * dy
    }

    /// Squared gap between a segment's bounding box and the probe's (0 when they meet): no
    /// point of the probe is nearer the segment than this.
    fn box_gap2(&self, s: &Line<f64>) -> f64 {
        let (lo, hi) = (self.rect_m.min(), self.rect_m.max());
        let dx = (lo.x - s.start.x.max(s.end.x))
            .max(s.start.x.min(s.end.x) - hi.x)
            .max(0.0);
        let dy = (lo.y - s.start.y.max(s.end.y))
            .max(s.start.y.min(s.end.y) - hi.y)
            .max(0.0);
        dx * dx + dy * dy
    }
}

/// Squared distance from a point to a segment (no square root: a filter, not the answer).
fn segment_distance2(p: Coord<f64>, s: &Line<f64>) -> f64 {
    let (d, w) = (s.end - s.start, p - s.start);
    let len2 = d.x * d.x + d.y * d.y;
    let t = if len2 > 0.0 {
        ((w.x * d.x + w.y * d.y) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let (ex, ey) = (w.x - t * d.x, w.y - t * d.y);
    ex * ex + ey * ey
}

/// The target's lines (polygon rings included), its polygons, and its points; `false` for a
/// shape a water layer does not hold (Line, Rect, Triangle), which geo then measures.
fn collect<'a>(
    g: &'a Geometry<f64>,
    lines: &mut Vec<&'a LineString<f64>>,
    polygons: &mut Vec<&'a Polygon<f64>>,
    points: &mut Vec<Coord<f64>>,
) -> bool {
    let mut polygon = |p: &'a Polygon<f64>, lines: &mut Vec<&'a LineString<f64>>| {
        lines.push(p.exterior());
        lines.extend(p.interiors());
        polygons.push(p);
    };
    match g {
        Geometry::Point(p) => points.push(p.0),
        Geometry::MultiPoint(mp) => points.extend(mp.iter().map(|p| p.0)),
        Geometry::LineString(l) => lines.push(l),
        Geometry::MultiLineString(ml) => lines.extend(ml.iter()),
        Geometry::Polygon(p) => polygon(p, lines),
        Geometry::MultiPolygon(mp) => mp.iter().for_each(|p| polygon(p, lines)),
        Geometry::Line(_) | Geometry::Rect(_) | Geometry::Triangle(_) => return false,
        Geometry::GeometryCollection(gc) => {
            return gc.iter().all(|m| collect(m, lines, polygons, points));
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo_types::MultiLineString;
    use proptest::prelude::*;

    /// A ring of `n` vertices around (cx, cy) in lon/lat, star-shaped so it is simple: radii
    /// from `r` in metres-ish degrees.
    fn ring(cx: f64, cy: f64, radii: &[f64]) -> LineString<f64> {
        let n = radii.len();
        let mut pts: Vec<(f64, f64)> = radii
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let a = i as f64 / n as f64 * std::f64::consts::TAU;
                (cx + r * a.cos(), cy + r * a.sin())
            })
            .collect();
        pts.push(pts[0]);
        LineString::from(pts)
    }

    fn line(x0: f64, y0: f64, steps: &[(f64, f64)]) -> LineString<f64> {
        let mut c = (x0, y0);
        let mut pts = vec![c];
        for (dx, dy) in steps {
            c = (c.0 + dx, c.1 + dy);
            pts.push(c);
        }
        LineString::from(pts)
    }

    /// The prepared distance is geo's own `Euclidean` distance in the same frame, exactly,
    /// bounded or not, for small probes (scanned) and large ones (indexed by runs), to lines
    /// that miss, touch, cross or lie inside the probe, and to polygons and points.
    #[test]
    fn the_prepared_distance_is_geos_distance() {
        let radii = prop::collection::vec(0.0005f64..0.002, 5..120);
        let steps = prop::collection::vec((-0.001f64..0.001, -0.001f64..0.001), 1..40);
        let start = (-0.004f64..0.004, -0.004f64..0.004);
        let cases = (
            radii,
            prop::collection::vec((start, steps), 1..3),
            0usize..4,
        );
        let mut runner =
            proptest::test_runner::TestRunner::new(proptest::test_runner::Config::with_cases(600));
        let (lon, lat) = (-76.2, 43.15);
        runner
            .run(&cases, |(radii, lines, shape)| {
                let probe = Geometry::Polygon(Polygon::new(ring(lon, lat, &radii), vec![]));
                let frame = LocalFrame::around(lon, lat);
                let prepared = PreparedProbe::new(&probe, frame).expect("a probe");
                let lines: Vec<LineString<f64>> = lines
                    .iter()
                    .map(|((x, y), s)| line(lon + x, lat + y, s))
                    .collect();
                let target = match shape {
                    0 => Geometry::LineString(lines[0].clone()),
                    1 => Geometry::MultiLineString(MultiLineString(lines.clone())),
                    2 => Geometry::Polygon(Polygon::new(
                        ring(
                            lines[0].0[1].x,
                            lines[0].0[1].y,
                            &[0.0007, 0.0011, 0.0009, 0.0012],
                        ),
                        vec![],
                    )),
                    _ => Geometry::Point(Point(lines[0].0[0])),
                };
                let want = Euclidean.distance(&frame.project(&probe), &frame.project(&target));
                prop_assert_eq!(
                    prepared.distance_within_m(&target, f64::INFINITY),
                    Some(want),
                    "shape {}",
                    shape
                );
                // Bounded: the same distance when it is within the bound (equal included,
                // as a tie with the k-th water counts), none when it is beyond.
                for bound in [want, want * 1.01 + 1e-6, want * 0.99, want / 2.0, 0.0] {
                    let got = prepared.distance_within_m(&target, bound);
                    let expect = (want <= bound).then_some(want);
                    prop_assert_eq!(got, expect, "shape {} bound {}", shape, bound);
                }
                Ok(())
            })
            .unwrap();
    }
}

//! Clipping to an axis-aligned rectangle (a tile and its buffer), which is a much simpler
//! problem than a general boolean intersection: Sutherland–Hodgman for polygon rings,
//! Liang–Barsky for line segments. Linear in the vertices, no allocation beyond the output.
//!
//! A concave polygon that leaves the rectangle and comes back stays one ring, joined along the
//! rectangle's edge by zero-width bridges: the area inside is exact, and renderers fill such
//! rings correctly (this is what tile servers have always done).

use geo_types::{Coord, LineString, Polygon, Rect};

/// One side of the rectangle, as "inside" and "where a segment crosses it".
#[derive(Clone, Copy)]
enum Edge {
    West(f64),
    East(f64),
    South(f64),
    North(f64),
}

impl Edge {
    fn inside(self, c: Coord<f64>) -> bool {
        match self {
            Edge::West(x) => c.x >= x,
            Edge::East(x) => c.x <= x,
            Edge::South(y) => c.y >= y,
            Edge::North(y) => c.y <= y,
        }
    }

    /// Where segment a→b meets the edge (called only when a and b are on opposite sides).
    fn crossing(self, a: Coord<f64>, b: Coord<f64>) -> Coord<f64> {
        match self {
            Edge::West(x) | Edge::East(x) => {
                let t = (x - a.x) / (b.x - a.x);
                Coord {
                    x,
                    y: a.y + t * (b.y - a.y),
                }
            }
            Edge::South(y) | Edge::North(y) => {
                let t = (y - a.y) / (b.y - a.y);
                Coord {
                    x: a.x + t * (b.x - a.x),
                    y,
                }
            }
        }
    }
}

fn edges(rect: Rect<f64>) -> [Edge; 4] {
    [
        Edge::West(rect.min().x),
        Edge::East(rect.max().x),
        Edge::South(rect.min().y),
        Edge::North(rect.max().y),
    ]
}

/// A ring clipped to the rectangle (Sutherland–Hodgman), closed; `None` when nothing is left.
pub fn clip_ring(ring: &LineString<f64>, rect: Rect<f64>) -> Option<LineString<f64>> {
    let mut input: Vec<Coord<f64>> = ring.0.clone();
    if input.len() > 1 && input.first() == input.last() {
        input.pop();
    }
    let mut spare = Vec::with_capacity(input.len() + 4);
    if !clip_open_ring(&mut input, &mut spare, rect) {
        return None;
    }
    input.push(input[0]);
    Some(LineString::new(input))
}

/// Clips an open ring (no closing vertex) to the rectangle in place, with `spare` as the
/// second buffer, so a caller clipping many rings allocates nothing; false when fewer than
/// 3 vertices are left.
pub fn clip_open_ring(
    ring: &mut Vec<Coord<f64>>,
    spare: &mut Vec<Coord<f64>>,
    rect: Rect<f64>,
) -> bool {
    for edge in edges(rect) {
        spare.clear();
        let Some(&last) = ring.last() else {
            return false;
        };
        let mut prev = last;
        for &cur in ring.iter() {
            match (edge.inside(prev), edge.inside(cur)) {
                (true, true) => spare.push(cur),
                (true, false) => spare.push(edge.crossing(prev, cur)),
                (false, true) => {
                    spare.push(edge.crossing(prev, cur));
                    spare.push(cur);
                }
                (false, false) => {}
            }
            prev = cur;
        }
        std::mem::swap(ring, spare);
    }
    ring.len() >= 3
}

/// A polygon clipped to the rectangle, each ring on its own; `None` when the exterior is gone.
/// Holes wholly outside the rectangle vanish; holes crossing its edge are cut there.
pub fn clip_polygon(polygon: &Polygon<f64>, rect: Rect<f64>) -> Option<Polygon<f64>> {
    let exterior = clip_ring(polygon.exterior(), rect)?;
    let interiors = polygon
        .interiors()
        .iter()
        .filter_map(|r| clip_ring(r, rect))
        .collect();
    Some(Polygon::new(exterior, interiors))
}

/// The parts of a line inside the rectangle (Liang–Barsky per segment), in the line's own
/// direction; a line that leaves and comes back gives several parts.
pub fn clip_line(line: &LineString<f64>, rect: Rect<f64>) -> Vec<LineString<f64>> {
    let mut parts: Vec<LineString<f64>> = Vec::new();
    let mut current: Vec<Coord<f64>> = Vec::new();
    for seg in line.0.windows(2) {
        let (a, b) = (seg[0], seg[1]);
        match clip_segment(a, b, rect) {
            Some((p, q)) => {
                if current.last() != Some(&p) {
                    if current.len() >= 2 {
                        parts.push(LineString::new(std::mem::take(&mut current)));
                    }
                    current.clear();
                    current.push(p);
                }
                current.push(q);
            }
            None => {
                if current.len() >= 2 {
                    parts.push(LineString::new(std::mem::take(&mut current)));
                }
                current.clear();
            }
        }
    }
    if current.len() >= 2 {
        parts.push(LineString::new(current));
    }
    parts
}

/// Liang–Barsky: the part of segment a→b inside the rectangle. Ends inside are returned
/// exactly (not recomputed), so consecutive segments join without a gap.
fn clip_segment(a: Coord<f64>, b: Coord<f64>, rect: Rect<f64>) -> Option<(Coord<f64>, Coord<f64>)> {
    let d = b - a;
    let (mut t0, mut t1) = (0.0_f64, 1.0_f64);
    let checks = [
        (-d.x, a.x - rect.min().x),
        (d.x, rect.max().x - a.x),
        (-d.y, a.y - rect.min().y),
        (d.y, rect.max().y - a.y),
    ];
    for (p, q) in checks {
        if p == 0.0 {
            if q < 0.0 {
                return None;
            }
        } else {
            let r = q / p;
            if p < 0.0 {
                t0 = t0.max(r);
            } else {
                t1 = t1.min(r);
            }
        }
    }
    if t0 > t1 {
        return None;
    }
    let at = |t: f64| Coord {
        x: a.x + t * d.x,
        y: a.y + t * d.y,
    };
    let p = if t0 == 0.0 { a } else { at(t0) };
    let q = if t1 == 1.0 { b } else { at(t1) };
    Some((p, q))
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo::{Area, BooleanOps};
    use geo_types::{coord, polygon};

    fn rect() -> Rect<f64> {
        Rect::new(coord! { x: 0.0, y: 0.0 }, coord! { x: 10.0, y: 10.0 })
    }

    /// Area clipped by the boolean intersection (the reference) and by the rectangle clip.
    fn areas(p: &Polygon<f64>) -> (f64, f64) {
        let reference = p.intersection(&rect().to_polygon()).unsigned_area();
        let ours = clip_polygon(p, rect()).map_or(0.0, |c| c.unsigned_area());
        (reference, ours)
    }

    #[test]
    fn area_at_the_edges_matches_the_boolean_intersection() {
        let cases = [
            // Crossing one edge, two edges, a corner.
            polygon![(x: -5.0, y: 2.0), (x: 5.0, y: 2.0), (x: 5.0, y: 8.0), (x: -5.0, y: 8.0)],
            polygon![(x: -5.0, y: -5.0), (x: 5.0, y: -5.0), (x: 5.0, y: 5.0), (x: -5.0, y: 5.0)],
            // Covering the whole rectangle.
            polygon![(x: -1.0, y: -1.0), (x: 11.0, y: -1.0), (x: 11.0, y: 11.0), (x: -1.0, y: 11.0)],
            // Concave: a U that leaves through the top edge twice.
            polygon![(x: 2.0, y: 2.0), (x: 8.0, y: 2.0), (x: 8.0, y: 14.0), (x: 6.0, y: 14.0),
                     (x: 6.0, y: 4.0), (x: 4.0, y: 4.0), (x: 4.0, y: 14.0), (x: 2.0, y: 14.0)],
            // A diagonal sliver across the rectangle.
            polygon![(x: -3.0, y: -1.0), (x: 11.0, y: 13.0), (x: 13.0, y: 11.0), (x: -1.0, y: -3.0)],
        ];
        for (i, p) in cases.iter().enumerate() {
            let (reference, ours) = areas(p);
            assert!(
                (reference - ours).abs() < 1e-9,
                "case {i}: {reference} vs {ours}"
            );
        }
    }

    #[test]
    fn holes_inside_crossing_and_outside_the_rectangle() {
        let outer = LineString::from(vec![(-5.0, -5.0), (15.0, -5.0), (15.0, 15.0), (-5.0, 15.0)]);
        let inside = LineString::from(vec![(3.0, 3.0), (5.0, 3.0), (5.0, 5.0), (3.0, 5.0)]);
        let crossing = LineString::from(vec![(8.0, 3.0), (12.0, 3.0), (12.0, 5.0), (8.0, 5.0)]);
        let outside =
            LineString::from(vec![(12.0, 12.0), (14.0, 12.0), (14.0, 14.0), (12.0, 14.0)]);
        let p = Polygon::new(outer, vec![inside, crossing, outside]);
        let (reference, ours) = areas(&p);
        // 100 - 4 (inside hole) - 4 (the crossing hole's part inside, 8..10 x 3..5).
        assert!((reference - 92.0).abs() < 1e-9, "{reference}");
        assert!((ours - 92.0).abs() < 1e-9, "{ours}");
        let clipped = clip_polygon(&p, rect()).unwrap();
        assert_eq!(clipped.interiors().len(), 2, "the hole outside vanishes");
    }

    #[test]
    fn polygon_outside_is_gone() {
        let p = polygon![(x: 20.0, y: 20.0), (x: 30.0, y: 20.0), (x: 30.0, y: 30.0)];
        assert!(clip_polygon(&p, rect()).is_none());
    }

    #[test]
    fn line_leaving_and_coming_back_gives_two_parts_in_order() {
        let l = LineString::from(vec![
            (-5.0, 5.0),
            (5.0, 5.0),
            (5.0, 15.0),
            (8.0, 15.0),
            (8.0, 5.0),
            (9.0, 5.0),
        ]);
        let parts = clip_line(&l, rect());
        assert_eq!(parts.len(), 2);
        assert_eq!(
            parts[0].0,
            vec![
                coord! { x: 0.0, y: 5.0 },
                coord! { x: 5.0, y: 5.0 },
                coord! { x: 5.0, y: 10.0 }
            ]
        );
        assert_eq!(
            parts[1].0,
            vec![
                coord! { x: 8.0, y: 10.0 },
                coord! { x: 8.0, y: 5.0 },
                coord! { x: 9.0, y: 5.0 }
            ]
        );
        // Wholly outside, and running along outside an edge.
        assert!(clip_line(&LineString::from(vec![(-5.0, -5.0), (-1.0, 20.0)]), rect()).is_empty());
        assert!(clip_line(&LineString::from(vec![(-1.0, 0.0), (-1.0, 10.0)]), rect()).is_empty());
    }
}

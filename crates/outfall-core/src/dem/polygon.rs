//! A set of cells as a MultiPolygon in the DEM's CRS: the union of the cell squares, traced
//! along the cells' edges (linear in the cells, no polygon overlay). Outer rings run
//! counter-clockwise and holes clockwise; where two parts touch only at a corner the trace
//! turns left, so they stay separate, valid polygons.

use super::Grid;
use geo::{Contains, Coord, LineString, MultiPolygon, Point, Polygon};
use std::collections::HashMap;

/// A corner of the cell grid: (column, row) of corners, rows counted southwards.
type Corner = (i64, i64);

pub(super) fn polygonize(g: &Grid, cells: &[u32]) -> MultiPolygon<f64> {
    let member: std::collections::HashSet<u32> = cells.iter().copied().collect();
    let inside = |r: i64, c: i64| {
        r >= 0
            && c >= 0
            && (r as usize) < g.height
            && (c as usize) < g.width
            && member.contains(&((r as usize * g.width + c as usize) as u32))
    };
    // Each boundary edge with the set on its left (y up), keyed by where it starts.
    let mut edges: HashMap<Corner, Vec<Corner>> = HashMap::new();
    let mut add = |a: Corner, b: Corner| edges.entry(a).or_default().push(b);
    for &cell in cells {
        let (r, c) = (
            (cell as usize / g.width) as i64,
            (cell as usize % g.width) as i64,
        );
        if !inside(r + 1, c) {
            add((c, r + 1), (c + 1, r + 1));
        }
        if !inside(r, c + 1) {
            add((c + 1, r + 1), (c + 1, r));
        }
        if !inside(r - 1, c) {
            add((c + 1, r), (c, r));
        }
        if !inside(r, c - 1) {
            add((c, r), (c, r + 1));
        }
    }
    let rings = trace_rings(&mut edges);
    assemble(g, rings)
}

/// Follows the edges into closed rings of corners (first corner not repeated).
fn trace_rings(edges: &mut HashMap<Corner, Vec<Corner>>) -> Vec<Vec<Corner>> {
    let mut starts: Vec<Corner> = edges.keys().copied().collect();
    starts.sort_unstable();
    let mut rings = Vec::new();
    for s in starts {
        while let Some(first) = edges.get_mut(&s).and_then(|v| v.pop()) {
            let mut ring = vec![s];
            let (mut prev, mut at) = (s, first);
            while at != s {
                ring.push(at);
                let Some(next) = take_next(edges, prev, at) else {
                    break;
                };
                (prev, at) = (at, next);
            }
            rings.push(simplify(ring));
        }
    }
    rings
}

/// The edge leaving `at` after arriving from `prev`: the left turn when two leave it.
fn take_next(edges: &mut HashMap<Corner, Vec<Corner>>, prev: Corner, at: Corner) -> Option<Corner> {
    let out = edges.get_mut(&at)?;
    let (di, dj) = (at.0 - prev.0, at.1 - prev.1);
    // Left of (di, dj) with rows counted southwards.
    let left = (at.0 + dj, at.1 - di);
    let i = out.iter().position(|&n| n == left).unwrap_or(0);
    if out.is_empty() {
        return None;
    }
    Some(out.swap_remove(i))
}

/// Drops corners where the ring goes straight on.
fn simplify(ring: Vec<Corner>) -> Vec<Corner> {
    let n = ring.len();
    (0..n)
        .filter(|&i| {
            let (a, b, c) = (ring[(i + n - 1) % n], ring[i], ring[(i + 1) % n]);
            (b.0 - a.0) * (c.1 - b.1) != (b.1 - a.1) * (c.0 - b.0)
        })
        .map(|i| ring[i])
        .collect()
}

/// Rings as polygons in the DEM's CRS: counter-clockwise rings are outer, clockwise rings
/// holes of the outer ring that holds them.
fn assemble(g: &Grid, rings: Vec<Vec<Corner>>) -> MultiPolygon<f64> {
    let to_xy = |&(i, j): &Corner| Coord {
        x: g.x0_m + i as f64 * g.dx_m,
        y: g.y0_m - j as f64 * g.dy_m,
    };
    let (mut outers, mut holes) = (Vec::new(), Vec::new());
    for r in rings {
        let mut line: LineString<f64> = r.iter().map(to_xy).collect();
        line.close();
        if signed_area(&line) > 0.0 {
            outers.push(Polygon::new(line, Vec::new()));
        } else {
            holes.push(line);
        }
    }
    for h in holes {
        let probe = Point::from(h.0[0]);
        // A hole's corner lies on its outer ring's edge or inside it; test its centre of mass.
        let inner = midpoint_inside(&h).unwrap_or(probe);
        if let Some(p) = outers.iter_mut().find(|p| p.contains(&inner)) {
            p.interiors_push(h);
        }
    }
    MultiPolygon(outers)
}

fn signed_area(l: &LineString<f64>) -> f64 {
    l.0.windows(2)
        .map(|w| w[0].x * w[1].y - w[1].x * w[0].y)
        .sum::<f64>()
        / 2.0
}

/// A point just inside the hole (on the left of its first edge, which is outside the set
/// but inside the outer ring).
fn midpoint_inside(h: &LineString<f64>) -> Option<Point<f64>> {
    let (a, b) = (h.0.first()?, h.0.get(1)?);
    let (mx, my) = ((a.x + b.x) / 2.0, (a.y + b.y) / 2.0);
    let len = ((b.x - a.x).powi(2) + (b.y - a.y).powi(2)).sqrt();
    if len == 0.0 {
        return None;
    }
    // Holes run clockwise with the set on their left; the hole's inside is on the right.
    let (nx, ny) = ((b.y - a.y) / len, -(b.x - a.x) / len);
    Some(Point::new(mx + nx * 1e-3, my + ny * 1e-3))
}

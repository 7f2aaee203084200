//! D8 flow directions and flow accumulation over the conditioned surface.

use super::Grid;
use std::collections::VecDeque;

/// pysheds' codes for N, NE, E, SE, S, SW, W, NW, in the order `OFFSETS` names them (and in
/// which a tie between equally steep neighbours goes to the first, as numpy's argmax does).
pub const D8_CODES: [u8; 8] = [64, 128, 1, 2, 4, 8, 16, 32];
/// No direction: an edge cell or a cell without data, where water leaves the raster.
pub const NO_DIRECTION: u8 = 0;
/// (row, column) steps to each neighbour, in the order of `D8_CODES`.
pub(super) const OFFSETS: [(isize, isize); 8] = [
    (-1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
];

/// The neighbour of `cell` in direction `k` (an index into `OFFSETS`), if inside the raster.
pub(super) fn neighbour(g: &Grid, cell: usize, k: usize) -> Option<usize> {
    let (r, c) = ((cell / g.width) as isize, (cell % g.width) as isize);
    let (nr, nc) = (r + OFFSETS[k].0, c + OFFSETS[k].1);
    let inside = nr >= 0 && nc >= 0 && (nr as usize) < g.height && (nc as usize) < g.width;
    inside.then(|| nr as usize * g.width + nc as usize)
}

/// Each neighbour of `cell` inside the raster, with its direction index, in `OFFSETS` order.
/// The cell's row and column are found once (two divisions per neighbour were a good part of
/// conditioning a 2.8M-cell DEM).
pub(super) fn around(g: &Grid, cell: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
    let (r, c) = ((cell / g.width) as isize, (cell % g.width) as isize);
    OFFSETS
        .iter()
        .enumerate()
        .filter_map(move |(k, &(dr, dc))| {
            let (nr, nc) = (r + dr, c + dc);
            let inside = nr >= 0 && nc >= 0 && (nr as usize) < g.height && (nc as usize) < g.width;
            inside.then(|| (k, nr as usize * g.width + nc as usize))
        })
}

/// Metres from a cell's centre to its neighbour's in direction `k`.
fn distances_m(g: &Grid) -> [f64; 8] {
    let diag = g.dx_m.hypot(g.dy_m);
    [g.dy_m, diag, g.dx_m, diag, g.dy_m, diag, g.dx_m, diag]
}

/// The cell a cell drains to, or None where water leaves the raster.
pub(super) fn downstream(g: &Grid, direction: &[u8], cell: usize) -> Option<usize> {
    let k = D8_CODES.iter().position(|&c| c == direction[cell])?;
    neighbour(g, cell, k)
}

/// D8: each interior cell with data drains to its steepest-descending neighbour; a cell
/// without data counts as infinitely low (water leaves the data there). A flat cell
/// (`flat_gradient` > 0) keeps its level and descends the flat gradient instead.
pub(super) fn d8(g: &Grid, z: &[f64], flat_gradient: &[u32]) -> Vec<u8> {
    let dist = distances_m(g);
    let mut out = vec![NO_DIRECTION; g.len()];
    for (cell, dir) in out.iter_mut().enumerate() {
        if z[cell].is_nan() || g.on_edge(cell) {
            continue;
        }
        let mut best: Option<(f64, usize)> = None;
        for (k, n) in around(g, cell) {
            let d = dist[k];
            let slope = if z[n].is_nan() {
                f64::INFINITY
            } else if flat_gradient[cell] > 0 {
                if z[n] != z[cell] {
                    continue;
                }
                (f64::from(flat_gradient[cell]) - f64::from(flat_gradient[n])) / d
            } else {
                (z[cell] - z[n]) / d
            };
            if slope > 0.0 && best.is_none_or(|(s, _)| slope > s) {
                best = Some((slope, k));
            }
        }
        if let Some((_, k)) = best {
            *dir = D8_CODES[k];
        }
    }
    out
}

/// Cells draining through each cell, itself included, in one pass in topological order.
pub(super) fn accumulation(g: &Grid, direction: &[u8], z: &[f64]) -> Vec<u32> {
    let mut acc: Vec<u32> = z.iter().map(|v| u32::from(!v.is_nan())).collect();
    let down: Vec<Option<usize>> = (0..g.len()).map(|c| downstream(g, direction, c)).collect();
    let mut indegree = vec![0u8; g.len()];
    for d in down.iter().flatten() {
        indegree[*d] += 1;
    }
    let mut queue: VecDeque<usize> = (0..g.len()).filter(|&c| indegree[c] == 0).collect();
    while let Some(c) = queue.pop_front() {
        if let Some(d) = down[c] {
            acc[d] += acc[c];
            indegree[d] -= 1;
            if indegree[d] == 0 {
                queue.push_back(d);
            }
        }
    }
    acc
}

/// A cell on a closed loop of directions, if any: a D8 grid from elsewhere may hold one,
/// and the walks upstream assume none. Peels the cells nothing drains into, repeatedly;
/// what is left lies on or below a loop.
pub(super) fn in_a_cycle(g: &Grid, direction: &[u8]) -> Option<usize> {
    let down: Vec<Option<usize>> = (0..g.len()).map(|c| downstream(g, direction, c)).collect();
    let mut indegree = vec![0u8; g.len()];
    for d in down.iter().flatten() {
        indegree[*d] += 1;
    }
    let mut queue: Vec<usize> = (0..g.len()).filter(|&c| indegree[c] == 0).collect();
    while let Some(c) = queue.pop() {
        if let Some(d) = down[c] {
            indegree[d] -= 1;
            if indegree[d] == 0 {
                queue.push(d);
            }
        }
    }
    indegree.iter().position(|&n| n > 0)
}

/// Whether `n`, the neighbour of `cell` in direction `k`, drains into `cell`.
pub(super) fn drains_into(direction: &[u8], n: usize, k: usize) -> bool {
    direction[n] == D8_CODES[(k + 4) % 8]
}

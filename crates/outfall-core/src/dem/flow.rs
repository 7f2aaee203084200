//! D8 flow directions and flow accumulation over the conditioned surface.

use super::Grid;

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
/// An interior cell skips the bounds tests: its eight neighbours are all inside.
pub(super) fn around(g: &Grid, cell: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
    let (r, c) = ((cell / g.width) as isize, (cell % g.width) as isize);
    let interior = r > 0 && c > 0 && r + 1 < g.height as isize && c + 1 < g.width as isize;
    OFFSETS
        .iter()
        .enumerate()
        .filter_map(move |(k, &(dr, dc))| {
            let (nr, nc) = (r + dr, c + dc);
            let inside = interior
                || (nr >= 0 && nc >= 0 && (nr as usize) < g.height && (nc as usize) < g.width);
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
pub(super) fn d8(g: &Grid, z: &[f32], flat_gradient: &[u32]) -> Vec<u8> {
    use rayon::prelude::*;
    let dist = distances_m(g);
    let mut out = vec![NO_DIRECTION; g.len()];
    // Each cell's direction reads only the surface: the cells split over every core.
    out.par_iter_mut().enumerate().for_each(|(cell, dir)| {
        if z[cell].is_nan() || g.on_edge(cell) {
            return;
        }
        let mut best: Option<(f64, usize)> = None;
        // Slopes in f64, as before the surface was kept in f32: the same directions.
        let here = f64::from(z[cell]);
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
                (here - f64::from(z[n])) / d
            };
            if slope > 0.0 && best.is_none_or(|(s, _)| slope > s) {
                best = Some((slope, k));
            }
        }
        if let Some((_, k)) = best {
            *dir = D8_CODES[k];
        }
    });
    out
}

/// No cell downstream (water leaves the raster), in `downstream_all`'s grid.
const NONE: u32 = u32::MAX;

/// Each cell's downstream cell, `NONE` where water leaves: 4 bytes a cell, where an
/// `Option<usize>` took 16 and fresh pages to zero were a quarter of a Johnson run.
fn downstream_all(g: &Grid, direction: &[u8]) -> Vec<u32> {
    use rayon::prelude::*;
    (0..g.len())
        .into_par_iter()
        .map(|c| downstream(g, direction, c).map_or(NONE, |d| d as u32))
        .collect()
}

/// How many cells drain into each cell.
fn indegrees(down: &[u32]) -> Vec<u8> {
    let mut indegree = vec![0u8; down.len()];
    for &d in down.iter().filter(|&&d| d != NONE) {
        indegree[d as usize] += 1;
    }
    indegree
}

/// Passes each cell on to its downstream cell once everything draining into it has been
/// passed on (`pass(cell, downstream)`), in topological order; gives what still drains into
/// each cell afterwards, which is nonzero only on or below a closed loop of directions.
fn peel(down: &[u32], mut pass: impl FnMut(usize, usize)) -> Vec<u8> {
    let mut indegree = indegrees(down);
    let mut ready: Vec<u32> = (0..down.len() as u32)
        .filter(|&c| indegree[c as usize] == 0)
        .collect();
    while let Some(c) = ready.pop() {
        let d = down[c as usize];
        if d != NONE {
            pass(c as usize, d as usize);
            indegree[d as usize] -= 1;
            if indegree[d as usize] == 0 {
                ready.push(d);
            }
        }
    }
    indegree
}

/// Cells draining through each cell, itself included, in one topological pass (the order
/// among cells ready at once does not change a sum).
pub(super) fn accumulation(g: &Grid, direction: &[u8], z: &[f32]) -> Vec<u32> {
    let mut acc: Vec<u32> = z.iter().map(|v| u32::from(!v.is_nan())).collect();
    peel(&downstream_all(g, direction), |c, d| acc[d] += acc[c]);
    acc
}

/// A cell on a closed loop of directions, if any: a D8 grid from elsewhere may hold one,
/// and the walks upstream assume none. What peeling leaves lies on or below a loop.
pub(super) fn in_a_cycle(g: &Grid, direction: &[u8]) -> Option<usize> {
    peel(&downstream_all(g, direction), |_, _| {})
        .iter()
        .position(|&n| n > 0)
}

/// The neighbours of `cell` inside the raster, in `OFFSETS` order.
pub(super) fn neighbours(g: &Grid, cell: usize) -> impl Iterator<Item = usize> + '_ {
    around(g, cell).map(|(_, n)| n)
}

/// Whether `n`, the neighbour of `cell` in direction `k`, drains into `cell`.
pub(super) fn drains_into(direction: &[u8], n: usize, k: usize) -> bool {
    direction[n] == D8_CODES[(k + 4) % 8]
}

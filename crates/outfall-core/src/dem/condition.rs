//! Conditioning as pysheds does it for `stormcatchments`: depressions filled (pysheds also
//! raises single-cell pits first, which a complete fill already does: a pit is a
//! depression) and flats given a drainage gradient (Barnes, Lehman & Mulla 2014, "An
//! efficient assignment of drainage direction over flat surfaces"): towards lower ground,
//! and away from higher ground. pysheds adds that gradient to the elevations times 1e-5;
//! here the flat keeps its level and D8 reads the gradient, so no inflated cell can rise
//! above a neighbour that drained into it.
//! The fill is in `fill.rs`.

use super::fill::fill_depressions;
use super::flow::neighbours;
use super::Grid;
use std::collections::VecDeque;

/// The filled surface (NaN where no data) and each flat cell's gradient (0 off flats).
pub(super) fn condition(g: &Grid, elevation_m: &[f32]) -> (Vec<f32>, Vec<u32>) {
    let mut z = elevation_m.to_vec();
    fill_depressions(g, &mut z);
    let gradient = flat_gradient(g, &z);
    (z, gradient)
}

/// A flat cell: interior, with data, and no neighbour lower (missing data counts as lower).
fn is_flat(g: &Grid, z: &[f32], cell: usize) -> bool {
    !z[cell].is_nan()
        && !g.on_edge(cell)
        && neighbours(g, cell).all(|n| !z[n].is_nan() && z[n] >= z[cell])
}

/// Barnes' flat mask: 2 x (steps to the nearest lower outlet) + (the flat's greatest
/// distance from higher ground - this cell's), so each flat cell has a neighbour on the same
/// flat, or its outlet, with a smaller value. 0 off flats. Only the flat cells and their
/// neighbours are visited (a tenth of Johnson's cells), not the whole raster again.
fn flat_gradient(g: &Grid, z: &[f32]) -> Vec<u32> {
    use rayon::prelude::*;
    let flat: Vec<bool> = (0..g.len())
        .into_par_iter()
        .map(|c| is_flat(g, z, c))
        .collect();
    let flat_cells: Vec<usize> = (0..g.len()).into_par_iter().filter(|&c| flat[c]).collect();
    let mut out = vec![0u32; g.len()];
    if flat_cells.is_empty() {
        return out;
    }
    // Towards lower: breadth first from the cells that drain (outlets) beside a flat, which
    // are the non-flat cells with data beside a flat cell of their level. Breadth-first steps
    // from several starts do not depend on the order the starts come in.
    let mut outlet = vec![false; g.len()];
    let mut outlets = Vec::new();
    for &c in &flat_cells {
        for n in neighbours(g, c) {
            if !flat[n] && !outlet[n] && z[n] == z[c] {
                outlet[n] = true;
                outlets.push(n);
            }
        }
    }
    let towards = spread(g, z, &flat, outlets.into_iter(), 0);
    // Away from higher: breadth first from flat cells beside higher ground.
    let high = flat_cells
        .iter()
        .copied()
        .filter(|&c| neighbours(g, c).any(|n| z[n] > z[c]));
    let away = spread(g, z, &flat, high, 1);
    let (label, count) = label_flats(g, &flat, &flat_cells);
    let mut height = vec![0u32; count];
    for &c in &flat_cells {
        let l = label[c] as usize;
        height[l] = height[l].max(away[c]);
    }
    for &c in &flat_cells {
        let from_higher = if away[c] > 0 {
            height[label[c] as usize] - away[c]
        } else {
            0
        };
        out[c] = 2 * towards[c] + from_higher;
    }
    out
}

/// Breadth-first steps over flat cells of the starts' level from `starts` (which count
/// `first`).
fn spread(
    g: &Grid,
    z: &[f32],
    flat: &[bool],
    starts: impl Iterator<Item = usize>,
    first: u32,
) -> Vec<u32> {
    let mut step = vec![0u32; g.len()];
    let mut seen = vec![false; g.len()];
    let mut queue = VecDeque::new();
    for s in starts {
        seen[s] = true;
        step[s] = first;
        queue.push_back(s);
    }
    while let Some(c) = queue.pop_front() {
        for n in neighbours(g, c) {
            if flat[n] && !seen[n] && z[n] == z[c] {
                seen[n] = true;
                step[n] = step[c] + 1;
                queue.push_back(n);
            }
        }
    }
    step
}

/// Connected flats (eight neighbours; touching flat cells always share a level), numbered
/// in the order of their first cell.
fn label_flats(g: &Grid, flat: &[bool], flat_cells: &[usize]) -> (Vec<u32>, usize) {
    let mut label = vec![u32::MAX; g.len()];
    let mut count = 0;
    let mut queue = VecDeque::new();
    for &start in flat_cells {
        if label[start] != u32::MAX {
            continue;
        }
        label[start] = count as u32;
        queue.push_back(start);
        while let Some(c) = queue.pop_front() {
            for n in neighbours(g, c) {
                if flat[n] && label[n] == u32::MAX {
                    label[n] = count as u32;
                    queue.push_back(n);
                }
            }
        }
        count += 1;
    }
    (label, count)
}

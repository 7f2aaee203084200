//! Conditioning as pysheds does it for `stormcatchments`: single-cell pits raised to their
//! lowest neighbour, depressions filled by priority-flood (Barnes, Lehman & Mulla 2014,
//! "Priority-Flood", the variant with a plain queue for cells inside a depression), and
//! flats given a drainage gradient (Barnes, Lehman & Mulla 2014, "An efficient assignment
//! of drainage direction over flat surfaces"): towards lower ground, and away from higher
//! ground. pysheds adds that gradient to the elevations times 1e-5; here the flat keeps its
//! level and D8 reads the gradient, so no inflated cell can rise above a neighbour that
//! drained into it.

use super::flow::around;
use super::Grid;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// The filled surface (NaN where no data) and each flat cell's gradient (0 off flats).
pub(super) fn condition(g: &Grid, elevation_m: &[f32]) -> (Vec<f64>, Vec<u32>) {
    let mut z: Vec<f64> = elevation_m.iter().map(|&v| f64::from(v)).collect();
    fill_pits(g, &mut z);
    fill_depressions(g, &mut z);
    let gradient = flat_gradient(g, &z);
    (z, gradient)
}

fn neighbours(g: &Grid, cell: usize) -> impl Iterator<Item = usize> + '_ {
    around(g, cell).map(|(_, n)| n)
}

/// An interior cell whose eight neighbours all have data and lie higher is raised to the
/// lowest of them.
fn fill_pits(g: &Grid, z: &mut [f64]) {
    for cell in 0..g.len() {
        if z[cell].is_nan() || g.on_edge(cell) {
            continue;
        }
        let lowest = neighbours(g, cell)
            .map(|n| z[n])
            .fold(f64::INFINITY, |a, b| {
                if a.is_nan() || b.is_nan() {
                    f64::NAN
                } else {
                    a.min(b)
                }
            });
        if lowest > z[cell] {
            z[cell] = lowest;
        }
    }
}

/// A cell's place in the priority-flood's queue: its level, then its index, packed in one
/// integer so the heap of millions of cells compares plain words. Levels are the raster's
/// f32 elevations (filling only copies them), whose bits, sign-adjusted, order as the values;
/// cell indices fit 32 bits, as catchments store them.
fn queue_key(z: f64, cell: usize) -> u64 {
    let bits = (z as f32).to_bits();
    let ordered = if bits >> 31 == 1 {
        !bits
    } else {
        bits | 1 << 31
    };
    (u64::from(ordered) << 32) | cell as u64
}

/// Priority-flood from the raster's edge and the cells beside missing data (where water
/// leaves): every cell is raised to the lowest level at which it can spill out.
fn fill_depressions(g: &Grid, z: &mut [f64]) {
    use rayon::prelude::*;
    let mut done: Vec<bool> = z.iter().map(|v| v.is_nan()).collect();
    let seeds: Vec<u32> = (0..g.len())
        .into_par_iter()
        .filter(|&cell| {
            !done[cell] && (g.on_edge(cell) || neighbours(g, cell).any(|n| z[n].is_nan()))
        })
        .map(|cell| cell as u32)
        .collect();
    let mut open = BinaryHeap::with_capacity(seeds.len());
    for cell in seeds.into_iter().map(|c| c as usize) {
        done[cell] = true;
        open.push(Reverse(queue_key(z[cell], cell)));
    }
    let mut pit = VecDeque::new();
    loop {
        let cell = match pit.pop_front() {
            Some(c) => c,
            None => match open.pop() {
                Some(Reverse(key)) => (key & u64::from(u32::MAX)) as usize,
                None => break,
            },
        };
        for n in neighbours(g, cell) {
            if done[n] {
                continue;
            }
            done[n] = true;
            if z[n] <= z[cell] {
                z[n] = z[cell];
                pit.push_back(n);
            } else {
                open.push(Reverse(queue_key(z[n], n)));
            }
        }
    }
}

/// A flat cell: interior, with data, and no neighbour lower (missing data counts as lower).
fn is_flat(g: &Grid, z: &[f64], cell: usize) -> bool {
    !z[cell].is_nan()
        && !g.on_edge(cell)
        && neighbours(g, cell).all(|n| !z[n].is_nan() && z[n] >= z[cell])
}

/// Barnes' flat mask: 2 x (steps to the nearest lower outlet) + (the flat's greatest
/// distance from higher ground - this cell's), so each flat cell has a neighbour on the same
/// flat, or its outlet, with a smaller value. 0 off flats.
fn flat_gradient(g: &Grid, z: &[f64]) -> Vec<u32> {
    use rayon::prelude::*;
    let flat: Vec<bool> = (0..g.len())
        .into_par_iter()
        .map(|c| is_flat(g, z, c))
        .collect();
    let mut out = vec![0u32; g.len()];
    if !flat.iter().any(|&f| f) {
        return out;
    }
    // Towards lower: breadth first from the cells that drain (outlets) beside a flat.
    let outlets = (0..g.len())
        .filter(|&c| !flat[c] && !z[c].is_nan())
        .filter(|&c| neighbours(g, c).any(|n| flat[n] && z[n] == z[c]));
    let towards = spread(g, z, &flat, outlets, 0);
    // Away from higher: breadth first from flat cells beside higher ground.
    let high = (0..g.len()).filter(|&c| flat[c] && neighbours(g, c).any(|n| z[n] > z[c]));
    let away = spread(g, z, &flat, high, 1);
    let (label, count) = label_flats(g, &flat);
    let mut height = vec![0u32; count];
    for c in (0..g.len()).filter(|&c| flat[c]) {
        height[label[c]] = height[label[c]].max(away[c]);
    }
    for c in (0..g.len()).filter(|&c| flat[c]) {
        let from_higher = if away[c] > 0 {
            height[label[c]] - away[c]
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
    z: &[f64],
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

/// Connected flats (eight neighbours; touching flat cells always share a level).
fn label_flats(g: &Grid, flat: &[bool]) -> (Vec<usize>, usize) {
    let mut label = vec![usize::MAX; g.len()];
    let mut count = 0;
    for start in 0..g.len() {
        if !flat[start] || label[start] != usize::MAX {
            continue;
        }
        label[start] = count;
        let mut queue = VecDeque::from([start]);
        while let Some(c) = queue.pop_front() {
            for n in neighbours(g, c) {
                if flat[n] && label[n] == usize::MAX {
                    label[n] = count;
                    queue.push_back(n);
                }
            }
        }
        count += 1;
    }
    (label, count)
}

#[cfg(test)]
mod tests {
    use super::queue_key;

    #[test]
    fn queue_keys_order_by_level_then_by_cell() {
        let levels = [-5.5f64, -0.0, 0.0, 0.25, 144.76, 218.06];
        for w in levels.windows(2) {
            assert!(queue_key(w[0], 9) < queue_key(w[1], 0), "{w:?}");
        }
        assert!(queue_key(1.0, 3) < queue_key(1.0, 4));
        assert_eq!(queue_key(7.0, 12345) & u64::from(u32::MAX), 12345);
    }
}

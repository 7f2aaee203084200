//! Depression filling: a priority-flood (Barnes, Lehman & Mulla 2014, "Priority-Flood",
//! with a plain queue for cells inside a depression) from the raster's edge and the cells
//! beside missing data, in which, as Zhou, Sun & Fu 2016 ("An efficient variant of the
//! Priority-Flood algorithm for filling depressions in raster DEMs") do, a slope climbing
//! away from a settled cell is traced with a plain stack, and only the cells on its rim that
//! still have lower unvisited ground beside them wait in the queue. The queue is a radix
//! heap on the levels' bits: the flood takes levels in rising order, so each waiting cell
//! moves between at most 33 buckets instead of sifting through a binary heap of millions.
//! The filled surface is unique, so the output is that of the plain priority-flood (the
//! tests compare both).

use super::flow::neighbours;
use super::Grid;

/// A level's f32 bits, sign-adjusted so that they order as the values do.
fn ordered_bits(z: f32) -> u32 {
    let bits = z.to_bits();
    if bits >> 31 == 1 {
        !bits
    } else {
        bits | 1 << 31
    }
}

/// A monotone priority queue of cells by level (Ahuja, Mehlhorn, Orlin & Tarjan 1990's
/// radix heap): bucket b holds the cells whose level bits first differ from the last level
/// taken at bit b - 1 (bucket 0: the same level). Taking a level never lower than the
/// last one taken is what the flood needs; cells of one level come out in any order.
struct RadixHeap {
    last: u32,
    len: usize,
    buckets: [Vec<(u32, u32)>; 33],
}

impl RadixHeap {
    fn new() -> RadixHeap {
        RadixHeap {
            last: 0,
            len: 0,
            buckets: std::array::from_fn(|_| Vec::new()),
        }
    }

    fn bucket(&self, level: u32) -> usize {
        32 - (level ^ self.last).leading_zeros() as usize
    }

    /// Queues `cell` at level `z`, which must not lie below the last level taken.
    fn push(&mut self, z: f32, cell: usize) {
        let level = ordered_bits(z);
        debug_assert!(level >= self.last, "a radix heap only takes rising levels");
        let b = self.bucket(level);
        self.buckets[b].push((level, cell as u32));
        self.len += 1;
    }

    /// A cell of the lowest level queued.
    fn pop(&mut self) -> Option<usize> {
        if self.len == 0 {
            return None;
        }
        if self.buckets[0].is_empty() {
            // The first non-empty bucket holds the lowest level; spreading it again from
            // that level sends each of its cells to a lower bucket.
            let b = (1..33).find(|&b| !self.buckets[b].is_empty())?;
            let mut moving = std::mem::take(&mut self.buckets[b]);
            self.last = moving.iter().map(|&(level, _)| level).min()?;
            for &(level, cell) in &moving {
                let to = self.bucket(level);
                self.buckets[to].push((level, cell));
            }
            moving.clear();
            self.buckets[b] = moving;
        }
        self.len -= 1;
        self.buckets[0].pop().map(|(_, cell)| cell as usize)
    }
}

/// The flood's state: which cells have their final level, the queue of cells whose
/// unvisited neighbours wait for their level to come up, the depression queue of cells at
/// the current level, and the stack of a slope being traced.
struct Flood<'a> {
    g: &'a Grid,
    z: &'a mut [f32],
    done: Vec<bool>,
    open: RadixHeap,
    pit: Vec<usize>,
    slope: Vec<usize>,
}

/// Every cell raised to the lowest level at which it can spill out of the raster (its edge,
/// or a cell beside missing data, where water leaves).
pub(super) fn fill_depressions(g: &Grid, z: &mut [f32]) {
    use rayon::prelude::*;
    let done: Vec<bool> = z.iter().map(|v| v.is_nan()).collect();
    let seeds: Vec<u32> = (0..g.len())
        .into_par_iter()
        .filter(|&cell| {
            !done[cell] && (g.on_edge(cell) || neighbours(g, cell).any(|n| z[n].is_nan()))
        })
        .map(|cell| cell as u32)
        .collect();
    let mut f = Flood {
        g,
        z,
        done,
        open: RadixHeap::new(),
        pit: Vec::new(),
        slope: Vec::new(),
    };
    for cell in seeds.into_iter().map(|c| c as usize) {
        f.done[cell] = true;
        f.open.push(f.z[cell], cell);
    }
    f.run();
}

impl Flood<'_> {
    /// Takes the lowest waiting cell (cells at the current level first) and settles its
    /// unvisited neighbours: lower ones are filled to its level, higher ones keep theirs and
    /// start a slope.
    fn run(&mut self) {
        while let Some(cell) = self.pit.pop().or_else(|| self.open.pop()) {
            let level = self.z[cell];
            for n in neighbours(self.g, cell) {
                if self.done[n] {
                    continue;
                }
                self.done[n] = true;
                if self.z[n] <= level {
                    self.z[n] = level;
                    self.pit.push(n);
                } else {
                    self.trace(n);
                }
            }
        }
    }

    /// A cell's filled level is max(its own, its neighbours' lowest filled level), so an
    /// unvisited cell beside a settled one no higher than itself keeps its own level. Such
    /// cells are settled up the slope at once. A traced cell with another lower unvisited
    /// neighbour waits in the queue: that neighbour's level depends on ground not yet
    /// reached.
    fn trace(&mut self, start: usize) {
        self.slope.push(start);
        while let Some(cell) = self.slope.pop() {
            let level = self.z[cell];
            let mut waiting = false;
            for n in neighbours(self.g, cell) {
                if self.done[n] {
                    continue;
                }
                if self.z[n] >= level || self.beside_settled_no_higher(n) {
                    self.done[n] = true;
                    self.slope.push(n);
                } else if !waiting {
                    waiting = true;
                    self.open.push(level, cell);
                }
            }
        }
    }

    fn beside_settled_no_higher(&self, cell: usize) -> bool {
        let z = self.z[cell];
        neighbours(self.g, cell).any(|n| self.done[n] && self.z[n] <= z)
    }
}

#[cfg(test)]
mod tests {
    use super::{fill_depressions, neighbours, ordered_bits, RadixHeap};
    use crate::dem::Grid;
    use std::cmp::Reverse;
    use std::collections::{BinaryHeap, VecDeque};

    #[test]
    fn levels_order_by_their_bits() {
        let levels = [-5.5f32, -0.0, 0.0, 0.25, 144.76, 218.06];
        for w in levels.windows(2) {
            assert!(ordered_bits(w[0]) < ordered_bits(w[1]), "{w:?}");
        }
    }

    #[test]
    fn the_radix_heap_gives_levels_in_rising_order() {
        let mut h = RadixHeap::new();
        let z = [3.5f32, -1.0, 7.25, 3.5, 0.0, 100.0, -1.0];
        for (cell, &v) in z.iter().enumerate() {
            h.push(v, cell);
        }
        let first = h.pop().expect("seven queued");
        assert_eq!(z[first], -1.0);
        // Pushes at or above the last level taken are fine in between.
        h.push(-1.0, 7);
        h.push(5.0, 8);
        let mut got = vec![z[first]];
        let zl = |c: usize| if c < 7 { z[c] } else { [-1.0, 5.0][c - 7] };
        while let Some(c) = h.pop() {
            got.push(zl(c));
        }
        assert_eq!(got, [-1.0, -1.0, -1.0, 0.0, 3.5, 3.5, 5.0, 7.25, 100.0]);
    }

    /// The conditioning this module replaced, kept as the oracle: single-cell pits raised
    /// to their lowest neighbour, then the plain priority-flood on a binary heap (every
    /// cell above its filler through the heap), on f64 as it was.
    fn old_fill(g: &Grid, elevation_m: &[f32]) -> Vec<f64> {
        let mut z: Vec<f64> = elevation_m.iter().map(|&v| f64::from(v)).collect();
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
        let key = |z: f64, cell: usize| (u64::from(ordered_bits(z as f32)) << 32) | cell as u64;
        let mut done: Vec<bool> = z.iter().map(|v| v.is_nan()).collect();
        let mut open = BinaryHeap::new();
        for cell in 0..g.len() {
            if !done[cell] && (g.on_edge(cell) || neighbours(g, cell).any(|n| z[n].is_nan())) {
                done[cell] = true;
                open.push(Reverse(key(z[cell], cell)));
            }
        }
        let mut pit = VecDeque::new();
        loop {
            let cell = match pit.pop_front() {
                Some(c) => c,
                None => match open.pop() {
                    Some(Reverse(k)) => (k & u64::from(u32::MAX)) as usize,
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
                    open.push(Reverse(key(z[n], n)));
                }
            }
        }
        z
    }

    fn grid(width: usize, height: usize) -> Grid {
        Grid {
            width,
            height,
            x0_m: 0.0,
            y0_m: 0.0,
            dx_m: 1.0,
            dy_m: 1.0,
        }
    }

    /// Cell by cell, bits included (NaN where no data on both sides); the number of cells
    /// the fill raised.
    fn assert_same_fill(g: &Grid, elevation_m: &[f32], what: &str) -> usize {
        let t0 = std::time::Instant::now();
        let old = old_fill(g, elevation_m);
        let t1 = std::time::Instant::now();
        let mut new = elevation_m.to_vec();
        fill_depressions(g, &mut new);
        let t2 = std::time::Instant::now();
        let mut raised = 0;
        for (cell, (&a, &b)) in old.iter().zip(&new).enumerate() {
            assert!(
                a.is_nan() && b.is_nan() || a == f64::from(b),
                "{what}: cell {cell} filled to {b} now, {a} by the old fill"
            );
            raised += usize::from(!a.is_nan() && f64::from(elevation_m[cell]) != a);
        }
        if g.len() > 10_000 {
            eprintln!(
                "{what}: same fill, {raised} cells raised (old {:?}, new {:?}; not a test)",
                t1 - t0,
                t2 - t1
            );
        }
        raised
    }

    /// A tiny deterministic generator (xorshift), so every run checks the same grids.
    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    #[test]
    fn the_traced_fill_equals_the_plain_priority_flood_on_random_grids() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut raised = 0;
        for case in 0..400 {
            let (w, h) = (3 + rng.below(30) as usize, 3 + rng.below(30) as usize);
            let g = grid(w, h);
            // Few distinct levels make plateaus and ties; a tilt makes long slopes; some
            // cells have no data.
            let levels = 1 + rng.below(if case % 2 == 0 { 4 } else { 1000 });
            let tilt = rng.below(3) as f32;
            let holes = rng.below(4);
            let z: Vec<f32> = (0..g.len())
                .map(|c| {
                    if holes > 0 && rng.below(40) < holes {
                        f32::NAN
                    } else {
                        rng.below(levels) as f32 * 0.5 + tilt * (c / w) as f32 - 3.0
                    }
                })
                .collect();
            raised += assert_same_fill(&g, &z, &format!("case {case}, {w} x {h}"));
        }
        assert!(
            raised > 1000,
            "the grids hold depressions ({raised} cells raised)"
        );
    }

    #[test]
    fn a_pit_beside_a_slope_is_filled_by_the_trace() {
        // A slope rising east; the cell at (2, 3) lies below all its neighbours, which the
        // trace from the west edge reaches first.
        let g = grid(6, 5);
        let mut z: Vec<f32> = (0..g.len()).map(|c| (c % 6) as f32).collect();
        z[2 * 6 + 3] = -1.0;
        let mut filled = z.clone();
        fill_depressions(&g, &mut filled);
        assert_eq!(filled[2 * 6 + 3], 2.0, "raised to its lowest neighbour");
        assert_eq!(assert_same_fill(&g, &z, "pit beside a slope"), 1);
    }

    #[test]
    fn the_traced_fill_equals_the_plain_priority_flood_on_johnson() {
        let Some(path) = crate::real_data("stormcatchments/johnson_vt/dem.tif") else {
            return;
        };
        let raw = crate::dem::read::read(&path, None).expect("Johnson DEM reads");
        let mut z = raw.elevation_m;
        crate::dem::mask_nodata(&mut z, raw.nodata);
        let raised = assert_same_fill(&raw.grid, &z, "Johnson");
        assert!(
            raised > 10_000,
            "Johnson has depressions ({raised} cells raised)"
        );
    }
}

//! Catchments on the D8 grid: a pour point snapped to the accumulation threshold, the cells
//! upstream of it, and the result types of a sewershed.

use super::flow::{around, drains_into};
use super::Dem;
use crate::area::SQ_M_PER_ACRE;
use crate::budget::check_spent;
use crate::config::StructureKind;
use crate::error::{Error, Result};
use serde::Serialize;

/// A set of DEM cells and its planar area in the DEM's projected CRS.
#[derive(Debug, Clone, Serialize)]
pub struct Catchment {
    /// Cell indices (row-major), ascending.
    #[serde(skip)]
    pub cells: Vec<u32>,
    pub cell_count: usize,
    pub area_m2: f64,
    pub area_acres: f64,
}

impl Catchment {
    pub(super) fn of(dem: &Dem, cells: Vec<u32>) -> Catchment {
        let area_m2 = cells.len() as f64 * dem.grid.cell_area_m2();
        Catchment {
            cell_count: cells.len(),
            area_m2: (area_m2 * 100.0).round() / 100.0,
            area_acres: (area_m2 / SQ_M_PER_ACRE * 10_000.0).round() / 10_000.0,
            cells,
        }
    }

    pub fn contains(&self, cell: usize) -> bool {
        self.cells.binary_search(&(cell as u32)).is_ok()
    }
}

/// A structure whose surface catchment the network-aware catchment added or removed.
#[derive(Debug, Clone, Serialize)]
pub struct SewershedInlet {
    pub id: String,
    pub kind: StructureKind,
    /// Lon/lat.
    pub at: [f64; 2],
    /// Why: the outfall inside whose pipes it reaches ("added"), or the outfalls outside
    /// its pipes lead to ("removed").
    pub via: Vec<String>,
    /// Cells of its own surface catchment.
    pub cells: usize,
}

/// The surface and network-aware catchments of one pour point.
#[derive(Debug, Clone, Serialize)]
pub struct Sewershed {
    /// The pour point as given (lon/lat) and in the DEM's CRS.
    pub pour_point: [f64; 2],
    pub pour_point_dem: [f64; 2],
    /// The north-west corner of the cell it snapped to, in the DEM's CRS (pysheds' convention).
    pub snapped_dem: [f64; 2],
    pub snap_threshold_cells: u32,
    pub dem_crs: String,
    /// How areas are measured.
    pub area_method: String,
    pub surface: Catchment,
    pub network: Catchment,
    /// Structures outside whose pipes reach an outfall inside: their land is added.
    pub added: Vec<SewershedInlet>,
    /// Inlets inside piped to outfalls outside: their land is removed.
    pub removed: Vec<SewershedInlet>,
    /// Rounds of adding and removing until nothing changed.
    pub rounds: usize,
}

impl Dem {
    /// The cell a point (x, y in the DEM's CRS) snaps to: of the cells whose accumulation
    /// exceeds the threshold, the one whose north-west corner is nearest, as pysheds'
    /// `snap_to_mask` measures it. None when the point is off the raster or no cell
    /// qualifies.
    pub fn snap(&self, x: f64, y: f64) -> Option<usize> {
        let g = &self.grid;
        let start = g.cell_at(x, y)?;
        let (r0, c0) = ((start / g.width) as isize, (start % g.width) as isize);
        let step_m = g.dx_m.min(g.dy_m);
        let mut best: Option<(f64, usize)> = None;
        for ring in 0..=(g.width.max(g.height) as isize) {
            if best.is_some_and(|(d2, _)| ((ring - 1) as f64 * step_m).powi(2) > d2) {
                break;
            }
            for (r, c) in ring_cells(r0, c0, ring) {
                if r < 0 || c < 0 || r as usize >= g.height || c as usize >= g.width {
                    continue;
                }
                let cell = r as usize * g.width + c as usize;
                if self.accumulation[cell] <= self.snap_threshold_cells {
                    continue;
                }
                let [cx, cy] = g.corner(cell);
                let d2 = (cx - x).powi(2) + (cy - y).powi(2);
                if best.is_none_or(|(b, bc)| d2 < b || (d2 == b && cell < bc)) {
                    best = Some((d2, cell));
                }
            }
        }
        best.map(|(_, c)| c)
    }

    /// Every cell draining to `cell` over the surface, itself included, ascending.
    pub fn upstream_cells(&self, cell: usize) -> Vec<u32> {
        // The check never refuses, so neither does the walk.
        self.upstream(cell, |_| Ok(())).unwrap_or_default()
    }

    /// `upstream_cells` for a request: refused once the land holds more than `max_cells`
    /// cells, and stopped when the budget the thread entered is spent.
    pub(super) fn upstream_within(&self, cell: usize, max_cells: usize) -> Result<Vec<u32>> {
        self.upstream(cell, |n| {
            if n > max_cells {
                return Err(self.too_large(max_cells));
            }
            if n % 65_536 == 0 {
                check_spent("delineating the catchment")?;
            }
            Ok(())
        })
    }

    /// The upstream walk, `grown(n)` told of each cell taken, the n-th, before its own.
    fn upstream(
        &self,
        cell: usize,
        mut grown: impl FnMut(usize) -> Result<()>,
    ) -> Result<Vec<u32>> {
        let mut out = vec![cell as u32];
        let mut i = 0;
        while i < out.len() {
            grown(out.len())?;
            let c = out[i] as usize;
            for (k, n) in around(&self.grid, c) {
                if drains_into(&self.direction, n, k) {
                    out.push(n as u32);
                }
            }
            i += 1;
        }
        out.sort_unstable();
        Ok(out)
    }

    /// A catchment over the cap of one request: refused by name, never cut short.
    pub(super) fn too_large(&self, max_cells: usize) -> Error {
        Error::Input(format!(
            "the catchment holds more than {max_cells} cells of the {} ({:.0} m²), more than one sewershed may (max_catchment_cells); choose a pour point further upstream",
            self.layer,
            max_cells as f64 * self.grid.cell_area_m2()
        ))
    }

    /// The surface catchment of a point in the DEM's CRS, with the cell it snapped to.
    pub fn surface_catchment(&self, x: f64, y: f64) -> Option<(usize, Catchment)> {
        let cell = self.snap(x, y)?;
        Some((cell, Catchment::of(self, self.upstream_cells(cell))))
    }
}

/// The cells at Chebyshev distance `ring` from (r0, c0).
fn ring_cells(r0: isize, c0: isize, ring: isize) -> Vec<(isize, isize)> {
    if ring == 0 {
        return vec![(r0, c0)];
    }
    let mut out = Vec::with_capacity(8 * ring as usize);
    for d in -ring..=ring {
        out.push((r0 - ring, c0 + d));
        out.push((r0 + ring, c0 + d));
    }
    for d in (1 - ring)..ring {
        out.push((r0 + d, c0 - ring));
        out.push((r0 + d, c0 + ring));
    }
    out
}

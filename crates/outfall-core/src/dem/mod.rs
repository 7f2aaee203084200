//! The terrain under the storm network: a `dem` layer (GeoTIFF) read once at load and
//! conditioned the way `stormcatchments` (through pysheds) does it — pits filled,
//! depressions filled (priority-flood, Barnes et al. 2014), flats resolved (Barnes et al.
//! 2014, by a gradient away from higher and towards lower ground) — then a D8 flow
//! direction and a flow accumulation. Catchments are read from these per request
//! without touching the elevations again.

mod catchment;
mod condition;
mod fill;
mod flow;
mod polygon;
mod read;
mod sewershed;

pub use catchment::{Catchment, Sewershed, SewershedInlet};
pub use flow::{D8_CODES, NO_DIRECTION};

use crate::config::LayerConfig;
use crate::error::{Error, Result};
use std::path::Path;
use std::time::Instant;

/// Where the cells lie in the DEM's CRS: the north-west corner of the first cell, the
/// cell size (both positive; rows run south), and the size in cells.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grid {
    pub width: usize,
    pub height: usize,
    pub x0_m: f64,
    pub y0_m: f64,
    pub dx_m: f64,
    pub dy_m: f64,
}

impl Grid {
    pub fn len(&self) -> usize {
        self.width * self.height
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The cell holding (x, y) in the DEM's CRS, if inside the raster.
    pub fn cell_at(&self, x: f64, y: f64) -> Option<usize> {
        let c = ((x - self.x0_m) / self.dx_m).floor();
        let r = ((self.y0_m - y) / self.dy_m).floor();
        let inside = c >= 0.0 && r >= 0.0 && c < self.width as f64 && r < self.height as f64;
        inside.then(|| r as usize * self.width + c as usize)
    }

    /// The north-west corner of a cell, in the DEM's CRS.
    pub fn corner(&self, cell: usize) -> [f64; 2] {
        let (r, c) = (cell / self.width, cell % self.width);
        [
            self.x0_m + c as f64 * self.dx_m,
            self.y0_m - r as f64 * self.dy_m,
        ]
    }

    pub fn on_edge(&self, cell: usize) -> bool {
        let (r, c) = (cell / self.width, cell % self.width);
        r == 0 || c == 0 || r + 1 == self.height || c + 1 == self.width
    }

    pub fn cell_area_m2(&self) -> f64 {
        self.dx_m * self.dy_m
    }
}

/// A loaded DEM with its conditioned surface, flow directions and accumulation.
#[derive(Debug, Clone)]
pub struct Dem {
    /// The file, as the manifest names it: for the load's messages to the operator.
    pub path: String,
    /// The layer as a request's answers name it ("dem layer"), never by its file.
    pub layer: String,
    /// The DEM's CRS (the manifest's `crs`, else its GeoKeys' EPSG code).
    pub crs: String,
    pub grid: Grid,
    pub nodata: Option<f64>,
    /// The elevations as read (NaN where no data).
    pub elevation_m: Vec<f32>,
    /// After depressions are filled (NaN where no data); a flat keeps its level and drains
    /// along its flat gradient. Filling only copies levels, so f32 holds them exactly.
    pub conditioned_m: Vec<f32>,
    /// pysheds' D8 codes (N=64 NE=128 E=1 SE=2 S=4 SW=8 W=16 NW=32); `NO_DIRECTION` on the
    /// edge and where there is no data: water leaves the raster there.
    pub direction: Vec<u8>,
    /// Cells draining through each cell, itself included (0 where no data).
    pub accumulation: Vec<u32>,
    /// A pour point snaps to the nearest cell whose accumulation exceeds this.
    pub snap_threshold_cells: u32,
    /// Milliseconds spent reading and spent conditioning + D8 + accumulation.
    pub read_ms: f64,
    pub condition_ms: f64,
}

/// No-data cells (the raster's no-data value, or not finite) as NaN, which every step of
/// conditioning reads as "water leaves here".
pub(super) fn mask_nodata(elevation_m: &mut [f32], nodata: Option<f64>) {
    for z in elevation_m.iter_mut() {
        if nodata.is_some_and(|nd| f64::from(*z) == nd) || !z.is_finite() {
            *z = f32::NAN;
        }
    }
}

impl Dem {
    /// Reads and conditions the DEM of a `dem` layer.
    pub fn load(dir: &Path, cfg: &LayerConfig, snap_threshold_cells: u32) -> Result<Dem> {
        let t0 = Instant::now();
        let raw = read::read(&dir.join(&cfg.path), cfg.crs.as_deref())?;
        let read_ms = ms(t0);
        let mut dem = Dem::from_cells(raw.grid, raw.elevation_m, raw.nodata, snap_threshold_cells);
        dem.path = cfg.path.display().to_string();
        dem.layer = format!("{} layer", cfg.role.as_str());
        dem.crs = raw.crs;
        dem.read_ms = read_ms;
        tracing::info!(
            path = %dem.path,
            cells = dem.grid.len(),
            read_ms,
            condition_ms = dem.condition_ms,
            "dem conditioned"
        );
        Ok(dem)
    }

    /// Reads the raster without conditioning it: what `outfall validate` checks layer by
    /// layer, before the whole load conditions it once.
    pub fn check(dir: &Path, cfg: &LayerConfig) -> Result<()> {
        read::read(&dir.join(&cfg.path), cfg.crs.as_deref()).map(|_| ())
    }

    /// A DEM from cells in memory (row-major, north row first), conditioned.
    pub fn from_cells(
        grid: Grid,
        mut elevation_m: Vec<f32>,
        nodata: Option<f64>,
        snap_threshold_cells: u32,
    ) -> Dem {
        mask_nodata(&mut elevation_m, nodata);
        let t0 = Instant::now();
        let (conditioned_m, flat_gradient) = condition::condition(&grid, &elevation_m);
        let direction = flow::d8(&grid, &conditioned_m, &flat_gradient);
        let accumulation = flow::accumulation(&grid, &direction, &conditioned_m);
        Dem {
            path: String::new(),
            layer: "dem layer".into(),
            crs: String::new(),
            grid,
            nodata,
            elevation_m,
            conditioned_m,
            direction,
            accumulation,
            snap_threshold_cells,
            read_ms: 0.0,
            condition_ms: ms(t0),
        }
    }

    /// The same DEM draining by another D8 grid (row-major, pysheds' codes; any other value,
    /// such as pysheds' -1 for a flat or -2 for a pit written as 0, drains nowhere), its
    /// accumulation recomputed. This is how a catchment is compared on a reference's own
    /// directions, apart from how each conditions the surface (scripts/stormcatchments-compare.sh).
    /// A grid of the wrong size, or whose directions run in a circle, is refused.
    pub fn with_directions(&self, direction: Vec<u8>) -> Result<Dem> {
        if direction.len() != self.grid.len() {
            return Err(Error::Input(format!(
                "a D8 grid of {} cells for the DEM {} of {} x {} = {} cells",
                direction.len(),
                self.path,
                self.grid.width,
                self.grid.height,
                self.grid.len()
            )));
        }
        if let Some(cell) = flow::in_a_cycle(&self.grid, &direction) {
            return Err(Error::Input(format!(
                "the D8 grid for the DEM {} runs in a circle (cell {cell}, row {} column {}, is on it or below it)",
                self.path,
                cell / self.grid.width,
                cell % self.grid.width
            )));
        }
        let accumulation = flow::accumulation(&self.grid, &direction, &self.conditioned_m);
        Ok(Dem {
            direction,
            accumulation,
            ..self.clone()
        })
    }

    pub fn has_data(&self, cell: usize) -> bool {
        !self.elevation_m[cell].is_nan()
    }
}

fn ms(t0: Instant) -> f64 {
    t0.elapsed().as_secs_f64() * 1000.0
}

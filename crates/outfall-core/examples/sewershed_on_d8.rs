//! The sewershed of a pour point on a data set's own DEM directions and, given a D8 grid
//! from elsewhere, on those: scripts/stormcatchments-compare.sh runs it with pysheds' grid
//! to compare the network-aware catchment of stormcatchments apart from how each
//! conditions the surface. Prints JSON: for each run the snapped cell, the surface and
//! network cells (row-major indices) and the structures added and removed.
//!
//! Usage: sewershed_on_d8 DATA_DIR X Y [D8_FILE [OWN_D8_OUT]]
//! X, Y are in the DEM's CRS; D8_FILE holds one byte a cell, row-major, north row first,
//! in pysheds' codes (0 where pysheds has none). OWN_D8_OUT receives the data set's own
//! directions in the same form, for the script to follow its cells' paths.

use outfall_core::dem::{Dem, Sewershed};
use outfall_core::Catalog;
use serde_json::{json, Value};
use std::error::Error;
use std::path::Path;

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        return Err("usage: sewershed_on_d8 DATA_DIR X Y [D8_FILE [OWN_D8_OUT]]".into());
    }
    let catalog = Catalog::open(Path::new(&args[0]))?;
    let dem = catalog
        .dem
        .as_ref()
        .ok_or_else(|| format!("{}: no dem layer loaded", args[0]))?;
    let xy = [args[1].parse::<f64>()?, args[2].parse::<f64>()?];
    let native = dem.sewershed_xy(catalog.storm.as_deref(), xy)?;
    let mut out = json!({ "native": summary(dem, &native) });
    if let Some(path) = args.get(3) {
        let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
        let other = dem
            .with_directions(bytes)
            .map_err(|e| format!("{path}: {e}"))?;
        let s = other.sewershed_xy(catalog.storm.as_deref(), xy)?;
        out["on_d8"] = summary(&other, &s);
    }
    if let Some(path) = args.get(4) {
        std::fs::write(path, &dem.direction).map_err(|e| format!("{path}: {e}"))?;
    }
    println!("{out}");
    Ok(())
}

fn summary(dem: &Dem, s: &Sewershed) -> Value {
    let cell = dem
        .grid
        .cell_at(s.snapped_dem[0] + 1e-6, s.snapped_dem[1] - 1e-6);
    json!({
        "snapped_cell": cell,
        "surface": s.surface.cells,
        "network": s.network.cells,
        "surface_m2": s.surface.area_m2,
        "network_m2": s.network.area_m2,
        "added": s.added,
        "removed": s.removed,
        "rounds": s.rounds,
    })
}

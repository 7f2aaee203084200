//! The network-aware catchment of `stormcatchments` (Ott, 0.4.1, `Delineate.get_stormcatchment`):
//! start from the surface catchment of the pour point; then, until a round changes nothing,
//! remove the land of inlets inside whose pipes lead only to outfalls outside, and add the
//! land of inlets outside whose pipes lead to an outfall inside. Each structure's land is
//! added or removed at most once, as the reference's `delineated` set has it.

use super::catchment::{Catchment, Sewershed, SewershedInlet};
use super::polygon::polygonize;
use super::Dem;
use crate::budget::check_spent;
use crate::error::{Error, Result};
use crate::storm::StormNetwork;
use geo::MapCoords;
use proj::Proj;
use serde_json::{json, Value};

/// What a round of the loop does to the cells `inside`.
struct Round<'a> {
    dem: &'a Dem,
    net: &'a StormNetwork,
    to_dem: &'a Proj,
    /// Each structure's point in the DEM's CRS, and the cell it snaps to.
    xy: Vec<[f64; 2]>,
    snapped: Vec<Option<usize>>,
    inside: Vec<bool>,
    /// Cells inside, never more than `max_cells`.
    count: usize,
    max_cells: usize,
    done: Vec<bool>,
    pour_cell: usize,
}

impl Dem {
    /// The surface and network-aware catchments of a pour point (lon/lat). Without a
    /// storm network both are the surface catchment.
    pub fn sewershed(&self, net: Option<&StormNetwork>, pour: [f64; 2]) -> Result<Sewershed> {
        self.sewershed_within(net, pour, usize::MAX)
    }

    /// `sewershed` for a request: refused when a catchment would hold more than
    /// `max_cells` cells, and stopped at its next step once the budget the thread entered
    /// is spent (`budget::check_spent`).
    pub fn sewershed_within(
        &self,
        net: Option<&StormNetwork>,
        pour: [f64; 2],
        max_cells: usize,
    ) -> Result<Sewershed> {
        let to_dem = self.proj_from_lonlat()?;
        let xy = self.convert(&to_dem, pour)?;
        let mut s = self.sewershed_with(net, &to_dem, xy, max_cells)?;
        s.pour_point = pour;
        Ok(s)
    }

    /// The same for a pour point in the DEM's CRS (the reference's own coordinates).
    pub fn sewershed_xy(&self, net: Option<&StormNetwork>, xy: [f64; 2]) -> Result<Sewershed> {
        let to_dem = self.proj_from_lonlat()?;
        let mut s = self.sewershed_with(net, &to_dem, xy, usize::MAX)?;
        let to_lonlat = Proj::new_known_crs(&self.crs, "EPSG:4326", None)
            .map_err(|e| self.projection_error(e))?;
        s.pour_point = self.convert(&to_lonlat, xy)?;
        Ok(s)
    }

    fn sewershed_with(
        &self,
        net: Option<&StormNetwork>,
        to_dem: &Proj,
        [x, y]: [f64; 2],
        max_cells: usize,
    ) -> Result<Sewershed> {
        let snapped = self.snap(x, y);
        check_spent("snapping the pour point")?;
        let Some(pour_cell) = snapped else {
            return Err(Error::Input(format!(
                "the point {x:.3},{y:.3} ({}) is off the {} or no cell near it drains more than {} cells",
                self.crs, self.layer, self.snap_threshold_cells
            )));
        };
        let surface = Catchment::of(self, self.upstream_within(pour_cell, max_cells)?);
        let mut out = Sewershed {
            pour_point: [f64::NAN; 2],
            pour_point_dem: [x, y],
            snapped_dem: self.grid.corner(pour_cell),
            snap_threshold_cells: self.snap_threshold_cells,
            dem_crs: self.crs.clone(),
            area_method: format!(
                "planar: cells x {} m x {} m in the DEM's CRS ({})",
                self.grid.dx_m, self.grid.dy_m, self.crs
            ),
            network: surface.clone(),
            surface,
            added: Vec::new(),
            removed: Vec::new(),
            rounds: 0,
        };
        let Some(net) = net else {
            return Ok(out);
        };
        let mut round = Round::new(self, net, to_dem, pour_cell, &out.surface, max_cells)?;
        loop {
            check_spent("a round of the network-aware catchment")?;
            out.rounds += 1;
            let removed = round.remove_piped_away()?;
            let added = round.add_piped_in()?;
            let changed = !(removed.is_empty() && added.is_empty());
            out.removed.extend(removed);
            out.added.extend(added);
            if !changed {
                break;
            }
        }
        let cells = (0..round.inside.len())
            .filter(|&c| round.inside[c])
            .map(|c| c as u32)
            .collect();
        out.network = Catchment::of(self, cells);
        Ok(out)
    }

    /// A catchment's cells as a MultiPolygon in the DEM's CRS.
    pub fn polygon(&self, c: &Catchment) -> geo_types::MultiPolygon<f64> {
        polygonize(&self.grid, &c.cells)
    }

    fn proj_from_lonlat(&self) -> Result<Proj> {
        Proj::new_known_crs("EPSG:4326", &self.crs, None).map_err(|e| self.projection_error(e))
    }

    fn projection_error(&self, e: impl std::fmt::Display) -> Error {
        Error::Projection {
            path: self.layer.clone().into(),
            crs: self.crs.clone(),
            reason: e.to_string(),
        }
    }

    fn convert(&self, p: &Proj, at: [f64; 2]) -> Result<[f64; 2]> {
        p.convert((at[0], at[1]))
            .map(|(x, y)| [x, y])
            .map_err(|e| self.projection_error(e))
    }

    /// The sewershed as GeoJSON (lon/lat): the surface and the network catchment as
    /// MultiPolygons with their areas, and the structures added and removed as points.
    pub fn sewershed_geojson(&self, s: &Sewershed) -> Result<Value> {
        let to_lonlat = Proj::new_known_crs(&self.crs, "EPSG:4326", None)
            .map_err(|e| self.projection_error(e))?;
        let mut features = Vec::new();
        for (id, c) in [("surface", &s.surface), ("network", &s.network)] {
            check_spent("tracing the catchment's outline")?;
            let poly = polygonize(&self.grid, &c.cells).map_coords(|p| {
                let (x, y) = to_lonlat
                    .convert((p.x, p.y))
                    .unwrap_or((f64::NAN, f64::NAN));
                geo::Coord { x, y }
            });
            features.push(json!({
                "type": "Feature",
                "id": id,
                "geometry": geojson::Geometry::from(&geo_types::Geometry::MultiPolygon(poly)),
                "properties": {
                    "kind": format!("{id}_catchment"),
                    "area_m2": c.area_m2,
                    "area_acres": c.area_acres,
                    "cells": c.cell_count,
                },
            }));
        }
        for (role, list) in [("added", &s.added), ("removed", &s.removed)] {
            for i in list {
                features.push(json!({
                    "type": "Feature",
                    "id": i.id,
                    "geometry": {"type": "Point", "coordinates": i.at},
                    "properties": {"kind": i.kind, "role": role, "via": i.via, "cells": i.cells},
                }));
            }
        }
        let mut meta = serde_json::to_value(s).unwrap_or(Value::Null);
        if let Value::Object(m) = &mut meta {
            m.insert("type".into(), json!("FeatureCollection"));
            m.insert("features".into(), Value::Array(features));
        }
        Ok(meta)
    }
}

impl<'a> Round<'a> {
    fn new(
        dem: &'a Dem,
        net: &'a StormNetwork,
        to_dem: &'a Proj,
        pour_cell: usize,
        surface: &Catchment,
        max_cells: usize,
    ) -> Result<Round<'a>> {
        let xy = net
            .structures
            .iter()
            .map(|s| dem.convert(to_dem, s.at))
            .collect::<Result<Vec<_>>>()?;
        let snapped = xy.iter().map(|p| dem.snap(p[0], p[1])).collect();
        let mut inside = vec![false; dem.grid.len()];
        for &c in &surface.cells {
            inside[c as usize] = true;
        }
        Ok(Round {
            dem,
            net,
            to_dem,
            done: vec![false; xy.len()],
            xy,
            snapped,
            inside,
            count: surface.cells.len(),
            max_cells,
            pour_cell,
        })
    }

    /// Whether a structure's point lies in a cell of the catchment.
    fn is_inside(&self, s: usize) -> bool {
        let [x, y] = self.xy[s];
        self.dem.grid.cell_at(x, y).is_some_and(|c| self.inside[c])
    }

    /// The structure at a node id, when a structure carries it.
    fn structure_of(&self, id: &str) -> Option<usize> {
        self.net.structure(id)
    }

    /// Whether a lon/lat point (where pipes end, with or without a structure) lies inside.
    fn point_inside(&self, at: [f64; 2]) -> bool {
        let Ok([x, y]) = self.dem.convert(self.to_dem, at) else {
            return false;
        };
        self.dem.grid.cell_at(x, y).is_some_and(|c| self.inside[c])
    }

    /// Inlets inside whose every outfall lies outside: their land leaves by pipe. The land
    /// of an inlet that holds the pour point itself is kept, or nothing would remain.
    /// Which inlets go is decided on the catchment as the round found it, as the
    /// reference's `get_outlet_points` does, so that it does not depend on the order the
    /// inlets are visited in (one inlet's land may hold another's point).
    fn remove_piped_away(&mut self) -> Result<Vec<SewershedInlet>> {
        let mut planned = Vec::new();
        for s in 0..self.xy.len() {
            if self.done[s] || !self.net.structures[s].kind.takes_runoff() || !self.is_inside(s) {
                continue;
            }
            check_spent("tracing an inlet's pipes")?;
            let down = self.net.downstream(&[s]);
            // Where the pipes end counts, structure or bare pipe end; an inlet whose trace
            // meets an undecided pipe may reach more, so its land stays.
            let leaves = !down.outfalls.is_empty()
                && down.undecided.is_empty()
                && down.outfalls.iter().all(|o| !self.point_inside(o.at));
            let Some(cell) = self.snapped[s].filter(|_| leaves) else {
                continue;
            };
            let cells = self.dem.upstream_within(cell, self.max_cells)?;
            if cells.binary_search(&(self.pour_cell as u32)).is_ok() {
                continue;
            }
            let via = down.outfalls.iter().map(|o| o.id.clone()).collect();
            planned.push((s, via, cells));
        }
        self.apply(planned, false)
    }

    /// Inlets outside whose pipes reach an outfall inside: their land drains here. As the
    /// reference's `get_inlet_points` does, every inlet outside the catchment as the round
    /// found it counts, even when the land of another added in the same round holds its
    /// point: its land is that of the cell it snaps to, which may reach further.
    fn add_piped_in(&mut self) -> Result<Vec<SewershedInlet>> {
        let mut planned = Vec::new();
        for o in 0..self.xy.len() {
            if !self.net.structures[o].kind.discharges() || !self.is_inside(o) {
                continue;
            }
            check_spent("tracing an outfall's pipes")?;
            let Some(up) = self.net.upstream(&self.net.structures[o].id) else {
                continue;
            };
            for r in &up.structures {
                let Some(s) = self.structure_of(&r.id) else {
                    continue;
                };
                if self.done[s] || !r.kind.takes_runoff() || self.is_inside(s) {
                    continue;
                }
                let Some(cell) = self.snapped[s] else {
                    continue;
                };
                self.done[s] = true;
                let land = self.dem.upstream_within(cell, self.max_cells)?;
                planned.push((s, vec![up.outfall.clone()], land));
            }
        }
        self.apply(planned, true)
    }

    /// Adds or removes the planned structures' land, each marked done; refused when the
    /// catchment grows past the cap.
    fn apply(
        &mut self,
        planned: Vec<(usize, Vec<String>, Vec<u32>)>,
        add: bool,
    ) -> Result<Vec<SewershedInlet>> {
        let mut out = Vec::with_capacity(planned.len());
        for (s, via, cells) in planned {
            self.done[s] = true;
            for &c in &cells {
                let was = std::mem::replace(&mut self.inside[c as usize], add);
                match (was, add) {
                    (false, true) => self.count += 1,
                    (true, false) => self.count -= 1,
                    _ => {}
                }
            }
            if self.count > self.max_cells {
                return Err(self.dem.too_large(self.max_cells));
            }
            out.push(self.inlet(s, via, cells.len()));
        }
        Ok(out)
    }

    fn inlet(&self, s: usize, via: Vec<String>, cells: usize) -> SewershedInlet {
        let st = &self.net.structures[s];
        SewershedInlet {
            id: st.id.clone(),
            kind: st.kind,
            at: st.at,
            via,
            cells,
        }
    }
}

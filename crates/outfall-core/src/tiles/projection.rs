//! WGS84 degrees to the pixels of one tile (y down), without trigonometry per vertex.
//!
//! Web Mercator's y is `M(φ) = ln(tan φ + sec φ)`, a smooth function of the latitude. A
//! table of degree-4 Taylor polynomials, one per 0.01° of latitude (17,011 of them, 680 KB,
//! built once), gives `M` within about 1e-16 of the formula everywhere in ±85.05° (the next
//! term is `M⁽⁵⁾·h⁵/120` with `h` ≤ 0.005°, under 1e-15 even at the edge of the square
//! world): the same as the formula's own rounding, so a vertex quantizes to the pixel the
//! formula gives (`tests/tiles.rs` checks it vertex by vertex on real parcels). One table
//! for every tile, rather than one polynomial per tile, because a parcel crossing a tile
//! drags in vertices far outside it that the clip still needs exactly. A projected copy kept
//! at load would save even this, but costs 16 bytes per vertex for the life of the process.

use super::MAX_LATITUDE_DEG;
use geo_types::{coord, Coord};
use std::f64::consts::PI;
use std::sync::OnceLock;

/// Latitude step of the table, degrees.
const STEP_DEG: f64 = 0.01;
const BANDS_PER_DEG: f64 = 1.0 / STEP_DEG;

/// WGS84 degrees to the unit WebMercator square: x east from 0 (180°W) to 1, y south from 0
/// (top, [`MAX_LATITUDE_DEG`]) to 1.
pub(super) fn lonlat_to_world(lon_deg: f64, lat_deg: f64) -> Coord<f64> {
    let lat_rad = lat_deg
        .clamp(-MAX_LATITUDE_DEG, MAX_LATITUDE_DEG)
        .to_radians();
    coord! {
        x: (lon_deg + 180.0) / 360.0,
        y: (1.0 - (lat_rad.tan() + 1.0 / lat_rad.cos()).ln() / PI) / 2.0,
    }
}

/// `M(φ0 + d) = c[0] + d·(c[1] + d·(c[2] + d·(c[3] + d·c[4])))`, `d` in radians, about the
/// middle `φ0` of each 0.01° band from −[`MAX_LATITUDE_DEG`].
fn table() -> &'static [[f64; 5]] {
    static TABLE: OnceLock<Vec<[f64; 5]>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let bands = (2.0 * MAX_LATITUDE_DEG / STEP_DEG).ceil() as usize;
        (0..bands)
            .map(|i| {
                let phi = band_middle_deg(i).to_radians();
                let (s, t) = (1.0 / phi.cos(), phi.tan());
                // M = asinh(tan φ), the same as ln(tan φ + sec φ) without its cancelling
                // sum in the south; M' = s, M'' = s·t, M''' = s·t² + s³,
                // M'''' = s·t³ + 5·s³·t; each over k!.
                [
                    t.asinh(),
                    s,
                    s * t / 2.0,
                    (s * t * t + s * s * s) / 6.0,
                    (s * t * t * t + 5.0 * s * s * s * t) / 24.0,
                ]
            })
            .collect()
    })
}

fn band_middle_deg(i: usize) -> f64 {
    -MAX_LATITUDE_DEG + (i as f64 + 0.5) * STEP_DEG
}

/// `M(φ)` for a latitude in degrees (clamped to ±[`MAX_LATITUDE_DEG`]), from the table.
#[inline]
fn mercator_y(lat_deg: f64) -> f64 {
    let table = table();
    let lat = lat_deg.clamp(-MAX_LATITUDE_DEG, MAX_LATITUDE_DEG);
    // A NaN casts to band 0 and stays NaN.
    // A multiplication, not a division by the step: it can only move a latitude on a band
    // edge into the band beside it, whose polynomial is as good there.
    let i = (((lat + MAX_LATITUDE_DEG) * BANDS_PER_DEG) as usize).min(table.len() - 1);
    let c = &table[i];
    let d = (lat - band_middle_deg(i)).to_radians();
    c[0] + d * (c[1] + d * (c[2] + d * (c[3] + d * c[4])))
}

const HALF_OVER_PI: f64 = 0.5 / PI;

/// Maps WGS84 degrees to the pixels of one tile (y down), as floats.
#[derive(Debug, Clone, Copy)]
pub struct TileProjection {
    pixels_per_world: f64,
    origin_x_px: f64,
    origin_y_px: f64,
}

impl TileProjection {
    /// The projection for `tile` at `extent` pixels per side.
    pub fn new(tile: super::TileId, extent: u32) -> Self {
        let extent = f64::from(extent);
        TileProjection {
            pixels_per_world: f64::from(tile.tiles_per_side()) * extent,
            origin_x_px: f64::from(tile.x) * extent,
            origin_y_px: f64::from(tile.y) * extent,
        }
    }

    /// Pixels of a lon/lat position (degrees), y down, with the latitude from the table.
    #[inline]
    pub fn project(&self, lonlat: Coord<f64>) -> Coord<f64> {
        // y = (1 − M/π)/2, with the division folded into a constant (a vertex's pixel moves
        // by under 1e-7 of a pixel at z24, far inside the 1e-6 ties of tests/tile_projection).
        let world_y = 0.5 - mercator_y(lonlat.y) * HALF_OVER_PI;
        coord! {
            x: (lonlat.x + 180.0) / 360.0 * self.pixels_per_world - self.origin_x_px,
            y: world_y * self.pixels_per_world - self.origin_y_px,
        }
    }

    /// Pixels of a lon/lat position by the Web Mercator formula itself.
    pub fn project_exactly(&self, lonlat: Coord<f64>) -> Coord<f64> {
        let world = lonlat_to_world(lonlat.x, lonlat.y);
        coord! {
            x: world.x * self.pixels_per_world - self.origin_x_px,
            y: world.y * self.pixels_per_world - self.origin_y_px,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Over the whole latitude range, band edges included, the table gives M within a few
    /// units of f64 rounding of `asinh(tan φ)` (the same function, better conditioned in the
    /// south than `ln(tan φ + sec φ)`, whose sum cancels there).
    #[test]
    fn table_agrees_with_the_formula() {
        let exact = |lat: f64| {
            lat.clamp(-MAX_LATITUDE_DEG, MAX_LATITUDE_DEG)
                .to_radians()
                .tan()
                .asinh()
        };
        let mut worst: f64 = 0.0;
        let n = 2_000_000;
        for i in 0..=n {
            let lat = -86.0 + 172.0 * f64::from(i) / f64::from(n);
            let (a, b) = (mercator_y(lat), exact(lat));
            // Relative to M's size, as the formula's own error is (ln of a number near 1
            // has an absolute error of about 1e-16).
            worst = worst.max((a - b).abs() / b.abs().max(1.0));
        }
        assert!(worst < 2e-15, "worst relative error {worst:e}");
    }

    /// At every zoom up to 24 a projected vertex is within 1e-3 pixel of the formula's pixel
    /// (at high zoom both carry the f64 rounding of a pixel count near 2^36).
    #[test]
    fn pixels_agree_with_the_formula_at_every_zoom() {
        for z in 0..=24u8 {
            for lat in [
                -85.05, -60.3, -0.001, 0.0, 12.5, 42.075, 43.166, 70.0, 85.05,
            ] {
                let tile = super::super::TileId::from_lonlat(-71.475, lat, z).unwrap();
                let p = TileProjection::new(tile, 4096);
                for k in -500..=500 {
                    let c = coord! { x: -71.475, y: lat + f64::from(k) * 1.3e-5 };
                    let (fast, exact) = (p.project(c), p.project_exactly(c));
                    assert_eq!(fast.x, exact.x);
                    assert!(
                        (fast.y - exact.y).abs() < 1e-3,
                        "z{z} {c:?}: {fast:?} {exact:?}"
                    );
                }
            }
        }
    }
}

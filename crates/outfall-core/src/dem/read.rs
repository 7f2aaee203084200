//! Reading a single-band GeoTIFF DEM with the `tiff` crate: the cells, where they lie
//! (ModelPixelScale + ModelTiepoint, or an axis-aligned ModelTransformation), the value
//! that means "no data" (GDAL_NODATA) and the CRS (the manifest's, else the GeoKeys').
//! A rotated, warped or unreadable raster is refused with the file named.

use super::Grid;
use crate::error::{Error, Result};
use std::path::Path;
use tiff::decoder::{ChunkType, Decoder, DecodingResult, Limits};
use tiff::tags::Tag;
use tiff::ColorType;

/// A DEM as read: its grid, cells (row-major, north row first), no-data value and CRS.
pub struct RawDem {
    pub grid: Grid,
    pub elevation_m: Vec<f32>,
    pub nodata: Option<f64>,
    pub crs: String,
}

/// GeoKeys: GTRasterTypeGeoKey, GeographicTypeGeoKey, ProjectedCSTypeGeoKey.
const RASTER_TYPE_KEY: u16 = 1025;
const GEOGRAPHIC_KEY: u16 = 2048;
const PROJECTED_KEY: u16 = 3072;
const PIXEL_IS_POINT: u16 = 2;
const USER_DEFINED: u16 = 32767;

pub fn read(path: &Path, crs_override: Option<&str>) -> Result<RawDem> {
    let bad = |reason: String| Error::format(path, format!("dem layer: {reason}"));
    let mut d = open(path)?;
    let (w, h) = d
        .dimensions()
        .map_err(|e| bad(format!("no image size: {e}")))?;
    match d.colortype() {
        Ok(ColorType::Gray(_)) => {}
        Ok(other) => {
            return Err(bad(format!(
                "needs one band of elevations, found {other:?}"
            )))
        }
        Err(e) => return Err(bad(format!("unreadable sample layout: {e}"))),
    }
    let keys = d
        .get_tag_u16_vec(Tag::GeoKeyDirectoryTag)
        .unwrap_or_default();
    let mut grid = placement(&mut d, w as usize, h as usize).map_err(bad)?;
    if geokey(&keys, RASTER_TYPE_KEY) == Some(PIXEL_IS_POINT) {
        // The tiepoint names a cell's centre, not its corner.
        grid.x0_m -= grid.dx_m / 2.0;
        grid.y0_m += grid.dy_m / 2.0;
    }
    let nodata = d
        .get_tag_ascii_string(Tag::GdalNodata)
        .ok()
        .and_then(|s| s.trim_matches(char::from(0)).trim().parse::<f64>().ok());
    let crs = match crs_override {
        Some(c) => c.to_string(),
        None => crs_of(&keys).ok_or_else(|| {
            bad("no EPSG code in its GeoKeys; set `crs` on the layer (e.g. \"EPSG:6589\")".into())
        })?,
    };
    let elevation_m = cells(path, &mut d).map_err(bad)?;
    if elevation_m.len() != grid.width * grid.height {
        return Err(bad(format!(
            "{} cells read for a {}x{} raster",
            elevation_m.len(),
            grid.width,
            grid.height
        )));
    }
    Ok(RawDem {
        grid,
        elevation_m,
        nodata,
        crs,
    })
}

type Reader = std::io::BufReader<std::fs::File>;

fn open(path: &Path) -> Result<Decoder<Reader>> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    Decoder::new(std::io::BufReader::new(file))
        .map(|d| d.with_limits(Limits::unlimited()))
        .map_err(|e| Error::format(path, format!("dem layer: not a readable TIFF: {e}")))
}

/// The cells, row-major. A raster in strips (Johnson's: 1,857 deflated rows) is decoded in
/// two halves at once, each by its own decoder: inflating was most of the read.
fn cells(path: &Path, d: &mut Decoder<Reader>) -> std::result::Result<Vec<f32>, String> {
    let strips = match d.get_chunk_type() {
        ChunkType::Strip => d.strip_count().unwrap_or(0),
        ChunkType::Tile => 0,
    };
    if strips < 2 {
        let cells = d
            .read_image()
            .map_err(|e| format!("cannot decode the cells: {e}"))?;
        return as_f32(cells).ok_or_else(|| "unsupported sample type".into());
    }
    let half = strips / 2;
    // The first half on the decoder already open; the second on one of its own.
    let (first, second) = rayon::join(
        || strips_of(d, 0..half),
        || {
            let mut own = open(path).map_err(|e| e.to_string())?;
            strips_of(&mut own, half..strips)
        },
    );
    let mut out = first?;
    out.extend(second?);
    Ok(out)
}

/// The cells of a run of strips, in order.
fn strips_of(
    d: &mut Decoder<Reader>,
    strips: std::ops::Range<u32>,
) -> std::result::Result<Vec<f32>, String> {
    let mut out = Vec::new();
    for i in strips {
        let strip = d
            .read_chunk(i)
            .map_err(|e| format!("cannot decode strip {i}: {e}"))?;
        out.extend(as_f32(strip).ok_or("unsupported sample type")?);
    }
    Ok(out)
}

/// The grid from ModelPixelScale + one ModelTiepoint, or from an axis-aligned
/// ModelTransformation; anything rotated or warped (several tiepoints) is refused.
fn placement<R: std::io::Read + std::io::Seek>(
    d: &mut Decoder<R>,
    width: usize,
    height: usize,
) -> std::result::Result<Grid, String> {
    let grid = |x0_m: f64, y0_m: f64, dx_m: f64, dy_m: f64| Grid {
        width,
        height,
        x0_m,
        y0_m,
        dx_m,
        dy_m,
    };
    if let Ok(t) = d.get_tag_f64_vec(Tag::ModelTransformationTag) {
        if t.len() < 8 || t[1] != 0.0 || t[4] != 0.0 {
            return Err("the raster is rotated or sheared (ModelTransformation); warp it to a north-up grid first".into());
        }
        return checked(grid(t[3], t[7], t[0], -t[5]));
    }
    let scale = d
        .get_tag_f64_vec(Tag::ModelPixelScaleTag)
        .map_err(|_| "no ModelPixelScale: not a georeferenced GeoTIFF".to_string())?;
    let tie = d
        .get_tag_f64_vec(Tag::ModelTiepointTag)
        .map_err(|_| "no ModelTiepoint: not a georeferenced GeoTIFF".to_string())?;
    if scale.len() < 2 || tie.len() < 6 {
        return Err("ModelPixelScale or ModelTiepoint is too short".into());
    }
    if tie.len() > 6 {
        return Err(format!(
            "{} tiepoints: a warped raster; warp it to a north-up grid first",
            tie.len() / 6
        ));
    }
    let (dx, dy) = (scale[0], scale[1]);
    checked(grid(tie[3] - tie[0] * dx, tie[4] + tie[1] * dy, dx, dy))
}

fn checked(g: Grid) -> std::result::Result<Grid, String> {
    let ok = |v: f64| v.is_finite();
    if !(ok(g.x0_m) && ok(g.y0_m) && g.dx_m > 0.0 && g.dy_m > 0.0 && ok(g.dx_m) && ok(g.dy_m)) {
        return Err(format!(
            "cell size {} x {} at ({}, {}) is not a north-up grid",
            g.dx_m, g.dy_m, g.x0_m, g.y0_m
        ));
    }
    if g.width < 3 || g.height < 3 {
        return Err(format!(
            "{}x{} cells is too small for a DEM",
            g.width, g.height
        ));
    }
    Ok(g)
}

/// A GeoKey's value when it is held in the directory itself.
fn geokey(keys: &[u16], id: u16) -> Option<u16> {
    keys.get(4..)?
        .chunks_exact(4)
        .find(|k| k[0] == id && k[1] == 0)
        .map(|k| k[3])
}

fn crs_of(keys: &[u16]) -> Option<String> {
    [PROJECTED_KEY, GEOGRAPHIC_KEY]
        .into_iter()
        .filter_map(|k| geokey(keys, k))
        .find(|&code| code != 0 && code != USER_DEFINED)
        .map(|code| format!("EPSG:{code}"))
}

fn as_f32(cells: DecodingResult) -> Option<Vec<f32>> {
    Some(match cells {
        DecodingResult::F32(v) => v,
        DecodingResult::F64(v) => v.into_iter().map(|x| x as f32).collect(),
        DecodingResult::I16(v) => v.into_iter().map(f32::from).collect(),
        DecodingResult::U16(v) => v.into_iter().map(f32::from).collect(),
        DecodingResult::I32(v) => v.into_iter().map(|x| x as f32).collect(),
        DecodingResult::U32(v) => v.into_iter().map(|x| x as f32).collect(),
        DecodingResult::U8(v) => v.into_iter().map(f32::from).collect(),
        DecodingResult::I8(v) => v.into_iter().map(f32::from).collect(),
        _ => return None,
    })
}

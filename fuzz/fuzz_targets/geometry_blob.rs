//! The GeoPackage geometry blob and WKB reader (`load::wkb`), which every GeoPackage upload
//! and every registry row is read through: any bytes as a blob, and as WKB. Nothing may
//! panic, abort on an allocation or overflow the stack; a geometry that reads, with finite
//! coordinates, must read back the same once geozero writes it again. (A NaN ring is not:
//! geo-types closes a ring whose first and last positions differ, and NaN differs from
//! itself, so each reading adds a position. `check_geometry` refuses it in every caller.)
#![no_main]
use geo::CoordsIter;
use geozero::{CoordDimensions, ToWkb};
use libfuzzer_sys::fuzz_target;
use outfall::load::wkb;

fuzz_target!(|data: &[u8]| {
    if let Ok(Some(g)) = wkb::from_gpkg(data) {
        reads_back(&g);
    }
    if let Ok(g) = wkb::from_wkb(data) {
        reads_back(&g);
    }
});

fn reads_back(g: &geo_types::Geometry<f64>) {
    if g.coords_iter().any(|c| !c.x.is_finite() || !c.y.is_finite()) {
        return;
    }
    let Ok(written) = g.to_wkb(CoordDimensions::xy()) else {
        return;
    };
    let again = wkb::from_wkb(&written).expect("what geozero writes reads back");
    assert_eq!(&again, g);
}

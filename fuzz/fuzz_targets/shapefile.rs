//! The Shapefile reader with its .shx and .dbf: the input is split into the three files
//! (two little-endian u16 lengths first) and loaded as a parcels layer. Nothing may panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

const MANIFEST: &str = "[[layer]]\nrole = \"parcels\"\npath = \"p.shp\"\nid_field = \"PARCEL_ID\"\ncrs = \"EPSG:4326\"\n";

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let a = u16::from_le_bytes([data[0], data[1]]) as usize;
    let b = u16::from_le_bytes([data[2], data[3]]) as usize;
    let rest = &data[4..];
    let a = a.min(rest.len());
    let b = b.min(rest.len() - a);
    let (shp, tail) = rest.split_at(a);
    let (shx, dbf) = tail.split_at(b);
    let Ok(dir) = tempfile::tempdir() else { return };
    let p = dir.path();
    let ok = std::fs::write(p.join("outfall.toml"), MANIFEST).is_ok()
        && std::fs::write(p.join("p.shp"), shp).is_ok()
        && std::fs::write(p.join("p.shx"), shx).is_ok()
        && std::fs::write(p.join("p.dbf"), dbf).is_ok();
    if ok {
        let _ = outfall::Catalog::open(p);
    }
});

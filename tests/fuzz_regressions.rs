//! Inputs the fuzz targets (`fuzz/`) found, kept as regression tests. Each is fed exactly as
//! its target feeds it.

mod common;

use outfall_core::Catalog;

/// The `shapefile` target's input: two little-endian u16 lengths, then .shp, .shx and .dbf.
fn load_shapefile_triple(data: &[u8]) -> String {
    let a = u16::from_le_bytes([data[0], data[1]]) as usize;
    let b = u16::from_le_bytes([data[2], data[3]]) as usize;
    let rest = &data[4..];
    let a = a.min(rest.len());
    let b = b.min(rest.len() - a);
    let (shp, tail) = rest.split_at(a);
    let (shx, dbf) = tail.split_at(b);
    let dir = common::dataset(
        "[[layer]]\nrole = \"parcels\"\npath = \"p.shp\"\nid_field = \"PARCEL_ID\"\ncrs = \"EPSG:4326\"\nmax_rejected_share = 1.0\n",
        &[("p.shp", shp), ("p.shx", shx), ("p.dbf", dbf)],
    );
    match Catalog::open(dir.path()) {
        Ok(cat) => format!("{:?}", cat.problems()),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_record_claiming_a_billion_parts_is_refused_before_any_allocation() {
    // Found by the fuzzer as an out-of-memory: the shapefile crate reserved 4.3 GB for the
    // part count a corrupt record claimed.
    let data = include_bytes!("fuzz_regressions/shapefile_huge_part_count.bin");
    let out = load_shapefile_triple(data);
    assert!(
        out.contains("more than its") && out.contains("bytes can hold"),
        "{out}"
    );
}

#[test]
fn a_part_starting_outside_the_points_is_refused_before_any_allocation() {
    // Found by the fuzzer as an out-of-memory: a part index of about -8.6e8 made the crate
    // reserve 13.7 GB for that part's points.
    let data = include_bytes!("fuzz_regressions/shapefile_part_index_out_of_range.bin");
    let out = load_shapefile_triple(data);
    assert!(out.contains("starts at point"), "{out}");
}

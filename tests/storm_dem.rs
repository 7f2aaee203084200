//! The DEM and the sewershed: a tiny synthetic raster for exact answers (a pit filled, a
//! flat drained, a catchment's cells counted), GeoTIFF placement and refusals, and the real
//! Johnson, VT data of `stormcatchments` (its DEM, network and its tests' pour point).

mod common;

use outfall_core::dem::{Dem, Grid, NO_DIRECTION};
use outfall_core::Catalog;
use std::path::Path;
use tiff::encoder::{colortype::Gray32Float, TiffEncoder};
use tiff::tags::Tag;

/// A plane rising northwards one metre a row on 1 m cells, with a pit at (row 3, col 3).
fn tilted_plane_with_pit() -> (Grid, Vec<f32>) {
    let grid = Grid {
        width: 7,
        height: 7,
        x0_m: 0.0,
        y0_m: 0.0,
        dx_m: 1.0,
        dy_m: 1.0,
    };
    let mut z: Vec<f32> = (0..49).map(|i| 10.0 + (6 - i / 7) as f32).collect();
    z[3 * 7 + 3] = 5.0;
    (grid, z)
}

#[test]
fn a_pit_is_filled_and_every_interior_cell_drains() {
    let (grid, z) = tilted_plane_with_pit();
    let dem = Dem::from_cells(grid, z, None, 3);
    // The pit rises to its lowest neighbours (the row south of it, 12 m) and drains south.
    assert_eq!(dem.conditioned_m[3 * 7 + 3], 12.0);
    assert_eq!(dem.direction[3 * 7 + 3], 4, "south is pysheds' 4");
    for cell in 0..grid.len() {
        let interior = !grid.on_edge(cell);
        assert_eq!(dem.direction[cell] != NO_DIRECTION, interior, "cell {cell}");
    }
    // Away from the pit each interior column drains straight south (a drop of 1 m over
    // 1 m beats 1 m over 1.41 m). The filled pit (12 m) sits 1 m below the plane's row 3:
    // (3,2) ties east (the pit) with south and takes east, the first in pysheds' order;
    // (2,2) and (2,4) drop 2 m over 1.41 m to it; (3,4) ties south with west and takes south.
    assert_eq!(dem.direction[3 * 7 + 2], 1, "east");
    assert_eq!(dem.direction[2 * 7 + 2], 2, "south-east");
    assert_eq!(dem.direction[2 * 7 + 4], 8, "south-west");
    assert_eq!(dem.direction[3 * 7 + 4], 4, "south");
    assert_eq!(dem.accumulation[7 + 3], 1, "(1,3)");
    assert_eq!(dem.accumulation[3 * 7 + 3], 8);
    assert_eq!(dem.accumulation[6 * 7 + 3], 11);
    assert_eq!(dem.accumulation[6 * 7 + 4], 4, "column 4 without (2,4)");
}

#[test]
fn a_catchment_counts_exactly_the_cells_upstream_of_its_snapped_pour_point() {
    let (grid, z) = tilted_plane_with_pit();
    let dem = Dem::from_cells(grid, z, None, 3);
    // Nearest north-west corner with accumulation > 3 is cell (5, 3)'s, at (3, -5).
    let (cell, c) = dem.surface_catchment(3.3, -5.3).expect("snaps");
    assert_eq!(cell, 5 * 7 + 3);
    // Column 3 down to row 5, and what the filled pit draws in (see the test above).
    let expected: Vec<u32> = [
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 2),
        (2, 3),
        (2, 4),
        (3, 2),
        (3, 3),
    ]
    .iter()
    .chain(&[(4, 3), (5, 3)])
    .map(|&(r, c)| r * 7 + c)
    .collect();
    assert_eq!(c.cells, expected);
    assert_eq!(c.area_m2, 10.0);
    let poly = dem.polygon(&c);
    assert_eq!(poly.0.len(), 1);
    use geo::Area;
    assert_eq!(poly.unsigned_area(), 10.0);
    assert_eq!(
        poly.signed_area(),
        10.0,
        "outer rings run counter-clockwise"
    );
    // A point on a cell that drains too little snaps down the slope, to the filled pit
    // (accumulation 8), whose north-west corner is nearest of those above 3.
    let (cell, c) = dem.surface_catchment(3.5, -1.5).expect("snaps");
    assert_eq!(cell, 3 * 7 + 3);
    assert_eq!(c.cell_count, 8);
}

#[test]
fn a_flat_drains_to_its_outlet_and_a_ring_polygon_keeps_its_hole() {
    // A closed basin of 10 m with a rim of 12 m and one gap in the south rim at 9 m: it
    // fills to 10 m (no change), is flat, and must drain through the gap.
    let grid = Grid {
        width: 9,
        height: 9,
        x0_m: 100.0,
        y0_m: 50.0,
        dx_m: 2.0,
        dy_m: 2.0,
    };
    let mut z = vec![10.0f32; 81];
    for (i, v) in z.iter_mut().enumerate() {
        let (r, c) = (i / 9, i % 9);
        if r == 0 || c == 0 || r == 8 || c == 8 {
            *v = 12.0;
        }
    }
    z[8 * 9 + 4] = 9.0;
    let dem = Dem::from_cells(grid, z, None, 10);
    for cell in (0..81).filter(|&c| !grid.on_edge(c)) {
        assert_ne!(dem.direction[cell], NO_DIRECTION, "cell {cell} drains");
    }
    assert_eq!(
        dem.accumulation[8 * 9 + 4],
        50,
        "all 49 interior cells and the gap"
    );
    let (_, c) = dem
        .surface_catchment(109.0, 33.0)
        .expect("snaps to the gap's cell");
    assert_eq!(c.cell_count, 50);
    assert_eq!(c.area_m2, 200.0);
    // A square ring of cells is one polygon with one hole.
    let ring: Vec<u32> = (0..81u32)
        .filter(|&i| {
            let (r, c) = (i / 9, i % 9);
            (2..=6).contains(&r) && (2..=6).contains(&c) && !(r == 4 && c == 4)
        })
        .collect();
    let cat = outfall_core::dem::Catchment {
        cell_count: ring.len(),
        area_m2: ring.len() as f64 * 4.0,
        area_acres: 0.0,
        cells: ring,
    };
    let poly = dem.polygon(&cat);
    assert_eq!(poly.0.len(), 1);
    assert_eq!(poly.0[0].interiors().len(), 1);
    use geo::Area;
    assert_eq!(poly.unsigned_area(), 24.0 * 4.0);
}

#[test]
fn another_d8_grid_replaces_the_directions_and_its_pits_strand_their_land() {
    let (grid, z) = tilted_plane_with_pit();
    let dem = Dem::from_cells(grid, z, None, 3);
    let same = dem
        .with_directions(dem.direction.clone())
        .expect("its own grid");
    assert_eq!(same.accumulation, dem.accumulation);
    // Strand the filled pit the way pysheds leaves a pit (no direction, written as 0): the
    // eight cells draining through it stay there, and (5, 3) keeps only (4, 3) and itself.
    let mut d8 = dem.direction.clone();
    d8[3 * 7 + 3] = NO_DIRECTION;
    let pitted = dem.with_directions(d8).expect("a grid with a pit");
    assert_eq!(
        pitted.accumulation[3 * 7 + 3],
        8,
        "the pit keeps what reaches it"
    );
    assert_eq!(pitted.accumulation[5 * 7 + 3], 2);
    assert_eq!(dem.upstream_cells(5 * 7 + 3).len(), 10);
    assert_eq!(pitted.upstream_cells(5 * 7 + 3), vec![4 * 7 + 3, 5 * 7 + 3]);
    // With 2 cells (5, 3) is below the threshold of 3 now; the nearest north-west corner of
    // a cell above it is (6, 4)'s (0.98 m² in squared metres), which drains column 4 from row 3.
    let (cell, c) = pitted.surface_catchment(3.3, -5.3).expect("snaps");
    assert_eq!(cell, 6 * 7 + 4);
    assert_eq!(c.cells, vec![3 * 7 + 4, 4 * 7 + 4, 5 * 7 + 4, 6 * 7 + 4]);

    let err = dem.with_directions(vec![4; 48]).expect_err("short");
    assert!(err.to_string().contains("48 cells"), "{err}");
    // (2,2) east to (2,3), which points back west: a loop, refused before any walk.
    let mut looped = dem.direction.clone();
    looped[2 * 7 + 2] = 1;
    looped[2 * 7 + 3] = 16;
    let err = dem.with_directions(looped).expect_err("a loop");
    assert!(err.to_string().contains("circle"), "{err}");
}

/// Writes a float32 GeoTIFF with the given georeferencing tags.
fn write_geotiff(path: &Path, w: u32, h: u32, z: &[f32], tags: &[(Tag, Vec<f64>)], epsg: u16) {
    let file = std::fs::File::create(path).expect("create tif");
    let mut enc = TiffEncoder::new(file).expect("encoder");
    let mut img = enc.new_image::<Gray32Float>(w, h).expect("image");
    for (tag, v) in tags {
        img.encoder().write_tag(*tag, &v[..]).expect("tag");
    }
    let keys: [u16; 8] = [1, 1, 0, 1, 3072, 0, 1, epsg];
    img.encoder()
        .write_tag(Tag::GeoKeyDirectoryTag, &keys[..])
        .expect("geokeys");
    img.encoder()
        .write_tag(Tag::GdalNodata, "-9999")
        .expect("nodata");
    img.write_data(z).expect("cells");
}

#[test]
fn a_geotiff_dem_layer_loads_with_its_grid_and_crs_and_a_rotated_one_is_refused() {
    let dir = tempfile::tempdir().expect("tmp");
    let (_, mut z) = tilted_plane_with_pit();
    z[0] = -9999.0;
    let tags = vec![
        (Tag::ModelPixelScaleTag, vec![0.5, 0.5, 0.0]),
        (
            Tag::ModelTiepointTag,
            vec![0.0, 0.0, 0.0, 484000.0, 238000.0, 0.0],
        ),
    ];
    write_geotiff(&dir.path().join("dem.tif"), 7, 7, &z, &tags, 6589);
    std::fs::write(
        dir.path().join("outfall.toml"),
        "[[layer]]\nrole = \"dem\"\npath = \"dem.tif\"\n",
    )
    .expect("manifest");
    let cat = Catalog::open(dir.path()).expect("a dem alone loads");
    let dem = cat.dem.as_ref().expect("the dem is loaded");
    assert_eq!(dem.crs, "EPSG:6589");
    assert_eq!((dem.grid.width, dem.grid.height), (7, 7));
    assert_eq!(
        (dem.grid.x0_m, dem.grid.y0_m, dem.grid.dx_m),
        (484000.0, 238000.0, 0.5)
    );
    assert!(dem.elevation_m[0].is_nan(), "GDAL_NODATA is no data");
    assert_eq!(dem.conditioned_m[3 * 7 + 3], 12.0);

    let rotated = vec![(
        Tag::ModelTransformationTag,
        vec![
            0.5, 0.1, 0.0, 484000.0, 0.1, -0.5, 0.0, 238000.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            1.0,
        ],
    )];
    write_geotiff(&dir.path().join("dem.tif"), 7, 7, &z, &rotated, 6589);
    let err = Catalog::open(dir.path()).expect_err("a rotated raster is refused");
    let text = err.to_string();
    assert!(
        text.contains("dem.tif") && text.contains("rotated"),
        "{text}"
    );

    std::fs::write(dir.path().join("dem.tif"), b"not a tiff at all").expect("write");
    let text = Catalog::open(dir.path()).expect_err("garbage").to_string();
    assert!(text.contains("dem.tif") && text.contains("TIFF"), "{text}");
}

const JOHNSON: &str = r#"allow_outside_paths = true
[[layer]]
role = "storm_pipes"
path = "DIR/storm_lines.shp"
id_field = "OBJECTID"
[layer.storm]
vertex_order = true
snap_m = 0.01
[[layer]]
role = "storm_structures"
path = "DIR/storm_pts.shp"
id_field = "OBJECTID"
[layer.storm]
type_field = "Type"
type_values = { "2" = "inlet", "8" = "culvert_inlet", "5" = "outfall", "9" = "culvert_outlet" }
[[layer]]
role = "dem"
path = "DIR/dem.tif"
"#;

/// The pour point of stormcatchments' own tests (EPSG:6589, metres).
const POUR: [f64; 2] = [484636.0, 237170.0];

fn johnson() -> Option<(tempfile::TempDir, Catalog)> {
    let dir = common::real("stormcatchments/johnson_vt/dem.tif")?;
    let dir = dir.parent().expect("folder");
    let manifest = JOHNSON.replace("DIR", &dir.display().to_string());
    let tmp = common::dataset(&manifest, &[]);
    let cat = Catalog::open(tmp.path()).unwrap_or_else(|e| panic!("johnson loads: {e}"));
    Some((tmp, cat))
}

#[test]
fn johnson_dem_reads_its_grid_and_every_interior_cell_drains() {
    let Some((_t, cat)) = johnson() else { return };
    let dem = cat.dem.as_ref().expect("dem");
    assert_eq!(dem.crs, "EPSG:6589");
    assert_eq!((dem.grid.width, dem.grid.height), (1500, 1857));
    assert!((dem.grid.dx_m - 0.7).abs() < 1e-9 && (dem.grid.dy_m - 0.7).abs() < 1e-9);
    assert!((dem.grid.x0_m - 484149.4).abs() < 0.01, "{}", dem.grid.x0_m);
    assert!((dem.grid.y0_m - 238100.1).abs() < 0.01, "{}", dem.grid.y0_m);
    let (lo, hi) = dem
        .elevation_m
        .iter()
        .filter(|z| !z.is_nan())
        .fold((f32::MAX, f32::MIN), |(a, b), &z| (a.min(z), b.max(z)));
    assert!(
        (lo - 144.76).abs() < 0.01 && (hi - 218.06).abs() < 0.01,
        "{lo}..{hi}"
    );
    let undrained = (0..dem.grid.len())
        .filter(|&c| !dem.grid.on_edge(c) && dem.has_data(c))
        .filter(|&c| dem.direction[c] == NO_DIRECTION)
        .count();
    assert_eq!(undrained, 0, "interior cells without a direction");
}

#[test]
fn johnson_sewershed_adds_the_land_its_pipes_bring_in() {
    let Some((_t, cat)) = johnson() else { return };
    let dem = cat.dem.as_ref().expect("dem");
    let s = dem
        .sewershed_xy(cat.storm.as_deref(), POUR)
        .expect("sewershed");
    // stormcatchments' test_get_catchment has round(area) == 6796 m² (13,870 cells) and
    // snaps to the same cell. Outfall's holds those cells and 1,098 more (538.0 m²): land
    // whose water pysheds strands in pits its flat inflation makes (see docs/storm.md).
    let surface = s.surface.area_m2;
    let [sx, sy] = s.snapped_dem;
    assert!(
        (sx - 484636.6).abs() < 1e-6 && (sy - 237166.3).abs() < 1e-3,
        "{sx},{sy}"
    );
    assert!(
        (6796.0..6796.0 * 1.1).contains(&surface),
        "surface {surface} m²"
    );
    assert!(
        s.network.area_m2 > surface * 5.0,
        "network {} m²",
        s.network.area_m2
    );
    let mut added: Vec<&str> = s.added.iter().map(|i| i.id.as_str()).collect();
    added.sort_unstable();
    assert_eq!(added, ["20845", "20847", "21135"], "piped to outfall 21134");
    assert!(s.removed.is_empty(), "{:?}", s.removed);
    // Inlet 20847's point lies in the land another inlet of the same round brings in, but
    // its own land (upstream of the stream cell it snaps to) reaches further: as in the
    // reference, every inlet outside the catchment as the round found it is added.
    let to_dem = proj::Proj::new_known_crs("EPSG:4326", "EPSG:6589", None).expect("proj");
    let land = |id: &str| {
        let i = s.added.iter().find(|i| i.id == id).expect("added");
        let (x, y) = to_dem
            .convert((i.at[0], i.at[1]))
            .expect("to the DEM's CRS");
        let at = dem.grid.cell_at(x, y).expect("on the DEM") as u32;
        (at, dem.upstream_cells(dem.snap(x, y).expect("snaps")))
    };
    let (at_20847, land_20847) = land("20847");
    let (_, land_20845) = land("20845");
    let (_, land_21135) = land("21135");
    let held = |l: &Vec<u32>, c: &u32| l.binary_search(c).is_ok();
    assert!(
        held(&land_20845, &at_20847) || held(&land_21135, &at_20847),
        "20847 lies in land added with it"
    );
    let own: Vec<&u32> = land_20847
        .iter()
        .filter(|c| {
            !held(&land_20845, c) && !held(&land_21135, c) && !s.surface.contains(**c as usize)
        })
        .collect();
    assert!(
        own.len() > 500,
        "20847 brings {} cells of its own",
        own.len()
    );
    assert!(land_20847.iter().all(|&c| s.network.contains(c as usize)));
    let cell = |[x, y]: [f64; 2]| dem.grid.cell_at(x, y).expect("on the DEM");
    // stormcatchments' test_get_stormcatchment: inside and outside points.
    for p in [[484700.0, 237490.0], [484696.0, 237272.0]] {
        assert!(s.network.contains(cell(p)), "{p:?} drains here by pipe");
        assert!(
            !s.surface.contains(cell(p)),
            "{p:?} is not on the surface catchment"
        );
    }
    for p in [[484590.0, 237200.0], [484750.0, 237330.0]] {
        assert!(!s.network.contains(cell(p)), "{p:?} drains elsewhere");
    }
    // Every added structure's pipes reach an outfall inside the surface catchment or land
    // added before it, and the GeoJSON carries both polygons with their areas.
    let gj = dem.sewershed_geojson(&s).expect("geojson");
    let f = gj["features"].as_array().expect("features");
    assert_eq!(
        f[0]["properties"]["area_m2"],
        serde_json::json!(s.surface.area_m2)
    );
    assert_eq!(f[1]["geometry"]["type"], "MultiPolygon");
    let lon = f[1]["geometry"]["coordinates"][0][0][0][0]
        .as_f64()
        .expect("lon");
    assert!((-72.8..-72.6).contains(&lon), "{lon}");
}

#[test]
fn johnson_on_its_own_grid_again_is_unchanged_and_a_pit_strands_exactly_its_land() {
    let Some((_t, cat)) = johnson() else { return };
    let dem = cat.dem.as_ref().expect("dem");
    let net = cat.storm.as_deref();
    let own = dem.sewershed_xy(net, POUR).expect("sewershed");
    let again = dem
        .with_directions(dem.direction.clone())
        .expect("its own grid");
    assert_eq!(again.accumulation, dem.accumulation);
    let s = again.sewershed_xy(net, POUR).expect("sewershed");
    assert_eq!(s.surface.cells, own.surface.cells);
    assert_eq!(s.network.cells, own.network.cells);
    // A pit where the surface catchment's largest side branch below 500 cells joins, as
    // pysheds leaves pits: that branch, and only it, leaves the surface catchment.
    let pour = dem.snap(POUR[0], POUR[1]).expect("snaps");
    let branch = own
        .surface
        .cells
        .iter()
        .map(|&c| c as usize)
        .filter(|&c| dem.accumulation[c] < 500)
        .max_by_key(|&c| (dem.accumulation[c], c))
        .expect("a branch");
    let lost = dem.upstream_cells(branch);
    assert!(lost.len() > 100, "{} cells", lost.len());
    let mut d8 = dem.direction.clone();
    d8[branch] = NO_DIRECTION;
    let pitted = dem.with_directions(d8).expect("a pitted grid");
    let (cell, c) = pitted.surface_catchment(POUR[0], POUR[1]).expect("snaps");
    assert_eq!(cell, pour, "the pour cell still drains enough");
    let expected: Vec<u32> = own
        .surface
        .cells
        .iter()
        .copied()
        .filter(|c| lost.binary_search(c).is_err())
        .collect();
    assert_eq!(c.cells, expected);
}

async fn http_get(
    state: outfall_server::AppState,
    uri: impl AsRef<str>,
) -> (u16, serde_json::Value) {
    let uri = uri.as_ref();
    use axum::body::Body;
    use http_body_util::BodyExt;
    use tower::ServiceExt;
    let req = axum::http::Request::get(uri)
        .body(Body::empty())
        .expect("request");
    let res = outfall_server::app(state)
        .oneshot(req)
        .await
        .expect("response");
    let status = res.status().as_u16();
    let body = res.into_body().collect().await.expect("body").to_bytes();
    (status, serde_json::from_slice(&body).unwrap_or_default())
}

/// The synthetic pit DEM as a data set whose manifest names the raster by its absolute
/// path, and the lon/lat of the point whose catchment is its ten cells.
fn synthetic_dem() -> (tempfile::TempDir, Catalog, String) {
    let dir = tempfile::tempdir().expect("tmp");
    let (_, z) = tilted_plane_with_pit();
    let tags = vec![
        (Tag::ModelPixelScaleTag, vec![0.5, 0.5, 0.0]),
        (
            Tag::ModelTiepointTag,
            vec![0.0, 0.0, 0.0, 484000.0, 238000.0, 0.0],
        ),
    ];
    let tif = dir.path().join("dem.tif");
    write_geotiff(&tif, 7, 7, &z, &tags, 6589);
    std::fs::write(
        dir.path().join("outfall.toml"),
        format!(
            "allow_outside_paths = true\n[rules]\ndem_snap_threshold_cells = 3\n[[layer]]\nrole = \"dem\"\npath = \"{}\"\n",
            tif.display()
        ),
    )
    .expect("manifest");
    let cat = Catalog::open(dir.path()).expect("loads");
    let p = proj::Proj::new_known_crs("EPSG:6589", "EPSG:4326", None).expect("proj");
    let (lon, lat) = p
        .convert((484000.0 + 3.3 * 0.5, 238000.0 - 5.3 * 0.5))
        .expect("to lon/lat");
    (dir, cat, format!("{lon},{lat}"))
}

/// Issue 40, item 4: a point off the DEM is refused naming the layer, never the raster's
/// path on the server; a catchment over the cap is refused naming the cap.
#[tokio::test]
async fn a_sewershed_names_its_layer_not_its_file_and_is_capped() {
    let (dir, cat, point) = synthetic_dem();
    let state = state_of(cat);
    let (status, v) = http_get(state.clone(), "/sewershed?point=10,10").await;
    assert_eq!(status, 422, "a point off the DEM: {v}");
    let detail = v["detail"].as_str().expect("detail");
    assert!(detail.contains("off the dem layer"), "{detail}");
    let folder = dir.path().display().to_string();
    assert!(
        !detail.contains(&folder) && !detail.contains("dem.tif"),
        "{detail}"
    );
    let capped = state.with_limits(outfall_server::Limits {
        max_catchment_cells: 9,
        ..Default::default()
    });
    let (status, v) = http_get(capped.clone(), &format!("/sewershed?point={point}")).await;
    assert_eq!(status, 422, "ten cells over a cap of nine: {v}");
    let detail = v["detail"].as_str().expect("detail");
    assert!(
        detail.contains("more than 9 cells of the dem layer")
            && detail.contains("max_catchment_cells"),
        "{detail}"
    );
    let roomy = capped.with_limits(outfall_server::Limits {
        max_catchment_cells: 10,
        ..Default::default()
    });
    let (status, v) = http_get(roomy, &format!("/sewershed?point={point}")).await;
    assert_eq!(status, 200, "ten cells within a cap of ten: {v}");
}

/// Issue 40, item 4: a sewershed runs as a check does, in the checks' slots and under their
/// deadline. The only blocking thread is held: a check takes the only slot and waits, so
/// the sewershed is refused as busy; with a free slot it waits past its deadline and is
/// answered 503, whatever the machine's speed.
#[test]
fn a_sewershed_shares_the_checks_slots_and_deadline() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .max_blocking_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let (_dir, cat, point) = synthetic_dem();
        let state = state_of(cat).with_limits(outfall_server::Limits {
            work_timeout: std::time::Duration::from_millis(300),
            max_concurrent_checks: 1,
            ..Default::default()
        });
        let (release, gate) = std::sync::mpsc::channel::<()>();
        let busy = tokio::task::spawn_blocking(move || {
            let _ = gate.recv();
        });
        let uri = format!("/sewershed?point={point}");
        let bound = std::time::Duration::from_secs(120);
        let first = tokio::spawn(http_get(state.clone(), uri.clone()));
        let (status, v) = tokio::time::timeout(bound, first)
            .await
            .expect("answered while the pool is held")
            .expect("joined");
        assert_eq!(status, 503, "{v}");
        assert!(
            v["detail"]
                .as_str()
                .is_some_and(|d| d.contains("the sewershed did not finish within 0.3 s")),
            "{v}"
        );
        // Its work still waits for the thread, holding the only slot.
        let (status, v) = tokio::time::timeout(bound, http_get(state.clone(), uri.clone()))
            .await
            .expect("answered while the pool is held");
        assert_eq!(status, 503, "{v}");
        assert!(v.to_string().contains("limit of 1 checks at once"), "{v}");
        release.send(()).expect("the busy task waits");
        busy.await.expect("the busy task ends");
    });
}

fn state_of(cat: Catalog) -> outfall_server::AppState {
    let web = Path::new(env!("CARGO_MANIFEST_DIR")).join("web");
    outfall_server::AppState::new(std::sync::Arc::new(cat), web)
}

#[tokio::test]
async fn http_answers_a_points_sewershed_and_says_when_there_is_no_dem() {
    let dir = tempfile::tempdir().expect("tmp");
    let (_, z) = tilted_plane_with_pit();
    let tags = vec![
        (Tag::ModelPixelScaleTag, vec![0.5, 0.5, 0.0]),
        (
            Tag::ModelTiepointTag,
            vec![0.0, 0.0, 0.0, 484000.0, 238000.0, 0.0],
        ),
    ];
    write_geotiff(&dir.path().join("dem.tif"), 7, 7, &z, &tags, 6589);
    std::fs::write(
        dir.path().join("outfall.toml"),
        "[rules]\ndem_snap_threshold_cells = 3\n[[layer]]\nrole = \"dem\"\npath = \"dem.tif\"\n",
    )
    .expect("manifest");
    let state = state_of(Catalog::open(dir.path()).expect("loads"));
    let p = proj::Proj::new_known_crs("EPSG:6589", "EPSG:4326", None).expect("proj");
    let (lon, lat) = p
        .convert((484000.0 + 3.3 * 0.5, 238000.0 - 5.3 * 0.5))
        .expect("to lon/lat");
    let (status, v) = http_get(state.clone(), &format!("/sewershed?point={lon},{lat}")).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["type"], "FeatureCollection");
    // The ten cells of the synthetic catchment, 0.25 m² each; no network, so the same.
    assert_eq!(v["features"][0]["properties"]["area_m2"], 2.5);
    assert_eq!(v["features"][1]["properties"]["area_m2"], 2.5);
    let (status, v) = http_get(state.clone(), "/sewershed?point=10,10").await;
    assert_eq!(status, 422, "a point off the DEM: {v}");
    let (status, v) = http_get(state.clone(), "/outfalls/X/sewershed").await;
    assert_eq!(status, 404, "{v}");

    let (_d, plain) = {
        let d = common::demo_copy();
        let c = Catalog::open(d.path()).expect("demo loads");
        (d, c)
    };
    let (status, v) = http_get(state_of(plain), &format!("/sewershed?point={lon},{lat}")).await;
    assert_eq!(status, 404);
    assert!(v.to_string().contains("no dem layer loaded"), "{v}");
}

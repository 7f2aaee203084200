//! The same real parcels written as a Shapefile in NY State Plane Central (EPSG:2261, US feet)
//! and as GeoJSON give the same acres: the .prj is read and PROJ reprojects correctly.

mod common;

use common::{dataset, real, write_shp};
use geo::{Centroid, MapCoords};
use geo_types::{Geometry, MultiPolygon, Polygon};
use outfall_core::area::{area_acres, polygons_of};
use outfall_core::{Catalog, Role};

const PRJ_2261: &str = r#"PROJCS["NAD_1983_StatePlane_New_York_Central_FIPS_3102_Feet",GEOGCS["GCS_North_American_1983",DATUM["D_North_American_1983",SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["False_Easting",820208.3333333333],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",-76.58333333333333],PARAMETER["Scale_Factor",0.9999375],PARAMETER["Latitude_Of_Origin",40.0],UNIT["Foot_US",0.3048006096012192]]"#;

#[test]
fn state_plane_shapefile_and_geojson_give_the_same_acres() {
    let Some(src) = real("syracuse-downtown-parcels/downtown_syracuse_parcels.geojson") else {
        return;
    };
    let dir = dataset(
        &format!(
            "allow_outside_paths = true\n{}",
            common::layer_toml("parcels", &src, "id_field = \"tax_id\"")
        ),
        &[],
    );
    let geo = Catalog::open(dir.path()).unwrap();
    let parcels = geo.layer(Role::Parcels).unwrap();

    // Project every parcel to EPSG:2261 with PROJ and write a Shapefile with an ESRI .prj.
    let to_sp = proj::Proj::new_known_crs("EPSG:4326", "EPSG:2261", None).unwrap();
    let mut shapes: Vec<(String, Polygon<f64>)> = Vec::new();
    for f in parcels.features.iter() {
        for p in polygons_of(&f.geometry) {
            let sp = p.map_coords(|c| {
                let (x, y) = to_sp.convert((c.x, c.y)).unwrap();
                geo_types::Coord { x, y }
            });
            shapes.push((f.id.clone(), sp));
        }
    }
    let out = tempfile::tempdir().unwrap();
    write_shp(&out.path().join("parcels.shp"), &shapes, Some(PRJ_2261));
    std::fs::write(
        out.path().join("outfall.toml"),
        "[[layer]]\nrole = \"parcels\"\npath = \"parcels.shp\"\nid_field = \"ID\"\n",
    )
    .unwrap();
    let shp = Catalog::open(out.path()).unwrap();
    let sp_layer = shp.layer(Role::Parcels).unwrap();
    assert!(
        sp_layer.source.crs.contains("New_York_Central"),
        "{}",
        sp_layer.source.crs
    );
    assert_eq!(sp_layer.features.len(), shapes.len());
    assert!(sp_layer.problems.is_empty(), "{:?}", sp_layer.problems);

    let mut worst = 0.0f64;
    for (i, (id, _)) in shapes.iter().enumerate() {
        let a_shp = area_acres(&MultiPolygon(polygons_of(&sp_layer.features[i].geometry)));
        let orig = parcels.get(id).unwrap();
        // Multi-part parcels were written part by part; compare part areas against the source part.
        let part = polygons_of(&orig.geometry)
            .into_iter()
            .min_by(|a, b| {
                let da = (area_acres(&MultiPolygon(vec![a.clone()])) - a_shp).abs();
                let db = (area_acres(&MultiPolygon(vec![b.clone()])) - a_shp).abs();
                da.total_cmp(&db)
            })
            .unwrap();
        let a_geo = area_acres(&MultiPolygon(vec![part]));
        worst = worst.max((a_shp - a_geo).abs());
        // And the shape lands where it was: centroids agree to a centimetre or so.
        let c1 = Geometry::Polygon(polygons_of(&sp_layer.features[i].geometry)[0].clone())
            .centroid()
            .unwrap();
        assert_eq!(sp_layer.features[i].id, *id);
        let c0 = orig.geometry.centroid().unwrap();
        assert!((c1.x() - c0.x()).abs() < 0.01 && (c1.y() - c0.y()).abs() < 0.01);
    }
    eprintln!(
        "{} parcels: largest acreage difference {worst:.2e} ac",
        shapes.len()
    );
    assert!(worst < 1e-6, "largest difference {worst} ac");
}

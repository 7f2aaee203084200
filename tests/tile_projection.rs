//! The tiles' latitude table against the Web Mercator formula, on real parcels: every vertex
//! of every z14–16 tile over Bellingham (the anchors' tile set) lands on the pixel the
//! formula gives, and a tile's decoded geometry is the formula's projection within one tile
//! unit.

mod common;

use common::{dataset, layer_toml, real};
use geo::CoordsIter;
use geo_types::{coord, Coord};
use geozero::mvt::{Message, Tile};
use outfall_core::tiles::{
    encode_indexed_layer, encode_layer, TileId, TileProjection, BUFFER_PX, EXTENT,
};
use outfall_core::{Catalog, Role};
use serde_json::Map;

const PARCELS: &str = "massgis-bellingham-parcels/bellingham_ma_parcels_fy2026.geojson";

fn bellingham() -> Option<(tempfile::TempDir, Catalog)> {
    let path = real(PARCELS)?;
    let manifest = format!(
        "allow_outside_paths = true\n{}",
        layer_toml("parcels", &path, "id_field = \"LOC_ID\"")
    );
    let dir = dataset(&manifest, &[]);
    let catalog = Catalog::open(dir.path()).expect("Bellingham parcels load");
    Some((dir, catalog))
}

/// Every tile of zooms 14..=16 over the layer's box.
fn tiles_over(catalog: &Catalog) -> Vec<TileId> {
    let bbox = catalog.layer(Role::Parcels).unwrap().bbox().unwrap();
    let mut out = Vec::new();
    for z in 14..=16 {
        let nw = TileId::from_lonlat(bbox.min().x, bbox.max().y, z).unwrap();
        let se = TileId::from_lonlat(bbox.max().x, bbox.min().y, z).unwrap();
        for x in nw.x..=se.x {
            for y in nw.y..=se.y {
                out.extend(TileId::new(z, x, y));
            }
        }
    }
    out
}

fn round(c: Coord<f64>) -> (i64, i64) {
    (c.x.round() as i64, c.y.round() as i64)
}

#[test]
fn every_vertex_of_the_tile_set_quantizes_as_the_formula_does() {
    let Some((_dir, catalog)) = bellingham() else {
        return;
    };
    let layer = catalog.layer(Role::Parcels).unwrap();
    let (mut vertices, mut ties, mut worst) = (0usize, 0usize, 0.0f64);
    for tile in tiles_over(&catalog) {
        let p = TileProjection::new(tile, EXTENT);
        let rect = tile.bounds_with_buffer_lonlat(BUFFER_PX, EXTENT);
        for i in layer.query(rect) {
            for c in layer.features[i].geometry.coords_iter() {
                let (fast, exact) = (p.project(c), p.project_exactly(c));
                worst = worst.max((fast.x - exact.x).abs().max((fast.y - exact.y).abs()));
                // A value within 1e-6 of a half pixel is a tie the formula's own rounding
                // could break either way.
                let near_half = |v: f64| ((v - v.floor()) - 0.5).abs() < 1e-6;
                if near_half(exact.x) || near_half(exact.y) {
                    ties += 1;
                } else {
                    assert_eq!(round(fast), round(exact), "tile {tile}, feature {i}, {c:?}");
                }
                vertices += 1;
            }
        }
    }
    assert!(vertices > 1_000_000, "only {vertices} vertices compared");
    assert!(worst < 1e-6, "worst difference {worst} px");
    assert!(ties * 10_000 < vertices, "{ties} ties in {vertices}");
}

#[test]
fn decoded_tile_geometry_is_the_exact_projection_within_one_unit() {
    let Some((_dir, catalog)) = bellingham() else {
        return;
    };
    let layer = catalog.layer(Role::Parcels).unwrap();
    let empty = Map::new();
    let clip = -f64::from(BUFFER_PX)..=f64::from(EXTENT + BUFFER_PX);
    let mut checked = 0usize;
    for tile in tiles_over(&catalog).into_iter().step_by(7) {
        let p = TileProjection::new(tile, EXTENT);
        let hits: Vec<usize> = layer
            .query(tile.bounds_with_buffer_lonlat(BUFFER_PX, EXTENT))
            .collect();
        let Some(bytes) = encode_layer(
            tile,
            "parcels",
            hits.iter()
                .map(|&i| (i as u64, &layer.features[i].geometry, &empty)),
        ) else {
            continue;
        };
        let decoded = Tile::decode(bytes.as_slice()).expect("valid MVT");
        for f in &decoded.layers[0].features {
            let g = &layer.features[f.id.unwrap() as usize].geometry;
            let exact: Vec<Coord<f64>> = g.coords_iter().map(|c| p.project_exactly(c)).collect();
            // Only features the clip left alone: a clipped ring has vertices on the edge.
            if !exact
                .iter()
                .all(|c| clip.contains(&c.x) && clip.contains(&c.y))
            {
                continue;
            }
            for v in vertices_of(&f.geometry) {
                let v = coord! { x: v.0 as f64, y: v.1 as f64 };
                let nearest = exact
                    .iter()
                    .map(|e| (e.x - v.x).abs().max((e.y - v.y).abs()))
                    .fold(f64::INFINITY, f64::min);
                assert!(
                    nearest <= 1.0,
                    "tile {tile} feature {:?}: {v:?} is {nearest} from the formula",
                    f.id
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 10_000, "only {checked} decoded vertices checked");
}

/// The server's encoder takes each parcel's box from the R-tree instead of reading its
/// vertices: every tile of the set comes out byte for byte as the encoder that scans them.
#[test]
fn tiles_from_index_envelopes_are_the_tiles_from_the_vertices() {
    let Some((_dir, catalog)) = bellingham() else {
        return;
    };
    let layer = catalog.layer(Role::Parcels).unwrap();
    let attrs: Vec<Map<String, serde_json::Value>> = layer
        .features
        .iter()
        .map(|f| f.properties.to_map())
        .collect();
    let (mut tiles, mut non_empty) = (0, 0);
    for tile in tiles_over(&catalog) {
        let rect = tile.bounds_with_buffer_lonlat(BUFFER_PX, EXTENT);
        let hits: Vec<_> = layer.query_envelopes(rect).collect();
        let scanned = encode_layer(
            tile,
            "parcels",
            hits.iter()
                .map(|&(i, _)| (i as u64, &layer.features[i].geometry, &attrs[i])),
        );
        let indexed = encode_indexed_layer(
            tile,
            "parcels",
            hits.iter()
                .map(|&(i, b)| (i as u64, &layer.features[i].geometry, &attrs[i], b)),
        );
        assert_eq!(scanned, indexed, "tile {tile}");
        tiles += 1;
        non_empty += usize::from(indexed.is_some());
    }
    assert!(
        tiles > 400 && non_empty > 300,
        "{tiles} tiles, {non_empty} with parcels"
    );
}

/// The absolute vertices of an MVT command stream.
fn vertices_of(geometry: &[u32]) -> Vec<(i64, i64)> {
    let zigzag = |p: u32| i64::from(p >> 1) ^ -i64::from(p & 1);
    let (mut x, mut y, mut i) = (0i64, 0i64, 0usize);
    let mut out = Vec::new();
    while i < geometry.len() {
        let (id, count) = (geometry[i] & 7, geometry[i] >> 3);
        i += 1;
        if id == 7 {
            continue;
        }
        for _ in 0..count {
            x += zigzag(geometry[i]);
            y += zigzag(geometry[i + 1]);
            i += 2;
            out.push((x, y));
        }
    }
    out
}

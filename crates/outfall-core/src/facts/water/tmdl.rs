//! The TMDL watersheds of a subject: those its footprint meets (shown) and those its
//! discharge enters (decisive), with where.

use super::candidates::Candidate;
use super::{TmdlWatershed, WaterFacts};
use crate::catalog::Catalog;
use crate::config::Role;
use geo::{BoundingRect, Intersects};
use geo_types::{Geometry, Point};

/// The TMDL watersheds the discharge enters: at the outfall point, in the isolated pond, or
/// where the path first meets the watershed, with the distance along the path.
pub(super) fn tmdl_entered(
    catalog: &Catalog,
    w: &WaterFacts,
    outfall: Option<Point<f64>>,
    entry_water: Option<&Candidate>,
) -> Vec<TmdlWatershed> {
    let mut out = Vec::new();
    // Without a TMDL layer the path's reaches are not looked up at all (a long trace has
    // hundreds, each found by its id).
    if (!w.entry.rule.known() && outfall.is_none())
        || catalog.layers_of(Role::Tmdl).next().is_none()
    {
        return out;
    }
    let pond = entry_water
        .filter(|_| w.entry.isolated)
        .map(|c| &catalog.layers[c.layer].features[c.feature]);
    let path: Vec<(&crate::load::Feature, f64)> = w
        .downstream
        .iter()
        .filter_map(|r| {
            catalog
                .layers_of(Role::Flowlines)
                .find_map(|l| l.get(&r.id))
                .map(|f| (f, r.distance_m))
        })
        .collect();
    for layer in catalog.layers_of(Role::Tmdl) {
        for f in layer.features.iter() {
            let hit = if outfall.is_some_and(|p| f.geometry.intersects(&p)) {
                Some(("outfall point".to_string(), 0.0))
            } else if let Some(p) = pond.filter(|p| f.geometry.intersects(&p.geometry)) {
                Some((format!("waterbody {}", p.id), 0.0))
            } else if let Some(via) = upstream_of_outlet(layer, f, w) {
                Some((via, 0.0))
            } else {
                path.iter().enumerate().find_map(|(i, (r, d))| {
                    f.geometry.intersects(&r.geometry).then(|| {
                        let at = if i == 0 { "entry reach" } else { "reach" };
                        (format!("{at} {}", r.id), *d)
                    })
                })
            };
            if let Some((via, d)) = hit {
                let mut t = tmdl_of(layer, f);
                t.via = Some(via);
                t.distance_m = Some(d);
                out.push(t);
            }
        }
    }
    out.sort_by(|a, b| {
        a.distance_m
            .unwrap_or(0.0)
            .total_cmp(&b.distance_m.unwrap_or(0.0))
    });
    out
}

/// A watershed given by the network (`fields.outlet`: the reach where the water leaves it) is
/// every reach upstream of that outlet: the discharge is in it from its entry when the
/// path passes the outlet.
fn upstream_of_outlet(
    layer: &crate::layer::Layer,
    f: &crate::load::Feature,
    w: &WaterFacts,
) -> Option<String> {
    let outlet = layer.text(f, layer.config.fields.get("outlet").map(String::as_str))?;
    let entry = w.downstream.first()?;
    w.downstream.iter().any(|r| r.id == outlet).then(|| {
        format!(
            "entry reach {}, which is upstream of the watershed's outlet reach {outlet} by the network (the watershed is every reach upstream of that outlet, plus the waterbody drawn)",
            entry.id
        )
    })
}

fn tmdl_of(layer: &crate::layer::Layer, f: &crate::load::Feature) -> TmdlWatershed {
    TmdlWatershed {
        id: f.id.clone(),
        name: layer.name_of(f).unwrap_or_else(|| f.id.clone()),
        pollutant: layer.text(f, layer.config.pollutant_field.as_deref()),
        stormwater_source: crate::facts::value_tristate(
            layer
                .config
                .stormwater_field
                .as_deref()
                .and_then(|s| f.properties.get(s))
                .as_ref(),
        ),
        via: None,
        distance_m: None,
        outlet_reach: layer.text(f, layer.config.fields.get("outlet").map(String::as_str)),
    }
}

pub(super) fn tmdl_meeting(catalog: &Catalog, fp: &Geometry<f64>) -> Vec<TmdlWatershed> {
    let Some(rect) = fp.bounding_rect() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for layer in catalog.layers_of(Role::Tmdl) {
        for i in layer.query(rect) {
            let f = &layer.features[i];
            if f.geometry.intersects(fp) {
                out.push(tmdl_of(layer, f));
            }
        }
    }
    out
}

//! `outfall sewer`: the storm-sewer trace of a site or a point down to its outfalls and
//! receiving waters, or everything upstream of an outfall; with a DEM, the sewershed of the
//! outfall or the point (its surface and its network-aware catchment).

use super::{emit, load_current};
use anyhow::{bail, Context};
use outfall_core::dem::{Catchment, Sewershed, SewershedInlet};
use outfall_core::facts::water::{gather, WaterFacts};
use outfall_core::screening::parse_point;
use outfall_core::storm::{Downstream, Upstream};
use outfall_core::subject::Subject;
use outfall_core::Catalog;
use serde_json::{json, Value};
use std::path::PathBuf;

#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("from").required(true).args(["site", "point", "outfall"])))]
pub struct Args {
    /// Data folder holding outfall.toml
    #[arg(long)]
    data: PathBuf,
    /// A site: the trace from the inlets inside or near its disturbance
    #[arg(long)]
    site: Option<String>,
    /// A point LON,LAT: the trace from the inlets near it
    #[arg(long)]
    point: Option<String>,
    /// An outfall (or any structure) id: every structure and pipe draining to it
    #[arg(long)]
    outfall: Option<String>,
    /// JSON instead of text
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let (catalog, _live) = load_current(&args.data, None)?;
    let Some(net) = catalog.storm.as_ref() else {
        bail!(
            "{}: no storm_pipes layer is loaded, so there is no sewer to trace",
            args.data.display()
        );
    };
    if let Some(id) = &args.outfall {
        let Some(up) = net.upstream(id) else {
            bail!("no storm structure or pipe end has id '{id}'");
        };
        let pour = net.structure(id).map(|s| net.structures[s].at);
        let shed = pour
            .map(|at| sewershed(&catalog, at))
            .transpose()?
            .flatten();
        if args.json {
            let mut v = serde_json::to_value(&up)?;
            if let (Some(shed), Some(m)) = (&shed, v.as_object_mut()) {
                m.insert("sewershed".into(), shed.1.clone());
            }
            return emit(&format!("{}\n", serde_json::to_string_pretty(&v)?));
        }
        return emit(&(upstream_text(&up) + &sewershed_text(&catalog, shed.as_ref())));
    }
    let (label, water) = downstream_of(&catalog, &args)?;
    let pour = args.point.as_deref().and_then(parse_point);
    let shed = pour
        .map(|p| sewershed(&catalog, [p.x(), p.y()]))
        .transpose()?
        .flatten();
    if args.json {
        let v = json!({
            "subject": label,
            "entry_rule": water.entry.rule.as_str(),
            "receiving_waters": water.names,
            "listed": water.listed.iter().map(|l| &l.id).collect::<Vec<_>>(),
            "sewer": water.sewer,
            "sewershed": shed.as_ref().map(|s| &s.1),
        });
        return emit(&format!("{}\n", serde_json::to_string_pretty(&v)?));
    }
    let mut text = downstream_text(&label, &water, catalog.manifest.rules.storm_inlet_search_m);
    if pour.is_some() {
        text += &sewershed_text(&catalog, shed.as_ref());
    }
    emit(&text)
}

/// The sewershed of a lon/lat pour point and its GeoJSON, or None without a DEM.
fn sewershed(catalog: &Catalog, at: [f64; 2]) -> anyhow::Result<Option<(Sewershed, Value)>> {
    let Some(dem) = catalog.dem.as_ref() else {
        return Ok(None);
    };
    let s = dem.sewershed(catalog.storm.as_deref(), at)?;
    let v = dem.sewershed_geojson(&s)?;
    Ok(Some((s, v)))
}

fn sewershed_text(catalog: &Catalog, shed: Option<&(Sewershed, Value)>) -> String {
    let Some((s, _)) = shed else {
        return if catalog.dem.is_none() {
            "sewershed: no dem layer loaded\n".into()
        } else {
            String::new()
        };
    };
    let area = |c: &Catchment| {
        format!(
            "{:.1} m² ({:.4} acres, {} cells)",
            c.area_m2, c.area_acres, c.cell_count
        )
    };
    let ids = |l: &[SewershedInlet]| {
        l.iter()
            .map(|i| i.id.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out = format!(
        "sewershed (pour point snapped to accumulation > {} cells; {}):\n  surface catchment: {}\n  network-aware catchment: {}\n",
        s.snap_threshold_cells,
        s.area_method,
        area(&s.surface),
        area(&s.network)
    );
    if !s.added.is_empty() {
        out += &format!("  added, piped in: {}\n", ids(&s.added));
    }
    if !s.removed.is_empty() {
        out += &format!("  removed, piped elsewhere: {}\n", ids(&s.removed));
    }
    out
}

/// The water facts of the site or point the arguments name, with a label for it.
fn downstream_of(catalog: &Catalog, args: &Args) -> anyhow::Result<(String, WaterFacts)> {
    if let Some(id) = &args.site {
        let site = catalog.site(id)?;
        let subject = Subject::from_site(catalog, site);
        let facts = outfall_core::facts::gather(catalog, &subject);
        return Ok((format!("site {id}"), facts.water));
    }
    let text = args.point.as_deref().unwrap_or_default();
    let p = parse_point(text).with_context(|| format!("--point '{text}' is not 'lon,lat'"))?;
    let g = geo_types::Geometry::Point(p);
    Ok((format!("point {text}"), gather(catalog, Some(&g), None)))
}

fn downstream_text(label: &str, w: &WaterFacts, search_m: f64) -> String {
    let Some(s) = &w.sewer else {
        return format!("{label}: no storm-sewer inlet within {search_m:.0} m\n");
    };
    let mut out = format!(
        "{label}: entry rule {}\n{}\n",
        w.entry.rule.as_str(),
        s.describe()
    );
    out += &trace_lines(&s.trace);
    if !w.names.is_empty() {
        out += &format!("receiving waters: {}\n", w.names.join(", "));
    }
    out
}

fn trace_lines(t: &Downstream) -> String {
    let mut out = String::new();
    for i in &t.inlets {
        out += &format!(
            "inlet {}: {} pipe(s), {:.1} m, to {}{}\n",
            i.inlet,
            i.pipes.len(),
            i.length_m,
            if i.outfalls.is_empty() {
                "no outfall".into()
            } else {
                i.outfalls.join(", ")
            },
            if i.undecided.is_empty() {
                String::new()
            } else {
                format!("; meets undecided pipe(s) {}", i.undecided.join(", "))
            }
        );
    }
    for p in &t.pipes {
        out += &format!(
            "  pipe {} {} -> {}, {:.1} m, by {}\n",
            p.id,
            p.from,
            p.to,
            p.length_m,
            p.evidence.as_str()
        );
    }
    out
}

fn upstream_text(u: &Upstream) -> String {
    let mut out = format!(
        "outfall {}: {} structure(s), {} pipe(s), {:.1} m drain to it\n",
        u.outfall,
        u.structures.len(),
        u.pipes.len(),
        u.length_m
    );
    for s in &u.structures {
        out += &format!("  {} {}\n", s.kind.as_str(), s.id);
    }
    for p in &u.pipes {
        out += &format!(
            "  pipe {} {} -> {} by {}\n",
            p.id,
            p.from,
            p.to,
            p.evidence.as_str()
        );
    }
    if !u.undecided.is_empty() {
        out += &format!(
            "undecided pipe(s) at its edge, through which more may drain: {}\n",
            u.undecided.join(", ")
        );
    }
    out
}

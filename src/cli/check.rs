//! `outfall check`: the report of one site, parcel or drawn polygon, or a batch of them.

use super::{emit, load_current};
use anyhow::{bail, Context};
use clap::ValueEnum;
use indicatif::{ProgressBar, ProgressStyle};
use outfall_core::batch;
use outfall_core::report::Report;
use outfall_core::screening::{self, parse_point};
use outfall_core::Catalog;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, ValueEnum)]
pub enum Format {
    Csv,
    Json,
}

#[derive(clap::Args)]
pub struct Args {
    /// Data folder holding outfall.toml
    #[arg(long)]
    data: PathBuf,
    #[arg(long, group = "subject")]
    site: Option<String>,
    #[arg(long, group = "subject")]
    parcel: Option<String>,
    /// A GeoJSON file with the disturbance polygon(s) of an ad-hoc site
    #[arg(long, group = "subject")]
    geometry: Option<PathBuf>,
    /// CSV of site/parcel ids, or GeoJSON features; writes one row per site
    #[arg(long, group = "subject")]
    batch: Option<PathBuf>,
    /// The known storm-sewer outfall "lon,lat" (WGS84) for an ad-hoc check
    #[arg(long, allow_hyphen_values = true)]
    outfall: Option<String>,
    /// Print the report as JSON
    #[arg(long)]
    json: bool,
    /// Batch output format
    #[arg(long, value_enum, default_value = "csv")]
    format: Format,
    /// Batch output file (default: standard output)
    #[arg(long)]
    out: Option<PathBuf>,
    /// The site registry to read the sites from: a .gpkg file, postgres://..., or none
    /// (default: the data folder's registry.gpkg when it exists, else the site files)
    #[arg(long)]
    registry: Option<String>,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let (catalog, _live) = load_current(&args.data, args.registry.as_deref())?;
    // A bad point is refused even for a batch, which does not read it.
    let outfall_point = match args.outfall.as_deref() {
        Some(s) => {
            Some(parse_point(s).with_context(|| format!("--outfall '{s}' is not 'lon,lat'"))?)
        }
        None => None,
    };
    if let Some(path) = &args.batch {
        return run_batch(&catalog, path, args.format, args.out.as_deref());
    }
    let report = if let Some(id) = &args.site {
        screening::check_site(&catalog, id)?
    } else if let Some(id) = &args.parcel {
        screening::check_parcel(&catalog, id)?
    } else if let Some(path) = &args.geometry {
        check_geometry_file(&catalog, path, outfall_point)?
    } else {
        bail!("give one of --site, --parcel, --geometry or --batch");
    };
    if args.json {
        emit(&(serde_json::to_string_pretty(&report)? + "\n"))
    } else {
        emit(&report.to_text())
    }
}

/// The report of the polygons drawn in a GeoJSON file, named after the file.
fn check_geometry_file(
    catalog: &Catalog,
    path: &Path,
    outfall_point: Option<geo_types::Point<f64>>,
) -> anyhow::Result<Report> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let (features, problems) =
        outfall_core::load::parse_geojson(&text, &path.display().to_string())?;
    for p in &problems {
        eprintln!("warning: {}: feature {}: {}", p.path, p.feature, p.reason);
    }
    if features.is_empty() {
        bail!("{}: no usable polygon", path.display());
    }
    let id = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("ad-hoc");
    Ok(screening::check_drawn(
        catalog,
        id,
        &features,
        outfall_point,
    )?)
}

/// Checks every item of the batch file, one CSV row or JSON report each; an item that
/// cannot be checked is a row with its error, not the end of the batch.
fn run_batch(
    catalog: &Catalog,
    path: &Path,
    format: Format,
    out: Option<&Path>,
) -> anyhow::Result<()> {
    let items = batch::read_items(path, catalog)?;
    let bar = ProgressBar::new(items.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("checking {bar:30} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut sink: Box<dyn Write> = match out {
        Some(p) => {
            Box::new(std::fs::File::create(p).with_context(|| format!("creating {}", p.display()))?)
        }
        None => Box::new(std::io::stdout().lock()),
    };
    let mut csv_out = matches!(format, Format::Csv).then(|| csv::Writer::from_writer(Vec::new()));
    let mut reports = Vec::new();
    let mut header_written = false;
    for item in &items {
        bar.set_message(item.id().to_string());
        let result = batch::check_item(catalog, item);
        if let Some(w) = csv_out.as_mut() {
            // The header comes with the first row, as a batch of no rows has always been empty.
            if !header_written {
                w.write_record(batch::header())?;
                header_written = true;
            }
            w.write_record(batch::row(item.id(), &result))?;
        } else {
            reports.push(match result {
                Ok(r) => serde_json::to_value(r)?,
                Err(e) => {
                    serde_json::json!({ "site": { "id": item.id() }, "error": e.to_string() })
                }
            });
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    match csv_out {
        Some(w) => sink.write_all(&w.into_inner()?)?,
        None => writeln!(sink, "{}", serde_json::to_string_pretty(&reports)?)?,
    }
    Ok(())
}

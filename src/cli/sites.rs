//! `outfall sites`: one line per site of a data set.

use super::{emit, load_current};
use outfall_core::screening;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    #[arg(long)]
    data: PathBuf,
    /// The site registry to read the sites from: a .gpkg file, postgres://..., or none
    /// (default: the data folder's registry.gpkg when it exists, else the site files)
    #[arg(long)]
    registry: Option<String>,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let (catalog, _live) = load_current(&args.data, args.registry.as_deref())?;
    let mut text = String::new();
    for s in &catalog.sites {
        let r = screening::check_site(&catalog, &s.id)?;
        text += &format!(
            "{:<8} {:<40} {:>8.2} ac  peak {:>6.2}  {}\n",
            s.id,
            s.record.name.as_deref().unwrap_or(""),
            r.disturbance.total_acres,
            r.disturbance.peak_acres,
            r.site.status().unwrap_or("")
        );
    }
    // A closed pipe (`outfall sites | head`) ends the listing, not the process.
    emit(&text)
}

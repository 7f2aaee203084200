//! `outfall prepare`: write the prepared (FlatGeobuf) copy of every geometry layer.

use super::emit;
use outfall_core::prepared::PreparedLayer;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Data folder holding outfall.toml
    #[arg(long)]
    data: PathBuf,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let started = std::time::Instant::now();
    let layers = outfall_core::prepared::prepare(&args.data)?;
    let mut text: String = layers.iter().map(layer_line).collect();
    text += &format!(
        "{}: {} layer(s) prepared in {:.1} s\n",
        args.data.display(),
        layers.iter().filter(|l| l.skipped.is_none()).count(),
        started.elapsed().as_secs_f64()
    );
    emit(&text)
}

/// What became of one layer: its prepared file and size, or why it still loads from source.
fn layer_line(l: &PreparedLayer) -> String {
    match &l.skipped {
        None => format!(
            "{} ({}): {} features -> {} ({:.1} MiB)\n",
            l.path,
            l.role,
            l.features,
            l.file.display(),
            l.bytes as f64 / 1048576.0
        ),
        Some(why) => format!(
            "{} ({}): not prepared, it loads from its source: {why}\n",
            l.path, l.role
        ),
    }
}

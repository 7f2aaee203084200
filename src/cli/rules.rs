//! `outfall rules`: the rulebook, with the law's words, the settings each rule reads and the
//! vocabularies.

use super::emit;
use outfall_core::vocabulary::causes::Term;
use outfall_core::Manifest;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    /// Use this data set's clause labels and [rules] settings (default: Town of Clay)
    #[arg(long)]
    data: Option<PathBuf>,
    /// Print as JSON
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let manifest = match args.data {
        Some(d) => Manifest::read(&d)?,
        None => Manifest::parse("", Path::new("(defaults)"))?,
    };
    let rows = outfall_core::law::rulebook(&manifest.rules, &manifest.clauses);
    let words = &manifest.rules.construction_pollutants;
    if args.json {
        // The same shape as GET /rules.
        let all = serde_json::json!({
            "law": manifest.clauses.law,
            "rules": rows,
            "vocabularies": outfall_core::vocabulary::tables(words, &manifest.words),
        });
        return emit(&(serde_json::to_string_pretty(&all)? + "\n"));
    }
    let causes = outfall_core::vocabulary::causes::table(words)?;
    let mut text = format!("RULEBOOK — {}\n", manifest.clauses.law);
    for r in &rows {
        text += &format!(
            "\n{} — {}\n  {}\n  Law: {}\n",
            r.id, r.clause, r.title, r.law
        );
        if !r.settings.is_empty() {
            let s: Vec<String> = r
                .settings
                .iter()
                .map(|(k, v)| format!("{k} = {v}"))
                .collect();
            text += &format!("  Settings: {}\n", s.join(", "));
        }
    }
    text += &causes_text(&causes);
    text += &outfall_core::vocabulary::site_text(&manifest.words);
    emit(&text)
}

/// The causes vocabulary under the rulebook: one line per term, grouped.
fn causes_text(terms: &[Term]) -> String {
    let mut text = "\nVOCABULARY — causes that are a pollutant of concern (construction reading; whole terms)\n".to_string();
    let mut group = "";
    for t in terms {
        if t.group != group {
            group = &t.group;
            text += &format!("  {group}:\n");
        }
        text += &format!("    {} — {}\n", t.term, t.sources.join(" / "));
    }
    text
}

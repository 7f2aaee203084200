//! A reader's items sorted into the features that load and the problems to report, each
//! problem naming its feature and, for disturbance, its site.

use super::{value_text, Feature, LoadProblem, Refused};
use crate::config::LayerConfig;
use serde_json::Value;

/// The site a disturbance feature belongs to, when its attributes could be read.
fn site_of(cfg: &LayerConfig, site: Option<Value>) -> Option<String> {
    if cfg.role != crate::config::Role::Disturbance {
        return None;
    }
    site.as_ref().and_then(value_text)
}

/// A start or end date as written, when it is not a date `area::parse_date` reads exactly.
fn date_problem(key: &str, column: &str, v: &Value) -> Option<String> {
    let text = value_text(v)?;
    let trailing = text
        .get(10..)
        .is_some_and(|rest| !rest.is_empty() && !rest.starts_with(['T', ' ']));
    let ok = crate::area::parse_date(&text).is_some() && !trailing;
    (!ok).then(|| format!("{key} '{column}' holds '{text}', which is not a date (use YYYY-MM-DD)"))
}

/// Date checks for a disturbance feature that loads: each unreadable start or end, and an
/// end before its start. The feature still loads; its site's findings that depend on dates
/// can then be withheld.
fn date_problems(cfg: &LayerConfig, f: &Feature) -> Vec<String> {
    let mut out = Vec::new();
    let mut dates = [None, None];
    for (slot, (key, column)) in [
        ("start_field", &cfg.start_field),
        ("end_field", &cfg.end_field),
    ]
    .into_iter()
    .enumerate()
    {
        let Some(column) = column.as_deref() else {
            continue;
        };
        let Some(v) = f.properties.get(column) else {
            continue;
        };
        match date_problem(key, column, &v) {
            Some(p) => out.push(p),
            None => dates[slot] = value_text(&v).and_then(|t| crate::area::parse_date(&t)),
        }
    }
    if let [Some(start), Some(end)] = dates {
        if end < start {
            out.push(format!("end {end} is before start {start}"));
        }
    }
    out
}

/// Sorts a reader's items into features and problems. Problems carry `label` (the path
/// relative to the data folder, or an upload's name) and, for disturbance, the site.
pub(super) fn sort_items(
    raw: Vec<std::result::Result<Feature, Refused>>,
    cfg: &LayerConfig,
    label: &str,
) -> (Vec<Feature>, Vec<LoadProblem>, usize) {
    let mut features = Vec::with_capacity(raw.len());
    let mut problems = Vec::new();
    let mut refused = 0;
    for item in raw {
        match item {
            Ok(f) => {
                let site = site_of(
                    cfg,
                    cfg.site_field.as_deref().and_then(|k| f.properties.get(k)),
                );
                if cfg.role == crate::config::Role::Disturbance {
                    for reason in date_problems(cfg, &f) {
                        problems.push(LoadProblem {
                            path: label.to_string(),
                            feature: f.id.clone(),
                            reason,
                            site: site.clone(),
                        });
                    }
                }
                features.push(f);
            }
            Err(r) => {
                refused += 1;
                problems.push(LoadProblem {
                    path: label.to_string(),
                    site: site_of(
                        cfg,
                        cfg.site_field
                            .as_deref()
                            .and_then(|k| r.properties.as_ref()?.get(k).cloned()),
                    ),
                    feature: r.feature,
                    reason: r.reason,
                });
            }
        }
    }
    crate::attributes::share_keys(&mut features, |f| &mut f.properties);
    (features, problems, refused)
}

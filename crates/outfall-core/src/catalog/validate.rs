//! `outfall validate`: every layer tried on its own, so each broken one is named.

use super::read::{read_impaired_table, read_layer};
use super::Catalog;
use crate::config::{check_inside, Manifest, Role};
use crate::load::{self, LoadProblem};
use serde::Serialize;
use std::path::Path;

/// What `outfall validate` found: the errors that stop a load (every layer is tried, so
/// each broken layer is named) and the problems a load would report.
#[derive(Debug, Default, Serialize)]
pub struct Validation {
    pub errors: Vec<String>,
    pub problems: Vec<LoadProblem>,
    pub layers: usize,
    pub features: usize,
}

impl Validation {
    /// No errors (and, when `strict`, no problems either).
    pub fn passes(&self, strict: bool) -> bool {
        self.errors.is_empty() && (!strict || self.problems.is_empty())
    }

    /// One line per error and problem, then a summary line.
    pub fn to_text(&self, data: &Path, strict: bool) -> String {
        let mut out = String::new();
        for e in &self.errors {
            out += &format!("error: {e}\n");
        }
        let level = if strict { "error" } else { "warning" };
        for p in &self.problems {
            let site = p
                .site
                .as_deref()
                .map(|s| format!(" (site {s})"))
                .unwrap_or_default();
            out += &format!(
                "{level}: {}: feature {}{site}: {}\n",
                p.path, p.feature, p.reason
            );
        }
        out += &format!(
            "{}: {} layer(s), {} feature(s) loaded; {} error(s), {} problem(s){}\n",
            data.display(),
            self.layers,
            self.features,
            self.errors.len(),
            self.problems.len(),
            if self.passes(strict) {
                " — valid"
            } else {
                " — NOT valid"
            }
        );
        out
    }
}

/// Loads the data set in `dir` for `outfall validate`: each layer on its own so every
/// broken layer is reported, then the whole catalog for the checks across layers.
pub fn validate(dir: &Path) -> Validation {
    let mut v = Validation::default();
    let manifest = match Manifest::read(dir) {
        Ok(m) => m,
        Err(e) => {
            v.errors.push(e.to_string());
            return v;
        }
    };
    v.layers = manifest.layers.len();
    for cfg in &manifest.layers {
        let is_table = cfg
            .path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
        let result = check_inside(&manifest, cfg).and_then(|_| {
            if cfg.role == Role::Rainfall {
                load::rainfall::read(&manifest.dir, cfg).map(|_| ())
            } else if cfg.role == Role::Dem {
                crate::dem::Dem::check(&manifest.dir, cfg)
            } else if is_table {
                read_impaired_table(&manifest.dir, cfg).map(|_| ())
            } else {
                read_layer(&manifest, cfg).map(|_| ())
            }
        });
        if let Err(e) = result {
            v.errors.push(e.to_string());
        }
    }
    if !v.errors.is_empty() {
        return v;
    }
    match Catalog::load(manifest, &mut |_, _, _| {}) {
        Ok(cat) => {
            v.features = cat.layers.iter().map(|l| l.features.len()).sum();
            v.problems = cat.problems();
        }
        Err(e) => v.errors.push(e.to_string()),
    }
    v
}

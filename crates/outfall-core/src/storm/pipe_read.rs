//! A storm pipe's columns as the network's builder read them, kept for the problems that
//! are found after the network is built (a pipe whose named structures are missing).

use crate::config::StormConfig;
use crate::load::Feature;
use geo_types::{Coord, LineString};

/// A pipe's columns as read: ids and inverts with the sentinels taken out, and its ends.
pub(super) struct PipeRead {
    pub up_id: Option<String>,
    pub down_id: Option<String>,
    pub up_invert_m: Option<f64>,
    pub down_invert_m: Option<f64>,
    pub first: [f64; 2],
    pub last: [f64; 2],
}

impl PipeRead {
    pub(super) fn of(cfg: &StormConfig, f: &Feature, line: &LineString<f64>) -> PipeRead {
        let text = |field: &Option<String>| {
            field
                .as_deref()
                .and_then(|c| f.properties.text(c))
                .filter(|t| !cfg.is_missing(t))
        };
        let number = |field: &Option<String>| {
            text(field)
                .and_then(|t| t.trim().parse::<f64>().ok())
                .filter(|x| x.is_finite())
        };
        let at = |c: Coord<f64>| [c.x, c.y];
        PipeRead {
            up_id: text(&cfg.up_id_field),
            down_id: text(&cfg.down_id_field),
            up_invert_m: number(&cfg.up_invert_field),
            down_invert_m: number(&cfg.down_invert_field),
            first: at(line.0[0]),
            last: at(line.0[line.0.len() - 1]),
        }
    }
}

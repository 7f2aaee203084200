//! Where a site record is built: once at each edge a site enters by (a feature of a sites
//! layer, a drawn or uploaded plan, a parcel taken as a site, an id with polygons only).
//! Inside, the record travels as it was built; nothing reads a site's columns again.

use super::{Site, SITE};
use crate::config::LayerConfig;
use crate::load::Feature;
use crate::vocabulary::site::Vocabulary;
use serde_json::{Map, Value};

impl Site {
    /// A feature of a sites layer, through the layer's renames; its name is the layer's
    /// `name_field`, as every list of the layer names it.
    pub fn from_feature(f: &Feature, cfg: &LayerConfig, words: &Vocabulary) -> Site {
        let get = |k: &str| {
            if k == SITE.name.name {
                cfg.name_field.as_deref().and_then(|n| f.properties.get(n))
            } else {
                f.properties.get(cfg.field(k))
            }
        };
        Site::read(f.id.clone(), &get, words)
    }

    /// A plan's own properties under the record's names (a drawn plan, a batch item): no
    /// data set's renames apply to what an applicant writes.
    pub fn from_properties(id: &str, properties: &Map<String, Value>, words: &Vocabulary) -> Site {
        Site::read(id, &|k: &str| properties.get(k).cloned(), words)
    }

    /// A site known only by the polygons that name it: its record states nothing.
    pub fn bare(id: impl Into<String>) -> Site {
        Site {
            id: id.into(),
            ..Site::default()
        }
    }

    /// A parcel checked as a site: it names itself, and states nothing else.
    pub fn parcel(id: &str, name: Option<String>) -> Site {
        Site {
            name,
            parcel_ids: vec![id.to_string()],
            ..Site::bare(id)
        }
    }
}

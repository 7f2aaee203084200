//! The PostGIS store's rows: a site row and a WKB geometry read and written, and a database
//! error as the core's, for both the store's reads and its write transaction.

use geo_types::Geometry;
use geozero::{CoordDimensions, ToWkb};
use outfall_core::error::{Error, Result};
use outfall_core::registry::rows::{self, SiteRow, SqlStyle, TokenRow};
use outfall_core::registry::{SiteRecord, Stored, TokenRecord};
use postgres::Row;

pub(crate) const STYLE: SqlStyle = SqlStyle {
    marker: '$',
    geom_in: |param| format!("ST_GeomFromWKB({param}, 4326)"),
    geom_out: "ST_AsBinary(geom)",
};

/// A database error as the core's, naming the store by `label`.
pub(crate) fn db_error(label: &str, e: postgres::Error) -> Error {
    Error::Registry {
        store: label.to_string(),
        reason: e
            .as_db_error()
            .map_or_else(|| e.to_string(), |d| d.message().to_string()),
    }
}

pub(crate) fn to_wkb(g: &Geometry<f64>) -> Result<Vec<u8>> {
    g.to_wkb(CoordDimensions::xy())
        .map_err(|e| Error::Input(format!("cannot encode a geometry: {e}")))
}

/// A geometry column's WKB, decoded: None when there is none; a WKB that is no geometry
/// (PostGIS keeps a curve or a deep collection that is not read here) is kept as why.
pub(crate) fn from_wkb(wkb: Option<Vec<u8>>) -> Option<Stored<Geometry<f64>>> {
    match wkb {
        Some(b) if !b.is_empty() => Some(outfall_core::load::wkb::from_wkb(&b)),
        _ => None,
    }
}

/// A site row of `STYLE.select_sites`, with its boundary when `geometry` was selected.
pub(crate) fn site_of(r: &Row, geometry: bool) -> Result<SiteRecord> {
    let mut site = SiteRow {
        site_id: r.get(0),
        columns: (1..rows::ATTRIBUTES_AT).map(|i| r.get(i)).collect(),
        attributes: r.get(rows::ATTRIBUTES_AT),
        version: r.get(rows::VERSION_AT),
        retired: r.get(rows::RETIRED_AT),
        submitted_by: r.get(rows::SUBMITTED_BY_AT),
    }
    .record();
    if geometry {
        site.boundary = from_wkb(r.get(rows::GEOM_AT));
    }
    Ok(site)
}

/// A token row of `rows::TOKEN_SELECT`.
pub(crate) fn token_of(r: &Row) -> Result<TokenRecord> {
    TokenRow {
        text: [r.get(0), r.get(1), r.get(2), r.get(3), r.get(4)],
        expires_at: r.get(5),
        revoked: r.get(6),
    }
    .record()
}

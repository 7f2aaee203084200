//! Finding what a typed query names in a catalog (parcels by id and address, sites, waters,
//! streets), ranked by how well each matches (`names`) and, for sites, with their reports.

mod hits;

pub use hits::{find, Hit, Query, MAX_QUERY_CHARS};

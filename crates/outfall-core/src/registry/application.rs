//! A new-site application (`POST /sites`), read and checked next to `apply_change`, which
//! checks its fields as it checks a `PATCH`: a GeoJSON FeatureCollection of disturbance
//! polygons (`phase`, `start`, `end`) with a `site` member of the application's fields.
//! Every refusal is an `Error::Input` whose message the server prefixes with
//! "application: ".

use super::typed::applicant_may_state;
use super::{apply_change, join_parcel_ids, AccessRole, DisturbanceRecord, SiteRecord};
use crate::catalog::Catalog;
use crate::claims::Vocabulary;
use crate::error::{Error, Result};
use crate::load::{Feature, UploadLimits};
use serde_json::{Map, Value};

/// An application read but not yet checked against the catalog: its site id (given, or a
/// new random one), its fields and its features.
#[derive(Debug)]
pub struct Application {
    pub site_id: String,
    pub fields: Map<String, Value>,
    pub features: Vec<Feature>,
}

/// Reads an application's body: JSON text, a usable FeatureCollection within `limits`
/// (the features and vertices of one `POST /check`; the vertices are counted before any
/// parsing), and a valid `site_id` (a new `A-XXXXXX` when none is given).
pub fn read_application(body: &[u8], limits: &UploadLimits) -> Result<Application> {
    let bad = |m: &str| Error::Input(m.to_string());
    limits.check_vertices(crate::load::count_vertices(body))?;
    let text = std::str::from_utf8(body).map_err(|_| bad("the body is not UTF-8 text"))?;
    let mut doc: Value = serde_json::from_str(text.strip_prefix('\u{feff}').unwrap_or(text))
        .map_err(|e| Error::Input(format!("not JSON: {e}")))?;
    let mut fields = match doc.as_object_mut().and_then(|o| o.remove("site")) {
        Some(Value::Object(m)) => m,
        Some(_) => return Err(bad("\"site\" must be an object")),
        None => Map::new(),
    };
    // A parse error is the reader's own (a format error), not prefixed as the others are.
    let (features, problems) = crate::load::parse_geojson(&doc.to_string(), "application")?;
    if let Some(p) = problems.first() {
        return Err(Error::Input(format!("feature {}: {}", p.feature, p.reason)));
    }
    if features.len() > limits.max_features {
        return Err(Error::Input(format!(
            "{} features; at most {} are accepted in one application",
            features.len(),
            limits.max_features
        )));
    }
    let site_id = match fields.remove("site_id") {
        Some(Value::String(s)) if valid_id(&s) => s,
        Some(v) => {
            return Err(Error::Input(format!(
                "site_id {v} must be 1 to 40 letters, digits, '-' or '_'"
            )))
        }
        None => new_site_id()?,
    };
    join_parcel_ids(&mut fields);
    Ok(Application {
        site_id,
        fields,
        features,
    })
}

fn new_site_id() -> Result<String> {
    let mut b = [0u8; 3];
    getrandom::fill(&mut b)
        .map_err(|e| Error::io("randomness", std::io::Error::other(e.to_string())))?;
    Ok(format!("A-{}", hex::encode(b).to_uppercase()))
}

fn valid_id(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 40
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

impl Application {
    /// The first field (on the site, or a key of a claim) that `role` may not state
    /// (`typed::roles_of`): an applicant may claim an exemption and state the facts of the
    /// work, never find or confirm it, approve the plan, or state land use and dates that
    /// exempt it.
    pub fn forbidden_field(&self, role: AccessRole, words: &Vocabulary) -> Option<&str> {
        if role == AccessRole::Officer {
            return None;
        }
        let in_claims = self
            .fields
            .get("exemption_claims")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_object)
            .flatten();
        self.fields
            .iter()
            .chain(in_claims)
            .find(|(k, v)| role != AccessRole::Applicant || !applicant_may_state(k, v, words))
            .map(|(k, _)| k.as_str())
    }

    /// The site record (version 1, `planned` unless the officer set a status) and its
    /// disturbance records, refused as `POST /check` refuses a drawing: no polygon, across
    /// the antimeridian, far from the data set.
    pub fn into_records(
        mut self,
        catalog: &Catalog,
        submitted_by: &str,
    ) -> Result<(SiteRecord, Vec<DisturbanceRecord>)> {
        let id = self.site_id;
        self.fields
            .entry("status")
            .or_insert(Value::String("planned".into()));
        let empty = SiteRecord {
            site_id: id.clone(),
            properties: Map::new(),
            boundary: None,
            version: 1,
            retired: None,
            submitted_by: Some(submitted_by.to_string()),
        };
        let (mut site, _) = apply_change(&empty, &self.fields, &catalog.manifest.words)?;
        let outfall = site
            .properties
            .get("outfall")
            .and_then(crate::load::value_text)
            .and_then(|s| crate::load::parse_point(&s));
        // What no site can be is refused here; the site itself is checked by the write
        // (`Live::check_records`), once, in its budget.
        crate::screening::refuse_impossible(catalog, &self.features, outfall)?;
        let (polygons, disturbance) = phases_of(&id, &self.features)?;
        site.boundary = Some(Ok(geo_types::Geometry::MultiPolygon(
            geo_types::MultiPolygon(polygons),
        )));
        Ok((site, disturbance))
    }
}

/// The application's polygons and its disturbance records, one per feature with a polygon;
/// the error names a feature whose `start` or `end` is not a date.
fn phases_of(
    id: &str,
    features: &[Feature],
) -> Result<(Vec<geo_types::Polygon<f64>>, Vec<DisturbanceRecord>)> {
    let mut polygons = Vec::new();
    let mut disturbance = Vec::new();
    for (n, f) in features.iter().enumerate() {
        let text = |k: &str| f.properties.text(k);
        for key in ["start", "end"] {
            if let Some(d) = text(key) {
                if crate::area::parse_date(&d).is_none() {
                    return Err(Error::Input(format!(
                        "feature {}: {key} '{d}' is not a date (YYYY-MM-DD) {}",
                        f.id,
                        crate::bounds::range_text()
                    )));
                }
            }
        }
        check_texts(f)?;
        let ps = crate::area::polygons_of(&f.geometry);
        if ps.is_empty() {
            continue;
        }
        polygons.extend(ps);
        let mut properties = f.properties.to_map();
        for k in ["phase", "start", "end", "site_id", "dist_id"] {
            properties.remove(k);
        }
        disturbance.push(DisturbanceRecord {
            site_id: id.to_string(),
            dist_id: format!("{id}-{}", n + 1),
            phase: text("phase").or(Some("1".into())),
            start: text("start"),
            end: text("end"),
            properties,
            geometry: Ok(f.geometry.clone()),
        });
    }
    Ok((polygons, disturbance))
}

/// Every text property of a polygon within its cap (`bounds::text_cap`), named by feature
/// and key.
fn check_texts(f: &Feature) -> Result<()> {
    for (k, v) in f.properties.to_map() {
        if let Value::String(s) = v {
            crate::bounds::check_text(&format!("feature {}: {k}", f.id), &s)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SQUARE: &str = r#"{"type":"Feature","properties":{"phase":"1","start":"2024-05-01"},"geometry":{"type":"Polygon","coordinates":[[[-76.2,43.1],[-76.199,43.1],[-76.199,43.101],[-76.2,43.101],[-76.2,43.1]]]}}"#;

    fn doc(site: &str) -> Vec<u8> {
        format!(r#"{{"type":"FeatureCollection","site":{site},"features":[{SQUARE}]}}"#)
            .into_bytes()
    }

    fn features(max_features: usize) -> UploadLimits {
        UploadLimits {
            max_features,
            ..UploadLimits::DEFAULT
        }
    }

    fn input(e: Error) -> String {
        match e {
            Error::Input(m) => m,
            other => panic!("not an input error: {other}"),
        }
    }

    #[test]
    fn site_ids_are_checked_or_made() {
        let a = read_application(&doc(r#"{"site_id":"S-9","name":"x"}"#), &features(10)).unwrap();
        assert_eq!(a.site_id, "S-9");
        assert_eq!(a.features.len(), 1);
        let made = read_application(&doc(r#"{"name":"x"}"#), &features(10)).unwrap();
        assert!(made.site_id.starts_with("A-") && made.site_id.len() == 8);
        let e = read_application(&doc(r#"{"site_id":"a b"}"#), &features(10)).unwrap_err();
        assert!(input(e).contains("site_id \"a b\" must be 1 to 40 letters"));
    }

    #[test]
    fn refusals_say_what_is_wrong() {
        assert_eq!(
            input(read_application(b"\xff", &features(10)).unwrap_err()),
            "the body is not UTF-8 text"
        );
        assert!(input(read_application(b"{", &features(10)).unwrap_err()).starts_with("not JSON: "));
        let e = read_application(&doc("[1]"), &features(10)).unwrap_err();
        assert_eq!(input(e), "\"site\" must be an object");
        let e = read_application(&doc("{}"), &features(0)).unwrap_err();
        assert_eq!(
            input(e),
            "1 features; at most 0 are accepted in one application"
        );
    }

    #[test]
    fn officer_fields_are_found_on_the_site_and_in_claims() {
        let applicant = AccessRole::Applicant;
        let words = Vocabulary::default();
        let a = read_application(&doc(r#"{"name":"x","status":"active"}"#), &features(10)).unwrap();
        assert_eq!(a.forbidden_field(applicant, &words), Some("status"));
        assert_eq!(a.forbidden_field(AccessRole::Officer, &words), None);
        let claim = r#"{"exemption_claims":[{"code":"a","verified_by":"me"}]}"#;
        let a = read_application(&doc(claim), &features(10)).unwrap();
        assert_eq!(a.forbidden_field(applicant, &words), Some("verified_by"));
        for (site, field) in [
            (
                r#"{"exemption_claims":[{"code":"d","repair_deemed_necessary":true}]}"#,
                "repair_deemed_necessary",
            ),
            (
                r#"{"building_permit_approved":"2007-01-01"}"#,
                "building_permit_approved",
            ),
            (
                r#"{"exemption_claims":[{"code":"e","plat_approved":"2007-01-01"}]}"#,
                "plat_approved",
            ),
            (r#"{"land_use":"farm"}"#, "land_use"),
            (r#"{"land_use":"Agricultural"}"#, "land_use"),
            (r#"{"agricultural":true}"#, "agricultural"),
            (
                r#"{"swppp_approval":{"decision":"approved"}}"#,
                "swppp_approval",
            ),
        ] {
            let a = read_application(&doc(site), &features(10)).unwrap();
            assert_eq!(a.forbidden_field(applicant, &words), Some(field), "{site}");
        }
        let mine = r#"{"name":"x","common_plan":false,"land_use":"commercial","exemption_claims":[{"code":"c","maintains_original":true}]}"#;
        let a = read_application(&doc(mine), &features(10)).unwrap();
        assert_eq!(a.forbidden_field(applicant, &words), None);
    }

    /// Issue 22, attack 3: a 40,000-vertex polygon is refused by the vertex limit of
    /// `/check` before it is parsed, naming the limit.
    #[test]
    fn a_polygon_over_the_vertex_limit_is_refused_naming_it() {
        let n = 40_000;
        let ring: Vec<String> = (0..n)
            .map(|i| {
                let a = std::f64::consts::TAU * i as f64 / n as f64;
                format!(
                    "[{:.7},{:.7}]",
                    -76.2 + 0.001 * a.cos(),
                    43.1 + 0.001 * a.sin()
                )
            })
            .chain(std::iter::once("[-76.199,43.1]".to_string()))
            .collect();
        let body = format!(
            r#"{{"type":"FeatureCollection","site":{{"name":"x"}},"features":[{{"type":"Feature","properties":{{}},"geometry":{{"type":"Polygon","coordinates":[[{}]]}}}}]}}"#,
            ring.join(",")
        );
        let e = input(read_application(body.as_bytes(), &UploadLimits::DEFAULT).unwrap_err());
        assert_eq!(
            e,
            "40001 vertices; at most 20000 coordinates are accepted in one check"
        );
    }
}

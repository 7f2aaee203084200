//! A made-up town for table tests of the law: a square boundary, one stream flowing north
//! 300 m east of the origin, and sites of any size and attributes, built as GeoJSON in a
//! temp folder. Distances are metres east and north of (-76.2, 43.15).

use outfall_core::report::Report;
use outfall_core::Catalog;

pub const LAT: f64 = 43.15;
const M_PER_DEG_LAT: f64 = 111_000.0;

fn m_per_deg_lon() -> f64 {
    M_PER_DEG_LAT * LAT.to_radians().cos()
}

pub fn lonlat(dx_m: f64, dy_m: f64) -> (f64, f64) {
    (-76.2 + dx_m / m_per_deg_lon(), LAT + dy_m / M_PER_DEG_LAT)
}

/// A rectangle `w_m` by `h_m` with its south-west corner at (dx, dy), as GeoJSON coordinates.
pub fn rect(dx_m: f64, dy_m: f64, w_m: f64, h_m: f64) -> String {
    let (x0, y0) = lonlat(dx_m, dy_m);
    let (x1, y1) = lonlat(dx_m + w_m, dy_m + h_m);
    format!("[[[{x0},{y0}],[{x1},{y0}],[{x1},{y1}],[{x0},{y1}],[{x0},{y0}]]]")
}

/// The side of a square of `acres`, in metres (planar; geodesic acres differ by < 0.5%).
pub fn side_m(acres: f64) -> f64 {
    (acres * 4046.8564224).sqrt()
}

pub fn feature(props: &str, polygon: &str) -> String {
    format!(
        r#"{{"type":"Feature","properties":{props},"geometry":{{"type":"Polygon","coordinates":{polygon}}}}}"#
    )
}

pub fn fc(features: &[String]) -> String {
    format!(
        r#"{{"type":"FeatureCollection","features":[{}]}}"#,
        features.join(",")
    )
}

/// One disturbance phase: name, start, end ("" for none) and its polygon.
pub type Phase = (&'static str, &'static str, &'static str, String);

/// The town: boundary 0..2000 m square, stream R1 at x = 300 flowing north (pwl MUD-1).
pub struct Town {
    pub manifest: String,
    pub files: Vec<(String, String)>,
}

impl Town {
    pub fn new() -> Town {
        let boundary = fc(&[feature(
            r#"{"name":"Town of Test"}"#,
            &rect(-1000.0, -1000.0, 3000.0, 3000.0),
        )]);
        let (a, b, c) = (
            lonlat(300.0, -500.0),
            lonlat(300.0, 0.0),
            lonlat(300.0, 900.0),
        );
        let flow = format!(
            r#"{{"type":"FeatureCollection","features":[{{"type":"Feature","properties":{{"id":"R1","name":"Mud Creek","pwl":"MUD-1"}},"geometry":{{"type":"LineString","coordinates":[[{},{}],[{},{}],[{},{}]]}}}}]}}"#,
            a.0, a.1, b.0, b.1, c.0, c.1
        );
        let manifest = "[[layer]]\nrole = \"sites\"\npath = \"sites.geojson\"\nid_field = \"id\"\n\
[[layer]]\nrole = \"disturbance\"\npath = \"dist.geojson\"\nsite_field = \"site\"\nphase_field = \"phase\"\nstart_field = \"start\"\nend_field = \"end\"\n\
[[layer]]\nrole = \"flowlines\"\npath = \"flow.geojson\"\nid_field = \"id\"\nname_field = \"name\"\njoin_field = \"pwl\"\n\
[[layer]]\nrole = \"boundary\"\npath = \"boundary.geojson\"\nid_field = \"name\"\n"
            .to_string();
        Town {
            manifest,
            files: vec![
                ("boundary.geojson".into(), boundary),
                ("flow.geojson".into(), flow),
            ],
        }
    }

    /// Adds a layer: its manifest entry and its file.
    pub fn layer(mut self, toml: &str, name: &str, body: String) -> Town {
        self.manifest += toml;
        self.files.push((name.into(), body));
        self
    }

    /// Sets the sites and their disturbance: each site is (attributes JSON without braces,
    /// its disturbance features as (phase, start, end, polygon)).
    pub fn sites(mut self, sites: &[(&str, Vec<Phase>)]) -> Town {
        let mut sf = Vec::new();
        let mut df = Vec::new();
        for (i, (attrs, phases)) in sites.iter().enumerate() {
            let id = format!("S{}", i + 1);
            let comma = if attrs.is_empty() { "" } else { "," };
            let poly = phases
                .first()
                .map(|p| p.3.clone())
                .unwrap_or_else(|| rect(0.0, 0.0, 50.0, 50.0));
            sf.push(feature(&format!(r#"{{"id":"{id}"{comma}{attrs}}}"#), &poly));
            for (phase, start, end, p) in phases {
                df.push(feature(
                    &format!(
                        r#"{{"site":"{id}","phase":"{phase}","start":"{start}","end":"{end}"}}"#
                    ),
                    p,
                ));
            }
        }
        self.files.push(("sites.geojson".into(), fc(&sf)));
        self.files.push(("dist.geojson".into(), fc(&df)));
        self
    }

    pub fn open(&self) -> (tempfile::TempDir, Catalog) {
        let owned: Vec<(&str, &[u8])> = self
            .files
            .iter()
            .map(|(n, t)| (n.as_str(), t.as_bytes()))
            .collect();
        let dir = super::dataset(&self.manifest, &owned);
        let cat = Catalog::open(dir.path()).expect("the made-up town loads");
        (dir, cat)
    }

    pub fn report(&self, site: &str) -> Report {
        let (_dir, cat) = self.open();
        outfall_core::screening::check_site(&cat, site).expect("report")
    }
}

/// One square phase of `acres` at (dx, dy), with dates ("" for none).
pub fn phase(
    name: &'static str,
    start: &'static str,
    end: &'static str,
    dx: f64,
    dy: f64,
    acres: f64,
) -> Phase {
    let s = side_m(acres);
    (name, start, end, rect(dx, dy, s, s))
}

//! The GeoJSON reader's own checks: crs names, positions, the one-pass geometry path, and
//! the features read in one pass.

use super::fast::fast_geometry;
use super::feature::{check_positions, slow_geometry};
use super::*;
use crate::load::check_geometry;

#[test]
fn upload_crs_names_are_codes_only() {
    assert!(is_safe_crs_name("EPSG:2261"));
    assert!(is_safe_crs_name("urn:ogc:def:crs:EPSG::2261"));
    assert!(is_safe_crs_name("urn:ogc:def:crs:EPSG:6.3:2261"));
    assert!(is_safe_crs_name("urn:ogc:def:crs:OGC:1.3:CRS84"));
    assert!(!is_safe_crs_name("+init=/etc/passwd:root"));
    assert!(!is_safe_crs_name("EPSG:2261 +init=x"));
    assert!(!is_safe_crs_name("urn:ogc:def:crs:EPSG::../../x"));
}

#[test]
fn positions_need_two_or_three_finite_numbers() {
    let p = |c: &str| {
        check_positions(
            &serde_json::from_str(&format!(r#"{{"type":"LineString","coordinates":{c}}}"#))
                .unwrap(),
            0,
        )
    };
    assert!(p("[[-76.18,43.1],[-76.17,43.1,2]]").is_ok());
    assert!(p("[[-76.18],[-76.17,43.1]]").is_err());
    assert!(p(r#"[[-76.18,"x"],[-76.17,43.1]]"#).is_err());
    assert!(p("[-76.18,43.1]").is_err());
}

#[test]
fn the_fast_geometry_path_agrees_with_the_checked_one() {
    for g in [
        r#"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]],[[0.1,0.1],[0.2,0.1],[0.2,0.2],[0.1,0.1]]]}"#,
        r#"{"coordinates":[[[[0,0,5],[1,0],[1,1],[0,0,5]]]],"type":"MultiPolygon"}"#,
    ] {
        let raw: Box<RawValue> = serde_json::from_str(g).unwrap();
        assert_eq!(
            fast_geometry(&raw),
            Some(slow_geometry(&raw).unwrap()),
            "{g}"
        );
    }
    // Unclosed (a z on one end only), short, bad or extra members: the checked path.
    for g in [
        r#"{"type":"Polygon","coordinates":[[[0,0,1],[1,0],[1,1],[0,0]]]}"#,
        r#"{"type":"Polygon","coordinates":[[[0,0],[1,0],[0,0]]]}"#,
        r#"{"type":"Polygon","coordinates":[[[0],[1,0],[1,1],[0]]]}"#,
        r#"{"type":"Polygon","coordinates":[]}"#,
        r#"{"type":"Polygon","bbox":[0,0,1,1],"coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}"#,
        r#"{"type":"Polygon","type":"Point","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}"#,
    ] {
        let raw: Box<RawValue> = serde_json::from_str(g).unwrap();
        assert_eq!(fast_geometry(&raw), None, "{g}");
    }
}

mod one_pass {
    use super::*;
    use geo_types::{Geometry, LineString, Point, Polygon};

    fn load(features: &str) -> Vec<std::result::Result<Feature, Refused>> {
        let text = format!(r#"{{"type":"FeatureCollection","features":[{features}]}}"#);
        let cfg = super::super::super::upload_config("t.geojson", None);
        parse(&text, Path::new("t.geojson"), &cfg, false)
            .unwrap()
            .items
    }

    /// Rings read through the per-thread buffer keep their own positions: a hole after its
    /// exterior, and a small ring after one large enough for the buffer to be dropped.
    #[test]
    fn each_ring_keeps_its_own_positions() {
        let big: Vec<String> = (0..70_000)
            .map(|i| {
                let a = i as f64 / 70_000.0 * std::f64::consts::TAU;
                format!("[{},{}]", a.cos(), a.sin())
            })
            .chain(std::iter::once("[1,0]".to_string()))
            .collect();
        let items = load(&format!(
            r#"{{"type":"Feature","properties":{{}},"geometry":{{"type":"Polygon","coordinates":[[{}]]}}}},
               {{"type":"Feature","properties":{{}},"geometry":{{"type":"Polygon","coordinates":[[[0,0],[4,0],[4,4],[0,4],[0,0]],[[1,1],[2,2],[1,2],[1,1]]]}}}}"#,
            big.join(",")
        ));
        let rings = |i: usize| match &items[i].as_ref().unwrap().geometry {
            Geometry::Polygon(p) => std::iter::once(p.exterior().0.len())
                .chain(p.interiors().iter().map(|r| r.0.len()))
                .collect::<Vec<_>>(),
            g => panic!("{g:?}"),
        };
        assert_eq!(rings(0), vec![70_001]);
        assert_eq!(rings(1), vec![5, 4]);
        let Geometry::Polygon(p) = &items[1].as_ref().unwrap().geometry else {
            unreachable!()
        };
        assert_eq!(
            p.interiors()[0].0[1],
            geo_types::Coord { x: 1., y: 2. },
            "the hole, turned clockwise"
        );
    }

    /// Attributes are sorted by name whatever their order in the file, a repeated name keeps
    /// its last value, and features with the same names share one key list.
    #[test]
    fn attribute_names_are_sorted_once_per_new_order() {
        let geometry = r#""geometry":{"type":"Polygon","coordinates":[[[0,0],[0,1],[1,1],[0,0]]]}"#;
        let items = load(
            &[
                r#""properties":{"b":1,"a":2}"#,
                r#""properties":{"b":3,"a":4}"#,
                r#""properties":{"a":5,"b":6}"#,
                r#""properties":{"b":7,"a":8,"b":9}"#,
                r#""properties":{"c":10,"a":11}"#,
            ]
            .map(|p| format!(r#"{{"type":"Feature",{p},{geometry}}}"#))
            .join(","),
        );
        let f: Vec<&Feature> = items.iter().map(|i| i.as_ref().unwrap()).collect();
        let pairs = |i: usize| -> Vec<(String, String)> {
            f[i].properties
                .raw_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let kv = |a: &str, b: &str, x: &str, y: &str| {
            vec![
                (a.to_string(), x.to_string()),
                (b.to_string(), y.to_string()),
            ]
        };
        assert_eq!(pairs(0), kv("a", "b", "2", "1"));
        assert_eq!(pairs(1), kv("a", "b", "4", "3"));
        assert_eq!(pairs(2), kv("a", "b", "5", "6"));
        assert_eq!(pairs(3), kv("a", "b", "8", "9"));
        assert_eq!(pairs(4), kv("a", "c", "11", "10"));
        for i in 1..4 {
            assert!(std::sync::Arc::ptr_eq(
                f[0].properties.schema(),
                f[i].properties.schema()
            ));
        }
    }

    /// The one-pass reading and the member-by-member one give the same features, and what
    /// the first cannot read goes to the second, which names the problem.
    #[test]
    fn usual_features_read_in_one_pass_and_the_rest_as_before() {
        let square = |d: f64| {
            Polygon::new(
                LineString::from(vec![
                    (d, 0.0),
                    (d, 1.0),
                    (d + 1.0, 1.0),
                    (d + 1.0, 0.0),
                    (d, 0.0),
                ]),
                vec![],
            )
        };
        let items = load(concat!(
            r#"{"type":"Feature","id":7,"properties":{"a":1},"geometry":{"type":"Polygon","coordinates":[[[0,0],[0,1],[1,1],[1,0],[0,0]]]}},"#,
            r#"{"geometry":{"coordinates":[[[[2,0],[2,1],[3,1],[3,0],[2,0]]]],"type":"MultiPolygon"},"properties":{"a":1},"properties":{"a":2}},"#,
            r#"{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[4,5]}},"#,
            r#"{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[[[0,0,1],[0,1],[1,1],[1,0],[0,0]]]}},"#,
            r#"{"type":"Feature","properties":{},"geometry":null}"#
        ));
        let ok = |i: usize| items[i].as_ref().unwrap();
        assert_eq!(ok(0).id, "7");
        assert_eq!(ok(0).properties.text("a").as_deref(), Some("1"));
        let checked = |g: Geometry<f64>| check_geometry(g).unwrap();
        assert_eq!(ok(0).geometry, checked(Geometry::Polygon(square(0.0))));
        // A repeated member: the last, as a JSON map keeps it.
        assert_eq!(ok(1).properties.text("a").as_deref(), Some("2"));
        let multi = geo_types::MultiPolygon(vec![square(2.0)]);
        assert_eq!(ok(1).geometry, checked(Geometry::MultiPolygon(multi)));
        assert_eq!(ok(2).geometry, Geometry::Point(Point::new(4.0, 5.0)));
        let refused = |i: usize| items[i].as_ref().unwrap_err().reason.clone();
        assert!(refused(3).contains("closed"), "{}", refused(3));
        assert!(refused(4).contains("no geometry"), "{}", refused(4));
    }

    /// The one-pass reading splits a feature's properties as it reads the feature; the
    /// member-by-member reading (a Point goes there) splits them from their text after. Both
    /// give the same attributes for every kind of properties member.
    #[test]
    fn properties_read_in_one_pass_are_those_read_after() {
        let members = [
            r#"{"b":"x","a":2.50,"c":null}"#,
            r#"{"n\u0061me":"esc","a":[1,{"k":"v"}],"o":{"p":[]}}"#,
            r#"{"a":1,"b":2,"a":3}"#,
            r#"{"t":"quote \" and \\ inside","u":"\u00e9"}"#,
            r#"{}"#,
            "null",
            "[1,2]",
            r#""text""#,
            "7",
        ];
        let poly = r#"{"type":"Polygon","coordinates":[[[0,0],[0,1],[1,1],[1,0],[0,0]]]}"#;
        let point = r#"{"type":"Point","coordinates":[0.5,0.5]}"#;
        for m in members {
            let feature =
                |g: &str| format!(r#"{{"type":"Feature","properties":{m},"geometry":{g}}}"#);
            let items = load(&format!("{},{}", feature(poly), feature(point)));
            let attrs = |i: usize| items[i].as_ref().unwrap().properties.to_map();
            assert_eq!(attrs(0), attrs(1), "properties {m}");
            let expect = match serde_json::from_str::<Value>(m).unwrap() {
                Value::Object(o) => o.len(),
                _ => 0,
            };
            assert_eq!(attrs(0).len(), expect, "properties {m}");
        }
    }
}

/// The splitter reads what serde's scan reads, feature for feature, and where it gives up
/// (not the plain case, or not JSON) the serde scan's answer, error included, is the
/// answer: every document here is read both ways and compared.
mod splitter {
    use super::*;

    /// What one reading gave, comparable: the top members, the features' CRS and the
    /// converted features (or refusals), or the error's text.
    pub(super) fn read(bytes: &[u8], split: bool) -> String {
        let cfg = crate::load::upload_config("t.geojson", None);
        let path = Path::new("t.geojson");
        let doc = if split {
            in_memory(bytes, path, &cfg, true, None)
        } else {
            let de = serde_json::Deserializer::from_slice(bytes);
            stream::<_, &RawValue>(de, path, &cfg, true, None)
        };
        match doc {
            Ok(d) => format!(
                "{:?} {} {:?} {:?}",
                d.top,
                d.features_array,
                d.features_crs,
                d.converted.map(|c| c.items)
            ),
            Err(e) => format!("error: {e}"),
        }
    }

    #[test]
    fn the_splitter_reads_what_serde_reads() {
        let poly = r#"{"type":"Polygon","coordinates":[[[0,0],[0,1],[1,1],[0,0]]]}"#;
        let f =
            |props: &str| format!(r#"{{"type":"Feature","properties":{props},"geometry":{poly}}}"#);
        let fc =
            |features: &str| format!(r#"{{"type":"FeatureCollection","features":[{features}]}}"#);
        let docs = [
            fc(&[
                f(r#"{"a":1}"#),
                f(r#"{"b":"x}y{"}"#),
                f(r#"{"c":"q\"}]\\"}"#),
            ]
            .join(",")),
            fc(""),
            fc(&f(r#"{"n":[1,{"m":[2,3]}],"u":"\u00e9\ud83d\ude00"}"#)),
            format!(" \n{}\t ", fc(&f("{}"))),
            format!(
                r#"{{"crs":{{"type":"name","properties":{{"name":"EPSG:4326"}}}},"type":"FeatureCollection","features":[{}]}}"#,
                f("{}")
            ),
            format!(
                r#"{{"type":"FeatureCollection","features":[{}],"name":"after"}}"#,
                f("{}")
            ),
            // A feature that is not an object: refused by both.
            fc("3"),
            // Not the plain case: serde's reading.
            format!(
                r#"{{"type":"FeatureCollection","features":[{}],"features":[]}}"#,
                f("{}")
            ),
            r#"{"type":"FeatureCollection","features":{}}"#.into(),
            format!(
                r#"{{"ty\u0070e":"FeatureCollection","features":[{}]}}"#,
                f("{}")
            ),
            format!(r#"{{"type":"Feature","properties":{{}},"geometry":{poly}}}"#),
            "[]".into(),
            // Not JSON, in a feature, between features, or after the document.
            fc(&[f(r#"{"a":01}"#), f("{}")].join(",")),
            fc(&[f(r#"{"a":1,}"#)].join(",")),
            fc(&[f("{}"), f("{}")].join(" ")),
            format!("{}x", fc(&f("{}"))),
            fc(&f(r#"{"a":"unterminated}"#)),
            fc(
                r#"{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[[[0,0],[0,1],[1,1],[0,0]]}]}"#,
            ),
            fc(r#"{"type":"Feature","properties":{"a":"\x"},"geometry":null}"#),
        ];
        let cfg = crate::load::upload_config("t.geojson", None);
        for (i, d) in docs.iter().enumerate() {
            assert_eq!(read(d.as_bytes(), true), read(d.as_bytes(), false), "{d}");
            // The first seven are the plain case, which the splitter itself reads.
            let split = split_doc(d.as_bytes(), Path::new("t.geojson"), &cfg, true, &None);
            assert_eq!(split.is_some(), i < 7, "{d}");
        }
        // Non-UTF-8 text in a feature: refused by both readings alike.
        let mut bytes = fc(&f(r#"{"a":"AB"}"#)).into_bytes();
        let at = bytes.windows(2).position(|w| w == b"AB").unwrap();
        bytes[at] = 0xff;
        assert!(read(&bytes, false).starts_with("error"));
        assert_eq!(read(&bytes, true), read(&bytes, false));
    }
}

/// Real files read both ways, feature for feature: the splitter's reading is serde's.
/// Real data lives beside the repository; CI fails without it, elsewhere the test skips.
#[test]
fn real_files_split_as_serde_reads_them() {
    for rel in [
        "massgis-bellingham-parcels/bellingham_ma_parcels_fy2026.geojson",
        "nhdplusv2-new-hope-nc/new_hope_flowlines.geojson",
        // An empty geometry and invalid polygons among its features.
        "ca-303d-2014-2016/ca_303d_2014_2016_polygons.geojson",
    ] {
        let Some(path) = crate::real_data(rel) else {
            continue;
        };
        let bytes = std::fs::read(&path).expect("the real file reads");
        let cfg = crate::load::upload_config("t.geojson", None);
        assert!(
            split_doc(&bytes, &path, &cfg, false, &None).is_some(),
            "{rel}: the splitter reads it"
        );
        assert_eq!(
            splitter::read(&bytes, true),
            splitter::read(&bytes, false),
            "{rel}"
        );
    }
}

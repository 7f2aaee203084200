//! Well-known binary (WKB) geometry, and the GeoPackage geometry blob around it, read with
//! every count checked against the bytes that remain and the nesting bounded, before
//! anything is allocated from a count. A blob is written by whoever made the file: an
//! upload, or a registry row edited in QGIS, sqlite3 or psql. A count of 0xFFFFFFFF made the
//! reader it replaces (geozero's) reserve 200 GB and abort, and a collection nested 200,000
//! deep overflowed its stack; here both are an error saying what the blob claims.
//!
//! The simple features are read (ISO codes 1 Point to 7 GeometryCollection, 2D or with Z, M
//! or ZM, whose extra ordinates are dropped); curves, surfaces and TINs are refused by name.
//! Each nested geometry carries its own byte order and dimensions, as WKB allows. Bytes after
//! the geometry are ignored, as they were before. What the coordinates are worth (finite,
//! in range) is `check_geometry`'s to say, not this reader's.

use geo_types::{
    Coord, Geometry, GeometryCollection, LineString, MultiLineString, MultiPoint, MultiPolygon,
    Point, Polygon,
};

/// The most geometries one may sit inside (collections in collections; a polygon in a
/// multipolygon is one level): GDAL's limit, far beyond any drawing, and a stack depth that
/// cannot overflow.
pub const MAX_NESTING: usize = 32;

/// The fewest bytes a nested geometry takes: its byte order, type and an empty count.
const MIN_MEMBER: usize = 1 + 4 + 4;

/// What is wrong with a blob, said without the file, layer or feature the caller adds.
pub type Result<T> = std::result::Result<T, String>;

/// The geometry of a WKB.
pub fn from_wkb(wkb: &[u8]) -> Result<Geometry<f64>> {
    Reader { bytes: wkb, at: 0 }.geometry(0)
}

/// The geometry of a GeoPackage geometry blob: "GP", a version, a flags byte (bit 0 the
/// header's byte order, bits 1–3 the envelope's kind, bit 4 empty, bit 5 an extended
/// geometry), the srs_id, the envelope, then WKB. None when the header marks it empty.
pub fn from_gpkg(blob: &[u8]) -> Result<Option<Geometry<f64>>> {
    if blob.len() < 8 || &blob[..2] != b"GP" {
        return Err("not a GeoPackage geometry blob (it does not start with \"GP\")".into());
    }
    let flags = blob[3];
    if flags & 0b10_0000 != 0 {
        return Err("an extended GeoPackage geometry (flags bit 5), which is not read".into());
    }
    let envelope = match (flags >> 1) & 0b111 {
        0 => 0,
        1 => 32,
        2 | 3 => 48,
        4 => 64,
        k => {
            return Err(format!(
                "the blob's header has an unknown envelope kind {k}"
            ))
        }
    };
    if flags & 0b1_0000 != 0 {
        return Ok(None);
    }
    match blob.get(8 + envelope..) {
        Some(wkb) if !wkb.is_empty() => from_wkb(wkb).map(Some),
        _ => Err(format!(
            "the blob ends inside its header ({} bytes; the header with its envelope takes {})",
            blob.len(),
            8 + envelope
        )),
    }
}

/// A geometry's header: its byte order, type (1–7) and ordinates per position (2–4).
#[derive(Clone, Copy)]
struct Header {
    little: bool,
    kind: u32,
    ordinates: usize,
}

const KINDS: [&str; 8] = [
    "",
    "Point",
    "LineString",
    "Polygon",
    "MultiPoint",
    "MultiLineString",
    "MultiPolygon",
    "GeometryCollection",
];

impl Header {
    fn name(&self) -> &'static str {
        KINDS[self.kind as usize]
    }
}

/// Why a type code is not read: a curve or surface is named, so it can be converted.
fn unread_kind(code: u32) -> String {
    const CURVED: [&str; 10] = [
        "CircularString",
        "CompoundCurve",
        "CurvePolygon",
        "MultiCurve",
        "MultiSurface",
        "Curve",
        "Surface",
        "PolyhedralSurface",
        "TIN",
        "Triangle",
    ];
    match CURVED.get((code % 1000).wrapping_sub(8) as usize) {
        Some(name) if code / 1000 <= 3 => format!(
            "a {name} (WKB type {code}), which is not read: save it with straight edges (in QGIS, Segmentize by maximum angle)"
        ),
        _ => format!(
            "WKB type {code} is not a geometry type (1 Point to 7 GeometryCollection, +1000 Z, +2000 M, +3000 ZM)"
        ),
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn left(&self) -> usize {
        self.bytes.len() - self.at
    }

    fn take<const N: usize>(&mut self, what: &str) -> Result<[u8; N]> {
        let Some(b) = self.bytes.get(self.at..self.at + N) else {
            return Err(format!(
                "the geometry ends inside {what} (at byte {} of {})",
                self.at,
                self.bytes.len()
            ));
        };
        self.at += N;
        Ok(b.try_into().unwrap_or([0; N]))
    }

    fn u32(&mut self, little: bool, what: &str) -> Result<u32> {
        let b = self.take::<4>(what)?;
        Ok(if little {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        })
    }

    fn f64(&mut self, little: bool) -> Result<f64> {
        let b = self.take::<8>("a position")?;
        Ok(if little {
            f64::from_le_bytes(b)
        } else {
            f64::from_be_bytes(b)
        })
    }

    fn header(&mut self) -> Result<Header> {
        let [order] = self.take::<1>("a geometry's header")?;
        let little = match order {
            0 => false,
            1 => true,
            b => {
                return Err(format!(
                    "byte order {b} at byte {} is neither 0 nor 1",
                    self.at - 1
                ))
            }
        };
        let code = self.u32(little, "a geometry's header")?;
        let (kind, dims) = (code % 1000, code / 1000);
        if dims > 3 || !(1..=7).contains(&kind) {
            return Err(unread_kind(code));
        }
        let ordinates = [2, 3, 3, 4][dims as usize];
        Ok(Header {
            little,
            kind,
            ordinates,
        })
    }

    /// A count, refused when its elements (each at least `each` bytes) cannot fit in the
    /// bytes that remain: nothing is reserved or looped over for elements that are not there.
    fn count(&mut self, h: &Header, what: &str, each: usize) -> Result<usize> {
        let n = self.u32(h.little, &format!("a {}'s count of {what}", h.name()))? as usize;
        let left = self.left();
        if n.checked_mul(each).is_none_or(|bytes| bytes > left) {
            return Err(format!(
                "a {} says it holds {n} {what}, but only {left} bytes follow (each takes at least {each})",
                h.name()
            ));
        }
        Ok(n)
    }

    fn geometry(&mut self, depth: usize) -> Result<Geometry<f64>> {
        let h = self.header()?;
        Ok(match h.kind {
            1 => Geometry::Point(Point(self.position(&h)?)),
            2 => Geometry::LineString(self.line(&h)?),
            3 => Geometry::Polygon(self.polygon(&h)?),
            4 => Geometry::MultiPoint(MultiPoint(
                self.members(&h, depth, "points", |r, m| Ok(Point(r.position(m)?)))?,
            )),
            5 => Geometry::MultiLineString(MultiLineString(self.members(
                &h,
                depth,
                "lines",
                Self::line,
            )?)),
            6 => Geometry::MultiPolygon(MultiPolygon(self.members(
                &h,
                depth,
                "polygons",
                Self::polygon,
            )?)),
            _ => Geometry::GeometryCollection(GeometryCollection(self.collection(&h, depth)?)),
        })
    }

    fn position(&mut self, h: &Header) -> Result<Coord<f64>> {
        let x = self.f64(h.little)?;
        let y = self.f64(h.little)?;
        for _ in 2..h.ordinates {
            self.f64(h.little)?;
        }
        Ok(Coord { x, y })
    }

    fn line(&mut self, h: &Header) -> Result<LineString<f64>> {
        let n = self.count(h, "positions", 8 * h.ordinates)?;
        let mut coords = Vec::with_capacity(n);
        for _ in 0..n {
            coords.push(self.position(h)?);
        }
        Ok(LineString(coords))
    }

    fn polygon(&mut self, h: &Header) -> Result<Polygon<f64>> {
        let n = self.count(h, "rings", 4)?;
        let mut rings = Vec::with_capacity(n);
        for _ in 0..n {
            rings.push(self.line(h)?);
        }
        let mut rings = rings.into_iter();
        let exterior = rings.next().unwrap_or_else(|| LineString(Vec::new()));
        Ok(Polygon::new(exterior, rings.collect()))
    }

    /// The members of a MultiPoint, MultiLineString or MultiPolygon: each a geometry of
    /// the one kind (`h.kind - 3`) with its own header, read by `read`.
    fn members<T>(
        &mut self,
        h: &Header,
        depth: usize,
        what: &str,
        read: impl Fn(&mut Self, &Header) -> Result<T>,
    ) -> Result<Vec<T>> {
        let least = if h.kind == 4 {
            MIN_MEMBER + 12
        } else {
            MIN_MEMBER
        };
        let n = self.count(h, what, least)?;
        self.nest(depth, n)?;
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let m = self.header()?;
            if m.kind != h.kind - 3 {
                return Err(format!(
                    "member {i} of a {} is a {}, not a {}",
                    h.name(),
                    m.name(),
                    KINDS[h.kind as usize - 3]
                ));
            }
            out.push(read(self, &m)?);
        }
        Ok(out)
    }

    /// A collection's members. They are not reserved from the count: each nested collection
    /// would reserve for the bytes that remain again, a reservation per level.
    fn collection(&mut self, h: &Header, depth: usize) -> Result<Vec<Geometry<f64>>> {
        let n = self.count(h, "geometries", MIN_MEMBER)?;
        self.nest(depth, n)?;
        let mut out = Vec::new();
        for _ in 0..n {
            out.push(self.geometry(depth + 1)?);
        }
        Ok(out)
    }

    /// Refuses `n` members of a geometry at `depth` when they would sit deeper than
    /// `MAX_NESTING`, before any of them is read.
    fn nest(&self, depth: usize, n: usize) -> Result<()> {
        if n > 0 && depth >= MAX_NESTING {
            return Err(format!(
                "geometries are nested more than {MAX_NESTING} deep (at byte {})",
                self.at
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use geozero::{CoordDimensions, ToWkb};

    /// A little-endian geometry header and a count.
    fn head(kind: u32, count: u32) -> Vec<u8> {
        let mut b = vec![1];
        b.extend(kind.to_le_bytes());
        b.extend(count.to_le_bytes());
        b
    }

    fn positions(b: &mut Vec<u8>, n: usize, ordinates: usize) {
        for i in 0..n * ordinates {
            b.extend((i as f64).to_le_bytes());
        }
    }

    #[test]
    fn a_count_that_exactly_fits_is_read_and_one_more_is_refused_before_reading() {
        // A LineString of 3 positions, its count honest, then one too many.
        let mut line = head(2, 3);
        positions(&mut line, 3, 2);
        assert_eq!(
            from_wkb(&line).unwrap(),
            Geometry::LineString(LineString::from(vec![(0.0, 1.0), (2.0, 3.0), (4.0, 5.0)]))
        );
        line[5..9].copy_from_slice(&4u32.to_le_bytes());
        let e = from_wkb(&line).unwrap_err();
        assert!(
            e.contains("a LineString says it holds 4 positions, but only 48 bytes follow (each takes at least 16)"),
            "{e}"
        );
        // A Polygon's rings: two empty rings take 8 bytes; three do not fit.
        let mut poly = head(3, 2);
        poly.extend([0u8; 8]);
        assert!(from_wkb(&poly).is_ok());
        poly[5..9].copy_from_slice(&3u32.to_le_bytes());
        assert!(from_wkb(&poly).unwrap_err().contains("holds 3 rings"));
        // A MultiPoint's points take at least 21 bytes each; these XYZ ones take 29, so a
        // fourth fits the count's floor and is found missing as it is read.
        let mut multi = head(4, 3);
        for _ in 0..3 {
            multi.extend(&head(1001, 0)[..5]);
            positions(&mut multi, 1, 3);
        }
        let three = vec![(0.0, 1.0); 3];
        assert_eq!(
            from_wkb(&multi).unwrap(),
            Geometry::MultiPoint(three.into())
        );
        multi[5..9].copy_from_slice(&4u32.to_le_bytes());
        assert!(from_wkb(&multi)
            .unwrap_err()
            .contains("ends inside a geometry's header"));
        multi[5..9].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(from_wkb(&multi).unwrap_err().contains("4294967295 points"));
    }

    #[test]
    fn the_crash_counts_of_0xffffffff_are_errors() {
        for (kind, what) in [
            (6, "polygons"),
            (3, "rings"),
            (2, "positions"),
            (4, "points"),
            (5, "lines"),
            (7, "geometries"),
        ] {
            let mut b = head(kind, u32::MAX);
            b.extend([0u8; 100]);
            let e = from_wkb(&b).unwrap_err();
            assert!(e.contains(&format!("holds 4294967295 {what}")), "{e}");
        }
    }

    /// A point inside `levels` collections, one in the other.
    fn nested(levels: usize) -> Vec<u8> {
        let mut b = Vec::new();
        for _ in 0..levels {
            b.extend(head(7, 1));
        }
        b.extend(&head(1, 0)[..5]);
        positions(&mut b, 1, 2);
        b
    }

    #[test]
    fn nesting_at_the_limit_is_read_and_one_deeper_is_refused() {
        let mut g = from_wkb(&nested(MAX_NESTING)).unwrap();
        for _ in 0..MAX_NESTING {
            let Geometry::GeometryCollection(c) = g else {
                panic!("a collection")
            };
            g = c.0.into_iter().next().unwrap();
        }
        assert_eq!(g, Geometry::Point(Point::new(0.0, 1.0)));
        let e = from_wkb(&nested(MAX_NESTING + 1)).unwrap_err();
        assert!(e.contains("nested more than 32 deep"), "{e}");
        assert!(from_wkb(&nested(200_000)).is_err());
        // A polygon in a multipolygon is one level.
        let mut b = head(7, 1).repeat(MAX_NESTING);
        b.extend(head(6, 1));
        b.extend(head(3, 0));
        assert!(from_wkb(&b).unwrap_err().contains("nested more than"));
    }

    #[test]
    fn byte_orders_dimensions_and_kinds() {
        // Big-endian POINT ZM: Z and M dropped.
        let mut b = vec![0];
        b.extend(3001u32.to_be_bytes());
        for v in [1.5f64, -2.0, 9.0, 7.0] {
            b.extend(v.to_be_bytes());
        }
        assert_eq!(
            from_wkb(&b).unwrap(),
            Geometry::Point(Point::new(1.5, -2.0))
        );
        // A MultiPolygon whose member is a LineString, a curve, a bad byte order.
        let mut m = head(6, 1);
        m.extend(head(2, 0));
        assert!(from_wkb(&m)
            .unwrap_err()
            .contains("member 0 of a MultiPolygon is a LineString"));
        assert!(from_wkb(&head(1010, 0))
            .unwrap_err()
            .contains("a CurvePolygon (WKB type 1010)"));
        assert!(from_wkb(&head(17, 0)).unwrap_err().contains("a Triangle"));
        assert!(from_wkb(&head(4003, 0))
            .unwrap_err()
            .contains("WKB type 4003 is not"));
        assert!(from_wkb(&head(0, 0))
            .unwrap_err()
            .contains("WKB type 0 is not"));
        let mut bad = head(1, 0);
        bad[0] = 2;
        assert!(from_wkb(&bad).unwrap_err().contains("byte order 2"));
        for cut in 0..b.len() {
            assert!(from_wkb(&b[..cut]).is_err(), "cut at {cut}");
        }
    }

    #[test]
    fn what_geozero_writes_reads_back_the_same() {
        let square = Polygon::new(
            LineString::from(vec![(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 0.0)]),
            vec![LineString::from(vec![
                (0.1, 0.1),
                (0.2, 0.1),
                (0.2, 0.2),
                (0.1, 0.1),
            ])],
        );
        let all = Geometry::GeometryCollection(GeometryCollection(vec![
            Geometry::Point(Point::new(1.0, 2.0)),
            Geometry::MultiPolygon(MultiPolygon(vec![square.clone(), square.clone()])),
            Geometry::MultiLineString(MultiLineString(vec![square.exterior().clone()])),
            Geometry::MultiPoint(vec![(3.0, 4.0)].into()),
        ]));
        for g in [Geometry::Polygon(square), all] {
            let wkb = g.to_wkb(CoordDimensions::xy()).unwrap();
            assert_eq!(from_wkb(&wkb).unwrap(), g);
            let blob = geozero::ToWkb::to_gpkg_wkb(
                &g,
                CoordDimensions::xy(),
                Some(4326),
                vec![0.0, 1.0, 0.0, 1.0],
            )
            .unwrap();
            assert_eq!(from_gpkg(&blob).unwrap(), Some(g));
        }
    }

    #[test]
    fn the_geopackage_header_is_read_by_its_flags() {
        let point = {
            let mut b = head(1, 0)[..5].to_vec();
            positions(&mut b, 1, 2);
            b
        };
        let blob = |flags: u8, envelope: usize| {
            let mut b = vec![b'G', b'P', 0, flags, 0, 0, 0, 0];
            b.extend(vec![0u8; envelope]);
            b.extend(&point);
            b
        };
        for (kind, bytes) in [(0, 0), (1, 32), (2, 48), (3, 48), (4, 64)] {
            let g = from_gpkg(&blob(kind << 1, bytes)).unwrap();
            assert_eq!(
                g,
                Some(Geometry::Point(Point::new(0.0, 1.0))),
                "kind {kind}"
            );
        }
        assert_eq!(from_gpkg(&blob(0b1_0000, 0)).unwrap(), None, "empty");
        assert!(from_gpkg(&blob(0b10_0000, 0))
            .unwrap_err()
            .contains("extended"));
        assert!(from_gpkg(&blob(5 << 1, 0))
            .unwrap_err()
            .contains("envelope kind 5"));
        assert!(from_gpkg(&blob(1 << 1, 0))
            .unwrap_err()
            .contains("ends inside its header"));
        assert!(from_gpkg(b"GP\x00\x00\x00\x00\x00\x00").is_err());
        assert!(from_gpkg(b"XX\x00\x00\x00\x00\x00\x00\x01").is_err());
        assert!(from_gpkg(b"GP").is_err());
    }
}

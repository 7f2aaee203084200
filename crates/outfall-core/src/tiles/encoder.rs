//! The MVT geometry writer of one tile: projection to pixels, clipping, quantizing, ring
//! orientation and the command stream, in buffers reused from feature to feature.

use super::*;

/// Projects, clips, quantizes, orients and writes the MVT geometry commands of one tile's
/// features, in buffers reused from feature to feature: no feature is cloned and nothing is
/// allocated per vertex. The commands are the ones geozero's writer gave for the same
/// geometry (MoveTo, LineTo, ClosePath; the cursor carried across parts).
pub(super) struct Encoder {
    pub(super) projection: TileProjection,
    /// The buffered tile in pixels.
    pub(super) clip: Rect<f64>,
    /// A ring or line in pixels, then clipped (with `spare` as Sutherland–Hodgman's second
    /// buffer).
    pub(super) pixels: Vec<Coord<f64>>,
    pub(super) spare: Vec<Coord<f64>>,
    /// A ring (line, points) quantized, without repeats, open.
    pub(super) ring: Vec<[i32; 2]>,
}

/// What a geometry writes into: its commands, and the cursor they move.
struct Commands<'a> {
    out: &'a mut Vec<u32>,
    cursor: [i32; 2],
}

impl Encoder {
    /// Writes one geometry's commands into `out`; its MVT type, or `None` when nothing is
    /// left in the tile.
    pub(super) fn encode(
        &mut self,
        geometry: &Geometry<f64>,
        envelope: Option<Rect<f64>>,
        out: &mut Vec<u32>,
    ) -> Option<tile::GeomType> {
        // Decide from the box first: the projection is monotonic (x east, y south), so the
        // lon/lat box maps to the pixel box, and no vertex is projected for a feature that
        // misses the tile or would quantize to nothing (under half a pixel both ways).
        let kinds = Kinds::of(geometry);
        let b = match envelope {
            Some(b) => b,
            None => finite_bbox(geometry)?,
        };
        let px = Rect::new(
            self.projection
                .project(coord! { x: b.min().x, y: b.max().y }),
            self.projection
                .project(coord! { x: b.max().x, y: b.min().y }),
        );
        let rel = relation(&self.clip, &px);
        if rel == Relation::Outside {
            return None;
        }
        let extended = kinds.polygons || kinds.lines;
        if extended && px.width() < 0.5 && px.height() < 0.5 {
            return None;
        }
        let mut cmd = Commands {
            out,
            cursor: [0, 0],
        };
        if kinds.polygons {
            for_each_polygon(geometry, &mut |p| self.polygon(p, rel, &mut cmd));
            if !cmd.out.is_empty() {
                return Some(tile::GeomType::Polygon);
            }
        }
        if kinds.lines {
            for_each_line(geometry, &mut |l| self.line(l, rel, &mut cmd));
            if !cmd.out.is_empty() {
                return Some(tile::GeomType::Linestring);
            }
        }
        if kinds.points {
            self.ring.clear();
            for_each_point(geometry, &mut |c| {
                let p = self.projection.project(c);
                if c.x.is_finite() && c.y.is_finite() && contains(&self.clip, p) {
                    self.ring.push(quantize(p));
                }
            });
            if !self.ring.is_empty() {
                cmd.out.push(command(MOVE_TO, self.ring.len()));
                for &v in &self.ring {
                    cmd.vertex(v);
                }
                return Some(tile::GeomType::Point);
            }
        }
        None
    }

    /// A polygon's rings: the exterior, then each hole that is left; nothing when the
    /// exterior is gone or any ring has a non-finite coordinate (a polygon without a hole
    /// it should have would paint where it must not).
    fn polygon(&mut self, p: &Polygon<f64>, rel: Relation, cmd: &mut Commands) {
        let (written, cursor) = (cmd.out.len(), cmd.cursor);
        if self.ring_pixels(p.exterior(), rel, RingRole::Exterior) != Some(true) {
            return;
        }
        cmd.ring(&self.ring);
        for hole in p.interiors() {
            match self.ring_pixels(hole, rel, RingRole::Interior) {
                Some(true) => cmd.ring(&self.ring),
                Some(false) => {}
                None => {
                    cmd.out.truncate(written);
                    cmd.cursor = cursor;
                    return;
                }
            }
        }
    }

    /// Projects, clips (unless the feature lies inside the buffered tile), quantizes and
    /// orients one ring into `self.ring`; false for a degenerate ring (fewer than 3 distinct
    /// vertices or zero area after rounding), `None` for one with a non-finite coordinate.
    fn ring_pixels(
        &mut self,
        ring: &LineString<f64>,
        rel: Relation,
        role: RingRole,
    ) -> Option<bool> {
        if !self.project(&ring.0) {
            return None;
        }
        if self.pixels.len() > 1 && self.pixels.first() == self.pixels.last() {
            self.pixels.pop();
        }
        if rel == Relation::Crossing
            && !clip::clip_open_ring(&mut self.pixels, &mut self.spare, self.clip)
        {
            return Some(false);
        }
        Some(quantized_ring(&self.pixels, &mut self.ring, role))
    }

    /// Projects lon/lat coordinates into `self.pixels`; whether they were all finite (the
    /// check rides along the projection rather than a pass of its own).
    fn project(&mut self, coords: &[Coord<f64>]) -> bool {
        let projection = self.projection;
        let mut finite = true;
        self.pixels.clear();
        self.pixels.extend(coords.iter().map(|&c| {
            finite &= c.x.is_finite() & c.y.is_finite();
            projection.project(c)
        }));
        finite
    }

    /// A line's parts in the tile, each written when it keeps 2 distinct vertices; nothing
    /// for a line with a non-finite coordinate.
    fn line(&mut self, line: &[Coord<f64>], rel: Relation, cmd: &mut Commands) {
        if !self.project(line) {
            return;
        }
        if rel == Relation::Inside {
            quantize_into(&self.pixels, &mut self.ring);
            cmd.line(&self.ring);
        } else {
            // Lines are rare in the tiled layers: Liang–Barsky's parts are allocated.
            let whole = LineString::new(std::mem::take(&mut self.pixels));
            for part in clip::clip_line(&whole, self.clip) {
                quantize_into(&part.0, &mut self.ring);
                cmd.line(&self.ring);
            }
            self.pixels = whole.0;
        }
    }
}

const MOVE_TO: u32 = 1;
const LINE_TO: u32 = 2;
const CLOSE_PATH: u32 = 7;

/// An MVT command integer (MVT 2.1 §4.3.1).
fn command(id: u32, count: usize) -> u32 {
    (id & 0x7) | ((count as u32) << 3)
}

impl Commands<'_> {
    /// A vertex as a zigzag-encoded move from the cursor (MVT 2.1 §4.3.2).
    fn vertex(&mut self, v: [i32; 2]) {
        let zigzag = |n: i32| ((n << 1) ^ (n >> 31)) as u32;
        self.out.push(zigzag(v[0].saturating_sub(self.cursor[0])));
        self.out.push(zigzag(v[1].saturating_sub(self.cursor[1])));
        self.cursor = v;
    }

    /// A line of 2 or more vertices: MoveTo, LineTo for the rest.
    fn line(&mut self, line: &[[i32; 2]]) {
        if line.len() < 2 {
            return;
        }
        self.out.push(command(MOVE_TO, 1));
        self.vertex(line[0]);
        self.out.push(command(LINE_TO, line.len() - 1));
        for &v in &line[1..] {
            self.vertex(v);
        }
    }

    /// An open ring: a line, then ClosePath.
    fn ring(&mut self, ring: &[[i32; 2]]) {
        self.line(ring);
        self.out.push(command(CLOSE_PATH, 1));
    }
}

fn contains(rect: &Rect<f64>, c: Coord<f64>) -> bool {
    let (min, max) = (rect.min(), rect.max());
    c.x >= min.x && c.x <= max.x && c.y >= min.y && c.y <= max.y
}

/// The nearest pixel. Coordinates here lie within the buffered tile (or, for a feature
/// whose box is inside it, within rounding of it), so they fit an i32.
fn quantize(c: Coord<f64>) -> [i32; 2] {
    [c.x.round() as i32, c.y.round() as i32]
}

/// Rounded coordinates with consecutive repeats removed.
fn quantize_into(pixels: &[Coord<f64>], out: &mut Vec<[i32; 2]>) {
    out.clear();
    for &c in pixels {
        let q = quantize(c);
        if out.last() != Some(&q) {
            out.push(q);
        }
    }
}

/// Quantizes and orients a ring in pixels (open) into `ring`; false for a degenerate ring
/// (fewer than 3 distinct vertices or zero area after rounding).
fn quantized_ring(pixels: &[Coord<f64>], ring: &mut Vec<[i32; 2]>, role: RingRole) -> bool {
    quantize_into(pixels, ring);
    if ring.len() > 1 && ring.first() == ring.last() {
        ring.pop();
    }
    if ring.len() < 3 {
        return false;
    }
    let doubled_area = surveyor_doubled_area(ring);
    if doubled_area == 0 {
        return false;
    }
    if (doubled_area > 0) != (role == RingRole::Exterior) {
        ring.reverse();
    }
    true
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum RingRole {
    Exterior,
    Interior,
}

/// Twice the signed area of an open ring by the surveyor's (shoelace) formula, exact on
/// integral pixels. With y down, an MVT exterior ring has a positive one (clockwise on
/// screen) and an interior ring a negative one (MVT 2.1 §4.3.4.4).
fn surveyor_doubled_area(open_ring: &[[i32; 2]]) -> i64 {
    let n = open_ring.len();
    (0..n)
        .map(|i| {
            let (a, b) = (open_ring[i], open_ring[(i + 1) % n]);
            i64::from(a[0]) * i64::from(b[1]) - i64::from(b[0]) * i64::from(a[1])
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn oriented(ring: &[(f64, f64)], role: RingRole) -> Option<Vec<[i32; 2]>> {
        let pixels: Vec<Coord<f64>> = ring.iter().map(|&(x, y)| coord! { x: x, y: y }).collect();
        let mut out = Vec::new();
        quantized_ring(&pixels, &mut out, role).then_some(out)
    }

    #[test]
    fn ring_orientation_follows_mvt_y_down() {
        // Clockwise on screen (y down) = positive surveyor area = MVT exterior.
        let screen_ccw = [(0.0, 0.0), (0.0, 10.0), (10.0, 10.0), (10.0, 0.0)];
        let exterior = oriented(&screen_ccw, RingRole::Exterior).unwrap();
        assert!(surveyor_doubled_area(&exterior) > 0);
        let interior = oriented(&screen_ccw, RingRole::Interior).unwrap();
        assert!(surveyor_doubled_area(&interior) < 0);
    }

    #[test]
    fn degenerate_rings_are_dropped() {
        let sliver = [(0.1, 0.1), (0.2, 0.3), (0.4, 0.2), (0.1, 0.1)];
        assert!(oriented(&sliver, RingRole::Exterior).is_none());
        let collinear = [(0.0, 0.0), (5.0, 5.0), (10.0, 10.0), (0.0, 0.0)];
        assert!(oriented(&collinear, RingRole::Exterior).is_none());
    }
}

//! Disturbed acreage: union so overlaps count once, geodesic area on WGS84, and the peak
//! area disturbed at one time from phase dates.

mod authalic;
mod overlay;

pub use overlay::union;
use overlay::{overlapping_groups, overlay_difference, overlay_union};

use chrono::NaiveDate;
use geo::orient::{Direction, Orient};
use geo_types::{Geometry, MultiPolygon, Polygon};
use serde::Serialize;

pub const SQ_M_PER_ACRE: f64 = 4046.8564224;

/// The polygons of a geometry, oriented (exterior counter-clockwise). Lines and points have none.
pub fn polygons_of(g: &Geometry<f64>) -> Vec<Polygon<f64>> {
    match g {
        Geometry::Polygon(p) => vec![p.orient(Direction::Default)],
        Geometry::MultiPolygon(mp) => mp.0.iter().map(|p| p.orient(Direction::Default)).collect(),
        Geometry::GeometryCollection(gc) => gc.0.iter().flat_map(polygons_of).collect(),
        _ => Vec::new(),
    }
}

/// Area on the WGS84 ellipsoid in acres, exterior less holes whatever the rings' directions
/// (`authalic`: the equal-area sphere for short edges, geographiclib otherwise).
///
/// Coordinates are WGS84 longitude and latitude in degrees. A square 63.61 m on a side
/// (4,046.86 m², one acre) in the Town of Clay, NY, is 0.000573° of latitude tall and
/// 0.000782° of longitude wide at 43.18° N:
///
/// ```
/// use geo_types::{polygon, MultiPolygon};
/// use outfall_core::area::area_acres;
///
/// let (west, south) = (-76.17, 43.18);
/// let (east, north) = (west + 0.000_782_45, south + 0.000_572_61);
/// let square = polygon![
///     (x: west, y: south),
///     (x: east, y: south),
///     (x: east, y: north),
///     (x: west, y: north),
///     (x: west, y: south),
/// ];
/// let acres = area_acres(&MultiPolygon(vec![square]));
/// assert_eq!(format!("{acres:.2}"), "1.00");
/// // The same in square metres: one acre is 4,046.856 m².
/// let m2 = acres * outfall_core::area::SQ_M_PER_ACRE;
/// assert!((m2 - 4046.86).abs() < 1.0, "{m2} m²");
/// ```
pub fn area_acres(mp: &MultiPolygon<f64>) -> f64 {
    // A fold from +0.0: `sum` of nothing is -0.0, which printed "-0.00 acres".
    mp.0.iter()
        .map(authalic::polygon_area_m2)
        .fold(0.0, |a, b| a + b)
        / SQ_M_PER_ACRE
}

/// Acres of `a` not covered by `b`.
pub fn difference_acres(a: &MultiPolygon<f64>, b: &MultiPolygon<f64>) -> f64 {
    if a.0.is_empty() {
        return 0.0;
    }
    if b.0.is_empty() {
        return area_acres(a);
    }
    area_acres(&MultiPolygon(overlay_difference(&a.0, &b.0)))
}

/// One phase of a site's disturbance plan. Missing dates mean "always" on that side.
#[derive(Debug, Clone)]
pub struct Phase {
    pub name: String,
    pub start: Option<NaiveDate>,
    pub end: Option<NaiveDate>,
    pub polygons: Vec<Polygon<f64>>,
}

impl Phase {
    /// Active on `day`, both ends inclusive.
    pub fn active_on(&self, day: NaiveDate) -> bool {
        self.start.is_none_or(|s| s <= day) && self.end.is_none_or(|e| e >= day)
    }
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PhaseAcres {
    pub phase: String,
    pub acres: f64,
    pub start: Option<NaiveDate>,
    pub end: Option<NaiveDate>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Peak {
    pub acres: f64,
    /// First day the peak is reached; None when no phase has dates.
    pub date: Option<NaiveDate>,
}

/// A plan's acreage with each union computed once.
pub struct PlanAcres {
    /// Every polygon of every phase, unioned.
    pub union: MultiPolygon<f64>,
    pub total_acres: f64,
    pub peak: Peak,
    pub phases: Vec<PhaseAcres>,
}

/// The union of all the plan's polygons and its acres, the peak at one time, and each
/// phase's acres. With no dated phase the peak is that same union, and so is the only phase
/// of a one-phase plan (the same polygons in the same order), so its acres are reused, not
/// unioned and measured again: the largest sites were unioned three times.
pub fn plan_acres(phases: &[Phase]) -> PlanAcres {
    let union = union(phases.iter().flat_map(|p| &p.polygons));
    let total_acres = area_acres(&union);
    let peak = if phases.iter().all(|p| p.start.is_none()) {
        Peak {
            acres: total_acres,
            date: None,
        }
    } else {
        peak_at_one_time(phases)
    };
    let phases = match phases {
        [one] => vec![PhaseAcres {
            phase: one.name.clone(),
            acres: total_acres,
            start: one.start,
            end: one.end,
        }],
        _ => phase_acres(phases),
    };
    PlanAcres {
        union,
        total_acres,
        peak,
        phases,
    }
}

/// Acres of each phase on its own (overlaps within the phase counted once).
pub fn phase_acres(phases: &[Phase]) -> Vec<PhaseAcres> {
    phases
        .iter()
        .map(|p| PhaseAcres {
            phase: p.name.clone(),
            acres: area_acres(&union(&p.polygons)),
            start: p.start,
            end: p.end,
        })
        .collect()
}

/// The largest union area of phases active together, and the first day it is reached. The
/// active set only grows on a start date, so only start dates are candidates. The union is
/// kept as disjoint pieces with their areas: while no phase has ended, each new polygon is
/// unioned only with the pieces it overlaps; when one ends, the union is rebuilt from the
/// active polygons, unioning only those that overlap (disjoint ones keep their cached area).
///
/// Dates are inclusive at both ends. Two phases of one acre each, side by side in the Town
/// of Clay: while they follow one another at most one acre is open at a time; when the
/// second starts before the first ends, two acres are open from its start.
///
/// ```
/// use chrono::NaiveDate;
/// use geo_types::{polygon, Polygon};
/// use outfall_core::area::{peak_at_one_time, Phase};
///
/// // One acre (63.61 m square) whose south-west corner is `west` degrees of longitude.
/// let acre = |west: f64| -> Polygon<f64> {
///     let (east, south, north) = (west + 0.000_782_45, 43.18, 43.18 + 0.000_572_61);
///     polygon![(x: west, y: south), (x: east, y: south), (x: east, y: north), (x: west, y: north)]
/// };
/// let day = |m: u32, d: u32| NaiveDate::from_ymd_opt(2026, m, d);
/// let phase = |name: &str, west: f64, start, end| Phase {
///     name: name.into(),
///     start,
///     end,
///     polygons: vec![acre(west)],
/// };
/// let grading = phase("grading", -76.17, day(4, 1), day(6, 30));
/// let paving = phase("paving", -76.169, day(7, 1), day(9, 30));
/// let peak = peak_at_one_time(&[grading.clone(), paving]);
/// assert_eq!(format!("{:.2} acres", peak.acres), "1.00 acres");
/// assert_eq!(peak.date, day(4, 1));
///
/// let early_paving = phase("paving", -76.169, day(6, 1), day(9, 30));
/// let peak = peak_at_one_time(&[grading, early_paving]);
/// assert_eq!(format!("{:.2} acres", peak.acres), "2.00 acres");
/// assert_eq!(peak.date, day(6, 1));
/// ```
pub fn peak_at_one_time(phases: &[Phase]) -> Peak {
    let mut starts: Vec<NaiveDate> = phases.iter().filter_map(|p| p.start).collect();
    starts.sort();
    starts.dedup();
    if starts.is_empty() {
        let all: Vec<&Polygon<f64>> = phases.iter().flat_map(|p| &p.polygons).collect();
        return Peak {
            acres: area_acres(&union(all)),
            date: None,
        };
    }
    let mut best = Peak {
        acres: 0.0,
        date: None,
    };
    // Each polygon oriented, with its envelope and acres, once.
    let oriented: Vec<Vec<Piece>> = phases
        .iter()
        .map(|p| {
            p.polygons
                .iter()
                .filter_map(|g| piece(g.orient(Direction::Default)))
                .collect()
        })
        .collect();
    let mut pieces = Pieces::default();
    let mut active = vec![false; phases.len()];
    for day in starts {
        // Spent: the check's next step answers the deadline error, never this peak.
        if crate::budget::spent() {
            break;
        }
        let now: Vec<bool> = phases.iter().map(|p| p.active_on(day)).collect();
        let ended = active.iter().zip(&now).any(|(was, is)| *was && !*is);
        if ended {
            let polys = (0..phases.len())
                .filter(|&i| now[i])
                .flat_map(|i| oriented[i].iter().cloned());
            pieces = Pieces::rebuild(polys.collect());
        } else {
            for i in (0..phases.len()).filter(|&i| now[i] && !active[i]) {
                for g in &oriented[i] {
                    pieces.add(g.clone());
                }
            }
        }
        active = now;
        let acres = pieces.acres();
        if acres > best.acres + 1e-9 {
            best = Peak {
                acres,
                date: Some(day),
            };
        }
    }
    best
}

/// The peak at one time on the days before `day`: phases starting on or after it are left
/// out, and the others end the day before it at the latest. Undated phases count as active
/// throughout, as in `peak_at_one_time`.
pub fn peak_before(phases: &[Phase], day: NaiveDate) -> Peak {
    let eve = day.pred_opt().unwrap_or(day);
    let clipped: Vec<Phase> = phases
        .iter()
        .filter(|p| p.start.is_none_or(|s| s < day))
        .map(|p| Phase {
            end: Some(p.end.map_or(eve, |e| e.min(eve))),
            ..p.clone()
        })
        .collect();
    if clipped.is_empty() {
        return Peak {
            acres: 0.0,
            date: None,
        };
    }
    peak_at_one_time(&clipped)
}

/// A polygon with its envelope and acres.
type Piece = (Polygon<f64>, geo_types::Rect<f64>, f64);

fn piece(g: Polygon<f64>) -> Option<Piece> {
    use geo::BoundingRect;
    let r = g.bounding_rect()?;
    let acres = authalic::polygon_area_m2(&g) / SQ_M_PER_ACRE;
    Some((g, r, acres))
}

/// A union kept as disjoint pieces.
#[derive(Default)]
struct Pieces {
    parts: Vec<Piece>,
}

impl Pieces {
    /// From scratch: only pieces whose envelopes meet are unioned; the rest keep their acres.
    fn rebuild(all: Vec<Piece>) -> Pieces {
        let polys: Vec<&Polygon<f64>> = all.iter().map(|(g, _, _)| g).collect();
        let mut parts = Vec::with_capacity(all.len());
        for group in overlapping_groups(&polys) {
            match group.as_slice() {
                [one] => parts.push(all[*one].clone()),
                many => parts.extend(
                    overlay_union(many.iter().map(|&i| polys[i]))
                        .into_iter()
                        .filter_map(piece),
                ),
            }
        }
        Pieces { parts }
    }

    fn add(&mut self, new: Piece) {
        use geo::Intersects;
        let rect = new.1;
        let (touching, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut self.parts)
            .into_iter()
            .partition(|(_, r, _)| r.intersects(&rect));
        self.parts = rest;
        if touching.is_empty() {
            self.parts.push(new);
            return;
        }
        let group = touching.iter().map(|(g, _, _)| g).chain([&new.0]);
        self.parts
            .extend(overlay_union(group).into_iter().filter_map(piece));
    }

    fn acres(&self) -> f64 {
        self.parts.iter().map(|(_, _, a)| a).sum()
    }
}

/// Two phases disturbed at the same time, both ends inclusive: the later one was cleared
/// before the earlier one was finished (stabilised).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PhaseOverlap {
    pub earlier: String,
    pub later: String,
    pub from: NaiveDate,
    pub to: NaiveDate,
}

/// Every pair of dated phases whose date ranges overlap. An open end counts as "always".
pub fn overlapping_phases(phases: &[Phase]) -> Vec<PhaseOverlap> {
    let mut dated: Vec<&Phase> = phases.iter().filter(|p| p.start.is_some()).collect();
    dated.sort_by_key(|p| p.start);
    let mut out = Vec::new();
    for (i, a) in dated.iter().enumerate() {
        for b in &dated[i + 1..] {
            let (Some(bs), a_end) = (b.start, a.end) else {
                continue;
            };
            if a_end.is_none_or(|e| e >= bs) {
                let to = match (a.end, b.end) {
                    (Some(x), Some(y)) => x.min(y),
                    (x, y) => x.or(y).unwrap_or(bs),
                };
                out.push(PhaseOverlap {
                    earlier: a.name.clone(),
                    later: b.name.clone(),
                    from: bs,
                    to,
                });
            }
        }
    }
    out
}

/// The one date parser of every reader (`bounds::parse_date`): the forms found in real
/// files, in the sane range.
pub fn parse_date(s: &str) -> Option<NaiveDate> {
    crate::bounds::parse_date(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo_types::{polygon, LineString};

    #[test]
    fn clockwise_ring_gives_the_same_area() {
        let ccw = polygon![(x: 0.0, y: 0.0), (x: 0.001, y: 0.0), (x: 0.001, y: 0.001), (x: 0.0, y: 0.001)];
        let cw = polygon![(x: 0.0, y: 0.0), (x: 0.0, y: 0.001), (x: 0.001, y: 0.001), (x: 0.001, y: 0.0)];
        let a = area_acres(&MultiPolygon(vec![ccw]));
        let b = area_acres(&MultiPolygon(vec![cw]));
        assert!((a - b).abs() < 1e-9 && a > 3.0 && a < 3.1, "{a} {b}");
    }

    #[test]
    fn acres_outside_the_parcels_count_the_part_outside_once() {
        let rect = |x0: f64, x1: f64| polygon![(x: x0, y: 0.0), (x: x1, y: 0.0), (x: x1, y: 0.001), (x: x0, y: 0.001)];
        let site = MultiPolygon(vec![rect(0.0, 0.002)]);
        let whole = area_acres(&site);
        // The west half is on the parcels; the parcel list holds it twice, overlapping.
        let parcels = MultiPolygon(vec![rect(0.0, 0.001), rect(0.0005, 0.001)]);
        let outside = difference_acres(&site, &parcels);
        assert!(
            (outside - whole / 2.0).abs() < 1e-6 * whole,
            "{outside} of {whole}"
        );
        // A parcel with a hole leaves the hole outside.
        let hole = LineString::from(vec![
            (0.0002, 0.0002),
            (0.0004, 0.0002),
            (0.0004, 0.0004),
            (0.0002, 0.0004),
            (0.0002, 0.0002),
        ]);
        let holed = Polygon::new(rect(0.0, 0.002).exterior().clone(), vec![hole.clone()]);
        let in_hole = area_acres(&MultiPolygon(vec![Polygon::new(hole, vec![])]));
        let outside = difference_acres(&site, &MultiPolygon(vec![holed]));
        assert!(
            (outside - in_hole).abs() < 1e-6 * whole,
            "{outside} vs the hole's {in_hole}"
        );
        assert_eq!(difference_acres(&site, &MultiPolygon(vec![])), whole);
    }

    #[test]
    fn plan_acres_reuses_the_union_only_where_it_is_the_same() {
        let sq = |x: f64| polygon![(x: x, y: 0.0), (x: x + 0.001, y: 0.0), (x: x + 0.001, y: 0.001), (x: x, y: 0.001)];
        let phase = |name: &str, start: Option<NaiveDate>, polygons| Phase {
            name: name.into(),
            start,
            end: None,
            polygons,
        };
        // One undated phase of overlapping squares: total, peak and phase are one union.
        let one = [phase("1", None, vec![sq(0.0), sq(0.0005), sq(0.0025)])];
        let plan = plan_acres(&one);
        assert_eq!(plan.total_acres, area_acres(&union(&one[0].polygons)));
        assert_eq!(plan.peak, peak_at_one_time(&one));
        assert_eq!(plan.phases, phase_acres(&one));
        assert!(plan.total_acres > 3.0 * 1.5 && plan.total_acres < 3.1 * 2.5);
        // Dated phases: the peak and each phase are their own.
        let d = |m| NaiveDate::from_ymd_opt(2026, m, 1);
        let two = [
            phase("a", d(5), vec![sq(0.0)]),
            phase("b", d(6), vec![sq(0.0005)]),
        ];
        let plan = plan_acres(&two);
        assert_eq!(plan.peak, peak_at_one_time(&two));
        assert_eq!(plan.phases, phase_acres(&two));
        assert!(plan.phases[0].acres < plan.total_acres);
    }

    #[test]
    fn dates_in_common_forms() {
        let d = NaiveDate::from_ymd_opt(2026, 5, 1);
        assert_eq!(parse_date("2026-05-01"), d);
        assert_eq!(parse_date("2026-05-01T00:00:00Z"), d);
        assert_eq!(parse_date("05/01/2026"), d);
        assert_eq!(parse_date("20260501"), d);
        assert_eq!(parse_date("soon"), None);
    }
}

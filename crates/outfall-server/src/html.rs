//! The printable site report (one or two Letter pages): the findings with their clauses, an SVG inset map
//! of the site and the start of its downstream path, and the data sources with hashes.

use crate::html_text::{category_words, esc};
use crate::state::AppState;
use geo_types::{Coord, Geometry, LineString, Rect};
use outfall_core::config::{Role, Rules};
use outfall_core::law::number_words;
use outfall_core::measure::LocalFrame;
use outfall_core::report::{trace_path, Conditions, Report};
use std::fmt::Write;

fn yes_no(b: Option<bool>) -> &'static str {
    match b {
        Some(true) => "Yes",
        Some(false) => "No",
        None => "Needs data",
    }
}

const INSET_PX: f64 = 360.0;
/// Margin around the frame: a tenth of its span, at least this.
const INSET_MIN_MARGIN_M: f64 = 150.0;

struct Inset {
    frame: LocalFrame,
    centre: Coord<f64>,
    half_span_m: f64,
    scale: f64,
}

impl crate::inset_labels::ToPx for Inset {
    fn to_px(&self, c: Coord<f64>) -> (f64, f64) {
        self.px(c)
    }
    fn size_px(&self) -> f64 {
        INSET_PX
    }
}

impl Inset {
    /// A square view around the bbox with a margin; the frame is centred on the bbox, so the
    /// centre is (0, 0) in metres.
    fn new(bbox: [f64; 4]) -> Inset {
        let centre = Coord {
            x: (bbox[0] + bbox[2]) / 2.0,
            y: (bbox[1] + bbox[3]) / 2.0,
        };
        let frame = LocalFrame::around(centre.x, centre.y);
        let a = frame.to_m(Coord {
            x: bbox[0],
            y: bbox[1],
        });
        let b = frame.to_m(Coord {
            x: bbox[2],
            y: bbox[3],
        });
        let inner = (b.x - a.x).max(b.y - a.y);
        let span = inner + 2.0 * (inner * 0.1).max(INSET_MIN_MARGIN_M);
        Inset {
            frame,
            centre,
            half_span_m: span / 2.0,
            scale: INSET_PX / span,
        }
    }

    fn bounds_lonlat(&self) -> Rect<f64> {
        let (dx, dy) = self.frame.degrees_for_m(self.half_span_m);
        Rect::new(
            Coord {
                x: self.centre.x - dx,
                y: self.centre.y - dy,
            },
            Coord {
                x: self.centre.x + dx,
                y: self.centre.y + dy,
            },
        )
    }

    fn px(&self, c: Coord<f64>) -> (f64, f64) {
        let m = self.frame.to_m(c);
        (
            (m.x + self.half_span_m) * self.scale,
            INSET_PX - (m.y + self.half_span_m) * self.scale,
        )
    }

    fn path(&self, ring: &LineString<f64>) -> String {
        let mut d = String::new();
        for (i, c) in ring.0.iter().enumerate() {
            let (x, y) = self.px(*c);
            write!(d, "{}{x:.1},{y:.1} ", if i == 0 { "M" } else { "L" }).ok();
        }
        d
    }

    fn geometry(&self, g: &Geometry<f64>, closed: bool) -> String {
        let rings: Vec<&LineString<f64>> = match g {
            Geometry::Polygon(p) => std::iter::once(p.exterior()).chain(p.interiors()).collect(),
            Geometry::MultiPolygon(mp) => {
                mp.0.iter()
                    .flat_map(|p| std::iter::once(p.exterior()).chain(p.interiors()))
                    .collect()
            }
            Geometry::LineString(l) => vec![l],
            Geometry::MultiLineString(ml) => ml.0.iter().collect(),
            _ => Vec::new(),
        };
        rings
            .iter()
            .map(|r| format!("{}{}", self.path(r), if closed { "Z " } else { "" }))
            .collect()
    }

    /// A scale bar of a round length near a quarter of the view.
    fn scale_bar_m(&self) -> f64 {
        let want = self.half_span_m / 2.0;
        [50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0, 5000.0, 10_000.0]
            .into_iter()
            .rev()
            .find(|&m| m <= want)
            .unwrap_or(50.0)
    }
}

// Inset styles, shared by the drawing and its legend so they cannot drift apart.
const ROAD: &str = "fill=\"none\" stroke=\"#c9c2b4\" stroke-width=\"1.4\"";
const PARCEL: &str = "fill=\"none\" stroke=\"#bbb\" stroke-width=\"0.6\"";
const WATERBODY: &str = "fill=\"#b8d8f0\" stroke=\"#5b9bd5\" stroke-width=\"0.8\"";
const STREAM: &str = "fill=\"none\" stroke=\"#5b9bd5\" stroke-width=\"1.2\"";
const PATH: &str = "fill=\"none\" stroke=\"#ff7f00\" stroke-width=\"3.5\"";
const IMPAIRED: &str = "fill=\"none\" stroke=\"#d1007a\" stroke-width=\"4\"";
const SITE: &str = "fill=\"#e8a33d\" fill-opacity=\"0.55\" stroke=\"#a0600a\" stroke-width=\"1\"";
const TO_OUTFALL: &str =
    "fill=\"none\" stroke=\"#111\" stroke-width=\"1.6\" stroke-dasharray=\"5 3\"";
const OUTFALL: &str = "fill=\"#fff\" stroke=\"#111\" stroke-width=\"2.5\"";

/// The inset's legend: only what it can show, in plain words.
fn inset_legend(r: &Report, has_roads: bool) -> String {
    let line = |style: &str| {
        format!("<svg width=\"26\" height=\"12\" aria-hidden=\"true\"><path d=\"M2,6 L24,6\" {style}/></svg>")
    };
    let area = |style: &str| {
        format!("<svg width=\"26\" height=\"12\" aria-hidden=\"true\"><rect x=\"3\" y=\"1\" width=\"20\" height=\"10\" {style}/></svg>")
    };
    let mut rows: Vec<(String, &str)> = vec![
        (area(SITE), "Disturbance (the site)"),
        (
            line(PATH),
            "Path of the discharge: entry reach and downstream",
        ),
        (line(IMPAIRED), "Listed impaired water (303(d))"),
        (line(STREAM), "Other streams"),
        (area(WATERBODY), "Lakes and ponds"),
    ];
    if r.entry.outfall.is_some() {
        rows.push((
            "<svg width=\"26\" height=\"12\" aria-hidden=\"true\"><circle cx=\"13\" cy=\"6\" r=\"4\" fill=\"#fff\" stroke=\"#111\" stroke-width=\"2\"/></svg>".into(),
            "Applicant's outfall point",
        ));
        rows.push((line(TO_OUTFALL), "Storm sewer from the site to the outfall"));
    }
    if has_roads {
        rows.push((line(ROAD), "Roads"));
    }
    let mut h = String::from("<ul class=\"inset-legend\" aria-label=\"Inset map legend\">");
    for (sw, words) in rows {
        write!(h, "<li>{sw} {words}</li>").ok();
    }
    h.push_str("</ul>");
    h
}

fn inset_svg(st: &AppState, r: &Report) -> String {
    let Some(bbox) = r.frame_bbox.or(r.site.bbox) else {
        return "<p>No geometry to map.</p>".into();
    };
    let inset = Inset::new(bbox);
    let view = inset.bounds_lonlat();
    let mut svg = format!("<svg viewBox=\"0 0 {INSET_PX} {INSET_PX}\" width=\"{INSET_PX}\" height=\"{INSET_PX}\" role=\"img\" aria-label=\"Inset map: the site, its outfall and the path of its discharge\" data-frame=\"{:.6},{:.6},{:.6},{:.6}\"><rect width=\"100%\" height=\"100%\" fill=\"#f7f7f2\"/>", bbox[0], bbox[1], bbox[2], bbox[3]);
    let cat = &st.catalog;
    let mut has_roads = false;
    let mut draw = |role: Role, style: &str, closed: bool, only: Option<&dyn Fn(&str) -> bool>| {
        let mut n = 0;
        for layer in cat.layers_of(role) {
            for i in layer.query(view) {
                let f = &layer.features[i];
                if only.is_some_and(|keep| !keep(&f.id)) {
                    continue;
                }
                n += 1;
                write!(
                    svg,
                    "<path d=\"{}\" {style}/>",
                    inset.geometry(&f.geometry, closed)
                )
                .ok();
            }
        }
        n
    };
    has_roads |= draw(Role::Basemap, ROAD, false, None) > 0;
    draw(Role::Parcels, PARCEL, true, None);
    draw(Role::Waterbodies, WATERBODY, true, None);
    draw(Role::Flowlines, STREAM, false, None);
    let first_reach = r.first_impaired.as_ref().map(|w| w.reach_id.as_str());
    let framed = outfall_core::frame::framed_reaches(&r.downstream, first_reach);
    let entry = r.entry.reach_id.as_deref();
    let on_path = |id: &str| entry == Some(id) || framed.iter().any(|d| d.id == id);
    draw(Role::Flowlines, PATH, false, Some(&on_path));
    let impaired = |id: &str| framed.iter().any(|d| d.id == id && d.impaired);
    draw(Role::Flowlines, IMPAIRED, false, Some(&impaired));
    let mine = |id: &str| id == r.site.id;
    draw(
        Role::Sites,
        "fill=\"none\" stroke=\"#333\" stroke-dasharray=\"4 3\" stroke-width=\"1\"",
        true,
        Some(&mine),
    );
    // A parcel report: the parcel is the subject.
    if r.site.kind == outfall_core::subject::SubjectKind::Parcel {
        let parcel = |id: &str| id == r.site.id;
        draw(Role::Parcels, SITE, true, Some(&parcel));
    }
    // Every disturbance polygon of the site, from whichever disturbance layer holds it.
    for &(li, i) in cat
        .site(&r.site.id)
        .map(|s| s.disturbance.as_slice())
        .unwrap_or(&[])
    {
        let f = &cat.layers[li].features[i];
        write!(
            svg,
            "<path d=\"{}\" {SITE}/>",
            inset.geometry(&f.geometry, true)
        )
        .ok();
    }
    svg.push_str(&crate::inset_labels::labels(cat, &inset, view));
    outfall_and_scale(&mut svg, &inset, r);
    svg.push_str(&inset_legend(r, has_roads));
    svg
}

/// The line to the outfall, the outfall point, the scale bar and the north arrow.
fn outfall_and_scale(svg: &mut String, inset: &Inset, r: &Report) {
    if let Some([a, b]) = r.outfall_path {
        let (x1, y1) = inset.px(Coord { x: a[0], y: a[1] });
        let (x2, y2) = inset.px(Coord { x: b[0], y: b[1] });
        write!(
            svg,
            "<path d=\"M{x1:.1},{y1:.1} L{x2:.1},{y2:.1}\" {TO_OUTFALL}/>"
        )
        .ok();
    }
    if let Some([lon, lat]) = r.entry.outfall {
        let (x, y) = inset.px(Coord { x: lon, y: lat });
        write!(svg, "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"5\" {OUTFALL} data-outfall=\"1\"><title>Outfall point</title></circle>").ok();
    }
    let bar_m = inset.scale_bar_m();
    let bar_label = if bar_m >= 1000.0 {
        format!("{} km", bar_m / 1000.0)
    } else {
        format!("{bar_m} m")
    };
    write!(svg, "<g font-size=\"10\" font-family=\"sans-serif\"><line x1=\"10\" y1=\"{y}\" x2=\"{x2:.1}\" y2=\"{y}\" stroke=\"#000\" stroke-width=\"2\"/><text x=\"10\" y=\"{ty}\">{bar_label}</text><text x=\"{nx}\" y=\"16\">N ↑</text></g></svg>", y = INSET_PX - 12.0, x2 = 10.0 + bar_m * inset.scale, ty = INSET_PX - 16.0, nx = INSET_PX - 30.0).ok();
}

/// The listed waters the discharge reaches: PWL ID, 303(d) category and list year.
fn listed_table(r: &Report) -> String {
    if r.impaired_waters.is_empty() {
        return "<p>No listed (303(d)) water on the path.</p>".into();
    }
    let mut h = String::from("<table class=\"listed\"><tr><th>Listed water</th><th>PWL ID</th><th>303(d) category</th><th>TMDL</th><th>List year</th><th>Causes</th><th>Along the path</th></tr>");
    for w in &r.impaired_waters {
        let cat = w
            .category
            .as_deref()
            .map(|c| format!("{} — {}", esc(c), category_words(c)))
            .unwrap_or_else(|| "not given".into());
        write!(
            h,
            "<tr><td>{}</td><td data-pwl-id=\"{}\"><code>{}</code></td><td>{cat}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.0} m</td></tr>",
            esc(&w.name),
            esc(&w.id),
            esc(&w.id),
            crate::html_summary::tmdl_cell(r, w),
            esc(w.list_year.as_deref().unwrap_or("not given")),
            esc(&w.causes.join(", ")),
            w.distance_m
        )
        .ok();
    }
    h.push_str("</table>");
    h
}

/// The printable report: its head, the inset map beside the waters and conditions, then
/// the disturbance, the findings, the data sources and a sign-off box for the paper copy.
pub fn render(st: &AppState, r: &Report) -> String {
    let mut h = String::new();
    head(&mut h, st, r);
    let rules = &st.catalog.manifest.rules;
    h.push_str(&crate::html_summary::summary(r, rules));
    write!(
        h,
        "<div class=\"grid\"><div>{}</div><div style=\"flex:1\">",
        inset_svg(st, r)
    )
    .ok();
    waters_and_conditions(&mut h, r, rules);
    disturbance(&mut h, r);
    findings_and_sources(&mut h, r);
    // Filled in by hand on the printed copy: the officer's sign-off.
    h.push_str("<section class=\"review\" aria-label=\"Review\"><strong>Reviewed by</strong><span class=\"line\"></span><strong>Date</strong><span class=\"line\"></span><strong>Notes</strong><span class=\"line\" style=\"grid-column:2 / 5\"></span></section>");
    h.push_str("</body></html>");
    h
}

/// The document head with its print styles, the title and, with a registry, the link to
/// the record's history.
fn head(h: &mut String, st: &AppState, r: &Report) {
    let kind = match r.site.kind {
        outfall_core::subject::SubjectKind::Parcel => "Parcel",
        outfall_core::subject::SubjectKind::Drawn => "Checked area",
        outfall_core::subject::SubjectKind::Site => "Site",
    };
    let title = format!(
        "{kind} {} — {}",
        r.site.id,
        r.site.name().or(r.site.address()).unwrap_or("")
    );
    write!(h, "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><link rel=\"icon\" href=\"data:,\"><style>
body{{font:13px/1.4 system-ui,sans-serif;margin:1.5em;max-width:60em;color:#111}} h1{{font-size:1.35em;margin:0}} h2{{font-size:1.05em;border-bottom:1px solid #999;margin:1em 0 .3em}}
table{{border-collapse:collapse;width:100%}} td,th{{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}} .yes{{color:#a00;font-weight:bold}} .grid{{display:flex;gap:1em}}
.small{{font-size:11px;color:#444}} .inset-legend{{list-style:none;padding:0;margin:.4em 0;font-size:11px;max-width:360px}} .inset-legend li{{display:flex;align-items:center;gap:.4em}}
.review{{margin-top:1.5em;border:1px solid #555;padding:.6em 1em;display:grid;grid-template-columns:auto 1fr auto 10em;gap:1.6em .8em;align-items:end}} .review span.line{{border-bottom:1px solid #111;min-height:1.2em}}
@media print{{body{{margin:0}} .noprint{{display:none}} .review{{break-inside:avoid}}}}
@media print{{@page{{size:letter;margin:.35in}} body{{font:9.5px/1.25 system-ui,sans-serif;max-width:none}} h1{{font-size:14px}} h2{{font-size:11px;margin:.5em 0 .15em}} p{{margin:.25em 0}} td,th{{padding:1px 3px}} tr{{break-inside:avoid}} .small{{font-size:8.5px}} table.small{{font-size:8px}}
.grid{{display:block}} .grid>div:first-child{{float:right;margin-left:1em;display:flex;flex-direction:row-reverse;align-items:flex-end;gap:.6em}} .grid svg[viewBox]{{width:270px;height:270px}} .inset-legend{{font-size:8.5px;margin:.2em 0;width:150px}} .review{{margin-top:.6em;gap:.8em .6em}}}}</style></head><body>", esc(&title)).ok();
    write!(h, "<p class=\"noprint\"><button type=\"button\" data-print>Print</button><script src=\"/print.js\"></script></p><h1>{}</h1><p>{} · {}</p>", esc(&title), esc(&r.data.law), esc(r.site.address().unwrap_or(""))).ok();
    if st.registry.is_some() {
        // The registry keeps who changed this site and when; the report points to it.
        // The readable page of the history and logbook, not the raw JSON behind it.
        write!(h, "<p class=\"small\">Record history and inspection logbook: <a href=\"{0}/record.html?site={1}\">{0}/record.html?site={1}</a></p>", esc(&st.public_url), esc(&r.site.id)).ok();
    }
}

/// The conditions table's rows; the thresholds in the labels are the rulebook's, as
/// GET /rules serves them ("five" in words at the default, as the law writes it).
fn condition_rows(c: &Conditions, rules: &Rules) -> [(String, Option<bool>); 7] {
    let b = rules.condition_b_acres;
    let limit = rules.max_disturbed_at_once_acres;
    [
        ("Inside the Town (law applies)".into(), c.in_jurisdiction),
        ("Verified exemption".into(), c.exempt),
        (
            "Land development activity".into(),
            c.land_development_activity,
        ),
        (
            "Condition A: the discharge reaches an impaired water or a TMDL watershed".into(),
            c.a,
        ),
        (
            format!(
                "Condition B: {} or more disturbed",
                acres(&b.to_string(), b)
            ),
            c.b,
        ),
        (
            format!(
                "Condition C: {} to {}, not a single-family home or farm",
                rules.land_development_acres,
                acres(&b.to_string(), b)
            ),
            c.c,
        ),
        (
            format!(
                "Over {} at one time without approval",
                acres(&number_words(limit), limit)
            ),
            c.five_acre_limit_exceeded,
        ),
    ]
}

/// "5 acres", "1 acre", "five acres": a threshold of the rulebook, `x`, written as `n`.
fn acres(n: &str, x: f64) -> String {
    format!("{n} acre{}", if x == 1.0 { "" } else { "s" })
}

fn waters_and_conditions(h: &mut String, r: &Report, rules: &Rules) {
    let c = &r.conditions;
    write!(
        h,
        "<h2>Receiving waters</h2><p><strong>{}</strong></p><p class=\"small\">{}</p>",
        esc(&r.receiving_water_names.join("; ")),
        esc(&r.entry.reason)
    )
    .ok();
    if !r.downstream.is_empty() {
        write!(h, "<p>Downstream: {}</p>", esc(&trace_path(&r.downstream))).ok();
    }
    h.push_str("<h2>Listed waters (303(d))</h2>");
    h.push_str(&listed_table(r));
    if c.in_jurisdiction == Some(false) {
        h.push_str("<p class=\"yes\">Outside the Town: the local law does not apply here. Facts are shown for information.</p>");
    }
    h.push_str("<h2>Conditions</h2><table>");
    for (label, v) in condition_rows(c, rules) {
        write!(
            h,
            "<tr><th>{label}</th><td class=\"{}\">{}</td></tr>",
            if v == Some(true) { "yes" } else { "" },
            yes_no(v)
        )
        .ok();
    }
    h.push_str("</table>");
}

fn disturbance(h: &mut String, r: &Report) {
    let d = &r.disturbance;
    // `+ 0.0` makes a -0.0 (an exact cancellation) print as 0.00, never "-0.00 ac".
    write!(h, "<h2>Disturbance</h2><p>Total {:.2} ac · peak at one time {:.2} ac{} · outside the site's parcels {:.2} ac</p></div></div>", d.total_acres, d.peak_acres, d.peak_date.map(|x| format!(" from {x}")).unwrap_or_default(), d.outside_parcels_acres + 0.0).ok();
    if !d.phases.is_empty() {
        write!(
            h,
            "<table><tr><th>Phase</th><th>Acres</th><th>Start</th><th>End</th></tr>"
        )
        .ok();
        for p in &d.phases {
            write!(
                h,
                "<tr><td>{}</td><td>{:.2}</td><td>{}</td><td>{}</td></tr>",
                esc(&p.phase),
                p.acres,
                p.start.map(|x| x.to_string()).unwrap_or_default(),
                p.end.map(|x| x.to_string()).unwrap_or_default()
            )
            .ok();
        }
        h.push_str("</table>");
    }
}

fn findings_and_sources(h: &mut String, r: &Report) {
    h.push_str("<h2>Findings</h2><table><tr><th>Finding</th><th>Clause</th><th>Result</th><th>Reason</th></tr>");
    for f in &r.findings {
        write!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(outfall_core::law::spec(f.rule).title),
            esc(&f.clause),
            yes_no(f.met),
            esc(&if f.missing.is_empty() {
                f.reason.clone()
            } else {
                format!("{} Needs: {}.", f.reason, f.missing.join("; "))
            })
        )
        .ok();
    }
    h.push_str("</table>");
    write!(h, "<h2>Data sources</h2><p class=\"small\">{} · generated {} · Outfall {}</p><table class=\"small\"><tr><th>Layer</th><th>File</th><th>Features</th><th>SHA-256</th></tr>", esc(&r.data.data_set), r.data.generated, r.data.outfall_version).ok();
    for l in r.data.layers.iter() {
        write!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td></tr>",
            esc(&l.role),
            esc(&l.path),
            l.features,
            esc(&l.sha256)
        )
        .ok();
    }
    h.push_str("</table>");
}

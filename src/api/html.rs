//! The printable one-page site report: the findings with their clauses, an SVG inset map
//! of the site and the start of its downstream path, and the data sources with hashes.

use super::AppState;
use crate::config::Role;
use crate::measure::LocalFrame;
use crate::report::{trace_path, Report};
use geo_types::{Coord, Geometry, LineString, Rect};
use std::fmt::Write;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn yes_no(b: Option<bool>) -> &'static str {
    match b {
        Some(true) => "Yes",
        Some(false) => "No",
        None => "Needs data",
    }
}

const INSET_PX: f64 = 360.0;
const INSET_MARGIN_M: f64 = 600.0;

struct Inset {
    frame: LocalFrame,
    centre: Coord<f64>,
    half_span_m: f64,
    scale: f64,
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
        let span = (b.x - a.x).max(b.y - a.y) + 2.0 * INSET_MARGIN_M;
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

    fn path(&self, ring: &LineString<f64>) -> String {
        let mut d = String::new();
        for (i, c) in ring.0.iter().enumerate() {
            let m = self.frame.to_m(*c);
            let x = (m.x + self.half_span_m) * self.scale;
            let y = INSET_PX - (m.y + self.half_span_m) * self.scale;
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
}

fn inset_svg(st: &AppState, r: &Report) -> String {
    let Some(bbox) = r.site.bbox else {
        return "<p>No geometry to map.</p>".into();
    };
    let inset = Inset::new(bbox);
    let view = inset.bounds_lonlat();
    let mut svg = format!("<svg viewBox=\"0 0 {INSET_PX} {INSET_PX}\" width=\"{INSET_PX}\" height=\"{INSET_PX}\" role=\"img\" aria-label=\"Site inset map\"><rect width=\"100%\" height=\"100%\" fill=\"#f7f7f2\"/>");
    let cat = &st.catalog;
    let mut draw = |role: Role, style: &str, closed: bool, only: Option<&dyn Fn(&str) -> bool>| {
        for layer in cat.layers_of(role) {
            for i in layer.query(view) {
                let f = &layer.features[i];
                if only.is_some_and(|keep| !keep(&f.id)) {
                    continue;
                }
                write!(
                    svg,
                    "<path d=\"{}\" {style}/>",
                    inset.geometry(&f.geometry, closed)
                )
                .ok();
            }
        }
    };
    draw(
        Role::Parcels,
        "fill=\"none\" stroke=\"#bbb\" stroke-width=\"0.6\"",
        true,
        None,
    );
    draw(
        Role::Waterbodies,
        "fill=\"#b8d8f0\" stroke=\"#5b9bd5\" stroke-width=\"0.8\"",
        true,
        None,
    );
    draw(
        Role::Flowlines,
        "fill=\"none\" stroke=\"#5b9bd5\" stroke-width=\"1.2\"",
        false,
        None,
    );
    let on_trace = |id: &str| r.downstream.iter().any(|d| d.id == id);
    draw(
        Role::Flowlines,
        "fill=\"none\" stroke=\"#0b3d91\" stroke-width=\"3\"",
        false,
        Some(&on_trace),
    );
    let impaired = |id: &str| r.downstream.iter().any(|d| d.id == id && d.impaired);
    draw(
        Role::Flowlines,
        "fill=\"none\" stroke=\"#d1006f\" stroke-width=\"3.5\"",
        false,
        Some(&impaired),
    );
    let mine = |id: &str| id == r.site.id;
    draw(
        Role::Sites,
        "fill=\"none\" stroke=\"#333\" stroke-dasharray=\"4 3\" stroke-width=\"1\"",
        true,
        Some(&mine),
    );
    // Every disturbance polygon of the site, from whichever disturbance layer holds it.
    for &(li, i) in cat
        .site(&r.site.id)
        .map(|s| s.disturbance.as_slice())
        .unwrap_or(&[])
    {
        let f = &cat.layers[li].features[i];
        write!(svg, "<path d=\"{}\" fill=\"#e8a33d\" fill-opacity=\"0.55\" stroke=\"#a0600a\" stroke-width=\"1\"/>", inset.geometry(&f.geometry, true)).ok();
    }
    let bar_px = 200.0 * inset.scale;
    write!(svg, "<g font-size=\"10\" font-family=\"sans-serif\"><line x1=\"10\" y1=\"{y}\" x2=\"{x2:.1}\" y2=\"{y}\" stroke=\"#000\" stroke-width=\"2\"/><text x=\"10\" y=\"{ty}\">200 m</text><text x=\"{nx}\" y=\"16\">N ↑</text></g></svg>", y = INSET_PX - 12.0, x2 = 10.0 + bar_px, ty = INSET_PX - 16.0, nx = INSET_PX - 30.0).ok();
    svg
}

pub fn render(st: &AppState, r: &Report) -> String {
    let mut h = String::new();
    let title = format!(
        "Site {} — {}",
        r.site.id,
        r.site.name.as_deref().unwrap_or("")
    );
    write!(h, "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><link rel=\"icon\" href=\"data:,\"><style>
body{{font:13px/1.4 system-ui,sans-serif;margin:1.5em;max-width:60em;color:#111}} h1{{font-size:1.35em;margin:0}} h2{{font-size:1.05em;border-bottom:1px solid #999;margin:1em 0 .3em}}
table{{border-collapse:collapse;width:100%}} td,th{{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}} .yes{{color:#a00;font-weight:bold}} .grid{{display:flex;gap:1em}}
.small{{font-size:11px;color:#444}} @media print{{body{{margin:0}} .noprint{{display:none}}}}</style></head><body>", esc(&title)).ok();
    write!(h, "<p class=\"noprint\"><button onclick=\"window.print()\">Print</button></p><h1>{}</h1><p>{} · {}</p>", esc(&title), esc(&r.data.law), esc(r.site.address.as_deref().unwrap_or(""))).ok();
    if st.registry.is_some() {
        // The registry keeps who changed this site and when; the report points to it.
        write!(h, "<p class=\"small\">Record history: <a href=\"{0}/sites/{1}/history\">{0}/sites/{1}/history</a></p>", esc(&st.public_url), esc(&r.site.id)).ok();
    }
    write!(
        h,
        "<div class=\"grid\"><div>{}</div><div style=\"flex:1\">",
        inset_svg(st, r)
    )
    .ok();
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
    if c.in_jurisdiction == Some(false) {
        h.push_str("<p class=\"yes\">Outside the Town: the local law does not apply here. Facts are shown for information.</p>");
    }
    h.push_str("<h2>Conditions</h2><table>");
    for (label, v) in [
        ("Inside the Town (law applies)", c.in_jurisdiction),
        ("Verified exemption", c.exempt),
        ("Land development activity", c.land_development_activity),
        ("Condition A (impaired water / TMDL)", c.a),
        ("Condition B (≥ 5 ac)", c.b),
        ("Condition C (1–5 ac)", c.c),
        (
            "Over five acres at one time without approval",
            c.five_acre_limit_exceeded,
        ),
    ] {
        write!(
            h,
            "<tr><th>{label}</th><td class=\"{}\">{}</td></tr>",
            if v == Some(true) { "yes" } else { "" },
            yes_no(v)
        )
        .ok();
    }
    h.push_str("</table>");
    let d = &r.disturbance;
    write!(h, "<h2>Disturbance</h2><p>Total {:.2} ac · peak at one time {:.2} ac{} · outside the site's parcels {:.2} ac</p></div></div>", d.total_acres, d.peak_acres, d.peak_date.map(|x| format!(" from {x}")).unwrap_or_default(), d.outside_parcels_acres).ok();
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
    h.push_str("<h2>Findings</h2><table><tr><th>Finding</th><th>Clause</th><th>Result</th><th>Reason</th></tr>");
    for f in &r.findings {
        write!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(crate::law::spec(f.rule).title),
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
    for l in &r.data.layers {
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
    h.push_str("</table></body></html>");
    h
}

// The sites on the map: their disturbance coloured by phase and styled by status, one dot per
// site sized by its peak acres with its risk rings (risk.js fills them from /sites), and the
// site boundaries.
import { addLayer } from "./legend.js";
import { COLORS } from "./colors.js";
import { geojsonBbox, hasGeometry } from "./geo.js";
import { nameOf } from "./water-layers.js";

/**
 * The site's status code (planned, approved, under_construction, stabilized, closed,
 * withdrawn) that the server serves as `status_code`; "" when not known, which styles as
 * "other" (never as under construction). `status` stays the data's own word ("active").
 */
const STATUS_CODE = ["to-string", ["coalesce", ["get", "status_code"], ""]];

/** Colour by phase index (`_pi`, set in indexPhases): distinct colours for "1", "2", "2B", ... */
function phaseColorExpr() {
  const n = COLORS.phases.length;
  return ["to-color", ["at", ["%", ["to-number", ["get", "_pi"], 0], n], ["literal", COLORS.phases]]];
}

/** Number the distinct phase labels in natural order; returns [{phase, color}] for the legend. */
function indexPhases(fc) {
  const labels = new Set();
  for (const f of (fc && fc.features) || []) {
    const p = f.properties || {};
    labels.add(p.phase == null ? "" : String(p.phase));
  }
  const sorted = [...labels].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
  const idx = new Map(sorted.map((l, i) => [l, i]));
  for (const f of (fc && fc.features) || []) {
    const p = f.properties || (f.properties = {});
    p._pi = idx.get(p.phase == null ? "" : String(p.phase));
  }
  return sorted.map((phase, i) => ({ phase, color: COLORS.phases[i % COLORS.phases.length] }));
}

/**
 * One point per site (bbox centre of its disturbance / boundary), with name, the data's own
 * status word (`status`) and the status code the server read from the typed record
 * (`status_code`, "" when not known), which the styles use.
 */
function sitePoints(data) {
  const by = new Map();
  const get = (id) => {
    if (!by.has(id)) by.set(id, { feats: [], status: null, status_code: null, name: null, start: null, end: null, open: false });
    return by.get(id);
  };
  for (const f of (data.disturbance && data.disturbance.features) || []) {
    const p = f.properties || {};
    if (p.site_id == null || !f.geometry) continue;
    const e = get(String(p.site_id));
    e.feats.push(f);
    if (p.status_code && !e.status_code) e.status_code = String(p.status_code);
    // Span of the site's phases, so the date filter can apply to the dot too.
    const st = p.start ? String(p.start) : "";
    const en = p.end ? String(p.end) : "";
    if (st && (!e.start || st < e.start)) e.start = st;
    if (!en) e.open = true;
    else if (!e.end || en > e.end) e.end = en;
  }
  for (const f of (data.sites && data.sites.features) || []) {
    const p = f.properties || {};
    if (p.id == null) continue;
    const e = get(String(p.id));
    if (f.geometry && !e.feats.length) e.feats.push(f);
    if (p.status) e.status = String(p.status);
    if ("status_code" in p) e.status_code = p.status_code == null ? null : String(p.status_code);
    e.name = nameOf(p) || e.name;
  }
  const features = [];
  for (const [id, e] of by) {
    const b = geojsonBbox({ type: "FeatureCollection", features: e.feats });
    if (!b) continue;
    features.push({
      type: "Feature",
      properties: { id, site_id: id, status: e.status || "", status_code: e.status_code || "", name: e.name || "", start: e.start || "", end: e.open ? "" : e.end || "" },
      geometry: { type: "Point", coordinates: [(b[0] + b[2]) / 2, (b[1] + b[3]) / 2] },
    });
  }
  return { type: "FeatureCollection", features };
}


/** The disturbance polygons; gives the phases for the legend. `L`: {map, data, has(id), src(id, fc), sourceIds}. */
export function addDisturbanceLayers(L) {
  const { map, data, src, sourceIds } = L;
  // --- Disturbance: colour by phase; under construction solid, planned / approved faint +
  // dashed, stabilized hatched, any other status (closed, withdrawn, not known) pale ---
  if (!data.disturbance) return [];
  const phases = indexPhases(data.disturbance);
  src("disturbance", data.disturbance);
  sourceIds.push("disturbance");
  const status = STATUS_CODE;
  addLayer(map, "disturbance", {
    id: "disturbance-fill", type: "fill", source: "disturbance",
    filter: ["!=", status, "stabilized"],
    paint: {
      "fill-color": phaseColorExpr(),
      "fill-opacity": ["match", status, "under_construction", 0.55, ["planned", "approved"], 0.18, 0.3],
    },
  });
  addLayer(map, "disturbance", {
    id: "disturbance-stabilized", type: "fill", source: "disturbance",
    filter: ["==", status, "stabilized"],
    paint: { "fill-pattern": "hatch-stabilized", "fill-opacity": 0.8 },
  });
  addLayer(map, "disturbance", {
    id: "disturbance-line", type: "line", source: "disturbance",
    filter: ["==", status, "under_construction"],
    paint: { "line-color": phaseColorExpr(), "line-width": 1.5 },
  });
  addLayer(map, "disturbance", {
    id: "disturbance-line-planned", type: "line", source: "disturbance",
    filter: ["match", status, ["planned", "approved"], true, false],
    paint: { "line-color": phaseColorExpr(), "line-width": 1.5, "line-dasharray": [2, 2] },
  });
  addLayer(map, "disturbance", {
    id: "disturbance-line-stabilized", type: "line", source: "disturbance",
    filter: ["==", status, "stabilized"],
    paint: { "line-color": "#1b7837", "line-width": 1 },
  });
  return phases;
}

/** One dot per site with its risk rings. `L`: {map, data, has(id), src(id, fc), sourceIds}. */
export function addSitePointLayers(L) {
  const { map, data, src, sourceIds } = L;
  // --- Site points: one dot per site, so small sites show at town scale. Size is the peak
  // acres at one time; a magenta ring is Condition A, an outer black ring Condition B, a red
  // halo more than the rulebook's limit disturbed at once (risk props come from /sites and
  // /rules, see setSiteRisk).
  if (data.disturbance || (data.sites && hasGeometry(data.sites))) {
    data.sitePoints = sitePoints(data);
    src("site-points", data.sitePoints);
    sourceIds.push("site-points");
    const st = STATUS_CODE;
    const acres = ["to-number", ["coalesce", ["get", "peak_acres"], 0], 0];
    const size = (k) => ["*", k, ["interpolate", ["linear"], acres, 0, 4, 1, 5, 5, 8, 10, 11, 20, 14]];
    const radius = ["interpolate", ["linear"], ["zoom"], 9, size(0.8), 13, size(1.15)];
    const fade = ["interpolate", ["linear"], ["zoom"], 12.5, 1, 13.5, 0];
    addLayer(map, "disturbance", {
      id: "site-risk-halo", type: "circle", source: "site-points", maxzoom: 13.5,
      filter: ["==", ["get", "over_limit"], true],
      paint: {
        "circle-radius": ["interpolate", ["linear"], ["zoom"], 9, ["+", size(0.8), 9], 13, ["+", size(1.15), 12]],
        "circle-color": COLORS.risk,
        "circle-opacity": ["interpolate", ["linear"], ["zoom"], 12.5, 0.28, 13.5, 0],
        "circle-stroke-color": COLORS.risk,
        "circle-stroke-width": 1.5,
        "circle-stroke-opacity": fade,
      },
    });
    // Each tri-state risk has three looks: yes, no (nothing drawn) and needs data (grey).
    addLayer(map, "disturbance", {
      id: "site-risk-halo-unknown", type: "circle", source: "site-points", maxzoom: 13.5,
      filter: ["==", ["get", "over_limit_state"], "null"],
      paint: {
        "circle-radius": ["interpolate", ["linear"], ["zoom"], 9, ["+", size(0.8), 9], 13, ["+", size(1.15), 12]],
        "circle-color": COLORS.unknown,
        "circle-opacity": ["interpolate", ["linear"], ["zoom"], 12.5, 0.25, 13.5, 0],
        "circle-stroke-color": COLORS.unknown,
        "circle-stroke-width": 1.5,
        "circle-stroke-opacity": fade,
      },
    });
    for (const [id, state, color] of [["site-risk-b", "true", "#111111"], ["site-risk-b-unknown", "null", COLORS.unknown]]) {
      addLayer(map, "disturbance", {
        id, type: "circle", source: "site-points", maxzoom: 13.5,
        filter: ["==", ["get", "cond_b_state"], state],
        paint: {
          "circle-radius": ["interpolate", ["linear"], ["zoom"], 9, ["+", size(0.8), 4], 13, ["+", size(1.15), 5]],
          "circle-opacity": 0,
          "circle-stroke-color": color,
          "circle-stroke-width": 2.5,
          "circle-stroke-opacity": fade,
        },
      });
    }
    addLayer(map, "disturbance", {
      id: "site-points", type: "circle", source: "site-points", maxzoom: 13.5,
      paint: {
        "circle-radius": radius,
        "circle-color": ["match", st, "under_construction", "#d95f02", ["planned", "approved"], "#ffffff", "stabilized", "#1b7837", "#888888"],
        "circle-stroke-color": ["match", ["get", "cond_a_state"], "true", COLORS.impaired, "null", COLORS.aUnknown,
          ["match", st, ["planned", "approved"], "#7570b3", "#ffffff"]],
        "circle-stroke-width": ["match", ["get", "cond_a_state"], ["true", "null"], 3.5, 2],
        "circle-opacity": fade,
        "circle-stroke-opacity": fade,
      },
    });
  }
}

/** The site boundaries, when the data have them. `L`: {map, data, has(id), src(id, fc), sourceIds}. */
export function addSiteLayers(L) {
  const { map, data, src, sourceIds } = L;
  if (data.sites && hasGeometry(data.sites)) {
    src("sites", data.sites);
    sourceIds.push("sites");
    addLayer(map, "sites", {
      id: "sites-fill", type: "fill", source: "sites",
      filter: ["match", ["geometry-type"], ["Polygon", "MultiPolygon"], true, false],
      paint: { "fill-color": "#000000", "fill-opacity": 0.02 },
    });
    addLayer(map, "sites", {
      id: "sites-line", type: "line", source: "sites",
      paint: { "line-color": "#555555", "line-width": 1.2, "line-dasharray": [4, 2] },
    });
  }
}

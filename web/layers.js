// The Outfall layers: sources from the OGC API, styles, hatch patterns, impaired labels.
import * as maplibregl from "/vendor/maplibre-gl/maplibre-gl.mjs";
import { api } from "./api.js";
import { addLayer, isGroupVisible } from "./legend.js";
import { addStormLayers } from "./storm.js";
import { LineLabels } from "./labels.js";
import { EMPTY_FC, validBbox, geojsonBbox, lineMidpoint, hasGeometry, normalizeIds } from "./geo.js";

export const COLORS = {
  background: "#eef1ec",
  boundary: "#333333",
  parcelFill: "#f7f3e8",
  parcelLine: "#9a8f7a",
  water: "#2b7bcc",
  waterFill: "#9cc7ee",
  impaired: "#d1007a",
  tmdl: "#7a3db8",
  trace: "#ff7f00",
  receiving: "#00a5b8",
  selected: "#111111",
  user: "#e6550d",
  risk: "#e31a1c",
  // Needs data: grey for B and the five-acre halo, amber for Condition A's ring.
  unknown: "#8c8c8c",
  aUnknown: "#e6ab02",
  outfall: "#111111",
  phases: ["#e6a100", "#d95f02", "#7570b3", "#1b9e77", "#a6761d", "#e7298a", "#66a61e", "#666666"],
};

/**
 * The site's status code (planned, approved, under_construction, stabilized, closed,
 * withdrawn) that the server serves as `status_code`; "" when not known, which styles as
 * "other" (never as under construction). `status` stays the data's own word ("active").
 */
const STATUS_CODE = ["to-string", ["coalesce", ["get", "status_code"], ""]];

/** Hatch patterns drawn in code (no sprite files). */
function hatch(size, color, bg, width) {
  const data = new Uint8Array(size * size * 4);
  const [r, g, b, a] = color;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const i = (y * size + x) * 4;
      const d = (x + y) % size;
      const on = d < width;
      const c = on ? [r, g, b, a] : bg;
      data[i] = c[0];
      data[i + 1] = c[1];
      data[i + 2] = c[2];
      data[i + 3] = c[3];
    }
  }
  return { width: size, height: size, data };
}

/** A chevron pointing along +x (line direction), white with a soft dark edge. */
function chevron(size) {
  const data = new Uint8Array(size * size * 4);
  const segs = [[[size * 0.3, size * 0.2], [size * 0.7, size * 0.5]], [[size * 0.7, size * 0.5], [size * 0.3, size * 0.8]]];
  const dist = (px, py, [[ax, ay], [bx, by]]) => {
    const dx = bx - ax, dy = by - ay;
    const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
    return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
  };
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const d = Math.min(...segs.map((sg) => dist(x + 0.5, y + 0.5, sg)));
      const i = (y * size + x) * 4;
      if (d < 1.4) {
        data.set([255, 255, 255, 255], i);
      } else if (d < 2.4) {
        data.set([60, 30, 0, 140], i);
      }
    }
  }
  return { width: size, height: size, data };
}

function addPatterns(map) {
  const add = (name, img) => {
    if (!map.hasImage(name)) map.addImage(name, img, { pixelRatio: 1 });
  };
  add("flow-arrow", chevron(14));
  add("hatch-tmdl", hatch(12, [122, 61, 184, 170], [0, 0, 0, 0], 2));
  add("hatch-stabilized", hatch(8, [27, 120, 55, 220], [199, 233, 192, 110], 2));
}

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

/** Heuristic: property holding the impairment causes. */
function causesOf(props) {
  if (!props) return "";
  const keys = Object.keys(props);
  const pref = ["causes", "cause", "pollutant", "pollutants", "impairment", "impairments"];
  for (const p of pref) {
    const k = keys.find((x) => x.toLowerCase() === p);
    if (k && props[k] != null && props[k] !== "") return fmtCauses(props[k]);
  }
  const k = keys.find((x) => /pollut|cause/i.test(x) && props[x] != null && props[x] !== "");
  return k ? fmtCauses(props[k]) : "";
}

function fmtCauses(v) {
  if (v == null) return "";
  if (Array.isArray(v)) return v.join(", ");
  return String(v).split(/\s*[|;]\s*/).filter(Boolean).join(", ");
}

function nameOf(props) {
  if (!props) return "";
  for (const k of ["display_name", "name", "NAME", "segment_name", "GNIS_NAME", "gnis_name", "label"]) {
    if (typeof props[k] === "string" && props[k].trim()) return props[k].trim();
  }
  return "";
}

/**
 * Mark flowline / waterbody features that match an impaired table row (impaired collection
 * without geometry): any property value equal to an impaired id. Adds _impaired/_causes.
 */
function joinImpaired(fc, impairedById) {
  if (!fc) return 0;
  let n = 0;
  for (const f of fc.features || []) {
    const p = f.properties || (f.properties = {});
    // The server marks reaches itself (`impaired`, `causes`): use that when present.
    if (p.impaired === true || p.impaired === "true") {
      p._impaired = true;
      p._causes = fmtCauses(p.causes || "");
      n++;
      continue;
    }
    if (p.impaired === false || !impairedById.size) continue;
    for (const [k, v] of Object.entries(p)) {
      if (k === "id" || v == null) continue;
      const key = String(v);
      if (impairedById.has(key)) {
        p._impaired = true;
        p._causes = impairedById.get(key).causes;
        n++;
        break;
      }
    }
  }
  return n;
}

/** Named streams (not "unnamed tributary to ..."): [{name, lines}], one entry per name. */
/**
 * Line width by stream order (NHDPlus `StreamOrde`, or `stream_order`), so that a first-order
 * creek stays a hairline at z11 and the Oswego River reads as a river; data without an order
 * draw as order 2.
 */
const STREAM_ORDER = ["to-number", ["coalesce", ["get", "StreamOrde"], ["get", "stream_order"], 2], 2];
const STREAM_WIDTH = [
  "interpolate", ["linear"], ["zoom"],
  10, ["*", 0.25, STREAM_ORDER],
  13, ["*", 0.6, STREAM_ORDER],
  17, ["*", 1.5, STREAM_ORDER],
];

function namedStreams(fc) {
  const by = new Map();
  for (const f of (fc && fc.features) || []) {
    const p = f.properties || {};
    const name = String(p.display_name || p.name || "").trim();
    if (!name || /^unnamed\b/i.test(name)) continue;
    const g = f.geometry;
    const lines = !g ? [] : g.type === "LineString" ? [g.coordinates] : g.type === "MultiLineString" ? g.coordinates : [];
    if (!by.has(name)) by.set(name, []);
    by.get(name).push(...lines);
  }
  return [...by].map(([name, lines]) => ({ name, lines }));
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

/**
 * Load the collections and add every source + layer. Returns {data, sourceIds, warnings}.
 * collectionIds: ids present in GET /collections (others are skipped, so no 404s).
 */
export async function addOutfallLayers(map, collectionIds, bbox) {
  addPatterns(map);
  const has = (id) => collectionIds.has(id);
  const warnings = [];
  const data = {};
  const want = ["boundary", "tmdl", "waterbodies", "flowlines", "impaired", "disturbance", "sites"].filter(has);
  await Promise.all(
    want.map(async (id) => {
      try {
        const fc = await api.itemsAll(id);
        data[id] = fc && Array.isArray(fc.features) ? normalizeIds(fc) : EMPTY_FC;
      } catch (err) {
        data[id] = EMPTY_FC;
        warnings.push(`${id}: ${err.message}`);
      }
    }),
  );

  // Impaired: a geometry layer, or a table joined to flowlines/waterbodies.
  const impairedById = new Map();
  for (const f of (data.impaired && data.impaired.features) || []) {
    const p = f.properties || {};
    const id = String(p.id ?? f.id ?? "");
    if (!id) continue;
    const prev = impairedById.get(id);
    const causes = causesOf(p);
    if (prev) {
      if (causes && !prev.causes.includes(causes)) prev.causes = [prev.causes, causes].filter(Boolean).join(", ");
    } else impairedById.set(id, { name: nameOf(p), causes });
  }
  joinImpaired(data.flowlines, impairedById);
  joinImpaired(data.waterbodies, impairedById);
  for (const f of (data.impaired && data.impaired.features) || []) {
    const p = f.properties || (f.properties = {});
    p._causes = impairedById.get(String(p.id ?? f.id ?? ""))?.causes || causesOf(p);
  }

  const src = (id, fc) => map.addSource(id, { type: "geojson", data: fc || EMPTY_FC, promoteId: "id" });
  const sourceIds = [];

  // --- Basemap: the data set's own roads as vector tiles, under everything (works offline) ---
  if (has("basemap")) {
    map.addSource("basemap", { type: "vector", tiles: [api.tileUrl("basemap")], minzoom: 10, maxzoom: 16 });
    sourceIds.push("basemap");
    // TIGER classes: S1100 primary, S1200 secondary, S1630 ramps; the rest local.
    const cls = ["to-string", ["coalesce", ["get", "MTFCC"], ""]];
    const major = ["match", cls, ["S1100", "S1200"], true, false];
    addLayer(map, "basemap", {
      id: "roads-casing", type: "line", source: "basemap", "source-layer": "basemap", minzoom: 10,
      layout: { "line-cap": "round", "line-join": "round" },
      paint: {
        "line-color": "#b9b2a3",
        "line-width": ["interpolate", ["linear"], ["zoom"], 10, ["case", major, 2.2, 0.8], 16, ["case", major, 9, 6]],
      },
    });
    addLayer(map, "basemap", {
      id: "roads-line", type: "line", source: "basemap", "source-layer": "basemap", minzoom: 12,
      layout: { "line-cap": "round", "line-join": "round" },
      paint: {
        "line-color": ["case", major, "#fbe3a7", "#ffffff"],
        "line-width": ["interpolate", ["linear"], ["zoom"], 12, ["case", major, 2, 0.8], 16, ["case", major, 7, 4.5]],
      },
    });
  }

  // --- TMDL watersheds (hatched) ---
  if (data.tmdl) {
    src("tmdl", data.tmdl);
    sourceIds.push("tmdl");
    addLayer(map, "tmdl", {
      id: "tmdl-fill", type: "fill", source: "tmdl",
      filter: ["match", ["geometry-type"], ["Polygon", "MultiPolygon"], true, false],
      paint: { "fill-pattern": "hatch-tmdl", "fill-opacity": 0.35 },
    });
  }

  // --- Parcels (vector tiles) ---
  if (has("parcels")) {
    // No promoteId: the tile's own feature ids drive hover state; parcelIdOf() finds the parcel id.
    const s = { type: "vector", tiles: [api.tileUrl("parcels")], minzoom: 12, maxzoom: 16 };
    const b = validBbox(bbox);
    if (b) s.bounds = b;
    map.addSource("parcels", s);
    sourceIds.push("parcels");
    addLayer(map, "parcels", {
      id: "parcels-fill", type: "fill", source: "parcels", "source-layer": "parcels", minzoom: 12,
      paint: {
        "fill-color": ["case", ["boolean", ["feature-state", "hover"], false], "#ffe9a8", COLORS.parcelFill],
        "fill-opacity": 0.55,
      },
    });
    addLayer(map, "parcels", {
      id: "parcels-line", type: "line", source: "parcels", "source-layer": "parcels", minzoom: 12,
      paint: { "line-color": COLORS.parcelLine, "line-width": ["interpolate", ["linear"], ["zoom"], 12, 0.3, 16, 1.2] },
    });
  }

  // --- Waterbodies ---
  if (data.waterbodies) {
    src("waterbodies", data.waterbodies);
    sourceIds.push("waterbodies");
    addLayer(map, "waterbodies", {
      id: "waterbodies-fill", type: "fill", source: "waterbodies",
      paint: { "fill-color": COLORS.waterFill, "fill-opacity": 0.8 },
    });
    addLayer(map, "waterbodies", {
      id: "waterbodies-line", type: "line", source: "waterbodies",
      paint: { "line-color": COLORS.water, "line-width": 0.8 },
    });
  }

  // --- Disturbance: colour by phase; under construction solid, planned / approved faint +
  // dashed, stabilized hatched, any other status (closed, withdrawn, not known) pale ---
  let phases = [];
  if (data.disturbance) {
    phases = indexPhases(data.disturbance);
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
  }

  // --- Site points: one dot per site, so small sites show at town scale. Size is the peak
  // acres at one time; a magenta ring is Condition A, an outer black ring Condition B, a red
  // halo more than 5 acres disturbed at once (risk props come from /sites, see setSiteRisk).
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

  // --- Sites (boundary polygons, optional) ---
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

  // --- Flowlines ---
  if (data.flowlines) {
    src("flowlines", data.flowlines);
    sourceIds.push("flowlines");
    addLayer(map, "flowlines", {
      id: "flowlines-line", type: "line", source: "flowlines",
      layout: { "line-cap": "round", "line-join": "round" },
      paint: { "line-color": COLORS.water, "line-width": STREAM_WIDTH },
    });
  }

  // --- Impaired: own geometry and/or joined flowlines & waterbodies ---
  const impairedLayerIds = [];
  if (data.impaired && hasGeometry(data.impaired)) {
    src("impaired", data.impaired);
    sourceIds.push("impaired");
    addLayer(map, "impaired", {
      id: "impaired-fill", type: "fill", source: "impaired",
      filter: ["match", ["geometry-type"], ["Polygon", "MultiPolygon"], true, false],
      paint: { "fill-color": COLORS.impaired, "fill-opacity": 0.25 },
    });
    addLayer(map, "impaired", {
      id: "impaired-line", type: "line", source: "impaired",
      layout: { "line-cap": "round", "line-join": "round" },
      paint: { "line-color": COLORS.impaired, "line-width": ["interpolate", ["linear"], ["zoom"], 10, 2.5, 15, 5] },
    });
    impairedLayerIds.push("impaired-fill", "impaired-line");
  } else if (has("impaired")) {
    // Table only: keep an (empty) source so the map still "has" the impaired collection.
    src("impaired", EMPTY_FC);
    sourceIds.push("impaired");
  }
  if (data.flowlines) {
    addLayer(map, "impaired", {
      id: "impaired-flowlines", type: "line", source: "flowlines",
      filter: ["==", ["get", "_impaired"], true],
      layout: { "line-cap": "round", "line-join": "round" },
      paint: { "line-color": COLORS.impaired, "line-width": ["interpolate", ["linear"], ["zoom"], 10, 2.5, 15, 5] },
    });
    impairedLayerIds.push("impaired-flowlines");
  }
  if (data.waterbodies) {
    addLayer(map, "impaired", {
      id: "impaired-waterbodies", type: "line", source: "waterbodies",
      filter: ["==", ["get", "_impaired"], true],
      paint: { "line-color": COLORS.impaired, "line-width": 2.5 },
    });
    impairedLayerIds.push("impaired-waterbodies");
  }

  // --- TMDL outline, town boundary ---
  if (data.tmdl) {
    addLayer(map, "tmdl", {
      id: "tmdl-line", type: "line", source: "tmdl",
      paint: { "line-color": COLORS.tmdl, "line-width": 1.5, "line-dasharray": [3, 2] },
    });
  }
  if (data.boundary) {
    src("boundary", data.boundary);
    sourceIds.push("boundary");
    addLayer(map, "boundary", {
      id: "boundary-line", type: "line", source: "boundary",
      paint: { "line-color": COLORS.boundary, "line-width": 2.2, "line-dasharray": [6, 3] },
    });
  }

  // --- Storm sewer (pipes, structures, an outfall's upstream network) ---
  sourceIds.push(...(await addStormLayers(map, has, api.itemsAll, warnings)));

  // --- Highlights: receiving waters, downstream trace, selected site, user polygon ---
  map.addSource("trace", { type: "geojson", data: EMPTY_FC });
  map.addSource("selection", { type: "geojson", data: EMPTY_FC });
  sourceIds.push("trace", "selection");
  if (data.waterbodies) {
    addLayer(map, "trace", {
      id: "receiving-waterbodies", type: "line", source: "waterbodies",
      filter: ["in", ["get", "id"], ["literal", []]],
      paint: { "line-color": COLORS.receiving, "line-width": 4 },
    });
  }
  // Nearby waters (receiving-water candidates off the traced path): thin dashed cyan.
  const isLine = ["match", ["geometry-type"], ["LineString", "MultiLineString"], true, false];
  const isNearby = ["==", ["get", "_role"], "nearby"];
  addLayer(map, "trace", {
    id: "trace-nearby", type: "line", source: "trace",
    filter: ["all", isLine, isNearby],
    layout: { "line-cap": "round", "line-join": "round" },
    paint: { "line-color": COLORS.receiving, "line-width": 3.5, "line-dasharray": [2, 1.5] },
  });
  // The path (entry reach and downstream trace, or a searched water): halo, line, flow arrows.
  addLayer(map, "trace", {
    id: "trace-casing", type: "line", source: "trace",
    filter: ["all", isLine, ["!", isNearby]],
    layout: { "line-cap": "round", "line-join": "round" },
    paint: { "line-color": "#ffd24d", "line-width": 13, "line-opacity": 0.75, "line-blur": 1 },
  });
  addLayer(map, "trace", {
    id: "trace-line", type: "line", source: "trace",
    filter: ["all", isLine, ["!", isNearby]],
    layout: { "line-cap": "round", "line-join": "round" },
    paint: {
      "line-color": ["case",
        ["==", ["get", "impaired"], true], COLORS.impaired,
        ["==", ["get", "_role"], "water"], COLORS.receiving,
        COLORS.trace],
      "line-width": 5,
    },
  });
  // Flow direction along the path (an icon, so no glyphs are needed).
  addLayer(map, "trace", {
    id: "trace-arrows", type: "symbol", source: "trace",
    filter: ["all", isLine, ["!", isNearby]],
    layout: {
      "symbol-placement": "line",
      "symbol-spacing": 90,
      "icon-image": "flow-arrow",
      "icon-rotation-alignment": "map",
      "icon-allow-overlap": true,
      "icon-ignore-placement": true,
    },
  });
  addLayer(map, "trace", {
    id: "trace-polygons", type: "line", source: "trace",
    filter: ["match", ["geometry-type"], ["Polygon", "MultiPolygon"], true, false],
    paint: { "line-color": ["case", ["==", ["get", "impaired"], true], COLORS.impaired, COLORS.receiving], "line-width": 4 },
  });
  addLayer(map, "trace", {
    id: "selection-fill", type: "fill", source: "selection",
    filter: ["match", ["geometry-type"], ["Polygon", "MultiPolygon"], true, false],
    paint: { "fill-color": COLORS.user, "fill-opacity": 0.15 },
  });
  addLayer(map, "trace", {
    id: "selection-line", type: "line", source: "selection",
    paint: { "line-color": COLORS.selected, "line-width": 3 },
  });
  map.addSource("outfall", { type: "geojson", data: EMPTY_FC });
  sourceIds.push("outfall");
  addLayer(map, "trace", {
    id: "outfall-path", type: "line", source: "outfall",
    filter: ["==", ["get", "_role"], "outfall-path"],
    layout: { "line-cap": "round" },
    paint: { "line-color": COLORS.outfall, "line-width": 2.5, "line-dasharray": [2, 1.5] },
  });
  addLayer(map, "trace", {
    id: "outfall-point", type: "circle", source: "outfall",
    filter: ["==", ["get", "_role"], "outfall"],
    paint: { "circle-radius": 7, "circle-color": "#ffffff", "circle-stroke-color": COLORS.outfall, "circle-stroke-width": 3.5 },
  });
  if (data.disturbance) {
    addLayer(map, "trace", {
      id: "selected-disturbance", type: "line", source: "disturbance",
      filter: ["==", ["get", "site_id"], "\u0000none"],
      paint: { "line-color": COLORS.selected, "line-width": 3 },
    });
  }
  if (data.sites && hasGeometry(data.sites)) {
    addLayer(map, "trace", {
      id: "selected-site", type: "line", source: "sites",
      filter: ["==", ["get", "id"], "\u0000none"],
      paint: { "line-color": COLORS.selected, "line-width": 3 },
    });
  }

  // Labels for impaired waters (DOM markers: the blank style has no glyphs).
  const labels = buildImpairedLabels(map, data, impairedById);
  // Every named stream, and street names zoomed in, along their lines.
  const streams = namedStreams(data.flowlines);
  labels.lineLabels = new LineLabels(map, {
    streams: () => (isGroupVisible("flowlines") ? streams : []),
    streetsVisible: () => isGroupVisible("basemap"),
    reserved: () => (labels.shown ? labels.markers.map((m) => m.getElement()) : []),
  });

  return { data, sourceIds, warnings, impairedById, labels, phases };
}

// Each site's risk on its dot, from the /sites list (risk.js).
export { setSiteRisk } from "./risk.js";

/** The applicant's outfall point and the storm sewer from the site to it. */
export function outfallFeatures(report) {
  const features = [];
  const path = report && report.outfall_path;
  if (Array.isArray(path) && path.length === 2) {
    features.push({ type: "Feature", properties: { _role: "outfall-path" }, geometry: { type: "LineString", coordinates: path } });
  }
  const at = report && report.entry && report.entry.outfall;
  if (Array.isArray(at) && at.length === 2 && at.every(Number.isFinite)) {
    features.push({ type: "Feature", properties: { _role: "outfall" }, geometry: { type: "Point", coordinates: at } });
  }
  return { type: "FeatureCollection", features };
}

function buildImpairedLabels(map, data, impairedById) {
  const seen = new Set();
  const markers = [];
  const addFrom = (fc, onlyJoined) => {
    // Named features first, so a listing's label sits on its named water, not a tributary.
    const feats = ((fc && fc.features) || []).filter((f) => !onlyJoined || (f.properties && f.properties._impaired));
    feats.sort((a, b) => (nameOf(b.properties) ? 1 : 0) - (nameOf(a.properties) ? 1 : 0));
    for (const f of feats) {
      const p = f.properties || {};
      const name = nameOf(p) || (impairedById.get(String(p.id))?.name) || "Impaired water";
      // One label per named water; an unnamed reach only when no label has its causes yet
      // (reaches of one listing share their causes).
      const causeKey = `causes|${p._causes || ""}`;
      const key = nameOf(p) ? `name|${name}` : causeKey;
      if (seen.has(key)) continue;
      seen.add(causeKey);
      const at = lineMidpoint(f.geometry);
      if (!at) continue;
      seen.add(key);
      const el = document.createElement("div");
      el.className = "impaired-label";
      el.setAttribute("data-testid", "impaired-label");
      el.title = `${name}${p._causes ? " — " + p._causes : ""}`;
      const strong = document.createElement("strong");
      strong.textContent = name;
      el.appendChild(strong);
      if (p._causes) {
        const span = document.createElement("span");
        span.textContent = ` — ${p._causes}`;
        el.appendChild(span);
      }
      markers.push(new maplibregl.Marker({ element: el, anchor: "left", offset: [6, 0] }).setLngLat(at));
    }
  };
  if (data.impaired && hasGeometry(data.impaired)) addFrom(data.impaired, false);
  addFrom(data.flowlines, true);
  addFrom(data.waterbodies, true);

  const labels = { markers, shown: false };
  const update = () => {
    const want = isGroupVisible("impaired") && map.getZoom() >= 11;
    if (want === labels.shown) return;
    labels.shown = want;
    for (const m of markers) {
      if (want) m.addTo(map);
      else m.remove();
    }
  };
  labels.update = update;
  map.on("zoomend", update);
  update();
  return labels;
}

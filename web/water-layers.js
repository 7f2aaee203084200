// The waters on the map: waterbodies, flowlines drawn by stream order, the 303(d) listings
// (their own geometry, or a table joined to the reaches and waterbodies it names), and the
// labels of impaired waters and named streams.
import * as maplibregl from "/vendor/maplibre-gl/maplibre-gl.mjs";
import { addLayer, isGroupVisible } from "./legend.js";
import { LineLabels } from "./labels.js";
import { COLORS } from "./colors.js";
import { EMPTY_FC, lineMidpoint, hasGeometry } from "./geo.js";

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

export function nameOf(props) {
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

/** The 303(d) listings by PWL id ({name, causes}), joined onto the reaches and waterbodies. */
export function joinListings(data) {
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
  return impairedById;
}

/** Waterbodies, filled. `L`: {map, data, has(id), src(id, fc), sourceIds}. */
export function addWaterbodyLayers(L) {
  const { map, data, src, sourceIds } = L;
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
}

/** Flowlines, by stream order. `L`: {map, data, has(id), src(id, fc), sourceIds}. */
export function addFlowlineLayers(L) {
  const { map, data, src, sourceIds } = L;
  if (data.flowlines) {
    src("flowlines", data.flowlines);
    sourceIds.push("flowlines");
    addLayer(map, "flowlines", {
      id: "flowlines-line", type: "line", source: "flowlines",
      layout: { "line-cap": "round", "line-join": "round" },
      paint: { "line-color": COLORS.water, "line-width": STREAM_WIDTH },
    });
  }
}

/** Impaired waters: their own geometry, or the joined reaches and waterbodies. `L`: {map, data, has(id), src(id, fc), sourceIds}. */
export function addImpairedLayers(L) {
  const { map, data, src, sourceIds } = L;
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
  } else if (L.has("impaired")) {
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
  }
  if (data.waterbodies) {
    addLayer(map, "impaired", {
      id: "impaired-waterbodies", type: "line", source: "waterbodies",
      filter: ["==", ["get", "_impaired"], true],
      paint: { "line-color": COLORS.impaired, "line-width": 2.5 },
    });
  }
}

/** The labels of impaired waters and of every named stream (and street names zoomed in). */
export function addWaterLabels(map, data, impairedById) {
  // Impaired waters as DOM markers: the blank style has no glyphs.
  const labels = buildImpairedLabels(map, data, impairedById);
  // Every named stream, and street names zoomed in, along their lines.
  const streams = namedStreams(data.flowlines);
  labels.lineLabels = new LineLabels(map, {
    streams: () => (isGroupVisible("flowlines") ? streams : []),
    streetsVisible: () => isGroupVisible("basemap"),
    reserved: () => (labels.shown ? labels.markers.map((m) => m.getElement()) : []),
  });

  return labels;
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

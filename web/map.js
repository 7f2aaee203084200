// Map setup (blank style, optional basemap), camera helpers, selection and trace highlight.
import * as maplibregl from "/vendor/maplibre-gl/maplibre-gl.mjs";
import { tryFetchJSON } from "./api.js";
import { COLORS, outfallFeatures } from "./layers.js";
import { showSewerPath } from "./storm.js";
import { EMPTY_FC, validBbox, toFC, indexById } from "./geo.js";

export { maplibregl };
export { COLORS, addOutfallLayers, setSiteRisk } from "./layers.js";
export { GROUPS, buildLegend, setGroupVisible, setDisturbanceDate } from "./legend.js";
export { validBbox, toFC, geojsonBbox, parcelIdOf, contextBbox, siteBboxFromData } from "./geo.js";

/** Blank style: just a background colour, no network needed. */
function blankStyle() {
  return {
    version: 8,
    name: "outfall-blank",
    sources: {},
    layers: [{ id: "background", type: "background", paint: { "background-color": COLORS.background } }],
  };
}

/**
 * Create the map. Resolves once the style has loaded.
 * config: {name, bbox, basemap}. onMapError(msg) receives map errors (no console noise).
 */
export async function createMap(container, config, onMapError) {
  let style = blankStyle();
  let basemapUsed = false;
  if (config && typeof config.basemap === "string" && config.basemap) {
    const bm = await tryFetchJSON(config.basemap, 4000);
    if (bm && bm.version === 8 && Array.isArray(bm.layers)) {
      style = bm;
      basemapUsed = true;
    }
  }
  const opts = {
    container,
    style,
    attributionControl: basemapUsed ? { compact: true } : false,
    dragRotate: false,
    pitchWithRotate: false,
    maxPitch: 0,
    // Needed so screenshots (tests, print) contain the rendered map.
    canvasContextAttributes: { preserveDrawingBuffer: true },
  };
  // Open on the town (its boundary), not on everything the network reaches.
  const bbox = validBbox(config && (config.home || config.bbox));
  if (bbox) {
    opts.bounds = [[bbox[0], bbox[1]], [bbox[2], bbox[3]]];
    opts.fitBoundsOptions = { padding: 20 };
  } else {
    opts.center = [-76.19, 43.18];
    opts.zoom = 11;
  }
  const map = new maplibregl.Map(opts);
  map.on("error", (e) => {
    const msg = (e && e.error && e.error.message) || String(e && e.error || "map error");
    if (onMapError) onMapError(msg, basemapUsed);
  });
  map.addControl(new maplibregl.NavigationControl({ showCompass: false }), "top-left");
  // The scale bar is added by app.js, in the user's units.
  map.touchZoomRotate.disableRotation();
  await new Promise((resolve) => {
    if (map.loaded() && map.isStyleLoaded()) resolve();
    else map.once("load", resolve);
  });
  map._outfallBasemap = basemapUsed;
  return map;
}

export function fitBbox(map, bbox, opts = {}) {
  const b = validBbox(bbox);
  if (!b) return false;
  const small = Math.abs(b[2] - b[0]) < 1e-6 && Math.abs(b[3] - b[1]) < 1e-6;
  if (small) {
    map.easeTo({ center: [b[0], b[1]], zoom: 16, duration: opts.duration ?? 600 });
  } else {
    map.fitBounds([[b[0], b[1]], [b[2], b[3]]], { padding: legendPadding(map, 60), maxZoom: opts.maxZoom ?? 15.5, duration: opts.duration ?? 600 });
  }
  return true;
}

/** Padding that keeps a zoomed result clear of the legend (bottom-left) when it is shown
 * and the map has room beside it; `pad` on the other sides. */
export function legendPadding(map, pad) {
  const box = map.getContainer();
  const legend = box.parentElement && box.parentElement.querySelector(".legend");
  const lw = legend && legend.offsetParent ? legend.offsetWidth : 0;
  const left = box.clientWidth - lw - 80 > 240 ? lw + 30 : pad;
  return { top: pad, bottom: pad, left: Math.max(left, pad), right: pad };
}

/**
 * Show a report's frame (site, outfall, entry reach, path to the first impaired water: the
 * server's `frame_bbox`, the same as the printed inset) clear of the legend.
 */
export function fitFrame(map, bbox) {
  const b = validBbox(bbox);
  if (!b) return false;
  const pad = Math.min(50, Math.max(10, Math.floor(map.getContainer().clientHeight / 10)));
  const calm = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  // The legend sits bottom-left: the frame stays to its right when there is room for it.
  const padding = legendPadding(map, pad);
  padding.bottom += 20;
  if (padding.left === pad) padding.left = 30;
  map.fitBounds([[b[0], b[1]], [b[2], b[3]]], { padding, maxZoom: 16, duration: calm ? 0 : 600 });
  return true;
}

/**
 * Highlight a report on the map.
 * sel: {siteId, traceFC, report, flowlinesFC, waterbodiesFC, geometry}
 */
export function showSelection(map, sel) {
  const report = sel.report || {};
  const features = [];
  // Receiving waters (flowlines part) + downstream trace up to the first impaired water.
  const receivingIds = new Set((report.receiving_waters || []).map((w) => String(w.id)));
  const firstImp = report.first_impaired;
  let cutoff = Infinity;
  if (firstImp && typeof firstImp === "object" && Number.isFinite(Number(firstImp.distance_m))) {
    cutoff = Number(firstImp.distance_m);
  }
  if (sel.traceFC && Array.isArray(sel.traceFC.features) && sel.traceFC.features.length) {
    const fiFeat = sel.traceFC.features.find((f) => f.properties && f.properties.first_impaired === true);
    const fiOrder = fiFeat && Number.isFinite(Number(fiFeat.properties.order)) ? Number(fiFeat.properties.order) : null;
    for (const f of sel.traceFC.features) {
      const o = Number(f.properties && f.properties.order);
      if (fiOrder != null && Number.isFinite(o)) {
        if (o <= fiOrder) features.push(f);
        continue;
      }
      const d = Number(f.properties && f.properties.distance_m);
      if (Number.isFinite(d) && d > cutoff + 1e-6) continue;
      features.push(f);
    }
  } else {
    const byId = indexById(sel.flowlinesFC);
    for (const d of report.downstream || []) {
      const dist = Number(d.distance_m);
      if (Number.isFinite(dist) && dist > cutoff + 1e-6) continue;
      const f = byId.get(String(d.id));
      if (f) features.push({ type: "Feature", geometry: f.geometry, properties: { id: d.id, name: d.name, impaired: !!d.impaired, distance_m: d.distance_m } });
    }
  }
  const traced = new Set(features.map((f) => String(f.properties && f.properties.id)));
  const fl = indexById(sel.flowlinesFC);
  for (const rid of receivingIds) {
    if (traced.has(rid)) continue;
    const f = fl.get(rid);
    if (f) features.unshift({ type: "Feature", geometry: f.geometry, properties: { id: rid, _role: "nearby", impaired: !!(f.properties && f.properties._impaired) } });
  }
  const entryId = report.entry && report.entry.reach_id;
  if (entryId && !traced.has(String(entryId)) && !receivingIds.has(String(entryId))) {
    const f = fl.get(String(entryId));
    if (f) features.unshift({ type: "Feature", geometry: f.geometry, properties: { id: entryId, _role: "path", impaired: !!(f.properties && f.properties._impaired) } });
  }
  setData(map, "trace", { type: "FeatureCollection", features });

  if (map.getLayer("receiving-waterbodies")) {
    map.setFilter("receiving-waterbodies", ["in", ["get", "id"], ["literal", [...receivingIds]]]);
  }
  const siteId = sel.siteId != null ? String(sel.siteId) : "\u0000none";
  if (map.getLayer("selected-disturbance")) map.setFilter("selected-disturbance", ["==", ["to-string", ["get", "site_id"]], siteId]);
  if (map.getLayer("selected-site")) map.setFilter("selected-site", ["==", ["to-string", ["get", "id"]], siteId]);
  setData(map, "selection", sel.geometry ? toFC(sel.geometry) : { type: "FeatureCollection", features: [] });
  setData(map, "outfall", outfallFeatures(report));
  showSewerPath(map, report);
  return features;
}

export function clearSelection(map) {
  setData(map, "trace", EMPTY_FC);
  setData(map, "selection", EMPTY_FC);
  setData(map, "outfall", EMPTY_FC);
  showSewerPath(map, null);
  if (map.getLayer("receiving-waterbodies")) map.setFilter("receiving-waterbodies", ["in", ["get", "id"], ["literal", []]]);
  if (map.getLayer("selected-disturbance")) map.setFilter("selected-disturbance", ["==", ["get", "site_id"], "\u0000none"]);
  if (map.getLayer("selected-site")) map.setFilter("selected-site", ["==", ["get", "id"], "\u0000none"]);
}

function setData(map, id, fc) {
  const s = map.getSource(id);
  if (s && s.setData) s.setData(fc);
}

// Outfall web viewer: wires the map, the side panel and the API together.
import { api, fetchJSON } from "./api.js";
import {
  maplibregl, createMap, addOutfallLayers, buildLegend, fitBbox, showSelection, clearSelection,
  siteBboxFromData, geojsonBbox, validBbox, toFC, parcelIdOf, contextBbox,
} from "./map.js";
import { renderSites, sortSites, renderSearchResults, renderReport, renderError, h } from "./panel.js";
import { PolygonDraw } from "./draw.js";
import { setupOfficer } from "./officer.js";

const $ = (id) => document.getElementById(id);

const state = {
  config: null,
  map: null,
  layers: null,
  sites: [],
  selectedId: null,
  current: null, // {source, id, report}
  token: 0,
};

// Test / debugging hooks.
const outfall = {
  map: null,
  ready: false,
  sitesRendered: false,
  mapErrors: [],
  warnings: [],
  state,
  openSite: (id) => openSite(id),
  openParcel: (id) => openParcel(id),
  parcelIdOf,
};
window.outfall = outfall;
setupOfficer(outfall);

function setStatus(msg) {
  const el = $("status");
  if (el) el.textContent = msg || "";
}

function onMapError(msg, basemapUsed) {
  outfall.mapErrors.push(msg);
  if (basemapUsed) setStatus("Basemap partly unavailable; showing Outfall layers only.");
}

async function init() {
  try {
    state.config = await api.config();
  } catch (err) {
    outfall.warnings.push(`config: ${err.message}`);
    state.config = { name: "", bbox: null, basemap: null };
  }
  const cfg = state.config || {};
  $("town-name").textContent = cfg.name || "";
  if (cfg.name) document.title = `Outfall — ${cfg.name}`;

  // Ask for the collection list while the map starts.
  const colsPromise = api.collections().then((c) => ({ c }), (err) => ({ err }));
  const map = await createMap($("map"), cfg, onMapError);
  state.map = map;
  outfall.map = map;

  let ids;
  try {
    const got = await colsPromise;
    if (got.err) throw got.err;
    const cols = got.c;
    ids = new Set(((cols && cols.collections) || []).map((c) => String(c.id)));
  } catch (err) {
    outfall.warnings.push(`collections: ${err.message}`);
    ids = new Set(["parcels", "disturbance", "sites", "flowlines", "waterbodies", "impaired", "tmdl", "boundary"]);
  }
  const layers = await addOutfallLayers(map, ids, cfg.bbox);
  state.layers = layers;
  outfall.sources = layers.sourceIds;
  outfall.warnings.push(...layers.warnings);
  buildLegend(map, $("legend"), layers.labels, layers.phases);
  setupMapInteraction(map);
  setupDraw(map);
  setupSearch();
  setupSites();
  setupUpload();

  await loadSites();
  outfall.ready = true;
  document.body.dataset.ready = "true";
  setStatus(layers.warnings.length ? `Loaded with problems: ${layers.warnings.join("; ")}` : "");
}

// ---------------------------------------------------------------- sites list
function setupSites() {
  $("sites-sort").addEventListener("change", () => drawSites());
  $("sites-status").addEventListener("change", () => loadSites());
}

async function loadSites() {
  const status = $("sites-status").value;
  const ul = $("sites");
  ul.setAttribute("aria-busy", "true");
  try {
    const body = await api.sites(status || undefined);
    state.sites = (body && Array.isArray(body.sites)) ? body.sites : [];
    drawSites();
  } catch (err) {
    state.sites = [];
    ul.textContent = "";
    ul.appendChild(h("li", { class: "problem", role: "alert" }, `Could not load sites: ${err.detail || err.message}`));
    $("sites-count").textContent = "";
  } finally {
    ul.removeAttribute("aria-busy");
    outfall.sitesRendered = true;
  }
}

/** Update the pressed state in place (re-rendering would lose the list's scroll and focus). */
function markSelected() {
  for (const li of $("sites").querySelectorAll('[data-testid="site-item"]')) {
    const btn = li.querySelector("button");
    if (btn) btn.setAttribute("aria-pressed", String(state.selectedId != null && li.dataset.siteId === String(state.selectedId)));
  }
}

function drawSites() {
  const sorted = sortSites(state.sites, $("sites-sort").value);
  renderSites($("sites"), sorted, (s) => openSite(s.id, s.bbox), state.selectedId);
  const status = $("sites-status").value;
  $("sites-count").textContent = `(${sorted.length}${status ? " " + status : ""})`;
}

// ---------------------------------------------------------------- reports
function reportCard() {
  const card = $("report-card");
  card.hidden = false;
  return $("report");
}

function showLoading(what) {
  const el = reportCard();
  el.setAttribute("aria-busy", "true");
  el.textContent = "";
  el.appendChild(h("p", { class: "loading" }, `Loading ${what}…`));
}

function focusReport() {
  const el = $("report");
  el.removeAttribute("aria-busy");
  // Bring the report into view (panel may be below the map on narrow screens).
  try {
    el.focus({ preventScroll: true });
    const calm = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    $("report-card").scrollIntoView({ block: "start", behavior: calm ? "auto" : "smooth" });
  } catch { /* old browsers */ }
}

function closeReport() {
  state.current = null;
  state.selectedId = null;
  $("report-card").hidden = true;
  $("report").textContent = "";
  clearSelection(state.map);
  markSelected();
}

/** Zoom to one reach of the downstream list. */
function showReach(id) {
  const fc = state.layers.data.flowlines;
  const f = ((fc && fc.features) || []).find((x) => String(x.properties && x.properties.id) === String(id));
  const b = f && geojsonBbox(f);
  if (b) fitBbox(state.map, b, { maxZoom: 15 });
}

function clearCheckStatus() {
  const el = $("check-status");
  el.textContent = "";
  el.className = "check-status";
}

async function openSite(id, bbox) {
  const token = ++state.token;
  clearCheckStatus();
  state.selectedId = id;
  markSelected();
  if (validBbox(bbox)) fitBbox(state.map, bbox);
  showLoading(`site ${id}`);
  let report;
  try {
    report = await api.siteReport(id);
  } catch (err) {
    if (token !== state.token) return;
    clearSelection(state.map);
    renderError(reportCard(), `Could not load the report for site ${id}`, err);
    focusReport();
    return;
  }
  if (token !== state.token) return;
  let trace = null;
  try {
    trace = await api.siteTrace(id);
  } catch (err) {
    outfall.warnings.push(`trace ${id}: ${err.message}`);
  }
  if (token !== state.token) return;
  state.current = { source: "site", id, report };
  const box = validBbox(report.site && report.site.bbox) || validBbox(bbox) || siteBboxFromData(state.layers.data, id);
  renderReport(reportCard(), report, {
    source: "site",
    printUrl: api.siteReportHtmlUrl(id),
    onZoom: box ? () => fitBbox(state.map, box, { maxZoom: 17 }) : null,
    onClose: closeReport,
    onShowReach: showReach,
  });
  const shown = showSelection(state.map, { siteId: id, traceFC: trace, report, flowlinesFC: state.layers.data.flowlines });
  const view = contextBbox(box, shown, report);
  if (view) fitBbox(state.map, view, { maxZoom: 15 });
  focusReport();
  outfall.lastReport = report;
}

async function parcelGeometry(id) {
  try {
    const f = await fetchJSON(`/collections/parcels/items/${encodeURIComponent(id)}`, { timeoutMs: 10000 });
    return f && f.geometry ? f : null;
  } catch {
    return null;
  }
}

async function openParcel(id, bbox, clickedFeature) {
  const token = ++state.token;
  clearCheckStatus();
  state.selectedId = null;
  markSelected();
  if (validBbox(bbox)) fitBbox(state.map, bbox);
  showLoading(`parcel ${id}`);
  let report;
  try {
    report = await api.parcelReport(id);
  } catch (err) {
    if (token !== state.token) return;
    clearSelection(state.map);
    renderError(reportCard(), `Could not screen parcel ${id}`, err);
    focusReport();
    return;
  }
  if (token !== state.token) return;
  const geom = clickedFeature || (await parcelGeometry(id));
  if (token !== state.token) return;
  state.current = { source: "parcel", id, report };
  const box = validBbox(report.site && report.site.bbox) || validBbox(bbox) || (geom && geojsonBbox(geom));
  renderReport(reportCard(), report, {
    source: "parcel",
    onZoom: box ? () => fitBbox(state.map, box, { maxZoom: 17 }) : null,
    onClose: closeReport,
    onShowReach: showReach,
  });
  const shown = showSelection(state.map, { report, flowlinesFC: state.layers.data.flowlines, geometry: geom });
  const view = contextBbox(box, shown, report);
  if (view) fitBbox(state.map, view, { maxZoom: 16 });
  focusReport();
  outfall.lastReport = report;
}

async function runCheck(bodyText, geometry, label) {
  const token = ++state.token;
  state.selectedId = null;
  markSelected();
  const status = $("check-status");
  status.textContent = `Checking ${label}…`;
  status.className = "check-status";
  showLoading(label);
  if (geometry) {
    showSelection(state.map, { report: {}, geometry });
    const b = geojsonBbox(geometry);
    if (b) fitBbox(state.map, b);
  }
  let report;
  try {
    report = await api.check(bodyText);
  } catch (err) {
    if (token !== state.token) return;
    const what = err.status === 413 ? "The file is too large" : err.status === 422 ? "The GeoJSON was rejected" : "The check failed";
    status.textContent = `Not checked: ${what.toLowerCase()} (see below).`;
    status.className = "check-status bad";
    clearSelection(state.map);
    renderError(reportCard(), what, err);
    focusReport();
    return;
  }
  if (token !== state.token) return;
  status.textContent = `Checked ${label}.`;
  state.current = { source: "check", id: null, report };
  const box = validBbox(report.site && report.site.bbox) || (geometry && geojsonBbox(geometry));
  renderReport(reportCard(), report, {
    source: "check",
    onZoom: box ? () => fitBbox(state.map, box, { maxZoom: 17 }) : null,
    onClose: closeReport,
    onShowReach: showReach,
  });
  const shown = showSelection(state.map, { report, flowlinesFC: state.layers.data.flowlines, geometry });
  const view = contextBbox(box, shown, report);
  if (view) fitBbox(state.map, view, { maxZoom: 16 });
  focusReport();
  outfall.lastReport = report;
}

// ---------------------------------------------------------------- map clicks
const CLICK_LAYERS = ["site-points", "disturbance-fill", "disturbance-stabilized", "sites-fill", "parcels-fill"];

function siteName(id) {
  const s = state.sites.find((x) => String(x.id) === String(id));
  if (s && s.name) return s.name;
  const f = ((state.layers.data.sites && state.layers.data.sites.features) || []).find((x) => String(x.properties && x.properties.id) === String(id));
  return (f && f.properties && f.properties.name) || "";
}

function tooltipFor(f) {
  const p = f.properties || {};
  const lid = f.layer && f.layer.id;
  if (lid === "parcels-fill") {
    const keys = Object.keys(p);
    const k = keys.find((x) => /^(address|addr|site_addr|full_addr|location|loc_addr|name)$/i.test(x)) || keys.find((x) => /addr/i.test(x));
    const label = k && p[k] != null ? String(p[k]) : "";
    return `Parcel ${parcelIdOf(p, f.id) ?? ""}${label ? " · " + label : ""}`;
  }
  const sid = p.site_id ?? p.id;
  const name = siteName(sid);
  let t = `Site ${sid}${name ? " · " + name : ""}`;
  if (lid !== "site-points" && lid !== "sites-fill") {
    if (p.phase != null && p.phase !== "") t += ` · phase ${p.phase}`;
    if (p.start) t += ` · ${p.start} → ${p.end || "open"}`;
  }
  if (p.status) t += ` · ${p.status}`;
  return t;
}

function setupMapInteraction(map) {
  const layers = () => CLICK_LAYERS.filter((l) => map.getLayer(l) && map.getLayoutProperty(l, "visibility") !== "none");
  map.on("click", (e) => {
    if (draw && draw.active) return;
    const pad = 3;
    const box = [[e.point.x - pad, e.point.y - pad], [e.point.x + pad, e.point.y + pad]];
    let feats = [];
    try {
      feats = map.queryRenderedFeatures(box, { layers: layers() });
    } catch {
      feats = [];
    }
    const byLayer = (id) => feats.find((f) => f.layer && f.layer.id === id);
    const dist = byLayer("site-points") || byLayer("disturbance-fill") || byLayer("disturbance-stabilized");
    if (dist && dist.properties && dist.properties.site_id != null) {
      openSite(String(dist.properties.site_id));
      return;
    }
    const site = byLayer("sites-fill");
    if (site && site.properties && site.properties.id != null) {
      openSite(String(site.properties.id));
      return;
    }
    const parcel = byLayer("parcels-fill");
    if (parcel) {
      const pid = parcelIdOf(parcel.properties, parcel.id);
      if (pid != null) openParcel(pid, null, null);
    }
  });
  let hovered = null;
  const popup = new maplibregl.Popup({ closeButton: false, closeOnClick: false, maxWidth: "320px", offset: 12 });
  map.getCanvas().addEventListener("mouseleave", () => popup.remove());
  map.on("mousemove", (e) => {
    if (draw && draw.active) {
      popup.remove();
      return;
    }
    let feats = [];
    try {
      feats = map.queryRenderedFeatures(e.point, { layers: layers() });
    } catch { /* style changing */ }
    map.getCanvas().style.cursor = feats.length ? "pointer" : "";
    if (feats.length) popup.setLngLat(e.lngLat).setText(tooltipFor(feats[0])).addTo(map);
    else popup.remove();
    const p = feats.find((f) => f.layer && f.layer.id === "parcels-fill");
    const next = p && p.id != null ? p.id : null;
    if (next !== hovered) {
      try {
        if (hovered != null) map.setFeatureState({ source: "parcels", sourceLayer: "parcels", id: hovered }, { hover: false });
        if (next != null) map.setFeatureState({ source: "parcels", sourceLayer: "parcels", id: next }, { hover: true });
      } catch { /* tile unloaded */ }
      hovered = next;
    }
  });
}

// ---------------------------------------------------------------- drawing
let draw = null;

function setupDraw(map) {
  const hint = $("draw-hint");
  const start = $("draw-start");
  const finish = $("draw-finish");
  const cancel = $("draw-cancel");
  const setButtons = (active) => {
    start.disabled = active;
    finish.disabled = !active;
    cancel.disabled = !active;
  };
  draw = new PolygonDraw(map, {
    onFinish: (feature) => {
      const text = JSON.stringify(feature);
      runCheck(text, feature, "drawn polygon");
    },
    onChange: (what, n) => {
      if (what === "points") {
        hint.hidden = false;
        hint.textContent = n < 3
          ? `Click the map to add corners (${n} so far, at least 3). Esc cancels.`
          : `${n} corners. Double-click, press Enter or use Finish to close the polygon. Esc cancels.`;
      } else if (what === "need3") {
        hint.hidden = false;
        hint.textContent = "A polygon needs at least 3 corners.";
      } else {
        hint.hidden = true;
        setButtons(false);
      }
    },
  });
  outfall.draw = draw;
  start.addEventListener("click", () => {
    setButtons(true);
    draw.start();
    map.getCanvas().focus();
  });
  finish.addEventListener("click", () => draw.finish());
  cancel.addEventListener("click", () => draw.cancel());
}

// ---------------------------------------------------------------- upload
const MAX_BYTES = 2 * 1024 * 1024;

function setupUpload() {
  const input = $("upload");
  input.addEventListener("change", async () => {
    const file = input.files && input.files[0];
    if (!file) return;
    const status = $("check-status");
    let text;
    try {
      text = await file.text();
    } catch (err) {
      renderError(status, "Could not read the file", err);
      return;
    }
    let geometry = null;
    if (file.size <= MAX_BYTES) {
      try {
        const parsed = JSON.parse(text);
        if (parsed && (parsed.type === "Feature" || parsed.type === "FeatureCollection" || parsed.coordinates)) {
          geometry = toFC(parsed);
          if (!geojsonBbox(geometry)) geometry = null;
        }
      } catch {
        /* let the server explain (422) */
      }
    }
    // Send as-is: the server validates and answers with problem+json (413 / 422).
    await runCheck(text, geometry, file.name || "uploaded file");
    input.value = "";
  });
}

// ---------------------------------------------------------------- search
function setupSearch() {
  const form = $("search-form");
  const input = $("search");
  const ul = $("search-results");
  let ctrl = null;
  let timer = null;
  const run = async () => {
    const q = input.value.trim();
    if (ctrl) ctrl.abort();
    if (q.length < 2) {
      ul.hidden = true;
      ul.textContent = "";
      return;
    }
    ctrl = new AbortController();
    const mine = ctrl;
    try {
      const body = await api.search(q, mine.signal);
      if (mine !== ctrl) return;
      const results = (body && Array.isArray(body.results)) ? body.results : [];
      ul.hidden = false;
      renderSearchResults(ul, results, pickResult);
    } catch (err) {
      if (mine !== ctrl || err.status === 0 && err.title === "Cancelled") return;
      ul.hidden = false;
      ul.textContent = "";
      ul.appendChild(h("li", { class: "problem", role: "alert" }, `Search failed: ${err.detail || err.message}`));
    }
  };
  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(run, 250);
  });
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    clearTimeout(timer);
    run();
  });
}

function pickResult(r) {
  const kind = String(r.kind || "").toLowerCase();
  if (kind === "site") openSite(String(r.id), r.bbox);
  else if (kind === "parcel") openParcel(String(r.id), r.bbox);
  else {
    const zoomed = fitBbox(state.map, r.bbox);
    highlightWater(String(r.id), !zoomed);
  }
}

function waterName(p) {
  const n = p && (p.display_name || p.name);
  return typeof n === "string" && n.trim() ? n.trim() : "";
}

/** Highlight a water: the picked feature and every feature of the same name. */
function highlightWater(id, zoom) {
  const d = state.layers.data;
  const all = [d.flowlines, d.waterbodies].flatMap((fc) => (fc && fc.features) || []);
  const picked = all.find((f) => String(f.properties && f.properties.id) === id);
  const name = picked ? waterName(picked.properties) : "";
  const feats = all
    .filter((f) => f === picked || (name && waterName(f.properties) === name))
    .map((f) => ({ ...f, properties: { ...f.properties, _role: "water", impaired: f.properties._impaired === true } }));
  const s = state.map.getSource("trace");
  if (s) s.setData({ type: "FeatureCollection", features: feats });
  if (zoom && feats.length) {
    const b = geojsonBbox({ type: "FeatureCollection", features: feats });
    if (b) fitBbox(state.map, b);
  }
}

// Printing the panel: expand the report's collapsed sections, then restore them.
let printOpened = [];
window.addEventListener("beforeprint", () => {
  printOpened = [...document.querySelectorAll("#report details:not([open])")];
  printOpened.forEach((d) => (d.open = true));
});
window.addEventListener("afterprint", () => {
  printOpened.forEach((d) => (d.open = false));
  printOpened = [];
});

init().catch((err) => {
  // Last-resort guard: show the problem instead of an uncaught rejection.
  outfall.initError = String(err && err.message || err);
  setStatus(`The viewer could not start: ${outfall.initError}`);
});

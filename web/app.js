// Outfall web viewer: wires the map, the side panel and the API together.
import { api, fetchJSON } from "./api.js";
import {
  maplibregl, createMap, addOutfallLayers, buildLegend, fitBbox, fitFrame, setSiteRisk, showSelection, clearSelection,
  siteBboxFromData, geojsonBbox, validBbox, parcelIdOf, contextBbox,
} from "./map.js";
import { renderSites, sortSites, renderReport, renderError, h, badgeKey, mapLegendEl } from "./panel.js";
import { setRules } from "./thresholds.js";
import { linkFor, readLink, encodeCheck, decodeCheck } from "./permalink.js";
import { mountInspections } from "./inspections.js";
import { setupOfficer } from "./officer.js";
import { codeWords } from "./words.js";
import { setupOutfallPick } from "./outfall-pick.js";
import { setupSearch, highlightWater } from "./search.js";
import { waterCard } from "./water-card.js";
import { setupPlanFacts } from "./plan-facts.js";
import { advice, refusalTitle } from "./upload-check.js";
import { setupMapInteraction } from "./map-clicks.js";
import { setupDraw } from "./drawing.js";
import { setupUpload, showCrsForm, hideCrsForm } from "./upload.js";
import { getUnits, setUnits } from "./dom.js";
import { linkText, serverGeometry, geometryOf } from "./plan-io.js";
import { setupPrinting } from "./printing.js";
import { setDatasetCrs } from "./export.js";

const $ = (id) => document.getElementById(id);

const state = {
  config: null,
  map: null,
  layers: null,
  sites: [],
  allSites: [], // every status, for the map's risk symbols and hovers
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
  closeReport: () => closeReport(),
  openParcel: (id) => openParcel(id),
  // After an officer's write: the list, its counts, the map's symbols and the open report.
  refresh: async (id) => {
    await Promise.all([loadSites(), loadRisk()]);
    const cur = state.current;
    if (id != null && cur && cur.source === "site" && String(cur.id) === String(id)) await openSite(id);
  },
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
    setDatasetCrs(state.config && state.config.export_crs);
  } catch (err) {
    outfall.warnings.push(`config: ${err.message}`);
    state.config = { name: "", bbox: null, basemap: null };
  }
  const cfg = state.config || {};
  $("town-name").textContent = cfg.name || "";
  if (cfg.name) document.title = `Outfall — ${cfg.name}`;

  // Ask for the collection list and the rulebook (the thresholds the legend, the list and the
  // hovers show) while the map starts.
  const colsPromise = api.collections().then((c) => ({ c }), (err) => ({ err }));
  const rulesPromise = api.rules().then(setRules, (err) => outfall.warnings.push(`rules: ${err.message}`));
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
  await rulesPromise;
  state.layers = layers;
  outfall.sources = layers.sourceIds;
  outfall.warnings.push(...layers.warnings);
  buildLegend(map, $("legend"), layers.labels, layers.phases);
  setupUnits(map);
  setupMapInteraction(map, { state, outfall, drawing: () => draw, openSite, openParcel, openWater, setStatus });
  draw = setupDraw(map, { outfall, planFacts: () => planFacts, runCheck });
  setupSearch({ state, openSite, openParcel, showCard });
  setupSites();
  setupUpload({ runCheck, setLink, reportCard, focusReport });
  planFacts = setupPlanFacts({ outfall, linkText, runCheck: (upload) => runCheck(upload, null), startDraw: () => $("draw-start").click() });
  setupOutfallPick({
    map, outfall, linkText,
    current: () => (state.current && state.current.source === "check" ? state.current : null),
    runCheck: (upload) => runCheck(upload, null),
    setHint: (text) => { $("draw-hint").hidden = !text; $("draw-hint").textContent = text; },
  });
  mountInspections($("panel"), { openSite: (id) => openSite(id) });

  await Promise.all([loadSites(), loadRisk()]);
  setupPermalinks();
  await openFromLink();
  outfall.ready = true;
  document.body.dataset.ready = "true";
  setStatus(layers.warnings.length ? `Loaded with problems: ${layers.warnings.join("; ")}` : "");
}

// ---------------------------------------------------------------- risk on the map
async function loadRisk() {
  try {
    const body = await api.sites();
    state.allSites = (body && Array.isArray(body.sites)) ? body.sites : [];
    setSiteRisk(state.map, state.layers.data, state.allSites);
  } catch (err) {
    outfall.warnings.push(`sites (risk): ${err.message}`);
  }
}

// ---------------------------------------------------------------- permalinks
// The URL names the open report (#site=S06, #parcel=..., #check=<the upload, compressed>), so
// a link or a reload reopens it; Back closes it or returns to the one before.
let applyingLink = false;

/** Point the address bar at what is on screen; `replace` rewrites the current entry (the
 * empty link a check in progress left) instead of adding one to the history. */
function setLink(hash, replace = false) {
  if (applyingLink) return;
  const want = hash ? `#${hash}` : "";
  if ((location.hash || "") === want) return;
  const url = want || location.pathname + location.search;
  if (replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
}

async function openFromLink() {
  const link = readLink(location.hash);
  applyingLink = true;
  try {
    if (!link) {
      if (state.current) closeReport();
    } else if (link.kind === "site") await openSite(link.id);
    else if (link.kind === "parcel") await openParcel(link.id);
    else if (link.kind === "check") {
      const text = await decodeCheck(link.data);
      if (text != null) {
        const upload = { body: text, contentType: "application/geo+json", name: "linked check" };
        await runCheck(upload, geometryOf(text), link.data);
      }
    }
  } catch (err) {
    outfall.warnings.push(`link: ${err.message}`);
  } finally {
    applyingLink = false;
  }
}

function setupPermalinks() {
  window.addEventListener("popstate", () => openFromLink());
  document.addEventListener("keydown", (e) => {
    // Esc closes the report, unless it is ending a drawing or closing a popup menu.
    if (e.key !== "Escape" || (draw && draw.active) || !state.current && $("report-card").hidden) return;
    if (e.target && e.target.closest && e.target.closest("select, input[type=search]")) return;
    closeReport();
  });
}

// ---------------------------------------------------------------- sites list
function setupSites() {
  $("sites-key").textContent = badgeKey();
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
  const status = $("sites-status").value;
  renderSites($("sites"), sorted, (s) => openSite(s.id, s.bbox), state.selectedId, { showStatus: !status });
  $("sites-count").textContent = `(${sorted.length}${status ? " " + codeWords(status) : ""})`;
}

// ---------------------------------------------------------------- reports
let planFacts = null;
let draw = null; // the PolygonDraw
let shown = null; // the report on screen and how it was drawn, to draw again in other units

function showReport(report, ctx) {
  ctx.town = (state.config && state.config.name) || "";
  shown = { report, ctx };
  renderReport(reportCard(), report, ctx);
}

/** Units change: the scale bar and the report on screen follow. */
function setupUnits(map) {
  const select = $("units");
  select.value = getUnits();
  const scale = new maplibregl.ScaleControl({ unit: getUnits() === "metric" ? "metric" : "imperial" });
  map.addControl(scale, "bottom-right");
  select.addEventListener("change", () => {
    setUnits(select.value);
    scale.setUnit(select.value === "metric" ? "metric" : "imperial");
    if (shown && state.current && state.current.report === shown.report) showReport(shown.report, shown.ctx);
  });
}

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

/** A card that is not a report (a water's) in the report's place; the link names no report. */
function showCard(el) {
  setLink("");
  state.current = null;
  const r = reportCard();
  r.replaceChildren(el);
  focusReport();
}

/** A water's card, from a click on the map: the water and its namesakes highlighted. */
function openWater(id) {
  const picked = highlightWater(state, id, false);
  if (picked) waterCard(picked, { sites: state.allSites, openSite }).then(showCard);
}

function closeReport() {
  setLink("");
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
  planFacts.hide();
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
  showReport(report, {
    source: "site",
    printUrl: api.siteReportHtmlUrl(id),
    recordUrl: `/record.html?site=${encodeURIComponent(id)}`,
    onZoom: box ? () => fitBbox(state.map, box, { maxZoom: 17 }) : null,
    onClose: closeReport,
    onShowReach: showReach,
  });
  const shown = showSelection(state.map, { siteId: id, traceFC: trace, report, flowlinesFC: state.layers.data.flowlines });
  if (!fitFrame(state.map, report.frame_bbox)) {
    const view = contextBbox(box, shown, report);
    if (view) fitBbox(state.map, view, { maxZoom: 15 });
  }
  setLink(linkFor("site", id));
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
  planFacts.hide();
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
  showReport(report, {
    source: "parcel",
    printUrl: api.parcelReportHtmlUrl(id),
    onZoom: box ? () => fitBbox(state.map, box, { maxZoom: 17 }) : null,
    onClose: closeReport,
    onShowReach: showReach,
  });
  const shown = showSelection(state.map, { report, flowlinesFC: state.layers.data.flowlines, geometry: geom });
  if (!fitFrame(state.map, report.frame_bbox)) {
    const view = contextBbox(box, shown, report);
    if (view) fitBbox(state.map, view, { maxZoom: 16 });
  }
  setLink(linkFor("parcel", id));
  focusReport();
  outfall.lastReport = report;
}

/**
 * Check a drawn polygon or an uploaded file. `upload` is {body, contentType, name, crs};
 * `drawn` is the drawn or linked Feature (already lon/lat) or null. An upload's own
 * coordinates are never put on the map: they may be State Plane feet. The map zooms to what
 * the server returns (the report's frame, else its WGS84 bbox) and shows the server's WGS84
 * geometry. `linkData` is the permalink data when the check was opened from a link.
 */
async function runCheck(upload, drawn, linkData) {
  const token = ++state.token;
  const label = upload.name;
  state.selectedId = null;
  markSelected();
  hideCrsForm();
  // The old report leaves the screen now, so its link leaves the address bar: a failed or
  // unlinkable check must not leave a link to the plan before it.
  setLink("");
  const status = $("check-status");
  status.textContent = `Checking ${label}…`;
  status.className = "check-status";
  showLoading(label);
  if (drawn) {
    showSelection(state.map, { report: {}, geometry: drawn });
    const b = geojsonBbox(drawn);
    if (b) fitBbox(state.map, b);
  }
  let report;
  try {
    report = await api.check(upload.body, upload);
  } catch (err) {
    if (token !== state.token) return;
    const what = refusalTitle(err, upload);
    status.textContent = `Not checked: ${what.toLowerCase()} (see below).`;
    status.className = "check-status bad";
    clearSelection(state.map);
    renderError(reportCard(), what, err, advice(err, upload));
    // A wrong choice keeps the picker open, with the system chosen, for the next try.
    if (err.crsRequired || upload.crs) showCrsForm(upload);
    focusReport();
    return;
  }
  if (token !== state.token) return;
  status.textContent = `Checked ${label}.`;
  // Kept off the report's JSON keys: export.js posts the same upload to the export routes.
  Object.defineProperty(report, "upload", { value: upload, enumerable: false });
  state.current = { source: "check", id: null, report };
  const box = validBbox(report.site && report.site.bbox);
  showReport(report, {
    source: "check",
    onZoom: box ? () => fitBbox(state.map, box, { maxZoom: 17 }) : null,
    onClose: closeReport,
    onShowReach: showReach,
  });
  // In view as soon as it is on screen: the geometry and the link below wait on the network,
  // and a report that jumps into view seconds later moves what the user is reading.
  focusReport();
  const geometry = drawn || (await serverGeometry(upload, outfall.warnings));
  if (token !== state.token) return;
  const shown = showSelection(state.map, { report, flowlinesFC: state.layers.data.flowlines, geometry });
  if (!fitFrame(state.map, report.frame_bbox)) {
    const view = contextBbox(box, shown, report);
    if (view) fitBbox(state.map, view, { maxZoom: 16 });
  }
  // A link carries GeoJSON text only: a zip, KML or GeoPackage, or a chosen CRS, cannot be
  // replayed from it.
  const text = linkText(upload);
  const data = linkData || (text != null ? await encodeCheck(text) : null);
  if (token !== state.token) return;
  if (data) setLink(linkFor("check", data), true);
  else setStatus(text == null
    ? "This check came from a file; save the file to share it."
    : "This check is too large to put in a link; save the file to share it.");
  outfall.lastReport = report;
  planFacts.checked(report);
}

setupPrinting(state, mapLegendEl);

init().catch((err) => {
  // Last-resort guard: show the problem instead of an uncaught rejection.
  outfall.initError = String(err && err.message || err);
  setStatus(`The viewer could not start: ${outfall.initError}`);
});

// Search: parcels, sites and waters by what a person types; picking a water highlights every
// feature of its name on the map.
import { api } from "./api.js";
import { fitBbox, geojsonBbox } from "./map.js";
import { renderSearchResults, h } from "./panel.js";
import { waterCard } from "./water-card.js";

const $ = (id) => document.getElementById(id);

/** ctx: {state, openSite(id, bbox), openParcel(id, bbox), showCard(element)}. */
export function setupSearch(ctx) {

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
      renderSearchResults(ul, results, (r) => pickResult(ctx, r));
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

function pickResult(ctx, r) {
  const kind = String(r.kind || "").toLowerCase();
  if (kind === "site") ctx.openSite(String(r.id), r.bbox);
  else if (kind === "parcel") ctx.openParcel(String(r.id), r.bbox);
  else {
    const zoomed = fitBbox(ctx.state.map, r.bbox);
    const picked = highlightWater(ctx.state, String(r.id), !zoomed);
    if (picked) waterCard(picked, { sites: ctx.state.allSites, openSite: ctx.openSite }).then(ctx.showCard);
  }
}

function waterName(p) {
  const n = p && (p.display_name || p.name);
  return typeof n === "string" && n.trim() ? n.trim() : "";
}

/** Highlight a water: the picked feature and every feature of the same name; gives the picked one. */
export function highlightWater(state, id, zoom) {
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
  return picked;
}

// The map's clicks and hovers: a site's dot or polygon answers before a storm structure inside
// it, a structure before a water, a water before a parcel; a hover names what lies under the
// pointer. A click while drawing or placing the outfall belongs to that.
import { maplibregl, parcelIdOf } from "./map.js";
import { showUpstream } from "./storm.js";
import { tooltipFor } from "./tooltip.js";

const CLICK_LAYERS = ["storm-structures-circle", "site-points", "disturbance-fill", "disturbance-stabilized", "sites-fill", "flowlines-line", "waterbodies-fill", "parcels-fill"];
const HOVER_ORDER = ["site-points", "disturbance-fill", "disturbance-stabilized", "sites-fill", "storm-structures-circle", "flowlines-line", "waterbodies-fill", "parcels-fill"];

/**
 * Clicks and hovers on the map. `ctx`: {state, outfall, drawing() (the polygon being drawn,
 * or null), openSite(id), openParcel(id, bbox, feature), openWater(id), setStatus(text)}.
 */
export function setupMapInteraction(map, ctx) {
  const { state, outfall } = ctx;
  const draw = () => ctx.drawing();
  const layers = () => CLICK_LAYERS.filter((l) => map.getLayer(l) && map.getLayoutProperty(l, "visibility") !== "none");
  map.on("click", (e) => {
    // A click while drawing or placing the outfall belongs to that, not to what lies under it.
    if ((draw() && draw().active) || outfall.picking) return;
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
      ctx.openSite(String(dist.properties.site_id));
      return;
    }
    const site = byLayer("sites-fill");
    if (site && site.properties && site.properties.id != null) {
      ctx.openSite(String(site.properties.id));
      return;
    }
    // Below a site's dot and polygons, above its parcels: an outfall shows what drains to it.
    const structure = byLayer("storm-structures-circle");
    if (structure && structure.properties && structure.properties.kind === "outfall") {
      const id = String(structure.properties.id);
      showUpstream(map, id).then(ctx.setStatus, (err) => ctx.setStatus(`Outfall ${id}: ${err.message}`));
      return;
    }
    // A water lies over the parcels it crosses: a click on it opens its card.
    const water = byLayer("flowlines-line") || byLayer("waterbodies-fill");
    if (water && water.properties && water.properties.id != null) {
      ctx.openWater(String(water.properties.id));
      return;
    }
    const parcel = byLayer("parcels-fill");
    if (parcel) {
      const pid = parcelIdOf(parcel.properties, parcel.id);
      if (pid != null) ctx.openParcel(pid, null, null);
    }
  });
  let hovered = null;
  const popup = new maplibregl.Popup({ closeButton: false, closeOnClick: false, maxWidth: "320px", offset: 12 });
  map.getCanvas().addEventListener("mouseleave", () => popup.remove());
  map.on("mousemove", (e) => {
    if (draw() && draw().active) {
      popup.remove();
      return;
    }
    let feats = [];
    try {
      feats = map.queryRenderedFeatures(e.point, { layers: layers() });
    } catch { /* style changing */ }
    map.getCanvas().style.cursor = feats.length ? "pointer" : "";
    // A site names itself before a storm structure inside it, and a structure before a parcel.
    const rank = (f) => HOVER_ORDER.indexOf(f.layer && f.layer.id);
    const top = feats.reduce((a, f) => (a && rank(a) <= rank(f) ? a : f), null);
    if (feats.length) popup.setLngLat(e.lngLat).setText(tooltipFor(state, top)).addTo(map);
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

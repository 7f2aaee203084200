// "Place the outfall point" in Check a plan: the applicant clicks where the site's runoff
// leaves it, and the plan is checked again with that point as `site.outfall`, so the
// receiving water comes from the applicant's own outfall instead of the nearest water.
import { fetchJSON, checkQuery, uploadHeaders } from "./api.js";

/** The plan as a FeatureCollection in lon/lat: the GeoJSON text itself when it is one (not
 * re-projected), else the server's reading of the file (its GeoJSON export, phases kept). */
export async function planCollection(upload, linkText) {
  const text = linkText(upload);
  if (text != null) {
    try {
      const g = JSON.parse(text);
      if (g && g.type === "FeatureCollection") return g;
      if (g && g.type === "Feature") return { type: "FeatureCollection", features: [g] };
      if (g && g.type) return { type: "FeatureCollection", features: [{ type: "Feature", properties: {}, geometry: g }] };
    } catch { /* not GeoJSON after all: ask the server */ }
  }
  return fetchJSON(`/check/export.geojson${checkQuery(upload)}`, { method: "POST", body: upload.body, headers: uploadHeaders(upload), timeoutMs: 60000 });
}

/** The plan with `at` as its outfall; a Point feature that named the old one is dropped, so
 * the server is never given two outfalls. */
export function withOutfall(fc, at) {
  const features = (fc.features || []).filter((f) => !(f.geometry && f.geometry.type === "Point"));
  const site = { ...(fc.site || {}), outfall: `${at[0].toFixed(6)},${at[1].toFixed(6)}` };
  return { type: "FeatureCollection", features, site };
}

/**
 * Wires the button. `ctx`: {map, outfall (the viewer's hooks), current() -> the shown check
 * or null, runCheck(upload), linkText(upload), setHint(text)}.
 */
export function setupOutfallPick(ctx) {
  const button = document.getElementById("outfall-place");
  if (!button) return;
  const cancelPick = () => {
    ctx.outfall.picking = false;
    ctx.map.getCanvas().style.cursor = "";
    button.setAttribute("aria-pressed", "false");
    ctx.setHint("");
  };
  ctx.map.on("click", async (e) => {
    if (!ctx.outfall.picking) return;
    cancelPick();
    const cur = ctx.current();
    if (!cur || !cur.report.upload) return;
    const at = [e.lngLat.lng, e.lngLat.lat];
    try {
      const fc = withOutfall(await planCollection(cur.report.upload, ctx.linkText), at);
      const name = String(cur.report.upload.name || "plan").replace(/ \(outfall placed\)$/, "");
      await ctx.runCheck({ body: JSON.stringify(fc), contentType: "application/geo+json", name: `${name} (outfall placed)` });
    } catch (err) {
      ctx.setHint(`Could not place the outfall: ${err.detail || err.message}`);
    }
  });
  button.addEventListener("click", () => {
    if (ctx.outfall.picking) return cancelPick();
    if (!ctx.current()) {
      ctx.setHint("Draw or upload a plan first; then place its outfall point.");
      return;
    }
    ctx.outfall.picking = true;
    button.setAttribute("aria-pressed", "true");
    ctx.map.getCanvas().style.cursor = "crosshair";
    // On a tablet the map sits above the panel: bring it into view for the click.
    try { ctx.map.getContainer().scrollIntoView({ block: "nearest" }); } catch { /* old browsers */ }
    ctx.setHint("Click the map where the site's runoff leaves it: the outfall point. Click the button again to stop.");
  });
}

// An upload as the viewer reads it: its GeoJSON text for a permalink, its lon/lat geometry
// for the map before the answer, and the server's reading of it (its GeoJSON export).
import { fetchJSON, checkQuery, uploadHeaders } from "./api.js";
import { toFC, geojsonBbox } from "./map.js";

/** The GeoJSON text of an upload for its permalink, or null when it is not GeoJSON. */
export function linkText(upload) {
  if (upload.crs) return null;
  if (typeof upload.body === "string") return upload.body;
  if (!/json/.test(upload.contentType || "")) return null;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(upload.body);
  } catch {
    return null;
  }
}

/** The upload's disturbance in WGS84 as the server read it (its GeoJSON export), or null. */
export async function serverGeometry(upload, warnings) {
  try {
    const fc = await fetchJSON(`/check/export.geojson${checkQuery(upload)}`, {
      method: "POST",
      body: upload.body,
      headers: uploadHeaders(upload),
      timeoutMs: 60000,
    });
    return fc && Array.isArray(fc.features) && fc.features.length ? fc : null;
  } catch (err) {
    warnings.push(`upload geometry: ${err.message}`);
    return null;
  }
}

/** The lon/lat geometry of an upload, for the map before the answer; null when not GeoJSON. */
export function geometryOf(text) {
  try {
    const parsed = JSON.parse(text);
    if (parsed && (parsed.type === "Feature" || parsed.type === "FeatureCollection" || parsed.coordinates)) {
      const g = toFC(parsed);
      const b = geojsonBbox(g);
      // Projected coordinates (a State Plane CAD export) are not drawn before the answer.
      const lonLat = b && b[0] >= -180 && b[2] <= 180 && b[1] >= -90 && b[3] <= 90;
      return lonLat ? g : null;
    }
  } catch {
    /* the server explains */
  }
  return null;
}

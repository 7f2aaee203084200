// Pure GeoJSON helpers: bboxes, ids, midpoints. No MapLibre.

export const EMPTY_FC = { type: "FeatureCollection", features: [] };

export function validBbox(b) {
  if (!Array.isArray(b) || b.length < 4) return null;
  const n = b.slice(0, 4).map(Number);
  if (n.some((v) => !Number.isFinite(v))) return null;
  if (n[0] > n[2] || n[1] > n[3]) return null;
  return n;
}

export function toFC(g) {
  if (!g) return EMPTY_FC;
  if (g.type === "FeatureCollection") return g;
  if (g.type === "Feature") return { type: "FeatureCollection", features: [g] };
  return { type: "FeatureCollection", features: [{ type: "Feature", properties: {}, geometry: g }] };
}

/** Bounding box of any GeoJSON. */
export function geojsonBbox(g) {
  let b = [Infinity, Infinity, -Infinity, -Infinity];
  const visit = (c) => {
    if (typeof c[0] === "number") {
      b = [Math.min(b[0], c[0]), Math.min(b[1], c[1]), Math.max(b[2], c[0]), Math.max(b[3], c[1])];
    } else for (const x of c) visit(x);
  };
  const walk = (o) => {
    if (!o) return;
    if (o.type === "FeatureCollection") o.features.forEach((f) => walk(f));
    else if (o.type === "Feature") walk(o.geometry);
    else if (o.type === "GeometryCollection") o.geometries.forEach(walk);
    else if (o.coordinates) visit(o.coordinates);
  };
  walk(g);
  return Number.isFinite(b[0]) ? b : null;
}

export function lineMidpoint(geom) {
  if (!geom) return null;
  let coords = null;
  if (geom.type === "LineString") coords = geom.coordinates;
  else if (geom.type === "MultiLineString") coords = geom.coordinates.reduce((a, b) => (b.length > a.length ? b : a), []);
  else if (geom.type === "Polygon") return ringCenter(geom.coordinates[0]);
  else if (geom.type === "MultiPolygon") return ringCenter((geom.coordinates[0] || [])[0]);
  else if (geom.type === "Point") return geom.coordinates;
  if (!coords || !coords.length) return null;
  return coords[Math.floor(coords.length / 2)];
}

function ringCenter(ring) {
  if (!ring || !ring.length) return null;
  let minx = Infinity, miny = Infinity, maxx = -Infinity, maxy = -Infinity;
  for (const [x, y] of ring) {
    minx = Math.min(minx, x); maxx = Math.max(maxx, x);
    miny = Math.min(miny, y); maxy = Math.max(maxy, y);
  }
  return [(minx + maxx) / 2, (miny + maxy) / 2];
}

export function hasGeometry(fc) {
  return !!(fc && Array.isArray(fc.features) && fc.features.some((f) => f && geometryNonEmpty(f.geometry)));
}

function geometryNonEmpty(g) {
  if (!g) return false;
  if (g.type === "GeometryCollection") return (g.geometries || []).some(geometryNonEmpty);
  return Array.isArray(g.coordinates) && g.coordinates.length > 0;
}

/** Properties get `id` from the feature id when the server left it out (MapLibre reads properties). */
export function normalizeIds(fc) {
  for (const f of fc.features) {
    if (!f) continue;
    const p = f.properties || (f.properties = {});
    if (p.id == null && f.id != null) p.id = f.id;
  }
  return fc;
}

/**
 * The id of a parcel from vector-tile properties: `id` when present, else the most
 * id-like attribute (PARCEL_ID, PIN, SBL, ...). Tile feature ids may be row numbers.
 */
// The server puts every feature's id in its properties (vector tiles carry no string ids).
export function parcelIdOf(props, featureId) {
  if (props && props.id != null && props.id !== "") return String(props.id);
  return featureId != null ? String(featureId) : null;
}

export function indexById(fc) {
  const m = new Map();
  for (const f of (fc && fc.features) || []) {
    const id = f.properties && f.properties.id != null ? f.properties.id : f.id;
    if (id != null) m.set(String(id), f);
  }
  return m;
}

/**
 * A view for a report: the subject's bbox grown by the distance to its receiving water
 * (250 m to 1.2 km), so the subject stays centred and its receiving water is in view.
 * Without a subject bbox: the first stretch of the traced path.
 */
export function contextBbox(subjectBbox, traceFeatures, report, nearM = 1609.344) {
  const b = validBbox(subjectBbox);
  if (b) {
    const waters = (report && Array.isArray(report.receiving_waters)) ? report.receiving_waters : [];
    const d0 = waters.length ? Number(waters[0].distance_m) : NaN;
    const d = Math.min(1200, Math.max(250, (Number.isFinite(d0) ? d0 : 500) + 150));
    const midLat = ((b[1] + b[3]) / 2) * Math.PI / 180;
    const dLat = d / 111320;
    const dLon = d / (111320 * Math.max(0.2, Math.cos(midLat)));
    return [b[0] - dLon, b[1] - dLat, b[2] + dLon, b[3] + dLat];
  }
  const near = (traceFeatures || []).filter((f) => {
    const d = Number(f.properties && f.properties.distance_m);
    const role = f.properties && f.properties._role;
    if (role === "nearby") return false;
    return role === "path" || !Number.isFinite(d) || d <= nearM;
  });
  return near.length ? geojsonBbox({ type: "FeatureCollection", features: near }) : null;
}

/** Compute bbox of a site from the disturbance / sites data (fallback when a list lacks bbox). */
export function siteBboxFromData(data, siteId) {
  const feats = [];
  for (const f of (data.disturbance && data.disturbance.features) || []) {
    if (String(f.properties && f.properties.site_id) === String(siteId)) feats.push(f);
  }
  for (const f of (data.sites && data.sites.features) || []) {
    if (String(f.properties && f.properties.id) === String(siteId)) feats.push(f);
  }
  return feats.length ? geojsonBbox({ type: "FeatureCollection", features: feats }) : null;
}

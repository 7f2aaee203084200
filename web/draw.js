// Polygon drawing on the map: click adds a vertex, double-click / Enter / Finish closes,
// Esc / Cancel aborts. Calls onFinish(Feature<Polygon>) with a closed ring, and
// onChange("points", n, acres) while drawing with the polygon's approximate area.

const EARTH_RADIUS_M = 6378137;
const SQ_M_PER_ACRE = 4046.8564224;

/**
 * Area of a lon/lat ring in acres on a sphere (the spherical-excess sum also used by
 * MapLibre's and Mapbox's area helpers). Within a fraction of a percent of the server's
 * ellipsoidal figure at Clay's latitude, so the viewer labels it approximate.
 */
export function ringAcres(ring) {
  if (!ring || ring.length < 3) return 0;
  const rad = Math.PI / 180;
  let sum = 0;
  for (let i = 0; i < ring.length; i++) {
    const [lon1, lat1] = ring[i];
    const [lon2, lat2] = ring[(i + 1) % ring.length];
    sum += (lon2 - lon1) * rad * (2 + Math.sin(lat1 * rad) + Math.sin(lat2 * rad));
  }
  return Math.abs((sum * EARTH_RADIUS_M * EARTH_RADIUS_M) / 2) / SQ_M_PER_ACRE;
}

const SRC = "draw";

/** Where segment ab meets segment cd (strictly inside both), or null. Plane geometry on
 * lon/lat is enough to see a crossing at a site's scale. */
function meet(a, b, c, d) {
  const r = [b[0] - a[0], b[1] - a[1]];
  const q = [d[0] - c[0], d[1] - c[1]];
  const den = r[0] * q[1] - r[1] * q[0];
  if (den === 0) return null;
  const t = ((c[0] - a[0]) * q[1] - (c[1] - a[1]) * q[0]) / den;
  const u = ((c[0] - a[0]) * r[1] - (c[1] - a[1]) * r[0]) / den;
  const eps = 1e-9;
  return t > eps && t < 1 - eps && u > eps && u < 1 - eps ? [a[0] + t * r[0], a[1] + t * r[1]] : null;
}

/** The points where a closed outline crosses itself (none for a simple polygon). */
export function crossings(pts) {
  if (pts.length < 4) return [];
  const ring = [...pts, pts[0]];
  const out = [];
  for (let i = 0; i < ring.length - 1; i++) {
    for (let j = i + 2; j < ring.length - 1; j++) {
      if (i === 0 && j === ring.length - 2) continue; // the closing edge meets the first
      const x = meet(ring[i], ring[i + 1], ring[j], ring[j + 1]);
      if (x) out.push(x);
    }
  }
  return out;
}

export class PolygonDraw {
  constructor(map, { onFinish, onChange } = {}) {
    this.map = map;
    this.onFinish = onFinish;
    this.onChange = onChange;
    this.active = false;
    this.points = [];
    this.cursor = null;
    map.addSource(SRC, { type: "geojson", data: { type: "FeatureCollection", features: [] } });
    map.addLayer({ id: "draw-fill", type: "fill", source: SRC, filter: ["==", ["geometry-type"], "Polygon"], paint: { "fill-color": "#e6550d", "fill-opacity": 0.2 } });
    map.addLayer({ id: "draw-line", type: "line", source: SRC, filter: ["!=", ["geometry-type"], "Point"], paint: { "line-color": "#e6550d", "line-width": 2, "line-dasharray": [2, 1] } });
    map.addLayer({ id: "draw-points", type: "circle", source: SRC, filter: ["==", ["geometry-type"], "Point"], paint: {
      "circle-radius": ["case", ["==", ["get", "crossing"], true], 7, 4],
      "circle-color": ["case", ["==", ["get", "crossing"], true], "#d7191c", "#ffffff"],
      "circle-stroke-color": ["case", ["==", ["get", "crossing"], true], "#ffffff", "#e6550d"], "circle-stroke-width": 2 } });
    this._click = (e) => this.add(e.lngLat, e.point);
    this._dbl = (e) => {
      e.preventDefault();
      this.finish();
    };
    this._move = (e) => {
      this.cursor = [e.lngLat.lng, e.lngLat.lat];
      this.render();
    };
    this._key = (e) => {
      if (!this.active) return;
      if (e.key === "Escape") {
        e.preventDefault();
        this.cancel();
      } else if (e.key === "Enter" && !(e.target && /^(INPUT|TEXTAREA|SELECT|BUTTON|A)$/.test(e.target.tagName))) {
        e.preventDefault();
        this.finish();
      } else if (e.key === "Backspace" && !(e.target && /^(INPUT|TEXTAREA)$/.test(e.target.tagName))) {
        e.preventDefault();
        this.points.pop();
        this.render();
      }
    };
  }

  start() {
    if (this.active) return;
    this.active = true;
    this.points = [];
    this.pixels = [];
    this.cursor = null;
    this.map.doubleClickZoom.disable();
    this.map.on("click", this._click);
    this.map.on("dblclick", this._dbl);
    this.map.on("mousemove", this._move);
    document.addEventListener("keydown", this._key);
    this.map.getCanvas().style.cursor = "crosshair";
    this.render();
  }

  stop() {
    this.active = false;
    this.map.off("click", this._click);
    this.map.off("dblclick", this._dbl);
    this.map.off("mousemove", this._move);
    document.removeEventListener("keydown", this._key);
    this.map.getCanvas().style.cursor = "";
    // Re-enable double-click zoom after the dblclick event has finished propagating.
    setTimeout(() => this.map.doubleClickZoom.enable(), 0);
  }

  add(lngLat, point) {
    // The clicks of a double-click land on the same spot: ignore near-duplicates.
    const last = this.pixels[this.pixels.length - 1];
    if (last && point && Math.hypot(last.x - point.x, last.y - point.y) < 4) return;
    this.points.push([lngLat.lng, lngLat.lat]);
    this.pixels.push(point ? { x: point.x, y: point.y } : { x: NaN, y: NaN });
    this.render();
  }

  cancel() {
    this.stop();
    this.points = [];
    this.cursor = null;
    this.render();
    if (this.onChange) this.onChange("cancelled");
  }

  finish() {
    if (!this.active) return;
    if (this.points.length < 3) {
      if (this.onChange) this.onChange("need3");
      return;
    }
    // A crossing outline is no area: it stays open, the crossing marked, to be fixed.
    if (crossings(this.points).length) {
      this.cursor = null;
      this.render();
      if (this.onChange) this.onChange("crossing", this.points.length);
      return;
    }
    const ring = this.points.slice();
    ring.push(ring[0]);
    const feature = { type: "Feature", properties: { name: "Drawn polygon" }, geometry: { type: "Polygon", coordinates: [ring] } };
    this.stop();
    this.points = [];
    this.cursor = null;
    this.render();
    if (this.onChange) this.onChange("finished");
    if (this.onFinish) this.onFinish(feature);
  }

  render() {
    const feats = this.points.map((p) => ({ type: "Feature", properties: {}, geometry: { type: "Point", coordinates: p } }));
    const pts = this.cursor && this.active ? [...this.points, this.cursor] : this.points;
    if (pts.length >= 2) feats.push({ type: "Feature", properties: {}, geometry: { type: "LineString", coordinates: pts } });
    if (pts.length >= 3) feats.push({ type: "Feature", properties: {}, geometry: { type: "Polygon", coordinates: [[...pts, pts[0]]] } });
    const crossed = crossings(pts);
    this.crossed = crossed;
    for (const c of crossed) feats.push({ type: "Feature", properties: { crossing: true }, geometry: { type: "Point", coordinates: c } });
    const s = this.map.getSource(SRC);
    if (s) s.setData({ type: "FeatureCollection", features: feats });
    if (this.onChange && this.active) this.onChange(crossed.length ? "crossing" : "points", this.points.length, ringAcres(pts));
  }
}

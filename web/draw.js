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
    map.addLayer({ id: "draw-points", type: "circle", source: SRC, filter: ["==", ["geometry-type"], "Point"], paint: { "circle-radius": 4, "circle-color": "#ffffff", "circle-stroke-color": "#e6550d", "circle-stroke-width": 2 } });
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
    const s = this.map.getSource(SRC);
    if (s) s.setData({ type: "FeatureCollection", features: feats });
    if (this.onChange && this.active) this.onChange("points", this.points.length, ringAcres(pts));
  }
}

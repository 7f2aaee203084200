// Line labels drawn as DOM (the offline style has no glyph server): every named stream, and
// street names when zoomed in, each placed along its line and turned with it. A label is
// dropped when it would cover the legend, the scale bar, the zoom buttons or another label.

const STREET_MIN_ZOOM = 14;
const MAX_STREET_LABELS = 60;
// A long water gets another label every this many pixels of its visible course.
const STREAM_REPEAT_PX = 520;
const EDGE_PX = 8;

/** Screen rectangles (container pixels) that labels must leave clear. */
function obstacles(container) {
  const box = container.getBoundingClientRect();
  const sel = [".legend details", ".maplibregl-ctrl-scale", ".maplibregl-ctrl-top-left .maplibregl-ctrl",
    ".maplibregl-ctrl-bottom-right .maplibregl-ctrl", ".maplibregl-ctrl-bottom-left .maplibregl-ctrl", ".draw-hint"];
  const out = [];
  const root = container.closest(".map-wrap") || container;
  for (const el of root.querySelectorAll(sel.join(","))) {
    if (el.hidden || !el.offsetParent) continue;
    const r = el.getBoundingClientRect();
    if (r.width && r.height) out.push({ x0: r.left - box.left - 4, y0: r.top - box.top - 4, x1: r.right - box.left + 4, y1: r.bottom - box.top + 4 });
  }
  return out;
}

const overlaps = (a, b) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;

/** The pieces of a line geometry, each a list of [lon, lat]. */
function pieces(geom) {
  if (!geom) return [];
  if (geom.type === "LineString") return [geom.coordinates];
  if (geom.type === "MultiLineString") return geom.coordinates;
  return [];
}

/** Projected runs of a line that lie inside the view (with a margin). */
function visibleRuns(map, lines, w, h) {
  const runs = [];
  for (const line of lines) {
    let run = [];
    for (const c of line) {
      const p = map.project(c);
      const inside = p.x > EDGE_PX && p.y > EDGE_PX && p.x < w - EDGE_PX && p.y < h - EDGE_PX;
      if (inside) run.push(p);
      else if (run.length) {
        runs.push(run);
        run = [];
      }
    }
    if (run.length) runs.push(run);
  }
  return runs.filter((r) => r.length >= 2);
}

function runLength(run) {
  let n = 0;
  for (let i = 1; i < run.length; i++) n += Math.hypot(run[i].x - run[i - 1].x, run[i].y - run[i - 1].y);
  return n;
}

/** The point `at` pixels along a run and the direction of the run around it (±span px). */
function along(run, at, span) {
  const pointAt = (d) => {
    let acc = 0;
    for (let i = 1; i < run.length; i++) {
      const a = run[i - 1], b = run[i];
      const seg = Math.hypot(b.x - a.x, b.y - a.y);
      if (acc + seg >= d) {
        const t = seg ? (d - acc) / seg : 0;
        return { x: a.x + t * (b.x - a.x), y: a.y + t * (b.y - a.y) };
      }
      acc += seg;
    }
    return run[run.length - 1];
  };
  const total = runLength(run);
  const p = pointAt(at);
  const a = pointAt(Math.max(0, at - span));
  const b = pointAt(Math.min(total, at + span));
  let deg = (Math.atan2(b.y - a.y, b.x - a.x) * 180) / Math.PI;
  // Keep text upright.
  if (deg > 90) deg -= 180;
  if (deg < -90) deg += 180;
  return { p, deg };
}

export class LineLabels {
  /**
   * sources: () => {streams: [{name, lines}], streetsVisible: bool}
   * reserved: () => [HTMLElement] labels placed by others (impaired-water markers) that keep
   * their place; they are hidden instead when they cover the legend or the scale bar.
   */
  constructor(map, { streams, streetsVisible, reserved }) {
    this.map = map;
    this.streams = streams;
    this.streetsVisible = streetsVisible;
    this.reserved = reserved;
    this.layer = document.createElement("div");
    this.layer.className = "map-labels";
    this.layer.setAttribute("aria-hidden", "true");
    map.getContainer().appendChild(this.layer);
    this.placed = [];
    const later = () => {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.update(), 60);
    };
    map.on("movestart", () => (this.layer.style.visibility = "hidden"));
    map.on("moveend", later);
    map.on("idle", later);
    window.addEventListener("resize", later);
    this.refresh = later;
  }

  /** Place a label along a run; returns whether it fit. */
  put(text, cls, run, at, blocked) {
    const { p, deg } = along(run, at, 40);
    const el = document.createElement("div");
    el.className = `line-label ${cls}`;
    el.textContent = text;
    el.style.left = `${p.x}px`;
    el.style.top = `${p.y}px`;
    el.style.transform = `translate(-50%, -50%) rotate(${deg.toFixed(1)}deg)`;
    this.layer.appendChild(el);
    const w = el.offsetWidth, h = el.offsetHeight;
    const rad = (deg * Math.PI) / 180;
    const bw = Math.abs(w * Math.cos(rad)) + Math.abs(h * Math.sin(rad));
    const bh = Math.abs(w * Math.sin(rad)) + Math.abs(h * Math.cos(rad));
    const box = { x0: p.x - bw / 2, y0: p.y - bh / 2, x1: p.x + bw / 2, y1: p.y + bh / 2 };
    if (runLength(run) < w * 0.8 || blocked.some((b) => overlaps(b, box))) {
      el.remove();
      return false;
    }
    el.dataset.name = text;
    blocked.push(box);
    return true;
  }

  update() {
    const map = this.map;
    const container = map.getContainer();
    const w = container.clientWidth, h = container.clientHeight;
    this.layer.textContent = "";
    const blocked = obstacles(container);
    const cbox = container.getBoundingClientRect();
    // Labels placed by others keep their place unless they cover a control.
    const reservedNames = new Set();
    for (const el of this.reserved()) {
      el.style.visibility = "";
      const r = el.getBoundingClientRect();
      const box = { x0: r.left - cbox.left, y0: r.top - cbox.top, x1: r.right - cbox.left, y1: r.bottom - cbox.top };
      if (blocked.some((b) => overlaps(b, box))) {
        el.style.visibility = "hidden";
        continue;
      }
      blocked.push(box);
      const name = el.querySelector("strong");
      if (name) reservedNames.add(name.textContent);
    }
    let streams = 0;
    for (const s of this.streams()) {
      if (reservedNames.has(s.name)) continue;
      const runs = visibleRuns(map, s.lines, w, h).sort((a, b) => runLength(b) - runLength(a));
      for (const run of runs.slice(0, 3)) {
        const len = runLength(run);
        const n = Math.max(1, Math.floor(len / STREAM_REPEAT_PX));
        for (let i = 0; i < n; i++) if (this.put(s.name, "stream", run, (len * (i + 0.5)) / n, blocked)) streams++;
      }
    }
    let streets = 0;
    if (this.streetsVisible() && map.getZoom() >= STREET_MIN_ZOOM && map.getSource("basemap")) {
      const byName = new Map();
      for (const f of map.querySourceFeatures("basemap", { sourceLayer: "basemap" })) {
        const name = f.properties && (f.properties.display_name || f.properties.FULLNAME);
        if (!name) continue;
        if (!byName.has(name)) byName.set(name, []);
        byName.get(name).push(...pieces(f.geometry));
      }
      for (const [name, lines] of byName) {
        if (streets >= MAX_STREET_LABELS) break;
        const runs = visibleRuns(map, lines, w, h).sort((a, b) => runLength(b) - runLength(a));
        if (runs.length && this.put(name, "street", runs[0], runLength(runs[0]) / 2, blocked)) streets++;
      }
    }
    this.placed = { streams, streets };
    this.layer.style.visibility = "";
  }
}

// Layer groups and the legend: which layers a checkbox toggles, the disturbance date filter.
import { conditionB, conditionC, overLimit } from "./thresholds.js";

// Legend groups: key -> {label, layers[]}; layers are filled in as they are added.
export const GROUPS = [
  { key: "disturbance", label: "Sites and disturbance (by phase)" },
  { key: "sites", label: "Site boundaries" },
  { key: "parcels", label: "Parcels (zoom in)" },
  { key: "flowlines", label: "Streams" },
  { key: "waterbodies", label: "Waterbodies" },
  { key: "impaired", label: "Impaired (303(d))" },
  { key: "tmdl", label: "TMDL watersheds" },
  { key: "storm", label: "Storm sewer (pipes, arrows downstream)" },
  { key: "boundary", label: "Town boundary" },
  { key: "trace", label: "Selected site & downstream trace" },
  { key: "basemap", label: "Roads and street names" },
];

const groupLayers = new Map(GROUPS.map((g) => [g.key, []]));

const groupVisible = new Map(GROUPS.map((g) => [g.key, true]));

export function addLayer(map, group, layer, before) {
  map.addLayer(layer, before);
  if (group) {
    groupLayers.get(group).push(layer.id);
    if (!groupVisible.get(group)) map.setLayoutProperty(layer.id, "visibility", "none");
  }
}

export function isGroupVisible(key) {
  return groupVisible.get(key) !== false;
}

export function setGroupVisible(map, key, visible, labels) {
  groupVisible.set(key, visible);
  for (const id of groupLayers.get(key) || []) {
    if (map.getLayer(id)) map.setLayoutProperty(id, "visibility", visible ? "visible" : "none");
  }
  if (key === "impaired" && labels) labels.update();
  if (labels && labels.lineLabels) labels.lineLabels.refresh();
}

export function groupHasLayers(key) {
  return (groupLayers.get(key) || []).length > 0;
}

/** Build the legend with keyboard-reachable checkboxes. */
export function buildLegend(map, container, labels, phases = []) {
  container.textContent = "";
  const details = document.createElement("details");
  // Open when the map has room for it; folded on tablets and phones (one tap opens it): a
  // tablet's map is as wide as a laptop's, so the window's width tells them apart.
  const box = map.getContainer();
  const wide = !window.matchMedia || window.matchMedia("(min-width: 1025px)").matches;
  details.open = wide && box.clientWidth >= 800 && box.clientHeight >= 560;
  const summary = document.createElement("summary");
  summary.textContent = "Legend & layers";
  summary.setAttribute("data-testid", "legend-summary");
  details.appendChild(summary);
  const fs = document.createElement("fieldset");
  const lg = document.createElement("legend");
  lg.textContent = "Layers";
  fs.appendChild(lg);
  for (const g of GROUPS) {
    if (!groupHasLayers(g.key)) continue;
    const id = `toggle-${g.key}`;
    const row = document.createElement("div");
    row.className = "legend-row";
    const cb = document.createElement("input");
    cb.type = "checkbox";
    cb.id = id;
    cb.checked = groupVisible.get(g.key);
    cb.dataset.group = g.key;
    cb.setAttribute("data-testid", `toggle-${g.key}`);
    cb.addEventListener("change", () => setGroupVisible(map, g.key, cb.checked, labels));
    const label = document.createElement("label");
    label.htmlFor = id;
    const sw = document.createElement("span");
    sw.className = `swatch swatch-${g.key}`;
    sw.setAttribute("aria-hidden", "true");
    label.append(sw, document.createTextNode(g.label));
    row.append(cb, label);
    fs.appendChild(row);
    if (g.key === "disturbance") {
      const sub = document.createElement("div");
      sub.className = "legend-sub";
      sub.innerHTML =
        '<span class="mini solid"></span>under construction <span class="mini faint"></span>planned or approved ' +
        '<span class="mini hatched"></span>stabilized <span class="mini other"></span>other or not known';
      sub.setAttribute("data-testid", "legend-status");
      fs.appendChild(sub);
      const risk = document.createElement("div");
      risk.className = "legend-sub legend-risk";
      risk.setAttribute("data-testid", "legend-risk");
      // The thresholds are the rulebook's (/rules), numbers only: no markup from outside.
      risk.innerHTML =
        '<span><span class="dot small"></span><span class="dot big"></span> dot size: acres disturbed at one time</span>' +
        '<span data-tri="A">Condition A (impaired water / TMDL): <span class="dot ring-a"></span> yes ' +
        '<span class="dot ring-a-null"></span> needs data <span class="dot"></span> no</span>' +
        `<span data-tri="B">Condition B (${conditionB()}): <span class="dot ring-b"></span> yes ` +
        '<span class="dot ring-b-null"></span> needs data <span class="dot"></span> no</span>' +
        `<span data-tri="limit">Site with ${overLimit()} disturbed at once: <span class="dot halo"></span> yes ` +
        '<span class="dot halo-null"></span> needs data <span class="dot"></span> no</span>';
      fs.appendChild(risk);
      const shown = phases.filter((p) => p.phase !== "").slice(0, 8);
      if (shown.length > 1) {
        const ph = document.createElement("div");
        ph.className = "legend-sub";
        ph.append("phase");
        for (const p of shown) {
          const chip = document.createElement("span");
          chip.className = "phase-chip";
          chip.style.background = p.color;
          chip.textContent = p.phase;
          ph.append(chip);
        }
        fs.appendChild(ph);
      }
    }
  }
  details.appendChild(fs);
  details.appendChild(termsEl(box.clientHeight >= 900));
  if (groupHasLayers("disturbance")) {
    const row = document.createElement("div");
    row.className = "legend-date";
    const label = document.createElement("label");
    label.htmlFor = "disturbance-date";
    label.textContent = "Disturbed on";
    const input = document.createElement("input");
    input.type = "date";
    input.id = "disturbance-date";
    input.setAttribute("data-testid", "disturbance-date");
    input.addEventListener("change", () => setDisturbanceDate(map, input.value));
    const clear = document.createElement("button");
    clear.type = "button";
    clear.textContent = "All dates";
    clear.addEventListener("click", () => {
      input.value = "";
      setDisturbanceDate(map, "");
    });
    row.append(label, input, clear);
    details.appendChild(row);
  }
  details.addEventListener("toggle", () => window.dispatchEvent(new Event("resize")));
  container.appendChild(details);
}

// The local law's conditions and the 303(d) categories, in plain words (EPA's Integrated
// Report categories, which NYSDEC's list uses); the conditions' acres come from /rules.
export const terms = () => [
  ["Condition A", "The site drains to a listed impaired water (303(d)) for a construction pollutant such as silt or phosphorus, or into a TMDL watershed where stormwater is a source. A licensed professional must prepare the SWPPP."],
  ["Condition B", `${cap(conditionB())} of land disturbed (or the larger common plan's acres).`],
  ["Condition C", `${cap(conditionC())} disturbed, and not a single-family home or a farm.`],
  ["303(d) category 5", "Impaired; a TMDL (a pollution budget) is still needed."],
  ["Category 4a", "Impaired, and a TMDL is in place."],
  ["Category 4b / 4c", "Impaired; other required controls should fix it (4b), or the cause is not a pollutant, such as habitat or flow (4c)."],
  ["Categories 1–3", "Not impaired (1, 2) or not enough data to tell (3); not on the 303(d) list."],
  ["TMDL watershed", "Land draining to a water with a Total Maximum Daily Load: a cap on a pollutant, shared among its sources."],
];

const cap = (t) => t.charAt(0).toUpperCase() + t.slice(1);

function termsEl(open) {
  const d = document.createElement("details");
  d.className = "legend-terms";
  d.open = open;
  d.setAttribute("data-testid", "legend-terms");
  const s = document.createElement("summary");
  s.textContent = "What A, B, C and the 303(d) categories mean";
  const dl = document.createElement("dl");
  for (const [term, words] of terms()) {
    const dt = document.createElement("dt");
    dt.textContent = term;
    const dd = document.createElement("dd");
    dd.textContent = words;
    dl.append(dt, dd);
  }
  d.append(s, dl);
  // Opening it changes the legend's size: labels move out of its way.
  d.addEventListener("toggle", () => window.dispatchEvent(new Event("resize")));
  return d;
}

/** Show only disturbance that is under way on an ISO date ("" = all). */
const baseFilters = new Map();

export function setDisturbanceDate(map, iso) {
  const ids = ["site-points", "site-risk-halo", "site-risk-halo-unknown", "site-risk-b", "site-risk-b-unknown", "disturbance-fill", "disturbance-stabilized", "disturbance-line", "disturbance-line-planned", "disturbance-line-stabilized"];
  const d = /^\d{4}-\d{2}-\d{2}$/.test(iso || "") ? iso : "";
  for (const id of ids) {
    if (!map.getLayer(id)) continue;
    if (!baseFilters.has(id)) baseFilters.set(id, map.getFilter(id));
    const base = baseFilters.get(id);
    if (!d) {
      map.setFilter(id, base || null);
      continue;
    }
    const start = ["to-string", ["coalesce", ["get", "start"], ""]];
    const end = ["to-string", ["coalesce", ["get", "end"], ""]];
    const on = ["all", ["<=", start, d], ["any", ["==", end, ""], [">=", end, d]]];
    map.setFilter(id, base ? ["all", base, on] : on);
  }
}

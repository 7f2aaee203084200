// Layer groups and the legend: which layers a checkbox toggles, the disturbance date filter.

// Legend groups: key -> {label, layers[]}; layers are filled in as they are added.
export const GROUPS = [
  { key: "disturbance", label: "Disturbance (by phase)" },
  { key: "sites", label: "Site boundaries" },
  { key: "parcels", label: "Parcels (zoom in)" },
  { key: "flowlines", label: "Streams" },
  { key: "waterbodies", label: "Waterbodies" },
  { key: "impaired", label: "Impaired (303(d))" },
  { key: "tmdl", label: "TMDL watersheds" },
  { key: "boundary", label: "Town boundary" },
  { key: "trace", label: "Selected site & downstream trace" },
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
}

export function groupHasLayers(key) {
  return (groupLayers.get(key) || []).length > 0;
}

/** Build the legend with keyboard-reachable checkboxes. */
export function buildLegend(map, container, labels, phases = []) {
  container.textContent = "";
  const details = document.createElement("details");
  // Open when the map has room for it; folded on tablets and phones (one tap opens it).
  const box = map.getContainer();
  details.open = box.clientWidth >= 800 && box.clientHeight >= 640;
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
        '<span class="mini solid"></span>active <span class="mini faint"></span>planned <span class="mini hatched"></span>stabilized';
      fs.appendChild(sub);
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
  container.appendChild(details);
}

/** Show only disturbance that is under way on an ISO date ("" = all). */
const baseFilters = new Map();

export function setDisturbanceDate(map, iso) {
  const ids = ["site-points", "disturbance-fill", "disturbance-stabilized", "disturbance-line", "disturbance-line-planned", "disturbance-line-stabilized"];
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

// The storm sewer on the map: pipes with arrows the way the water runs (the server's `flow`,
// decided by ids or inverts, never by the order a city digitised a pipe in), structures by
// kind, everything upstream of a clicked outfall (and its sewershed when the data set has a
// DEM), and the pipe path of the site on screen.
import { fetchJSON } from "./api.js";
import { addLayer } from "./legend.js";

const EMPTY_FC = { type: "FeatureCollection", features: [] };

/** Structure kind -> colour; the legend reads the same table. */
export const STRUCTURE_COLORS = {
  inlet: "#1f78b4",
  manhole: "#6b6b6b",
  outfall: "#d7301f",
  culvert_inlet: "#33a02c",
  culvert_outlet: "#ff7f00",
  other: "#a0a0a0",
};
const PIPE = "#5b4636";
const UPSTREAM = "#e6550d";

/** Adds the storm layers when the data set has them; returns the source ids added. */
export async function addStormLayers(map, has, itemsAll, warnings) {
  if (!has("storm_pipes") && !has("storm_structures")) return [];
  const load = async (id) => {
    if (!has(id)) return EMPTY_FC;
    try {
      const fc = await itemsAll(id);
      return fc && Array.isArray(fc.features) ? fc : EMPTY_FC;
    } catch (err) {
      warnings.push(`${id}: ${err.message}`);
      return EMPTY_FC;
    }
  };
  const [pipes, structures] = await Promise.all([load("storm_pipes"), load("storm_structures")]);
  for (const [id, fc] of [["storm-pipes", pipes], ["storm-structures", structures], ["storm-upstream", EMPTY_FC], ["storm-sewershed", EMPTY_FC]]) {
    map.addSource(id, { type: "geojson", data: fc });
  }
  const undecided = ["==", ["get", "flow"], "undecided"];
  addLayer(map, "storm", {
    id: "storm-sewershed-fill", type: "fill", source: "storm-sewershed",
    paint: { "fill-color": UPSTREAM, "fill-opacity": 0.12 },
  });
  addLayer(map, "storm", {
    id: "storm-pipes-line", type: "line", source: "storm-pipes", filter: ["!", undecided],
    paint: { "line-color": PIPE, "line-width": ["interpolate", ["linear"], ["zoom"], 13, 1, 18, 3] },
  });
  // Nothing directs these pipes: dashed, and no arrow.
  addLayer(map, "storm", {
    id: "storm-pipes-undecided", type: "line", source: "storm-pipes", filter: undecided,
    paint: { "line-color": PIPE, "line-width": 1.2, "line-dasharray": [2, 2] },
  });
  addLayer(map, "storm", {
    id: "storm-upstream-line", type: "line", source: "storm-upstream",
    filter: ["==", ["geometry-type"], "LineString"],
    paint: { "line-color": UPSTREAM, "line-width": 4, "line-opacity": 0.85 },
  });
  addLayer(map, "storm", {
    id: "storm-path-line", type: "line", source: "storm-pipes", filter: ["in", ["get", "id"], ["literal", []]],
    paint: { "line-color": "#08519c", "line-width": 4.5, "line-opacity": 0.9 },
  });
  addLayer(map, "storm", {
    id: "storm-pipes-arrows", type: "symbol", source: "storm-pipes", filter: ["!", undecided], minzoom: 14,
    layout: {
      "symbol-placement": "line", "symbol-spacing": 70, "icon-image": "flow-arrow",
      "icon-rotation-alignment": "map", "icon-allow-overlap": true,
      "icon-rotate": ["match", ["get", "flow"], "against", 180, 0],
    },
  });
  const color = ["match", ["get", "kind"], ...Object.entries(STRUCTURE_COLORS).flat(), STRUCTURE_COLORS.other];
  addLayer(map, "storm", {
    id: "storm-structures-circle", type: "circle", source: "storm-structures",
    paint: {
      "circle-color": color,
      "circle-radius": ["match", ["get", "kind"], "outfall", 6, 3.5],
      "circle-stroke-color": "#ffffff", "circle-stroke-width": 1,
    },
  });
  return ["storm-pipes", "storm-structures", "storm-upstream", "storm-sewershed"];
}

/** Highlights everything that drains to an outfall, and its sewershed when there is one.
 * Returns a sentence for the user. */
export async function showUpstream(map, outfallId) {
  const id = encodeURIComponent(outfallId);
  const fc = await fetchJSON(`/outfalls/${id}/upstream`);
  map.getSource("storm-upstream")?.setData(fc || EMPTY_FC);
  const pipes = (fc.features || []).filter((f) => f.properties && f.properties.kind === "pipe");
  const inlets = (fc.features || []).filter((f) => f.properties && f.properties.kind === "inlet");
  let text = `Outfall ${outfallId}: ${pipes.length} pipe(s) and ${inlets.length} inlet(s) drain to it`;
  try {
    const shed = await fetchJSON(`/outfalls/${id}/sewershed`);
    map.getSource("storm-sewershed")?.setData(shed || EMPTY_FC);
    const net = (shed.features || []).find((f) => f.properties && f.properties.kind === "network_catchment");
    const acres = net && Number(net.properties.area_acres);
    if (Number.isFinite(acres)) text += `; its sewershed is ${acres.toFixed(2)} ac`;
  } catch (err) {
    // 404: the data set has no DEM, so there is no sewershed to draw; the network stands.
    map.getSource("storm-sewershed")?.setData(EMPTY_FC);
    if (err && err.status !== 404) text += ` (sewershed: ${err.message})`;
  }
  return `${text}.`;
}

/** Draws the pipe path of a report's storm-sewer entry (none when it has none). */
export function showSewerPath(map, report) {
  if (!map.getLayer("storm-path-line")) return;
  const sewer = report && report.entry && report.entry.sewer;
  const ids = sewer && sewer.trace && Array.isArray(sewer.trace.pipes) ? sewer.trace.pipes.map((p) => String(p.id)) : [];
  map.setFilter("storm-path-line", ["in", ["get", "id"], ["literal", ids]]);
  if (!ids.length) {
    map.getSource("storm-upstream")?.setData(EMPTY_FC);
    map.getSource("storm-sewershed")?.setData(EMPTY_FC);
  }
}

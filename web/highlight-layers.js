// What the map highlights: a report's receiving waters and downstream path with flow
// arrows, nearby candidate waters, the selected site or drawn polygon, and the applicant's
// outfall point with the sewer path to it.
import { addLayer } from "./legend.js";
import { COLORS } from "./colors.js";
import { EMPTY_FC, hasGeometry } from "./geo.js";

/** The highlight sources and layers, above everything else. `L`: {map, data, has(id), src(id, fc), sourceIds}. */
export function addHighlightLayers(L) {
  const { map, data, sourceIds } = L;
  map.addSource("trace", { type: "geojson", data: EMPTY_FC });
  map.addSource("selection", { type: "geojson", data: EMPTY_FC });
  sourceIds.push("trace", "selection");
  if (data.waterbodies) {
    addLayer(map, "trace", {
      id: "receiving-waterbodies", type: "line", source: "waterbodies",
      filter: ["in", ["get", "id"], ["literal", []]],
      paint: { "line-color": COLORS.receiving, "line-width": 4 },
    });
  }
  // Nearby waters (receiving-water candidates off the traced path): thin dashed cyan.
  const isLine = ["match", ["geometry-type"], ["LineString", "MultiLineString"], true, false];
  const isNearby = ["==", ["get", "_role"], "nearby"];
  addLayer(map, "trace", {
    id: "trace-nearby", type: "line", source: "trace",
    filter: ["all", isLine, isNearby],
    layout: { "line-cap": "round", "line-join": "round" },
    paint: { "line-color": COLORS.receiving, "line-width": 3.5, "line-dasharray": [2, 1.5] },
  });
  // The path (entry reach and downstream trace, or a searched water): halo, line, flow arrows.
  addLayer(map, "trace", {
    id: "trace-casing", type: "line", source: "trace",
    filter: ["all", isLine, ["!", isNearby]],
    layout: { "line-cap": "round", "line-join": "round" },
    paint: { "line-color": "#ffd24d", "line-width": 13, "line-opacity": 0.75, "line-blur": 1 },
  });
  addLayer(map, "trace", {
    id: "trace-line", type: "line", source: "trace",
    filter: ["all", isLine, ["!", isNearby]],
    layout: { "line-cap": "round", "line-join": "round" },
    paint: {
      "line-color": ["case",
        ["==", ["get", "impaired"], true], COLORS.impaired,
        ["==", ["get", "_role"], "water"], COLORS.receiving,
        COLORS.trace],
      "line-width": 5,
    },
  });
  // Flow direction along the path (an icon, so no glyphs are needed).
  addLayer(map, "trace", {
    id: "trace-arrows", type: "symbol", source: "trace",
    filter: ["all", isLine, ["!", isNearby]],
    layout: {
      "symbol-placement": "line",
      "symbol-spacing": 90,
      "icon-image": "flow-arrow",
      "icon-rotation-alignment": "map",
      "icon-allow-overlap": true,
      "icon-ignore-placement": true,
    },
  });
  addLayer(map, "trace", {
    id: "trace-polygons", type: "line", source: "trace",
    filter: ["match", ["geometry-type"], ["Polygon", "MultiPolygon"], true, false],
    paint: { "line-color": ["case", ["==", ["get", "impaired"], true], COLORS.impaired, COLORS.receiving], "line-width": 4 },
  });
  addSelectionLayers(L);
}

/** The selected site or drawn polygon and the applicant's outfall, above the path. */
function addSelectionLayers(L) {
  const { map, data, sourceIds } = L;
  addLayer(map, "trace", {
    id: "selection-fill", type: "fill", source: "selection",
    filter: ["match", ["geometry-type"], ["Polygon", "MultiPolygon"], true, false],
    paint: { "fill-color": COLORS.user, "fill-opacity": 0.15 },
  });
  addLayer(map, "trace", {
    id: "selection-line", type: "line", source: "selection",
    paint: { "line-color": COLORS.selected, "line-width": 3 },
  });
  map.addSource("outfall", { type: "geojson", data: EMPTY_FC });
  sourceIds.push("outfall");
  addLayer(map, "trace", {
    id: "outfall-path", type: "line", source: "outfall",
    filter: ["==", ["get", "_role"], "outfall-path"],
    layout: { "line-cap": "round" },
    paint: { "line-color": COLORS.outfall, "line-width": 2.5, "line-dasharray": [2, 1.5] },
  });
  addLayer(map, "trace", {
    id: "outfall-point", type: "circle", source: "outfall",
    filter: ["==", ["get", "_role"], "outfall"],
    paint: { "circle-radius": 7, "circle-color": "#ffffff", "circle-stroke-color": COLORS.outfall, "circle-stroke-width": 3.5 },
  });
  if (data.disturbance) {
    addLayer(map, "trace", {
      id: "selected-disturbance", type: "line", source: "disturbance",
      filter: ["==", ["get", "site_id"], "\u0000none"],
      paint: { "line-color": COLORS.selected, "line-width": 3 },
    });
  }
  if (data.sites && hasGeometry(data.sites)) {
    addLayer(map, "trace", {
      id: "selected-site", type: "line", source: "sites",
      filter: ["==", ["get", "id"], "\u0000none"],
      paint: { "line-color": COLORS.selected, "line-width": 3 },
    });
  }
}

/** The applicant's outfall point and the storm sewer from the site to it. */
export function outfallFeatures(report) {
  const features = [];
  const path = report && report.outfall_path;
  if (Array.isArray(path) && path.length === 2) {
    features.push({ type: "Feature", properties: { _role: "outfall-path" }, geometry: { type: "LineString", coordinates: path } });
  }
  const at = report && report.entry && report.entry.outfall;
  if (Array.isArray(at) && at.length === 2 && at.every(Number.isFinite)) {
    features.push({ type: "Feature", properties: { _role: "outfall" }, geometry: { type: "Point", coordinates: at } });
  }
  return { type: "FeatureCollection", features };
}


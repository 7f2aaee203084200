// The Outfall layers: the sources from the OGC API and the map's drawing order. The layers of
// each kind live with their styles: water-layers.js, site-layers.js, highlight-layers.js.
import { api } from "./api.js";
import { addLayer } from "./legend.js";
import { addStormLayers } from "./storm.js";
import { EMPTY_FC, validBbox, normalizeIds } from "./geo.js";
import { COLORS } from "./colors.js";
import { joinListings, addWaterbodyLayers, addFlowlineLayers, addImpairedLayers, addWaterLabels } from "./water-layers.js";
import { addDisturbanceLayers, addSitePointLayers, addSiteLayers } from "./site-layers.js";
import { addHighlightLayers } from "./highlight-layers.js";

export { COLORS } from "./colors.js";
export { outfallFeatures } from "./highlight-layers.js";

/** Hatch patterns drawn in code (no sprite files). */
function hatch(size, color, bg, width) {
  const data = new Uint8Array(size * size * 4);
  const [r, g, b, a] = color;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const i = (y * size + x) * 4;
      const d = (x + y) % size;
      const on = d < width;
      const c = on ? [r, g, b, a] : bg;
      data[i] = c[0];
      data[i + 1] = c[1];
      data[i + 2] = c[2];
      data[i + 3] = c[3];
    }
  }
  return { width: size, height: size, data };
}

/** A chevron pointing along +x (line direction), white with a soft dark edge. */
function chevron(size) {
  const data = new Uint8Array(size * size * 4);
  const segs = [[[size * 0.3, size * 0.2], [size * 0.7, size * 0.5]], [[size * 0.7, size * 0.5], [size * 0.3, size * 0.8]]];
  const dist = (px, py, [[ax, ay], [bx, by]]) => {
    const dx = bx - ax, dy = by - ay;
    const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
    return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
  };
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const d = Math.min(...segs.map((sg) => dist(x + 0.5, y + 0.5, sg)));
      const i = (y * size + x) * 4;
      if (d < 1.4) {
        data.set([255, 255, 255, 255], i);
      } else if (d < 2.4) {
        data.set([60, 30, 0, 140], i);
      }
    }
  }
  return { width: size, height: size, data };
}

function addPatterns(map) {
  const add = (name, img) => {
    if (!map.hasImage(name)) map.addImage(name, img, { pixelRatio: 1 });
  };
  add("flow-arrow", chevron(14));
  add("hatch-tmdl", hatch(12, [122, 61, 184, 170], [0, 0, 0, 0], 2));
  add("hatch-stabilized", hatch(8, [27, 120, 55, 220], [199, 233, 192, 110], 2));
}

/**
 * Load the collections and add every source + layer. Returns {data, sourceIds, warnings}.
 * collectionIds: ids present in GET /collections (others are skipped, so no 404s).
 */
export async function addOutfallLayers(map, collectionIds, bbox) {
  addPatterns(map);
  const has = (id) => collectionIds.has(id);
  const warnings = [];
  const data = {};
  const want = ["boundary", "tmdl", "waterbodies", "flowlines", "impaired", "disturbance", "sites"].filter(has);
  await Promise.all(
    want.map(async (id) => {
      try {
        const fc = await api.itemsAll(id);
        data[id] = fc && Array.isArray(fc.features) ? normalizeIds(fc) : EMPTY_FC;
      } catch (err) {
        data[id] = EMPTY_FC;
        warnings.push(`${id}: ${err.message}`);
      }
    }),
  );

  const impairedById = joinListings(data);
  const src = (id, fc) => map.addSource(id, { type: "geojson", data: fc || EMPTY_FC, promoteId: "id" });
  const sourceIds = [];
  const L = { map, data, has, src, sourceIds };

  addGroundLayers(L, bbox);

  // --- In drawing order: waters, disturbance, site dots, sites, flowlines, listings ---
  addWaterbodyLayers(L);
  const phases = addDisturbanceLayers(L);
  addSitePointLayers(L);
  addSiteLayers(L);
  addFlowlineLayers(L);
  addImpairedLayers(L);

  // --- TMDL outline, town boundary ---
  if (data.tmdl) {
    addLayer(map, "tmdl", {
      id: "tmdl-line", type: "line", source: "tmdl",
      paint: { "line-color": COLORS.tmdl, "line-width": 1.5, "line-dasharray": [3, 2] },
    });
  }
  if (data.boundary) {
    src("boundary", data.boundary);
    sourceIds.push("boundary");
    addLayer(map, "boundary", {
      id: "boundary-line", type: "line", source: "boundary",
      paint: { "line-color": COLORS.boundary, "line-width": 2.2, "line-dasharray": [6, 3] },
    });
  }

  // --- Storm sewer (pipes, structures, an outfall's upstream network) ---
  sourceIds.push(...(await addStormLayers(map, has, api.itemsAll, warnings)));

  addHighlightLayers(L);
  const labels = addWaterLabels(map, data, impairedById);

  return { data, sourceIds, warnings, impairedById, labels, phases };
}

/** Under the waters: the roads, the TMDL watersheds' hatching and the parcels. */
function addGroundLayers(L, bbox) {
  const { map, data, has, src, sourceIds } = L;
  // --- Basemap: the data set's own roads as vector tiles, under everything (works offline) ---
  if (has("basemap")) {
    map.addSource("basemap", { type: "vector", tiles: [api.tileUrl("basemap")], minzoom: 10, maxzoom: 16 });
    sourceIds.push("basemap");
    // TIGER classes: S1100 primary, S1200 secondary, S1630 ramps; the rest local.
    const cls = ["to-string", ["coalesce", ["get", "MTFCC"], ""]];
    const major = ["match", cls, ["S1100", "S1200"], true, false];
    addLayer(map, "basemap", {
      id: "roads-casing", type: "line", source: "basemap", "source-layer": "basemap", minzoom: 10,
      layout: { "line-cap": "round", "line-join": "round" },
      paint: {
        "line-color": "#b9b2a3",
        "line-width": ["interpolate", ["linear"], ["zoom"], 10, ["case", major, 2.2, 0.8], 16, ["case", major, 9, 6]],
      },
    });
    addLayer(map, "basemap", {
      id: "roads-line", type: "line", source: "basemap", "source-layer": "basemap", minzoom: 12,
      layout: { "line-cap": "round", "line-join": "round" },
      paint: {
        "line-color": ["case", major, "#fbe3a7", "#ffffff"],
        "line-width": ["interpolate", ["linear"], ["zoom"], 12, ["case", major, 2, 0.8], 16, ["case", major, 7, 4.5]],
      },
    });
  }

  // --- TMDL watersheds (hatched) ---
  if (data.tmdl) {
    src("tmdl", data.tmdl);
    sourceIds.push("tmdl");
    addLayer(map, "tmdl", {
      id: "tmdl-fill", type: "fill", source: "tmdl",
      filter: ["match", ["geometry-type"], ["Polygon", "MultiPolygon"], true, false],
      paint: { "fill-pattern": "hatch-tmdl", "fill-opacity": 0.35 },
    });
  }

  // --- Parcels (vector tiles) ---
  if (has("parcels")) {
    // No promoteId: the tile's own feature ids drive hover state; parcelIdOf() finds the parcel id.
    const s = { type: "vector", tiles: [api.tileUrl("parcels")], minzoom: 12, maxzoom: 16 };
    const b = validBbox(bbox);
    if (b) s.bounds = b;
    map.addSource("parcels", s);
    sourceIds.push("parcels");
    addLayer(map, "parcels", {
      id: "parcels-fill", type: "fill", source: "parcels", "source-layer": "parcels", minzoom: 12,
      paint: {
        "fill-color": ["case", ["boolean", ["feature-state", "hover"], false], "#ffe9a8", COLORS.parcelFill],
        "fill-opacity": 0.55,
      },
    });
    addLayer(map, "parcels", {
      id: "parcels-line", type: "line", source: "parcels", "source-layer": "parcels", minzoom: 12,
      paint: { "line-color": COLORS.parcelLine, "line-width": ["interpolate", ["linear"], ["zoom"], 12, 0.3, 16, 1.2] },
    });
  }
}

// Each site's risk on its dot, from the /sites list (risk.js).
export { setSiteRisk } from "./risk.js";


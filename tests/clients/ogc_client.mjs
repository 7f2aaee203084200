// @camptocamp/ogc-client (npm) against the running server: node ogc_client.mjs BASE_URL
// Prints one JSON object of what the client read; tests/ogc_clients.rs asserts on it.
const base = process.argv[2];
if (!base) {
  console.error("usage: node ogc_client.mjs http://127.0.0.1:PORT");
  process.exit(2);
}
// The library resolves relative links against the page's location, as in a browser.
globalThis.location = new URL(base + "/");
const { OgcApiEndpoint } = await import("@camptocamp/ogc-client");

const endpoint = new OgcApiEndpoint(base + "/");
const out = {};
out.info = await endpoint.info;
out.allCollections = (await endpoint.allCollections).map((c) => c.name);
out.featureCollections = await endpoint.featureCollections;
out.hasTiles = await endpoint.hasTiles;
out.tileMatrixSets = await endpoint.tileMatrixSets;
const info = await endpoint.getCollectionInfo("sites");
out.sitesInfo = { id: info.id, itemFormats: info.itemFormats, vectorTileFormats: info.vectorTileFormats, supportedTileMatrixSets: info.supportedTileMatrixSets };
const items = await endpoint.getCollectionItems("parcels", 7, 3);
out.parcelItems = items.map((f) => String(f.id));
out.vectorTilesetUrl = await endpoint.getVectorTilesetUrl("parcels");
console.log(JSON.stringify(out));

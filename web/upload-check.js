// A file's own problem before it is sent, and advice after a refusal: an empty file, a text
// file named like an archive, a polygon over the vertex limit, a coordinate system that does
// not fit. Each names the file (or the system chosen) and what to do, in words.

const ARCHIVES = {
  zip: { magic: [0x50, 0x4b], words: "a zip archive (a zipped Shapefile)" },
  gpkg: { magic: [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65], words: "a GeoPackage" },
};

/** Why the file cannot be a plan, or null to send it: the server decides everything else. */
export function precheck(name, bytes) {
  const b = new Uint8Array(bytes);
  if (b.length === 0) return `${name} is empty (0 bytes): there is nothing to check. Export the plan again and upload the new file.`;
  const ext = String(name).toLowerCase().split(".").pop();
  const archive = ARCHIVES[ext];
  if (archive && !archive.magic.every((x, i) => b[i] === x)) {
    const text = b.subarray(0, 512).every((x) => x === 9 || x === 10 || x === 13 || (x >= 32 && x < 127) || x >= 128);
    return `${name} is named .${ext} but is ${text ? "a text file" : "not"} ${archive.words}${text ? " inside" : ""}. ` +
      "Upload the plan itself: GeoJSON (.geojson), KML (.kml), a GeoPackage (.gpkg) or a zipped Shapefile (.zip).";
  }
  return null;
}

/** Words to add under a refusal: how to get past it. */
export function advice(err, upload) {
  const detail = String((err && err.detail) || "");
  if (err && err.status === 413 || /vertices|vertex/.test(detail)) {
    return "Simplify the polygon before uploading (QGIS: Vector ▸ Geometry Tools ▸ Simplify, or mapshaper.org), keeping its outline within a metre or so.";
  }
  if (upload && upload.crs && err && err.status === 422) {
    return `The coordinate system you chose, ${upload.crs}, does not fit this file: read in it, the file lands away from the Town. Choose the system the plan was drawn in (its .prj or the CAD drawing's settings say which).`;
  }
  return null;
}

/** A refusal's title in words, never a bare status code. */
export function refusalTitle(err, upload) {
  if (err.status === 413) return "The file is too large";
  if (err.crsRequired) return "Choose the file's coordinate system";
  if (upload && upload.crs && err.status === 422) return `${upload.crs} does not fit this file`;
  if (err.status === 422) return "The file was rejected";
  return "The check failed";
}

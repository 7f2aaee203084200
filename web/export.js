// Download buttons for a report: the disturbance with its findings as GeoJSON or a zipped
// Shapefile. A site's exports are GET links; a check's are POSTs of the same upload, which
// app.js attaches to the report as the non-enumerable `upload` property. The Shapefile can be
// in WGS84 or in the data set's own system (State Plane feet in Clay), which a surveyor's CAD
// expects; GeoJSON stays WGS84, as RFC 7946 requires.
import { absUrl, checkQuery, uploadHeaders } from "./api.js";

/** The data set's own system ("EPSG:2261"), from /config; null offers WGS84 alone. */
let datasetCrs = null;

export function setDatasetCrs(code) {
  datasetCrs = typeof code === "string" && code && code !== "EPSG:4326" ? code : null;
}

/** The Shapefile's system picker: "wgs84" or "source". */
function crsPicker(onChange) {
  const select = el("select", { "data-testid": "export-crs", "aria-label": "Shapefile coordinates" });
  select.appendChild(el("option", { value: "wgs84" }, "WGS84 (lon/lat)"));
  select.appendChild(el("option", { value: "source" }, `Data set's CRS (${datasetCrs})`));
  select.addEventListener("change", () => onChange(select.value));
  const label = el("label", { class: "small" }, "Shapefile in ");
  label.appendChild(select);
  return label;
}

function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text) e.textContent = text;
  return e;
}

async function download(url, init, fileName, note) {
  note.textContent = "Preparing…";
  try {
    const res = await fetch(url, init);
    if (!res.ok) {
      let detail = res.statusText;
      try {
        detail = (await res.json()).detail || detail;
      } catch { /* not problem+json */ }
      throw new Error(detail);
    }
    const blob = await res.blob();
    const a = el("a", { href: URL.createObjectURL(blob), download: fileName });
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
    note.textContent = "";
  } catch (err) {
    note.textContent = `Export failed: ${err.message}`;
  }
}

/** The export buttons of a report, or an empty element when it has nothing to export. */
export function exportLinks(report) {
  const box = el("div", { class: "export-links", "data-testid": "export-links" });
  const site = (report && report.site) || {};
  const note = el("span", { class: "small", role: "status" });
  const formats = [["geojson", "GeoJSON"], ["zip", "Shapefile (.zip)"]];
  if (site.kind === "site" && site.id != null) {
    box.appendChild(el("span", { class: "small" }, "Export: "));
    const base = (ext) => absUrl(`/sites/${encodeURIComponent(site.id)}/export.${ext}`);
    for (const [ext, label] of formats) {
      box.appendChild(el("a", {
        class: "button",
        href: base(ext),
        download: `${site.id}-disturbance.${ext}`,
        "data-testid": `export-${ext}`,
      }, label));
    }
    if (datasetCrs) {
      box.appendChild(crsPicker((crs) => {
        const zip = box.querySelector('[data-testid="export-zip"]');
        zip.setAttribute("href", crs === "source" ? `${base("zip")}?crs=source` : base("zip"));
      }));
    }
  } else if (site.kind === "drawn" && report.upload) {
    const up = report.upload;
    const stem = String(site.id || "check").replace(/[^A-Za-z0-9_-]+/g, "_").replace(/^_+|_+$/g, "") || "check";
    box.appendChild(el("span", { class: "small" }, "Export: "));
    let crs = "wgs84";
    for (const [ext, label] of formats) {
      const b = el("button", { type: "button", "data-testid": `export-${ext}` }, label);
      const query = () => {
        const q = checkQuery(up);
        if (ext !== "zip" || crs !== "source") return q;
        return `${q}${q ? "&" : "?"}export_crs=source`;
      };
      b.addEventListener("click", () => download(
        absUrl(`/check/export.${ext}${query()}`),
        { method: "POST", body: up.body, headers: uploadHeaders(up) },
        `${stem}-disturbance.${ext}`,
        note,
      ));
      box.appendChild(b);
    }
    if (datasetCrs) box.appendChild(crsPicker((c) => { crs = c; }));
  }
  box.appendChild(note);
  return box;
}

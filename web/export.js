// Download buttons for a report: the disturbance with its findings as GeoJSON or a zipped
// Shapefile. A site's exports are GET links; a check's are POSTs of the same upload, which
// app.js attaches to the report as the non-enumerable `upload` property.
import { absUrl, checkQuery, uploadHeaders } from "./api.js";

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
    for (const [ext, label] of formats) {
      box.appendChild(el("a", {
        class: "button",
        href: absUrl(`/sites/${encodeURIComponent(site.id)}/export.${ext}`),
        download: `${site.id}-disturbance.${ext}`,
        "data-testid": `export-${ext}`,
      }, label));
    }
  } else if (site.kind === "drawn" && report.upload) {
    const up = report.upload;
    const stem = String(site.id || "check").replace(/[^A-Za-z0-9_-]+/g, "_").replace(/^_+|_+$/g, "") || "check";
    box.appendChild(el("span", { class: "small" }, "Export: "));
    for (const [ext, label] of formats) {
      const b = el("button", { type: "button", "data-testid": `export-${ext}` }, label);
      b.addEventListener("click", () => download(
        absUrl(`/check/export.${ext}${checkQuery(up)}`),
        { method: "POST", body: up.body, headers: uploadHeaders(up) },
        `${stem}-disturbance.${ext}`,
        note,
      ));
      box.appendChild(b);
    }
  }
  box.appendChild(note);
  return box;
}

// Uploading a plan: the file input, the checks made before anything is sent (an empty file, a
// text file with the wrong extension), and the coordinate-system picker a file without one
// needs, which stays open after a wrong choice.
import { renderError } from "./panel.js";
import { precheck } from "./upload-check.js";

const $ = (id) => document.getElementById(id);

let pendingUpload = null;

export function showCrsForm(upload) {
  pendingUpload = upload;
  const form = $("crs-form");
  form.hidden = false;
  const input = $("crs-input");
  if (upload.crs) input.value = upload.crs;
  input.focus();
}

export function hideCrsForm() {
  $("crs-form").hidden = true;
}

function setupCrsForm(runCheck) {
  $("crs-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const crs = $("crs-input").value.trim();
    if (!pendingUpload || !crs) return;
    runCheck({ ...pendingUpload, crs: crs.toUpperCase() }, null);
  });
}

/** The media type the server expects for a file, by its extension (browsers often leave it blank). */
function uploadType(file) {
  const ext = (file.name || "").toLowerCase().split(".").pop();
  return {
    geojson: "application/geo+json",
    json: "application/json",
    zip: "application/zip",
    kml: "application/vnd.google-earth.kml+xml",
    gpkg: "application/geopackage+sqlite3",
  }[ext] || "application/octet-stream";
}

/**
 * The file input. `ctx`: {runCheck(upload, drawn), setLink(hash), reportCard(), focusReport()}:
 * a file that cannot be a plan is refused here, with its own message, and clears the link.
 */
export function setupUpload(ctx) {
  const input = $("upload");
  input.addEventListener("change", async () => {
    const file = input.files && input.files[0];
    if (!file) return;
    const status = $("check-status");
    let body;
    try {
      body = await file.arrayBuffer();
    } catch (err) {
      renderError(status, "Could not read the file", err);
      return;
    }
    const problem = precheck(file.name || "the file", body);
    if (problem) {
      input.value = "";
      ctx.setLink("");
      status.textContent = "Not checked: the file cannot be a plan (see below).";
      status.className = "check-status bad";
      renderError(ctx.reportCard(), "This file cannot be checked", { detail: problem });
      ctx.focusReport();
      return;
    }
    // Sent as-is: the server tells the format by its bytes and answers problem+json (413 / 422).
    await ctx.runCheck({ body, contentType: uploadType(file), name: file.name || "uploaded file" }, null);
    input.value = "";
  });
  setupCrsForm(ctx.runCheck);
}

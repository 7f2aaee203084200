// Small fetch helpers for the Outfall HTTP API (see notes/contract.md).
// Every call is guarded: failures become ApiError with the problem+json `detail`
// when the server sent one, never an unhandled rejection or a console error.

export class ApiError extends Error {
  constructor(status, title, detail, url) {
    super(detail || title || `HTTP ${status}`);
    this.name = "ApiError";
    this.status = status;
    this.title = title || "";
    this.detail = detail || "";
    this.url = url || "";
    // The server answers `crs_required: true` when an upload's coordinate system must be chosen.
    this.crsRequired = false;
  }
}

const DEFAULT_TIMEOUT_MS = 30000;

/** Absolute URL on this server (MapLibre's workers need absolute URLs). */
export function absUrl(path) {
  return new URL(path, window.location.href).href;
}

async function problemFrom(res, url) {
  let title = res.statusText || "";
  let detail = "";
  let crsRequired = false;
  try {
    const text = await res.text();
    if (text) {
      try {
        const body = JSON.parse(text);
        if (body && typeof body === "object") {
          title = body.title || title;
          detail = body.detail || body.message || body.error || "";
          crsRequired = body.crs_required === true;
        }
      } catch {
        detail = text.slice(0, 500);
      }
    }
  } catch {
    /* body unreadable: keep the status line */
  }
  const err = new ApiError(res.status, title, detail, url);
  err.crsRequired = crsRequired;
  return err;
}

/**
 * fetch + JSON with a timeout. Resolves to the parsed body; rejects with ApiError.
 * opts: {method, body, headers, timeoutMs, signal}
 */
export async function fetchJSON(path, opts = {}) {
  const url = absUrl(path);
  const ctrl = new AbortController();
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const timer = setTimeout(() => ctrl.abort(), timeoutMs);
  if (opts.signal) {
    if (opts.signal.aborted) ctrl.abort();
    else opts.signal.addEventListener("abort", () => ctrl.abort(), { once: true });
  }
  let res;
  try {
    res = await fetch(url, {
      method: opts.method || "GET",
      body: opts.body,
      headers: { Accept: "application/json", ...(opts.headers || {}) },
      signal: ctrl.signal,
    });
  } catch (err) {
    clearTimeout(timer);
    if (opts.signal && opts.signal.aborted) {
      throw new ApiError(0, "Cancelled", "The request was cancelled.", url);
    }
    const why = ctrl.signal.aborted ? `no answer within ${Math.round(timeoutMs / 1000)} s` : String(err && err.message || err);
    throw new ApiError(0, "Network error", `Could not reach the server (${why}).`, url);
  }
  clearTimeout(timer);
  if (!res.ok) throw await problemFrom(res, url);
  if (res.status === 204) return null;
  try {
    return await res.json();
  } catch {
    throw new ApiError(res.status, "Bad response", "The server's answer was not valid JSON.", url);
  }
}

/** Probe a URL (e.g. a basemap style) with a short timeout; resolves to JSON or null. */
export async function tryFetchJSON(url, timeoutMs = 4000) {
  const ctrl = new AbortController();
  const timer = setTimeout(() => ctrl.abort(), timeoutMs);
  try {
    const res = await fetch(url, { signal: ctrl.signal, headers: { Accept: "application/json" } });
    if (!res.ok) return null;
    return await res.json();
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

export const api = {
  config: () => fetchJSON("/config"),
  collections: () => fetchJSON("/collections"),
  /** The rulebook: every rule with its settings (the thresholds the viewer shows). */
  rules: () => fetchJSON("/rules"),
  items: (id, limit = 10000) => fetchJSON(`/collections/${encodeURIComponent(id)}/items?limit=${limit}`),
  /** All items of a collection, following OGC `next` links when the server pages (max 50 pages). */
  itemsAll: async (id, limit = 10000) => {
    const first = await fetchJSON(`/collections/${encodeURIComponent(id)}/items?limit=${limit}`);
    const fc = first && Array.isArray(first.features) ? first : { type: "FeatureCollection", features: [] };
    let page = first;
    for (let i = 0; i < 50 && page; i++) {
      const next = Array.isArray(page.links) && page.links.find((l) => l && l.rel === "next" && l.href);
      if (!next) break;
      const url = new URL(next.href, window.location.href);
      if (url.origin !== window.location.origin) break;
      page = await fetchJSON(url.pathname + url.search);
      if (!page || !Array.isArray(page.features) || !page.features.length) break;
      fc.features.push(...page.features);
    }
    return fc;
  },
  sites: (status) => fetchJSON(status ? `/sites?status=${encodeURIComponent(status)}` : "/sites"),
  siteReport: (id) => fetchJSON(`/sites/${encodeURIComponent(id)}/report`),
  siteTrace: (id) => fetchJSON(`/sites/${encodeURIComponent(id)}/trace`),
  parcelReport: (id) => fetchJSON(`/parcels/${encodeURIComponent(id)}/receiving-waters`),
  search: (q, signal) => fetchJSON(`/search?q=${encodeURIComponent(q)}`, { signal }),
  /** body: text or bytes; upload: {contentType, name, crs} (see uploadHeaders, checkQuery). */
  check: (body, upload = {}) =>
    fetchJSON(`/check${checkQuery(upload)}`, {
      method: "POST",
      body,
      headers: uploadHeaders(upload),
      timeoutMs: 60000,
    }),
  siteReportHtmlUrl: (id) => `/sites/${encodeURIComponent(id)}/report.html`,
  parcelReportHtmlUrl: (id) => `/parcels/${encodeURIComponent(id)}/report.html`,
  tileUrl: (id) => absUrl(`/collections/${encodeURIComponent(id)}/tiles/WebMercatorQuad/`) + "{z}/{y}/{x}",
};

/** The headers of an upload to /check and its exports: its media type, and its name (the
 * report names the file) as a Content-Disposition filename. */
export function uploadHeaders(upload = {}) {
  const h = { "Content-Type": upload.contentType || "application/json" };
  if (upload.name) h["Content-Disposition"] = `attachment; filename*=UTF-8''${encodeURIComponent(upload.name)}`;
  return h;
}

/** "?crs=EPSG:n" when the user chose the upload's coordinate system (it overrides a missing
 * .prj or the GeoJSON default), else "". */
export function checkQuery(upload = {}) {
  return upload.crs ? `?crs=${encodeURIComponent(upload.crs)}` : "";
}

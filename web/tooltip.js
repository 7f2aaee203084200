// What a hover on the map says: a parcel's id and address, or a site's name, its risk (peak
// acres, the conditions, what needs data) and its status in words.
import { parcelIdOf } from "./map.js";
import { codeWords } from "./words.js";
import { fmtAcres } from "./dom.js";
import { overLimit } from "./thresholds.js";

function siteName(state, id) {
  const s = state.sites.find((x) => String(x.id) === String(id));
  if (s && s.name) return s.name;
  const f = ((state.layers.data.sites && state.layers.data.sites.features) || []).find((x) => String(x.properties && x.properties.id) === String(id));
  return (f && f.properties && f.properties.name) || "";
}

/** "2.57 ac at once (2.57 total) · Conditions A, C" — what a hover on a site says. */
function riskWords(x) {
  const ac = (v) => fmtAcres(Number(v) || 0);
  const c = x.conditions || {};
  const on = ["A", "B", "C"].filter((k) => c[k] === true);
  const open = ["A", "B", "C"].filter((k) => c[k] == null);
  let t = `${ac(x.peak_acres)} at once (${ac(x.total_acres)} total)`;
  t += on.length ? ` · Condition${on.length > 1 ? "s" : ""} ${on.join(", ")}` : " · no condition A/B/C";
  if (open.length) t += ` · ${open.join(", ")} needs data`;
  if (c.five_acre_limit_exceeded === true) t += ` · ${overLimit()} at once`;
  return t;
}

/** The hover text of a rendered feature; `state` is the viewer's (sites, allSites, layers). */
export function tooltipFor(state, f) {
  const p = f.properties || {};
  const lid = f.layer && f.layer.id;
  if (lid === "parcels-fill") {
    const keys = Object.keys(p);
    const k = keys.find((x) => /^(address|addr|site_addr|full_addr|location|loc_addr|name)$/i.test(x)) || keys.find((x) => /addr/i.test(x));
    const label = k && p[k] != null ? String(p[k]) : "";
    return `Parcel ${parcelIdOf(p, f.id) ?? ""}${label ? " · " + label : ""}`;
  }
  if (lid === "storm-structures-circle") {
    const kind = String(p.kind || "structure").replace("_", " ");
    return `Storm ${kind} ${p.id ?? ""}${p.kind === "outfall" ? " · click: what drains to it" : ""}`;
  }
  if (lid === "flowlines-line" || lid === "waterbodies-fill") {
    const name = p.display_name || p.name || "unnamed water";
    return `Water · ${name}${p.pwl_id ? ` · PWL ${p.pwl_id}` : ""} · click: its card`;
  }
  const sid = p.site_id ?? p.id;
  const name = siteName(state, sid);
  let t = `Site ${sid}${name ? " · " + name : ""}`;
  const risk = state.allSites.find((x) => String(x.id) === String(sid));
  if (risk) t += ` · ${riskWords(risk)}`;
  if (lid !== "site-points" && lid !== "sites-fill") {
    if (p.phase != null && p.phase !== "") t += ` · phase ${p.phase}`;
    if (p.start) t += ` · ${p.start} → ${p.end || "open"}`;
  }
  // The status read from the typed record (the /sites list), never the data's raw word.
  const status = p.status_code ? codeWords(p.status_code) : risk && risk.status ? codeWords(risk.status) : "";
  if (status) t += ` · ${status}`;
  return t;
}

// A water's card, opened from search or by a click on the water: its PWL ID, its class, its
// listing (category in words, causes, list year) as the loaded 303(d) list gives it, its TMDL
// status as the sites' traced paths find it (a conflict with category 5 flagged), DEC's fact
// sheet when the PWL table links one, and the sites that drain to it. A fact the loaded data
// do not hold says so.
import { api, fetchJSON } from "./api.js";
import { h, fmtDist } from "./dom.js";
import { categoryWords, conflictEl, tmdlsCovering } from "./summary.js";

let listing = null;
const reports = new Map();

/** The loaded 303(d) rows, once per page load. */
async function impairedRows() {
  if (!listing) {
    listing = fetchJSON("/collections/impaired/items?limit=10000").then(
      (fc) => (fc && Array.isArray(fc.features) ? fc.features.map((f) => f.properties || {}) : []),
      () => null,
    );
  }
  return listing;
}

/** Every listed site's report (its traced path), each fetched once; a failed one is left out. */
async function siteReports(sites) {
  const all = await Promise.all((sites || []).map((s) => {
    const id = String(s.id);
    if (!reports.has(id)) reports.set(id, api.siteReport(id).catch(() => { reports.delete(id); return null; }));
    return reports.get(id);
  }));
  return all.filter(Boolean);
}

const MISSING = "not in the loaded data";
/** The columns a water or PWL row may link DEC's fact sheet in (data/clay: `fact_sheet`, from the PWL table). */
const LINK_FIELDS = ["fact_sheet", "factsheet", "fact_sheet_url", "url", "link", "pwl_url"];

function linkOf(...rows) {
  for (const r of rows) {
    for (const k of LINK_FIELDS) {
      const v = r && r[k];
      if (typeof v === "string" && /^https?:\/\//.test(v.trim())) return v.trim();
    }
  }
  return null;
}

/**
 * How a report's path meets the water: as its first receiving water, or downstream at a
 * distance; the listed entry (for its TMDLs) when the report lists it. Null when it does not.
 */
function meeting(report, pwl, name, featureId) {
  // A name stands for the water only when it is a real one: "unnamed tributary to …" names
  // many streams.
  const named = name && !/^unnamed\b/i.test(name) ? name : null;
  const first = (named != null && (report.receiving_water_names || []).includes(named))
    || (report.receiving_waters || []).some((w) => String(w.id) === featureId);
  const reach = (report.downstream || []).find((r) =>
    (pwl && (String(r.segment || "") === pwl || (r.impaired_ids || []).map(String).includes(pwl)))
    || String(r.id) === featureId || (named != null && r.name === named));
  if (!first && !reach) return null;
  const listed = (report.impaired_waters || []).find((w) => pwl && String(w.id) === pwl)
    || (reach ? { reach_id: reach.id } : null);
  return { report, first, distance_m: reach ? reach.distance_m : 0, covering: listed ? tmdlsCovering(listed, report) : [], listed };
}

function tmdlText(met, anyPath) {
  const seen = new Map();
  for (const m of met) for (const t of m.covering) seen.set(t.id, t);
  if (seen.size) return [...seen.values()].map((t) => `${t.name || t.id}${t.pollutant ? ` (${t.pollutant})` : ""}`).join("; ");
  return anyPath ? "none recorded on the paths that reach it" : "not decided: no site's traced path reaches this water";
}

function sitesEl(met, ctx) {
  if (!met.length) return h("p", { class: "small", "data-testid": "water-sites" }, "No site in the registry drains to it.");
  const sorted = [...met].sort((a, b) => (b.first - a.first) || (a.distance_m - b.distance_m));
  return h("ul", { "data-testid": "water-sites" }, sorted.map((m) => {
    const s = m.report.site || {};
    const how = m.first ? "first receiving water" : `downstream, ${fmtDist(m.distance_m)} along the path`;
    return h("li", { "data-site": String(s.id) },
      h("button", { type: "button", class: "link-btn", onclick: () => ctx.openSite(String(s.id)) }, `${s.id} — ${s.name || ""}`),
      ` · ${how}`);
  }));
}

/**
 * The card of the water `feature` (a flowline or waterbody, as served). `ctx`: {sites (the
 * /sites list), openSite(id)}.
 */
export async function waterCard(feature, ctx) {
  const p = feature.properties || {};
  const name = p.display_name || p.name || `water ${p.id}`;
  const pwl = p.pwl_id ? String(p.pwl_id) : "";
  const [rows, all] = await Promise.all([pwl ? impairedRows() : [], siteReports(ctx.sites)]);
  const mine = (rows || []).filter((r) => String(r.id) === pwl);
  const causes = [...new Set(mine.flatMap((r) => String(r.causes || "").split(/\s*[,;]\s*/)).filter(Boolean))];
  const cat = mine.find((r) => r.category != null);
  const year = mine.find((r) => r.list_year != null);
  const listed = !pwl ? "no PWL segment is joined to this water"
    : rows == null ? "the 303(d) list could not be read"
      : mine.length ? `category ${cat ? cat.category : "not given"}: ${cat ? categoryWords(cat.category) : ""}`
        : `no listing for ${pwl} in the list loaded`;
  const met = all.map((r) => meeting(r, pwl, name, String(p.id))).filter(Boolean);
  const covering = [...new Map(met.flatMap((m) => m.covering).map((t) => [t.id, t])).values()];
  const conflict = cat ? conflictEl({ id: pwl, name, category: cat.category, causes, list_year: year && year.list_year }, covering) : null;
  const link = linkOf(p, ...mine);
  const facts = [
    ["PWL ID", pwl || MISSING],
    ["Water class", p.pwl_class || p.class || p.classification || MISSING],
    ["303(d) listing", listed],
    ["Causes", causes.length ? causes.join(", ") : mine.length ? "not given" : "—"],
    ["List year", year ? String(year.list_year) : "—"],
    ["TMDL", tmdlText(met, met.length > 0)],
    ["DEC fact sheet", link ? h("a", { href: link, target: "_blank", rel: "noopener", "data-testid": "fact-sheet" }, "open") : "the loaded PWL table links none"],
  ];
  return h("article", { class: "water-card", "data-testid": "water-card", "data-pwl-id": pwl, "data-water-id": String(p.id ?? "") },
    h("p", { class: "eyebrow" }, "Water"),
    h("h2", { id: "report-title", "data-testid": "report-title" }, name),
    h("dl", { class: "kv" }, facts.flatMap(([k, v]) => [h("dt", {}, k), h("dd", { "data-fact": k }, v)])),
    conflict,
    h("h3", {}, "Sites that drain to it"),
    sitesEl(met, ctx));
}

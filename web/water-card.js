// A water's card, opened from search: its PWL ID, its listing (category in words, causes, list
// year) as the loaded 303(d) list gives it, and the sites whose first receiving water it is.
// A fact the loaded data do not hold (the water's class, DEC's fact sheet) says so.
import { fetchJSON } from "./api.js";
import { h } from "./dom.js";
import { categoryWords } from "./summary.js";

let listing = null;

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

const MISSING = "not in the loaded data";

/**
 * The card of the water `feature` (a flowline or waterbody, as served). `ctx`: {sites (the
 * /sites list), openSite(id)}.
 */
export async function waterCard(feature, ctx) {
  const p = feature.properties || {};
  const name = p.display_name || p.name || `water ${p.id}`;
  const pwl = p.pwl_id ? String(p.pwl_id) : "";
  const rows = pwl ? await impairedRows() : [];
  const mine = (rows || []).filter((r) => String(r.id) === pwl);
  const causes = [...new Set(mine.flatMap((r) => String(r.causes || "").split(/\s*,\s*/)).filter(Boolean))];
  const cat = mine.find((r) => r.category != null);
  const year = mine.find((r) => r.list_year != null);
  const listed = !pwl ? "no PWL segment is joined to this water"
    : rows == null ? "the 303(d) list could not be read"
      : mine.length ? `category ${cat ? cat.category : "not given"}: ${cat ? categoryWords(cat.category) : ""}`
        : `no listing for ${pwl} in the list loaded`;
  const draining = (ctx.sites || []).filter((s) => (s.receiving_water_names || []).includes(name));
  const facts = [
    ["PWL ID", pwl || MISSING],
    ["Water class", p.class || p.classification || MISSING],
    ["303(d) listing", listed],
    ["Causes", causes.length ? causes.join(", ") : mine.length ? "not given" : "—"],
    ["List year", year ? String(year.list_year) : "—"],
    ["TMDL", "decided along each site's path: see a site's report"],
    ["DEC fact sheet", p.fact_sheet ? h("a", { href: String(p.fact_sheet), target: "_blank", rel: "noopener" }, "open") : MISSING],
  ];
  return h("article", { class: "water-card", "data-testid": "water-card", "data-pwl-id": pwl },
    h("p", { class: "eyebrow" }, "Water"),
    h("h2", { id: "report-title", "data-testid": "report-title" }, name),
    h("dl", { class: "kv" }, facts.flatMap(([k, v]) => [h("dt", {}, k), h("dd", { "data-fact": k }, v)])),
    h("h3", {}, "Sites whose first receiving water it is"),
    draining.length
      ? h("ul", { "data-testid": "water-sites" }, draining.map((s) => h("li", {}, h("button", { type: "button", class: "link-btn", onclick: () => ctx.openSite(s.id) }, `${s.id} — ${s.name || ""}`))))
      : h("p", { class: "small", "data-testid": "water-sites" }, "No site in the registry names it first."));
}

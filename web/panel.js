// Side panel rendering: sites list, search results, report. DOM only, no map calls.
import { exportLinks } from "./export.js";
import { statusLabel, codeWords, bodyWords, exemption, EVIDENCE, triWords } from "./words.js";
import { h, fmtAcres } from "./dom.js";
import { summaryEl, listedEl, entryWords, downstreamEl, receivingEl } from "./summary.js";
import { conditionB, conditionC, inspections, limitBadge, limitName, overLimit } from "./thresholds.js";

export { h, fmtAcres };

const NEEDS_DATA = "Needs data";

/**
 * Every condition and finding is tri-state: null means the loaded data cannot decide it.
 * The string form is what `data-value` carries, so tests can compare it with the JSON.
 */
export function triState(v) {
  return v === true ? "true" : v === false ? "false" : "null";
}

// CSS class per state; "needs-data" must never look like "not-met" (No).
const TRI_CLASS = { true: "met", false: "not-met", null: "needs-data" };

function yesNo(v) {
  return { true: "Yes", false: "No", null: NEEDS_DATA }[triState(v)];
}

// `rule` is the finding id that explains the row. Optional rows are hidden for reports
// that carry neither the key nor a finding (older servers).
export const CONDITION_ROWS = [
  { key: "in_jurisdiction", rule: "jurisdiction", label: "Inside the town (law applies)", optional: true },
  { key: "exempt", rule: "exemption", label: "Exemption applies", optional: true },
  { key: "land_development_activity", rule: "land_development_activity", label: "Land development activity" },
  { key: "A", rule: "condition_a", label: "Condition A" },
  { key: "B", rule: "condition_b", label: "Condition B" },
  { key: "C", rule: "condition_c", label: "Condition C" },
  // The limit's acres come from /rules: the label is read when a report is drawn.
  { key: "five_acre_limit_exceeded", rule: "five_acre_limit", get label() { return `${limitName()} exceeded`; } },
];

const RULE_TO_CONDITION = new Map(CONDITION_ROWS.map((c) => [c.rule, c.key]));

/** The condition row a finding explains, or null for a requirement (stable rule ids). */
export function findingCondition(rule) {
  return RULE_TO_CONDITION.get(String(rule || "")) || null;
}

// Requirement findings: met true means the duty applies to this site, so the words say so.
const REQUIRED = { yes: "Required", no: "Not required" };
const APPLIES = { yes: "Applies", no: "Does not apply" };
export const REQUIREMENTS = {
  swppp_required: { title: "SWPPP required", ...REQUIRED },
  active_without_approval: { title: "Active without a recorded SWPPP approval", ...APPLIES },
  receiving_waters: { title: "Receiving waters named in the SWPPP", ...REQUIRED },
  phasing: { title: "Phasing (each piece stabilised before the next is cleared)", ...REQUIRED },
  swppp_full: { title: "Full SWPPP with post-construction controls", ...REQUIRED },
  swppp_preparer: { title: "SWPPP prepared by a licensed professional", ...REQUIRED },
  inspections: { get title() { return inspections(); }, ...REQUIRED },
};

/** Title and outcome words for a requirement; an id the viewer does not know still shows. */
function requirementSpec(rule) {
  return REQUIREMENTS[rule] || { title: String(rule || "Finding"), ...APPLIES };
}

function outcomeWords(v, spec) {
  return { true: spec.yes, false: spec.no, null: NEEDS_DATA }[triState(v)];
}

export function conditionCount(conds) {
  if (!conds) return 0;
  return ["A", "B", "C"].filter((k) => conds[k] === true).length;
}

const BADGE = {
  true: { cls: "on", mark: "✓", words: "applies" },
  false: { cls: "off", mark: "–", words: "does not apply" },
  null: { cls: "needs-data", mark: "?", words: "needs data" },
};

function condBadge(k, v) {
  const t = triState(v);
  const b = BADGE[t];
  const label = `Condition ${k}: ${b.words}`;
  // role=img gives the badge a spoken name inside the site button; "A?" alone means nothing.
  return h("span", { class: `badge ${b.cls}`, "data-condition": k, "data-value": t, title: label, role: "img", "aria-label": label }, `${k}${b.mark}`);
}

function condBadges(conds) {
  const c = conds || {};
  const wrap = h("span", { class: "badges" });
  if (c.in_jurisdiction === false) {
    wrap.appendChild(h("span", { class: "badge outside", title: "Outside the Town: the local law does not apply" }, "outside"));
  }
  for (const k of ["A", "B", "C"]) wrap.appendChild(condBadge(k, c[k]));
  if (c.exempt === true) wrap.appendChild(h("span", { class: "badge", title: "An exemption applies" }, "exempt"));
  if (c.five_acre_limit_exceeded === true) {
    wrap.appendChild(h("span", { class: "badge warn", title: `${limitName()} exceeded` }, limitBadge()));
  }
  return wrap;
}

/** What the badges say, in words, above the list (the acres from /rules). */
export function badgeKey() {
  return `A: drains to an impaired water or TMDL watershed · B: ${conditionB()} · C: ${conditionC()} · ✓ applies, – does not, ? needs data · ${limitBadge()}: ${overLimit()} disturbed at once`;
}

/** Render the list of sites (already sorted). onPick(site). */
/** opts.showStatus: add each site's status in words (the list is not filtered by status). */
export function renderSites(ul, sites, onPick, selectedId, opts = {}) {
  ul.textContent = "";
  if (!sites.length) {
    ul.appendChild(h("li", { class: "empty" }, "No sites."));
    return;
  }
  for (const s of sites) {
    const waters = (s.receiving_water_names || []).join(", ");
    const btn = h(
      "button",
      {
        type: "button",
        class: "site-btn",
        "aria-pressed": String(selectedId != null && String(selectedId) === String(s.id)),
        onclick: () => onPick(s),
      },
      h("span", { class: "site-name" }, s.name || s.id),
      h("span", { class: "site-meta" }, h("span", { class: "site-id" }, String(s.id)), " · ", fmtAcres(s.total_acres), s.peak_acres != null ? ` (peak ${fmtAcres(s.peak_acres)})` : "",
        opts.showStatus ? h("span", { class: "site-status", "data-testid": "site-status" }, ` · ${s.status ? codeWords(s.status) : "status not known"}`) : null),
      condBadges(s.conditions),
      s.address ? h("span", { class: "site-addr" }, s.address) : null,
      waters ? h("span", { class: "site-waters" }, "→ ", waters) : null,
    );
    ul.appendChild(h("li", { "data-testid": "site-item", "data-site-id": String(s.id) }, btn));
  }
}

export function sortSites(sites, by) {
  const arr = sites.slice();
  const name = (s) => String(s.name || s.id || "");
  if (by === "acres") arr.sort((a, b) => (Number(b.total_acres) || 0) - (Number(a.total_acres) || 0) || name(a).localeCompare(name(b)));
  else if (by === "conditions")
    arr.sort(
      (a, b) =>
        conditionCount(b.conditions) - conditionCount(a.conditions) ||
        (b.conditions?.A === true) - (a.conditions?.A === true) ||
        (Number(b.total_acres) || 0) - (Number(a.total_acres) || 0),
    );
  else arr.sort((a, b) => name(a).localeCompare(name(b), undefined, { numeric: true }));
  return arr;
}

export function renderSearchResults(ul, results, onPick) {
  ul.textContent = "";
  if (!results.length) {
    ul.appendChild(h("li", { class: "empty" }, "No matches."));
    return;
  }
  for (const r of results) {
    ul.appendChild(
      h(
        "li",
        { "data-testid": "search-result", "data-kind": r.kind, "data-id": String(r.id) },
        h("button", { type: "button", class: "result-btn", onclick: () => onPick(r) },
          h("span", { class: `kind kind-${r.kind}` }, r.kind || "?"),
          " ",
          r.label || String(r.id)),
      ),
    );
  }
}

/** Values of the site record no vocabulary knows: warnings, since the rules that need them
 * answer "needs data". */
function recordProblemsEl(problems) {
  if (!Array.isArray(problems) || !problems.length) return null;
  return h("div", { class: "banner record-problems", role: "note", "data-testid": "record-problems" },
    h("strong", {}, "The site record has values no vocabulary knows:"),
    h("ul", {}, problems.map((p) => h("li", { "data-testid": "record-problem" }, String(p)))));
}

/** A yes / no / needs data fact, with the source that decided it. */
function sourcedFact(label, v, source, key) {
  return [h("dt", {}, label), h("dd", { "data-testid": `fact-${key}`, "data-value": triState(v) }, triWords(v),
    source ? h("span", { class: "small source" }, ` (${source})`) : null)];
}

/** "approved 2026-03-20 · SWPPP-2026-014 · Stormwater Management Officer". */
function approvalEl(a) {
  if (!a) return h("dd", { "data-testid": "fact-approval", "data-value": "null" }, "none recorded");
  const parts = [a.date ? `on ${a.date}` : "(no date recorded)", a.reference, a.body ? `by the ${bodyWords(a.body)}` : null].filter(Boolean);
  return h("dd", { "data-testid": "fact-approval", "data-value": a.decision },
    h("span", { "data-testid": "approval-decision-text" }, a.decision), ` ${parts.join(" · ")}`,
    a.source && a.source !== "swppp_approval" ? h("span", { class: "small source" }, ` (read from ${a.source})`) : null);
}

/** One claimed exemption: its clause in the law's words, its evidence, and who verified it. */
function claimEl(c) {
  const ex = exemption(c.code);
  const head = ex ? `(5)(${ex.code}) ${ex.words}` : `“${c.stated}” (names no clause of (5))`;
  const evidence = (ex ? ex.evidence : []).map((k) => {
    const v = c.evidence ? c.evidence[k] : null;
    const shown = EVIDENCE[k].type === "date" ? (v || "needs data") : triWords(v);
    return h("li", { "data-evidence": k }, `${EVIDENCE[k].words}: ${shown}`);
  });
  const verified = c.verified_by || c.verified_on
    ? `verified${c.verified_by ? ` by ${c.verified_by}` : ""}${c.verified_on ? ` on ${c.verified_on}` : ""}`
    : "not verified by the officer";
  return h("li", { "data-testid": "exemption-claim", "data-code": c.code || "", "data-verified": String(Boolean(c.verified_by || c.verified_on)) },
    h("span", {}, head), " ", h("span", { class: "small" }, `— ${verified}`),
    evidence.length ? h("ul", { class: "small" }, evidence) : null);
}

/** The site facts list: land use with its source, plan, approval, exemptions, parcels. */
function siteFacts(site) {
  const facts = [];
  if (site.status || site.status_recorded) {
    facts.push(h("dt", {}, "Status"), h("dd", { "data-testid": "fact-status", "data-value": site.status || "null" }, statusLabel(site.status, site.status_recorded) || "needs data",
      site.status && site.status_recorded && site.status_recorded !== site.status && site.status_recorded !== codeWords(site.status)
        ? h("span", { class: "small source" }, ` (recorded as “${site.status_recorded}”)`) : null));
  }
  if (site.kind !== "drawn" || site.single_family != null) facts.push(...sourcedFact("Single-family residence", site.single_family, site.single_family_source, "single_family"));
  if (site.kind !== "drawn" || site.agricultural != null) facts.push(...sourcedFact("Agricultural", site.agricultural, site.agricultural_source, "agricultural"));
  if (site.kind !== "drawn" || site.common_plan != null) {
    facts.push(...sourcedFact("Part of a common plan", site.common_plan, site.common_plan_acres != null ? `${site.common_plan_acres} ac plan` : null, "common_plan"));
  }
  if (site.kind !== "drawn" || site.swppp_approval) facts.push(h("dt", {}, "SWPPP decision"), approvalEl(site.swppp_approval));
  const claims = Array.isArray(site.exemption_claims) ? site.exemption_claims : [];
  if (claims.length) facts.push(h("dt", {}, "Exemptions claimed"), h("dd", {}, h("ul", { class: "claims", "data-testid": "exemption-claims" }, claims.map(claimEl))));
  else if (Array.isArray(site.exemptions) && site.exemptions.length) facts.push(h("dt", {}, "Exemptions"), h("dd", {}, site.exemptions.join(", ")));
  if (Array.isArray(site.parcel_ids) && site.parcel_ids.length) facts.push(h("dt", {}, "Parcels"), h("dd", {}, site.parcel_ids.join(", ")));
  return facts;
}

/**
 * Render a report (contract "Report JSON").
 * ctx: {source: "site"|"parcel"|"check", onZoom, onPrint, printUrl}
 */
export function renderReport(container, report, ctx = {}) {
  container.textContent = "";
  const site = report.site || {};
  const dist = report.disturbance || {};
  const conds = report.conditions || {};
  const findings = Array.isArray(report.findings) ? report.findings : [];

  const kindLabel = { site: "Construction site", parcel: "Parcel", check: "Checked polygon" }[ctx.source] || "Report";
  const title = site.name || site.address || site.id || kindLabel;
  // On paper a report says whose it is and under which law, as the server's printed page does.
  const law = report.data && report.data.law;
  container.appendChild(h("p", { class: "print-only print-head", "data-testid": "print-head" }, [ctx.town, law].filter(Boolean).join(" · ")));
  container.appendChild(
    h("header", { class: "report-head" },
      h("p", { class: "eyebrow" }, kindLabel, site.id ? ` · ${site.id}` : "", statusLabel(site.status, site.status_recorded) ? ` · ${statusLabel(site.status, site.status_recorded)}` : ""),
      h("h2", { id: "report-title", "data-testid": "report-title" }, title),
      site.address && site.address !== title ? h("p", { class: "addr" }, site.address) : null,
      site.applicant ? h("p", { class: "addr" }, `Applicant: ${site.applicant}`) : null,
    ),
  );
  const recordProblems = recordProblemsEl(site.record_problems);
  if (recordProblems) container.appendChild(recordProblems);
  // Only a definite false: a null jurisdiction is shown on its row as "Needs data".
  if (conds.in_jurisdiction === false) {
    container.appendChild(h("p", { class: "banner outside", role: "note", "data-testid": "outside-banner" },
      h("strong", {}, "Outside the Town:"), " the local law does not apply here. Facts are shown for information."));
  }

  // Actions
  const actions = h("div", { class: "report-actions" });
  if (ctx.printUrl) {
    actions.appendChild(h("a", { class: "button", href: ctx.printUrl, target: "_blank", rel: "noopener", "data-testid": "print-report" }, "Print / open report"));
  } else {
    actions.appendChild(h("button", { type: "button", onclick: () => window.print(), "data-testid": "print-report" }, "Print this report"));
  }
  if (ctx.recordUrl) actions.appendChild(h("a", { class: "button", href: ctx.recordUrl, target: "_blank", rel: "noopener", "data-testid": "record-link" }, "History & inspection logbook"));
  if (ctx.onZoom) actions.appendChild(h("button", { type: "button", onclick: ctx.onZoom }, "Zoom to"));
  if (ctx.onClose) actions.appendChild(h("button", { type: "button", onclick: ctx.onClose }, "Close"));
  container.appendChild(actions);
  container.appendChild(summaryEl(report));
  container.appendChild(exportLinks(report));

  // 1. Receiving waters: the applicant's answer.
  container.appendChild(receivingEl(report));

  // 2. Conditions with reasons and clauses, then the requirements that follow from them.
  for (const el of conditionsEls(conds, findings)) container.appendChild(el);

  // 3. Acres.
  container.appendChild(acresEl(dist));

  // 4. Downstream, then the listed waters with their category and TMDL status.
  container.appendChild(downstreamEl(report, ctx));
  const listed = listedEl(report);
  if (listed) container.appendChild(listed);

  // 5. TMDL.
  const tmdl = Array.isArray(report.tmdl_watersheds) ? report.tmdl_watersheds : [];
  if (tmdl.length) {
    container.appendChild(h("section", { class: "tmdl", "aria-labelledby": "tm-h" }, h("h3", { id: "tm-h" }, "TMDL watersheds"),
      h("ul", {}, tmdl.map((t) => h("li", {}, h("strong", {}, t.name || t.id), t.pollutant ? ` — ${t.pollutant}` : "",
        t.stormwater_source === true ? " (stormwater listed as a source)" : "",
        nameOf(t.via) ? h("span", { class: "small via" }, ` · enters via ${nameOf(t.via)}`) : null)))));
  }

  // 6. Site facts (the typed record) and data provenance.
  const facts = siteFacts(site);
  if (facts.length) {
    container.appendChild(h("details", { class: "facts", "data-testid": "site-facts" }, h("summary", {}, "Site facts"), h("dl", { class: "kv" }, facts)));
  }
  const provenance = provenanceEl(report.data);
  if (provenance) container.appendChild(provenance);
  container.appendChild(reviewEl());
}

/** The condition rows, each with the findings that explain it, then the requirements. */
function conditionsEls(conds, findings) {
  const byCond = new Map(CONDITION_ROWS.map((c) => [c.key, []]));
  const requirements = [];
  for (const f of findings) {
    const k = findingCondition(f.rule);
    if (k) byCond.get(k).push(f);
    else requirements.push(f);
  }
  const condSec = h("section", { class: "conditions", "aria-labelledby": "cond-h" }, h("h3", { id: "cond-h" }, "Conditions"));
  const list = h("div", { class: "cond-list", "data-testid": "conditions" });
  for (const c of CONDITION_ROWS) {
    if (c.optional && !(c.key in conds) && !byCond.get(c.key).length) continue;
    list.appendChild(conditionRow(c, conds[c.key], byCond.get(c.key)));
  }
  condSec.appendChild(list);
  if (!requirements.length) return [condSec];
  return [condSec, h("section", { class: "requirements", "aria-labelledby": "req-h" },
    h("h3", { id: "req-h" }, "Requirements"),
    h("div", { class: "req-list", "data-testid": "requirements" },
      requirements.map((f) => findingEl(f, requirementSpec(f.rule)))))];
}

/** The disturbed area: total, peak at one time, outside the listed parcels, each phase. */
function acresEl(dist) {
  const acres = h("section", { class: "acres", "aria-labelledby": "ac-h" }, h("h3", { id: "ac-h" }, "Disturbed area"),
    h("dl", { class: "kv" },
      h("dt", {}, "Total disturbed"), h("dd", { "data-testid": "total-acres" }, fmtAcres(dist.total_acres)),
      h("dt", {}, "Peak at one time"), h("dd", { "data-testid": "peak-acres" }, fmtAcres(dist.peak_acres), dist.peak_date ? ` on ${dist.peak_date}` : ""),
      Number(dist.outside_parcels_acres) > 0 ? [h("dt", {}, "Outside listed parcels"), h("dd", {}, fmtAcres(dist.outside_parcels_acres))] : null,
    ));
  const phases = Array.isArray(dist.phases) ? dist.phases : [];
  if (phases.length) {
    acres.appendChild(h("table", { class: "compact", "data-testid": "phases" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Phase"), h("th", { scope: "col" }, "Acres"), h("th", { scope: "col" }, "Start"), h("th", { scope: "col" }, "End"))),
      h("tbody", {}, phases.map((p) => h("tr", {}, h("td", {}, String(p.phase ?? "")), h("td", {}, fmtAcres(p.acres)), h("td", {}, p.start || "–"), h("td", {}, p.end || "open")))),
    ));
  }
  return acres;
}

/** Where the report's data came from: the law, the data set, each layer's file and hash. */
function provenanceEl(dd) {
  const layers = dd && Array.isArray(dd.layers) ? dd.layers : [];
  const problems = dd && Array.isArray(dd.problems) ? dd.problems : [];
  if (!layers.length) return null;
  return h("details", { class: "provenance" }, h("summary", {}, "Data used", dd.generated ? ` (generated ${dd.generated})` : ""),
    dd.law ? h("p", { class: "small" }, dd.law) : null,
    dd.data_set ? h("p", { class: "small" }, dd.data_set, dd.outfall_version ? ` · Outfall ${dd.outfall_version}` : "") : null,
    problems.length ? h("p", { class: "small" }, `${problems.length} data problem${problems.length > 1 ? "s" : ""} while loading: `,
      problems.slice(0, 5).map((p) => `${p.path} ${p.feature}: ${p.reason}`).join("; ")) : null,
    h("table", { class: "compact" }, h("tbody", {}, layers.map((l) =>
      h("tr", {}, h("td", {}, l.role || ""), h("td", {}, l.path || ""), h("td", {}, l.features != null ? String(l.features) : ""),
        h("td", { class: "mono", title: l.sha256 || "" }, (l.sha256 || "").slice(0, 12)))))));
}

/** The printed map's legend: what the report's map draws, in words. */
export function mapLegendEl() {
  const rows = [
    ["sw-site", "Disturbance (the site)"],
    ["sw-path", "Path of the discharge: entry reach and downstream"],
    ["sw-impaired", "Listed impaired water (303(d))"],
    ["sw-stream", "Other streams"],
    ["sw-outfall", "Applicant's outfall point"],
    ["sw-sewer", "Storm sewer from the site to the outfall"],
    ["sw-road", "Roads"],
  ];
  return h("ul", { class: "map-legend", "aria-label": "Map legend", "data-testid": "print-legend" },
    rows.map(([cls, words]) => h("li", {}, h("span", { class: `sw ${cls}`, "aria-hidden": "true" }), words)));
}

/** The officer's sign-off, on paper only. */
export function reviewEl() {
  return h("section", { class: "review print-only", "aria-label": "Review", "data-testid": "review-block" },
    h("span", { class: "review-label" }, "Reviewed by"), h("span", { class: "review-line" }),
    h("span", { class: "review-label" }, "Date"), h("span", { class: "review-line" }),
    h("span", { class: "review-label" }, "Notes"), h("span", { class: "review-line wide" }));
}

/** A water, reach or place given as a string or as {name, id}. */
function nameOf(v) {
  if (v == null || v === "") return "";
  if (typeof v === "object") return String(v.name || v.display_name || v.id || "");
  return String(v);
}

// Condition rows reuse the requirement layout; true always means "applies to this site".
const CONDITION_SPEC = { title: "", ...APPLIES };

function conditionRow(c, v, findings) {
  const t = triState(v);
  return h("div", {
    class: `cond-row ${TRI_CLASS[t]}`,
    "data-testid": `condition-${c.key}`,
    "data-condition": c.key,
    "data-value": t,
  },
    h("div", { class: "cond-top" },
      h("span", { class: "cond-label" }, c.label),
      h("span", { class: `cond-value tri tri-${t}`, "data-testid": `condition-${c.key}-value` }, yesNo(v))),
    findings.map((f) => findingEl(f, CONDITION_SPEC)),
  );
}

function findingEl(f, spec) {
  const t = triState(f.met);
  const missing = (Array.isArray(f.missing) ? f.missing : []).filter((m) => m != null && m !== "");
  return h("div", { class: `finding ${TRI_CLASS[t]}`, "data-testid": "finding", "data-rule": f.rule || "", "data-value": t },
    spec.title ? h("span", { class: "finding-title" }, spec.title) : null,
    f.clause ? h("span", { class: "clause", "data-testid": "clause" }, f.clause) : null,
    h("span", { class: `finding-met tri tri-${t}`, "data-testid": "finding-met" }, outcomeWords(f.met, spec)),
    f.reason ? h("p", { class: "reason" }, f.reason) : null,
    missing.length ? needsEl(missing) : null,
    factsEl(f.facts));
}

/** The facts the data lacks: what a reviewer has to go and find. */
function needsEl(missing) {
  return h("div", { class: "needs", "data-testid": "finding-needs" },
    h("span", { class: "needs-label" }, "Needs:"),
    h("ul", {}, missing.map((m) => h("li", {}, String(m)))));
}

function fmtFact(v, key) {
  if (v == null) return "not known";
  if (key === "entry_rule") return entryWords(v);
  // A code of the record ("under_construction") reads as words; ids and clauses keep their form.
  if (typeof v === "string" && /^[a-z]+(_[a-z]+)+$/.test(v)) return codeWords(v);
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : String(Math.round(v * 1000) / 1000);
  if (Array.isArray(v)) return v.length ? v.map((x) => fmtFact(x)).join(", ") : "none";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/** Folded so a long report stays scannable; printing unfolds every <details>. */
function factsEl(facts) {
  if (!facts || typeof facts !== "object" || Array.isArray(facts)) return null;
  const keys = Object.keys(facts);
  if (!keys.length) return null;
  return h("details", { class: "finding-facts" }, h("summary", {}, "Facts used"),
    h("dl", { class: "kv" }, keys.flatMap((k) => [h("dt", {}, k.replace(/_/g, " ")), h("dd", {}, fmtFact(facts[k], k))])));
}

/** Problem / error box: a title in words (the status code only beside words, and never for a
 * 422, whose detail says what is wrong), the server's detail, and advice when there is some. */
export function renderError(container, title, err, advice) {
  container.textContent = "";
  const status = err && err.status && err.status !== 422 ? ` (HTTP ${err.status})` : "";
  container.appendChild(
    h("div", { class: "problem", role: "alert", "data-testid": "problem" },
      h("strong", {}, title, status),
      h("p", { "data-testid": "problem-detail" }, (err && (err.detail || err.message)) || "Unknown error"),
      advice ? h("p", { class: "small", "data-testid": "problem-advice" }, advice) : null),
  );
}

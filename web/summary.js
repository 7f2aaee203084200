// The waters of a report, read the way an applicant and an officer need them: the one-glance
// summary on top, the receiving waters, the listed waters with their category and TMDL status
// as the data say (a conflict between the two flagged), and the downstream path with each
// water once. DOM only.
import { h, fmtDist } from "./dom.js";
import { triWords } from "./words.js";
import { inspections } from "./thresholds.js";

/** How the discharge reaches the network, in words (the report's stable rule ids). */
export const ENTRY_WORDS = {
  outfall_point: "outfall point given by the applicant",
  storm_sewer: "through the storm sewer to its outfall",
  catchment: "the catchment the site lies in",
  nearest: "assumed: the water nearest the site",
  unreadable_outfall: "the outfall given cannot be read",
  none: "no water found",
};

export function entryWords(rule) {
  return ENTRY_WORDS[String(rule || "")] || String(rule || "not known").replace(/_/g, " ");
}

/** The 303(d) / Integrated Report category in plain words (as on the printed page). */
export function categoryWords(cat) {
  const words = {
    "5": "impaired; the list says a TMDL is still needed",
    "4a": "impaired; a TMDL is in place",
    "4b": "impaired; other required controls are expected to fix it",
    "4c": "impaired by something that is not a pollutant (e.g. flow or habitat)",
    "4": "impaired; no TMDL needed or one is in place",
    "3": "not enough data to tell",
    "2": "some uses met, others not assessed",
    "1": "all uses met",
  };
  return words[String(cat ?? "").trim().toLowerCase()] || "category as given by the list";
}

/**
 * The TMDL watersheds a listed water lies in: a watershed given by the network holds every
 * reach on the path up to its outlet reach, so the water is in it when its reach comes at or
 * before that outlet. A watershed without an outlet reach decides nothing here.
 */
export function tmdlsCovering(water, report) {
  const path = Array.isArray(report.downstream) ? report.downstream : [];
  const at = path.findIndex((r) => String(r.id) === String(water && water.reach_id));
  if (at < 0) return [];
  return (Array.isArray(report.tmdl_watersheds) ? report.tmdl_watersheds : []).filter((t) => {
    if (!t.outlet_reach) return false;
    const out = path.findIndex((r) => String(r.id) === String(t.outlet_reach));
    return out >= at;
  });
}

/** A category 5 water ("a TMDL is still needed") inside a TMDL's watershed: both are shown as
 * the data say, with what the TMDL covers against the listed causes. Null when they agree. */
export function conflictEl(water, covering) {
  if (String(water.category || "").trim() !== "5" || !covering.length) return null;
  const causes = (water.causes || []).map((c) => String(c).toLowerCase());
  const parts = covering.map((t) => {
    const p = String(t.pollutant || "").toLowerCase();
    const matched = p && causes.some((c) => c.includes(p));
    return `${t.name || t.id}${t.pollutant ? ` (${t.pollutant})` : ""}${p ? (matched ? ", a listed cause" : ", not one of the listed causes") : ""}`;
  });
  return h("p", { class: "small conflict", role: "note", "data-testid": "tmdl-conflict" },
    h("strong", {}, "⚑ List and TMDL disagree: "),
    `the ${water.list_year || ""} list puts ${water.name || water.id} in category 5 (a TMDL is still needed), `.replace("the  list", "the list"),
    `yet a TMDL covers its watershed: ${parts.join("; ")}. Check DEC's current listing before relying on either.`);
}

/** The listed waters the discharge reaches: PWL ID, causes, category as listed, TMDL, year. */
export function listedEl(report) {
  const waters = report.impaired_waters;
  if (!Array.isArray(waters) || !waters.length) return null;
  const rows = waters.flatMap((w) => {
    const covering = tmdlsCovering(w, report);
    const conflict = conflictEl(w, covering);
    const row = h("tr", { class: conflict ? "conflict" : "", "data-testid": "listed-water", "data-pwl-id": String(w.id ?? "") },
      h("td", {}, w.name || w.id, w.causes && w.causes.length ? h("span", { class: "small" }, ` — ${w.causes.join(", ")}`) : null),
      h("td", { class: "mono", "data-testid": "pwl-id" }, String(w.id ?? "")),
      h("td", { "data-testid": "category" }, w.category ? `${w.category}: ${categoryWords(w.category)}` : "not given"),
      h("td", { "data-testid": "tmdl-status" }, covering.length ? covering.map((t) => `${t.name || t.id}${t.pollutant ? ` (${t.pollutant})` : ""}`).join("; ") : "none recorded"),
      h("td", {}, w.list_year || "not given"),
      h("td", {}, fmtDist(w.distance_m)));
    return conflict ? [row, h("tr", { class: "conflict-row" }, h("td", { colspan: "6" }, conflict))] : [row];
  });
  return h("section", { class: "listed", "aria-labelledby": "li-h", "data-testid": "listed-waters" },
    h("h3", { id: "li-h" }, "Listed waters (303(d))"),
    h("table", { class: "compact" },
      h("thead", {}, h("tr", {}, ["Water", "PWL ID", "Category (as listed)", "TMDL", "List year", "Along the path"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, rows)));
}

/** How the discharge reaches the network: the rule in words and the water it enters. */
export function entryEl(entry, waters) {
  const w = entry.water_id != null ? waters.find((x) => String(x.id) === String(entry.water_id)) : null;
  const kind = entry.water_kind === "flowline" ? "stream" : entry.water_kind || "";
  const water = entry.water_id != null ? `${kind ? kind + " " : ""}${(w && w.name) || entry.water_id}` : "";
  return h("p", { class: "small", "data-testid": "entry", "data-rule": entry.rule || "" },
    `Entry: ${entryWords(entry.rule)}`, water ? ` into ${water}` : "", entry.reason ? ` — ${entry.reason}` : "");
}

/** The names an applicant writes in the SWPPP, each once with its kind and distance, and a
 * copy button; candidate waters not among the names follow in a table. */
export function receivingEl(report) {
  const names = Array.isArray(report.receiving_water_names) ? report.receiving_water_names : [];
  const waters = Array.isArray(report.receiving_waters) ? report.receiving_waters : [];
  const rw = h("section", { class: "receiving", "aria-labelledby": "rw-h" }, h("h3", { id: "rw-h" }, "Receiving waters"));
  if (names.length) {
    rw.appendChild(h("ol", { class: "rw-names", "data-testid": "receiving-water-names" }, names.map((n) => {
      const w = waters.find((x) => x.name === n);
      const more = w ? ` — ${w.kind === "flowline" ? "stream" : w.kind || "water"}, ${fmtDist(w.distance_m)} away${w.impaired ? ", impaired" : ""}` : "";
      return h("li", {}, h("span", { "data-testid": "receiving-water-name" }, n), more ? h("span", { class: "small" }, more) : null);
    })));
    rw.appendChild(copyRow(names, rw));
  } else {
    rw.appendChild(h("p", { class: "rw-none", "data-testid": "receiving-water-names" }, "No receiving water found within the search radius."));
  }
  if (report.entry && (report.entry.reason || report.entry.rule || report.entry.water_id != null)) rw.appendChild(entryEl(report.entry, waters));
  const others = waters.filter((w) => !names.includes(w.name));
  if (others.length) {
    rw.appendChild(h("table", { class: "compact" },
      h("thead", {}, h("tr", {}, ["Other water nearby", "Type", "Distance", "Impaired"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, others.map((w) => h("tr", { class: w.impaired ? "impaired" : "" },
        h("td", {}, w.name || w.id || "unnamed"), h("td", {}, w.kind === "flowline" ? "stream" : w.kind || ""),
        h("td", {}, fmtDist(w.distance_m)), h("td", {}, w.impaired ? `Yes${w.causes && w.causes.length ? ": " + w.causes.join(", ") : ""}` : "No"))))));
  }
  return rw;
}

function copyRow(names, rw) {
  const note = h("span", { class: "small copy-note", role: "status" });
  const copy = h("button", {
    type: "button", class: "copy-btn", title: "Copy the receiving water names, e.g. for the SWPPP",
    onclick: async () => {
      try {
        if (!navigator.clipboard) throw new Error("no clipboard");
        await navigator.clipboard.writeText(names.join("; "));
        note.textContent = "Copied.";
      } catch {
        // No clipboard access (insecure origin, permission): select the list so Ctrl+C works.
        const sel = window.getSelection();
        const range = document.createRange();
        range.selectNodeContents(rw.querySelector(".rw-names"));
        sel.removeAllRanges();
        sel.addRange(range);
        note.textContent = "Selected: press Ctrl+C to copy.";
      }
    },
  }, "Copy names");
  return h("div", { class: "copy-row" }, copy, note);
}

/** Consecutive reaches of one water as one entry: "Onondaga Lake, 4 reaches, from 5.52 km"
 * (impaired when any of its reaches is, with the causes of all). */
export function groupReaches(down) {
  const groups = [];
  for (const d of down) {
    const name = d.name || "unnamed reach";
    const last = groups[groups.length - 1];
    if (last && last.name === name) {
      last.reaches.push(d);
      last.impaired = last.impaired || Boolean(d.impaired);
      for (const c of d.causes || []) if (!last.causes.includes(c)) last.causes.push(c);
    } else groups.push({ name, impaired: Boolean(d.impaired), causes: [...(d.causes || [])], reaches: [d] });
  }
  return groups;
}

/** The first impaired water and the path downstream, each water once. */
export function downstreamEl(report, ctx) {
  const ds = h("section", { class: "downstream", "aria-labelledby": "ds-h" }, h("h3", { id: "ds-h" }, "Downstream"));
  const fi = report.first_impaired;
  if (fi) {
    const o = typeof fi === "object" ? fi : { name: String(fi) };
    const cc = Array.isArray(o.construction_causes) ? o.construction_causes : [];
    ds.appendChild(h("div", { class: "first-impaired", "data-testid": "first-impaired" },
      h("p", {}, "First impaired water: ", h("strong", {}, o.name || o.id || "?"),
        o.id && o.id !== o.name ? ` (PWL ${o.id})` : "",
        o.distance_m != null ? ` — ${fmtDist(o.distance_m)} downstream` : "",
        ctx.onShowReach && o.reach_id ? [" ", h("button", { type: "button", class: "link-btn show-on-map", onclick: () => ctx.onShowReach(o.reach_id) }, "Show on map")] : null),
      cc.length ? h("p", { class: "small strong" }, "Construction-related: ", cc.join(", ")) : null));
  } else {
    ds.appendChild(h("p", { class: "small", "data-testid": "first-impaired" }, "No impaired water found downstream within the trace limit."));
  }
  const down = Array.isArray(report.downstream) ? report.downstream : [];
  if (down.length) {
    const groups = groupReaches(down);
    const ol = h("ol", { class: "trace-list", "data-testid": "downstream" }, groups.map((g) => {
      const first = g.reaches[0];
      const n = g.reaches.length;
      return h("li", { class: g.impaired ? "impaired" : "", "data-testid": "downstream-water" },
        ctx.onShowReach
          ? h("button", { type: "button", class: "link-btn", title: `Show ${g.name} on the map`, onclick: () => ctx.onShowReach(first.id) }, g.name)
          : h("span", {}, g.name), " ",
        h("span", { class: "small" }, `from ${fmtDist(first.distance_m)}${n > 1 ? ` (${n} reaches)` : ""}`,
          g.impaired ? ` · impaired${g.causes.length ? ": " + g.causes.join(", ") : ""}` : ""));
    }));
    ds.appendChild(h("details", {}, h("summary", {}, `${groups.length} waters downstream (${down.length} reaches traced)`), ol));
  }
  const div = Array.isArray(report.divergences) ? report.divergences : [];
  if (div.length) {
    ds.appendChild(h("p", { class: "small" }, `The network divides at ${div.length} place${div.length > 1 ? "s" : ""}; the main path is traced (`,
      div.map((d) => `${d.at_reach}: also ${(d.minor || []).join(", ")}`).join("; "), ")."));
  }
  return ds;
}

const TRI = (v) => (v === true ? "true" : v === false ? "false" : "null");

/** The first sentence of a finding's reason. */
function firstSentence(text) {
  const s = String(text || "");
  const m = /^(.+?[.;])(\s|$)/.exec(s);
  return m ? m[1] : s;
}

/**
 * Condition A's reason in one line, from the finding's own facts: the listed water in scope
 * and its construction causes, or the TMDL watershed entered; what is missing when it needs
 * data; else the first sentence of the finding's reason. The detail below keeps it whole.
 */
export function conditionAReason(report, a) {
  if (!a) return "";
  const facts = a.facts || {};
  const t = TRI(a.met);
  if (t === "null" && Array.isArray(a.missing) && a.missing.length) return `needs ${a.missing[0]}.`;
  if (t === "true") {
    const why = [];
    const listed = (report.impaired_waters || []).filter((w) => (facts.listed_in_scope || []).includes(w.id));
    for (const w of listed) {
      const cc = w.construction_causes && w.construction_causes.length ? w.construction_causes : w.causes || [];
      why.push(`${w.name || w.id} (PWL ${w.id}) is listed for ${cc.join(", ")}`);
    }
    const tmdls = (report.tmdl_watersheds || []).filter((x) => (facts.tmdl_entered || []).includes(x.id));
    for (const x of tmdls) why.push(`the discharge enters the ${x.name || x.id} watershed${x.stormwater_source === true ? ", where stormwater is a source" : ""}`);
    if (why.length) return `${why.join("; and ")}.`;
  }
  return firstSentence(a.reason);
}

// The duties a summary lists, with the words for "applies" and "does not"; the inspections'
// schedule comes from /rules.
const duties = () => [
  ["swppp_required", "SWPPP", "required", "not required"],
  ["swppp_full", "Post-construction controls in the SWPPP", "required", "not required"],
  ["swppp_preparer", "SWPPP by a licensed professional", "required", "not required"],
  ["inspections", inspections(), "required", "not required"],
];

/**
 * The one-glance answer on top of a report: Condition A with a one-line reason, the first
 * receiving water, the first impaired water (PWL ID, causes, category, list year) and the
 * duties that follow. Every line is what the report says; "needs data" stays "needs data".
 */
export function summaryEl(report) {
  const conds = report.conditions || {};
  const findings = Array.isArray(report.findings) ? report.findings : [];
  const find = (rule) => findings.find((f) => f.rule === rule);
  const a = find("condition_a");
  const t = TRI(conds.A);
  const aWords = { true: "Yes", false: "No", null: "Needs data" }[t];
  const names = Array.isArray(report.receiving_water_names) ? report.receiving_water_names : [];
  const entry = report.entry || {};
  const fi = report.first_impaired && typeof report.first_impaired === "object" ? report.first_impaired : null;
  const conflict = fi ? conflictEl(fi, tmdlsCovering(fi, report)) : null;
  const rows = [
    ["Condition A", h("span", {}, h("strong", { class: `tri tri-${t}`, "data-testid": "summary-a", "data-value": t }, aWords),
      a ? ` — ${conditionAReason(report, a)}` : "")],
    ["First receiving water", h("span", { "data-testid": "summary-receiving" }, names[0] || "none found",
      h("span", { class: "small" }, ` (${entryWords(entry.rule)})`))],
    ["First impaired water", fi
      ? h("span", { "data-testid": "summary-impaired" }, h("strong", {}, fi.name || fi.id), ` · PWL ${fi.id}`,
        fi.causes && fi.causes.length ? ` · ${fi.causes.join(", ")}` : "",
        fi.category ? ` · category ${fi.category}: ${categoryWords(fi.category)}` : " · category not given",
        ` · ${fi.list_year ? `${fi.list_year} list` : "list year not given"}`, conflict)
      : h("span", { "data-testid": "summary-impaired" }, "none found downstream", report.trace_end ? ` (trace ended: ${report.trace_end})` : "")],
    ["Duties", h("ul", { class: "duties", "data-testid": "summary-duties" }, duties().filter(([rule]) => find(rule)).map(([rule, label, yes, no]) => {
      const f = find(rule);
      const v = TRI(f.met);
      return h("li", { "data-rule": rule, "data-value": v }, `${label}: `, h("strong", { class: `tri tri-${v}` }, v === "true" ? yes : v === "false" ? no : triWords(null)));
    }))],
  ];
  return h("section", { class: "summary", "aria-label": "Summary", "data-testid": "summary" },
    h("dl", { class: "kv summary-kv" }, rows.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])));
}

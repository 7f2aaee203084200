// "Facts of the plan" in Check a plan: after a check, each polygon of the plan gets its phase
// and dates, another polygon can be drawn as a further phase, and the site record's typed
// facts (land use, part of a larger common plan, the SWPPP decision) can be set. Every change
// checks the plan again, so the report answers with each fact as it is given. The facts travel
// as GeoJSON: phase/start/end on each feature, the record as the collection's `site` member.
import { h, fmtAcres } from "./dom.js";
import { LAND_USES, DECISIONS } from "./words.js";
import { planCollection } from "./outfall-pick.js";

const $ = (id) => document.getElementById(id);

function input(type, testid, label, value) {
  const el = h("input", { type, "data-testid": testid, "aria-label": label });
  if (value) el.value = value;
  return el;
}

function select(testid, label, options, current) {
  const el = h("select", { "data-testid": testid, "aria-label": label },
    options.map(([v, words]) => h("option", { value: v }, words)));
  el.value = current ?? "";
  return el;
}

/** The polygons of the plan, each with its phase and dates, and the acres the report gives. */
function phaseRows(fc, report, onChange) {
  const acres = new Map(((report.disturbance && report.disturbance.phases) || []).map((p) => [String(p.phase ?? ""), p.acres]));
  const polys = fc.features.filter((f) => f.geometry && /Polygon$/.test(f.geometry.type));
  return h("table", { class: "compact", "data-testid": "plan-phases" },
    h("thead", {}, h("tr", {}, ["Polygon", "Phase", "Start", "End", "Acres"].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, polys.map((f, i) => {
      const p = f.properties || (f.properties = {});
      const phase = input("text", "plan-phase", `Phase of polygon ${i + 1}`, p.phase != null ? String(p.phase) : "");
      const start = input("date", "plan-start", `Start of polygon ${i + 1}`, p.start || "");
      const end = input("date", "plan-end", `End of polygon ${i + 1}`, p.end || "");
      phase.size = 4;
      for (const [el, key] of [[phase, "phase"], [start, "start"], [end, "end"]]) {
        el.addEventListener("change", () => {
          if (el.value.trim()) p[key] = el.value.trim();
          else delete p[key];
          onChange();
        });
      }
      const a = acres.get(String(p.phase ?? ""));
      return h("tr", { "data-testid": "plan-polygon" }, h("td", {}, String(i + 1)), h("td", {}, phase), h("td", {}, start), h("td", {}, end),
        h("td", {}, a != null ? fmtAcres(a) : "–"));
    })));
}

/** The typed facts of the record a plan may state, as the site member holds them. */
function recordFields(site, onChange) {
  const use = select("plan-land-use", "Land use", [["", "not given"], ...LAND_USES.map((u) => [u.code, u.words])], site.land_use);
  const plan = select("plan-common-plan", "Part of a larger common plan", [["", "not given"], ["true", "yes"], ["false", "no"]],
    site.common_plan == null ? "" : String(site.common_plan));
  const a = site.swppp_approval || {};
  const decision = select("plan-decision", "SWPPP decision", [["", "none recorded"], ...DECISIONS.map((d) => [d, d])], a.decision);
  const date = input("date", "plan-decision-date", "Date of the SWPPP decision", a.date);
  use.addEventListener("change", () => { if (use.value) site.land_use = use.value; else delete site.land_use; onChange(); });
  plan.addEventListener("change", () => { if (plan.value) site.common_plan = plan.value === "true"; else delete site.common_plan; onChange(); });
  const approval = () => {
    // A decision is taken on a day: the check waits for the date unless the decision is pending.
    if (!decision.value) delete site.swppp_approval;
    else if (decision.value !== "pending" && !date.value) return;
    else site.swppp_approval = { decision: decision.value, ...(date.value ? { date: date.value } : {}) };
    onChange();
  };
  decision.addEventListener("change", approval);
  date.addEventListener("change", approval);
  const field = (label, control) => h("label", { class: "field small" }, h("span", {}, label), control);
  return h("div", { class: "row wrap" }, field("Land use", use), field("Part of a larger common plan", plan),
    field("SWPPP decision", decision), field("Decision date", date));
}

/**
 * ctx: {outfall (the viewer's hooks), linkText(upload), runCheck(upload), startDraw()}.
 * Returns {checked(report), append(feature)}: the app calls `checked` after every check and
 * `append` when a polygon is drawn while "Add a polygon" is on.
 */
export function setupPlanFacts(ctx) {
  const box = $("plan-facts");
  let plan = null;
  let name = "plan";
  const recheck = () => {
    if (!plan) return;
    ctx.runCheck({ body: JSON.stringify(plan), contentType: "application/geo+json", name });
  };
  const render = (report) => {
    const keep = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.testid : null;
    plan.site = plan.site || {};
    box.replaceChildren(
      h("h3", {}, "Facts of the plan"),
      h("p", { class: "small" }, "Give each polygon its phase and dates, and what the record says; the report updates with each fact."),
      phaseRows(plan, report, recheck),
      h("div", { class: "row wrap" }, h("button", { type: "button", "data-testid": "plan-add-polygon", onclick: () => {
        ctx.outfall.addingPhase = true;
        ctx.startDraw();
      } }, "Add a polygon (another phase)")),
      recordFields(plan.site, recheck));
    box.hidden = false;
    const again = keep && box.querySelector(`[data-testid="${keep}"]`);
    if (again) again.focus();
  };
  return {
    async checked(report) {
      const upload = report.upload;
      if (!upload) return;
      name = String(upload.name || "plan");
      try {
        plan = await planCollection(upload, ctx.linkText);
        render(report);
      } catch (err) {
        box.hidden = false;
        box.replaceChildren(h("p", { class: "small problem" }, `The plan's polygons could not be read for editing: ${err.detail || err.message}`));
      }
    },
    append(feature) {
      ctx.outfall.addingPhase = false;
      if (!plan) return false;
      // Once there are two, every polygon is a phase of its own: number the unnamed ones.
      plan.features.forEach((f, i) => {
        f.properties = f.properties || {};
        if (f.properties.phase == null || f.properties.phase === "") f.properties.phase = String(i + 1);
      });
      const phases = plan.features.map((f) => Number(f.properties && f.properties.phase)).filter(Number.isFinite);
      const next = phases.length ? Math.max(...phases) + 1 : plan.features.length + 1;
      plan.features.push({ ...feature, properties: { ...(feature.properties || {}), phase: String(next) } });
      recheck();
      return true;
    },
    hide() {
      plan = null;
      box.hidden = true;
      box.textContent = "";
    },
  };
}

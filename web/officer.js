// The officer's tools in the viewer: sign in with an access token (kept in sessionStorage,
// so it ends with the tab), then, in a site's report, change its status, record the SWPPP
// decision, the claimed (5) exemptions with their evidence, the land use, and record an
// inspection. Every field is a pick list or a date of the site record's closed lists
// (words.js); a refusal (422) is shown in the server's words next to its form. Every edit
// carries the site's version (If-Match): a stale edit is refused (412) and the form says so
// instead of overwriting someone's change.
import { STATUS_CODES, codeWords, DECISIONS, BODIES, LAND_USES, EXEMPTIONS, EVIDENCE, exemption } from "./words.js";

const KEY = "outfall.token";

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) if (c) e.append(c);
  return e;
}

function token() {
  return sessionStorage.getItem(KEY) || "";
}

async function call(method, path, body, ifMatch) {
  const headers = { Accept: "application/json", Authorization: `Bearer ${token()}` };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (ifMatch) headers["If-Match"] = ifMatch;
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: "no-store" });
  let json = null;
  try { json = await res.json(); } catch { json = null; }
  return { status: res.status, etag: res.headers.get("ETag"), json };
}

function problem(r) {
  if (r.status === 412) return "Not recorded: someone else changed this site since you opened it. The report now shows their change; check it, then reload and reapply yours.";
  if (r.status === 401) return tokenProblem(r);
  if (r.status === 403) return "Your role may not make this change.";
  const detail = r.json && (r.json.detail || r.json.title);
  if (r.status === 422) return `Not recorded: ${detail || "the server could not use this change"}.`.replace(/\.\.$/, ".");
  if (detail) return detail;
  return r.status >= 500 ? "The server could not record this change; try again later." : "The server refused this change.";
}

/** Why a token was refused, in words: expired, revoked, or not known at all. */
function tokenProblem(r) {
  const detail = String((r.json && r.json.detail) || "");
  if (/expired/i.test(detail)) return "This token has expired: ask the town's administrator for a new one.";
  if (/revoked/i.test(detail)) return "This token was revoked: ask the town's administrator for a new one.";
  return "This token is not known: check that it was copied whole (it starts with ofl_).";
}

/** A form's own message line (after the form), so a refusal shows next to what caused it. */
function formMessage(form, text) {
  let p = form.nextElementSibling;
  if (!p || !p.classList.contains("form-msg")) {
    p = el("p", { class: "small form-msg problem", role: "alert", "data-testid": "form-msg" });
    form.after(p);
  }
  p.textContent = text;
}

// The outcome of the last write, above the report: the report reloads after every write, so
// a message inside it would vanish with it. A refused (412) change keeps its way back.
function noteArea() {
  let n = document.getElementById("officer-note");
  if (!n) {
    n = el("div", { id: "officer-note", class: "officer-note", role: "status", "aria-live": "polite", "data-testid": "officer-note" });
    document.getElementById("report").before(n);
  }
  return n;
}

function showNote(siteId, kind, text, reapply) {
  const n = noteArea();
  n.hidden = false;
  n.dataset.site = siteId;
  n.dataset.kind = kind;
  n.className = `officer-note ${kind}`;
  n.replaceChildren(el("p", { "data-testid": "officer-note-text", text }),
    reapply ? el("button", { type: "button", "data-testid": "officer-reapply", onclick: reapply }, "Reload and reapply my change") : null,
    el("button", { type: "button", class: "link-btn", "data-testid": "officer-note-dismiss", onclick: () => { n.hidden = true; } }, "Dismiss"));
}

/** A note belongs to its site: opening another report (or none) puts it away. */
function hideNoteUnless(siteId) {
  const n = document.getElementById("officer-note");
  if (n && n.dataset.site !== String(siteId)) n.hidden = true;
}

// The sign-in card at the top of the side panel.
function loginCard(outfall, onChange) {
  const card = el("section", { class: "card", id: "officer-card", "data-testid": "officer-card", "aria-label": "Officer sign-in" });
  const render = async () => {
    card.replaceChildren(el("h2", { text: "Officer" }));
    if (token()) {
      const r = await call("GET", "/auth/whoami");
      if (r.status === 200) {
        outfall.officer = r.json;
        card.append(
          el("p", { class: "small", "data-testid": "officer-who", text: `Signed in as ${r.json.name} (${r.json.role})` }),
          el("button", { type: "button", "data-testid": "officer-signout", onclick: () => { sessionStorage.removeItem(KEY); delete card.dataset.asked; render(); } }, "Sign out"),
        );
        onChange();
        return;
      }
      sessionStorage.removeItem(KEY);
    }
    outfall.officer = null;
    // Most visitors are not officers: a small button, the form only when asked for.
    if (!card.dataset.asked) {
      card.className = "officer-row small";
      card.append(el("span", { text: "Officer? " }), el("button", { type: "button", class: "link-btn", "data-testid": "officer-open", onclick: () => { card.dataset.asked = "1"; render(); } }, "Sign in"));
      card.firstChild.remove();
      onChange();
      return;
    }
    card.className = "card";
    const input = el("input", { type: "password", id: "officer-token", "data-testid": "officer-token", placeholder: "ofl_… access token", autocomplete: "off", "aria-label": "Access token" });
    const msg = el("p", { class: "small", role: "status", "data-testid": "officer-msg" });
    const form = el("form", { class: "row", onsubmit: async (ev) => {
      ev.preventDefault();
      sessionStorage.setItem(KEY, input.value.trim());
      const r = await call("GET", "/auth/whoami");
      if (r.status !== 200) { sessionStorage.removeItem(KEY); msg.textContent = problem(r); return; }
      render();
    } }, input, el("button", { type: "submit", "data-testid": "officer-signin" }, "Sign in"));
    card.append(el("p", { class: "small", text: "Sign in with a token from `outfall token create` to record approvals, status and inspections." }), form, msg);
    onChange();
    input.focus();
  };
  render();
  return card;
}

// --------------------------------------------------------------- form pieces

/** A <select> of [value, words] pairs with `current` selected. */
function pick(testid, label, options, current) {
  return el("select", { "data-testid": testid, "aria-label": label },
    ...options.map(([v, words]) => { const o = el("option", { value: v, text: words }); if (v === (current ?? "")) o.selected = true; return o; }));
}

/** A labelled field: the label above its control. */
function field(label, control) {
  return el("label", { class: "field small" }, el("span", { text: label }), control);
}

/** yes / no / not recorded for a true / false / null fact. */
function triPick(testid, label, v) {
  return pick(testid, label, [["", "not recorded"], ["true", "yes"], ["false", "no"]], v == null ? "" : String(v));
}

function triValue(select) {
  return select.value === "" ? null : select.value === "true";
}

// --------------------------------------------------------------- the forms

function statusForm(site, save) {
  // No preselected guess when the record's status is not known: the officer must choose.
  const unknown = site.status ? [] : [["", "choose a status…"]];
  const status = pick("officer-status", "Status", [...unknown, ...STATUS_CODES.map((c) => [c, codeWords(c)])], site.status || "");
  status.required = true;
  const note = !site.status && site.status_recorded
    ? el("p", { class: "small warn", text: `The record says “${site.status_recorded}”, which is not a known status: choose one.` }) : null;
  return [el("h3", { text: "Status" }), note, el("form", { class: "row", onsubmit: (ev) => {
    ev.preventDefault();
    save({ status: status.value }, "Status", ev.target);
  } }, status, el("button", { type: "submit", "data-testid": "officer-status-save" }, "Change status"))];
}

function approvalForm(site, save) {
  const a = site.swppp_approval || {};
  const decision = pick("approval-decision", "Decision", DECISIONS.map((d) => [d, d]), a.decision || "approved");
  const date = el("input", { type: "date", "data-testid": "approval-date", "aria-label": "Decision date" });
  if (a.date) date.value = a.date;
  const ref = el("input", { type: "text", "data-testid": "approval-ref", placeholder: "e.g. SWPPP-2026-014", "aria-label": "Approval reference" });
  if (a.reference) ref.value = a.reference;
  const body = pick("approval-body", "Approving body", [["", "not recorded"], ...BODIES.map((b) => [b.code, b.words])], a.body || "");
  // A decision is taken on a day; only a pending one has no date yet.
  const dateNeeded = () => { date.required = decision.value !== "pending"; };
  decision.addEventListener("change", dateNeeded);
  dateNeeded();
  return [el("h3", { text: "SWPPP approval" }), el("form", { class: "row wrap", "data-testid": "approval-form", onsubmit: (ev) => {
    ev.preventDefault();
    const v = { decision: decision.value };
    if (date.value) v.date = date.value;
    if (ref.value.trim()) v.reference = ref.value.trim();
    if (body.value) v.body = body.value;
    save({ swppp_approval: v }, "Approval", ev.target);
  } }, field("Decision", decision), field("Date", date), field("Reference", ref), field("Approved by", body),
    el("div", { class: "row" }, el("button", { type: "submit", "data-testid": "approval-save" }, "Record decision")))];
}

/** The evidence inputs the chosen clause names. */
function evidenceInputs(code, evidence) {
  const ex = exemption(code);
  return (ex ? ex.evidence : []).map((k) => {
    const e = EVIDENCE[k];
    const v = evidence ? evidence[k] : null;
    let input;
    if (e.type === "date") {
      input = el("input", { type: "date", "data-testid": `claim-${k}`, "data-evidence": k, "aria-label": e.words });
      if (v) input.value = v;
    } else {
      input = triPick(`claim-${k}`, e.words, v);
      input.dataset.evidence = k;
    }
    return field(e.words, input);
  });
}

/** One claim's fieldset: the (5) clause, its evidence, and who verified it when. */
function claimFieldset(claim, onRemove) {
  const fs = el("fieldset", { class: "claim", "data-testid": "claim" });
  const code = pick("claim-code", "Exemption", [["", "choose a clause…"], ...EXEMPTIONS.map((x) => [x.code, `(${x.code}) ${x.words}`])], claim.code || "");
  code.required = true;
  const evidence = el("div", { class: "claim-evidence" });
  const hint = el("p", { class: "small" });
  const by = el("input", { type: "text", "data-testid": "claim-verified-by", "aria-label": "Verified by", placeholder: "who confirmed the evidence" });
  if (claim.verified_by) by.value = claim.verified_by;
  const on = el("input", { type: "date", "data-testid": "claim-verified-on", "aria-label": "Verified on" });
  if (claim.verified_on) on.value = claim.verified_on;
  const draw = () => {
    const ex = exemption(code.value);
    hint.textContent = ex ? `“${ex.words}.” Verified when the record shows ${ex.verified}.` : "";
    evidence.replaceChildren(...evidenceInputs(code.value, claim.evidence));
  };
  code.addEventListener("change", draw);
  draw();
  const stated = claim.stated && !claim.code
    ? el("p", { class: "small warn", text: `Recorded as “${claim.stated}”, which names no clause: choose one.` }) : null;
  fs.append(...[el("legend", { text: "Claimed exemption" }), stated, field("Clause", code), hint, evidence,
    el("div", { class: "row wrap" }, field("Verified by", by), field("Verified on", on)),
    el("button", { type: "button", "data-testid": "claim-remove", onclick: () => { fs.remove(); onRemove(); } }, "Remove this claim")].filter(Boolean));
  fs.claimValue = () => {
    const v = { code: code.value };
    for (const input of evidence.querySelectorAll("[data-evidence]")) {
      const k = input.dataset.evidence;
      const x = input.tagName === "SELECT" ? triValue(input) : input.value || null;
      if (x != null) v[k] = x;
    }
    if (by.value.trim()) v.verified_by = by.value.trim();
    if (on.value) v.verified_on = on.value;
    return v;
  };
  return fs;
}

function exemptionForm(site, save) {
  const list = el("div", { class: "claims", "data-testid": "claims" });
  const empty = el("p", { class: "small", text: "No exemption is claimed." });
  const refresh = () => { empty.hidden = list.children.length > 0; };
  const add = (claim) => { list.append(claimFieldset(claim, refresh)); refresh(); };
  for (const c of site.exemption_claims || []) add(c);
  refresh();
  return [el("h3", { text: "Exemptions (5)" }), el("form", { "data-testid": "exemption-form", onsubmit: (ev) => {
    ev.preventDefault();
    save({ exemption_claims: [...list.children].map((fs) => fs.claimValue()) }, "Exemptions", ev.target);
  } }, list, empty, el("div", { class: "row wrap" },
    el("button", { type: "button", "data-testid": "claim-add", onclick: () => add({}) }, "Add a claim"),
    el("button", { type: "submit", "data-testid": "exemption-save" }, "Record exemptions")))];
}

/** The land use the site record states (never the parcel-class fallback). */
function recordedLandUse(site) {
  const own = (src) => typeof src === "string" && src.startsWith("site record");
  if (own(site.single_family_source) && site.single_family === true) return "single_family_residence";
  if (own(site.agricultural_source) && site.agricultural === true) return "agricultural";
  if (own(site.single_family_source) && own(site.agricultural_source) && site.single_family === false && site.agricultural === false) return "other";
  return "";
}

function landUseForm(site, save) {
  const use = pick("land-use", "Land use", [["", "not recorded"], ...LAND_USES.map((u) => [u.code, u.words])], recordedLandUse(site));
  use.required = true;
  const plan = triPick("common-plan", "Part of a larger common plan", site.common_plan);
  return [el("h3", { text: "Land use" }), el("form", { class: "row wrap", "data-testid": "land-use-form", onsubmit: (ev) => {
    ev.preventDefault();
    save({ land_use: use.value, common_plan: triValue(plan) }, "Land use", ev.target);
  } }, field("Land use", use), field("Part of a larger common plan of development or sale", plan),
    el("div", { class: "row" }, el("button", { type: "submit", "data-testid": "land-use-save" }, "Record land use")))];
}

// The edit forms under a site's report.
async function siteTools(outfall, report, id) {
  const box = el("div", { class: "officer-tools", "data-testid": "officer-tools", "data-site": id });
  const msg = el("p", { class: "small", role: "status", "data-testid": "officer-result" });
  const read = await call("GET", `/sites/${encodeURIComponent(id)}`);
  if (read.status !== 200) return null;
  let etag = read.etag;
  const path = `/sites/${encodeURIComponent(id)}`;
  // `send(etag)` makes the write again, so a refused change can be reapplied on the new version.
  const done = async (r, what, form, send) => {
    if (r.status >= 200 && r.status < 300) {
      if (r.etag) etag = r.etag;
      const at = new Date().toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
      showNote(id, "ok", `${what} recorded for site ${id} at ${at}. The list, the counts and the map show it.`);
      // `lastEdit` is set once the view shows the edit: the forms are rebuilt by the refresh,
      // and anything that acts on them before then acts on forms about to be replaced.
      await outfall.refresh(id);
      outfall.lastEdit = { id, what, status: r.status };
      return;
    }
    const text = problem(r);
    if (r.status === 412) {
      showNote(id, "conflict", text, async () => {
        const fresh = await call("GET", path);
        await done(await send(fresh.etag), what, null, send);
      });
      await outfall.refresh(id);
    } else if (form) formMessage(form, text);
    else showNote(id, "problem", text);
    outfall.lastEdit = { id, what, status: r.status, problem: text };
  };
  const save = async (change, what, form) => {
    const send = (tag) => call("PATCH", path, change, tag);
    return done(await send(etag), what, form, send);
  };
  const site = (report && report.site) || {};
  const role = outfall.officer && outfall.officer.role;
  if (role === "officer") {
    const forms = [statusForm, approvalForm, exemptionForm, landUseForm].flatMap((form) => form(site, save));
    box.append(...forms.filter(Boolean));
  }
  if (role === "officer" || role === "inspector") {
    const date = el("input", { type: "date", "data-testid": "inspection-date", "aria-label": "Inspection date", required: "" });
    const findings = el("textarea", { "data-testid": "inspection-findings", "aria-label": "Findings", rows: "2", required: "" });
    const actions = el("textarea", { "data-testid": "inspection-actions", "aria-label": "Corrective actions", rows: "2" });
    const due = el("input", { type: "date", "data-testid": "inspection-due", "aria-label": "Corrective actions due" });
    box.append(el("h3", { text: "Record inspection" }), el("form", { onsubmit: async (ev) => {
      ev.preventDefault();
      const body = { date: date.value, findings: findings.value, corrective_actions: actions.value };
      if (due.value) body.corrective_due = due.value;
      const send = () => call("POST", `${path}/inspections`, body);
      done(await send(), "Inspection", ev.target, send);
    } }, el("label", { class: "small", text: "Date" }), date, el("label", { class: "small", text: "Findings" }), findings,
      el("label", { class: "small", text: "Corrective actions" }), actions, el("label", { class: "small", text: "Due" }), due,
      el("div", { class: "row" }, el("button", { type: "submit", "data-testid": "inspection-save" }, "Record inspection"))));
  }
  box.append(msg);
  return box;
}

// Hooks the officer's tools into the viewer: a sign-in card, and forms under each site report.
export function setupOfficer(outfall) {
  const panel = document.getElementById("panel");
  const report = document.getElementById("report");
  if (!panel || !report) return;
  let pending = null;
  const decorate = async () => {
    const cur = outfall.state && outfall.state.current;
    hideNoteUnless(cur && cur.source === "site" ? cur.id : null);
    if (!outfall.officer || !cur || cur.source !== "site") return;
    if (report.querySelector(`.officer-tools[data-site="${CSS.escape(cur.id)}"]`) || pending === cur.id) return;
    pending = cur.id;
    try {
      const tools = await siteTools(outfall, cur.report, cur.id);
      if (tools && outfall.state.current && outfall.state.current.id === cur.id && !report.querySelector(".officer-tools")) report.append(tools);
    } finally {
      pending = null;
    }
  };
  new MutationObserver(() => { decorate(); }).observe(report, { childList: true });
  panel.prepend(loginCard(outfall, decorate));
}

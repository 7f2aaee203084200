// The officer's tools in the viewer: sign in with an access token (kept in sessionStorage,
// so it ends with the tab), then, in a site's report, change its status, record the SWPPP
// approval and record an inspection. Every edit carries the site's version (If-Match): a
// stale edit is refused (412) and the form says so instead of overwriting someone's change.

const KEY = "outfall.token";
const STATUSES = ["planned", "approved", "under_construction", "stabilized", "closed", "withdrawn"];

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
  if (r.status === 412) return "Someone else changed this site since you opened it. The report is reloaded: check it and redo your change.";
  if (r.status === 401) return "Your token is not valid any more; sign in again.";
  if (r.status === 403) return "Your role may not make this change.";
  return (r.json && r.json.detail) || `The server answered ${r.status}.`;
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
          el("button", { type: "button", "data-testid": "officer-signout", onclick: () => { sessionStorage.removeItem(KEY); render(); } }, "Sign out"),
        );
        onChange();
        return;
      }
      sessionStorage.removeItem(KEY);
    }
    outfall.officer = null;
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
  };
  render();
  return card;
}

// The edit forms under a site's report.
async function siteTools(outfall, report, id) {
  const box = el("div", { class: "officer-tools", "data-testid": "officer-tools", "data-site": id });
  const msg = el("p", { class: "small", role: "status", "data-testid": "officer-result" });
  const read = await call("GET", `/sites/${encodeURIComponent(id)}`);
  if (read.status !== 200) return null;
  let etag = read.etag;
  const done = async (r, what) => {
    if (r.status >= 200 && r.status < 300) {
      if (r.etag) etag = r.etag;
      msg.textContent = `${what} recorded.`;
      outfall.lastEdit = { id, what, status: r.status };
      await outfall.openSite(id);
    } else {
      msg.textContent = problem(r);
      if (r.status === 412) await outfall.openSite(id);
    }
  };
  const role = outfall.officer && outfall.officer.role;
  if (role === "officer") {
    const status = el("select", { "data-testid": "officer-status", "aria-label": "Status" },
      ...STATUSES.map((s) => { const o = el("option", { value: s, text: s }); if (s === read.json.properties.status) o.selected = true; return o; }));
    box.append(el("h3", { text: "Status" }), el("form", { class: "row", onsubmit: async (ev) => {
      ev.preventDefault();
      done(await call("PATCH", `/sites/${encodeURIComponent(id)}`, { status: status.value }, etag), "Status");
    } }, status, el("button", { type: "submit", "data-testid": "officer-status-save" }, "Change status")));
    const date = el("input", { type: "date", "data-testid": "approval-date", "aria-label": "Approval date", required: "" });
    const ref = el("input", { type: "text", "data-testid": "approval-ref", placeholder: "reference", "aria-label": "Approval reference" });
    box.append(el("h3", { text: "Record approval" }), el("form", { class: "row wrap", onsubmit: async (ev) => {
      ev.preventDefault();
      done(await call("PATCH", `/sites/${encodeURIComponent(id)}`, { swppp_approval: { decision: "approved", date: date.value, reference: ref.value } }, etag), "Approval");
    } }, date, ref, el("button", { type: "submit", "data-testid": "approval-save" }, "Record approval")));
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
      done(await call("POST", `/sites/${encodeURIComponent(id)}/inspections`, body), "Inspection");
    } }, el("label", { class: "small", text: "Date" }), date, el("label", { class: "small", text: "Findings" }), findings,
      el("label", { class: "small", text: "Corrective actions" }), actions, el("label", { class: "small", text: "Due" }), due,
      el("div", { class: "row" }, el("button", { type: "submit", "data-testid": "inspection-save" }, "Record inspection"))));
  }
  box.append(el("p", { class: "small" }, el("a", { href: `/sites/${encodeURIComponent(id)}/history`, target: "_blank", rel: "noopener", text: "History of this site" })), msg);
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

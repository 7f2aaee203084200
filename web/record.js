// The site record page (/record.html?site=S06): the inspection logbook and the history of
// changes as tables a person reads and prints, from GET /sites/{id}/inspections (every page)
// and GET /sites/{id}/history. Values are shown in words, never as raw JSON.
import { h } from "./dom.js";
import { codeWords } from "./words.js";

const $ = (id) => document.getElementById(id);

async function getJSON(path) {
  const res = await fetch(path, { headers: { Accept: "application/json" }, cache: "no-store" });
  let body = null;
  try { body = await res.json(); } catch { body = null; }
  if (!res.ok) throw new Error((body && (body.detail || body.title)) || `the server answered ${res.status}`);
  return body;
}

/** Every page of the logbook, following its `next` links (at most 100 pages). */
async function allInspections(id) {
  const rows = [];
  const problems = [];
  let path = `/sites/${encodeURIComponent(id)}/inspections?limit=500`;
  for (let i = 0; i < 100 && path; i++) {
    const page = await getJSON(path);
    rows.push(...(page.inspections || []));
    problems.push(...(page.problems || []));
    const next = (page.links || []).find((l) => l.rel === "next");
    path = next ? new URL(next.href, location.href).pathname + new URL(next.href, location.href).search : null;
  }
  return { rows, problems };
}

/** A stored value in words: a code with spaces, an approval or claim as its parts. */
export function valueWords(v) {
  if (v == null || v === "") return "—";
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (Array.isArray(v)) return v.length ? v.map(valueWords).join("; ") : "none";
  if (typeof v === "object") {
    return Object.entries(v).filter(([, x]) => x != null && x !== "").map(([k, x]) => `${codeWords(k)}: ${valueWords(x)}`).join(", ") || "—";
  }
  return typeof v === "string" && /^[a-z]+(_[a-z]+)+$/.test(v) ? codeWords(v) : String(v);
}

function table(heads, rows, testid) {
  return h("table", { "data-testid": testid },
    h("thead", {}, h("tr", {}, heads.map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, rows));
}

function showLogbook(el, { rows, problems }) {
  el.removeAttribute("aria-busy");
  el.replaceChildren(
    rows.length
      ? table(["Date", "Inspector", "Findings", "Corrective actions", "Due"], rows.map((r) => h("tr", { "data-testid": "logbook-row" },
        h("td", { class: "when" }, r.date || "—"), h("td", {}, r.inspector || "—"), h("td", {}, r.findings || "—"),
        h("td", {}, r.corrective_actions || "none"), h("td", { class: "when" }, r.corrective_due || "—"))), "logbook-table")
      : h("p", { class: "empty", "data-testid": "logbook-empty" }, "No inspection is recorded for this site."),
    problems.length ? h("p", { class: "problem" }, `${problems.length} logbook row(s) could not be read: `, problems.map((p) => p.reason || JSON.stringify(p)).join("; ")) : null);
}

function showHistory(el, entries) {
  el.removeAttribute("aria-busy");
  el.replaceChildren(table(["When", "Who", "What", "Field", "From", "To"], entries.map((e) => h("tr", { "data-testid": "history-row" },
    h("td", { class: "when" }, String(e.at || "").replace("T", " ").replace(/\.\d+Z$/, " UTC")), h("td", {}, e.who || "—"),
    h("td", {}, codeWords(e.action)), h("td", {}, e.field ? codeWords(e.field) : "—"),
    h("td", {}, valueWords(e.old_value)), h("td", {}, valueWords(e.new_value)))), "history-table"));
}

async function main() {
  const id = new URLSearchParams(location.search).get("site") || "";
  $("print").addEventListener("click", () => window.print());
  $("back").href = `/#site=${encodeURIComponent(id)}`;
  if (!id) {
    $("title").textContent = "No site named";
    return;
  }
  document.title = `Outfall — site ${id} record`;
  const [cfg, site] = await Promise.all([getJSON("/config").catch(() => ({})), getJSON(`/sites/${encodeURIComponent(id)}`).catch(() => null)]);
  $("town").textContent = cfg && cfg.name ? `${cfg.name} · stormwater site record` : "Stormwater site record";
  const name = site && site.properties && site.properties.name;
  $("title").textContent = `Site ${id}${name ? ` — ${name}` : ""}`;
  const jobs = [
    allInspections(id).then((l) => showLogbook($("logbook"), l)),
    getJSON(`/sites/${encodeURIComponent(id)}/history`).then((b) => showHistory($("history"), b.history || [])),
  ];
  const outcome = await Promise.allSettled(jobs);
  outcome.forEach((o, i) => {
    if (o.status === "rejected") {
      const el = $(i ? "history" : "logbook");
      el.removeAttribute("aria-busy");
      el.replaceChildren(h("p", { class: "problem", role: "alert" }, `Could not load it: ${o.reason.message}`));
    }
  });
  document.body.dataset.ready = "true";
}

main();

// "Inspections due": the officer's view of the (9)(a)[2] due list from GET /inspections/due,
// with the storm that triggered each inspection and its deadline, and a link to the printable
// day sheet (GET /inspections/due.html). Self-contained: app.js only calls mountInspections.

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on") && typeof v === "function") e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c == null || c === false) continue;
    e.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
  return e;
}

/** Today in the browser's time zone, as YYYY-MM-DD. */
function today() {
  const d = new Date();
  const pad = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

const WEEKDAY = { Mon: "Mon", Tue: "Tue", Wed: "Wed", Thu: "Thu", Fri: "Fri", Sat: "Sat", Sun: "Sun" };
const day = (date, weekday) => `${WEEKDAY[weekday] || ""} ${date}`.trim();

const LABEL = {
  overdue: "Overdue",
  due_today: "Due today",
  due_this_week: "Due this week",
  upcoming: "Upcoming",
};

async function fetchDue(asOf) {
  const res = await fetch(`/inspections/due?as_of=${encodeURIComponent(asOf)}`, {
    headers: { Accept: "application/json" },
  });
  const body = await res.json().catch(() => null);
  if (!res.ok) throw new Error((body && body.detail) || `HTTP ${res.status}`);
  return body;
}

function itemRow(item) {
  const when =
    item.urgency === "overdue"
      ? `${item.days_overdue} day${item.days_overdue === 1 ? "" : "s"} overdue`
      : LABEL[item.urgency] || item.urgency;
  const what = item.storm
    ? el(
        "span",
        { class: "insp-what" },
        "Storm ",
        el("strong", { text: `${Number(item.storm.rain_in).toFixed(2)} in` }),
        ` on ${day(item.storm.date, item.storm.weekday)} `,
        el("span", { class: "insp-src", text: `(${item.storm.source})` }),
      )
    : el("span", { class: "insp-what", text: item.reason });
  return el(
    "li",
    { class: `insp-item insp-${item.urgency}`, "data-kind": item.kind, "data-testid": "inspection-item" },
    el("span", { class: "insp-badge", text: when }),
    " by ",
    el("strong", { text: day(item.due, item.due_weekday) }),
    ": ",
    what,
  );
}

/** A site's items, its missed (overdue) storms grouped under one heading. */
function itemRows(items) {
  const missed = items.filter((i) => i.kind === "storm" && i.urgency === "overdue");
  const rest = items.filter((i) => !missed.includes(i));
  if (missed.length < 2) return items.map(itemRow);
  return [
    ...rest.filter((i) => i.kind !== "storm").map(itemRow),
    el("li", { class: "insp-missed", "data-testid": "missed-storms" },
      el("span", { class: "insp-badge", text: `Missed storms (${missed.length})` }),
      el("ul", { class: "insp-items" }, missed.map(itemRow))),
    ...rest.filter((i) => i.kind === "storm").map(itemRow),
  ];
}

/** Inspections (items, not sites) by urgency, so the summary agrees with the badges. */
function itemCounts(sites) {
  const n = {};
  for (const s of sites) for (const i of s.items || []) n[i.urgency] = (n[i.urgency] || 0) + 1;
  return n;
}

function siteEntry(s, openSite) {
  const title = `${s.site_id} ${s.name || ""}`.trim();
  return el(
    "li",
    { class: `insp-site insp-${s.urgency}`, "data-site": s.site_id, "data-testid": "inspection-site" },
    el(
      "button",
      { type: "button", class: "insp-open", title: "Open the site's report", onclick: () => openSite && openSite(s.site_id) },
      title,
    ),
    s.conditions && s.conditions.length ? el("span", { class: "insp-cond", text: ` Condition ${s.conditions.join(", ")}` }) : null,
    s.address ? el("div", { class: "insp-addr", text: s.address }) : null,
    el("ul", { class: "insp-items" }, itemRows(s.items)),
    (s.late_storms || []).map((l) =>
      el("div", {
        class: "insp-note",
        text: `Late: the storm of ${Number(l.storm.rain_in).toFixed(2)} in on ${l.storm.date} was inspected on ${l.inspected}, after its deadline ${l.storm.deadline}.`,
      }),
    ),
    (s.notes || []).map((n) => el("div", { class: "insp-note", text: n })),
  );
}

function render(box, list, openSite) {
  const c = list.counts || {};
  const k = itemCounts(list.sites || []);
  const rain = list.rainfall && list.rainfall.last
    ? `Rainfall ${list.rainfall.first} to ${list.rainfall.last}: ${list.rainfall.sources.join("; ")}.`
    : "No rainfall record loaded: storm inspections are not shown.";
  const groups = ["overdue", "due_today", "due_this_week", "upcoming"]
    .map((u) => [u, list.sites.filter((s) => s.urgency === u)])
    .filter(([, sites]) => sites.length);
  const others = (title, items, testid) =>
    items.length
      ? el(
          "details",
          { class: "insp-others", "data-testid": testid },
          el("summary", { text: `${title} (${items.length})` }),
          el(
            "ul",
            null,
            items.map((u) =>
              el("li", { "data-site": u.site_id }, `${u.site_id} ${u.name || ""}: ${u.reason}`,
                u.missing && u.missing.length ? ` Missing: ${u.missing.join("; ")}.` : ""),
            ),
          ),
        )
      : null;
  const parts = [
    el(
      "p",
      { class: "insp-summary", "data-testid": "inspections-summary" },
      `Sites: ${c.overdue || 0} overdue · ${c.due_today || 0} due today · ${c.due_this_week || 0} due this week`,
      list.needs_data.length ? ` · ${list.needs_data.length} need data` : "",
      // The badges are per inspection: a site overdue may also owe one today.
      el("br"), `Inspections: ${k.overdue || 0} overdue · ${k.due_today || 0} due today · ${k.due_this_week || 0} due this week`,
    ),
    el(
      "p",
      { class: "insp-rule" },
      `Every ${list.interval_days} days, and within ${list.storm_inspection_hours} hours of a storm of ${list.storm_threshold_in} in or more. ${rain}`,
    ),
    groups.length
      ? groups.map(([u, sites]) =>
          el("section", { class: "insp-group" }, el("h3", { text: `${LABEL[u]} (${sites.length})` }),
            el("ul", { class: "insp-sites" }, sites.map((s) => siteEntry(s, openSite)))),
        )
      : el("p", { text: "No inspection is owed on this date." }),
    others("Needs data", list.needs_data, "inspections-needs-data"),
    others("Not due", list.not_due, "inspections-not-due"),
  ];
  box.replaceChildren(...parts.flat().filter(Boolean));
}

/**
 * Adds the "Inspections due" card to `panel`. `openSite(id)` opens a site's report.
 * The list loads when the card is first opened, and again when the date changes.
 */
export function mountInspections(panel, { openSite } = {}) {
  if (!panel || document.getElementById("inspections-card")) return;
  const css = el("link", { rel: "stylesheet", href: "/inspections.css" });
  document.head.appendChild(css);
  const date = el("input", { type: "date", id: "inspections-date", value: today(), "data-testid": "inspections-date" });
  const sheet = el("a", {
    class: "insp-sheet",
    target: "_blank",
    rel: "noopener",
    "data-testid": "inspections-sheet",
    text: "Printable day sheet",
  });
  const box = el("div", { class: "insp-list", "data-testid": "inspections-list", "aria-live": "polite" });
  let shown = null;
  const load = async () => {
    const asOf = date.value || today();
    sheet.href = `/inspections/due.html?as_of=${encodeURIComponent(asOf)}`;
    if (shown === asOf) return;
    shown = asOf;
    box.replaceChildren(el("p", { class: "insp-loading", text: "Loading the due list…" }));
    try {
      const list = await fetchDue(asOf);
      if (shown !== asOf) return;
      render(box, list, openSite);
      box.dataset.asOf = asOf;
    } catch (err) {
      shown = null;
      box.replaceChildren(el("p", { class: "insp-error", role: "alert", text: `Could not load the due list: ${err.message}` }));
    }
  };
  const card = el(
    "details",
    { id: "inspections-card", class: "card insp-card", "data-testid": "inspections-card" },
    el("summary", { "data-testid": "inspections-toggle" }, el("h2", { text: "Inspections due" })),
    el("div", { class: "row wrap controls" }, el("label", { for: "inspections-date", text: "As of" }), date, sheet),
    box,
  );
  card.addEventListener("toggle", () => card.open && load());
  date.addEventListener("change", () => card.open && load());
  sheet.href = `/inspections/due.html?as_of=${today()}`;
  const sites = panel.querySelector("[aria-labelledby='sites-h']");
  panel.insertBefore(card, sites || null);
}

// Issue 23, "Print: a site report fits on one or two pages; the inset map labels its streets and
// streams". Every demo site's report, the longest (by its printed words) among them, is printed
// to PDF at US Letter and has at most two pages; on the longest and on S06 (the storm sewer's
// path) the inset's street and stream names render on paper.
// Run: OUTFALL_URL=http://127.0.0.1:18950 node --test tests/e2e/field-print.test.mjs
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { artifacts, BASE, TIMEOUT, noServer as skip, launchBrowser } from "./browser.mjs";

/** The pages of a PDF: its page objects ("/Type /Page", not the "/Type /Pages" tree). */
function pageCount(pdf) {
  return (pdf.toString("latin1").match(/\/Type\s*\/Page(?![a-zA-Z])/g) || []).length;
}

/** The words a report prints: its HTML without tags, scripts, styles or the inset's SVG. */
function printedText(html) {
  return html
    .replace(/<(script|style|svg)[\s\S]*?<\/\1>/g, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

describe("a printed site report", { skip, timeout: 6 * TIMEOUT }, () => {
  let context, close, page;
  const pageErrors = [];

  before(async () => {
    ({ context, close } = await launchBrowser("outfall-e2e-print-", { width: 1366, height: 768 }));
    page = context.pages()[0] || (await context.newPage());
    page.setDefaultTimeout(TIMEOUT);
    page.on("pageerror", (err) => pageErrors.push(String((err && err.stack) || err)));
  });

  after(async () => {
    if (close) await close();
    assert.deepEqual(pageErrors, []);
  });

  /** The demo site whose printed report has the most words. */
  async function longestSite() {
    const { sites } = await (await fetch(`${BASE}/sites`)).json();
    let best = null;
    for (const s of sites) {
      const html = await (await fetch(`${BASE}/sites/${encodeURIComponent(s.id)}/report.html`)).text();
      const n = printedText(html).length;
      if (!best || n > best.n) best = { id: s.id, n };
    }
    return best.id;
  }

  test("every demo report, the longest too, fits on two Letter pages", async () => {
    const { sites } = await (await fetch(`${BASE}/sites`)).json();
    const longest = await longestSite();
    assert.ok(sites.some((s) => s.id === longest));
    const counts = {};
    for (const { id } of sites) {
      await page.goto(`${BASE}/sites/${encodeURIComponent(id)}/report.html`, { waitUntil: "load" });
      const pdf = await page.pdf({ format: "Letter", printBackground: true });
      counts[id] = pageCount(pdf);
      if (id === longest) fs.writeFileSync(path.join(artifacts, `field-print-longest-${id}.pdf`), pdf);
    }
    const over = Object.entries(counts).filter(([, n]) => n < 1 || n > 2);
    assert.deepEqual(over, [], `pages per report: ${JSON.stringify(counts)}`);
  });

  test("the inset names its streets and streams on paper (the longest report and S06)", async () => {
    const longest = await longestSite();
    for (const id of [...new Set([longest, "S06"])]) {
      await page.goto(`${BASE}/sites/${id}/report.html`, { waitUntil: "load" });
      await page.emulateMedia({ media: "print" });
      // The inset's names, as they render on paper: inside the map, each kind at least once.
      const labels = await page.evaluate(() => {
        const svg = document.querySelector("svg");
        const box = svg.getBoundingClientRect();
        return [...svg.querySelectorAll("text[data-kind]")].map((t) => {
          const r = t.getBoundingClientRect();
          const inside = r.width > 0 && r.left >= box.left - 1 && r.right <= box.right + 1 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
          return { kind: t.dataset.kind, name: t.textContent, shown: inside && getComputedStyle(t).display !== "none" && getComputedStyle(t).visibility !== "hidden" };
        });
      });
      for (const kind of ["street", "stream"]) {
        const shown = labels.filter((l) => l.kind === kind && l.shown);
        assert.ok(shown.length >= 1, `${id}: a ${kind} is named on the printed inset: ${JSON.stringify(labels)}`);
      }
      await page.screenshot({ path: path.join(artifacts, `field-print-${id}.png`), fullPage: true });
      await page.emulateMedia({ media: "screen" });
    }
  });
});

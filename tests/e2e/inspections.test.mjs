// The viewer's "Inspections due" view against a running `outfall serve` on the demo:
// the due list after the demo's storm (as of 2026-11-30), the storm behind each item, a site
// opened from the list, and the printable day sheet.
// Run: OUTFALL_URL=http://127.0.0.1:18981 node --test tests/e2e/inspections.test.mjs
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { root, artifacts, BASE, TIMEOUT, noServer as skip, launchBrowser } from "./browser.mjs";

const AS_OF = "2026-11-30";

describe("inspections due view", { skip, timeout: 5 * TIMEOUT }, () => {
  let context;
  let page;
  let close;
  let due;
  const errors = [];

  before(async () => {
    const res = await fetch(`${BASE}/inspections/due?as_of=${AS_OF}`);
    assert.equal(res.status, 200);
    due = await res.json();
    ({ context, close } = await launchBrowser("outfall-e2e-insp-", { width: 1280, height: 900 }));
    page = context.pages()[0] || (await context.newPage());
    page.setDefaultTimeout(TIMEOUT);
    page.on("pageerror", (err) => errors.push(String(err && err.stack || err)));
    page.on("console", (msg) => msg.type() === "error" && errors.push(msg.text()));
    await page.goto(BASE + "/", { waitUntil: "domcontentloaded" });
    await page.waitForFunction(() => window.outfall && window.outfall.ready === true, null, { timeout: TIMEOUT });
  });

  after(async () => {
    if (close) await close();
  });

  test("the due list after the demo's storm shows each storm and its deadline", async () => {
    await page.click('[data-testid="inspections-toggle"]');
    await page.fill('[data-testid="inspections-date"]', AS_OF);
    await page.dispatchEvent('[data-testid="inspections-date"]', "change");
    await page.waitForFunction((d) => document.querySelector('[data-testid="inspections-list"]')?.dataset.asOf === d, AS_OF);
    const shown = await page.$$eval('[data-testid="inspection-site"]', (els) => els.map((e) => e.dataset.site));
    assert.deepEqual(shown, due.sites.map((s) => s.site_id), "the view lists the route's sites in its order");
    assert.equal(shown.length, 8);
    const summary = await page.textContent('[data-testid="inspections-summary"]');
    assert.match(summary, /8 overdue/);
    const s04 = page.locator('[data-testid="inspection-site"][data-site="S04"]');
    const storms = await s04.locator('[data-kind="storm"]').allTextContents();
    assert.ok(storms.some((t) => /overdue/.test(t) && /Sat 2026-11-28/.test(t) && /0\.82 in/.test(t) && /Fri 2026-11-27/.test(t)),
      `Friday's storm, due Saturday: ${storms.join(" | ")}`);
    assert.ok(storms.some((t) => /Due today/.test(t) && /0\.55 in/.test(t) && /Sun 2026-11-29/.test(t)),
      `Sunday's storm, due today: ${storms.join(" | ")}`);
    assert.ok(storms.every((t) => /USW00014771/.test(t)), "each storm names its station");
    const notDue = await page.textContent('[data-testid="inspections-not-due"]');
    assert.match(notDue, /S09/);
    await page.locator('[data-testid="inspections-card"]').screenshot({ path: path.join(artifacts, "inspections-due.png") });
  });

  test("a site opens from the list", async () => {
    await page.click('[data-testid="inspection-site"][data-site="S04"] button');
    await page.waitForFunction(() => /Taft Road/.test(document.querySelector('[data-testid="report"]')?.textContent || ""));
    const text = await page.textContent('[data-testid="report"]');
    assert.match(text, /Taft Road/);
  });

  test("an earlier date has no storm items yet, and the day sheet prints", async () => {
    await page.fill('[data-testid="inspections-date"]', "2026-11-20");
    await page.dispatchEvent('[data-testid="inspections-date"]', "change");
    await page.waitForFunction(() => document.querySelector('[data-testid="inspections-list"]')?.dataset.asOf === "2026-11-20");
    const text = await page.textContent('[data-testid="inspections-list"]');
    assert.ok(!/2026-11-27/.test(text), "the storm of the 27th is not known on the 20th");
    await page.fill('[data-testid="inspections-date"]', AS_OF);
    await page.dispatchEvent('[data-testid="inspections-date"]', "change");
    const href = await page.getAttribute('[data-testid="inspections-sheet"]', "href");
    assert.equal(href, `/inspections/due.html?as_of=${AS_OF}`);
    const sheet = await context.newPage();
    await sheet.goto(BASE + href);
    await sheet.emulateMedia({ media: "print" });
    assert.match(await sheet.textContent("h1"), /Inspection day sheet — Mon 2026-11-30/);
    assert.equal(await sheet.locator("section.site").count(), 8);
    assert.match(await sheet.textContent('section.site[data-site="S04"]'), /storm of 0\.82 in on Fri 2026-11-27/);
    await sheet.screenshot({ path: path.join(artifacts, "inspections-day-sheet.png"), fullPage: true });
    await sheet.close();
    assert.deepEqual(errors, [], `no page or console errors: ${errors.join("\n")}`);
  });
});

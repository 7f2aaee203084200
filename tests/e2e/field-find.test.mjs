// Issue 23, "find and read", at a laptop (1366x768) and a tablet (820x1180): search finds a
// PWL ID and a loosely typed parcel id, and no site by a street that is not its own; a water
// opens its card; the officer's sign-in sits behind a small button and says why a token fails;
// the legend folds on a tablet; the inspections card agrees with its badges and groups missed
// storms; exports are named after the site.
// Run: OUTFALL_URL=http://127.0.0.1:18951 node --test tests/e2e/field-find.test.mjs
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { artifacts, TIMEOUT, noServer as skip, SIZES, openViewer, searchFor } from "./browser.mjs";

for (const [label, viewport] of SIZES) {
  describe(`find and read (${label})`, { skip, timeout: 6 * TIMEOUT }, () => {
    let context, close, page;
    const pageErrors = [];

    before(async () => {
      ({ context, close, page } = await openViewer(`outfall-e2e-find-${label}-`, viewport, pageErrors));
    });

    after(async () => {
      if (close) await close();
      assert.deepEqual(pageErrors, []);
    });

    const search = (q) => searchFor(page, q);

    test("search finds a PWL ID and opens the water's card", async () => {
      const results = await search("0702-0001");
      assert.equal(results[0].kind, "water");
      assert.match(results[0].label, /^PWL 0702-0001 — /);
      await page.locator('[data-testid="search-result"]').first().locator("button").click();
      const card = page.locator('[data-testid="water-card"]');
      await card.waitFor();
      assert.equal(await card.getAttribute("data-pwl-id"), "0702-0001");
      const text = await card.textContent();
      assert.match(text, /category 5: impaired; the list says a TMDL is still needed/);
      assert.match(text, /nutrients \(phosphorus\)/);
      assert.match(text, /List year2012/);
      assert.match(text, /Water classC/, "the PWL table's class");
      await card.screenshot({ path: path.join(artifacts, `field-find-${label}-water-card.png`) });
    });

    test("a parcel id typed loosely finds the parcel", async () => {
      for (const q of ["055-01-07", "55.-1-7"]) {
        const results = await search(q);
        assert.equal(results[0] && results[0].id, "055.-01-07.0", `${q}: ${JSON.stringify(results.slice(0, 3))}`);
      }
    });

    test("a street finds only the sites on it", async () => {
      const other = await search("Buckley Rd");
      assert.ok(!other.some((r) => r.kind === "site"), `no site lies on Buckley Rd: ${JSON.stringify(other)}`);
      const own = await search("Bear Rd");
      assert.ok(own.some((r) => r.kind === "site" && r.id === "S06"), "S06 is on Bear Rd");
    });

    test("the officer's sign-in sits behind a small button and says why a token fails", async () => {
      assert.equal(await page.locator('[data-testid="officer-token"]').count(), 0, "no token field until asked");
      assert.equal(await page.locator("#panel > .card").first().getAttribute("id"), null, "the first card is not the sign-in");
      await page.click('[data-testid="officer-open"]');
      await page.fill('[data-testid="officer-token"]', "ofl_000000000000_wrong");
      await page.click('[data-testid="officer-signin"]');
      await page.waitForFunction(() => /This token is not known/.test(document.querySelector('[data-testid="officer-msg"]')?.textContent || ""));
    });

    test("the legend folds on a tablet; exports are named after the site", async () => {
      const open = await page.evaluate(() => document.querySelector("#legend details").open);
      assert.equal(open, label === "laptop", "open on a laptop, folded on a tablet");
      await page.evaluate(() => window.outfall.openSite("S06"));
      const zip = page.locator('[data-testid="report"] [data-testid="export-zip"]');
      await zip.waitFor();
      assert.equal(await zip.getAttribute("download"), "S06-disturbance.zip");
    });

    test("the inspections card agrees with its badges and groups missed storms by site", async () => {
      await page.click('[data-testid="inspections-toggle"]');
      await page.fill('[data-testid="inspections-date"]', "2026-11-30");
      await page.dispatchEvent('[data-testid="inspections-date"]', "change");
      await page.waitForFunction(() => document.querySelector('[data-testid="inspections-list"]')?.dataset.asOf === "2026-11-30");
      const summary = await page.textContent('[data-testid="inspections-summary"]');
      const badges = await page.locator('[data-testid="inspection-item"] .insp-badge').allTextContents();
      const today = badges.filter((b) => b === "Due today").length;
      assert.match(summary, new RegExp(`Inspections: \\d+ overdue · ${today} due today`), `${summary} / ${today} badges`);
      const s04 = page.locator('[data-testid="inspection-site"][data-site="S04"]');
      assert.equal(await s04.locator('[data-testid="missed-storms"]').count(), 1, "S04's missed storms sit under one heading");
      await page.locator('[data-testid="inspections-card"]').screenshot({ path: path.join(artifacts, `field-find-${label}-inspections.png`) });
    });
  });
}

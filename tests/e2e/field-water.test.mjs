// Issue 23, "choosing a water opens its card", at a laptop (1366x768) and a tablet (820x1180):
// a search result or a click on the water opens its card with its PWL ID, class, category in
// words, causes, TMDL status, DEC's fact sheet from the PWL table (carried onto data/clay's
// waters), and the sites that drain to it.
// Run: OUTFALL_URL=http://127.0.0.1:18950 node --test tests/e2e/field-water.test.mjs
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { artifacts, TIMEOUT, noServer as skip, SIZES, openViewer, searchFor } from "./browser.mjs";

for (const [label, viewport] of SIZES) {
  describe(`the water card (${label})`, { skip, timeout: 6 * TIMEOUT }, () => {
    let context, close, page;
    const pageErrors = [];

    before(async () => {
      ({ context, close, page } = await openViewer(`outfall-e2e-water-${label}-`, viewport, pageErrors));
    });

    after(async () => {
      if (close) await close();
      assert.deepEqual(pageErrors, []);
    });

    const search = (q) => searchFor(page, q);

    const fact = (card, k) => card.locator(`dd[data-fact="${k}"]`).textContent();

    test("a water chosen in search opens its card: listing, TMDL, fact sheet, the sites that drain to it", async () => {
      const results = await search("0702-0003");
      assert.equal(results[0].kind, "water");
      await page.locator('[data-testid="search-result"]').first().locator("button").click();
      const card = page.locator('[data-testid="water-card"]');
      await card.waitFor();
      await card.locator('[data-testid="water-sites"] li').first().waitFor();
      assert.equal(await card.getAttribute("data-pwl-id"), "0702-0003");
      assert.equal(await fact(card, "PWL ID"), "0702-0003");
      // Class and fact sheet: NYSDEC's PWL table (2023), carried onto the demo's waters.
      assert.equal(await fact(card, "Water class"), "B");
      assert.equal(await fact(card, "303(d) listing"), "category 5: impaired; the list says a TMDL is still needed");
      assert.equal(await fact(card, "Causes"), "Dioxin, mercury, PCBs, other toxins");
      assert.equal(await fact(card, "TMDL"), "Onondaga Lake phosphorus TMDL (2012) (phosphorus)");
      assert.equal(await card.locator('[data-testid="fact-sheet"]').getAttribute("href"),
        "https://www.dec.ny.gov/data/WQP/PWL/0702-0003.html");
      // Category 5 beside an approved TMDL: both shown, the disagreement flagged.
      assert.match(await card.locator('[data-testid="tmdl-conflict"]').textContent(), /List and TMDL disagree/);
      // S06's path reaches the lake downstream (data/clay/README.md: 3.43 mi).
      const s06 = card.locator('[data-testid="water-sites"] li[data-site="S06"]');
      assert.match(await s06.textContent(), /^S06 — .* · downstream, 3\.43 mi along the path$/);
      await card.screenshot({ path: path.join(artifacts, `field-water-${label}-card-search.png`) });
      // A site in the card opens its report.
      await s06.locator("button").click();
      await page.waitForFunction(() => window.outfall.state.current && window.outfall.state.current.id === "S06");
    });

    test("a click on a water on the map opens its card", async () => {
      // Sawmill Creek, S06's first receiving water: a point midway along its reach.
      const at = await page.evaluate(() => {
        const f = window.outfall.state.layers.data.flowlines.features.find((x) => String(x.properties.id) === "21974097");
        const line = f.geometry.type === "MultiLineString" ? f.geometry.coordinates[0] : f.geometry.coordinates;
        return line[Math.floor(line.length / 2)];
      });
      await page.locator('[data-testid="map"]').scrollIntoViewIfNeeded();
      await page.evaluate((c) => window.outfall.map.jumpTo({ center: c, zoom: 16 }), at);
      await page.waitForFunction(() => !window.outfall.map.isMoving() && window.outfall.map.loaded());
      const pt = await page.evaluate((c) => {
        const m = window.outfall.map;
        const p = m.project(c);
        const r = m.getCanvas().getBoundingClientRect();
        return { x: r.left + p.x, y: r.top + p.y };
      }, at);
      await page.mouse.click(pt.x, pt.y);
      const card = page.locator('[data-testid="water-card"]');
      await card.waitFor();
      await card.locator('[data-testid="water-sites"] li').first().waitFor();
      assert.equal(await card.locator('[data-testid="report-title"]').textContent(), "Sawmill Creek");
      assert.equal(await fact(card, "PWL ID"), "0702-0022");
      assert.equal(await fact(card, "303(d) listing"), "no listing for 0702-0022 in the list loaded");
      assert.equal(await fact(card, "TMDL"), "Onondaga Lake phosphorus TMDL (2012) (phosphorus)");
      assert.match(await card.locator('[data-testid="water-sites"] li[data-site="S06"]').textContent(), /· first receiving water$/);
      await page.screenshot({ path: path.join(artifacts, `field-water-${label}-card-click.png`) });
    });
  });
}

// Browser tests of the storm sewer on the map: pipes with arrows the way the water runs, the
// pipe path of a site that drains through the sewer (S05, to OF-05 on a tributary of Mud
// Creek rather than the nearer Seneca River), and a click on an outfall that highlights what
// drains to it. Laptop and tablet screenshots go to tests/artifacts/.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { artifacts, BASE, TIMEOUT, noServer as skip, launchBrowser } from "./browser.mjs";

async function getJSON(p) {
  const res = await fetch(BASE + p, { headers: { Accept: "application/json" } });
  assert.equal(res.status, 200, `GET ${p} -> ${res.status}`);
  return res.json();
}

describe("storm sewer on the map", { skip, timeout: 6 * TIMEOUT }, () => {
  let context;
  let close;
  const errors = [];

  before(async () => {
    ({ context, close } = await launchBrowser("outfall-storm-e2e-", { width: 1366, height: 768 }));
  });

  after(async () => {
    if (close) await close();
  });

  async function open(viewport) {
    const page = await context.newPage();
    page.setDefaultTimeout(TIMEOUT);
    await page.setViewportSize(viewport);
    page.on("pageerror", (err) => errors.push(String((err && err.stack) || err)));
    await page.goto(`${BASE}/`, { waitUntil: "domcontentloaded" });
    await page.waitForFunction(() => window.outfall && window.outfall.ready === true && window.outfall.map.loaded(), null, { timeout: TIMEOUT });
    return page;
  }

  async function idle(page) {
    await page.waitForFunction(() => {
      const m = window.outfall.map;
      return !m.isMoving() && m.loaded() && m.areTilesLoaded();
    });
    await page.waitForTimeout(300);
  }

  for (const [name, viewport] of [["laptop", { width: 1366, height: 768 }], ["tablet", { width: 820, height: 1180 }]]) {
    test(`${name}: S05's pipe path is drawn, and its arrows follow the water`, async () => {
      const report = await getJSON("/sites/S05/report");
      assert.equal(report.entry.rule, "storm_sewer");
      const pipeIds = report.entry.sewer.trace.pipes.map((p) => p.id);
      assert.ok(pipeIds.length >= 2, "S05 drains through pipes");
      const page = await open(viewport);
      await page.locator('[data-testid="site-item"][data-site-id="S05"] button').click();
      await page.waitForFunction(() => window.outfall.lastReport && window.outfall.lastReport.site.id === "S05");
      await idle(page);
      const seen = await page.evaluate(() => {
        const m = window.outfall.map;
        const filter = m.getFilter("storm-path-line");
        const drawn = m.queryRenderedFeatures({ layers: ["storm-path-line"] }).map((f) => f.properties.id);
        return { filter: filter && filter[2] && filter[2][1], drawn: [...new Set(drawn)], rotate: m.getLayoutProperty("storm-pipes-arrows", "icon-rotate") };
      });
      assert.deepEqual([...seen.filter].sort(), [...pipeIds].sort(), "the path is the report's pipes");
      assert.ok(seen.drawn.length > 0, "some of the path is on screen");
      assert.ok(seen.drawn.every((id) => pipeIds.includes(id)), `only S05's pipes: ${seen.drawn}`);
      assert.deepEqual(seen.rotate, ["match", ["get", "flow"], "against", 180, 0], "arrows turn for pipes drawn against the flow");
      await page.screenshot({ path: path.join(artifacts, `storm-${name}-s05-path.png`) });
      await page.close();
    });
  }

  test("a click on an outfall highlights everything that drains to it", async () => {
    const up = await getJSON("/outfalls/OF-05/upstream");
    const pipes = up.features.filter((f) => f.properties.kind === "pipe").length;
    const structures = await getJSON("/collections/storm_structures/items?limit=1000");
    const of05 = structures.features.find((f) => f.id === "OF-05");
    assert.equal(of05.properties.kind, "outfall");
    const page = await open({ width: 1366, height: 768 });
    await page.evaluate((at) => window.outfall.map.jumpTo({ center: at, zoom: 17 }), of05.geometry.coordinates);
    await idle(page);
    const point = await page.evaluate((at) => window.outfall.map.project(at), of05.geometry.coordinates);
    const box = await page.locator("#map canvas").boundingBox();
    await page.mouse.click(box.x + point.x, box.y + point.y);
    await page.waitForFunction(() => /Outfall OF-05/.test(document.querySelector('[data-testid="status"]').textContent));
    const status = await page.locator('[data-testid="status"]').textContent();
    assert.match(status, new RegExp(`Outfall OF-05: ${pipes} pipe\\(s\\)`));
    const highlighted = await page.evaluate(() => {
      const d = window.outfall.map.getSource("storm-upstream").serialize().data;
      return d.features.filter((f) => f.properties.kind === "pipe").length;
    });
    assert.equal(highlighted, pipes);
    await idle(page);
    await page.screenshot({ path: path.join(artifacts, "storm-laptop-of05-upstream.png") });
    await page.close();
    assert.deepEqual(errors, []);
  });
});

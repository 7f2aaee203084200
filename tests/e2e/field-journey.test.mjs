// Issue 23, "tried as a new user would": from an uploaded plan to a report whose receiving water
// comes from the applicant's own outfall point, by the visible controls only (the "Upload a
// plan" label and its file chooser, the "Place the outfall point" button, a click on the map,
// a scroll when a control is out of view), at a laptop and a tablet. No URL, no test hook
// drives the journey; the test only reads the page, as the user's eyes do. It counts the
// user's actions and asserts there are at most 5; the simulated time (a keystroke-level
// model: 1.35 s to decide, 1.1 s to point, 0.2 s to click, 4 s to find a file in the chooser,
// plus the measured waits for the viewer) is printed as a diagnostic, never asserted.
// Run: OUTFALL_URL=http://127.0.0.1:18950 node --test tests/e2e/field-journey.test.mjs
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { artifacts, BASE, TIMEOUT, noServer as skip, launchBrowser, SIZES } from "./browser.mjs";

/** Keystroke-level model operators, in seconds (Card, Moran and Newell). */
const KLM = { mental: 1.35, point: 1.1, click: 0.2, scroll: 1.0, chooseFile: 4.0 };

/** The applicant's plan: a small pad near S06 of the demo, as a CAD export would give it. */
const PLAN = JSON.stringify({
  type: "FeatureCollection",
  features: [{ type: "Feature", properties: {}, geometry: { type: "Polygon", coordinates: [[[-76.2, 43.14], [-76.198, 43.14], [-76.198, 43.1412], [-76.2, 43.1412], [-76.2, 43.14]]] } }],
});
/** Where the pad's runoff leaves it: S06's outfall on Sawmill Creek. */
const OUTFALL = [-76.195, 43.1392];

for (const [label, viewport] of SIZES) {
  describe(`a new applicant's journey (${label})`, { skip, timeout: 4 * TIMEOUT }, () => {
    let context, close, page;
    const pageErrors = [];

    before(async () => {
      ({ context, close } = await launchBrowser(`outfall-e2e-journey-${label}-`, viewport));
      page = context.pages()[0] || (await context.newPage());
      page.setDefaultTimeout(TIMEOUT);
      page.on("pageerror", (err) => pageErrors.push(String((err && err.stack) || err)));
    });

    after(async () => {
      if (close) await close();
      assert.deepEqual(pageErrors, []);
    });

    test("upload a plan, place the outfall, read the receiving water it gives", async (t) => {
      const actions = [];
      let simulated = 0;
      let waited = 0;
      const act = (what, seconds) => {
        actions.push(what);
        simulated += seconds;
      };
      const wait = async (promise) => {
        const t0 = Date.now();
        const v = await promise;
        waited += (Date.now() - t0) / 1000;
        return v;
      };
      /** A control the user must see: scrolled to (one action) when it is out of view. */
      const reach = async (locator, what) => {
        const inView = await locator.evaluate((el) => {
          const r = el.getBoundingClientRect();
          return r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth;
        });
        if (!inView) {
          await locator.scrollIntoViewIfNeeded();
          act(`scroll to ${what}`, KLM.mental + KLM.scroll);
        }
        assert.equal(await locator.isVisible(), true, `${what} is visible`);
      };

      await page.goto(BASE + "/", { waitUntil: "domcontentloaded" });
      await wait(page.waitForFunction(() => document.body.dataset.ready === "true", null, { timeout: TIMEOUT }));

      // 1-2. "Upload a plan", then the file in the chooser.
      const uploadLabel = page.locator('label[for="upload"]');
      await reach(uploadLabel, "Upload a plan");
      const chooser = page.waitForEvent("filechooser");
      await uploadLabel.click();
      act("click Upload a plan", KLM.mental + KLM.point + KLM.click);
      const checked = page.waitForResponse((r) => /\/check(\?|$)/.test(r.url()) && r.request().method() === "POST");
      await (await chooser).setFiles({ name: "pad.geojson", mimeType: "application/geo+json", buffer: Buffer.from(PLAN) });
      act("choose pad.geojson", KLM.chooseFile + KLM.click);
      assert.equal((await wait(checked)).status(), 200);
      const summary = page.locator('[data-testid="report"] [data-testid="summary-receiving"]');
      await wait(summary.waitFor());
      assert.match(await summary.textContent(), /assumed/, "before the outfall, the water is the nearest one");

      // 3. "Place the outfall point".
      const place = page.locator('[data-testid="outfall-place"]');
      await reach(place, "Place the outfall point");
      await place.click();
      act("click Place the outfall point", KLM.mental + KLM.point + KLM.click);

      // 4. A click on the map where the runoff leaves the site, as the map shows it now.
      await wait(page.waitForFunction(() => !window.outfall.map.isMoving()));
      const mapBox = page.locator('[data-testid="map"]');
      await reach(mapBox, "the map");
      const pt = await page.evaluate((c) => {
        const canvas = document.querySelector('[data-testid="map"] canvas');
        const r = canvas.getBoundingClientRect();
        const p = window.outfall.map.project(c);
        return { x: r.left + p.x, y: r.top + p.y, inside: p.x > 0 && p.y > 0 && p.x < r.width && p.y < r.height };
      }, OUTFALL);
      assert.ok(pt.inside, "the outfall's place is on the map the check left on screen");
      const again = page.waitForResponse((r) => /\/check(\?|$)/.test(r.url()) && r.request().method() === "POST");
      await page.mouse.click(pt.x, pt.y);
      act("click the outfall on the map", KLM.mental + KLM.point + KLM.click);
      assert.equal((await wait(again)).status(), 200);

      // Read the answer: the receiving water comes from the applicant's point.
      await wait(page.waitForFunction(() => /outfall point given by the applicant/.test(document.querySelector('[data-testid="summary-receiving"]')?.textContent || "")));
      await reach(summary, "the report's summary");
      assert.equal(await summary.textContent(), "Sawmill Creek (outfall point given by the applicant)");
      await page.screenshot({ path: path.join(artifacts, `field-journey-${label}.png`) });

      const record = { size: label, actions, count: actions.length, simulated_s: Number((simulated + waited).toFixed(1)), user_s: Number(simulated.toFixed(1)), viewer_waits_s: Number(waited.toFixed(1)) };
      fs.writeFileSync(path.join(artifacts, `field-journey-${label}.json`), JSON.stringify(record, null, 2));
      t.diagnostic(`journey ${label}: ${JSON.stringify(record)}`);
      assert.ok(actions.length <= 5, `at most 5 actions: ${actions.join(", ")}`);
    });
  });
}

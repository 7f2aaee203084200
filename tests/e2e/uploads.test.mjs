// Browser tests of uploads in engineers' formats: a State Plane GeoJSON (a CAD export with a
// legacy `crs` member, which used to freeze the viewer with "Invalid LngLat latitude value"),
// the same file without its `crs` (the viewer asks for the coordinate system), and a zipped
// Shapefile. Each gives a report, and the map stays usable: it zooms to the server's WGS84
// answer, never to the raw uploaded coordinates.
// Run: OUTFALL_URL=http://127.0.0.1:18951 node --test tests/e2e/uploads.test.mjs
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { root, artifacts, BASE, TIMEOUT, noServer as skip, launchBrowser } from "./browser.mjs";

const fixtures = path.join(root, "tests", "fixtures", "uploads");

// S01 of the demo (Route 31 retail pad): 3.864 acres, drains to Mud Creek.
const S01_ACRES = 3.864;

describe("uploads in engineers' formats", { skip, timeout: 5 * TIMEOUT }, () => {
  let context;
  let page;
  let close;
  const pageErrors = [];
  const consoleErrors = [];
  // The 422 asking for a coordinate system is provoked on purpose.
  const expected = [/status of 422/];

  before(async () => {
    ({ context, close } = await launchBrowser("outfall-e2e-up-", { width: 1280, height: 800 }));
    page = context.pages()[0] || (await context.newPage());
    page.setDefaultTimeout(TIMEOUT);
    page.on("pageerror", (err) => pageErrors.push(String((err && err.stack) || err)));
    page.on("console", (msg) => {
      if (msg.type() !== "error") return;
      const text = msg.text();
      if (expected.some((re) => re.test(text))) return;
      consoleErrors.push(text);
    });
    await page.goto(BASE + "/", { waitUntil: "domcontentloaded" });
    await page.waitForFunction(() => window.outfall && window.outfall.ready === true && window.outfall.map && window.outfall.map.loaded(), null, { timeout: TIMEOUT });
  });

  after(async () => {
    if (close) await close();
  });

  /** Uploads a file and waits for the report that the server answered with. */
  async function upload(name, mimeType, buffer) {
    const resp = page.waitForResponse((r) => /\/check(\?|$)/.test(r.url()) && r.request().method() === "POST");
    await page.setInputFiles('[data-testid="upload"]', { name, mimeType, buffer });
    return resp;
  }

  async function reportShown(rep) {
    await page.waitForFunction((id) => {
      const cur = window.outfall.state.current;
      return cur && cur.source === "check" && cur.report.site.id === id && !document.querySelector('[data-testid="report"]').hasAttribute("aria-busy");
    }, rep.site.id);
    const names = await page.locator('[data-testid="report"] [data-testid="receiving-water-name"]').allTextContents();
    assert.deepEqual(names, rep.receiving_water_names);
    // The map ends on the site, in lon/lat, and still answers.
    await page.waitForFunction(() => !window.outfall.map.isMoving());
    const view = await page.evaluate(() => {
      const m = window.outfall.map;
      m.jumpTo({ zoom: m.getZoom() + 0.5 });
      const c = m.getCenter();
      return { lng: c.lng, lat: c.lat, zoom: m.getZoom() };
    });
    const [w, s, e, n] = rep.site.bbox;
    assert.ok(Math.abs(view.lng - (w + e) / 2) < 0.05 && Math.abs(view.lat - (s + n) / 2) < 0.05, `map centred near the site: ${JSON.stringify(view)}`);
  }

  test("a State Plane GeoJSON (legacy crs member) gives a report and the map stays usable", async () => {
    const r = await upload("s01_stateplane.geojson", "application/geo+json", fs.readFileSync(path.join(fixtures, "s01_stateplane.geojson")));
    assert.equal(r.status(), 200, await r.text());
    const rep = await r.json();
    assert.equal(rep.site.id, "s01_stateplane.geojson", "the report names the file");
    assert.ok(Math.abs(rep.disturbance.total_acres - S01_ACRES) < 0.01, `acres ${rep.disturbance.total_acres}`);
    assert.deepEqual(rep.receiving_water_names, ["Mud Creek"]);
    await reportShown(rep);
    const eyebrow = await page.locator('[data-testid="report"] .eyebrow').textContent();
    assert.match(eyebrow, /s01_stateplane\.geojson/);
    // The export buttons of a check are offered.
    await page.locator('[data-testid="report"] [data-testid="export-zip"]').waitFor();
    await page.screenshot({ path: path.join(artifacts, "uploads-stateplane.png") });
  });

  test("a projected GeoJSON without crs asks for the coordinate system, then gives a report", async () => {
    const doc = JSON.parse(fs.readFileSync(path.join(fixtures, "s01_stateplane.geojson"), "utf8"));
    delete doc.crs;
    const r = await upload("cad_export.geojson", "application/geo+json", Buffer.from(JSON.stringify(doc)));
    assert.equal(r.status(), 422);
    const problem = await r.json();
    assert.equal(problem.crs_required, true);
    assert.match(problem.detail, /choose the coordinate system/);
    await page.locator('[data-testid="crs-form"]').waitFor({ state: "visible" });
    await page.fill('[data-testid="crs-input"]', "EPSG:2261");
    const again = page.waitForResponse((x) => x.url().includes("/check?crs=EPSG%3A2261") && x.request().method() === "POST");
    await page.click('[data-testid="crs-submit"]');
    const r2 = await again;
    assert.equal(r2.status(), 200, await r2.text());
    const rep = await r2.json();
    assert.ok(Math.abs(rep.disturbance.total_acres - S01_ACRES) < 0.01);
    await reportShown(rep);
    assert.equal(await page.locator('[data-testid="crs-form"]').isHidden(), true);
  });

  test("a zipped Shapefile gives a report", async () => {
    const r = await upload("s01_plan.zip", "application/zip", fs.readFileSync(path.join(fixtures, "s01_plan.zip")));
    assert.equal(r.status(), 200, await r.text());
    const rep = await r.json();
    assert.equal(rep.site.id, "s01_plan.zip");
    assert.ok(Math.abs(rep.disturbance.total_acres - S01_ACRES) < 0.01);
    await reportShown(rep);
    await page.screenshot({ path: path.join(artifacts, "uploads-shapefile.png") });
  });

  test("a polygon being drawn shows its acres, and its report is labelled drawn polygon", async () => {
    const box = await page.locator("#map canvas.maplibregl-canvas").boundingBox();
    const cx = box.x + box.width / 2;
    const cy = box.y + box.height / 2;
    await page.click('[data-testid="draw-start"]');
    await page.mouse.click(cx - 60, cy - 50);
    await page.mouse.click(cx + 70, cy - 40);
    await page.mouse.click(cx + 50, cy + 60);
    const hint = await page.locator('[data-testid="draw-hint"]').textContent();
    const m = /About ([\d.]+) acres \(approximate/.exec(hint);
    assert.ok(m && Number(m[1]) > 0, `hint shows acres: ${hint}`);
    const resp = page.waitForResponse((r) => /\/check$/.test(r.url()) && r.request().method() === "POST");
    await page.keyboard.press("Enter");
    const r = await resp;
    assert.equal(r.status(), 200);
    const rep = await r.json();
    assert.equal(rep.site.id, "drawn polygon");
    // The live estimate is the server's figure within 1%.
    assert.ok(Math.abs(Number(m[1]) - rep.disturbance.total_acres) <= 0.01 * rep.disturbance.total_acres + 0.01, `${m[1]} vs ${rep.disturbance.total_acres}`);
    await page.waitForFunction(() => window.outfall.state.current && window.outfall.state.current.report.site.id === "drawn polygon");
    const eyebrow = await page.locator('[data-testid="report"] .eyebrow').textContent();
    assert.match(eyebrow, /drawn polygon/);
    assert.doesNotMatch(eyebrow, /upload/);
  });

  test("no page errors (no Invalid LngLat) and no unexpected console errors", async () => {
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(consoleErrors, []);
  });
});

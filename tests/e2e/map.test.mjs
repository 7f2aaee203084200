// Browser tests of the map a planner reads: the outfall framing (S06), risk symbols, roads
// and labels, search ranking, permalinks and Esc, the printable pages; tablet and laptop
// screenshots go to tests/artifacts/. Run: OUTFALL_URL=http://127.0.0.1:18961 node --test tests/e2e/
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { artifacts, BASE, TIMEOUT, noServer as skip, launchBrowser } from "./browser.mjs";

async function getJSON(p) {
  const res = await fetch(BASE + p, { headers: { Accept: "application/json" } });
  assert.equal(res.status, 200, `GET ${p} -> ${res.status}`);
  return res.json();
}

describe("map for planners", { skip, timeout: 8 * TIMEOUT }, () => {
  let context;
  let close;
  const errors = [];

  before(async () => {
    ({ context, close } = await launchBrowser("outfall-map-e2e-", { width: 1366, height: 768 }));
  });

  after(async () => {
    if (close) await close();
  });

  /** A fresh page at `hash` with the viewer ready; page errors are collected. `setup(page)`
   * runs before the viewer loads (to answer a request in the server's place). */
  async function open(hash = "", viewport = { width: 1366, height: 768 }, setup = null) {
    const page = await context.newPage();
    page.setDefaultTimeout(TIMEOUT);
    await page.setViewportSize(viewport);
    if (setup) await setup(page);
    page.on("pageerror", (err) => errors.push(String(err && err.stack || err)));
    await page.goto(`${BASE}/${hash}`, { waitUntil: "domcontentloaded" });
    await page.waitForFunction(() => window.outfall && window.outfall.ready === true && window.outfall.map.loaded(), null, { timeout: TIMEOUT });
    return page;
  }

  async function openSite(page, id) {
    await page.locator(`[data-testid="site-item"][data-site-id="${id}"] button`).click();
    await page.waitForFunction((sid) => window.outfall.lastReport && window.outfall.lastReport.site.id === sid, id);
    await idle(page);
  }

  /** Wait until the map has stopped and drawn (and the labels have been placed). */
  async function idle(page) {
    await page.waitForFunction(() => {
      const m = window.outfall.map;
      return !m.isMoving() && m.loaded() && m.areTilesLoaded();
    });
    await page.waitForTimeout(300);
  }

  test("S06 shows its outfall point, the sewer to it and its entry reach on screen", async () => {
    const page = await open();
    await openSite(page, "S06");
    const seen = await page.evaluate(() => {
      const m = window.outfall.map;
      const r = window.outfall.lastReport;
      const c = m.getContainer();
      const legend = document.querySelector(".legend").getBoundingClientRect();
      const box = c.getBoundingClientRect();
      const onScreen = ([lon, lat]) => {
        const p = m.project([lon, lat]);
        const inMap = p.x >= 0 && p.y >= 0 && p.x <= c.clientWidth && p.y <= c.clientHeight;
        const x = p.x + box.left, y = p.y + box.top;
        const underLegend = x >= legend.left && x <= legend.right && y >= legend.top && y <= legend.bottom;
        return inMap && !underLegend;
      };
      const rendered = (layer) => m.queryRenderedFeatures({ layers: [layer] });
      const trace = rendered("trace-line").map((f) => String(f.properties.id));
      const sb = r.site.bbox;
      return {
        rule: r.entry.rule,
        entryReach: r.entry.reach_id,
        outfall: r.entry.outfall,
        outfallOnScreen: onScreen(r.entry.outfall),
        siteOnScreen: onScreen([(sb[0] + sb[2]) / 2, (sb[1] + sb[3]) / 2]),
        outfallDrawn: rendered("outfall-point").length,
        sewerDrawn: rendered("outfall-path").length,
        trace,
        frame: r.frame_bbox,
        hash: location.hash,
      };
    });
    assert.equal(seen.rule, "outfall_point");
    assert.ok(seen.outfallOnScreen, `outfall ${seen.outfall} is on screen, clear of the legend`);
    assert.ok(seen.siteOnScreen, "the site is on screen");
    assert.ok(seen.outfallDrawn >= 1, "the outfall point is drawn");
    assert.ok(seen.sewerDrawn >= 1, "the path from the site to the outfall is drawn");
    assert.ok(seen.trace.includes(seen.entryReach), `entry reach ${seen.entryReach} drawn (drawn: ${seen.trace})`);
    assert.equal(seen.hash, "#site=S06", "the URL names the open site");
    await page.close();
  });

  test("the printed S06 page uses the same frame, draws the outfall and shows PWL ID, category, year and a sign-off", async () => {
    const report = await getJSON("/sites/S06/report");
    const res = await fetch(`${BASE}/sites/S06/report.html`);
    assert.equal(res.status, 200);
    const html = await res.text();
    const frame = /data-frame="([^"]+)"/.exec(html);
    assert.ok(frame, "the inset says its frame");
    const got = frame[1].split(",").map(Number);
    report.frame_bbox.forEach((v, i) => assert.ok(Math.abs(v - got[i]) < 1e-5, `frame ${got} = ${report.frame_bbox}`));
    assert.match(html, /data-outfall/, "the outfall point is drawn in the inset");
    assert.match(html, /Applicant&#39;s outfall point|Applicant's outfall point/);
    const fi = report.first_impaired;
    assert.ok(html.includes(`data-pwl-id="${fi.id}"`), `PWL ID ${fi.id} printed`);
    assert.match(html, /2012/, "the 303(d) list year is printed");
    assert.match(html, /impaired; a TMDL/, "the category is explained");
    assert.match(html, /Reviewed by/);
    // The parcel page exists too, with the same blocks.
    const parcel = report.site.parcel_ids[0];
    const p = await fetch(`${BASE}/parcels/${encodeURIComponent(parcel)}/report.html`);
    assert.equal(p.status, 200);
    const ph = await p.text();
    assert.match(ph, /Parcel/);
    assert.match(ph, /Reviewed by/);
    assert.match(ph, /<svg/);
  });

  test("the map styles sites on the status code the server read from the typed record", async () => {
    const page = await open();
    const sites = (await getJSON("/sites")).sites;
    // The served features keep the data's word in `status` and add `status_code`.
    const served = await getJSON("/collections/sites/items?limit=1000");
    for (const f of served.features) {
      const s = sites.find((x) => String(x.id) === String(f.properties.site_id ?? f.id));
      if (!s) continue;
      assert.equal(f.properties.status_code, s.status, `site ${s.id} status_code`);
    }
    // The registry seeds the demo's word "active" as its code; a file-only server keeps the word.
    assert.ok(served.features.some((f) => ["active", "under_construction"].includes(f.properties.status) && f.properties.status_code === "under_construction"),
      "the demo's word \"active\" is served as under_construction");
    const dist = await getJSON("/collections/disturbance/items?limit=1000");
    assert.ok(dist.features.length && dist.features.every((f) => "status_code" in f.properties), "disturbance carries status_code");
    // The dots and the disturbance layers read status_code.
    const { points, filters } = await page.evaluate(() => ({
      points: window.outfall.state.layers.data.sitePoints.features.map((f) => [f.properties.id, f.properties.status_code]),
      filters: ["disturbance-line", "disturbance-line-planned", "disturbance-stabilized"].map((id) => JSON.stringify(window.outfall.map.getFilter(id))),
    }));
    for (const [id, code] of points) {
      const s = sites.find((x) => String(x.id) === String(id));
      if (s) assert.equal(code, s.status ?? "", `dot ${id}`);
    }
    for (const f of filters) assert.match(f, /status_code/);
    assert.match(filters[0], /under_construction/);
    assert.deepEqual(await page.evaluate(() => window.outfall.mapErrors), [], "no map (style) errors");
    await page.close();
  });

  test("sites show their risk on the map, in the hover and in the legend", async () => {
    const page = await open();
    const sites = (await getJSON("/sites")).sites;
    const big = sites.find((s) => s.peak_acres > 5 && s.conditions.B === true);
    assert.ok(big, "the demo has a site over 5 acres at once");
    const props = await page.evaluate((id) => {
      const f = window.outfall.state.layers.data.sitePoints.features.find((x) => x.properties.id === id);
      return f && f.properties;
    }, big.id);
    assert.equal(props.over_limit, true);
    const drawn = await page.evaluate(() => ["site-risk-halo", "site-risk-b", "site-points"].filter((id) => window.outfall.map.getLayer(id)));
    assert.deepEqual(drawn, ["site-risk-halo", "site-risk-b", "site-points"], "every risk layer is on the map");
    assert.deepEqual(await page.evaluate(() => window.outfall.mapErrors), [], "no map (style) errors");
    assert.equal(props.cond_b, true);
    assert.equal(props.cond_a, big.conditions.A === true);
    assert.ok(Math.abs(props.peak_acres - big.peak_acres) < 1e-9);
    // Hover the dot: acres and conditions in words.
    const at = await page.evaluate((id) => {
      const m = window.outfall.map;
      const f = window.outfall.state.layers.data.sitePoints.features.find((x) => x.properties.id === id);
      const p = m.project(f.geometry.coordinates);
      const b = m.getContainer().getBoundingClientRect();
      return { x: p.x + b.left, y: p.y + b.top };
    }, big.id);
    await page.mouse.move(at.x, at.y);
    const tip = page.locator(".maplibregl-popup-content");
    await tip.waitFor();
    const text = await tip.textContent();
    assert.match(text, /ac at once/);
    assert.match(text, /Condition/);
    // The status in the hover is the typed code in words, never the data's word.
    if (big.status) assert.ok(text.includes(big.status.replace(/_/g, " ")), `hover names the status: ${text}`);
    assert.doesNotMatch(text, /\bactive\b/);
    const legend = await page.locator('[data-testid="legend"]').textContent();
    assert.match(await page.locator('[data-testid="legend-status"]').textContent(), /under construction.*planned or approved.*stabilized/);
    assert.match(legend, /over 5 acres disturbed at once/);
    assert.match(legend, /Condition B/);
    assert.match(legend, /303\(d\) category 5/);
    const key = await page.locator('[data-testid="sites-key"]').textContent();
    assert.match(key, /A: drains to an impaired water/);
    await page.close();
  });

  test("the legend, the list's key and the risk dots take their acres from /rules", async () => {
    // The server's /rules, with Condition B and the limit at one time set to 4 acres, as a
    // town's outfall.toml may set them: the viewer must show 4, never a 5 of its own.
    const page = await open("", undefined, (p) => p.route("**/rules", async (route) => {
      const res = await route.fetch();
      const body = await res.json();
      for (const r of body.rules) {
        for (const k of ["condition_b_acres", "max_disturbed_at_once_acres"]) if (k in r.settings) r.settings[k] = 4;
      }
      await route.fulfill({ response: res, json: body });
    }));
    const summary = page.locator('[data-testid="legend-summary"]');
    if (!(await page.evaluate(() => document.querySelector("#legend details").open))) await summary.click();
    const risk = await page.locator('[data-testid="legend-risk"]').textContent();
    assert.match(risk, /Condition B \(4 acres or more\)/);
    assert.match(risk, /Site with over 4 acres disturbed at once/);
    const terms = await page.locator('[data-testid="legend-terms"]').textContent();
    assert.match(terms, /4 acres or more of land disturbed/);
    assert.match(terms, /1 to 4 acres disturbed/);
    const key = await page.locator('[data-testid="sites-key"]').textContent();
    assert.match(key, /B: 4 acres or more · C: 1 to 4 acres .* >4 ac: over 4 acres disturbed at once/);
    assert.doesNotMatch(risk + terms + key, /\b5 acres|>5 ac/);
    // S03 (4.8 acres at its peak) and S05 (4.2) are over a 4-acre limit, S01 (3.9) is not.
    const over = await page.evaluate(() => Object.fromEntries(window.outfall.state.layers.data.sitePoints.features
      .filter((f) => ["S01", "S03", "S05"].includes(f.properties.id)).map((f) => [f.properties.id, f.properties.over_limit])));
    assert.deepEqual(over, { S01: false, S03: true, S05: true });
    await page.close();
  });

  test("roads come from Outfall's own tiles with street names; labels keep clear of the legend and scale bar", async () => {
    const page = await open("#site=S06");
    await page.waitForFunction(() => window.outfall.lastReport && window.outfall.lastReport.site.id === "S06");
    await page.evaluate(() => {
      const r = window.outfall.lastReport.site.bbox;
      window.outfall.map.jumpTo({ center: [(r[0] + r[2]) / 2, (r[1] + r[3]) / 2], zoom: 15 });
    });
    await idle(page);
    const info = await page.evaluate(() => {
      const m = window.outfall.map;
      const src = m.getStyle().sources.basemap;
      const roads = m.querySourceFeatures("basemap", { sourceLayer: "basemap" });
      const rect = (el) => el.getBoundingClientRect();
      const hit = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
      const obstacles = [...document.querySelectorAll(".legend details, .maplibregl-ctrl-scale")].map(rect);
      const labels = [...document.querySelectorAll(".line-label")];
      const clash = labels.filter((l) => obstacles.some((o) => hit(rect(l), o))).map((l) => l.textContent);
      return {
        tiles: src && src.tiles && src.tiles[0],
        roads: roads.length,
        named: roads.filter((f) => f.properties.display_name).length,
        streets: labels.filter((l) => l.classList.contains("street")).map((l) => l.textContent),
        streams: labels.filter((l) => l.classList.contains("stream")).map((l) => l.textContent),
        clash,
      };
    });
    assert.ok(info.tiles && info.tiles.startsWith(BASE + "/collections/basemap/tiles/"), `roads from Outfall tiles: ${info.tiles}`);
    assert.ok(info.roads > 0 && info.named > 0, `roads in view: ${info.roads}`);
    assert.ok(info.streets.length > 0, "street names are shown");
    assert.deepEqual(info.clash, [], "no label covers the legend or the scale bar");
    // Zoomed out, every named stream in view has a label on its line.
    await page.evaluate(() => window.outfall.map.jumpTo({ center: [-76.19, 43.16], zoom: 11.5 }));
    await idle(page);
    const streams = await page.evaluate(() => [...document.querySelectorAll(".line-label.stream")].map((l) => l.textContent));
    assert.ok(streams.length >= 3, `stream labels: ${streams}`);
    await page.close();
  });

  test("search ranks whole words first and reads Road as Rd", async () => {
    const ley = (await getJSON("/search?q=Ley")).results;
    assert.equal(ley[0].label, "Ley Creek", `first result for Ley: ${ley[0].label}`);
    const road = (await getJSON("/search?q=Buckley%20Road")).results;
    assert.ok(road.some((r) => /Buckley Rd/.test(r.label)), "Buckley Road finds Buckley Rd");
    const page = await open();
    await page.locator('[data-testid="search-input"]').fill("Ley");
    const first = page.locator('[data-testid="search-result"]').first();
    await first.waitFor();
    assert.match(await first.textContent(), /Ley Creek/);
    await page.close();
  });

  test("the permalink reopens the same report, Esc closes it, and a check's link reopens the check", async () => {
    const page = await open();
    await openSite(page, "S04");
    const url = page.url();
    assert.ok(url.endsWith("#site=S04"), url);
    const title = await page.locator('[data-testid="report-title"]').textContent();
    await page.keyboard.press("Escape");
    assert.equal(await page.locator("#report-card").isHidden(), true, "Esc closes the report");
    assert.equal(new URL(page.url()).hash, "", "closing clears the link");
    const again = await open(new URL(url).hash);
    await again.waitForFunction(() => window.outfall.lastReport && window.outfall.lastReport.site.id === "S04");
    assert.equal(await again.locator('[data-testid="report-title"]').textContent(), title);

    // A check: upload a small polygon, then open its link in a new page.
    const [lon, lat] = [-76.17, 43.138];
    const d = 0.001;
    const poly = { type: "Feature", properties: {}, geometry: { type: "Polygon", coordinates: [[[lon, lat], [lon + d, lat], [lon + d, lat + d], [lon, lat + d], [lon, lat]]] } };
    const file = path.join(os.tmpdir(), `outfall-link-${process.pid}.geojson`);
    fs.writeFileSync(file, JSON.stringify(poly));
    await again.locator('[data-testid="upload"]').setInputFiles(file);
    await again.waitForFunction(() => location.hash.startsWith("#check=") && window.outfall.lastReport.site.kind === "drawn");
    const acres = await again.evaluate(() => window.outfall.lastReport.disturbance.total_acres);
    const checkHash = new URL(again.url()).hash;
    const third = await open(checkHash);
    await third.waitForFunction(() => window.outfall.lastReport && window.outfall.lastReport.site.kind === "drawn");
    const acres2 = await third.evaluate(() => window.outfall.lastReport.disturbance.total_acres);
    assert.ok(acres > 0 && Math.abs(acres - acres2) < 1e-9, `same check: ${acres} vs ${acres2}`);
    // Its printable version: the report with the listed waters and a sign-off block.
    await third.emulateMedia({ media: "print" });
    assert.equal(await third.locator('[data-testid="review-block"]').isVisible(), true);
    fs.rmSync(file, { force: true });
    for (const p of [page, again, third]) await p.close();
  });

  test("tablet and laptop screenshots of S06", async () => {
    for (const [name, viewport] of [["tablet", { width: 820, height: 1180 }], ["laptop", { width: 1366, height: 768 }]]) {
      const page = await open("#site=S06", viewport);
      await page.waitForFunction(() => window.outfall.lastReport && window.outfall.lastReport.site.id === "S06");
      // The report scrolls into view on a tablet; the picture starts at the map.
      await page.evaluate(() => window.scrollTo(0, 0));
      await idle(page);
      const file = path.join(artifacts, `map-${name}-s06.png`);
      await page.screenshot({ path: file });
      assert.ok(fs.statSync(file).size > 10_000, `${name} screenshot written`);
      await page.close();
    }
    assert.deepEqual(errors, [], "no page errors");
  });
});

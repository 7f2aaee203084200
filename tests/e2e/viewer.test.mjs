// End-to-end test of the web viewer against a running `outfall serve`.
// Run: OUTFALL_URL=http://127.0.0.1:8091 node --test tests/e2e/
// It starts no server itself; it uses Debian's /usr/bin/chromium through playwright-core
// (installed in web/node_modules; no browser download).
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { artifacts, BASE, TIMEOUT, noServer as skip, launchBrowser } from "./browser.mjs";

async function getJSON(p) {
  const res = await fetch(BASE + p, { headers: { Accept: "application/json" } });
  assert.equal(res.status, 200, `GET ${p} -> ${res.status}`);
  return res.json();
}

describe("web viewer", { skip, timeout: 5 * TIMEOUT }, () => {
  let context;
  let page;
  let close;
  const consoleErrors = [];
  const pageErrors = [];
  // Console errors we provoke on purpose (the 422 of a bad upload) are allowed here.
  const expected = [];

  let config;
  let collections;
  let activeSites;

  before(async () => {
    config = await getJSON("/config");
    collections = new Set(((await getJSON("/collections")).collections || []).map((c) => String(c.id)));
    // The demo's "active" sites: the status code under_construction (the data's word stays "active").
    activeSites = (await getJSON("/sites?status=under_construction")).sites || [];
    ({ context, close } = await launchBrowser("outfall-e2e-", { width: 1280, height: 800 }));
    page = context.pages()[0] || (await context.newPage());
    page.setDefaultTimeout(TIMEOUT);
    page.on("console", (msg) => {
      if (msg.type() !== "error") return;
      const text = msg.text();
      const url = (msg.location() && msg.location().url) || "";
      if (expected.some((re) => re.test(text) || re.test(url))) return;
      consoleErrors.push(`${text} ${url}`.trim());
    });
    page.on("pageerror", (err) => pageErrors.push(String(err && err.stack || err)));
    page.on("requestfailed", (req) => {
      const f = req.failure();
      // Aborted requests (search typed over, tiles panned away) are normal.
      if (f && /ERR_ABORTED/.test(f.errorText)) return;
      consoleErrors.push(`request failed: ${req.url()} ${f ? f.errorText : ""}`);
    });
    await page.goto(BASE + "/", { waitUntil: "domcontentloaded" });
    await page.waitForFunction(() => window.outfall && window.outfall.ready === true && window.outfall.map && window.outfall.map.loaded(), null, { timeout: TIMEOUT });
  });

  after(async () => {
    if (page) {
      try {
        await page.screenshot({ path: path.join(artifacts, "viewer-final.png") });
      } catch { /* browser gone */ }
    }
    if (close) await close();
  });

  test("the map loads the demo with its sources", async () => {
    const info = await page.evaluate(() => {
      const m = window.outfall.map;
      const style = m.getStyle();
      return {
        sources: Object.keys(style.sources),
        layers: style.layers.map((l) => l.id),
        canvas: [m.getCanvas().width, m.getCanvas().height],
        bounds: m.getBounds().toArray(),
      };
    });
    for (const id of ["parcels", "disturbance", "flowlines", "waterbodies", "impaired", "tmdl", "boundary"]) {
      if (collections.has(id)) assert.ok(info.sources.includes(id), `map has source ${id} (has ${info.sources.join(", ")})`);
    }
    assert.ok(info.sources.includes("disturbance") || info.sources.includes("flowlines"), "map has demo data sources");
    assert.ok(info.layers.includes("background"));
    assert.ok(info.canvas[0] > 100 && info.canvas[1] > 100, "canvas has a size");
    // The view opens on the town (config.home, the boundary's box), the whole of it, and not
    // on everything the network reaches (Clay's runs on to Lake Ontario).
    const home = config.home || config.bbox;
    if (Array.isArray(home)) {
      const [[w, s], [e, n]] = info.bounds;
      const [hw, hs, he, hn] = home;
      const slack = 0.002;
      assert.ok(hw > w - slack && he < e + slack && hs > s - slack && hn < n + slack, `home ${home} in view ${info.bounds}`);
      if (Array.isArray(config.bbox)) {
        const wide = (config.bbox[2] - config.bbox[0]) > 2 * (he - hw);
        assert.ok(!wide || (e - w) < (config.bbox[2] - config.bbox[0]), "the view is the town's, not the whole network's");
      }
    }
    // The legend has keyboard-reachable toggles.
    const toggles = await page.locator('[data-testid="legend"] input[type="checkbox"]').count();
    assert.ok(toggles >= 3, `legend toggles: ${toggles}`);
    await page.waitForFunction(() => window.outfall.map.areTilesLoaded(), null, { timeout: TIMEOUT });
    await page.screenshot({ path: path.join(artifacts, "viewer-load.png") });
    // The rendered map is not a blank background: sample the canvas.
    const distinct = await page.evaluate(() => {
      const c = window.outfall.map.getCanvas();
      const gl = c.getContext("webgl2") || c.getContext("webgl");
      const w = gl.drawingBufferWidth;
      const hgt = gl.drawingBufferHeight;
      const px = new Uint8Array(w * hgt * 4);
      gl.readPixels(0, 0, w, hgt, gl.RGBA, gl.UNSIGNED_BYTE, px);
      const seen = new Set();
      for (let i = 0; i < px.length; i += 4 * 97) seen.add((px[i] << 16) | (px[i + 1] << 8) | px[i + 2]);
      return seen.size;
    });
    assert.ok(distinct > 3, `map canvas shows features (${distinct} distinct colours sampled)`);
  });

  test("the sites list shows the demo's sites under construction, counted in words", async () => {
    assert.ok(activeSites.length > 0, "the demo's \"active\" sites are under construction");
    assert.equal(await page.inputValue('[data-testid="sites-status"]'), "under_construction");
    const options = await page.locator('[data-testid="sites-status"] option').evaluateAll((els) => els.map((e) => e.value));
    assert.deepEqual(options, ["under_construction", "planned", "approved", "stabilized", "closed", "withdrawn", ""]);
    const items = page.locator('[data-testid="sites-list"] [data-testid="site-item"]');
    if (activeSites.length) await items.first().waitFor();
    const ids = await items.evaluateAll((els) => els.map((e) => e.getAttribute("data-site-id")));
    assert.deepEqual([...ids].sort(), activeSites.map((s) => String(s.id)).sort());
    assert.equal((await page.textContent('[data-testid="sites-count"]')).trim(), `(${activeSites.length} under construction)`);
    // Sorting by acres puts the largest first.
    await page.selectOption('[data-testid="sites-sort"]', "acres");
    const first = await items.first().getAttribute("data-site-id").catch(() => null);
    if (activeSites.length) {
      const max = activeSites.reduce((a, b) => ((Number(b.total_acres) || 0) > (Number(a.total_acres) || 0) ? b : a));
      const firstSite = activeSites.find((s) => String(s.id) === first);
      assert.equal(Number(firstSite.total_acres), Number(max.total_acres));
    }
  });

  test("clicking a site shows its receiving waters and Conditions A/B/C as the API reports", async (t) => {
    if (!activeSites.length) return t.skip("no active sites in the demo");
    // Every active site; the one with Condition A (the most interesting screen) last, for the screenshot.
    const withA = activeSites.find((s) => s.conditions && s.conditions.A === true) || activeSites[0];
    const order = [...activeSites.filter((s) => s !== withA), withA];
    const report = page.locator('[data-testid="report"]');
    for (const site of order) {
      const id = String(site.id);
      const expectedReport = await getJSON(`/sites/${encodeURIComponent(id)}/report`);
      await page.locator(`[data-testid="site-item"][data-site-id="${cssEscape(id)}"] button`).click();
      await page.waitForFunction(
        (sid) => window.outfall.state.current && window.outfall.state.current.id === sid && !document.querySelector('[data-testid="report"]').hasAttribute("aria-busy"),
        id,
      );
      await report.locator('[data-testid="receiving-water-names"]').waitFor();
      const names = await report.locator('[data-testid="receiving-water-name"]').allTextContents();
      assert.deepEqual(names, expectedReport.receiving_water_names, `site ${id} receiving waters`);
      // Every value is tri-state: null ("needs data") must show as data-value "null" and "Needs data", never "No".
      const optional = ["in_jurisdiction", "exempt"].filter((k) => k in expectedReport.conditions);
      for (const k of ["A", "B", "C", "land_development_activity", "five_acre_limit_exceeded", ...optional]) {
        const want = String(expectedReport.conditions[k] ?? null);
        const row = report.locator(`[data-testid="condition-${k}"]`);
        assert.equal(await row.getAttribute("data-value"), want, `site ${id} condition ${k}`);
        const words = { true: "Yes", false: "No", null: "Needs data" }[want];
        assert.equal((await row.locator(`[data-testid="condition-${k}-value"]`).textContent()).trim(), words, `site ${id} condition ${k} text`);
      }
      // The typed record: status in words, the SWPPP decision, claims, problems as warnings.
      const st = expectedReport.site;
      if (st.status) assert.match(await report.locator(".report-head .eyebrow").textContent(), new RegExp(`· ${st.status.replace(/_/g, " ")}$`), `site ${id} status in words`);
      assert.equal(await report.locator('[data-testid="fact-status"]').getAttribute("data-value"), st.status, `site ${id} status fact`);
      assert.equal(await report.locator('[data-testid="fact-approval"]').getAttribute("data-value"), st.swppp_approval ? st.swppp_approval.decision : "null", `site ${id} approval`);
      if (st.swppp_approval && st.swppp_approval.date) {
        assert.match(await report.locator('[data-testid="fact-approval"]').textContent(), new RegExp(st.swppp_approval.date), `site ${id} approval date`);
      }
      for (const k of ["single_family", "agricultural", "common_plan"]) {
        const dd = report.locator(`[data-testid="fact-${k}"]`);
        assert.equal(await dd.getAttribute("data-value"), String(st[k] ?? null), `site ${id} ${k}`);
        assert.match(await dd.textContent(), { true: /^yes/, false: /^no/, null: /^needs data/ }[String(st[k] ?? null)], `site ${id} ${k} words`);
        if (st[`${k}_source`]) assert.ok((await dd.textContent()).includes(st[`${k}_source`]), `site ${id} ${k} source`);
      }
      assert.equal(await report.locator('[data-testid="exemption-claim"]').count(), (st.exemption_claims || []).length, `site ${id} claims`);
      assert.equal(await report.locator('[data-testid="record-problem"]').count(), (st.record_problems || []).length, `site ${id} record problems`);
      const outside = expectedReport.conditions.in_jurisdiction === false;
      assert.equal(await report.locator('[data-testid="outside-banner"]').count(), outside ? 1 : 0, `site ${id} outside-the-Town banner`);
      // Every finding (reason + clause) is shown.
      const nFindings = await report.locator('[data-testid="finding"]').count();
      assert.equal(nFindings, (expectedReport.findings || []).length, `site ${id} findings`);
      // Print link goes to the printable report.
      const href = await report.locator('[data-testid="print-report"]').getAttribute("href");
      assert.equal(href, `/sites/${encodeURIComponent(id)}/report.html`);
      // The downstream trace is on the map.
      if ((expectedReport.downstream || []).length) {
        const n = await page.evaluate(async () => {
          const d = await window.outfall.map.getSource("trace").getData();
          return d && d.features ? d.features.length : 0;
        });
        assert.ok(n > 0, `site ${id}: trace highlighted`);
      }
    }
    const res = await fetch(`${BASE}/sites/${encodeURIComponent(String(withA.id))}/report.html`);
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    await page.waitForFunction(() => {
      const m = window.outfall.map;
      return m.isSourceLoaded("trace") && !m.isMoving() && m.areTilesLoaded();
    });
    await page.screenshot({ path: path.join(artifacts, "viewer-site-report.png") });
  });

  test("a condition the data cannot decide shows \"Needs data\" (S10: no water within the search radius)", async (t) => {
    const site = activeSites.find((s) => String(s.id) === "S10");
    if (!site) return t.skip("no active site S10 in this data set");
    const expectedReport = await getJSON("/sites/S10/report");
    assert.equal(expectedReport.conditions.A, null, "the API reports S10 Condition A as null (needs data)");
    // The sites list badge says so too, with a title for the tooltip.
    const badge = page.locator('[data-testid="site-item"][data-site-id="S10"] .badge[data-condition="A"]');
    assert.equal((await badge.textContent()).trim(), "A?");
    assert.equal(await badge.getAttribute("title"), "Condition A: needs data");
    await page.locator('[data-testid="site-item"][data-site-id="S10"] button').click();
    await page.waitForFunction(
      () => window.outfall.state.current && window.outfall.state.current.id === "S10" && !document.querySelector('[data-testid="report"]').hasAttribute("aria-busy"),
    );
    const row = page.locator('[data-testid="report"] [data-testid="condition-A"]');
    await row.waitFor();
    assert.equal(await row.getAttribute("data-value"), "null");
    assert.equal((await row.locator('[data-testid="condition-A-value"]').textContent()).trim(), "Needs data");
    // The Condition A finding lists the missing facts.
    const finding = (expectedReport.findings || []).find((f) => f.rule === "condition_a");
    if (finding && Array.isArray(finding.missing) && finding.missing.length) {
      const needs = await row.locator('[data-testid="finding"][data-rule="condition_a"] [data-testid="finding-needs"] li').allTextContents();
      assert.deepEqual(needs.map((x) => x.trim()), finding.missing.map(String));
    }
    await page.screenshot({ path: path.join(artifacts, "viewer-needs-data.png") });
  });

  test("drawing a polygon on the map returns a report", async () => {
    // Draw around the first active site (or the middle of the map).
    const target = activeSites[0] && Array.isArray(activeSites[0].bbox) ? activeSites[0].bbox : config.bbox;
    if (Array.isArray(target)) {
      await page.evaluate((b) => {
        window.outfall.map.jumpTo({ center: [(b[0] + b[2]) / 2, (b[1] + b[3]) / 2], zoom: 15 });
      }, target);
    }
    await page.waitForFunction(() => !window.outfall.map.isMoving());
    const box = await page.locator("#map canvas.maplibregl-canvas").boundingBox();
    const cx = box.x + box.width / 2;
    const cy = box.y + box.height / 2;
    await page.click('[data-testid="draw-start"]');
    const resp = page.waitForResponse((r) => r.url().endsWith("/check") && r.request().method() === "POST");
    await page.mouse.click(cx - 60, cy - 50);
    await page.mouse.click(cx + 70, cy - 40);
    await page.mouse.click(cx + 50, cy + 60);
    await page.mouse.dblclick(cx - 50, cy + 55);
    const r = await resp;
    assert.equal(r.status(), 200, `POST /check -> ${r.status()}`);
    const body = JSON.parse(r.request().postData());
    assert.equal(body.geometry.type, "Polygon");
    assert.equal(body.geometry.coordinates[0].length, 5, "4 corners + closing point");
    const rep = await r.json();
    await page.waitForFunction(() => window.outfall.state.current && window.outfall.state.current.source === "check");
    const names = await page.locator('[data-testid="report"] [data-testid="receiving-water-name"]').allTextContents();
    assert.deepEqual(names, rep.receiving_water_names || []);
    const a = await page.locator('[data-testid="report"] [data-testid="condition-A"]').getAttribute("data-value");
    assert.equal(a, String(rep.conditions.A));
    await page.screenshot({ path: path.join(artifacts, "viewer-drawn.png") });
  });

  test("uploading a GeoJSON file returns a report, and a bad file shows the problem detail", async () => {
    const b = activeSites[0] && Array.isArray(activeSites[0].bbox) ? activeSites[0].bbox : config.bbox;
    const [w, s, e, n] = b;
    const cx = (w + e) / 2;
    const cy = (s + n) / 2;
    const d = 0.001;
    const fc = {
      type: "FeatureCollection",
      features: [{
        type: "Feature",
        properties: { name: "e2e upload" },
        geometry: { type: "Polygon", coordinates: [[[cx - d, cy - d], [cx + d, cy - d], [cx + d, cy + d], [cx - d, cy + d], [cx - d, cy - d]]] },
      }],
    };
    let resp = page.waitForResponse((r) => r.url().endsWith("/check") && r.request().method() === "POST");
    await page.setInputFiles('[data-testid="upload"]', { name: "plan.geojson", mimeType: "application/geo+json", buffer: Buffer.from(JSON.stringify(fc)) });
    let r = await resp;
    assert.equal(r.status(), 200);
    await page.waitForFunction(() => window.outfall.state.current && window.outfall.state.current.source === "check" && !document.querySelector('[data-testid="report"]').hasAttribute("aria-busy"));
    await page.locator('[data-testid="report"] [data-testid="receiving-water-names"]').waitFor();
    await page.locator('[data-testid="report"] [data-testid="condition-A"]').waitFor();

    // A broken file: the server answers 422 problem+json and its detail is shown.
    expected.push(/status of 422/, /\/check$/);
    resp = page.waitForResponse((x) => x.url().endsWith("/check") && x.request().method() === "POST");
    await page.setInputFiles('[data-testid="upload"]', { name: "broken.geojson", mimeType: "application/geo+json", buffer: Buffer.from('{"type": "Feature", "geometry": ') });
    r = await resp;
    assert.equal(r.status(), 422);
    const problem = await r.json();
    const detail = page.locator('[data-testid="report"] [data-testid="problem-detail"]');
    await detail.waitFor();
    if (problem.detail) assert.equal((await detail.textContent()).trim(), String(problem.detail).trim());
    await page.screenshot({ path: path.join(artifacts, "viewer-upload-422.png") });

    // Too large (over 2 MiB): 413 problem+json, detail shown.
    expected.push(/status of 413/);
    const big = JSON.stringify({ ...fc, features: [{ ...fc.features[0], properties: { pad: "x".repeat(2 * 1024 * 1024 + 100) } }] });
    resp = page.waitForResponse((x) => x.url().endsWith("/check") && x.request().method() === "POST");
    await page.setInputFiles('[data-testid="upload"]', { name: "big.geojson", mimeType: "application/geo+json", buffer: Buffer.from(big) });
    r = await resp;
    assert.equal(r.status(), 413);
    const p413 = await r.json().catch(() => ({}));
    await page.waitForFunction(() => /HTTP 413/.test(document.querySelector('[data-testid="report"] [data-testid="problem"]')?.textContent || ""));
    if (p413.detail) assert.equal((await detail.textContent()).trim(), String(p413.detail).trim());
    expected.length = 0;
  });

  test("search finds a site and opens it", async (t) => {
    if (!activeSites.length) return t.skip("no active sites");
    const q = String(activeSites[0].name || activeSites[0].id).split(/\s+/)[0];
    const res = await getJSON(`/search?q=${encodeURIComponent(q)}`);
    const hit = (res.results || [])[0];
    if (!hit) return t.skip(`search for ${q} found nothing`);
    await page.fill('[data-testid="search-input"]', q);
    await page.press('[data-testid="search-input"]', "Enter");
    const first = page.locator('[data-testid="search-results"] [data-testid="search-result"]').first();
    await first.waitFor();
    assert.equal(await first.getAttribute("data-id"), String(hit.id));
    await first.locator("button").click();
    if (hit.kind === "site" || hit.kind === "parcel") {
      await page.waitForFunction((id) => window.outfall.state.current && String(window.outfall.state.current.id) === id, String(hit.id));
      await page.locator('[data-testid="report"] [data-testid="receiving-water-names"]').waitFor();
    }
  });

  test("an applicant finds a parcel by address and reads its receiving waters", async (t) => {
    const withAddr = activeSites.find((s) => s.address);
    if (!withAddr) return t.skip("no site address to search by");
    // The street part of an address, e.g. "State Route 31" from "4610 State Route 31".
    const q = String(withAddr.address).replace(/^\s*\d+\s*/, "").trim() || String(withAddr.address);
    const res = await getJSON(`/search?q=${encodeURIComponent(q)}`);
    const hit = (res.results || []).find((r) => r.kind === "parcel");
    if (!hit) return t.skip(`no parcel found for "${q}"`);
    const expectedReport = await getJSON(`/parcels/${encodeURIComponent(hit.id)}/receiving-waters`);
    await page.fill('[data-testid="search-input"]', q);
    await page.press('[data-testid="search-input"]', "Enter");
    const item = page.locator(`[data-testid="search-result"][data-kind="parcel"][data-id="${cssEscape(String(hit.id))}"]`);
    await item.waitFor();
    await item.locator("button").click();
    await page.waitForFunction(
      (id) => window.outfall.state.current && window.outfall.state.current.source === "parcel" && String(window.outfall.state.current.id) === id &&
        !document.querySelector('[data-testid="report"]').hasAttribute("aria-busy"),
      String(hit.id),
    );
    const names = await page.locator('[data-testid="report"] [data-testid="receiving-water-name"]').allTextContents();
    assert.deepEqual(names, expectedReport.receiving_water_names || []);
    for (const k of ["A", "B", "C"]) {
      const v = await page.locator(`[data-testid="report"] [data-testid="condition-${k}"]`).getAttribute("data-value");
      assert.equal(v, String(expectedReport.conditions[k] ?? null), `parcel condition ${k}`);
    }
  });

  test("clicking a site on the map opens its report", async (t) => {
    const site = activeSites.find((s) => Array.isArray(s.bbox));
    if (!site) return t.skip("no site with a bbox");
    const b = site.bbox;
    await page.evaluate((bb) => window.outfall.map.jumpTo({ center: [(bb[0] + bb[2]) / 2, (bb[1] + bb[3]) / 2], zoom: 16 }), b);
    await page.waitForFunction(() => !window.outfall.map.isMoving() && window.outfall.map.areTilesLoaded());
    const hit = await page.evaluate((sid) => {
      const m = window.outfall.map;
      const c = m.getCanvas();
      const layers = ["disturbance-fill", "disturbance-stabilized", "sites-fill"].filter((l) => m.getLayer(l));
      for (let dy = -60; dy <= 60; dy += 15) {
        for (let dx = -60; dx <= 60; dx += 15) {
          const x = c.clientWidth / 2 + dx;
          const y = c.clientHeight / 2 + dy;
          const f = m.queryRenderedFeatures([x, y], { layers });
          if (f.length && String(f[0].properties.site_id ?? f[0].properties.id) === sid) return { x, y };
        }
      }
      return null;
    }, String(site.id));
    if (!hit) return t.skip("site not rendered at the centre of its bbox");
    const box = await page.locator("#map canvas.maplibregl-canvas").boundingBox();
    await page.mouse.click(box.x + hit.x, box.y + hit.y);
    await page.waitForFunction(
      (sid) => window.outfall.state.current && window.outfall.state.current.source === "site" && window.outfall.state.current.id === sid &&
        !document.querySelector('[data-testid="report"]').hasAttribute("aria-busy"),
      String(site.id),
    );
    const names = await page.locator('[data-testid="report"] [data-testid="receiving-water-name"]').allTextContents();
    assert.deepEqual(names, site.receiving_water_names || []);
  });

  test("clicking a parcel on the map opens its receiving waters", async (t) => {
    if (!collections.has("parcels")) return t.skip("no parcels collection");
    const b = activeSites[0] && Array.isArray(activeSites[0].bbox) ? activeSites[0].bbox : config.bbox;
    await page.evaluate((bb) => window.outfall.map.jumpTo({ center: [(bb[0] + bb[2]) / 2, (bb[1] + bb[3]) / 2], zoom: 16 }), b);
    await page.waitForFunction(() => {
      const m = window.outfall.map;
      return !m.isMoving() && m.isSourceLoaded("parcels") && m.areTilesLoaded();
    });
    // Find a canvas point on a parcel and not on a site (sites win clicks).
    const hit = await page.evaluate(() => {
      const m = window.outfall.map;
      const c = m.getCanvas();
      const w = c.clientWidth;
      const hh = c.clientHeight;
      const other = ["disturbance-fill", "disturbance-stabilized", "sites-fill", "site-points"].filter((l) => m.getLayer(l));
      for (let y = 40; y < hh - 40; y += 23) {
        for (let x = 300; x < w - 40; x += 23) {
          const p = m.queryRenderedFeatures([x, y], { layers: ["parcels-fill"] });
          if (!p.length) continue;
          if (m.queryRenderedFeatures([[x - 5, y - 5], [x + 5, y + 5]], { layers: other }).length) continue;
          const id = window.outfall.parcelIdOf(p[0].properties, p[0].id);
          if (id != null) return { x, y, id: String(id) };
        }
      }
      return null;
    });
    if (!hit) return t.skip("no parcel rendered near the first active site");
    const box = await page.locator("#map canvas.maplibregl-canvas").boundingBox();
    const resp = page.waitForResponse((r) => r.url().includes(`/parcels/${encodeURIComponent(hit.id)}/receiving-waters`));
    await page.mouse.click(box.x + hit.x, box.y + hit.y);
    const r = await resp;
    assert.equal(r.status(), 200);
    const rep = await r.json();
    await page.waitForFunction((id) => window.outfall.state.current && window.outfall.state.current.source === "parcel" && window.outfall.state.current.id === id, hit.id);
    const names = await page.locator('[data-testid="report"] [data-testid="receiving-water-name"]').allTextContents();
    assert.deepEqual(names, rep.receiving_water_names || []);
    await page.screenshot({ path: path.join(artifacts, "viewer-parcel.png") });
  });

  test("legend toggles work from the keyboard", async () => {
    const cb = page.locator('[data-testid="toggle-flowlines"]');
    if (!(await cb.count())) return;
    await cb.focus();
    await page.keyboard.press("Space");
    assert.equal(await page.evaluate(() => window.outfall.map.getLayoutProperty("flowlines-line", "visibility")), "none");
    await page.keyboard.press("Space");
    assert.equal(await page.evaluate(() => window.outfall.map.getLayoutProperty("flowlines-line", "visibility")), "visible");
  });

  test("narrow screens put the panel below the map", async () => {
    await page.setViewportSize({ width: 700, height: 900 });
    await page.waitForFunction(() => {
      const m = document.querySelector(".map-wrap").getBoundingClientRect();
      const p = document.querySelector("#panel").getBoundingClientRect();
      return p.top >= m.bottom - 1;
    });
    await page.screenshot({ path: path.join(artifacts, "viewer-narrow.png"), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  test("no console errors, page errors or map errors", async () => {
    const mapErrors = await page.evaluate(() => window.outfall.mapErrors.slice());
    assert.deepEqual(pageErrors, [], "page errors");
    assert.deepEqual(consoleErrors, [], "console errors");
    assert.deepEqual(mapErrors, [], "map errors");
  });
});

function cssEscape(s) {
  return String(s).replace(/["\\]/g, "\\$&");
}

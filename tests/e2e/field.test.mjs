// Issue 23, "trust first" and "the answer on top", at a laptop (1366x768) and a tablet
// (820x1180): the address bar always names the plan on screen; every tri-state risk has three
// looks on the map and in the legend; the history and the logbook read as printable pages;
// category and TMDL status are shown as the data say, with their conflict flagged; each report
// starts with its one-glance summary, rule ids in words, each water once, never "-0.00 ac".
// Run: OUTFALL_URL=http://127.0.0.1:18951 node --test tests/e2e/field.test.mjs
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { artifacts, BASE, TIMEOUT, noServer as skip, SIZES, openViewer } from "./browser.mjs";

/** A small plan near S06 of the demo, its corners shifted by `dx` degrees east. */
function plan(dx, extra = {}) {
  const ring = [[-76.2, 43.14], [-76.198, 43.14], [-76.198, 43.1412], [-76.2, 43.1412], [-76.2, 43.14]].map(([x, y]) => [x + dx, y]);
  return JSON.stringify({ type: "FeatureCollection", features: [{ type: "Feature", properties: {}, geometry: { type: "Polygon", coordinates: [ring] } }], ...extra });
}

for (const [label, viewport] of SIZES) {
  describe(`field-ready viewer (${label})`, { skip, timeout: 8 * TIMEOUT }, () => {
    let context, close, page;
    const pageErrors = [];

    before(async () => {
      ({ context, close, page } = await openViewer(`outfall-e2e-field-${label}-`, viewport, pageErrors));
    });

    after(async () => {
      if (close) await close();
      assert.deepEqual(pageErrors, []);
    });

    async function upload(name, text) {
      const resp = page.waitForResponse((r) => /\/check(\?|$)/.test(r.url()) && r.request().method() === "POST");
      await page.setInputFiles('[data-testid="upload"]', { name, mimeType: "application/geo+json", buffer: Buffer.from(text) });
      const r = await resp;
      await page.waitForFunction(() => !document.querySelector('[data-testid="report"]').hasAttribute("aria-busy"));
      return r;
    }

    /** The GeoJSON text the address bar's #check= link holds, or null. */
    const linkedText = () => page.evaluate(async () => {
      const m = /^#check=(.+)$/.exec(location.hash);
      if (!m) return null;
      const mod = await import("/permalink.js");
      return mod.decodeCheck(decodeURIComponent(m[1]));
    });

    test("the address bar names the plan on screen: after A, after B, after a failed upload", async () => {
      const a = plan(0);
      const b = plan(0.004);
      await upload("plan-a.geojson", a);
      await page.waitForFunction(() => /^#check=/.test(location.hash));
      assert.equal(await linkedText(), a);
      await upload("plan-b.geojson", b);
      await page.waitForFunction(() => /^#check=/.test(location.hash));
      assert.equal(await linkedText(), b, "after plan B the link holds plan B");
      // Opening the link shows plan B.
      const other = await context.newPage();
      await other.goto(page.url(), { waitUntil: "domcontentloaded" });
      await other.waitForFunction(() => window.outfall && window.outfall.ready && window.outfall.state.current && window.outfall.state.current.source === "check");
      const bbox = await other.evaluate(() => window.outfall.state.current.report.site.bbox);
      assert.ok(Math.abs(bbox[0] - (-76.2 + 0.004)) < 1e-6, `linked report is plan B: ${bbox}`);
      await other.close();
      // A failed upload leaves no link to the plan before it.
      const r = await upload("broken.geojson", "{ not json");
      assert.equal(r.status(), 422);
      assert.equal(await page.evaluate(() => location.hash), "", "a failed upload clears the link");
      await page.screenshot({ path: path.join(artifacts, `field-${label}-failed-upload.png`) });
    });

    test("each bad file gets its own message; a wrong coordinate system keeps the picker open and is named", async () => {
      const problem = page.locator('[data-testid="report"] [data-testid="problem"]');
      // Empty: said before anything is sent.
      await page.setInputFiles('[data-testid="upload"]', { name: "empty.geojson", mimeType: "application/geo+json", buffer: Buffer.from("") });
      await page.waitForFunction(() => /empty \(0 bytes\)/.test(document.querySelector('[data-testid="problem"]')?.textContent || ""));
      assert.match(await problem.textContent(), /^This file cannot be checkedempty\.geojson is empty \(0 bytes\)/);
      // A text file named .zip.
      await page.setInputFiles('[data-testid="upload"]', { name: "notes.zip", mimeType: "application/zip", buffer: Buffer.from("site notes, not a plan\n") });
      await page.waitForFunction(() => /notes\.zip is named \.zip but is a text file/.test(document.querySelector('[data-testid="problem"]')?.textContent || ""));
      // State Plane feet without a crs member: the picker asks; a wrong choice keeps it open.
      const sp = JSON.stringify({ type: "FeatureCollection", features: [{ type: "Feature", properties: {}, geometry: { type: "Polygon", coordinates: [[[927861.4, 1153654.03], [928287.23, 1153713.86], [928239.9, 1154050.55], [927814.1, 1153990.72], [927861.4, 1153654.03]]] } }] });
      await upload("plan-feet.geojson", sp);
      await page.locator('[data-testid="crs-form"]').waitFor({ state: "visible" });
      await page.fill('[data-testid="crs-input"]', "EPSG:26918");
      const resp = page.waitForResponse((x) => /\/check\?crs=/.test(x.url()));
      await page.click('[data-testid="crs-submit"]');
      assert.equal((await resp).status(), 422);
      await page.waitForFunction(() => /EPSG:26918 does not fit this file/.test(document.querySelector('[data-testid="problem"]')?.textContent || ""));
      assert.equal(await page.locator('[data-testid="crs-form"]').isVisible(), true, "the picker stays open");
      assert.equal(await page.locator('[data-testid="crs-input"]').inputValue(), "EPSG:26918");
      assert.match(await page.locator('[data-testid="problem-advice"]').textContent(), /you chose, EPSG:26918, does not fit/);
      assert.doesNotMatch(await problem.textContent(), /HTTP 422/);
      await page.screenshot({ path: path.join(artifacts, `field-${label}-wrong-crs.png`) });
      await page.fill('[data-testid="crs-input"]', "EPSG:2261");
      await page.click('[data-testid="crs-submit"]');
      await page.waitForFunction(() => window.outfall.state.current && window.outfall.state.current.source === "check"
        && window.outfall.lastReport === window.outfall.state.current.report && !window.outfall.map.isMoving());
      assert.equal(await page.locator('[data-testid="crs-form"]').isVisible(), false);
    });

    test("a self-crossing drawing is shown as such while it is drawn", async () => {
      await page.click('[data-testid="draw-start"]');
      // A bow tie, corner by corner as clicks give them (the pixels of a click do not matter
      // here; the outfall test clicks the map): the second edge crosses the fourth.
      await page.evaluate(() => {
        for (const [lng, lat] of [[-76.1975, 43.1400], [-76.1955, 43.1410], [-76.1955, 43.1400], [-76.1975, 43.1410]]) {
          window.outfall.draw.add({ lng, lat }, null);
        }
      });
      await page.waitForFunction(() => /crosses itself/.test(document.querySelector('[data-testid="draw-hint"]').textContent));
      const marks = await page.evaluate(() => window.outfall.draw.crossed.length);
      assert.ok(marks >= 1, "the crossing is marked on the map");
      let posted = false;
      const watch = (r) => { if (/\/check(\?|$)/.test(r.url())) posted = true; };
      page.on("request", watch);
      await page.click('[data-testid="draw-finish"]');
      assert.equal(await page.evaluate(() => window.outfall.draw.active), true, "the drawing stays open to be fixed");
      await page.screenshot({ path: path.join(artifacts, `field-${label}-crossing.png`) });
      await page.click('[data-testid="draw-cancel"]');
      page.off("request", watch);
      assert.equal(posted, false, "nothing is sent as a file");
    });

    test("the applicant places the outfall point and the receiving water comes from it", async () => {
      await upload("plan-a.geojson", plan(0));
      assert.equal(await page.locator('[data-testid="report"] [data-testid="entry"]').getAttribute("data-rule"), "nearest");
      await page.click('[data-testid="outfall-place"]');
      assert.equal(await page.locator('[data-testid="outfall-place"]').getAttribute("aria-pressed"), "true");
      await page.waitForFunction(() => !window.outfall.map.isMoving());
      // S06's outfall on Sawmill Creek, as a click on the map.
      await page.evaluate(() => window.outfall.map.jumpTo({ center: [-76.195, 43.1392], zoom: 15 }));
      await page.locator('[data-testid="map"]').scrollIntoViewIfNeeded();
      const pt = await page.evaluate(() => {
        const m = window.outfall.map;
        const p = m.project([-76.195, 43.1392]);
        const r = m.getCanvas().getBoundingClientRect();
        return { x: r.left + p.x, y: r.top + p.y };
      });
      const resp = page.waitForResponse((r) => /\/check(\?|$)/.test(r.url()) && r.request().method() === "POST");
      await page.mouse.click(pt.x, pt.y);
      const sent = JSON.parse((await resp).request().postData());
      assert.match(sent.site.outfall, /^-76\.19\d+,43\.139\d+$/);
      await page.waitForFunction(() => window.outfall.state.current && window.outfall.state.current.report.entry.rule === "outfall_point");
      const report = page.locator('[data-testid="report"]');
      assert.match(await report.locator('[data-testid="summary-receiving"]').textContent(), /^Sawmill Creek \(outfall point given by the applicant\)$/);
      // The link carries the outfall too.
      await page.waitForFunction(() => /^#check=/.test(location.hash));
      assert.match(await linkedText(), /"outfall":"-76\.19/);
      await page.screenshot({ path: path.join(artifacts, `field-${label}-outfall-placed.png`) });
    });

    test("the applicant gives phases, dates, another polygon and the record's facts; the report follows each", async () => {
      await upload("plan-a.geojson", plan(0));
      const facts = page.locator('[data-testid="plan-facts"]');
      await facts.locator('[data-testid="plan-polygon"]').first().waitFor();
      const checked = () => page.waitForResponse((r) => /\/check(\?|$)/.test(r.url()) && r.request().method() === "POST");
      // A land use: the report reads it from the plan's record.
      let resp = checked();
      await facts.locator('[data-testid="plan-land-use"]').selectOption("single_family_residence");
      let sent = JSON.parse((await resp).request().postData());
      assert.equal(sent.site.land_use, "single_family_residence");
      await page.waitForFunction(() => window.outfall.state.current && window.outfall.state.current.report.site.single_family === true);
      // Another polygon, drawn on the map, becomes phase 2.
      await facts.locator('[data-testid="plan-polygon"]').first().waitFor();
      await facts.locator('[data-testid="plan-add-polygon"]').click();
      await page.locator('[data-testid="map"]').scrollIntoViewIfNeeded();
      await page.evaluate(() => window.outfall.map.jumpTo({ center: [-76.196, 43.1406], zoom: 15 }));
      const corners = await page.evaluate(() => {
        const m = window.outfall.map;
        const r = m.getCanvas().getBoundingClientRect();
        return [[-76.1975, 43.1400], [-76.1965, 43.1400], [-76.1965, 43.1410]].map((c) => { const p = m.project(c); return { x: r.left + p.x, y: r.top + p.y }; });
      });
      for (const c of corners) await page.mouse.click(c.x, c.y);
      resp = checked();
      await page.click('[data-testid="draw-finish"]');
      sent = JSON.parse((await resp).request().postData());
      assert.equal(sent.features.length, 2);
      assert.deepEqual(sent.features.map((f) => f.properties.phase), ["1", "2"]);
      assert.equal(sent.site.land_use, "single_family_residence", "the record's facts are kept");
      await page.waitForFunction(() => (window.outfall.state.current.report.disturbance.phases || []).length === 2);
      // Dates: phase 2 starts when phase 1 ends, so the peak is the larger phase, not the sum.
      await facts.locator('[data-testid="plan-polygon"]').nth(1).waitFor();
      const rows = facts.locator('[data-testid="plan-polygon"]');
      for (const [i, start, end] of [[0, "2027-04-01", "2027-06-30"], [1, "2027-07-01", "2027-09-30"]]) {
        resp = checked();
        await rows.nth(i).locator('[data-testid="plan-start"]').fill(start);
        await rows.nth(i).locator('[data-testid="plan-start"]').dispatchEvent("change");
        await resp;
        await page.waitForFunction((n) => document.querySelectorAll('[data-testid="plan-polygon"]').length === n, 2);
        resp = checked();
        await rows.nth(i).locator('[data-testid="plan-end"]').fill(end);
        await rows.nth(i).locator('[data-testid="plan-end"]').dispatchEvent("change");
        await resp;
        await page.waitForFunction((n) => document.querySelectorAll('[data-testid="plan-polygon"]').length === n, 2);
      }
      await page.waitForFunction(() => {
        const d = window.outfall.state.current.report.disturbance;
        return d.phases.every((p) => p.start && p.end) && d.peak_acres < d.total_acres;
      });
      const acres = await facts.locator('[data-testid="plan-polygon"] td:last-child').allTextContents();
      assert.ok(acres.every((a) => / ac$/.test(a)), `each polygon shows its acres: ${acres}`);
      await page.locator("#check-h").scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(artifacts, `field-${label}-plan-facts.png`) });
    });

    test("Condition A and B and the five-acre limit have three looks on the map and in the legend", async () => {
      const states = await page.evaluate(() => {
        const fc = window.outfall.state.layers.data.sitePoints;
        const by = Object.fromEntries(fc.features.map((f) => [f.properties.id, f.properties]));
        return { S06: by.S06.cond_a_state, S03: by.S03.cond_a_state, S10: by.S10.cond_a_state, S11b: by.S11.cond_b_state, S11l: by.S11.over_limit_state };
      });
      assert.deepEqual(states, { S06: "true", S03: "false", S10: "null", S11b: "null", S11l: "null" });
      // The dot's ring differs for each state of A; B and the limit draw a layer for needs data.
      const looks = await page.evaluate(() => {
        const m = window.outfall.map;
        const expr = m.getPaintProperty("site-points", "circle-stroke-color");
        return { expr: JSON.stringify(expr), b: m.getFilter("site-risk-b-unknown"), halo: m.getFilter("site-risk-halo-unknown") };
      });
      assert.match(looks.expr, /"cond_a_state"\],"true","#[0-9a-f]{6}","null","#[0-9a-f]{6}"/);
      assert.deepEqual(looks.b, ["==", ["get", "cond_b_state"], "null"]);
      assert.deepEqual(looks.halo, ["==", ["get", "over_limit_state"], "null"]);
      const summary = page.locator('[data-testid="legend-summary"]');
      const open = await page.evaluate(() => document.querySelector("#legend details").open);
      if (!open) await summary.click();
      for (const k of ["A", "B", "limit"]) {
        const row = page.locator(`[data-testid="legend-risk"] [data-tri="${k}"]`);
        assert.match(await row.textContent(), /yes.*needs data.*no/);
      }
      assert.equal(await page.locator('[data-testid="legend-risk"] .ring-a-null').count(), 1);
      await page.locator('[data-testid="legend-risk"]').screenshot({ path: path.join(artifacts, `field-${label}-legend-tristate.png`) });
      if (!open) await summary.click();
    });

    test("the summary on top: Condition A, first receiving water, first impaired water, duties", async () => {
      await page.evaluate(() => window.outfall.openSite("S06"));
      const report = page.locator('[data-testid="report"]');
      await report.locator('[data-testid="summary"]').waitFor();
      // The summary comes before the detail.
      const order = await page.evaluate(() => {
        const r = document.querySelector('[data-testid="report"]');
        const s = r.querySelector('[data-testid="summary"]');
        const c = r.querySelector('[data-testid="conditions"]');
        return Boolean(s.compareDocumentPosition(c) & Node.DOCUMENT_POSITION_FOLLOWING);
      });
      assert.ok(order, "summary before the conditions");
      assert.equal(await report.locator('[data-testid="summary-a"]').getAttribute("data-value"), "true");
      assert.match(await report.locator('[data-testid="summary-receiving"]').textContent(), /^Sawmill Creek \(outfall point given by the applicant\)$/);
      const fi = await report.locator('[data-testid="summary-impaired"]').textContent();
      assert.match(fi, /Onondaga Lake, northern end · PWL 0702-0003 · Dioxin, mercury, PCBs, other toxins · category 5: impaired; the list says a TMDL is still needed · 2012 list/);
      const duties = await report.locator('[data-testid="summary-duties"] li').allTextContents();
      assert.ok(duties.some((d) => /^SWPPP: required$/.test(d)), duties.join(" | "));
      assert.ok(duties.some((d) => /^Inspections every 7 days/.test(d)), duties.join(" | "));
      // Rule ids in words; each water once downstream.
      const text = await report.textContent();
      assert.doesNotMatch(text, /outfall_point|first_receiving|storm_sewer/);
      const waters = await report.locator('[data-testid="downstream-water"] > button, [data-testid="downstream-water"] > span:first-child').allTextContents();
      for (let i = 1; i < waters.length; i++) assert.notEqual(waters[i], waters[i - 1], `each water once: ${waters.join(", ")}`);
      assert.equal(waters.filter((w) => w === "Onondaga Lake").length, 1, waters.join(", "));
      await page.locator('[data-testid="report-card"], #report-card').screenshot({ path: path.join(artifacts, `field-${label}-summary-s06.png`) });
      // Needs data stays needs data, with what is missing.
      await page.evaluate(() => window.outfall.openSite("S10"));
      await page.waitForFunction(() => window.outfall.state.current && window.outfall.state.current.id === "S10" && document.querySelector('[data-testid="summary-a"]'));
      assert.equal(await report.locator('[data-testid="summary-a"]').getAttribute("data-value"), "null");
      assert.match(await report.locator('[data-testid="summary-a"]').textContent(), /^Needs data$/);
    });

    test("distances are in feet and miles by default, in metres on request", async () => {
      await page.evaluate(() => window.outfall.openSite("S06"));
      await page.waitForFunction(() => window.outfall.state.current && window.outfall.state.current.id === "S06" && document.querySelector('[data-testid="first-impaired"]'));
      const fi = page.locator('[data-testid="report"] [data-testid="first-impaired"]');
      assert.match(await fi.textContent(), /3\.43 mi downstream/);
      assert.match(await page.locator('[data-testid="report"] .rw-names').textContent(), /53 ft away/);
      await page.selectOption('[data-testid="units"]', "metric");
      await page.waitForFunction(() => /5\.52 km downstream/.test(document.querySelector('[data-testid="first-impaired"]').textContent));
      assert.match(await page.locator('[data-testid="report"] .rw-names').textContent(), /16 m away/);
      assert.match(await page.evaluate(() => document.querySelector(".maplibregl-ctrl-scale").textContent.trim().split(/\s+/).pop()), /^k?m$/);
      await page.selectOption('[data-testid="units"]', "us");
      await page.waitForFunction(() => /3\.43 mi downstream/.test(document.querySelector('[data-testid="first-impaired"]').textContent));
    });

    test("a drawn check prints with the town and the law on top, without buttons or raw fact keys", async () => {
      await upload("plan-a.geojson", plan(0));
      await page.emulateMedia({ media: "print" });
      try {
        const head = page.locator('[data-testid="report"] [data-testid="print-head"]');
        assert.equal(await head.isVisible(), true);
        assert.match(await head.textContent(), /^Town of Clay.* · Town of Clay Local Law 2 of 2008/);
        const buttons = await page.$$eval("#report-card button, #report-card .button", (els) => els
          .filter((e) => e.offsetParent !== null && !(e.classList.contains("link-btn") && !e.classList.contains("show-on-map")))
          .map((e) => e.textContent));
        assert.deepEqual(buttons, [], "no buttons on paper");
        assert.equal(await page.locator('[data-testid="report"] .finding-facts').first().isVisible(), false, "no raw fact keys on paper");
        assert.equal(await page.locator('[data-testid="summary"]').isVisible(), true, "the summary prints on top");
      } finally {
        await page.emulateMedia({ media: "screen" });
      }
    });

    test("category and TMDL status as the data say, with their conflict flagged", async () => {
      await page.evaluate(() => window.outfall.openSite("S06"));
      await page.waitForFunction(() => window.outfall.state.current && window.outfall.state.current.id === "S06" && document.querySelector('[data-testid="listed-waters"]'));
      const north = page.locator('[data-testid="listed-water"][data-pwl-id="0702-0003"]');
      assert.match(await north.locator('[data-testid="category"]').textContent(), /^5: impaired; the list says a TMDL is still needed$/);
      assert.match(await north.locator('[data-testid="tmdl-status"]').textContent(), /Onondaga Lake phosphorus TMDL \(2012\) \(phosphorus\)/);
      const flag = page.locator('[data-testid="listed-waters"] [data-testid="tmdl-conflict"]');
      assert.equal(await flag.count(), 1, "one listed water is both category 5 and inside the TMDL's watershed");
      assert.match(await flag.textContent(), /List and TMDL disagree.*2012 list puts Onondaga Lake, northern end in category 5.*\(phosphorus\), not one of the listed causes/);
      // The outlet's own water lies past the TMDL's outlet: no TMDL, no flag.
      const outlet = page.locator('[data-testid="listed-water"][data-pwl-id="0702-0020"]');
      assert.equal(await outlet.locator('[data-testid="tmdl-status"]').textContent(), "none recorded");
      await page.locator('[data-testid="listed-waters"]').screenshot({ path: path.join(artifacts, `field-${label}-tmdl-conflict.png`) });
    });

    test("no -0.00 ac in any site's report or JSON", async () => {
      const ids = await page.evaluate(() => window.outfall.state.allSites.map((s) => s.id));
      for (const id of ids) {
        const json = await (await fetch(`${BASE}/sites/${id}/report`)).text();
        assert.doesNotMatch(json, /:-0(\.0+)?[,}]/, `${id} JSON`);
        await page.evaluate((x) => window.outfall.openSite(x), id);
        await page.waitForFunction((x) => window.outfall.state.current && window.outfall.state.current.id === x, id);
        assert.doesNotMatch(await page.locator('[data-testid="report"]').textContent(), /-0\.00/, id);
      }
      assert.doesNotMatch(await page.locator('[data-testid="sites-list"]').textContent(), /-0\.00/);
    });

    test("history and the inspection logbook open as a readable, printable page", async () => {
      await page.evaluate(() => window.outfall.openSite("S06"));
      const link = page.locator('[data-testid="record-link"]');
      await link.waitFor();
      const [rec] = await Promise.all([context.waitForEvent("page"), link.click()]);
      await rec.waitForFunction(() => document.body.dataset.ready === "true");
      assert.match(await rec.locator('[data-testid="record-title"]').textContent(), /^Site S06 — Buckley Road self-storage$/);
      const rows = await rec.locator('[data-testid="history-row"]').allTextContents();
      assert.ok(rows.length >= 1, "the history has rows");
      assert.ok(rows.every((r) => !/[{}"]/.test(r)), `no raw JSON: ${rows.join(" | ")}`);
      assert.ok(rows.some((r) => /under construction/.test(r)), "codes read as words");
      assert.match(await rec.locator('[data-testid="logbook"]').textContent(), /No inspection is recorded|Findings/);
      await rec.emulateMedia({ media: "print" });
      assert.equal(await rec.locator('[data-testid="record-print"]').isVisible(), false, "no buttons on paper");
      await rec.screenshot({ path: path.join(artifacts, `field-${label}-record-print.png`), fullPage: true });
      await rec.close();
    });
  });
}

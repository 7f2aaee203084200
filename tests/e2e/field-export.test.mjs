// Issue 23, "exports can be in the data set's own CRS", at a laptop (1366x768) and a tablet
// (820x1180): a site's export menu offers the data set's CRS (EPSG:2261, NY State Plane Central
// feet, in data/clay) beside WGS84, and the Shapefile behind the link is in it.
// Run: OUTFALL_URL=http://127.0.0.1:18950 node --test tests/e2e/field-export.test.mjs
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import zlib from "node:zlib";
import { artifacts, BASE, TIMEOUT, noServer as skip, SIZES, openViewer } from "./browser.mjs";

/** A zip member's text, read from its local file header (stored or deflated). */
function zipMember(zip, suffix) {
  for (let i = 0; i + 30 <= zip.length; i++) {
    if (zip.readUInt32LE(i) !== 0x04034b50) continue;
    const method = zip.readUInt16LE(i + 8);
    const size = zip.readUInt32LE(i + 18);
    const nameLen = zip.readUInt16LE(i + 26);
    const extraLen = zip.readUInt16LE(i + 28);
    const name = zip.toString("utf8", i + 30, i + 30 + nameLen);
    const start = i + 30 + nameLen + extraLen;
    if (!name.endsWith(suffix)) continue;
    const data = zip.subarray(start, start + size);
    return (method === 8 ? zlib.inflateRawSync(data) : data).toString("utf8");
  }
  return null;
}

for (const [label, viewport] of SIZES) {
  describe(`exports in the data set's CRS (${label})`, { skip, timeout: 6 * TIMEOUT }, () => {
    let context, close, page;
    const pageErrors = [];

    before(async () => {
      ({ context, close, page } = await openViewer(`outfall-e2e-export-${label}-`, viewport, pageErrors));
    });

    after(async () => {
      if (close) await close();
      assert.deepEqual(pageErrors, []);
    });

    test("the export menu offers the data set's CRS, and the Shapefile comes in it", async () => {
      await page.evaluate(() => window.outfall.openSite("S06"));
      const picker = page.locator('[data-testid="report"] [data-testid="export-crs"]');
      await picker.waitFor();
      const options = await picker.locator("option").allTextContents();
      assert.deepEqual(options, ["WGS84 (lon/lat)", "Data set's CRS (EPSG:2261)"]);
      const zip = page.locator('[data-testid="report"] [data-testid="export-zip"]');
      assert.match(await zip.getAttribute("href"), /\/sites\/S06\/export\.zip$/);
      await picker.selectOption("source");
      const href = await zip.getAttribute("href");
      assert.match(href, /\/sites\/S06\/export\.zip\?crs=source$/);
      assert.equal(await zip.getAttribute("download"), "S06-disturbance.zip");
      // The file behind the link: its .prj names State Plane Central in US feet.
      const res = await fetch(new URL(href, BASE));
      assert.equal(res.status, 200);
      const prj = zipMember(Buffer.from(await res.arrayBuffer()), ".prj");
      assert.match(prj, /^PROJCS\["NAD_1983_StatePlane_New_York_Central_FIPS_3102_Feet"/, "the .prj is State Plane Central");
      assert.match(prj, /UNIT\["US survey foot"/, "in US survey feet");
      await page.locator('[data-testid="report"] [data-testid="export-links"]').screenshot({ path: path.join(artifacts, `field-export-${label}-crs.png`) });
    });
  });
}

// Issue 23, officer edits that can be trusted on screen, at a laptop and a tablet size: a
// recorded change keeps its confirmation after the report reloads, the site list, its count
// and the map show the new status at once; in two tabs the stale tab's change is refused
// (412), the refusal stays on screen, and "Reload and reapply" records it on the new version.
// Own server over a temp copy of the demo (port FIELD_E2E_PORT, default 18952).
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { root, artifacts, CHROMIUM, TIMEOUT, launchBrowser } from "./browser.mjs";

const BIN = path.join(root, "target", "release", "outfall");
const PORT = Number(process.env.FIELD_E2E_PORT || 18952);
const BASE = `http://127.0.0.1:${PORT}`;
const skip = !fs.existsSync(BIN) ? "target/release/outfall is not built"
  : !fs.existsSync(CHROMIUM) ? "chromium is not installed" : false;

// Waits for the server to answer; the 120 s bound only ends a hung start.
async function waitUp() {
  for (let i = 0; i < 1200; i++) {
    try { if ((await fetch(`${BASE}/sites`)).ok) return; } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the field test server did not start");
}

describe("officer edits stay on screen", { skip, timeout: 10 * TIMEOUT }, () => {
  let dir, server, token;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "outfall-field-e2e-"));
    for (const f of fs.readdirSync(path.join(root, "data", "clay"))) {
      const src = path.join(root, "data", "clay", f);
      if (fs.statSync(src).isFile() && !f.startsWith("registry.gpkg")) fs.copyFileSync(src, path.join(dir, f));
    }
    token = execFileSync(BIN, ["token", "create", "--data", dir, "--role", "officer", "--name", "Pat Officer"], { stdio: ["ignore", "pipe", "ignore"] }).toString().trim();
    server = spawn(BIN, ["serve", "--data", dir, "--bind", `127.0.0.1:${PORT}`, "--web", path.join(root, "web")], { stdio: "ignore" });
    await waitUp();
  });

  after(() => {
    if (server) server.kill("SIGTERM");
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const [label, viewport, site] of [["laptop", { width: 1366, height: 768 }, "S07"], ["tablet", { width: 820, height: 1180 }, "S08"]]) {
    test(`a change stays confirmed and shows everywhere; a 412 stays with "reload and reapply" (${label})`, async () => {
      const { context, close } = await launchBrowser(`outfall-field-officer-${label}-`, viewport);
      const errors = [];
      try {
        const open = async () => {
          const page = await context.newPage();
          page.setDefaultTimeout(TIMEOUT);
          page.on("pageerror", (e) => errors.push(String(e)));
          await page.goto(`${BASE}/`, { waitUntil: "domcontentloaded" });
          await page.waitForFunction(() => window.outfall && window.outfall.ready === true);
          await page.click('[data-testid="officer-open"]');
          await page.fill('[data-testid="officer-token"]', token);
          await page.click('[data-testid="officer-signin"]');
          await page.waitForSelector('[data-testid="officer-who"]');
          await page.evaluate((id) => window.outfall.openSite(id), site);
          await page.locator(`[data-testid="officer-tools"][data-site="${site}"]`).waitFor();
          return page;
        };
        const a = await open();
        const b = await open();
        const count = (p) => p.locator('[data-testid="sites-count"]').textContent();
        const before = await count(a);
        const n = Number(/\((\d+)/.exec(before)[1]);

        // Tab A records a status: the note outlives the report's reload; list, count and map follow.
        await a.locator('[data-testid="officer-status"]').selectOption("stabilized");
        await a.click('[data-testid="officer-status-save"]');
        await a.waitForFunction(() => window.outfall.lastEdit && window.outfall.lastEdit.what === "Status" && window.outfall.lastEdit.status === 200);
        await a.locator(`[data-testid="officer-tools"][data-site="${site}"]`).waitFor();
        const note = a.locator('[data-testid="officer-note"]');
        assert.equal(await note.isVisible(), true);
        assert.match(await note.textContent(), new RegExp(`Status recorded for site ${site}`));
        assert.equal(await count(a), `(${n - 1} under construction)`, "the count follows the change");
        assert.equal(await a.locator(`[data-testid="site-item"][data-site-id="${site}"]`).count(), 0, "the site left the under-construction list");
        const mapStatus = await a.evaluate((id) => window.outfall.state.layers.data.sitePoints.features.find((f) => f.properties.id === id).properties.status_code, site);
        assert.equal(mapStatus, "stabilized", "the map's symbol follows the change");
        await a.screenshot({ path: path.join(artifacts, `field-officer-${label}-recorded.png`) });

        // Tab B still holds the old version: its change is refused, and the refusal stays.
        await b.locator('[data-testid="officer-status"]').selectOption("closed");
        await b.click('[data-testid="officer-status-save"]');
        await b.waitForFunction(() => window.outfall.lastEdit && window.outfall.lastEdit.status === 412);
        await b.waitForFunction(() => !document.querySelector('[data-testid="report"]').hasAttribute("aria-busy"));
        await b.locator(`[data-testid="officer-tools"][data-site="${site}"]`).waitFor();
        const bNote = b.locator('[data-testid="officer-note"]');
        assert.equal(await bNote.isVisible(), true, "the conflict stays on screen after the reload");
        assert.match(await bNote.textContent(), /Not recorded: someone else changed this site/);
        assert.match(await b.locator('[data-testid="fact-status"]').textContent(), /stabilized/, "the report shows the other tab's change");
        await b.screenshot({ path: path.join(artifacts, `field-officer-${label}-conflict.png`) });
        await b.click('[data-testid="officer-reapply"]');
        await b.waitForFunction(() => window.outfall.lastEdit && window.outfall.lastEdit.status === 200);
        await b.waitForFunction(() => /closed/.test(document.querySelector('[data-testid="fact-status"]')?.textContent || ""));
        assert.match(await bNote.textContent(), /Status recorded/);
        const rec = await (await fetch(`${BASE}/sites/${site}`)).json();
        assert.equal(rec.properties.status, "closed");
      } finally {
        await close();
      }
      assert.deepEqual(errors, []);
    });
  }
});

// The officer's workflow in the viewer, against its own server over a temp copy of the demo
// (so the demo's registry, used by the other browser tests, is never changed): sign in with a
// token made by `outfall token create`, record an approval, change the status and record an
// inspection from a site's report; then a planner without a token sees the new status.
// Port: REGISTRY_E2E_PORT (default 18971). Needs target/release/outfall and Debian chromium.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { root, CHROMIUM, TIMEOUT, launchBrowser } from "./browser.mjs";

const BIN = path.join(root, "target", "release", "outfall");
const PORT = Number(process.env.REGISTRY_E2E_PORT || 18971);
const BASE = `http://127.0.0.1:${PORT}`;
const skip = !fs.existsSync(BIN) ? "target/release/outfall is not built"
  : !fs.existsSync(CHROMIUM) ? "chromium is not installed" : false;

// Waits for the server to answer; the 120 s bound only ends a hung start.
async function waitUp() {
  for (let i = 0; i < 1200; i++) {
    try { if ((await fetch(`${BASE}/sites`)).ok) return; } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the registry test server did not start");
}

describe("officer edits in the viewer", { skip, timeout: 5 * TIMEOUT }, () => {
  let dir, server, context, close, token;
  const pageErrors = [];

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "outfall-registry-e2e-"));
    for (const f of fs.readdirSync(path.join(root, "data", "clay"))) {
      const src = path.join(root, "data", "clay", f);
      if (fs.statSync(src).isFile() && !f.startsWith("registry.gpkg")) fs.copyFileSync(src, path.join(dir, f));
    }
    // The README's command, as a town's administrator runs it.
    token = execFileSync(BIN, ["token", "create", "--data", dir, "--role", "officer", "--name", "Pat Officer"], { stdio: ["ignore", "pipe", "ignore"] }).toString().trim();
    assert.match(token, /^ofl_[0-9a-f]+_[0-9a-f]+$/);
    server = spawn(BIN, ["serve", "--data", dir, "--bind", `127.0.0.1:${PORT}`, "--web", path.join(root, "web")], { stdio: "ignore" });
    await waitUp();
    ({ context, close } = await launchBrowser("outfall-registry-chrome-", { width: 1280, height: 900 }));
  });

  after(async () => {
    if (close) await close();
    if (server) server.kill("SIGTERM");
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  async function openViewer() {
    const page = await context.newPage();
    page.setDefaultTimeout(TIMEOUT);
    page.on("pageerror", (err) => pageErrors.push(String(err && err.stack || err)));
    await page.goto(`${BASE}/`, { waitUntil: "domcontentloaded" });
    await page.waitForFunction(() => window.outfall && window.outfall.ready === true, null, { timeout: TIMEOUT });
    return page;
  }

  test("a wrong token is refused and a good one signs in", async () => {
    const page = await openViewer();
    await page.fill('[data-testid="officer-token"]', "ofl_000000000000_wrong");
    await page.click('[data-testid="officer-signin"]');
    await page.waitForFunction(() => /not valid/.test(document.querySelector('[data-testid="officer-msg"]')?.textContent || ""));
    await page.fill('[data-testid="officer-token"]', token);
    await page.click('[data-testid="officer-signin"]');
    await page.waitForSelector('[data-testid="officer-who"]');
    assert.match(await page.textContent('[data-testid="officer-who"]'), /Pat Officer \(officer\)/);
    await page.close();
  });

  test("the officer records an approval, a status and an inspection; a planner sees the status", async () => {
    const before = await (await fetch(`${BASE}/sites/S05`)).json();
    assert.equal(before.version, 1);
    const page = await openViewer();
    await page.fill('[data-testid="officer-token"]', token);
    await page.click('[data-testid="officer-signin"]');
    await page.waitForSelector('[data-testid="officer-who"]');
    await page.evaluate(() => window.outfall.openSite("S05"));
    await page.waitForSelector('[data-testid="officer-tools"][data-site="S05"]');

    await page.fill('[data-testid="approval-date"]', "2026-05-20");
    await page.fill('[data-testid="approval-ref"]', "SWPPP-2026-044");
    await page.click('[data-testid="approval-save"]');
    await page.waitForFunction(() => window.outfall.lastEdit && window.outfall.lastEdit.what === "Approval");
    await page.waitForSelector('[data-testid="officer-tools"][data-site="S05"]');

    await page.selectOption('[data-testid="officer-status"]', "stabilized");
    await page.click('[data-testid="officer-status-save"]');
    await page.waitForFunction(() => window.outfall.lastEdit && window.outfall.lastEdit.what === "Status");
    await page.waitForSelector('[data-testid="officer-tools"][data-site="S05"]');

    await page.fill('[data-testid="inspection-date"]', "2026-06-03");
    await page.fill('[data-testid="inspection-findings"]', "Inlet protection in place; stockpile unseeded");
    await page.fill('[data-testid="inspection-actions"]', "Seed and mulch the stockpile");
    await page.fill('[data-testid="inspection-due"]', "2026-06-10");
    await page.click('[data-testid="inspection-save"]');
    await page.waitForFunction(() => window.outfall.lastEdit && window.outfall.lastEdit.what === "Inspection");
    await page.screenshot({ path: path.join(root, "tests", "artifacts", "registry-officer.png") }).catch(() => {});
    await page.close();

    // The registry holds all three, with the officer named in the history.
    const after = await (await fetch(`${BASE}/sites/S05`)).json();
    assert.equal(after.properties.status, "stabilized");
    assert.equal(after.properties.approved_swppp, "2026-05-20 SWPPP-2026-044");
    assert.equal(after.version, 3);
    const insp = (await (await fetch(`${BASE}/sites/S05/inspections`)).json()).inspections;
    assert.equal(insp.length, 1);
    assert.equal(insp[0].corrective_due, "2026-06-10");
    const hist = (await (await fetch(`${BASE}/sites/S05/history`)).json()).history;
    assert.ok(hist.some((h) => h.field === "status" && h.new_value === "stabilized" && h.who === "Pat Officer"));

    // A planner (no token) opens the map: the site's list and report show the new status.
    const planner = await openViewer();
    await planner.waitForFunction(() => window.outfall.sitesRendered === true);
    // Through the browser (and its cache): the list filter and the report both show it.
    const status = await planner.evaluate(async () => {
      await window.outfall.openSite("S05");
      return window.outfall.state.current.report.site.status;
    });
    const listed = await planner.evaluate(async () => (await (await fetch("/sites?status=stabilized")).json()).sites.map((s) => s.id));
    assert.ok(listed.includes("S05"), `stabilized sites: ${listed}`);
    assert.equal(status, "stabilized");
    assert.equal(await planner.$('[data-testid="officer-tools"]'), null, "no edit forms without a token");
    await planner.close();
    assert.deepEqual(pageErrors, []);
  });
});

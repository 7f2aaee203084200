// The officer's workflow in the viewer, against its own server over a temp copy of the demo
// (so the demo's registry, used by the other browser tests, is never changed): sign in with a
// token made by `outfall token create`, see the forms' pick lists and the typed JSON they send
// (a refusal shown in words), record an approval, change the status and record an inspection
// from a site's report; then a planner without a token sees the new status and approval.
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
    await page.click('[data-testid="officer-open"]'); // the sign-in sits behind a small button (issue 23)
    await page.fill('[data-testid="officer-token"]', "ofl_000000000000_wrong");
    await page.click('[data-testid="officer-signin"]');
    await page.waitForFunction(() => /This token is not known/.test(document.querySelector('[data-testid="officer-msg"]')?.textContent || ""));
    await page.fill('[data-testid="officer-token"]', token);
    await page.click('[data-testid="officer-signin"]');
    await page.waitForSelector('[data-testid="officer-who"]');
    assert.match(await page.textContent('[data-testid="officer-who"]'), /Pat Officer \(officer\)/);
    await page.close();
  });

  test("the officer's forms are pick lists and dates, send typed JSON and show a refusal in words", async () => {
    const page = await openViewer();
    await page.click('[data-testid="officer-open"]'); // the sign-in sits behind a small button (issue 23)
    await page.fill('[data-testid="officer-token"]', token);
    await page.click('[data-testid="officer-signin"]');
    await page.waitForSelector('[data-testid="officer-who"]');
    await page.evaluate(() => window.outfall.openSite("S07"));
    const tools = page.locator('[data-testid="officer-tools"][data-site="S07"]');
    await tools.waitFor();
    const options = (sel) => tools.locator(sel).evaluate((s) => [...s.options].map((o) => [o.value, o.textContent]));

    // Status: the six codes, in words; the demo's "active" is preselected as under construction.
    assert.deepEqual(await options('[data-testid="officer-status"]'), [
      ["planned", "planned"], ["approved", "approved"], ["under_construction", "under construction"],
      ["stabilized", "stabilized"], ["closed", "closed"], ["withdrawn", "withdrawn"]]);
    assert.equal(await tools.locator('[data-testid="officer-status"]').inputValue(), "under_construction");
    // Approval: a decision list, a date input, a reference and the approving body.
    assert.deepEqual((await options('[data-testid="approval-decision"]')).map((o) => o[0]), ["approved", "denied", "pending", "withdrawn"]);
    assert.equal(await tools.locator('[data-testid="approval-date"]').getAttribute("type"), "date");
    assert.equal(await tools.locator('[data-testid="approval-ref"]').getAttribute("type"), "text");
    assert.deepEqual((await options('[data-testid="approval-body"]')).map((o) => o[0]), ["", "planning_board", "town_board", "officer"]);
    // Land use: the closed list; S07's record says agricultural.
    assert.deepEqual((await options('[data-testid="land-use"]')).map((o) => o[0]), ["", "single_family_residence", "agricultural", "other"]);
    assert.equal(await tools.locator('[data-testid="land-use"]').inputValue(), "agricultural");

    // Exemptions: S07 claims (a) with new structures recorded as yes.
    const claims = tools.locator('[data-testid="claim"]');
    assert.equal(await claims.count(), 1);
    const first = claims.first();
    assert.equal(await first.locator('[data-testid="claim-code"]').inputValue(), "a");
    assert.equal(await first.locator('[data-testid="claim-new_structures"]').inputValue(), "true");
    const codes = await first.locator('[data-testid="claim-code"]').evaluate((s) => [...s.options].map((o) => o.textContent));
    assert.deepEqual(codes.slice(1).map((t) => t.slice(0, 3)), ["(a)", "(b)", "(c)", "(d)", "(e)", "(f)", "(g)", "(h)", "(i)", "(j)", "(k)"]);
    assert.match(codes[11], /^\(k\) Landscaping and horticultural activities in connection with an existing structure$/);
    // A new claim: the clause decides which evidence is asked for.
    await tools.locator('[data-testid="claim-add"]').click();
    const added = claims.nth(1);
    assert.equal(await added.locator('[data-testid="claim-verified-by"]').inputValue(), "", "adding a claim verifies nothing");
    await added.locator('[data-testid="claim-code"]').selectOption("e");
    assert.equal(await added.locator('[data-testid="claim-plat_approved"]').getAttribute("type"), "date");
    await added.locator('[data-testid="claim-code"]').selectOption("k");
    assert.equal(await added.locator('[data-testid="claim-plat_approved"]').count(), 0);
    assert.deepEqual(await added.locator('[data-testid="claim-existing_structure"]').evaluate((s) => [...s.options].map((o) => o.textContent)),
      ["not recorded", "yes", "no"]);
    await added.locator('[data-testid="claim-existing_structure"]').selectOption("true");
    await added.locator('[data-testid="claim-verified-by"]').fill("Pat Officer");
    await added.locator('[data-testid="claim-verified-on"]').fill("2026-06-01");

    // The PATCH carries typed JSON; a 422 is shown in the server's words, next to the form.
    let sent = null;
    await page.route("**/sites/S07", async (route) => {
      if (route.request().method() !== "PATCH") return route.continue();
      sent = route.request().postDataJSON();
      await route.fulfill({ status: 422, contentType: "application/problem+json",
        body: JSON.stringify({ type: "about:blank", title: "Unprocessable Content", status: 422,
          detail: "exemption_claims[1].verified_by: must be a name" }) });
    });
    await tools.locator('[data-testid="exemption-save"]').click();
    await page.waitForFunction(() => window.outfall.lastEdit && window.outfall.lastEdit.what === "Exemptions");
    assert.deepEqual(sent, { exemption_claims: [
      { code: "a", new_structures: true },
      { code: "k", existing_structure: true, verified_by: "Pat Officer", verified_on: "2026-06-01" },
    ] });
    const shown = await tools.locator('[data-testid="exemption-form"] + [data-testid="form-msg"]').textContent();
    assert.equal(shown, "Not recorded: exemption_claims[1].verified_by: must be a name.");
    assert.doesNotMatch(await tools.textContent(), /HTTP 422|answered 422/);

    // Status and approval send codes too.
    sent = null;
    await tools.locator('[data-testid="officer-status"]').selectOption("withdrawn");
    await tools.locator('[data-testid="officer-status-save"]').click();
    await page.waitForFunction(() => window.outfall.lastEdit.what === "Status");
    assert.deepEqual(sent, { status: "withdrawn" });
    sent = null;
    await tools.locator('[data-testid="approval-decision"]').selectOption("denied");
    await tools.locator('[data-testid="approval-date"]').fill("2026-04-02");
    await tools.locator('[data-testid="approval-body"]').selectOption("planning_board");
    await tools.locator('[data-testid="approval-save"]').click();
    await page.waitForFunction(() => window.outfall.lastEdit.what === "Approval");
    assert.deepEqual(sent, { swppp_approval: { decision: "denied", date: "2026-04-02", body: "planning_board" } });
    sent = null;
    await tools.locator('[data-testid="land-use"]').selectOption("other");
    await tools.locator('[data-testid="common-plan"]').selectOption("false");
    await tools.locator('[data-testid="land-use-save"]').click();
    await page.waitForFunction(() => window.outfall.lastEdit.what === "Land use");
    assert.deepEqual(sent, { land_use: "other", common_plan: false });
    await page.screenshot({ path: path.join(root, "tests", "artifacts", "registry-officer-forms.png"), fullPage: true }).catch(() => {});
    await page.unroute("**/sites/S07");
    // Nothing was written.
    assert.equal((await (await fetch(`${BASE}/sites/S07`)).json()).version, 1);
    await page.close();
  });

  test("values no vocabulary knows are warnings, read as needs data, and the forms ask instead of guessing", async () => {
    const page = await openViewer();
    // The demo's record is clean, so S02's report is given the problems a town's old data has.
    await page.route("**/sites/S02/report", async (route) => {
      const res = await route.fetch();
      const r = await res.json();
      Object.assign(r.site, {
        status: null, status_recorded: "in review", single_family: null, single_family_source: null,
        swppp_approval: null, approved_swppp: false,
        exemption_claims: [{ stated: "signage assignment", code: null, evidence: {}, verified_by: null, verified_on: null }],
        record_problems: ["status 'in review' is not a word the status vocabulary knows", "exemptions 'signage assignment' names no (5) exemption"],
      });
      await route.fulfill({ response: res, json: r });
    });
    await page.click('[data-testid="officer-open"]'); // the sign-in sits behind a small button (issue 23)
    await page.fill('[data-testid="officer-token"]', token);
    await page.click('[data-testid="officer-signin"]');
    await page.waitForSelector('[data-testid="officer-who"]');
    await page.evaluate(() => window.outfall.openSite("S02"));
    const report = page.locator('[data-testid="report"]');
    await report.locator('[data-testid="record-problems"]').waitFor();
    assert.equal(await report.locator('[data-testid="record-problem"]').count(), 2);
    assert.match(await report.locator('[data-testid="record-problems"]').textContent(), /status 'in review' is not a word/);
    assert.match(await report.locator(".report-head .eyebrow").textContent(), /status “in review” \(not a known status\)/);
    const sf = report.locator('[data-testid="fact-single_family"]');
    assert.equal(await sf.getAttribute("data-value"), "null");
    assert.equal((await sf.textContent()).trim(), "needs data");
    assert.equal(await report.locator('[data-testid="fact-approval"]').getAttribute("data-value"), "null");
    const claim = report.locator('[data-testid="exemption-claim"]');
    assert.match(await claim.textContent(), /“signage assignment” \(names no clause of \(5\)\) — not verified by the officer/);
    // The forms preselect nothing they would have to guess.
    const tools = page.locator('[data-testid="officer-tools"][data-site="S02"]');
    await tools.waitFor();
    assert.equal(await tools.locator('[data-testid="officer-status"]').inputValue(), "");
    assert.match(await tools.textContent(), /The record says “in review”, which is not a known status: choose one/);
    assert.equal(await tools.locator('[data-testid="claim-code"]').inputValue(), "");
    assert.match(await tools.textContent(), /Recorded as “signage assignment”, which names no clause: choose one/);
    assert.equal(await tools.locator('[data-testid="approval-body"]').inputValue(), "");
    await page.close();
  });

  test("the officer records an approval, a status and an inspection; a planner sees the status", async () => {
    const before = await (await fetch(`${BASE}/sites/S05`)).json();
    assert.equal(before.version, 1);
    const page = await openViewer();
    await page.click('[data-testid="officer-open"]'); // the sign-in sits behind a small button (issue 23)
    await page.fill('[data-testid="officer-token"]', token);
    await page.click('[data-testid="officer-signin"]');
    await page.waitForSelector('[data-testid="officer-who"]');
    await page.evaluate(() => window.outfall.openSite("S05"));
    await page.waitForSelector('[data-testid="officer-tools"][data-site="S05"]');

    await page.selectOption('[data-testid="approval-decision"]', "approved");
    await page.fill('[data-testid="approval-date"]', "2026-05-20");
    await page.fill('[data-testid="approval-ref"]', "SWPPP-2026-044");
    await page.selectOption('[data-testid="approval-body"]', "officer");
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
    assert.equal(after.version, 3);
    // The typed approval, as the report reads it back.
    const typed = (await (await fetch(`${BASE}/sites/S05/report`)).json()).site;
    assert.equal(typed.status, "stabilized");
    assert.equal(typed.approved_swppp, true);
    assert.equal(typed.swppp_approval.decision, "approved");
    assert.equal(typed.swppp_approval.date, "2026-05-20");
    assert.equal(typed.swppp_approval.reference, "SWPPP-2026-044");
    // A registry that keeps the approval as an object keeps its body too.
    if (after.properties.swppp_approval && typeof after.properties.swppp_approval === "object") assert.equal(typed.swppp_approval.body, "officer");
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
    const fact = planner.locator('[data-testid="fact-approval"]');
    assert.equal(await fact.getAttribute("data-value"), "approved");
    assert.match(await fact.textContent(), /approved on 2026-05-20 · SWPPP-2026-044/);
    assert.equal(await planner.$('[data-testid="officer-tools"]'), null, "no edit forms without a token");
    await planner.close();
    assert.deepEqual(pageErrors, []);
  });
});

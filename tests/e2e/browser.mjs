// What every browser test shares: where the repository is, the server under test, and Debian's
// chromium launched the way that works on a headless 2-core machine (SwiftShader for MapLibre's
// WebGL; no background networking, which a closed network refuses). Not a test file itself.
import { createRequire } from "node:module";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const artifacts = path.join(root, "tests", "artifacts");
export const BASE = (process.env.OUTFALL_URL || "").replace(/\/+$/, "");
export const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
export const TIMEOUT = 60_000;
/** Why a suite that needs the demo server skips, or false. */
export const noServer = !BASE ? "OUTFALL_URL is not set (scripts/e2e.sh starts `outfall serve` and sets it)" : false;

const require = createRequire(path.join(root, "web", "package.json"));

/**
 * Chromium in a new profile folder at `viewport`, with reduced motion (MapLibre jumps instead
 * of animating: less software-GL work). `close()` ends it and removes the folder.
 */
export async function launchBrowser(prefix, viewport) {
  const { chromium } = require("playwright-core");
  fs.mkdirSync(artifacts, { recursive: true });
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const context = await chromium.launchPersistentContext(userDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    reducedMotion: "reduce",
    args: [
      "--headless", "--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
      "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync",
    ],
  });
  const close = async () => {
    await context.close();
    fs.rmSync(userDir, { recursive: true, force: true });
  };
  return { context, close };
}

/** The two screens the field tests run at: a laptop and a tablet. */
export const SIZES = [["laptop", { width: 1366, height: 768 }], ["tablet", { width: 820, height: 1180 }]];

/**
 * The viewer at the server under test, in a new browser at `viewport`, once it says it is
 * ready; every page error is pushed to `errors` (the suites assert it stays empty).
 */
export async function openViewer(prefix, viewport, errors) {
  const { context, close } = await launchBrowser(prefix, viewport);
  const page = context.pages()[0] || (await context.newPage());
  page.setDefaultTimeout(TIMEOUT);
  page.on("pageerror", (err) => errors.push(String((err && err.stack) || err)));
  await page.goto(BASE + "/", { waitUntil: "domcontentloaded" });
  await page.waitForFunction(() => window.outfall && window.outfall.ready === true, null, { timeout: TIMEOUT });
  return { context, close, page };
}

/** Types `q` in the viewer's search and presses Enter; the server's results, once shown. */
export async function searchFor(page, q) {
  const resp = page.waitForResponse((r) => r.url().includes(`/search?q=${encodeURIComponent(q)}`));
  await page.fill('[data-testid="search-input"]', q);
  await page.press('[data-testid="search-input"]', "Enter");
  const body = await (await resp).json();
  await page.waitForFunction(() => !document.querySelector('[data-testid="search-results"]').hidden);
  return body.results;
}

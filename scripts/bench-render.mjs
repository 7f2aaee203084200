// Time to first full render of the viewer: from navigation until the map has loaded, every
// tile and source is loaded, and the sites list is drawn. Headless Debian chromium with
// SwiftShader (software GL), so the figure is pessimistic against a real GPU.
// Usage: node scripts/bench-render.mjs http://127.0.0.1:8080 [runs]
import { createRequire } from "node:module";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { chromium } = createRequire(path.join(root, "web", "package.json"))("playwright-core");
const base = (process.argv[2] || "http://127.0.0.1:8080").replace(/\/+$/, "");
const runs = Number(process.argv[3] || 5);
const times = [];
for (let i = 0; i < runs; i++) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "outfall-render-"));
  const ctx = await chromium.launchPersistentContext(dir, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: ["--headless", "--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--disable-gpu",
      "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const page = ctx.pages()[0] || (await ctx.newPage());
  const t0 = Date.now();
  await page.goto(base + "/");
  await page.waitForFunction(() => {
    const o = window.outfall;
    return o && o.ready && o.sitesRendered && o.map && o.map.loaded() && o.map.areTilesLoaded();
  }, null, { timeout: 60_000 });
  times.push(Date.now() - t0);
  await ctx.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
times.sort((a, b) => a - b);
console.log(`first full render: median ${times[Math.floor(times.length / 2)]} ms, min ${times[0]} ms, max ${times[times.length - 1]} ms over ${runs} cold starts`);

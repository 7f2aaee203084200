// Each site's risk on its map dot, from the /sites list: peak acres at one time, Conditions A
// and B and the limit on acres at one time as yes / no / needs data, and the typed record's
// status.
import { limitAcres } from "./thresholds.js";

const tri = (v) => (v === true ? "true" : v === false ? "false" : "null");

/**
 * Put each site's risk on its dot: peak acres at one time, Conditions A and B, and whether the
 * peak is over the limit at one time (`max_disturbed_at_once_acres` in /rules; not known
 * without it). `sites` is the /sites list.
 */
export function setSiteRisk(map, data, sites) {
  const limit = limitAcres();
  const over = (peak) => (limit == null ? null : Number(peak) > limit);
  const fc = data && data.sitePoints;
  const s = map.getSource("site-points");
  if (!fc || !s) return;
  const byId = new Map((sites || []).map((x) => [String(x.id), x]));
  for (const f of fc.features) {
    const x = byId.get(String(f.properties.id));
    if (!x) continue;
    const c = x.conditions || {};
    Object.assign(f.properties, {
      peak_acres: Number(x.peak_acres) || 0,
      total_acres: Number(x.total_acres) || 0,
      cond_a: c.A === true,
      cond_b: c.B === true,
      cond_c: c.C === true,
      over_limit: over(x.peak_acres) === true,
      // "true" / "false" / "null": what the map styles match, so needs data has its own look.
      cond_a_state: tri(c.A),
      cond_b_state: tri(c.B),
      over_limit_state: c.five_acre_limit_exceeded === undefined ? tri(over(x.peak_acres)) : tri(c.five_acre_limit_exceeded),
    });
    // The typed record's status, so an officer's change shows on the map without a reload.
    if (x.status) f.properties.status_code = x.status;
  }
  s.setData(fc);
  const dist = data.disturbance && map.getSource("disturbance");
  if (!dist) return;
  let changed = false;
  for (const f of data.disturbance.features || []) {
    const x = f.properties && byId.get(String(f.properties.site_id));
    if (x && x.status && f.properties.status_code !== x.status) {
      f.properties.status_code = x.status;
      changed = true;
    }
  }
  if (changed) dist.setData(data.disturbance);
}

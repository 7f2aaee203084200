// The thresholds the viewer shows ("5 acres or more", "over 5 acres at once", "every 7 days"),
// made from the rulebook the server applies (GET /rules), never written here: a town whose
// outfall.toml changes a setting sees its own numbers in the legend, the list and the hovers.

/** Each setting by name, from every rule of the last /rules body (one value per name). */
const settings = new Map();

/** Keep the settings of a GET /rules body: `{rules: [{id, settings: {name: value}}]}`. */
export function setRules(body) {
  settings.clear();
  for (const r of (body && Array.isArray(body.rules) ? body.rules : [])) {
    for (const [k, v] of Object.entries((r && r.settings) || {})) settings.set(k, v);
  }
}

/** A numeric setting, or null when /rules did not answer or does not give it. */
export function setting(name) {
  const v = settings.get(name);
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

const WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];

/** Words for a whole number up to ten ("five"), digits otherwise, as the server's reports
 * write them (law::prose::number_words). */
export function numberWords(x) {
  return Number.isInteger(x) && x >= 0 && x < WORDS.length ? WORDS[x] : String(x);
}

const acres = (x) => `${x} acre${x === 1 ? "" : "s"}`;

/** Condition B's threshold: "5 acres or more". */
export function conditionB() {
  const b = setting("condition_b_acres");
  return b == null ? "Condition B's acres or more" : `${acres(b)} or more`;
}

/** Condition C's range: "1 to 5 acres". */
export function conditionC() {
  const low = setting("land_development_acres");
  const b = setting("condition_b_acres");
  return low == null || b == null ? "from the land-development acres up to Condition B's" : `${low} to ${acres(b)}`;
}

/** The most a site may disturb at one time without approval, in acres (null: not known). */
export function limitAcres() {
  return setting("max_disturbed_at_once_acres");
}

/** "over 5 acres": more than the limit at one time. */
export function overLimit() {
  const m = limitAcres();
  return m == null ? "over the acres allowed" : `over ${acres(m)}`;
}

/** The limit's name, as the rulebook's rule names it: "Five-acre limit". */
export function limitName() {
  const m = limitAcres();
  if (m == null) return "Acre limit";
  const w = numberWords(m);
  return `${w.charAt(0).toUpperCase()}${w.slice(1)}-acre limit`;
}

/** The list's badge for a site over the limit: ">5 ac". */
export function limitBadge() {
  const m = limitAcres();
  return m == null ? "> limit" : `>${m} ac`;
}

/** The inspections duty: "Inspections every 7 days and after 0.5 in storms". */
export function inspections() {
  const days = setting("inspection_interval_days");
  const rain = setting("storm_threshold_in");
  if (days == null || rain == null) return "Inspections on the rulebook's schedule and after storms";
  return `Inspections every ${days} day${days === 1 ? "" : "s"} and after ${rain} in storms`;
}

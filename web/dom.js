// The element helper and the number formats every panel module shares.

/** Tiny element helper: h("div", {class: "x", "data-testid": "y"}, child, "text"). */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c == null || c === false) continue;
    el.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
  return el;
}

/** "2.57 ac"; a value that rounds to nothing reads "0.00 ac", never "-0.00 ac" (a geometric
 * difference can come back as a hair below zero). */
export function fmtAcres(v) {
  const n = Number(v);
  if (!Number.isFinite(n)) return "–";
  const digits = Math.abs(n) < 10 ? 2 : 1;
  const text = n.toFixed(digits);
  return `${Number(text) === 0 ? (0).toFixed(digits) : text} ac`;
}

// The user's units: feet and miles by default (a US town's), metres on request; kept in
// localStorage so a reload keeps the choice.
const UNITS_KEY = "outfall.units";

export function getUnits() {
  try {
    return localStorage.getItem(UNITS_KEY) === "metric" ? "metric" : "us";
  } catch {
    return "us";
  }
}

export function setUnits(units) {
  try {
    localStorage.setItem(UNITS_KEY, units === "metric" ? "metric" : "us");
  } catch { /* private mode: this page only */ }
}

const FT_PER_M = 3.28084;
const M_PER_MI = 1609.344;

/** A distance along the water in the user's units: feet then miles, or metres then km. */
export function fmtDist(m) {
  const n = Number(m);
  if (!Number.isFinite(n)) return "–";
  if (getUnits() === "metric") return n < 1000 ? `${Math.round(n)} m` : `${(n / 1000).toFixed(2)} km`;
  return n < 0.1 * M_PER_MI ? `${Math.round(n * FT_PER_M)} ft` : `${(n / M_PER_MI).toFixed(2)} mi`;
}

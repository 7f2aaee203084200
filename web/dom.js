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

/** A distance along the water: metres and km, with miles beyond a kilometre. */
export function fmtDist(m) {
  const n = Number(m);
  if (!Number.isFinite(n)) return "–";
  if (n < 1000) return `${Math.round(n)} m`;
  return `${(n / 1000).toFixed(2)} km (${(n / 1609.344).toFixed(2)} mi)`;
}

// Links to an open report: #site=S06, #parcel=055.-01-07.0, or #check=<the checked GeoJSON,
// deflated and base64url-encoded>, so the same report reopens from a bookmark or an e-mail.

/** Longest check kept in a link; beyond it the URL would be refused by mail clients. */
const MAX_LINK_CHARS = 60_000;

export function linkFor(kind, value) {
  return `${kind}=${encodeURIComponent(value)}`;
}

/** {kind, id} for a site or parcel, {kind: "check", data} for a check, or null. */
export function readLink(hash) {
  const m = /^#?(site|parcel|check)=(.+)$/.exec(hash || "");
  if (!m) return null;
  let value;
  try {
    value = decodeURIComponent(m[2]);
  } catch {
    return null;
  }
  return m[1] === "check" ? { kind: "check", data: value } : { kind: m[1], id: value };
}

function toBase64Url(bytes) {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(s) {
  const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

async function pipe(bytes, stream) {
  const out = new Response(new Blob([bytes]).stream().pipeThrough(stream));
  return new Uint8Array(await out.arrayBuffer());
}

/** The text of a check as link data, or null when it is too long for a link. */
export async function encodeCheck(text) {
  if (typeof CompressionStream === "undefined") return null;
  const packed = await pipe(new TextEncoder().encode(text), new CompressionStream("deflate-raw"));
  const data = toBase64Url(packed);
  return data.length <= MAX_LINK_CHARS ? data : null;
}

/** The checked text back from link data; null when the link is damaged. */
export async function decodeCheck(data) {
  try {
    const bytes = await pipe(fromBase64Url(data), new DecompressionStream("deflate-raw"));
    return new TextDecoder().decode(bytes);
  } catch {
    return null;
  }
}

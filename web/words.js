// The closed lists of the site record (docs/site-record.md) and their words, shared by the
// officer's forms, the report panel, the sites list and the map styles. The codes are what
// the server sends and accepts; the words are what a person reads.

/** Site statuses, in the order of a site's life. */
export const STATUS_CODES = ["planned", "approved", "under_construction", "stabilized", "closed", "withdrawn"];

/** "under_construction" -> "under construction"; any code reads with spaces. */
export function codeWords(code) {
  return code == null ? "" : String(code).replace(/_/g, " ");
}

/**
 * A site's status for a person: the code in words, or, when the record's word is one no
 * vocabulary knows, that word flagged as such. "" when nothing is recorded.
 */
export function statusLabel(code, recorded) {
  if (code) return codeWords(code);
  if (recorded) return `status “${recorded}” (not a known status)`;
  return "";
}

export const DECISIONS = ["approved", "denied", "pending", "withdrawn"];

export const BODIES = [
  { code: "planning_board", words: "Planning Board" },
  { code: "town_board", words: "Town Board" },
  { code: "officer", words: "Stormwater Management Officer" },
];

export function bodyWords(code) {
  const b = BODIES.find((x) => x.code === code);
  return b ? b.words : codeWords(code);
}

export const LAND_USES = [
  { code: "single_family_residence", words: "single-family residence" },
  { code: "agricultural", words: "agricultural (an active farm)" },
  { code: "other", words: "other" },
];

/** The evidence fields the (5) clauses name: yes/no findings and dates. */
export const EVIDENCE = {
  new_structures: { type: "bool", words: "The work builds new structures" },
  landing_or_haul_road: { type: "bool", words: "Includes landing areas or log haul roads" },
  maintains_original: { type: "bool", words: "Maintains the original line and grade, hydraulic capacity or purpose" },
  repair_deemed_necessary: { type: "bool", words: "The officer deemed the repair necessary" },
  plat_approved: { type: "date", words: "Date the Town approved the subdivision plat" },
  building_permit_approved: { type: "date", words: "Date the building permit was approved" },
  activity_only: { type: "bool", words: "The work is only the activity named (officer's finding)" },
  immediately_necessary: { type: "bool", words: "Immediately necessary to protect life, property or natural resources (officer's finding)" },
  personal_use: { type: "bool", words: "Primarily for use by that person and his or her family (officer's finding)" },
  existing_structure: { type: "bool", words: "In connection with an existing structure (officer's finding)" },
};

/** The (5) exemptions in the law's words (src/law/exemptions.rs CODES) and their evidence. */
export const EXEMPTIONS = [
  { code: "a", words: "Agricultural activity as defined in this local law", evidence: ["new_structures"], verified: "land use agricultural and no new structures" },
  { code: "b", words: "Silvicultural activity except that landing areas and log haul roads are subject to this law", evidence: ["landing_or_haul_road"], verified: "no landing areas or log haul roads" },
  { code: "c", words: "Routine maintenance activities that disturb less than five acres and are performed to maintain the original line and grade, hydraulic capacity or original purpose of a facility", evidence: ["maintains_original"], verified: "under the maintenance acres and the original kept" },
  { code: "d", words: "Repairs to any stormwater management practice or facility deemed necessary by the Stormwater Management Officer", evidence: ["repair_deemed_necessary"], verified: "the officer deemed the repair necessary" },
  { code: "e", words: "Any part of a subdivision if a plat for the subdivision has been approved by the Town of Clay on or before the effective date of this law", evidence: ["plat_approved"], verified: "a plat approval date on or before the law's effective date" },
  { code: "f", words: "Land development activities for which a building permit has been approved on or before the effective date of this law", evidence: ["building_permit_approved"], verified: "a permit approval date on or before the law's effective date" },
  { code: "g", words: "Cemetery graves", evidence: ["activity_only"], verified: "the officer's finding that the work is only the graves" },
  { code: "h", words: "Installation of fence, sign, telephone, and electric poles and other kinds of posts or poles", evidence: ["activity_only"], verified: "the officer's finding that the work is only the posts or poles" },
  { code: "i", words: "Emergency activity immediately necessary to protect life, property or natural resources", evidence: ["immediately_necessary"], verified: "the officer's finding that it is immediately necessary" },
  { code: "j", words: "Activities of an individual engaging in home gardening by growing flowers, vegetable and other plants primarily for use by that person and his or her family", evidence: ["personal_use"], verified: "the officer's finding of personal use" },
  { code: "k", words: "Landscaping and horticultural activities in connection with an existing structure", evidence: ["existing_structure"], verified: "the officer's finding that it serves an existing structure" },
];

export function exemption(code) {
  return EXEMPTIONS.find((x) => x.code === code) || null;
}

/** Tri-state for a person: yes / no / needs data. */
export function triWords(v) {
  return v === true ? "yes" : v === false ? "no" : "needs data";
}

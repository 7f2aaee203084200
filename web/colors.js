// The viewer's colours, shared by the map's layers, its legend and the printed map's key.
export const COLORS = {
  background: "#eef1ec",
  boundary: "#333333",
  parcelFill: "#f7f3e8",
  parcelLine: "#9a8f7a",
  water: "#2b7bcc",
  waterFill: "#9cc7ee",
  impaired: "#d1007a",
  tmdl: "#7a3db8",
  trace: "#ff7f00",
  receiving: "#00a5b8",
  selected: "#111111",
  user: "#e6550d",
  risk: "#e31a1c",
  // Needs data: grey for B and the five-acre halo, amber for Condition A's ring.
  unknown: "#8c8c8c",
  aUnknown: "#e6ab02",
  outfall: "#111111",
  phases: ["#e6a100", "#d95f02", "#7570b3", "#1b9e77", "#a6761d", "#e7298a", "#66a61e", "#666666"],
};

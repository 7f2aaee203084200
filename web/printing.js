// Printing the panel (a parcel or a drawn check): a picture of the map with its legend on
// top, every collapsed section open (but the raw facts behind each finding), then everything
// as it was.
import { h } from "./dom.js";

/** `state`: the viewer's (map, current); `legendEl()`: the printed map's legend. */
export function setupPrinting(state, legendEl) {
  let opened = [];
  let figure = null;
  window.addEventListener("beforeprint", () => {
    opened = [...document.querySelectorAll("#report details:not([open]):not(.finding-facts)")];
    opened.forEach((d) => (d.open = true));
    const report = document.getElementById("report");
    if (state.map && state.current && report) {
      try {
        const img = h("img", { src: state.map.getCanvas().toDataURL("image/png"), alt: "Map of the report" });
        figure = h("figure", { class: "print-only print-map", "data-testid": "print-map" }, img, legendEl());
        report.insertBefore(figure, report.querySelector(".receiving"));
      } catch { /* a tainted canvas: print without the map */ }
    }
  });
  window.addEventListener("afterprint", () => {
    opened.forEach((d) => (d.open = false));
    opened = [];
    if (figure) figure.remove();
    figure = null;
  });
}

// Drawing a plan on the map: the buttons, the hint that counts corners and acres and marks a
// self-crossing outline, and the check (or the plan's next phase) when the polygon closes.
import { PolygonDraw } from "./draw.js";

const $ = (id) => document.getElementById(id);

/**
 * The Draw / Finish / Cancel controls and their hints. `ctx`: {outfall, planFacts() (the plan
 * form, which takes a polygon drawn as another phase), runCheck(upload, drawn)}. Gives the
 * PolygonDraw.
 */
export function setupDraw(map, ctx) {
  const { outfall } = ctx;
  const hint = $("draw-hint");
  const start = $("draw-start");
  const finish = $("draw-finish");
  const cancel = $("draw-cancel");
  const setButtons = (active) => {
    start.disabled = active;
    finish.disabled = !active;
    cancel.disabled = !active;
  };
  const draw = new PolygonDraw(map, {
    onFinish: (feature) => {
      if (outfall.addingPhase && ctx.planFacts().append(feature)) return;
      const body = JSON.stringify(feature);
      ctx.runCheck({ body, contentType: "application/geo+json", name: "drawn polygon" }, feature);
    },
    onChange: (what, n, acres) => {
      if (what === "points") {
        hint.hidden = false;
        const area = acres > 0 ? ` About ${acres.toFixed(2)} acres (approximate; the report measures it exactly).` : "";
        hint.textContent = n < 3
          ? `Click the map to add corners (${n} so far, at least 3).${area} Esc cancels.`
          : `${n} corners.${area} Double-click, press Enter or use Finish to close the polygon. Esc cancels.`;
      } else if (what === "crossing") {
        hint.hidden = false;
        hint.textContent = "The outline crosses itself at the red mark: move the pointer, or press Backspace to remove the last corner. Esc cancels.";
      } else if (what === "need3") {
        hint.hidden = false;
        hint.textContent = "A polygon needs at least 3 corners.";
      } else {
        if (what === "cancelled") outfall.addingPhase = false;
        hint.hidden = true;
        setButtons(false);
      }
    },
  });
  outfall.draw = draw;
  start.addEventListener("click", () => {
    setButtons(true);
    draw.start();
    map.getCanvas().focus();
  });
  finish.addEventListener("click", () => draw.finish());
  cancel.addEventListener("click", () => draw.cancel());
  return draw;
}

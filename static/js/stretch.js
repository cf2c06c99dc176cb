/**
 * stretch.js — Figure 12's stretch control on the page and in embeds: a number box
 * (#stretch, any value a link accepts, its min/max from the server's declaration of the
 * view) and a slider (#stretch-slider) whose positions are the declared stops
 * (data-stops, roughly ×2 apart, so 0.1 and 64 are both a short drag away). It keeps the
 * two in step and reports the value; the bounds themselves are the browser's min/max
 * check of the box, never repeated here.
 */

/** The slider position for `value`: the last stop not above it (0 below every stop). */
export function stopIndex(stops, value) {
  let index = 0;
  while (index + 1 < stops.length && stops[index + 1] <= value) index += 1;
  return index;
}

function parts(root) {
  const box = root.querySelector("#stretch");
  const slider = root.querySelector("#stretch-slider");
  return { box, slider, stops: JSON.parse(slider.dataset.stops) };
}

function place(slider, stops, value) {
  slider.value = String(stopIndex(stops, value));
  slider.setAttribute("aria-valuetext", `× ${value}`);
}

/** Show `value` in the box and the slider under `root` (when the control is there). */
export function showStretch(root, value) {
  if (!root.querySelector("#stretch-slider")) return;
  const { box, slider, stops } = parts(root);
  box.value = String(value);
  place(slider, stops, value);
}

/**
 * Call `onStretch(value)` when the reader moves the slider (a stop) or types a value the
 * box accepts (within its min and max); a value outside them stays in the box, marked
 * invalid by the browser, and is not sent.
 */
export function wireStretch(root, onStretch) {
  if (!root.querySelector("#stretch-slider")) return;
  const { box, slider, stops } = parts(root);
  slider.addEventListener("input", () => {
    const value = stops[Number(slider.value)];
    box.value = String(value);
    slider.setAttribute("aria-valuetext", `× ${value}`);
    onStretch(value);
  });
  box.addEventListener("input", () => {
    if (box.value === "" || !box.checkValidity()) return;
    const value = box.valueAsNumber;
    place(slider, stops, value);
    onStretch(value);
  });
}

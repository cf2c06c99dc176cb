/**
 * plotly.js — loads plotly.js when a figure first needs it. The page draws its number
 * grids itself; plotly.js (1.5 MB, about half a second of script evaluation) is needed
 * only by the continuous charts and the image downloads, so it is not evaluated before
 * the first figures are painted. The script's URL is <main data-plotly-src>.
 */

let loading = null;

/** Resolves with window.Plotly, adding its script to the page the first time. */
export function plotly() {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  if (!loading) {
    const src = document.querySelector("[data-plotly-src]")?.dataset.plotlySrc;
    if (!src) return Promise.reject(new Error("plotly.js is not on this page"));
    loading = new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = src;
      script.onload = () => resolve(window.Plotly);
      script.onerror = () => {
        loading = null;
        script.remove();
        reject(new Error("plotly.js could not be loaded"));
      };
      document.head.append(script);
    });
  }
  return loading;
}

/**
 * plotly.js — loads plotly.js when a figure first needs it. The page draws its number
 * grids itself; plotly.js (1.5 MB, about half a second of script evaluation) is needed
 * only by the continuous charts and the image downloads, so it is not evaluated before
 * the first figures are painted. The script's URL is <main data-plotly-src>.
 *
 * Every plot on the page then defaults to a modebar with nothing that leaves the machine
 * (plotly.js 4 offers "Share chart…", an upload to Plotly's cloud, unless told not to);
 * the server's config (app/figures/style.py CONFIG) says the same for each figure.
 */

const CLOUD_OFF = { displaylogo: false, showSendToCloud: false, plotlyServerURL: "" };

function offline(Plotly) {
  Plotly.setPlotConfig(CLOUD_OFF);
  return Plotly;
}

let loading = null;

/** Resolves with window.Plotly, adding its script to the page the first time. */
export function plotly() {
  if (window.Plotly) return Promise.resolve(offline(window.Plotly));
  if (!loading) {
    const src = document.querySelector("[data-plotly-src]")?.dataset.plotlySrc;
    if (!src) return Promise.reject(new Error("plotly.js is not on this page"));
    loading = new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = src;
      script.onload = () => resolve(offline(window.Plotly));
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

/**
 * theme.js — the one theme rule, shared by the page, the embeds and the labs: a chosen
 * "light" or "dark" is kept; "auto" follows the reader's colour scheme
 * (prefers-color-scheme). The figures are asked for in the resolved theme, and
 * <html data-theme> carries it for the CSS palette. DOM-free until applyTheme is called
 * (node --test imports it: there is no matchMedia there, so "auto" reads as light).
 */

const darkScheme = globalThis.matchMedia?.("(prefers-color-scheme: dark)") ?? null;

/** "light" | "dark": the theme `choice` draws in when the reader prefers dark or not. */
export function resolveTheme(choice, prefersDark = darkScheme?.matches ?? false) {
  if (choice !== "auto") return choice;
  return prefersDark ? "dark" : "light";
}

/** Set <html data-theme> to the resolved theme of `choice`; returns that theme. */
export function applyTheme(choice) {
  const theme = resolveTheme(choice);
  document.documentElement.dataset.theme = theme;
  return theme;
}

/** Call `listener` when the reader's colour scheme changes (it matters for "auto" only). */
export function onSchemeChange(listener) {
  darkScheme?.addEventListener("change", listener);
}

/**
 * lessons/page.js — the entry of /lessons/{id} and /lessons/play: reads #lesson-state
 * (the lesson, its steps' resolved states and the mode), applies the theme and starts the
 * player with the online source.
 */

import { applyTheme } from "../theme.js";
import { startPlayer } from "./player.js";
import { onlineSource } from "./source_online.js";

const state = JSON.parse(document.getElementById("lesson-state").textContent);
applyTheme(state.theme ?? "auto");
startPlayer(document.getElementById("lesson-player"), onlineSource(state, state.theme ?? "auto"));

/**
 * lessons/offline.js — the entry of the offline lesson document: the same player, its
 * source the data inlined in the file. app/export/lesson_document.py inlines this module
 * and every module it imports into one script.
 */

import { applyTheme } from "../theme.js";
import { startPlayer } from "./player.js";
import { offlineSource } from "./source_offline.js";

const data = JSON.parse(document.getElementById("lesson-data").textContent);
applyTheme("auto");
startPlayer(document.getElementById("lesson-player"), offlineSource(data));

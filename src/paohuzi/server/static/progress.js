// The course's and the puzzles' progress (issue 27 point 1, D153): kept with the hall's player
// when GET /api/me gives one (GET and POST /api/me/progress), and in this browser's
// localStorage as well, the copy a first visit and an offline page use. At the first load of a
// page with a player, what the browser kept is sent to the player (the server keeps the further
// of the two: the larger step, finished stays finished, a puzzle's first answer) and the
// player's is written back here; without a player, localStorage alone, as before (D146).
import {ui} from "./state.js";
import {loadMe} from "./hall.js";

export const LESSONS = "paohuzi.lessons";
export const PUZZLES = "paohuzi.puzzles";
const BATCH = 64;  // the items one request may carry (the server's progress.ITEMS)

/** A map kept in localStorage under `key` ({} when none or unreadable). */
export function readLocal(key) {
  try {
    const found = JSON.parse(localStorage.getItem(key) || "{}");
    return found && typeof found === "object" && !Array.isArray(found) ? found : {};
  } catch (e) { return {}; }
}

export function writeLocal(key, value) {
  try { localStorage.setItem(key, JSON.stringify(value)); } catch (e) { /* private mode: not kept */ }
}

/** Send items to the player; the player's progress after, or null (refused, offline). */
async function post(items) {
  try {
    const response = await fetch("/api/me/progress", {
      method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({items}),
    });
    if (response.ok) return await response.json();
    // One item the server does not know (a lesson changed since) refuses its batch: the
    // others go one by one.
    if (response.status === 422 && items.length > 1) {
      let last = null;
      for (const item of items) last = (await post([item])) || last;
      return last;
    }
  } catch (e) { /* offline: the browser's copy stays */ }
  return null;
}

let synced = null;

/** Whether the page has a player whose progress it keeps; the first call merges this
 * browser's copy and the player's both ways. */
export function syncProgress() {
  if (!synced) synced = merge().catch(() => false);
  return synced;
}

async function merge() {
  const me = await (ui.mePromise || loadMe());
  if (!me) return false;
  const response = await fetch("/api/me/progress");
  if (!response.ok) return false;
  let theirs = await response.json();
  const lessons = readLocal(LESSONS), puzzles = readLocal(PUZZLES), send = [];
  for (const [id, x] of Object.entries(lessons)) {
    if (!x || typeof x !== "object") continue;
    const step = Number.isInteger(x.step) && x.step >= 0 ? x.step : 0, done = x.done === true, s = theirs.lessons[id];
    if (!s || step > s.step || (done && !s.done)) send.push({kind: "lesson", id, step, done});
  }
  for (const [id, right] of Object.entries(puzzles)) {
    if (typeof right === "boolean" && !(id in theirs.puzzles)) send.push({kind: "puzzle", id, right});
  }
  for (let i = 0; i < send.length; i += BATCH) theirs = (await post(send.slice(i, i + BATCH))) || theirs;
  for (const [id, s] of Object.entries(theirs.lessons)) {
    const mine = lessons[id] && typeof lessons[id] === "object" ? lessons[id] : {};
    lessons[id] = {step: Math.max(Number.isInteger(mine.step) ? mine.step : 0, s.step), done: !!(mine.done || s.done)};
  }
  for (const [id, s] of Object.entries(theirs.puzzles)) if (!(id in puzzles)) puzzles[id] = s.right;
  writeLocal(LESSONS, lessons);
  writeLocal(PUZZLES, puzzles);
  return true;
}

const pending = new Map();
let timer = null;
const FLUSH = 1500;  // ms: the steps of a lesson walked quickly go as one request

async function flush() {
  timer = null;
  if (!(await syncProgress())) { pending.clear(); return; }
  const items = [...pending.values()];
  pending.clear();
  for (let i = 0; i < items.length; i += BATCH) await post(items.slice(i, i + BATCH));
}

/** Record one item with the player too (the caller has kept it in this browser); sent a
 * moment later with the items recorded meanwhile, or when the page is left. */
export function recordProgress(item) {
  pending.set(item.kind + " " + item.id, item);
  if (!timer) timer = setTimeout(flush, FLUSH);
}

addEventListener("pagehide", () => {
  if (!pending.size || !synced) return;
  const items = [...pending.values()].slice(0, BATCH);
  pending.clear();
  synced.then(ok => ok && fetch("/api/me/progress", {
    method: "POST", keepalive: true, headers: {"Content-Type": "application/json"}, body: JSON.stringify({items}),
  }).catch(() => {}));
});

// Quick phrases and reactions, drawn as small pictures (no emoji font is needed).
import {t} from "./i18n.js";
import {ui} from "./state.js";
import {$, el} from "./shared.js";
import {silenced} from "./hall.js";

const PHRASES = ["hello", "hurry", "nice", "luck", "sorry", "again", "thanks", "bye"];

const FACES = ["like", "laugh", "wow", "cry", "angry", "flower"];

/** A reaction drawn as a small picture (no emoji font is needed). */
function faceEl(what) {
  const ns = "http://www.w3.org/2000/svg", svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 32 32");
  svg.setAttribute("class", "face face-" + what);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", t("say_" + what));
  const add = (tag, attrs) => { const n = document.createElementNS(ns, tag); Object.entries(attrs).forEach(([k, v]) => n.setAttribute(k, v)); svg.appendChild(n); };
  if (what === "flower") {
    [0, 72, 144, 216, 288].forEach(a => add("circle", {cx: 16 + 8 * Math.cos(a * Math.PI / 180), cy: 16 + 8 * Math.sin(a * Math.PI / 180), r: 6, fill: "#e8587a"}));
    add("circle", {cx: 16, cy: 16, r: 5, fill: "#f6c945"});
    return svg;
  }
  if (what === "like") {
    add("path", {d: "M6 14h5v13H6z M12 14l5-9c2 0 3 1 3 3l-1 5h7c2 0 3 2 2 4l-3 8c-1 2-2 2-4 2h-9z", fill: "#f6c945", stroke: "#8a5a00", "stroke-width": 1.2});
    return svg;
  }
  add("circle", {cx: 16, cy: 16, r: 14, fill: what === "angry" ? "#f08a4b" : "#f6c945", stroke: "#8a5a00", "stroke-width": 1.2});
  const eyes = {laugh: "M9 13q2-3 4 0 M19 13q2-3 4 0", cry: "M9 12l4 2 M23 12l-4 2", angry: "M8 10l5 3 M24 10l-5 3"}[what];
  if (eyes) add("path", {d: eyes, stroke: "#5a3a00", "stroke-width": 1.6, fill: "none"});
  else { add("circle", {cx: 11, cy: 12, r: 2, fill: "#5a3a00"}); add("circle", {cx: 21, cy: 12, r: 2, fill: "#5a3a00"}); }
  const mouth = {laugh: "M9 18q7 9 14 0z", wow: "", cry: "M10 24q6-5 12 0", angry: "M10 23q6-4 12 0"}[what];
  if (what === "wow") add("ellipse", {cx: 16, cy: 21, rx: 3, ry: 4, fill: "#5a3a00"});
  else add("path", {d: mouth, stroke: "#5a3a00", "stroke-width": 1.6, fill: what === "laugh" ? "#fff" : "none"});
  if (what === "cry") add("path", {d: "M10 15q-1 4 0 6 M22 15q1 4 0 6", stroke: "#3b8fd9", "stroke-width": 2, fill: "none"});
  return svg;
}

export function renderSayings() {
  const box = $("sayings"), mine = ui.state && ui.state.you !== null && !ui.replaying && !(ui.lesson || ui.puzzle);
  box.hidden = !mine;
  const menu = $("say-menu");
  if (menu.childElementCount) return;
  PHRASES.forEach(p => {
    const b = el("button", "phrase", t("say_" + p));
    b.type = "button"; b.dataset.say = p; b.setAttribute("role", "menuitem");
    menu.appendChild(b);
  });
  const faces = el("div", "faces");
  FACES.forEach(f => {
    const b = el("button", "react");
    b.type = "button"; b.dataset.say = f; b.setAttribute("role", "menuitem"); b.setAttribute("aria-label", t("say_" + f));
    b.appendChild(faceEl(f));
    faces.appendChild(b);
  });
  menu.appendChild(faces);
}

/** Each seat's saying on show, kept through the redraws of the seat panels (every state). */
const bubbles = new Map();

export function said(m, waited = false) {
  if (!ui.state || !ui.state.seats || !ui.state.seats[m.seat]) return;
  // Whom you muted or blocked is known once your player is (asked at the table's first state).
  if (!waited && !ui.me && ui.mePromise) { ui.mePromise.then(() => said(m, true)); return; }
  const panel = document.querySelector(`.seat[data-seat="${m.seat}"]`);
  // A player you muted or blocked says nothing to you (D123: kept from you by this page).
  if (!panel || silenced(ui.state.seats[m.seat].player)) return;
  const bubble = el("div", "bubble");
  bubble.setAttribute("role", "status");
  if (FACES.includes(m.what)) bubble.appendChild(faceEl(m.what));
  else bubble.textContent = t("say_" + m.what);
  panel.querySelector(".bubble")?.remove();
  panel.appendChild(bubble);
  bubbles.set(m.seat, bubble);
  setTimeout(() => { bubble.remove(); if (bubbles.get(m.seat) === bubble) bubbles.delete(m.seat); }, 3500);
}

/** The sayings on show, put back on the seat panels just drawn. */
export function keepBubbles() {
  for (const [seat, bubble] of bubbles) {
    // (not a player's muted or blocked meanwhile: the redraw was that)
    if (ui.state && ui.state.seats[seat] && silenced(ui.state.seats[seat].player)) bubbles.delete(seat);
    else document.querySelector(`.seat[data-seat="${seat}"]`)?.appendChild(bubble);
  }
}

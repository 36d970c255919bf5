// Your hand, in columns: arranged, tapped, dragged to discard or to another column, and
// walked with the arrow keys.
import {t} from "./i18n.js";
import {arrange, cardEl, cardName, cardsOf, reconcile, spoken} from "./cards.js";
import {ui} from "./state.js";
import {$, el, legalDiscards, motion, myDecision, toast} from "./shared.js";
import {act, takeBack} from "./table.js";

const LAYOUT = "paohuzi.layout";

/** The columns as this tab last drew them for this hand (a reload keeps your order), the new
 * cards reconciled in; or the hand arranged afresh. */
function keptLayout(key, cards) {
  try {
    const kept = JSON.parse(sessionStorage.getItem(LAYOUT) || "null");
    if (kept && kept.key === key && Array.isArray(kept.layout)) return reconcile(kept.layout, cards);
  } catch (e) { /* a broken entry: arranged afresh */ }
  return arrange(cards);
}

export function renderHand() {
  const s = ui.state, hand = $("hand");
  $("mine").hidden = s.you === null;
  if (s.you === null) return;
  const cards = cardsOf(s.hand);
  const key = s.room + ":" + s.hand_no;
  ui.layout = key === ui.layoutKey ? reconcile(ui.layout, cards) : keptLayout(key, cards);
  ui.layoutKey = key;
  sessionStorage.setItem(LAYOUT, JSON.stringify({key, layout: ui.layout}));
  if (ui.selected && ui.layout[ui.selected.col]?.cards[ui.selected.i] !== ui.selected.kind) ui.selected = null;
  const legal = legalDiscards(), discarding = myDecision() && legal.size > 0;
  hand.classList.toggle("discarding", discarding);
  hand.setAttribute("aria-label", t("a_hand") + (discarding ? " · " + t("st_discard") : ""));
  const focused = document.activeElement?.closest?.("#hand .card");
  const focusAt = focused ? [+focused.dataset.col, +focused.dataset.i] : null;
  hand.replaceChildren();
  ui.layout.forEach((col, c) => {
    const column = el("div", "column" + (col.locked ? " locked" : ""));
    column.dataset.col = c;
    col.cards.forEach((k, i) => {
      const b = cardEl(k, t, "", "button");
      b.dataset.col = c; b.dataset.i = i;
      let label = spoken(k, t);
      if (col.locked) { b.classList.add("locked"); label += ", " + t("locked"); }
      if (discarding) {
        if (legal.has(k)) { b.classList.add("playable"); label += ", " + t("discard_card", {card: cardName(k, t)}); }
        else { b.classList.add("illegal"); b.setAttribute("aria-disabled", "true"); }
      }
      const isSel = ui.selected && ui.selected.col === c && ui.selected.i === i;
      b.classList.toggle("selected", !!isSel);
      b.setAttribute("aria-pressed", String(!!isSel));
      b.setAttribute("aria-label", label);
      b.tabIndex = -1;
      column.appendChild(b);
    });
    hand.appendChild(column);
  });
  const all = [...hand.querySelectorAll(".card")];
  const again = focusAt && hand.querySelector(`.card[data-col="${focusAt[0]}"][data-i="${focusAt[1]}"]`);
  const target = again || hand.querySelector(".card.selected") || hand.querySelector(".card.playable") || all[0];
  if (target) target.tabIndex = 0;
  if (again) again.focus();
}

export function tap(button) {
  takeBack();
  const col = +button.dataset.col, i = +button.dataset.i, kind = button.dataset.kind;
  const legal = legalDiscards(), discarding = myDecision() && legal.size > 0;
  if (discarding && !legal.has(kind)) {
    shake(button);
    toast(ui.layout[col]?.locked ? t("locked") : t("not_legal"));
    return;
  }
  if (discarding && ui.selected && ui.selected.col === col && ui.selected.i === i) {
    discard(kind, button.getBoundingClientRect());
    return;
  }
  ui.selected = ui.selected && ui.selected.col === col && ui.selected.i === i ? null : {col, i, kind};
  renderHand();
  const again = $("hand").querySelector(`.card[data-col="${col}"][data-i="${i}"]`);
  if (again) again.focus();
}

function discard(kind, rect) {
  ui.lastDiscardRect = rect;
  ui.selected = null;
  act("discard " + kind);
}

function shake(node) {
  if (!motion()) return;
  node.animate([{transform: "translateX(0)"}, {transform: "translateX(-5px)"}, {transform: "translateX(5px)"}, {transform: "translateX(0)"}], {duration: 220});
}

export function startDrag(e) {
  const b = e.target.closest(".card");
  if (b) takeBack();
  if (!b || e.button !== 0 || b.classList.contains("locked")) return;
  ui.drag = {b, x: e.clientX, y: e.clientY, moved: false, id: e.pointerId, ghost: null};
}

export function moveDrag(e) {
  if (!ui.drag || e.pointerId !== ui.drag.id) return;
  const dx = e.clientX - ui.drag.x, dy = e.clientY - ui.drag.y;
  if (!ui.drag.moved && Math.hypot(dx, dy) < 8) return;
  if (!ui.drag.moved) {
    ui.drag.moved = true;
    ui.drag.b.setPointerCapture(e.pointerId);
    ui.drag.ghost = cardEl(ui.drag.b.dataset.kind, t, "ghost");
    $("flying").appendChild(ui.drag.ghost);
    ui.drag.b.classList.add("dragging");
    const r = ui.drag.b.getBoundingClientRect();
    ui.drag.off = [ui.drag.x - r.left, ui.drag.y - r.top];
  }
  ui.drag.ghost.style.left = (e.clientX - ui.drag.off[0]) + "px";
  ui.drag.ghost.style.top = (e.clientY - ui.drag.off[1]) + "px";
  const up = e.clientY < $("hand").getBoundingClientRect().top - 24;
  $("centre").classList.toggle("drop-discard", up && legalDiscards().has(ui.drag.b.dataset.kind) && myDecision());
}

export function endDrag(e) {
  if (!ui.drag || e.pointerId !== ui.drag.id) return;
  const d = ui.drag;
  ui.drag = null;
  $("centre").classList.remove("drop-discard");
  if (!d.moved) return;
  ui.justDragged = true;
  setTimeout(() => { ui.justDragged = false; }, 0);
  d.ghost.remove();
  d.b.classList.remove("dragging");
  const col = +d.b.dataset.col, i = +d.b.dataset.i, kind = d.b.dataset.kind;
  const handRect = $("hand").getBoundingClientRect();
  if (e.clientY < handRect.top - 24) {
    if (myDecision() && legalDiscards().has(kind)) discard(kind, {left: e.clientX - 20, top: e.clientY - 50, width: 40, height: 100});
    else { shake(d.b); toast(t("not_legal")); }
    return;
  }
  const over = document.elementFromPoint(e.clientX, e.clientY)?.closest?.("#hand .column");
  const source = ui.layout[col];
  if (!source) return;
  source.cards.splice(i, 1);
  const target = over ? ui.layout[+over.dataset.col] : null;
  if (target && target !== source && !target.locked && target.cards.length < 4) target.cards.push(kind);
  else if (target === source) source.cards.splice(i, 0, kind);
  else {
    const columns = [...$("hand").querySelectorAll(".column")];
    let at = columns.findIndex(c => e.clientX < c.getBoundingClientRect().left + c.getBoundingClientRect().width / 2);
    if (at < 0) at = ui.layout.length;
    ui.layout.splice(at, 0, {cards: [kind]});
  }
  ui.layout = ui.layout.filter(c => c.cards.length);
  ui.selected = null;
  renderHand();
}

export function handKeys(e) {
  const b = e.target.closest?.(".card");
  if (!b) return;
  const col = +b.dataset.col, i = +b.dataset.i;
  const moves = {ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1]};
  if (!(e.key in moves)) return;
  e.preventDefault();
  const [dc, di] = moves[e.key];
  const c = Math.max(0, Math.min(ui.layout.length - 1, col + dc));
  const n = Math.max(0, Math.min(ui.layout[c].cards.length - 1, dc ? Math.min(i, ui.layout[c].cards.length - 1) : i + di));
  const next = $("hand").querySelector(`.card[data-col="${c}"][data-i="${n}"]`);
  if (next) {
    $("hand").querySelectorAll(".card").forEach(x => { x.tabIndex = -1; });
    next.tabIndex = 0;
    next.focus();
  }
}

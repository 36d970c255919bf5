// The web table of `paohuzi serve`: a plain ES module, no build step. The server holds the
// rules and sends each seat its own view ("state" frames, see the README's serve section);
// this page only draws it and sends the seat's choices back.
import {t, lang, setLang, translatePage} from "./i18n.js";
import {cardEl, cardsOf, glyph, spoken, arrange, reconcile} from "./cards.js";
import * as sound from "./sound.js";

const $ = id => document.getElementById(id);
const el = (tag, className = "", text = "") => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text) node.textContent = text;
  return node;
};
const motion = () => !matchMedia("(prefers-reduced-motion: reduce)").matches;

let state = null;              // the last state frame
let socket = null, roomId = null, token = null, attempts = 0, stopped = false;
let layout = [], layoutKey = null, selected = null, drag = null, justDragged = false;
let chiOpen = false, hintKey = "", hint = null;
let deadlineAt = null, othersAt = null, othersKey = "", lastTick = null;
let settleFor = null, settleTimer = null;
let lastDiscardRect = null;
const toldTimeouts = {};
const seenCommitments = {};

// ------------------------------------------------------------------ seats and names

const seatCount = () => state.seats.length;
const me = () => state.you ?? 0;
const relative = seat => (seat - me() + seatCount()) % seatCount();
const POSITIONS = {3: ["bottom", "right", "left"], 4: ["bottom", "right", "top", "left"]};
const position = seat => (POSITIONS[seatCount()] || POSITIONS[3])[relative(seat)];
const sitsOut = seat => seatCount() === 4 && seat === (state.dealer + 2) % 4;  // R12 four players
const isPerson = seat => !state.seats[seat].bot;

/** How the page names a seat: 你 / 下家 / 上家 / 对家 (R2), or its number for a spectator. */
function who(seat) {
  if (state.you === null || state.you === undefined) return t("seat_n", {n: seat + 1});
  const r = relative(seat), n = seatCount();
  if (r === 0) return t("you");
  if (r === 1) return t("next");
  if (r === n - 1) return t("prev");
  return t("across");
}

function identity(seat) {
  const bot = state.seats[seat].bot;
  if (!bot) return t("player") + " · " + t("seat_n", {n: seat + 1});
  const level = bot.split("@")[0];
  const key = "bot_" + level;
  return t(key) === key ? t("bot") + " · " + bot : t(key);
}

function describe(e) {
  const p = {who: e.seat === null || e.seat === undefined ? "" : who(e.seat), card: e.card ? glyph(e.card) : ""};
  switch (e.event) {
    case "draw": return e.card ? t("ev_draw_card", p) : t("ev_draw", p);
    case "wei": return e.card ? t("ev_wei", p) : t("ev_wei_hidden", p);
    case "hu": return e.card ? t("ev_hu_card", p) : t("ev_hu", p);
    case "huangzhuang": return t("ev_huangzhuang");
    case "deal": return t("ev_deal", {who: who(state.dealer)});
    default: return t("ev_" + e.event, p);
  }
}

function played(action) {
  if (action === "pass") return t("played_pass");
  if (action.startsWith("discard ")) return t("played_discard", {card: glyph(action.split(" ")[1])});
  return t("played_other", {action});
}

// ------------------------------------------------------------------ small drawings

function mini(kind, size = "mini") { return cardEl(kind, t, size); }

/** An open group (门子) as a column of small cards, its kind and its 胡息 under it (``huxi``
 * null: a face-down 偎 of another seat; undefined: not known, as in a replay). */
function groupEl(text, huxi, owner, open = false) {
  const [type, body] = text.split(":");
  const hidden = body === "?";
  const kinds = hidden ? [null, null, null] : cardsOf(body);
  const mine = open || owner === state.you;
  const box = el("div", "group g-" + type);
  const stack = el("div", "stack");
  kinds.forEach((k, i) => {
    // 提 lies with one card up, 臭偎 too (R5.1, R7.1); a 偎 lies face down to the others.
    const down = !mine && i > 0 && (type === "ti" || type === "chouwei");
    stack.appendChild(mini(down ? null : k));
  });
  if (mine && type === "wei") box.classList.add("own-hidden");
  const label = el("span", "glabel", t("g_" + type).split(" ")[0]);
  box.append(stack, label);
  if (huxi !== undefined) box.appendChild(el("b", "ghuxi", huxi === null ? "?" : String(huxi)));
  box.setAttribute("role", "img");
  box.setAttribute("aria-label", t("a_group", {type: t("g_" + type), cards: hidden ? t("face_down") : kinds.map(glyph).join(""), huxi: huxi ?? "?"}));
  return box;
}

function rowOf(text, size = "mini") {
  const row = el("div", "row");
  cardsOf(text).forEach(k => row.appendChild(mini(k, size)));
  return row;
}

function badge(text, cls, title) {
  const b = el("span", "badge " + cls, text);
  if (title) b.title = title;
  return b;
}

// ------------------------------------------------------------------ seats

function seatPanel(seat) {
  const s = state, panel = el("section", "seat pos-" + position(seat));
  panel.dataset.seat = seat;
  // Whose decision it is: the seat to discard; on a card on offer, you when you are asked
  // (who else is asked is hidden, R8), and the seat that showed it is only marked.
  const deciding = !s.over && s.turn === seat && !s.offer && !(s.you !== null && myDecision() && seat !== s.you);
  if (deciding || (seat === s.you && myDecision())) panel.classList.add("turn");
  if (seat === s.you && myDecision()) panel.classList.add("deciding");
  if (!s.over && s.offer && s.turn === seat) panel.classList.add("showing");
  const head = el("header");
  const name = el("h3", "", who(seat));
  head.appendChild(name);
  if (seat === s.dealer) head.appendChild(badge(t("dealer"), "dealer", t("dealer_label")));
  if (s.auto[seat]) head.appendChild(badge(t("tuoguan_badge"), "auto"));
  if (sitsOut(seat)) head.appendChild(badge(t("sits_out"), "out"));
  if (s.over && isPerson(seat)) head.appendChild(badge(s.ready[seat] ? t("ready_badge") : t("not_ready"), s.ready[seat] ? "ready" : "unready"));
  panel.appendChild(head);
  const info = el("p", "info");
  info.appendChild(el("span", "who", identity(seat)));
  const shown = (s.table_huxi[seat] || []).filter(h => h !== null && h !== undefined);
  const hiddenGroups = (s.table_huxi[seat] || []).length - shown.length;
  const stats = [
    [t("total"), String(s.totals[seat])],
    [t("huxi"), shown.reduce((a, b) => a + b, 0) + (hiddenGroups ? "+?" : "")],
  ];
  stats.forEach(([k, v]) => { const st = el("span", "stat"); st.append(el("small", "", k), el("b", "", v)); info.appendChild(st); });
  if (seat !== s.you) {  // a hidden hand: its backs, fanned, and how many
    const count = el("span", "count");
    for (let i = 0; i < Math.min(s.hand_sizes[seat], 8); i++) count.appendChild(mini(null));
    count.appendChild(el("span", "", t("cards_n", {n: s.hand_sizes[seat]})));
    count.setAttribute("aria-label", t("cards_n", {n: s.hand_sizes[seat]}));
    info.appendChild(count);
  }
  panel.appendChild(info);
  if (seat === s.you && s.chou) {  // kinds you may no longer 吃 or 碰 this hand (R7.1)
    const chou = el("p", "chou");
    chou.appendChild(el("small", "", t("chou")));
    cardsOf(s.chou).forEach(k => chou.appendChild(mini(k)));
    chou.title = t("chou_title");
    panel.appendChild(chou);
  }
  if (deciding && seat !== s.you) {
    const bar = el("div", "countdown"); bar.appendChild(el("i")); panel.appendChild(bar);
  }
  const groups = el("div", "groups");
  groups.setAttribute("aria-label", t("a_groups", {who: who(seat)}));
  s.tables[seat].forEach((g, i) => groups.appendChild(groupEl(g, s.table_huxi[seat][i], seat)));
  panel.appendChild(groups);
  const discards = rowOf(s.discards[seat]);
  discards.classList.add("discards");
  discards.setAttribute("aria-label", t("a_discards", {who: who(seat)}));
  panel.appendChild(discards);
  return panel;
}

function renderSeats() {
  const box = $("seats");
  box.replaceChildren();
  box.dataset.n = seatCount();
  for (let seat = 0; seat < seatCount(); seat++) {
    if (seat === me()) $("me").replaceChildren(seatPanel(seat));
    else box.appendChild(seatPanel(seat));
  }
}

// ------------------------------------------------------------------ the centre

function renderCentre() {
  const s = state;
  $("wall-count").textContent = t("wall") + " " + s.wall;
  const liang = $("liang");
  liang.replaceChildren(mini(s.liang), el("span", "", t("liang")));
  $("hand-no").textContent = t("hand_no", {n: s.hand_no});
  const slot = $("offer-slot");
  slot.replaceChildren();
  $("offer-note").textContent = "";
  if (s.offer && !s.over) {
    slot.appendChild(cardEl(s.offer, t, "offer"));
    const how = s.offer_source === "liang" ? t("offer_liang") :
      t(s.offer_source === "drawn" ? "offer_drawn" : "offer_discarded", {who: who(s.turn)});
    $("offer-note").textContent = how;
  }
  $("status").textContent = statusText();
  $("how").textContent = myDecision() && legalDiscards().size ? t("how_discard") : "";
  $("centre").classList.toggle("mine", myDecision());
  const end = $("end-bar");
  end.hidden = !s.over;
  if (s.over) renderReady($("ready-bar"), $("ready-note"));
}

const claimsOf = () => state.legal.filter(a => !a.startsWith("discard"));
const myDecision = () => state.you !== null && state.legal.length > 0 && !state.auto[state.you];
const legalDiscards = () => new Set(state.legal.filter(a => a.startsWith("discard")).map(a => a.split(" ")[1]));

function statusText() {
  const s = state;
  if (s.over) return t("st_over");
  if (s.you !== null && s.auto[s.you]) return t("st_auto");
  if (myDecision()) {
    if (legalDiscards().size) return t("st_discard");
    return s.offer ? t("st_claim", {card: glyph(s.offer)}) : t("st_selfhu");
  }
  const lead = s.you === null ? t("st_watch") + " · " : "";
  if (s.offer) return lead + t("st_wait_claims");
  if (s.turn !== null) return lead + t("st_wait_discard", {who: who(s.turn)});
  return lead;
}

// ------------------------------------------------------------------ claims (R8) as a prompt

function claimButton(action, glyphText, caption, key) {
  const b = el("button", "claim claim-" + action.split(" ")[0]);
  b.type = "button";
  b.dataset.action = action;
  b.append(el("b", "", glyphText), el("small", "", caption));
  if (key) { const k = el("kbd", "", key); b.appendChild(k); b.setAttribute("aria-keyshortcuts", key); }
  b.setAttribute("aria-label", glyphText + " " + caption);
  return b;
}

function chiGroups(action) {
  const box = el("span", "chi-groups");
  action.split(" ").slice(1).forEach((g, i) => {
    const group = el("span", "chi-group");
    if (i > 0) group.appendChild(el("small", "bi", t("bi")));
    cardsOf(g).forEach(k => group.appendChild(mini(k)));
    box.appendChild(group);
  });
  return box;
}

function renderPrompt() {
  const p = $("prompt");
  p.replaceChildren();
  const claims = myDecision() ? claimsOf() : [];
  if (!claims.length) { p.hidden = true; chiOpen = false; return; }
  p.hidden = false;
  p.setAttribute("aria-label", $("status").textContent);
  const row = el("div", "claims");
  const chis = claims.filter(a => a.startsWith("chi"));
  if (claims.includes("hu")) row.appendChild(claimButton("hu", "胡", t("act_hu"), "H"));
  if (claims.includes("peng")) row.appendChild(claimButton("peng", "碰", t("act_peng"), "P"));
  if (chis.length === 1) {
    const b = claimButton(chis[0], "吃", t("act_chi"), "C");
    b.appendChild(chiGroups(chis[0]));
    row.appendChild(b);
  } else if (chis.length) {
    const b = claimButton("chi-open", "吃", t("act_chi"), "C");
    b.setAttribute("aria-expanded", String(chiOpen));
    row.appendChild(b);
  }
  if (claims.includes("pass")) row.appendChild(claimButton("pass", "过", t("act_pass"), "G"));
  p.appendChild(row);
  if (chiOpen && chis.length > 1) {
    const options = el("div", "chi-options");
    options.appendChild(el("p", "", t("chi_choose")));
    chis.forEach((a, i) => {
      const b = el("button", "chi-option");
      b.type = "button"; b.dataset.action = a;
      if (i < 9) { b.appendChild(el("kbd", "", String(i + 1))); b.setAttribute("aria-keyshortcuts", String(i + 1)); }
      b.appendChild(chiGroups(a));
      b.setAttribute("aria-label", t("act_chi") + " " + a.split(" ").slice(1).map(g => cardsOf(g).map(glyph).join("")).join(" " + t("bi") + " "));
      options.appendChild(b);
    });
    p.appendChild(options);
  }
  p.appendChild(el("p", "keys", t("keys")));
}

function choose(action) {
  if (action === "chi-open") {
    chiOpen = !chiOpen;
    renderPrompt();
    const first = $("prompt").querySelector(".chi-option");
    if (first) first.focus();
    return;
  }
  act(action);
}

function act(action) {
  if (!state || !state.legal.includes(action)) return;
  send({type: "act", action, seq: state.seq});
  chiOpen = false;
  $("prompt").hidden = true;
}

// ------------------------------------------------------------------ your hand, in columns

function renderHand() {
  const s = state, hand = $("hand");
  $("mine").hidden = s.you === null;
  if (s.you === null) return;
  const cards = cardsOf(s.hand);
  const key = s.room + ":" + s.hand_no;
  layout = key === layoutKey ? reconcile(layout, cards) : arrange(cards);
  layoutKey = key;
  if (selected && layout[selected.col]?.cards[selected.i] !== selected.kind) selected = null;
  const legal = legalDiscards(), discarding = myDecision() && legal.size > 0;
  hand.classList.toggle("discarding", discarding);
  hand.setAttribute("aria-label", t("a_hand") + (discarding ? " · " + t("st_discard") : ""));
  const focused = document.activeElement?.closest?.("#hand .card");
  const focusAt = focused ? [+focused.dataset.col, +focused.dataset.i] : null;
  hand.replaceChildren();
  layout.forEach((col, c) => {
    const column = el("div", "column" + (col.locked ? " locked" : ""));
    column.dataset.col = c;
    col.cards.forEach((k, i) => {
      const b = cardEl(k, t, "", "button");
      b.dataset.col = c; b.dataset.i = i;
      let label = spoken(k, t);
      if (col.locked) { b.classList.add("locked"); label += ", " + t("locked"); }
      if (discarding) {
        if (legal.has(k)) { b.classList.add("playable"); label += ", " + t("discard_card", {card: glyph(k)}); }
        else { b.classList.add("illegal"); b.setAttribute("aria-disabled", "true"); }
      }
      const isSel = selected && selected.col === c && selected.i === i;
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

function tap(button) {
  const col = +button.dataset.col, i = +button.dataset.i, kind = button.dataset.kind;
  const legal = legalDiscards(), discarding = myDecision() && legal.size > 0;
  if (discarding && !legal.has(kind)) {
    shake(button);
    toast(layout[col]?.locked ? t("locked") : t("not_legal"));
    return;
  }
  if (discarding && selected && selected.col === col && selected.i === i) {
    discard(kind, button.getBoundingClientRect());
    return;
  }
  selected = selected && selected.col === col && selected.i === i ? null : {col, i, kind};
  renderHand();
  const again = $("hand").querySelector(`.card[data-col="${col}"][data-i="${i}"]`);
  if (again) again.focus();
}

function discard(kind, rect) {
  lastDiscardRect = rect;
  selected = null;
  act("discard " + kind);
}

function shake(node) {
  if (!motion()) return;
  node.animate([{transform: "translateX(0)"}, {transform: "translateX(-5px)"}, {transform: "translateX(5px)"}, {transform: "translateX(0)"}], {duration: 220});
}

function startDrag(e) {
  const b = e.target.closest(".card");
  if (!b || e.button !== 0 || b.classList.contains("locked")) return;
  drag = {b, x: e.clientX, y: e.clientY, moved: false, id: e.pointerId, ghost: null};
}

function moveDrag(e) {
  if (!drag || e.pointerId !== drag.id) return;
  const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
  if (!drag.moved && Math.hypot(dx, dy) < 8) return;
  if (!drag.moved) {
    drag.moved = true;
    drag.b.setPointerCapture(e.pointerId);
    drag.ghost = cardEl(drag.b.dataset.kind, t, "ghost");
    $("flying").appendChild(drag.ghost);
    drag.b.classList.add("dragging");
    const r = drag.b.getBoundingClientRect();
    drag.off = [drag.x - r.left, drag.y - r.top];
  }
  drag.ghost.style.left = (e.clientX - drag.off[0]) + "px";
  drag.ghost.style.top = (e.clientY - drag.off[1]) + "px";
  const up = e.clientY < $("hand").getBoundingClientRect().top - 24;
  $("centre").classList.toggle("drop-discard", up && legalDiscards().has(drag.b.dataset.kind) && myDecision());
}

function endDrag(e) {
  if (!drag || e.pointerId !== drag.id) return;
  const d = drag;
  drag = null;
  $("centre").classList.remove("drop-discard");
  if (!d.moved) return;
  justDragged = true;
  setTimeout(() => { justDragged = false; }, 0);
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
  const source = layout[col];
  if (!source) return;
  source.cards.splice(i, 1);
  const target = over ? layout[+over.dataset.col] : null;
  if (target && target !== source && !target.locked && target.cards.length < 4) target.cards.push(kind);
  else if (target === source) source.cards.splice(i, 0, kind);
  else {
    const columns = [...$("hand").querySelectorAll(".column")];
    let at = columns.findIndex(c => e.clientX < c.getBoundingClientRect().left + c.getBoundingClientRect().width / 2);
    if (at < 0) at = layout.length;
    layout.splice(at, 0, {cards: [kind]});
  }
  layout = layout.filter(c => c.cards.length);
  selected = null;
  renderHand();
}

function handKeys(e) {
  const b = e.target.closest?.(".card");
  if (!b) return;
  const col = +b.dataset.col, i = +b.dataset.i;
  const moves = {ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1]};
  if (!(e.key in moves)) return;
  e.preventDefault();
  const [dc, di] = moves[e.key];
  const c = Math.max(0, Math.min(layout.length - 1, col + dc));
  const n = Math.max(0, Math.min(layout[c].cards.length - 1, dc ? Math.min(i, layout[c].cards.length - 1) : i + di));
  const next = $("hand").querySelector(`.card[data-col="${c}"][data-i="${n}"]`);
  if (next) {
    $("hand").querySelectorAll(".card").forEach(x => { x.tabIndex = -1; });
    next.tabIndex = 0;
    next.focus();
  }
}

// ------------------------------------------------------------------ 听牌, timer, 托管

function renderTing() {
  const box = $("ting");
  box.replaceChildren();
  if (!hint || state.over) return;
  box.appendChild(el("span", "huxi-now", t("huxi_now", {n: hint.huxi})));
  if (!hint.waits.length) return;
  box.appendChild(el("b", "", t("ting")));
  hint.waits.forEach(w => {
    const item = el("span", "wait");
    item.append(mini(w.win), el("small", "", t("left_n", {n: w.left}) + " · " + t("huxi_n", {n: w.huxi}) + " · " + t("pts", {n: w.score})));
    box.appendChild(item);
  });
}

function askHint() {
  if (state.you === null || state.over) { hint = null; return; }
  const key = state.room + state.hand_no + state.hand + state.tables[state.you].join() + state.discards.join() + state.tables.flat().join();
  if (key === hintKey) return;
  hintKey = key;
  send({type: "hint"});
}

function renderAuto() {
  const s = state, mine = s.you !== null;
  $("auto-bar").hidden = !(mine && s.auto[s.you]);
  $("auto-on").hidden = !mine || s.auto[s.you] || s.over;
  $("auto-on").title = t("tuoguan_title");
}

function trackTimers() {
  const s = state, now = performance.now();
  deadlineAt = s.deadline !== null && s.deadline !== undefined && !s.auto[s.you] ? now + s.deadline * 1000 : null;
  const key = s.hand_no + ":" + s.events.length + ":" + s.turn;
  const someoneDiscards = !s.over && !s.offer && s.turn !== null && s.turn !== s.you &&
    isPerson(s.turn) && !s.auto[s.turn] && s.timer > 0;
  if (!someoneDiscards) othersAt = null;
  else if (key !== othersKey) othersAt = now + s.timer * 1000;  // from when we saw it: near enough
  othersKey = key;
}

function tick() {
  if (!state) return;
  const now = performance.now(), bar = $("timebar");
  if (deadlineAt !== null && myDecision()) {
    const left = Math.max(0, (deadlineAt - now) / 1000);
    bar.hidden = false;
    bar.querySelector("i").style.width = (100 * left / Math.max(1, state.timer)) + "%";
    bar.querySelector("span").textContent = t("timer_s", {s: Math.ceil(left)});
    bar.classList.toggle("low", left <= 5);
    const whole = Math.ceil(left);
    if (left <= 5 && whole !== lastTick && whole > 0) { lastTick = whole; sound.play("tick"); }
  } else bar.hidden = true;
  const other = othersAt !== null && document.querySelector(`.seat[data-seat="${state.turn}"] .countdown i`);
  if (other) other.style.width = Math.max(0, 100 * (othersAt - now) / 1000 / Math.max(1, state.timer)) + "%";
}

function noticeTimeouts(first) {
  state.timed_out.forEach((found, seat) => {
    const key = state.room + ":" + seat;
    if (!found || toldTimeouts[key] === found.n) return;
    toldTimeouts[key] = found.n;
    if (first) return;
    toast(seat === state.you ? t("timed_out_you", {action: played(found.action)}) :
      t("timed_out_other", {who: who(seat), action: played(found.action)}), 6000);
  });
}

// ------------------------------------------------------------------ motion and sound

function rectOf(node) { return node ? node.getBoundingClientRect() : null; }

/** A card-sized box in the middle of a larger one (a seat's panel, your hand). */
function cardBox(rect, width = 34, height = 84) {
  if (!rect) return null;
  const left = rect.left + rect.width / 2 - width / 2, top = rect.top + Math.min(rect.height / 2, 110) - height / 2;
  return {left, top, width, height};
}

function fly(kind, from, to, delay = 0, faceDown = false) {
  if (!from || !to || !motion()) return;
  const card = cardEl(faceDown ? null : kind, t, "flyer");
  card.style.left = to.left + "px"; card.style.top = to.top + "px";
  card.style.width = to.width + "px"; card.style.height = to.height + "px";
  $("flying").appendChild(card);
  const dx = from.left - to.left, dy = from.top - to.top;
  const sx = from.width / Math.max(1, to.width), sy = from.height / Math.max(1, to.height);
  const animation = card.animate([
    {transform: `translate(${dx}px, ${dy}px) scale(${sx}, ${sy})`, opacity: 0.85},
    {transform: "none", opacity: 1},
  ], {duration: 340, delay, easing: "cubic-bezier(.2,.7,.3,1)", fill: "backwards"});
  animation.onfinish = () => card.remove();
  animation.oncancel = () => card.remove();
}

function flash(text, seat) {
  const target = seat === undefined ? $("centre") : document.querySelector(`.seat[data-seat="${seat}"]`);
  const r = rectOf(target);
  if (!r) return;
  const f = el("div", "flash", text);
  f.style.left = (r.left + r.width / 2) + "px";
  f.style.top = (r.top + Math.min(r.height / 2, 90)) + "px";
  $("flying").appendChild(f);
  if (!motion()) { setTimeout(() => f.remove(), 900); return; }
  f.animate([{transform: "translate(-50%, -50%) scale(.4)", opacity: 0}, {transform: "translate(-50%, -50%) scale(1.15)", opacity: 1, offset: 0.3},
    {transform: "translate(-50%, -50%) scale(1)", opacity: 1, offset: 0.75}, {transform: "translate(-50%, -60%) scale(1)", opacity: 0}],
  {duration: 1000, easing: "ease-out"}).onfinish = () => f.remove();
}

function huBanner(r) {
  const b = $("banner");
  b.replaceChildren(el("b", "", r.winner === null ? "荒庄" : "胡"), el("span", "", r.winner === null ? t("settle_draw") :
    (r.winner === state.you ? t("settle_you") : t("settle_win", {who: who(r.winner)}))));
  b.classList.toggle("draw", r.winner === null);
  b.hidden = false;
  setTimeout(() => { b.hidden = true; }, motion() ? 1300 : 900);
}

const CLAIM_GLYPH = {chi: "吃", peng: "碰", wei: "偎", chouwei: "偎", pao: "跑", ti: "提"};

function animate(before, fresh) {
  const offerNow = rectOf($("offer-slot").querySelector(".card"));
  const wall = rectOf($("wall").querySelector(".card"));
  const seatRect = seat => cardBox(rectOf(document.querySelector(`.seat[data-seat="${seat}"]`)));
  let sfx = null;
  fresh.slice(-4).forEach((e, n) => {
    const delay = n * 110;
    const panel = document.querySelector(`.seat[data-seat="${e.seat}"]`);
    switch (e.event) {
      case "show": case "liang":
        fly(e.card, wall, offerNow, delay); sfx = sfx || "draw"; break;
      case "draw":
        if (e.seat === state.you) sfx = sfx || "draw";
        fly(null, wall, e.seat === state.you ? cardBox(rectOf($("hand"))) : seatRect(e.seat), delay, true); break;
      case "discard":
        fly(e.card, e.seat === state.you && lastDiscardRect ? lastDiscardRect : seatRect(e.seat), offerNow, delay);
        sfx = "discard"; break;
      case "passed": {
        const row = panel && panel.querySelector(".discards");
        fly(e.card, before.offer, rectOf(row && row.lastElementChild), delay); break;
      }
      case "chi": case "peng": case "wei": case "chouwei": case "pao": case "ti": {
        const group = panel && panel.querySelector(".groups .group:last-child .card:last-child");
        fly(e.event === "wei" && e.seat !== state.you ? null : e.card, before.offer || seatRect(e.seat), rectOf(group), delay, e.event === "wei" && e.seat !== state.you);
        flash(CLAIM_GLYPH[e.event], e.seat);
        sfx = e.event === "chouwei" ? "wei" : e.event; break;
      }
      case "hu": sfx = "hu"; break;
      default: break;
    }
  });
  if (sfx) sound.play(sfx);
  lastDiscardRect = null;
}

// ------------------------------------------------------------------ the settlement (R10.6)

function renderReady(button, note) {
  const s = state;
  const mine = s.you !== null;
  button.hidden = !mine;
  button.disabled = !mine || s.ready[s.you];
  button.textContent = mine && s.ready[s.you] ? t("ready_badge") : t("ready");
  const missing = s.seats.map((_, seat) => seat).filter(seat => isPerson(seat) && !s.ready[seat]);
  note.textContent = !missing.length ? t("ready_all") :
    mine && s.ready[s.you] ? t("ready_done") + " " + t("ready_wait", {who: missing.map(who).join("、")}) :
      t("ready_wait", {who: missing.map(who).join("、")});
}

function settlementGroups(r, reveal) {
  const box = $("settle-groups");
  box.replaceChildren();
  r.groups.forEach((g, i) => {
    const [type, body] = g.split(":");
    const col = el("div", "sgroup g-" + type);
    const stack = el("div", "stack");
    cardsOf(body).forEach(k => {
      const c = mini(k, "small-card");
      if (k === r.winning_card) c.classList.add("winning");
      stack.appendChild(c);
    });
    col.append(stack, el("span", "glabel", t("g_" + type)), el("b", "ghuxi", String(reveal.group_huxi[i] ?? "")));
    col.setAttribute("role", "img");
    col.setAttribute("aria-label", t("a_group", {type: t("g_" + type), cards: cardsOf(body).map(glyph).join(""), huxi: reveal.group_huxi[i]}));
    box.appendChild(col);
  });
}

function figure(list, name, value, note) {
  const row = el("div", "fig");
  row.append(el("dt", "", name), el("dd", "", value));
  if (note) row.appendChild(el("dd", "note", note));
  list.appendChild(row);
}

function renderSettlement() {
  const s = state, r = s.result, reveal = s.reveal;
  if (!r || !reveal) return;
  $("settle-title").textContent = r.winner === null ? t("settle_draw") :
    (r.winner === s.you ? t("settle_you") : t("settle_win", {who: who(r.winner)}));
  const badges = $("settle-badges");
  badges.replaceChildren();
  if (r.winning_card) { const b = badge(t("on_card", {card: ""}), "on"); b.appendChild(mini(r.winning_card)); badges.appendChild(b); }
  if (r.self_drawn) badges.appendChild(badge(t("self_drawn"), "zimo"));
  if (r.tianhu) badges.appendChild(badge(t("tianhu"), "tianhu"));
  if (r.haidi) badges.appendChild(badge(t("haidi"), "haidi"));
  if (r.winner === null) badges.appendChild(el("span", "", t("settle_draw_note")));
  settlementGroups(r, reveal);
  const figs = $("settle-figures");
  figs.replaceChildren();
  if (r.winner !== null) {
    figure(figs, t("f_huxi"), String(r.huxi));
    figure(figs, t("f_deng"), String(r.deng), reveal.self_draw_deng ? t("f_deng_self", {n: reveal.self_draw_deng}) : "");
    const names = r.mingtang.map(m => t("f_fan_each", {name: t("mt_" + m.name) === "mt_" + m.name ? m.name : t("mt_" + m.name), fan: m.fan}));
    if (!names.length) names.push(t("f_fan_each", {name: t("f_none"), fan: 1}));
    if (reveal.haidi_fan) names.push(t("f_haidi", {n: reveal.haidi_fan}));
    figure(figs, t("f_mingtang"), names.join(" · "));
    figure(figs, t("f_fan"), String(r.fan));
    figure(figs, t("f_score"), String(r.score), r.deng + " × " + r.fan);
  }
  const pay = $("settle-payments");
  pay.replaceChildren();
  const head = pay.insertRow();
  [t("col_seat"), t("col_paid"), t("col_total")].forEach(h => head.appendChild(el("th", "", h)));
  r.payments.forEach((p, seat) => {
    const tr = pay.insertRow();
    if (seat === s.you) tr.className = "you";
    tr.insertCell().textContent = who(seat) + (seat === s.dealer ? " · " + t("dealer") : "");
    const cell = tr.insertCell();
    cell.textContent = (p > 0 ? "+" : "") + p;
    cell.className = p > 0 ? "plus" : p < 0 ? "minus" : "";
    tr.insertCell().textContent = String(s.totals[seat]);
  });
  const others = $("settle-others");
  others.replaceChildren(el("h3", "", t("others")));
  s.seats.forEach((_, seat) => {
    if (seat === r.winner || sitsOut(seat)) return;
    const box = el("div", "other");
    const title = el("p", "");
    title.append(el("b", "", who(seat)), document.createTextNode(" · " + t("others_huxi", {n: r.other_huxi[String(seat)] ?? 0})));
    box.appendChild(title);
    const line = el("div", "reveal");
    const groups = reveal.tables[seat] || [];
    if (groups.length) line.appendChild(el("span", "label", t("groups_label")));
    groups.forEach(g => {
      const [type, body] = g.split(":");
      const grp = el("span", "rgroup");
      cardsOf(body).forEach(k => grp.appendChild(mini(k)));
      grp.title = t("g_" + type);
      line.appendChild(grp);
    });
    line.appendChild(el("span", "label", t("in_hand")));
    arrange(cardsOf(reveal.hands[seat])).forEach(col => {
      const grp = el("span", "rgroup hand");
      col.cards.forEach(k => grp.appendChild(mini(k)));
      line.appendChild(grp);
    });
    box.appendChild(line);
    others.appendChild(box);
  });
  const wall = cardsOf(reveal.wall);
  $("settle-wall-title").textContent = wall.length ? t("wall_left", {n: wall.length}) : t("wall_empty");
  $("settle-wall").replaceChildren(...wall.map(k => mini(k)));
  renderReady($("ready"), $("settle-ready-note"));
}

function openSettlement() {
  renderSettlement();
  $("settlement").hidden = false;
  const ready = $("ready");
  (ready.disabled || ready.hidden ? $("settle-close") : ready).focus({preventScroll: true});
  loadHistory();
  verifyDeal(state);
}

function closeSettlement() {
  $("settlement").hidden = true;
  $("show-settlement").focus();
}

// Fair deals (docs/security.md): the commitment shown at the deal must open to the record's deck.
async function verifyDeal(s) {
  const out = $("settle-deal"), seen = seenCommitments[s.room + ":" + s.hand_no];
  out.textContent = "";
  out.className = "";
  if (!seen) return;
  try {
    const record = await (await fetch("/api/rooms/" + s.room + "/hands/" + (s.hand_no - 1) + "/record")).json();
    const deal = record.deal || {};
    if (!window.crypto || !crypto.subtle) {
      out.textContent = t("verify_manual", {c: seen.slice(0, 16)});
      return;
    }
    const bytes = new TextEncoder().encode("paohuzi-deal/1\n" + deal.salt + "\n" + record.deck);
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    const hex = Array.from(digest, b => b.toString(16).padStart(2, "0")).join("");
    const ok = hex === deal.commitment && deal.commitment === seen;
    out.textContent = ok ? t("verified") : t("unverified");
    out.className = ok ? "verified" : "unverified";
    out.dataset.ok = String(ok);
  } catch (e) {
    out.textContent = "";
  }
}

// ------------------------------------------------------------------ the whole table

function render() {
  const s = state;
  $("table").hidden = false;
  $("lobby").hidden = true;
  $("problem").hidden = true;
  $("table").dataset.n = seatCount();
  $("table").classList.toggle("watching", s.you === null);
  $("where").textContent = t("hand_no", {n: s.hand_no}) + (s.you === null ? " · " + t("st_watch") : "");
  renderSeats();
  renderCentre();
  renderHand();
  renderPrompt();
  renderTing();
  renderAuto();
  renderLog();
  tick();
  if (s.over && !$("settlement").hidden) renderSettlement();
  if (!s.over) $("settlement").hidden = true;
}

function renderLog() {
  const log = $("log");
  log.replaceChildren(...state.events.slice(-200).map(e => el("li", "", describe(e))));
  log.scrollTop = log.scrollHeight;
}

function onState(m) {
  const before = {offer: rectOf($("offer-slot").querySelector(".card"))};
  const old = state;
  const key = m.room + ":" + m.hand_no;
  if (m.commitment && !(key in seenCommitments)) seenCommitments[key] = m.commitment;
  state = m;
  if (!old || old.hand_no !== m.hand_no) { hint = null; chiOpen = false; }
  trackTimers();
  render();
  askHint();
  noticeTimeouts(!old);
  const sameHand = old && old.hand_no === m.hand_no && old.room === m.room;
  const fresh = sameHand ? m.events.slice(old.events.length) : [];
  animate(before, fresh);
  const wasMine = old && old.you !== null && old.legal.length > 0 && old.seq === m.seq;
  if (myDecision() && !wasMine && !fresh.some(e => e.event === "discard" && e.seat === m.you)) sound.play("turn");
  if (m.over && settleFor !== key) {
    settleFor = key;
    const late = !sameHand;  // reconnected to a finished hand: no banner, straight to it
    if (!late && m.result) huBanner(m.result);
    clearTimeout(settleTimer);
    settleTimer = setTimeout(openSettlement, late ? 0 : (motion() ? 1400 : 1000));
  }
}

// ------------------------------------------------------------------ connection and trouble

function send(message) {
  if (socket && socket.readyState === 1) socket.send(JSON.stringify(message));
}

let connNote = null;
function showConn(key) {
  connNote = key;
  $("table").classList.toggle("offline", !!key);
  const bar = $("conn");
  bar.hidden = !key;
  bar.textContent = key ? t(key, {n: attempts}) : "";
}

function problem(kind) {
  stopped = true;
  $("toast").hidden = true;  // the server's own words, in English: the page says it better
  clearTimeout(settleTimer);
  showConn(null);
  $("table").hidden = true;
  $("lobby").hidden = true;
  $("settlement").hidden = true;
  $("problem").hidden = false;
  $("problem").dataset.kind = kind;
  $("problem-title").textContent = t("p_" + kind + "_title");
  $("problem-body").textContent = t("p_" + kind + "_body");
  const actions = $("problem-actions");
  actions.replaceChildren();
  const link = (key, href, primary) => {
    const a = el("a", "button" + (primary ? " primary" : ""), t(key));
    a.href = href;
    actions.appendChild(a);
  };
  if (kind === "token") link("p_watch", "/room/" + encodeURIComponent(roomId), false);
  if (kind === "full") link("p_retry", location.pathname + location.search, true);
  link("p_new", "/", kind !== "full");
  actions.querySelector("a").focus();
}

const CLOSED = {4404: "room", 4403: "token", 4429: "full", 4410: "closed"};

function connect() {
  if (stopped) return;
  const proto = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(proto + "://" + location.host + "/ws/" + encodeURIComponent(roomId) + (token ? "?token=" + encodeURIComponent(token) : ""));
  socket.onopen = () => {
    if (attempts) toast(t("conn_back"));
    attempts = 0;
    showConn(null);
  };
  socket.onmessage = ev => {
    const m = JSON.parse(ev.data);
    if (m.type === "state") onState(m);
    else if (m.type === "hint") { hint = m; renderTing(); }
    else if (m.type === "error") toast("⚠ " + serverSays(m.message));
  };
  socket.onclose = ev => {
    if (ev.code in CLOSED) { problem(CLOSED[ev.code]); return; }
    attempts++;
    const wait = Math.min(8000, 400 * 2 ** Math.min(attempts, 5));
    showConn("conn_lost");
    // A server that does not answer plain HTTP either is restarting (or gone): say so.
    fetch("/healthz", {cache: "no-store"}).then(r => { if (!r.ok) throw new Error(); }).catch(() => showConn("conn_restart"));
    setTimeout(connect, wait);
  };
}

// The server answers in English; the refusals a player meets at the table are said here.
const SERVER_WORDS = [[/^it is not your turn/, "e_turn"], [/^stale action/, "e_stale"], [/^the hand is over/, "e_over"],
  [/^the server could not save/, "e_save"], [/^too many messages/, "e_slow"]];

function serverSays(message) {
  const found = SERVER_WORDS.find(([pattern]) => pattern.test(message));
  return found ? t(found[1]) : message;
}

let toastTimer = null;
function toast(text, ms = 3500) {
  const box = $("toast");
  box.textContent = text;
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, ms);
}

// ------------------------------------------------------------------ history and replay

let frames = null, frameAt = 0;

async function loadHistory() {
  if (!state) return;
  try {
    const list = await (await fetch("/api/rooms/" + state.room + "/hands")).json();
    const ul = $("history");
    ul.replaceChildren();
    list.forEach(h => {
      const li = el("li");
      const b = el("button", "", t("replay_hand", {n: h.n + 1}));
      b.type = "button";
      b.onclick = () => openReplay(h.n);
      li.append(b, " " + (h.winner === null ? t("replay_draw") : t("replay_winner", {who: who(h.winner)})) + (h.score ? " · " + t("score_n", {n: h.score}) : ""));
      ul.appendChild(li);
    });
  } catch (e) { /* the list comes back with the next settlement */ }
}

async function openReplay(n) {
  frames = await (await fetch("/api/rooms/" + state.room + "/hands/" + n + "/frames")).json();
  frameAt = 0;
  $("replay").hidden = false;
  showFrame();
}

function showFrame() {
  const f = frames[frameAt], view = $("replay-view");
  view.replaceChildren();
  $("replay-step").textContent = " " + t("replay_step", {i: frameAt, n: frames.length - 1}) + " ";
  f.events.forEach(e => view.appendChild(el("p", "event", describe(e))));
  f.position.hands.forEach((hand, seat) => {
    const box = el("div", "seat replay-seat");
    box.appendChild(el("h3", "", who(seat)));
    const groups = el("div", "groups");
    f.position.tables[seat].forEach(g => groups.appendChild(groupEl(g, undefined, seat, true)));
    box.append(rowOf(hand), groups);
    view.appendChild(box);
  });
}

// ------------------------------------------------------------------ the lobby

function fieldError(id, text) {
  $(id).textContent = text;
  const input = {"level-error": "level", "timer-error": "timer"}[id];
  if (input) $(input).setAttribute("aria-invalid", text ? "true" : "false");
}

async function createRoom(bots) {
  ["level-error", "timer-error", "form-error"].forEach(id => fieldError(id, ""));
  const timer = Number($("timer").value);
  if (!Number.isInteger(timer) || (timer !== 0 && (timer < 5 || timer > 300))) {
    fieldError("timer-error", t("err_timer"));
    $("timer").focus();
    return null;
  }
  let response;
  try {
    response = await fetch("/api/rooms", {method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify({bots, timer})});
  } catch (e) {
    fieldError("form-error", t("err_network"));
    return null;
  }
  const body = await response.json().catch(() => ({}));
  if (response.ok) return body;
  const detail = String(body.detail || response.status);
  if (detail.startsWith("timer")) fieldError("timer-error", t("err_timer"));
  else if (response.status === 400 && /bot/i.test(detail)) fieldError("level-error", t("err_level"));
  else if (response.status === 429) fieldError("form-error", t("err_rate"));
  else if (response.status === 503) fieldError("form-error", t("err_full"));
  else fieldError("form-error", t("err_other", {detail}));
  return null;
}

const localUrl = url => url.replace(/^https?:\/\/[^/]+/, "");

function lobby() {
  $("lobby").hidden = false;
  $("new-game").onsubmit = async e => {
    e.preventDefault();
    const level = $("level").value, room = await createRoom([null, level, level]);
    if (room) location.href = localUrl(room.seats[0].url);
  };
  $("with-friends").onclick = async () => {
    const room = await createRoom([null, null, $("level").value]);
    if (!room) return;
    const ul = $("invite-list");
    ul.replaceChildren();
    room.seats.filter(s => s.url && s.seat !== 0).forEach(s => {
      const li = el("li"), a = el("a", "invite", s.url), copy = el("button", "tool", t("copy"));
      a.href = s.url;
      copy.type = "button";
      copy.onclick = async () => {
        try { await navigator.clipboard.writeText(s.url); copy.textContent = t("copied"); }
        catch (e) { getSelection().selectAllChildren(a); }
      };
      li.append(el("b", "", t("invite_seat", {n: s.seat + 1}) + " "), a, copy);
      ul.appendChild(li);
    });
    $("invites").hidden = false;
    $("enter").onclick = () => { location.href = localUrl(room.seats[0].url); };
    $("enter").focus();
  };
}

// ------------------------------------------------------------------ wiring

function refreshLanguage() {
  translatePage();
  $("lang").textContent = t("lang_switch");
  $("lang").setAttribute("aria-label", t("lang_switch_label"));
  $("mute").textContent = sound.muted ? t("sound_off") : t("sound_on");
  $("mute").setAttribute("aria-pressed", String(sound.muted));
  $("mute").title = t("sound_label");
  if (connNote) showConn(connNote);
  if (!$("problem").hidden) problem($("problem").dataset.kind);
  if (state && !$("table").hidden) {
    render();
    if (!$("settlement").hidden) renderSettlement();
  }
}

function keys(e) {
  sound.unlock();
  if (e.target.matches?.("input, select, textarea") || e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.key === "Escape" && !$("settlement").hidden) { closeSettlement(); return; }
  if (!state || $("prompt").hidden) return;
  const claims = claimsOf(), key = e.key.toLowerCase();
  const chis = claims.filter(a => a.startsWith("chi"));
  const pick = {h: "hu", p: "peng", g: "pass"}[key];
  if (pick && claims.includes(pick)) { e.preventDefault(); act(pick); }
  else if (key === "c" && chis.length) { e.preventDefault(); chis.length === 1 ? act(chis[0]) : choose("chi-open"); }
  else if (chiOpen && /^[1-9]$/.test(key) && chis[+key - 1]) { e.preventDefault(); act(chis[+key - 1]); }
}

function wire() {
  $("lang").onclick = () => { setLang(lang === "zh" ? "en" : "zh"); refreshLanguage(); };
  $("mute").onclick = () => { sound.setMuted(!sound.muted); refreshLanguage(); };
  $("prompt").addEventListener("click", e => { const b = e.target.closest("button"); if (b) choose(b.dataset.action); });
  const hand = $("hand");
  hand.addEventListener("click", e => { const b = e.target.closest(".card"); if (b && !justDragged) tap(b); });
  hand.addEventListener("pointerdown", startDrag);
  hand.addEventListener("pointermove", moveDrag);
  hand.addEventListener("pointerup", endDrag);
  hand.addEventListener("pointercancel", e => { if (drag) { drag.ghost?.remove(); drag.b.classList.remove("dragging"); drag = null; } });
  hand.addEventListener("keydown", handKeys);
  $("sort").onclick = () => { layout = arrange(cardsOf(state.hand)); selected = null; renderHand(); };
  $("auto-on").onclick = () => send({type: "auto", on: true});
  $("auto-off").onclick = () => send({type: "auto", on: false});
  $("ready").onclick = () => send({type: "ready"});
  $("ready-bar").onclick = () => send({type: "ready"});
  $("settle-close").onclick = closeSettlement;
  $("show-settlement").onclick = openSettlement;
  $("replay-prev").onclick = () => { if (frameAt > 0) { frameAt--; showFrame(); } };
  $("replay-next").onclick = () => { if (frameAt < frames.length - 1) { frameAt++; showFrame(); } };
  $("replay-close").onclick = () => { $("replay").hidden = true; };
  document.addEventListener("keydown", keys);
  document.addEventListener("pointerdown", sound.unlock);
  setInterval(tick, 200);
}

function start() {
  wire();
  refreshLanguage();
  const path = location.pathname.match(/^\/room\/([\w-]+)/);
  if (!path) { lobby(); return; }
  roomId = path[1];
  token = new URLSearchParams(location.search).get("token");
  connect();
}

start();

// The web table of `paohuzi serve`: a plain ES module, no build step. The server holds the
// rules and sends each seat its own view ("state" frames, see the README's serve section);
// this page only draws it and sends the seat's choices back.
import {t, lang, setLang, translatePage} from "./i18n.js";
import {cardEl, cardsOf, glyph, spoken, arrange, reconcile} from "./cards.js";
import * as sound from "./sound.js";
import {qrSvg} from "./qr.js";
import {renderRules} from "./rules.js";
import {renderAnalysis} from "./analysis.js";

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
  if (state.you === null || state.you === undefined || replaying) return t("seat_n", {n: seat + 1});
  const r = relative(seat), n = seatCount();
  if (r === 0) return t("you");
  if (r === 1) return t("next");
  if (r === n - 1) return t("prev");
  return t("across");
}

/** A seat's nickname, or its bot level, or "player". Names are text, never markup. */
function identity(seat) {
  const info = state.seats[seat], bot = info.bot;
  if (!bot) return info.name || t("player") + " · " + t("seat_n", {n: seat + 1});
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
  if (seat !== s.you && s.open_hands) {  // the replay board: every hand face up
    const open = el("div", "open-hand");
    open.setAttribute("aria-label", t("a_hand_of", {who: who(seat)}));
    arrange(cardsOf(s.open_hands[seat])).forEach(col => {
      const column = el("span", "rgroup hand");
      col.cards.forEach(k => column.appendChild(mini(k)));
      open.appendChild(column);
    });
    panel.appendChild(info);
    panel.appendChild(open);
  } else if (seat !== s.you) {  // a hidden hand: its backs, fanned, and how many
    const count = el("span", "count");
    for (let i = 0; i < Math.min(s.hand_sizes[seat], 8); i++) count.appendChild(mini(null));
    count.appendChild(el("span", "", t("cards_n", {n: s.hand_sizes[seat]})));
    count.setAttribute("aria-label", t("cards_n", {n: s.hand_sizes[seat]}));
    info.appendChild(count);
  }
  if (!panel.contains(info)) panel.appendChild(info);
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
  s.tables[seat].forEach((g, i) => groups.appendChild(groupEl(g, s.table_huxi[seat][i], seat, !!s.open_hands)));
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
  end.hidden = !s.over || replaying;
  if (s.over) renderReady($("ready-bar"), $("ready-note"));
}

const claimsOf = () => state.legal.filter(a => !a.startsWith("discard"));
const myDecision = () => state.you !== null && state.legal.length > 0 && !state.auto[state.you];
const legalDiscards = () => new Set(state.legal.filter(a => a.startsWith("discard")).map(a => a.split(" ")[1]));

function statusText() {
  const s = state;
  if (s.over) return t("st_over");
  if (replaying) {
    const f = frames[frameAt];
    if (f.to_act === null) return "";
    return f.choices > 1 ? t("st_replay_decides", {who: nameOf(f.to_act), n: f.choices}) : t("st_replay_moves", {who: nameOf(f.to_act)});
  }
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
  if (state.you === null || state.over || replaying) { hint = null; return; }
  const key = state.room + state.hand_no + state.hand + state.tables[state.you].join() + state.discards.join() + state.tables.flat().join();
  if (key === hintKey) return;
  hintKey = key;
  send({type: "hint"});
}

function renderAuto() {
  const s = state, mine = s.you !== null;
  $("auto-bar").hidden = !(mine && s.auto[s.you]);
  $("auto-on").hidden = !mine || s.auto[s.you] || s.over || replaying;
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
  const mine = s.you !== null && !replaying;
  const rematch = !!(s.match && s.match.over);
  button.hidden = !mine;
  button.disabled = !mine || s.ready[s.you];
  button.textContent = mine && s.ready[s.you] ? t("ready_badge") : t(rematch ? "rematch" : "ready");
  if (replaying) { note.textContent = ""; return; }
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
    tr.insertCell().textContent = who(seat) + (s.seats[seat].name ? " " + s.seats[seat].name : "") + (seat === s.dealer ? " · " + t("dealer") : "");
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
  renderStandings();
}

/** At the end of a match: everyone's total, the best first, and the rematch (same seats). */
function renderStandings() {
  const s = state, over = !replaying && !!(s.match && s.match.over);
  $("match-end").hidden = !over;
  if (!over) return;
  const order = s.seats.map((_, seat) => seat).sort((a, b) => s.totals[b] - s.totals[a]);
  $("standings").replaceChildren(...order.map(seat => {
    const li = el("li", seat === s.you ? "you" : "");
    li.append(el("b", "", who(seat)), " " + identity(seat) + " ", el("span", "total", (s.totals[seat] > 0 ? "+" : "") + s.totals[seat]));
    return li;
  }));
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
    // paohuzi-deal/2 commits to the deal's terms (hand, dealer, rules) too: `paohuzi verify`
    // also checks that they are the record's.
    const text = deal.scheme === "paohuzi-deal/2"
      ? deal.scheme + "\n" + deal.salt + "\n" + deal.terms + "\n" + record.deck
      : "paohuzi-deal/1\n" + deal.salt + "\n" + record.deck;
    const bytes = new TextEncoder().encode(text);
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    const hex = Array.from(digest, b => b.toString(16).padStart(2, "0")).join("");
    const sameHand = deal.scheme !== "paohuzi-deal/2" || JSON.parse(deal.terms).hand === s.hand_no - 1;
    const ok = hex === deal.commitment && deal.commitment === seen && sameHand;
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
  $("waiting").hidden = true;
  $("problem").hidden = true;
  $("table").dataset.n = seatCount();
  $("table").classList.toggle("watching", s.you === null);
  const m = s.match, round = m && m.no > 1 ? t("match_no", {n: m.no}) + " · " : "";
  const which = m && m.length ? t("match_of", {i: Math.min(m.played + (s.over ? 0 : 1), m.length), n: m.length}) : t("hand_no", {n: s.hand_no});
  $("where").textContent = replaying ? t("replay_title", {n: s.hand_no}) : round + which + (s.you === null ? " · " + t("st_watch") : "");
  renderSeats();
  renderCentre();
  renderHand();
  renderPrompt();
  renderTing();
  renderAuto();
  renderSayings();
  renderLog();
  loadHistory();
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
  if (!state && m.you !== null && m.seats[m.you] && !m.seats[m.you].name && nickname()) sendName(nickname());
  waiting = null;
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
  bar.classList.toggle("saving", !key && saving);
  bar.hidden = !key && !saving;
  bar.textContent = key ? t(key, {n: attempts}) : saving ? t("saving_delayed") : "";
}

// The server's database is slow to answer: the move is kept and shown once it is saved (the
// table goes on by itself); a quiet line under the header says so meanwhile.
let saving = false;
function showSaving(on) {
  saving = on;
  showConn(connNote);
}

function problem(kind) {
  stopped = true;
  $("toast").hidden = true;  // the server's own words, in English: the page says it better
  clearTimeout(settleTimer);
  showConn(null);
  $("table").hidden = true;
  $("lobby").hidden = true;
  $("waiting").hidden = true;
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
  if (kind === "full") link("p_retry", location.pathname + location.search + location.hash, true);
  if (kind === "elsewhere") {
    const back = el("button", "button primary", t("p_take_back"));
    back.type = "button";
    back.onclick = () => { stopped = false; $("problem").hidden = true; connect(); };
    actions.appendChild(back);
  }
  link("p_new", "/", kind !== "full");
  actions.querySelector("a").focus();
}

const CLOSED = {4404: "room", 4403: "token", 4429: "full", 4410: "closed", 4409: "elsewhere"};

/** The events of the hand so far on this connection (the server sends the new ones only). */
let sentEvents = null;

/** Makes a state's events whole again from the ones this connection was sent before; false
 * (and a reconnection, which starts from a whole state) if that cannot be done. */
function wholeEvents(m) {
  if (m.events_from !== undefined) {
    if (!sentEvents || sentEvents.length < m.events_from) {
      socket.close();  // a gap: never show a log with holes; onclose reconnects
      return false;
    }
    m.events = sentEvents.slice(0, m.events_from).concat(m.events);
    delete m.events_from;
  }
  sentEvents = m.events;
  return true;
}

function connect() {
  if (stopped) return;
  const proto = location.protocol === "https:" ? "wss" : "ws";
  // The seat's secret goes in the first message, never in a URL (issue 22).
  socket = new WebSocket(proto + "://" + location.host + "/ws/" + encodeURIComponent(roomId));
  socket.onopen = () => {
    // "events": "new": after a hand's first state, only the events not sent yet (D100).
    sentEvents = null;
    socket.send(JSON.stringify(token ? {type: "hello", token, events: "new"} : {type: "hello", events: "new"}));
    if (attempts) toast(t("conn_back"));
    attempts = 0;
    showConn(null);
  };
  socket.onmessage = ev => {
    const m = JSON.parse(ev.data);
    if (m.type === "state") {
      if (!wholeEvents(m)) return;
      onState(m);
    }
    else if (m.type === "lobby") {
      if (m.you !== null && !m.seats[m.you].name && nickname()) sendName(nickname());
      onLobby(m);
    }
    else if (m.type === "said") said(m);
    else if (m.type === "saving") showSaving(!!m.delayed);
    else if (m.type === "hint") { hint = m; renderTing(); }
    else if (m.type === "error") toast("⚠ " + serverSays(m.message));
  };
  socket.onclose = ev => {
    saving = false;
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
  [/^the server could not save/, "e_save"], [/^too many messages/, "e_slow"],
  [/^the room is moving|^the server could not reach its database/, "e_moving"]];

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

// ------------------------------------------------------------------ history

let historyKey = "";

/** Every finished hand of the room, whenever the table changes hand (and after a reload). */
async function loadHistory() {
  if (!state || replaying || !roomId) return;
  const key = state.room + ":" + state.hand_no + ":" + state.over;
  if (key === historyKey) return;
  historyKey = key;
  try {
    const list = await (await fetch("/api/rooms/" + state.room + "/hands")).json();
    const ol = $("history");
    if (!list.length) { ol.replaceChildren(el("li", "empty", t("history_empty"))); return; }
    ol.replaceChildren(...list.map(h => {
      const li = el("li");
      const a = el("a", "replay-link", t("replay_hand", {n: h.n + 1}));
      a.href = "/room/" + state.room + "/hand/" + h.n;
      a.target = "_blank";
      const winner = h.winner === null ? t("replay_draw") : t("replay_winner", {who: nameOf(h.winner)});
      li.append(a, " " + winner + (h.winner === null ? "" : " · " + t("huxi_n", {n: h.huxi}) + " · " + t("score_n", {n: h.score})));
      return li;
    }));
  } catch (e) { historyKey = ""; }
}

/** A seat as everyone knows it: its relative place, and its nickname if it has one. */
function nameOf(seat) {
  const info = state.seats[seat];
  return who(seat) + (info && info.name ? " " + info.name : "");
}

// ------------------------------------------------------------------ the replay board

let replaying = false, frames = null, frameAt = 0, replayInfo = null, viewSeat = 0, review = null, reviewTimer = null;

/** The state the live table would show at a step of a finished hand, every hand face up. */
function replayState(i) {
  const f = frames[i], end = frames[frames.length - 1], last = i === frames.length - 1;
  const n = f.position.hands.length;
  const events = frames.slice(0, i + 1).flatMap(x => x.events);
  return {
    type: "state", room: replayInfo.room, you: viewSeat, seats: replayInfo.seats, host: null,
    dealer: f.dealer, liang: f.liang, hand: f.position.hands[viewSeat], hand_sizes: f.hand_sizes,
    open_hands: f.position.hands, tables: f.position.tables, table_huxi: f.table_huxi,
    discards: f.discards, chou: f.position.chou[viewSeat], wall: f.wall, turn: last ? null : f.turn,
    offer: last ? null : f.offer, offer_source: f.offer_source, legal: [], events, seq: i,
    hand_no: replayInfo.n + 1, totals: last ? end.result.payments : new Array(n).fill(0),
    over: last, result: last ? end.result : null, reveal: last ? end.reveal : null, commitment: "",
    deadline: null, timer: 0, auto: new Array(n).fill(false), timed_out: new Array(n).fill(null),
    ready: new Array(n).fill(true), match: null,
  };
}

async function openReplay(room, n) {
  replaying = true;
  const base = "/api/rooms/" + encodeURIComponent(room) + "/hands/" + n;
  const [response, info] = await Promise.all([fetch(base + "/frames"), fetch("/api/rooms/" + encodeURIComponent(room)).catch(() => null)]);
  if (!response.ok) { problem("hand"); return; }
  const known = info && info.ok ? await info.json() : null;
  startReplay(await response.json(), {room, n, base, seats: known ? known.seats : null});
}

function startReplay(list, info) {
  replaying = true;
  frames = list;
  const n = frames[0].position.hands.length;
  info.seats = info.seats || Array.from({length: n}, () => ({name: "", bot: null}));
  replayInfo = info;
  const shared = new URLSearchParams(location.search);
  viewSeat = Math.min(n - 1, +(shared.get("seat") || 0));
  $("replay-bar").hidden = false;
  $("history-box").hidden = true;
  $("table").classList.add("replaying");
  $("replay-slider").max = String(frames.length - 1);
  const pick = $("replay-seat");
  pick.replaceChildren(...Array.from({length: n}, (_, seat) => {
    const o = el("option", "", t("seat_n", {n: seat + 1}) + (info.seats[seat].name ? " " + info.seats[seat].name : info.seats[seat].bot ? " " + info.seats[seat].bot : ""));
    o.value = String(seat);
    return o;
  }));
  pick.value = String(viewSeat);
  $("replay-download").hidden = !info.base;
  $("replay-share").hidden = !info.base;
  $("review-start").hidden = !info.base;
  if (info.base) {
    $("replay-download").href = info.base + "/record";
    $("replay-download").download = "paohuzi-" + info.room.slice(0, 8) + "-" + (info.n + 1) + ".json";
  }
  $("replay-title").textContent = info.base ? t("replay_title", {n: info.n + 1}) : t("replay_file");
  goTo(Math.max(0, Math.min(frames.length - 1, +(shared.get("step") || 0))));
}

function goTo(i) {
  frameAt = Math.max(0, Math.min(frames.length - 1, i));
  state = replayState(frameAt);
  layoutKey = null;
  render();
  const f = frames[frameAt], next = frames[frameAt + 1];
  $("replay-slider").value = String(frameAt);
  $("replay-step").textContent = t("replay_step", {i: frameAt, n: frames.length - 1});
  $("replay-action").textContent = next ? t("replay_next", {who: nameOf(+next.action.split(" ")[0]), action: actionWords(next.action)}) :
    t("replay_end");
  if (frameAt === frames.length - 1) openSettlement(); else $("settlement").hidden = true;
  renderReviewHere();
}

/** An action of the record in a player's words: "碰", "打出九", "吃 一二三". */
function actionWords(text) {
  const [, type, rest] = text.match(/^\d+ (\w+)\s*(.*)$/) || [];
  if (type === "discard") return t("played_discard", {card: glyph(rest)});
  if (type === "chi") return t("act_chi") + " " + rest.split(" ").map(g => cardsOf(g).map(glyph).join("")).join(" " + t("bi") + " ");
  const words = {hu: "act_hu", peng: "act_peng", pass: "act_pass"};
  return words[type] ? t(words[type]) : type || text;
}

/** The steps where ``seat`` decided among several choices (forced moves are not decisions). */
const decisionSteps = seat => frames.map((f, i) => (f.to_act === seat && f.choices > 1 ? i : -1)).filter(i => i >= 0);

function jumpDecision(forward) {
  const steps = decisionSteps(viewSeat);
  const found = forward ? steps.find(i => i > frameAt) : steps.reverse().find(i => i < frameAt);
  if (found !== undefined) goTo(found);
}

function shareLink() {
  return location.origin + "/room/" + replayInfo.room + "/hand/" + replayInfo.n + "?seat=" + viewSeat + "&step=" + frameAt;
}

function replayKeys(e) {
  if (!replaying || e.target.matches?.("input[type=number], select, textarea")) return false;
  const moves = {ArrowLeft: -1, ArrowRight: 1, PageUp: -10, PageDown: 10};
  if (e.key in moves) { e.preventDefault(); goTo(frameAt + moves[e.key]); return true; }
  if (e.key === "Home") { e.preventDefault(); goTo(0); return true; }
  if (e.key === "End") { e.preventDefault(); goTo(frames.length - 1); return true; }
  if (e.key === "[" || e.key === "]") { jumpDecision(e.key === "]"); return true; }
  return false;
}

// ------------------------------------------------------------------ the expert's review

const REVIEW_SAMPLES = 20;

async function startReview() {
  clearTimeout(reviewTimer);
  const samples = +(new URLSearchParams(location.search).get("samples") || REVIEW_SAMPLES);
  const seat = viewSeat;
  review = {seat, samples, state: "queued", done: 0, total: 0};
  $("review").hidden = false;
  renderReview();
  const url = replayInfo.base + "/review";
  let response = await fetch(url, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({seat, samples})});
  while (response.ok) {
    const found = await response.json();
    if (seat !== viewSeat && found.seat !== seat) return;
    review = found;
    renderReview();
    if (found.state !== "queued" && found.state !== "running") return;
    await new Promise(done => { reviewTimer = setTimeout(done, 500); });
    response = await fetch(url + "?seat=" + seat + "&samples=" + samples);
  }
  const body = await response.json().catch(() => ({}));
  review = {seat, samples, state: "failed", done: 0, total: 0, error: response.status === 503 ? t("review_busy") : String(body.detail || response.status)};
  renderReview();
}

function renderReview() {
  const r = review, bar = $("review-progress");
  const share = r.total ? r.done / r.total : 0;
  bar.querySelector("i").style.width = (100 * share) + "%";
  bar.querySelector("span").textContent = r.state === "failed" ? t("review_failed", {why: r.error || ""}) :
    r.state === "queued" ? t("review_queued") :
    r.state === "running" ? t("review_running", {i: r.done, n: r.total}) :
    t(r.state === "timeout" ? "review_timeout" : "review_done", {n: (r.decisions || []).length, who: t("seat_n", {n: r.seat + 1})});
  bar.setAttribute("role", "progressbar");
  bar.setAttribute("aria-valuenow", String(Math.round(100 * share)));
  const list = $("review-list");
  list.replaceChildren();
  if (!r.decisions) return;
  const byIndex = new Map(r.decisions.map(d => [d.index, d]));
  const worst = r.mistakes.map(i => byIndex.get(i));
  if (!worst.length) list.appendChild(el("li", "empty", t("review_clean")));
  worst.forEach(d => {
    const li = el("li", "mistake");
    Object.assign(li.dataset, {index: d.index, played: d.played, best: d.best, loss: d.loss});
    const b = el("button", "tool", t("review_step", {i: d.index}));
    b.type = "button";
    b.dataset.index = String(d.index);
    b.onclick = () => goTo(d.index);
    li.append(b, " " + reviewWords(d));
    list.appendChild(li);
  });
  renderReviewHere();
}

function reviewWords(d) {
  return t("review_line", {played: actionWords(r2(d.played)), best: actionWords(r2(d.best)), loss: d.loss.toFixed(2)});
}
const r2 = action => viewSeat + " " + action;

/** At a reviewed decision, the review's verdict on the board. */
function renderReviewHere() {
  const here = $("review-here");
  here.textContent = "";
  here.className = "";
  if (!review || !review.decisions || review.seat !== viewSeat) return;
  const d = review.decisions.find(x => x.index === frameAt);
  if (!d) return;
  here.textContent = d.played === d.best ? t("review_good", {played: actionWords(r2(d.played))}) : reviewWords(d);
  here.className = d.loss > 0 ? "loss" : "good";
  here.dataset.index = String(d.index);
}

// ------------------------------------------------------------------ quick phrases and reactions

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

function renderSayings() {
  const box = $("sayings"), mine = state && state.you !== null && !replaying;
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

function said(m) {
  if (!state || !state.seats || !state.seats[m.seat]) return;
  const panel = document.querySelector(`.seat[data-seat="${m.seat}"]`);
  if (!panel) return;
  const bubble = el("div", "bubble");
  bubble.setAttribute("role", "status");
  if (FACES.includes(m.what)) bubble.appendChild(faceEl(m.what));
  else bubble.textContent = t("say_" + m.what);
  panel.querySelector(".bubble")?.remove();
  panel.appendChild(bubble);
  setTimeout(() => bubble.remove(), 3500);
}

// ------------------------------------------------------------------ the waiting room

let waiting = null;

function onLobby(m) {
  waiting = m;
  state = null;
  $("table").hidden = true;
  $("lobby").hidden = true;
  $("problem").hidden = true;
  $("waiting").hidden = false;
  $("where").textContent = t("waiting_title");
  const rules = typeof m.rules === "string" && m.rules.startsWith("{") ? JSON.parse(m.rules).preset : m.rules;
  $("waiting-rules").textContent = t("waiting_rules", {rules: t("preset_" + rules), players: m.seats.length, hands: m.match.length ? t("hands_n", {n: m.match.length}) : t("match_open"),
    timer: m.timer ? t("timer_n", {n: m.timer}) : t("timer_none")});
  const invites = JSON.parse(localStorage.getItem("paohuzi.invites." + m.room) || "null");
  $("waiting-seats").replaceChildren(...m.seats.map((s, seat) => {
    const li = el("li", s.joined ? "joined" : "missing");
    const label = s.bot ? t("bot_" + s.bot.split("@")[0]) : s.name || t("player");
    li.append(el("b", "", t("seat_n", {n: seat + 1}) + (seat === m.you ? " · " + t("you") : "") + (seat === m.host ? " · " + t("host") : "")), " " + label + " ",
      badge(s.joined ? t("arrived") : t("not_arrived"), s.joined ? "ready" : "unready"));
    return li;
  }));
  const missing = m.seats.map((s, seat) => seat).filter(seat => !m.seats[seat].joined);
  const ul = $("invite-list");
  ul.replaceChildren();
  if (invites) invites.seats.filter(s => s.url && missing.includes(s.seat)).forEach(s => ul.appendChild(inviteItem(s)));
  $("invites").hidden = !ul.childElementCount;
  $("watch-line").replaceChildren(...linkWithCopy(invites ? invites.watch : location.origin + "/room/" + m.room, "watch"));
  $("host-start").hidden = m.you !== m.host || !missing.length;
  if (document.activeElement !== $("my-name")) $("my-name").value = m.you !== null ? (m.seats[m.you].name || nickname()) : "";
  $("my-name").disabled = $("save-name").disabled = m.you === null;
}

function linkWithCopy(url, kind) {
  const a = el("a", kind === "watch" ? "watch" : "invite", url);
  a.href = url;
  const copy = el("button", "tool copy", t("copy"));
  copy.type = "button";
  copy.dataset.url = url;
  copy.onclick = async () => {
    try { await navigator.clipboard.writeText(url); copy.textContent = t("copied"); }
    catch (e) { getSelection().selectAllChildren(a); copy.textContent = t("copy_select"); }
  };
  return [a, copy];
}

function inviteItem(s) {
  const li = el("li", "invite-item");
  const text = el("div", "invite-text");
  text.append(el("b", "", t("invite_seat", {n: s.seat + 1}) + " "), ...linkWithCopy(s.url, "invite"));
  // The host (whose secret this page holds) may give a seat not yet taken a new link: the
  // old one opens nothing from then on (POST …/seats/{n}/link, D71).
  if (waiting && token && waiting.you !== null && waiting.you === waiting.host && s.seat !== waiting.host) text.appendChild(renewBox(s));
  li.append(text, qrSvg(s.url, t("qr_label", {n: s.seat + 1})));
  return li;
}

/** "New link", asked once more (the old link stops working), then done. */
function renewBox(s) {
  const box = el("div", "renew");
  const ask = el("button", "tool renew-ask", t("renew"));
  ask.type = "button";
  ask.onclick = () => {
    const note = el("span", "renew-note", t("renew_confirm", {n: s.seat + 1}));
    const yes = el("button", "tool renew-yes", t("renew_yes"));
    const no = el("button", "tool renew-no", t("renew_no"));
    yes.type = no.type = "button";
    no.onclick = () => { box.replaceChildren(ask); ask.focus(); };
    yes.onclick = () => { yes.disabled = no.disabled = true; renew(s.seat, note); };
    box.replaceChildren(note, yes, no);
    no.focus();
  };
  box.appendChild(ask);
  return box;
}

async function renew(seat, note) {
  const room = waiting.room;
  let response, body = {};
  try {
    response = await fetch("/api/rooms/" + encodeURIComponent(room) + "/seats/" + seat + "/link",
      {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({token})});
    body = await response.json().catch(() => ({}));
  } catch (e) { response = null; }
  if (!response || !response.ok) {
    note.textContent = t("renew_failed", {why: response ? String(body.detail || response.status) : t("err_network")});
    note.parentElement.querySelectorAll("button").forEach(b => { b.disabled = false; });
    return;
  }
  const key = "paohuzi.invites." + room;
  const invites = JSON.parse(localStorage.getItem(key) || "null");
  if (invites) {
    invites.seats = invites.seats.map(s => s.seat === seat ? {...s, token: body.token, url: body.url} : s);
    localStorage.setItem(key, JSON.stringify(invites));
  }
  if (waiting && waiting.room === room) onLobby(waiting);
  toast(t("renewed", {n: seat + 1}));
  // The new link's copy button, where the one pressed was.
  [...$("invite-list").querySelectorAll(".invite-item")].find(li => li.querySelector("a.invite")?.getAttribute("href") === body.url)
    ?.querySelector("button.copy")?.focus();
}

const nickname = () => localStorage.getItem("paohuzi.name") || "";

function sendName(value) {
  const name = value.trim();
  if (!name) return;
  localStorage.setItem("paohuzi.name", name);
  send({type: "name", name});
}

// ------------------------------------------------------------------ the lobby

// The bots this server offers (GET /api/bots, the operator's --offer-bots); the built-ins
// until it answers.
let BOT_LEVELS = ["greedy", "learned", "expert", "random"];
const botLabel = level => { const key = "lvl_" + level, text = t(key); return text === key ? level : text; };
fetch("/api/bots").then(r => r.ok ? r.json() : null).then(data => {
  if (!data || !Array.isArray(data.bots) || !data.bots.length) return;
  BOT_LEVELS = data.bots;
  for (const id of ["level", "start-level"]) {
    const select = $(id);
    if (!select) continue;
    const before = select.value;
    select.replaceChildren(...BOT_LEVELS.map(level => { const o = el("option", "", botLabel(level)); o.value = level; return o; }));
    select.value = BOT_LEVELS.includes(before) ? before : BOT_LEVELS[0];
  }
  if ($("seat-choices") && document.querySelector("input[name=players]:checked")) renderSeatChoices();
}).catch(() => {});

function renderSeatChoices() {
  const n = +document.querySelector("input[name=players]:checked").value;
  const box = $("seat-choices");
  const before = [...box.querySelectorAll("select")].map(s => s.value);
  box.replaceChildren(box.querySelector("h3") || el("h3", "", t("seats_title")));
  for (let seat = 0; seat < n; seat++) {
    const row = el("div", "field seat-choice");
    const label = el("label", "", t("seat_n", {n: seat + 1}));
    label.htmlFor = "seat-" + seat;
    if (seat === 0) { row.append(label, el("span", "me-seat", t("seat_you"))); box.appendChild(row); continue; }
    const select = el("select");
    select.id = "seat-" + seat;
    const friend = el("option", "", t("seat_friend"));
    friend.value = "friend";
    select.appendChild(friend);
    BOT_LEVELS.forEach(level => { const o = el("option", "", botLabel(level)); o.value = level; select.appendChild(o); });
    const fallback = seat === 1 ? "friend" : BOT_LEVELS[0];
    select.value = [...select.options].some(o => o.value === before[seat - 1]) ? before[seat - 1] : fallback;
    row.append(label, select);
    box.appendChild(row);
  }
}

function fieldError(id, text) {
  $(id).textContent = text;
  const input = {"level-error": "level", "timer-error": "timer"}[id];
  if (input) $(input).setAttribute("aria-invalid", text ? "true" : "false");
}

/** The rules as the server takes them: a preset's name, or an object with the options changed. */
function chosenRules() {
  const preset = $("preset").value, players = +document.querySelector("input[name=players]:checked").value;
  const rules = {preset};
  if (players !== 3) rules.players = players;
  if ($("min-huxi").value) rules.min_huxi = +$("min-huxi").value;
  if ($("hu-on-discard").checked) rules.hu_on_discard = true;
  if ($("no-self-bonus").checked) rules.self_draw_bonus = 0;
  return Object.keys(rules).length === 1 ? preset : rules;
}

async function createRoom(bots, extra = {}) {
  ["level-error", "timer-error", "form-error", "name-error"].forEach(id => fieldError(id, ""));
  const timer = Number($("timer").value);
  if (!Number.isInteger(timer) || (timer !== 0 && (timer < 5 || timer > 300))) {
    fieldError("timer-error", t("err_timer"));
    $("timer").focus();
    return null;
  }
  const name = $("nickname").value.trim();
  if (name) localStorage.setItem("paohuzi.name", name);
  let response;
  try {
    response = await fetch("/api/rooms", {method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify({bots, timer, ...extra})});
  } catch (e) {
    fieldError("form-error", t("err_network"));
    return null;
  }
  const body = await response.json().catch(() => ({}));
  if (response.ok) {
    localStorage.setItem("paohuzi.invites." + body.room, JSON.stringify({seats: body.seats, watch: body.watch}));
    return body;
  }
  const detail = String(body.detail || response.status);
  if (detail.startsWith("timer")) fieldError("timer-error", t("err_timer"));
  else if (response.status === 400 && /bot/i.test(detail)) fieldError("level-error", t("err_level"));
  else if (response.status === 400 && /players a table/.test(detail)) fieldError("form-error", t("err_four"));
  else if (response.status === 400 && /house rules/.test(detail)) fieldError("form-error", t("err_house"));
  else if (response.status === 429) fieldError("form-error", t("err_rate"));
  else if (response.status === 503) fieldError("form-error", t("err_full"));
  else fieldError("form-error", t("err_other", {detail}));
  return null;
}

const localUrl = url => url.replace(/^https?:\/\/[^/]+/, "");

function lobby() {
  $("lobby").hidden = false;
  $("nickname").value = nickname();
  renderSeatChoices();
  document.querySelectorAll("input[name=players]").forEach(r => { r.onchange = renderSeatChoices; });
  $("new-game").onsubmit = async e => {
    e.preventDefault();
    const level = $("level").value, room = await createRoom([null, level, level]);
    if (room) location.href = localUrl(room.seats[0].url);
  };
  $("with-friends").onclick = async () => {
    const room = await createRoom([null, null, $("level").value], {wait: true});
    if (room) location.href = localUrl(room.seats[0].url);
  };
  $("create").onclick = async () => {
    const seats = [null, ...[...$("seat-choices").querySelectorAll("select")].map(s => (s.value === "friend" ? null : s.value))];
    const people = seats.filter(x => x === null).length;
    const room = await createRoom(seats, {rules: chosenRules(), hands: +$("match-hands").value, wait: people > 1});
    if (room) location.href = localUrl(room.seats[0].url);
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
  if (waiting && !$("waiting").hidden) onLobby(waiting);
  if (!$("lobby").hidden) renderSeatChoices();
  if (!$("rules-page").hidden) renderRules($("rules-page"));
  if (!$("analysis-page").hidden) renderAnalysis($("analysis-page"));
  if (replaying && frames) { goTo(frameAt); if (review) renderReview(); }
}

function keys(e) {
  sound.unlock();
  if (e.target.matches?.("input, select, textarea") || e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.key === "Escape" && !$("settlement").hidden) { closeSettlement(); return; }
  if (replayKeys(e)) return;
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
  $("replay-first").onclick = () => goTo(0);
  $("replay-prev").onclick = () => goTo(frameAt - 1);
  $("replay-next").onclick = () => goTo(frameAt + 1);
  $("replay-last").onclick = () => goTo(frames.length - 1);
  $("replay-slider").oninput = () => goTo(+$("replay-slider").value);
  $("replay-seat").onchange = () => { viewSeat = +$("replay-seat").value; goTo(frameAt); };
  $("decision-prev").onclick = () => jumpDecision(false);
  $("decision-next").onclick = () => jumpDecision(true);
  $("review-start").onclick = startReview;
  $("replay-share").onclick = async () => {
    try { await navigator.clipboard.writeText(shareLink()); toast(t("copied")); } catch (e) { toast(shareLink(), 8000); }
  };
  $("say-open").onclick = () => {
    const menu = $("say-menu");
    menu.hidden = !menu.hidden;
    $("say-open").setAttribute("aria-expanded", String(!menu.hidden));
  };
  $("say-menu").addEventListener("click", e => {
    const b = e.target.closest("button[data-say]");
    if (!b) return;
    send({type: "say", what: b.dataset.say});
    $("say-menu").hidden = true;
    $("say-open").setAttribute("aria-expanded", "false");
  });
  $("save-name").onclick = () => sendName($("my-name").value);
  $("my-name").onkeydown = e => { if (e.key === "Enter") sendName($("my-name").value); };
  $("start-now").onclick = () => send({type: "start", bot: $("start-level").value});
  $("record-file").onchange = openFile;
  document.addEventListener("keydown", keys);
  document.addEventListener("pointerdown", sound.unlock);
  setInterval(tick, 200);
}

/** A record from the disk, replayed by the server into the same board. */
async function openFile() {
  const file = $("record-file").files[0];
  $("open-error").textContent = "";
  if (!file) return;
  if (file.size > 16000) { $("open-error").textContent = t("open_big"); return; }
  const response = await fetch("/api/replay", {method: "POST", headers: {"Content-Type": "application/json"}, body: await file.text()});
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    $("open-error").textContent = t("open_bad", {why: String(body.detail || response.status)});
    return;
  }
  $("open-record").hidden = true;
  startReplay(await response.json(), {room: "", n: 0, base: null, seats: null});
}

function start() {
  wire();
  refreshLanguage();
  const page = location.pathname;
  if (page === "/rules") { $("rules-page").hidden = false; renderRules($("rules-page")); return; }
  if (page === "/analysis") { $("analysis-page").hidden = false; renderAnalysis($("analysis-page")); return; }
  if (page === "/replay") { $("open-record").hidden = false; return; }
  const hand = page.match(/^\/room\/([\w-]+)\/hand\/(\d+)/);
  if (hand) { openReplay(hand[1], +hand[2]); return; }
  const path = page.match(/^\/room\/([\w-]+)/);
  if (!path) { lobby(); return; }
  roomId = path[1];
  // An invite carries its secret in the fragment (#token=…), which the browser never sends;
  // an older link's ?token= is moved there, out of the address bar and any Referer.
  const old = new URLSearchParams(location.search).get("token");
  token = new URLSearchParams(location.hash.slice(1)).get("token") || old;
  if (old) history.replaceState(null, "", location.pathname + "#token=" + encodeURIComponent(old));
  // A new link pasted over a refused one differs only in the fragment: the browser does not
  // load the page again, so the page does.
  addEventListener("hashchange", () => {
    if ((new URLSearchParams(location.hash.slice(1)).get("token") || null) !== (token || null)) location.reload();
  });
  connect();
}

start();

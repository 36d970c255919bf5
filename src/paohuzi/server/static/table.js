// The live table: the seats, the centre, the claims prompt (R8), 听牌, the timers and 托管, the
// cards' motion and sound, and the state frames as they come (onState).
import {t} from "./i18n.js";
import {cardEl, cardName, cardsName, cardsOf} from "./cards.js";
import * as sound from "./sound.js";
import {ui} from "./state.js";
import {$, avatarUrl, badge, claimsOf, describe, el, groupEl, handColumns, identity, isPerson, legalDiscards, me, mini, motion, myDecision, nameOf, played, position, rectOf, rowOf, seatCount, sitsOut, toast, who} from "./shared.js";
import {send} from "./connection.js";
import {renderHand} from "./hand.js";
import {openSettlement, renderReady, renderSettlement} from "./settlement.js";
import {keepBubbles, renderSayings} from "./sayings.js";
import {nickname, sendName} from "./lobby.js";
import {loadMe, mannerOf, mannersBox, ratingText, wantRatings} from "./hall.js";
import {lessonMove} from "./lesson.js";
import {puzzleMove} from "./puzzle.js";

function seatPanel(seat) {
  const s = ui.state, panel = el("section", "seat pos-" + position(seat));
  panel.dataset.seat = seat;
  // Whose decision it is: the seat to discard; on a card on offer, you when you are asked
  // (who else is asked is hidden, R8), and the seat that showed it is only marked.
  const deciding = !s.over && s.turn === seat && !s.offer && !(s.you !== null && myDecision() && seat !== s.you);
  if (deciding || (seat === s.you && myDecision())) panel.classList.add("turn");
  if (seat === s.you && myDecision()) panel.classList.add("deciding");
  if (!s.over && s.offer && s.turn === seat) panel.classList.add("showing");
  const head = el("header");
  const name = el("h3", "", who(seat));
  const avatar = s.seats[seat].avatar;
  if (Number.isInteger(avatar) && !s.seats[seat].bot) {  // a known player's face (issue 25)
    const img = el("img", "avatar small");
    img.src = avatarUrl(avatar);
    img.alt = "";
    head.appendChild(img);
  }
  head.appendChild(name);
  const player = s.seats[seat].bot ? null : s.seats[seat].player;
  if (player) {  // a known player: their rating in the room's family, and how you hold them
    panel.dataset.player = player;
    const rating = el("span", "rating", ratingText(player, s.family));
    rating.title = t("rating");
    head.appendChild(rating);
    const held = mannerOf(player);
    if (held !== "none") head.appendChild(badge(t(held === "mute" ? "muted_badge" : "blocked_badge"), held === "mute" ? "muted" : "blocked"));
  }
  if (seat === s.dealer) head.appendChild(badge(t("dealer"), "dealer", t("dealer_label")));
  if (s.auto[seat]) head.appendChild(badge(t("tuoguan_badge"), "auto"));
  if (sitsOut(seat)) head.appendChild(badge(t("sits_out"), "out"));
  if (s.over && isPerson(seat) && !ui.replaying && !(ui.lesson || ui.puzzle)) head.appendChild(badge(s.ready[seat] ? t("ready_badge") : t("not_ready"), s.ready[seat] ? "ready" : "unready"));
  if (player && seat !== s.you && !ui.replaying && ui.me && ui.me.id !== player) head.appendChild(mannersToggle(player));
  panel.appendChild(head);
  const info = el("p", "info");
  info.appendChild(el("span", "who", identity(seat)));
  const shown = (s.table_huxi[seat] || []).filter(h => h !== null && h !== undefined);
  const hiddenGroups = (s.table_huxi[seat] || []).length - shown.length;
  const stats = [
    [t("huxi"), shown.reduce((a, b) => a + b, 0) + (hiddenGroups ? "+?" : "")],
  ];
  // The match's score so far; a replay shows one hand, whose points are the settlement's.
  if (!ui.replaying && !(ui.lesson || ui.puzzle)) stats.unshift([t("total"), String(s.totals[seat])]);
  stats.forEach(([k, v]) => { const st = el("span", "stat"); st.append(el("small", "", k), el("b", "", v)); info.appendChild(st); });
  if (seat !== s.you && s.open_hands) {  // the replay board: every hand face up
    const open = el("div", "open-hand");
    open.setAttribute("aria-label", t("a_hand_of", {who: who(seat)}));
    open.append(...handColumns(s.open_hands[seat]));
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
  if (player && ui.mannersOpen === player && head.querySelector(".manners-open")) panel.appendChild(mannersBox(player, () => { ui.mannersOpen = null; renderSeats(); }));
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

/** The button that opens a player's 屏蔽发言 / 拉黑 under their panel's head. */
function mannersToggle(player) {
  const open = ui.mannersOpen === player;
  const b = el("button", "tool manners-open", t("manners_mark"));
  b.type = "button";
  b.setAttribute("aria-label", t("manners"));
  b.title = t("manners");
  b.setAttribute("aria-expanded", String(open));
  b.onclick = () => {
    ui.mannersOpen = open ? null : player;
    renderSeats();
    document.querySelector(`.seat[data-player="${CSS.escape(player)}"] ${open ? ".manners-open" : ".manners button"}`)?.focus();
  };
  return b;
}

function renderSeats() {
  const s = ui.state;
  // Your player (their mutes and blocks) is asked once another known player is here.
  if (!ui.mePromise && !ui.replaying && s.seats.some((x, n) => x.player && !x.bot && n !== s.you)) loadMe().then(() => { if (ui.state && !ui.replaying) renderSeats(); });
  if (!ui.replaying) wantRatings(s.seats, s.family, s.match ? s.match.no : 0);
  const box = $("seats");
  box.replaceChildren();
  box.dataset.n = seatCount();
  for (let seat = 0; seat < seatCount(); seat++) {
    if (seat === me()) $("me").replaceChildren(seatPanel(seat));
    else box.appendChild(seatPanel(seat));
  }
  keepBubbles();
}

/** Which hand this is, said alike in the header and the centre: "第1/4局" in a match of four,
 * the room's hand number in an open one, the record's in a replay. */
function handTitle() {
  const s = ui.state, m = s.match;
  if (!ui.replaying && m && m.length) return t("match_of", {i: Math.min(m.played + (s.over ? 0 : 1), m.length), n: m.length});
  return t("hand_no", {n: s.hand_no});
}

function renderCentre() {
  const s = ui.state;
  $("wall-count").textContent = t("wall") + " " + s.wall;
  const liang = $("liang");
  liang.replaceChildren(mini(s.liang), el("span", "", t("liang")));
  $("hand-no").textContent = handTitle();
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
  end.hidden = !s.over || ui.replaying;
  if (s.over) renderReady($("ready-bar"), $("ready-note"));
}

function statusText() {
  const s = ui.state;
  if (s.over) return t("st_over");
  if (ui.replaying) {
    const f = ui.frames[ui.frameAt];
    if (f.to_act === null) return "";
    return f.choices > 1 ? t("st_replay_decides", {who: nameOf(f.to_act), n: f.choices}) : t("st_replay_moves", {who: nameOf(f.to_act)});
  }
  if (s.you !== null && s.auto[s.you]) return t("st_auto");
  if (myDecision()) {
    if (legalDiscards().size) return t("st_discard");
    return s.offer ? t("st_claim", {card: cardName(s.offer, t)}) : t("st_selfhu");
  }
  const lead = s.you === null ? t("st_watch") + " · " : "";
  if (s.offer) return lead + t("st_wait_claims");
  if (s.turn !== null) return lead + t("st_wait_discard", {who: who(s.turn)});
  return lead;
}

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

/** The 吃 of a claim, one choice per result: two actions that lay the same groups on the table
 * (a 吃 and its 比 named in either order, R7) leave the same hand, so they are one choice, the
 * first standing for both (the engine's actions stay as they are). */
export function chiChoices(claims) {
  const seen = new Set();
  return claims.filter(a => {
    if (!a.startsWith("chi")) return false;
    const result = a.split(" ").slice(1).sort().join(" ");
    if (seen.has(result)) return false;
    seen.add(result);
    return true;
  });
}

function renderPrompt() {
  const p = $("prompt");
  p.replaceChildren();
  const claims = myDecision() ? claimsOf() : [];
  if (!claims.length) { p.hidden = true; ui.chiOpen = false; return; }
  p.hidden = false;
  p.setAttribute("aria-label", $("status").textContent);
  const row = el("div", "claims");
  const chis = chiChoices(claims);
  if (claims.includes("hu")) row.appendChild(claimButton("hu", t("glyph_hu"), t("act_hu"), "H"));
  if (claims.includes("peng")) row.appendChild(claimButton("peng", t("glyph_peng"), t("act_peng"), "P"));
  if (chis.length === 1) {
    const b = claimButton(chis[0], t("glyph_chi"), t("act_chi"), "C");
    b.appendChild(chiGroups(chis[0]));
    row.appendChild(b);
  } else if (chis.length) {
    const b = claimButton("chi-open", t("glyph_chi"), t("act_chi"), "C");
    b.setAttribute("aria-expanded", String(ui.chiOpen));
    row.appendChild(b);
  }
  if (claims.includes("pass")) row.appendChild(claimButton("pass", t("glyph_pass"), t("act_pass"), "G"));
  p.appendChild(row);
  if (ui.chiOpen && chis.length > 1) {
    const options = el("div", "chi-options");
    options.appendChild(el("p", "", t("chi_choose")));
    chis.forEach((a, i) => {
      const b = el("button", "chi-option");
      b.type = "button"; b.dataset.action = a;
      if (i < 9) { b.appendChild(el("kbd", "", String(i + 1))); b.setAttribute("aria-keyshortcuts", String(i + 1)); }
      b.appendChild(chiGroups(a));
      b.setAttribute("aria-label", t("act_chi") + " " + a.split(" ").slice(1).map(g => cardsName(cardsOf(g), t)).join(" " + t("bi") + " "));
      options.appendChild(b);
    });
    p.appendChild(options);
  }
  p.appendChild(el("p", "keys", t("keys")));
}

export function choose(action) {
  if (action === "chi-open") {
    ui.chiOpen = !ui.chiOpen;
    renderPrompt();
    const first = $("prompt").querySelector(".chi-option");
    if (first) first.focus();
    return;
  }
  act(action);
}

export function act(action) {
  if (!ui.state || !ui.state.legal.includes(action)) return;
  if (ui.lesson) { lessonMove(action); return; }  // a lesson's move is judged in the page
  if (ui.puzzle) { puzzleMove(action); return; }  // a puzzle's, by the server (puzzle.js)
  send({type: "act", action, seq: ui.state.seq});
  const kind = action.split(" ")[0];
  ui.claimed = ["chi", "peng", "hu"].includes(kind) ? {kind, hand: ui.state.hand_no} : null;
  ui.chiOpen = false;
  $("prompt").hidden = true;
}

const TAKES = ["chi", "peng", "pao", "hu"];

/** A claim of yours that another seat's higher claim took the card from (R8: 胡 over 碰 and
 * 跑 over 吃) is said, not left to be guessed from the table. */
function noticeLostClaim(fresh) {
  const claimed = ui.claimed;
  if (!claimed || claimed.hand !== ui.state.hand_no) { ui.claimed = null; return; }
  for (const e of fresh) {
    if (e.seat === ui.state.you && (e.event === claimed.kind || (claimed.kind === "hu" && e.event === "hu"))) {
      ui.claimed = null;  // yours went through
      return;
    }
    if (e.seat !== ui.state.you && TAKES.includes(e.event)) {
      ui.claimed = null;
      toast(t("claim_lost", {mine: t("act_" + claimed.kind), who: who(e.seat), theirs: t("act_" + e.event)}), 5000);
      return;
    }
    if (["draw", "show", "discard", "passed", "huangzhuang"].includes(e.event)) { ui.claimed = null; return; }
  }
}

export function renderTing() {
  const box = $("ting");
  box.replaceChildren();
  if (!ui.hint || ui.state.over) return;
  box.appendChild(el("span", "huxi-now", t("huxi_now", {n: ui.hint.huxi})));
  if (!ui.hint.waits.length) return;
  box.appendChild(el("b", "", t("ting")));
  ui.hint.waits.forEach(w => {
    const item = el("span", "wait");
    item.append(mini(w.win), el("small", "", t("left_n", {n: w.left}) + " · " + t("huxi_n", {n: w.huxi}) + " · " + t("pts", {n: w.score})));
    box.appendChild(item);
  });
}

function askHint() {
  if (ui.state.you === null || ui.state.over || ui.replaying) { ui.hint = null; return; }
  const key = ui.state.room + ui.state.hand_no + ui.state.hand + ui.state.tables[ui.state.you].join() + ui.state.discards.join() + ui.state.tables.flat().join();
  if (key === ui.hintKey) return;
  ui.hintKey = key;
  send({type: "hint"});
}

function renderAuto() {
  const s = ui.state, mine = s.you !== null, on = mine && s.auto[s.you];
  // The 托管 a timeout began says what the timer played, beside the way back (D116).
  const told = on && s.timed_out[s.you];
  $("auto-bar").hidden = !on;
  $("auto-bar").classList.toggle("timed-out", !!told);
  $("auto-note").textContent = told ? t("timed_out_you", {action: played(told.action)}) : t("tuoguan_on");
  $("auto-on").hidden = !mine || s.auto[s.you] || s.over || ui.replaying || !!(ui.lesson || ui.puzzle);
  $("auto-on").title = t("tuoguan_title");
}

/** A touch of a card or a press of a button at the table while on 托管 takes back control:
 * the page asks (once a connection, until 托管 is off), the server decides (D116). */
export function takeBack() {
  const s = ui.state;
  if (!s || ui.replaying || s.you === null || !s.auto[s.you] || ui.takingBack === ui.socket) return;
  ui.takingBack = ui.socket;
  send({type: "auto", on: false});
}

function trackTimers() {
  const s = ui.state, now = performance.now();
  ui.deadlineAt = s.deadline !== null && s.deadline !== undefined && !s.auto[s.you] ? now + s.deadline * 1000 : null;
  const key = s.hand_no + ":" + s.events.length + ":" + s.turn;
  const someoneDiscards = !s.over && !s.offer && s.turn !== null && s.turn !== s.you &&
    isPerson(s.turn) && !s.auto[s.turn] && s.timer > 0;
  if (!someoneDiscards) ui.othersAt = null;
  else if (key !== ui.othersKey) ui.othersAt = now + s.timer * 1000;  // from when we saw it: near enough
  ui.othersKey = key;
}

export function tick() {
  if (!ui.state) return;
  const now = performance.now(), bar = $("timebar");
  if (ui.deadlineAt !== null && myDecision()) {
    const left = Math.max(0, (ui.deadlineAt - now) / 1000);
    bar.hidden = false;
    bar.querySelector("i").style.transform = `scaleX(${left / Math.max(1, ui.state.timer)})`;
    bar.querySelector("span").textContent = left > 0 ? t("timer_s", {s: Math.ceil(left)}) : t("time_up");
    bar.classList.toggle("low", left <= 5);
    const whole = Math.ceil(left);
    if (left <= 5 && whole !== ui.lastTick && whole > 0) { ui.lastTick = whole; sound.play("tick"); }
  } else bar.hidden = true;
  const other = ui.othersAt !== null && document.querySelector(`.seat[data-seat="${ui.state.turn}"] .countdown i`);
  if (other) other.style.transform = `scaleX(${Math.max(0, (ui.othersAt - now) / 1000 / Math.max(1, ui.state.timer))})`;
}

function noticeTimeouts(first) {
  ui.state.timed_out.forEach((found, seat) => {
    const key = ui.state.room + ":" + seat;
    if (!found || ui.toldTimeouts[key] === found.n) return;
    ui.toldTimeouts[key] = found.n;
    if (first || seat === ui.state.you) return;  // yours stays said on the 托管 bar
    toast(t("timed_out_other", {who: who(seat), action: played(found.action)}), 6000);
  });
}

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
  b.replaceChildren(el("b", "", t(r.winner === null ? "banner_draw" : "banner_hu")), el("span", "", r.winner === null ? t("settle_draw") :
    (r.winner === ui.state.you ? t("settle_you") : t("settle_win", {who: who(r.winner)}))));
  b.classList.toggle("draw", r.winner === null);
  b.hidden = false;
  setTimeout(() => { b.hidden = true; }, motion() ? 1300 : 900);
}

const CLAIM_GLYPH = {chi: "glyph_chi", peng: "glyph_peng", wei: "glyph_wei", chouwei: "glyph_wei", pao: "glyph_pao", ti: "glyph_ti"};

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
        if (e.seat === ui.state.you) sfx = sfx || "draw";
        fly(null, wall, e.seat === ui.state.you ? cardBox(rectOf($("hand"))) : seatRect(e.seat), delay, true); break;
      case "discard":
        fly(e.card, e.seat === ui.state.you && ui.lastDiscardRect ? ui.lastDiscardRect : seatRect(e.seat), offerNow, delay);
        sfx = "discard"; break;
      case "passed": {
        const row = panel && panel.querySelector(".discards");
        fly(e.card, before.offer, rectOf(row && row.lastElementChild), delay); break;
      }
      case "chi": case "peng": case "wei": case "chouwei": case "pao": case "ti": {
        const group = panel && panel.querySelector(".groups .group:last-child .card:last-child");
        fly(e.event === "wei" && e.seat !== ui.state.you ? null : e.card, before.offer || seatRect(e.seat), rectOf(group), delay, e.event === "wei" && e.seat !== ui.state.you);
        flash(t(CLAIM_GLYPH[e.event]), e.seat);
        sfx = e.event === "chouwei" ? "wei" : e.event; break;
      }
      case "hu": sfx = "hu"; break;
      default: break;
    }
  });
  if (sfx) sound.play(sfx);
  ui.lastDiscardRect = null;
}

export function render() {
  const s = ui.state;
  $("table").hidden = false;
  $("lobby").hidden = true;
  $("waiting").hidden = true;
  $("problem").hidden = true;
  $("table").dataset.n = seatCount();
  $("table").classList.toggle("watching", s.you === null);
  const m = s.match, round = m && m.no > 1 ? t("match_no", {n: m.no}) + " · " : "";
  $("where").textContent = ui.replaying ? t("replay_title", {n: s.hand_no}) : round + handTitle() + (s.you === null ? " · " + t("st_watch") : "");
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
  log.replaceChildren(...ui.state.events.slice(-200).map(e => el("li", "", describe(e))));
  log.scrollTop = log.scrollHeight;
}

export function onState(m) {
  if (!ui.state && m.you !== null && m.seats[m.you] && !m.seats[m.you].name && nickname()) sendName(nickname());
  ui.waiting = null;
  const before = {offer: rectOf($("offer-slot").querySelector(".card"))};
  const old = ui.state;
  const key = m.room + ":" + m.hand_no;
  if (m.commitment && !(key in ui.seenCommitments)) ui.seenCommitments[key] = m.commitment;
  ui.state = m;
  if (m.you === null || !m.auto[m.you]) ui.takingBack = null;
  if (!old || old.hand_no !== m.hand_no) { ui.hint = null; ui.chiOpen = false; }
  trackTimers();
  render();
  askHint();
  noticeTimeouts(!old);
  const sameHand = old && old.hand_no === m.hand_no && old.room === m.room;
  const fresh = sameHand ? m.events.slice(old.events.length) : [];
  noticeLostClaim(fresh);
  animate(before, fresh);
  const wasMine = old && old.you !== null && old.legal.length > 0 && old.seq === m.seq;
  if (myDecision() && !wasMine && !fresh.some(e => e.event === "discard" && e.seat === m.you)) sound.play("turn");
  if (m.over && ui.settleFor !== key) {
    ui.settleFor = key;
    const late = !sameHand;  // reconnected to a finished hand: no banner, straight to it
    if (!late && m.result) huBanner(m.result);
    clearTimeout(ui.settleTimer);
    ui.settleTimer = setTimeout(openSettlement, late ? 0 : (motion() ? 1400 : 1000));
  }
}

/** Asks for the finished hands again at most this many times for one hand: 1 s later, then
 * 2, 4, 8, 16, 32 s (about a minute in all). */
const HISTORY_TRIES = 6;
/** The most hands the table lists: the newest of the room's finished hands, a page of the
 * server's default size (a server configured with a smaller history_page lists the older
 * part of them, and a table whose hand just finished is not among them asks again
 * HISTORY_TRIES times). */
const HISTORY_PAGE = 100;

/** The room's newest finished hands (HISTORY_PAGE at most), whenever the table changes hand
 * (and after a reload). A list that failed (a busy server's 429 or 503, the network) or that
 * lacks the hand just finished is asked for again while the table stays on that hand
 * (HISTORY_TRIES). */
export async function loadHistory(retrying = false) {
  if (!ui.state || ui.replaying || !ui.roomId) return;
  const {room, hand_no: handNo, over} = ui.state;
  const key = room + ":" + handNo + ":" + over;
  if (key === ui.historyKey && !retrying) return;
  if (key !== ui.historyKey) ui.historyTries = 0;
  ui.historyKey = key;
  clearTimeout(ui.historyTimer);
  const retry = () => {
    if (ui.historyTries >= HISTORY_TRIES) return;
    clearTimeout(ui.historyTimer);  // one timer a table, even with two answers coming
    ui.historyTimer = setTimeout(() => loadHistory(true), 1000 * 2 ** ui.historyTries++);
  };
  // hand_no counts from 1, a stored hand's n from 0: the newest finished hand is the one
  // being played's predecessor, or the hand itself once it is over.
  const newest = over ? handNo - 1 : handNo - 2;
  const after = newest - HISTORY_PAGE;  // hands numbered above it: the newest page
  let list = null;
  try {
    const reply = await fetch("/api/rooms/" + room + "/hands" + (after >= 0 ? "?after=" + after : ""));
    if (reply.ok) list = await reply.json();
  } catch (e) { list = null; }
  if (ui.historyKey !== key || ui.replaying) return;  // the table moved on meanwhile
  if (!Array.isArray(list)) return retry();
  if (over && !list.some(h => h.n === newest)) retry();
  const ol = $("history");
  if (!list.length) { ol.replaceChildren(el("li", "empty", t("history_empty"))); return; }
  ol.replaceChildren(...list.map(h => {
    const li = el("li");
    const a = el("a", "replay-link", t("replay_hand", {n: h.n + 1}));
    a.href = "/room/" + room + "/hand/" + h.n;
    a.target = "_blank";
    const winner = h.winner === null ? t("replay_draw") : t("replay_winner", {who: nameOf(h.winner)});
    li.append(a, " " + winner + (h.winner === null ? "" : " · " + t("huxi_n", {n: h.huxi}) + " · " + t("score_n", {n: h.score})));
    return li;
  }));
}

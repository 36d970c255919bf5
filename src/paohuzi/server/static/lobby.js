// The lobby (a new game, friends, house rules) and the waiting room (who has come, invites,
// names), with the bots this server offers.
import {t} from "./i18n.js";
import {qrSvg} from "./qr.js";
import {ui} from "./state.js";
import {$, badge, botName, el, playerName, toast} from "./shared.js";
import {send} from "./connection.js";
import {hallLobby, nameBeforeRoom} from "./hall.js";

export function onLobby(m) {
  ui.waiting = m;
  ui.state = null;
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
    const label = s.bot ? botName(s.bot) : playerName(s.name) || t("player");
    li.append(el("b", "", t("seat_n", {n: seat + 1}) + (seat === m.you ? " · " + t("you") : "") + (seat === m.host ? " · " + t("host") : "")), " " + label + " ",
      badge(s.joined ? t("arrived") : t("not_arrived"), s.joined ? "ready" : "unready"));
    return li;
  }));
  // Who has not come, but this page's own seat: its link is your secret, never an invite (a
  // lobby message may come before your own arrival is counted).
  const missing = m.seats.map((s, seat) => seat).filter(seat => !m.seats[seat].joined && seat !== m.you);
  if (ui.renewing && !missing.includes(ui.renewing.seat)) ui.renewing = null;  // taken meanwhile
  const ul = $("invite-list");
  // A redraw keeps the focus where it was (a keyboard user on the invite list's buttons).
  const focused = ul.contains(document.activeElement) ? document.activeElement : null;
  const keep = focused && [focused.closest(".invite-item")?.querySelector("a.invite")?.getAttribute("href"), focused.classList[1]];
  ul.replaceChildren();
  if (invites) invites.seats.filter(s => s.url && missing.includes(s.seat)).forEach(s => ul.appendChild(inviteItem(s)));
  $("invites").hidden = !ul.childElementCount;
  if (keep) [...ul.querySelectorAll(".invite-item")].find(li => li.querySelector("a.invite")?.getAttribute("href") === keep[0])?.querySelector("button." + keep[1])?.focus();
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
  if (ui.waiting && ui.token && ui.waiting.you !== null && ui.waiting.you === ui.waiting.host && s.seat !== ui.waiting.host) text.appendChild(renewBox(s));
  li.append(text, qrSvg(s.url, t("qr_label", {n: s.seat + 1})));
  return li;
}

/** "New link", asked once more (the old link stops working), then done. The question open
 * (ui.renewing, one seat's at a time) is drawn from the state, so it outlives the waiting
 * room's redraws (a friend arriving). */
function renewBox(s) {
  const box = el("div", "renew");
  box.dataset.seat = s.seat;
  const open = ui.renewing && ui.renewing.seat === s.seat ? ui.renewing : null;
  const redraw = focus => {
    onLobby(ui.waiting);
    $("invite-list").querySelector(`.renew[data-seat="${s.seat}"] .${focus}`)?.focus();
  };
  if (!open) {
    const ask = el("button", "tool renew-ask", t("renew"));
    ask.type = "button";
    ask.onclick = () => { ui.renewing = {seat: s.seat, busy: false, failed: ""}; redraw("renew-no"); };
    box.appendChild(ask);
    return box;
  }
  const note = el("span", "renew-note", open.failed || t("renew_confirm", {n: s.seat + 1}));
  const yes = el("button", "tool renew-yes", t("renew_yes"));
  const no = el("button", "tool renew-no", t("renew_no"));
  yes.type = no.type = "button";
  yes.disabled = no.disabled = open.busy;
  no.onclick = () => { ui.renewing = null; redraw("renew-ask"); };
  yes.onclick = () => { open.busy = true; yes.disabled = no.disabled = true; renew(s.seat, open); };
  box.append(note, yes, no);
  return box;
}

async function renew(seat, open) {
  const room = ui.waiting.room;
  let response, body = {};
  try {
    response = await fetch("/api/rooms/" + encodeURIComponent(room) + "/seats/" + seat + "/link",
      {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({token: ui.token})});
    body = await response.json().catch(() => ({}));
  } catch (e) { response = null; }
  if (!response || !response.ok) {
    open.busy = false;
    open.failed = t("renew_failed", {why: response ? String(body.detail || response.status) : t("err_network")});
    if (ui.waiting && ui.waiting.room === room) {
      onLobby(ui.waiting);
      $("invite-list").querySelector(`.renew[data-seat="${seat}"] .renew-yes`)?.focus();
    }
    return;
  }
  if (ui.renewing === open) ui.renewing = null;
  const key = "paohuzi.invites." + room;
  const invites = JSON.parse(localStorage.getItem(key) || "null");
  if (invites) {
    invites.seats = invites.seats.map(s => s.seat === seat ? {...s, token: body.token, url: body.url} : s);
    localStorage.setItem(key, JSON.stringify(invites));
  }
  if (ui.waiting && ui.waiting.room === room) onLobby(ui.waiting);
  toast(t("renewed", {n: seat + 1}));
  // The new link's copy button, where the one pressed was.
  [...$("invite-list").querySelectorAll(".invite-item")].find(li => li.querySelector("a.invite")?.getAttribute("href") === body.url)
    ?.querySelector("button.copy")?.focus();
}

export const nickname = () => localStorage.getItem("paohuzi.name") || "";

// ------------------------------------------------------------------ my rooms

const MY_ROOMS = "paohuzi.rooms", KEEP_ROOMS = 12, SHOW_ROOMS = 6;

/** The rooms this browser sat at or watched, the newest first: {room, token, seat, at}. */
function myRooms() {
  try {
    const found = JSON.parse(localStorage.getItem(MY_ROOMS) || "[]");
    return Array.isArray(found) ? found.filter(r => r && typeof r.room === "string") : [];
  } catch (e) { return []; }
}

/** Remember a room the page has a state of (a seat's, with its secret, or a spectator's), so
 * the lobby can take the player back to it. */
export function rememberRoom(room, token, seat) {
  const kept = myRooms().filter(r => !(r.room === room && (r.token || null) === (token || null)));
  kept.unshift({room, token: token || null, seat: seat ?? null, at: Date.now()});
  localStorage.setItem(MY_ROOMS, JSON.stringify(kept.slice(0, KEEP_ROOMS)));
}

/** The lobby's list of my rooms still open, each with a link back to its table. */
export async function renderMyRooms() {
  const list = $("my-rooms-list");
  const rooms = myRooms().slice(0, SHOW_ROOMS);
  const items = await Promise.all(rooms.map(async r => {
    let info = null;
    try {
      const response = await fetch("/api/rooms/" + encodeURIComponent(r.room));
      if (response.ok) info = await response.json();
    } catch (e) { info = null; }
    if (!info) return null;  // closed (idle, ended): nothing to go back to
    const li = el("li", "my-room");
    const link = el("a", "button", t("my_room_back"));
    link.href = "/room/" + encodeURIComponent(r.room) + (r.token ? "#token=" + encodeURIComponent(r.token) : "");
    const names = info.seats.map(s => s.bot ? botName(s.bot) : playerName(s.name) || t("player")).join(t("list_sep"));
    const where = r.seat === null ? t("my_room_watch") : t("my_room_seat", {n: r.seat + 1});
    const how = info.waiting ? t("my_room_waiting") : t("my_room_hands", {n: info.hands + 1});
    li.append(el("span", "", where + " · " + how + " · " + names + " "), link);
    return li;
  }));
  const shown = items.filter(Boolean);
  list.replaceChildren(...shown);
  $("my-rooms").hidden = !shown.length;
}

// ------------------------------------------------------------------ an invite's name

/** An invite opened where no nickname is known, to a room still waiting for its people: the
 * page asks the name before the seat sits down, so the others meet the friend by it (the
 * hello brings it). Resolves when answered (or at once: nothing to ask). */
export async function askName() {
  // Not the host, who had the lobby's nickname field (the room was made in this browser).
  if (!ui.token || nickname() || localStorage.getItem("paohuzi.invites." + ui.roomId)) return;
  try {
    const response = await fetch("/api/rooms/" + encodeURIComponent(ui.roomId));
    if (!response.ok || !(await response.json()).waiting) return;
  } catch (e) { return; }
  $("name-ask").hidden = false;
  $("where").textContent = t("waiting_title");
  $("ask-name").focus();
  await new Promise(done => {
    $("ask-form").onsubmit = e => {
      e.preventDefault();
      const name = $("ask-name").value.trim();
      if (name) localStorage.setItem("paohuzi.name", name);
      done();
    };
    $("ask-skip").onclick = () => done();
  });
  $("name-ask").hidden = true;
}

export function sendName(value) {
  const name = value.trim();
  if (!name) return;
  localStorage.setItem("paohuzi.name", name);
  send({type: "name", name});
}

const botLabel = level => { const key = "lvl_" + level, text = t(key); return text === key ? level : text; };

/** The bots this server offers (GET /api/bots, the operator's --offer-bots) in the level
 * choices; the built-ins until it answers. */
export function loadBots() {
  fetch("/api/bots").then(r => r.ok ? r.json() : null).then(data => {
    if (!data || !Array.isArray(data.bots) || !data.bots.length) return;
    ui.botLevels = data.bots;
    for (const id of ["level", "start-level", "quick-level"]) {
      const select = $(id);
      if (!select) continue;
      const before = select.value;
      select.replaceChildren(...ui.botLevels.map(level => { const o = el("option", "", botLabel(level)); o.value = level; return o; }));
      select.value = ui.botLevels.includes(before) ? before : ui.botLevels[0];
    }
    if ($("seat-choices") && document.querySelector("input[name=players]:checked")) renderSeatChoices();
  }).catch(() => {});
}

export function renderSeatChoices() {
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
    ui.botLevels.forEach(level => { const o = el("option", "", botLabel(level)); o.value = level; select.appendChild(o); });
    const fallback = seat === 1 ? "friend" : ui.botLevels[0];
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

const HOUSE = "paohuzi.house";

/** The house rule set of the last new game made with one, kept for 快速开始; seats apart
 * (quick play chooses its own). */
function saveHouseRules(rules) {
  const {players, ...kept} = rules;
  if (Object.keys(kept).length > 1) localStorage.setItem(HOUSE, JSON.stringify(kept));
}

/** The saved house rule set (an object with its preset), or null. */
export function houseRules() {
  try {
    const found = JSON.parse(localStorage.getItem(HOUSE) || "null");
    return found && typeof found === "object" && typeof found.preset === "string" ? found : null;
  } catch (e) { return null; }
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
  // Against computers only nobody waits for you: no timer unless asked for (D116).
  const timed = bots.slice(1).includes(null) || $("bots-timer").checked;
  const timer = timed ? Number($("timer").value) : 0;
  if (!Number.isInteger(timer) || (timer !== 0 && (timer < 5 || timer > 300))) {
    fieldError("timer-error", t("err_timer"));
    $("timer").focus();
    return null;
  }
  const name = $("nickname").value.trim();
  if (name) localStorage.setItem("paohuzi.name", name);
  if (!(await nameBeforeRoom())) return null;  // the player's name is the seat's (issue 25)
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

export function lobby() {
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
    // One friend and a bot, or two friends: the room waits for them (their invites).
    const bots = $("friends").value === "2" ? [null, null, null] : [null, null, $("level").value];
    const room = await createRoom(bots, {wait: true});
    if (room) location.href = localUrl(room.seats[0].url);
  };
  renderMyRooms();
  hallLobby();
  $("create").onclick = async () => {
    const seats = [null, ...[...$("seat-choices").querySelectorAll("select")].map(s => (s.value === "friend" ? null : s.value))];
    const people = seats.filter(x => x === null).length;
    const rules = chosenRules();
    const room = await createRoom(seats, {rules, hands: +$("match-hands").value, wait: people > 1});
    if (room && typeof rules === "object") saveHouseRules(rules);
    if (room) location.href = localUrl(room.seats[0].url);
  };
}

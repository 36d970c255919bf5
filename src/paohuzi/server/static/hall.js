// The hall of strangers (issue 25): who you are here (GET/PATCH /api/me: nickname, avatar),
// 快速开始 and its waiting panel (/api/quick), the open tables to join or watch
// (/api/tables), a player's profile (/player/{id}) and the leaderboard (/leaderboard).
// Every name is set with textContent; a request that changes something goes with the
// page's own cookie and Origin (fetch's same-origin default), which the server checks.
import {lang, t} from "./i18n.js";
import {ui} from "./state.js";
import {$, avatarUrl, botName, el, playerName, toast} from "./shared.js";
import {houseRules, rememberRoom} from "./lobby.js";

const QUICK_POLL = 2000, TABLES_POLL = 5000, FAMILIES = ["hunan", "luzhou"];
const SVG = "http://www.w3.org/2000/svg";

/** A JSON request: {ok, status, body}; status 0 when the server could not be reached. */
async function api(method, path, body) {
  const init = {method, headers: body === undefined ? {} : {"Content-Type": "application/json"}};
  if (body !== undefined) init.body = JSON.stringify(body);
  try {
    const response = await fetch(path, init);
    return {ok: response.ok, status: response.status, body: await response.json().catch(() => ({}))};
  } catch (e) {
    return {ok: false, status: 0, body: {}};
  }
}

/** Why a request was refused, in the page's words. */
function refusal(r) {
  if (r.status === 0) return t("err_network");
  if (r.status === 429) return t("err_busy");
  if (r.status === 503) return t("err_full");
  return t("err_other", {detail: String(r.body.detail || r.status)});
}

const localUrl = url => url.replace(/^https?:\/\/[^/]+/, "");

function avatarImg(n, cls = "avatar") {
  const img = el("img", cls);
  img.src = avatarUrl(n);
  img.alt = "";
  return img;
}

const familyName = family => t("fam_" + String(family).split("/")[0]);

// ------------------------------------------------------------------ me

let nameEdited = false;

/** The visitor's player (made by the first GET /api/me, with its cookie). */
export function loadMe() {
  ui.mePromise = api("GET", "/api/me").then(r => {
    if (r.ok) { ui.me = r.body; showMe(); }
    ui.meRefused = r.ok ? null : r;
    return ui.me;
  });
  return ui.mePromise;
}

function showMe() {
  const me = ui.me;
  if (!me || !$("me-card")) return;
  $("my-avatar").src = avatarUrl(me.avatar);
  $("my-profile").href = "/player/" + encodeURIComponent(me.id);
  // What the visitor typed before the answer came stays.
  if (!nameEdited && document.activeElement !== $("nickname")) $("nickname").value = me.name;
  const picker = $("avatar-picker");
  picker.replaceChildren(...Array.from({length: me.avatars || 12}, (_, n) => {
    const b = el("button", "avatar-choice");
    b.type = "button";
    b.dataset.avatar = n;
    b.setAttribute("aria-label", t("avatar_n", {n: n + 1}));
    b.setAttribute("aria-pressed", String(n === me.avatar));
    b.appendChild(avatarImg(n));
    return b;
  }));
}

/** Change the player's name or avatar; true when the server took it. */
async function saveMe(change) {
  $("name-error").textContent = "";
  await ui.mePromise;  // the page's first look at its player makes it (with its cookie)
  const r = await api("PATCH", "/api/me", change);
  if (r.ok) {
    ui.me = {...ui.me, ...r.body};
    nameEdited = false;
    if (ui.me.name) localStorage.setItem("paohuzi.name", ui.me.name);
    showMe();
    return true;
  }
  $("name-error").textContent = r.status === 422 ? t("err_name") : t("err_me", {why: refusal(r)});
  return false;
}

/** The lobby's nickname made the player's before a room is made (a seat a player opens
 * takes the player's name); false when the server refused it (said beside the field). */
export async function nameBeforeRoom() {
  await ui.mePromise;
  const name = $("nickname").value.trim();
  if (!ui.me || !name || name === ui.me.name) return true;
  return saveMe({name});
}

function wireMe() {
  $("nickname").addEventListener("input", () => { nameEdited = true; });
  const save = () => { const name = $("nickname").value.trim(); if (name) saveMe({name}).then(ok => { if (ok) $("save-me").textContent = t("saved_me"); }); };
  $("save-me").onclick = save;
  $("nickname").addEventListener("keydown", e => { if (e.key === "Enter") { e.preventDefault(); save(); } });
  $("nickname").addEventListener("input", () => { $("save-me").textContent = t("save_me"); });
  $("transfer-start").onclick = startTransfer;
  $("claim-open").onclick = () => {
    const form = $("claim-form");
    form.hidden = !form.hidden;
    $("claim-open").setAttribute("aria-expanded", String(!form.hidden));
    if (!form.hidden) $("claim-code").focus();
  };
  $("claim-form").onsubmit = claimCode;
  $("avatar-open").onclick = () => {
    const picker = $("avatar-picker");
    picker.hidden = !picker.hidden;
    $("avatar-open").setAttribute("aria-expanded", String(!picker.hidden));
  };
  $("avatar-picker").addEventListener("click", async e => {
    const b = e.target.closest("button[data-avatar]");
    if (!b) return;
    if (await saveMe({avatar: +b.dataset.avatar})) {
      $("avatar-picker").hidden = true;
      $("avatar-open").setAttribute("aria-expanded", "false");
      $("avatar-open").focus();
    }
  });
}

/** A one-time code for another device, shown once, with how long it may be used. */
async function startTransfer() {
  $("transfer-error").textContent = "";
  await ui.mePromise;  // a first visit's player (and cookie) is made by that look
  const r = await api("POST", "/api/me/transfer");
  if (!r.ok) { $("transfer-error").textContent = refusal(r); return; }
  const code = String(r.body.code), shown = code.match(/.{1,4}/g).join(" ");
  const box = $("transfer-code");
  box.replaceChildren(el("span", "", t("transfer_code") + " "), el("b", "code", shown),
    el("span", "note", t("transfer_until", {n: Math.round(r.body.expires_in / 60)})));
  box.hidden = false;
}

/** This browser becomes the code's player: the server sets its cookie; the player is read anew.
 * The page's first look at its player is awaited first: when that look makes a new player, its
 * answer sets a cookie too, and coming after the claim's it would undo the claim. */
async function claimCode(e) {
  e.preventDefault();
  $("claim-error").textContent = "";
  const code = $("claim-code").value.trim();
  if (!code) { $("claim-code").focus(); return; }
  if (ui.mePromise) await ui.mePromise.catch(() => null);
  const r = await api("POST", "/api/me/claim", {code});
  if (!r.ok) {
    $("claim-error").textContent = r.status === 404 ? t("err_claim") : refusal(r);
    return;
  }
  nameEdited = false;
  $("nickname").value = "";
  await loadMe();
  if (ui.me && ui.me.name) localStorage.setItem("paohuzi.name", ui.me.name);
  $("claim-code").value = "";
  $("claim-form").hidden = true;
  $("claim-open").setAttribute("aria-expanded", "false");
  toast(t("claimed", {name: playerName(ui.me.name) || t("player")}));
  refreshTables();
}

// ------------------------------------------------------------------ quick play

function showQuick(status) {
  ui.quick = status;
  clearTimeout(ui.quickTimer);
  const waiting = status.state === "waiting", seated = status.state === "seated";
  $("quick-form").hidden = waiting || seated;
  $("quick-wait").hidden = !(waiting || seated);
  if (seated) {
    $("quick-state").textContent = t("quick_seated");
    $("quick-what").textContent = $("quick-fill-note").textContent = "";
    takeSeat(status);
    return;
  }
  if (!waiting) return;
  renderWaiting();
  ui.quickTimer = setTimeout(pollQuick, QUICK_POLL);
}

/** The waiting panel: what is waited for, how long, and when computers come. */
export function renderWaiting() {
  const q = ui.quick;
  if (!q || q.state !== "waiting" || $("quick-wait").hidden) return;
  const now = Date.now() / 1000;
  const preset = typeof q.rules === "string" && q.rules.startsWith("{") ? JSON.parse(q.rules).preset : q.rules;
  $("quick-state").textContent = t("quick_looking");
  $("quick-what").textContent = t("quick_what", {rules: familyName(preset), seats: t("seats_" + q.seats)}) + " · " + t("quick_waited", {n: Math.max(0, Math.round(now - q.since))});
  const level = botName(q.fill_level);
  const note = q.eligible > now + 1 ? t("quick_later", {n: Math.ceil(q.eligible - now)})
    : q.fill_at > now ? t("quick_fill_in", {n: Math.ceil(q.fill_at - now), level}) : t("quick_filling", {level});
  $("quick-fill-note").textContent = note;
}

let quickAsked = 0;
/** A question to the queue whose answer is shown only if no later one was asked meanwhile: a
 * poll's "waiting" that comes back after a cancel, or the page's first "none" after a join,
 * would show the queue as it no longer is. Null for such a stale answer. */
async function askQuick(method, body) {
  const mine = ++quickAsked;
  const r = await api(method, "/api/quick", body);
  return mine === quickAsked ? r : null;
}

async function pollQuick() {
  const r = await askQuick("GET");
  if (!r) return;
  if (!r.ok) { ui.quickTimer = setTimeout(pollQuick, QUICK_POLL * 2); return; }  // a busy server: ask later
  showQuick(r.body);
}

/** The seat the queue found: remembered (the lobby's "my rooms"), the queue told to forget
 * it (else the next lobby would go back to it), and opened as an invite is. */
async function takeSeat(status) {
  rememberRoom(status.room, status.token, status.seat);
  await api("DELETE", "/api/quick");
  location.href = localUrl(status.url);
}

/** The saved house rule set (the last new game's), when there is one, as a third choice. */
export function renderQuickRules() {
  const house = houseRules();
  if (!house) return;
  const o = $("quick-rules").querySelector("option[value=house]") || $("quick-rules").appendChild(el("option"));
  o.value = "house";
  o.textContent = t("quick_house", {rules: familyName(house.preset)});
}

async function startQuick(e) {
  e.preventDefault();
  $("quick-error").textContent = "";
  if (!(await nameBeforeRoom())) return;
  const seats = +$("quick-seats").value;
  const choice = $("quick-rules").value, rules = choice === "house" ? houseRules() || "hunan" : choice;
  const r = await askQuick("POST", {rules, seats, fill_after: +$("quick-fill").value, fill_level: $("quick-level").value});
  if (!r) return;
  if (!r.ok) { $("quick-error").textContent = refusal(r); return; }
  showQuick(r.body);
}

async function cancelQuick() {
  clearTimeout(ui.quickTimer);
  const r = await askQuick("DELETE");
  if (!r) return;
  if (!r.ok) { $("quick-error").textContent = refusal(r); }
  showQuick({state: "none"});
  $("quick-start").focus();
}

// ------------------------------------------------------------------ open tables

function seatItem(s) {
  const li = el("li", s.bot ? "bot" : s.name || s.player ? "person" : "free");
  if (!s.bot && !s.name && !s.player) { li.appendChild(el("span", "free-seat", t("free_seat"))); return li; }
  li.appendChild(s.bot ? el("span", "avatar small none") : avatarImg(s.avatar, "avatar small"));
  const name = s.bot ? botName(s.bot) : playerName(s.name) || t("player");
  if (s.player) {
    const a = el("a", "name", name);
    a.href = "/player/" + encodeURIComponent(s.player);
    li.appendChild(a);
  } else li.appendChild(el("span", "name", name));
  if (Number.isInteger(s.rating)) li.appendChild(el("span", "rating", String(s.rating)));
  return li;
}

function tableItem(table, open) {
  const li = el("li", "hall-table");
  li.dataset.room = table.room;
  const [preset, seats] = String(table.family).split("/");
  const head = el("div", "hall-table-head");
  const what = familyName(preset) + " · " + t("seats_" + seats) + " · " + (table.match.length ? t("hands_n", {n: table.match.length}) : t("match_open"))
    + (open ? "" : " · " + t("table_played", {n: table.match.played}));
  head.appendChild(el("b", "", what));
  if (open) {
    const join = el("button", "primary join", t("table_join"));
    join.type = "button";
    join.onclick = () => joinTable(table.room, join);
    head.appendChild(join);
  } else {
    const watch = el("a", "button watch", t("table_watch"));
    watch.href = localUrl(table.watch);
    head.appendChild(watch);
  }
  const list = el("ul", "hall-seats");
  list.append(...table.seats.map(seatItem));
  li.append(head, list);
  return li;
}

async function joinTable(room, button) {
  $("tables-error").textContent = "";
  button.disabled = true;
  if (!(await nameBeforeRoom())) { button.disabled = false; return; }
  const r = await api("POST", "/api/rooms/" + encodeURIComponent(room) + "/join", {});
  if (!r.ok) {
    button.disabled = false;
    $("tables-error").textContent = t("err_join", {why: r.status === 409 ? t("err_taken") : refusal(r)});
    refreshTables();
    return;
  }
  rememberRoom(r.body.room, r.body.token, r.body.seat);
  location.href = localUrl(r.body.url);
}

export async function refreshTables() {
  const r = await api("GET", "/api/tables");
  if (!r.ok) { $("tables-error").textContent = refusal(r); return; }
  $("tables-error").textContent = "";
  ui.tables = r.body;
  renderTables();
}

export function renderTables() {
  const found = ui.tables || {open: [], playing: []};
  $("open-tables").replaceChildren(...found.open.map(x => tableItem(x, true)));
  $("playing-tables").replaceChildren(...found.playing.map(x => tableItem(x, false)));
  $("open-none").hidden = found.open.length > 0;
  $("playing-none").hidden = found.playing.length > 0;
}

/** The lobby's part of the hall: who you are, 快速开始 (or its waiting panel, when the queue
 * already holds you), and the tables, asked again every 5 s while the lobby is in sight. */
export function hallLobby() {
  wireMe();
  renderQuickRules();
  $("quick-form").onsubmit = startQuick;
  $("quick-cancel").onclick = cancelQuick;
  loadMe().then(() => askQuick("GET")).then(r => { if (r && r.ok) showQuick(r.body); });
  refreshTables();
  setInterval(() => { if (!$("lobby").hidden && !document.hidden) refreshTables(); }, TABLES_POLL);
  setInterval(renderWaiting, 1000);
  document.addEventListener("visibilitychange", () => { if (!document.hidden && !$("lobby").hidden) refreshTables(); });
}

// ------------------------------------------------------------------ at the table

const shownRating = f => String(f.rating) + (f.provisional ? "?" : "");
const NEW_RATING = {rating: 1500, provisional: true};  // a player not rated yet (D120)
const RATING_RETRY = 60000;
/** Each seated player's ratings (GET /api/players/{id}, limited per address): asked once a
 * player and match, as player id → {no: the match asked in, families, pending}. */
const seatStanding = new Map();

/** A seat panel's rating of ``player`` in ``family`` ("1500?"); "" until it is known. */
export function ratingText(player, family) {
  const known = seatStanding.get(player);
  if (!family || !known || !known.families) return "";
  return shownRating(known.families.find(f => f.family === family) || NEW_RATING);
}

/** Ask the ratings of the seats' players not asked yet in this match; each, when it comes,
 * is written into that player's panels. A refusal (a busy server) is asked again later. */
export function wantRatings(seats, family, matchNo) {
  if (!family) return;
  for (const s of seats) {
    const player = s.player, known = seatStanding.get(player);
    if (!player || s.bot || (known && (known.pending || known.no === matchNo))) continue;
    const families = known ? known.families : null;
    seatStanding.set(player, {no: matchNo, families, pending: true});
    api("GET", "/api/players/" + encodeURIComponent(player) + "?recent=0&points=1").then(r => {
      if (!r.ok) {
        setTimeout(() => seatStanding.set(player, {no: null, families, pending: false}), RATING_RETRY);
        return;
      }
      seatStanding.set(player, {no: matchNo, families: r.body.families, pending: false});
      document.querySelectorAll(`.seat[data-player="${CSS.escape(player)}"] .rating`).forEach(x => { x.textContent = ratingText(player, family); });
    });
  }
}

/** How the visitor holds another player: "mute", "block" or "none" (GET /api/me's blocks). */
export function mannerOf(player) {
  const b = ui.me && ui.me.blocks;
  if (!b || !player) return "none";
  return b.block.includes(player) ? "block" : b.mute.includes(player) ? "mute" : "none";
}

/** Whether ``player``'s sayings are kept from the visitor (muted or blocked). */
export const silenced = player => mannerOf(player) !== "none";

/** 屏蔽发言 and 拉黑 of another player, each undone by pressing it again; ``after`` is
 * called once the server answered (to draw the change). */
export function mannersBox(player, after) {
  const box = el("div", "manners");
  const held = mannerOf(player);
  for (const kind of ["mute", "block"]) {
    const on = held === kind;
    const b = el("button", "tool manner-" + kind, t(on ? "un" + kind : kind + "_player"));
    b.type = "button";
    b.setAttribute("aria-pressed", String(on));
    b.onclick = async () => {
      box.querySelectorAll("button").forEach(x => { x.disabled = true; });
      const r = await api("POST", "/api/block", {player, kind: on ? "none" : kind});
      if (r.ok) {
        ui.me = {...ui.me, blocks: r.body.blocks};
        toast(t(on ? "manner_none" : "manner_" + kind));
      } else toast(t("err_manner", {why: refusal(r)}));
      after();
    };
    box.appendChild(b);
  }
  return box;
}

// ------------------------------------------------------------------ profile

const dateOf = at => new Date(at * 1000).toLocaleDateString(lang === "zh" ? "zh-CN" : "en-GB", {month: "short", day: "numeric"});

/** The rating over time as an SVG line, drawn here: the oldest point left, the newest right. */
function ratingPlot(history) {
  const w = 320, h = 120, pad = 8, left = 40;
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.setAttribute("class", "plot");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", t("rating_plot"));
  const values = history.map(p => p.rating);
  const lo = Math.min(...values), hi = Math.max(...values), span = Math.max(hi - lo, 20);
  const x = i => left + (history.length === 1 ? (w - left - pad) / 2 : i * (w - left - pad) / (history.length - 1));
  const y = v => pad + (hi + (span - (hi - lo)) / 2 - v) * (h - 2 * pad) / span;
  const add = (tag, attrs, text) => {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    svg.appendChild(node);
    return node;
  };
  for (const v of new Set([hi, lo])) {
    add("line", {x1: left, x2: w - pad, y1: y(v), y2: y(v), class: "grid"});
    add("text", {x: left - 4, y: y(v) + 4, "text-anchor": "end"}, String(v));
  }
  add("polyline", {points: history.map((p, i) => `${x(i)},${y(p.rating)}`).join(" "), class: "line"});
  history.forEach((p, i) => add("circle", {cx: x(i), cy: y(p.rating), r: i === history.length - 1 ? 3.5 : 2}));
  return svg;
}

function familyCard(f, provisionalHands) {
  const card = el("section", "family-card");
  card.dataset.family = f.family;
  const head = el("header");
  head.append(el("h3", "", familyName(f.family)), el("b", "big-rating", shownRating(f)));
  head.lastChild.title = t("rating");
  const stats = el("dl", "stats");
  const pct = f.win_rate === null ? "–" : Math.round(f.win_rate * 100) + "%";
  const avg = f.average_huxi === null ? "–" : String(Math.round(f.average_huxi * 10) / 10);
  for (const [label, value] of [[t("hands_played"), f.hands], [t("matches_played"), f.matches], [t("win_rate"), pct], [t("avg_huxi"), avg]]) {
    const box = el("div");
    box.append(el("dt", "", label), el("dd", "", String(value)));
    stats.appendChild(box);
  }
  card.append(head, stats);
  if (f.provisional) card.appendChild(el("p", "note", t("provisional_note", {n: provisionalHands})));
  const names = Object.entries(f.mingtang || {});
  if (names.length) {
    const list = el("p", "mingtang");
    list.appendChild(el("b", "", t("mingtang_title") + " "));
    names.forEach(([name, n]) => { const key = "mt_" + name; list.appendChild(el("span", "chip", (t(key) === key ? name : t(key)) + " × " + n)); });
    card.appendChild(list);
  }
  card.appendChild(el("h4", "", t("rating_plot")));
  card.appendChild(f.history.length ? ratingPlot(f.history) : el("p", "note", t("no_plot")));
  return card;
}

function recentItem(hand) {
  const li = el("li", hand.won ? "won" : "");
  const points = (hand.points > 0 ? "+" : "") + hand.points;
  li.append(el("span", "when", dateOf(hand.at)), el("span", "fam", familyName(hand.family)),
    el("span", "result", hand.won ? t("hand_won", {huxi: hand.huxi}) : t("hand_lost")),
    el("b", hand.points > 0 ? "plus" : hand.points < 0 ? "minus" : "", t("points_n", {n: points})));
  if (hand.mingtang.length) li.appendChild(el("span", "chip", hand.mingtang.map(n => { const k = "mt_" + n; return t(k) === k ? n : t(k); }).join(t("list_sep"))));
  const a = el("a", "replay-link", t("replay_link"));
  a.href = hand.replay;
  li.appendChild(a);
  return li;
}

/** A player's profile; "me" (the hall's link before the visitor's player is known): theirs. */
export async function showProfile(id) {
  $("profile-page").hidden = false;
  $("profile-title").textContent = t("loading");
  if (id === "me") {
    const me = await (ui.mePromise || loadMe());
    if (!me) {  // the server did not say who the visitor is (busy, or unreachable): why
      $("profile-title").textContent = "";
      $("profile-error").textContent = ui.meRefused ? refusal(ui.meRefused) : t("err_network");
      $("recent-title").hidden = true;
      return;
    }
    id = me.id;
    history.replaceState(null, "", "/player/" + encodeURIComponent(id));
  }
  const r = await api("GET", "/api/players/" + encodeURIComponent(id) + "?recent=20&points=200");
  ui.profile = r.ok ? r.body : null;
  if (!r.ok) {
    $("profile-title").textContent = r.status === 404 ? t("no_player") : "";
    $("profile-error").textContent = r.status === 404 ? "" : refusal(r);
    $("recent-title").hidden = true;
    return;
  }
  renderProfile();
}

export function renderProfile() {
  const p = ui.profile;
  if (!p) return;
  const name = playerName(p.player.name) || t("player");
  $("profile-title").textContent = t("profile_title", {name});
  $("where").textContent = name;
  $("profile-avatar").src = avatarUrl(p.player.avatar);
  // Another player's profile: mute or block them here too (your player asked once).
  const other = ui.me && ui.me.id !== p.player.id;
  $("profile-manners").replaceChildren(...(other ? [mannersBox(p.player.id, renderProfile)] : []));
  if (!ui.mePromise) loadMe().then(renderProfile);
  $("profile-families").replaceChildren(...p.families.map(f => familyCard(f, p.provisional_hands)));
  $("recent-title").hidden = false;
  $("recent-hands").replaceChildren(...(p.recent.length ? p.recent.map(recentItem) : [el("li", "note", t("no_hands"))]));
}

// ------------------------------------------------------------------ leaderboard

export async function showLeaderboard(family) {
  const board = ui.board = {family: FAMILIES.includes(family) ? family : FAMILIES[0], data: null};
  $("leaderboard-page").hidden = false;
  $("where").textContent = t("leaderboard");
  const r = await api("GET", "/api/leaderboard?family=" + board.family + "&limit=50");
  if (ui.board !== board) return;  // another tab was chosen meanwhile: its answer is shown
  $("board-error").textContent = r.ok ? "" : refusal(r);
  board.data = r.ok ? r.body : null;
  renderLeaderboard();
}

export function renderLeaderboard() {
  const tabs = FAMILIES.map(f => {
    const a = el("a", "tool" + (f === ui.board.family ? " on" : ""), t("fam_" + f));
    a.href = "/leaderboard?family=" + f;
    a.setAttribute("role", "tab");
    a.setAttribute("aria-selected", String(f === ui.board.family));
    a.onclick = e => { e.preventDefault(); history.replaceState(null, "", a.href); showLeaderboard(f); };
    return a;
  });
  $("board-families").replaceChildren(...tabs);
  const data = ui.board.data, body = $("leaderboard-table").tBodies[0];
  if (!data) { body.replaceChildren(); $("board-note").textContent = ""; return; }
  $("board-note").textContent = data.players.length ? t("lb_note", {n: data.provisional_hands}) : t("lb_empty", {n: data.provisional_hands});
  $("leaderboard-table").hidden = !data.players.length;
  body.replaceChildren(...data.players.map(row => {
    const tr = el("tr");
    const who = el("td", "who");
    const a = el("a", "", playerName(row.player.name) || t("player"));
    a.href = "/player/" + encodeURIComponent(row.player.id);
    who.append(avatarImg(row.player.avatar, "avatar small"), a);
    tr.append(el("td", "", String(row.rank)), who, el("td", "", String(row.rating)), el("td", "", String(row.hands)), el("td", "", String(row.matches)));
    return tr;
  }));
}

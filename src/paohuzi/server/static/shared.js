// What every screen of the page draws with: the DOM helpers, how a seat is named (R2: 你 /
// 下家 / 上家 / 对家), the small drawings of cards and groups, the seat's choices read from its
// state, and the toast.
import {lang, t} from "./i18n.js";
import {arrange, cardEl, cardName, cardsName, cardsOf} from "./cards.js";
import {ui} from "./state.js";

export const $ = id => document.getElementById(id);

export const el = (tag, className = "", text = "") => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text) node.textContent = text;
  return node;
};

export const motion = () => !matchMedia("(prefers-reduced-motion: reduce)").matches;

export const seatCount = () => ui.state.seats.length;

export const me = () => ui.state.you ?? 0;

const relative = seat => (seat - me() + seatCount()) % seatCount();

const POSITIONS = {3: ["bottom", "right", "left"], 4: ["bottom", "right", "top", "left"]};

export const position = seat => (POSITIONS[seatCount()] || POSITIONS[3])[relative(seat)];

export const sitsOut = seat => seatCount() === 4 && seat === (ui.state.dealer + 2) % 4;  // R12 four players

export const isPerson = seat => !ui.state.seats[seat].bot;

/** How the page names a seat: 你 / 下家 / 上家 / 对家 (R2), or its number for a spectator. */
export function who(seat) {
  if (ui.state.you === null || ui.state.you === undefined || ui.replaying) return t("seat_n", {n: seat + 1});
  const r = relative(seat), n = seatCount();
  if (r === 0) return t("you");
  if (r === 1) return t("next");
  if (r === n - 1) return t("prev");
  return t("across");
}

/** A player's nickname as the page shows it: the server's made-up one (玩家0421, D117) said in
 * the page's language, any other as the player wrote it. Names are text, never markup. */
export function playerName(name) {
  const made = /^玩家(\d{4})$/.exec(name || "");
  return made && lang !== "zh" ? t("player") + " " + made[1] : name;
}

/** A player's avatar: one of the shipped pictures (GET /api/me's `avatars` of them). */
export const avatarUrl = n => "/static/avatars/" + (Number.isInteger(n) ? n : 0) + ".svg";

/** A seat's nickname, or its bot level, or "player". */
export function identity(seat) {
  const info = ui.state.seats[seat];
  if (!info.bot) return playerName(info.name) || t("player") + " · " + t("seat_n", {n: seat + 1});
  return botName(info.bot);
}

/** A computer seat as a player reads it: its level's name (电脑·高手), never a bare id; an
 * operator's own bot by the name it was offered under. */
export function botName(bot) {
  const level = bot.split("@")[0], key = "bot_" + level;
  return t(key) === key ? t("bot") + " · " + level : t(key);
}

export function describe(e) {
  const p = {who: e.seat === null || e.seat === undefined ? "" : who(e.seat), card: e.card ? cardName(e.card, t) : ""};
  switch (e.event) {
    case "draw": return e.card ? t("ev_draw_card", p) : t("ev_draw", p);
    case "wei": return e.card ? t("ev_wei", p) : t("ev_wei_hidden", p);
    case "hu": return e.card ? t("ev_hu_card", p) : t("ev_hu", p);
    case "huangzhuang": return t("ev_huangzhuang");
    case "deal": return t("ev_deal", {who: who(ui.state.dealer)});
    default: return t("ev_" + e.event, p);
  }
}

export function played(action) {
  if (action === "pass") return t("played_pass");
  if (action.startsWith("discard ")) return t("played_discard", {card: cardName(action.split(" ")[1], t)});
  return t("played_other", {action});
}

export function mini(kind, size = "mini") { return cardEl(kind, t, size); }

/** An open group (门子) as a column of small cards, its kind and its 胡息 under it (``huxi``
 * null: a face-down 偎 of another seat; undefined: not known, as in a replay). */
export function groupEl(text, huxi, owner, open = false) {
  const [type, body] = text.split(":");
  const hidden = body === "?";
  const kinds = hidden ? [null, null, null] : cardsOf(body);
  const mine = open || owner === ui.state.you;
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
  box.setAttribute("aria-label", t("a_group", {type: t("g_" + type), cards: hidden ? t("face_down") : cardsName(kinds, t), huxi: huxi ?? "?"}));
  return box;
}

/** A hand face up, in the columns it would be arranged in (cards.js's `arrange`). */
export function handColumns(text) {
  return arrange(cardsOf(text)).map(col => {
    const column = el("span", "rgroup hand");
    col.cards.forEach(k => column.appendChild(mini(k)));
    return column;
  });
}

export function rowOf(text, size = "mini") {
  const row = el("div", "row");
  cardsOf(text).forEach(k => row.appendChild(mini(k, size)));
  return row;
}

export function badge(text, cls, title) {
  const b = el("span", "badge " + cls, text);
  if (title) b.title = title;
  return b;
}

export const claimsOf = () => ui.state.legal.filter(a => !a.startsWith("discard"));

export const myDecision = () => ui.state.you !== null && ui.state.legal.length > 0 && !ui.state.auto[ui.state.you];

export const legalDiscards = () => new Set(ui.state.legal.filter(a => a.startsWith("discard")).map(a => a.split(" ")[1]));

export function rectOf(node) { return node ? node.getBoundingClientRect() : null; }

// The server answers in English; the refusals a player meets at the table are said here.
/** Every refusal a room sends (server/rooms.py, server/routes/play.py), in the table's words
 * (tests/server/test_server_words.py reads both sides). The last line is what only a client
 * other than this page sends: malformed, unknown, or not what the page offers. */
const SERVER_WORDS = [[/^it is not your turn/, "e_turn"], [/^stale action/, "e_stale"], [/^the hand is over/, "e_over"],
  [/^the server could not save/, "e_save"], [/^too many messages/, "e_slow"], [/^too many reactions/, "err_busy"],
  [/^the room is moving|^the server could not reach its database/, "e_moving"], [/^illegal action/, "e_illegal"],
  [/^spectators/, "e_watching"], [/^only the host may start/, "e_host_start"], [/^the hand is dealt already/, "e_dealt"],
  [/^the first hand waits/, "e_wait_all"], [/^the hand is not over/, "e_not_over"], [/^nothing is dealt yet/, "e_not_dealt"],
  [/^the room closed/, "e_closed"], [/^a name needs/, "e_name_blank"],
  [/^a name has at most/, "e_name_long"], [/^internal error/, "e_internal"],
  [/^malformed JSON|^unreadable action|^a message is|^messages are|^message over|^you can only act|^unknown message|^action must|^start takes|^auto takes|^say one of|^a name is a string|^unknown bot|^this server does not offer/, "e_protocol"]];

export function serverSays(message) {
  const found = SERVER_WORDS.find(([pattern]) => pattern.test(message));
  return found ? t(found[1]) : message;
}

export function toast(text, ms = 3500) {
  const box = $("toast");
  box.textContent = text;
  box.hidden = false;
  clearTimeout(ui.toastTimer);
  ui.toastTimer = setTimeout(() => { box.hidden = true; }, ms);
}

/** A seat as everyone knows it: its relative place, and its nickname if it has one. */
export function nameOf(seat) {
  const info = ui.state.seats[seat];
  return who(seat) + (info && info.name ? " " + playerName(info.name) : "");
}

// The 20 kinds of 字牌 (R1), how a card looks, and how a hand is laid out in columns.
// Card faces use the shipped card font: every glyph below is in it (scripts/make_font.py).
export const FACE_GLYPHS = "一二三四五六七八九十壹贰叁肆伍陆柒捌玖拾胡碰吃过偎跑提庄荒子";
const GLYPHS = FACE_GLYPHS.slice(0, 20);
export const KINDS = [];
for (let i = 1; i <= 10; i++) KINDS.push("x" + i);
for (let i = 1; i <= 10; i++) KINDS.push("d" + i);
const RED = new Set(["x2", "x7", "x10", "d2", "d7", "d10"]);  // 二七十 贰柒拾 (R1)

export const glyph = kind => GLYPHS[KINDS.indexOf(kind)] || "?";
export const isRed = kind => RED.has(kind);
export const isBig = kind => kind[0] === "d";
export const rankOf = kind => +kind.slice(1);
export const cardsOf = text => (text || "").match(/[xd](?:10|[1-9])/g) || [];

/** A card's name for screen readers: "贰 (大字 2, 红字)", in English "big 2, red". */
export function spoken(kind, t) {
  const red = isRed(kind) ? ", " + t("red") : "";
  return t("card_spoken", {glyph: glyph(kind), size: t(isBig(kind) ? "big" : "small"), n: rankOf(kind), red});
}

/** A card named in running text: its glyph in Chinese (伍), its size and rank in English
 * ("big 5"): the faces keep their glyphs, the words are the page's language. */
export function cardName(kind, t) {
  return t("card_name", {glyph: glyph(kind), size: t(isBig(kind) ? "big" : "small"), n: rankOf(kind)});
}

/** Cards named in running text, one after the other ("壹贰叁"; "big 1, big 2, big 3"). */
export function cardsName(kinds, t) {
  return kinds.map(k => cardName(k, t)).join(t("cards_sep"));
}

/** A card face (or a back with ``kind`` null); ``tag`` "button" for a card you can play. */
export function cardEl(kind, t, size = "", tag = "span") {
  const el = document.createElement(tag);
  el.className = "card" + (size ? " " + size : "");
  if (!kind) {
    el.classList.add("back");
    el.setAttribute("aria-label", t("face_down"));
  } else {
    if (isRed(kind)) el.classList.add("red");
    el.classList.add(isBig(kind) ? "big" : "small");
    el.dataset.kind = kind;
    el.setAttribute("aria-label", spoken(kind, t));
    const top = document.createElement("b"); top.textContent = glyph(kind);
    const bottom = document.createElement("b"); bottom.className = "flip"; bottom.textContent = glyph(kind);
    el.append(top, bottom);
  }
  if (tag === "span") el.setAttribute("role", "img");
  else el.type = "button";
  return el;
}

// ------------------------------------------------------------------ the hand in columns

const counts = cards => { const c = {}; cards.forEach(k => { c[k] = (c[k] || 0) + 1; }); return c; };
const take = (c, kinds) => kinds.every(k => c[k] > 0) && (kinds.forEach(k => c[k]--), true);

/** Lay a hand out the 字牌 way: 坎 together and locked, then 二七十 and 一二三, pairs (a 绞
 * when the rank's other size is there), sequences, 绞, and the rest by rank. */
export function arrange(cards) {
  const c = counts(cards), columns = [];
  for (const k of KINDS) if (c[k] >= 3) { c[k] -= 3; columns.push({cards: [k, k, k], locked: true}); }
  for (const size of ["d", "x"]) {
    for (const ranks of [[2, 7, 10], [1, 2, 3]]) {
      const kinds = ranks.map(r => size + r);
      while (take(c, kinds)) columns.push({cards: kinds.slice()});
    }
  }
  for (const k of KINDS) {
    if (c[k] === 2) {
      const other = (isBig(k) ? "x" : "d") + rankOf(k);
      c[k] = 0;
      if (c[other] === 1) { c[other] = 0; columns.push({cards: [k, k, other]}); }
      else columns.push({cards: [k, k]});
    }
  }
  for (const size of ["d", "x"]) {
    for (let r = 1; r <= 8; r++) {
      const kinds = [r, r + 1, r + 2].map(n => size + n);
      while (take(c, kinds)) columns.push({cards: kinds});
    }
  }
  for (let r = 1; r <= 10; r++) {
    const both = ["x" + r, "d" + r].flatMap(k => Array(c[k] || 0).fill(k));
    if (both.length) columns.push({cards: both});
    c["x" + r] = c["d" + r] = 0;
  }
  return columns;
}

/** Keep the player's own arrangement across states: cards that left the hand go, new ones
 * join a column of their rank (or a new column), and every 坎 is gathered and locked. */
export function reconcile(columns, cards) {
  const all = counts(cards), left = {...all}, result = [], placed = new Set();
  const kans = KINDS.filter(k => all[k] >= 3);
  kans.forEach(k => { left[k] -= 3; });
  for (const col of columns) {
    const k = col.cards[0];
    if (col.locked && kans.includes(k) && !placed.has(k)) {
      result.push({cards: [k, k, k], locked: true}); placed.add(k); continue;
    }
    const still = col.cards.filter(x => left[x] > 0 && (left[x]--, true));
    if (still.length) result.push({cards: still});
  }
  kans.filter(k => !placed.has(k)).forEach(k => result.unshift({cards: [k, k, k], locked: true}));
  for (const k of KINDS) {
    for (; left[k] > 0; left[k]--) {
      const home = result.find(col => !col.locked && col.cards.length < 3 &&
        col.cards.some(x => rankOf(x) === rankOf(k)));
      if (home) home.cards.push(k); else result.push({cards: [k]});
    }
  }
  return result;
}

// The analysis board: tap cards to set a hand and the groups on your table, and see what
// `paohuzi analyze` finds (FORMATS F6): the waits (听牌) with each one's best arrangement,
// 胡息 and points, or the score on a winning card. The server works it out (POST /api/analyze).
import {t} from "./i18n.js";
import {cardEl, cardName, cardsOf, KINDS} from "./cards.js";

const el = (tag, className = "", text = "") => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text) node.textContent = text;
  return node;
};

const TABLE_TYPES = ["chi", "peng", "wei", "pao", "ti"];
const board = {hand: [], table: [], win: null, selfDrawn: false, adding: null, rules: "hunan", answer: null, error: ""};
let box = null, asked = 0;

const count = kind => board.hand.filter(k => k === kind).length +
  board.table.reduce((n, g) => n + cardsOf(g.split(":")[1]).filter(k => k === kind).length, 0) + (board.win === kind ? 1 : 0);

function tapKind(kind) {
  if (board.adding) {
    board.adding.cards.push(kind);
    const need = board.adding.type === "pao" || board.adding.type === "ti" ? 1 : board.adding.type === "chi" ? 3 : 1;
    if (board.adding.cards.length >= need) {
      const cards = board.adding.type === "chi" ? board.adding.cards.slice().sort(byKind) :
        Array(board.adding.type === "pao" || board.adding.type === "ti" ? 4 : 3).fill(kind);
      board.table.push(board.adding.type + ":" + cards.join(""));
      board.adding = null;
    }
  } else if (count(kind) < 4) board.hand.push(kind);
  board.hand.sort(byKind);
  draw();
  ask();
}

/** Cards held (hand and table) and how many R6 wants: 20, one more for each 提 or 跑 past the
 * first. */
const holding = () => board.hand.length + board.table.reduce((n, g) => n + cardsOf(g.split(":")[1]).length, 0);
const needed = () => 20 + Math.max(0, board.table.filter(g => /^(pao|ti):/.test(g)).length - 1);

const byKind = (a, b) => KINDS.indexOf(a) - KINDS.indexOf(b);

async function ask() {
  board.answer = null;
  board.error = "";
  const mine = ++asked;
  if (holding() !== needed()) { draw(); return; }
  const body = {hand: board.hand.join(" "), table: board.table.join(" "), rules: board.rules, self_drawn: board.selfDrawn};
  if (board.win) body.win = board.win;
  const response = await fetch("/api/analyze", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  if (mine !== asked) return;
  const found = await response.json().catch(() => ({}));
  if (response.ok) board.answer = found; else board.error = String(found.detail || response.status);
  draw();
}

function groupsRow(groups, huxi) {
  const row = el("div", "groups");
  groups.forEach((g, i) => {
    const [type, body] = g.split(":");
    const group = el("div", "group g-" + type);
    const stack = el("div", "stack");
    cardsOf(body).forEach(k => stack.appendChild(cardEl(k, t, "mini")));
    group.append(stack, el("span", "glabel", t("g_" + type).split(" ")[0]));
    if (huxi) group.appendChild(el("b", "ghuxi", String(huxi[i])));
    row.appendChild(group);
  });
  return row;
}

function draw() {
  box.replaceChildren();
  const title = el("h2", "", t("an_title"));
  title.id = "analysis-title";
  box.append(title, el("p", "lead", t("an_lead")));
  const picker = el("div", "picker");
  picker.setAttribute("role", "group");
  picker.setAttribute("aria-label", t("an_pick"));
  for (const size of ["x", "d"]) {
    const row = el("div", "row");
    for (let r = 1; r <= 10; r++) {
      const kind = size + r, b = cardEl(kind, t, "", "button");
      b.dataset.pick = kind;
      const left = 4 - count(kind);
      b.disabled = left <= 0;
      b.setAttribute("aria-label", cardName(kind, t) + " · " + t("left_n", {n: left}));
      b.onclick = () => tapKind(kind);
      row.appendChild(b);
    }
    picker.appendChild(row);
  }
  box.appendChild(picker);
  const tools = el("div", "buttons");
  TABLE_TYPES.forEach(type => {
    const b = el("button", "tool" + (board.adding && board.adding.type === type ? " primary" : ""), t("an_add", {type: t("g_" + type)}));
    b.type = "button";
    b.dataset.type = type;
    b.onclick = () => { board.adding = board.adding && board.adding.type === type ? null : {type, cards: []}; draw(); };
    tools.appendChild(b);
  });
  const rules = el("select");
  rules.setAttribute("aria-label", t("rules_label"));
  ["hunan", "luzhou"].forEach(name => { const o = el("option", "", t("preset_" + name)); o.value = name; rules.appendChild(o); });
  rules.value = board.rules;
  rules.onchange = () => { board.rules = rules.value; ask(); };
  const clear = el("button", "tool", t("an_clear"));
  clear.type = "button";
  clear.onclick = () => { Object.assign(board, {hand: [], table: [], win: null, adding: null, answer: null, error: ""}); draw(); };
  tools.append(rules, clear);
  box.appendChild(tools);
  if (board.adding) box.appendChild(el("p", "note", t(board.adding.type === "chi" ? "an_adding_chi" : "an_adding", {type: t("g_" + board.adding.type)})));
  box.appendChild(el("h3", "", t("an_table")));
  const table = groupsRow(board.table);
  [...table.children].forEach((g, i) => { g.title = t("an_remove"); g.onclick = () => { board.table.splice(i, 1); draw(); ask(); }; });
  box.appendChild(table);
  box.appendChild(el("h3", "", t("an_hand", {n: board.hand.length})));
  const hand = el("div", "row an-hand");
  board.hand.forEach((k, i) => {
    const b = cardEl(k, t, "", "button");
    b.setAttribute("aria-label", t("an_remove") + " " + cardName(k, t));
    b.onclick = () => { board.hand.splice(i, 1); draw(); ask(); };
    hand.appendChild(b);
  });
  box.appendChild(hand);
  const winLine = el("p", "win-line");
  const win = el("select");
  win.id = "an-win";
  win.setAttribute("aria-label", t("an_win"));
  const none = el("option", "", t("an_waits"));
  none.value = "";
  win.appendChild(none);
  KINDS.forEach(k => { const o = el("option", "", t("an_win_on", {card: cardName(k, t)})); o.value = k; win.appendChild(o); });
  win.value = board.win || "";
  win.onchange = () => { board.win = win.value || null; ask(); };
  const self = el("label");
  const check = el("input");
  check.type = "checkbox";
  check.checked = board.selfDrawn;
  check.onchange = () => { board.selfDrawn = check.checked; ask(); };
  self.append(check, " " + t("self_drawn"));
  winLine.append(win, " ", self);
  box.appendChild(winLine);
  const out = el("div", "an-answer");
  out.id = "an-answer";
  out.setAttribute("aria-live", "polite");
  if (board.error) out.appendChild(el("p", "error", board.error));
  if (holding() !== needed()) out.appendChild(el("p", "note", t(holding() < needed() ? "an_short" : "an_over", {n: Math.abs(needed() - holding())})));
  const a = board.answer;
  if (a) {
    out.appendChild(el("p", "", t("huxi_now", {n: a.huxi_now})));
    if (a.waits) {
      if (!a.waits.length) out.appendChild(el("p", "", t("an_no_waits")));
      a.waits.forEach(w => {
        const item = el("div", "an-wait");
        item.dataset.win = w.win;
        const head = el("p");
        head.append(el("b", "", t("ting") + " "), cardEl(w.win, t, "mini"), " " + t("huxi_n", {n: w.huxi}) + " · " + t("pts", {n: w.score}));
        item.appendChild(head);
        if (w.groups) item.appendChild(groupsRow(w.groups, w.group_huxi));
        if (w.mingtang && w.mingtang.length) item.appendChild(el("p", "note", w.mingtang.map(m => m.name + " " + m.fan + "番").join(" · ")));
        out.appendChild(item);
      });
    } else if (a.hu) {
      out.appendChild(el("p", "", t("an_hu", {huxi: a.huxi, deng: a.deng, fan: a.fan, score: a.score})));
      out.appendChild(groupsRow(a.groups, a.group_huxi));
      if (a.mingtang.length) out.appendChild(el("p", "note", a.mingtang.map(m => m.name + " " + m.fan + "番").join(" · ")));
    } else out.appendChild(el("p", "", t("an_no_hu")));
  }
  box.appendChild(out);
}

export function renderAnalysis(target) {
  box = target;
  draw();
}

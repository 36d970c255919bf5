// Puzzles (issue 27 point 2, D151, D152): "找出最好的一步", find the best move. The list by
// theme, the daily puzzle, and a puzzle on the live table as its seat sees it (the server sends
// the seat's view only). The move is made with the table's own controls and sent to the server,
// which judges it and only then sends the solution: the verdict, the explanation and the
// numbers. Which puzzles were answered, and how, is kept with the hall's player and in this
// browser's localStorage (progress.js, D153).
import {lang, t} from "./i18n.js";
import {ui} from "./state.js";
import {$, el} from "./shared.js";
import {cardName, cardsName, cardsOf} from "./cards.js";
import {render} from "./table.js";
import {PUZZLES, readLocal, recordProgress, syncProgress, writeLocal} from "./progress.js";

/** The puzzles answered here: id → whether the first answer was right. */
function answered() {
  return readLocal(PUZZLES);
}

function keep(id, right) {
  const all = answered();
  if (id in all) return;  // the first answer counts
  all[id] = !!right;
  writeLocal(PUZZLES, all);
  recordProgress({kind: "puzzle", id, right: !!right});
}

async function getJson(url, options) {
  const response = await fetch(url, options);
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(response.status === 404 ? t("pz_missing") : String(body.detail || response.status));
  return body;
}

const themeName = key => { const x = (ui.puzzleThemes || []).find(x => x.theme === key); return x ? x[lang] || x.zh : key; };

async function loadThemes() {
  if (!ui.puzzleThemes) ui.puzzleThemes = (await getJson("/api/puzzles/themes")).themes;
  return ui.puzzleThemes;
}

// ------------------------------------------------------------------------- the list

export async function showPuzzles(theme) {
  $("puzzles-page").hidden = false;
  try {
    const themes = await loadThemes();
    const key = themes.some(x => x.theme === theme) ? theme : themes[0].theme;
    ui.puzzleList = {theme: key, ids: (await getJson("/api/puzzles?theme=" + encodeURIComponent(key))).puzzles};
  } catch (e) { $("puzzles-error").textContent = t("pz_failed", {why: e.message}); return; }
  renderPuzzles();
  if (await syncProgress()) renderPuzzles();
}

export function renderPuzzles() {
  if (!ui.puzzleList || !ui.puzzleThemes) return;
  const kept = answered(), L = ui.puzzleList;
  $("puzzle-themes").replaceChildren(...ui.puzzleThemes.map(x => {
    const a = el("a", x.theme === L.theme ? "on" : "", `${x[lang] || x.zh} (${x.count})`);
    a.href = "/puzzles?theme=" + x.theme;
    a.setAttribute("role", "tab");
    a.setAttribute("aria-selected", String(x.theme === L.theme));
    return a;
  }));
  const right = L.ids.filter(id => kept[id] === true).length, tried = L.ids.filter(id => id in kept).length;
  $("puzzles-progress").textContent = t("pz_progress", {d: tried, r: right, n: L.ids.length});
  $("puzzle-list").replaceChildren(...L.ids.map((id, i) => {
    const li = el("li", id in kept ? (kept[id] ? "right" : "wrong") : "");
    const a = el("a", "", String(i + 1));
    a.href = "/puzzles/" + id;
    a.setAttribute("aria-label", t("pz_n", {n: i + 1}) + (id in kept ? " · " + t(kept[id] ? "pz_solved" : "pz_missed") : ""));
    li.appendChild(a);
    return li;
  }));
}

// ------------------------------------------------------------------------- one puzzle

/** The live table's state frame for the puzzle's view (as a lesson's, D147). */
function puzzleState(data, legal) {
  const v = data.view, n = data.players;
  const seats = Array.from({length: n}, (_, seat) => (seat === data.seat ? {name: t("pz_you"), bot: null} : {name: "", bot: "puzzle"}));
  return {
    type: "state", room: "puzzle-" + data.id, you: data.seat, seats, host: null,
    dealer: v.dealer, liang: v.liang, hand: v.hand, hand_sizes: v.hand_sizes,
    tables: v.tables, table_huxi: v.table_huxi, discards: v.discards, chou: v.chou,
    wall: v.wall, turn: v.turn, offer: v.offer, offer_source: v.offer_source,
    legal, events: v.events, seq: 0, hand_no: 1, totals: new Array(n).fill(0),
    over: false, result: null, reveal: null, commitment: "", deadline: null, timer: 0,
    auto: new Array(n).fill(false), timed_out: new Array(n).fill(null), ready: new Array(n).fill(true), match: null,
  };
}

export async function openPuzzle(id) {
  let data;
  try {
    await loadThemes();
    data = await getJson(id === "daily" ? "/api/puzzles/daily" : "/api/puzzles/" + encodeURIComponent(id));
  } catch (e) {
    $("puzzles-page").hidden = false;
    $("puzzles-error").textContent = t("pz_failed", {why: e.message});
    return;
  }
  let ids = [];
  try { ids = (await getJson("/api/puzzles?theme=" + encodeURIComponent(data.theme))).puzzles; } catch (e) { /* no "next" */ }
  ui.puzzle = {data, daily: id === "daily", ids, answer: null, busy: false};
  $("table").classList.add("learning", "puzzling");
  $("lesson-bar").hidden = false;
  $("history-box").hidden = true;
  $("lesson-back").hidden = true;
  $("lesson-to-list").href = "/puzzles?theme=" + data.theme;
  renderPuzzle();
}

/** A move in words: 打伍, 吃 一二三 比 ..., 碰, 胡, 过. */
function moveName(action) {
  const [kind, ...rest] = action.split(" ");
  if (kind === "discard") return t("pz_discard", {card: cardName(rest[0], t)});
  if (kind === "chi") return t("act_chi") + " " + rest.map(g => cardsName(cardsOf(g), t)).join(" " + t("bi") + " ");
  return t("act_" + kind);
}

/** The explanation's card names (x5, d10, x6x7x8) said as the page says cards. */
function cardsSaid(text) {
  const said = text.replace(/(?<![A-Za-z0-9])(?:[xd](?:10|[1-9]))+(?![A-Za-z0-9])/g, m => cardsName(cardsOf(m), t));
  return lang === "zh" ? said.replace(/([\u4e00-\u9fff]) (?=[\u4e00-\u9fff])/g, "$1") : said;  // 打 七 → 打七
}

const points = x => (x > 0 ? "+" : "") + x.toFixed(2);

/** The puzzle's table and its bar, as they stand (also after a change of language). */
export function renderPuzzle() {
  const P = ui.puzzle, data = P.data, a = P.answer;
  ui.state = puzzleState(data, a ? [] : data.view.legal);
  ui.hint = {huxi: data.view.huxi_now, waits: []};
  render();
  const index = P.ids.indexOf(data.id);
  const title = P.daily ? t("pz_daily") : t("pz_n", {n: index + 1});
  $("where").textContent = title + " · " + themeName(data.theme);
  $("lesson-title").textContent = title;
  $("lesson-step").textContent = themeName(data.theme);
  $("lesson-to-list").textContent = t("pz_list");
  $("lesson-text").textContent = t("pz_task");
  const say = $("lesson-say");
  say.className = a ? (a.right ? "right" : "wrong") : "todo";
  say.textContent = a ? (a.right ? t("pz_right") : t("pz_wrong", {move: moveName(a.move)})) : P.busy ? t("pz_judging") : t("pz_your_move");
  const next = $("lesson-next"), after = P.ids[index + 1];
  next.textContent = t("pz_next");
  next.disabled = !a || !after;
  next.hidden = !a;
  renderSolution();
  $("table").classList.toggle("answered", !!a);
  if (a) { lightBest(a.best); $("status").textContent = t("pz_answered"); }
}

function renderSolution() {
  const box = $("puzzle-solution"), a = ui.puzzle.answer;
  box.hidden = !a;
  if (!a) { box.replaceChildren(); return; }
  const rows = Object.entries(a.estimates).sort((x, y) => y[1] - x[1]);
  const table = el("table", "pz-numbers");
  table.createCaption().textContent = t("pz_numbers", {n: a.samples});
  for (const [move, mean] of rows) {
    const best = move === a.best || a.accept.includes(move), mine = move === a.move;
    const tr = table.insertRow();
    tr.className = (best ? "best" : "") + (mine ? " mine" : "");
    tr.insertCell().textContent = moveName(move);
    tr.insertCell().textContent = points(mean);
    tr.insertCell().textContent = [best ? t("pz_best") : "", mine ? t("pz_yours") : ""].filter(Boolean).join(" · ");
  }
  const margin = el("p", "pz-margin", t("pz_margin", {m: a.margin.toFixed(2), se: a.margin_se.toFixed(2), z: (a.margin / Math.max(a.margin_se, 1e-9)).toFixed(1), n: a.samples}));
  const why = el("p", "pz-why", cardsSaid(a.explanation[lang] || a.explanation.zh));
  box.replaceChildren(el("h3", "", t("pz_solution", {move: moveName(a.best)})), why, table, margin);
}

/** The best move's cards lit on the table: the card to discard, or the card on offer. */
function lightBest(best) {
  const [kind, card] = best.split(" ");
  const kinds = new Set(kind === "discard" ? [card] : ui.state.offer ? [ui.state.offer] : []);
  document.querySelectorAll("#table .card[data-kind]").forEach(c => c.classList.toggle("lit", kinds.has(c.dataset.kind)));
}

/** Your move, from the table's own controls (table.js's act): sent to the server, judged there. */
export async function puzzleMove(action) {
  const P = ui.puzzle;
  if (P.answer || P.busy) return;
  P.busy = true;
  ui.selected = null;
  ui.chiOpen = false;
  renderPuzzle();
  try {
    P.answer = await getJson(`/api/puzzles/${encodeURIComponent(P.data.id)}/answer`, {
      method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({move: action}),
    });
    keep(P.data.id, P.answer.right);
  } catch (e) {
    $("lesson-say").textContent = t("pz_failed", {why: e.message});
    P.busy = false;
    return;
  }
  P.busy = false;
  renderPuzzle();
  $("puzzle-solution").scrollIntoView?.({block: "nearest"});
}

export function puzzleNext() {
  const P = ui.puzzle, after = P.ids[P.ids.indexOf(P.data.id) + 1];
  if (P.answer && after) location.href = "/puzzles/" + after;
}

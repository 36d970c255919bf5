// The course (issue 27): the list of lessons with your progress, and a lesson walked on the
// table itself. The server sends a whole lesson at once, every step worked out: the table as
// the step shows it, the verdict on each move you could make, the table after the taught
// move (D145). The page walks it: you click the cards and buttons the table uses, the move
// goes here instead of to a room, and nothing is sent back. Progress is kept with the hall's
// player and in this browser's localStorage (progress.js, D153).
import {lang, t} from "./i18n.js";
import {ui} from "./state.js";
import {$, el, motion, toast} from "./shared.js";
import {render} from "./table.js";
import {openSettlement} from "./settlement.js";
import {LESSONS, readLocal, recordProgress, syncProgress, writeLocal} from "./progress.js";

/** Your progress, per lesson id: {step: the furthest step reached, done: finished once}. */
export function progress() {
  return readLocal(LESSONS);
}

function keep(id, step, done) {
  const all = progress(), was = all[id] && typeof all[id] === "object" ? all[id] : {};
  const reached = Math.max(step, Number.isInteger(was.step) ? was.step : 0), finished = !!(was.done || done);
  all[id] = {step: reached, done: finished};
  writeLocal(LESSONS, all);
  recordProgress({kind: "lesson", id, step: reached, done: finished});
}

const said = text => (text ? text[lang] || text.zh : "");

async function getJson(url) {
  const response = await fetch(url);
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(response.status === 404 ? t("lesson_missing") : String(body.detail || response.status));
  return body;
}

// ------------------------------------------------------------------------- the list

export async function showCourse() {
  $("learn-page").hidden = false;
  if (!ui.course) {
    try { ui.course = (await getJson("/api/lessons")).lessons; }
    catch (e) { $("learn-error").textContent = t("lesson_failed", {why: e.message}); return; }
  }
  renderCourse();
  if (await syncProgress()) renderCourse();
}

export function renderCourse() {
  if (!ui.course) return;
  const kept = progress(), list = $("lesson-list");
  const done = ui.course.filter(x => kept[x.id] && kept[x.id].done).length;
  $("learn-progress").textContent = t("lesson_progress", {d: done, n: ui.course.length});
  list.replaceChildren(...ui.course.map((x, i) => {
    const mine = kept[x.id], li = el("li", "lesson-item" + (mine && mine.done ? " done" : ""));
    li.dataset.lesson = x.id;
    const a = el("a", "lesson-link");
    a.href = "/learn/" + encodeURIComponent(x.id);
    a.append(el("small", "lesson-no", t("lesson_n", {n: i + 1})), el("b", "", said(x.title)));
    const state = mine && mine.done ? t("lesson_done") : mine && mine.step > 0 ? t("lesson_at", {i: mine.step + 1, n: x.steps}) : t("lesson_new");
    a.appendChild(el("span", "lesson-state", state));
    li.append(a, el("p", "lesson-summary", said(x.summary)));
    return li;
  }));
}

// ------------------------------------------------------------------------- one lesson

/** The live table's state frame for a view of the lesson (as replay.js makes one). */
function lessonState(view, at) {
  const L = ui.lesson.data, n = L.players;
  const seats = Array.from({length: n}, (_, seat) => (seat === L.seat ? {name: t("lesson_learner"), bot: null} : {name: "", bot: "lesson"}));
  return {
    type: "state", room: "lesson-" + L.id, you: L.seat, seats, host: null,
    dealer: view.dealer, liang: view.liang, hand: view.hand, hand_sizes: view.hand_sizes,
    tables: view.tables, table_huxi: view.table_huxi, discards: view.discards, chou: view.chou,
    wall: view.wall, turn: view.turn, offer: view.offer, offer_source: view.offer_source,
    legal: view.legal, events: view.events, seq: at, hand_no: 1, totals: new Array(n).fill(0),
    over: view.over, result: view.result, reveal: view.reveal, commitment: "", deadline: null, timer: 0,
    auto: new Array(n).fill(false), timed_out: new Array(n).fill(null), ready: new Array(n).fill(true), match: null,
  };
}

export async function openLesson(id) {
  let data;
  try {
    const [lesson, list] = await Promise.all([getJson("/api/lessons/" + encodeURIComponent(id)), getJson("/api/lessons"), syncProgress()]);
    data = lesson;
    ui.course = list.lessons;
  } catch (e) {
    $("learn-page").hidden = false;
    $("learn-error").textContent = t("lesson_failed", {why: e.message});
    return;
  }
  const kept = progress()[id];
  const start = kept && !kept.done ? Math.min(kept.step, data.steps.length - 1) : 0;
  ui.lesson = {data, at: start, answered: false, say: null, finished: false};
  $("table").classList.add("learning");
  $("lesson-bar").hidden = false;
  $("history-box").hidden = true;
  goStep(start);
}

function goStep(i) {
  const L = ui.lesson;
  L.at = Math.max(0, Math.min(L.data.steps.length - 1, i));
  L.answered = false;
  L.say = null;
  L.finished = false;
  keep(L.data.id, L.at, false);
  $("settlement").hidden = true;
  renderLesson();
}

/** The lesson's table and its bar, as they stand (also after a change of language). */
export function renderLesson() {
  const L = ui.lesson, step = L.data.steps[L.at];
  const view = L.answered ? step.done : step.view;
  ui.state = lessonState(view, L.at);
  ui.hint = {huxi: view.huxi_now, waits: []};  // 当前胡息, as the live table's hint says it
  render();
  highlight(step.highlight);  // the texts name the seats as the table does: 你, 下家, 上家, 对家
  const index = ui.course ? ui.course.findIndex(x => x.id === L.data.id) : -1;
  $("where").textContent = t("lesson_n", {n: index + 1}) + " · " + said(L.data.title);
  $("lesson-title").textContent = t("lesson_n", {n: index + 1}) + " " + said(L.data.title);
  $("lesson-step").textContent = t("lesson_step", {i: L.at + 1, n: L.data.steps.length});
  $("lesson-text").textContent = said(step.text);
  const say = $("lesson-say");
  const waiting = step.move && !L.answered;
  say.className = L.say ? (L.say.right ? "right" : "wrong") : "todo";
  say.textContent = L.say ? said(L.say.text) || t("lesson_right") : waiting ? t("lesson_your_move") : t("lesson_read");
  $("lesson-back").disabled = L.at === 0;
  const last = L.at === L.data.steps.length - 1;
  const next = $("lesson-next");
  next.textContent = last ? t("lesson_finish") : t("lesson_next");
  next.disabled = !!waiting;
  renderFinish();
}

/** The step's cards lit wherever you see them: your hand, the tables, the rows, the card on offer. */
function highlight(kinds) {
  const wanted = new Set(kinds);
  document.querySelectorAll("#table .card[data-kind]").forEach(c => c.classList.toggle("lit", wanted.has(c.dataset.kind)));
}

/** Your move, from the table's own controls (table.js's act): judged as the server said. */
export function lessonMove(action) {
  const L = ui.lesson, step = L.data.steps[L.at];
  if (!step.move || L.answered) return;
  const verdict = step.answers[action];
  if (!verdict) { toast(t("not_legal")); return; }
  ui.selected = null;
  ui.chiOpen = false;
  if (!verdict.right) {
    L.say = {right: false, text: verdict.text};
    renderLesson();
    shake($("lesson-say"));
    return;
  }
  L.answered = true;
  L.say = {right: true, text: verdict.text};
  renderLesson();
  if (step.done.over) setTimeout(() => { if (ui.lesson && ui.lesson.answered) openSettlement(); }, motion() ? 700 : 0);
  $("lesson-next").focus({preventScroll: true});
}

function shake(node) {
  if (!motion()) return;
  node.animate([{transform: "translateX(0)"}, {transform: "translateX(-6px)"}, {transform: "translateX(6px)"}, {transform: "translateX(0)"}], {duration: 240});
}

export function lessonBack() {
  if (ui.lesson.finished) { ui.lesson.finished = false; renderLesson(); return; }
  goStep(ui.lesson.at - 1);
}

export function lessonNext() {
  const L = ui.lesson, step = L.data.steps[L.at];
  if (step.move && !L.answered) return;
  if (L.at < L.data.steps.length - 1) { goStep(L.at + 1); return; }
  keep(L.data.id, 0, true);
  L.finished = true;
  $("settlement").hidden = true;
  renderFinish();
  $("lesson-done").querySelector("a")?.focus({preventScroll: true});
}

/** The end of a lesson: said, with the way on (the next lesson, or a game). */
function renderFinish() {
  const L = ui.lesson, box = $("lesson-done");
  box.hidden = !L.finished;
  $("lesson-steps").hidden = L.finished;
  if (!L.finished) return;
  const course = ui.course || [], i = course.findIndex(x => x.id === L.data.id), next = course[i + 1];
  box.replaceChildren(el("h3", "", t("lesson_finished")));
  const links = el("p", "buttons");
  if (next) {
    const a = el("a", "button primary", t("lesson_next_lesson", {title: said(next.title)}));
    a.href = "/learn/" + encodeURIComponent(next.id);
    links.appendChild(a);
  } else {
    box.appendChild(el("p", "", t("lesson_all_done")));
    const a = el("a", "button primary", t("lesson_play"));
    a.href = "/";
    links.appendChild(a);
  }
  const list = el("a", "button", t("lesson_list"));
  list.href = "/learn";
  const again = el("button", "", t("lesson_restart"));
  again.type = "button";
  again.onclick = () => goStep(0);
  links.append(list, again);
  box.appendChild(links);
}

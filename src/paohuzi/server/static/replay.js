// The replay board of a finished hand (every hand face up, step by step) and the expert's
// review of one seat's decisions on it; a record opened from the disk.
import {t} from "./i18n.js";
import {cardName, cardsName, cardsOf} from "./cards.js";
import {ui} from "./state.js";
import {$, botName, el, nameOf, playerName} from "./shared.js";
import {problem} from "./connection.js";
import {render} from "./table.js";
import {openSettlement} from "./settlement.js";

/** The state the live table would show at a step of a finished hand, every hand face up. */
function replayState(i) {
  const f = ui.frames[i], end = ui.frames[ui.frames.length - 1], last = i === ui.frames.length - 1;
  const n = f.position.hands.length;
  const events = ui.frames.slice(0, i + 1).flatMap(x => x.events);
  return {
    type: "state", room: ui.replayInfo.room, you: ui.viewSeat, seats: ui.replayInfo.seats, host: null,
    dealer: f.dealer, liang: f.liang, hand: f.position.hands[ui.viewSeat], hand_sizes: f.hand_sizes,
    open_hands: f.position.hands, tables: f.position.tables, table_huxi: f.table_huxi,
    discards: f.discards, chou: f.position.chou[ui.viewSeat], wall: f.wall, turn: last ? null : f.turn,
    offer: last ? null : f.offer, offer_source: f.offer_source, legal: [], events, seq: i,
    hand_no: ui.replayInfo.n + 1, totals: last ? end.result.payments : new Array(n).fill(0),
    over: last, result: last ? end.result : null, reveal: last ? end.reveal : null, commitment: "",
    deadline: null, timer: 0, auto: new Array(n).fill(false), timed_out: new Array(n).fill(null),
    ready: new Array(n).fill(true), match: null,
  };
}

export async function openReplay(room, n) {
  ui.replaying = true;
  const base = "/api/rooms/" + encodeURIComponent(room) + "/hands/" + n;
  const [response, info] = await Promise.all([fetch(base + "/frames"), fetch("/api/rooms/" + encodeURIComponent(room)).catch(() => null)]);
  if (!response.ok) { problem("hand"); return; }
  const known = info && info.ok ? await info.json() : null;
  startReplay(await response.json(), {room, n, base, seats: known ? known.seats : null});
}

function startReplay(list, info) {
  ui.replaying = true;
  ui.frames = list;
  const n = ui.frames[0].position.hands.length;
  info.seats = info.seats || Array.from({length: n}, () => ({name: "", bot: null}));
  ui.replayInfo = info;
  const shared = new URLSearchParams(location.search);
  ui.viewSeat = Math.min(n - 1, +(shared.get("seat") || 0));
  $("replay-bar").hidden = false;
  $("history-box").hidden = true;
  $("table").classList.add("replaying");
  $("replay-slider").max = String(ui.frames.length - 1);
  const pick = $("replay-seat");
  pick.replaceChildren(...Array.from({length: n}, (_, seat) => {
    const o = el("option", "", t("seat_n", {n: seat + 1}) + (info.seats[seat].name ? " " + playerName(info.seats[seat].name) : info.seats[seat].bot ? " " + botName(info.seats[seat].bot) : ""));
    o.value = String(seat);
    return o;
  }));
  pick.value = String(ui.viewSeat);
  $("replay-download").hidden = !info.base;
  $("replay-share").hidden = !info.base;
  $("review-start").hidden = !info.base;
  if (info.base) {
    $("replay-download").href = info.base + "/record";
    $("replay-download").download = "paohuzi-" + info.room.slice(0, 8) + "-" + (info.n + 1) + ".json";
  }
  $("replay-title").textContent = info.base ? t("replay_title", {n: info.n + 1}) : t("replay_file");
  goTo(Math.max(0, Math.min(ui.frames.length - 1, +(shared.get("step") || 0))));
}

export function goTo(i) {
  ui.frameAt = Math.max(0, Math.min(ui.frames.length - 1, i));
  ui.state = replayState(ui.frameAt);
  ui.layoutKey = null;
  render();
  const f = ui.frames[ui.frameAt], next = ui.frames[ui.frameAt + 1];
  $("replay-slider").value = String(ui.frameAt);
  $("replay-step").textContent = t("replay_step", {i: ui.frameAt, n: ui.frames.length - 1});
  $("replay-action").textContent = next ? t("replay_next", {who: nameOf(+next.action.split(" ")[0]), action: actionWords(next.action)}) :
    t("replay_end");
  if (ui.frameAt === ui.frames.length - 1) openSettlement(); else $("settlement").hidden = true;
  renderReviewHere();
}

/** An action of the record in a player's words: "碰", "打出九", "吃 一二三". */
function actionWords(text) {
  const [, type, rest] = text.match(/^\d+ (\w+)\s*(.*)$/) || [];
  if (type === "discard") return t("played_discard", {card: cardName(rest, t)});
  if (type === "chi") return t("act_chi") + " " + rest.split(" ").map(g => cardsName(cardsOf(g), t)).join(" " + t("bi") + " ");
  const words = {hu: "act_hu", peng: "act_peng", pass: "act_pass"};
  return words[type] ? t(words[type]) : type || text;
}

/** The steps where ``seat`` decided among several choices (forced moves are not decisions). */
const decisionSteps = seat => ui.frames.map((f, i) => (f.to_act === seat && f.choices > 1 ? i : -1)).filter(i => i >= 0);

export function jumpDecision(forward) {
  const steps = decisionSteps(ui.viewSeat);
  const found = forward ? steps.find(i => i > ui.frameAt) : steps.reverse().find(i => i < ui.frameAt);
  if (found !== undefined) goTo(found);
}

export function shareLink() {
  return location.origin + "/room/" + ui.replayInfo.room + "/hand/" + ui.replayInfo.n + "?seat=" + ui.viewSeat + "&step=" + ui.frameAt;
}

export function replayKeys(e) {
  // (no frames yet: the replay's are on their way)
  if (!ui.replaying || !ui.frames || e.target.matches?.("input[type=number], select, textarea")) return false;
  const moves = {ArrowLeft: -1, ArrowRight: 1, PageUp: -10, PageDown: 10};
  if (e.key in moves) { e.preventDefault(); goTo(ui.frameAt + moves[e.key]); return true; }
  if (e.key === "Home") { e.preventDefault(); goTo(0); return true; }
  if (e.key === "End") { e.preventDefault(); goTo(ui.frames.length - 1); return true; }
  if (e.key === "[" || e.key === "]") { jumpDecision(e.key === "]"); return true; }
  return false;
}

const REVIEW_SAMPLES = 20;

export async function startReview() {
  clearTimeout(ui.reviewTimer);
  const samples = +(new URLSearchParams(location.search).get("samples") || REVIEW_SAMPLES);
  const seat = ui.viewSeat;
  ui.review = {seat, samples, state: "queued", done: 0, total: 0};
  $("review").hidden = false;
  renderReview();
  const url = ui.replayInfo.base + "/review";
  let response = await fetch(url, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({seat, samples})});
  while (response.ok) {
    const found = await response.json();
    if (seat !== ui.viewSeat && found.seat !== seat) return;
    ui.review = found;
    renderReview();
    if (found.state !== "queued" && found.state !== "running") return;
    await new Promise(done => { ui.reviewTimer = setTimeout(done, 500); });
    response = await fetch(url + "?seat=" + seat + "&samples=" + samples);
  }
  const body = await response.json().catch(() => ({}));
  ui.review = {seat, samples, state: "failed", done: 0, total: 0, error: response.status === 503 ? t("review_busy") : response.status === 429 ? t("err_busy") : String(body.detail || response.status)};
  renderReview();
}

export function renderReview() {
  const r = ui.review, bar = $("review-progress");
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
  $("review-mistakes").hidden = !r.decisions;  // no list before the review is done, nor after a failure
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

/** The review's verdict on a decision in words, with its uncertainty (D115): a mistake only
 * when the loss is over the review's standard errors on enough samples; a smaller loss is
 * shown as within the noise, and one from too few samples is not called either way. */
function reviewWords(d) {
  const r = ui.review;
  const p = {played: actionWords(r2(d.played)), best: actionWords(r2(d.best)), loss: d.loss.toFixed(2),
    se: d.loss_se === null || d.loss_se === undefined ? "?" : d.loss_se.toFixed(2),
    samples: d.samples, needed: r.mistake_samples};
  if (d.mistake) return t("review_line", p);
  if (d.loss_se === null || d.loss_se === undefined || d.samples < r.mistake_samples) return t("review_few", p);
  return t("review_noise", p);
}

const r2 = action => ui.viewSeat + " " + action;

/** At a reviewed decision, the review's verdict on the board. */
function renderReviewHere() {
  const here = $("review-here");
  here.textContent = "";
  here.className = "";
  if (!ui.review || !ui.review.decisions || ui.review.seat !== ui.viewSeat) return;
  const d = ui.review.decisions.find(x => x.index === ui.frameAt);
  if (!d) return;
  here.textContent = d.played === d.best ? t("review_good", {played: actionWords(r2(d.played))}) : reviewWords(d);
  here.className = d.mistake ? "loss" : d.played === d.best ? "good" : "noise";
  here.dataset.index = String(d.index);
}

/** A record from the disk, replayed by the server into the same board. */
export async function openFile() {
  const file = $("record-file").files[0];
  $("open-error").textContent = "";
  if (!file) return;
  if (file.size > 16000) { $("open-error").textContent = t("open_big"); return; }
  const response = await fetch("/api/replay", {method: "POST", headers: {"Content-Type": "application/json"}, body: await file.text()});
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    $("open-error").textContent = response.status === 429 ? t("err_busy") : t("open_bad", {why: String(body.detail || response.status)});
    return;
  }
  $("open-record").hidden = true;
  startReplay(await response.json(), {room: "", n: 0, base: null, seats: null});
}

// The web table of `paohuzi serve`: a plain ES module, no build step. The server holds the
// rules and sends each seat its own view ("state" frames, see the README's serve section);
// this page only draws it and sends the seat's choices back.
//
// The page is split by screen (shared, table, hand, settlement, connection, replay, sayings,
// lobby), each an ES module sharing one explicit state object (state.js); this one wires the
// controls and starts the screen the address asks for.
import {lang, setLang, t, translatePage} from "./i18n.js";
import {arrange, cardsOf} from "./cards.js";
import * as sound from "./sound.js";
import {renderRules} from "./rules.js";
import {renderAnalysis} from "./analysis.js";
import {ui} from "./state.js";
import {$, claimsOf, toast} from "./shared.js";
import {connect, problem, send, showConn} from "./connection.js";
import {act, chiChoices, choose, render, takeBack, tick} from "./table.js";
import {endDrag, handKeys, moveDrag, renderHand, startDrag, tap} from "./hand.js";
import {closeSettlement, openSettlement, renderSettlement} from "./settlement.js";
import {goTo, jumpDecision, openFile, openReplay, renderReview, replayKeys, shareLink, startReview} from "./replay.js";
import {askName, loadBots, lobby, onLobby, renderSeatChoices, sendName} from "./lobby.js";
import {lessonBack, lessonNext, openLesson, renderCourse, renderLesson, showCourse} from "./lesson.js";
import {openPuzzle, puzzleNext, renderPuzzle, renderPuzzles, showPuzzles} from "./puzzle.js";
import {renderLeaderboard, renderProfile, renderQuickRules, renderTables, renderWaiting, showLeaderboard, showProfile} from "./hall.js";

function refreshLanguage() {
  translatePage();
  $("lang").textContent = t("lang_switch");
  $("lang").setAttribute("aria-label", t("lang_switch_label"));
  $("mute").textContent = sound.muted ? t("sound_off") : t("sound_on");
  $("mute").setAttribute("aria-pressed", String(sound.muted));
  $("mute").title = t("sound_label");
  if (ui.connNote) showConn(ui.connNote);
  if (!$("problem").hidden) problem($("problem").dataset.kind);
  if (ui.lesson) { renderLesson(); if (!$("settlement").hidden) renderSettlement(); }
  else if (ui.puzzle) renderPuzzle();
  else if (ui.state && !$("table").hidden) {
    ui.historyKey = "";  // the list of finished hands is said anew in the new language
    render();
    if (!$("settlement").hidden) renderSettlement();
  }
  if (ui.waiting && !$("waiting").hidden) onLobby(ui.waiting);
  if (!$("lobby").hidden) { renderSeatChoices(); renderTables(); renderWaiting(); renderQuickRules(); }
  if (!$("profile-page").hidden) renderProfile();
  if (!$("learn-page").hidden) renderCourse();
  if (!$("puzzles-page").hidden) renderPuzzles();
  if (!$("leaderboard-page").hidden && ui.board) renderLeaderboard();
  if (!$("rules-page").hidden) renderRules($("rules-page"));
  if (!$("analysis-page").hidden) renderAnalysis($("analysis-page"));
  if (ui.replaying && ui.frames) { goTo(ui.frameAt); if (ui.review) renderReview(); }
}

function keys(e) {
  sound.unlock();
  if (e.target.matches?.("input, select, textarea") || e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.key === "Escape" && !$("settlement").hidden) { closeSettlement(); return; }
  if (replayKeys(e)) return;
  if (!ui.state || $("prompt").hidden) return;
  const claims = claimsOf(), key = e.key.toLowerCase();
  const chis = chiChoices(claims);
  const pick = {h: "hu", p: "peng", g: "pass"}[key];
  if (pick && claims.includes(pick)) { e.preventDefault(); act(pick); }
  else if (key === "c" && chis.length) { e.preventDefault(); chis.length === 1 ? act(chis[0]) : choose("chi-open"); }
  else if (ui.chiOpen && /^[1-9]$/.test(key) && chis[+key - 1]) { e.preventDefault(); act(chis[+key - 1]); }
}

function wire() {
  $("lang").onclick = () => { setLang(lang === "zh" ? "en" : "zh"); refreshLanguage(); };
  $("mute").onclick = () => { sound.setMuted(!sound.muted); refreshLanguage(); };
  $("prompt").addEventListener("click", e => { const b = e.target.closest("button"); if (b) choose(b.dataset.action); });
  const hand = $("hand");
  hand.addEventListener("click", e => { const b = e.target.closest(".card"); if (b && !ui.justDragged) tap(b); });
  hand.addEventListener("pointerdown", startDrag);
  hand.addEventListener("pointermove", moveDrag);
  hand.addEventListener("pointerup", endDrag);
  hand.addEventListener("pointercancel", e => { if (ui.drag) { ui.drag.ghost?.remove(); ui.drag.b.classList.remove("dragging"); ui.drag = null; } });
  hand.addEventListener("keydown", handKeys);
  $("sort").onclick = () => { ui.layout = arrange(cardsOf(ui.state.hand)); ui.selected = null; renderHand(); };
  $("auto-on").onclick = () => send({type: "auto", on: true});
  $("auto-off").onclick = takeBack;
  // Any other button of the live table pressed while on 托管 takes back control too (准备
  // does on the server, D116).
  $("table").addEventListener("click", e => {
    const b = e.target.closest("button");
    if (b && !b.closest("#replay-bar, #review, .manners, .manners-open") && !["auto-on", "auto-off", "ready-bar"].includes(b.id)) takeBack();
  });
  $("ready").onclick = () => send({type: "ready"});
  $("ready-bar").onclick = () => send({type: "ready"});
  $("settle-close").onclick = closeSettlement;
  $("show-settlement").onclick = openSettlement;
  $("replay-first").onclick = () => goTo(0);
  $("replay-prev").onclick = () => goTo(ui.frameAt - 1);
  $("replay-next").onclick = () => goTo(ui.frameAt + 1);
  $("replay-last").onclick = () => goTo(ui.frames.length - 1);
  $("replay-slider").oninput = () => goTo(+$("replay-slider").value);
  $("replay-seat").onchange = () => { ui.viewSeat = +$("replay-seat").value; goTo(ui.frameAt); };
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
  $("lesson-back").onclick = lessonBack;
  $("lesson-next").onclick = () => (ui.puzzle ? puzzleNext() : lessonNext());
  document.addEventListener("keydown", keys);
  document.addEventListener("pointerdown", sound.unlock);
  setInterval(tick, 200);
}

function start() {
  wire();
  loadBots();
  refreshLanguage();
  const page = location.pathname;
  if (page === "/rules") { $("rules-page").hidden = false; renderRules($("rules-page")); return; }
  if (page === "/analysis") { $("analysis-page").hidden = false; renderAnalysis($("analysis-page")); return; }
  if (page === "/replay") { $("open-record").hidden = false; return; }
  if (page === "/learn") { showCourse(); return; }
  const lesson = page.match(/^\/learn\/([A-Za-z0-9-]{1,60})$/);
  if (lesson) { openLesson(lesson[1]); return; }
  if (page === "/puzzles") { showPuzzles(new URLSearchParams(location.search).get("theme")); return; }
  const puzzle = page.match(/^\/puzzles\/(daily|[0-9]{1,9}-[0-9]{1,6}-[0-9]{1,5})$/);
  if (puzzle) { openPuzzle(puzzle[1]); return; }
  const player = page.match(/^\/player\/([\w-]{1,32})$/);
  if (player) { showProfile(player[1]); return; }
  if (page === "/leaderboard") { showLeaderboard(new URLSearchParams(location.search).get("family")); return; }
  const hand = page.match(/^\/room\/([\w-]+)\/hand\/(\d+)/);
  const path = page.match(/^\/room\/([\w-]+)/);
  $("leave").hidden = !path;  // a way back to the lobby from a table, a waiting room, a replay
  if (hand) { openReplay(hand[1], +hand[2]); return; }
  if (!path) { lobby(); return; }
  ui.roomId = path[1];
  // An invite carries its secret in the fragment (#token=…), which the browser never sends;
  // an older link's ?token= is moved there, out of the address bar and any Referer.
  const old = new URLSearchParams(location.search).get("token");
  ui.token = new URLSearchParams(location.hash.slice(1)).get("token") || old;
  if (old) history.replaceState(null, "", location.pathname + "#token=" + encodeURIComponent(old));
  // A new link pasted over a refused one differs only in the fragment: the browser does not
  // load the page again, so the page does.
  addEventListener("hashchange", () => {
    if ((new URLSearchParams(location.hash.slice(1)).get("token") || null) !== (ui.token || null)) location.reload();
  });
  askName().then(connect);
}

start();

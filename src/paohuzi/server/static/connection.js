// The seat's WebSocket: the hello with its secret, states and their events made whole again,
// reconnection, and the troubles the server closes a connection for.
import {t} from "./i18n.js";
import {ui} from "./state.js";
import {$, el, serverSays, toast} from "./shared.js";
import {onState, renderTing} from "./table.js";
import {said} from "./sayings.js";
import {nickname, onLobby, rememberRoom, sendName} from "./lobby.js";

export function send(message) {
  if (ui.socket && ui.socket.readyState === 1) ui.socket.send(JSON.stringify(message));
}

export function showConn(key) {
  ui.connNote = key;
  $("table").classList.toggle("offline", !!key);
  const bar = $("conn");
  bar.classList.toggle("saving", !key && ui.saving);
  bar.hidden = !key && !ui.saving;
  bar.textContent = key ? t(key, {n: ui.attempts}) : ui.saving ? t("saving_delayed") : "";
}

function showSaving(on) {
  ui.saving = on;
  showConn(ui.connNote);
}

export function problem(kind) {
  ui.stopped = true;
  $("toast").hidden = true;  // the server's own words, in English: the page says it better
  clearTimeout(ui.settleTimer);
  showConn(null);
  $("table").hidden = true;
  $("lobby").hidden = true;
  $("waiting").hidden = true;
  $("settlement").hidden = true;
  $("problem").hidden = false;
  $("problem").dataset.kind = kind;
  $("problem-title").textContent = t("p_" + kind + "_title");
  $("problem-body").textContent = t("p_" + kind + "_body");
  const actions = $("problem-actions");
  actions.replaceChildren();
  const link = (key, href, primary) => {
    const a = el("a", "button" + (primary ? " primary" : ""), t(key));
    a.href = href;
    actions.appendChild(a);
  };
  if (kind === "token") link("p_watch", "/room/" + encodeURIComponent(ui.roomId), false);
  if (kind === "full") link("p_retry", location.pathname + location.search + location.hash, true);
  if (kind === "elsewhere") {
    const back = el("button", "button primary", t("p_take_back"));
    back.type = "button";
    back.onclick = () => { ui.stopped = false; $("problem").hidden = true; connect(); };
    actions.appendChild(back);
  }
  link("p_new", "/", kind !== "full");
  actions.querySelector("a").focus();
}

const CLOSED = {4404: "room", 4403: "token", 4429: "full", 4410: "closed", 4409: "elsewhere"};

/** Makes a state's events whole again from the ones this connection was sent before; false
 * (and a reconnection, which starts from a whole state) if that cannot be done. */
function wholeEvents(m) {
  if (m.events_from !== undefined) {
    if (!ui.sentEvents || ui.sentEvents.length < m.events_from) {
      ui.socket.close();  // a gap: never show a log with holes; onclose reconnects
      return false;
    }
    m.events = ui.sentEvents.slice(0, m.events_from).concat(m.events);
    delete m.events_from;
  }
  ui.sentEvents = m.events;
  return true;
}

export function connect() {
  if (ui.stopped) return;
  const proto = location.protocol === "https:" ? "wss" : "ws";
  // The seat's secret goes in the first message, never in a URL (issue 22).
  ui.socket = new WebSocket(proto + "://" + location.host + "/ws/" + encodeURIComponent(ui.roomId));
  ui.socket.onopen = () => {
    // "events": "new": after a hand's first state, only the events not sent yet (D100).
    ui.sentEvents = null;
    // A seat's nickname comes with it, set before the seat arrives (issue 24).
    const hello = ui.token ? {type: "hello", token: ui.token, events: "new"} : {type: "hello", events: "new"};
    if (ui.token && nickname()) hello.name = nickname();
    ui.socket.send(JSON.stringify(hello));
    if (ui.attempts) toast(t("conn_back"));
    ui.attempts = 0;
    showConn(null);
  };
  ui.socket.onmessage = ev => {
    const m = JSON.parse(ev.data);
    if (m.type === "state") {
      if (!wholeEvents(m)) return;
      if (!ui.state) rememberRoom(m.room, ui.token, m.you);
      onState(m);
    }
    else if (m.type === "lobby") {
      if (m.you !== null && !m.seats[m.you].name && nickname()) sendName(nickname());
      if (!ui.waiting) rememberRoom(m.room, ui.token, m.you);
      onLobby(m);
    }
    else if (m.type === "said") said(m);
    else if (m.type === "saving") showSaving(!!m.delayed);
    else if (m.type === "hint") { ui.hint = m; renderTing(); }
    else if (m.type === "error") toast("⚠ " + serverSays(m.message));
  };
  ui.socket.onclose = ev => {
    ui.saving = false;
    if (ev.code in CLOSED) { problem(CLOSED[ev.code]); return; }
    ui.attempts++;
    const wait = Math.min(8000, 400 * 2 ** Math.min(ui.attempts, 5));
    showConn("conn_lost");
    // A server that does not answer plain HTTP either is restarting (or gone): say so.
    fetch("/healthz", {cache: "no-store"}).then(r => { if (!r.ok) throw new Error(); }).catch(() => showConn("conn_restart"));
    setTimeout(connect, wait);
  };
}

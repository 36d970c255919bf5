"use strict";
const GLYPHS = "一二三四五六七八九十壹贰叁肆伍陆柒捌玖拾";
const NAMES = [...Array(10).keys()].map(i => "x" + (i + 1)).concat([...Array(10).keys()].map(i => "d" + (i + 1)));
const RED = new Set(["x2", "x7", "x10", "d2", "d7", "d10"]);
const $ = id => document.getElementById(id);
let socket = null, state = null, frames = null, frame = 0;

function card(name, extra) {
  const el = document.createElement("span");
  el.className = "card" + (RED.has(name) ? " red" : "") + (extra ? " " + extra : "");
  if (!name) { el.className = "card back"; el.textContent = "?"; return el; }
  el.innerHTML = GLYPHS[NAMES.indexOf(name)] + "<small>" + name + "</small>";
  return el;
}
function cardsOf(text) { return (text.match(/[xd](10|[1-9])/g) || []); }
function group(text) {
  const el = document.createElement("span");
  el.className = "group"; el.title = text;
  const [kind, cards] = text.split(":");
  if (cards === "?") { for (let i = 0; i < 3; i++) el.appendChild(card(null)); }
  else cardsOf(cards).forEach(c => el.appendChild(card(c)));
  const label = document.createElement("small"); label.textContent = kind; el.appendChild(label);
  return el;
}
function seatName(s) { return state && s === state.you ? "you" : "seat " + s; }
function describe(e) {
  const who = seatName(e.seat), c = e.card || "?";
  const verbs = {deal: "deals", liang: "shows the 亮张 " + c, draw: "draws " + (e.card || "a card"), show: "shows " + c,
    ti: "提 " + c, wei: "偎 " + c, chouwei: "臭偎 " + c, pao: "跑 " + c, chi: "吃 " + e.groups.join(" "),
    peng: "碰 " + c, discard: "discards " + c, passed: ": nobody takes " + c, hu: "胡 wins" + (e.card ? " on " + e.card : ""),
    huangzhuang: "荒庄 — the wall is empty"};
  return e.event === "huangzhuang" ? verbs.huangzhuang : who + " " + verbs[e.event];
}
function label(action) {
  if (action.startsWith("discard")) return "discard " + action.split(" ")[1];
  if (action.startsWith("chi")) { const g = action.split(" ").slice(1); return "吃 " + g[0] + (g.length > 1 ? "  比 " + g.slice(1).join(" ") : ""); }
  return {hu: "胡 win", peng: "碰 peng", pass: "pass"}[action] || action;
}

function render() {
  const s = state;
  $("table").hidden = false; $("lobby").hidden = true;
  const seats = $("seats"); seats.innerHTML = "";
  for (let i = 0; i < 3; i++) {
    const box = document.createElement("div");
    box.className = "seat" + (s.turn === i ? " turn" : "");
    const name = seatName(i) + (s.seats[i].bot ? " (" + s.seats[i].bot + ")" : "") + (i === s.dealer ? " · 庄" : "");
    box.innerHTML = "<h3>" + name + " — " + s.hand_sizes[i] + " in hand · total " + s.totals[i] + "</h3>";
    const t = document.createElement("div"); t.className = "groups"; s.tables[i].forEach(g => t.appendChild(group(g)));
    const d = document.createElement("div"); d.className = "cards"; cardsOf(s.discards[i]).forEach(c => d.appendChild(card(c)));
    box.appendChild(t); box.appendChild(d);
    if (i !== s.you) seats.appendChild(box);
  }
  $("offer").innerHTML = "";
  if (s.offer) { $("offer").append("on offer (" + s.offer_source + " by " + seatName(s.turn) + "): "); $("offer").appendChild(card(s.offer)); }
  renderInfo();
  $("my-table").innerHTML = "";
  if (s.you !== null) s.tables[s.you].forEach(g => $("my-table").appendChild(group(g)));
  const hand = $("hand"); hand.innerHTML = "";
  const mine = cardsOf(s.hand), counts = {};
  mine.forEach(c => counts[c] = (counts[c] || 0) + 1);
  mine.filter(c => counts[c] !== 3).forEach(c => hand.appendChild(card(c)));
  Object.keys(counts).filter(c => counts[c] === 3).forEach(c => { for (let i = 0; i < 3; i++) hand.appendChild(card(c, i === 0 ? "kan" : "")); });
  const actions = $("actions"); actions.innerHTML = "";
  s.legal.forEach(a => {
    const b = document.createElement("button"); b.textContent = label(a); b.dataset.action = a;
    b.onclick = () => send({type: "act", action: a, seq: s.seq});
    actions.appendChild(b);
  });
  $("hint-button").disabled = s.you === null;
  const log = $("log"); log.innerHTML = "";
  s.events.forEach(e => { const li = document.createElement("li"); li.textContent = describe(e); log.appendChild(li); });
  log.scrollTop = log.scrollHeight;
  $("status").textContent = s.legal.length ? "your move" : (s.over ? "hand over" : "waiting…");
  if (s.over && s.result) settle(s.result); else $("settlement").hidden = true;
}

function renderInfo() {
  const s = state;
  const timer = s.deadline !== null && s.deadline !== undefined ? " · your time: " + Math.ceil(s.deadline) + " s" : "";
  $("info").textContent = "hand " + s.hand_no + " · wall " + s.wall + " · 亮张 " + s.liang + " · turn: " + (s.turn === null ? "—" : seatName(s.turn)) + timer;
}

function settle(r) {
  $("settlement").hidden = false;
  $("settle-title").textContent = r.winner === null ? "荒庄 — nobody wins" : seatName(r.winner) + " wins" +
    (r.winning_card ? " on " + r.winning_card : "") + (r.tianhu ? " · 天胡" : "") + (r.self_drawn ? " · 自摸" : "") + (r.haidi ? " · 海底胡" : "");
  const table = $("settle-groups"); table.innerHTML = "";
  r.groups.forEach(g => { const tr = table.insertRow(); tr.insertCell().appendChild(group(g)); });
  $("settle-figures").textContent = r.winner === null ? "" : "胡息 " + r.huxi + " · 等 " + r.deng + " · " +
    (r.mingtang.map(m => m.name + " " + m.fan + "番").join(", ") || "平胡") + " · 番 " + r.fan + " · 底数 " + r.score;
  $("settle-payments").textContent = "payments: " + r.payments.map((p, i) => seatName(i) + " " + (p > 0 ? "+" : "") + p).join(", ");
  $("settle-others").textContent = "others' hu-xi: " + Object.entries(r.other_huxi).map(([k, v]) => seatName(+k) + " " + v).join(", ");
  $("next-hand").disabled = state.you === null;
  loadHistory();
  verifyDeal(state);
}

// Fair deals (docs/security.md): the commitment shown at the deal must open to the record's deck.
const seenCommitments = {};

async function verifyDeal(s) {
  const el = $("settle-deal"), seen = seenCommitments[s.room + ":" + s.hand_no];
  el.textContent = "";
  if (!seen) return;
  try {
    const record = await (await fetch("/api/rooms/" + s.room + "/hands/" + (s.hand_no - 1) + "/record")).json();
    const deal = record.deal || {};
    if (!window.crypto || !crypto.subtle) {
      el.textContent = "deal commitment 牌局承诺 " + seen.slice(0, 16) + "… — check with: paohuzi verify";
      return;
    }
    const bytes = new TextEncoder().encode("paohuzi-deal/1\n" + deal.salt + "\n" + record.deck);
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    const hex = Array.from(digest, b => b.toString(16).padStart(2, "0")).join("");
    const ok = hex === deal.commitment && deal.commitment === seen;
    el.textContent = ok ? "✔ 牌局已验证 deal verified" : "✘ 牌局验证失败 deal NOT verified";
    el.className = ok ? "verified" : "unverified";
  } catch (e) {
    el.textContent = "";
  }
}

function send(message) { if (socket && socket.readyState === 1) socket.send(JSON.stringify(message)); }

function connect(room, token) {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(proto + "://" + location.host + "/ws/" + room + (token ? "?token=" + encodeURIComponent(token) : ""));
  socket.onmessage = ev => {
    const m = JSON.parse(ev.data);
    if (m.type === "state") {
      const key = m.room + ":" + m.hand_no;
      if (m.commitment && !(key in seenCommitments)) seenCommitments[key] = m.commitment;
      state = m; render();
    }
    else if (m.type === "hint") $("hint").textContent = "hu-xi " + m.huxi + " · 听牌: " + (m.waits.map(w => w.win + " (" + w.huxi + " 胡息, " + w.score + ")").join(", ") || "none");
    else if (m.type === "error") $("status").textContent = "⚠ " + m.message;
  };
  socket.onclose = () => { $("status").textContent = "disconnected — reconnecting…"; setTimeout(() => connect(room, token), 1500); };
}

async function loadHistory() {
  if (!state) return;
  const list = await (await fetch("/api/rooms/" + state.room + "/hands")).json();
  const ul = $("history"); ul.innerHTML = "";
  list.forEach(h => {
    const li = document.createElement("li");
    const b = document.createElement("button"); b.textContent = "replay hand " + (h.n + 1);
    b.onclick = () => openReplay(h.n);
    li.append(b, " winner: " + (h.winner === null ? "荒庄" : seatName(h.winner)) + (h.score ? ", 底数 " + h.score : ""));
    ul.appendChild(li);
  });
}
async function openReplay(n) {
  frames = await (await fetch("/api/rooms/" + state.room + "/hands/" + n + "/frames")).json();
  frame = 0; $("replay").hidden = false; showFrame();
}
function showFrame() {
  const f = frames[frame], v = $("replay-view"); v.innerHTML = "";
  $("replay-step").textContent = " step " + frame + "/" + (frames.length - 1) + (f.action ? ": " + f.action : " ");
  f.events.forEach(e => { const p = document.createElement("div"); p.textContent = "· " + describe(e); v.appendChild(p); });
  for (let i = 0; i < 3; i++) {
    const box = document.createElement("div"); box.className = "seat";
    box.innerHTML = "<h3>seat " + i + "</h3>";
    const h = document.createElement("div"); h.className = "cards"; cardsOf(f.position.hands[i]).forEach(c => h.appendChild(card(c)));
    const t = document.createElement("div"); t.className = "groups"; f.position.tables[i].forEach(g => t.appendChild(group(g)));
    box.append(h, t); v.appendChild(box);
  }
}

async function createRoom(bots) {
  const response = await fetch("/api/rooms", {method: "POST", headers: {"Content-Type": "application/json"},
    body: JSON.stringify({bots: bots, timer: +$("timer").value})});
  return response.json();
}

function start() {
  const path = location.pathname.match(/^\/room\/([\w-]+)/), token = new URLSearchParams(location.search).get("token");
  if (path) { connect(path[1], token); return; }
  $("lobby").hidden = false;
  $("vs-bots").onclick = async () => {
    const level = $("level").value, room = await createRoom([null, level, level]);
    location.href = room.seats[0].url.replace(/^https?:\/\/[^/]+/, "");
  };
  $("with-friends").onclick = async () => {
    const room = await createRoom([null, null, $("level").value]);
    const ul = $("invite-list"); ul.innerHTML = "";
    room.seats.filter(s => s.url && s.seat !== 0).forEach(s => {
      const li = document.createElement("li"); const a = document.createElement("a");
      a.href = s.url; a.textContent = "seat " + s.seat + ": " + s.url; a.className = "invite"; li.appendChild(a); ul.appendChild(li);
    });
    $("invites").hidden = false;
    $("enter").onclick = () => { location.href = room.seats[0].url.replace(/^https?:\/\/[^/]+/, ""); };
  };
}
$("hint-button").onclick = () => send({type: "hint"});
$("next-hand").onclick = () => send({type: "next"});
$("settle-close").onclick = () => { $("settlement").hidden = true; };
$("replay-prev").onclick = () => { if (frame > 0) { frame--; showFrame(); } };
$("replay-next").onclick = () => { if (frame < frames.length - 1) { frame++; showFrame(); } };
$("replay-close").onclick = () => { $("replay").hidden = true; };
setInterval(() => { if (state && state.deadline) { state.deadline = Math.max(0, state.deadline - 1); renderInfo(); } }, 1000);
start();

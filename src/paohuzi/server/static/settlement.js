// The settlement of a hand (R10.6): the winning groups with their 胡息, the figures, the
// payments, the others' hands, the wall left, the match's standings, and the fair deal checked.
import {t} from "./i18n.js";
import {cardsName, cardsOf} from "./cards.js";
import {ui} from "./state.js";
import {$, badge, el, handColumns, identity, isPerson, mini, playerName, sitsOut, who} from "./shared.js";
import {loadHistory} from "./table.js";

export function renderReady(button, note) {
  const s = ui.state;
  const mine = s.you !== null && !ui.replaying && !(ui.lesson || ui.puzzle);
  const rematch = !!(s.match && s.match.over);
  button.hidden = !mine;
  button.disabled = !mine || s.ready[s.you];
  button.textContent = mine && s.ready[s.you] ? t("ready_badge") : t(rematch ? "rematch" : "ready");
  if (ui.replaying || ui.lesson || ui.puzzle) { note.textContent = ""; return; }
  const missing = s.seats.map((_, seat) => seat).filter(seat => isPerson(seat) && !s.ready[seat]);
  note.textContent = !missing.length ? t("ready_all") :
    mine && s.ready[s.you] ? t("ready_done") + " " + t("ready_wait", {who: missing.map(who).join("、")}) :
      t("ready_wait", {who: missing.map(who).join("、")});
}

function settlementGroups(r, reveal) {
  const box = $("settle-groups");
  box.replaceChildren();
  r.groups.forEach((g, i) => {
    const [type, body] = g.split(":");
    const col = el("div", "sgroup g-" + type);
    const stack = el("div", "stack");
    // The one card that won, in the group the server says holds it (not every card of its
    // kind: a 坎 of the same kind was held before the win).
    let marked = i !== reveal.winning_group;
    cardsOf(body).forEach(k => {
      const c = mini(k, "small-card");
      if (!marked && k === r.winning_card) { c.classList.add("winning"); marked = true; }
      stack.appendChild(c);
    });
    col.append(stack, el("span", "glabel", t("g_" + type)), el("b", "ghuxi", String(reveal.group_huxi[i] ?? "")));
    col.setAttribute("role", "img");
    col.setAttribute("aria-label", t("a_group", {type: t("g_" + type), cards: cardsName(cardsOf(body), t), huxi: reveal.group_huxi[i]}));
    box.appendChild(col);
  });
}

function figure(list, name, value, note) {
  const row = el("div", "fig");
  row.append(el("dt", "", name), el("dd", "", value));
  if (note) row.appendChild(el("dd", "note", note));
  list.appendChild(row);
}

export function renderSettlement() {
  const s = ui.state, r = s.result, reveal = s.reveal;
  if (!r || !reveal) return;
  $("settle-title").textContent = r.winner === null ? t("settle_draw") :
    (r.winner === s.you ? t("settle_you") : t("settle_win", {who: who(r.winner)}));
  const badges = $("settle-badges");
  badges.replaceChildren();
  if (r.winning_card) { const b = badge(t("on_card", {card: ""}), "on"); b.appendChild(mini(r.winning_card)); badges.appendChild(b); }
  if (r.self_drawn) badges.appendChild(badge(t("self_drawn"), "zimo"));
  if (r.tianhu) badges.appendChild(badge(t("tianhu"), "tianhu"));
  if (r.haidi) badges.appendChild(badge(t("haidi"), "haidi"));
  if (r.winner === null) badges.appendChild(el("span", "", t("settle_draw_note")));
  settlementGroups(r, reveal);
  const figs = $("settle-figures");
  figs.replaceChildren();
  if (r.winner !== null) {
    figure(figs, t("f_huxi"), String(r.huxi));
    // 等 from 胡息 (R10.1): how many this rule set gives, said beside the figure.
    const rule = reveal.deng_step ? t("f_deng_rule", {base: reveal.deng_base, step: reveal.deng_step}) : "";
    const self = reveal.self_draw_deng ? t("f_deng_self", {n: reveal.self_draw_deng}) : "";
    figure(figs, t("f_deng"), String(r.deng), [rule, self].filter(Boolean).join(t("list_sep")));
    const names = r.mingtang.map(m => t("f_fan_each", {name: t("mt_" + m.name) === "mt_" + m.name ? m.name : t("mt_" + m.name), fan: m.fan}));
    if (!names.length) names.push(t("f_fan_each", {name: t("f_none"), fan: 1}));
    if (reveal.haidi_fan) names.push(t("f_haidi", {n: reveal.haidi_fan}));
    figure(figs, t("f_mingtang"), names.join(" · "));
    figure(figs, t("f_fan"), String(r.fan));
    figure(figs, t("f_score"), String(r.score), r.deng + " × " + r.fan);
  }
  const pay = $("settle-payments");
  pay.replaceChildren();
  const head = pay.insertRow();
  // A replay shows one hand: its points, not a running total it does not know.
  const columns = ui.replaying || ui.lesson || ui.puzzle ? [t("col_seat"), t("col_paid")] : [t("col_seat"), t("col_paid"), t("col_total")];
  columns.forEach(h => head.appendChild(el("th", "", h)));
  r.payments.forEach((p, seat) => {
    const tr = pay.insertRow();
    if (seat === s.you) tr.className = "you";
    tr.insertCell().textContent = who(seat) + (s.seats[seat].name ? " " + playerName(s.seats[seat].name) : "") + (seat === s.dealer ? " · " + t("dealer") : "");
    const cell = tr.insertCell();
    cell.textContent = (p > 0 ? "+" : "") + p;
    cell.className = p > 0 ? "plus" : p < 0 ? "minus" : "";
    if (!ui.replaying && !(ui.lesson || ui.puzzle)) tr.insertCell().textContent = String(s.totals[seat]);
  });
  const others = $("settle-others");
  others.replaceChildren(el("h3", "", t("others")));
  s.seats.forEach((_, seat) => {
    if (seat === r.winner || sitsOut(seat)) return;
    const box = el("div", "other");
    const title = el("p", "");
    title.append(el("b", "", who(seat)), document.createTextNode(" · " + t("others_huxi", {n: r.other_huxi[String(seat)] ?? 0})));
    box.appendChild(title);
    const line = el("div", "reveal");
    const groups = reveal.tables[seat] || [];
    if (groups.length) line.appendChild(el("span", "label", t("groups_label")));
    groups.forEach(g => {
      const [type, body] = g.split(":");
      const grp = el("span", "rgroup");
      cardsOf(body).forEach(k => grp.appendChild(mini(k)));
      grp.title = t("g_" + type);
      line.appendChild(grp);
    });
    line.appendChild(el("span", "label", t("in_hand")));
    line.append(...handColumns(reveal.hands[seat]));
    box.appendChild(line);
    others.appendChild(box);
  });
  const wall = cardsOf(reveal.wall);
  $("settle-wall-title").textContent = wall.length ? t("wall_left", {n: wall.length}) : t("wall_empty");
  $("settle-wall").replaceChildren(...wall.map(k => mini(k)));
  renderReady($("ready"), $("settle-ready-note"));
  renderStandings();
}

/** At the end of a match: everyone's total, the best first, and the rematch (same seats). */
function renderStandings() {
  const s = ui.state, over = !ui.replaying && !!(s.match && s.match.over);
  $("match-end").hidden = !over;
  if (!over) return;
  const order = s.seats.map((_, seat) => seat).sort((a, b) => s.totals[b] - s.totals[a]);
  $("standings").replaceChildren(...order.map(seat => {
    const li = el("li", seat === s.you ? "you" : "");
    li.append(el("b", "", who(seat)), " " + identity(seat) + " ", el("span", "total", (s.totals[seat] > 0 ? "+" : "") + s.totals[seat]));
    return li;
  }));
}

export function openSettlement() {
  renderSettlement();
  $("settlement").hidden = false;
  const ready = $("ready");
  (ready.disabled || ready.hidden ? $("settle-close") : ready).focus({preventScroll: true});
  loadHistory();
  verifyDeal(ui.state);
}

export function closeSettlement() {
  $("settlement").hidden = true;
  $("show-settlement").focus();
}

// Fair deals (docs/security.md): the commitment shown at the deal must open to the record's deck.
async function verifyDeal(s) {
  const out = $("settle-deal"), seen = ui.seenCommitments[s.room + ":" + s.hand_no];
  out.textContent = "";
  out.className = "";
  delete out.dataset.ok;  // (the previous hand's check)
  if (!seen) return;
  try {
    const record = await (await fetch("/api/rooms/" + s.room + "/hands/" + (s.hand_no - 1) + "/record")).json();
    const deal = record.deal || {};
    if (!window.crypto || !crypto.subtle) {
      out.textContent = t("verify_manual", {c: seen.slice(0, 16)});
      return;
    }
    // paohuzi-deal/2 commits to the deal's terms (hand, dealer, rules) too: `paohuzi verify`
    // also checks that they are the record's.
    const text = deal.scheme === "paohuzi-deal/2"
      ? deal.scheme + "\n" + deal.salt + "\n" + deal.terms + "\n" + record.deck
      : "paohuzi-deal/1\n" + deal.salt + "\n" + record.deck;
    const bytes = new TextEncoder().encode(text);
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    const hex = Array.from(digest, b => b.toString(16).padStart(2, "0")).join("");
    const sameHand = deal.scheme !== "paohuzi-deal/2" || JSON.parse(deal.terms).hand === s.hand_no - 1;
    const ok = hex === deal.commitment && deal.commitment === seen && sameHand;
    out.textContent = ok ? t("verified") : t("unverified");
    out.className = ok ? "verified" : "unverified";
    out.dataset.ok = String(ok);
  } catch (e) {
    out.textContent = "";
  }
}

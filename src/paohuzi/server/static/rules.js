// The rules page: what RULES.md says (the QQ hall's Hunan rules), in Chinese and English, with
// the cards of each group drawn and the 名堂 table. Section numbers follow RULES.md (R1 …).
import {t, lang} from "./i18n.js";
import {cardEl, cardsOf} from "./cards.js";

const el = (tag, className = "", text = "") => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text) node.textContent = text;
  return node;
};

/** Each section: its number, title and paragraphs in both languages. */
const SECTIONS = [
  {id: "R1", zh: "牌", en: "Cards", body: {
    zh: ["80张牌：一到十、壹到拾，小字和大字各十种，每种四张。", "二、七、十（贰、柒、拾）是红字，一共24张；其他是黑字。"],
    en: ["80 cards: ranks 1–10 in two sizes, small (一…十) and big (壹…拾), four of each of the 20 kinds.", "Ranks 2, 7 and 10 of both sizes are red (24 cards); the others are black."],
  }, cards: ["x1 x2 x3 x4 x5 x6 x7 x8 x9 x10", "d1 d2 d3 d4 d5 d6 d7 d8 d9 d10"]},
  {id: "R2", zh: "座位、庄家和发牌", en: "Seats, the dealer and the deal", body: {
    zh: ["三个人玩，按座位顺序轮流；你的下一位是下家，上一位是上家。", "庄家拿21张（第21张是亮张，大家都看得见），其他人各20张，剩下19张是墩。", "四个人玩时，庄家对面的人这一局轮空。"],
    en: ["Three players, in seat order; the one after you is your 下家, the one before your 上家.", "The dealer gets 21 cards (the 21st, the 亮张, is shown to all), the others 20; the 19 left are the wall.", "With four at the table, the seat opposite the dealer sits the hand out."],
  }},
  {id: "R3", zh: "门子和胡息", en: "Groups and 胡息", body: {
    zh: ["三张成一方门子；胡牌要七方门子（带一对将）。每方门子有胡息：", "坎在手里是锁住的：不能拆开吃、比，也不能打出。"],
    en: ["Three cards make a group (门子); a winning hand is seven groups (with one pair). Each group is worth 胡息:", "A 坎 in hand is locked: it cannot be split to 吃 or 比 nor discarded."],
  }, groups: [  // a small example and a big one, as 胡息 are counted small / big
    ["run", "x4x5x6 d4d5d6", "0"], ["run", "x1x2x3 d1d2d3", "3 / 6"], ["run", "x2x7x10 d2d7d10", "3 / 6"],
    ["jiao", "x5x5d5 x5d5d5", "0"], ["kan", "x8x8x8 d8d8d8", "3 / 6"], ["peng", "x9x9x9 d9d9d9", "1 / 3"],
    ["wei", "x3x3x3 d3d3d3", "3 / 6"], ["pao", "x6x6x6x6 d6d6d6d6", "6 / 9"], ["ti", "x10x10x10x10 d10d10d10d10", "9 / 12"],
    ["pair", "x2x2 d2d2", "0"],
  ]},
  {id: "R4", zh: "摸牌和打牌", en: "Drawing and discarding", body: {
    zh: ["轮到的人从墩上摸一张亮出来。能提、偎的自动提、偎；能跑的自动跑。", "大家可以胡这张牌，别人可以碰，摸牌的人和他的下家可以吃（胡先，跑和碰其次，吃最后，摸牌的人比下家先）。没人要就放到摸牌人面前，下家摸牌。", "吃或碰之后要打出一张；打出的牌别人可以碰，下家可以吃（默认不能胡打出的牌）。"],
    en: ["On your turn you draw a card from the wall and show it. 提 and 偎 are made for you; so is 跑.", "Anyone may 胡 it, the others may 碰 it, the drawer and his 下家 may 吃 it (胡 first, then 跑 and 碰, then 吃, the drawer before his 下家). Unclaimed, it lies before the one who drew it and his 下家 draws.", "After a 吃 or 碰 you discard one card; a discard may be 碰'd by anyone, 吃'd by your 下家 (by default it cannot be won on)."],
  }},
  {id: "R5", zh: "提、跑、偎", en: "提, 跑 and 偎", body: {
    zh: ["提：四张一样的都是自己的（摸到第四张，或发牌时就有）。", "跑：手里有坎或桌上有碰、偎，别人摸出或打出第四张。", "偎：手里一对，自己摸到第三张；偎的牌别人看不见。"],
    en: ["提: four of a kind all your own (the fourth drawn by you, or dealt).", "跑: the fourth card of your 坎 or of a 碰 or 偎 on your table, drawn or discarded by another.", "偎: your pair and a third card you drew; others cannot see a 偎's cards."],
  }},
  {id: "R7", zh: "吃和比", en: "吃 and 比", body: {
    zh: ["吃：用手里的两张和这张牌组成一句话或绞。手里还有同样的牌时，要一起比出去（比牌）。", "臭牌：能吃、碰却过掉的牌，这一局不能再吃、碰。"],
    en: ["吃: two cards of your hand and the card make a sequence or 绞. Any further copy of that card in your hand must be laid out too, in another group (比).", "臭: a card you could have taken and passed may not be taken again this hand."],
  }},
  {id: "R9", zh: "胡牌", en: "Winning", body: {
    zh: ["七方门子、胡息至少15才能胡。只能胡墩上摸出来亮明的牌和亮张。", "能胡不胡：胡息没变之前不能再胡这种牌（臭胡）。", "天胡：发牌后有三个提，或五个以上坎和提，自动胡；也可以用亮张胡。"],
    en: ["Seven groups and at least 15 胡息 win. Only a card shown from the wall, or the 亮张, can be won on.", "A win passed up may not be taken on that kind again until your 胡息 changes (臭胡).", "天胡: three 提, or five 坎 and 提 together, after the deal win at once; the 亮张 may also be won on."],
  }},
  {id: "R10", zh: "算分", en: "Scoring", body: {
    zh: ["15胡息为1等，每多3胡息加1等；自摸加1等。", "番：没有名堂为平胡1番；有名堂时各名堂的番相加；海底胡加1番。", "底数 = 等 × 番，另外两家各付给赢家底数。荒庄不计分。"],
    en: ["15 胡息 is 1 等, each further 3 胡息 one more; a self-drawn win adds 1 等.", "番: a hand with no 名堂 is 平胡, 1 番; 名堂 add up their 番; winning on the last card (海底胡) adds 1.", "Points = 等 × 番, paid by each of the other two players. A draw (荒庄) pays nothing."],
  }},
  {id: "R11", zh: "一局和一场", en: "Hands and the match", body: {
    zh: ["有人胡或墩摸完（荒庄）一局结束。赢家坐庄；荒庄庄家连庄，连续三次荒庄由下家坐庄。"],
    en: ["A hand ends with a win or an empty wall (荒庄). The winner deals next; after a 荒庄 the dealer deals again, after three in a row his 下家 deals."],
  }},
];

const MINGTANG = [
  ["红胡", "10–12", "2", "x2 x7 x10 d2 d7 d10 x2 x7 x10 d2"],
  ["红乌", "13+", "4", "x2 x7 x10 d2 d7 d10 x2 x7 x10 d2 d7 d10 x2"],
  ["点胡", "1", "3", "x7"],
  ["乌胡", "0", "5", "x1 x3 d5"],
  ["对对胡", "", "4", "x5 x5 x5"],
  ["大字胡", "18+", "6+", "d1 d3 d5 d8"],
  ["小字胡", "16+", "8+", "x1 x3 x5 x8"],
];

function cardsRow(text, size = "mini") {
  const row = el("div", "row");
  cardsOf(text).forEach(k => row.appendChild(cardEl(k, t, size)));
  return row;
}

export function renderRules(box) {
  box.replaceChildren();
  const title = el("h2", "", t("rules_title"));
  title.id = "rules-title";
  box.append(title, el("p", "lead", t("rules_lead")));
  const nav = el("nav", "toc");
  SECTIONS.forEach(s => { const a = el("a", "", s.id + " " + s[lang]); a.href = "#" + s.id; nav.appendChild(a); });
  const mt = el("a", "", "名堂"); mt.href = "#mingtang"; nav.appendChild(mt);
  box.appendChild(nav);
  SECTIONS.forEach(s => {
    const part = el("section", "rule");
    part.id = s.id;
    part.appendChild(el("h3", "", s.id + " " + s[lang] + (lang === "en" ? " · " + s.zh : "")));
    s.body[lang].forEach((p, i) => {
      part.appendChild(el("p", "", p));
      if (s.groups && i === 0) part.appendChild(groupTable(s.groups));
    });
    (s.cards || []).forEach(c => part.appendChild(cardsRow(c)));
    box.appendChild(part);
  });
  const part = el("section", "rule");
  part.id = "mingtang";
  part.append(el("h3", "", t("mt_title")), el("p", "", t("mt_lead")));
  const table = el("table", "mingtang");
  const head = table.insertRow();
  [t("mt_name"), t("mt_cond"), t("f_fan"), t("mt_example")].forEach(h => head.appendChild(el("th", "", h)));
  MINGTANG.forEach(([name, count, fan, cards]) => {
    const row = table.insertRow();
    row.insertCell().textContent = name;
    row.insertCell().textContent = t("mtc_" + name, {n: count});
    row.insertCell().textContent = fan;
    row.insertCell().appendChild(cardsRow(cards));
  });
  part.append(table, el("p", "", t("mt_haidi")));
  box.appendChild(part);
  const back = el("a", "button", t("p_new"));
  back.href = "/";
  box.appendChild(back);
}

function groupTable(groups) {
  const table = el("table", "groups-table");
  const head = table.insertRow();
  [t("rg_group"), t("rg_cards"), t("rg_huxi")].forEach(h => head.appendChild(el("th", "", h)));
  groups.forEach(([type, body, huxi]) => {
    const row = table.insertRow();
    const first = body.split(" ")[0];
    row.insertCell().textContent = t("g_" + type) + (type === "run" && huxi !== "0" ? " " + cardsOf(first).map(k => k.slice(1)).join("-") : "");
    const examples = el("div", "examples");
    body.split(" ").forEach(example => {  // each a column, as at the table
      const group = el("div", "group g-" + type), stack = el("div", "stack");
      cardsOf(example).forEach(k => stack.appendChild(cardEl(k, t, "mini")));
      group.appendChild(stack);
      examples.appendChild(group);
    });
    row.insertCell().appendChild(examples);
    row.insertCell().textContent = huxi;
  });
  return table;
}

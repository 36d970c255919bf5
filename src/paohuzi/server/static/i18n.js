// Every string of the page, in Chinese and English. The browser's language picks one, the
// toggle in the header switches (remembered). scripts/make_font.py reads this file for the
// glyphs of the shipped font: a string added here is in the font after `make_font`.
export const MESSAGES = {
  zh: {
    lang_switch: "EN", lang_switch_label: "Switch to English",
    subtitle: "湖南字牌", sound_on: "声音", sound_off: "静音", sound_label: "声音开关",
    small: "小字", big: "大字", red: "红字", face_down: "扣着的牌",
    you: "你", next: "下家", prev: "上家", across: "对家", seat_n: "{n}号位",
    player: "玩家", bot: "电脑", bot_greedy: "电脑·普通", bot_expert: "电脑·高手", bot_random: "电脑·随机",
    dealer: "庄", dealer_label: "庄家", cards_n: "{n}张", total: "总分", huxi: "胡息",
    sits_out: "本局轮空", ready_badge: "已准备", not_ready: "未准备", tuoguan_badge: "托管",
   
    wall: "墩", liang: "亮张", hand_no: "第{n}局",
    offer_drawn: "{who}摸出", offer_discarded: "{who}打出", offer_liang: "亮张",
    st_discard: "轮到你出牌", how_discard: "点一张牌，再点一次打出；也可以把牌向上拖出",
    st_claim: "{card}：要不要？", st_selfhu: "可以胡牌了！", st_wait_discard: "等{who}出牌",
    st_wait_claims: "等其他人决定", st_over: "本局结束", st_watch: "观战中", st_auto: "托管中：电脑替你出牌",
    act_hu: "胡", act_peng: "碰", act_chi: "吃", act_pass: "过", bi: "比",
    chi_choose: "选一种吃法", keys: "快捷键：H 胡 · P 碰 · C 吃 · G 过 · 数字选吃法",
    discard_card: "打出{card}", locked: "坎，不能拆", not_legal: "这张现在不能打",
    sort: "理牌", ting: "听牌", left_n: "剩{n}张", pts: "{n}分", huxi_n: "胡息 {n}", huxi_now: "当前胡息 {n}（门子加手牌）",
    a_hand: "你的手牌", a_groups: "{who}的门子", a_discards: "{who}打过和没人要的牌",
    a_group: "{type}：{cards}，{huxi}胡息",
    timer_s: "{s}秒", tuoguan_on: "托管中：电脑替你出牌", tuoguan_cancel: "取消托管",
    tuoguan_start: "托管", tuoguan_title: "让电脑替你出牌，直到你取消",
    timed_out_you: "时间到：已替你{action}，并进入托管", timed_out_other: "{who}超时：系统替他{action}",
    played_pass: "选择过", played_discard: "打出{card}", played_other: "{action}",
    ev_deal: "发牌，{who}坐庄", ev_liang: "亮张：{card}", ev_draw: "{who}摸牌", ev_draw_card: "{who}摸到{card}",
    ev_show: "{who}摸出{card}", ev_ti: "{who}提{card}", ev_wei: "{who}偎{card}", ev_wei_hidden: "{who}偎了一张牌",
    ev_chouwei: "{who}臭偎{card}", ev_pao: "{who}跑{card}", ev_chi: "{who}吃{card}", ev_peng: "{who}碰{card}",
    ev_discard: "{who}打出{card}", ev_passed: "没人要{card}", ev_hu: "{who}胡了", ev_hu_card: "{who}胡{card}",
    ev_huangzhuang: "荒庄：底牌摸完，没人胡",
    settle_you: "你胡了！", settle_win: "{who}胡了", settle_draw: "荒庄", settle_draw_note: "底牌摸完，没人胡：本局不计分",
    on_card: "胡{card}", self_drawn: "自摸", tianhu: "天胡", haidi: "海底胡",
    g_kan: "坎", g_pair: "将", g_run: "一句话", g_jiao: "绞", g_chi: "吃", g_peng: "碰", g_wei: "偎",
    g_chouwei: "臭偎", g_pao: "跑", g_ti: "提", g_left: "散牌",
    f_huxi: "胡息", f_deng: "等", f_deng_self: "含自摸 +{n}等", f_mingtang: "名堂", f_none: "平胡",
    f_fan_each: "{name} {fan}番", f_haidi: "海底 +{n}番", f_fan: "番", f_score: "底数",
    payments: "结算", col_seat: "座位", col_paid: "本局", col_total: "总分",
    others: "其他玩家的牌", others_huxi: "当前胡息 {n}",
    wall_left: "剩下的底牌（{n}张）", wall_empty: "底牌已摸完",
    ready: "准备", ready_done: "已准备，等其他人…", ready_wait: "等待：{who}", ready_all: "人齐了，马上发牌",
    close: "收起", show_settlement: "查看结算",
    verified: "√ 牌局已验证：发牌承诺与记录一致", unverified: "× 牌局验证失败：发牌承诺与记录不符",
    verify_manual: "发牌承诺 {c}…：可用 paohuzi verify 核对",
    new_game: "新的一局", opponents: "对手", lvl_greedy: "电脑·普通", lvl_expert: "电脑·高手（每步想一秒左右）",
    lvl_random: "电脑·随机", timer_label: "每步限时（秒，0 为不限时）",
    vs_bots: "和两个电脑对战", with_friends: "和朋友一起玩（发邀请链接）", invites_title: "邀请链接",
    invites_note: "每个座位一个链接，发给朋友。第三个座位是电脑。人齐了、每个人都准备好，才会发下一局。",
    invite_seat: "{n}号位", copy: "复制", copied: "已复制", enter: "入座",
    err_timer: "限时填 0（不限时）或 5 到 300 秒", err_level: "没有这个电脑级别", err_rate: "创建房间太频繁了，请过一分钟再试",
    err_full: "服务器满了，请稍后再试", err_network: "连不上服务器，请检查网络后再试", err_other: "服务器拒绝了：{detail}",
    p_room_title: "找不到这个房间", p_room_body: "房间可能已经关闭（一天没人玩会自动关闭），也可能链接不完整。",
    p_token_title: "邀请链接无效", p_token_body: "链接里的座位密钥对不上。请向开房的朋友要一个新链接，或者先观战。",
    p_full_title: "房间里的人太多了", p_full_body: "这个房间的观战人数已满，请稍后再试。",
    p_closed_title: "房间已经关闭", p_closed_body: "一天没人玩，房间已关闭。打完的牌局仍然可以回放。",
    p_new: "开新局", p_watch: "观战", p_retry: "重试",
    conn_lost: "连接中断，正在重连（第{n}次）…", conn_restart: "服务器正在重启，稍后自动重连（第{n}次）…",
    conn_back: "已重新连上",
    log: "牌局记录", history: "历史牌局与回放", replay_hand: "回放第{n}局", replay_winner: "赢家：{who}",
    replay_draw: "荒庄", replay_step: "第{i}/{n}步", score_n: "底数{n}",
    chou: "臭牌", chou_title: "这些牌本局你不能再吃或碰",
    e_turn: "还没轮到你", e_stale: "牌局已经往下走了，请再选一次", e_over: "本局已经结束",
    e_save: "服务器没能保存这一步，什么也没变，请再试一次", e_slow: "操作太快了，请慢一点", in_hand: "手牌", groups_label: "门子",
    mt_红胡: "红胡", mt_红乌: "红乌", mt_点胡: "点胡", mt_乌胡: "乌胡", mt_对对胡: "对对胡", mt_大字胡: "大字胡", mt_小字胡: "小字胡",
  },
  en: {
    lang_switch: "中文", lang_switch_label: "切换到中文",
    subtitle: "Hunan zi pai", sound_on: "Sound", sound_off: "Muted", sound_label: "Sound on or off",
    small: "small", big: "big", red: "red", face_down: "face-down card",
    you: "You", next: "Right 下家", prev: "Left 上家", across: "Across 对家", seat_n: "Seat {n}",
    player: "Player", bot: "Bot", bot_greedy: "Bot · greedy", bot_expert: "Bot · expert", bot_random: "Bot · random",
    dealer: "庄", dealer_label: "Dealer (庄)", cards_n: "{n} cards", total: "Score", huxi: "胡息",
    sits_out: "Sits out", ready_badge: "Ready", not_ready: "Not ready", tuoguan_badge: "托管 auto",
   
    wall: "Wall", liang: "亮张", hand_no: "Hand {n}",
    offer_drawn: "{who} drew", offer_discarded: "{who} discarded", offer_liang: "The 亮张",
    st_discard: "Your turn to discard", how_discard: "Tap a card, then tap it again to discard it, or drag it up",
    st_claim: "{card}: will you take it?", st_selfhu: "You can win!", st_wait_discard: "Waiting for {who} to discard",
    st_wait_claims: "Waiting for the others", st_over: "Hand over", st_watch: "Watching", st_auto: "托管: the computer plays for you",
    act_hu: "Win", act_peng: "Peng", act_chi: "Chi", act_pass: "Pass", bi: "比 bi",
    chi_choose: "Choose how to 吃", keys: "Keys: H win · P peng · C chi · G pass · digits pick a 吃",
    discard_card: "Discard {card}", locked: "坎: locked", not_legal: "This card cannot be discarded now",
    sort: "Sort", ting: "Waiting on", left_n: "{n} left", pts: "{n} pts", huxi_n: "{n} 胡息", huxi_now: "{n} 胡息 now (open groups and hand)",
    a_hand: "Your hand", a_groups: "{who}: open groups", a_discards: "{who}: discarded and passed cards",
    a_group: "{type}: {cards}, {huxi} 胡息",
    timer_s: "{s} s", tuoguan_on: "托管: the computer plays for you", tuoguan_cancel: "Take back control",
    tuoguan_start: "托管", tuoguan_title: "Let the computer play for you until you take back control",
    timed_out_you: "Time ran out: {action} was played for you, and 托管 is on", timed_out_other: "{who} ran out of time: the server played {action}",
    played_pass: "pass", played_discard: "discard {card}", played_other: "{action}",
    ev_deal: "Deal: {who} is dealer", ev_liang: "亮张: {card}", ev_draw: "{who} draws", ev_draw_card: "{who} draws {card}",
    ev_show: "{who} shows {card}", ev_ti: "{who}: 提 {card}", ev_wei: "{who}: 偎 {card}", ev_wei_hidden: "{who}: 偎 (face down)",
    ev_chouwei: "{who}: 臭偎 {card}", ev_pao: "{who}: 跑 {card}", ev_chi: "{who}: 吃 {card}", ev_peng: "{who}: 碰 {card}",
    ev_discard: "{who} discards {card}", ev_passed: "nobody takes {card}", ev_hu: "{who} wins", ev_hu_card: "{who} wins on {card}",
    ev_huangzhuang: "荒庄: the wall is empty, nobody wins",
    settle_you: "You win!", settle_win: "{who} wins", settle_draw: "荒庄: a draw", settle_draw_note: "The wall ran out: nobody pays",
    on_card: "on {card}", self_drawn: "自摸 self-drawn", tianhu: "天胡 heavenly hand", haidi: "海底胡 last card",
    g_kan: "坎 kan", g_pair: "将 pair", g_run: "run", g_jiao: "绞 jiao", g_chi: "吃 chi", g_peng: "碰 peng", g_wei: "偎 wei",
    g_chouwei: "臭偎", g_pao: "跑 pao", g_ti: "提 ti", g_left: "left over",
    f_huxi: "胡息 hu-xi", f_deng: "等 deng", f_deng_self: "incl. 自摸 +{n} 等", f_mingtang: "名堂", f_none: "平胡 plain",
    f_fan_each: "{name} {fan} 番", f_haidi: "海底 +{n} 番", f_fan: "番 fan", f_score: "底数 points",
    payments: "Payments", col_seat: "Seat", col_paid: "This hand", col_total: "Match",
    others: "The other hands", others_huxi: "current 胡息 {n}",
    wall_left: "The wall left ({n} cards)", wall_empty: "The wall was drawn to the end",
    ready: "Ready", ready_done: "Ready: waiting for the others…", ready_wait: "Waiting for: {who}", ready_all: "Everyone is ready: dealing",
    close: "Close", show_settlement: "Show the settlement",
    verified: "√ deal verified: the deal's commitment opens to the record", unverified: "× deal NOT verified: the commitment does not match",
    verify_manual: "deal commitment {c}…: check with paohuzi verify",
    new_game: "New game", opponents: "Opponents", lvl_greedy: "Bot · greedy", lvl_expert: "Bot · expert (thinks ~1 s)",
    lvl_random: "Bot · random", timer_label: "Seconds per decision (0: no limit)",
    vs_bots: "Play against two bots", with_friends: "Play with friends (invite links)", invites_title: "Invite links",
    invites_note: "One secret link per seat: send them to your friends. The third seat is a bot. The next hand deals when everyone is ready.",
    invite_seat: "Seat {n}", copy: "Copy", copied: "Copied", enter: "Take my seat",
    err_timer: "The timer is 0 (none) or 5 to 300 seconds", err_level: "Unknown bot level", err_rate: "Too many rooms from your address: wait a minute",
    err_full: "The server is full; try again later", err_network: "Cannot reach the server: check your connection and try again", err_other: "The server refused: {detail}",
    p_room_title: "No such room", p_room_body: "The room may have closed (rooms close after a day without play), or the link is incomplete.",
    p_token_title: "This invite link is not valid", p_token_body: "The seat key in the link does not match. Ask your friend for a new link, or watch meanwhile.",
    p_full_title: "The room is full", p_full_body: "This room has as many watchers as it takes. Try again later.",
    p_closed_title: "This room has closed", p_closed_body: "Nobody played for a day, so the room closed. Its finished hands can still be replayed.",
    p_new: "Start a new game", p_watch: "Watch", p_retry: "Try again",
    conn_lost: "Connection lost: reconnecting (attempt {n})…", conn_restart: "The server is restarting: reconnecting (attempt {n})…",
    conn_back: "Reconnected",
    log: "Table log", history: "Finished hands & replay", replay_hand: "Replay hand {n}", replay_winner: "winner: {who}",
    replay_draw: "荒庄", replay_step: "step {i}/{n}", score_n: "底数 {n}",
    chou: "臭牌", chou_title: "Cards you may no longer 吃 or 碰 this hand",
    e_turn: "It is not your turn", e_stale: "The game has moved on: choose again", e_over: "The hand is over",
    e_save: "The server could not save this move; nothing changed, try again", e_slow: "Too many clicks: slow down", in_hand: "hand", groups_label: "open groups",
    mt_红胡: "红胡 red (10–12)", mt_红乌: "红乌 red (13+)", mt_点胡: "点胡 one red", mt_乌胡: "乌胡 no red",
    mt_对对胡: "对对胡 no runs", mt_大字胡: "大字胡 big cards", mt_小字胡: "小字胡 small cards",
  },
};

const KEY = "paohuzi.lang";
const stored = localStorage.getItem(KEY);
export let lang = stored in MESSAGES ? stored : ((navigator.language || "").toLowerCase().startsWith("zh") ? "zh" : "en");

export function setLang(value) {
  lang = value;
  localStorage.setItem(KEY, value);
  document.documentElement.lang = value === "zh" ? "zh-Hans" : "en";
}

/** The message ``key`` in the current language, with ``{name}`` filled from ``params``. */
export function t(key, params = {}) {
  const text = MESSAGES[lang][key] ?? MESSAGES.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in params ? params[name] : "{" + name + "}"));
}

/** Fill every element marked ``data-i18n`` with its message. */
export function translatePage() {
  document.documentElement.lang = lang === "zh" ? "zh-Hans" : "en";
  document.querySelectorAll("[data-i18n]").forEach(el => { el.textContent = t(el.dataset.i18n); });
}

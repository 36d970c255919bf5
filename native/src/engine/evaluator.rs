//! The evaluator (R3, R6.1, R9, R10.6): the port of `paohuzi.engine.evaluator`.
//!
//! A hand is split into locked 坎 (R3) and free cards; free cards form sequences, 绞 and at
//! most one pair. Each way of taking 绞 out of the free cards is tried, and both sizes are
//! then looked up in their [`SuitTable`]. Every choice is visited in the Python evaluator's
//! order and the first best kept, so the arrangement returned is the same one, not only one
//! as good.

use std::sync::Arc;

use crate::engine::cards::{colours, total, CountMasks, Counts, Kind, NEIGHBOURS, NUM_KINDS};
use crate::engine::groups::{GType, GroupCode};
use crate::engine::rules::{Facts, Rules};
use crate::engine::suit::{jiao, key_of, SuitTable, NONE};

/// A complete hand has exactly seven groups (R6.1).
pub const GROUPS_TO_WIN: i32 = 7;

/// A holding no player can have: the evaluator's answer would mean nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Invalid {
    /// Not a kind 0–19.
    Kind(i64),
    /// More than four of a kind in hand.
    TooMany(Kind),
    /// A table no player can have: what is wrong with it.
    Table(&'static str),
}

/// The evaluator of one rule set, with its tables.
pub struct Evaluator {
    pub rules: Rules,
    small: Arc<SuitTable>,
    big: Arc<SuitTable>,
}

/// No table group in [`Prepared`]'s per-kind index.
const NO_GROUP: u8 = u8::MAX;

/// A group of a result: one of the table groups passed in (by index), or a group the
/// evaluator made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutGroup {
    Input(usize),
    New(GroupCode),
}

/// A winning arrangement (R9.1) with the figures of R10 and the facts its 名堂 look at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arrangement {
    pub huxi: i64,
    pub points: i64,
    pub facts: Facts,
    pub groups: Vec<OutGroup>,
    pub group_huxi: Vec<i32>,
    /// Cards in no group: only a forced 天胡 has them.
    pub leftover: Vec<Kind>,
}

/// The best of some placements: its 底数 and hu-xi, the facts, which placement.
#[derive(Clone, Copy, Debug)]
pub struct Best {
    pub points: i64,
    pub huxi: i64,
    pub facts: Facts,
    placement: usize,
    free_huxi: i32,
}

impl Evaluator {
    pub fn new(rules: Rules) -> Evaluator {
        let special = rules.huxi.special;
        Evaluator {
            small: SuitTable::shared(special[0], special[1]),
            big: SuitTable::shared(special[2], special[3]),
            rules,
        }
    }

    /// The hu-xi of the same-kind group `gtype` of `kind` (R3).
    #[inline]
    pub fn same_kind(&self, gtype: GType, kind: Kind) -> i32 {
        self.rules.huxi.same_kind[gtype as usize][kind as usize]
    }

    /// Best hu-xi of free cards as sequences, 绞 and (iff `need_pair`) one pair, or None.
    pub fn free_best(&self, free: &Counts, need_pair: bool) -> Option<i32> {
        self.free_search(free, need_pair, None)
    }

    /// An upper bound of [`Evaluator::free_best`] (any `need_pair`): only the 1-2-3 and 2-7-10
    /// sequences score among free cards (R3); [`Evaluator::size_bound`] of each size.
    /// Counts beyond the free cards' (a kind of three or four) bound nothing the search makes.
    #[inline]
    pub fn free_bound(&self, free: &Counts) -> i32 {
        self.size_bound(free, 0) + self.size_bound(free, 1)
    }

    /// The most hu-xi the two scoring sequences of one size (0: small, 1: big) make together
    /// out of `free`: they share the 2, so `t` of 1-2-3 leave at most `c2 - t` of 2-7-10.
    #[inline]
    pub fn size_bound(&self, free: &Counts, size: usize) -> i32 {
        let special = &self.rules.huxi.special;
        let (w123, w2710) = (special[2 * size].max(0), special[2 * size + 1].max(0));
        let c = |rank: usize| i32::from(free[10 * size + rank]);
        let (c2, pairs) = (c(1), c(6).min(c(9)));
        (0..=c(0).min(c2).min(c(2))).map(|t| w123 * t + w2710 * pairs.min(c2 - t)).max().unwrap_or(0)
    }

    /// [`Evaluator::free_best`]'s groups, for the best value `target` it returned.
    fn free_groups(&self, free: &Counts, need_pair: bool, target: i32) -> Vec<GroupCode> {
        let mut out = Vec::new();
        self.free_search(free, need_pair, Some((target, &mut out)));
        out
    }

    /// Tries every way of taking 绞 out of the free cards, in `itertools.product` order: the
    /// best value, or with `groups` (a value found before), the groups of the first way that
    /// reaches it.
    fn free_search(
        &self,
        free: &Counts,
        need_pair: bool,
        mut groups: Option<(i32, &mut Vec<GroupCode>)>,
    ) -> Option<i32> {
        let small_key = key_of(free, 0);
        let big_key = key_of(free, 10);
        // Per rank with a 绞: its choices (none, x x d, x d d) as the counts they take.
        let mut ranks = [0usize; 10];
        let mut choices = [[(0usize, 0usize); 3]; 10];
        let mut n_choices = [1usize; 10];
        let mut n = 0;
        for r in 0..10 {
            let (s, b) = (usize::from(free[r]), usize::from(free[r + 10]));
            if s > 0 && b > 0 && s + b >= 3 {
                ranks[n] = r;
                // The counts a choice takes, as key differences.
                if s >= 2 {
                    choices[n][n_choices[n]] = (2 << (2 * r), 1 << (2 * r));
                    n_choices[n] += 1;
                }
                if b >= 2 {
                    choices[n][n_choices[n]] = (1 << (2 * r), 2 << (2 * r));
                    n_choices[n] += 1;
                }
                n += 1;
            }
        }
        let mut best: Option<i32> = None;
        let mut index = [0usize; 10];
        loop {
            let (mut sk, mut bk) = (small_key, big_key);
            for i in 0..n {
                let (ds, db) = choices[i][index[i]];
                sk -= ds;
                bk -= db;
            }
            if let Some((value, pair_big)) = self.combine(sk, bk, need_pair) {
                match groups.as_mut() {
                    Some((target, out)) if value == *target => {
                        for i in 0..n {
                            if index[i] > 0 {
                                out.push(jiao(ranks[i], choices[i][index[i]].0 == 2 << (2 * ranks[i])));
                            }
                        }
                        self.small.groups(sk, need_pair && !pair_big, 0, out);
                        self.big.groups(bk, need_pair && pair_big, 10, out);
                        return Some(value);
                    }
                    Some(_) => {}
                    None => {
                        if best.is_none_or(|b| value > b) {
                            best = Some(value);
                        }
                    }
                }
            }
            // The next combination, the last rank's choice turning fastest.
            let mut i = n;
            loop {
                if i == 0 {
                    return best;
                }
                i -= 1;
                index[i] += 1;
                if index[i] < n_choices[i] {
                    break;
                }
                index[i] = 0;
            }
        }
    }

    /// Both sizes' best: without a pair, or with the pair small first, then big if better.
    /// The value, and whether the pair is big.
    #[inline]
    fn combine(&self, small_key: usize, big_key: usize, need_pair: bool) -> Option<(i32, bool)> {
        if need_pair {
            let (s_p, b_np) = (self.small.value(small_key, true), self.big.value(big_key, false));
            let (s_np, b_p) = (self.small.value(small_key, false), self.big.value(big_key, true));
            let mut best = None;
            if s_p != NONE && b_np != NONE {
                best = Some((i32::from(s_p) + i32::from(b_np), false));
            }
            if s_np != NONE && b_p != NONE {
                let value = i32::from(s_np) + i32::from(b_p);
                if best.is_none_or(|(b, _)| value > b) {
                    best = Some((value, true));
                }
            }
            best
        } else {
            let (s, b) = (self.small.value(small_key, false), self.big.value(big_key, false));
            (s != NONE && b != NONE).then(|| (i32::from(s) + i32::from(b), false))
        }
    }

    /// Greatest hu-xi of groups formed from free cards, leftovers allowed (R10.6): only the
    /// 1-2-3 and 2-7-10 sequences score. The value and those sequences.
    pub fn best_partial(&self, free: &Counts) -> (i32, Vec<GroupCode>) {
        let mut total = 0;
        let mut groups = Vec::new();
        for (base, table) in [(0usize, &self.small), (10, &self.big)] {
            let c = |i: usize| i32::from(free[base + i]);
            let (one, two, three, seven, ten) = (c(0), c(1), c(2), c(6), c(9));
            let (w123, w2710) = (i32::from(table.w123), i32::from(table.w2710));
            let mut best = (-1, 0, 0);
            for n123 in 0..=one.min(two).min(three) {
                let n2710 = (two - n123).min(seven).min(ten);
                let value = n123 * w123 + n2710 * w2710;
                if value > best.0 {
                    best = (value, n123, n2710);
                }
            }
            total += best.0;
            let b = base as u8;
            for _ in 0..best.1 {
                groups.push(GroupCode::new(GType::Run, crate::engine::groups::run_shape(b)));
            }
            for _ in 0..best.2 {
                groups.push(GroupCode::new(GType::Run, crate::engine::groups::run2710_shape(b)));
            }
        }
        (total, groups)
    }

    /// [`Evaluator::best_partial`]'s value alone.
    pub fn best_partial_value(&self, free: &Counts) -> i32 {
        let mut total = 0;
        for (base, table) in [(0usize, &self.small), (10, &self.big)] {
            let c = |i: usize| i32::from(free[base + i]);
            let (one, two, three, seven, ten) = (c(0), c(1), c(2), c(6), c(9));
            let (w123, w2710) = (i32::from(table.w123), i32::from(table.w2710));
            let mut best = -1;
            for n123 in 0..=one.min(two).min(three) {
                let n2710 = (two - n123).min(seven).min(ten);
                best = best.max(n123 * w123 + n2710 * w2710);
            }
            total += best;
        }
        total
    }

    /// [`Prepared::current_huxi`] of a hand and table, without preparing the hand (R10.6).
    pub fn current_huxi(&self, hand: &Counts, table: &[GroupCode]) -> i64 {
        let mut huxi: i32 = table.iter().map(|&g| self.rules.huxi.code(g)).sum();
        let mut free = *hand;
        for (k, n) in free.iter_mut().enumerate() {
            match *n {
                4 => huxi += self.same_kind(GType::Ti, k as Kind),
                3 => huxi += self.same_kind(GType::Kan, k as Kind),
                _ => continue,
            }
            *n = 0;
        }
        i64::from(huxi + self.best_partial_value(&free))
    }

    /// The forced 天胡 of dealt cards (R9.5.1): three or more 提, or five or more 坎 and 提
    /// together. Hu-xi: the 提 and 坎 plus (`tianhu_partial_huxi`) the best partial
    /// decomposition of the rest; 对对胡 when no sequence scores and the cards left over are
    /// at most one pair [decision].
    pub fn forced_tianhu(self: &Arc<Self>, counts: Counts) -> Result<Option<Arrangement>, Invalid> {
        let fours = counts.iter().filter(|&&c| c == 4).count();
        let threes = counts.iter().filter(|&&c| c == 3).count();
        if fours < 3 && fours + threes < 5 {
            return Ok(None);
        }
        let holding = Prepared::new(self.clone(), counts, &[])?;
        let (partial, runs) =
            if self.rules.tianhu_partial_huxi { self.best_partial(&holding.free) } else { (0, Vec::new()) };
        let mut free = holding.free;
        for run in &runs {
            for k in run.cards() {
                free[k as usize] -= 1;
            }
        }
        let leftover: Vec<Kind> =
            (0..NUM_KINDS).flat_map(|k| std::iter::repeat_n(k as Kind, usize::from(free[k]))).collect();
        let mut groups = holding.table_groups(None, None);
        groups.extend(holding.kan_groups(holding.kans));
        groups.extend(runs.iter().map(|&g| OutGroup::New(g)));
        let triplets =
            runs.is_empty() && (leftover.is_empty() || (leftover.len() == 2 && leftover[0] == leftover[1]));
        let (red, big, total) = colours(&counts);
        let facts = Facts { red, big, small: total - big, all_triplets: triplets };
        let huxi = i64::from(holding.fixed_huxi + partial);
        let points = self.rules.points(huxi, &facts, true, true, false);
        let group_huxi = holding.huxi_of(&groups);
        Ok(Some(Arrangement { huxi, points, facts, groups, group_huxi, leftover }))
    }
}

/// Adds a card to a hand's count array: a kind 0–19, at most four of it.
pub fn add_card(counts: &mut Counts, card: i64) -> Result<(), Invalid> {
    if !(0..NUM_KINDS as i64).contains(&card) {
        return Err(Invalid::Kind(card));
    }
    let count = &mut counts[card as usize];
    if *count == 4 {
        return Err(Invalid::TooMany(card as Kind));
    }
    *count += 1;
    Ok(())
}

/// A table group as passed in: its type and cards (one to four).
#[derive(Clone, Copy, Debug)]
pub struct TableInput {
    pub gtype: GType,
    cards: [Kind; 4],
    len: u8,
}

impl TableInput {
    pub fn new(gtype: GType, cards: &[i64]) -> Result<TableInput, Invalid> {
        if cards.is_empty() || cards.len() > 4 {
            return Err(Invalid::Table("a table group of no cards or more than four"));
        }
        let mut input = TableInput { gtype, cards: [0; 4], len: cards.len() as u8 };
        for (slot, &k) in input.cards.iter_mut().zip(cards) {
            if !(0..NUM_KINDS as i64).contains(&k) {
                return Err(Invalid::Kind(k));
            }
            *slot = k as Kind;
        }
        Ok(input)
    }

    pub fn cards(&self) -> &[Kind] {
        &self.cards[..usize::from(self.len)]
    }

    /// A table group the game made (its cards are valid by construction).
    pub fn of_code(code: GroupCode) -> TableInput {
        let (cards, n) = code.card_array();
        TableInput { gtype: code.gtype, cards, len: n as u8 }
    }
}

/// A table group as the evaluator needs it.
#[derive(Clone, Debug)]
struct TableGroup {
    gtype: GType,
    /// The first card: for a same-kind group, its kind.
    kind: Kind,
    huxi: i32,
    /// Its index among the groups passed in; None for a 提 laid from the hand (R5.1).
    input: Option<usize>,
}

/// One place R9.1 allows the winning card to go, and what is left to decompose.
#[derive(Clone, Copy, Debug)]
struct Placement {
    /// The table 碰/偎 (by index) the card joined, now a 跑/提 of this type.
    joined: Option<(usize, GType)>,
    /// The group the card made with a hand pair (碰, 偎) or 坎 (跑, 提).
    added: Option<(GType, Kind)>,
    /// The locked 坎 still in hand, as a bit mask of kinds.
    kans: u32,
    free: Counts,
    /// Hu-xi of the table groups and the 坎.
    huxi: i32,
    /// 提 and 跑 on the table: *k* of R6.
    fours: i32,
    n_free: i32,
}

/// A hand and table split and summed once, to evaluate many winning cards on it cheaply:
/// `paohuzi.engine.evaluator.PreparedHand`.
pub struct Prepared {
    ev: Arc<Evaluator>,
    counts: Counts,
    /// Counts of the hand and table together.
    held: Counts,
    table: Vec<TableGroup>,
    has_chi: bool,
    kans: u32,
    free: Counts,
    n_free: i32,
    free_mask: u32,
    /// Free cards with no partner among the others (at most two kept: two rule out a win).
    isolated: [Kind; 2],
    n_isolated: usize,
    /// Per kind, the index of the table 碰/偎 of it, [`NO_GROUP`] for none.
    joinable: [u8; NUM_KINDS],
    fixed_huxi: i32,
    fours: i32,
}

impl Prepared {
    /// `counts`: the cards in hand (see [`add_card`]); `table`: the table groups.
    pub fn new(ev: Arc<Evaluator>, counts: Counts, table: &[TableInput]) -> Result<Prepared, Invalid> {
        let mut prepared = Prepared {
            ev,
            counts: [0; NUM_KINDS],
            held: [0; NUM_KINDS],
            table: Vec::with_capacity(table.len() + 2),
            has_chi: false,
            kans: 0,
            free: [0; NUM_KINDS],
            n_free: 0,
            free_mask: 0,
            isolated: [0; 2],
            n_isolated: 0,
            joinable: [NO_GROUP; NUM_KINDS],
            fixed_huxi: 0,
            fours: 0,
        };
        prepared.refill(counts, table)?;
        Ok(prepared)
    }

    /// Whether this hand was prepared for `ev` (the same rules' evaluator, not a copy).
    pub fn uses(&self, ev: &Arc<Evaluator>) -> bool {
        Arc::ptr_eq(&self.ev, ev)
    }

    /// [`Prepared::new`] again in place, for another hand of the same evaluator: keeps its
    /// buffer. On an error the prepared hand is unusable until refilled.
    pub fn refill(&mut self, mut counts: Counts, table: &[TableInput]) -> Result<(), Invalid> {
        if table.len() >= usize::from(NO_GROUP) {
            return Err(Invalid::Table("more table groups than cards"));
        }
        let mut groups = std::mem::take(&mut self.table);
        groups.clear();
        let ev = &self.ev;
        let mut held = counts;
        let mut has_chi = false;
        for (i, group) in table.iter().enumerate() {
            let (gtype, cards) = (&group.gtype, group.cards());
            let kind = cards[0];
            for &k in cards {
                held[usize::from(k)] = held[usize::from(k)].saturating_add(1);
            }
            has_chi |= *gtype == GType::Chi;
            groups.push(TableGroup {
                gtype: *gtype,
                kind,
                huxi: ev.rules.huxi.group(*gtype, cards),
                input: Some(i),
            });
        }
        let masks = CountMasks::of(&counts);
        // A four of a kind in hand is the 提 it must become (R5.1).
        let mut fours_in_hand = masks.fours;
        while fours_in_hand != 0 {
            let kind = fours_in_hand.trailing_zeros() as Kind;
            fours_in_hand &= fours_in_hand - 1;
            counts[usize::from(kind)] = 0;
            groups.push(TableGroup {
                gtype: GType::Ti,
                kind,
                huxi: ev.same_kind(GType::Ti, kind),
                input: None,
            });
        }
        let mut huxi = 0;
        let kans = masks.threes;
        let mut free = counts;
        let mut left = kans;
        while left != 0 {
            let k = left.trailing_zeros() as usize;
            left &= left - 1;
            huxi += ev.same_kind(GType::Kan, k as Kind);
            free[k] = 0;
        }
        let mask = masks.ones | masks.twos;
        let n_free = total(&free);
        let mut isolated = [0; 2];
        let mut n_isolated = 0;
        let mut singles = masks.ones;
        while singles != 0 {
            let k = singles.trailing_zeros() as usize;
            singles &= singles - 1;
            if mask & NEIGHBOURS[k] & !(1 << k) == 0 {
                if n_isolated < 2 {
                    isolated[n_isolated] = k as Kind;
                }
                n_isolated += 1;
            }
        }
        let mut fours = 0;
        let mut joinable = [NO_GROUP; NUM_KINDS];
        for (i, g) in groups.iter().enumerate() {
            huxi += g.huxi;
            if g.gtype.is_four() {
                fours += 1;
            } else if g.gtype.is_joinable() {
                joinable[usize::from(g.kind)] = u8::try_from(i).unwrap_or(NO_GROUP);
            }
        }
        self.counts = counts;
        self.held = held;
        self.table = groups;
        self.has_chi = has_chi;
        self.kans = kans;
        self.free = free;
        self.n_free = n_free;
        self.free_mask = mask;
        self.isolated = isolated;
        self.n_isolated = n_isolated;
        self.joinable = joinable;
        self.fixed_huxi = huxi;
        self.fours = fours;
        Ok(())
    }

    fn base(&self) -> Placement {
        Placement {
            joined: None,
            added: None,
            kans: self.kans,
            free: self.free,
            huxi: self.fixed_huxi,
            fours: self.fours,
            n_free: self.n_free,
        }
    }

    /// The card into the free cards.
    fn in_hand(&self, win: Kind) -> Placement {
        let mut p = self.base();
        p.free[usize::from(win)] += 1;
        p.n_free += 1;
        p
    }

    /// The card joins the table 碰/偎 of its kind, making a 跑 or 提.
    fn joined(&self, win: Kind, gtype: GType) -> Placement {
        let index = usize::from(self.joinable[usize::from(win)]);
        let mut p = self.base();
        p.joined = Some((index, gtype));
        p.huxi += self.ev.same_kind(gtype, win) - self.table[index].huxi;
        p.fours += 1;
        p
    }

    /// The card and a hand pair make a 碰 or 偎.
    fn with_pair(&self, win: Kind, gtype: GType) -> Placement {
        let mut p = self.base();
        p.added = Some((gtype, win));
        p.free[usize::from(win)] -= 2;
        p.huxi += self.ev.same_kind(gtype, win);
        p.n_free -= 2;
        p
    }

    /// The card and a hand 坎 make a 跑 or 提.
    fn with_kan(&self, win: Kind, gtype: GType) -> Placement {
        let mut p = self.base();
        p.added = Some((gtype, win));
        p.kans &= !(1 << win);
        p.huxi += self.ev.same_kind(gtype, win) - self.ev.same_kind(GType::Kan, win);
        p.fours += 1;
        p
    }

    /// Every place R9.1 allows the winning card to go (R4.1, R4.2, R5), in the Python
    /// evaluator's order.
    fn placements(&self, win: Kind, self_drawn: bool, from_discard: bool, out: &mut [Option<Placement>; 3]) {
        let w = usize::from(win);
        if self.n_isolated > 0 {
            // A single free card with no partner can only become the pair with the winning
            // card itself: one such card fixes what can win, two rule out a win.
            if self.n_isolated == 1 && self.isolated[0] == win && self.counts[w] == 1 {
                out[0] = Some(self.in_hand(win));
            }
            return;
        }
        let held = self.counts[w];
        let joinable = self.table.get(usize::from(self.joinable[w])).map(|g| g.gtype);
        let is_wei = matches!(joinable, Some(GType::Wei | GType::Chouwei));
        let mut n = 0;
        if self_drawn {
            // A drawn card that makes a 提 or 偎 is taken by force before anyone may win (R4.1).
            if held == 3 {
                out[0] = Some(self.with_kan(win, GType::Ti));
                return;
            }
            if is_wei {
                out[0] = Some(self.joined(win, GType::Ti));
                return;
            }
            if held == 2 {
                out[0] = Some(self.with_pair(win, GType::Wei));
                return;
            }
            if joinable == Some(GType::Peng) {
                out[n] = Some(self.joined(win, GType::Pao)); // R5.2.2; or 破跑胡 below
                n += 1;
            }
        } else {
            if held == 2 {
                out[n] = Some(self.with_pair(win, GType::Peng));
                n += 1;
            } else if held == 3 {
                out[n] = Some(self.with_kan(win, GType::Pao));
                n += 1;
            }
            // R4.2: a 碰 on the table does not turn into 跑 on a discarded card.
            if is_wei || (joinable == Some(GType::Peng) && !from_discard) {
                out[n] = Some(self.joined(win, GType::Pao));
                n += 1;
            }
        }
        // The card into the free cards: only worth trying if it has a card to go with.
        if self.free_mask & NEIGHBOURS[w] != 0 {
            out[n] = Some(self.in_hand(win));
        }
    }

    /// A placement that wins (R9.1): seven groups, one pair with a 跑 or 提, the hu-xi a win
    /// needs. The free cards' best hu-xi and how many free cards are in groups of three.
    #[inline(always)]
    fn winning(&self, option: &Placement) -> Option<(i32, i32)> {
        let k = option.fours;
        let rest = option.n_free - if k > 0 { 2 } else { 0 };
        if rest < 0 || rest % 3 != 0 {
            return None;
        }
        let n_table = self.table.len() as i32 + i32::from(option.added.is_some());
        if n_table + option.kans.count_ones() as i32 + rest / 3 + i32::from(k > 0) != GROUPS_TO_WIN {
            return None;
        }
        let min_huxi = self.ev.rules.min_huxi;
        if i64::from(option.huxi + self.ev.free_bound(&option.free)) < min_huxi {
            return None; // short of the hu-xi a win needs whatever the free cards make
        }
        let found = self.ev.free_best(&option.free, k > 0)?;
        (i64::from(found + option.huxi) >= min_huxi).then_some((found, rest))
    }

    /// The best of some placements by 底数, then hu-xi (R9.1); ties keep the first.
    fn best(
        &self,
        options: &[Option<Placement>],
        win: Option<Kind>,
        self_drawn: bool,
        tianhu: bool,
        haidi: bool,
    ) -> Option<Best> {
        let rules = &self.ev.rules;
        let mut best: Option<Best> = None;
        let mut facts: Option<(i64, i64, i64)> = None;
        for (i, option) in options.iter().enumerate() {
            let Some(option) = option else { continue };
            let Some((found, rest)) = self.winning(option) else { continue };
            let huxi = i64::from(found + option.huxi);
            let (red, big, total) = *facts.get_or_insert_with(|| {
                let mut held = self.held;
                if let Some(w) = win {
                    held[usize::from(w)] += 1;
                }
                colours(&held)
            });
            let facts = Facts { red, big, small: total - big, all_triplets: rest == 0 && !self.has_chi };
            let points = rules.points(huxi, &facts, self_drawn, tianhu, haidi);
            if best.is_none_or(|b| (points, huxi) > (b.points, b.huxi)) {
                best = Some(Best { points, huxi, facts, placement: i, free_huxi: found });
            }
        }
        best
    }

    /// The table groups of a placement, the joined one replaced, the added one last.
    fn table_groups(&self, joined: Option<(usize, GType)>, added: Option<(GType, Kind)>) -> Vec<OutGroup> {
        let mut groups: Vec<OutGroup> = self
            .table
            .iter()
            .enumerate()
            .map(|(i, g)| match (joined, g.input) {
                (Some((j, gtype)), _) if j == i => OutGroup::New(GroupCode::new(gtype, g.kind)),
                (_, Some(input)) => OutGroup::Input(input),
                (_, None) => OutGroup::New(GroupCode::new(g.gtype, g.kind)),
            })
            .collect();
        if let Some((gtype, kind)) = added {
            groups.push(OutGroup::New(GroupCode::new(gtype, kind)));
        }
        groups
    }

    fn kan_groups(&self, kans: u32) -> impl Iterator<Item = OutGroup> {
        (0..NUM_KINDS as u8)
            .filter(move |&k| kans & (1 << k) != 0)
            .map(|k| OutGroup::New(GroupCode::new(GType::Kan, k)))
    }

    /// Hu-xi of each group of a result (R3).
    fn huxi_of(&self, groups: &[OutGroup]) -> Vec<i32> {
        groups
            .iter()
            .map(|g| match *g {
                // The groups passed in come first in the table, in their order.
                OutGroup::Input(i) => self.table[i].huxi,
                OutGroup::New(code) => self.ev.rules.huxi.code(code),
            })
            .collect()
    }

    /// The groups of the best placement: the table's, the 坎, then the hand's, sorted with
    /// the pair last (as the Python evaluator lists them).
    fn arrangement(&self, options: &[Option<Placement>], best: Best) -> Arrangement {
        let option = options[best.placement].expect("the best placement");
        let mut groups = self.table_groups(option.joined, option.added);
        groups.extend(self.kan_groups(option.kans));
        let mut hand = self.ev.free_groups(&option.free, option.fours > 0, best.free_huxi);
        hand.sort_unstable_by_key(|g| g.sort_key());
        groups.extend(hand.into_iter().map(OutGroup::New));
        let group_huxi = self.huxi_of(&groups);
        Arrangement {
            huxi: best.huxi,
            points: best.points,
            facts: best.facts,
            groups,
            group_huxi,
            leftover: Vec::new(),
        }
    }

    /// The best winning arrangement on `win` (R9.1), or None: `PreparedHand.win`.
    pub fn win(
        &self,
        win: Kind,
        self_drawn: bool,
        from_discard: bool,
        tianhu: bool,
        haidi: bool,
    ) -> Option<Arrangement> {
        let mut options = [None; 3];
        self.placements(win, self_drawn, from_discard, &mut options);
        let best = self.best(&options, Some(win), self_drawn, tianhu, haidi)?;
        Some(self.arrangement(&options, best))
    }

    /// [`Prepared::win`]'s 底数 and hu-xi only, without building the groups.
    pub fn win_score(
        &self,
        win: Kind,
        self_drawn: bool,
        from_discard: bool,
        tianhu: bool,
        haidi: bool,
    ) -> Option<Best> {
        let mut options = [None; 3];
        self.placements(win, self_drawn, from_discard, &mut options);
        self.best(&options, Some(win), self_drawn, tianhu, haidi)
    }

    /// The best arrangement of a hand complete as it is (R4.1 step 3): `PreparedHand.complete`.
    pub fn complete(&self, self_drawn: bool, haidi: bool) -> Option<Arrangement> {
        let options = [Some(self.base())];
        let best = self.best(&options, None, self_drawn, false, haidi)?;
        Some(self.arrangement(&options, best))
    }

    /// 听牌: every kind that wins when shown from another player's draw, in kind order, with
    /// the win's hu-xi and 底数 and its facts.
    pub fn waits(&self) -> Vec<(Kind, Best)> {
        (0..NUM_KINDS as Kind)
            .filter(|&card| self.held[usize::from(card)] < 4)
            .filter_map(|card| self.win_score(card, false, false, false, false).map(|b| (card, b)))
            .collect()
    }

    /// Whether `win` shown from another player's draw wins: [`Prepared::waits`] has it.
    /// Stops at the first placement that reaches the hu-xi a win needs, scoring none.
    pub fn wins(&self, win: Kind) -> bool {
        let mut options = [None; 3];
        self.placements(win, false, false, &mut options);
        options.iter().flatten().any(|option| self.winning(option).is_some())
    }

    /// Of the kinds in the bit mask `kinds`, those [`Prepared::waits`] lists (as a mask); the
    /// others are not tried.
    pub fn winning_kinds(&self, kinds: u32) -> u32 {
        (0..NUM_KINDS)
            .filter(|&k| kinds & (1 << k) != 0 && self.held[k] < 4 && self.wins(k as Kind))
            .fold(0, |mask, k| mask | 1 << k)
    }

    /// A player's current total hu-xi (R10.6): the greatest over all combinations of his
    /// table and hand cards, leftovers allowed.
    pub fn current_huxi(&self) -> i64 {
        i64::from(self.fixed_huxi + self.ev.best_partial(&self.free).0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hand(cards: &[u8]) -> Counts {
        let mut counts = [0; NUM_KINDS];
        for &k in cards {
            add_card(&mut counts, i64::from(k)).unwrap();
        }
        counts
    }

    fn evaluator() -> Arc<Evaluator> {
        Arc::new(Evaluator::new(Rules::hunan()))
    }

    // Six groups worth 18 hu-xi: kan d1 (6), d2d7d10 (6), x1x2x3 (3), kan x5 (3), d4d5d6, x7x8x9.
    const SIX: [u8; 18] = [10, 10, 10, 11, 16, 19, 0, 1, 2, 4, 4, 4, 13, 14, 15, 6, 7, 8];

    fn six_and(more: &[u8]) -> Counts {
        hand(&[&SIX[..], more].concat())
    }

    #[test]
    fn r9_1_plain_win_from_another_players_draw() {
        let prepared = Prepared::new(evaluator(), six_and(&[17, 18]), &[]).unwrap();
        let win = prepared.win(19, false, false, false, false).unwrap();
        assert_eq!((win.huxi, win.points), (18, 2));
        let mut huxi = win.group_huxi.clone();
        huxi.sort();
        assert_eq!(huxi, vec![0, 0, 0, 3, 3, 6, 6]);
        // 自摸 adds one 等 (R10.2).
        assert_eq!(prepared.win(19, true, false, false, false).unwrap().points, 3);
    }

    #[test]
    fn r6_1_pair_required_with_a_ti() {
        let base = [10, 10, 10, 11, 16, 19, 0, 1, 2, 4, 4, 4, 13, 14, 15, 17];
        let ti = TableInput::new(GType::Ti, &[8, 8, 8, 8]).unwrap();
        let prepared = Prepared::new(evaluator(), hand(&base), &[ti]).unwrap();
        let win = prepared.win(17, false, false, false, false).unwrap();
        assert!(win.groups.contains(&OutGroup::New(GroupCode::new(GType::Pair, 17))));
        assert!(win.groups.contains(&OutGroup::Input(0)));
        assert_eq!(win.huxi, 27);
        assert!(prepared.win(18, false, false, false, false).is_none());
    }

    #[test]
    fn r3_kan_is_locked() {
        // Splitting the kan x2 would give 18 hu-xi; a kan never splits.
        let cards = [0, 1, 1, 1, 2, 2, 3, 6, 9, 10, 11, 12, 11, 16, 19, 13, 14, 15, 17, 18];
        let prepared = Prepared::new(evaluator(), hand(&cards), &[]).unwrap();
        assert!(prepared.win(19, false, false, false, false).is_none());
    }

    #[test]
    fn waits_and_current_huxi() {
        let prepared = Prepared::new(evaluator(), six_and(&[17, 18]), &[]).unwrap();
        let waits: Vec<(Kind, i64, i64)> =
            prepared.waits().into_iter().map(|(k, b)| (k, b.huxi, b.points)).collect();
        assert_eq!(waits, vec![(16, 18, 2), (19, 18, 2)]);
        assert_eq!(prepared.current_huxi(), 18);
    }

    #[test]
    fn winning_kinds_are_the_kinds_waits_lists() {
        // Every two-card ending of a hand of six groups, and of one short of a pair: the
        // kinds `wins` accepts are the kinds `waits` lists, those not asked about skipped.
        let asked: u32 = (0..NUM_KINDS).filter(|k| k % 5 != 3).fold(0, |mask, k| mask | 1 << k);
        let mut waiting = 0;
        for a in 0..NUM_KINDS as u8 {
            for b in a..NUM_KINDS as u8 {
                let copies = |k: u8| SIX.iter().chain(&[a, b]).filter(|&&c| c == k).count();
                if copies(a) > 4 || copies(b) > 4 {
                    continue;
                }
                let counts = six_and(&[a, b]);
                let prepared = Prepared::new(evaluator(), counts, &[]).unwrap();
                let waits = prepared.waits();
                waiting += usize::from(!waits.is_empty());
                let expected = waits.iter().fold(0u32, |mask, (k, _)| mask | 1 << k) & asked;
                assert_eq!(prepared.winning_kinds(asked), expected, "{a} {b}");
                for k in 0..NUM_KINDS as Kind {
                    assert_eq!(prepared.wins(k), waits.iter().any(|(w, _)| *w == k), "{a} {b} on {k}");
                }
            }
        }
        assert!(waiting > 10, "the hands tried wait on something ({waiting})");
    }

    #[test]
    fn r9_5_1_forced_tianhu() {
        // Three 提 (x1, x5, d1) and x2 x3 left over, which score nothing without their x1.
        let counts = hand(&[0, 0, 0, 0, 4, 4, 4, 4, 10, 10, 10, 10, 1, 2]);
        let found = evaluator().forced_tianhu(counts).unwrap().unwrap();
        assert_eq!(found.huxi, 9 + 9 + 12);
        assert_eq!(found.leftover, vec![1, 2]);
        assert!(evaluator().forced_tianhu(six_and(&[])).unwrap().is_none());
    }

    #[test]
    fn cards_no_player_holds() {
        let mut counts = hand(&[3, 3, 3, 3]);
        assert_eq!(add_card(&mut counts, 3), Err(Invalid::TooMany(3)));
        assert_eq!(add_card(&mut counts, 20), Err(Invalid::Kind(20)));
    }
}

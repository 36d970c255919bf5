//! The greedy policy and rollouts: the port of `paohuzi.bots.greedy.GreedyBot` and of
//! `paohuzi.bots.rollout.rollout_payments`.
//!
//! The greedy bot sees one seat's observation; [`View`] is the part of it the bot reads (its
//! hand and table, the cards it has not seen, the card on offer, what its 下家 discarded).
//! Every value is computed with the same floating-point operations in the same order as the
//! Python bot, so both choose the same action, ties included.

use std::sync::Arc;

use crate::cards::{Counts, Kind, NEIGHBOURS, NUM_KINDS};
use crate::evaluator::{Evaluator, Prepared, TableInput};
use crate::game::{Act, Game, Phase, HAND_SIZE};
use crate::groups::{GType, GroupCode, THREES};

/// A 吃 or 碰 must beat passing by this much (`CLAIM_MARGIN`).
const CLAIM_MARGIN: f64 = 0.5;

/// What the greedy bot reads of a seat's observation.
pub struct View<'a> {
    pub hand: Counts,
    pub table: Vec<GroupCode>,
    /// Per kind, the copies the seat has not seen (`Observation.unseen`).
    pub unseen: [i64; NUM_KINDS],
    pub legal: &'a [Act],
    pub offer: Option<Kind>,
    /// Kinds the seat's 下家 has discarded, as a bit mask.
    pub next_discarded: u32,
}

fn group_len(g: GroupCode) -> i32 {
    match g.gtype {
        GType::Pao | GType::Ti => 4,
        GType::Pair => 2,
        _ => 3,
    }
}

fn holding_limit(fours: i32) -> i32 {
    HAND_SIZE as i32 + (fours - 1).max(0)
}

/// How good a hand and table are (`hand_value`).
pub fn hand_value(
    ev: &Arc<Evaluator>,
    hand: &Counts,
    table: &[GroupCode],
    unseen: &[i64; NUM_KINDS],
    waits: bool,
) -> f64 {
    let mut value = 1.2 * ev.current_huxi(hand, table) as f64;
    let mut isolated = 0;
    let present = hand.iter().enumerate().filter(|(_, &n)| n > 0).fold(0u32, |m, (k, _)| m | 1 << k);
    for k in 0..NUM_KINDS {
        let n = hand[k];
        if n == 0 || n == 3 {
            continue;
        }
        if n == 2 {
            value += 1.5 + 0.3 * unseen[k] as f64;
        } else if present & NEIGHBOURS[k] & !(1 << k) != 0 {
            value += 0.8;
        } else {
            isolated += 1;
            value -= 1.2;
        }
    }
    let holding: i32 =
        hand.iter().map(|&n| i32::from(n)).sum::<i32>() + table.iter().map(|&g| group_len(g)).sum::<i32>();
    let fours = table.iter().filter(|g| g.gtype.is_four()).count() as i32;
    if waits && isolated <= 2 && holding == holding_limit(fours) {
        let inputs: Vec<TableInput> = table.iter().map(|&g| TableInput::of_code(g)).collect();
        let prepared = Prepared::new(ev.clone(), *hand, &inputs).expect("a hand the game made");
        let live: i64 = prepared.waits().iter().map(|(w, _)| unseen[usize::from(*w)]).sum();
        if live != 0 {
            value += 6.0 + 2.5 * live as f64;
        }
    }
    value
}

fn best_discard_value(
    ev: &Arc<Evaluator>,
    hand: &mut Counts,
    table: &[GroupCode],
    unseen: &[i64; NUM_KINDS],
    waits: bool,
) -> f64 {
    let mut best: Option<f64> = None;
    for k in 0..NUM_KINDS {
        if hand[k] > 0 && hand[k] < 3 {
            hand[k] -= 1;
            let value = hand_value(ev, hand, table, unseen, waits);
            hand[k] += 1;
            best = Some(match best {
                None => value,
                Some(b) => {
                    if value > b {
                        value
                    } else {
                        b
                    }
                }
            });
        }
    }
    best.unwrap_or_else(|| hand_value(ev, hand, table, unseen, waits))
}

/// The greedy bot's choice (`GreedyBot.act`): 胡 when it can, else the best-scoring choice,
/// ties to passing and then to the first in F3 order.
pub fn choose(ev: &Arc<Evaluator>, view: &View<'_>, waits: bool) -> Act {
    let legal = view.legal;
    if legal.contains(&Act::Hu) {
        return Act::Hu;
    }
    let scores = scores(ev, view, waits);
    let mut best = 0;
    for i in 1..legal.len() {
        let (a, b) = ((scores[i], legal[i] == Act::Pass), (scores[best], legal[best] == Act::Pass));
        if a.0 > b.0 || (a.0 == b.0 && a.1 && !b.1) {
            best = i;
        }
    }
    legal[best]
}

/// The score of each legal choice (`GreedyBot.scores`), in the order of `view.legal`.
pub fn scores(ev: &Arc<Evaluator>, view: &View<'_>, waits: bool) -> Vec<f64> {
    let legal = view.legal;
    let unseen = &view.unseen;
    if let Some(Act::Discard(_)) = legal.first() {
        let mut hand = view.hand;
        return legal
            .iter()
            .map(|&a| {
                let Act::Discard(card) = a else { unreachable!("all discards") };
                let c = usize::from(card);
                hand[c] -= 1;
                let mut value = hand_value(ev, &hand, &view.table, unseen, waits);
                hand[c] += 1;
                if view.next_discarded & (1 << card) == 0 {
                    value -= 0.6; // the next player may 吃 it (R4.2, R7.1)
                }
                value
            })
            .collect();
    }
    let hand = view.hand;
    let keep = hand_value(ev, &hand, &view.table, unseen, waits);
    legal
        .iter()
        .map(|&a| match a {
            Act::Hu => f64::INFINITY,
            Act::Pass => keep + CLAIM_MARGIN,
            Act::Discard(_) => unreachable!("no discard in a claim window"),
            Act::Peng | Act::Chi(_) => {
                let card = view.offer.expect("a card on offer");
                let c = usize::from(card);
                let mut after = hand;
                let mut table = view.table.clone();
                if a == Act::Peng {
                    after[c] -= 2;
                    table.push(GroupCode::new(GType::Peng, card));
                } else if let Act::Chi(chi) = a {
                    after[c] += 1;
                    for &shape in chi.shapes() {
                        for &k in &THREES[usize::from(shape)] {
                            after[usize::from(k)] -= 1;
                        }
                        table.push(GroupCode::new(GType::Chi, shape));
                    }
                }
                let holding: i32 = after.iter().map(|&n| i32::from(n)).sum::<i32>()
                    + table.iter().map(|&g| group_len(g)).sum::<i32>();
                let fours = table.iter().filter(|g| g.gtype.is_four()).count() as i32;
                let mut value = if holding > holding_limit(fours) {
                    best_discard_value(ev, &mut after, &table, unseen, waits)
                } else {
                    hand_value(ev, &after, &table, unseen, waits)
                };
                if hand[c] == 2 {
                    value += 0.5; // passing would make a kind it holds a pair of 臭 (R7.1)
                }
                value
            }
        })
        .collect()
}

impl Game {
    /// What `seat` has not seen, per kind (`Observation.unseen`): other seats' face-down 偎
    /// are hidden from it.
    pub fn unseen(&self, seat: u8) -> [i64; NUM_KINDS] {
        let mut seen = [0i64; NUM_KINDS];
        for (k, &n) in self.seats[usize::from(seat)].hand.iter().enumerate() {
            seen[k] += i64::from(n);
        }
        for (s, state) in self.seats.iter().enumerate() {
            for g in &state.table {
                if g.gtype == GType::Wei && s != usize::from(seat) {
                    continue;
                }
                let (cards, n) = g.card_array();
                for &k in &cards[..n] {
                    seen[usize::from(k)] += 1;
                }
            }
            for &k in &state.row {
                seen[usize::from(k)] += 1;
            }
        }
        if let Phase::Claim(w) = &self.phase {
            seen[usize::from(w.card)] += 1;
        }
        seen.map(|n| (4 - n).max(0))
    }

    /// The greedy bot's choice for the seat to act.
    pub fn greedy(&mut self, waits: bool) -> Option<Act> {
        let seat = self.to_act()?;
        let legal = self.legal_actions();
        let offer = match &self.phase {
            Phase::Claim(w) => Some(w.card),
            _ => None,
        };
        let next = self.next_seat(seat);
        let state = &self.seats[usize::from(seat)];
        let view = View {
            hand: state.hand,
            table: state.table.clone(),
            unseen: self.unseen(seat),
            legal: &legal,
            offer,
            next_discarded: self.seats[usize::from(next)].discarded,
        };
        Some(choose(&self.rules.ev, &view, waits))
    }

    /// Plays the hand to its end with the greedy bot (`waits` False: the rollout policy) at
    /// every seat; the payments.
    pub fn play_greedy(&mut self, waits: bool) -> Vec<i64> {
        while let Some(act) = self.greedy(waits) {
            self.apply(act).expect("the greedy bot plays a legal action");
        }
        self.outcome().map(|o| o.payments.clone()).unwrap_or_default()
    }

    /// `rollout_payments`: for each candidate, `seat`'s payment when it is played and then
    /// every seat plays the rollout policy to the end. None for a candidate that is not legal.
    pub fn rollout(&self, candidates: &[Act], seat: u8) -> Vec<Option<i64>> {
        candidates
            .iter()
            .map(|&a| {
                let mut copy = self.clone();
                copy.keep_log = false;
                copy.log.clear();
                copy.history.clear();
                copy.apply(a).ok()?;
                Some(copy.play_greedy(false)[usize::from(seat)])
            })
            .collect()
    }
}

/// The observation array's layout (`paohuzi.env.encoding.layout`): plane indices, and scalar
/// positions laid row by row over the scalar planes.
struct Layout {
    table: usize,
    last_row: usize,
    unseen: usize,
    chou: usize,
    discarded: usize,
    offer: usize,
    scalars: usize,
    liang: usize,
    planes: usize,
    hand_sizes: usize,
    hidden_wei: usize,
    dealer: usize,
    turn: usize,
    source: usize,
    decision: usize,
}

/// Per relative seat: cards in 吃 groups, 碰, visible 偎/臭偎, 跑/提, cards in front of it.
const TABLE_PLANES: usize = 5;

fn layout(seats: usize) -> Layout {
    let table = 2;
    let last_row = table + TABLE_PLANES * seats;
    let unseen = last_row + seats;
    let discarded = unseen + 2;
    let offer = discarded + seats;
    let scalars = offer + 1;
    let hand_sizes = 1;
    let hidden_wei = hand_sizes + seats;
    let dealer = hidden_wei + seats;
    let turn = dealer + seats;
    let source = turn + seats;
    let decision = source + 3;
    let liang = scalars + (decision + 3).div_ceil(NUM_KINDS);
    Layout {
        table,
        last_row,
        unseen,
        chou: unseen + 1,
        discarded,
        offer,
        scalars,
        liang,
        planes: liang + 2, // the last: the seat's 臭胡 marks (R9.3, D50)
        hand_sizes,
        hidden_wei,
        dealer,
        turn,
        source,
        decision,
    }
}

impl Game {
    /// One seat's observation as the flat array of `paohuzi.env.encoding.encode` (row by row,
    /// `planes × 20`), from what the seat sees only.
    pub fn encode(&mut self, seat: u8) -> Vec<f32> {
        let mut out = vec![0f32; layout(self.seats.len()).planes * NUM_KINDS];
        self.encode_into(seat, &mut out);
        out
    }

    /// [`Game::encode`] written into `out` (`planes × 20` values, every one overwritten), for
    /// the vector environment's buffers: no allocation of the array.
    pub fn encode_into(&mut self, seat: u8, out: &mut [f32]) {
        let seats = self.seats.len();
        let lay = layout(seats);
        out.fill(0.0);
        let at = |plane: usize, k: usize| plane * NUM_KINDS + k;
        let mut scalars = vec![0f32; (lay.liang - lay.scalars) * NUM_KINDS];
        let me = usize::from(seat);
        for (k, &n) in self.seats[me].hand.iter().enumerate() {
            out[at(0, k)] = f32::from(n);
            out[at(1, k)] = if n == 3 { 1.0 } else { 0.0 };
        }
        scalars[0] = (self.wall_left() as f64 / 19.0) as f32;
        let (turn, offer, source) = match &self.phase {
            Phase::Claim(w) => (Some(w.owner), Some(w.card), Some(w.source as usize)),
            _ => (self.to_act(), None, None),
        };
        for r in 0..seats {
            let s = (me + r) % seats;
            let state = &self.seats[s];
            let base = lay.table + TABLE_PLANES * r;
            let mut hidden = 0;
            for g in &state.table {
                if g.gtype == GType::Wei && s != me {
                    hidden += 1;
                    continue;
                }
                let plane = base
                    + match g.gtype {
                        GType::Chi => 0,
                        GType::Peng => 1,
                        GType::Wei | GType::Chouwei => 2,
                        _ => 3,
                    };
                let (cards, n) = g.card_array();
                for &k in &cards[..n] {
                    out[at(plane, usize::from(k))] += 1.0;
                }
            }
            for &k in &state.row {
                out[at(base + 4, usize::from(k))] += 1.0;
            }
            if let Some(&k) = state.row.last() {
                out[at(lay.last_row + r, usize::from(k))] = 1.0;
            }
            for k in 0..NUM_KINDS {
                if state.discarded & (1 << k) != 0 {
                    out[at(lay.discarded + r, k)] = 1.0;
                }
            }
            let in_hand: i32 = state.hand.iter().map(|&n| i32::from(n)).sum();
            scalars[lay.hand_sizes + r] = (f64::from(in_hand) / 21.0) as f32;
            scalars[lay.hidden_wei + r] = (f64::from(hidden) / 7.0) as f32;
            if s == usize::from(self.dealer) {
                scalars[lay.dealer + r] = 1.0;
            }
            if turn.is_some_and(|t| usize::from(t) == s) {
                scalars[lay.turn + r] = 1.0;
            }
        }
        if let Some(k) = offer {
            out[at(lay.offer, usize::from(k))] = 1.0;
        }
        for k in 0..NUM_KINDS {
            let tables: f32 = (lay.table..lay.table + TABLE_PLANES * seats).map(|p| out[at(p, k)]).sum();
            let seen = out[at(0, k)] + tables + out[at(lay.offer, k)];
            out[at(lay.unseen, k)] = (4.0 - seen).max(0.0);
            if self.seats[me].chou & (1 << k) != 0 {
                out[at(lay.chou, k)] = 1.0;
            }
        }
        if let Some(i) = source {
            scalars[lay.source + i] = 1.0;
        }
        if self.to_act() == Some(seat) {
            if offer.is_some() {
                scalars[lay.decision] = 1.0;
            } else if matches!(self.phase, Phase::Discarding(_)) {
                scalars[lay.decision + 1] = 1.0;
            } else {
                scalars[lay.decision + 2] = 1.0;
            }
        }
        out[lay.scalars * NUM_KINDS..lay.liang * NUM_KINDS].copy_from_slice(&scalars);
        out[at(lay.liang, usize::from(self.liang))] = 1.0;
        for &(k, _) in &self.seats[me].chou_hu {
            out[at(lay.liang + 1, usize::from(k))] = 1.0;
        }
    }
}

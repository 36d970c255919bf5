//! The greedy policy and rollouts: the port of `paohuzi.bots.greedy.GreedyBot` and of
//! `paohuzi.bots.rollout.rollout_payments`.
//!
//! The greedy bot sees one seat's observation; [`View`] is the part of it the bot reads (its
//! hand and table, the cards it has not seen, the card on offer, what its 下家 discarded).
//! Every value is computed with the same floating-point operations in the same order as the
//! Python bot, so both choose the same action, ties included.

use std::cell::RefCell;
use std::sync::Arc;

use crate::engine::cards::{Counts, Kind, NEIGHBOURS, NUM_KINDS};
use crate::engine::evaluator::{Evaluator, Prepared, TableInput};
use crate::engine::game::{Act, Game, Phase, HAND_SIZE};
use crate::engine::groups::{GType, GroupCode, THREES};

thread_local! {
    /// The table as the evaluator takes it and the hand prepared last, kept between calls of
    /// [`hand_value`] (a rollout makes thousands): their buffers are not allocated anew.
    static SCRATCH: RefCell<(Vec<TableInput>, Option<Prepared>)> = const { RefCell::new((Vec::new(), None)) };
}

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

/// The unseen copies of the kinds the hand waits on (`hand_value`'s waits), through the
/// thread's [`SCRATCH`]. Not inlined: the waits are asked for a few hands in ten, and
/// [`hand_value`]'s other path stays short.
#[inline(never)]
fn live_waits(ev: &Arc<Evaluator>, hand: &Counts, table: &[GroupCode], unseen: &[i64; NUM_KINDS]) -> i64 {
    SCRATCH.with_borrow_mut(|(inputs, prepared)| {
        inputs.clear();
        inputs.extend(table.iter().map(|&g| TableInput::of_code(g)));
        match prepared {
            Some(p) if p.uses(ev) => p.refill(*hand, inputs).expect("a hand the game made"),
            _ => *prepared = Some(Prepared::new(ev.clone(), *hand, inputs).expect("a hand the game made")),
        }
        prepared.as_ref().map_or(0, |p| p.live_waits(unseen))
    })
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
        let live = live_waits(ev, hand, table, unseen);
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
        self.play_greedy_seats(if waits { u8::MAX } else { 0 })
    }

    /// [`Game::play_greedy`], the seats in the bit mask `waits` counting their waits.
    pub fn play_greedy_seats(&mut self, waits: u8) -> Vec<i64> {
        while let Some(seat) = self.to_act() {
            let act = self.greedy(waits & (1 << seat) != 0).expect("a seat to act");
            self.apply(act).expect("the greedy bot plays a legal action");
        }
        self.outcome().map(|o| o.payments.clone()).unwrap_or_default()
    }

    /// `rollout_payments`: for each candidate, `seat`'s payment when it is played and then
    /// every seat plays the greedy bot to the end, the seats in the bit mask `waits` counting
    /// their waits, the others not (the rollout policy). None for a candidate that is not legal.
    pub fn rollout(&self, candidates: &[Act], seat: u8, waits: u8) -> Vec<Option<i64>> {
        candidates
            .iter()
            .map(|&a| {
                let mut copy = self.clone();
                copy.keep_log = false;
                copy.log.clear();
                copy.history.clear();
                copy.apply(a).ok()?;
                Some(copy.play_greedy_seats(waits)[usize::from(seat)])
            })
            .collect()
    }
}

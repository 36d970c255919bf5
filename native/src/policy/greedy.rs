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
use crate::engine::groups::{GType, GroupCode, GTYPES, SHAPES, THREES};

thread_local! {
    /// The table as the evaluator takes it and the hand prepared last, kept between calls of
    /// [`winning_kinds`] (a rollout makes thousands): their buffers are not allocated anew.
    static SCRATCH: RefCell<(Vec<TableInput>, Option<Prepared>)> = const { RefCell::new((Vec::new(), None)) };
    /// What is known of the waits of the hands asked about lately (D159).
    static KNOWN: RefCell<Known> = RefCell::new(Known::default());
}

/// Table groups a hand's key holds (nine bits each); a longer table is not remembered.
const KEYED_GROUPS: usize = 7;
/// Hands remembered at most; the memory is emptied when it is full.
const KNOWN_HANDS: usize = 1 << 14;

/// A hand and its table exactly: the hand's counts three bits a kind, the table's groups
/// (type and shape, in order) nine bits each.
type HandKey = (u64, u64);

/// The waits of the hands asked about lately, for one evaluator (D159): per hand and table,
/// the kinds tried and, of those, the kinds that win. A seat's hand changes only when it
/// claims or discards, so in a search's rollouts the same hand is asked about at every claim
/// window, draw after draw, deal after deal; only what is unseen changes, and that only
/// weighs the kinds.
#[derive(Default)]
struct Known {
    ev: Option<Arc<Evaluator>>,
    hands: rustc_hash::FxHashMap<HandKey, (u32, u32)>,
}

// Every group's code and one fit in nine bits (0 is no group), a kind's count in three.
const _: () = assert!(GTYPES.len() * SHAPES < 511 && KEYED_GROUPS * 9 <= 64 && NUM_KINDS * 3 <= 64);

/// The table's part of a hand's key ([`HandKey`]), None for a table too long to remember.
fn table_key(table: &[GroupCode]) -> Option<u64> {
    if table.len() > KEYED_GROUPS {
        return None;
    }
    Some(table.iter().fold(0u64, |key, g| key << 9 | u64::from(g.code() + 1)))
}

/// The hand's part of its key: its counts, three bits a kind.
fn cards_key(hand: &Counts) -> u64 {
    debug_assert!(hand.iter().all(|&n| n <= 4));
    hand.iter().rev().fold(0u64, |key, &n| key << 3 | u64::from(n))
}

/// Of the kinds in the mask `kinds`, those the hand wins on, through the thread's
/// [`SCRATCH`].
fn winning_kinds(ev: &Arc<Evaluator>, hand: &Counts, table: &[GroupCode], kinds: u32) -> u32 {
    SCRATCH.with_borrow_mut(|(inputs, prepared)| {
        inputs.clear();
        inputs.extend(table.iter().map(|&g| TableInput::of_code(g)));
        match prepared {
            Some(p) if p.uses(ev) => p.refill(*hand, inputs).expect("a hand the game made"),
            _ => *prepared = Some(Prepared::new(ev.clone(), *hand, inputs).expect("a hand the game made")),
        }
        prepared.as_ref().map_or(0, |p| p.winning_kinds(kinds))
    })
}

/// The unseen copies of the kinds the hand waits on (`hand_value`'s waits): the sum of
/// `unseen[k]` over the winning kinds `k`, those asked about before read from [`KNOWN`].
/// Not inlined: the waits are asked for a few hands in ten, and [`hand_value`]'s other path
/// stays short.
#[inline(never)]
fn live_waits(at: &Valuing<'_>, hand: &Counts) -> i64 {
    let (ev, table, wanted) = (at.ev, at.table, at.wanted);
    if wanted == 0 {
        return 0; // nothing left to win on
    }
    let key = at.table_key.map(|groups| (cards_key(hand), groups));
    let wins = KNOWN.with_borrow_mut(|known| {
        if !known.ev.as_ref().is_some_and(|e| Arc::ptr_eq(e, ev)) {
            known.hands.clear();
            known.ev = Some(ev.clone());
        }
        let (mut tried, mut wins) = key.and_then(|k| known.hands.get(&k).copied()).unwrap_or((0, 0));
        let missing = wanted & !tried;
        if missing != 0 {
            wins |= winning_kinds(ev, hand, table, missing);
            tried |= missing;
            if let Some(k) = key {
                if known.hands.len() >= KNOWN_HANDS {
                    known.hands.clear();
                }
                known.hands.insert(k, (tried, wins));
            }
        }
        wins & wanted
    });
    (0..NUM_KINDS).filter(|&k| wins & (1 << k) != 0).map(|k| at.unseen[k]).sum()
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

/// What [`hand_value`] reads besides the hand, worked out once for the hands it is asked
/// about on one table (each discard of a decision): the table's hu-xi and cards, how many
/// cards a full hand holds beside it, the kinds still unseen and the table's part of the
/// hands' keys.
struct Valuing<'a> {
    ev: &'a Arc<Evaluator>,
    table: &'a [GroupCode],
    unseen: &'a [i64; NUM_KINDS],
    waits: bool,
    table_huxi: i32,
    /// The cards in hand that make the holding full (`holding_limit` less the table's).
    full: i32,
    /// The kinds with an unseen copy, as a bit mask.
    wanted: u32,
    table_key: Option<u64>,
}

impl<'a> Valuing<'a> {
    fn new(
        ev: &'a Arc<Evaluator>,
        table: &'a [GroupCode],
        unseen: &'a [i64; NUM_KINDS],
        waits: bool,
    ) -> Self {
        let fours = table.iter().filter(|g| g.gtype.is_four()).count() as i32;
        Valuing {
            ev,
            table,
            unseen,
            waits,
            table_huxi: table.iter().map(|&g| ev.rules.huxi.code(g)).sum(),
            full: holding_limit(fours) - table.iter().map(|&g| group_len(g)).sum::<i32>(),
            // Read by `live_waits` only, when the waits are counted.
            wanted: if waits {
                (0..NUM_KINDS).filter(|&k| unseen[k] != 0).fold(0u32, |mask, k| mask | 1 << k)
            } else {
                0
            },
            table_key: if waits { table_key(table) } else { None },
        }
    }
}

/// How good a hand and table are (`hand_value`): the same floating-point operations in the
/// same order as the Python bot's.
fn hand_value(at: &Valuing<'_>, hand: &Counts) -> f64 {
    // `Evaluator::current_huxi`, the table's part taken from `at`.
    let mut huxi = at.table_huxi;
    let mut free = *hand;
    for (k, n) in free.iter_mut().enumerate() {
        match *n {
            4 => huxi += at.ev.same_kind(GType::Ti, k as Kind),
            3 => huxi += at.ev.same_kind(GType::Kan, k as Kind),
            _ => continue,
        }
        *n = 0;
    }
    huxi += at.ev.best_partial_value(&free);
    let present = hand.iter().enumerate().filter(|(_, &n)| n > 0).fold(0u32, |m, (k, _)| m | 1 << k);
    let held: i32 = hand.iter().map(|&n| i32::from(n)).sum();
    let mut value = 1.2 * f64::from(huxi);
    let mut isolated = 0;
    for k in 0..NUM_KINDS {
        let n = hand[k];
        if n == 0 || n == 3 {
            continue;
        }
        if n == 2 {
            value += 1.5 + 0.3 * at.unseen[k] as f64;
        } else if present & NEIGHBOURS[k] & !(1 << k) != 0 {
            value += 0.8;
        } else {
            isolated += 1;
            value -= 1.2;
        }
    }
    if at.waits && isolated <= 2 && held == at.full {
        let live = live_waits(at, hand);
        if live != 0 {
            value += 6.0 + 2.5 * live as f64;
        }
    }
    value
}

fn best_discard_value(at: &Valuing<'_>, hand: &mut Counts) -> f64 {
    let mut best: Option<f64> = None;
    for k in 0..NUM_KINDS {
        if hand[k] > 0 && hand[k] < 3 {
            hand[k] -= 1;
            let value = hand_value(at, hand);
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
    best.unwrap_or_else(|| hand_value(at, hand))
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
    let at = Valuing::new(ev, &view.table, unseen, waits);
    if let Some(Act::Discard(_)) = legal.first() {
        let mut hand = view.hand;
        return legal
            .iter()
            .map(|&a| {
                let Act::Discard(card) = a else { unreachable!("all discards") };
                let c = usize::from(card);
                hand[c] -= 1;
                let mut value = hand_value(&at, &hand);
                hand[c] += 1;
                if view.next_discarded & (1 << card) == 0 {
                    value -= 0.6; // the next player may 吃 it (R4.2, R7.1)
                }
                value
            })
            .collect();
    }
    let hand = view.hand;
    let keep = hand_value(&at, &hand);
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
                let claimed = Valuing::new(ev, &table, unseen, waits);
                let held: i32 = after.iter().map(|&n| i32::from(n)).sum();
                let mut value = if held > claimed.full {
                    best_discard_value(&claimed, &mut after)
                } else {
                    hand_value(&claimed, &after)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::evaluator::add_card;
    use crate::engine::rules::Rules;

    // Six groups: kan d1, d2d7d10, x1x2x3, kan x5, d4d5d6, x7x8x9 (the evaluator's tests' hand).
    const SIX: [u8; 18] = [10, 10, 10, 11, 16, 19, 0, 1, 2, 4, 4, 4, 13, 14, 15, 6, 7, 8];

    #[test]
    fn remembered_waits_are_the_waits() {
        // Every two-card ending of six groups, in hand and with d1 as a 碰 on the table, asked
        // with some kinds' weights 0, then with every kind weighed (the kinds not tried the
        // first time are tried then), then again (all remembered): the weights of the kinds
        // the evaluator's `waits` lists, summed.
        let ev = Arc::new(Evaluator::new(Rules::hunan()));
        let some: [i64; NUM_KINDS] = std::array::from_fn(|k| if k % 3 == 0 { 0 } else { (k % 4) as i64 + 1 });
        let every: [i64; NUM_KINDS] = std::array::from_fn(|k| (k % 4) as i64 + 1);
        let mut waiting = 0;
        for on_table in [false, true] {
            let table = if on_table { vec![GroupCode::new(GType::Peng, 10)] } else { vec![] };
            let inputs: Vec<TableInput> = table.iter().map(|&g| TableInput::of_code(g)).collect();
            for a in 0..NUM_KINDS as u8 {
                for b in a..NUM_KINDS as u8 {
                    let mut counts = [0; NUM_KINDS];
                    let ending = [a, b];
                    let mut cards = SIX.iter().skip(if on_table { 3 } else { 0 }).chain(&ending);
                    if cards.any(|&k| add_card(&mut counts, i64::from(k)).is_err())
                        || (on_table && counts[10] > 1)
                    {
                        continue;
                    }
                    let waits = Prepared::new(ev.clone(), counts, &inputs).unwrap().waits();
                    waiting += usize::from(!waits.is_empty());
                    for weights in [&some, &every, &some, &every] {
                        let expected: i64 = waits.iter().map(|(k, _)| weights[usize::from(*k)]).sum();
                        assert_eq!(
                            live_waits(&Valuing::new(&ev, &table, weights, true), &counts),
                            expected,
                            "{a} {b} on the table: {on_table}"
                        );
                    }
                }
            }
        }
        assert!(waiting > 20, "only {waiting} endings wait");
    }
}

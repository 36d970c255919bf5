//! Sampling the hidden cards (`paohuzi.bots.sampler.sample`) inside the native core: complete
//! positions consistent with one seat's observation, under the same constraints, which Python
//! works out once per observation (`limits`, the 亮张 kept in the dealer's hand, the phase).
//!
//! Every completion within the constraints is equally likely, as in Python: a face-down 偎
//! takes a kind weighted by the ways to choose its three cards, the unseen cards are dealt
//! uniformly at random (rejection sampling; when that fails, an exact count of the completions
//! drawn from, D125). The generator is the core's own, so the samples are not Python's, only
//! alike.

use std::sync::Arc;

use crate::engine::cards::{Kind, NUM_KINDS};
use crate::engine::game::{Game, GameError, GameRules, Phase, Rng, Seat};
use crate::engine::groups::{GType, GroupCode};

/// Deals tried before the exact way (`REJECTION_TRIES`), unless the caller says otherwise.
pub const REJECTION_TRIES: usize = 300;

/// Another seat's hidden hand: its seat, how many cards, the most of each kind it can hold.
#[derive(Clone, Debug)]
pub struct Hidden {
    pub seat: u8,
    pub size: usize,
    pub caps: [u8; NUM_KINDS],
}

/// What a sample is made from: everything the observing seat sees, and the constraints.
#[derive(Clone)]
pub struct Sampler {
    pub rules: Arc<GameRules>,
    pub dealer: u8,
    pub liang: Kind,
    pub wall: usize,
    /// Every seat as the observer sees it; other hands empty, a face-down 偎 of kind 0 (filled).
    pub seats: Vec<Seat>,
    /// Each face-down 偎 to fill, as (seat, table index), in the order Python fills them.
    pub weis: Vec<(u8, usize)>,
    /// Per seat, the kinds its face-down 偎 cannot be (a bit mask).
    pub not_wei: Vec<u32>,
    pub unseen: [i64; NUM_KINDS],
    pub hidden: Vec<Hidden>,
    /// The 亮张 is still in the dealer's hand if a copy of it is unseen (`kept`, but for
    /// the copy, which depends on the 偎 sampled: none when his own 偎 took it, D175).
    pub kept: bool,
    pub phase: Phase,
}

/// Why no sample can be made (`SamplingError`) or the position is refused.
#[derive(Clone, Debug)]
pub enum SampleError {
    Sampling(String),
    Position(String),
}

fn comb3(n: i64) -> u64 {
    if n < 3 {
        0
    } else {
        (n * (n - 1) * (n - 2) / 6) as u64
    }
}

impl Sampler {
    /// One game consistent with the observation: `tries` deals by rejection (the quick way),
    /// then the exact way.
    pub fn sample(&self, rng: &mut Rng, tries: usize) -> Result<Game, SampleError> {
        let sizes: usize = self.hidden.iter().map(|h| h.size).sum();
        if (sizes + self.wall + 3 * self.weis.len()) as i64 != self.unseen.iter().sum::<i64>() {
            return Err(SampleError::Sampling("the unseen cards do not fill the hidden places".into()));
        }
        let found = match self.quick(rng, tries) {
            Some(found) => found,
            None => Completions::new(self).draw(rng).ok_or_else(|| {
                SampleError::Sampling("no deal of the unseen cards respects what is known".into())
            })?,
        };
        let mut seats = self.seats.clone();
        for (&(s, index), &k) in self.weis.iter().zip(&found.weis) {
            seats[usize::from(s)].table[index] = GroupCode::new(GType::Wei, k as Kind);
        }
        for (h, counts) in self.hidden.iter().zip(found.hands) {
            seats[usize::from(h.seat)].hand = counts;
        }
        Game::from_position(
            self.rules.clone(),
            self.dealer,
            self.liang,
            found.wall,
            seats,
            self.phase.clone(),
            true,
        )
        .map_err(|e| match e {
            GameError::Position(m) => SampleError::Position(m),
            other => SampleError::Position(format!("{other:?}")),
        })
    }

    /// The quick way (`quick_draw`), the same draws as before for the same seed: each face-down 偎
    /// in turn takes a kind weighted by the ways to choose its three cards, then rejection
    /// sampling of the deal; `None` if no kind fits a 偎 or after `tries` deals.
    fn quick(&self, rng: &mut Rng, tries: usize) -> Option<Completion> {
        let mut unseen = self.unseen;
        let mut weis = Vec::with_capacity(self.weis.len());
        for &(s, _) in &self.weis {
            let kinds: Vec<usize> = (0..NUM_KINDS)
                .filter(|&k| unseen[k] >= 3 && self.not_wei[usize::from(s)] & (1 << k) == 0)
                .collect();
            if kinds.is_empty() {
                return None;
            }
            let total: u64 = kinds.iter().map(|&k| comb3(unseen[k])).sum();
            let mut pick = ((u128::from(rng.next_u64()) * u128::from(total)) >> 64) as u64;
            let mut chosen = kinds[kinds.len() - 1];
            for &k in &kinds {
                let w = comb3(unseen[k]);
                if pick < w {
                    chosen = k;
                    break;
                }
                pick -= w;
            }
            unseen[chosen] -= 3;
            weis.push(chosen);
        }
        let mut hidden = self.hidden.clone();
        // No seat holds a card of its own face-down 偎's kind (R4.1: he held two, drew the third).
        for (&(s, _), &k) in self.weis.iter().zip(&weis) {
            if let Some(h) = hidden.iter_mut().find(|h| h.seat == s) {
                h.caps[k] = 0;
            }
        }
        let liang = usize::from(self.liang);
        // The 亮张 is kept unless the dealer's own 偎 took it.
        let taken = self.weis.iter().zip(&weis).any(|(&(s, _), &k)| s == self.dealer && k == liang);
        let kept = self.kept && unseen[liang] > 0 && !taken;
        if kept {
            let dealer = hidden.iter_mut().find(|h| h.seat == self.dealer).expect("the dealer is hidden");
            if dealer.caps[liang] == 0 {
                return None; // kept against a cap of 0: no deal fits, the exact way decides
            }
            unseen[liang] -= 1;
            dealer.size -= 1;
            dealer.caps[liang] -= 1;
        }
        let mut pool: Vec<Kind> =
            (0..NUM_KINDS).flat_map(|k| std::iter::repeat_n(k as Kind, unseen[k].max(0) as usize)).collect();
        let (mut hands, wall) = deal(&mut pool, &hidden, rng, tries)?;
        for (h, counts) in hidden.iter().zip(hands.iter_mut()) {
            if kept && h.seat == self.dealer {
                counts[liang] += 1;
            }
        }
        Some(Completion { weis, hands, wall })
    }
}

/// A completion: the kind of each face-down 偎 (in the order of `weis`), the hidden hands'
/// counts (in the order of `hidden`, a kept 亮张 included) and the wall in order.
struct Completion {
    weis: Vec<usize>,
    hands: Vec<[u8; NUM_KINDS]>,
    wall: Vec<Kind>,
}

/// Deals the pool into the hidden hands and the wall (the rest, in order), uniformly among
/// the deals that respect the caps, by rejection (`quick_draw`); `None` after `tries`.
fn deal(
    pool: &mut [Kind],
    hidden: &[Hidden],
    rng: &mut Rng,
    tries: usize,
) -> Option<(Vec<[u8; NUM_KINDS]>, Vec<Kind>)> {
    'tries: for _ in 0..tries {
        rng.shuffle(pool);
        let mut hands = Vec::with_capacity(hidden.len());
        let mut start = 0;
        for h in hidden {
            let mut counts = [0u8; NUM_KINDS];
            for &k in &pool[start..start + h.size] {
                counts[usize::from(k)] += 1;
                if counts[usize::from(k)] > h.caps[usize::from(k)] {
                    continue 'tries;
                }
            }
            start += h.size;
            hands.push(counts);
        }
        return Some((hands, pool[start..].to_vec()));
    }
    None
}

/// At most 3 hidden hands and 4 seats with face-down 偎.
type State = (usize, [u8; 3], [u8; 4]);

/// Every completion within the constraints, counted kind by kind (`Completions` in Python,
/// D125): the exact way when the quick one fails, which finds a completion whenever one
/// exists. A completion counts as many times as there are ways to choose its physical cards
/// (a 偎's three of the copies, then the deal of the rest); the counts are floating point
/// (they pass 2^128 with four seats), so the draw is exact up to their rounding.
struct Completions<'a> {
    s: &'a Sampler,
    /// The hidden hand holding the kept 亮张, if it may be kept.
    keeper: Option<usize>,
    /// The seats with face-down 偎 to fill, and for each its slots (indices into `weis`).
    wei_seats: Vec<u8>,
    /// Per seat of `wei_seats`, its hidden hand (which holds none of its 偎's kind).
    wei_hands: Vec<Option<usize>>,
    /// Per hand and kind: the most it can take from that kind on (to prune).
    room: Vec<[usize; NUM_KINDS + 1]>,
    memo: std::collections::HashMap<State, f64>,
}

/// One choice at a kind: the index of the wei seat taking it (or none), the ways, the state after.
type Step = (Option<usize>, f64, [u8; 3], [u8; 4]);

fn choose(n: usize, r: usize) -> f64 {
    if r > n {
        return 0.0;
    }
    (0..r).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

impl<'a> Completions<'a> {
    fn new(s: &'a Sampler) -> Self {
        let keeper = if s.kept { s.hidden.iter().position(|h| h.seat == s.dealer) } else { None };
        let mut wei_seats: Vec<u8> = s.weis.iter().map(|&(seat, _)| seat).collect();
        wei_seats.sort_unstable();
        wei_seats.dedup();
        let room = s
            .hidden
            .iter()
            .map(|h| {
                let mut room = [0usize; NUM_KINDS + 1];
                for k in (0..NUM_KINDS).rev() {
                    room[k] = room[k + 1] + usize::from(h.caps[k]).min(s.unseen[k].max(0) as usize);
                }
                room
            })
            .collect();
        let wei_hands = wei_seats.iter().map(|&seat| s.hidden.iter().position(|h| h.seat == seat)).collect();
        Completions { s, keeper, wei_seats, wei_hands, room, memo: std::collections::HashMap::new() }
    }

    fn steps(&self, k: usize, need: [u8; 3], weis: [u8; 4]) -> Vec<Step> {
        let unseen = self.s.unseen[k].max(0) as usize;
        let mut wei_choices = vec![(None, 1.0, weis)];
        if unseen >= 3 {
            for (i, &seat) in self.wei_seats.iter().enumerate() {
                if weis[i] > 0 && self.s.not_wei[usize::from(seat)] & (1 << k) == 0 {
                    let mut after = weis;
                    after[i] -= 1;
                    wei_choices.push((Some(i), f64::from(weis[i]) * choose(unseen, 3), after));
                }
            }
        }
        let mut found = Vec::new();
        for (i, ways, after) in wei_choices {
            let copies = unseen - if i.is_some() { 3 } else { 0 };
            // The hand of the seat whose 偎 takes the kind holds none of it (R4.1), so a
            // dealer whose 偎 is the 亮张's kind has not kept it.
            let wei = i.and_then(|i| self.wei_hands[i]);
            let forced = usize::from(
                self.keeper.is_some() && self.keeper != wei && k == usize::from(self.s.liang) && copies > 0,
            );
            let pool = copies - forced;
            let mut held = [0u8; 3];
            self.splits(k, need, pool, forced, wei, 0, 0, ways, &mut held, &mut |held, ways| {
                let mut left = need;
                for (h, c) in held.iter().enumerate() {
                    left[h] -= c;
                }
                found.push((i, ways, left, after));
            });
        }
        found
    }

    /// Every split of kind `k` among the hands from hand `h` on (`dealt` so far from `pool`).
    #[allow(clippy::too_many_arguments)]
    fn splits(
        &self,
        k: usize,
        need: [u8; 3],
        pool: usize,
        forced: usize,
        wei: Option<usize>,
        h: usize,
        dealt: usize,
        ways: f64,
        held: &mut [u8; 3],
        out: &mut dyn FnMut(&[u8; 3], f64),
    ) {
        if h == self.s.hidden.len() {
            out(held, ways);
            return;
        }
        let extra = if self.keeper == Some(h) { forced } else { 0 };
        let top =
            if wei == Some(h) { 0 } else { usize::from(self.s.hidden[h].caps[k]).min(usize::from(need[h])) };
        for c in extra..=top {
            if dealt + c - extra > pool {
                break;
            }
            held[h] = c as u8;
            let here = ways * choose(pool - dealt, c - extra);
            self.splits(k, need, pool, forced, wei, h + 1, dealt + c - extra, here, held, out);
        }
        held[h] = 0;
    }

    fn count(&mut self, k: usize, need: [u8; 3], weis: [u8; 4]) -> f64 {
        if k == NUM_KINDS {
            return if need.iter().all(|&n| n == 0) && weis.iter().all(|&w| w == 0) { 1.0 } else { 0.0 };
        }
        if let Some(&found) = self.memo.get(&(k, need, weis)) {
            return found;
        }
        let bigger = (0..self.s.hidden.len()).any(|h| usize::from(need[h]) > self.room[h][k]);
        let triples = (k..NUM_KINDS).filter(|&j| self.s.unseen[j] >= 3).count();
        let total = if bigger || weis.iter().map(|&w| usize::from(w)).sum::<usize>() > triples {
            0.0
        } else {
            let mut total = 0.0;
            for (_, ways, n, w) in self.steps(k, need, weis) {
                total += ways * self.count(k + 1, n, w);
            }
            total
        };
        self.memo.insert((k, need, weis), total);
        total
    }

    fn draw(&mut self, rng: &mut Rng) -> Option<Completion> {
        if self.s.hidden.len() > 3 || self.wei_seats.len() > 4 {
            return None;
        }
        let mut need = [0u8; 3];
        for (h, hidden) in self.s.hidden.iter().enumerate() {
            need[h] = u8::try_from(hidden.size).ok()?;
        }
        let mut open: Vec<Vec<usize>> = vec![Vec::new(); self.wei_seats.len()];
        let mut weis = [0u8; 4];
        for (slot, &(seat, _)) in self.s.weis.iter().enumerate() {
            let i = self.wei_seats.iter().position(|&s| s == seat).expect("a wei seat");
            open[i].push(slot);
            weis[i] += 1;
        }
        if self.count(0, need, weis) <= 0.0 {
            return None;
        }
        let mut kinds = vec![0usize; self.s.weis.len()];
        let mut hands = vec![[0u8; NUM_KINDS]; self.s.hidden.len()];
        let mut wall = Vec::new();
        for k in 0..NUM_KINDS {
            let options: Vec<Step> = self
                .steps(k, need, weis)
                .into_iter()
                .map(|(i, ways, n, w)| (i, ways * self.count(k + 1, n, w), n, w))
                .filter(|option| option.1 > 0.0)
                .collect();
            let total: f64 = options.iter().map(|o| o.1).sum();
            let mut pick = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * total;
            let mut chosen = options.len() - 1;
            for (index, option) in options.iter().enumerate() {
                if pick < option.1 {
                    chosen = index;
                    break;
                }
                pick -= option.1;
            }
            let (i, _, n, w) = options[chosen];
            let mut taken = 0;
            for (h, hand) in hands.iter_mut().enumerate() {
                hand[k] = need[h] - n[h];
                taken += usize::from(hand[k]);
            }
            if let Some(i) = i {
                let at = rng.below(open[i].len());
                let slot = open[i].swap_remove(at);
                kinds[slot] = k;
                taken += 3;
            }
            wall.extend(std::iter::repeat_n(k as Kind, self.s.unseen[k].max(0) as usize - taken));
            need = n;
            weis = w;
        }
        rng.shuffle(&mut wall);
        Some(Completion { weis: kinds, hands, wall })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::engine::evaluator::Evaluator;
    use crate::engine::rules::Rules;

    /// A completion as the brute force and the draw both name it: each 偎 slot's kind, then
    /// each hidden hand's counts.
    type Key = (Vec<usize>, Vec<[u8; NUM_KINDS]>);

    fn sampler(
        unseen: [i64; NUM_KINDS],
        weis: Vec<u8>,
        not_wei: Vec<u32>,
        hidden: Vec<Hidden>,
        kept: bool,
    ) -> Sampler {
        let rules = GameRules {
            ev: Arc::new(Evaluator::new(Rules::hunan())),
            players: 3,
            hu_on_discard: false,
            take_needs_discard: true,
            break_kan_when_stuck: true,
        };
        let seat = Seat {
            hand: [0; NUM_KINDS],
            table: Vec::new(),
            row: Vec::new(),
            discarded: 0,
            chou: 0,
            chou_hu: Vec::new(),
        };
        let sizes: usize = hidden.iter().map(|h| h.size).sum();
        Sampler {
            rules: Arc::new(rules),
            dealer: 1,
            liang: 0,
            wall: unseen.iter().sum::<i64>() as usize - sizes - 3 * weis.len(),
            seats: vec![seat; 3],
            weis: weis.into_iter().enumerate().map(|(i, s)| (s, i)).collect(),
            not_wei,
            unseen,
            hidden,
            kept,
            phase: Phase::Discarding(0),
        }
    }

    /// Every way to put each unseen physical card in a place — a 偎 slot, a hidden hand or
    /// the wall — within the constraints, counted by completion (the dealer, seat 1, holding
    /// at least one 亮张 of kind 0 when `kept` and a copy is left outside the 偎, unless his
    /// own 偎 is of kind 0; no hand holding a card of its own 偎's kind, R4.1).
    fn brute_force(s: &Sampler) -> HashMap<Key, u64> {
        let cards: Vec<usize> =
            (0..NUM_KINDS).flat_map(|k| std::iter::repeat_n(k, s.unseen[k] as usize)).collect();
        let places = s.weis.len() + s.hidden.len() + 1;
        let mut found = HashMap::new();
        let mut at = vec![0usize; cards.len()];
        'all: loop {
            let mut kinds = Vec::new();
            for (slot, &(seat, _)) in s.weis.iter().enumerate() {
                let held: Vec<usize> =
                    cards.iter().zip(&at).filter(|&(_, &p)| p == slot).map(|(&k, _)| k).collect();
                if held.len() != 3
                    || held.iter().any(|&k| k != held[0])
                    || s.not_wei[usize::from(seat)] & (1 << held[0]) != 0
                {
                    kinds.clear();
                    break;
                }
                kinds.push(held[0]);
            }
            let mut hands = Vec::new();
            if kinds.len() == s.weis.len() {
                for (h, hidden) in s.hidden.iter().enumerate() {
                    let mut counts = [0u8; NUM_KINDS];
                    for (&k, &p) in cards.iter().zip(&at) {
                        counts[k] += u8::from(p == s.weis.len() + h);
                    }
                    let size: usize = counts.iter().map(|&c| usize::from(c)).sum();
                    let own_wei = s
                        .weis
                        .iter()
                        .zip(&kinds)
                        .any(|(&(seat, _), &k)| seat == hidden.seat && counts[k] > 0);
                    if size != hidden.size || (0..NUM_KINDS).any(|k| counts[k] > hidden.caps[k]) || own_wei {
                        break;
                    }
                    hands.push(counts);
                }
            }
            let outside = s.unseen[0] as usize - 3 * kinds.iter().filter(|&&k| k == 0).count();
            // The dealer's own 偎 of the 亮张's kind took the 亮张 (he holds none of it).
            let in_wei = s.weis.iter().zip(&kinds).any(|(&(seat, _), &k)| seat == s.dealer && k == 0);
            let keeps = !s.kept || outside == 0 || in_wei || hands.first().is_some_and(|hand| hand[0] > 0);
            if hands.len() == s.hidden.len() && keeps {
                *found.entry((kinds, hands)).or_insert(0) += 1;
            }
            for p in at.iter_mut() {
                *p += 1;
                if *p < places {
                    continue 'all;
                }
                *p = 0;
            }
            return found;
        }
    }

    fn start(s: &Sampler) -> ([u8; 3], [u8; 4]) {
        let mut need = [0u8; 3];
        for (h, hidden) in s.hidden.iter().enumerate() {
            need[h] = hidden.size as u8;
        }
        let mut seats: Vec<u8> = s.weis.iter().map(|&(seat, _)| seat).collect();
        seats.sort_unstable();
        seats.dedup();
        let mut weis = [0u8; 4];
        for &(seat, _) in &s.weis {
            weis[seats.iter().position(|&x| x == seat).unwrap()] += 1;
        }
        (need, weis)
    }

    /// Four 5s and a 7 unseen, seat 1's face-down 偎 to fill, seat 2 holding one card, one
    /// left to draw: the 偎 takes three of the four 5s (4 ways), the last 5 and the 7 go one
    /// to the hand, one to the wall (2 ways): 8. With no 7 allowed in seat 2's hand, 4; with
    /// 5s barred from seat 1's 偎, none.
    #[test]
    fn completions_count_a_small_case_by_hand() {
        let mut unseen = [0i64; NUM_KINDS];
        unseen[5] = 4;
        unseen[7] = 1;
        let mut caps = [3u8; NUM_KINDS];
        for (seven, not_wei, expected) in [(1, 0, 8.0), (0, 0, 4.0), (1, 1 << 5, 0.0)] {
            caps[7] = seven;
            let hidden = vec![Hidden { seat: 2, size: 1, caps }];
            let s = sampler(unseen, vec![1], vec![0, not_wei, 0], hidden, false);
            let whole: u64 = brute_force(&s).values().sum();
            let (need, weis) = start(&s);
            assert_eq!(Completions::new(&s).count(0, need, weis), expected);
            assert_eq!(whole as f64, expected);
        }
    }

    /// A seat holds no card of its own face-down 偎's kind (R4.1: he held two when he drew the
    /// third): four 5s and a 7 unseen, seat 1's 偎 to fill and seat 1 holding one card, the
    /// rest to draw — the 偎 takes three of the 5s (4 ways) and seat 1 holds the 7, never the
    /// fourth 5: 4 completions, not 8. When seat 1 is the dealer and the 5s are the 亮张's
    /// kind (kind 0 here), his 偎 took the 亮张: the last copy is not forced into his hand.
    #[test]
    fn a_seat_holds_none_of_its_own_wei_kind() {
        for (kind, kept) in [(5usize, false), (0, true)] {
            let mut unseen = [0i64; NUM_KINDS];
            unseen[kind] = 4;
            unseen[7] = 1;
            let hidden = vec![Hidden { seat: 1, size: 1, caps: [3u8; NUM_KINDS] }];
            let s = sampler(unseen, vec![1], vec![0, 0, 0], hidden, kept);
            let whole: u64 = brute_force(&s).values().sum();
            let (need, weis) = start(&s);
            assert_eq!(Completions::new(&s).count(0, need, weis), 4.0, "kind {kind}");
            assert_eq!(whole, 4, "kind {kind}");
            let mut rng = Rng::new(7);
            for _ in 0..50 {
                let found = s.quick(&mut rng, 300).expect("the quick way finds one");
                assert_eq!((found.weis[0], found.hands[0][kind], found.hands[0][7]), (kind, 0, 1));
                let found = Completions::new(&s).draw(&mut rng).expect("a completion exists");
                assert_eq!((found.weis[0], found.hands[0][kind], found.hands[0][7]), (kind, 0, 1));
            }
        }
    }

    /// The dealer (seat 1) kept the 亮张 (kind 0) unless his own face-down 偎 took it: with a
    /// cap of 0 on kind 0 for him (tighter caps, as his true hand), four 0s, three 5s and a 7
    /// unseen, his one 偎 and one card in hand, only a 偎 of 0s fits — a 偎 of 5s would leave
    /// the 亮张 in his hand. Both ways draw only that (the quick way drew a 偎 of 5s with the
    /// four 0s elsewhere about one time in five).
    #[test]
    fn the_kept_liang_is_not_given_up_for_a_cap() {
        let mut unseen = [0i64; NUM_KINDS];
        unseen[0] = 4;
        unseen[5] = 3;
        unseen[7] = 1;
        let mut caps = [3u8; NUM_KINDS];
        caps[0] = 0;
        let s = sampler(unseen, vec![1], vec![0, 0, 0], vec![Hidden { seat: 1, size: 1, caps }], true);
        let mut rng = Rng::new(11);
        let mut quick = 0;
        for _ in 0..500 {
            if let Some(found) = s.quick(&mut rng, 300) {
                assert_eq!((found.weis[0], found.hands[0][0]), (0, 0));
                quick += 1;
            }
            let found = Completions::new(&s).draw(&mut rng).expect("a completion exists");
            assert_eq!((found.weis[0], found.hands[0][0]), (0, 0));
        }
        assert!(quick > 100);
    }

    /// Small random constraint sets: the count of completions is the brute force's number of
    /// physical deals, so a completion is found whenever one exists, and draws follow it.
    #[test]
    fn completions_count_and_draw_as_the_brute_force() {
        let mut rng = Rng::new(26);
        let mut nonempty = 0;
        for case in 0..40 {
            let mut unseen = [0i64; NUM_KINDS];
            // Three kinds, the last the 亮张 (kind 0): 3 or 4, 2 or 3, 1 or 2 copies.
            let a = 1 + rng.below(NUM_KINDS - 1);
            let b = 1 + (a + rng.below(NUM_KINDS - 2)) % (NUM_KINDS - 1);
            for (k, copies) in [(a, 3), (b, 2), (0, 1)] {
                unseen[k] = copies + rng.below(2) as i64;
            }
            let total = unseen.iter().sum::<i64>() as usize;
            let slots = (rng.below(3)).min(total / 3);
            let weis: Vec<u8> = (0..slots).map(|_| 1 + rng.below(2) as u8).collect();
            let mut hidden = Vec::new();
            let mut left = total - 3 * slots;
            for seat in [1u8, 2] {
                let size = rng.below(left.min(4) + 1);
                left -= size;
                let mut caps = [0u8; NUM_KINDS];
                for cap in caps.iter_mut() {
                    *cap = rng.below(4) as u8;
                }
                hidden.push(Hidden { seat, size, caps });
            }
            let places = (slots + 3) as u64;
            if places.pow(total as u32) > 2_000_000 {
                continue;
            }
            let not_wei = vec![0, (rng.next_u64() as u32) & 0xf_ffff, 0];
            let s = sampler(unseen, weis, not_wei, hidden, case % 3 == 0);
            let expected = brute_force(&s);
            let mut completions = Completions::new(&s);
            let (need, weis) = start(&s);
            let whole: u64 = expected.values().sum();
            if s.kept {
                // The kept 亮张 is one chosen copy, so only whether any completion exists is
                // the brute force's.
                assert_eq!(completions.count(0, need, weis) > 0.0, whole > 0, "case {case}");
            } else {
                assert_eq!(completions.count(0, need, weis), whole as f64, "case {case}");
            }
            if whole == 0 {
                assert!(completions.draw(&mut rng).is_none());
                continue;
            }
            nonempty += 1;
            let n = 3000;
            let mut draws: HashMap<Key, u64> = HashMap::new();
            for _ in 0..n {
                let found = completions.draw(&mut rng).expect("a completion exists");
                let size: usize = s.hidden.iter().map(|h| h.size).sum();
                assert_eq!(found.wall.len(), total - 3 * s.weis.len() - size);
                *draws.entry((found.weis, found.hands)).or_insert(0) += 1;
            }
            for key in draws.keys() {
                assert!(expected.contains_key(key), "case {case}: drew {key:?}, no such completion");
            }
            if !s.kept {
                for (key, &ways) in &expected {
                    let p = ways as f64 / whole as f64;
                    let seen = *draws.get(key).unwrap_or(&0) as f64 / f64::from(n);
                    assert!(
                        (seen - p).abs() < 4.5 * (p * (1.0 - p) / f64::from(n)).sqrt() + 1e-9,
                        "case {case}"
                    );
                }
            }
        }
        assert!(nonempty >= 15, "only {nonempty} cases had a completion");
    }
}

//! Sampling the hidden cards (`paohuzi.bots.sampler.sample`) inside the native core: complete
//! positions consistent with one seat's observation, under the same constraints, which Python
//! works out once per observation (`limits`, the 亮张 kept in the dealer's hand, the phase).
//!
//! Every completion within the constraints is equally likely, as in Python: a face-down 偎
//! takes a kind weighted by the ways to choose its three cards, the unseen cards are dealt
//! uniformly at random (rejection sampling, then a card-by-card fill when the constraints bind
//! hard). The generator is the core's own, so the samples are not Python's, only alike.

use std::sync::Arc;

use crate::engine::cards::{Kind, NUM_KINDS};
use crate::engine::game::{Game, GameError, GameRules, Phase, Rng, Seat};
use crate::engine::groups::{GType, GroupCode};

/// Deals tried before the card-by-card fill (`REJECTION_TRIES`).
const REJECTION_TRIES: usize = 300;

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
    /// the copy, which depends on the 偎 sampled).
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
    /// One game consistent with the observation.
    pub fn sample(&self, rng: &mut Rng) -> Result<Game, SampleError> {
        let mut unseen = self.unseen;
        let mut seats = self.seats.clone();
        for &(s, index) in &self.weis {
            let kinds: Vec<usize> = (0..NUM_KINDS)
                .filter(|&k| unseen[k] >= 3 && self.not_wei[usize::from(s)] & (1 << k) == 0)
                .collect();
            if kinds.is_empty() {
                return Err(SampleError::Sampling(format!("no kind fits seat {s}'s face-down 偎")));
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
            seats[usize::from(s)].table[index] = GroupCode::new(GType::Wei, chosen as Kind);
        }
        let mut hidden = self.hidden.clone();
        let sizes: usize = hidden.iter().map(|h| h.size).sum();
        if (sizes + self.wall) as i64 != unseen.iter().sum::<i64>() {
            return Err(SampleError::Sampling("the unseen cards do not fill the hidden places".into()));
        }
        let liang = usize::from(self.liang);
        let kept = self.kept && unseen[liang] > 0;
        if kept {
            unseen[liang] -= 1;
            let dealer = hidden.iter_mut().find(|h| h.seat == self.dealer).expect("the dealer is hidden");
            dealer.size -= 1;
            dealer.caps[liang] = dealer.caps[liang].saturating_sub(1);
        }
        let mut pool: Vec<Kind> =
            (0..NUM_KINDS).flat_map(|k| std::iter::repeat_n(k as Kind, unseen[k].max(0) as usize)).collect();
        let (hands, wall) = deal(&mut pool, &hidden, rng)?;
        for (h, mut counts) in hidden.iter().zip(hands) {
            if kept && h.seat == self.dealer {
                counts[liang] += 1;
            }
            seats[usize::from(h.seat)].hand = counts;
        }
        Game::from_position(
            self.rules.clone(),
            self.dealer,
            self.liang,
            wall,
            seats,
            self.phase.clone(),
            true,
        )
        .map_err(|e| match e {
            GameError::Position(m) => SampleError::Position(m),
            other => SampleError::Position(format!("{other:?}")),
        })
    }
}

type Dealt = (Vec<[u8; NUM_KINDS]>, Vec<Kind>);

/// Deals the pool into the hidden hands and the wall (the rest, in order), uniformly among
/// the deals that respect the caps (`_deal`).
fn deal(pool: &mut [Kind], hidden: &[Hidden], rng: &mut Rng) -> Result<Dealt, SampleError> {
    'tries: for _ in 0..REJECTION_TRIES {
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
        return Ok((hands, pool[start..].to_vec()));
    }
    // Rare: the constraints bind hard. Fill each hand card by card within its caps.
    rng.shuffle(pool);
    let mut left: Vec<Kind> = pool.to_vec();
    let mut hands = Vec::with_capacity(hidden.len());
    for h in hidden {
        let mut counts = [0u8; NUM_KINDS];
        let mut n = 0;
        let mut rest = Vec::with_capacity(left.len());
        for &k in &left {
            if n < h.size && counts[usize::from(k)] < h.caps[usize::from(k)] {
                counts[usize::from(k)] += 1;
                n += 1;
            } else {
                rest.push(k);
            }
        }
        if n < h.size {
            return Err(SampleError::Sampling("no deal of the unseen cards respects what is known".into()));
        }
        hands.push(counts);
        left = rest;
    }
    Ok((hands, left))
}

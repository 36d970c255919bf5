//! Best decompositions of one size's free cards into sequences and at most one pair (R3).
//!
//! The port of `paohuzi.engine.evaluator._SuitTable`, filled once for all keys instead of memoised:
//! a key packs the counts of ranks 1–10 two bits each (free cards number at most three of a
//! kind, the winning card included), so one size has 2^20 keys and a table 4 MiB. Filling in
//! key order works because every step of the search removes cards, giving a smaller key.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::engine::groups::{jiao_shape, run2710_shape, run_shape, GType, GroupCode};

pub const KEYS: usize = 1 << 20;

/// No decomposition.
pub const NONE: i16 = i16::MIN;

/// A hu-xi too large for the table's `i16` cells: the binding leaves such rule sets to Python.
pub const MAX_WEIGHT: i32 = 1000;

/// One size's table for the hu-xi of its 1-2-3 (`w123`) and 2-7-10 (`w2710`) sequences.
pub struct SuitTable {
    pub w123: i16,
    pub w2710: i16,
    /// Per key: the best hu-xi without a pair, and with exactly one pair; [`NONE`] when
    /// impossible.
    cells: Vec<[i16; 2]>,
}

/// One way to take the lowest rank's card out of a key: what is left, the group, its weight.
struct Step {
    sub: usize,
    shape: u8,
    weight: i16,
}

fn count(key: usize, rank: usize) -> usize {
    (key >> (2 * rank)) & 3
}

impl SuitTable {
    /// The table for one size, shared between rule sets with the same weights.
    pub fn shared(w123: i32, w2710: i32) -> Arc<SuitTable> {
        type Tables = Mutex<HashMap<(i32, i32), Arc<SuitTable>>>;
        static TABLES: OnceLock<Tables> = OnceLock::new();
        let tables = TABLES.get_or_init(|| Mutex::new(HashMap::new()));
        let mut tables = tables.lock().unwrap_or_else(|e| e.into_inner());
        tables.entry((w123, w2710)).or_insert_with(|| Arc::new(SuitTable::new(w123, w2710))).clone()
    }

    pub fn new(w123: i32, w2710: i32) -> SuitTable {
        assert!(w123.abs() <= MAX_WEIGHT && w2710.abs() <= MAX_WEIGHT, "hu-xi out of range");
        let mut table = SuitTable { w123: w123 as i16, w2710: w2710 as i16, cells: vec![[NONE; 2]; KEYS] };
        table.cells[0] = [0, NONE];
        for key in 1..KEYS {
            table.cells[key] = table.solve(key);
        }
        table
    }

    /// The lowest rank present must be in a sequence starting at it, in 2-7-10 (if it is
    /// rank 2), or in the pair: the sequence steps, in the Python evaluator's order.
    fn steps(&self, key: usize) -> ([Option<Step>; 2], usize) {
        let r = key.trailing_zeros() as usize / 2;
        let run = (r <= 7 && count(key, r + 1) > 0 && count(key, r + 2) > 0).then(|| Step {
            sub: key - (0b010101 << (2 * r)),
            shape: r as u8,
            weight: if r == 0 { self.w123 } else { 0 },
        });
        let run2710 = (r == 1 && count(key, 6) > 0 && count(key, 9) > 0).then(|| Step {
            sub: key - (1 << 2) - (1 << 12) - (1 << 18),
            shape: u8::MAX,
            weight: self.w2710,
        });
        ([run, run2710], r)
    }

    fn solve(&self, key: usize) -> [i16; 2] {
        let (steps, r) = self.steps(key);
        let mut best = [NONE; 2];
        for step in steps.iter().flatten() {
            let sub = self.cells[step.sub];
            for with_pair in 0..2 {
                if sub[with_pair] != NONE
                    && (best[with_pair] == NONE || sub[with_pair] + step.weight > best[with_pair])
                {
                    best[with_pair] = sub[with_pair] + step.weight;
                }
            }
        }
        if count(key, r) >= 2 {
            let sub = self.cells[key - (2 << (2 * r))][0];
            if sub != NONE && (best[1] == NONE || sub > best[1]) {
                best[1] = sub;
            }
        }
        best
    }

    /// Best hu-xi of a key without a pair (`with_pair` false) or with exactly one, or [`NONE`].
    #[inline]
    pub fn value(&self, key: usize, with_pair: bool) -> i16 {
        self.cells[key][usize::from(with_pair)]
    }

    /// The groups of the decomposition [`SuitTable::value`] scores: at each step the first
    /// choice, in the search's order, that reaches the best, as the Python evaluator keeps.
    /// `base` is the size's first kind (0 or 10).
    pub fn groups(&self, mut key: usize, mut with_pair: bool, base: u8, out: &mut Vec<GroupCode>) {
        while key != 0 {
            let target = self.value(key, with_pair);
            debug_assert!(target != NONE);
            let (steps, r) = self.steps(key);
            let mut next = None;
            for step in steps.iter().flatten() {
                let sub = self.value(step.sub, with_pair);
                if sub != NONE && sub + step.weight == target {
                    let shape = if step.shape == u8::MAX {
                        run2710_shape(base)
                    } else {
                        run_shape(base + step.shape)
                    };
                    next = Some((step.sub, GroupCode::new(GType::Run, shape), with_pair));
                    break;
                }
            }
            if next.is_none() && with_pair {
                next = Some((key - (2 << (2 * r)), GroupCode::new(GType::Pair, base + r as u8), false));
            }
            let (sub, group, pair_left) = next.expect("a decomposition the table scores");
            out.push(group);
            key = sub;
            with_pair = pair_left;
        }
    }
}

/// The key of one size's counts (kinds `base`..`base + 10`).
#[inline]
pub fn key_of(counts: &[u8], base: usize) -> usize {
    let mut key = 0;
    for r in 0..10 {
        key |= usize::from(counts[base + r]) << (2 * r);
    }
    key
}

/// The shape of a 绞 taking two of `rank`'s small cards (`two_small`) or two big ones.
pub fn jiao(rank: usize, two_small: bool) -> GroupCode {
    GroupCode::new(GType::Jiao, jiao_shape(rank as u8, two_small))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(ranks: &[usize]) -> usize {
        ranks.iter().map(|&r| 1usize << (2 * (r - 1))).sum()
    }

    #[test]
    fn r3_sequences_and_pair() {
        let t = SuitTable::new(3, 3);
        // 1 2 3: one sequence worth 3; with a pair impossible.
        assert_eq!(t.value(key(&[1, 2, 3]), false), 3);
        assert_eq!(t.value(key(&[1, 2, 3]), true), NONE);
        // 2 7 10 + 5 5: 2-7-10 and the pair.
        assert_eq!(t.value(key(&[2, 7, 10, 5, 5]), true), 3);
        // 1 2 3 4: no decomposition.
        assert_eq!(t.value(key(&[1, 2, 3, 4]), false), NONE);
        // 1 1 2 2 3 3 as two 1-2-3: 6.
        assert_eq!(t.value(key(&[1, 1, 2, 2, 3, 3]), false), 6);
    }

    #[test]
    fn r3_groups_follow_the_best() {
        let t = SuitTable::new(3, 3);
        // 1 2 2 3 7 10: x1x2x3 and x2x7x10 (6), never 2-3-? .
        let mut out = Vec::new();
        t.groups(key(&[1, 2, 2, 3, 7, 10]), false, 0, &mut out);
        let cards: Vec<Vec<u8>> = out.iter().map(|g| g.cards()).collect();
        assert_eq!(cards, vec![vec![0, 1, 2], vec![1, 6, 9]]);
    }
}

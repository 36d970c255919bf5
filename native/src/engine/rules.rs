//! The values of a `RuleSet` the evaluator reads (R3, R9.1, R10, R12), passed in from Python.
//!
//! Python reads them off the `RuleSet` once per rule set (the hu-xi of every same-kind group
//! and special sequence from its own `HuxiTable`, the 名堂 table as the three shapes
//! `paohuzi.engine.mingtang` defines), so the R3 table has one definition, in Python.

use crate::engine::cards::NUM_KINDS;
use crate::engine::groups::{GType, GroupCode};

/// Hu-xi of groups (R3): every same-kind group per kind, and the four special sequences.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Huxi {
    /// `same_kind[type][kind]`, for the types whose [`GType::is_same_kind`] holds; 0 elsewhere.
    pub same_kind: [[i32; NUM_KINDS]; 10],
    /// x1x2x3, x2x7x10, d1d2d3, d2d7d10 (R3); every other sequence and 绞 scores 0.
    pub special: [i32; 4],
}

/// The four sequences that may score (R3), in [`Huxi::special`]'s order.
pub const SPECIAL: [[u8; 3]; 4] = [[0, 1, 2], [1, 6, 9], [10, 11, 12], [11, 16, 19]];

impl Huxi {
    /// Hu-xi of a group of the given type and cards (canonical order), as
    /// `paohuzi.engine.evaluator.Evaluator.group_huxi`.
    pub fn group(&self, gtype: GType, cards: &[u8]) -> i32 {
        if gtype.is_same_kind() {
            return self.same_kind[gtype as usize][cards[0] as usize];
        }
        self.sequence(cards)
    }

    /// Hu-xi of a group the evaluator made (R3).
    pub fn code(&self, group: GroupCode) -> i32 {
        match group.gtype {
            GType::Chi | GType::Run | GType::Jiao => match group.shape {
                0 => self.special[0],
                16 => self.special[1],
                8 => self.special[2],
                17 => self.special[3],
                _ => 0,
            },
            GType::Pair => 0,
            gtype => self.same_kind[gtype as usize][group.shape as usize],
        }
    }

    /// Hu-xi of a sequence or 绞: one of the four special sequences or 0.
    pub fn sequence(&self, cards: &[u8]) -> i32 {
        SPECIAL.iter().position(|s| s.as_slice() == cards).map_or(0, |i| self.special[i])
    }
}

/// One 名堂 (R10.1), as the shapes of `paohuzi.engine.mingtang`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mingtang {
    /// `RedCount`: `low <= red <= high` (红胡, 红乌, 点胡, 乌胡).
    RedCount { low: i64, high: i64, value: i64 },
    /// `SizeCount`: at least `threshold` cards of one size, `per_extra` more per card beyond
    /// (大字胡, 小字胡).
    SizeCount { big: bool, threshold: i64, value: i64, per_extra: i64 },
    /// `AllTriplets`: 对对胡.
    AllTriplets { value: i64 },
}

/// What the 名堂 the native core serves look at: the `red`, `big`, `small` and
/// `all_triplets` of a `paohuzi.engine.mingtang.WinContext`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Facts {
    pub red: i64,
    pub big: i64,
    pub small: i64,
    pub all_triplets: bool,
}

impl Mingtang {
    /// The 番 of this 名堂 for a hand, 0 when it does not apply.
    pub fn fan(&self, facts: &Facts) -> i64 {
        match *self {
            Mingtang::RedCount { low, high, value } => {
                if low <= facts.red && facts.red <= high {
                    value
                } else {
                    0
                }
            }
            Mingtang::SizeCount { big, threshold, value, per_extra } => {
                let n = if big { facts.big } else { facts.small };
                if n >= threshold {
                    value + per_extra * (n - threshold)
                } else {
                    0
                }
            }
            Mingtang::AllTriplets { value } => {
                if facts.all_triplets {
                    value
                } else {
                    0
                }
            }
        }
    }
}

/// How the 番 of several 名堂 combine (R10.3): `paohuzi.engine.rules.FanCombine`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FanCombine {
    /// Added up (the QQ hall).
    Sum,
    /// Multiplied.
    Product,
    /// Only the greatest counts.
    Max,
}

/// Every value of a `RuleSet` the evaluator reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rules {
    pub huxi: Huxi,
    /// Fewest hu-xi to win (R9.1).
    pub min_huxi: i64,
    /// 等 (R10.1): `deng_base` hu-xi make 1 等, each further `deng_step` one more.
    pub deng_base: i64,
    pub deng_step: i64,
    /// 天胡 hu-xi counts double towards 等 (R10.1).
    pub tianhu_double: bool,
    /// 等 added for 自摸 and 天胡 (R10.2).
    pub self_draw_bonus: i64,
    /// The 名堂 table (R10.1).
    pub mingtang: Vec<Mingtang>,
    /// How their 番 combine (R10.3).
    pub fan_combine: FanCombine,
    /// 番 added for 海底胡 (R10.1).
    pub haidi_fan: i64,
    /// R9.5.1: a forced 天胡 scores the best partial decomposition of its other cards.
    pub tianhu_partial_huxi: bool,
}

impl Rules {
    /// 等 for a hu-xi total before the 自摸 bonus (R10.1): `RuleSet.deng`.
    pub fn deng(&self, huxi: i64, tianhu: bool) -> i64 {
        let effective = if tianhu && self.tianhu_double { 2 * huxi } else { huxi };
        if effective < self.deng_base {
            return 0;
        }
        1 + (effective - self.deng_base).div_euclid(self.deng_step)
    }

    /// 番 (R10.3): the 名堂 that apply combined by `fan_combine`, 1 for 平胡; 海底胡 adds
    /// `haidi_fan` (`paohuzi.engine.scoring.fan_of`). Python refuses rule sets whose product could
    /// leave 64 bits (they are served by Python).
    pub fn fan(&self, facts: &Facts, haidi: bool) -> i64 {
        let mut combined: Option<i64> = None;
        for m in &self.mingtang {
            let f = m.fan(facts);
            if f > 0 {
                combined = Some(match (combined, self.fan_combine) {
                    (None, _) => f,
                    (Some(c), FanCombine::Sum) => c + f,
                    (Some(c), FanCombine::Product) => c * f,
                    (Some(c), FanCombine::Max) => c.max(f),
                });
            }
        }
        combined.unwrap_or(1) + if haidi { self.haidi_fan } else { 0 }
    }

    /// 底数 = 等 × 番 (R10.4), as `paohuzi.engine.scoring.score`; both kinds of 天胡 count as 自摸
    /// (R9.5.3).
    pub fn points(&self, huxi: i64, facts: &Facts, self_drawn: bool, tianhu: bool, haidi: bool) -> i64 {
        let self_drawn = self_drawn || tianhu;
        let deng = self.deng(huxi, tianhu) + if self_drawn { self.self_draw_bonus } else { 0 };
        deng * self.fan(facts, haidi)
    }

    /// The Hunan preset (RULES.md, `paohuzi.engine.rules.HUNAN`), for the crate's own tests and
    /// benchmarks; Python passes every rule set in.
    pub fn hunan() -> Rules {
        let mut same_kind = [[0; NUM_KINDS]; 10];
        let rows = [
            (GType::Peng, 1, 3),
            (GType::Wei, 3, 6),
            (GType::Chouwei, 3, 6),
            (GType::Kan, 3, 6),
            (GType::Pao, 6, 9),
            (GType::Ti, 9, 12),
        ];
        for (gtype, small, big) in rows {
            for (k, value) in same_kind[gtype as usize].iter_mut().enumerate() {
                *value = if k >= 10 { big } else { small };
            }
        }
        const MANY: i64 = 1000;
        Rules {
            huxi: Huxi { same_kind, special: [3, 3, 6, 6] },
            min_huxi: 15,
            deng_base: 15,
            deng_step: 3,
            tianhu_double: true,
            self_draw_bonus: 1,
            mingtang: vec![
                Mingtang::RedCount { low: 10, high: 12, value: 2 },
                Mingtang::RedCount { low: 13, high: MANY, value: 4 },
                Mingtang::RedCount { low: 1, high: 1, value: 3 },
                Mingtang::RedCount { low: 0, high: 0, value: 5 },
                Mingtang::AllTriplets { value: 4 },
                Mingtang::SizeCount { big: true, threshold: 18, value: 6, per_extra: 1 },
                Mingtang::SizeCount { big: false, threshold: 16, value: 8, per_extra: 1 },
            ],
            fan_combine: FanCombine::Sum,
            haidi_fan: 1,
            tianhu_partial_huxi: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn r3_huxi_of_made_groups_matches_their_cards() {
        let huxi = Rules::hunan().huxi;
        for gtype in crate::engine::groups::GTYPES {
            let shapes = if matches!(gtype, GType::Chi | GType::Run | GType::Jiao) { 38 } else { 20 };
            for shape in 0..shapes {
                let group = GroupCode::new(gtype, shape);
                assert_eq!(huxi.code(group), huxi.group(gtype, &group.cards()), "{group:?}");
            }
        }
    }

    #[test]
    fn r10_1_deng() {
        let rules = Rules::hunan();
        let deng: Vec<i64> = [14, 15, 17, 18, 20, 21].iter().map(|&h| rules.deng(h, false)).collect();
        assert_eq!(deng, vec![0, 1, 1, 2, 2, 3]);
        // 天胡 counts double: 9 hu-xi is 18, 2 等.
        assert_eq!(rules.deng(9, true), 2);
    }

    #[test]
    fn r10_3_fan_sums_mingtang_and_haidi() {
        let rules = Rules::hunan();
        let black = Facts { red: 0, big: 12, small: 9, all_triplets: true };
        assert_eq!(rules.fan(&black, false), 5 + 4);
        let plain = Facts { red: 5, big: 10, small: 11, all_triplets: false };
        assert_eq!(rules.fan(&plain, false), 1);
        assert_eq!(rules.fan(&plain, true), 2);
        assert_eq!(rules.points(21, &plain, true, false, false), 4);
    }

    #[test]
    fn r10_3_fan_combine() {
        let mut rules = Rules::hunan();
        // 乌胡 (5) and 对对胡 (4).
        let black = Facts { red: 0, big: 12, small: 9, all_triplets: true };
        rules.fan_combine = FanCombine::Product;
        assert_eq!(rules.fan(&black, false), 20);
        assert_eq!(rules.fan(&black, true), 21);
        rules.fan_combine = FanCombine::Max;
        assert_eq!(rules.fan(&black, false), 5);
        let plain = Facts { red: 5, big: 10, small: 11, all_triplets: false };
        assert_eq!(rules.fan(&plain, false), 1);
    }
}

//! Groups (门子, R3) as small ints: a type, and a shape that says which cards.
//!
//! The types are F2's, in the order of `paohuzi.engine.groups.GroupType`. A same-kind group's shape
//! is its kind; a sequence's or 绞's shape indexes [`THREES`]. [`GroupCode::code`] packs both
//! into the one int the binding hands to Python.

use crate::engine::cards::Kind;

/// The F2 group types, numbered as `paohuzi.engine.groups.GroupType` lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum GType {
    /// 吃/比: a sequence or 绞 laid on the table.
    Chi = 0,
    /// 碰.
    Peng = 1,
    /// 偎.
    Wei = 2,
    /// 臭偎.
    Chouwei = 3,
    /// 跑.
    Pao = 4,
    /// 提.
    Ti = 5,
    /// 一句话 in hand.
    Run = 6,
    /// 绞 in hand.
    Jiao = 7,
    /// 坎.
    Kan = 8,
    /// 将, the pair.
    Pair = 9,
}

pub const GTYPES: [GType; 10] = [
    GType::Chi,
    GType::Peng,
    GType::Wei,
    GType::Chouwei,
    GType::Pao,
    GType::Ti,
    GType::Run,
    GType::Jiao,
    GType::Kan,
    GType::Pair,
];

impl GType {
    /// The hu-xi of these types comes from the R3 table's same-kind rows.
    pub fn is_same_kind(self) -> bool {
        matches!(self, GType::Peng | GType::Wei | GType::Chouwei | GType::Kan | GType::Pao | GType::Ti)
    }

    /// 提 and 跑: *k* of R6.
    pub fn is_four(self) -> bool {
        matches!(self, GType::Pao | GType::Ti)
    }

    /// A table 碰 or 偎 the winning card may join (R9.1).
    pub fn is_joinable(self) -> bool {
        matches!(self, GType::Peng | GType::Wei | GType::Chouwei)
    }
}

/// Shapes of three-card groups: 0–15 the consecutive sequences (`8 * size + lowest rank`),
/// 16–17 2-7-10 small and big, 18–37 the 绞 (`18 + 2 * rank + v`; v = 0: two small, one big).
pub const THREES: [[Kind; 3]; 38] = threes();

pub const SHAPES: usize = 40;

const fn threes() -> [[Kind; 3]; 38] {
    let mut out = [[0u8; 3]; 38];
    let mut i = 0;
    while i < 16 {
        let k = (i / 8 * 10 + i % 8) as u8;
        out[i] = [k, k + 1, k + 2];
        i += 1;
    }
    out[16] = [1, 6, 9];
    out[17] = [11, 16, 19];
    let mut r = 0;
    while r < 10 {
        let k = r as u8;
        out[18 + 2 * r] = [k, k, k + 10];
        out[19 + 2 * r] = [k, k + 10, k + 10];
        r += 1;
    }
    out
}

/// The shape of a consecutive sequence starting at `kind`.
pub fn run_shape(kind: Kind) -> u8 {
    (kind / 10) * 8 + kind % 10
}

/// The shape of 2-7-10 of a size (0 small, 10 big).
pub fn run2710_shape(base: Kind) -> u8 {
    16 + base / 10
}

/// The shape of a 绞 of a rank (0–9): `two_small` is x x d, else x d d.
pub fn jiao_shape(rank: u8, two_small: bool) -> u8 {
    18 + 2 * rank + u8::from(!two_small)
}

/// A group the evaluator made, by type and shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GroupCode {
    pub gtype: GType,
    pub shape: u8,
}

impl GroupCode {
    pub fn new(gtype: GType, shape: u8) -> Self {
        GroupCode { gtype, shape }
    }

    /// `type * 40 + shape`: the int the binding maps to a `paohuzi.engine.groups.Group`.
    pub fn code(self) -> u16 {
        self.gtype as u16 * SHAPES as u16 + u16::from(self.shape)
    }

    /// The order the Python evaluator lists hand groups in: the pair last, the others by
    /// their cards (canonical order, compared as tuples).
    pub fn sort_key(self) -> (bool, [Kind; 3]) {
        let k = self.shape;
        match self.gtype {
            GType::Chi | GType::Run | GType::Jiao => (false, THREES[k as usize]),
            _ => (self.gtype == GType::Pair, [k; 3]),
        }
    }

    /// The group's cards in canonical order (F2).
    pub fn cards(self) -> Vec<Kind> {
        let (cards, n) = self.card_array();
        cards[..n].to_vec()
    }

    /// [`GroupCode::cards`] without allocating: the cards, then how many (two to four).
    #[inline]
    pub fn card_array(self) -> ([Kind; 4], usize) {
        let k = self.shape;
        match self.gtype {
            GType::Chi | GType::Run | GType::Jiao => {
                let [a, b, c] = THREES[k as usize];
                ([a, b, c, 0], 3)
            }
            GType::Pao | GType::Ti => ([k; 4], 4),
            GType::Pair => ([k, k, 0, 0], 2),
            _ => ([k, k, k, 0], 3),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f2_three_card_shapes() {
        assert_eq!(THREES[run_shape(0) as usize], [0, 1, 2]);
        assert_eq!(THREES[run_shape(17) as usize], [17, 18, 19]);
        assert_eq!(THREES[run2710_shape(10) as usize], [11, 16, 19]);
        assert_eq!(THREES[jiao_shape(4, true) as usize], [4, 4, 14]);
        assert_eq!(THREES[jiao_shape(4, false) as usize], [4, 14, 14]);
    }
}

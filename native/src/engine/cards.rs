//! Cards (字牌, R1): kinds 0–19 and count arrays, as in `paohuzi.engine.cards`.

/// One of the 20 kinds: 0–9 small `x1`…`x10` (小字), 10–19 big `d1`…`d10` (大字).
pub type Kind = u8;

/// A count array: `counts[k]` copies of kind `k`.
pub type Counts = [u8; NUM_KINDS];

pub const NUM_KINDS: usize = 20;

/// The kinds of a count array with one, two, three and four copies, each a bit mask of kinds
/// (counts above four are read modulo eight, as no holding has them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CountMasks {
    pub ones: u32,
    pub twos: u32,
    pub threes: u32,
    pub fours: u32,
}

impl CountMasks {
    /// Eight bytes at a time: each count's three low bits, then one bit per byte gathered by a
    /// multiplication (byte `i`'s low bit lands at bit 56 + `i`, no two terms meet).
    #[inline]
    pub fn of(counts: &Counts) -> CountMasks {
        const LOW: u64 = 0x0101_0101_0101_0101;
        const GATHER: u64 = 0x0102_0408_1020_4080;
        let gather = |bytes: u64| (bytes.wrapping_mul(GATHER) >> 56) as u32;
        let mut masks = CountMasks { ones: 0, twos: 0, threes: 0, fours: 0 };
        let mut word = [0u8; 8];
        for (i, chunk) in counts.chunks(8).enumerate() {
            word[..chunk.len()].copy_from_slice(chunk);
            word[chunk.len()..].fill(0);
            let w = u64::from_le_bytes(word);
            let (b0, b1, b2) = (w & LOW, (w >> 1) & LOW, (w >> 2) & LOW);
            let shift = 8 * i;
            masks.ones |= gather(b0 & !b1 & !b2 & LOW) << shift;
            masks.twos |= gather(!b0 & b1 & !b2 & LOW) << shift;
            masks.threes |= gather(b0 & b1 & !b2) << shift;
            masks.fours |= gather(!b0 & !b1 & b2 & LOW) << shift;
        }
        masks
    }
}

/// The counts of a holding without its 坎 (every count of three made zero), eight bytes at a
/// time.
#[inline]
pub fn without_kans(counts: &Counts) -> Counts {
    const LOW: u64 = 0x0101_0101_0101_0101;
    let mut out = *counts;
    let mut word = [0u8; 8];
    for chunk in out.chunks_mut(8) {
        word[..chunk.len()].copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        let threes = w & (w >> 1) & !(w >> 2) & LOW;
        let kept = (w & !(threes * 0xff)).to_le_bytes();
        chunk.copy_from_slice(&kept[..chunk.len()]);
    }
    out
}

/// The number of cards in a count array (each count at most 4, so no byte of a partial sum
/// overflows): the bytes summed eight at a time.
#[inline]
pub fn total(counts: &Counts) -> i32 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let word = |i: usize| u64::from_le_bytes(counts[i..i + 8].try_into().expect("eight bytes"));
    let tail = u64::from(u32::from_le_bytes(counts[16..20].try_into().expect("four bytes")));
    ((word(0).wrapping_mul(ONES) >> 56)
        + (word(8).wrapping_mul(ONES) >> 56)
        + (tail.wrapping_mul(ONES) >> 56)) as i32
}

/// 红字 (R1): ranks 2, 7, 10 of both sizes, as a bit mask of kinds.
pub const RED_MASK: u32 = (1 << 1) | (1 << 6) | (1 << 9) | (1 << 11) | (1 << 16) | (1 << 19);

/// Whether a kind is red (R1).
pub fn is_red(kind: usize) -> bool {
    RED_MASK & (1 << kind) != 0
}

/// Per kind, a bit mask of the kinds that can share a sequence or 绞 with it, itself included
/// (R3): the same size within two ranks, the other size's same rank, and 2-7-10.
pub const NEIGHBOURS: [u32; NUM_KINDS] = neighbours();

const fn neighbours() -> [u32; NUM_KINDS] {
    let mut masks = [0u32; NUM_KINDS];
    let mut kind = 0;
    while kind < NUM_KINDS {
        let base = kind - kind % 10;
        let r = kind % 10;
        let mut mask = (1u32 << kind) | (1u32 << ((kind + 10) % 20));
        let mut n = r.saturating_sub(2);
        while n <= r + 2 && n <= 9 {
            mask |= 1 << (base + n);
            n += 1;
        }
        if r == 1 || r == 6 || r == 9 {
            mask |= (1 << (base + 1)) | (1 << (base + 6)) | (1 << (base + 9));
        }
        masks[kind] = mask;
        kind += 1;
    }
    masks
}

/// Red, big and total cards of a count array (R10.1 counts all the winner's cards).
pub fn colours(held: &Counts) -> (i64, i64, i64) {
    let mut red = 0i64;
    let mut big = 0i64;
    let mut total = 0i64;
    for (k, &c) in held.iter().enumerate() {
        let c = i64::from(c);
        total += c;
        if k >= 10 {
            big += c;
        }
        if is_red(k) {
            red += c;
        }
    }
    (red, big, total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn r1_red_kinds() {
        let red: Vec<usize> = (0..NUM_KINDS).filter(|&k| is_red(k)).collect();
        assert_eq!(red, vec![1, 6, 9, 11, 16, 19]);
    }

    #[test]
    fn r3_neighbours_of_x2_and_d10() {
        // x2: x1 x2 x3 x4, d2, and 2-7-10's x7 x10.
        assert_eq!(
            NEIGHBOURS[1],
            (1 << 0) | (1 << 1) | (1 << 2) | (1 << 3) | (1 << 6) | (1 << 9) | (1 << 11)
        );
        // d10: d8 d9 d10, x10, and d2 d7.
        assert_eq!(NEIGHBOURS[19], (1 << 17) | (1 << 18) | (1 << 19) | (1 << 9) | (1 << 11) | (1 << 16));
    }

    #[test]
    fn total_counts_every_card() {
        let mut counts = [0u8; NUM_KINDS];
        assert_eq!(total(&counts), 0);
        for k in 0..NUM_KINDS {
            counts[k] = 4;
            assert_eq!(total(&counts), 4 * (k as i32 + 1));
        }
        counts = [0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 4, 3, 2, 1, 0, 4, 3, 2, 1, 0];
        assert_eq!(total(&counts), counts.iter().map(|&n| i32::from(n)).sum::<i32>());
    }

    #[test]
    fn without_kans_drops_the_threes_only() {
        let counts = [0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 4, 3, 2, 1, 0, 4, 3, 2, 3, 3];
        let expected = counts.map(|n| if n == 3 { 0 } else { n });
        assert_eq!(without_kans(&counts), expected);
    }

    #[test]
    fn count_masks_name_the_kinds_of_each_count() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..2_000 {
            let mut counts = [0u8; NUM_KINDS];
            for c in counts.iter_mut() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                *c = (state % 5) as u8;
            }
            let of = |n: u8| (0..NUM_KINDS).filter(|&k| counts[k] == n).fold(0u32, |m, k| m | 1 << k);
            let masks = CountMasks::of(&counts);
            assert_eq!((masks.ones, masks.twos, masks.threes, masks.fours), (of(1), of(2), of(3), of(4)));
        }
    }
}

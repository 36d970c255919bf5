//! Cards (字牌, R1): kinds 0–19 and count arrays, as in `paohuzi.engine.cards`.

/// One of the 20 kinds: 0–9 small `x1`…`x10` (小字), 10–19 big `d1`…`d10` (大字).
pub type Kind = u8;

/// A count array: `counts[k]` copies of kind `k`.
pub type Counts = [u8; NUM_KINDS];

pub const NUM_KINDS: usize = 20;

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
}

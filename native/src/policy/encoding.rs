//! The observation array of a seat (`paohuzi.env.encoding.encode`) and its layout, made inside
//! the core: what the environments and a learned policy read.

use crate::engine::cards::NUM_KINDS;
use crate::engine::game::{Game, Phase};
use crate::engine::groups::GType;

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

//! The hand state machine (R2–R11): the port of `paohuzi.engine.game.Game`.
//!
//! Every step below follows the Python engine's method of the same name, in the same order, so
//! that both engines make the same positions, offer the same actions in the same order and end
//! with the same result after every action (tests/test_native_game.py checks it). The
//! evaluator answers are [`crate::engine::evaluator`]'s, which agree with Python's down to the groups.

use std::sync::Arc;

use crate::engine::cards::{total, without_kans, CountMasks, Counts, Kind, NEIGHBOURS, NUM_KINDS};
use crate::engine::evaluator::{Arrangement, Evaluator, Invalid, OutGroup, Prepared, TableInput};
use crate::engine::groups::{GType, GroupCode, THREES};

/// Cards dealt to each seat that plays (R2).
pub const HAND_SIZE: usize = 20;
/// `deck[60]` is the 亮张 (R2).
pub const LIANG_INDEX: usize = 60;
pub const DECK_SIZE: usize = 80;

/// The values of a `RuleSet` the game reads besides the evaluator's (R6.2, R6.3, R9.2, R12).
#[derive(Clone)]
pub struct GameRules {
    pub ev: Arc<Evaluator>,
    pub players: u8,
    pub hu_on_discard: bool,
    pub take_needs_discard: bool,
    pub break_kan_when_stuck: bool,
}

/// How a win was made: what `WinContext` holds besides the cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct How {
    pub self_drawn: bool,
    pub from_discard: bool,
    pub tianhu: bool,
    pub haidi: bool,
}

/// A winning arrangement as the game keeps it: the evaluator's answer, the winner's table it
/// refers to, the winning card and how it was won.
#[derive(Clone, Debug)]
pub struct Win {
    pub arrangement: Arrangement,
    /// The winner's table groups when the win was found (`OutGroup::Input` indexes them).
    pub table: Vec<GroupCode>,
    /// `HuResult.win`.
    pub win: Option<Kind>,
    /// The winning card its `WinContext` names (None for a complete hand, as in Python).
    pub context_win: Option<Kind>,
    pub how: How,
}

impl Win {
    /// The groups of the win, as codes.
    pub fn groups(&self) -> Vec<GroupCode> {
        self.arrangement
            .groups
            .iter()
            .map(|g| match *g {
                OutGroup::Input(i) => self.table[i],
                OutGroup::New(code) => code,
            })
            .collect()
    }

    pub fn points(&self) -> i64 {
        self.arrangement.points
    }
}

/// A 吃 with its 比 groups (R7): the taking group, then the 比 groups sorted, each by its
/// shape in [`THREES`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Chi {
    pub groups: [u8; 3],
    pub n: u8,
}

impl Chi {
    pub fn shapes(&self) -> &[u8] {
        &self.groups[..usize::from(self.n)]
    }
}

/// A decision (F3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Act {
    Discard(Kind),
    Chi(Chi),
    Peng,
    Hu,
    Pass,
}

impl Act {
    /// R8's ranks of claims.
    fn rank(self) -> u8 {
        match self {
            Act::Hu => 4,
            Act::Peng => 2,
            Act::Chi(_) => 1,
            _ => 0,
        }
    }

    /// A number that sorts as the F3 text ([`Act::text`]) does, without making it: `chi …` <
    /// `discard …` < `hu` < `pass` < `peng`, the class in the top
    /// byte; a 吃 its groups' ranks among the shapes' texts, one byte each (none: 0, so a 吃
    /// sorts before one that goes on from it, as its shorter text does); a discard its kind's
    /// rank among the kinds' names.
    fn order_key(self, ranks: &OrderRanks) -> u32 {
        match self {
            Act::Chi(chi) => {
                let ranks = &ranks.shapes;
                (0..3).fold(0, |key, i| {
                    let rank = chi.shapes().get(i).map_or(0, |&s| u32::from(ranks[usize::from(s)]) + 1);
                    key << 8 | rank
                })
            }
            Act::Discard(k) => 1 << 24 | u32::from(ranks.kinds[usize::from(k)]),
            Act::Hu => 2 << 24,
            Act::Pass => 3 << 24,
            Act::Peng => 4 << 24,
        }
    }

    /// The F3 text of the action (legal actions are sorted by it).
    pub fn text(self) -> String {
        match self {
            Act::Discard(k) => format!("discard {}", kind_name(k)),
            Act::Chi(chi) => {
                let mut text = String::from("chi");
                for &shape in chi.shapes() {
                    text.push(' ');
                    for &k in &THREES[usize::from(shape)] {
                        text.push_str(&kind_name(k));
                    }
                }
                text
            }
            Act::Peng => "peng".into(),
            Act::Hu => "hu".into(),
            Act::Pass => "pass".into(),
        }
    }
}

/// F1 notation: `x1`…`x10`, `d1`…`d10`.
pub fn kind_name(k: Kind) -> String {
    if k < 10 {
        format!("x{}", k + 1)
    } else {
        format!("d{}", k - 9)
    }
}

/// The shape in [`THREES`] of three sorted cards.
pub fn three_shape(cards: [Kind; 3]) -> Option<u8> {
    THREES.iter().position(|t| *t == cards).map(|i| i as u8)
}

/// Where a card on offer comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    Liang = 0,
    Drawn = 1,
    Discarded = 2,
}

/// One seat's part of a position (`paohuzi.engine.position.SeatState`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seat {
    pub hand: Counts,
    pub table: Vec<GroupCode>,
    pub row: Vec<Kind>,
    /// Kinds discarded, as a bit mask.
    pub discarded: u32,
    /// 臭 kinds (R7.1), as a bit mask.
    pub chou: u32,
    /// 臭胡 (R9.3): kinds declined with the hu-xi then, sorted by kind.
    pub chou_hu: Vec<(Kind, i64)>,
}

impl Seat {
    fn empty() -> Seat {
        Seat {
            hand: [0; NUM_KINDS],
            table: Vec::new(),
            row: Vec::new(),
            discarded: 0,
            chou: 0,
            chou_hu: Vec::new(),
        }
    }

    fn held(&self) -> i32 {
        total(&self.hand) + self.table.iter().map(|g| group_len(g.gtype) as i32).sum::<i32>()
    }

    fn limit(&self) -> i32 {
        let fours = self.table.iter().filter(|g| g.gtype.is_four()).count() as i32;
        HAND_SIZE as i32 + (fours - 1).max(0)
    }
}

fn group_len(gtype: GType) -> usize {
    match gtype {
        GType::Pao | GType::Ti => 4,
        GType::Pair => 2,
        _ => 3,
    }
}

/// A claim window (R8).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Window {
    pub card: Kind,
    pub owner: u8,
    pub source: Source,
    pub asking: Vec<u8>,
    pub offered: Vec<Act>,
    pub claims: Vec<(u8, Act)>,
}

/// A claim window's buffers, emptied, kept for the next window.
#[derive(Clone, Default)]
struct Spare {
    asking: Vec<u8>,
    offered: Vec<Act>,
    claims: Vec<(u8, Act)>,
}

/// A card on offer that nobody is asked about yet: where a pausing game stops (D101).
#[derive(Clone, Debug)]
struct Held {
    card: Kind,
    owner: u8,
    source: Source,
    /// The seats with an option on the card, in asking order (R8).
    queue: Vec<u8>,
}

/// How a hand ended (`GameResult`).
#[derive(Clone, Debug)]
pub struct Outcome {
    pub winner: Option<u8>,
    pub hu: Option<Win>,
    pub payments: Vec<i64>,
    pub other_huxi: Vec<(u8, i64)>,
}

/// What the game waits for.
#[derive(Clone, Debug)]
pub enum Phase {
    Claim(Window),
    Discarding(u8),
    SelfHu(u8, Kind),
    /// Over; the outcome is None for a game set up from a finished position (Python keeps it).
    Over(Option<Box<Outcome>>),
}

/// Log entries (`paohuzi.engine.game.EventType`, numbered in its order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventType {
    Deal = 0,
    Liang,
    Draw,
    Show,
    Ti,
    Wei,
    Chouwei,
    Pao,
    Chi,
    Peng,
    Discard,
    Passed,
    Hu,
    Huangzhuang,
}

#[derive(Clone, Debug)]
pub struct Event {
    pub etype: EventType,
    pub seat: u8,
    pub card: Option<Kind>,
    pub groups: Vec<GroupCode>,
}

/// Why an action or a position was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameError {
    /// An illegal action (`IllegalAction`); the Python side words it.
    Illegal,
    /// A 胡 with no winning hand (an unchecked position).
    NoWin(u8),
    /// A position the rules cannot play on (`ValueError`).
    Position(String),
}

/// One hand of Paohuzi. See the module docstring.
#[derive(Clone)]
pub struct Game {
    pub rules: Arc<GameRules>,
    pub dealer: u8,
    pub liang: Kind,
    /// The playing seats in deal order from the dealer (R2, R12).
    pub playing: Vec<u8>,
    /// Each playing seat's 下家, the next playing seat (R2): asked at every claim window.
    next_seats: [u8; MAX_SEATS],
    pub deck: Option<Vec<Kind>>,
    wall: Vec<Kind>,
    drawn: usize,
    pub seats: Vec<Seat>,
    pub phase: Phase,
    options: [Vec<Act>; MAX_SEATS],
    hu: [Option<Win>; MAX_SEATS],
    pao: Option<u8>,
    pending: Option<Win>,
    pub history: Vec<(u8, Act)>,
    pub log: Vec<Event>,
    /// Each seat's hand prepared for evaluation, while it is unchanged (bit `seat` of
    /// `fresh`); a stale one is refilled in place when no clone of the game shares it.
    prepared: [Option<Arc<Prepared>>; MAX_SEATS],
    fresh: u32,
    /// Each seat's part of [`Game::may_reach`]'s bound that the card does not change, while
    /// the seat is unchanged (bit `seat` of `reach_fresh`).
    reach: [Reach; MAX_SEATS],
    reach_fresh: u32,
    /// Bit `seat`: the bound of the seat's `reach` is worked out too.
    bound_fresh: u32,
    /// Each seat's cards held and limit ([`Seat::held`], [`Seat::limit`]), while the seat is
    /// unchanged (bit `seat` of `sizes_fresh`).
    sizes: [(i32, i32); MAX_SEATS],
    sizes_fresh: u32,
    /// A buffer for the table groups handed to the evaluator.
    inputs: Vec<TableInput>,
    /// The legal actions, while `legal_ok` (a buffer kept between decisions).
    legal: Vec<Act>,
    legal_ok: bool,
    /// Emptied buffers of the last claim window, for the next (no allocation per window).
    spare: Spare,
    /// Whether the game keeps its log and history (rollouts need neither).
    pub keep_log: bool,
    /// Whether the game stops at each card put on offer, before anyone is asked (D101): the
    /// phase is then the card's claim window asking nobody, until [`Game::resume`].
    pub pauses: bool,
    held: Option<Held>,
}

/// The seats that play a hand, in deal order from the dealer (R2); at four seats the dealer's
/// opposite sits it out (R12).
/// The playing seats in deal order from the dealer (R2, R12) into `out`, and each one's 下家
/// into `next`.
fn seat_order(players: u8, dealer: u8, out: &mut Vec<u8>, next: &mut [u8; MAX_SEATS]) {
    let seats = usize::from(players);
    let sitting_out = (seats > 3).then(|| (usize::from(dealer) + seats / 2) % seats);
    out.clear();
    out.extend(
        (0..seats)
            .map(|i| ((usize::from(dealer) + i) % seats) as u8)
            .filter(|&s| Some(usize::from(s)) != sitting_out),
    );
    for (i, &seat) in out.iter().enumerate() {
        next[usize::from(seat)] = out[(i + 1) % out.len()];
    }
}

/// The most seats at a table (R12): the per-seat buffers of a game are arrays of this size.
const MAX_SEATS: usize = 4;

fn bit(k: Kind) -> u32 {
    1 << k
}

impl Game {
    fn blank(rules: Arc<GameRules>, dealer: u8) -> Game {
        let seats = usize::from(rules.players);
        let mut playing = Vec::with_capacity(seats);
        let mut next_seats = [0; MAX_SEATS];
        seat_order(rules.players, dealer, &mut playing, &mut next_seats);
        Game {
            rules,
            dealer,
            liang: 0,
            playing,
            next_seats,
            deck: None,
            wall: Vec::new(),
            drawn: 0,
            seats: vec![Seat::empty(); seats],
            phase: Phase::Over(None),
            options: Default::default(),
            hu: Default::default(),
            pao: None,
            pending: None,
            history: Vec::new(),
            log: Vec::new(),
            prepared: Default::default(),
            fresh: 0,
            reach: Default::default(),
            reach_fresh: 0,
            bound_fresh: 0,
            sizes: Default::default(),
            sizes_fresh: 0,
            inputs: Vec::new(),
            legal: Vec::new(),
            legal_ok: false,
            spare: Spare::default(),
            keep_log: true,
            pauses: false,
            held: None,
        }
    }

    /// A hand dealt from `deck` (R2); the deck is checked by the caller (80 cards, four of a kind).
    pub fn new(rules: Arc<GameRules>, dealer: u8, deck: &[Kind], keep_log: bool) -> Result<Game, Invalid> {
        Game::dealt(rules, dealer, deck, keep_log, false)
    }

    /// [`Game::new`], stopping at each card put on offer when `pauses` (D101): the first stop is
    /// the 亮张, before this returns.
    pub fn dealt(
        rules: Arc<GameRules>,
        dealer: u8,
        deck: &[Kind],
        keep_log: bool,
        pauses: bool,
    ) -> Result<Game, Invalid> {
        Game::dealt_in(None, rules, dealer, deck, keep_log, pauses)
    }

    /// [`Game::dealt`], in the place of `spare` (a finished game) when it has as many seats:
    /// its buffers kept ([`Game::redeal`]), its prepared hands too when the evaluator is the same.
    pub fn dealt_in(
        spare: Option<Game>,
        rules: Arc<GameRules>,
        dealer: u8,
        deck: &[Kind],
        keep_log: bool,
        pauses: bool,
    ) -> Result<Game, Invalid> {
        let mut game = match spare {
            Some(mut game) if game.rules.players == rules.players => {
                if !Arc::ptr_eq(&game.rules.ev, &rules.ev) {
                    game.prepared = Default::default();
                }
                game.rules = rules;
                game
            }
            _ => Game::blank(rules, dealer),
        };
        game.keep_log = keep_log;
        game.pauses = pauses;
        game.redeal(dealer, deck)?;
        Ok(game)
    }

    /// A new hand in this game's place: as [`Game::dealt`] with the same rules, log and pauses,
    /// keeping the buffers (the seats' tables and rows, the wall, the log, the prepared hands)
    /// so that a loop of hands allocates nothing per hand.
    pub fn redeal(&mut self, dealer: u8, deck: &[Kind]) -> Result<(), Invalid> {
        self.dealer = dealer;
        seat_order(self.rules.players, dealer, &mut self.playing, &mut self.next_seats);
        for seat in &mut self.seats {
            seat.hand = [0; NUM_KINDS];
            seat.table.clear();
            seat.row.clear();
            seat.discarded = 0;
            seat.chou = 0;
            seat.chou_hu.clear();
        }
        let phase = std::mem::replace(&mut self.phase, Phase::Over(None));
        if let Phase::Claim(w) = phase {
            self.keep_spare(w);
        }
        self.drawn = 0;
        self.clear_options();
        self.pending = None;
        self.history.clear();
        self.log.clear();
        self.fresh = 0;
        self.reach_fresh = 0;
        self.sizes_fresh = 0;
        self.legal_ok = false;
        self.held = None;
        self.deal(deck)
    }

    /// A finished window's buffers, kept for the next.
    fn keep_spare(&mut self, w: Window) {
        let Window { mut asking, mut offered, mut claims, .. } = w;
        asking.clear();
        offered.clear();
        claims.clear();
        self.spare = Spare { asking, offered, claims };
    }

    /// The cards of `deck` into the seats' hands, the 亮张 and the wall, and the start (R2).
    fn deal(&mut self, deck: &[Kind]) -> Result<(), Invalid> {
        for i in 0..self.playing.len() {
            let seat = usize::from(self.playing[i]);
            for &k in &deck[HAND_SIZE * i..HAND_SIZE * (i + 1)] {
                self.seats[seat].hand[usize::from(k)] += 1;
            }
        }
        self.liang = deck[LIANG_INDEX];
        self.wall.clear();
        self.wall.extend_from_slice(&deck[LIANG_INDEX + 1..]);
        match &mut self.deck {
            Some(kept) => {
                kept.clear();
                kept.extend_from_slice(deck);
            }
            None => self.deck = Some(deck.to_vec()),
        }
        self.event(EventType::Deal, self.dealer, None, &[]);
        self.event(EventType::Liang, self.dealer, Some(self.liang), &[]);
        self.start()
    }

    /// A game at a position (`Game.from_position`, after the checks of the position's shape,
    /// which Python makes): works out what the position leaves out.
    #[allow(clippy::too_many_arguments)]
    pub fn from_position(
        rules: Arc<GameRules>,
        dealer: u8,
        liang: Kind,
        wall: Vec<Kind>,
        seats: Vec<Seat>,
        phase: Phase,
        check: bool,
    ) -> Result<Game, GameError> {
        if dealer >= rules.players {
            return Err(GameError::Position(format!("no seat {dealer} to deal")));
        }
        let mut game = Game::blank(rules, dealer);
        if seats.len() != game.seats.len() {
            return Err(GameError::Position("wrong number of seats".into()));
        }
        // The seat to act and the owner play the hand (Python checks it before); any other
        // seat named is at least at the table.
        let (playing, named): (Vec<u8>, Vec<u8>) = match &phase {
            Phase::Claim(w) => (
                w.asking.iter().copied().take(1).chain([w.owner]).collect(),
                w.asking.iter().copied().chain(w.claims.iter().map(|c| c.0)).collect(),
            ),
            Phase::Discarding(s) | Phase::SelfHu(s, _) => (vec![*s], Vec::new()),
            Phase::Over(_) => (Vec::new(), Vec::new()),
        };
        if let Some(s) = playing.iter().find(|s| !game.playing.contains(s)) {
            return Err(GameError::Position(format!("seat {s} does not play this hand")));
        }
        if let Some(s) = named.iter().find(|&&s| usize::from(s) >= game.seats.len()) {
            return Err(GameError::Position(format!("no seat {s} at this table")));
        }
        game.liang = liang;
        game.wall = wall;
        game.seats = seats;
        game.enter(phase, check)?;
        Ok(game)
    }

    fn enter(&mut self, phase: Phase, check: bool) -> Result<(), GameError> {
        match phase {
            Phase::Claim(window) => {
                let first = window.asking[0];
                let mut queue = Vec::new();
                self.window_options(window.card, window.owner, window.source, &window.asking, &mut queue)
                    .map_err(|e| GameError::Position(format!("{e:?}")))?;
                let options = &self.options[usize::from(first)];
                if check && (window.offered.is_empty() || !window.offered.iter().all(|a| options.contains(a)))
                {
                    let offered = if window.offered.is_empty() {
                        "nothing".to_string()
                    } else {
                        window.offered.iter().map(|a| a.text()).collect::<Vec<_>>().join(", ")
                    };
                    return Err(GameError::Position(format!(
                        "seat {first} cannot be offered {offered} on this card"
                    )));
                }
                for &(seat, claim) in window.claims.iter().filter(|_| check) {
                    if !holds_claim(&self.seats[usize::from(seat)].hand, window.card, claim) {
                        return Err(GameError::Position(format!(
                            "seat {seat} cannot have claimed {} with its hand",
                            claim.text()
                        )));
                    }
                }
                let mut asking = vec![first];
                asking.extend(queue.into_iter().filter(|&s| s != first));
                self.phase = Phase::Claim(Window { asking, ..window });
            }
            Phase::SelfHu(seat, card) => {
                let mut found = None;
                if !self.hu_blocked(seat, card) {
                    found = self.complete(seat, card, self.wall_left() == 0);
                }
                if check && found.is_none() {
                    return Err(GameError::Position(format!("seat {seat} has no complete hand to win with")));
                }
                self.pending = found;
                self.phase = Phase::SelfHu(seat, card);
            }
            Phase::Discarding(seat) => {
                if !self.seats[usize::from(seat)].hand.iter().any(|&n| n > 0) {
                    return Err(GameError::Position(format!("seat {seat} has no card to discard")));
                }
                self.phase = phase;
            }
            Phase::Over(_) => self.phase = phase,
        }
        Ok(())
    }

    // ------------------------------------------------------------------------- queries

    pub fn wall_left(&self) -> usize {
        self.wall.len() - self.drawn
    }

    pub fn wall_cards(&self) -> &[Kind] {
        &self.wall[self.drawn..]
    }

    pub fn to_act(&self) -> Option<u8> {
        match &self.phase {
            Phase::Claim(w) => w.asking.first().copied(),
            Phase::Discarding(s) | Phase::SelfHu(s, _) => Some(*s),
            Phase::Over(_) => None,
        }
    }

    pub fn is_over(&self) -> bool {
        matches!(self.phase, Phase::Over(_))
    }

    pub fn outcome(&self) -> Option<&Outcome> {
        match &self.phase {
            Phase::Over(Some(o)) => Some(o),
            _ => None,
        }
    }

    /// The seat's 下家 (R2).
    pub fn next_seat(&self, seat: u8) -> u8 {
        self.next(seat)
    }

    fn next(&self, seat: u8) -> u8 {
        debug_assert!(self.playing.contains(&seat), "a playing seat");
        self.next_seats[usize::from(seat)]
    }

    /// The playing seats from `seat` on, in play order (at most four), and how many.
    fn order_from(&self, seat: u8) -> ([u8; 4], usize) {
        let n = self.playing.len();
        let mut order = [seat; 4];
        for j in 1..n {
            order[j] = self.next(order[j - 1]);
        }
        (order, n)
    }

    /// The seat's hand prepared for evaluation, kept until it changes.
    pub fn prepared(&mut self, seat: u8) -> Result<Arc<Prepared>, Invalid> {
        let s = usize::from(seat);
        if self.fresh & (1 << s) != 0 {
            if let Some(p) = &self.prepared[s] {
                return Ok(p.clone());
            }
        }
        let state = &self.seats[s];
        let mut table = std::mem::take(&mut self.inputs);
        table.clear();
        table.extend(state.table.iter().map(|&g| TableInput::of_code(g)));
        let refilled = match self.prepared[s].as_mut().and_then(Arc::get_mut) {
            Some(p) => p.refill(state.hand, &table),
            None => Prepared::new(self.rules.ev.clone(), state.hand, &table)
                .map(|p| self.prepared[s] = Some(Arc::new(p))),
        };
        self.inputs = table;
        if let Err(e) = refilled {
            self.prepared[s] = None;
            return Err(e);
        }
        self.fresh |= 1 << s;
        Ok(self.prepared[s].clone().expect("prepared above"))
    }

    /// The seat's current total hu-xi (R10.6).
    pub fn huxi(&mut self, seat: u8) -> i64 {
        self.prepared(seat).map(|p| p.current_huxi()).unwrap_or(0)
    }

    fn win_on(&mut self, seat: u8, card: Kind, how: How) -> Option<Win> {
        let p = self.prepared(seat).ok()?;
        let arrangement = p.win(card, how.self_drawn, how.from_discard, how.tianhu, how.haidi)?;
        Some(Win {
            arrangement,
            table: self.seats[usize::from(seat)].table.clone(),
            win: Some(card),
            context_win: Some(card),
            how,
        })
    }

    fn complete(&mut self, seat: u8, card: Kind, haidi: bool) -> Option<Win> {
        let p = self.prepared(seat).ok()?;
        let arrangement = p.complete(true, haidi)?;
        let how = How { self_drawn: true, from_discard: false, tianhu: false, haidi };
        Some(Win {
            arrangement,
            table: self.seats[usize::from(seat)].table.clone(),
            win: Some(card),
            context_win: None,
            how,
        })
    }

    pub fn legal_actions(&mut self) -> Vec<Act> {
        self.legal().to_vec()
    }

    /// The legal actions of the seat to act, sorted by their F3 text ([`Game::legal_actions`]
    /// without the copy).
    pub fn legal(&mut self) -> &[Act] {
        if !self.legal_ok {
            let mut found = std::mem::take(&mut self.legal);
            self.compute_legal(&mut found);
            self.legal = found;
            self.legal_ok = true;
        }
        &self.legal
    }

    fn compute_legal(&self, found: &mut Vec<Act>) {
        found.clear();
        match &self.phase {
            Phase::Claim(w) => {
                if w.asking.is_empty() {
                    return;
                }
                // F3 order: every 吃 (by its text), then hu, pass, peng; a window offers nothing
                // else (R8).
                let (mut hu, mut peng) = (false, false);
                for &a in &w.offered {
                    match a {
                        Act::Chi(_) => found.push(a),
                        Act::Hu => hu = true,
                        Act::Peng => peng = true,
                        _ => {}
                    }
                }
                if found.len() > 1 {
                    sort_by_text(found);
                }
                if hu {
                    found.push(Act::Hu);
                }
                found.push(Act::Pass);
                if peng {
                    found.push(Act::Peng);
                }
            }
            Phase::SelfHu(..) => found.extend([Act::Hu, Act::Pass]),
            Phase::Discarding(seat) => {
                let hand = &self.seats[usize::from(*seat)].hand;
                // Any card but a 坎's, or a 坎's when there is no other (R6).
                let masks = CountMasks::of(hand);
                let loose = masks.ones | masks.twos;
                let any = loose | masks.threes | masks.fours;
                discards_in_order(if loose == 0 { any } else { loose }, found);
            }
            Phase::Over(_) => {}
        }
    }

    // ------------------------------------------------------------------------- actions

    /// Carries out the decision of the seat to act.
    pub fn apply(&mut self, action: Act) -> Result<(), GameError> {
        if !self.legal().contains(&action) {
            return Err(GameError::Illegal);
        }
        self.apply_legal(action)
    }

    /// [`Game::apply`] of an action known to be among [`Game::legal`]'s (the binding finds it
    /// there by identity): the same, without looking for it again.
    pub fn apply_legal(&mut self, action: Act) -> Result<(), GameError> {
        debug_assert!(self.legal().contains(&action));
        let seat = self.to_act().ok_or(GameError::Illegal)?;
        if action == Act::Hu {
            let missing = match &self.phase {
                Phase::SelfHu(..) => self.pending.is_none(),
                _ => self.hu[usize::from(seat)].is_none(),
            };
            if missing {
                return Err(GameError::NoWin(seat));
            }
        }
        if self.keep_log {
            self.history.push((seat, action));
        }
        self.legal_ok = false;
        match std::mem::replace(&mut self.phase, Phase::Over(None)) {
            Phase::Claim(window) => self.answer(window, action),
            Phase::SelfHu(seat, card) => {
                let pending = self.pending.take();
                if action == Act::Hu {
                    self.win(seat, pending.expect("checked above"));
                } else {
                    self.decline_hu(seat, card);
                    let last = self.wall_left() == 0;
                    self.after_take(seat, last);
                }
            }
            Phase::Discarding(seat) => {
                let Act::Discard(card) = action else { unreachable!("a discard is legal") };
                self.discard(seat, card);
            }
            Phase::Over(_) => unreachable!("no action is legal once over"),
        }
        Ok(())
    }

    fn event(&mut self, etype: EventType, seat: u8, card: Option<Kind>, groups: &[GroupCode]) {
        if self.keep_log {
            self.log.push(Event { etype, seat, card, groups: groups.to_vec() });
        }
    }

    /// The seat's cards held and its limit ([`Seat::held`], [`Seat::limit`]), kept while the
    /// seat is unchanged.
    #[inline]
    fn sizes(&mut self, seat: u8) -> (i32, i32) {
        let s = usize::from(seat);
        if self.sizes_fresh & (1 << s) == 0 {
            self.count_sizes(s);
        }
        self.sizes[s]
    }

    #[cold]
    fn count_sizes(&mut self, s: usize) {
        let state = &self.seats[s];
        self.sizes[s] = (state.held(), state.limit());
        self.sizes_fresh |= 1 << s;
    }

    /// No seat's options on a card (between windows).
    fn clear_options(&mut self) {
        for o in &mut self.options {
            o.clear();
        }
        for h in self.hu.iter_mut().filter(|h| h.is_some()) {
            *h = None;
        }
        self.pao = None;
    }

    fn changed(&mut self, seat: u8) {
        self.fresh &= !(1 << seat);
        self.reach_fresh &= !(1 << seat);
        self.sizes_fresh &= !(1 << seat);
    }

    // ------------------------------------------------------------------------- flow

    /// R2: 必需天胡, then the 亮张 offers, then the automatic 提, then the dealer.
    fn start(&mut self) -> Result<(), Invalid> {
        for i in 0..self.playing.len() {
            let seat = self.playing[i];
            let mut cards = self.seats[usize::from(seat)].hand;
            if seat == self.dealer {
                cards[usize::from(self.liang)] += 1;
            }
            if let Some(arrangement) = self.rules.ev.forced_tianhu(cards)? {
                self.take_liang();
                let how = How { self_drawn: true, from_discard: false, tianhu: true, haidi: false };
                let win = Win { arrangement, table: Vec::new(), win: None, context_win: None, how };
                self.win(seat, win);
                return Ok(());
            }
        }
        self.open_window(self.liang, self.dealer, Source::Liang);
        Ok(())
    }

    fn take_liang(&mut self) {
        let dealer = self.dealer;
        self.seats[usize::from(dealer)].hand[usize::from(self.liang)] += 1;
        self.changed(dealer);
    }

    fn after_liang(&mut self) {
        self.take_liang();
        for i in 0..self.playing.len() {
            let seat = self.playing[i];
            let mut any = false;
            for k in 0..NUM_KINDS as Kind {
                let state = &mut self.seats[usize::from(seat)];
                if state.hand[usize::from(k)] != 4 {
                    continue;
                }
                state.hand[usize::from(k)] = 0;
                state.table.push(GroupCode::new(GType::Ti, k));
                self.event(EventType::Ti, seat, Some(k), &[]);
                any = true;
            }
            if any {
                self.changed(seat);
            }
        }
        self.after_take(self.dealer, false);
    }

    /// After a take: discard if R6 says so, else the next player draws.
    fn after_take(&mut self, seat: u8, last: bool) {
        if last {
            self.huangzhuang();
        } else if self.sizes(seat).0 > self.sizes(seat).1 && self.can_discard(seat) {
            self.phase = Phase::Discarding(seat);
        } else {
            let next = self.next(seat);
            self.draw(next);
        }
    }

    fn can_discard(&self, seat: u8) -> bool {
        let hand = &self.seats[usize::from(seat)].hand;
        if self.rules.break_kan_when_stuck {
            hand.iter().any(|&n| n > 0)
        } else {
            hand.iter().any(|&n| n > 0 && n < 3)
        }
    }

    /// R4.1: draw, then a forced 提 or 偎, or show the card.
    fn draw(&mut self, seat: u8) {
        if self.wall_left() == 0 {
            self.huangzhuang();
            return;
        }
        let card = self.wall[self.drawn];
        self.drawn += 1;
        let last = self.wall_left() == 0;
        self.event(EventType::Draw, seat, Some(card), &[]);
        let s = usize::from(seat);
        let c = usize::from(card);
        let wei = self.seats[s]
            .table
            .iter()
            .position(|g| g.shape == card && matches!(g.gtype, GType::Wei | GType::Chouwei));
        let held = self.seats[s].hand[c];
        if held == 3 || wei.is_some() {
            let ti = GroupCode::new(GType::Ti, card);
            let state = &mut self.seats[s];
            if let Some(i) = wei {
                state.table[i] = ti;
            } else {
                state.hand[c] = 0;
                state.table.push(ti);
            }
            self.changed(seat);
            self.event(EventType::Ti, seat, Some(card), &[]);
        } else if held == 2 {
            let state = &mut self.seats[s];
            let gtype = if state.chou & bit(card) != 0 { GType::Chouwei } else { GType::Wei };
            state.hand[c] = 0;
            state.table.push(GroupCode::new(gtype, card));
            self.changed(seat);
            let etype = if gtype == GType::Chouwei { EventType::Chouwei } else { EventType::Wei };
            self.event(etype, seat, Some(card), &[]);
        } else {
            self.event(EventType::Show, seat, Some(card), &[]);
            self.open_window(card, seat, Source::Drawn);
            return;
        }
        // R4.1 step 3: he may win now if his hand is complete.
        let mut result = None;
        let (held, limit) = self.sizes(seat);
        if held == limit + 1 {
            result = self.complete(seat, card, last);
        }
        if result.is_some() && !self.hu_blocked(seat, card) {
            self.pending = result;
            self.phase = Phase::SelfHu(seat, card);
            return;
        }
        self.after_take(seat, last);
    }

    fn discard(&mut self, seat: u8, card: Kind) {
        let state = &mut self.seats[usize::from(seat)];
        state.hand[usize::from(card)] -= 1;
        state.discarded |= bit(card);
        self.changed(seat);
        self.event(EventType::Discard, seat, Some(card), &[]);
        self.open_window(card, seat, Source::Discarded);
    }

    // ------------------------------------------------------------------------- claims

    fn open_window(&mut self, card: Kind, owner: u8, source: Source) {
        let (order, n) = self.order_from(owner);
        let asking = if source == Source::Discarded { &order[1..n] } else { &order[..n] };
        let mut queue = std::mem::take(&mut self.spare.asking);
        queue.clear();
        if self.window_options(card, owner, source, asking, &mut queue).is_err() {
            queue.clear();
        }
        let mut claims = std::mem::take(&mut self.spare.claims);
        claims.clear();
        if self.pauses {
            // Nobody asked yet (D101): the moment every seat sees the card.
            self.held = Some(Held { card, owner, source, queue });
            let window = Window { card, owner, source, asking: Vec::new(), offered: Vec::new(), claims };
            self.phase = Phase::Claim(window);
            return;
        }
        self.advance_window(card, owner, source, queue, claims);
    }

    /// Whether the game is stopped at a card on offer (D101).
    pub fn paused(&self) -> bool {
        self.held.is_some()
    }

    /// Go on from a card on offer: ask the seats with an option on it (R8), or carry on when
    /// there are none. Illegal when the game is not stopped at an offer.
    pub fn resume(&mut self) -> Result<(), GameError> {
        let Some(Held { card, owner, source, queue }) = self.held.take() else {
            return Err(GameError::Illegal);
        };
        let claims = match std::mem::replace(&mut self.phase, Phase::Over(None)) {
            Phase::Claim(window) => window.claims,
            _ => unreachable!("a held offer is a claim window's"),
        };
        self.legal_ok = false;
        self.advance_window(card, owner, source, queue, claims);
        Ok(())
    }

    /// Works out every asking seat's options on the card; the seats with some, into `queue`.
    fn window_options(
        &mut self,
        card: Kind,
        owner: u8,
        source: Source,
        asking: &[u8],
        queue: &mut Vec<u8>,
    ) -> Result<(), Invalid> {
        self.clear_options();
        self.pao = if source == Source::Liang { None } else { self.pao_seat(card, owner, source) };
        for &seat in asking {
            let mut found = std::mem::take(&mut self.options[usize::from(seat)]);
            self.claim_options(seat, card, owner, source, &mut found);
            let any = !found.is_empty();
            self.options[usize::from(seat)] = found;
            if any {
                queue.push(seat);
            }
        }
        Ok(())
    }

    /// The seat that must 跑 on this card, if any (R4.1 step 4, R4.2, R5.2).
    fn pao_seat(&self, card: Kind, owner: u8, source: Source) -> Option<u8> {
        for &seat in &self.playing {
            let state = &self.seats[usize::from(seat)];
            if seat == owner {
                if source == Source::Drawn
                    && state.table.iter().any(|g| g.gtype == GType::Peng && g.shape == card)
                {
                    return Some(seat);
                }
                continue;
            }
            if state.hand[usize::from(card)] == 3 {
                return Some(seat);
            }
            let runs = |g: &GroupCode| match g.gtype {
                GType::Wei | GType::Chouwei => true,
                GType::Peng => source == Source::Drawn,
                _ => false,
            };
            if state.table.iter().any(|g| g.shape == card && runs(g)) {
                return Some(seat);
            }
        }
        None
    }

    /// 臭胡 (R9.3): he declined this kind and his hu-xi has not changed since.
    fn hu_blocked(&mut self, seat: u8, card: Kind) -> bool {
        let declined =
            self.seats[usize::from(seat)].chou_hu.iter().find(|(k, _)| *k == card).map(|&(_, h)| h);
        match declined {
            None => false,
            Some(h) => h == self.huxi(seat),
        }
    }

    /// The first part of a seat's [`Reach`]: its free cards and the lone one.
    #[cold]
    fn reach_lone(&mut self, s: usize) {
        let hand = self.seats[s].hand;
        // The kinds of the free cards, of a single free card, and of a 坎 or four in hand.
        let masks = CountMasks::of(&hand);
        let (loose, mut singles, mut whole) =
            (masks.ones | masks.twos, masks.ones, masks.threes | masks.fours);
        // A single free card with no partner in hand can only be the winning card's pair:
        // one such card fixes the card that may win, two rule out every win (as
        // `Prepared::placements` finds).
        let mut lone = NO_LONE;
        while singles != 0 {
            let k = singles.trailing_zeros() as usize;
            singles &= singles - 1;
            if loose & NEIGHBOURS[k] & !(1 << k) == 0 {
                lone = if lone == NO_LONE { k as u8 } else { NO_WIN };
            }
        }
        let reach = &mut self.reach[s];
        reach.lone = lone;
        reach.whole = whole;
        reach.free = hand;
        while whole != 0 {
            reach.free[whole.trailing_zeros() as usize] = 0;
            whole &= whole - 1;
        }
        self.reach_fresh |= 1 << s;
        self.bound_fresh &= !(1 << s);
    }

    /// The rest of a seat's [`Reach`] (after [`Game::reach_lone`]): the bound without the card.
    #[cold]
    fn reach_bound(&mut self, s: usize) {
        let ev = &self.rules.ev;
        let state = &self.seats[s];
        let reach = &mut self.reach[s];
        let (mut fixed, mut joinable) = (0, 0);
        for &g in &state.table {
            fixed += ev.rules.huxi.code(g);
            if matches!(g.gtype, GType::Peng | GType::Wei | GType::Chouwei) {
                joinable |= bit(g.shape);
            }
        }
        let mut whole = reach.whole;
        while whole != 0 {
            let k = whole.trailing_zeros() as usize;
            whole &= whole - 1;
            let gtype = if state.hand[k] == 3 { GType::Kan } else { GType::Ti };
            fixed += ev.same_kind(gtype, k as Kind);
        }
        reach.sizes = [ev.size_bound(&reach.free, 0), ev.size_bound(&reach.free, 1)];
        reach.bound = fixed + reach.sizes[0] + reach.sizes[1];
        reach.joinable = joinable;
        self.bound_fresh |= 1 << s;
    }

    /// Whether a win of the seat's on `card` could have the hu-xi a win needs (R9.1): an upper
    /// bound of any winning arrangement's hu-xi, made of the table's groups, the 坎 and fours in
    /// hand, every scoring sequence the other cards and the card could make, and the most the
    /// card adds to a group of its kind. False: there is no win, the evaluator is not asked.
    fn may_reach(&mut self, seat: u8, card: Kind) -> bool {
        let s = usize::from(seat);
        if self.reach_fresh & (1 << s) == 0 {
            self.reach_lone(s);
        }
        let lone = self.reach[s].lone;
        if lone != NO_LONE && lone != card {
            return false;
        }
        if self.bound_fresh & (1 << s) == 0 {
            self.reach_bound(s);
        }
        let ev = &self.rules.ev;
        let reach = &self.reach[s];
        let state = &self.seats[s];
        // What the card adds to a group of its kind: a pair made a 碰 or 偎, a 坎 or a table 碰
        // or 偎 made a four (R9.1's placements); or, among the free cards, to the scoring
        // sequences of its size.
        let mut gain = 0;
        let (size, rank) = (usize::from(card) / 10, usize::from(card) % 10);
        if matches!(rank, 0 | 1 | 2 | 6 | 9) {
            let mut with = reach.free;
            with[usize::from(card)] += 1;
            gain = ev.size_bound(&with, size) - reach.sizes[size];
        }
        let four = ev.same_kind(GType::Pao, card).max(ev.same_kind(GType::Ti, card));
        match state.hand[usize::from(card)] {
            2 => gain = gain.max(ev.same_kind(GType::Peng, card).max(ev.same_kind(GType::Wei, card))),
            3 => gain = gain.max(four - ev.same_kind(GType::Kan, card)),
            _ => {}
        }
        if reach.joinable & bit(card) != 0 {
            for &g in &state.table {
                if g.shape == card && matches!(g.gtype, GType::Peng | GType::Wei | GType::Chouwei) {
                    gain = gain.max(four - ev.rules.huxi.code(g));
                }
            }
        }
        i64::from(reach.bound + gain) >= ev.rules.min_huxi
    }

    /// The seat's options on the card, into `options` (emptied first).
    fn claim_options(&mut self, seat: u8, card: Kind, owner: u8, source: Source, options: &mut Vec<Act>) {
        let s = usize::from(seat);
        let last = source == Source::Drawn && self.wall_left() == 0;
        options.clear();
        let found = match source {
            Source::Liang => {
                if !self.may_reach(seat, card) {
                    return; // nothing but a 胡 is asked about the 亮张 (R9.5)
                }
                let how = How { self_drawn: seat == owner, from_discard: false, tianhu: true, haidi: false };
                self.win_on(seat, card, how)
            }
            _ if source == Source::Drawn || self.rules.hu_on_discard => {
                let (held, limit) = self.sizes(seat);
                if held == limit && self.may_reach(seat, card) {
                    let how = How {
                        self_drawn: source == Source::Drawn && seat == owner,
                        from_discard: source == Source::Discarded,
                        tianhu: false,
                        haidi: last,
                    };
                    self.win_on(seat, card, how)
                } else {
                    None
                }
            }
            _ => None,
        };
        if found.is_some() && !self.hu_blocked(seat, card) {
            self.hu[s] = found;
            options.push(Act::Hu);
        }
        if last || source == Source::Liang || self.pao.is_some() {
            return;
        }
        let state = &self.seats[s];
        if (state.chou | state.discarded) & bit(card) != 0 {
            return; // R7.1
        }
        let peng = seat != owner && state.hand[usize::from(card)] == 2;
        let chi = seat == self.next(owner) || (source == Source::Drawn && seat == owner);
        if !peng && !chi {
            return;
        }
        let (held, limit) = self.sizes(seat);
        let hand = self.seats[s].hand;
        let must_discard = self.rules.take_needs_discard && held + 1 > limit;
        if peng {
            let rest: i32 = hand.iter().filter(|&&n| n != 3).map(|&n| i32::from(n)).sum::<i32>() - 2;
            if !(must_discard && rest == 0) {
                options.push(Act::Peng); // R6.2
            }
        }
        if chi {
            chi_options(&hand, card, must_discard, options);
        }
    }

    fn advance_window(
        &mut self,
        card: Kind,
        owner: u8,
        source: Source,
        mut queue: Vec<u8>,
        claims: Vec<(u8, Act)>,
    ) {
        while !queue.is_empty() {
            let seat = queue[0];
            let mut offered = std::mem::take(&mut self.spare.offered);
            offered.clear();
            offered.extend(
                self.options[usize::from(seat)]
                    .iter()
                    .copied()
                    .filter(|a| !claims.iter().any(|(_, c)| c.rank() >= a.rank())),
            );
            if !offered.is_empty() {
                self.phase = Phase::Claim(Window { card, owner, source, asking: queue, offered, claims });
                return;
            }
            self.spare.offered = offered;
            queue.remove(0); // skipped: never offered, so nothing becomes 臭 (R8)
        }
        let mut best: Option<(u8, Act)> = None;
        for &(seat, action) in &claims {
            if best.is_none_or(|(_, b)| action.rank() > b.rank()) {
                best = Some((seat, action));
            }
        }
        self.spare.asking = queue;
        self.spare.claims = claims;
        self.resolve_window(card, owner, source, best);
    }

    fn answer(&mut self, window: Window, action: Act) {
        let Window { card, owner, source, mut asking, mut offered, mut claims } = window;
        let seat = asking[0];
        if action == Act::Pass {
            if offered.iter().any(|a| matches!(a, Act::Chi(_) | Act::Peng)) {
                self.seats[usize::from(seat)].chou |= bit(card); // R7.1
            }
        } else {
            claims.push((seat, action));
        }
        if action != Act::Hu && offered.contains(&Act::Hu) {
            self.decline_hu(seat, card);
        }
        offered.clear();
        self.spare.offered = offered;
        asking.remove(0);
        self.advance_window(card, owner, source, asking, claims);
    }

    fn decline_hu(&mut self, seat: u8, card: Kind) {
        let huxi = self.huxi(seat);
        let marks = &mut self.seats[usize::from(seat)].chou_hu;
        match marks.iter_mut().find(|(k, _)| *k == card) {
            Some(mark) => mark.1 = huxi,
            None => {
                marks.push((card, huxi));
                marks.sort_unstable();
            }
        }
    }

    /// The window closes on its best claim (R8), if any.
    fn resolve_window(&mut self, card: Kind, owner: u8, source: Source, best: Option<(u8, Act)>) {
        let last = source == Source::Drawn && self.wall_left() == 0;
        if let Some((seat, Act::Hu)) = best {
            let win = self.hu[usize::from(seat)].take().expect("a 胡 offered has its win");
            self.win(seat, win);
            return;
        }
        if source == Source::Liang {
            self.after_liang();
            return;
        }
        if let Some(pao) = self.pao {
            // R5.2: a 跑 is never optional, on the last card too (then the hand is 荒庄).
            self.pao_take(pao, card, last);
        } else if let Some((seat, action)) = best {
            if action == Act::Peng {
                let group = GroupCode::new(GType::Peng, card);
                let state = &mut self.seats[usize::from(seat)];
                // Saturating: an unchecked position may hold a claim its hand cannot make.
                state.hand[usize::from(card)] = state.hand[usize::from(card)].saturating_sub(2);
                state.table.push(group);
                self.changed(seat);
                self.event(EventType::Peng, seat, Some(card), &[group]);
            } else if let Act::Chi(chi) = action {
                self.chi(seat, card, chi);
            }
            self.after_take(seat, false);
        } else {
            self.seats[usize::from(owner)].row.push(card);
            self.event(EventType::Passed, owner, Some(card), &[]);
            if last {
                self.huangzhuang();
            } else {
                let next = self.next(owner);
                self.draw(next);
            }
        }
    }

    fn pao_take(&mut self, seat: u8, card: Kind, last: bool) {
        let pao = GroupCode::new(GType::Pao, card);
        let state = &mut self.seats[usize::from(seat)];
        match state.table.iter().position(|g| g.shape == card && g.gtype.is_joinable()) {
            Some(i) => state.table[i] = pao,
            None => {
                state.hand[usize::from(card)] = 0;
                state.table.push(pao);
            }
        }
        self.changed(seat);
        self.event(EventType::Pao, seat, Some(card), &[pao]);
        self.after_take(seat, last);
    }

    fn chi(&mut self, seat: u8, card: Kind, chi: Chi) {
        let state = &mut self.seats[usize::from(seat)];
        state.hand[usize::from(card)] += 1;
        let mut groups = [GroupCode::new(GType::Chi, 0); 3];
        let n = chi.shapes().len();
        for (slot, &shape) in groups.iter_mut().zip(chi.shapes()) {
            for &k in &THREES[usize::from(shape)] {
                let held = &mut state.hand[usize::from(k)];
                *held = held.saturating_sub(1); // as for 碰, an unchecked position
            }
            *slot = GroupCode::new(GType::Chi, shape);
        }
        state.table.extend_from_slice(&groups[..n]);
        self.changed(seat);
        self.event(EventType::Chi, seat, Some(card), &groups[..n]);
    }

    // ------------------------------------------------------------------------- ending

    fn win(&mut self, seat: u8, hu: Win) {
        let others: Vec<(u8, i64)> =
            self.sorted_playing().into_iter().filter(|&s| s != seat).map(|s| (s, self.huxi(s))).collect();
        let payments = self.payments(Some(seat), hu.points());
        let groups = if self.keep_log { hu.groups() } else { Vec::new() };
        self.event(EventType::Hu, seat, hu.win, &groups);
        self.end(Outcome { winner: Some(seat), hu: Some(hu), payments, other_huxi: others });
    }

    /// 荒庄: the wall is empty and the last card was not won on (R4.1, R11).
    fn huangzhuang(&mut self) {
        let others: Vec<(u8, i64)> = self.sorted_playing().into_iter().map(|s| (s, self.huxi(s))).collect();
        let payments = self.payments(None, 0);
        self.event(EventType::Huangzhuang, self.dealer, None, &[]);
        self.end(Outcome { winner: None, hu: None, payments, other_huxi: others });
    }

    fn sorted_playing(&self) -> Vec<u8> {
        let mut seats = self.playing.clone();
        seats.sort_unstable();
        seats
    }

    /// Settlement (R10.5).
    fn payments(&self, winner: Option<u8>, points: i64) -> Vec<i64> {
        let mut paid = vec![0; self.seats.len()];
        if let Some(w) = winner {
            let n = self.playing.len() as i64;
            for &seat in &self.playing {
                paid[usize::from(seat)] = if seat == w { points * (n - 1) } else { -points };
            }
        }
        paid
    }

    fn end(&mut self, outcome: Outcome) {
        self.phase = Phase::Over(Some(Box::new(outcome)));
        self.clear_options();
        self.legal_ok = false;
    }
}

/// Whether a hand holds the cards a declared 吃 or 碰 of `card` lays down (R7, R8).
fn holds_claim(hand: &Counts, card: Kind, claim: Act) -> bool {
    match claim {
        Act::Peng => hand[usize::from(card)] >= 2,
        Act::Chi(chi) => {
            let mut left = hand.map(i32::from);
            left[usize::from(card)] += 1;
            for &shape in chi.shapes() {
                for &k in &THREES[usize::from(shape)] {
                    left[usize::from(k)] -= 1;
                }
            }
            left.iter().all(|&n| n >= 0)
        }
        _ => true,
    }
}

/// A seat's part of [`Game::may_reach`]'s bound that the card does not change.
#[derive(Clone, Debug, Default)]
struct Reach {
    /// The fixed hu-xi (the table, the 坎 and fours in hand) and the free cards' bound.
    bound: i32,
    /// The free cards (the hand without its 坎 and fours).
    free: Counts,
    /// The free cards' [`Evaluator::size_bound`] of each size.
    sizes: [i32; 2],
    /// The one free card with no partner, if any ([`NO_LONE`]: none; [`NO_WIN`]: two or more).
    lone: u8,
    /// The kinds of the 坎 and fours in hand, as a bit mask.
    whole: u32,
    /// The kinds of the table's 碰 and 偎, as a bit mask.
    joinable: u32,
}

/// No lone free card in a seat's hand ([`Game::may_reach`]).
const NO_LONE: u8 = u8::MAX;
/// Two lone free cards or more: no card wins.
const NO_WIN: u8 = u8::MAX - 1;

/// Sorts actions by their F3 text, each key made once (without allocating, for up to 32).
fn sort_by_text(acts: &mut [Act]) {
    let ranks = &ORDER_RANKS;
    if acts.len() > 32 {
        acts.sort_by_key(|a| a.order_key(ranks));
        return;
    }
    let mut keyed = [(0u32, Act::Pass); 32];
    for (slot, &a) in keyed.iter_mut().zip(acts.iter()) {
        *slot = (a.order_key(ranks), a);
    }
    keyed[..acts.len()].sort_unstable_by_key(|&(key, _)| key);
    for (slot, &(_, a)) in acts.iter_mut().zip(keyed.iter()) {
        *slot = a;
    }
}

/// The ranks [`Act::order_key`] reads: each three-card shape's among the shapes' texts, each
/// kind's among the kinds' names.
struct OrderRanks {
    shapes: [u8; THREES.len()],
    kinds: [u8; NUM_KINDS],
}

const ORDER_RANKS: OrderRanks = order_ranks();

/// Up to nine bytes of F1 text: a kind's name (`x1`…`d10`) or a shape's three names.
#[derive(Clone, Copy)]
struct Text {
    bytes: [u8; 9],
    len: usize,
}

impl Text {
    const fn push_name(mut self, k: Kind) -> Text {
        self.bytes[self.len] = if k < 10 { b'x' } else { b'd' };
        let n = k % 10 + 1;
        if n == 10 {
            self.bytes[self.len + 1] = b'1';
            self.bytes[self.len + 2] = b'0';
            self.len += 3;
        } else {
            self.bytes[self.len + 1] = b'0' + n;
            self.len += 2;
        }
        self
    }

    const fn of_kind(k: Kind) -> Text {
        Text { bytes: [0; 9], len: 0 }.push_name(k)
    }

    const fn of_shape(s: usize) -> Text {
        let t = Text { bytes: [0; 9], len: 0 };
        t.push_name(THREES[s][0]).push_name(THREES[s][1]).push_name(THREES[s][2])
    }

    /// Whether `self` sorts before `other` (bytewise, a prefix first), as Python's `str`.
    const fn before(&self, other: &Text) -> bool {
        let mut i = 0;
        while i < self.len && i < other.len {
            if self.bytes[i] != other.bytes[i] {
                return self.bytes[i] < other.bytes[i];
            }
            i += 1;
        }
        self.len < other.len
    }
}

/// [`ORDER_RANKS`], worked out when the crate is built: a text's rank is how many texts sort
/// before it.
const fn order_ranks() -> OrderRanks {
    let mut ranks = OrderRanks { shapes: [0; THREES.len()], kinds: [0; NUM_KINDS] };
    let mut s = 0;
    while s < THREES.len() {
        let mut t = 0;
        while t < THREES.len() {
            if Text::of_shape(t).before(&Text::of_shape(s)) {
                ranks.shapes[s] += 1;
            }
            t += 1;
        }
        s += 1;
    }
    let mut k = 0;
    while k < NUM_KINDS {
        let mut j = 0;
        while j < NUM_KINDS {
            if Text::of_kind(j as Kind).before(&Text::of_kind(k as Kind)) {
                ranks.kinds[k] += 1;
            }
            j += 1;
        }
        k += 1;
    }
    ranks
}

/// A discard of each kind in `kinds` (a bit mask), appended in the order of the kinds' names
/// (F3): d1, d10, d2 … d9, then x1, x10, x2 … x9.
fn discards_in_order(kinds: u32, out: &mut Vec<Act>) {
    let mut discards = [Act::Pass; NUM_KINDS];
    let mut n = 0;
    for base in [10, 0] {
        let size = (kinds >> base) & 0x3ff;
        // Bit 0: rank 1, bit 1: rank 10, bits 2–9: ranks 2–9.
        let mut ranks = (size & 1) | (size >> 9 & 1) << 1 | (size & 0x1fe) << 1;
        while ranks != 0 {
            let r = ranks.trailing_zeros();
            ranks &= ranks - 1;
            let rank = match r {
                0 => 0,
                1 => 9,
                r => r - 1,
            };
            discards[n] = Act::Discard((base + rank) as Kind);
            n += 1;
        }
    }
    out.extend_from_slice(&discards[..n]);
}

/// Per kind, the shapes of the sequences and 绞 that contain it, in the order of their sorted
/// cards (`paohuzi.engine.chi.TRIPLES_WITH`).
const TRIPLES_WITH: [Withs; NUM_KINDS] = triples_with();

/// A three-card shape that holds a kind: the shape, its other two cards, and how many copies
/// of the kind it holds.
#[derive(Clone, Copy)]
struct With {
    shape: u8,
    a: u8,
    b: u8,
    copies: i8,
}

/// The shapes that hold a kind (at most six: three sequences, 2-7-10, two 绞), sorted by
/// their cards.
#[derive(Clone, Copy)]
struct Withs {
    list: [With; 6],
    n: usize,
}

impl Withs {
    fn all(&self) -> &[With] {
        &self.list[..self.n]
    }
}

const fn cards_before(x: [Kind; 3], y: [Kind; 3]) -> bool {
    x[0] < y[0] || (x[0] == y[0] && (x[1] < y[1] || (x[1] == y[1] && x[2] < y[2])))
}

const fn triples_with() -> [Withs; NUM_KINDS] {
    let none = With { shape: 0, a: 0, b: 0, copies: 0 };
    let mut out = [Withs { list: [none; 6], n: 0 }; NUM_KINDS];
    let mut s = 0;
    while s < THREES.len() {
        let t = THREES[s];
        let mut k = 0;
        while k < NUM_KINDS {
            let kind = k as Kind;
            let copies = (t[0] == kind) as i8 + (t[1] == kind) as i8 + (t[2] == kind) as i8;
            if copies > 0 {
                let (a, b) = if t[0] == kind {
                    (t[1], t[2])
                } else if t[1] == kind {
                    (t[0], t[2])
                } else {
                    (t[0], t[1])
                };
                // Insert in order of the shapes' cards.
                let withs = &mut out[k];
                let mut i = withs.n;
                while i > 0 && cards_before(t, THREES[withs.list[i - 1].shape as usize]) {
                    withs.list[i] = withs.list[i - 1];
                    i -= 1;
                }
                withs.list[i] = With { shape: s as u8, a, b, copies };
                withs.n += 1;
            }
            k += 1;
        }
        s += 1;
    }
    out
}

/// Every multiset of 比 groups from `rest` that lays down all its copies of `kind`, sorted.
fn bi_sets(rest: &mut [i8; NUM_KINDS], kind: Kind) -> Vec<Vec<u8>> {
    if rest[usize::from(kind)] == 0 {
        return vec![Vec::new()];
    }
    let mut found: Vec<Vec<u8>> = Vec::new();
    for with in TRIPLES_WITH[usize::from(kind)].all() {
        let shape = with.shape;
        let [a, b, c] = THREES[usize::from(shape)].map(usize::from);
        rest[a] -= 1;
        rest[b] -= 1;
        rest[c] -= 1;
        if rest[a] >= 0 && rest[b] >= 0 && rest[c] >= 0 {
            for tail in bi_sets(rest, kind) {
                let mut set = tail;
                set.push(shape);
                set.sort_unstable_by_key(|&s| THREES[usize::from(s)]);
                if !found.contains(&set) {
                    found.push(set);
                }
            }
        }
        rest[a] += 1;
        rest[b] += 1;
        rest[c] += 1;
    }
    found.sort_by(|x, y| {
        let xs: Vec<[u8; 3]> = x.iter().map(|&s| THREES[usize::from(s)]).collect();
        let ys: Vec<[u8; 3]> = y.iter().map(|&s| THREES[usize::from(s)]).collect();
        xs.cmp(&ys)
    });
    found
}

/// At most two 比 groups, sorted by their cards: one of [`bi_sets`]'s answers.
#[derive(Clone, Copy, PartialEq, Eq)]
struct BiSet {
    shapes: [u8; 2],
    n: u8,
}

impl BiSet {
    fn shapes(&self) -> &[u8] {
        &self.shapes[..usize::from(self.n)]
    }

    /// The order of `bi_sets`: the groups' cards compared as tuples, a prefix first.
    fn cmp_cards(&self, other: &BiSet) -> std::cmp::Ordering {
        let mine = self.shapes().iter().map(|&s| THREES[usize::from(s)]);
        mine.cmp(other.shapes().iter().map(|&s| THREES[usize::from(s)]))
    }
}

/// [`bi_sets`] without allocating, for at most two copies of `kind` left (always, but for an
/// unchecked position): the sets into `out`, sorted; false if there were more copies.
fn small_bi_sets(rest: &[i8; NUM_KINDS], kind: Kind, out: &mut [BiSet; 32], n: &mut usize) -> bool {
    *n = 0;
    let need = rest[usize::from(kind)];
    if need == 0 {
        out[0] = BiSet { shapes: [0; 2], n: 0 };
        *n = 1;
        return true;
    }
    if need > 2 {
        return false;
    }
    let withs = TRIPLES_WITH[usize::from(kind)].all();
    let fits = |shapes: &[u8]| {
        let mut left = *rest;
        for &shape in shapes {
            for &k in &THREES[usize::from(shape)] {
                left[usize::from(k)] -= 1;
            }
        }
        left.iter().all(|&c| c >= 0)
    };
    for (i, a) in withs.iter().enumerate() {
        if a.copies == need && fits(&[a.shape]) {
            out[*n] = BiSet { shapes: [a.shape, 0], n: 1 };
            *n += 1;
        }
        if need == 2 && a.copies == 1 {
            for b in &withs[i..] {
                if b.copies == 1 && fits(&[a.shape, b.shape]) {
                    // TRIPLES_WITH is sorted by cards, so a's come first.
                    out[*n] = BiSet { shapes: [a.shape, b.shape], n: 2 };
                    *n += 1;
                }
            }
        }
    }
    out[..*n].sort_unstable_by(BiSet::cmp_cards);
    true
}

/// Every legal 吃 of `kind` (R7), in `paohuzi.engine.chi.chi_options`'s order, appended to `out`.
pub fn chi_options(hand: &Counts, kind: Kind, must_discard: bool, out: &mut Vec<Act>) {
    // The free cards are the hand's without its 坎 (R7).
    let free_counts = without_kans(hand);
    let cards = total(&free_counts);
    let mut free = free_counts.map(|n| n as i8);
    let mut sets = [BiSet { shapes: [0; 2], n: 0 }; 32];
    let mut n_sets = 0;
    for with in TRIPLES_WITH[usize::from(kind)].all() {
        let (a, b) = (usize::from(with.a), usize::from(with.b));
        free[a] -= 1;
        free[b] -= 1;
        if free[a] >= 0 && free[b] >= 0 {
            let mut push = |bi: &[u8]| {
                // The free cards left once the 吃 and its 比 are down.
                let left = cards - 2 - 3 * bi.len() as i32;
                if must_discard && left == 0 {
                    return; // R6.2: nothing left that may be discarded
                }
                let mut groups = [0u8; 3];
                groups[0] = with.shape;
                groups[1..=bi.len()].copy_from_slice(bi);
                out.push(Act::Chi(Chi { groups, n: 1 + bi.len() as u8 }));
            };
            if small_bi_sets(&free, kind, &mut sets, &mut n_sets) {
                for set in &sets[..n_sets] {
                    push(set.shapes());
                }
            } else {
                for bi in bi_sets(&mut free, kind) {
                    push(&bi);
                }
            }
        }
        free[a] += 1;
        free[b] += 1;
    }
}

/// A deck's check (R1): 80 cards, four of each kind.
pub fn check_deck(deck: &[i64]) -> Result<Vec<Kind>, String> {
    if deck.len() != DECK_SIZE {
        return Err(format!("a deck has {DECK_SIZE} cards, not {}", deck.len()));
    }
    let mut counts = [0; NUM_KINDS];
    let mut out = Vec::with_capacity(DECK_SIZE);
    for &k in deck {
        if !(0..NUM_KINDS as i64).contains(&k) {
            return Err(format!("{k} is not a kind"));
        }
        counts[k as usize] += 1;
        out.push(k as Kind);
    }
    if let Some(k) = (0..NUM_KINDS).find(|&k| counts[k] != 4) {
        return Err(format!("a deck has four {}, not {}", kind_name(k as Kind), counts[k]));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rules::Rules;

    fn rules() -> Arc<GameRules> {
        Arc::new(GameRules {
            ev: Arc::new(Evaluator::new(Rules::hunan())),
            players: 3,
            hu_on_discard: false,
            take_needs_discard: true,
            break_kan_when_stuck: true,
        })
    }

    fn deck(seed: u64) -> Vec<Kind> {
        let mut deck: Vec<Kind> = (0..80).map(|i| (i / 4) as Kind).collect();
        let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        for i in (1..deck.len()).rev() {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let j = ((state >> 33) as usize) % (i + 1);
            deck.swap(i, j);
        }
        deck
    }

    #[test]
    fn r1_every_hand_ends_and_cards_add_up() {
        for seed in 0..200 {
            let mut game = Game::new(rules(), (seed % 3) as u8, &deck(seed), true).unwrap();
            let mut steps = 0;
            while !game.is_over() {
                let legal = game.legal_actions();
                assert!(!legal.is_empty());
                game.apply(legal[(seed as usize + steps) % legal.len()]).unwrap();
                steps += 1;
            }
            let outcome = game.outcome().unwrap();
            assert_eq!(outcome.payments.iter().sum::<i64>(), 0);
        }
    }

    #[test]
    fn discards_come_in_the_order_of_their_names() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let kinds = (state as u32) & 0xf_ffff;
            let mut found = Vec::new();
            discards_in_order(kinds, &mut found);
            let mut by_name: Vec<Kind> = (0..NUM_KINDS as Kind).filter(|&k| kinds & bit(k) != 0).collect();
            by_name.sort_by_key(|&k| kind_name(k));
            assert_eq!(found, by_name.into_iter().map(Act::Discard).collect::<Vec<_>>());
            let mut texts: Vec<String> = found.iter().map(|a| a.text()).collect();
            texts.sort();
            assert_eq!(texts, found.iter().map(|a| a.text()).collect::<Vec<_>>());
        }
    }

    #[test]
    fn f3_order_keys_sort_as_the_texts_do() {
        // 吃 compare group by group: right only if no shape's text begins another's.
        let texts: Vec<String> =
            (0..THREES.len()).map(|s| THREES[s].iter().map(|&k| kind_name(k)).collect()).collect();
        for a in &texts {
            assert!(texts.iter().all(|b| a == b || !b.starts_with(a.as_str())));
        }
        let mut acts: Vec<Act> = (0..NUM_KINDS as Kind).map(Act::Discard).collect();
        acts.extend([Act::Peng, Act::Hu, Act::Pass]);
        let mut hands = Vec::new();
        for seed in 0..300 {
            let d = deck(seed);
            let mut hand = [0u8; NUM_KINDS];
            for &k in &d[..20] {
                hand[usize::from(k)] += 1;
            }
            hands.push((hand, d[20]));
        }
        for (hand, card) in hands {
            chi_options(&hand, card, false, &mut acts);
        }
        assert!(acts.iter().filter(|a| matches!(a, Act::Chi(c) if c.n > 1)).count() > 10);
        let mut by_key = acts.clone();
        by_key.sort_by_key(|a| a.order_key(&ORDER_RANKS));
        let mut by_text = acts;
        by_text.sort_by_key(|a| a.text());
        assert_eq!(
            by_key.iter().map(|a| a.text()).collect::<Vec<_>>(),
            by_text.iter().map(|a| a.text()).collect::<Vec<_>>()
        );
    }

    #[test]
    fn r8_a_pausing_game_stops_at_every_offer_and_plays_the_same_hand() {
        // D101: a stop after each LIANG, SHOW and DISCARD event, nobody asked; then the same
        // hand as without stops.
        for seed in 0..200 {
            let dealer = (seed % 3) as u8;
            let mut plain = Game::new(rules(), dealer, &deck(seed), true).unwrap();
            let mut paused = Game::dealt(rules(), dealer, &deck(seed), true, true).unwrap();
            assert!(plain.resume().is_err());
            let (mut steps, mut stops) = (0, 0);
            while !paused.is_over() {
                if paused.paused() {
                    assert!(paused.to_act().is_none() && paused.legal_actions().is_empty());
                    assert!(paused.apply(Act::Pass).is_err());
                    let last = paused.log.last().unwrap().etype;
                    assert!(matches!(last, EventType::Liang | EventType::Show | EventType::Discard));
                    stops += 1;
                    paused.resume().unwrap();
                    continue;
                }
                let legal = paused.legal_actions();
                assert_eq!(legal, plain.legal_actions());
                let action = legal[(seed as usize + steps) % legal.len()];
                paused.apply(action).unwrap();
                plain.apply(action).unwrap();
                steps += 1;
            }
            let offers = plain
                .log
                .iter()
                .filter(|e| matches!(e.etype, EventType::Liang | EventType::Show | EventType::Discard))
                .count();
            let forced = plain.history.is_empty() && plain.outcome().is_some_and(|o| o.winner.is_some());
            assert_eq!(stops, if forced { 0 } else { offers });
            assert_eq!(paused.outcome().unwrap().payments, plain.outcome().unwrap().payments);
            assert_eq!(paused.log.len(), plain.log.len());
        }
    }

    #[test]
    fn r1_seeded_deck_is_a_deck_and_its_own_stream() {
        let deck = seeded_deck(7);
        assert_eq!(deck, seeded_deck(7));
        assert_ne!(deck, seeded_deck(8));
        let wide: Vec<i64> = deck.iter().map(|&k| i64::from(k)).collect();
        assert_eq!(check_deck(&wide).unwrap(), deck.to_vec());
        let game = Game::deal_seeded(rules(), 1, 7, true).unwrap();
        assert_eq!(game.deck.as_deref(), Some(&deck[..]));
    }

    #[test]
    fn play_hands_is_repeatable_and_settles() {
        for policy in [Policy::Random, Policy::Greedy { waits: false }] {
            let played = play_hands(&rules(), 30, 5, policy).unwrap();
            assert_eq!(played, play_hands(&rules(), 30, 5, policy).unwrap());
            assert_eq!(played.totals.iter().sum::<i64>(), 0);
            assert!(played.decisions >= 30);
        }
    }

    #[test]
    fn r7_small_bi_sets_are_bi_sets() {
        let mut state = 12345u64;
        let mut sets = [BiSet { shapes: [0; 2], n: 0 }; 32];
        for _ in 0..20_000 {
            let mut rest = [0i8; NUM_KINDS];
            for slot in rest.iter_mut() {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                *slot = ((state >> 33) % 3) as i8;
            }
            let kind = ((state >> 40) % NUM_KINDS as u64) as Kind;
            let mut n = 0;
            assert!(small_bi_sets(&rest, kind, &mut sets, &mut n));
            let small: Vec<Vec<u8>> = sets[..n].iter().map(|s| s.shapes().to_vec()).collect();
            assert_eq!(small, bi_sets(&mut rest.clone(), kind), "{rest:?} {kind}");
        }
    }

    #[test]
    fn r7_chi_with_bi_worked_example() {
        // hand x1 x2 x2 x3 x3 x4 d2 d2, taking x2 (RULES.md R7).
        let mut hand = [0u8; NUM_KINDS];
        for k in [0, 1, 1, 2, 2, 3, 11, 11] {
            hand[k] += 1;
        }
        let mut out = Vec::new();
        chi_options(&hand, 1, false, &mut out);
        let texts: Vec<String> = out.iter().map(|a| a.text()).collect();
        assert!(texts.contains(&"chi x2d2d2 x1x2x3 x2x3x4".to_string()), "{texts:?}");
        assert!(texts.contains(&"chi x1x2x3 x2x2d2".to_string()), "{texts:?}");
        assert!(texts.contains(&"chi x1x2x3 x2x3x4 x2d2d2".to_string()), "{texts:?}");
    }
}

/// The native core's own seeded deal (D90): the sorted deck (kind `k` at `4k..4k+4`)
/// shuffled by Fisher–Yates from the top (`i` from 79 down to 1, swapped with
/// `rng.below(i + 1)`) with [`Rng::new`]`(seed)`. A stream of its own: it does not reproduce
/// Python's `random.shuffle` of a `Game(seed=…)`; a given deck deals the same in both cores.
pub fn seeded_deck(seed: u64) -> [Kind; DECK_SIZE] {
    shuffled_deck(&mut Rng::new(seed))
}

/// The sorted deck shuffled with `rng`, as [`seeded_deck`] does.
pub fn shuffled_deck(rng: &mut Rng) -> [Kind; DECK_SIZE] {
    let mut deck = [0 as Kind; DECK_SIZE];
    for (i, k) in deck.iter_mut().enumerate() {
        *k = (i / 4) as Kind;
    }
    rng.shuffle(&mut deck);
    deck
}

/// The seed of hand `index` of [`play_hands`]`(…, seed, …)`: that hand is dealt as
/// [`seeded_deck`] of it, and its choices continue the same generator.
pub fn hand_seed(seed: u64, index: u64) -> u64 {
    seed.wrapping_add(index.wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

impl Game {
    /// A hand dealt from [`seeded_deck`]`(seed)` (R2).
    pub fn deal_seeded(
        rules: Arc<GameRules>,
        dealer: u8,
        seed: u64,
        keep_log: bool,
    ) -> Result<Game, Invalid> {
        Game::new(rules, dealer, &seeded_deck(seed), keep_log)
    }
}

/// How every seat chooses in [`play_hands`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Uniformly among the legal actions, from the hand's generator.
    Random,
    /// The greedy bot (`GreedyBot(waits=…)`).
    Greedy { waits: bool },
}

/// What [`play_hands`] played.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Played {
    pub hands: usize,
    /// Actions applied, over all hands.
    pub decisions: u64,
    /// Hands won, per seat.
    pub wins: Vec<usize>,
    /// Payments summed, per seat.
    pub totals: Vec<i64>,
}

impl Played {
    /// Counts a finished hand's winner and payments.
    fn settle(&mut self, game: &Game) {
        if let Some(outcome) = game.outcome() {
            if let Some(w) = outcome.winner {
                self.wins[usize::from(w)] += 1;
            }
            for (total, paid) in self.totals.iter_mut().zip(&outcome.payments) {
                *total += paid;
            }
        }
    }
}

/// A loop's next hand (no log), dealt in the place of its last ([`Game::dealt_in`]).
fn next_hand<'a>(
    game: &'a mut Option<Game>,
    rules: &Arc<GameRules>,
    dealer: u8,
    deck: &[Kind],
) -> Result<&'a mut Game, Invalid> {
    let dealt = Game::dealt_in(game.take(), rules.clone(), dealer, deck, false, false)?;
    Ok(game.insert(dealt))
}

/// Plays `hands` hands inside the core, no log: hand `i` dealt by seat `i % players` from
/// [`seeded_deck`]`(`[`hand_seed`]`(seed, i))`, each seat choosing by `policy`. Not inlined:
/// `benchmarks/instructions.py` counts the instructions inside it.
#[inline(never)]
pub fn play_hands(
    rules: &Arc<GameRules>,
    hands: usize,
    seed: u64,
    policy: Policy,
) -> Result<Played, Invalid> {
    let seats = usize::from(rules.players);
    let mut played = Played { hands, decisions: 0, wins: vec![0; seats], totals: vec![0; seats] };
    let mut game: Option<Game> = None;
    for i in 0..hands {
        let mut rng = Rng::new(hand_seed(seed, i as u64));
        let deck = shuffled_deck(&mut rng);
        let game = next_hand(&mut game, rules, (i % seats) as u8, &deck)?;
        loop {
            let act = match policy {
                Policy::Random => {
                    let legal = game.legal();
                    if legal.is_empty() {
                        break;
                    }
                    legal[rng.below(legal.len())]
                }
                Policy::Greedy { waits } => match game.greedy(waits) {
                    Some(act) => act,
                    None => break,
                },
            };
            game.apply_legal(act).expect("a legal action");
            played.decisions += 1;
        }
        played.settle(game);
    }
    Ok(played)
}

/// Python's `random.Random` (MT19937 seeded by `init_by_array`, as CPython seeds it from an
/// int), for the parts a random-play loop uses: `shuffle` and `choice`. With it the core plays
/// the very hands `paohuzi.tools.simulation.simulate_hand` plays from Python (D92).
#[derive(Clone)]
pub struct PyRandom {
    state: [u32; 624],
    index: usize,
}

impl PyRandom {
    /// `random.Random(seed)` for an int seed (its absolute value, as CPython takes).
    pub fn new(seed: u128) -> PyRandom {
        let mut key = Vec::with_capacity(4);
        let mut n = seed;
        while n > 0 {
            key.push(n as u32);
            n >>= 32;
        }
        if key.is_empty() {
            key.push(0);
        }
        let mut mt = PyRandom { state: [0; 624], index: 624 };
        mt.init_genrand(19_650_218);
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..624.max(key.len()) {
            let prev = mt.state[i - 1] ^ (mt.state[i - 1] >> 30);
            mt.state[i] =
                (mt.state[i] ^ prev.wrapping_mul(1_664_525)).wrapping_add(key[j]).wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= 624 {
                mt.state[0] = mt.state[623];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..623 {
            let prev = mt.state[i - 1] ^ (mt.state[i - 1] >> 30);
            mt.state[i] = (mt.state[i] ^ prev.wrapping_mul(1_566_083_941)).wrapping_sub(i as u32);
            i += 1;
            if i >= 624 {
                mt.state[0] = mt.state[623];
                i = 1;
            }
        }
        mt.state[0] = 0x8000_0000;
        mt
    }

    fn init_genrand(&mut self, s: u32) {
        self.state[0] = s;
        for i in 1..624 {
            let prev = self.state[i - 1] ^ (self.state[i - 1] >> 30);
            self.state[i] = 1_812_433_253u32.wrapping_mul(prev).wrapping_add(i as u32);
        }
        self.index = 624;
    }

    fn next_u32(&mut self) -> u32 {
        if self.index >= 624 {
            for i in 0..624 {
                let y = (self.state[i] & 0x8000_0000) | (self.state[(i + 1) % 624] & 0x7fff_ffff);
                let mut v = self.state[(i + 397) % 624] ^ (y >> 1);
                if y & 1 != 0 {
                    v ^= 0x9908_b0df;
                }
                self.state[i] = v;
            }
            self.index = 0;
        }
        let mut y = self.state[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// `_randbelow(n)` (0 < n < 2^32): `getrandbits(n.bit_length())` until below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        let k = usize::BITS - n.leading_zeros();
        loop {
            let r = (self.next_u32() >> (32 - k)) as usize;
            if r < n {
                return r;
            }
        }
    }

    /// `shuffle(items)`.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

/// `full_deck()` shuffled by `random.Random(seed)` for an int seed of absolute value `seed`
/// (D92, D93).
pub fn python_shuffled_deck(seed: u128) -> [Kind; DECK_SIZE] {
    let mut deck = [0 as Kind; DECK_SIZE];
    for (n, k) in deck.iter_mut().enumerate() {
        *k = (n / 4) as Kind;
    }
    PyRandom::new(seed).shuffle(&mut deck);
    deck
}

/// Hands `start..start + count` of `paohuzi.tools.simulation.simulate(…, seed, rules=…)` played
/// inside the core: hand `i` dealt by seat `i % players` from `full_deck()` shuffled by
/// `random.Random(seed * 1_000_003 + i)`, every choice `random.Random(seed * 7_919 + i + 1)
/// .choice(legal_actions)`: the same hands, the same results (D92). Wins and payments summed
/// per seat, and the decisions.
pub fn simulate_hands(rules: &Arc<GameRules>, seed: i64, start: u64, count: u64) -> Result<Played, Invalid> {
    let seats = usize::from(rules.players);
    let mut played =
        Played { hands: count as usize, decisions: 0, wins: vec![0; seats], totals: vec![0; seats] };
    let mut game: Option<Game> = None;
    for index in start..start + count {
        let i = i128::from(index);
        let deck = python_shuffled_deck((i128::from(seed) * 1_000_003 + i).unsigned_abs());
        let mut choices = PyRandom::new((i128::from(seed) * 7_919 + i + 1).unsigned_abs());
        let game = next_hand(&mut game, rules, (index % seats as u64) as u8, &deck)?;
        loop {
            let legal = game.legal();
            if legal.is_empty() {
                break;
            }
            let act = legal[choices.below(legal.len())];
            game.apply_legal(act).expect("a legal action");
            played.decisions += 1;
        }
        played.settle(game);
    }
    Ok(played)
}

/// A seeded generator (xorshift64*), for the sampler and the benchmarks.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        let mut state = seed ^ 0x9e37_79b9_7f4a_7c15;
        state = (state ^ (state >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        state = (state ^ (state >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Rng((state ^ (state >> 31)) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

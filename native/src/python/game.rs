//! The PyO3 binding of the hand state machine ([`crate::engine::game`]): `paohuzi._native.Game`, which
//! `paohuzi.native_game.NativeGame` wraps with `paohuzi.engine.game.Game`'s API.
//!
//! Actions cross as the Python engine's own `Action` objects ([`Kit`] holds them, one object
//! per distinct action); positions cross as plain tuples that `paohuzi.native.core` turns into
//! `Position`, `SeatState` and the phases; a win as the evaluator's `HuResult`.

use std::cell::RefCell;
use std::collections::HashMap;
use std::mem::ManuallyDrop;
use std::ptr::NonNull;
use std::sync::{Arc, Mutex, OnceLock};

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::ffi;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyList, PyTuple, PyWeakrefMethods, PyWeakrefReference};
use rustc_hash::FxBuildHasher;

use crate::engine::cards::{Kind, NUM_KINDS};
use crate::engine::game::{self as core, Act, Chi, GameError, GameRules, Phase, Seat, Source, Window};
use crate::engine::groups::{GroupCode, GTYPES, SHAPES, THREES};
use crate::python::evaluator::{counts_of, invalid, Evaluator};

/// A map keyed by 吃: a few hundred keys the engine makes (no input chooses them), so FxHash,
/// not SipHash, which cost more than the rest of a lookup.
pub(crate) type ChiMap<V> = HashMap<Chi, V, FxBuildHasher>;

/// The Python objects of actions: `Action`, the `ActionType` members, the constant actions,
/// and each 吃 made so far.
#[pyclass(frozen, module = "paohuzi._native")]
pub struct Kit {
    action: Py<PyAny>,
    /// DISCARD, CHI, PENG, HU, PASS.
    types: Vec<Py<PyAny>>,
    pass: Py<PyAny>,
    peng: Py<PyAny>,
    hu: Py<PyAny>,
    discards: Vec<Py<PyAny>>,
    chis: Mutex<ChiMap<Py<PyAny>>>,
    /// The stable action ids (`paohuzi.engine.action_ids`): how many, and each 吃's.
    pub(crate) ids: Mutex<(usize, ChiMap<usize>)>,
    /// `refuse(game, rules, action, code)`: raises the `IllegalAction` of an action
    /// [`Game::play`] refused (`paohuzi.native.core._refused`).
    refuse: OnceLock<Py<PyAny>>,
}

#[pymethods]
impl Kit {
    #[new]
    fn new(
        action: Py<PyAny>,
        types: Vec<Py<PyAny>>,
        pass: Py<PyAny>,
        peng: Py<PyAny>,
        hu: Py<PyAny>,
        discards: Vec<Py<PyAny>>,
    ) -> PyResult<Self> {
        if types.len() != 5 || discards.len() != NUM_KINDS {
            return Err(PyValueError::new_err("five action types and twenty discards"));
        }
        Ok(Kit {
            action,
            types,
            pass,
            peng,
            hu,
            discards,
            chis: Mutex::new(ChiMap::default()),
            ids: Mutex::new((0, ChiMap::default())),
            refuse: OnceLock::new(),
        })
    }

    /// Takes the function that words a refusal (see the field); once.
    fn set_refuse(&self, refuse: Py<PyAny>) -> PyResult<()> {
        self.refuse.set(refuse).map_err(|_| PyValueError::new_err("the refusal is set already"))
    }

    /// Takes the table of action ids (`paohuzi.engine.action_ids.ACTIONS`): 20 discards, peng, hu,
    /// pass, then the 吃.
    fn set_ids(&self, actions: Vec<Bound<'_, PyAny>>) -> PyResult<()> {
        let mut chis = ChiMap::default();
        for (i, a) in actions.iter().enumerate() {
            let expected = match i {
                0..20 => Some(Act::Discard(i as Kind)),
                20 => Some(Act::Peng),
                21 => Some(Act::Hu),
                22 => Some(Act::Pass),
                _ => None,
            };
            match (self.act(a)?, expected) {
                (Some(found), Some(e)) if found == e => {}
                (Some(Act::Chi(chi)), None) => {
                    chis.insert(chi, i);
                }
                _ => return Err(PyValueError::new_err(format!("action id {i} is not where expected"))),
            }
        }
        *self.ids.lock().unwrap_or_else(|e| e.into_inner()) = (actions.len(), chis);
        Ok(())
    }
}

/// An object a [`Kit`] holds, by its address: the Kit keeps every object it made or was given
/// for as long as it lives, so a game (which holds its Kit) keeps its legal actions' objects
/// without a reference of its own to take at each position and drop at the next.
#[derive(Clone, Copy)]
struct Held(NonNull<ffi::PyObject>);

// SAFETY: an address, read only under the GIL, of an object its Kit owns (see `Held`).
unsafe impl Send for Held {}
// SAFETY: as for Send.
unsafe impl Sync for Held {}

impl Held {
    fn of(object: &Py<PyAny>) -> Held {
        Held(NonNull::new(object.as_ptr()).expect("an object"))
    }

    fn is(self, object: &Bound<'_, PyAny>) -> bool {
        self.0.as_ptr() == object.as_ptr()
    }

    /// The object, borrowed for `py`.
    ///
    /// # Safety
    /// The Kit that holds it is alive.
    unsafe fn bind<'a, 'py>(self, py: Python<'py>) -> Borrowed<'a, 'py, PyAny> {
        // SAFETY: the caller's Kit holds the object (a valid, live reference).
        unsafe { Borrowed::from_ptr(py, self.0.as_ptr()) }
    }
}

impl Kit {
    fn object(&self, py: Python<'_>, act: Act) -> PyResult<Py<PyAny>> {
        let held = self.held(py, act)?;
        // SAFETY: `self` holds the object.
        Ok(unsafe { held.bind(py) }.to_owned().unbind())
    }

    /// The object of an action, which this Kit holds (made on first use for a 吃). Inlined:
    /// a game asks it for each of its legal actions at each position.
    #[inline(always)]
    fn held(&self, py: Python<'_>, act: Act) -> PyResult<Held> {
        Ok(match act {
            Act::Discard(k) => Held::of(&self.discards[usize::from(k)]),
            Act::Peng => Held::of(&self.peng),
            Act::Hu => Held::of(&self.hu),
            Act::Pass => Held::of(&self.pass),
            Act::Chi(chi) => return self.chi(py, chi),
        })
    }

    #[inline(never)]
    fn chi(&self, py: Python<'_>, chi: Chi) -> PyResult<Held> {
        if let Some(found) = self.chis.lock().unwrap_or_else(|e| e.into_inner()).get(&chi) {
            return Ok(Held::of(found));
        }
        let groups = chi
            .shapes()
            .iter()
            .map(|&s| PyTuple::new(py, THREES[usize::from(s)]))
            .collect::<PyResult<Vec<_>>>()?;
        let made =
            self.action.call1(py, (self.types[1].clone_ref(py), py.None(), PyTuple::new(py, groups)?))?;
        let held = Held::of(&made);
        // Never removed: a Held of it stays valid while the Kit lives.
        self.chis.lock().unwrap_or_else(|e| e.into_inner()).insert(chi, made);
        Ok(held)
    }

    /// The action of a Python `Action`; None for one no game offers (a 吃 of no shape).
    fn act(&self, action: &Bound<'_, PyAny>) -> PyResult<Option<Act>> {
        let py = action.py();
        let atype = action.getattr(intern!(py, "type"))?;
        let Some(index) = self.types.iter().position(|t| atype.is(t)) else {
            return Ok(None);
        };
        Ok(match index {
            0 => {
                let card: i64 = action.getattr(intern!(py, "card"))?.extract()?;
                (0..NUM_KINDS as i64).contains(&card).then_some(Act::Discard(card as Kind))
            }
            1 => {
                let mut chi = Chi { groups: [0; 3], n: 0 };
                for group in action.getattr(intern!(py, "groups"))?.try_iter()? {
                    let cards: Vec<i64> = group?.extract()?;
                    if chi.n == 3
                        || cards.len() != 3
                        || cards.iter().any(|&k| !(0..NUM_KINDS as i64).contains(&k))
                    {
                        return Ok(None);
                    }
                    let Some(shape) =
                        core::three_shape([cards[0] as Kind, cards[1] as Kind, cards[2] as Kind])
                    else {
                        return Ok(None);
                    };
                    chi.groups[usize::from(chi.n)] = shape;
                    chi.n += 1;
                }
                (chi.n > 0).then_some(Act::Chi(chi))
            }
            2 => Some(Act::Peng),
            3 => Some(Act::Hu),
            _ => Some(Act::Pass),
        })
    }
}

/// A hand of Paohuzi played natively: [`crate::engine::game::Game`].
#[pyclass(module = "paohuzi._native")]
pub struct Game {
    /// Dropped, it goes to this thread's [`SPARES`] for the next deal (see [`Drop`]).
    pub(crate) core: ManuallyDrop<core::Game>,
    pub(crate) ev: Py<Evaluator>,
    pub(crate) kit: Py<Kit>,
    /// Actions applied through this object (or played to the end by it): what Python's caches
    /// of the position are keyed by.
    moves: u64,
    /// The `Action` objects of the legal actions (held by `kit`), in order, while
    /// `legal_at == moves`.
    legal: Vec<Held>,
    legal_at: u64,
    /// The game's `RuleSet`, for the words of a refusal ([`Game::play`]).
    rules: Option<Py<PyAny>>,
    /// The Python games whose `is_over` attribute this game keeps ([`Game::keep_over`]), held
    /// weakly (a Python game dropped mid-hand is not kept alive by its core) until the hand ends.
    keeping: Vec<Py<PyWeakrefReference>>,
}

pub(crate) fn rules_of(
    ev: &Bound<'_, Evaluator>,
    players: u8,
    hu_on_discard: bool,
    take_needs_discard: bool,
    break_kan_when_stuck: bool,
) -> PyResult<Arc<GameRules>> {
    if players != 3 && players != 4 {
        return Err(PyValueError::new_err("a table has 3 or 4 seats"));
    }
    Ok(Arc::new(GameRules {
        ev: ev.get().core.clone(),
        players,
        hu_on_discard,
        take_needs_discard,
        break_kan_when_stuck,
    }))
}

thread_local! {
    /// Games dropped on this thread, whose buffers the next deals take (a hand is a game made
    /// and dropped: a random-play loop makes one per hand, D105).
    static SPARES: RefCell<Vec<core::Game>> = const { RefCell::new(Vec::new()) };
}

/// How many dropped games a thread keeps.
const SPARES_KEPT: usize = 4;

fn spare() -> Option<core::Game> {
    SPARES.with(|spares| spares.borrow_mut().pop())
}

impl Drop for Game {
    fn drop(&mut self) {
        // SAFETY: `self.core` is taken once, here, and never read again: the object is going.
        let core = unsafe { ManuallyDrop::take(&mut self.core) };
        // Kept for the next deal while the pool has room; on a thread that is ending (no pool
        // any more) it is dropped as usual.
        let _ = SPARES.try_with(move |spares| {
            if let Ok(mut spares) = spares.try_borrow_mut() {
                if spares.len() < SPARES_KEPT {
                    spares.push(core);
                }
            }
        });
    }
}

/// [`rules_of`] for a deal, which also needs a seat to deal.
fn dealing_rules(
    ev: &Bound<'_, Evaluator>,
    players: u8,
    hu_on_discard: bool,
    take_needs_discard: bool,
    break_kan_when_stuck: bool,
    dealer: u8,
) -> PyResult<Arc<GameRules>> {
    let rules = rules_of(ev, players, hu_on_discard, take_needs_discard, break_kan_when_stuck)?;
    if dealer >= players {
        return Err(PyValueError::new_err(format!("no seat {dealer} to deal")));
    }
    Ok(rules)
}

fn source_of(n: u8) -> PyResult<Source> {
    match n {
        0 => Ok(Source::Liang),
        1 => Ok(Source::Drawn),
        2 => Ok(Source::Discarded),
        _ => Err(PyValueError::new_err("a source is 0 (liang), 1 (drawn) or 2 (discarded)")),
    }
}

fn kind_of(k: i64) -> PyResult<Kind> {
    if (0..NUM_KINDS as i64).contains(&k) {
        Ok(k as Kind)
    } else {
        Err(PyValueError::new_err(format!("{k} is not a kind (0-19)")))
    }
}

fn mask(kinds: &[i64]) -> PyResult<u32> {
    kinds.iter().try_fold(0u32, |m, &k| Ok(m | 1 << kind_of(k)?))
}

fn kinds_of(mask: u32) -> Vec<Kind> {
    (0..NUM_KINDS as Kind).filter(|&k| mask & (1 << k) != 0).collect()
}

/// Room for a hand's log and history from the start (a random hand of Hunan keeps ~28
/// decisions and ~60 events): no regrowing them as the hand is played from Python.
fn reserve_log(core: &mut core::Game) {
    if core.keep_log {
        core.history.reserve(48);
        core.log.reserve(96);
    }
}

fn error(e: GameError) -> PyResult<u8> {
    match e {
        GameError::Illegal => Ok(1),
        GameError::NoWin(_) => Ok(2),
        GameError::Position(message) => Err(PyValueError::new_err(message)),
    }
}

/// A phase given as the tuple [`Game::at`] takes.
fn phase_of(kitref: &Kit, phase: &Bound<'_, PyTuple>) -> PyResult<Phase> {
    let acts = |items: &Bound<'_, PyAny>| -> PyResult<Vec<Act>> {
        let mut found = Vec::new();
        for item in items.try_iter()? {
            found.push(kitref.act(&item?)?.ok_or_else(|| PyValueError::new_err("an action no game offers"))?);
        }
        Ok(found)
    };
    let tag: String = phase.get_item(0)?.extract()?;
    Ok(match tag.as_str() {
        "claim" => {
            let mut claims = Vec::new();
            for item in phase.get_item(6)?.try_iter()? {
                let (seat, action): (u8, Bound<'_, PyAny>) = item?.extract()?;
                claims.push((
                    seat,
                    kitref.act(&action)?.ok_or_else(|| PyValueError::new_err("an action no game offers"))?,
                ));
            }
            let asking: Vec<u8> = phase.get_item(4)?.extract()?;
            if asking.is_empty() {
                return Err(PyValueError::new_err("a claim window asks somebody"));
            }
            Phase::Claim(Window {
                card: kind_of(phase.get_item(1)?.extract()?)?,
                owner: phase.get_item(2)?.extract()?,
                source: source_of(phase.get_item(3)?.extract()?)?,
                asking,
                offered: acts(&phase.get_item(5)?)?,
                claims,
            })
        }
        "discard" => Phase::Discarding(phase.get_item(1)?.extract()?),
        "self_hu" => Phase::SelfHu(phase.get_item(1)?.extract()?, kind_of(phase.get_item(2)?.extract()?)?),
        _ => Phase::Over(None),
    })
}

/// A hand given as 20 counts.
fn hand_of(counts: &[i64]) -> PyResult<crate::engine::cards::Counts> {
    if counts.len() != NUM_KINDS {
        return Err(PyValueError::new_err("a count array holds 20 counts"));
    }
    let mut found = [0; NUM_KINDS];
    for (k, &n) in counts.iter().enumerate() {
        if !(0..=4).contains(&n) {
            return Err(PyValueError::new_err(format!("{n} copies of kind {k}")));
        }
        found[k] = n as u8;
    }
    Ok(found)
}

/// The deals of one rule set (`paohuzi.native.core` makes one per `RuleSet`): its game rules,
/// evaluator, Kit and `RuleSet` (for the words of a refusal, [`Game::play`]) taken once, so a
/// deal converts only its own arguments (a game is made per hand, D112).
#[pyclass(frozen, module = "paohuzi._native")]
pub struct Dealer {
    rules: Arc<GameRules>,
    ev: Py<Evaluator>,
    kit: Py<Kit>,
    rule_set: Py<PyAny>,
}

#[pymethods]
impl Dealer {
    #[new]
    #[allow(clippy::too_many_arguments)]
    fn new(
        ev: &Bound<'_, Evaluator>,
        kit: Py<Kit>,
        players: u8,
        hu_on_discard: bool,
        take_needs_discard: bool,
        break_kan_when_stuck: bool,
        rule_set: Py<PyAny>,
    ) -> PyResult<Self> {
        let rules = rules_of(ev, players, hu_on_discard, take_needs_discard, break_kan_when_stuck)?;
        Ok(Dealer { rules, ev: ev.clone().unbind(), kit, rule_set })
    }

    /// A hand dealt from `deck` (R2), keeping `keep.is_over` ([`Game::keep_over`]) unless
    /// `keep` is None.
    #[pyo3(signature = (dealer, deck, keep_log = true, pauses = false, keep = None))]
    fn deal(
        &self,
        py: Python<'_>,
        dealer: u8,
        deck: Vec<i64>,
        keep_log: bool,
        pauses: bool,
        keep: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Game> {
        let deck = core::check_deck(&deck).map_err(PyValueError::new_err)?;
        self.dealt(py, dealer, &deck, keep_log, pauses, keep)
    }

    /// A hand dealt inside the core from the deck Python's `random.Random(seed).shuffle` makes of
    /// `full_deck()` (D92's `PyRandom`): `seed` is the int seed's absolute value, as CPython
    /// seeds from it. The very deal of `paohuzi.engine.game.Game(seed=…)` (D93). `keep` as
    /// for [`Dealer::deal`].
    #[pyo3(signature = (dealer, seed, keep_log = true, pauses = false, keep = None))]
    fn deal_python_seeded(
        &self,
        py: Python<'_>,
        dealer: u8,
        seed: u128,
        keep_log: bool,
        pauses: bool,
        keep: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Game> {
        self.dealt(py, dealer, &core::python_shuffled_deck(seed), keep_log, pauses, keep)
    }
}

impl Dealer {
    fn dealt(
        &self,
        py: Python<'_>,
        dealer: u8,
        deck: &[Kind],
        keep_log: bool,
        pauses: bool,
        keep: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Game> {
        if dealer >= self.rules.players {
            return Err(PyValueError::new_err(format!("no seat {dealer} to deal")));
        }
        let mut core = core::Game::dealt_in(spare(), self.rules.clone(), dealer, deck, keep_log, pauses)
            .map_err(invalid)?;
        reserve_log(&mut core);
        let mut game = Game::wrap(core, self.ev.clone_ref(py), self.kit.clone_ref(py));
        game.rules = Some(self.rule_set.clone_ref(py));
        if let Some(keep) = keep {
            game.keep_over(keep)?;
        }
        Ok(game)
    }
}

type SeatTuple<'py> = (Vec<i64>, Vec<(usize, Vec<i64>)>, Vec<i64>, Vec<i64>, Vec<i64>, Vec<(i64, i64)>);

impl Game {
    pub(crate) fn wrap(core: core::Game, ev: Py<Evaluator>, kit: Py<Kit>) -> Game {
        Game {
            core: ManuallyDrop::new(core),
            ev,
            kit,
            moves: 0,
            legal: Vec::new(),
            legal_at: u64::MAX,
            rules: None,
            keeping: Vec::new(),
        }
    }

    /// The position changed (an action applied, a card's stop left, the hand played out): the
    /// caches of Python are keyed by the count of moves, and the games kept are told when the
    /// hand has ended.
    #[inline]
    fn moved(&mut self, py: Python<'_>) -> PyResult<()> {
        self.moves += 1;
        if !self.keeping.is_empty() && self.core.is_over() {
            return self.tell_over(py);
        }
        Ok(())
    }

    #[cold]
    fn tell_over(&mut self, py: Python<'_>) -> PyResult<()> {
        // Bound, not Py, references: this runs from `play_one` too, which drops no `Py`.
        for kept in std::mem::take(&mut self.keeping) {
            if let Some(game) = kept.into_bound(py).upgrade() {
                game.setattr(intern!(py, "is_over"), true)?;
            }
        }
        Ok(())
    }

    /// The legal actions' objects, found once per position.
    fn legal_objects(&mut self, py: Python<'_>) -> PyResult<&[Held]> {
        if self.legal_at != self.moves {
            let kit = self.kit.get();
            self.legal.clear();
            for &a in self.core.legal() {
                self.legal.push(kit.held(py, a)?);
            }
            self.legal_at = self.moves;
        }
        Ok(&self.legal)
    }

    fn group_code(gtype: usize, cards: &[i64]) -> PyResult<GroupCode> {
        let gtype = *GTYPES.get(gtype).ok_or_else(|| PyValueError::new_err("a group type index 0-9"))?;
        let kinds = cards.iter().map(|&k| kind_of(k)).collect::<PyResult<Vec<Kind>>>()?;
        let shape = if cards.len() == 3 && !gtype.is_same_kind() {
            core::three_shape([kinds[0], kinds[1], kinds[2]])
                .ok_or_else(|| PyValueError::new_err("a table group that is no sequence or 绞"))?
        } else {
            *kinds.first().ok_or_else(|| PyValueError::new_err("a table group of no cards"))?
        };
        Ok(GroupCode::new(gtype, shape))
    }

    fn actions(&self, py: Python<'_>, acts: &[Act]) -> PyResult<Vec<Py<PyAny>>> {
        let kit = self.kit.get();
        acts.iter().map(|&a| kit.object(py, a)).collect()
    }

    fn group_object(&self, py: Python<'_>, code: GroupCode) -> Py<PyAny> {
        self.ev.get().groups[usize::from(code.code())].as_ref().expect("a Group for every code").clone_ref(py)
    }

    fn groups(&self, py: Python<'_>, codes: &[GroupCode]) -> Vec<Py<PyAny>> {
        codes.iter().map(|&c| self.group_object(py, c)).collect()
    }
}

#[pymethods]
impl Game {
    /// A game at a position whose shape Python has checked: `seats` as
    /// `(hand counts, [(group type index, cards)], row, discarded, chou, [(kind, hu-xi)])`, the
    /// phase as `("claim", card, owner, source, asking, offered, claims)`, `("discard", seat)`,
    /// `("self_hu", seat, card)` or `("over",)`.
    #[staticmethod]
    #[allow(clippy::too_many_arguments)]
    fn at(
        ev: &Bound<'_, Evaluator>,
        kit: Py<Kit>,
        players: u8,
        hu_on_discard: bool,
        take_needs_discard: bool,
        break_kan_when_stuck: bool,
        dealer: u8,
        liang: i64,
        wall: Vec<i64>,
        seats: Vec<Bound<'_, PyAny>>,
        phase: &Bound<'_, PyTuple>,
        check: bool,
    ) -> PyResult<Game> {
        let rules = rules_of(ev, players, hu_on_discard, take_needs_discard, break_kan_when_stuck)?;
        let mut states = Vec::new();
        for seat in seats {
            let (hand, table, row, discarded, chou, chou_hu): SeatTuple<'_> = seat.extract()?;
            let hand = hand_of(&hand)?;
            let table =
                table.iter().map(|(t, cards)| Game::group_code(*t, cards)).collect::<PyResult<Vec<_>>>()?;
            states.push(Seat {
                hand,
                table,
                row: row.iter().map(|&k| kind_of(k)).collect::<PyResult<Vec<_>>>()?,
                discarded: mask(&discarded)?,
                chou: mask(&chou)?,
                chou_hu: chou_hu.iter().map(|&(k, h)| Ok((kind_of(k)?, h))).collect::<PyResult<Vec<_>>>()?,
            });
        }
        let phase = phase_of(kit.get(), phase)?;
        let core = core::Game::from_position(
            rules,
            dealer,
            kind_of(liang)?,
            wall.iter().map(|&k| kind_of(k)).collect::<PyResult<_>>()?,
            states,
            phase,
            check,
        )
        .map_err(|e| match e {
            GameError::Position(m) => PyValueError::new_err(m),
            other => PyValueError::new_err(format!("{other:?}")),
        })?;
        Ok(Game::wrap(core, ev.clone().unbind(), kit))
    }

    fn clone(&self, py: Python<'_>) -> Game {
        // The same count of moves: Python's caches of a copy's position stay keyed rightly.
        let mut copy = Game::wrap((*self.core).clone(), self.ev.clone_ref(py), self.kit.clone_ref(py));
        copy.moves = self.moves;
        copy.rules = self.rules.as_ref().map(|r| r.clone_ref(py));
        copy
    }

    fn to_act(&self) -> Option<u8> {
        self.core.to_act()
    }

    /// Whether the hand is over (an attribute: `paohuzi.native.core.NativeCore.is_over` reads
    /// it without a Python frame).
    #[getter]
    fn is_over(&self) -> bool {
        self.core.is_over()
    }

    fn wall_left(&self) -> usize {
        self.core.wall_left()
    }

    fn liang(&self) -> Kind {
        self.core.liang
    }

    fn deck(&self) -> Option<Vec<Kind>> {
        self.core.deck.clone()
    }

    /// The choices of the seat to act, sorted by their F3 text: a new list of the `Action`
    /// objects (made once per position).
    fn legal<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let objects = self.legal_objects(py)?;
        // SAFETY: the game's Kit holds them.
        PyList::new(py, objects.iter().map(|o| unsafe { o.bind(py) }))
    }

    /// Carries out an action (`Game.apply`), or raises the `IllegalAction` the Kit's `refuse`
    /// words, given the rules of [`Game::set_rules`].
    fn play(slf: &Bound<'_, Self>, action: &Bound<'_, PyAny>) -> PyResult<()> {
        let code = slf.borrow_mut().apply(action)?;
        if code == 0 {
            return Ok(());
        }
        // Bound, not Py, references: this runs from `play_one` too, which drops no `Py`.
        let py = slf.py();
        let (kit, rules) = {
            let game = slf.borrow();
            (game.kit.bind(py).clone(), game.rules.as_ref().map(|r| r.bind(py).clone()))
        };
        let (Some(refuse), Some(rules)) = (kit.get().refuse.get(), rules) else {
            return Err(PyRuntimeError::new_err("an action refused, with no rules to say why"));
        };
        refuse.bind(py).call1((slf, rules, action, code))?;
        Err(PyRuntimeError::new_err("an action refused, and refuse did not raise"))
    }

    /// [`Game::play`] for this game as a function of one argument of C ([`play_one`]): what
    /// `NativeCore.apply` is, called at every decision (D112).
    fn applier<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        // SAFETY: PLAY is a static definition; the function made holds a reference to `slf`,
        // which is a Game as `play_one` takes it.
        unsafe {
            let made = ffi::PyCFunction_NewEx(
                std::ptr::addr_of!(PLAY.0).cast_mut(),
                slf.as_ptr(),
                std::ptr::null_mut(),
            );
            Bound::from_owned_ptr_or_err(slf.py(), made)
        }
    }

    /// The game's `RuleSet` (for [`Game::play`]'s refusals).
    fn set_rules(&mut self, rules: Py<PyAny>) {
        self.rules = Some(rules);
    }

    /// The dealer.
    fn dealer(&self) -> u8 {
        self.core.dealer
    }

    /// Carries out an action: 0 done, 1 illegal, 2 a 胡 with no winning hand. An action that is
    /// one of the objects [`Game::legal`] gave for this position is known without reading it.
    fn apply(&mut self, action: &Bound<'_, PyAny>) -> PyResult<u8> {
        let known = if self.legal_at == self.moves {
            self.legal.iter().position(|o| o.is(action)).map(|i| self.core.legal()[i])
        } else {
            None
        };
        let applied = match known {
            Some(act) => self.core.apply_legal(act),
            None => match self.kit.get().act(action)? {
                Some(act) => self.core.apply(act),
                None => return Ok(1),
            },
        };
        match applied {
            Ok(()) => {
                self.moved(action.py())?;
                Ok(0)
            }
            Err(e) => error(e),
        }
    }

    /// Keeps `game.is_over` current, an attribute of the Python game this one plays (read with
    /// no call: a random-play loop asks it at every decision, D112): set now, and set again
    /// when the hand ends.
    fn keep_over(&mut self, game: &Bound<'_, PyAny>) -> PyResult<()> {
        let over = self.core.is_over();
        game.setattr(intern!(game.py(), "is_over"), over)?;
        if !over {
            self.keeping.push(PyWeakrefReference::new(game)?.unbind());
        }
        Ok(())
    }

    /// Whether the game is stopped at a card on offer, nobody asked yet (D101).
    #[getter]
    fn paused(&self) -> bool {
        self.core.paused()
    }

    /// Go on from a card on offer (D101); False (nothing changed) when not stopped at one.
    fn resume(&mut self, py: Python<'_>) -> PyResult<bool> {
        if self.core.resume().is_err() {
            return Ok(false);
        }
        self.moved(py)?;
        Ok(true)
    }

    /// How many actions this object applied (or whether it played to the end): it changes
    /// whenever the position does.
    fn moves(&self) -> u64 {
        self.moves
    }

    /// The seat's current total hu-xi (R10.6).
    fn huxi(&mut self, seat: u8) -> PyResult<i64> {
        if usize::from(seat) >= self.core.seats.len() {
            return Err(PyValueError::new_err("no such seat"));
        }
        Ok(self.core.huxi(seat))
    }

    /// The wall still to draw.
    fn wall(&self) -> Vec<Kind> {
        self.core.wall_cards().to_vec()
    }

    /// Every seat as `(hand counts, table group codes, row, discarded, chou, chou_hu)`.
    #[allow(clippy::type_complexity)]
    fn seats(&self) -> Vec<(Vec<u8>, Vec<u16>, Vec<Kind>, Vec<Kind>, Vec<Kind>, Vec<(Kind, i64)>)> {
        self.core
            .seats
            .iter()
            .map(|s| {
                (
                    s.hand.to_vec(),
                    s.table.iter().map(|g| g.code()).collect(),
                    s.row.clone(),
                    kinds_of(s.discarded),
                    kinds_of(s.chou),
                    s.chou_hu.clone(),
                )
            })
            .collect()
    }

    /// The phase as the tuple [`Game::at`] takes.
    fn phase<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        match &self.core.phase {
            Phase::Claim(w) => {
                let offered = self.actions(py, &w.offered)?;
                let claims = w
                    .claims
                    .iter()
                    .map(|&(s, a)| Ok((s, self.kit.get().object(py, a)?)))
                    .collect::<PyResult<Vec<_>>>()?;
                ("claim", w.card, w.owner, w.source as u8, w.asking.clone(), offered, claims)
                    .into_pyobject(py)
            }
            Phase::Discarding(s) => ("discard", *s).into_pyobject(py),
            Phase::SelfHu(s, c) => ("self_hu", *s, *c).into_pyobject(py),
            Phase::Over(_) => ("over",).into_pyobject(py),
        }
    }

    /// How the hand ended: `(winner, win, HuResult, payments, [(seat, hu-xi)])`, None while it
    /// goes on (or for a game set up over, whose result Python keeps).
    #[allow(clippy::type_complexity)]
    fn outcome(
        &self,
        py: Python<'_>,
    ) -> PyResult<Option<(Option<u8>, Option<Kind>, Py<PyAny>, Vec<i64>, Vec<(u8, i64)>)>> {
        let Some(o) = self.core.outcome() else { return Ok(None) };
        let (win, hu) = match &o.hu {
            None => (None, py.None()),
            Some(w) => {
                let table = self.groups(py, &w.table);
                (w.win, self.ev.get().hu_result(py, w.win, w.context_win, &w.arrangement, &table, w.how)?)
            }
        };
        Ok(Some((o.winner, win, hu, o.payments.clone(), o.other_huxi.clone())))
    }

    /// The payments (R10.5), None while the hand goes on.
    fn payments(&self) -> Option<Vec<i64>> {
        self.core.outcome().map(|o| o.payments.clone())
    }

    /// Every decision so far, as `(seat, Action)`.
    fn history(&self, py: Python<'_>) -> PyResult<Vec<(u8, Py<PyAny>)>> {
        let kit = self.kit.get();
        self.core.history.iter().map(|&(s, a)| Ok((s, kit.object(py, a)?))).collect()
    }

    /// The log from entry `start`, as `(event type index, seat, card, group codes)`.
    fn log(&self, start: usize) -> Vec<(u8, u8, Option<Kind>, Vec<u16>)> {
        self.core
            .log
            .iter()
            .skip(start)
            .map(|e| (e.etype as u8, e.seat, e.card, e.groups.iter().map(|g| g.code()).collect()))
            .collect()
    }

    fn log_len(&self) -> usize {
        self.core.log.len()
    }

    /// One seat's observation array (`paohuzi.env.encoding.encode`), as the bytes of its
    /// float32 values row by row, in a bytearray (NumPy reads it without a copy).
    fn encode<'py>(&mut self, py: Python<'py>, seat: u8) -> PyResult<Bound<'py, PyByteArray>> {
        if !self.core.playing.contains(&seat) {
            return Err(PyValueError::new_err("a seat that plays the hand"));
        }
        let values = self.core.encode(seat);
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
        Ok(PyByteArray::new(py, &bytes))
    }

    /// The action mask of a seat (`paohuzi.env.encoding.action_mask`): one byte per action id,
    /// 1 for each legal action of the seat (none unless it is to act).
    fn mask<'py>(&mut self, py: Python<'py>, seat: u8) -> PyResult<Bound<'py, PyByteArray>> {
        let kit = self.kit.get();
        let ids = kit.ids.lock().unwrap_or_else(|e| e.into_inner());
        if ids.0 == 0 {
            return Err(PyValueError::new_err("the action ids are not set (Kit.set_ids)"));
        }
        let mut mask = vec![0u8; ids.0];
        if self.core.to_act() == Some(seat) {
            for a in self.core.legal_actions() {
                let id = match a {
                    Act::Discard(k) => usize::from(k),
                    Act::Peng => 20,
                    Act::Hu => 21,
                    Act::Pass => 22,
                    Act::Chi(chi) => {
                        *ids.1.get(&chi).ok_or_else(|| PyValueError::new_err("a 吃 with no action id"))?
                    }
                };
                mask[id] = 1;
            }
        }
        Ok(PyByteArray::new(py, &mask))
    }

    /// The greedy bot's choice for the seat to act (`GreedyBot(waits=waits)`), None once over.
    fn greedy(&mut self, py: Python<'_>, waits: bool) -> PyResult<Option<Py<PyAny>>> {
        self.core.greedy(waits).map(|a| self.kit.get().object(py, a)).transpose()
    }

    /// Plays the hand to its end with the greedy bot at every seat; the payments.
    fn play_greedy(&mut self, py: Python<'_>, waits: bool) -> PyResult<Vec<i64>> {
        let payments = self.core.play_greedy(waits);
        self.moved(py)?;
        Ok(payments)
    }

    /// `rollout_payments(game, candidates, seat)`: ValueError for a candidate that is not legal.
    /// `waits`: every seat plays `GreedyBot(count_waits=True)` instead of the rollout policy;
    /// `seat_waits`: `seat` does, the others play the rollout policy.
    #[pyo3(signature = (candidates, seat, waits = false, seat_waits = false))]
    fn rollout(
        &self,
        candidates: Vec<Bound<'_, PyAny>>,
        seat: u8,
        waits: bool,
        seat_waits: bool,
    ) -> PyResult<Vec<i64>> {
        let (acts, mask) =
            rollout_request(self.kit.get(), &candidates, seat, self.core.seats.len(), waits, seat_waits)?;
        payments(self.core.rollout(&acts, seat, mask))
    }

    /// Random hands played natively, for the benchmark: `hands` deals (dealer `i % players`)
    /// from decks shuffled by a seeded generator, uniformly random choices to the end, no log.
    /// Seconds taken, and the hands won.
    #[staticmethod]
    #[allow(clippy::too_many_arguments)]
    fn bench_random(
        ev: &Bound<'_, Evaluator>,
        players: u8,
        hu_on_discard: bool,
        take_needs_discard: bool,
        break_kan_when_stuck: bool,
        hands: usize,
        seed: u64,
    ) -> PyResult<(f64, usize)> {
        let rules = rules_of(ev, players, hu_on_discard, take_needs_discard, break_kan_when_stuck)?;
        let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        let mut deck: Vec<Kind> = (0..80).map(|i| (i / 4) as Kind).collect();
        let mut wins = 0;
        let start = std::time::Instant::now();
        for i in 0..hands {
            for j in (1..deck.len()).rev() {
                deck.swap(j, rng.below(j + 1));
            }
            let mut game = core::Game::new(rules.clone(), (i % usize::from(players)) as u8, &deck, false)
                .map_err(invalid)?;
            while !game.is_over() {
                let legal = game.legal_actions();
                game.apply(legal[rng.below(legal.len())]).expect("a legal action");
            }
            wins += usize::from(game.outcome().is_some_and(|o| o.winner.is_some()));
        }
        Ok((start.elapsed().as_secs_f64(), wins))
    }

    /// A hand dealt inside the core from `seed` (D90): the deck is
    /// `seeded_deck(seed)`, the core's own stream, not Python's `random.shuffle`.
    #[staticmethod]
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (ev, kit, players, hu_on_discard, take_needs_discard, break_kan_when_stuck, dealer, seed, keep_log = true))]
    fn deal_seeded(
        ev: &Bound<'_, Evaluator>,
        kit: Py<Kit>,
        players: u8,
        hu_on_discard: bool,
        take_needs_discard: bool,
        break_kan_when_stuck: bool,
        dealer: u8,
        seed: u64,
        keep_log: bool,
    ) -> PyResult<Game> {
        let rules =
            dealing_rules(ev, players, hu_on_discard, take_needs_discard, break_kan_when_stuck, dealer)?;
        let core = core::Game::deal_seeded(rules, dealer, seed, keep_log).map_err(invalid)?;
        Ok(Game::wrap(core, ev.clone().unbind(), kit))
    }

    /// The deck `deal_seeded(…, seed)` deals (D90), as kinds.
    #[staticmethod]
    fn seeded_deck(seed: u64) -> Vec<i64> {
        core::seeded_deck(seed).iter().map(|&k| i64::from(k)).collect()
    }

    /// Plays `hands` hands inside the core (`game::play_hands`), no log: hand `i` dealt by seat
    /// `i % players` from `seeded_deck` of its hand seed, every seat choosing by `policy`
    /// (`"random"`, `"greedy"` or `"greedy_waits"`). Seconds taken, actions applied, wins per
    /// seat, payments summed per seat.
    #[staticmethod]
    #[allow(clippy::too_many_arguments)]
    fn play_hands(
        py: Python<'_>,
        ev: &Bound<'_, Evaluator>,
        players: u8,
        hu_on_discard: bool,
        take_needs_discard: bool,
        break_kan_when_stuck: bool,
        hands: usize,
        seed: u64,
        policy: &str,
    ) -> PyResult<(f64, u64, Vec<usize>, Vec<i64>)> {
        let rules = rules_of(ev, players, hu_on_discard, take_needs_discard, break_kan_when_stuck)?;
        let policy = match policy {
            "random" => core::Policy::Random,
            "greedy" => core::Policy::Greedy { waits: false },
            "greedy_waits" => core::Policy::Greedy { waits: true },
            other => return Err(PyValueError::new_err(format!("no policy {other:?}"))),
        };
        let start = std::time::Instant::now();
        let played = py.detach(|| core::play_hands(&rules, hands, seed, policy)).map_err(invalid)?;
        Ok((start.elapsed().as_secs_f64(), played.decisions, played.wins, played.totals))
    }

    /// Hands `start..start + count` of `paohuzi.tools.simulation.simulate(…, seed, …)` played
    /// inside the core with Python's own generator (`game::simulate_hands`, D92): the same
    /// hands and results as from Python. Actions applied, wins per seat, payments summed per
    /// seat.
    #[staticmethod]
    #[allow(clippy::too_many_arguments)]
    fn simulate_hands(
        py: Python<'_>,
        ev: &Bound<'_, Evaluator>,
        players: u8,
        hu_on_discard: bool,
        take_needs_discard: bool,
        break_kan_when_stuck: bool,
        seed: i64,
        start: u64,
        count: u64,
    ) -> PyResult<(u64, Vec<usize>, Vec<i64>)> {
        let rules = rules_of(ev, players, hu_on_discard, take_needs_discard, break_kan_when_stuck)?;
        let played = py.detach(|| core::simulate_hands(&rules, seed, start, count)).map_err(invalid)?;
        Ok((played.decisions, played.wins, played.totals))
    }
}

/// A `PyMethodDef` (which holds pointers) as a static.
struct MethodDef(ffi::PyMethodDef);

// SAFETY: never written; it points to static strings and a function.
unsafe impl Sync for MethodDef {}

/// [`play_one`] as CPython calls it: with one argument (`METH_O`).
static PLAY: MethodDef = MethodDef(ffi::PyMethodDef {
    ml_name: c"play".as_ptr(),
    ml_meth: ffi::PyMethodDefPointer { PyCFunction: play_one },
    ml_flags: ffi::METH_O,
    ml_doc: c"Game.play of one game (Game.applier).".as_ptr(),
});

/// [`Game::play`] of the game `slf` ([`Game::applier`]), called by CPython with its one argument:
/// no parsing of arguments, none of the rest of PyO3's wrapping of a method (which cost about a
/// tenth of a decision played from Python, D112). PyO3 is not told that the thread is attached:
/// a `Py` dropped in this call would be released at the next call into the extension, so the
/// paths it takes drop `Bound`s (released at once).
unsafe extern "C" fn play_one(slf: *mut ffi::PyObject, action: *mut ffi::PyObject) -> *mut ffi::PyObject {
    // SAFETY: CPython calls a function of C attached to the interpreter.
    let py = unsafe { Python::assume_attached() };
    let played = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: CPython passes the function's `self` and its argument, both live for the call.
        let (slf, action) = unsafe { (Borrowed::from_ptr(py, slf), Borrowed::from_ptr(py, action)) };
        Game::play(&*slf.cast::<Game>()?, &action)
    }));
    let error = match played {
        Ok(Ok(())) => return py.None().into_ptr(),
        Ok(Err(e)) => e,
        Err(_) => pyo3::panic::PanicException::new_err("the native core panicked playing an action"),
    };
    error.restore(py);
    std::ptr::null_mut()
}

/// A small seeded generator (xorshift64*) for the benchmark's deals and choices.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        ((self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) as usize) % n
    }
}

/// The greedy bot's choice from one seat's observation (`GreedyBot.act`): its hand (counts),
/// its own table groups (as group codes), the copies it has not seen per kind, its legal actions, the card on
/// offer, the kinds its 下家 discarded; `waits` as `GreedyBot(waits=…)`.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn greedy_choice(
    py: Python<'_>,
    ev: &Bound<'_, Evaluator>,
    kit: &Bound<'_, Kit>,
    hand: &Bound<'_, PyAny>,
    table: Vec<u16>,
    unseen: [i64; NUM_KINDS],
    legal: Vec<Bound<'_, PyAny>>,
    offer: Option<i64>,
    next_discarded: Vec<i64>,
    waits: bool,
) -> PyResult<Py<PyAny>> {
    let kit = kit.get();
    let mut acts = Vec::with_capacity(legal.len());
    for a in &legal {
        acts.push(kit.act(a)?.ok_or_else(|| PyValueError::new_err("an action no game offers"))?);
    }
    if acts.is_empty() {
        return Err(PyValueError::new_err("no legal action to choose from"));
    }
    let mut codes = Vec::with_capacity(table.len());
    for code in table {
        let gtype =
            *GTYPES.get(usize::from(code) / SHAPES).ok_or_else(|| PyValueError::new_err("a group code"))?;
        codes.push(GroupCode::new(gtype, (usize::from(code) % SHAPES) as u8));
    }
    let view = crate::policy::greedy::View {
        hand: counts_of(hand)?,
        table: codes,
        unseen,
        legal: &acts,
        offer: offer.map(kind_of).transpose()?,
        next_discarded: mask(&next_discarded)?,
    };
    kit.object(py, crate::policy::greedy::choose(&ev.get().core, &view, waits))
}

/// The sampler of one observation (`paohuzi.bots.sampler.sample` served natively): made once
/// from the observation and the constraints Python works out, then any number of samples.
#[pyclass(frozen, module = "paohuzi._native")]
pub struct Sampler {
    core: crate::policy::sampler::Sampler,
    ev: Py<Evaluator>,
    kit: Py<Kit>,
}

#[pymethods]
impl Sampler {
    /// `seats`: every seat as the observer sees it, as [`Game::at`] takes them, a face-down
    /// 偎 as `(type index, [])`; `not_wei` per seat; `hidden`: `(seat, size, caps)` of each
    /// other playing seat in play order; `phase` as [`Game::at`] takes it.
    #[new]
    #[allow(clippy::too_many_arguments)]
    fn new(
        ev: &Bound<'_, Evaluator>,
        kit: Py<Kit>,
        players: u8,
        hu_on_discard: bool,
        take_needs_discard: bool,
        break_kan_when_stuck: bool,
        dealer: u8,
        liang: i64,
        wall: usize,
        seats: Vec<Bound<'_, PyAny>>,
        not_wei: Vec<Vec<i64>>,
        unseen: [i64; NUM_KINDS],
        hidden: Vec<(u8, usize, [i64; NUM_KINDS])>,
        kept: bool,
        phase: &Bound<'_, PyTuple>,
    ) -> PyResult<Self> {
        let rules = rules_of(ev, players, hu_on_discard, take_needs_discard, break_kan_when_stuck)?;
        let mut states = Vec::new();
        let mut weis = Vec::new();
        for (s, seat) in seats.into_iter().enumerate() {
            let (hand, table, row, discarded, chou, chou_hu): SeatTuple<'_> = seat.extract()?;
            let hand = hand_of(&hand)?;
            let mut codes = Vec::new();
            for (i, (t, cards)) in table.iter().enumerate() {
                if cards.is_empty() {
                    weis.push((s as u8, i));
                    codes.push(GroupCode::new(crate::engine::groups::GType::Wei, 0));
                } else {
                    codes.push(Game::group_code(*t, cards)?);
                }
            }
            states.push(Seat {
                hand,
                table: codes,
                row: row.iter().map(|&k| kind_of(k)).collect::<PyResult<Vec<_>>>()?,
                discarded: mask(&discarded)?,
                chou: mask(&chou)?,
                chou_hu: chou_hu.iter().map(|&(k, h)| Ok((kind_of(k)?, h))).collect::<PyResult<Vec<_>>>()?,
            });
        }
        let hidden = hidden
            .into_iter()
            .map(|(seat, size, caps)| crate::policy::sampler::Hidden {
                seat,
                size,
                caps: caps.map(|c| c.clamp(0, 4) as u8),
            })
            .collect();
        let phase = phase_of(kit.get(), phase)?;
        Ok(Sampler {
            core: crate::policy::sampler::Sampler {
                rules,
                dealer,
                liang: kind_of(liang)?,
                wall,
                seats: states,
                weis,
                not_wei: not_wei.iter().map(|m| mask(m)).collect::<PyResult<Vec<_>>>()?,
                unseen,
                hidden,
                kept,
                phase,
            },
            ev: ev.clone().unbind(),
            kit,
        })
    }

    /// A game consistent with the observation, from a seed, after `tries` deals by rejection
    /// the exact way: `(0, Game)`, or `(1, message)` when no completion satisfies the
    /// constraints, `(2, message)` for a position refused.
    fn sample(&self, py: Python<'_>, seed: u64, tries: usize) -> PyResult<(u8, Py<PyAny>)> {
        let mut rng = core::Rng::new(seed);
        match self.core.sample(&mut rng, tries) {
            Ok(game) => {
                let game = Game::wrap(game, self.ev.clone_ref(py), self.kit.clone_ref(py));
                Ok((0, Py::new(py, game)?.into_any()))
            }
            Err(error) => sample_failure(py, error),
        }
    }

    /// [`Sampler::sample`] and then [`Game::rollout`] on the game drawn, in one call (a
    /// search's sample without the game crossing into Python): `(0, payments)`, or `(1, …)`
    /// and `(2, …)` as `sample` says; `waits` and `seat_waits` as `Game.rollout` takes them.
    /// ValueError for a candidate no game offers or not legal in the game drawn.
    #[allow(clippy::too_many_arguments)]
    fn sample_rollout(
        &self,
        py: Python<'_>,
        seed: u64,
        tries: usize,
        candidates: Vec<Bound<'_, PyAny>>,
        seat: u8,
        waits: bool,
        seat_waits: bool,
    ) -> PyResult<(u8, Py<PyAny>)> {
        let (acts, mask) =
            rollout_request(self.kit.get(), &candidates, seat, self.core.seats.len(), waits, seat_waits)?;
        let mut rng = core::Rng::new(seed);
        match self.core.sample(&mut rng, tries) {
            Ok(game) => {
                Ok((0, payments(game.rollout(&acts, seat, mask))?.into_pyobject(py)?.into_any().unbind()))
            }
            Err(error) => sample_failure(py, error),
        }
    }
}

/// A rollout's candidates as the core's actions, and the bit mask of the seats counting their
/// waits (`waits`: every seat; `seat_waits`: `seat` alone): ValueError for a candidate no game
/// offers or a seat beyond the `seats` playing.
fn rollout_request(
    kit: &Kit,
    candidates: &[Bound<'_, PyAny>],
    seat: u8,
    seats: usize,
    waits: bool,
    seat_waits: bool,
) -> PyResult<(Vec<Act>, u8)> {
    let mut acts = Vec::with_capacity(candidates.len());
    for c in candidates {
        acts.push(kit.act(c)?.ok_or_else(|| PyValueError::new_err("a candidate no game offers"))?);
    }
    if usize::from(seat) >= seats {
        return Err(PyValueError::new_err("no such seat"));
    }
    let mask = if waits {
        u8::MAX
    } else if seat_waits {
        1 << seat
    } else {
        0
    };
    Ok((acts, mask))
}

/// A rollout's payments, ValueError for a candidate that is not legal now.
fn payments(found: Vec<Option<i64>>) -> PyResult<Vec<i64>> {
    found
        .into_iter()
        .map(|p| p.ok_or_else(|| PyValueError::new_err("a candidate that is not legal now")))
        .collect()
}

/// A sample that could not be drawn, as [`Sampler::sample`] answers it: `(1, message)` when no
/// completion satisfies the constraints, `(2, message)` for a position refused.
fn sample_failure(py: Python<'_>, error: crate::policy::sampler::SampleError) -> PyResult<(u8, Py<PyAny>)> {
    let (code, message) = match error {
        crate::policy::sampler::SampleError::Sampling(m) => (1, m),
        crate::policy::sampler::SampleError::Position(m) => (2, m),
    };
    Ok((code, message.into_pyobject(py)?.into_any().unbind()))
}

//! The vector environment's batch of hands (`paohuzi.env.vector`, issue 23): `VecGames`, N
//! hands stepped per call, each observation, action mask, reward and termination written
//! straight into NumPy arrays that Python made once (through the buffer protocol, no copy).
//!
//! Two forms. The single-seat form (Gymnasium's `VectorEnv`): one seat of every hand is the
//! learner and the other seats are played here, by uniformly random choices or by the greedy
//! bot, up to the learner's next decision (`paohuzi.env.single.SingleSeatEnv`'s conventions).
//! The self-play form: every seat is an agent, and each call answers, for every hand, the one
//! seat to act (in Paohuzi seats decide one at a time, claims too, R8).
//!
//! The observation is `Game::encode`, the encoder the AEC environment uses for a native game,
//! so both give the same array for the same position; a hand is dealt here from a shuffled
//! deck (the game's own [`Rng`]) and a finished hand is dealt again (autoreset): in the same
//! call ("same step": the finished hand's last observation goes to a buffer of its own) or at
//! the next call, which then ignores that hand's action ("next step", Gymnasium's default).

use std::sync::Arc;

use pyo3::buffer::{Element, PyBuffer};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::engine::cards::{Kind, NUM_KINDS};
use crate::engine::game::{self as core, Act, GameRules, Rng, DECK_SIZE};
use crate::python::evaluator::Evaluator;
use crate::python::game::{rules_of, ChiMap, Kit};

/// Who plays the seats that do not learn (single-seat form).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Opponent {
    Random,
    /// `GreedyBot()` (waits on), the bot `greedy` of `paohuzi.bots.loader`.
    Greedy,
}

/// The 80 cards in order of kind (R1).
fn sorted_deck() -> Vec<Kind> {
    (0..DECK_SIZE).map(|c| (c / 4) as Kind).collect()
}

/// A writable, C-contiguous buffer of exactly `len` items of `T`.
fn writable<T: Element>(obj: &Bound<'_, PyAny>, len: usize, what: &str) -> PyResult<PyBuffer<T>> {
    let buf = PyBuffer::<T>::get(obj)?;
    if buf.readonly() || !buf.is_c_contiguous() || buf.item_count() != len {
        return Err(PyValueError::new_err(format!(
            "{what}: a writable C-contiguous buffer of {len} items is needed"
        )));
    }
    Ok(buf)
}

/// The items of a buffer [`writable`] checked.
///
/// Safety: the slice is the Python object's memory, not the `PyBuffer`'s: the caller keeps
/// the buffer held (so the memory lives and keeps its size) for as long as it uses the slice,
/// holds the GIL the whole time and has no other slice of the same buffer alive.
#[allow(clippy::mut_from_ref)]
unsafe fn items<'a, T: Element>(buf: &PyBuffer<T>) -> &'a mut [T] {
    let ptr = buf.as_slice_ptr().expect("checked C-contiguous");
    unsafe { &mut *ptr.as_ptr() }
}

/// The buffers Python made: per hand, the observation (`planes × 20` float32), the mask
/// (one int8 per action id), the rewards (float64: 1 in the single-seat form, one per seat in
/// self-play), the termination (uint8), the seat whose observation it is (int64), the final
/// observation of a hand that ended (same-step autoreset), and the actions to apply (int64).
struct Buffers {
    obs: PyBuffer<f32>,
    mask: PyBuffer<i8>,
    reward: PyBuffer<f64>,
    done: PyBuffer<u8>,
    seat: PyBuffer<i64>,
    final_obs: PyBuffer<f32>,
    actions: PyBuffer<i64>,
}

/// N hands of one rule set. See the module docstring.
#[pyclass(module = "paohuzi._native")]
pub struct VecGames {
    rules: Arc<GameRules>,
    games: Vec<core::Game>,
    /// Each hand's generator: its deals and its random opponents' choices.
    rngs: Vec<Rng>,
    /// The learning seat (single-seat form), None in self-play.
    learner: Option<u8>,
    opponent: Opponent,
    same_step: bool,
    /// Hands over whose new deal waits for the next call (next-step autoreset).
    pending: Vec<bool>,
    /// The seat that made each hand's last decision.
    last_seat: Vec<u8>,
    /// The action of each id (`paohuzi.engine.action_ids`), and the id of each 吃.
    acts: Vec<Act>,
    chi_ids: ChiMap<usize>,
    /// The ids of each game's legal actions as last written to the mask (none once over).
    legal: Vec<Vec<u16>>,
    obs_len: usize,
    buffers: Buffers,
}

impl VecGames {
    fn id_of(&self, act: Act) -> usize {
        match act {
            Act::Discard(k) => usize::from(k),
            Act::Peng => 20,
            Act::Hu => 21,
            Act::Pass => 22,
            Act::Chi(chi) => self.chi_ids[&chi],
        }
    }

    fn rewards_per_hand(&self) -> usize {
        if self.learner.is_some() {
            1
        } else {
            usize::from(self.rules.players)
        }
    }

    /// A new hand for game `i` from its generator: a shuffled deck, a random dealer. A hand
    /// that ends before anyone decides is dealt again; in the single-seat form the others
    /// play up to the learner's first decision, and a hand that sits the learner out (four
    /// seats, R12) or ends before it decides is dealt again.
    fn deal(&mut self, i: usize) {
        let players = usize::from(self.rules.players);
        let mut deck = sorted_deck();
        loop {
            let rng = &mut self.rngs[i];
            let dealer = rng.below(players) as u8;
            deck.sort_unstable();
            rng.shuffle(&mut deck);
            self.games[i].redeal(dealer, &deck).expect("a full deck");
            match self.learner {
                None => {
                    if !self.games[i].is_over() {
                        return;
                    }
                }
                Some(seat) => {
                    if self.games[i].playing.contains(&seat) {
                        self.play_others(i);
                        if !self.games[i].is_over() {
                            return;
                        }
                    }
                }
            }
        }
    }

    /// The opponents' moves of game `i` up to the learner's turn or the hand's end.
    fn play_others(&mut self, i: usize) {
        let Some(learner) = self.learner else { return };
        let game = &mut self.games[i];
        while let Some(seat) = game.to_act() {
            if seat == learner {
                return;
            }
            let act = match self.opponent {
                Opponent::Greedy => game.greedy(true).expect("a seat to act"),
                Opponent::Random => {
                    let legal = game.legal_actions();
                    legal[self.rngs[i].below(legal.len())]
                }
            };
            game.apply(act).expect("an opponent plays a legal action");
            self.last_seat[i] = seat;
        }
    }

    /// The seat whose observation game `i` gives: the learner; in self-play the seat to act,
    /// or once over the seat that made the last decision.
    fn observer(&self, i: usize) -> u8 {
        match self.learner {
            Some(seat) => seat,
            None => self.games[i].to_act().unwrap_or(self.last_seat[i]),
        }
    }

    /// Writes game `i`'s observation (into `obs`), its mask and its observer.
    fn write(&mut self, i: usize, obs: &mut [f32], mask: &mut [i8], seat_out: &mut [i64]) {
        let seat = self.observer(i);
        let n = self.obs_len;
        self.games[i].encode_into(seat, &mut obs[i * n..(i + 1) * n]);
        let width = self.acts.len();
        let row = &mut mask[i * width..(i + 1) * width];
        row.fill(0);
        let mut ids = std::mem::take(&mut self.legal[i]);
        ids.clear();
        if self.games[i].to_act() == Some(seat) {
            for act in self.games[i].legal_actions() {
                let id = self.id_of(act);
                row[id] = 1;
                ids.push(id as u16);
            }
        }
        self.legal[i] = ids;
        seat_out[i] = i64::from(seat);
    }
}

#[pymethods]
impl VecGames {
    /// `learner`: the learning seat (single-seat form) or None (self-play); `opponent`:
    /// "random" or "greedy"; `same_step`: the autoreset mode; then the buffers (see
    /// [`Buffers`]), each sized for `num_envs` hands.
    #[new]
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (ev, kit, players, hu_on_discard, take_needs_discard, break_kan_when_stuck, num_envs, learner, opponent, same_step, obs, mask, reward, done, seat, final_obs, actions))]
    fn new(
        ev: &Bound<'_, Evaluator>,
        kit: &Bound<'_, Kit>,
        players: u8,
        hu_on_discard: bool,
        take_needs_discard: bool,
        break_kan_when_stuck: bool,
        num_envs: usize,
        learner: Option<u8>,
        opponent: &str,
        same_step: bool,
        obs: &Bound<'_, PyAny>,
        mask: &Bound<'_, PyAny>,
        reward: &Bound<'_, PyAny>,
        done: &Bound<'_, PyAny>,
        seat: &Bound<'_, PyAny>,
        final_obs: &Bound<'_, PyAny>,
        actions: &Bound<'_, PyAny>,
    ) -> PyResult<VecGames> {
        let rules = rules_of(ev, players, hu_on_discard, take_needs_discard, break_kan_when_stuck)?;
        if learner.is_some_and(|s| s >= players) {
            return Err(PyValueError::new_err(format!(
                "no seat {} at a table of {players}",
                learner.unwrap_or(0)
            )));
        }
        if num_envs == 0 {
            return Err(PyValueError::new_err("at least one hand"));
        }
        let opponent = match opponent {
            "random" => Opponent::Random,
            "greedy" => Opponent::Greedy,
            other => {
                return Err(PyValueError::new_err(format!("opponents are random or greedy, not {other}")))
            }
        };
        let (width, chi_ids) = kit.get().ids.lock().unwrap_or_else(|e| e.into_inner()).clone();
        if width == 0 {
            return Err(PyValueError::new_err("the action ids are not set (Kit.set_ids)"));
        }
        let mut acts = vec![Act::Pass; width];
        for (k, act) in acts.iter_mut().enumerate().take(NUM_KINDS) {
            *act = Act::Discard(k as Kind);
        }
        acts[20] = Act::Peng;
        acts[21] = Act::Hu;
        for (&chi, &id) in &chi_ids {
            acts[id] = Act::Chi(chi);
        }
        // The layout of `paohuzi.env.encoding.layout`: planes × 20, read off the encoder.
        let mut blank = core::Game::new(rules.clone(), 0, &sorted_deck(), false)
            .map_err(crate::python::evaluator::invalid)?;
        let obs_len = blank.encode(0).len();
        let rewards = if learner.is_some() { 1 } else { usize::from(players) };
        let buffers = Buffers {
            obs: writable(obs, num_envs * obs_len, "obs")?,
            mask: writable(mask, num_envs * width, "mask")?,
            reward: writable(reward, num_envs * rewards, "reward")?,
            done: writable(done, num_envs, "done")?,
            seat: writable(seat, num_envs, "seat")?,
            final_obs: writable(final_obs, num_envs * obs_len, "final_obs")?,
            actions: writable(actions, num_envs, "actions")?,
        };
        Ok(VecGames {
            rules,
            games: vec![blank; num_envs],
            rngs: (0..num_envs as u64).map(Rng::new).collect(),
            learner,
            opponent,
            same_step,
            pending: vec![false; num_envs],
            last_seat: vec![0; num_envs],
            acts,
            chi_ids,
            legal: vec![Vec::new(); num_envs],
            obs_len,
            buffers,
        })
    }

    /// Deals a new hand to each game `indices[j]` from a generator seeded with `seeds[j]`
    /// (None: the game's generator goes on), and writes its observation; its reward and
    /// termination are cleared.
    fn reset(&mut self, indices: Vec<usize>, seeds: Vec<Option<u64>>) -> PyResult<()> {
        if indices.len() != seeds.len() || indices.iter().any(|&i| i >= self.games.len()) {
            return Err(PyValueError::new_err("one seed for each game index in range"));
        }
        // SAFETY: the buffers are held by self; the GIL is held; one slice per buffer.
        let (obs, mask, reward, done, seat) = unsafe {
            (
                items(&self.buffers.obs),
                items(&self.buffers.mask),
                items(&self.buffers.reward),
                items(&self.buffers.done),
                items(&self.buffers.seat),
            )
        };
        let r = self.rewards_per_hand();
        for (&i, &s) in indices.iter().zip(&seeds) {
            if let Some(s) = s {
                self.rngs[i] = Rng::new(s);
            }
            self.deal(i);
            self.pending[i] = false;
            reward[i * r..(i + 1) * r].fill(0.0);
            done[i] = 0;
            self.write(i, obs, mask, seat);
        }
        Ok(())
    }

    /// Applies each game's action (the `actions` buffer: an action id per game, read for the
    /// seat to act), plays the opponents, deals again the hands that end, and writes every
    /// buffer. Nothing is applied if an action is illegal: then `(game, id)` of the first.
    #[allow(clippy::needless_range_loop)]
    fn step(&mut self) -> Option<(usize, i64)> {
        // SAFETY: as in `reset`.
        let (obs, mask, reward, done, seat, final_obs, actions) = unsafe {
            (
                items(&self.buffers.obs),
                items(&self.buffers.mask),
                items(&self.buffers.reward),
                items(&self.buffers.done),
                items(&self.buffers.seat),
                items(&self.buffers.final_obs),
                items(&self.buffers.actions),
            )
        };
        for i in 0..self.games.len() {
            if self.pending[i] {
                continue;
            }
            let id = actions[i];
            if !u16::try_from(id).is_ok_and(|id| self.legal[i].contains(&id)) {
                return Some((i, id));
            }
        }
        let r = self.rewards_per_hand();
        let n = self.obs_len;
        for i in 0..self.games.len() {
            reward[i * r..(i + 1) * r].fill(0.0);
            done[i] = 0;
            if self.pending[i] {
                self.pending[i] = false;
                self.deal(i);
                self.write(i, obs, mask, seat);
                continue;
            }
            let game = &mut self.games[i];
            let acting = game.to_act().expect("a hand in play");
            game.apply(self.acts[actions[i] as usize]).expect("checked legal");
            self.last_seat[i] = acting;
            self.play_others(i);
            if let Some(outcome) = self.games[i].outcome() {
                match self.learner {
                    Some(s) => reward[i] = outcome.payments[usize::from(s)] as f64,
                    None => {
                        for (out, &p) in reward[i * r..(i + 1) * r].iter_mut().zip(&outcome.payments) {
                            *out = p as f64;
                        }
                    }
                }
                done[i] = 1;
                if self.same_step {
                    let observer = self.observer(i);
                    self.games[i].encode_into(observer, &mut final_obs[i * n..(i + 1) * n]);
                    self.deal(i);
                } else {
                    self.pending[i] = true;
                }
            } else if self.games[i].is_over() {
                unreachable!("a dealt hand ends with an outcome");
            }
            self.write(i, obs, mask, seat);
        }
        None
    }

    /// Each game's deck (80 kinds, as dealt) and dealer.
    fn decks(&self) -> Vec<(Vec<Kind>, u8)> {
        self.games.iter().map(|g| (g.deck.clone().unwrap_or_default(), g.dealer)).collect()
    }

    /// The observation of `seat` in game `i`, written into `out` (planes × 20 float32) and its
    /// mask into `mask_out` (one int8 per action id): any seat's, the AEC environment's
    /// `observe` (the state as that seat sees it).
    fn observe(
        &mut self,
        i: usize,
        seat: u8,
        out: &Bound<'_, PyAny>,
        mask_out: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        if i >= self.games.len() || !self.games[i].playing.contains(&seat) {
            return Err(PyValueError::new_err("a game and a seat that plays its hand"));
        }
        let out = writable::<f32>(out, self.obs_len, "out")?;
        let mask_buf = writable::<i8>(mask_out, self.acts.len(), "mask")?;
        // SAFETY: both buffers are held here, with the GIL.
        let (values_out, row) = unsafe { (items(&out), items(&mask_buf)) };
        self.games[i].encode_into(seat, values_out);
        row.fill(0);
        if self.games[i].to_act() == Some(seat) {
            for act in self.games[i].legal_actions() {
                row[self.id_of(act)] = 1;
            }
        }
        Ok(())
    }
}

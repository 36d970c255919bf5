//! The PyO3 binding: `paohuzi._native`, used by `paohuzi.native`.
//!
//! Results come back as the Python engine's own objects (`HuResult`, `Wait`, `Group`, `Score`),
//! built from what Python passed in when it made the [`Evaluator`]: the `Group` of every group
//! code, `paohuzi.engine.mingtang.WinContext` and `paohuzi.engine.scoring.score`, so that the 名堂 names, 番
//! and points of a returned win are computed by Python's scoring, from the win's own context.
//! The points the search ranks by are the crate's own ([`Rules::points`]); each distinct score
//! is checked against Python's once, when first made.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use crate::engine::cards::{Counts, Kind, NUM_KINDS};
use crate::engine::evaluator::{
    self as core, add_card, Arrangement, Invalid, OutGroup, Prepared, TableInput,
};
use crate::engine::game::How;
use crate::engine::groups::{GTYPES, SHAPES};
use crate::engine::rules::{Facts, FanCombine, Huxi, Mingtang, Rules};

pub(crate) fn invalid(error: Invalid) -> PyErr {
    PyValueError::new_err(match error {
        Invalid::Kind(k) => format!("{k} is not a kind (0-19)"),
        Invalid::TooMany(k) => format!("more than four of kind {k} in hand"),
        Invalid::Table(what) => what.to_string(),
    })
}

/// The count array of a sequence of 20 counts (`PreparedHand.from_counts`).
pub(crate) fn counts_of(counts: &Bound<'_, PyAny>) -> PyResult<Counts> {
    let mut found = [0; NUM_KINDS];
    let mut n = 0;
    for c in counts.try_iter()? {
        if n == NUM_KINDS {
            return Err(PyValueError::new_err("a count array holds 20 counts"));
        }
        let c: i64 = c?.extract()?;
        if c < 0 {
            return Err(PyValueError::new_err(format!("a negative count of kind {n}")));
        }
        for _ in 0..c {
            add_card(&mut found, n as i64).map_err(invalid)?;
        }
        n += 1;
    }
    if n != NUM_KINDS {
        return Err(PyValueError::new_err("a count array holds 20 counts"));
    }
    Ok(found)
}

/// The count array of a list, tuple or other iterable of kinds.
fn counts(cards: &Bound<'_, PyAny>) -> PyResult<Counts> {
    let mut counts = [0; NUM_KINDS];
    let mut add = |k: Bound<'_, PyAny>| add_card(&mut counts, k.extract::<i64>()?).map_err(invalid);
    if let Ok(list) = cards.cast::<PyList>() {
        list.iter().try_for_each(&mut add)?;
    } else if let Ok(tuple) = cards.cast::<PyTuple>() {
        tuple.iter().try_for_each(&mut add)?;
    } else {
        cards.try_iter()?.try_for_each(|k| add(k?))?;
    }
    Ok(counts)
}

/// The kinds of a table group's cards (a tuple, as `Group.cards` is).
fn group_cards(cards: &Bound<'_, PyAny>) -> PyResult<([i64; 4], usize)> {
    let mut found = [0; 4];
    let mut n = 0;
    for k in cards.try_iter()? {
        if n == 4 {
            return Err(invalid(Invalid::Table("a table group of more than four cards")));
        }
        found[n] = k?.extract()?;
        n += 1;
    }
    Ok((found, n))
}

fn kind(card: i64) -> PyResult<Kind> {
    if (0..NUM_KINDS as i64).contains(&card) {
        Ok(card as Kind)
    } else {
        Err(invalid(Invalid::Kind(card)))
    }
}

/// The evaluator of one rule set, and the Python objects its results are made of.
#[pyclass(frozen, module = "paohuzi._native")]
pub struct Evaluator {
    pub(crate) core: Arc<core::Evaluator>,
    /// The `GroupType` members, in [`GTYPES`] order.
    group_types: Vec<Py<PyAny>>,
    /// The `Group` of each group code (`type * 40 + shape`), None for codes no group has.
    pub(crate) groups: Vec<Option<Py<PyAny>>>,
    /// `score(huxi, context) -> Score`: `paohuzi.engine.scoring.score` with the rule set.
    score: Py<PyAny>,
    /// `paohuzi.engine.mingtang.WinContext`.
    win_context: Py<PyAny>,
    hu_result: Py<PyAny>,
    wait: Py<PyAny>,
    /// Each `Score` made, by [`score_key`], with its points.
    scores: Mutex<Scores>,
}

/// A hasher for [`score_key`]s, which are already spread over their bits.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(self.0 ^ u64::from(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (n ^ (n >> 29)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

type Scores = HashMap<u64, (Py<PyAny>, i64), BuildHasherDefault<KeyHasher>>;

/// What a `Score` depends on for the 名堂 the native core serves (their facts, D34); how
/// the win was made beyond these (the winning card, on a discard) none of them reads.
fn score_key(huxi: i64, facts: &Facts, how: How) -> u64 {
    let flags = u64::from(facts.all_triplets)
        | u64::from(how.self_drawn) << 1
        | u64::from(how.tianhu) << 2
        | u64::from(how.haidi) << 3;
    (huxi as u32 as u64) << 32
        | (facts.red as u64 & 0xff) << 24
        | (facts.big as u64 & 0xff) << 16
        | (facts.small as u64 & 0xff) << 8
        | flags
}

/// Table groups as the core takes them, and the Python objects they came from.
type Table = (Vec<TableInput>, Vec<Py<PyAny>>);

/// A holding converted once, for [`Evaluator::bench`].
struct BenchHolding {
    hand: Counts,
    table: Vec<TableInput>,
    win: Kind,
    self_drawn: bool,
}

impl Evaluator {
    /// Each table group's type and cards.
    fn table(&self, table: &Bound<'_, PyAny>) -> PyResult<Table> {
        let py = table.py();
        let mut groups = Vec::new();
        let mut objects = Vec::new();
        for group in table.try_iter()? {
            let group = group?;
            let gtype = group.getattr(intern!(py, "type"))?;
            let index = self
                .group_types
                .iter()
                .position(|t| gtype.is(t))
                .ok_or_else(|| PyValueError::new_err("a table group's type is not a GroupType"))?;
            let (cards, n) = group_cards(&group.getattr(intern!(py, "cards"))?)?;
            groups.push(TableInput::new(GTYPES[index], &cards[..n]).map_err(invalid)?);
            objects.push(group.unbind());
        }
        Ok((groups, objects))
    }

    /// The Python `Score` of a result, made once per distinct score, by `paohuzi.engine.scoring.score`
    /// from the `WinContext` that `context` makes (called only then), and checked against the
    /// points the search ranked it by.
    fn score_of(
        &self,
        py: Python<'_>,
        huxi: i64,
        points: i64,
        facts: &Facts,
        how: How,
        context: impl FnOnce() -> PyResult<Py<PyAny>>,
    ) -> PyResult<(Py<PyAny>, i64)> {
        let key = score_key(huxi, facts, how);
        if let Some((score, p)) = self.scores.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return Ok((score.clone_ref(py), *p));
        }
        let score = self.score.call1(py, (huxi, context()?))?;
        let python_points: i64 = score.getattr(py, intern!(py, "points"))?.extract(py)?;
        if python_points != points {
            return Err(PyRuntimeError::new_err(format!(
                "the native core scores {points} points where paohuzi.engine.scoring scores {python_points} \
                 (hu-xi {huxi}, {facts:?}, {how:?})"
            )));
        }
        self.scores.lock().unwrap_or_else(|e| e.into_inner()).insert(key, (score.clone_ref(py), points));
        Ok((score, points))
    }

    /// A hand's count array and its table groups prepared for evaluation.
    fn prepared(slf: &Bound<'_, Self>, cards: Counts, table: &Bound<'_, PyAny>) -> PyResult<PreparedHand> {
        let this = slf.get();
        let (groups, objects) = this.table(table)?;
        let core = Prepared::new(this.core.clone(), cards, &groups).map_err(invalid)?;
        Ok(PreparedHand { ev: slf.clone().unbind(), core, table: objects })
    }

    /// The `Group`s of an arrangement; `table` holds the table groups passed in.
    fn groups<'py>(
        &self,
        py: Python<'py>,
        arrangement: &Arrangement,
        table: &[Py<PyAny>],
    ) -> PyResult<Bound<'py, PyTuple>> {
        let groups = arrangement.groups.iter().map(|g| match *g {
            OutGroup::Input(i) => table[i].clone_ref(py),
            OutGroup::New(code) => self.groups[usize::from(code.code())]
                .as_ref()
                .expect("a Group for every code made")
                .clone_ref(py),
        });
        PyTuple::new(py, groups)
    }

    /// The `WinContext` of an arrangement, as the Python evaluator makes it (R10.1).
    fn context(
        &self,
        py: Python<'_>,
        groups: &Bound<'_, PyTuple>,
        win: Option<Kind>,
        leftover: &[Kind],
        how: How,
    ) -> PyResult<Py<PyAny>> {
        let kwargs = pyo3::types::PyDict::new(py);
        kwargs.set_item(intern!(py, "self_drawn"), how.self_drawn)?;
        kwargs.set_item(intern!(py, "from_discard"), how.from_discard)?;
        kwargs.set_item(intern!(py, "tianhu"), how.tianhu)?;
        kwargs.set_item(intern!(py, "haidi"), how.haidi)?;
        kwargs.set_item(intern!(py, "leftover"), PyTuple::new(py, leftover)?)?;
        self.win_context.call(py, (groups, win), Some(&kwargs))
    }

    /// A `HuResult` of an arrangement; `table` holds the table groups passed in. `context_win`
    /// is the winning card its `WinContext` names (None for a complete hand, as in Python).
    pub(crate) fn hu_result(
        &self,
        py: Python<'_>,
        win: Option<Kind>,
        context_win: Option<Kind>,
        arrangement: &Arrangement,
        table: &[Py<PyAny>],
        how: How,
    ) -> PyResult<Py<PyAny>> {
        let groups = self.groups(py, arrangement, table)?;
        let group_huxi = PyTuple::new(py, &arrangement.group_huxi)?;
        let (score, _) =
            self.score_of(py, arrangement.huxi, arrangement.points, &arrangement.facts, how, || {
                self.context(py, &groups, context_win, &arrangement.leftover, how)
            })?;
        if arrangement.leftover.is_empty() {
            self.hu_result.call1(py, (win, groups, group_huxi, score))
        } else {
            let leftover = PyTuple::new(py, &arrangement.leftover)?;
            self.hu_result.call1(py, (win, groups, group_huxi, score, leftover))
        }
    }
}

#[pymethods]
impl Evaluator {
    /// Built once per rule set by `paohuzi.native`, from the rule set's values: `same_kind`
    /// (10 rows of 20, by group type), `special` (the four scoring sequences), the 名堂 as
    /// `(shape, a, b, c, d)` tuples (`("red", low, high, fan, 0)`, `("size", big, threshold,
    /// fan, per_extra)`, `("triplets", fan, 0, 0, 0)`), `fan_combine` (`"sum"`, `"product"`,
    /// `"max"`), and the Python objects of results.
    #[new]
    #[pyo3(signature = (
        *, same_kind, special, min_huxi, deng_base, deng_step, tianhu_double, self_draw_bonus,
        mingtang, fan_combine, haidi_fan, tianhu_partial_huxi, group_types, groups, score,
        win_context, hu_result, wait
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        same_kind: Vec<Vec<i32>>,
        special: [i32; 4],
        min_huxi: i64,
        deng_base: i64,
        deng_step: i64,
        tianhu_double: bool,
        self_draw_bonus: i64,
        mingtang: Vec<(String, i64, i64, i64, i64)>,
        fan_combine: &str,
        haidi_fan: i64,
        tianhu_partial_huxi: bool,
        group_types: Vec<Py<PyAny>>,
        groups: Vec<Option<Py<PyAny>>>,
        score: Py<PyAny>,
        win_context: Py<PyAny>,
        hu_result: Py<PyAny>,
        wait: Py<PyAny>,
    ) -> PyResult<Self> {
        let fan_combine = match fan_combine {
            "sum" => FanCombine::Sum,
            "product" => FanCombine::Product,
            "max" => FanCombine::Max,
            other => return Err(PyValueError::new_err(format!("unknown fan_combine {other:?}"))),
        };
        let mut rows = [[0; NUM_KINDS]; 10];
        if same_kind.len() != 10 || same_kind.iter().any(|r| r.len() != NUM_KINDS) {
            return Err(PyValueError::new_err("same_kind: 10 rows of 20"));
        }
        for (row, values) in rows.iter_mut().zip(&same_kind) {
            row.copy_from_slice(values);
        }
        if special.iter().any(|w| w.abs() > crate::engine::suit::MAX_WEIGHT) || deng_step <= 0 {
            return Err(PyValueError::new_err("rule values out of the native core's range"));
        }
        let mingtang = mingtang
            .into_iter()
            .map(|(shape, a, b, c, d)| match shape.as_str() {
                "red" => Ok(Mingtang::RedCount { low: a, high: b, value: c }),
                "size" => Ok(Mingtang::SizeCount { big: a != 0, threshold: b, value: c, per_extra: d }),
                "triplets" => Ok(Mingtang::AllTriplets { value: a }),
                _ => Err(PyValueError::new_err(format!("unknown 名堂 shape {shape:?}"))),
            })
            .collect::<PyResult<Vec<_>>>()?;
        if group_types.len() != GTYPES.len() || groups.len() != GTYPES.len() * SHAPES {
            return Err(PyValueError::new_err("group_types: 10 members; groups: 400 entries"));
        }
        let rules = Rules {
            huxi: Huxi { same_kind: rows, special },
            min_huxi,
            deng_base,
            deng_step,
            tianhu_double,
            self_draw_bonus,
            mingtang,
            fan_combine,
            haidi_fan,
            tianhu_partial_huxi,
        };
        Ok(Evaluator {
            core: Arc::new(core::Evaluator::new(rules)),
            group_types,
            groups,
            score,
            win_context,
            hu_result,
            wait,
            scores: Mutex::new(Scores::default()),
        })
    }

    /// A hand and its table groups prepared for evaluation: `PreparedHand`.
    fn prepare(
        slf: &Bound<'_, Self>,
        hand: &Bound<'_, PyAny>,
        table: &Bound<'_, PyAny>,
    ) -> PyResult<PreparedHand> {
        Self::prepared(slf, counts(hand)?, table)
    }

    /// The same for a hand given as a count array: `PreparedHand.from_counts`.
    fn prepare_counts(
        slf: &Bound<'_, Self>,
        counts: &Bound<'_, PyAny>,
        table: &Bound<'_, PyAny>,
    ) -> PyResult<PreparedHand> {
        Self::prepared(slf, counts_of(counts)?, table)
    }

    /// The forced 天胡 of dealt cards (R9.5.1), or None: `paohuzi.engine.evaluator.forced_tianhu`.
    fn forced_tianhu(&self, py: Python<'_>, cards: &Bound<'_, PyAny>) -> PyResult<Option<Py<PyAny>>> {
        match self.core.forced_tianhu(counts(cards)?).map_err(invalid)? {
            None => Ok(None),
            Some(a) => {
                let how = How { self_drawn: true, from_discard: false, tianhu: true, haidi: false };
                self.hu_result(py, None, None, &a, &[], how).map(Some)
            }
        }
    }

    /// `best_win` over many holdings in one call, with no Python object made for a result:
    /// for each `(hand, table, win, self_drawn)`, the hu-xi and 底数 of the best win, or None.
    fn best_win_batch(&self, holdings: &Bound<'_, PyAny>) -> PyResult<Vec<Option<(i64, i64)>>> {
        let mut found = Vec::new();
        for item in holdings.try_iter()? {
            let (hand, table, win, self_drawn): (Bound<'_, PyAny>, Bound<'_, PyAny>, i64, bool) =
                item?.extract()?;
            let prepared =
                Prepared::new(self.core.clone(), counts(&hand)?, &self.table(&table)?.0).map_err(invalid)?;
            found.push(
                prepared.win_score(kind(win)?, self_drawn, false, false, false).map(|b| (b.huxi, b.points)),
            );
        }
        Ok(found)
    }

    /// `waits` over many holdings in one call: for each `(hand, table)`, its waits as
    /// `(kind, hu-xi, 底数)`.
    fn waits_batch(&self, holdings: &Bound<'_, PyAny>) -> PyResult<Vec<Vec<(Kind, i64, i64)>>> {
        let mut found = Vec::new();
        for item in holdings.try_iter()? {
            let (hand, table): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item?.extract()?;
            let prepared =
                Prepared::new(self.core.clone(), counts(&hand)?, &self.table(&table)?.0).map_err(invalid)?;
            found.push(prepared.waits().into_iter().map(|(k, b)| (k, b.huxi, b.points)).collect());
        }
        Ok(found)
    }

    /// Times the evaluator inside Rust, with no Python object made: for each pass, every
    /// holding `(hand, table, win, self_drawn)` prepared and its best win found, then every
    /// holding prepared and its waits found. Seconds per pass of each, and the wins and
    /// waits found in one pass.
    fn bench(
        &self,
        holdings: &Bound<'_, PyAny>,
        passes: usize,
    ) -> PyResult<(Vec<f64>, Vec<f64>, usize, usize)> {
        let mut converted = Vec::new();
        for item in holdings.try_iter()? {
            let (hand, table, win, self_drawn): (Bound<'_, PyAny>, Bound<'_, PyAny>, i64, bool) =
                item?.extract()?;
            converted.push(BenchHolding {
                hand: counts(&hand)?,
                table: self.table(&table)?.0,
                win: kind(win)?,
                self_drawn,
            });
        }
        let (mut best_times, mut wait_times, mut wins, mut waits) = (Vec::new(), Vec::new(), 0, 0);
        for _ in 0..passes {
            wins = 0;
            let start = Instant::now();
            for h in &converted {
                let hand = Prepared::new(self.core.clone(), h.hand, &h.table).map_err(invalid)?;
                wins += usize::from(
                    std::hint::black_box(hand.win(h.win, h.self_drawn, false, false, false)).is_some(),
                );
            }
            best_times.push(start.elapsed().as_secs_f64());
            waits = 0;
            let start = Instant::now();
            for h in &converted {
                let hand = Prepared::new(self.core.clone(), h.hand, &h.table).map_err(invalid)?;
                waits += std::hint::black_box(hand.waits()).len();
            }
            wait_times.push(start.elapsed().as_secs_f64());
        }
        Ok((best_times, wait_times, wins, waits))
    }
}

/// A hand prepared by the native core: the methods of `paohuzi.engine.evaluator.PreparedHand`.
#[pyclass(frozen, module = "paohuzi._native")]
pub struct PreparedHand {
    ev: Py<Evaluator>,
    core: Prepared,
    /// The table groups passed in: results hold these very objects.
    table: Vec<Py<PyAny>>,
}

#[pymethods]
impl PreparedHand {
    /// `PreparedHand.win`: the best winning arrangement on `card` (R9.1), or None.
    #[pyo3(signature = (card, self_drawn, from_discard = false, tianhu = false, haidi = false))]
    fn win(
        &self,
        py: Python<'_>,
        card: i64,
        self_drawn: bool,
        from_discard: bool,
        tianhu: bool,
        haidi: bool,
    ) -> PyResult<Option<Py<PyAny>>> {
        let card = kind(card)?;
        match self.core.win(card, self_drawn, from_discard, tianhu, haidi) {
            None => Ok(None),
            Some(a) => {
                let how = How { self_drawn, from_discard, tianhu, haidi };
                self.ev.get().hu_result(py, Some(card), Some(card), &a, &self.table, how).map(Some)
            }
        }
    }

    /// `PreparedHand.complete`: the best arrangement of a hand complete as it is (R4.1 step 3).
    #[pyo3(signature = (self_drawn = true, win = None, haidi = false))]
    fn complete(
        &self,
        py: Python<'_>,
        self_drawn: bool,
        win: Option<i64>,
        haidi: bool,
    ) -> PyResult<Option<Py<PyAny>>> {
        let win = win.map(kind).transpose()?;
        match self.core.complete(self_drawn, haidi) {
            None => Ok(None),
            Some(a) => {
                let how = How { self_drawn, from_discard: false, tianhu: false, haidi };
                self.ev.get().hu_result(py, win, None, &a, &self.table, how).map(Some)
            }
        }
    }

    /// `PreparedHand.waits`: 听牌, every kind that wins when shown from another player's draw.
    fn waits(&self, py: Python<'_>) -> PyResult<Py<PyList>> {
        let ev = self.ev.get();
        let found = PyList::empty(py);
        for (card, best) in self.core.waits() {
            let how = How { self_drawn: false, from_discard: false, tianhu: false, haidi: false };
            let (_, points) = ev.score_of(py, best.huxi, best.points, &best.facts, how, || {
                // Once per distinct score: the win's own arrangement, as Python's waits scores it.
                let a = self.core.win(card, false, false, false, false).expect("a wait wins");
                ev.context(py, &ev.groups(py, &a, &self.table)?, Some(card), &a.leftover, how)
            })?;
            found.append(ev.wait.call1(py, (card, best.huxi, points))?)?;
        }
        Ok(found.unbind())
    }

    /// `PreparedHand.current_huxi`: the current total hu-xi (R10.6).
    fn current_huxi(&self) -> i64 {
        self.core.current_huxi()
    }
}

/// The native core: the evaluator of each rule set, made once by the Python factory `make`
/// (`rules -> Evaluator | None`, None for a rule set only Python serves). What
/// `paohuzi.engine.evaluator.NATIVE` holds.
#[pyclass(frozen, module = "paohuzi._native")]
pub struct Core {
    make: Py<PyAny>,
    /// Rule sets seen, by identity, with their evaluators.
    evaluators: Mutex<Vec<RuleSetEntry>>,
}

/// A rule set and its evaluator, None when only Python serves it.
type RuleSetEntry = (Py<PyAny>, Option<Py<Evaluator>>);

/// Rule sets remembered at most; more forget them all (a program making rule sets on the fly).
const MAX_RULE_SETS: usize = 64;

impl Core {
    fn evaluator<'py>(&self, rules: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, Evaluator>>> {
        let py = rules.py();
        {
            let evaluators = self.evaluators.lock().unwrap_or_else(|e| e.into_inner());
            if let Some((_, ev)) = evaluators.iter().find(|(r, _)| rules.is(r)) {
                return Ok(ev.as_ref().map(|ev| ev.bind(py).clone()));
            }
        }
        let made = self.make.call1(py, (rules,))?;
        let ev = if made.is_none(py) { None } else { Some(made.extract::<Py<Evaluator>>(py)?) };
        let mut evaluators = self.evaluators.lock().unwrap_or_else(|e| e.into_inner());
        if evaluators.len() >= MAX_RULE_SETS {
            evaluators.clear();
        }
        evaluators.push((rules.clone().unbind(), ev.as_ref().map(|ev| ev.clone_ref(py))));
        Ok(ev.map(|ev| ev.into_bound(py)))
    }
}

#[pymethods]
impl Core {
    #[new]
    fn new(make: Py<PyAny>) -> Self {
        Core { make, evaluators: Mutex::new(Vec::new()) }
    }

    /// The native evaluator of a rule set, or None for one only Python serves.
    fn evaluator_for<'py>(&self, rules: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, Evaluator>>> {
        self.evaluator(rules)
    }

    /// Whether the native core serves a rule set.
    fn serves(&self, rules: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.evaluator(rules)?.is_some())
    }

    /// A hand given as a count array prepared natively, or None for a rule set only Python
    /// serves.
    fn prepare_counts(
        &self,
        counts: &Bound<'_, PyAny>,
        table: &Bound<'_, PyAny>,
        rules: &Bound<'_, PyAny>,
    ) -> PyResult<Option<PreparedHand>> {
        match self.evaluator(rules)? {
            None => Ok(None),
            Some(ev) => Evaluator::prepare_counts(&ev, counts, table).map(Some),
        }
    }

    /// A hand prepared natively, or None (`hand` untouched) for a rule set only Python serves.
    fn prepare(
        &self,
        hand: &Bound<'_, PyAny>,
        table: &Bound<'_, PyAny>,
        rules: &Bound<'_, PyAny>,
    ) -> PyResult<Option<PreparedHand>> {
        match self.evaluator(rules)? {
            None => Ok(None),
            Some(ev) => Evaluator::prepare(&ev, hand, table).map(Some),
        }
    }

    /// `paohuzi.engine.evaluator.forced_tianhu`, for a rule set the native core serves.
    fn forced_tianhu(
        &self,
        py: Python<'_>,
        cards: &Bound<'_, PyAny>,
        rules: &Bound<'_, PyAny>,
    ) -> PyResult<Option<Py<PyAny>>> {
        let ev =
            self.evaluator(rules)?.ok_or_else(|| PyValueError::new_err("a rule set only Python serves"))?;
        ev.get().forced_tianhu(py, cards)
    }
}

/// The native core of paohuzi (跑胡子): the hand evaluator, compiled from Rust.
#[pymodule]
mod _native {
    #[pymodule_export]
    use super::{Core, Evaluator, PreparedHand};
    #[pymodule_export]
    use crate::python::game::{greedy_choice, Dealer, Game, Kit, Sampler};
    #[pymodule_export]
    use crate::python::vector::VecGames;
}

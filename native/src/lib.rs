//! The native core of paohuzi (跑胡子): the hand evaluator of RULES.md, compiled.
//!
//! A port of `paohuzi.engine.evaluator` (the Python engine stays the readable reference and the
//! fallback): best winning arrangement (R9.1), waits (听牌), current hu-xi (R10.6) and forced
//! 天胡 (R9.5.1), for any `RuleSet` whose values Python passes in ([`rules::Rules`]).
//! Results agree with the Python evaluator exactly, down to the groups chosen among equals:
//! every search below visits its choices in the Python evaluator's order and keeps the first
//! best, as it does.
//!
//! Cards are kinds 0–19 (`x1`…`x10`, `d1`…`d10`, F1) and a hand is a count array, as in
//! `paohuzi.engine.cards`. The `python` feature adds the PyO3 binding, `paohuzi._native`.

pub mod engine;
pub mod policy;

#[cfg(feature = "python")]
mod python;

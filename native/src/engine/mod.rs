//! The rules and the state machine: cards, groups, the rule values, the hand evaluator (R3, R6.1,
//! R9, R10) and one hand of Paohuzi (R2–R11), in pure Rust.

pub mod cards;
pub mod evaluator;
pub mod game;
pub mod groups;
pub mod rules;
pub mod suit;

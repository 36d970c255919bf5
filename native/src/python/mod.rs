//! The PyO3 binding, `paohuzi._native`: the evaluator and the module (`evaluator`), the game and
//! its kit of Python objects (`game`), the vector environments (`vector`).

pub(crate) mod evaluator;
pub(crate) mod game;
pub(crate) mod vector;

//! Fast policies and encoding on top of the state machine: the greedy bot and rollouts, the
//! observation array, and the sampler of hidden cards.

pub mod encoding;
pub mod greedy;
pub mod sampler;

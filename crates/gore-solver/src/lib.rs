//! Goré without trades (`no-trades`), solved by retrograde analysis.
//!
//! Without trades control never changes and the captured totals do not
//! affect play, so a position is a board of `n` seeds (its *layer*) and a
//! player to move. Seen from the player to move (the *mover*: his four
//! holes first, then the opponent's), the same board is the same problem
//! whoever moves, so each layer is the set of ways to put `n` seeds in 8
//! holes: C(n + 7, 7) boards, 1,420,494,075 over the layers 0 to 48.
//!
//! This crate is pure, like gore-core: the index ([`index`]), the boards
//! of gore-core's positions ([`board`]), the moves and un-moves
//! ([`moves`]), the analysis of a layer ([`retro`]) and a reference
//! solver by the definitions ([`naive`]). Threads are the caller's
//! ([`par::Workers`]); files too.

#![forbid(unsafe_code)]

pub mod board;
pub mod index;
pub mod moves;
pub mod naive;
pub mod par;
pub mod retro;
pub mod solve;
pub mod values;

pub use values::{Lookup, Memory, SolvedLayer, Values};

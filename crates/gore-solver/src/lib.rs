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
//! solver by the definitions ([`naive`]), probing ([`probe`]) and the
//! layer files' format ([`mod@format`]). Threads are the caller's
//! ([`par::Workers`]); the files themselves, written and memory-mapped,
//! are the `disk` feature's (`disk::Database`).

// Pure: no unsafe code, except the memory map of the `disk` feature
// (forbid cannot be lifted for one module, so with `disk` it is deny,
// and that module alone allows it).
#![cfg_attr(not(feature = "disk"), forbid(unsafe_code))]
#![cfg_attr(feature = "disk", deny(unsafe_code))]

pub mod board;
#[cfg(feature = "disk")]
pub mod disk;
pub mod format;
pub mod history;
pub mod index;
pub mod moves;
pub mod naive;
pub mod par;
pub mod perfect;
pub mod probe;
pub mod retro;
pub mod solve;
pub mod values;
pub mod verify;

pub use values::{Lookup, Memory, SolvedLayer, Values};

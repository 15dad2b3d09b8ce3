//! # gore-core — the rules of Goré
//!
//! Goré is the mancala of the Guro people of Ivory Coast: 8 holes, 48 seeds
//! (or 8N under the `seeds=N` option),
//! two-way chain captures of 2s and 4s, and a negotiation in which a player
//! cedes holes to his opponent for 6 captured seeds each. This crate is the
//! rules as `docs/RULES.md` fixes them, and nothing else: no I/O, no
//! clock, no randomness, no global state (`no_std` with `alloc`).
//!
//! - [`Position`]: a validated position (an unchecked [`Setup`] sits beside
//!   it), its legal actions, [`Position::play`] that returns the rule an
//!   illegal action breaks, the allocation-free [`Position::play_unchecked`]
//!   for search, a Zobrist [`Position::hash`] and [`Position::perft`].
//! - [`Game`]: history, threefold repetition, the ply cap, declined offers
//!   and the [`Outcome`] with its "victory without glory".
//! - Rules: a position's [`Variant`] (`skip-origin`, `no-trades`,
//!   `cede-all`, `seeds=N`) and a game's [`Rules`] (the variant and a ply
//!   cap).
//! - Notation: GPN positions (`Display`/[`Position::from_gpn`]), [`Action`]
//!   tokens, [`Rules`] and game [`Record`]s.
//!
//! ```
//! use gore_core::{Action, Game, Position, Variant};
//! // The first worked example of RULES.md: B sows 4 seeds from b2, lands
//! // on a2 (now 4) and takes a2, a1 backward and b4 forward: 8 seeds.
//! let start = Position::from_gpn("1,3,1,5/3,4,2,1 AAAA/BBBB 14-14 B -", Variant::STANDARD)?;
//! let mut game = Game::from_position(start, None);
//! let action: Action = "b2".parse()?;
//! assert_eq!(game.play(action)?.effect.seeds_captured, 8);
//! assert_eq!(game.position().to_string(), "0,0,1,5/3,0,3,0 AAAA/BBBB 14-22 A -");
//! # Ok::<(), Box<dyn core::error::Error>>(())
//! ```
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;

mod action;
mod effect;
mod error;
mod game;
mod position;
mod record;
mod rules;
#[cfg(feature = "serde")]
mod serde_impls;
mod tables;
mod types;

pub use action::Action;
pub use effect::{Effect, Sowing};
pub use error::{
    GpnError, GpnField, IllegalAction, ParseActionError, ParseEndReasonError, ParseGpnError,
    ParseHoleError, ParsePlayerError, ParseRulesError, PositionError,
};
pub use game::{EndReason, Game, HistoryError, Outcome, Played};
pub use position::{ActionList, Position, Setup, MAX_ACTIONS};
pub use record::{iso_date, Forfeit, Record, RecordError, RecordErrorKind, RecordResult};
pub use rules::{Rules, Variant, MAX_SEEDS_PER_HOLE, MIN_SEEDS_PER_HOLE};
pub use types::{Hole, HoleSet, Player};

//! # gore-tournament — Goré's tournaments as pure rules
//!
//! The heart of the site's events, kept apart from any transport: who
//! plays whom, what each result is worth, and who leads. Two kinds:
//!
//! - [`arena`]: a fixed duration; players join and leave at will, a free
//!   player is paired at once with another free player of near score, wins
//!   score 2 (4 on a streak) and a berserk win one more (lichess's arena,
//!   adapted to Goré).
//! - [`swiss`]: a fixed number of rounds, everyone paired each round by the
//!   Dutch system (FIDE C.04.3, simplified as [`swiss`] says), byes, and the
//!   Buchholz and Sonneborn-Berger tie-breaks.
//!
//! Both are plain state machines: no I/O, no async, no server types, and no
//! clock — the time is always passed in (milliseconds since the Unix epoch,
//! [`Millis`]), so a test drives them with a manual clock and several
//! servers agree on what a given call does. Every choice is deterministic
//! (ties are broken by rating, then by [`PlayerId`], never at random), and
//! the whole state is `serde`-serialisable, so standings survive a restart:
//! store the state as JSON after each change and load it back.
//!
//! The rules as implemented are written for players in `docs/RULES.md`
//! ("Tournaments").
//!
//! ## What a server does with it
//!
//! - Keeps one [`arena::Arena`] or [`swiss::Swiss`] per tournament, saved
//!   whole (JSON) after every call that changes it, and changes it only
//!   under the tournament's pairing lease, so that pairing and scoring
//!   happen once however many servers run.
//! - Arena: calls [`arena::Arena::pair`] with the current time whenever a
//!   player joins or a game of the arena ends (and on a tick, for the
//!   start); creates one game per [`arena::Pairing`] (its `a` as player A)
//!   and remembers which [`arena::ArenaGameId`] it is; reports each end
//!   with [`arena::Arena::record`] — the outcome (`None` for an abort),
//!   the berserks (the server halves the berserker's clock and drops his
//!   increment) and each side's number of actions.
//! - Swiss: calls [`swiss::Swiss::pair_round`] when the previous round is
//!   complete, creates its games, and reports each with
//!   [`swiss::Swiss::record`] (round from 1, board from 0); ends the event
//!   on [`swiss::SwissError::NoPairing`].
//! - Shows [`arena::Arena::standings`], [`arena::Arena::sheet`] and
//!   [`arena::Arena::leader_game`], or [`swiss::Swiss::standings_after`]
//!   after each round.
//!
//! ## Why no pairing library
//!
//! crates.io has no maintained Swiss-system pairing crate (the searches of
//! this session found Python, Go, Ruby, Perl and PHP libraries, and the C++
//! engine lichess uses, bbpPairings, but nothing in Rust beyond API clients
//! for lichess). Binding bbpPairings would mean a C++ build and a process
//! per round. The Dutch system here is written from the FIDE rules and
//! tested against tournaments worked by hand (`tests/swiss.rs`).
//!
//! ## Example
//!
//! ```
//! use gore_tournament::{arena::{Arena, ArenaConfig, GameResult}, Outcome, PlayerId};
//!
//! let start = 1_000_000; // milliseconds; the caller's clock
//! let mut arena = Arena::new(ArenaConfig::new(start, start + 30 * 60_000));
//! for (name, rating) in [("ana", 1600), ("bea", 1500), ("cai", 1400)] {
//!     arena.join(PlayerId::from(name), rating, start).unwrap();
//! }
//! // Three free players: two are paired, the one free the shortest (here
//! // the lowest ranked, as all joined at once) waits.
//! let pairings = arena.pair(start);
//! assert_eq!(pairings.len(), 1);
//! let game = &pairings[0];
//! assert_eq!((game.a.as_str(), game.b.as_str()), ("ana", "bea"));
//!
//! arena
//!     .record(GameResult::new(game.game, Outcome::AWins, start + 60_000))
//!     .unwrap();
//! let standings = arena.standings();
//! assert_eq!(standings[0].player.as_str(), "ana");
//! assert_eq!(standings[0].score, 2);
//! ```

use serde::{Deserialize, Serialize};
use std::fmt;

pub mod arena;
pub mod swiss;

/// A moment, in milliseconds since the Unix epoch, as the caller's clock
/// gives it: the crate never reads a clock.
pub type Millis = u64;

/// A player of a tournament: the site's account id (any string; ties in
/// standings and pairings are broken by it, in byte order).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PlayerId(pub String);

impl PlayerId {
    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<&str> for PlayerId {
    fn from(s: &str) -> Self {
        PlayerId(s.to_owned())
    }
}

impl From<String> for PlayerId {
    fn from(s: String) -> Self {
        PlayerId(s)
    }
}

impl fmt::Display for PlayerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// How a tournament game ended, from the board's two sides: player A
/// (South, who moves first) and player B.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// A won (more seeds, or B resigned, lost on time or left).
    AWins,
    /// B won.
    BWins,
    /// 24–24 (half the seeds each under `seeds=N`).
    Draw,
}

/// A side of the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Side {
    /// South, who moves first.
    A,
    /// North.
    B,
}

impl Side {
    /// The other side.
    pub fn other(self) -> Side {
        match self {
            Side::A => Side::B,
            Side::B => Side::A,
        }
    }
}

/// One player's result of one game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlayerResult {
    /// He won.
    Win,
    /// A draw.
    Draw,
    /// He lost.
    Loss,
}

impl Outcome {
    /// The result of the player who sat on `side`.
    pub fn for_side(self, side: Side) -> PlayerResult {
        match (self, side) {
            (Outcome::Draw, _) => PlayerResult::Draw,
            (Outcome::AWins, Side::A) | (Outcome::BWins, Side::B) => PlayerResult::Win,
            _ => PlayerResult::Loss,
        }
    }
}

//! A count of a game's actions, one type from the wire to the store: the
//! ply a game stands at, the ply a client says it has seen, the ply an
//! action is stored at. (It was a `u64` on the wire, a `usize` in the
//! room and a `u32` in the store, with casts between.)

use std::fmt;

use serde::{Deserialize, Serialize};

/// The number of actions played in a game: ply 0 before the first, and
/// the `n`th action is stored at ply `n`. On the wire, a plain number.
///
/// ```
/// use gore_domain::Ply;
///
/// let start = Ply::ZERO;
/// assert_eq!(start.next(), Ply::new(1));
/// assert_eq!(Ply::of_len(3).index(), 3);
/// assert_eq!(Ply::new(7).to_string(), "7");
/// ```
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Ply(u32);

impl Ply {
    /// Before the first action.
    pub const ZERO: Ply = Ply(0);

    /// Ply `n`.
    pub const fn new(n: u32) -> Ply {
        Ply(n)
    }

    /// The number, as the store keeps it.
    pub const fn get(self) -> u32 {
        self.0
    }

    /// As an index into a game's actions: ply `n` stands after the first
    /// `n` of them.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The ply of a game of `len` actions. A game's length is bounded by
    /// its ply cap, far below `u32::MAX`; a longer one would stand at the
    /// last ply (never wraps).
    pub fn of_len(len: usize) -> Ply {
        Ply(u32::try_from(len).unwrap_or(u32::MAX))
    }

    /// The ply before this one (`None` at ply 0).
    pub fn prev(self) -> Option<Ply> {
        self.0.checked_sub(1).map(Ply)
    }

    /// The ply after this one.
    pub const fn next(self) -> Ply {
        Ply(self.0.saturating_add(1))
    }
}

impl fmt::Display for Ply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::str::FromStr for Ply {
    type Err = std::num::ParseIntError;

    /// A ply as text (a notice's payload): its number.
    fn from_str(s: &str) -> Result<Ply, Self::Err> {
        s.parse().map(Ply)
    }
}

impl From<Ply> for u64 {
    fn from(p: Ply) -> u64 {
        u64::from(p.0)
    }
}

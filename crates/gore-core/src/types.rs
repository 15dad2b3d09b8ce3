//! The small value types: [`Player`], [`Hole`] and [`HoleSet`].

use core::fmt;
use core::ops::Not;
use core::str::FromStr;

/// One of the two players. `A` sits South and moves first; `B` sits North.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Player {
    /// South, the bottom row, moves first.
    A = 0,
    /// North, the top row.
    B = 1,
}

impl Player {
    /// Both players, `A` first.
    pub const ALL: [Player; 2] = [Player::A, Player::B];

    /// The other player.
    #[inline]
    pub const fn opponent(self) -> Player {
        match self {
            Player::A => Player::B,
            Player::B => Player::A,
        }
    }

    /// 0 for `A`, 1 for `B`: an index into per-player arrays.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The letter used in the notation: `'A'` or `'B'`.
    pub const fn char(self) -> char {
        match self {
            Player::A => 'A',
            Player::B => 'B',
        }
    }

    /// Reads `'A'` or `'B'`: the one parser of a player letter (its
    /// [`FromStr`] reads a one-letter string with it).
    pub const fn from_char(c: char) -> Option<Player> {
        match c {
            'A' => Some(Player::A),
            'B' => Some(Player::B),
            _ => None,
        }
    }
}

impl Not for Player {
    type Output = Player;
    #[inline]
    fn not(self) -> Player {
        self.opponent()
    }
}

impl FromStr for Player {
    type Err = ParsePlayerError;

    /// Reads `A` or `B`.
    ///
    /// ```
    /// use gore_core::Player;
    /// assert_eq!("B".parse::<Player>(), Ok(Player::B));
    /// assert!("a".parse::<Player>().is_err());
    /// assert!("AB".parse::<Player>().is_err());
    /// ```
    fn from_str(s: &str) -> Result<Player, ParsePlayerError> {
        let mut chars = s.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => Player::from_char(c).ok_or(ParsePlayerError),
            _ => Err(ParsePlayerError),
        }
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.char())
    }
}

/// One of the eight holes, numbered along the sowing cycle
/// `a1 → a2 → a3 → a4 → b1 → b2 → b3 → b4 → a1`.
///
/// The letter names the row (`a` is A's row, `b` is B's row), never the
/// controller: after a trade, B may control `a3`.
///
/// ```
/// use gore_core::Hole;
/// let h: Hole = "b2".parse().unwrap();
/// assert_eq!(h, Hole::B2);
/// assert_eq!(h.next(), Hole::B3);
/// assert_eq!(Hole::B4.next(), Hole::A1);
/// assert_eq!(h.to_string(), "b2");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Hole(u8);

impl Hole {
    /// A's first hole.
    pub const A1: Hole = Hole(0);
    /// A's second hole.
    pub const A2: Hole = Hole(1);
    /// A's third hole.
    pub const A3: Hole = Hole(2);
    /// A's fourth hole.
    pub const A4: Hole = Hole(3);
    /// B's first hole.
    pub const B1: Hole = Hole(4);
    /// B's second hole.
    pub const B2: Hole = Hole(5);
    /// B's third hole.
    pub const B3: Hole = Hole(6);
    /// B's fourth hole.
    pub const B4: Hole = Hole(7);

    /// All holes in board (sowing) order.
    pub const ALL: [Hole; 8] = [
        Hole(0),
        Hole(1),
        Hole(2),
        Hole(3),
        Hole(4),
        Hole(5),
        Hole(6),
        Hole(7),
    ];

    /// The hole with this index (0 = `a1` … 7 = `b4`), if it exists.
    pub const fn new(index: u8) -> Option<Hole> {
        if index < 8 {
            Some(Hole(index))
        } else {
            None
        }
    }

    /// The index along the sowing cycle: 0 = `a1` … 7 = `b4`.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The next hole forward (counter-clockwise).
    #[inline]
    pub const fn next(self) -> Hole {
        Hole((self.0 + 1) & 7)
    }

    /// The previous hole (backward).
    #[inline]
    pub const fn prev(self) -> Hole {
        Hole((self.0 + 7) & 7)
    }

    /// The player on whose row the hole lies (not necessarily its controller).
    pub const fn row(self) -> Player {
        if self.0 < 4 {
            Player::A
        } else {
            Player::B
        }
    }

    /// The number within its row, 1 to 4.
    pub const fn number(self) -> u8 {
        (self.0 & 3) + 1
    }

    /// The bit of this hole in a [`HoleSet`].
    #[inline]
    pub const fn bit(self) -> u8 {
        1 << self.0
    }
}

impl fmt::Display for Hole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let row = if self.0 < 4 { 'a' } else { 'b' };
        write!(f, "{}{}", row, self.number())
    }
}

impl FromStr for Hole {
    type Err = ParseHoleError;
    fn from_str(s: &str) -> Result<Hole, ParseHoleError> {
        let b = s.as_bytes();
        if b.len() != 2 {
            return Err(ParseHoleError);
        }
        let row = match b[0] {
            b'a' => 0,
            b'b' => 4,
            _ => return Err(ParseHoleError),
        };
        match b[1] {
            b'1'..=b'4' => Ok(Hole(row + (b[1] - b'1'))),
            _ => Err(ParseHoleError),
        }
    }
}

/// A set of holes, as a bit mask (bit `i` is the hole with index `i`).
///
/// Used for the holes of an offer and for the holes a player controls.
/// It iterates in board order.
///
/// ```
/// use gore_core::{Hole, HoleSet};
/// let s = HoleSet::EMPTY.with(Hole::A3).with(Hole::A1);
/// assert_eq!(s.len(), 2);
/// assert_eq!(s.iter().collect::<Vec<_>>(), vec![Hole::A1, Hole::A3]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct HoleSet(pub u8);

impl HoleSet {
    /// No hole.
    pub const EMPTY: HoleSet = HoleSet(0);
    /// Every hole.
    pub const FULL: HoleSet = HoleSet(0xff);

    /// The set holding only `hole`.
    pub const fn single(hole: Hole) -> HoleSet {
        HoleSet(hole.bit())
    }

    /// This set with `hole` added.
    #[must_use]
    pub const fn with(self, hole: Hole) -> HoleSet {
        HoleSet(self.0 | hole.bit())
    }

    /// Whether `hole` is in the set.
    #[inline]
    pub const fn contains(self, hole: Hole) -> bool {
        self.0 & hole.bit() != 0
    }

    /// The number of holes in the set.
    #[inline]
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether every hole of `self` is in `other`.
    #[inline]
    pub const fn is_subset(self, other: HoleSet) -> bool {
        self.0 & !other.0 == 0
    }

    /// The holes in board order.
    pub fn iter(self) -> impl Iterator<Item = Hole> + Clone {
        let bits = self.0;
        (0..8u8).filter(move |i| bits & (1 << i) != 0).map(Hole)
    }
}

impl FromIterator<Hole> for HoleSet {
    fn from_iter<I: IntoIterator<Item = Hole>>(iter: I) -> HoleSet {
        iter.into_iter().fold(HoleSet::EMPTY, HoleSet::with)
    }
}

/// A hole name that is not one of `a1`…`a4`, `b1`…`b4`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseHoleError;

impl fmt::Display for ParseHoleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a hole is named a1..a4 or b1..b4")
    }
}

impl core::error::Error for ParseHoleError {}

/// A player letter that is not `A` or `B`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParsePlayerError;

impl fmt::Display for ParsePlayerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a player is A or B")
    }
}

impl core::error::Error for ParsePlayerError {}

//! Positions: the unchecked [`Setup`] and the validated [`Position`], with
//! legal actions, the fast path for search, hashing, GPN and perft.

use core::fmt;
use core::ops::Deref;
use core::str::FromStr;

use crate::action::Action;
use crate::effect::{Effect, Sowing};
use crate::error::{GpnError, GpnField, IllegalAction, ParseGpnError, PositionError};
use crate::rules::{Variant, CEDE_ALL, NO_TRADES, SKIP_ORIGIN};
use crate::tables::{
    all_at_most_two, byte_sum, equal, nonempty, BINOM, EXPAND, LO, MAX_TOTAL, SOW, ZOBRIST,
};
use crate::types::{Hole, HoleSet, Player};

/// A position as written, not yet checked against the rules: any numbers,
/// any controllers. Turn it into a [`Position`] with
/// [`Position::from_setup`].
///
/// Its `FromStr` reads GPN syntax only (each field well-formed, counts at
/// most 64); whether the seeds add up to the variant's total (48, or 8N
/// under `seeds=N`) and the offer could have been made is checked by
/// [`Position::from_setup`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Setup {
    /// Seeds in each hole, `a1..a4, b1..b4`.
    pub seeds: [u8; 8],
    /// Who controls each hole.
    pub controllers: [Player; 8],
    /// Seeds captured by A and by B.
    pub captured: [u8; 2],
    /// The player to move (who must answer, when an offer is pending).
    pub to_move: Player,
    /// The holes of the pending offer, or empty when none is pending.
    pub offer: HoleSet,
}

impl Setup {
    /// The start of a game: 6 seeds everywhere, A to move.
    pub const INITIAL: Setup = Setup {
        seeds: [6; 8],
        controllers: [
            Player::A,
            Player::A,
            Player::A,
            Player::A,
            Player::B,
            Player::B,
            Player::B,
            Player::B,
        ],
        captured: [0, 0],
        to_move: Player::A,
        offer: HoleSet::EMPTY,
    };
}

impl Setup {
    /// The start of a game under `variant`: its seeds in every hole, each
    /// player controlling his row, A to move.
    ///
    /// ```
    /// use gore_core::{Setup, Variant};
    /// assert_eq!(Setup::start(Variant::STANDARD), Setup::INITIAL);
    /// let four = Variant::STANDARD.with_seeds_per_hole(4).unwrap();
    /// assert_eq!(Setup::start(four).to_string(), "4,4,4,4/4,4,4,4 AAAA/BBBB 0-0 A -");
    /// ```
    pub const fn start(variant: Variant) -> Setup {
        Setup {
            seeds: [variant.seeds_per_hole(); 8],
            ..Setup::INITIAL
        }
    }
}

impl Default for Setup {
    fn default() -> Self {
        Setup::INITIAL
    }
}

fn write_holes<T>(
    f: &mut fmt::Formatter<'_>,
    items: &[T; 8],
    sep: &str,
    mut each: impl FnMut(&mut fmt::Formatter<'_>, &T) -> fmt::Result,
) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i == 4 {
            f.write_str("/")?;
        } else if i > 0 {
            f.write_str(sep)?;
        }
        each(f, item)?;
    }
    Ok(())
}

impl fmt::Display for Setup {
    /// Writes GPN.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_holes(f, &self.seeds, ",", |f, n| write!(f, "{n}"))?;
        f.write_str(" ")?;
        write_holes(f, &self.controllers, "", |f, p| write!(f, "{p}"))?;
        write!(
            f,
            " {}-{} {} ",
            self.captured[0], self.captured[1], self.to_move
        )?;
        if self.offer.is_empty() {
            f.write_str("-")
        } else {
            for (i, h) in self.offer.iter().enumerate() {
                if i > 0 {
                    f.write_str("+")?;
                }
                write!(f, "{h}")?;
            }
            Ok(())
        }
    }
}

/// Reads a count of seeds: 1 or 2 decimal digits, at most 64 (the seeds of
/// the largest variant).
pub(crate) fn parse_count(s: &str) -> Option<u8> {
    // Canonical decimal only (no sign, no leading zero), so that every
    // accepted text prints back the same.
    if s.is_empty() || s.len() > 2 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if s.len() > 1 && s.starts_with('0') {
        return None;
    }
    let n: u8 = s.parse().ok()?;
    (n as usize <= MAX_TOTAL).then_some(n)
}

impl FromStr for Setup {
    type Err = ParseGpnError;

    fn from_str(s: &str) -> Result<Setup, ParseGpnError> {
        use ParseGpnError::Field;
        let mut fields = s.split(' ');
        let mut next = || fields.next().ok_or(ParseGpnError::FieldCount);
        let (seeds_f, ctrl_f, cap_f, turn_f, offer_f) =
            (next()?, next()?, next()?, next()?, next()?);
        if fields.next().is_some() {
            return Err(ParseGpnError::FieldCount);
        }

        let mut seeds = [0u8; 8];
        let (a, b) = seeds_f.split_once('/').ok_or(Field(
            GpnField::Seeds,
            "expected four counts, a slash, four counts (6,6,6,6/6,6,6,6)",
        ))?;
        for (row, text) in [a, b].into_iter().enumerate() {
            let mut parts = text.split(',');
            for i in 0..4 {
                let part = parts
                    .next()
                    .ok_or(Field(GpnField::Seeds, "each row has four counts"))?;
                seeds[row * 4 + i] = parse_count(part).ok_or(Field(
                    GpnField::Seeds,
                    "a hole holds 0 to 64 seeds, written without leading zeros",
                ))?;
            }
            if parts.next().is_some() {
                return Err(Field(GpnField::Seeds, "each row has four counts"));
            }
        }

        let cb = ctrl_f.as_bytes();
        if cb.len() != 9 || cb[4] != b'/' {
            return Err(Field(
                GpnField::Controllers,
                "expected four letters, a slash, four letters (AAAA/BBBB)",
            ));
        }
        let mut controllers = [Player::A; 8];
        for (i, &c) in cb[..4].iter().chain(&cb[5..]).enumerate() {
            controllers[i] = Player::from_char(c as char)
                .ok_or(Field(GpnField::Controllers, "each letter is A or B"))?;
        }

        let (ca, cb) = cap_f.split_once('-').ok_or(Field(
            GpnField::Captured,
            "expected capturedA-capturedB (0-0)",
        ))?;
        let captured = [
            parse_count(ca).ok_or(Field(
                GpnField::Captured,
                "a captured total is 0 to 64, written without leading zeros",
            ))?,
            parse_count(cb).ok_or(Field(
                GpnField::Captured,
                "a captured total is 0 to 64, written without leading zeros",
            ))?,
        ];

        let to_move: Player = turn_f
            .parse()
            .map_err(|_| Field(GpnField::ToMove, "expected A or B"))?;

        let offer = if offer_f == "-" {
            HoleSet::EMPTY
        } else {
            crate::action::parse_hole_list(offer_f, '+').map_err(|_| {
                Field(
                    GpnField::Offer,
                    "expected - or 1 to 3 distinct holes in board order joined by + (a2+a4)",
                )
            })?
        };

        Ok(Setup {
            seeds,
            controllers,
            captured,
            to_move,
            offer,
        })
    }
}

/// At most this many legal actions exist in any position (8 sowings, or
/// 92 offers of 1–3 of 8 holes plus a pass).
pub const MAX_ACTIONS: usize = 104;

/// The legal actions of a position, without allocation. Dereferences to a
/// slice.
#[derive(Clone)]
pub struct ActionList {
    items: [Action; MAX_ACTIONS],
    len: usize,
}

impl ActionList {
    pub(crate) fn new() -> Self {
        ActionList {
            items: [Action::Pass; MAX_ACTIONS],
            len: 0,
        }
    }

    #[inline]
    fn push(&mut self, a: Action) {
        self.items[self.len] = a;
        self.len += 1;
    }
}

impl Deref for ActionList {
    type Target = [Action];
    fn deref(&self) -> &[Action] {
        &self.items[..self.len]
    }
}

impl fmt::Debug for ActionList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for &'a ActionList {
    type Item = &'a Action;
    type IntoIter = core::slice::Iter<'a, Action>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// A valid position: seeds add up to the variant's total (48, or 8N under
/// `seeds=N`), each player controls a hole (unless `cede-all`), and any
/// pending offer could legally have been made. It knows the [`Variant`] it
/// is played under.
///
/// It is small and `Copy`; [`Position::play`] returns the new position and
/// leaves `self` untouched, so an illegal action changes nothing.
///
/// ```
/// use gore_core::{Action, Hole, Position, Variant};
/// let start = Position::new(Variant::STANDARD);
/// assert_eq!(start.to_string(), "6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 A -");
/// let next = start.play(Action::Sow(Hole::A3)).unwrap();
/// assert_eq!(next.to_string(), "7,6,0,7/7,7,7,7 AAAA/BBBB 0-0 B -");
/// assert!(start.play(Action::Sow(Hole::B1)).is_err()); // B's hole, A to move
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    /// Byte `i` holds the seeds of hole `i`.
    holes: u64,
    /// Bit `i` set: B controls hole `i`.
    b_controls: u8,
    captured: [u8; 2],
    to_move: Player,
    /// The pending offer's holes; 0 when none.
    offer: u8,
    /// Option bits from [`Variant::flags`].
    flags: u8,
    /// The variant's seeds per hole at the start (3 to 8).
    seeds_per_hole: u8,
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({self} [{}])", self.variant())
    }
}

impl fmt::Display for Position {
    /// Writes GPN.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.to_setup().fmt(f)
    }
}

impl Position {
    /// The start position under `variant`.
    pub const fn new(variant: Variant) -> Position {
        Position {
            holes: variant.seeds_per_hole() as u64 * LO,
            b_controls: 0xf0,
            captured: [0, 0],
            to_move: Player::A,
            offer: 0,
            flags: variant.flags(),
            seeds_per_hole: variant.seeds_per_hole(),
        }
    }

    /// Checks a setup against the rules of `variant`.
    ///
    /// ```
    /// use gore_core::{Position, PositionError, Setup, Variant};
    /// let mut s = Setup::INITIAL;
    /// s.seeds[0] = 7;
    /// assert_eq!(
    ///     Position::from_setup(&s, Variant::STANDARD),
    ///     Err(PositionError::SeedCount { found: 49, expected: 48 })
    /// );
    /// ```
    pub fn from_setup(setup: &Setup, variant: Variant) -> Result<Position, PositionError> {
        let total: u32 = setup.seeds.iter().map(|&n| n as u32).sum::<u32>()
            + setup.captured[0] as u32
            + setup.captured[1] as u32;
        if total != variant.total_seeds() as u32 {
            return Err(PositionError::SeedCount {
                found: total,
                expected: variant.total_seeds(),
            });
        }
        let mut holes = 0u64;
        let mut b_controls = 0u8;
        for i in 0..8 {
            holes |= (setup.seeds[i] as u64) << (8 * i);
            if setup.controllers[i] == Player::B {
                b_controls |= 1 << i;
            }
        }
        let pos = Position {
            holes,
            b_controls,
            captured: setup.captured,
            to_move: setup.to_move,
            offer: setup.offer.0,
            flags: variant.flags(),
            seeds_per_hole: variant.seeds_per_hole(),
        };
        if !variant.cede_all {
            for p in Player::ALL {
                if pos.controlled(p).is_empty() {
                    return Err(PositionError::NoHole(p));
                }
            }
        }
        if !setup.offer.is_empty() {
            // No action is possible on an ended board, so no offer was made.
            if pos.is_ended() {
                return Err(PositionError::Offer(IllegalAction::GameOver));
            }
            let offerer = setup.to_move.opponent();
            pos.check_offer(offerer, setup.offer)
                .map_err(PositionError::Offer)?;
        }
        Ok(pos)
    }

    /// Reads a GPN position and checks it against the rules of `variant`.
    ///
    /// ```
    /// use gore_core::{Position, Player, Variant};
    /// let p = Position::from_gpn("0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B a2+a4", Variant::STANDARD).unwrap();
    /// assert_eq!(p.to_move(), Player::B);
    /// assert!(Position::from_gpn("0,3,7,1/2,0,5,9 AAAA/BBBB 9-11 B a2+a4", Variant::STANDARD).is_err());
    /// ```
    pub fn from_gpn(gpn: &str, variant: Variant) -> Result<Position, GpnError> {
        let setup: Setup = gpn.parse()?;
        Ok(Position::from_setup(&setup, variant)?)
    }

    /// The position as an unchecked setup.
    pub fn to_setup(&self) -> Setup {
        let mut s = Setup {
            seeds: [0; 8],
            controllers: [Player::A; 8],
            captured: self.captured,
            to_move: self.to_move,
            offer: HoleSet(self.offer),
        };
        for h in Hole::ALL {
            s.seeds[h.index()] = self.seeds(h);
            s.controllers[h.index()] = self.controller(h);
        }
        s
    }

    /// The variant this position is played under.
    pub const fn variant(&self) -> Variant {
        Variant::from_parts(self.flags, self.seeds_per_hole)
    }

    /// Seeds in `hole`.
    #[inline]
    pub const fn seeds(&self, hole: Hole) -> u8 {
        (self.holes >> (8 * hole.index())) as u8
    }

    /// Who controls `hole`.
    #[inline]
    pub const fn controller(&self, hole: Hole) -> Player {
        if self.b_controls & hole.bit() != 0 {
            Player::B
        } else {
            Player::A
        }
    }

    /// The holes `player` controls.
    #[inline]
    pub const fn controlled(&self, player: Player) -> HoleSet {
        HoleSet(match player {
            Player::A => !self.b_controls,
            Player::B => self.b_controls,
        })
    }

    /// Seeds captured so far by `player`.
    #[inline]
    pub const fn captured(&self, player: Player) -> u8 {
        self.captured[player.index()]
    }

    /// The player to move; when an offer is pending, the one who answers it.
    #[inline]
    pub const fn to_move(&self) -> Player {
        self.to_move
    }

    /// The holes of the pending offer, if one is pending. They are still
    /// controlled by the offerer (the player not to move).
    #[inline]
    pub const fn pending_offer(&self) -> Option<HoleSet> {
        if self.offer == 0 {
            None
        } else {
            Some(HoleSet(self.offer))
        }
    }

    /// Seeds left on the board.
    pub const fn seeds_on_board(&self) -> u32 {
        byte_sum(self.holes)
    }

    /// Whether the game is over on the board: every hole holds at most 2
    /// seeds (an empty board included), or a player controls no hole (only
    /// possible under `cede-all`). Such a position has no action.
    #[inline]
    pub const fn is_ended(&self) -> bool {
        all_at_most_two(self.holes) || self.b_controls == 0 || self.b_controls == 0xff
    }

    /// The player who controls no hole, if one does (only possible under
    /// `cede-all`, after he ceded his last holes): the game has ended.
    pub const fn player_without_hole(&self) -> Option<Player> {
        match self.b_controls {
            0 => Some(Player::B),
            0xff => Some(Player::A),
            _ => None,
        }
    }

    /// Each player's total if the game ended now: his captured seeds plus
    /// the seeds in the holes he controls (the final sweep).
    pub fn sweep_totals(&self) -> [u8; 2] {
        let b = byte_sum(self.holes & EXPAND[self.b_controls as usize]);
        let a = byte_sum(self.holes) - b;
        [self.captured[0] + a as u8, self.captured[1] + b as u8]
    }

    /// The position after the final sweep: every hole emptied into its
    /// controller's captured total. The player to move is kept; a pending
    /// offer lapses (the game is over, and no offer can stand on an ended
    /// board).
    #[must_use]
    pub fn swept(&self) -> Position {
        Position {
            holes: 0,
            offer: 0,
            captured: self.sweep_totals(),
            ..*self
        }
    }

    /// A 64-bit Zobrist key of everything that makes a position: seeds,
    /// controllers, captured totals, player to move and pending offer.
    pub fn hash(&self) -> u64 {
        let z = &ZOBRIST;
        let mut h = 0u64;
        for i in 0..8 {
            h ^= z.seeds[i][((self.holes >> (8 * i)) & 0xff) as usize];
            if self.b_controls & (1 << i) != 0 {
                h ^= z.b_controls[i];
            }
            if self.offer & (1 << i) != 0 {
                h ^= z.offer[i];
            }
        }
        h ^= z.captured[0][self.captured[0] as usize];
        h ^= z.captured[1][self.captured[1] as usize];
        if self.to_move == Player::B {
            h ^= z.b_to_move;
        }
        h
    }

    /// Holes controlled by the player to move that hold seeds.
    #[inline]
    fn sowable(&self) -> u8 {
        nonempty(self.holes) & self.controlled(self.to_move).0
    }

    /// The holes the player to move may sow from (none while an offer is
    /// pending or once the game has ended).
    #[inline]
    pub fn sowable_holes(&self) -> HoleSet {
        if self.offer != 0 || self.is_ended() {
            HoleSet::EMPTY
        } else {
            HoleSet(self.sowable())
        }
    }

    /// The largest offer the player to move could make: 0 if none.
    #[inline]
    fn max_offer(&self) -> usize {
        if self.flags & NO_TRADES != 0 {
            return 0;
        }
        let own = self.controlled(self.to_move).len();
        let keep = if self.flags & CEDE_ALL != 0 { 0 } else { 1 };
        let affordable = self.captured[self.to_move.opponent().index()] as usize / 6;
        own.saturating_sub(keep).min(affordable).min(3)
    }

    /// The legal offers of the player to move (on a normal turn), by
    /// increasing hole mask: the submasks of his holes small enough to keep
    /// a hole and to be paid for.
    #[inline]
    fn offers(&self) -> impl Iterator<Item = HoleSet> {
        let k = self.max_offer() as u32;
        let own = if k == 0 {
            0
        } else {
            self.controlled(self.to_move).0
        };
        let mut s: u8 = 0;
        core::iter::from_fn(move || loop {
            // The next submask of `own` in increasing order.
            s = (s | !own).wrapping_add(1) & own;
            if s == 0 {
                return None;
            }
            if s.count_ones() <= k {
                return Some(HoleSet(s));
            }
        })
    }

    /// Whether `offerer` may offer `set` now (ignoring whose turn it is).
    fn check_offer(&self, offerer: Player, set: HoleSet) -> Result<(), IllegalAction> {
        if self.flags & NO_TRADES != 0 {
            return Err(IllegalAction::TradesDisabled);
        }
        let n = set.len();
        if n == 0 || n > 3 {
            return Err(IllegalAction::OfferSize(n));
        }
        let own = self.controlled(offerer);
        if let Some(h) = set.iter().find(|&h| !own.contains(h)) {
            return Err(IllegalAction::NotControlled(h, offerer));
        }
        if self.flags & CEDE_ALL == 0 && set == own {
            return Err(IllegalAction::MustKeepHole);
        }
        let price = 6 * n as u8;
        let captured = self.captured[offerer.opponent().index()];
        if captured < price {
            return Err(IllegalAction::CannotPay { price, captured });
        }
        Ok(())
    }

    /// Whether `action` is legal here, and if not, which rule it breaks.
    pub fn check(&self, action: Action) -> Result<(), IllegalAction> {
        if self.is_ended() {
            return Err(IllegalAction::GameOver);
        }
        let me = self.to_move;
        match (action, self.offer != 0) {
            (Action::Accept | Action::Decline, true) => Ok(()),
            (_, true) => Err(IllegalAction::OfferPending),
            (Action::Accept | Action::Decline, false) => Err(IllegalAction::NoOffer),
            (Action::Sow(h), false) => {
                if self.controller(h) != me {
                    Err(IllegalAction::NotControlled(h, me))
                } else if self.seeds(h) == 0 {
                    Err(IllegalAction::EmptyHole(h))
                } else {
                    Ok(())
                }
            }
            (Action::Pass, false) => match HoleSet(self.sowable()).iter().next() {
                Some(h) => Err(IllegalAction::PassWithSeeds(h)),
                None => Ok(()),
            },
            (Action::Offer(set), false) => self.check_offer(me, set),
        }
    }

    /// Whether `action` is legal here.
    pub fn is_legal(&self, action: Action) -> bool {
        self.check(action).is_ok()
    }

    /// Plays a legal action and returns the new position; an illegal one
    /// returns the rule it breaks, and `self` is unchanged either way.
    ///
    /// The end of the game is a property of the result
    /// ([`Position::is_ended`]); the sweep is [`Position::swept`], and
    /// repetition and the ply cap are the [`Game`](crate::Game)'s business.
    /// To learn what the action did as well, use [`Position::play_effect`].
    pub fn play(&self, action: Action) -> Result<Position, IllegalAction> {
        self.check(action)?;
        let mut next = *self;
        next.play_unchecked(action);
        Ok(next)
    }

    /// Plays a legal action like [`Position::play`] and also returns what
    /// happened: the holes sown, in order, and the holes captured, for
    /// interfaces that show it. The action is played once.
    ///
    /// ```
    /// use gore_core::{Action, Hole, HoleSet, Position, Variant};
    /// // RULES.md's first worked example: b2's 4 seeds reach a2, which is
    /// // taken with a1 (backward) and b4 (forward).
    /// let p = Position::from_gpn("1,3,1,5/3,4,2,1 AAAA/BBBB 14-14 B -", Variant::STANDARD)?;
    /// let (next, effect) = p.play_effect(Action::Sow(Hole::B2))?;
    /// let sown: Vec<Hole> = effect.sowing.unwrap().holes().collect();
    /// assert_eq!(sown, [Hole::B3, Hole::B4, Hole::A1, Hole::A2]);
    /// assert_eq!(effect.captured, HoleSet::single(Hole::A1).with(Hole::A2).with(Hole::B4));
    /// assert_eq!(effect.seeds_captured, 8);
    /// assert_eq!(next, p.play(Action::Sow(Hole::B2))?);
    /// # Ok::<(), Box<dyn core::error::Error>>(())
    /// ```
    pub fn play_effect(&self, action: Action) -> Result<(Position, Effect), IllegalAction> {
        self.check(action)?;
        let mut next = *self;
        let effect = match action {
            Action::Sow(h) => {
                let seeds = self.seeds(h);
                let before = self.captured[self.to_move.index()];
                let captured = next.sow(h);
                Effect {
                    sowing: Some(Sowing::new(h, seeds, self.flags & SKIP_ORIGIN != 0)),
                    captured,
                    seeds_captured: next.captured[self.to_move.index()] - before,
                }
            }
            _ => {
                next.play_unchecked(action);
                Effect::NONE
            }
        };
        Ok((next, effect))
    }

    /// The fast path for search: plays an action known to be legal, without
    /// checks or allocation. An illegal action gives a meaningless (but
    /// memory-safe) position.
    #[inline]
    pub fn play_unchecked(&mut self, action: Action) {
        match action {
            Action::Sow(h) => {
                self.sow(h);
            }
            Action::Offer(set) => {
                self.offer = set.0;
                self.to_move = self.to_move.opponent();
            }
            Action::Accept => {
                let set = self.offer;
                let n = set.count_ones() as u8;
                match self.to_move {
                    Player::A => self.b_controls &= !set,
                    Player::B => self.b_controls |= set,
                }
                self.holes = self.holes.wrapping_add(EXPAND[set as usize] & (6 * LO));
                let c = &mut self.captured[self.to_move.index()];
                *c = c.wrapping_sub(6 * n);
                self.offer = 0;
            }
            Action::Decline => self.offer = 0,
            Action::Pass => self.to_move = self.to_move.opponent(),
        }
    }

    /// Sows from `hole` (controlled by the player to move, not empty),
    /// captures, passes the turn, and returns the captured holes.
    #[inline]
    pub(crate) fn sow(&mut self, hole: Hole) -> HoleSet {
        let o = hole.index();
        let n = ((self.holes >> (8 * o)) & 0xff) as usize;
        let skip = (self.flags & SKIP_ORIGIN) as usize;
        self.holes = self
            .holes
            .wrapping_sub((n as u64) << (8 * o))
            .wrapping_add(SOW.add[skip][o][n]);
        let last = SOW.last[skip][o][n] as u32;
        let me = self.to_move;
        self.to_move = me.opponent();
        let theirs = self.controlled(me.opponent()).0;
        let ripe = equal(self.holes, 2) | equal(self.holes, 4);
        let lbit = 1u8 << last;
        if ripe & theirs & lbit == 0 {
            return HoleSet::EMPTY;
        }
        // The chain: backward from the landing hole, then forward, each
        // hole taken once.
        let mut taken = lbit;
        let mut j = last;
        for _ in 0..7 {
            j = (j + 7) & 7;
            let b = 1u8 << j;
            if ripe & b == 0 || taken & b != 0 {
                break;
            }
            taken |= b;
        }
        j = last;
        for _ in 0..7 {
            j = (j + 1) & 7;
            let b = 1u8 << j;
            if ripe & b == 0 || taken & b != 0 {
                break;
            }
            taken |= b;
        }
        let mask = EXPAND[taken as usize];
        let c = &mut self.captured[me.index()];
        *c = c.wrapping_add(byte_sum(self.holes & mask) as u8);
        self.holes &= !mask;
        HoleSet(taken)
    }

    /// Every legal action, in a fixed order: sowings in board order, then
    /// a pass, then offers by increasing hole mask; or `accept`, `decline`.
    /// Empty when the game has ended.
    pub fn legal_actions(&self) -> ActionList {
        let mut list = ActionList::new();
        if self.is_ended() {
            return list;
        }
        if self.offer != 0 {
            list.push(Action::Accept);
            list.push(Action::Decline);
            return list;
        }
        let sowable = self.sowable();
        if sowable == 0 {
            list.push(Action::Pass);
        } else {
            let mut m = sowable;
            while m != 0 {
                list.push(Action::Sow(Hole::ALL[m.trailing_zeros() as usize]));
                m &= m - 1;
            }
        }
        for set in self.offers() {
            list.push(Action::Offer(set));
        }
        list
    }

    /// How many legal actions there are, without listing them.
    #[inline]
    pub fn count_legal(&self) -> u32 {
        if self.is_ended() {
            return 0;
        }
        if self.offer != 0 {
            return 2;
        }
        let sowable = self.sowable().count_ones().max(1); // no sowing: a pass
        let k = self.max_offer();
        let own = self.controlled(self.to_move).len();
        let offers: u32 = BINOM[own][1..=k].iter().map(|&n| n as u32).sum();
        sowable + offers
    }

    /// The number of legal action sequences of length `depth` (RULES.md's
    /// perft: every action counts, ended positions have none, repetition and
    /// ply cap are ignored).
    ///
    /// ```
    /// use gore_core::{Position, Variant};
    /// let start = Position::new(Variant::STANDARD);
    /// assert_eq!(start.perft(1), 4); // four sowings; nobody can pay for an offer yet
    /// ```
    pub fn perft(&self, depth: u32) -> u64 {
        match depth {
            0 => 1,
            1 => self.count_legal() as u64,
            _ => {
                if self.is_ended() {
                    return 0;
                }
                // Walk the actions in place rather than listing them: this
                // is the hot loop of `gore perft`.
                let child = |a: Action| {
                    let mut next = *self;
                    next.play_unchecked(a);
                    next.perft(depth - 1)
                };
                if self.offer != 0 {
                    return child(Action::Accept) + child(Action::Decline);
                }
                let mut total = 0;
                let mut m = self.sowable();
                if m == 0 {
                    total += child(Action::Pass);
                }
                while m != 0 {
                    let h = Hole::ALL[m.trailing_zeros() as usize];
                    let mut next = *self;
                    next.sow(h);
                    total += next.perft(depth - 1);
                    m &= m - 1;
                }
                for set in self.offers() {
                    total += child(Action::Offer(set));
                }
                total
            }
        }
    }
}

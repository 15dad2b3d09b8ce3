//! What an action did: the holes sown, in order, and the holes captured.
//! Interfaces show it (the server's animation, the terminal); the rules
//! compute it once, while playing.

use alloc::vec::Vec;

use crate::types::{Hole, HoleSet};

/// A sowing as it happened: from which hole, how many seeds, and whether
/// the origin was skipped on a full lap (`skip-origin`). Its
/// [`holes`](Sowing::holes) are where the seeds fell, in order.
///
/// ```
/// use gore_core::{Hole, Sowing};
/// let lap = Sowing::new(Hole::A1, 9, true); // skip-origin: a1 is stepped over
/// let holes: Vec<Hole> = lap.holes().collect();
/// assert_eq!(holes.len(), 9);
/// assert!(!holes.contains(&Hole::A1));
/// assert_eq!(holes[6], Hole::B4);
/// assert_eq!(holes[7], Hole::A2); // the 8th seed skips a1
/// assert_eq!(lap.last(), Some(Hole::A3));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Sowing {
    /// The hole the seeds were lifted from.
    pub origin: Hole,
    /// How many seeds were sown.
    pub seeds: u8,
    /// Whether a full lap stepped over the origin.
    pub skip_origin: bool,
}

impl Sowing {
    /// A sowing of `seeds` seeds from `origin`.
    pub const fn new(origin: Hole, seeds: u8, skip_origin: bool) -> Sowing {
        Sowing {
            origin,
            seeds,
            skip_origin,
        }
    }

    /// The holes the seeds fell into, one per seed, in order.
    pub fn holes(&self) -> impl Iterator<Item = Hole> + Clone {
        let (origin, skip) = (self.origin, self.skip_origin);
        let mut at = origin;
        (0..self.seeds).map(move |_| {
            at = at.next();
            if skip && at == origin {
                at = at.next();
            }
            at
        })
    }

    /// Where the last seed fell (`None` for a sowing of no seed).
    pub fn last(&self) -> Option<Hole> {
        self.holes().last()
    }
}

/// What an action did, beyond the new position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Effect {
    /// The sowing, when the action was one.
    pub sowing: Option<Sowing>,
    /// The holes captured by it (empty if none).
    pub captured: HoleSet,
    /// How many seeds those holes held.
    pub seeds_captured: u8,
}

impl Effect {
    /// What an offer, an answer or a pass does: no sowing, no capture.
    pub const NONE: Effect = Effect {
        sowing: None,
        captured: HoleSet::EMPTY,
        seeds_captured: 0,
    };

    /// The holes sown, one per seed, in order (empty when the action was
    /// not a sowing).
    pub fn path(&self) -> Vec<Hole> {
        self.sowing.map_or_else(Vec::new, |s| s.holes().collect())
    }

    /// The captured holes in the order the rules take them: the landing
    /// hole, then the chain backward from it, then forward. (The chain is
    /// rebuilt from the set: each run stops at a hole that was not ripe,
    /// which the other run cannot have taken either.)
    ///
    /// ```
    /// use gore_core::{Action, Hole, Position, Variant};
    /// // RULES.md's first worked example: b2 lands on a2, takes a2, then
    /// // a1 backward, then b4 forward.
    /// let p = Position::from_gpn("1,3,1,5/3,4,2,1 AAAA/BBBB 14-14 B -", Variant::STANDARD).unwrap();
    /// let (_, effect) = p.play_effect(Action::Sow(Hole::B2)).unwrap();
    /// assert_eq!(effect.captures(), [Hole::A2, Hole::A1, Hole::B4]);
    /// ```
    pub fn captures(&self) -> Vec<Hole> {
        let mut out = Vec::new();
        let Some(last) = self.sowing.and_then(|s| s.last()) else {
            return out;
        };
        if !self.captured.contains(last) {
            return out;
        }
        out.push(last);
        let mut taken = HoleSet::single(last);
        for step in [Hole::prev as fn(Hole) -> Hole, Hole::next] {
            let mut at = step(last);
            while self.captured.contains(at) && !taken.contains(at) {
                out.push(at);
                taken = taken.with(at);
                at = step(at);
            }
        }
        out
    }
}

//! Every error the library can return. Each says which field or which rule.

use core::fmt;

// The parse errors of the types live beside them (types.rs), so that the
// types need nothing from here; they are named here too.
use crate::types::{Hole, Player};
pub use crate::types::{ParseHoleError, ParsePlayerError};

/// An end reason that is not one of the words records use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseEndReasonError;

impl fmt::Display for ParseEndReasonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an end reason is board, no-hole, repetition or ply-cap")
    }
}

impl core::error::Error for ParseEndReasonError {}

/// An action token that does not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseActionError {
    /// The token is empty.
    Empty,
    /// Not a hole, `offer:…`, `accept`, `decline` or `pass`.
    Unknown,
    /// `offer:` names something that is not a hole.
    OfferHole,
    /// `offer:` names no hole, or more than three.
    OfferSize,
    /// `offer:` names the same hole twice or not in board order.
    OfferOrder,
}

impl fmt::Display for ParseActionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ParseActionError::Empty => "action: empty",
            ParseActionError::Unknown => {
                "action: expected a hole (a1..b4), offer:HOLES, accept, decline or pass"
            }
            ParseActionError::OfferHole => "action: an offer lists hole names (offer:a1,a3)",
            ParseActionError::OfferSize => "action: an offer names 1 to 3 holes",
            ParseActionError::OfferOrder => {
                "action: the holes of an offer are distinct and in board order (a1..a4, b1..b4)"
            }
        })
    }
}

impl core::error::Error for ParseActionError {}

/// A rule set that does not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseRulesError {
    /// The text is empty.
    Empty,
    /// An option that does not exist (its position in the list, from 1).
    UnknownOption(usize),
    /// An option given twice.
    Repeated(&'static str),
    /// `ply-cap=N` with N missing, not a number, or 0.
    PlyCap,
    /// `seeds=N` with N missing or not 3 to 8.
    Seeds,
    /// `standard` combined with options.
    StandardWithOptions,
    /// `ply-cap=N` where only a position's options belong (a GPN's rules):
    /// the ply cap is a game's.
    PlyCapInVariant,
}

impl fmt::Display for ParseRulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseRulesError::Empty => f.write_str("rules: empty (use `standard`)"),
            ParseRulesError::UnknownOption(i) => write!(
                f,
                "rules: option {i} is unknown (options: skip-origin, no-trades, cede-all, ply-cap=N, seeds=N)"
            ),
            ParseRulesError::Repeated(o) => write!(f, "rules: option {o} is given twice"),
            ParseRulesError::PlyCap => {
                f.write_str("rules: ply-cap needs a whole number of actions from 1, as ply-cap=200")
            }
            ParseRulesError::Seeds => f.write_str(
                "rules: seeds needs the seeds per hole at the start, 3 to 8, as seeds=4",
            ),
            ParseRulesError::PlyCapInVariant => f.write_str(
                "rules: ply-cap belongs to a game, not to a position; leave it out here",
            ),
            ParseRulesError::StandardWithOptions => {
                f.write_str("rules: `standard` stands alone; list only the options that differ")
            }
        }
    }
}

impl core::error::Error for ParseRulesError {}

/// The field of a GPN position that an error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GpnField {
    /// The first field, `a1,a2,a3,a4/b1,b2,b3,b4`.
    Seeds,
    /// The second field, `AAAA/BBBB`.
    Controllers,
    /// The third field, `capturedA-capturedB`.
    Captured,
    /// The fourth field, `A` or `B`.
    ToMove,
    /// The fifth field, `-` or holes joined by `+`.
    Offer,
}

impl GpnField {
    /// The field's name as the documentation uses it.
    pub const fn name(self) -> &'static str {
        match self {
            GpnField::Seeds => "seeds",
            GpnField::Controllers => "controllers",
            GpnField::Captured => "captured",
            GpnField::ToMove => "to move",
            GpnField::Offer => "pending offer",
        }
    }
}

/// A GPN string that does not parse, with the field that is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseGpnError {
    /// Not five fields separated by single spaces.
    FieldCount,
    /// One field is malformed.
    Field(GpnField, &'static str),
}

impl fmt::Display for ParseGpnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseGpnError::FieldCount => f.write_str(
                "GPN: expected five fields separated by single spaces: seeds controllers captured to-move offer",
            ),
            ParseGpnError::Field(field, why) => write!(f, "GPN {}: {}", field.name(), why),
        }
    }
}

impl core::error::Error for ParseGpnError {}

/// A setup that parses but is not a valid position under the rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PositionError {
    /// Holes and both captured totals do not add up to the game's seeds
    /// (48, or 8N under `seeds=N`).
    SeedCount {
        /// The seeds the setup holds.
        found: u32,
        /// The seeds the variant has.
        expected: u8,
    },
    /// A player controls no hole (allowed only with `cede-all`).
    NoHole(Player),
    /// The pending offer could not legally have been made.
    Offer(IllegalAction),
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::SeedCount { found, expected } => write!(
                f,
                "position: holes and captured totals hold {found} seeds, not {expected}"
            ),
            PositionError::NoHole(p) => write!(
                f,
                "position: player {p} controls no hole (only the cede-all option allows that)"
            ),
            PositionError::Offer(e) => write!(
                f,
                "position: the pending offer could not have been made: {e}"
            ),
        }
    }
}

impl core::error::Error for PositionError {}

/// Either a parse error or an invalid position: what reading a GPN can return.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GpnError {
    /// The text does not parse.
    Parse(ParseGpnError),
    /// It parses but breaks a rule.
    Invalid(PositionError),
}

impl fmt::Display for GpnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GpnError::Parse(e) => e.fmt(f),
            GpnError::Invalid(e) => e.fmt(f),
        }
    }
}

impl core::error::Error for GpnError {}

impl From<ParseGpnError> for GpnError {
    fn from(e: ParseGpnError) -> Self {
        GpnError::Parse(e)
    }
}

impl From<PositionError> for GpnError {
    fn from(e: PositionError) -> Self {
        GpnError::Invalid(e)
    }
}

/// An action that breaks a rule. The message names the rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IllegalAction {
    /// The game has ended: no action is possible.
    GameOver,
    /// An offer is pending; the only answers are `accept` and `decline`.
    OfferPending,
    /// `accept` or `decline` with no offer pending.
    NoOffer,
    /// Sowing or offering a hole the player does not control.
    NotControlled(Hole, Player),
    /// Sowing an empty hole.
    EmptyHole(Hole),
    /// Passing while a controlled hole holds seeds.
    PassWithSeeds(Hole),
    /// An offer under the `no-trades` option.
    TradesDisabled,
    /// An offer of no hole or of more than three.
    OfferSize(usize),
    /// An offer that would leave the offerer with no hole (without `cede-all`).
    MustKeepHole,
    /// The opponent has not captured 6 seeds per offered hole.
    CannotPay {
        /// 6 per offered hole.
        price: u8,
        /// What the opponent has captured.
        captured: u8,
    },
}

impl fmt::Display for IllegalAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IllegalAction::GameOver => f.write_str("illegal: the game has ended (every hole holds at most 2 seeds, a player has no hole, or repetition or ply cap)"),
            IllegalAction::OfferPending => {
                f.write_str("illegal: an offer is pending; answer it with accept or decline")
            }
            IllegalAction::NoOffer => f.write_str("illegal: no offer is pending to accept or decline"),
            IllegalAction::NotControlled(h, p) => {
                write!(f, "illegal: hole {h} is not controlled by player {p}")
            }
            IllegalAction::EmptyHole(h) => write!(f, "illegal: hole {h} is empty; sow from a hole with seeds"),
            IllegalAction::PassWithSeeds(h) => write!(
                f,
                "illegal: pass is allowed only when every hole you control is empty ({h} has seeds)"
            ),
            IllegalAction::TradesDisabled => f.write_str("illegal: offers are not allowed under no-trades"),
            IllegalAction::OfferSize(n) => {
                write!(f, "illegal: an offer cedes 1, 2 or 3 holes, not {n}")
            }
            IllegalAction::MustKeepHole => f.write_str(
                "illegal: the offerer must keep at least one hole (only cede-all allows ceding them all)",
            ),
            IllegalAction::CannotPay { price, captured } => write!(
                f,
                "illegal: the opponent must have captured 6 seeds per offered hole ({price}), but has {captured}"
            ),
        }
    }
}

impl core::error::Error for IllegalAction {}

//! Actions: what a player does on his turn, and their one-token notation.

use core::fmt;
use core::str::FromStr;

use crate::error::ParseActionError;
use crate::types::{Hole, HoleSet};

/// One action. Every action is one ply: a sowing, an offer, an answer to an
/// offer, or a pass.
///
/// Notation: a hole name to sow (`b3`), `offer:a1,a3`, `accept`, `decline`,
/// `pass`.
///
/// ```
/// use gore_core::{Action, Hole, HoleSet};
/// let a: Action = "offer:a1,a3".parse().unwrap();
/// assert_eq!(a, Action::Offer(HoleSet::single(Hole::A1).with(Hole::A3)));
/// assert_eq!(a.to_string(), "offer:a1,a3");
/// assert_eq!("b3".parse::<Action>().unwrap(), Action::Sow(Hole::B3));
/// assert!("offer:a3,a1".parse::<Action>().is_err()); // board order only
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Action {
    /// Sow the seeds of this hole.
    Sow(Hole),
    /// Offer these holes (1 to 3) to the opponent, for 6 of his captured
    /// seeds each.
    Offer(HoleSet),
    /// Accept the pending offer.
    Accept,
    /// Decline the pending offer.
    Decline,
    /// Pass: only when every hole the player controls is empty.
    Pass,
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Sow(h) => h.fmt(f),
            Action::Offer(set) => {
                f.write_str("offer:")?;
                for (i, h) in set.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    h.fmt(f)?;
                }
                Ok(())
            }
            Action::Accept => f.write_str("accept"),
            Action::Decline => f.write_str("decline"),
            Action::Pass => f.write_str("pass"),
        }
    }
}

/// Reads a list of 1–3 distinct holes in board order, separated by `sep`.
pub(crate) fn parse_hole_list(s: &str, sep: char) -> Result<HoleSet, ParseActionError> {
    let mut set = HoleSet::EMPTY;
    let mut last: Option<Hole> = None;
    for (i, part) in s.split(sep).enumerate() {
        if i >= 3 {
            return Err(ParseActionError::OfferSize);
        }
        let h: Hole = part.parse().map_err(|_| ParseActionError::OfferHole)?;
        if last.is_some_and(|l| l >= h) {
            return Err(ParseActionError::OfferOrder);
        }
        last = Some(h);
        set = set.with(h);
    }
    Ok(set)
}

impl FromStr for Action {
    type Err = ParseActionError;
    fn from_str(s: &str) -> Result<Action, ParseActionError> {
        match s {
            "" => Err(ParseActionError::Empty),
            "accept" => Ok(Action::Accept),
            "decline" => Ok(Action::Decline),
            "pass" => Ok(Action::Pass),
            _ => {
                if let Some(list) = s.strip_prefix("offer:") {
                    if list.is_empty() {
                        return Err(ParseActionError::OfferSize);
                    }
                    parse_hole_list(list, ',').map(Action::Offer)
                } else {
                    s.parse::<Hole>()
                        .map(Action::Sow)
                        .map_err(|_| ParseActionError::Unknown)
                }
            }
        }
    }
}

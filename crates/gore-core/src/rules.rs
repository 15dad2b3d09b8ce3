//! Rule sets: the board's [`Variant`] and a game's [`Rules`] (the variant
//! and a ply cap).
//!
//! What shapes positions and legal actions (the variant) is kept apart from
//! what only a game with a history can apply (the ply cap), so that a
//! [`Position`](crate::Position) never carries an option it would ignore.

use core::fmt;
use core::str::FromStr;

use crate::error::ParseRulesError;

/// The fewest seeds per hole `seeds=N` allows: with 2 or fewer the start
/// would already be an ended board.
pub const MIN_SEEDS_PER_HOLE: u8 = 3;
/// The most seeds per hole `seeds=N` allows (64 seeds in all).
pub const MAX_SEEDS_PER_HOLE: u8 = 8;

/// The options that shape the board and its legal actions: what a
/// [`Position`](crate::Position) is played under.
///
/// Written as `standard`, or as the options that differ from it joined by
/// commas (`seeds=N` first, then in the order of RULES.md):
/// `seeds=4,skip-origin,no-trades,cede-all`.
///
/// ```
/// use gore_core::Variant;
/// let v: Variant = "no-trades,seeds=4".parse().unwrap();
/// assert!(v.no_trades && !v.skip_origin);
/// assert_eq!(v.seeds_per_hole(), 4);
/// assert_eq!(v.total_seeds(), 32);
/// assert_eq!(v.to_string(), "seeds=4,no-trades");
/// assert_eq!(Variant::STANDARD.to_string(), "standard");
/// assert!("ply-cap=100".parse::<Variant>().is_err()); // a game's option
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Variant {
    /// A lap of 8 or more seeds skips the hole it started from.
    pub skip_origin: bool,
    /// No offers: Goré without negotiation.
    pub no_trades: bool,
    /// An offerer may cede every hole he controls (still at most 3); a
    /// player left without a hole ends the game.
    pub cede_all: bool,
    /// Seeds in each hole at the start, 3 to 8 (private: always in range).
    seeds: u8,
}

impl Default for Variant {
    fn default() -> Self {
        Variant::STANDARD
    }
}

impl Variant {
    /// The standard game: 6 seeds per hole, no option.
    pub const STANDARD: Variant = Variant {
        skip_origin: false,
        no_trades: false,
        cede_all: false,
        seeds: 6,
    };

    /// This variant with `n` seeds per hole at the start, if `n` is 3 to 8.
    ///
    /// ```
    /// use gore_core::Variant;
    /// assert_eq!(Variant::STANDARD.with_seeds_per_hole(3).unwrap().total_seeds(), 24);
    /// assert!(Variant::STANDARD.with_seeds_per_hole(2).is_none());
    /// ```
    #[must_use]
    pub const fn with_seeds_per_hole(self, n: u8) -> Option<Variant> {
        if n >= MIN_SEEDS_PER_HOLE && n <= MAX_SEEDS_PER_HOLE {
            Some(Variant { seeds: n, ..self })
        } else {
            None
        }
    }

    /// Seeds in each hole at the start (6 unless `seeds=N`).
    pub const fn seeds_per_hole(&self) -> u8 {
        self.seeds
    }

    /// Seeds in the game: 8 per-hole counts (48 in the standard game).
    pub const fn total_seeds(&self) -> u8 {
        8 * self.seeds
    }

    /// The option bits that shape play, packed for
    /// [`Position`](crate::Position).
    pub(crate) const fn flags(&self) -> u8 {
        (self.skip_origin as u8) | (self.no_trades as u8) << 1 | (self.cede_all as u8) << 2
    }

    pub(crate) const fn from_parts(flags: u8, seeds: u8) -> Variant {
        Variant {
            skip_origin: flags & SKIP_ORIGIN != 0,
            no_trades: flags & NO_TRADES != 0,
            cede_all: flags & CEDE_ALL != 0,
            seeds,
        }
    }

    fn write_options(&self, f: &mut fmt::Formatter<'_>, sep: &mut &'static str) -> fmt::Result {
        if self.seeds != Variant::STANDARD.seeds {
            write!(f, "{sep}seeds={}", self.seeds)?;
            *sep = ",";
        }
        for (on, name) in [
            (self.skip_origin, "skip-origin"),
            (self.no_trades, "no-trades"),
            (self.cede_all, "cede-all"),
        ] {
            if on {
                write!(f, "{sep}{name}")?;
                *sep = ",";
            }
        }
        Ok(())
    }
}

pub(crate) const SKIP_ORIGIN: u8 = 1;
pub(crate) const NO_TRADES: u8 = 2;
pub(crate) const CEDE_ALL: u8 = 4;

/// A game's rule set: the board's [`Variant`] and an optional ply cap.
///
/// Written like a variant, with `ply-cap=N` among the options:
/// `seeds=4,cede-all,ply-cap=200`.
///
/// ```
/// use gore_core::{Rules, Variant};
/// let r: Rules = "no-trades,skip-origin".parse().unwrap();
/// assert!(r.variant.skip_origin && r.variant.no_trades && !r.variant.cede_all);
/// assert_eq!(r.to_string(), "skip-origin,no-trades");
/// assert_eq!(Rules::default().to_string(), "standard");
/// let capped: Rules = "ply-cap=200,seeds=4".parse().unwrap();
/// assert_eq!(capped.ply_cap, Some(200));
/// assert_eq!(capped.variant, Variant::STANDARD.with_seeds_per_hole(4).unwrap());
/// assert_eq!(capped.to_string(), "seeds=4,ply-cap=200");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Rules {
    /// The options that shape the board and its actions.
    pub variant: Variant,
    /// The game ends after this many actions.
    pub ply_cap: Option<u32>,
}

impl Rules {
    /// The standard game: no option, no ply cap.
    pub const STANDARD: Rules = Rules {
        variant: Variant::STANDARD,
        ply_cap: None,
    };

    /// A game under `variant` with no ply cap.
    pub const fn new(variant: Variant) -> Rules {
        Rules {
            variant,
            ply_cap: None,
        }
    }
}

impl From<Variant> for Rules {
    fn from(variant: Variant) -> Rules {
        Rules::new(variant)
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut sep = "";
        self.write_options(f, &mut sep)?;
        if sep.is_empty() {
            f.write_str("standard")?;
        }
        Ok(())
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut sep = "";
        self.variant.write_options(f, &mut sep)?;
        if let Some(n) = self.ply_cap {
            write!(f, "{sep}ply-cap={n}")?;
            sep = ",";
        }
        if sep.is_empty() {
            f.write_str("standard")?;
        }
        Ok(())
    }
}

impl FromStr for Rules {
    type Err = ParseRulesError;

    /// Options may come in any order; each at most once.
    fn from_str(s: &str) -> Result<Rules, ParseRulesError> {
        if s.is_empty() {
            return Err(ParseRulesError::Empty);
        }
        if s == "standard" {
            return Ok(Rules::STANDARD);
        }
        let mut r = Rules::STANDARD;
        let mut seeds_given = false;
        for (i, opt) in s.split(',').enumerate() {
            let (flag, name) = match opt {
                "skip-origin" => (&mut r.variant.skip_origin, "skip-origin"),
                "no-trades" => (&mut r.variant.no_trades, "no-trades"),
                "cede-all" => (&mut r.variant.cede_all, "cede-all"),
                "standard" => return Err(ParseRulesError::StandardWithOptions),
                _ => {
                    if let Some(n) = opt.strip_prefix("ply-cap=") {
                        if r.ply_cap.is_some() {
                            return Err(ParseRulesError::Repeated("ply-cap"));
                        }
                        let digits =
                            !n.is_empty() && n.len() <= 9 && n.bytes().all(|b| b.is_ascii_digit());
                        match n.parse::<u32>() {
                            Ok(v) if digits && v > 0 => r.ply_cap = Some(v),
                            _ => return Err(ParseRulesError::PlyCap),
                        }
                    } else if let Some(n) = opt.strip_prefix("seeds=") {
                        if seeds_given {
                            return Err(ParseRulesError::Repeated("seeds"));
                        }
                        seeds_given = true;
                        // One digit, so that every accepted text prints back the same.
                        r.variant = (n.len() == 1)
                            .then(|| n.parse::<u8>().ok())
                            .flatten()
                            .and_then(|v| r.variant.with_seeds_per_hole(v))
                            .ok_or(ParseRulesError::Seeds)?;
                    } else if opt == "ply-cap" {
                        return Err(ParseRulesError::PlyCap);
                    } else if opt == "seeds" {
                        return Err(ParseRulesError::Seeds);
                    } else {
                        return Err(ParseRulesError::UnknownOption(i + 1));
                    }
                    continue;
                }
            };
            if *flag {
                return Err(ParseRulesError::Repeated(name));
            }
            *flag = true;
        }
        Ok(r)
    }
}

impl FromStr for Variant {
    type Err = ParseRulesError;

    /// Like [`Rules`], but `ply-cap` is refused: it belongs to a game.
    fn from_str(s: &str) -> Result<Variant, ParseRulesError> {
        let rules: Rules = s.parse()?;
        if rules.ply_cap.is_some() {
            return Err(ParseRulesError::PlyCapInVariant);
        }
        Ok(rules.variant)
    }
}

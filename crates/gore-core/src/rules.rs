//! Rule sets: the standard game and its named options.

use core::fmt;
use core::str::FromStr;

use crate::error::ParseRulesError;

/// A rule set: `standard`, or the options that differ from it.
///
/// Written as `standard` or as options joined by commas, in the order of
/// RULES.md: `skip-origin,no-trades,cede-all,ply-cap=N`.
///
/// ```
/// use gore_core::Rules;
/// let r: Rules = "no-trades,skip-origin".parse().unwrap();
/// assert!(r.skip_origin && r.no_trades && !r.cede_all);
/// assert_eq!(r.to_string(), "skip-origin,no-trades");
/// assert_eq!(Rules::default().to_string(), "standard");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Rules {
    /// A lap of 8 or more seeds skips the hole it started from.
    pub skip_origin: bool,
    /// No offers: Goré without negotiation.
    pub no_trades: bool,
    /// An offerer may cede every hole he controls (still at most 3).
    pub cede_all: bool,
    /// The game ends after this many actions.
    pub ply_cap: Option<u32>,
}

impl Rules {
    /// The standard game: no option.
    pub const STANDARD: Rules = Rules {
        skip_origin: false,
        no_trades: false,
        cede_all: false,
        ply_cap: None,
    };

    /// The options that shape positions and legal actions, packed for
    /// [`Position`](crate::Position) (the ply cap belongs to the game).
    pub(crate) const fn flags(&self) -> u8 {
        (self.skip_origin as u8) | (self.no_trades as u8) << 1 | (self.cede_all as u8) << 2
    }

    pub(crate) const fn from_flags(flags: u8) -> Rules {
        Rules {
            skip_origin: flags & 1 != 0,
            no_trades: flags & 2 != 0,
            cede_all: flags & 4 != 0,
            ply_cap: None,
        }
    }
}

pub(crate) const SKIP_ORIGIN: u8 = 1;
pub(crate) const NO_TRADES: u8 = 2;
pub(crate) const CEDE_ALL: u8 = 4;

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut sep = "";
        let mut opt = |f: &mut fmt::Formatter<'_>, on: bool, name: &str| -> fmt::Result {
            if on {
                f.write_str(sep)?;
                f.write_str(name)?;
                sep = ",";
            }
            Ok(())
        };
        opt(f, self.skip_origin, "skip-origin")?;
        opt(f, self.no_trades, "no-trades")?;
        opt(f, self.cede_all, "cede-all")?;
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
        for (i, opt) in s.split(',').enumerate() {
            let flag = match opt {
                "skip-origin" => &mut r.skip_origin,
                "no-trades" => &mut r.no_trades,
                "cede-all" => &mut r.cede_all,
                "standard" => return Err(ParseRulesError::StandardWithOptions),
                _ => {
                    if let Some(n) = opt.strip_prefix("ply-cap=") {
                        if r.ply_cap.is_some() {
                            return Err(ParseRulesError::Repeated("ply-cap"));
                        }
                        let valid =
                            !n.is_empty() && n.len() <= 9 && n.bytes().all(|b| b.is_ascii_digit());
                        match n.parse::<u32>() {
                            Ok(v) if valid && v > 0 => r.ply_cap = Some(v),
                            _ => return Err(ParseRulesError::PlyCap),
                        }
                        continue;
                    }
                    if opt == "ply-cap" {
                        return Err(ParseRulesError::PlyCap);
                    }
                    return Err(ParseRulesError::UnknownOption(i + 1));
                }
            };
            if *flag {
                return Err(ParseRulesError::Repeated(match opt {
                    "skip-origin" => "skip-origin",
                    "no-trades" => "no-trades",
                    _ => "cede-all",
                }));
            }
            *flag = true;
        }
        Ok(r)
    }
}

//! Engine specs of `gore match` (`random`, `greedy`, `ai:LEVEL[:options]`,
//! `ai:perfect[:options]`, `cmd:[options:]COMMAND`) and why a player gave
//! no action: what the players and the external engines both read.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use gore_ai::{Level, Limits, MAX_LEVEL};

/// What an engine spec names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// A uniformly random legal action.
    Random,
    /// The 1-ply greedy capturer.
    Greedy,
    /// The built-in gore-ai at a level.
    Ai(Level),
    /// The perfect player of the solver's database (`--solver-db`), for
    /// no-trade games; above the database's top layer it plays as the
    /// strongest level.
    Perfect,
    /// An external engine speaking the engine protocol, run by `sh -c`.
    Cmd(String),
}

/// An engine as given on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineSpec {
    /// The spec as written (the player's name in records and output).
    pub text: String,
    pub kind: Kind,
    /// `depth=N`: deepest iteration.
    pub depth: Option<u32>,
    /// `nodes=N`: nodes per decision.
    pub nodes: Option<u64>,
    /// `movetime=MS`: milliseconds per decision.
    pub movetime: Option<u64>,
    /// `honourable`: accept every offer.
    pub honourable: bool,
    /// `hash=MB`: transposition table size.
    pub hash_mb: Option<usize>,
    /// `glory=N`: decline an offer only for a gain of at least N seeds
    /// (`gore_ai::Options::glory`; unset: the engine's default).
    pub glory: Option<u8>,
    /// `level=N` (external engines; built-in ones give it as `ai:N`).
    pub level: Option<Level>,
    /// `oracle`: the search asks the solver's database (`--solver-db`)
    /// at its leaves, also in games with trades (an estimate there).
    pub oracle: bool,
}

pub const SPEC_HELP: &str = "random, greedy, ai:LEVEL[:depth=N][:nodes=N][:movetime=MS]\
[:honourable][:hash=MB][:glory=N][:oracle] (LEVEL 1-12, or perfect with --solver-db; oracle: the \
database at the search's leaves, with --solver-db), or cmd:[OPTIONS:]COMMAND \
(OPTIONS as for ai, plus level=N)";

impl fmt::Display for EngineSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl EngineSpec {
    fn plain(text: &str, kind: Kind) -> EngineSpec {
        EngineSpec {
            text: text.to_string(),
            kind,
            depth: None,
            nodes: None,
            movetime: None,
            honourable: false,
            hash_mb: None,
            glory: None,
            level: None,
            oracle: false,
        }
    }

    /// Applies one `key=value` or `honourable` option. `Ok(false)` when the
    /// word is not an option at all (for `cmd:`, the command starts there).
    fn option(&mut self, word: &str, allow_level: bool) -> Result<bool, String> {
        if word == "honourable" {
            self.honourable = true;
            return Ok(true);
        }
        let Some((key, value)) = word.split_once('=') else {
            return Ok(false);
        };
        fn positive<T: FromStr + PartialOrd + Default>(
            key: &str,
            value: &str,
        ) -> Result<T, String> {
            value
                .parse::<T>()
                .ok()
                .filter(|v| *v > T::default())
                .ok_or_else(|| format!("{key}={value}: expected a positive whole number"))
        }
        match key {
            "depth" => self.depth = Some(positive(key, value)?),
            "nodes" => self.nodes = Some(positive(key, value)?),
            "movetime" => self.movetime = Some(positive(key, value)?),
            "hash" => self.hash_mb = Some(positive(key, value)?),
            "glory" => {
                let g = value
                    .parse::<u8>()
                    .map_err(|_| format!("{key}={value}: expected seeds from 0 to 255"))?;
                self.glory = Some(g);
            }
            "level" if allow_level => {
                let l: u8 = positive(key, value)?;
                let level = Level::new(l)
                    .map_err(|_| format!("level={value}: levels go from 1 to {MAX_LEVEL}"))?;
                self.level = Some(level);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The limits asked for by the spec; `None` when it gives none.
    pub fn limits(&self) -> Option<Limits> {
        if self.depth.is_none() && self.nodes.is_none() && self.movetime.is_none() {
            return None;
        }
        Some(Limits {
            depth: self.depth,
            nodes: self.nodes,
            time: self.movetime.map(Duration::from_millis),
            ..Limits::default()
        })
    }

    /// Whether the engine's play depends on the clock (so a match with it
    /// is not exactly repeatable).
    pub fn is_timed(&self, default_movetime: Option<u64>) -> bool {
        match self.kind {
            Kind::Random | Kind::Greedy => false,
            Kind::Perfect => self.movetime.is_some() || self.limits().is_none(),
            Kind::Ai(level) => {
                self.movetime.is_some()
                    || (self.limits().is_none()
                        && default_limits(level, default_movetime).time.is_some())
            }
            Kind::Cmd(_) => self.movetime.is_some() || self.limits().is_none(),
        }
    }
}

impl FromStr for EngineSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<EngineSpec, String> {
        let bad = |why: String| format!("`{s}`: {why}; an engine is {SPEC_HELP}");
        match s {
            "random" => return Ok(EngineSpec::plain(s, Kind::Random)),
            "greedy" => return Ok(EngineSpec::plain(s, Kind::Greedy)),
            _ => {}
        }
        if let Some(rest) = s.strip_prefix("ai:") {
            let mut parts = rest.split(':');
            let level_text = parts.next().unwrap_or("");
            if level_text == "perfect" {
                // The options apply to its play above the database.
                let mut spec = EngineSpec::plain(s, Kind::Perfect);
                for word in parts {
                    if !spec.option(word, false).map_err(&bad)? {
                        return Err(bad(format!("unknown option `{word}`")));
                    }
                }
                return Ok(spec);
            }
            let level = level_text
                .parse::<u8>()
                .ok()
                .and_then(|l| Level::new(l).ok())
                .ok_or_else(|| {
                    bad(format!(
                        "the level `{level_text}` is not a number from 1 to {MAX_LEVEL}"
                    ))
                })?;
            let mut spec = EngineSpec::plain(s, Kind::Ai(level));
            for word in parts {
                if word == "oracle" {
                    spec.oracle = true;
                    continue;
                }
                if !spec.option(word, false).map_err(&bad)? {
                    return Err(bad(format!("unknown option `{word}`")));
                }
            }
            return Ok(spec);
        }
        if let Some(rest) = s.strip_prefix("cmd:") {
            let mut spec = EngineSpec::plain(s, Kind::Cmd(String::new()));
            let mut command = rest;
            // Leading `option:` words, up to the first word that is not one.
            while let Some((word, tail)) = command.split_once(':') {
                if !spec.option(word, true).map_err(&bad)? {
                    break;
                }
                command = tail;
            }
            if command.trim().is_empty() {
                return Err(bad("no command after cmd:".into()));
            }
            spec.kind = Kind::Cmd(command.to_string());
            return Ok(spec);
        }
        let kind = s.split(':').next().unwrap_or(s);
        if kind == "random" || kind == "greedy" {
            return Err(bad(format!("`{kind}` takes no options")));
        }
        Err(bad(format!("unknown engine kind `{kind}`")))
    }
}

/// Why a player gave no action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// The player loses the game (crash, timeout, error, bad answer).
    Forfeit(String),
    /// The match is stopping: the game is abandoned.
    Aborted,
}

/// The limits of a built-in engine whose spec gives none: the level's one
/// default ([`Level::default_limits`], as `gore engine`'s `go` without
/// limits), or the level's limits for `--movetime MS`.
pub fn default_limits(level: Level, movetime: Option<u64>) -> Limits {
    match movetime {
        None => level.default_limits(),
        Some(ms) => level.limits(Duration::from_millis(ms.max(1))),
    }
}

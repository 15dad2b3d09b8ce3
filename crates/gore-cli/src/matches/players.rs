//! The players of `gore match`: engine specs (`random`, `greedy`,
//! `ai:LEVEL[:options]`, `ai:perfect[:options]`, `cmd:[options:]COMMAND`)
//! and the players they make.

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use gore_ai::{baselines, Engine, Level, Limits, Options, MAX_LEVEL};
use gore_core::{Action, Game, Rules};
use gore_solver::perfect::Perfect;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::external::External;
use crate::protocol::GoClock;

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

/// The limits of a decision on the clock: the clock's budget for the
/// level ([`gore_ai::clock`]), under the spec's own depth and nodes, and
/// under its movetime if it gives one.
pub fn clock_limits(
    game: &Game,
    level: Level,
    own: Option<Limits>,
    clock: &GoClock,
) -> Option<Limits> {
    let (remaining, increment) = clock.of(game.position().to_move())?;
    let mut limits = gore_ai::clock::limits_for(game, level, remaining, increment);
    if let Some(own) = own {
        if let Some(d) = own.depth {
            limits.depth = Some(limits.depth.map_or(d, |x| x.min(d)));
        }
        limits.nodes = own.nodes;
        if let (Some(t), Some(b)) = (own.time, limits.time) {
            limits.time = Some(t.min(b));
        }
    }
    Some(limits)
}

/// What every player of a match shares.
#[derive(Debug, Clone)]
pub struct Setup {
    /// `--movetime`: milliseconds per decision for engines whose spec has
    /// no limit; without it, each level's one default
    /// ([`Level::default_limits`]).
    pub default_movetime: Option<u64>,
    /// How long an external engine may take beyond its movetime.
    pub timeout: Duration,
    /// The perfect player's database (`--solver-db`), checked against the
    /// rules, when an engine is `ai:perfect`.
    pub perfect: Option<Arc<Perfect>>,
    /// The database as the search's leaf evaluation (`--solver-db`), when
    /// an engine asks for it with `oracle`.
    pub oracle: Option<Arc<dyn gore_ai::Oracle>>,
}

/// A player of one worker thread, kept from game to game.
pub enum Player {
    Random(ChaCha8Rng),
    Greedy(ChaCha8Rng),
    Ai {
        engine: Box<Engine>,
        limits: Limits,
        /// The limits the spec gives itself, if any (kept under a clock).
        own: Option<Limits>,
    },
    /// The database's perfect player, and the strongest level for the
    /// positions above the database.
    Perfect {
        perfect: Arc<Perfect>,
        engine: Box<Engine>,
        limits: Limits,
        own: Option<Limits>,
    },
    External(Box<External>),
}

impl Player {
    pub fn new(spec: &EngineSpec, setup: &Setup) -> Player {
        match &spec.kind {
            Kind::Random => Player::Random(ChaCha8Rng::seed_from_u64(0)),
            Kind::Greedy => Player::Greedy(ChaCha8Rng::seed_from_u64(0)),
            Kind::Ai(level) => {
                let limits = spec
                    .limits()
                    .unwrap_or_else(|| default_limits(*level, setup.default_movetime));
                let mut engine = Engine::new(Options {
                    level: *level,
                    honourable: spec.honourable,
                    hash_mb: spec.hash_mb.unwrap_or(Options::default().hash_mb),
                    seed: 0,
                    glory: spec.glory.unwrap_or(Options::default().glory),
                    ..Options::default()
                });
                if spec.oracle {
                    engine.set_oracle(setup.oracle.clone());
                }
                Player::Ai {
                    engine: Box::new(engine),
                    limits,
                    own: spec.limits(),
                }
            }
            Kind::Perfect => {
                let perfect = setup
                    .perfect
                    .clone()
                    .expect("run checks that ai:perfect has a database");
                let limits = spec
                    .limits()
                    .unwrap_or_else(|| default_limits(Level::MAX, setup.default_movetime));
                let engine = Engine::new(Options {
                    honourable: spec.honourable,
                    hash_mb: spec.hash_mb.unwrap_or(Options::default().hash_mb),
                    ..Options::default()
                });
                Player::Perfect {
                    perfect,
                    engine: Box::new(engine),
                    limits,
                    own: spec.limits(),
                }
            }
            Kind::Cmd(command) => {
                // The engine's own level policy is its business: it gets
                // the movetime (the top level's default without one).
                let movetime = setup
                    .default_movetime
                    .map_or(Level::MAX.default_movetime(), Duration::from_millis);
                let limits = spec.limits().unwrap_or(Limits::time(movetime));
                Player::External(Box::new(External::new(
                    spec.clone(),
                    command.clone(),
                    limits,
                    setup.timeout,
                )))
            }
        }
    }

    /// Gets ready for a game under `rules`, with its own seed.
    pub fn new_game(&mut self, seed: u64, rules: Rules, stop: &AtomicBool) -> Result<(), Fault> {
        match self {
            Player::Random(rng) | Player::Greedy(rng) => {
                *rng = ChaCha8Rng::seed_from_u64(seed);
                Ok(())
            }
            Player::Ai { engine, .. } | Player::Perfect { engine, .. } => {
                let options = Options {
                    seed,
                    ..*engine.options()
                };
                engine.set_options(options);
                engine.new_game();
                Ok(())
            }
            Player::External(ext) => ext.new_game(seed, rules, stop),
        }
    }

    /// The player's action in the game's current position; with `clock`
    /// (`--tc`), the built-in engines spend the clock's budget and the
    /// external ones get the clocks with `go`.
    pub fn choose(
        &mut self,
        game: &Game,
        stop: &AtomicBool,
        clock: Option<GoClock>,
    ) -> Result<Action, Fault> {
        let none = || Fault::Forfeit("gave no action in a position that has some".into());
        let timed = |engine: &Engine, limits: &Limits, own: &Option<Limits>| match &clock {
            Some(c) => clock_limits(game, engine.options().level, *own, c).unwrap_or(*limits),
            None => *limits,
        };
        match self {
            Player::Random(rng) => baselines::random_action(game.position(), rng).ok_or_else(none),
            Player::Greedy(rng) => baselines::greedy_action(game.position(), rng).ok_or_else(none),
            Player::Ai {
                engine,
                limits,
                own,
            } => {
                let limits = timed(engine, limits, own);
                engine.choose(game, &limits, stop).ok_or_else(none)
            }
            Player::Perfect {
                perfect,
                engine,
                limits,
                own,
            } => {
                if perfect.covers(game) {
                    perfect
                        .choose(game)
                        .map(|c| c.action)
                        .map_err(|e| Fault::Forfeit(format!("ai:perfect: {e}")))
                } else {
                    let limits = timed(engine, limits, own);
                    engine.choose(game, &limits, stop).ok_or_else(none)
                }
            }
            Player::External(ext) => ext.choose(game, stop, clock),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(s: &str) -> EngineSpec {
        s.parse().unwrap()
    }

    #[test]
    fn specs_parse() {
        assert_eq!(spec("random").kind, Kind::Random);
        assert_eq!(spec("greedy").kind, Kind::Greedy);
        let s = spec("ai:8:depth=10:nodes=20000:movetime=50:honourable:hash=4");
        assert_eq!(s.kind, Kind::Ai(Level::new(8).unwrap()));
        assert_eq!(
            (s.depth, s.nodes, s.movetime, s.honourable, s.hash_mb),
            (Some(10), Some(20000), Some(50), true, Some(4))
        );
        assert_eq!(
            s.text,
            "ai:8:depth=10:nodes=20000:movetime=50:honourable:hash=4"
        );
        assert_eq!(spec("ai:3").limits(), None);
        assert_eq!(spec("ai:3:glory=0").glory, Some(0));
        assert_eq!(spec("ai:3:glory=5").glory, Some(5));
        assert_eq!(spec("ai:3").glory, None);
        assert_eq!(spec("ai:perfect").kind, Kind::Perfect);
        assert_eq!(spec("ai:perfect:nodes=500").nodes, Some(500));
        let s = spec("cmd:movetime=30:level=4:/usr/bin/gore engine --x a:b");
        assert_eq!(s.kind, Kind::Cmd("/usr/bin/gore engine --x a:b".into()));
        assert_eq!((s.movetime, s.level), (Some(30), Level::new(4).ok()));
        assert_eq!(
            spec("cmd:./engine").kind,
            Kind::Cmd("./engine".into()),
            "no options"
        );
    }

    #[test]
    fn the_match_and_the_engine_protocol_share_one_default() {
        // `gore engine`'s `go` without limits and `gore match` without
        // --movetime: the same limits, at every level, from the level's
        // one default (the top level thinks for it, the others stop at
        // their depth, off the clock).
        let game = Game::new(Rules::STANDARD);
        let bare = crate::protocol::Go::from_limits(&Limits::default());
        for level in Level::all() {
            let engine = crate::engine::go_limits(&bare, &game, level);
            assert_eq!(default_limits(level, None), engine, "level {level}");
            let expect = match level.profile().depth {
                Some(d) => Limits::depth(d),
                None => Limits::time(Duration::from_millis(1000)),
            };
            assert_eq!(engine, expect, "level {level}");
        }
        // --movetime still sets the top level's time.
        assert_eq!(
            default_limits(Level::MAX, Some(50)),
            Limits::time(Duration::from_millis(50))
        );
    }

    #[test]
    fn on_the_clock_the_budget_meets_the_specs_own_limits() {
        let game = Game::new(Rules::STANDARD);
        let ms = Duration::from_millis;
        // 60 s for A at ply 0: 60000/30 = 2000 ms (gore_ai::clock).
        let clock = GoClock {
            atime: Some(60_000),
            btime: Some(1),
            ainc: None,
            binc: None,
        };
        // With a minute left the top level keeps its floor (level 11's
        // 13 plies).
        let floor = Limits {
            min_depth: Some(13),
            ..Limits::default()
        };
        let top = clock_limits(&game, Level::MAX, None, &clock).unwrap();
        assert_eq!(
            top,
            Limits {
                time: Some(ms(2000)),
                ..floor
            }
        );
        let own = Limits {
            depth: Some(5),
            nodes: Some(900),
            time: Some(ms(300)),
            ..Limits::default()
        };
        assert_eq!(
            clock_limits(&game, Level::MAX, Some(own), &clock),
            Some(Limits {
                min_depth: Some(13),
                ..own
            }),
            "the smaller time, the spec's depth and nodes"
        );
        // A level with a depth cap keeps the smaller of its cap and the
        // spec's depth.
        for level in Level::all() {
            let Some(cap) = level.profile().depth else {
                continue;
            };
            let l = clock_limits(&game, level, Some(Limits::depth(9)), &clock).unwrap();
            assert_eq!(
                (l.depth, l.time),
                (Some(cap.min(9)), Some(ms(2000))),
                "level {level}"
            );
        }
        // No time for the side to move: no clock limits.
        let b_only = GoClock {
            atime: None,
            ..clock
        };
        assert_eq!(clock_limits(&game, Level::MAX, None, &b_only), None);
    }

    #[test]
    fn bad_specs_say_why() {
        for (s, why) in [
            ("ai", "unknown engine kind `ai`"),
            ("ai:13", "not a number from 1 to 12"),
            ("ai:0", "not a number from 1 to 12"),
            ("ai:x", "not a number from 1 to 12"),
            ("ai:8:depth=0", "depth=0: expected a positive whole number"),
            ("ai:8:glory=256", "glory=256: expected seeds from 0 to 255"),
            ("ai:8:glory=-1", "glory=-1: expected seeds from 0 to 255"),
            ("ai:8:fast", "unknown option `fast`"),
            ("ai:8:level=3", "unknown option `level=3`"),
            ("stockfish", "unknown engine kind `stockfish`"),
            ("cmd:", "no command"),
            ("cmd:depth=3:", "no command"),
            ("cmd:level=13:x", "levels go from 1 to 12"),
            ("random:depth=3", "`random` takes no options"),
        ] {
            let e = s.parse::<EngineSpec>().unwrap_err();
            assert!(e.contains(why), "{s}: {e}");
            assert!(e.contains("an engine is random, greedy"), "{s}: {e}");
        }
    }
}

//! The players of `gore match`: engine specs (`random`, `greedy`,
//! `ai:LEVEL[:options]`, `ai:perfect[:options]`, `cmd:[options:]COMMAND`)
//! and the players they make.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use gore_ai::{baselines, Engine, Level, Limits, Options};
use gore_core::{Action, Game, Rules};
use gore_solver::perfect::Perfect;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::external::External;
pub use super::spec::{default_limits, EngineSpec, Fault, Kind};
use crate::protocol::GoClock;

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

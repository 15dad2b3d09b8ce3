//! `gore calibrate`: each level's average seed loss per action, measured on
//! positions of play whose exact values the no-trade database knows.
//!
//! The positions come from seeded games between levels (rules `no-trades`,
//! or `no-trades,skip-origin` with such a database); a position counts when
//! it offers a choice (two legal actions or more) and the database knows
//! every action's value exactly (LB = UB: the history cannot change it).
//! Each level then chooses in every position, and the loss of a choice is
//! the best action's value minus the chosen one's, in seeds.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::{anyhow, Result};
use clap::Args;
use gore_ai::{Engine, Level, Limits, Options};
use gore_core::{Action, Game, Rules};
use gore_solver::probe::{probe, Probe};
use gore_solver::Lookup;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::commands::parse_rules;

#[derive(Args)]
pub struct CalibrateArgs {
    /// The database directory (built by `gore solve`).
    #[arg(long)]
    db: PathBuf,
    /// Rule set of the games: `no-trades` or `no-trades,skip-origin`.
    #[arg(long, default_value = "no-trades", value_parser = parse_rules)]
    rules: Rules,
    /// How many positions to measure on.
    #[arg(long, default_value_t = 1000)]
    positions: usize,
    /// Seed of the games the positions come from, and of the levels' noise.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Nodes per decision of the top level (the levels below have their
    /// own depth): a node limit keeps the table exactly repeatable.
    #[arg(long, default_value_t = 300_000)]
    top_nodes: u64,
    /// Only these levels (comma-separated); all by default.
    #[arg(long, value_delimiter = ',')]
    levels: Vec<u8>,
}

/// A position of play with its game so far and its database values.
pub struct Sample {
    /// The game that reached it (its history included).
    pub game: Game,
    /// The values of the position and of every action, for its mover.
    pub probe: Probe,
}

/// What one level lost over the samples.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Loss {
    /// Decisions measured.
    pub decisions: usize,
    /// Seeds lost in all (half seeds, as the database counts).
    pub half_seeds: u64,
    /// Decisions that lost at least one seed.
    pub one_or_more: usize,
    /// Decisions that lost at least three seeds.
    pub three_or_more: usize,
}

impl Loss {
    /// Average seeds lost per decision.
    pub fn average(&self) -> f64 {
        if self.decisions == 0 {
            0.0
        } else {
            self.half_seeds as f64 / 2.0 / self.decisions as f64
        }
    }

    fn share(&self, k: usize) -> f64 {
        if self.decisions == 0 {
            0.0
        } else {
            100.0 * k as f64 / self.decisions as f64
        }
    }
}

/// The samples whose every action the database knows exactly and that
/// offer a choice; `None` for a position outside the database.
pub fn sample_of(db: &dyn Lookup, max_n: usize, game: &Game) -> Option<Sample> {
    let pos = game.position();
    if game.is_over() || pos.legal_actions().len() < 2 {
        return None;
    }
    let p = probe(db, max_n, pos).ok()?;
    if !p.values.exact() || p.actions.iter().any(|(_, v)| !v.exact()) {
        return None;
    }
    Some(Sample {
        game: game.clone(),
        probe: p,
    })
}

/// The loss of `choose` over `samples`: for each, the best action's value
/// minus the chosen action's.
pub fn measure(samples: &[Sample], mut choose: impl FnMut(usize, &Game) -> Action) -> Loss {
    let mut loss = Loss::default();
    for (i, s) in samples.iter().enumerate() {
        let a = choose(i, &s.game);
        let best = s.probe.actions.iter().map(|(_, v)| v.v).max().unwrap_or(0);
        let Some(&(_, got)) = s.probe.actions.iter().find(|(x, _)| *x == a) else {
            continue;
        };
        let lost = u64::from(best - got.v);
        loss.decisions += 1;
        loss.half_seeds += lost;
        if lost >= 2 {
            loss.one_or_more += 1;
        }
        if lost >= 6 {
            loss.three_or_more += 1;
        }
    }
    loss
}

/// The limits of a level's decision in the calibration: its own depth, or
/// `top_nodes` at the top.
fn limits_of(level: Level, top_nodes: u64) -> Limits {
    if level.is_max() {
        Limits::nodes(top_nodes)
    } else {
        level.limits(Duration::from_millis(100))
    }
}

/// Positions met in seeded games between levels 1 to 8 (the stronger ones
/// would make the games slow without making the positions more varied).
fn collect(db: &dyn Lookup, max_n: usize, rules: Rules, want: usize, seed: u64) -> Vec<Sample> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let stop = AtomicBool::new(false);
    let mut out = Vec::new();
    let mut games = 0;
    while out.len() < want * 3 && games < want {
        games += 1;
        let mut engines: Vec<Engine> = (0..2)
            .map(|_| {
                let level = Level::new(rng.gen_range(1..=8)).expect("a level");
                Engine::new(Options {
                    level,
                    hash_mb: 4,
                    seed: rng.gen(),
                    ..Options::default()
                })
            })
            .collect();
        let mut game = Game::new(rules);
        // Two random plies, so the games do not all begin alike.
        for _ in 0..2 {
            let legal = game.legal_actions();
            let a = legal[rng.gen_range(0..legal.len())];
            let _ = game.play(a);
        }
        while !game.is_over() && game.actions().len() < 300 {
            if let Some(s) = sample_of(db, max_n, &game) {
                out.push(s);
            }
            let side = game.position().to_move().index();
            let level = engines[side].options().level;
            let Some(a) = engines[side].choose(&game, &limits_of(level, 20_000), &stop) else {
                break;
            };
            if game.play(a).is_err() {
                break;
            }
        }
    }
    out.shuffle(&mut rng);
    out.truncate(want);
    out
}

pub fn run(args: CalibrateArgs) -> Result<()> {
    let v = args.rules.variant;
    if !v.no_trades {
        return Err(anyhow!(
            "--rules: the database values games without trades: use no-trades or no-trades,skip-origin"
        ));
    }
    let db = gore_solver::disk::Database::open(&args.db, v.skip_origin)?;
    let max_n = db.max_layer().ok_or_else(|| {
        anyhow!(
            "{}: no layer here (build them with gore solve)",
            args.db.display()
        )
    })?;
    let levels: Vec<Level> = if args.levels.is_empty() {
        Level::all().collect()
    } else {
        args.levels
            .iter()
            .map(|&n| Level::new(n).map_err(|e| anyhow!("--levels: {e}")))
            .collect::<Result<_>>()?
    };
    let samples = collect(&db, max_n, args.rules, args.positions, args.seed);
    eprintln!(
        "{} positions (exact, with a choice) from games of levels 1-8, rules {}",
        samples.len(),
        args.rules
    );
    println!("| level | name | decisions | seeds lost per action | actions losing ≥ 1 seed | ≥ 3 seeds |");
    println!("|---|---|---|---|---|---|");
    let stop = AtomicBool::new(false);
    for level in levels {
        let limits = limits_of(level, args.top_nodes);
        let mut engine = Engine::new(Options {
            level,
            hash_mb: 16,
            ..Options::default()
        });
        let loss = measure(&samples, |i, game| {
            // A fresh table and a seed per position: each decision stands
            // alone, whatever order the positions come in.
            engine.new_game();
            let mut o = *engine.options();
            o.seed = args.seed ^ i as u64;
            engine.set_options(o);
            engine.choose(game, &limits, &stop).unwrap_or(Action::Pass)
        });
        println!(
            "| {} | {} | {} | {:.3} | {:.1}% | {:.1}% |",
            level,
            level.profile().name,
            loss.decisions,
            loss.average(),
            loss.share(loss.one_or_more),
            loss.share(loss.three_or_more)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use gore_core::{Hole, Position};
    use gore_solver::naive;

    fn no_trades() -> Rules {
        parse_rules("no-trades").unwrap()
    }

    /// A: a3 = 1, a4 = 3; B: b1 = 1 (5 seeds on the board, 22-21).
    /// a4 sows b1, b2, b3 and leaves every hole at most 2: the game ends,
    /// A keeps a3's seed: 23 for A. a3 puts its seed in a4 (4 seeds);
    /// B's only sowing b1 -> b2, then A's only sowing a4 round to b4 ends
    /// the game with nothing in A's holes: 22 for A. a3 loses one seed.
    fn example() -> Sample {
        let p =
            Position::from_gpn("0,0,1,3/1,0,0,0 AAAA/BBBB 22-21 A -", no_trades().variant).unwrap();
        let db = naive::memory(5, false);
        sample_of(&db, 5, &Game::from_position(p, None)).expect("exact, with a choice")
    }

    #[test]
    fn a_choice_loses_the_gap_to_the_best_action() {
        let s = [example()];
        let worse = measure(&s, |_, _| Action::Sow(Hole::A3));
        assert_eq!(worse.decisions, 1);
        assert_eq!(worse.average(), 1.0);
        assert_eq!((worse.one_or_more, worse.three_or_more), (1, 0));
        let best = measure(&s, |_, _| Action::Sow(Hole::A4));
        assert_eq!(best.average(), 0.0);
        assert_eq!(best.one_or_more, 0);
    }

    #[test]
    fn positions_without_a_choice_or_outside_the_database_are_not_samples() {
        let db = naive::memory(5, false);
        // One legal action only (b1 is B's only seed).
        let p =
            Position::from_gpn("0,0,0,4/1,0,0,0 AAAA/BBBB 22-21 B -", no_trades().variant).unwrap();
        assert!(sample_of(&db, 5, &Game::from_position(p, None)).is_none());
        // 48 seeds on the board: above the database's 5.
        assert!(sample_of(&db, 5, &Game::new(no_trades())).is_none());
    }

    #[test]
    fn the_top_level_loses_nothing_on_the_example_and_levels_are_legal() {
        let s = [example()];
        for level in Level::all() {
            let mut e = Engine::new(Options {
                level,
                hash_mb: 1,
                ..Options::default()
            });
            let loss = measure(&s, |_, g| {
                e.choose(g, &limits_of(level, 20_000), &AtomicBool::new(false))
                    .expect("a live game")
            });
            // Every choice was one of the position's actions.
            assert_eq!(loss.decisions, 1, "level {level}");
            if level.profile().vision.is_none() && level.profile().depth.is_none_or(|d| d >= 3) {
                // Three plies see the end of both lines.
                assert_eq!(loss.average(), 0.0, "level {level}");
            }
        }
    }
}

//! How far the top level's decisions run past their time budget
//! (docs/STRENGTH.md, "The time budget"): `positions` middle-game
//! positions (random play from the start, 6 to 40 actions in, seeded),
//! each decided by the top level with `movetime` ms, as the server's AI
//! does (`Level::limits`, the floor added by `Engine::choose`). Prints the
//! median, 90th percentile and worst of the time taken over the budget.
//!
//! ```sh
//! cargo run --release -p gore-ai --example overshoot -- 1000 30
//! ```

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use gore_ai::{Engine, Level, Options, MAX_LEVEL};
use gore_core::{Game, Rules};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn main() {
    let mut args = std::env::args().skip(1);
    let movetime: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let positions: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(30);
    let budget = Duration::from_millis(movetime);
    let top = Level::new(MAX_LEVEL).expect("the top level");
    let mut rng = ChaCha8Rng::seed_from_u64(28);
    let mut over = Vec::new();
    while over.len() < positions {
        let mut game = Game::new(Rules::default());
        let plies = rng.gen_range(6..40);
        for _ in 0..plies {
            let legal = game.position().legal_actions();
            if game.is_over() || legal.is_empty() {
                break;
            }
            let a = legal[rng.gen_range(0..legal.len())];
            if game.play(a).is_err() {
                break;
            }
        }
        if game.is_over() {
            continue;
        }
        let mut engine = Engine::new(Options {
            level: top,
            ..Options::default()
        });
        let start = Instant::now();
        let _ = engine.choose(&game, &top.limits(budget), &AtomicBool::new(false));
        let took = start.elapsed();
        over.push(took.saturating_sub(budget).as_secs_f64() * 1000.0);
        eprintln!("{:>3}: {:>7.1} ms", over.len(), took.as_secs_f64() * 1000.0);
    }
    over.sort_by(|a, b| a.total_cmp(b));
    let at = |q: f64| over[((over.len() - 1) as f64 * q).round() as usize];
    println!(
        "budget {movetime} ms, {positions} decisions: over the budget by median {:.1} ms, p90 {:.1} ms, worst {:.1} ms",
        at(0.5),
        at(0.9),
        at(1.0)
    );
}

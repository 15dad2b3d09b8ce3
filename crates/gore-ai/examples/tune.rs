//! Tunes the evaluation by matches: each candidate weight set plays the
//! current defaults at a fixed depth, from seeded random openings, each
//! opening with both colours. Prints one line per candidate.
//!
//! `cargo run --release -p gore-ai --example tune -- [GAMES_PER_PAIR] [DEPTH]`

use std::sync::atomic::AtomicBool;
use std::sync::Mutex;

use gore_ai::{Engine, Limits, Options, Weights};
use gore_core::{Game, Player, Rules};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Plays one game; returns the score of `first` (1, ½, 0).
fn game(first: Weights, second: Weights, first_is_a: bool, opening: u64, depth: u32) -> f64 {
    let rules = Rules {
        ply_cap: Some(300),
        ..Rules::STANDARD
    };
    let mut g = Game::new(rules);
    let mut rng = ChaCha8Rng::seed_from_u64(opening);
    for _ in 0..3 {
        let legal = g.legal_actions();
        if let Some(&a) = legal.choose(&mut rng) {
            g.play(a).unwrap();
        }
    }
    let mk = |w| {
        Engine::new(Options {
            weights: w,
            hash_mb: 4,
            ..Options::default()
        })
    };
    let (mut ea, mut eb) = if first_is_a {
        (mk(first), mk(second))
    } else {
        (mk(second), mk(first))
    };
    let stop = AtomicBool::new(false);
    while !g.is_over() {
        let e = if g.position().to_move() == Player::A {
            &mut ea
        } else {
            &mut eb
        };
        let a = e.choose(&g, &Limits::depth(depth), &stop).unwrap();
        g.play(a).unwrap();
    }
    let o = g.outcome().unwrap();
    let me = if first_is_a { Player::A } else { Player::B };
    match o.winner() {
        None => 0.5,
        Some(w) if w == me => 1.0,
        Some(_) => 0.0,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let pairs: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(50);
    let depth: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5);
    // The base defaults to the current weights; a third argument
    // `board,target,mobility` tunes around another point.
    let base = args
        .get(3)
        .and_then(|s| {
            let v: Vec<i32> = s.split(',').filter_map(|x| x.parse().ok()).collect();
            (v.len() == 3).then(|| Weights {
                board_seed: v[0],
                target: v[1],
                mobility: v[2],
            })
        })
        .unwrap_or_default();
    let mut candidates = vec![(
        "captured difference only".to_string(),
        Weights {
            board_seed: 0,
            target: 0,
            mobility: 0,
        },
    )];
    // One weight at a time, up and down.
    for (name, step) in [("board_seed", 20), ("target", 20), ("mobility", 15)] {
        for d in [-step, step] {
            let mut w = base;
            let f = match name {
                "board_seed" => &mut w.board_seed,
                "target" => &mut w.target,
                _ => &mut w.mobility,
            };
            *f += d;
            candidates.push((format!("{name} {}", *f), w));
        }
    }
    println!("base {base:?}, depth {depth}, {pairs} openings x 2 colours");
    for (name, w) in candidates {
        let total = Mutex::new(0.0);
        let next = Mutex::new(0u64);
        std::thread::scope(|s| {
            for _ in 0..std::thread::available_parallelism().map_or(2, |n| n.get()) {
                s.spawn(|| loop {
                    let i = {
                        let mut n = next.lock().unwrap();
                        *n += 1;
                        *n - 1
                    };
                    if i >= pairs {
                        break;
                    }
                    let sc = game(w, base, true, 1000 + i, depth)
                        + game(w, base, false, 1000 + i, depth);
                    *total.lock().unwrap() += sc;
                });
            }
        });
        let score = total.into_inner().unwrap() / (2 * pairs) as f64;
        let elo = if score > 0.0 && score < 1.0 {
            -400.0 * (1.0 / score - 1.0).log10()
        } else {
            f64::NAN
        };
        println!(
            "{name:<26} vs base: score {:.1}% over {} games, Elo {elo:+.0}",
            score * 100.0,
            2 * pairs
        );
    }
}

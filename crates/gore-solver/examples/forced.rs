//! How long the forced sequences are: for sampled won, exact boards of
//! some layers (the mover's V above an even split, LB = UB), the shortest
//! forced exit from the layer the perfect player finds (its own actions
//! until a capture or the end, whatever the opponent does); and a game of
//! the perfect player against itself from the start, its length and its
//! longest stretch without a capture.
//!
//! `cargo run --release -p gore-solver --features disk --example forced -- DIR [skip]`

use gore_core::{Game, Player, Rules, Variant};
use gore_solver::board::position_of;
use gore_solver::disk::Database;
use gore_solver::index::{layer_size, unrank};
use gore_solver::moves::is_ended;
use gore_solver::perfect::{choose, DEFAULT_BUDGET};
use gore_solver::Lookup;
use std::path::PathBuf;

fn main() {
    let dir: PathBuf = std::env::args()
        .nth(1)
        .expect("a database directory")
        .into();
    let skip = std::env::args().any(|a| a == "skip");
    let db = Database::open(&dir, skip).expect("a readable database");
    let max_n = db.max_layer().expect("some layers");
    let mut variant = Variant::STANDARD;
    variant.no_trades = true;
    variant.skip_origin = skip;
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    println!("| layer | won exact boards sampled | shortest forced exit: longest found | median | none within the budget |");
    println!("|---:|---:|---:|---:|---:|");
    for n in (8..=max_n).step_by(4) {
        let mut found = Vec::new();
        let mut none = 0;
        let mut tries = 0;
        while found.len() + none < 40 && tries < 200_000 {
            tries += 1;
            let r = next() % layer_size(n);
            let b = unrank(n, r);
            let x = db.values(n, r);
            if is_ended(&b) || !x.exact() || x.v as usize <= n {
                continue;
            }
            let captured = (48 - n) as u8;
            let p = position_of(
                &b,
                Player::A,
                [captured / 2, captured - captured / 2],
                variant,
            )
            .expect("a position");
            let game = Game::from_position(p, None);
            match choose(&db, max_n, &game, DEFAULT_BUDGET).map(|c| c.exit_within) {
                Ok(Some(d)) => found.push(d),
                Ok(None) => none += 1,
                Err(e) => panic!("{e}"),
            }
        }
        found.sort();
        let longest = found.last().copied().unwrap_or(0);
        let median = found.get(found.len() / 2).copied().unwrap_or(0);
        println!(
            "| {n} | {} | {longest} | {median} | {none} |",
            found.len() + none
        );
    }
    // The perfect player against itself from the start.
    let mut rules = Rules::STANDARD;
    rules.variant = variant;
    let mut game = Game::new(rules);
    let (mut plies, mut quiet, mut longest_quiet) = (0, 0, 0);
    while !game.is_over() {
        let before =
            game.position().captured(Player::A) as u32 + game.position().captured(Player::B) as u32;
        let c = choose(&db, max_n, &game, DEFAULT_BUDGET).expect("inside the database");
        game.play(c.action).expect("a legal action");
        plies += 1;
        let after =
            game.position().captured(Player::A) as u32 + game.position().captured(Player::B) as u32;
        if after == before {
            quiet += 1;
            longest_quiet = longest_quiet.max(quiet);
        } else {
            quiet = 0;
        }
    }
    println!();
    println!(
        "perfect against itself from the start: {plies} actions, the longest stretch without a capture {longest_quiet}, the end {:?}",
        game.outcome()
    );
}

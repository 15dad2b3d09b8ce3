//! The perfect player (gore_solver::perfect) in play: from sampled exact
//! positions (LB = UB) of the layers up to 16, against gore-ai's strongest
//! level, its final share is never below the database's value; against
//! itself, won lines end and never by repetition.

use std::sync::atomic::AtomicBool;

use gore_ai::{Engine, Limits, Options};
use gore_core::{EndReason, Game, Player, Variant};
use gore_solver::board::position_of;
use gore_solver::index::{layer_size, unrank};
use gore_solver::moves::is_ended;
use gore_solver::par::Sequential;
use gore_solver::perfect::{choose, DEFAULT_BUDGET};
use gore_solver::{solve, Lookup, Memory};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const TOP: usize = 16;

fn variant(skip: bool) -> Variant {
    let mut v = Variant::STANDARD;
    v.no_trades = true;
    v.skip_origin = skip;
    v
}

/// `count` exact boards of layers `lo..=TOP` on which the game is on,
/// drawn with a fixed seed: (layer, board, value).
fn exact_boards(db: &Memory, lo: usize, count: usize, seed: u64) -> Vec<(usize, [u8; 8], u8)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let n = rng.gen_range(lo..=TOP);
        let r = rng.gen_range(0..layer_size(n));
        let b = unrank(n, r);
        let x = db.values(n, r);
        if x.exact() && !is_ended(&b) {
            out.push((n, b, x.lb));
        }
    }
    out
}

/// A game from `b` with A to move (the captured seeds split so the total
/// is 48).
fn game_on(b: &[u8; 8], n: usize, skip: bool) -> Game {
    let rest = (48 - n) as u8;
    let p = position_of(b, Player::A, [rest / 2, rest - rest / 2], variant(skip)).unwrap();
    Game::from_position(p, None)
}

/// A's final seeds of the board's `n`, in half seeds.
fn share_of_a(g: &Game, n: usize) -> u8 {
    let start_a = g.start().captured(Player::A);
    let o = g.outcome().expect("over");
    let _ = n;
    2 * (o.seeds[0] - start_a)
}

#[test]
fn never_below_the_value_against_the_max_level() {
    for skip in [false, true] {
        let db = solve::solve_up_to(TOP, skip, &Sequential);
        let mut engine = Engine::new(Options::default());
        let stop = AtomicBool::new(false);
        for (n, b, value) in exact_boards(&db, 8, 40, 11 + skip as u64) {
            let mut g = game_on(&b, n, skip);
            engine.new_game();
            let mut plies = 0;
            while !g.is_over() {
                let a = if g.position().to_move() == Player::A {
                    choose(&db, TOP, &g, DEFAULT_BUDGET).unwrap().action
                } else {
                    engine
                        .choose(&g, &Limits::nodes(20_000), &stop)
                        .expect("an action")
                };
                g.play(a).unwrap();
                plies += 1;
                assert!(plies < 2000, "{b:?}: no end in sight");
            }
            let got = share_of_a(&g, n);
            assert!(
                got >= value,
                "{b:?} (skip-origin {skip}): the perfect player got {got} half seeds, the value is {value}: {:?}",
                g.actions()
            );
        }
    }
}

#[test]
fn against_itself_won_lines_end_without_repetition() {
    for skip in [false, true] {
        let db = solve::solve_up_to(TOP, skip, &Sequential);
        let mut won = 0;
        for (n, b, value) in exact_boards(&db, 8, 150, 5 + skip as u64) {
            let mut g = game_on(&b, n, skip);
            while !g.is_over() {
                let a = choose(&db, TOP, &g, DEFAULT_BUDGET).unwrap().action;
                g.play(a).unwrap();
                assert!(g.actions().len() < 2000, "{b:?}: no end in sight");
            }
            // Both sides keep V: the result is the value.
            assert_eq!(share_of_a(&g, n), value, "{b:?} (skip-origin {skip})");
            if value > n as u8 {
                won += 1;
                let reason = g.outcome().unwrap().reason;
                assert_ne!(reason, EndReason::Repetition, "{b:?}: {:?}", g.actions());
            }
        }
        assert!(won > 0, "no won line sampled");
    }
}

/// A player that keeps V and nothing more, and among the actions that
/// keep it prefers to stay in the layer, on the position seen most: what
/// keeping V alone allows.
fn cycler(db: &Memory, g: &Game) -> gore_core::Action {
    let p = g.position();
    let (b, n) = gore_solver::board::board_of(p).unwrap();
    let v = db.values(n, gore_solver::index::rank(&b)).v as i32;
    let all = 2 * n as i32;
    let mut best: Option<(i32, gore_core::Action)> = None;
    for a in p.legal_actions().iter().copied() {
        let q = p.play(a).unwrap();
        let (score, pref) = if q.is_ended() {
            let mine = q.sweep_totals()[p.to_move().index()] - p.captured(p.to_move());
            (2 * mine as i32, 0)
        } else {
            let (nb, m) = gore_solver::board::board_of(&q).unwrap();
            let x = db.values(m, gore_solver::index::rank(&nb)).v as i32;
            let seen = g.history().iter().filter(|h| **h == q).count() as i32;
            (
                all - 2 * m as i32 + 2 * m as i32 - x,
                if m == n { 1 + seen } else { 0 },
            )
        };
        if score >= v && best.is_none_or(|(bp, _)| pref > bp) {
            best = Some((pref, a));
        }
    }
    best.expect("an action keeps V").1
}

/// Boards where keeping V is not enough: won (V > n/2 seeds), exact, and
/// two players that only keep V go round until the third occurrence. The
/// perfect player, from each, against the same V-keeper, leaves the
/// cycle and gets its value.
#[test]
fn where_keeping_v_cycles_the_perfect_player_progresses() {
    for skip in [false, true] {
        let db = solve::solve_up_to(TOP, skip, &Sequential);
        let mut rng = ChaCha8Rng::seed_from_u64(99);
        let mut found = 0;
        let mut tried = 0;
        while found < 10 && tried < 20_000 {
            tried += 1;
            let n = rng.gen_range(8..=TOP);
            let r = rng.gen_range(0..layer_size(n));
            let b = unrank(n, r);
            let x = db.values(n, r);
            if !x.exact() || is_ended(&b) || x.v <= n as u8 {
                continue;
            }
            let mut g = game_on(&b, n, skip);
            while !g.is_over() {
                g.play(cycler(&db, &g)).unwrap();
            }
            if g.outcome().unwrap().reason != EndReason::Repetition {
                continue;
            }
            found += 1;
            let mut g = game_on(&b, n, skip);
            while !g.is_over() {
                let a = if g.position().to_move() == Player::A {
                    choose(&db, TOP, &g, DEFAULT_BUDGET).unwrap().action
                } else {
                    cycler(&db, &g)
                };
                g.play(a).unwrap();
            }
            assert_ne!(g.outcome().unwrap().reason, EndReason::Repetition, "{b:?}");
            assert!(share_of_a(&g, n) >= x.v, "{b:?}: {:?}", g.actions());
        }
        eprintln!("skip {skip}: {found} cycling boards of {tried}");
        assert!(
            found > 0,
            "no board where keeping V cycles (skip-origin {skip})"
        );
    }
}

/// Among actions of equal value: losing, the perfect player holds out;
/// winning, it ends the game. Checked by hand on the 4-seed layer (A to
/// move; B's holes are empty, so B can only pass):
/// - `0,1,0,3/0,0,0,0`: A can keep 1 seed of the 4 at best (V = 2 half
///   seeds). a4 (3 seeds into b1..b3) ends the game at once with a2's 1
///   seed; a2 (into a3) keeps the same value — B passes, then a4 ends it
///   with a3's seed — two actions later. (a3 after a2 would lose it all:
///   a4=4 then sows into every B hole.) So A plays a2.
/// - `3,1,0,0/0,0,0,0`: A takes all 4 (V = 8) by a1 (a2=2, a3=1, a4=1: the
///   end) at once, or by a2 then a1 later: A plays a1.
#[test]
fn equal_values_the_loser_holds_out_and_the_winner_ends_it() {
    let db = gore_solver::naive::memory(4, false);
    for (board, v, play) in [
        ([0, 1, 0, 3, 0, 0, 0, 0], 2, "a2"),
        ([3, 1, 0, 0, 0, 0, 0, 0], 8, "a1"),
    ] {
        let g = game_on(&board, 4, false);
        let c = choose(&db, 4, &g, DEFAULT_BUDGET).unwrap();
        assert_eq!(c.values.v, v, "{board:?}");
        assert_eq!(c.action.to_string(), play, "{board:?}: {c}");
        // Played out by the perfect player on both sides, the value holds.
        let mut g = g;
        while !g.is_over() {
            let a = choose(&db, 4, &g, DEFAULT_BUDGET).unwrap().action;
            g.play(a).unwrap();
        }
        assert_eq!(share_of_a(&g, 4), v, "{board:?}: {:?}", g.actions());
    }
}

//! Converting wins: among actions of equal value the engine ends the game
//! sooner when winning and later when losing.
//!
//! The reference is a plain minimax over `gore_core::Game` (no pruning, no
//! table) whose players compare lines first by their final seed
//! difference, then by their length: the shorter when the difference is
//! theirs, the longer when it is against them (either on a draw). Nothing
//! here comes from the engine's output.

mod common;

use std::sync::atomic::AtomicBool;

use common::{after, game_from};
use gore_ai::{Engine, Level, Limits, Options, MAX_LEVEL, SEED};
use gore_core::{Action, Game, Hole, Rules};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn engine() -> Engine {
    Engine::new(Options {
        hash_mb: 1,
        ..Options::default()
    })
}

/// The line's ordering key for the player to move: its value, then its
/// length as a tie-break (shorter is better when winning).
fn key(v: i32, len: u32) -> i64 {
    v as i64 * 10_000 - v.signum() as i64 * len as i64
}

/// Longest line the reference follows (the positions tested are small).
const MAX_LINE: usize = 60;

/// The value (final seed difference for the player to move) and the
/// length in plies of the game from `game` under perfect play by
/// [`key`]; `None` past `limit` nodes or [`MAX_LINE`] plies.
fn reference(game: &Game, limit: u64, nodes: &mut u64, ply: usize) -> Option<(i32, u32)> {
    *nodes += 1;
    if *nodes > limit || ply > MAX_LINE {
        return None;
    }
    if game.is_over() {
        let me = game.position().to_move();
        return Some((common::final_diff(game, me), 0));
    }
    let mut best: Option<(i32, u32)> = None;
    for &a in game.legal_actions().iter() {
        let (v, len) = child_line(game, a, limit, nodes, ply)?;
        if best.is_none_or(|(bv, bl)| key(v, len) > key(bv, bl)) {
            best = Some((v, len));
        }
    }
    best
}

/// The value and length for the player to move in `game` of playing `a`
/// there, then perfect play.
fn child_line(
    game: &Game,
    a: Action,
    limit: u64,
    nodes: &mut u64,
    ply: usize,
) -> Option<(i32, u32)> {
    let me = game.position().to_move();
    let child = after(game, a);
    let (v, len) = if child.is_over() {
        (common::final_diff(&child, me), 0)
    } else {
        let (cv, cl) = reference(&child, limit, nodes, ply + 1)?;
        let v = if child.position().to_move() == me {
            cv
        } else {
            -cv
        };
        (v, cl)
    };
    Some((v, len + 1))
}

/// Every legal action of `game` with its reference line.
fn lines(game: &Game, limit: u64) -> Option<Vec<(Action, i32, u32)>> {
    let mut nodes = 0;
    game.legal_actions()
        .iter()
        .map(|&a| child_line(game, a, limit, &mut nodes, 0).map(|(v, l)| (a, v, l)))
        .collect()
}

fn best_key(lines: &[(Action, i32, u32)]) -> i64 {
    lines
        .iter()
        .map(|&(_, v, l)| key(v, l))
        .max()
        .expect("an action")
}

fn search(engine: &mut Engine, game: &Game, limits: &Limits) -> gore_ai::SearchResult {
    engine
        .search(game, limits, &AtomicBool::new(false), &mut |_| {})
        .expect("a live game")
}

fn sow(name: &str) -> Action {
    Action::Sow(name.parse::<Hole>().expect("a hole"))
}

/// A hand-built case: the action the engine must play, and an action of
/// the same value it must not (a longer win, a shorter loss).
struct Case {
    gpn: &'static str,
    rules: &'static str,
    play: &'static str,
    not: &'static str,
    /// The value of both, for the player to move.
    value: i32,
    why: &'static str,
}

const CASES: &[Case] = &[
    Case {
        gpn: "0,0,3,0/0,0,1,0 AAAA/BBAB 43-1 A -",
        rules: "no-trades",
        play: "a3",
        not: "b3",
        value: 42,
        why: "the issue's case in small: A holds all the seeds, B's holes are empty. \
              a3 (3 seeds: a4=1, b1=1, b2=1, no capture) leaves every hole at most 2: \
              the game ends, A sweeps a4 and b3 (45-3, +42). b3 (b4=1) lets B sow b4 \
              into a1 and A can still end it at +42, two plies later",
    },
    Case {
        gpn: "3,1,1,1/0,0,0,0 BBAB/BAAA 30-12 B -",
        rules: "no-trades",
        play: "a4",
        not: "a2",
        value: -14,
        why: "B loses by 14 at best (a1 loses by 16 at once); a4 holds out longest",
    },
];

#[test]
fn equal_values_the_winner_finishes_and_the_loser_holds_out() {
    for c in CASES {
        let game = game_from(c.gpn, c.rules);
        let lines = lines(&game, 2_000_000).expect("a small proof");
        let find = |name: &str| *lines.iter().find(|l| l.0 == sow(name)).expect("legal");
        let (play, not) = (find(c.play), find(c.not));
        // The proof agrees with the comment: equal values, and the one to
        // play is the best key.
        assert_eq!((play.1, not.1), (c.value, c.value), "{}: {lines:?}", c.why);
        assert_eq!(
            key(play.1, play.2),
            best_key(&lines),
            "{}: {lines:?}",
            c.why
        );
        assert!(key(play.1, play.2) > key(not.1, not.2), "{}", c.why);
        // Deep enough to reach the end of every line (shallower, the
        // evaluation's guesses differ from the values: no tie to break).
        let mut tree = common::Tree::default();
        common::try_action_values(&game, 2_000_000, &mut tree).expect("small");
        let exact = (3 * tree.height + 3).min(Limits::MAX_DEPTH);
        for depth in exact..=(exact + 6).min(Limits::MAX_DEPTH) {
            let r = search(&mut engine(), &game, &Limits::depth(depth));
            assert_eq!(r.best, sow(c.play), "{}, depth {depth}: {r:?}", c.gpn);
        }
        for nodes in [2_000, 20_000, 200_000] {
            let r = search(&mut engine(), &game, &Limits::nodes(nodes));
            assert_eq!(r.best, sow(c.play), "{}, {nodes} nodes: {r:?}", c.gpn);
            assert_eq!(r.score, c.value * SEED, "{}, {nodes} nodes", c.gpn);
        }
        let mut top = Engine::new(Options {
            level: Level::new(MAX_LEVEL).expect("top"),
            hash_mb: 1,
            ..Options::default()
        });
        let a = top.choose(&game, &Limits::nodes(20_000), &AtomicBool::new(false));
        assert_eq!(a, Some(sow(c.play)), "{}: the top level", c.gpn);
    }
}

/// Random small positions of every kind, standard rules and no trades:
/// the engine searching to the end of every line plays an action of the
/// reference's best key (the best value, reached soonest when winning,
/// latest when losing), and reports the value alone as its score.
#[test]
fn the_engine_takes_the_shortest_win_and_the_longest_loss() {
    big_stack(shortest_win_longest_loss);
}

/// Runs `f` on a thread with room for the reference's recursion (one
/// frame per ply of its longest line).
fn big_stack(f: fn()) {
    std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(f)
        .expect("a thread")
        .join()
        .expect("the test passes");
}

fn shortest_win_longest_loss() {
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let (mut won, mut lost, mut tested) = (0, 0, 0);
    let mut failures = Vec::new();
    for rules in ["standard", "no-trades"] {
        let rules: Rules = rules.parse().expect("rules");
        let (mut tries, mut here) = (0, 0);
        while here < 30 && tries < 4_000 {
            tries += 1;
            let Some(game) = small_ending(&mut rng, rules) else {
                continue;
            };
            let Some(lines) = lines(&game, 20_000) else {
                continue;
            };
            // The whole tree's height, not just the best lines' lengths.
            let mut tree = common::Tree::default();
            if common::try_action_values(&game, 20_000, &mut tree).is_none() {
                continue;
            }
            let height = tree.height;
            // Positions where the tie-break matters: equal values, lengths differ.
            let bv = lines.iter().map(|l| l.1).max().expect("an action");
            let best: Vec<_> = lines.iter().filter(|l| l.1 == bv).collect();
            if best.len() < 2 || best.iter().all(|l| l.2 == best[0].2) || bv == 0 {
                continue;
            }
            tested += 1;
            here += 1;
            if bv > 0 {
                won += 1;
            } else {
                lost += 1;
            }
            let depth = (3 * height + 3).min(Limits::MAX_DEPTH);
            let r = search(&mut engine(), &game, &Limits::depth(depth));
            let chosen = lines.iter().find(|l| l.0 == r.best).expect("legal");
            if key(chosen.1, chosen.2) != best_key(&lines) || r.score != bv * SEED {
                failures.push(format!(
                    "{} [{}]: chose {} (score {}) {chosen:?} among {lines:?}",
                    game.position(),
                    game.rules(),
                    r.best,
                    r.score
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(won >= 5 && lost >= 5, "won {won}, lost {lost} of {tested}");
}

/// A random position with 3 to 8 seeds on the board (captured totals,
/// controllers and the player to move at random), not over.
fn small_ending(rng: &mut ChaCha8Rng, rules: Rules) -> Option<Game> {
    use rand::Rng;
    let n: u8 = rng.gen_range(3..=8);
    let mut holes = [0u8; 8];
    for _ in 0..n {
        holes[rng.gen_range(0..8)] += 1;
    }
    let ctl: String = (0..8)
        .map(|i| {
            let c = if rng.gen_bool(0.5) { 'A' } else { 'B' };
            if i == 4 {
                format!("/{c}")
            } else {
                c.to_string()
            }
        })
        .collect();
    let a: u8 = rng.gen_range(0..=48 - n);
    let gpn = format!(
        "{},{},{},{}/{},{},{},{} {ctl} {a}-{} {} -",
        holes[0],
        holes[1],
        holes[2],
        holes[3],
        holes[4],
        holes[5],
        holes[6],
        holes[7],
        48 - n - a,
        if rng.gen_bool(0.5) { 'A' } else { 'B' }
    );
    let pos = gore_core::Position::from_gpn(&gpn, rules.variant).ok()?;
    let game = Game::from_position(pos, rules.ply_cap);
    (!game.is_over()).then_some(game)
}

/// Self-play from random won positions like the issue's: the winner holds
/// every hole but one and every seed on the board; its opponent can only
/// pass. The reference says how long the quickest win (against the
/// longest resistance) is; the engine, searching to the end of every line
/// on both sides, must end the game in exactly that many plies, and with
/// the proven score. (Before, nothing made it finish: every line scored
/// the same.)
#[test]
fn self_play_from_won_positions_ends_in_the_shortest_forced_length() {
    big_stack(self_play_from_won_positions);
}

fn self_play_from_won_positions() {
    use rand::Rng;
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut checked = 0;
    for _ in 0..200 {
        if checked >= 12 {
            break;
        }
        // Up to 7 seeds in A's first holes; b4 (B's only hole) empty.
        let mut holes = [0u8; 8];
        let mut left: u8 = rng.gen_range(4..=7);
        let on_board = left;
        while left > 0 {
            let h = rng.gen_range(0..5);
            holes[h] += 1;
            left -= 1;
        }
        if holes.iter().all(|&s| s <= 2) {
            continue;
        }
        let cap_b = 4;
        let cap_a = 48 - cap_b - on_board;
        let gpn = format!(
            "{},{},{},{}/{},{},{},{} AAAA/AAAB {cap_a}-{cap_b} A -",
            holes[0], holes[1], holes[2], holes[3], holes[4], holes[5], holes[6], holes[7]
        );
        let mut game = game_from(&gpn, "standard");
        let mut nodes = 0;
        let Some((v, len)) = reference(&game, 100_000, &mut nodes, 0) else {
            continue;
        };
        if v <= 0 {
            continue;
        }
        let mut tree = common::Tree::default();
        if common::try_exact_for(&game, gore_core::Player::A, 100_000, &mut tree).is_none() {
            continue;
        }
        checked += 1;
        let depth = (3 * tree.height + 3).min(Limits::MAX_DEPTH);
        let mut e = engine();
        let mut plies = 0;
        while !game.is_over() && plies <= len + 20 {
            let r = search(&mut e, &game, &Limits::depth(depth));
            game.play(r.best).expect("legal");
            plies += 1;
        }
        assert!(game.is_over(), "{gpn}: not over after {plies} plies");
        assert_eq!(plies, len, "{gpn}: {}", game.actions().len());
        assert_eq!(
            common::final_diff(&game, gore_core::Player::A),
            v,
            "{gpn}: the value"
        );
    }
    assert!(checked >= 8, "only {checked} positions checked");
}

//! The solver's own sowing against gore-core's rules, on every board of
//! the layers 0 to 12 and on sampled boards of every layer, under both
//! rule sets: the same actions, the same captures, the same next board
//! (from the opponent's side), the same end and sweep.

use gore_core::{Action, Hole, Player, Position, Variant};
use gore_solver::board::{board_of, position_of};
use gore_solver::index::{layer_size, unrank};
use gore_solver::moves::{is_ended, moves, Outcome};

fn variant(skip_origin: bool) -> Variant {
    let mut v = Variant::STANDARD;
    v.no_trades = true;
    v.skip_origin = skip_origin;
    v
}

const MINE: [Hole; 4] = [Hole::A1, Hole::A2, Hole::A3, Hole::A4];

/// What gore-core says each action leads to, A to move on `board` (A's
/// row first), in the solver's terms.
fn reference(board: &[u8; 8], n: usize, v: Variant) -> Vec<(Option<u8>, Outcome)> {
    let p = position_of(board, Player::A, [48 - n as u8, 0], v).unwrap();
    let mut out = Vec::new();
    for a in p.legal_actions().iter().copied() {
        let (next, effect) = p.play_effect(a).unwrap();
        let hole = match a {
            Action::Sow(h) => Some(MINE.iter().position(|&m| m == h).unwrap() as u8),
            Action::Pass => None,
            other => panic!("a no-trade position offered {other}"),
        };
        let outcome = if next.is_ended() {
            // The sweep: A's total at the end, less what A had before.
            let swept = next.swept();
            let mover = swept.captured(Player::A) - (48 - n as u8);
            Outcome::End { mover }
        } else {
            let (b, _) = board_of(&next).unwrap();
            if effect.seeds_captured > 0 {
                Outcome::Capture {
                    seeds: effect.seeds_captured,
                    next: b,
                }
            } else {
                Outcome::Stay { next: b }
            }
        };
        out.push((hole, outcome));
    }
    out
}

fn check(board: &[u8; 8], n: usize, skip: bool) {
    if is_ended(board) {
        return; // no moves: gore-core has none either (checked below)
    }
    let mine: Vec<_> = moves(board, skip).collect();
    let theirs = reference(board, n, variant(skip));
    assert_eq!(mine, theirs, "board {board:?}, skip-origin {skip}");
}

#[test]
fn every_board_of_the_small_layers() {
    for n in 0..=12 {
        for r in 0..layer_size(n) {
            let b = unrank(n, r);
            for skip in [false, true] {
                check(&b, n, skip);
                if is_ended(&b) {
                    let p = position_of(&b, Player::A, [48 - n as u8, 0], variant(skip)).unwrap();
                    assert!(p.legal_actions().is_empty(), "{b:?}");
                }
            }
        }
    }
}

/// Sampled boards of every layer up to 48 (laps of 8 seeds and more, and
/// the whole board taken, live there).
#[test]
fn sampled_boards_of_every_layer() {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for n in 13..=48 {
        for _ in 0..400 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let b = unrank(n, x % layer_size(n));
            for skip in [false, true] {
                check(&b, n, skip);
            }
        }
    }
}

/// The worked examples of the rules (B to move, sowing b2): seen from B,
/// b2 is the mover's hole 1.
#[test]
fn the_rules_worked_examples() {
    let v = variant(false);
    let cases = [
        ("1,3,1,5/3,4,2,1 AAAA/BBBB 28-0 B -", 8u8),
        ("0,1,1,1/2,6,3,0 AAAA/BBBB 34-0 B -", 8),
    ];
    for (gpn, seeds) in cases {
        let p = Position::from_gpn(gpn, v).unwrap();
        let (b, _) = board_of(&p).unwrap();
        let out = gore_solver::moves::sow(&b, 1, false);
        match out {
            Outcome::Capture { seeds: s, .. } => assert_eq!(s, seeds, "{gpn}"),
            o => panic!("{gpn}: {o:?}"),
        }
    }
    // The third takes every hole with seeds (22) and ends the game.
    let p = Position::from_gpn("3,2,4,2/4,3,1,3 AAAA/BBBB 26-0 B -", v).unwrap();
    let (b, _) = board_of(&p).unwrap();
    assert_eq!(
        gore_solver::moves::sow(&b, 1, false),
        Outcome::End { mover: 22 }
    );
}

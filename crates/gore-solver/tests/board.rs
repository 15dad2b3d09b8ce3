//! Boards of positions: seen from the player to move, the same board
//! whoever moves, and back again; positions with trades are refused.

use gore_core::{Game, Player, Position, Rules, Variant};
use gore_solver::board::{board_of, position_of, Outside};
use gore_solver::index::{layer_size, rank, unrank};

fn no_trades() -> Variant {
    let mut v = Variant::STANDARD;
    v.no_trades = true;
    v
}

/// A little generator of its own (so the games are the same every run).
struct Lcg(u64);
impl Lcg {
    fn pick(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n
    }
}

/// Along seeded random no-trade games: each position's board, put back
/// with the same mover and captured totals, is the same position; its
/// layer is the seeds on the board; its rank is inside the layer and
/// unranks to it.
#[test]
fn positions_of_random_games_round_trip() {
    let rules = Rules {
        variant: no_trades(),
        ply_cap: None,
    };
    let mut rng = Lcg(7);
    for _ in 0..50 {
        let mut g = Game::new(rules);
        while !g.is_over() {
            let p = *g.position();
            let (board, n) = board_of(&p).expect("a no-trade position");
            assert_eq!(n as u32, p.seeds_on_board());
            let back = position_of(
                &board,
                p.to_move(),
                [p.captured(Player::A), p.captured(Player::B)],
                no_trades(),
            )
            .unwrap();
            assert_eq!(back, p);
            let r = rank(&board);
            assert!(r < layer_size(n));
            assert_eq!(unrank(n, r), board);
            let legal = g.legal_actions();
            let a = legal[rng.pick(legal.len())];
            g.play(a).unwrap();
        }
    }
}

/// B to move on a board is A to move on its two rows swapped.
#[test]
fn the_mover_reads_his_row_first() {
    let v = no_trades();
    let b_moves = Position::from_gpn("1,2,3,4/5,6,7,8 AAAA/BBBB 12-0 B -", v).unwrap();
    let a_moves = Position::from_gpn("5,6,7,8/1,2,3,4 AAAA/BBBB 12-0 A -", v).unwrap();
    assert_eq!(board_of(&b_moves), board_of(&a_moves));
    assert_eq!(board_of(&a_moves).unwrap().0, [5, 6, 7, 8, 1, 2, 3, 4]);
}

/// Positions with trades are not the database's.
#[test]
fn positions_with_trades_are_outside() {
    let standard =
        Position::from_gpn("6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 A -", Variant::STANDARD).unwrap();
    assert_eq!(board_of(&standard), Err(Outside::TradesAllowed));
    // The rules library takes a set-up position with a hole changed hands
    // under no-trades (it could come from a game with trades); the
    // database does not.
    let traded = Position::from_gpn("1,2,3,4/5,6,7,8 AABA/BBBB 12-0 A -", no_trades()).unwrap();
    assert_eq!(board_of(&traded), Err(Outside::HolesTraded));
}

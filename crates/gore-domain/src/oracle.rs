//! The solver's database as gore-ai's leaf evaluation ([`gore_ai::Oracle`]):
//! the server's top level asks it when started with `--solver-db`, and so
//! do `gore match` engines with the option `oracle`.
//!
//! In a no-trade game a position's V is its value (with never-ending play
//! an even split); in a game with trades the database knows only play
//! without them, so its answer is an estimate, asked wherever the rows are
//! still whole and no offer is pending. It is kept because matches show it
//! helps, with trades too (docs/SOLVED.md, "The database as an evaluation").

use std::path::Path;

use std::sync::Arc;

use anyhow::{Context, Result};
use gore_ai::{Oracle, SEED};
use gore_core::Position;
use gore_solver::board::board_ignoring_trades;
use gore_solver::disk::Database;
use gore_solver::index::rank;
use gore_solver::Lookup;

/// The database of one rule set, answering for the positions it holds.
#[derive(Debug)]
pub struct DbOracle {
    db: Arc<Database>,
    max_n: usize,
    skip_origin: bool,
}

impl DbOracle {
    /// Opens the database under `dir` for the rules `no-trades` with
    /// `skip-origin` as given; refused when it holds no layer.
    pub fn open(dir: &Path, skip_origin: bool) -> Result<DbOracle> {
        let db = Database::open(dir, skip_origin)
            .with_context(|| format!("--solver-db {}", dir.display()))?;
        DbOracle::new(Arc::new(db)).with_context(|| {
            format!(
                "--solver-db {}: no layer of its rules (run gore solve --db {})",
                dir.display(),
                dir.display()
            )
        })
    }

    /// Over a database already open (shared with the perfect player, so
    /// its files are mapped and checked once); `None` when it holds no
    /// layer.
    pub fn new(db: Arc<Database>) -> Option<DbOracle> {
        let max_n = db.max_layer()?;
        let skip_origin = db.skip_origin();
        Some(DbOracle {
            db,
            max_n,
            skip_origin,
        })
    }

    /// Whether it answers for games of this `skip-origin`.
    pub fn skip_origin(&self) -> bool {
        self.skip_origin
    }
}

impl Oracle for DbOracle {
    fn score(&self, pos: &Position) -> Option<i32> {
        // `seeds=N` changes only the start: its boards are the same boards.
        if pos.variant().skip_origin != self.skip_origin {
            return None;
        }
        let (board, n) = board_ignoring_trades(pos).ok()?;
        if n > self.max_n {
            return None;
        }
        let v = self.db.values(n, rank(&board)).v as i32;
        let me = pos.to_move();
        let captured = pos.captured(me) as i32 - pos.captured(me.opponent()) as i32;
        // The mover ends with his captures and V half seeds of the n on the
        // board, the opponent with his and the rest: a difference of
        // captured + V − n seeds.
        Some((captured + v - n as i32) * SEED)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gore_core::Variant;

    /// A database of the layers 0 to 6, by the reference solver.
    fn small_db() -> (tempfile::TempDir, DbOracle) {
        let dir = tempfile::tempdir().expect("a temporary directory");
        for layer in gore_solver::naive::memory(6, false).layers {
            gore_solver::disk::write_layer(dir.path(), &layer, false).expect("written");
        }
        let oracle = DbOracle::open(dir.path(), false).expect("opened");
        (dir, oracle)
    }

    /// Three seeds in A's first hole, A to move, 20-25 captured: sowing them
    /// ends the game with all 3 A's (hand arithmetic), 23-25: −2 seeds for
    /// A. The same under the standard rules, where the database is only an
    /// estimate; nothing for a traded hole, or beyond the database's layers.
    #[test]
    fn scores_are_the_final_difference() {
        let (_dir, oracle) = small_db();
        let mut no_trades = Variant::STANDARD;
        no_trades.no_trades = true;
        let gpn = "3,0,0,0/0,0,0,0 AAAA/BBBB 20-25 A -";
        for v in [no_trades, Variant::STANDARD] {
            let p = Position::from_gpn(gpn, v).expect("a position");
            assert_eq!(oracle.score(&p), Some(-2 * SEED), "{v:?}");
        }
        // B to move on the same board: B can only pass, A then sows: B ends
        // with none of the 3: 25 − 23.
        let p = Position::from_gpn("3,0,0,0/0,0,0,0 AAAA/BBBB 20-25 B -", no_trades).unwrap();
        assert_eq!(oracle.score(&p), Some(2 * SEED));
        let traded = Position::from_gpn("3,0,0,0/0,0,0,0 AAAB/BBBB 20-25 A -", Variant::STANDARD)
            .expect("a position with a traded hole");
        assert_eq!(oracle.score(&traded), None);
        let big = Position::from_gpn("3,4,0,0/0,0,0,0 AAAA/BBBB 20-21 A -", no_trades).unwrap();
        assert_eq!(oracle.score(&big), None, "7 seeds: beyond layer 6");
    }
}

//! The puzzles the server serves: a book loaded once at start (the
//! embedded `puzzles/puzzles.txt`, or `gore serve --puzzles FILE`), the
//! choice of a next puzzle near a player's rating, and the check of an
//! answer. No HTTP here: http.rs reads the requests and writes the
//! answers (the wire types).

use std::collections::{HashMap, HashSet};

use gore_core::Action;
use gore_learn::puzzles::{parse_file, Puzzle, PuzzleError, Theme};
use rand::Rng;

/// The puzzles shipped with the server (`gore puzzles generate`).
pub const EMBEDDED: &str = include_str!("../../puzzles/puzzles.txt");

/// How many of the puzzles nearest the rating a next puzzle is drawn from,
/// so that a player at one rating does not always meet the same one.
const NEAREST: usize = 8;

/// The loaded puzzles.
#[derive(Debug, Clone)]
pub struct PuzzleBook {
    puzzles: Vec<Puzzle>,
    by_id: HashMap<String, usize>,
}

/// What an answer to a puzzle was: right or not, and the puzzle's solution.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict<'a> {
    /// The answer was the puzzle's.
    pub correct: bool,
    /// The puzzle.
    pub puzzle: &'a Puzzle,
}

impl PuzzleBook {
    /// The embedded puzzles.
    pub fn embedded() -> Result<PuzzleBook, PuzzleError> {
        PuzzleBook::parse(EMBEDDED)
    }

    /// Puzzles from a file's text (docs/NOTATION.md, "Puzzle files").
    pub fn parse(text: &str) -> Result<PuzzleBook, PuzzleError> {
        let puzzles = parse_file(text)?;
        let by_id = puzzles
            .iter()
            .enumerate()
            .map(|(i, p)| (p.id.clone(), i))
            .collect();
        Ok(PuzzleBook { puzzles, by_id })
    }

    /// Every puzzle, in the file's order.
    pub fn all(&self) -> &[Puzzle] {
        &self.puzzles
    }

    /// The puzzle of this id.
    pub fn get(&self, id: &str) -> Option<&Puzzle> {
        self.by_id.get(id).map(|&i| &self.puzzles[i])
    }

    /// A puzzle near `rating` (of `theme`, if given), drawn among the
    /// 8 nearest; puzzles in `seen` only when every other is
    /// seen too. `None` only when no puzzle has the theme.
    pub fn next(
        &self,
        rating: i32,
        theme: Option<Theme>,
        seen: &HashSet<&str>,
        rng: &mut impl Rng,
    ) -> Option<&Puzzle> {
        let of_theme: Vec<&Puzzle> = self
            .puzzles
            .iter()
            .filter(|p| theme.is_none_or(|t| p.themes.contains(&t)))
            .collect();
        let fresh: Vec<&Puzzle> = of_theme
            .iter()
            .copied()
            .filter(|p| !seen.contains(p.id.as_str()))
            .collect();
        let mut pool = if fresh.is_empty() { of_theme } else { fresh };
        pool.sort_by_key(|p| (p.rating - rating).abs());
        pool.truncate(NEAREST);
        if pool.is_empty() {
            return None;
        }
        Some(pool[rng.gen_range(0..pool.len())])
    }

    /// Checks an answer to the puzzle `id`; `None` for an unknown puzzle.
    pub fn solve(&self, id: &str, action: Action) -> Option<Verdict<'_>> {
        let puzzle = self.get(id)?;
        Some(Verdict {
            correct: puzzle.answer == action,
            puzzle,
        })
    }
}

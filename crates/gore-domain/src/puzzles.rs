//! The puzzles the server serves: a book loaded once at start (the
//! embedded `puzzles/puzzles.txt`, or `gore serve --puzzles FILE`), the
//! choice of a next puzzle near a player's rating, and the check of an
//! answer. No HTTP here: http.rs reads the requests and writes the
//! answers (the wire types).

use std::collections::HashMap;

use gore_core::Action;
use gore_learn::puzzles::{key_theme, parse_file, Puzzle, PuzzleError, Theme, START_RATING};
use rand::Rng;

/// The puzzles shipped with the server (`gore puzzles generate`).
pub const EMBEDDED: &str = include_str!("../puzzles/puzzles.txt");

/// How many of the puzzles nearest the rating a next puzzle is drawn from,
/// so that a player at one rating does not always meet the same one.
const NEAREST: usize = 8;

/// A solver who has seen fewer puzzles than this, his rating still near
/// the start (within [`WARM_UP_RATING`] of 1500), is new: he is served
/// puzzles from the easy end of the book (1500 is the middle of the
/// scale), rising a step with each one.
const WARM_UP: usize = 5;

/// How far from the start rating a new solver may be: what five puzzles
/// can move it (K = 32 each).
const WARM_UP_RATING: i32 = 5 * 32;

/// How many of the last puzzles seen a next puzzle's key theme differs
/// from, when no theme is asked for.
const VARIETY: usize = 2;

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

    /// The themes that have puzzles, with how many each, in the themes'
    /// order ([`Theme::ALL`]): what a theme filter offers (a theme with no
    /// puzzle would only answer "no puzzle").
    pub fn themes(&self) -> Vec<(Theme, usize)> {
        Theme::ALL
            .into_iter()
            .map(|t| {
                (
                    t,
                    self.puzzles
                        .iter()
                        .filter(|p| p.themes.contains(&t))
                        .count(),
                )
            })
            .filter(|&(_, n)| n > 0)
            .collect()
    }

    /// The puzzle of this id.
    pub fn get(&self, id: &str) -> Option<&Puzzle> {
        self.by_id.get(id).map(|&i| &self.puzzles[i])
    }

    /// A puzzle near `rating` (of `theme`, if given), drawn among the
    /// 8 nearest; puzzles in `seen` (the ids seen, the latest first) only
    /// when every other is seen too. With no theme asked for, its key
    /// theme ([`key_theme`]) differs from the last two seen while such a
    /// puzzle remains, so that consecutive puzzles vary. A new solver
    /// (fewer than 5 seen, the rating within 160 of 1500) is aimed at the
    /// book's 8th percentile of rating, then its 16th, … its 40th (never
    /// above his rating): easy ones first. `None` only when no puzzle has the theme.
    pub fn next(
        &self,
        rating: i32,
        theme: Option<Theme>,
        seen: &[&str],
        rng: &mut impl Rng,
    ) -> Option<&Puzzle> {
        let of_theme: Vec<&Puzzle> = self
            .puzzles
            .iter()
            .filter(|p| theme.is_none_or(|t| p.themes.contains(&t)))
            .collect();
        if of_theme.is_empty() {
            return None;
        }
        let fresh: Vec<&Puzzle> = of_theme
            .iter()
            .copied()
            .filter(|p| !seen.contains(&p.id.as_str()))
            .collect();
        let mut pool = if fresh.is_empty() { of_theme } else { fresh };
        let new = seen.len() < WARM_UP && (rating - START_RATING).abs() <= WARM_UP_RATING;
        let target = if new {
            let mut ratings: Vec<i32> = pool.iter().map(|p| p.rating).collect();
            ratings.sort_unstable();
            let at = (ratings.len() - 1) * 8 * (seen.len() + 1) / 100;
            rating.min(ratings[at])
        } else {
            rating
        };
        if theme.is_none() {
            let recent: Vec<Theme> = seen
                .iter()
                .take(VARIETY)
                .filter_map(|id| self.get(id))
                .map(|p| key_theme(&p.themes))
                .collect();
            let varied: Vec<&Puzzle> = pool
                .iter()
                .copied()
                .filter(|p| !recent.contains(&key_theme(&p.themes)))
                .collect();
            if !varied.is_empty() {
                pool = varied;
            }
        }
        pool.sort_by_key(|p| (p.rating - target).abs());
        pool.truncate(NEAREST);
        Some(pool[rng.gen_range(0..pool.len())])
    }

    /// Checks an answer to the puzzle `id`; `None` for an unknown puzzle.
    pub fn solve(&self, id: &str, action: Action) -> Option<Verdict<'_>> {
        let puzzle = self.get(id)?;
        Some(Verdict {
            correct: puzzle.accepts(action),
            puzzle,
        })
    }
}

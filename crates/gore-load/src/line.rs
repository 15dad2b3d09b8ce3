//! A line of play that lasts: `plies` legal actions from the start of the
//! standard rules after which the game is still going.
//!
//! Random play ends within a few dozen plies (the board empties to holes of
//! two seeds or fewer) and threefold repetition ends loops, so the line is
//! found by a depth-first search: each step plays a random legal action
//! whose position is neither ended nor seen twice already (a third time
//! would end the game), and backs up when a position has no such action.
//! Trades put captured seeds back on the board, so the game never has to
//! run down.

use std::collections::HashMap;

use gore_core::{Action, Position, Variant};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// `plies` actions from the standard start that end nothing; `None` if the
/// search backed up to the start (it does not, in practice).
pub fn long_line(plies: usize, seed: u64) -> Option<Vec<Action>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let start = Position::new(Variant::STANDARD);
    let mut seen: HashMap<Position, u8> = HashMap::from([(start, 1)]);
    let mut shuffled = |p: &Position| {
        let mut v: Vec<Action> = p.legal_actions().to_vec();
        v.shuffle(&mut rng);
        v
    };
    // Each position on the line with the actions not yet tried from it.
    let mut stack = vec![(start, shuffled(&start))];
    let mut line = Vec::with_capacity(plies);
    while line.len() < plies {
        let (here, untried) = stack.last_mut()?;
        match untried.pop() {
            Some(a) => {
                let Ok(next) = here.play(a) else { continue };
                let n = seen.entry(next).or_insert(0);
                if next.is_ended() || *n >= 2 {
                    continue;
                }
                *n += 1;
                line.push(a);
                let options = shuffled(&next);
                stack.push((next, options));
            }
            None => {
                let (dead, _) = stack.pop()?;
                if let Some(n) = seen.get_mut(&dead) {
                    *n -= 1;
                }
                line.pop();
            }
        }
    }
    Some(line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gore_core::{Game, Rules};

    /// Played by the rules' own `Game` (which counts repetition), the line
    /// leaves the game going.
    #[test]
    fn the_line_is_legal_and_the_game_goes_on() {
        let line = long_line(3000, 7).expect("a line");
        assert_eq!(line.len(), 3000);
        let mut g = Game::new(Rules::STANDARD);
        for (i, a) in line.iter().enumerate() {
            g.play(*a).unwrap_or_else(|e| panic!("ply {i}: {e}"));
            assert!(!g.is_over(), "over after ply {}", i + 1);
        }
    }
}

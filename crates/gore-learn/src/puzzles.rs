//! (puzzles: to be written.)

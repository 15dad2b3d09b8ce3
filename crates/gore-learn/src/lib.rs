//! # gore-learn — learning Goré
//!
//! What the app teaches with, kept apart from any transport: the engine's
//! analysis of a position and of each of its actions ([`analysis`]), the
//! review of a finished game ([`review`]), the lessons of a guided first
//! game ([`lessons`]) and puzzles ([`puzzles`]). It sits beside the server
//! and the CLI, over the AI, the solver and the rules library; it does no
//! I/O of its own.

pub mod analysis;
pub mod lessons;
pub mod puzzles;
pub mod review;

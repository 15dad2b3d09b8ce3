//! Tournaments' wire: the body of a new arena, and the views the domain
//! shows (`crate::domain::tournaments`), as they are written.

use serde::{Deserialize, Serialize};

pub use crate::domain::tournaments::swiss::{SwissBoard, SwissDetail, SwissLine, SwissRound};
pub use crate::domain::tournaments::{
    CurrentGame, Phase, SheetLine, StandingLine, TournamentDetail, TournamentLists, TournamentPage,
    TournamentSummary,
};

/// The body of `POST /api/tournaments`: a new arena.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TournamentBody {
    /// Its name (1 to 40 characters).
    pub name: String,
    /// `arena` (the default) or `swiss`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Its games' clock: minutes and seconds, `3+2`.
    pub clock: String,
    /// Its games' rules (`standard`, `no-trades`, `seeds=N`; the default
    /// `standard`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<String>,
    /// Rated games.
    #[serde(default)]
    pub rated: bool,
    /// When it starts, Unix ms (absent: now).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub starts_at: Option<i64>,
    /// How long an arena lasts: 10 to 180 minutes.
    #[serde(default)]
    pub minutes: u32,
    /// A Swiss event's number of rounds: 3 to 15.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<u32>,
    /// BOT accounts may join (the default: no).
    #[serde(default)]
    pub bots: bool,
}

/// The answer to `POST /api/tournaments`: the new tournament's id and page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentCreated {
    /// Its id.
    pub id: String,
    /// Its page.
    pub url: String,
}

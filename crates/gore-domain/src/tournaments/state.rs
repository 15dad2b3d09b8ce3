//! What a tournament's row stores: each kind's whole state. Plain data,
//! apart from the rules that run it, so that the storage port can name it
//! without importing the tournaments (which import the storage).

use std::collections::BTreeMap;

use gore_tournament::arena::Arena;
use gore_tournament::swiss::Swiss;
use serde::{Deserialize, Serialize};

/// An arena's state as stored: the crate's state, the players' names, and
/// the site's game of each arena game (by [`ArenaGameId`](gore_tournament::arena::ArenaGameId)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArenaState {
    /// The rules' state.
    pub arena: Arena,
    /// Each player's display name (account id → username when he joined).
    pub names: BTreeMap<String, String>,
    /// The site's game id of each arena game, in arena order.
    pub games: Vec<String>,
    /// BOT accounts may join (states stored before bots could: no).
    #[serde(default)]
    pub bots: bool,
    /// The BOT accounts that joined (their games are marked BOT).
    #[serde(default, skip_serializing_if = "std::collections::BTreeSet::is_empty")]
    pub bot_players: std::collections::BTreeSet<String>,
}

/// A Swiss event's state as stored: the crate's state, the players'
/// names, and the site's game of each board of each round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwissState {
    /// The rules' state.
    pub swiss: Swiss,
    /// Each player's display name (account id → username when he joined).
    pub names: BTreeMap<String, String>,
    /// The site's game of each board, round 1 first, board 1 first.
    pub games: Vec<Vec<String>>,
    /// Ended before its last round (too few players, or no pairing).
    #[serde(default)]
    pub ended: bool,
}

/// A tournament's state, of either kind. Stored as the kind's own JSON
/// (untagged: an arena's row reads as it was written before Swiss events
/// came; a Swiss state has `swiss` where an arena's has `arena`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum TournamentState {
    /// An arena's.
    Arena(ArenaState),
    /// A Swiss event's.
    Swiss(SwissState),
}

impl TournamentState {
    /// Whether it is over for good at `now` (Unix ms).
    pub fn finished(&self, now: i64) -> bool {
        match self {
            TournamentState::Arena(s) => s.arena.finished(now.max(0) as u64),
            TournamentState::Swiss(s) => s.ended || s.swiss.finished(),
        }
    }
}

impl From<ArenaState> for TournamentState {
    fn from(s: ArenaState) -> Self {
        TournamentState::Arena(s)
    }
}

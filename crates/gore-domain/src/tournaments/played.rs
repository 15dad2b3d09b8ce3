//! The tournaments a player played, for his page (issue 29, point 3): the
//! store keeps which tournaments each account joined; his rank and score
//! are read from each one's state, as its own page reads them, so that
//! they are the standings' own, live while it runs.

use serde::{Deserialize, Serialize};

use super::{store_error, Phase, TournamentState, Tournaments};
use crate::GameError;

/// The tournaments a player's page lists at most (the latest).
pub const PLAYED_SHOWN: u32 = 20;

/// One tournament on a player's page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlayedLine {
    /// Its id.
    pub id: String,
    /// Its page.
    pub url: String,
    /// Its name.
    pub name: String,
    /// `arena`.
    pub kind: String,
    /// When it started (or starts), Unix ms.
    pub starts_at: i64,
    /// Where it stands now.
    pub phase: Phase,
    /// His rank in its standings (1: the winner, or the leader).
    pub rank: u32,
    /// How many players its standings have.
    pub players: usize,
    /// His points.
    pub score: f64,
}

impl Tournaments {
    /// The tournaments account `account` joined and is in the standings
    /// of (one he withdrew from before it began is not), the latest start
    /// first, [`PLAYED_SHOWN`] at most.
    pub async fn played_by(&self, account: &str) -> Result<Vec<PlayedLine>, GameError> {
        let now = self.now();
        let joined = self
            .0
            .store
            .tournaments_of(account.to_string(), PLAYED_SHOWN)
            .await
            .map_err(store_error)?;
        Ok(joined
            .iter()
            .filter_map(|t| {
                // His line, the players' count, his points, the phase.
                let (rank, players, score, phase) = match &t.state {
                    TournamentState::Arena(s) => {
                        let standings = s.arena.standings();
                        let me = standings.iter().find(|r| r.player.0 == account)?;
                        let phase = Self::phase(t, s, now);
                        (me.rank, standings.len(), f64::from(me.score), phase)
                    }
                    TournamentState::Swiss(s) => {
                        let standings = s.swiss.standings();
                        let me = standings.iter().find(|r| r.player.0 == account)?;
                        let points = f64::from(me.points_x2) / 2.0;
                        let phase = Self::swiss_summary(t, s, now).phase;
                        (me.rank, standings.len(), points, phase)
                    }
                };
                Some(PlayedLine {
                    id: t.id.clone(),
                    url: format!("/tournament/{}", t.id),
                    name: t.name.clone(),
                    kind: t.kind.clone(),
                    starts_at: t.starts_at,
                    phase,
                    rank,
                    players,
                    score,
                })
            })
            .collect())
    }
}

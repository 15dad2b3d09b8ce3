//! The arena's berserk (RULES.md, "Tournaments"): what the engine is told
//! of a finished game (who went berserk, and, when a berserker won, how
//! many actions each made), and whether a sheet line's player went
//! berserk.

use gore_core::Player;
use gore_tournament::arena::{Arena, ArenaGameId, GameResult};
use gore_tournament::{Outcome, PlayerId};

use super::{store_error, Tournaments};
use crate::storage::GameEnd;
use crate::{GameError, Room};

impl Tournaments {
    /// Fills in `result`'s berserks from the game's end `e`, and, if the
    /// winner went berserk, each player's actions (read from the game: the
    /// berserk point needs enough of the winner's own).
    pub(super) async fn berserks(
        &self,
        result: &mut GameResult,
        e: &GameEnd,
    ) -> Result<(), GameError> {
        [result.berserk_a, result.berserk_b] = e.berserk;
        let winner = match result.outcome {
            Some(Outcome::AWins) => Player::A,
            Some(Outcome::BWins) => Player::B,
            _ => return Ok(()),
        };
        if !e.berserk[winner.index()] {
            return Ok(());
        }
        let stored = self
            .0
            .store
            .load_game(e.game.clone())
            .await
            .map_err(store_error)?
            .ok_or_else(|| GameError::Internal(format!("game {} is gone", e.game)))?;
        let room = Room::load(stored, u32::MAX).map_err(GameError::Internal)?;
        result.actions_a = room.actions_by(Player::A);
        result.actions_b = room.actions_by(Player::B);
        Ok(())
    }
}

/// Whether `p` went berserk in the arena's game `g` (as recorded).
pub(super) fn went_berserk(arena: &Arena, g: ArenaGameId, p: &PlayerId) -> bool {
    let Some(game) = arena.games.get(g.0 as usize) else {
        return false;
    };
    game.result.as_ref().is_some_and(|r| {
        if &game.a == p {
            r.berserk_a
        } else {
            r.berserk_b
        }
    })
}

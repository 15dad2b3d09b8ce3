//! The clock referee: ends the games whose time is up (a flag, or the
//! abort of a first action never made), even with nobody connected, and
//! the two ways every game ends off the board (a forfeit, an abort counted
//! against its player).

use std::sync::Arc;
use std::time::Duration;

use gore_core::{Forfeit, Player};

use super::{Games, RoomRef};
use crate::storage::GameChange;
use crate::{GameError, Mode, Room};

impl Games {
    /// Every second: the games whose time is up are ended (a flag, or an
    /// abort of a first action never made), even with nobody connected.
    /// Any server may end any game: the store takes the first.
    pub(super) fn spawn_referee(self) {
        let weak = Arc::downgrade(&self.0);
        drop(self);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(1));
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                let Some(inner) = weak.upgrade() else { return };
                Games(inner).settle_clocks().await;
            }
        });
    }

    /// Ends every game whose deadline has passed by the server's clock (a
    /// loss on time, or an abort); returns how many it ended. The referee
    /// calls it every second; tests call it after moving their clock.
    pub async fn settle_clocks(&self) -> usize {
        let ids = match self.0.store.due_games(self.now(), 500).await {
            Ok(ids) => ids,
            Err(e) => {
                tracing::warn!("cannot list the games whose time is up: {e}");
                return 0;
            }
        };
        let mut ended = 0;
        for id in ids {
            let Ok(room_ref) = self.room(&id).await else {
                continue;
            };
            let mut room = room_ref.lock().await;
            if self.enforce_clock(&room_ref, &mut room).await {
                ended += 1;
            }
        }
        ended
    }

    /// Ends the game if its time is up (committed, then broadcast);
    /// `true` if it did.
    pub(super) async fn enforce_clock(&self, room_ref: &RoomRef, room: &mut Room) -> bool {
        let Some(forfeit) = room.due() else {
            return false;
        };
        // A first action never made: the abort is the player's to act.
        let ended = match forfeit {
            Forfeit::Abort => {
                let late = room.game.position().to_move();
                self.abort_by(room_ref, room, late).await
            }
            _ => self.end_game(room_ref, room, forfeit).await,
        };
        match ended {
            Ok(()) => {
                tracing::info!("game {}: {}", room.id(), forfeit.as_str());
                true
            }
            Err(e) => {
                tracing::debug!("game {}: cannot end it on time: {e}", room.id());
                false
            }
        }
    }

    /// Commits a forfeit, applies it and tells every socket.
    pub(super) async fn end_game(
        &self,
        room_ref: &RoomRef,
        room: &mut Room,
        forfeit: Forfeit,
    ) -> Result<(), GameError> {
        let result = room.forfeit_result(forfeit);
        self.commit_change(room_ref, room, GameChange::Forfeit { forfeit, result })
            .await?;
        room.forfeit(forfeit);
        let ply = room.ply();
        room.changed(ply);
        if forfeit != Forfeit::Abort {
            self.rate_soon(room);
        }
        Ok(())
    }

    /// Ends the game as aborted by `player` (his abort, his resignation or
    /// his leaving before each player has acted, or his first action never
    /// made): in a game between people it is counted against him, for the
    /// lobby's abort limit ([`super::lobby::ABORT_LIMIT`]).
    pub(super) async fn abort_by(
        &self,
        room_ref: &RoomRef,
        room: &mut Room,
        player: Player,
    ) -> Result<(), GameError> {
        self.end_game(room_ref, room, Forfeit::Abort).await?;
        if room.info.mode != Mode::Friend {
            return Ok(());
        }
        if let Some(who) = room.info.players[player.index()].clone() {
            // Committed already: a failure here costs only the count.
            if let Err(e) = self
                .0
                .store
                .record_abort(who, room.id().to_string(), self.now())
                .await
            {
                tracing::warn!("game {}: abort not counted: {e}", room.id());
            }
        }
        Ok(())
    }
}

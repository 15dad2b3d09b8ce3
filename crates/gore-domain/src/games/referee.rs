//! The clock referee: ends the games whose time is up (a flag, or the
//! abort of a first action never made), even with nobody connected,
//! through the one path (its clock step; the ending itself is in
//! commit.rs).

use std::sync::Arc;
use std::time::Duration;

use super::command::{CatchUp, Command, Cx, Steps};
use super::Games;
use crate::GameError;

/// The referee's look at one game: the path's clock step ends it if its
/// time is up; `true` if it did.
struct Settle;

impl Command for Settle {
    type Done = bool;
    const STEPS: Steps = Steps {
        catch_up: CatchUp::Never,
        alive: false,
        clock: true,
    };

    fn time_up(self, _: &Cx<'_>) -> Result<bool, GameError> {
        Ok(true)
    }

    async fn rule(self, _: &mut Cx<'_>) -> Result<bool, GameError> {
        Ok(false)
    }
}

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
            if let Ok(true) = self.on_room(&room_ref, Settle).await {
                ended += 1;
            }
        }
        ended
    }
}

//! Reads of a game (its state as a caller sees it, a seat, the record)
//! and the rating changes shown once a rated game ends.

use super::command::{Command, Cx, Steps, Who};
use super::Games;
use crate::{GameError, GameState, Room, Seat};

impl Games {
    /// A rated game just ended: its players' ratings move (in a task of
    /// its own; the sweep retries what fails).
    pub(super) fn rate_soon(&self, room: &Room) {
        if !room.info.rated {
            return;
        }
        let games = self.clone();
        let id = room.info.id.clone();
        tokio::spawn(async move {
            if let Err(e) = games.0.ratings.settle(&id).await {
                tracing::warn!("game {id}: not rated yet: {e}");
                return;
            }
            // Rated (here or by another server): the players' pages show
            // the change.
            let Ok(room_ref) = games.room(&id).await else {
                return;
            };
            let _ = games.on_room(&room_ref, FillRatings).await;
        });
    }

    /// The state as the holder of `token` (or a spectator) sees it.
    pub async fn view(&self, id: &str, token: Option<&str>) -> Result<GameState, GameError> {
        let token = token.map(str::to_string);
        // (An earlier AI task failed: the path's AI step tries again.)
        self.command(id, Who::Anyone, View { token }).await
    }

    /// The seat a token holds in a game, if any.
    pub async fn seat_of(&self, id: &str, token: &str) -> Result<Option<Seat>, GameError> {
        let room_ref = self.room(id).await?;
        Ok(room_ref.read(|room| room.seat_of(token)).await)
    }

    /// The game record.
    pub async fn record(&self, id: &str) -> Result<String, GameError> {
        let room_ref = self.room(id).await?;
        Ok(room_ref.read(Room::record).await)
    }
}

/// A read of the game by the holder of a token, or a spectator: a sign of
/// life of his seat, the clock enforced, the state as he sees it.
struct View {
    token: Option<String>,
}

impl Command for View {
    type Done = GameState;
    const STEPS: Steps = Steps::SEAT;

    async fn rule(self, cx: &mut Cx<'_>) -> Result<GameState, GameError> {
        // A spectator may read too: the seat, if any, from the token.
        let seat = self.token.as_deref().and_then(|t| cx.room.seat_of(t));
        if let Some(seat) = seat {
            cx.games.alive(cx.room, seat).await;
        }
        cx.games.enforce_clock(cx.room_ref, cx.room).await;
        Ok(cx.room.view(seat))
    }
}

/// How a finished rated game moved its players' ratings, read into its
/// room and shown.
struct FillRatings;

impl Command for FillRatings {
    type Done = ();
    const STEPS: Steps = Steps::SEAT;

    async fn rule(self, cx: &mut Cx<'_>) -> Result<(), GameError> {
        if cx.games.fill_rating_changes(cx.room).await {
            cx.changed();
        }
        Ok(())
    }
}

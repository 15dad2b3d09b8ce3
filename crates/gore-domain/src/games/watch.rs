//! What a game's sockets and streams read of its room: a socket is
//! admitted (a seat's, or a spectator's against the game's cap), told the
//! whole state, and subscribed to the changes, under one lock, so that no
//! change falls between; later it asks for the state again. The edges
//! never take a room's lock themselves: they call these.

use std::sync::Arc;

use tokio::sync::broadcast;

use super::{Games, RoomRef};
use crate::{
    Change, ChatLine, GameError, GameState, GameUpdate, Mode, Ply, Room, Seat, SpectatorSlot,
};

/// What a socket is shown of its game.
pub enum Shown {
    /// The spectators' state, encoded once for all of them by the edge's
    /// encoder.
    Shared(Arc<str>),
    /// The whole state as the seat sees it.
    Own(Box<GameState>),
    /// The actions after the client's ply.
    Since(Box<GameUpdate>),
}

/// A state as shown, and where it leaves the client: the ply it reaches
/// and the room's count of changes it includes.
pub struct Snapshot {
    /// What to send.
    pub shown: Shown,
    /// The ply it reaches.
    pub ply: Ply,
    /// The room's count of changes it includes.
    pub serial: u64,
}

/// A socket admitted to a game.
pub struct Watch {
    /// The seat its token holds (none: a spectator).
    pub seat: Option<Seat>,
    /// A spectator's place, counted against the game's cap while held.
    pub watching: Option<SpectatorSlot>,
    /// The game's changes from the moment of `first`.
    pub updates: broadcast::Receiver<Arc<Change>>,
    /// The chat, for the two players of a game between people.
    pub chat: Option<broadcast::Receiver<Arc<ChatLine>>>,
    /// The whole state at admission.
    pub first: Snapshot,
}

fn snapshot(r: &Room, seat: Option<Seat>, encode: fn(GameState) -> String) -> Snapshot {
    let shown = match seat {
        None => Shown::Shared(r.spectator_state(encode)),
        Some(_) => Shown::Own(Box::new(r.view(seat))),
    };
    Snapshot {
        shown,
        ply: r.ply(),
        serial: r.serial(),
    }
}

impl Games {
    /// Admits a socket to `room` with `token` (a seat's, or none): a
    /// player always (his address's cap bounds him, so a crowd can never
    /// lock him out of his game), a spectator while the game has fewer
    /// than `spectators`. Counted, shown and subscribed under one lock: a
    /// rush of sockets cannot all pass the count before any subscribes.
    pub async fn watch(
        &self,
        room: &RoomRef,
        token: Option<&str>,
        spectators: usize,
        encode: fn(GameState) -> String,
    ) -> Result<Watch, GameError> {
        room.read(|r| {
            let seat = token.and_then(|t| r.seat_of(t));
            let watching = match seat {
                Some(_) => None,
                None => Some(r.spectator_slot(spectators).ok_or_else(|| {
                    GameError::Busy(
                        "this game has as many spectators as it can take; try again later".into(),
                    )
                })?),
            };
            let people = r.info.mode == Mode::Friend;
            let chat =
                (people && matches!(seat, Some(Seat::A | Seat::B))).then(|| r.chat_subscribe());
            Ok(Watch {
                seat,
                watching,
                updates: r.subscribe(),
                chat,
                first: snapshot(r, seat, encode),
            })
        })
        .await
    }

    /// The state of `room` for `seat` again: the actions after ply `since`
    /// when the client gave one the game has reached (a few hundred bytes
    /// where a long game's state is hundreds of KiB), else the whole state.
    pub async fn snapshot(
        &self,
        room: &RoomRef,
        seat: Option<Seat>,
        since: Option<Ply>,
        encode: fn(GameState) -> String,
    ) -> Snapshot {
        room.read(|r| match since.and_then(|n| r.update_since(seat, n)) {
            Some(update) => Snapshot {
                shown: Shown::Since(Box::new(update)),
                ply: r.ply(),
                serial: r.serial(),
            },
            None => snapshot(r, seat, encode),
        })
        .await
    }

    /// The changes of game `id` from now on (a stream subscribes before it
    /// reads the state, so that no change falls between).
    pub async fn changes(&self, id: &str) -> Result<broadcast::Receiver<Arc<Change>>, GameError> {
        Ok(self.room(id).await?.read(Room::subscribe).await)
    }
}

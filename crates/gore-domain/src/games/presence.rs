//! Who is at a game: its players' presence (sockets open, signs of life
//! over HTTP, the time each has been away, which the claim of a win after
//! leaving reads) and its spectators on every server.

use std::collections::HashMap;
use std::sync::Arc;

use super::command::{Command, Cx, Steps};
use super::{player_of, Games, RoomRef, SPECTATORS_EVERY, SPECTATORS_FRESH};
use crate::{GameError, Mode, Seat};

/// A socket of a player opened or closed on this server (see
/// [`Games::presence`]).
struct Presence {
    seat: Seat,
    open: bool,
}

impl Command for Presence {
    type Done = ();
    const STEPS: Steps = Steps::SEAT;

    async fn rule(self, cx: &mut Cx<'_>) -> Result<(), GameError> {
        let Some(p) = player_of(self.seat) else {
            return Ok(());
        };
        let room = &mut *cx.room;
        if room.info.mode != Mode::Friend {
            return Ok(());
        }
        let i = p.index();
        room.present[i] = if self.open {
            room.present[i] + 1
        } else {
            room.present[i].saturating_sub(1)
        };
        let away = match (self.open, room.present[i]) {
            (true, _) if room.info.away[i].is_some() => None,
            (false, 0) if room.info.away[i].is_none() && !room.is_over() => Some(cx.games.now()),
            _ => return Ok(()),
        };
        cx.games.commit_away(cx.room, p, away).await
    }
}

/// A message on a socket of a seat: a sign of life.
struct SignOfLife(Seat);

impl Command for SignOfLife {
    type Done = ();
    const STEPS: Steps = Steps::SEAT;

    async fn rule(self, cx: &mut Cx<'_>) -> Result<(), GameError> {
        cx.games.alive(cx.room, self.0).await;
        Ok(())
    }
}

impl Games {
    /// A spectator's socket opened (`open`) or closed on this server.
    pub async fn spectating(&self, id: &str, open: bool) {
        if let Ok(room_ref) = self.room(id).await {
            let _ = self
                .in_room(&room_ref, move |room| {
                    room.spectators = if open {
                        room.spectators + 1
                    } else {
                        room.spectators.saturating_sub(1)
                    };
                })
                .await;
        }
    }

    /// Every few seconds: this server's spectators per game, to the store
    /// (the lobby sums every server's).
    pub(super) fn spawn_spectator_counts(self) {
        let weak = Arc::downgrade(&self.0);
        drop(self);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(SPECTATORS_EVERY);
            let mut last: Vec<(String, u32)> = Vec::new();
            loop {
                tick.tick().await;
                let Some(inner) = weak.upgrade() else { return };
                let games = Games(inner);
                let rooms: Vec<RoomRef> = games
                    .rooms()
                    .values()
                    .filter_map(|c| c.get().cloned())
                    .collect();
                let mut counts: Vec<(String, u32)> = rooms
                    .iter()
                    .filter_map(|r| {
                        r.peek(|room| {
                            (room.spectators > 0 && !room.is_over())
                                .then(|| (room.info.id.clone(), room.spectators as u32))
                        })
                        .flatten()
                    })
                    .collect();
                counts.sort();
                // Written when they change, and every time while there are
                // any (their time keeps them counted).
                if counts != last || !counts.is_empty() {
                    let now = games.now();
                    match games
                        .0
                        .store
                        .set_watchers(games.0.server.clone(), counts.clone(), now)
                        .await
                    {
                        Ok(()) => last = counts,
                        Err(e) => tracing::debug!("spectator counts: {e}"),
                    }
                }
            }
        });
    }

    /// The spectators of each of `ids` on every server (counted within the
    /// last [`SPECTATORS_FRESH`]).
    pub async fn spectators(&self, ids: Vec<String>) -> HashMap<String, u32> {
        let since = self.now() - SPECTATORS_FRESH.as_millis() as i64;
        match self.0.store.watchers(ids, since).await {
            Ok(v) => v.into_iter().collect(),
            Err(_) => HashMap::new(),
        }
    }

    /// A socket of `seat` opened (`open`) or closed on this server: when a
    /// player of a game between people has no socket left here, the store
    /// records since when he is away; when one opens, that he is back.
    /// Every socket hears of it. (Sockets of one seat on two servers: the
    /// last to close marks him away; the next to open, back.)
    pub async fn presence(&self, id: &str, seat: Seat, open: bool) {
        if let Ok(room_ref) = self.room(id).await {
            // A failure is logged where it happens.
            let _ = self.on_room(&room_ref, Presence { seat, open }).await;
        }
    }

    /// A message on a socket of `seat`: a sign of life (see
    /// `Games::alive`, commit.rs); cheap unless he is marked away.
    pub async fn sign_of_life(&self, id: &str, seat: Seat) {
        if let Ok(room_ref) = self.room(id).await {
            let _ = self.on_room(&room_ref, SignOfLife(seat)).await;
        }
    }
}

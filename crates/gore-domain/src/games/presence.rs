//! Who is at a game: its players' presence (sockets open, signs of life
//! over HTTP, the time each has been away, which the claim of a win after
//! leaving reads) and its spectators on every server.

use std::collections::HashMap;
use std::sync::Arc;

use super::{player_of, Games, RoomRef, SPECTATORS_EVERY, SPECTATORS_FRESH};
use crate::{Mode, Room, Seat};

impl Games {
    /// A spectator's socket opened (`open`) or closed on this server.
    pub async fn spectating(&self, id: &str, open: bool) {
        if let Ok(room_ref) = self.room(id).await {
            let mut room = room_ref.lock().await;
            room.spectators = if open {
                room.spectators + 1
            } else {
                room.spectators.saturating_sub(1)
            };
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
                let mut counts = Vec::new();
                for r in rooms {
                    if let Ok(room) = r.try_lock() {
                        if room.spectators > 0 && !room.is_over() {
                            counts.push((room.info.id.clone(), room.spectators as u32));
                        }
                    }
                }
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
        let Some(p) = player_of(seat) else {
            return;
        };
        let Ok(room_ref) = self.room(id).await else {
            return;
        };
        let mut room = room_ref.lock().await;
        if room.info.mode != Mode::Friend {
            return;
        }
        let i = p.index();
        room.present[i] = if open {
            room.present[i] + 1
        } else {
            room.present[i].saturating_sub(1)
        };
        let away = match (open, room.present[i]) {
            (true, _) if room.info.away[i].is_some() => None,
            (false, 0) if room.info.away[i].is_none() && !room.is_over() => Some(self.now()),
            _ => return,
        };
        if let Err(e) = self.0.store.set_away(id.to_string(), p, away).await {
            tracing::warn!("game {id}: cannot record {p} away: {e}");
            return;
        }
        room.info.away[i] = away;
        let ply = room.ply();
        room.changed(ply);
    }

    /// A request of `seat` on HTTP (an action, a read of the game, a
    /// takeback, a chat message): a sign of life. A player without a
    /// socket is away from his last one, not from his socket's close
    /// (RULES.md, "Leaving"); recorded (and every socket told) when it
    /// moves his away time. A failure to record it is only logged: the
    /// request itself goes on.
    pub(super) async fn alive(&self, room: &mut Room, seat: Seat) {
        let Some(p) = player_of(seat) else {
            return;
        };
        let Some(at) = room.sign_of_life(p, self.now()) else {
            return;
        };
        if self.failure().is_some() {
            return; // the store takes no writes: nothing to log per request
        }
        if let Err(e) = self
            .0
            .store
            .set_away(room.id().to_string(), p, Some(at))
            .await
        {
            tracing::warn!("game {}: cannot record {p}'s sign of life: {e}", room.id());
            return;
        }
        room.info.away[p.index()] = Some(at);
        let ply = room.ply();
        room.changed(ply);
    }

    /// A message on a socket of `seat`: a sign of life (see
    /// `Games::alive`); cheap unless he is marked away.
    pub async fn sign_of_life(&self, id: &str, seat: Seat) {
        if let Ok(room_ref) = self.room(id).await {
            let mut room = room_ref.lock().await;
            self.alive(&mut room, seat).await;
        }
    }
}

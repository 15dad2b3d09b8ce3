//! The one way a game changes: every commit of a rule, of the referee,
//! of the AI and of presence is here, and each is committed to the store
//! (its failure checked, its time counted, a conflict caught up), then
//! applied to the room, then broadcast; a refusal or a failed commit
//! leaves the room as it was and tells nobody. Each runs under the room's
//! lock, taken by the path (command.rs).

use std::time::Instant;

use gore_core::{Action, Forfeit, Player};

use super::{player_of, store_error, Games, RoomRef};
use crate::storage::{At, GameChange, SeatClaim, StoreError};
use crate::{GameError, Mode, Room, Seat};

impl Games {
    /// Whether a change of this room may be tried now.
    fn writable(&self, room: &Room) -> Result<(), GameError> {
        if room.dead {
            return Err(GameError::Internal(
                "the game is being reloaded; try again".into(),
            ));
        }
        if self.failure().is_some() {
            return Err(GameError::Unavailable);
        }
        Ok(())
    }

    /// Plays an action (the caller checked whose turn it is) on the game
    /// itself, commits it, then broadcasts it. An illegal action changes
    /// nothing; if the store refuses, the action is taken back (and, if
    /// another server stored one at this ply, that one taken in).
    pub(super) async fn commit(
        &self,
        room_ref: &RoomRef,
        room: &mut Room,
        action: Action,
    ) -> Result<(), GameError> {
        self.writable(room)?;
        // A resigned game's board is not over: the rules would play on.
        room.check_playing()?;
        let (since, status) = (room.ply(), room.info.status);
        let takebacks = room.info.takebacks;
        let stored = room.play(action, self.now())?;
        let ending = room.game.outcome().copied();
        let deadline = room.deadline();
        let id = room.info.id.clone();
        let began = Instant::now();
        let result = self
            .0
            .store
            .append_action(id, takebacks, stored, ending, deadline)
            .await;
        self.counted(began, &result);
        if let Err(e) = result {
            // Not acknowledged: the action is taken back here and the
            // room, its sockets with it, stays. (Had the commit gone
            // through after all, the store has it after `since` and a
            // catch-up takes it in again.) Another server's action at
            // this ply, or a takeback: take that in now.
            match room.rewind(since, status) {
                Ok(()) if matches!(e, StoreError::Conflict) => {
                    self.catch_up_locked(room_ref, room).await;
                }
                Ok(()) => {}
                Err(why) => {
                    tracing::warn!("game {}: {why}; dropped from memory", room.id());
                    self.evict(room_ref, room);
                }
            }
            return Err(store_error(e));
        }
        room.info.deadline = deadline;
        room.changed(since);
        if ending.is_some() {
            self.rate_soon(room);
        }
        Ok(())
    }

    /// Commits a change other than an action (decided on the room under
    /// its lock); the caller applies it to the room once committed. A
    /// refusal or failure of the store leaves the room as it was (caught
    /// up first if another server changed the game).
    pub(super) async fn commit_change(
        &self,
        room_ref: &RoomRef,
        room: &mut Room,
        mut change: GameChange,
    ) -> Result<(), GameError> {
        self.writable(room)?;
        let at = room.at();
        // Applied first, so that the deadline after it is the room's own
        // (the one computation of it); taken back if the store refuses.
        let before = room.info.clone();
        room.apply(&change);
        if let GameChange::Credit { deadline, .. } | GameChange::Berserk { deadline, .. } =
            &mut change
        {
            *deadline = room.deadline();
            room.info.deadline = *deadline;
        }
        let result = self.store_change(room, at, change).await;
        if let Err(e) = result {
            // The room is as it was. Refused because another server
            // changed the game first: take that in.
            room.info = before;
            if matches!(e, StoreError::Conflict) {
                self.catch_up_locked(room_ref, room).await;
            }
            return Err(store_error(e));
        }
        Ok(())
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
    /// lobby's abort limit ([`crate::lobby::ABORT_LIMIT`]).
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

    /// A request of `seat` (an action, a read of the game, a takeback, a
    /// chat message, a message on his socket): a sign of life. A player
    /// without a socket is away from his last one, not from his socket's
    /// close (RULES.md, "Leaving"); recorded (and every socket told) when
    /// it moves his away time. A failure to record it is only logged: the
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
        // Logged where it fails: the request goes on.
        let _ = self.commit_away(room, p, Some(at)).await;
    }

    /// Commits since when `player` is away (`None`: he is back), applies
    /// it and tells every socket.
    pub(super) async fn commit_away(
        &self,
        room: &mut Room,
        player: Player,
        away: Option<i64>,
    ) -> Result<(), GameError> {
        let began = Instant::now();
        let result = self
            .0
            .store
            .set_away(room.id().to_string(), player, away)
            .await;
        self.counted(began, &result);
        if let Err(e) = result {
            tracing::warn!("game {}: cannot record {player} away: {e}", room.id());
            return Err(store_error(e));
        }
        room.info.away[player.index()] = away;
        let ply = room.ply();
        room.changed(ply);
        Ok(())
    }

    /// Writes a change of the game to the store (its time and failure
    /// counted): the one call of the store's `change_game`.
    pub(super) async fn store_change(
        &self,
        room: &Room,
        at: At,
        change: GameChange,
    ) -> Result<(), StoreError> {
        let began = Instant::now();
        let result = self
            .0
            .store
            .change_game(room.info.id.clone(), at, change, self.now())
            .await;
        self.counted(began, &result);
        result
    }

    /// Counts a commit's time, and whether the store failed (a conflict
    /// is another server's change first, not a failure).
    fn counted<T>(&self, began: Instant, result: &Result<T, StoreError>) {
        if let Some(o) = self.observer() {
            o.committed(
                began.elapsed(),
                !matches!(result, Err(StoreError::Failed(_))),
            );
        }
    }

    /// Commits the device link of `seat` (`None`: revoked), then applies it.
    pub(super) async fn commit_device(
        &self,
        room: &mut Room,
        seat: Seat,
        code: Option<String>,
    ) -> Result<(), GameError> {
        self.writable(room)?;
        let began = Instant::now();
        let result = self
            .0
            .store
            .set_device(room.info.id.clone(), seat, code.clone())
            .await;
        self.counted(began, &result);
        result.map_err(store_error)?;
        room.info.devices.set(seat, code);
        Ok(())
    }

    /// Commits the claim of a friend game's invitation by `player`;
    /// `false` if another server claimed it first. The caller applies it.
    /// A failure drops the room (what the store has is not known).
    pub(super) async fn commit_claim(
        &self,
        room_ref: &RoomRef,
        room: &mut Room,
        invite: String,
        player: Player,
        claim: SeatClaim,
    ) -> Result<bool, GameError> {
        let began = Instant::now();
        let result = self
            .0
            .store
            .claim_invite(room.info.id.clone(), invite, player, claim)
            .await;
        self.counted(began, &result);
        result.map_err(|e| {
            self.evict(room_ref, room);
            store_error(e)
        })
    }
}

//! Takebacks: at once in ai and local games, asked and answered between
//! people.

use gore_core::Player;

use super::command::{CatchUp, Command, Cx, Steps, Who};
use super::{Games, RoomRef};
use crate::storage::GameChange;
use crate::GameState;
use crate::{GameError, Mode, Ply, Room, Said};

/// A takeback is a sign of life; the clock is not read first (the
/// referee ends a game whose time is up).
const TAKEBACK: Steps = Steps {
    catch_up: CatchUp::Never,
    alive: true,
    clock: false,
};

/// The caller's takeback: done at once, or asked of the opponent.
struct Takeback;

impl Command for Takeback {
    type Done = GameState;
    const STEPS: Steps = TAKEBACK;

    async fn rule(self, cx: &mut Cx<'_>) -> Result<GameState, GameError> {
        cx.room.check_playing()?;
        let nothing = GameError::Refused(Said::new(
            "takeback_nothing",
            "nothing to take back: you have not played yet",
        ));
        match cx.room.info.mode {
            Mode::Local => {
                let to = cx.room.ply().prev().ok_or(nothing)?;
                cx.games.take_back(cx.room_ref, cx.room, to).await?;
            }
            Mode::Ai => {
                let human = match cx.room.info.ai_seat {
                    Some(ai) => ai.opponent(),
                    None => return Err(GameError::NoSeat),
                };
                let to = cx.room.before_last_of(human).ok_or(nothing)?;
                cx.games.take_back(cx.room_ref, cx.room, to).await?;
            }
            Mode::Friend => {
                let asker = cx.player()?;
                match cx.room.info.takeback {
                    Some(p) if p == asker => {} // asked already
                    Some(_) => {
                        return Err(GameError::Refused(Said::new(
                            "takeback_pending",
                            "your opponent has asked for a takeback: answer it first",
                        )))
                    }
                    None => {
                        cx.room.before_last_of(asker).ok_or(nothing)?;
                        cx.commit_change(GameChange::Request(Some(asker))).await?;
                        cx.changed();
                    }
                }
            }
        }
        Ok(cx.view())
    }
}

/// The caller's answer to his opponent's takeback request.
struct Answer {
    /// Granted, or declined.
    accept: bool,
}

impl Command for Answer {
    type Done = GameState;
    const STEPS: Steps = TAKEBACK;

    async fn rule(self, cx: &mut Cx<'_>) -> Result<GameState, GameError> {
        cx.room.check_playing()?;
        let asker: Player = cx.room.info.takeback.ok_or(GameError::Refused(Said::new(
            "takeback_no_request",
            "there is no takeback request to answer",
        )))?;
        if cx.seat()?.acts_for(asker) {
            return Err(GameError::Refused(Said::new(
                "takeback_own",
                "this is your own takeback request: your opponent answers it",
            )));
        }
        if self.accept {
            let to = cx
                .room
                .before_last_of(asker)
                .ok_or(GameError::Refused(Said::new(
                    "takeback_nothing_opponent",
                    "nothing to take back: your opponent has not played yet",
                )))?;
            cx.games.take_back(cx.room_ref, cx.room, to).await?;
        } else {
            cx.commit_change(GameChange::Request(None)).await?;
            cx.changed();
        }
        Ok(cx.view())
    }
}

impl Games {
    /// A takeback for the holder of `token`: in ai and local games at
    /// once (ai: back to before the human's last action, the AI's replies
    /// undone, its search if thinking discarded; local: the last action);
    /// in friend games a request the opponent answers. Returns the state
    /// as the caller sees it.
    pub(super) async fn takeback(
        &self,
        id: &str,
        token: Option<String>,
    ) -> Result<GameState, GameError> {
        self.command(id, Who::Seat(token), Takeback).await
    }

    /// The answer of the holder of `token` to the opponent's takeback
    /// request (friend games): granted, the asker's last action (and the
    /// reply since, if any) is undone; declined, the request is dropped.
    pub(super) async fn answer_takeback(
        &self,
        id: &str,
        token: Option<String>,
        accept: bool,
    ) -> Result<GameState, GameError> {
        self.command(id, Who::Seat(token), Answer { accept }).await
    }

    /// Takes back to ply `to`: committed, applied, then every socket is
    /// sent the whole state (the log is shorter: never an update).
    async fn take_back(
        &self,
        room_ref: &RoomRef,
        room: &mut Room,
        to: Ply,
    ) -> Result<(), GameError> {
        let from = room.ply();
        let deadline = room.deadline_at(to);
        self.commit_change(room_ref, room, GameChange::TakeBack { to, deadline })
            .await?;
        if let Err(e) = room.take_back_to(to) {
            // Committed but not applied: the store has the truth.
            self.evict(room_ref, room);
            return Err(e);
        }
        room.info.deadline = deadline;
        if room.info.credits.iter().any(|&(p, _)| p > to) {
            // Outages credited to plies taken back are void: the plies
            // played again are other periods.
            let credits: Vec<(Ply, i64)> = room
                .info
                .credits
                .iter()
                .copied()
                .filter(|&(p, _)| p <= to)
                .collect();
            // Through the one commit path: the store's failure checked,
            // the commit counted, a conflict caught up with.
            let change = GameChange::Credit {
                credits,
                deadline: None,
            };
            if let Err(e) = self.commit_change(room_ref, room, change).await {
                tracing::warn!("game {}: stale clock credits kept: {e}", room.id());
            }
        }
        room.send_whole();
        tracing::info!("game {}: taken back from ply {from} to {to}", room.id());
        Ok(())
    }
}

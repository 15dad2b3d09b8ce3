//! The ends a player asks for: resign, abort, claim the win after the
//! opponent left.

use gore_core::Forfeit;

use super::command::{CatchUp, Command, Cx, Steps, Who};
use super::{player_of, Games};
use crate::GameState;
use crate::{GameError, Mode, Said};

/// Before the rule, the clock: a game already lost on time is answered
/// as it stands (the end the caller asked for came too late).
const ENDS: Steps = Steps {
    catch_up: CatchUp::Never,
    alive: false,
    clock: true,
};

/// Resigns for the caller (in a local game, for the player to move).
struct Resign;

impl Command for Resign {
    type Done = GameState;
    const STEPS: Steps = ENDS;

    fn time_up(self, cx: &Cx<'_>) -> Result<GameState, GameError> {
        Ok(cx.view())
    }

    async fn rule(self, cx: &mut Cx<'_>) -> Result<GameState, GameError> {
        let player = cx.room.resigner(cx.seat()?)?;
        if cx.room.info.rated && !cx.room.both_have_acted() {
            // A rated game counts once each player has acted (RULES.md):
            // resigning before aborts it, or two accounts would farm a
            // rating at ply 0. A casual game may be conceded at once.
            cx.abort_by(player).await?;
            tracing::info!(
                "game {}: {player} resigned before both acted: aborted",
                cx.room.id()
            );
            return Ok(cx.view());
        }
        cx.end(Forfeit::Resign(player)).await?;
        tracing::info!("game {}: {player} resigned", cx.room.id());
        Ok(cx.view())
    }
}

/// Aborts for the caller, before each player has acted.
struct Abort;

impl Command for Abort {
    type Done = GameState;
    const STEPS: Steps = ENDS;

    fn time_up(self, cx: &Cx<'_>) -> Result<GameState, GameError> {
        Ok(cx.view())
    }

    async fn rule(self, cx: &mut Cx<'_>) -> Result<GameState, GameError> {
        let seat = cx.seat()?;
        cx.room.check_playing()?;
        if cx.room.info.mode == Mode::Local {
            return Err(GameError::Refused(Said::new(
                "abort_local",
                "a game on one device is not aborted: start a new one",
            )));
        }
        if cx.room.both_have_acted() {
            return Err(GameError::Refused(Said::new(
                "abort_too_late",
                "a game can be aborted only before each player has made an action: \
                 resign instead",
            )));
        }
        let by = cx.room.resigner(seat)?;
        cx.abort_by(by).await?;
        tracing::info!("game {}: aborted by {}", cx.room.id(), seat.as_str());
        Ok(cx.view())
    }
}

/// Claims the win for the caller: his opponent left.
struct ClaimWin;

impl Command for ClaimWin {
    type Done = GameState;
    // Judged on the store's truth: the opponent's sign of life may have
    // reached another server a moment ago.
    const STEPS: Steps = Steps {
        catch_up: CatchUp::Always,
        ..ENDS
    };

    fn time_up(self, cx: &Cx<'_>) -> Result<GameState, GameError> {
        Ok(cx.view())
    }

    async fn rule(self, cx: &mut Cx<'_>) -> Result<GameState, GameError> {
        cx.room.check_playing()?;
        let me = match (cx.room.info.mode, player_of(cx.seat()?)) {
            (Mode::Friend, Some(p)) => p,
            _ => {
                return Err(GameError::Refused(Said::new(
                    "claim_not_player",
                    "only a player of a game between people may claim it",
                )))
            }
        };
        let at = cx.room.claimable_at(me)?;
        if cx.games.now() < at {
            return Err(GameError::Refused(Said::new(
                "claim_too_soon",
                "too soon: your opponent may still come back",
            )));
        }
        if cx.room.info.rated && !cx.room.both_have_acted() {
            // A rated game counts once each has acted (RULES.md): no win
            // to claim before, and the abort is the one who left's.
            cx.abort_by(me.opponent()).await?;
            tracing::info!(
                "game {}: {} left before acting: aborted",
                cx.room.id(),
                me.opponent()
            );
            return Ok(cx.view());
        }
        cx.end(Forfeit::Left(me.opponent())).await?;
        tracing::info!("game {}: {me} claimed the win", cx.room.id());
        Ok(cx.view())
    }
}

impl Games {
    /// Resigns the game for the holder of `token` (in a local game, for
    /// the player to move): the opponent wins, the seeds are not swept.
    /// Returns the state as the caller sees it.
    pub(super) async fn resign(
        &self,
        id: &str,
        token: Option<String>,
    ) -> Result<GameState, GameError> {
        self.command(id, Who::Seat(token), Resign).await
    }

    /// Aborts the game for the holder of `token`: a game between people
    /// (or against the AI) before each player has made an action; it then
    /// has no result and counts for nobody. Returns the state as the
    /// caller sees it.
    pub(super) async fn abort(
        &self,
        id: &str,
        token: Option<String>,
    ) -> Result<GameState, GameError> {
        self.command(id, Who::Seat(token), Abort).await
    }

    /// The holder of `token` claims the win: his opponent left (RULES.md,
    /// "Leaving": in a timed game, disconnected for 60 s; untimed, 3 days
    /// without his action; correspondence, the clock decides).
    pub(super) async fn claim_win(
        &self,
        id: &str,
        token: Option<String>,
    ) -> Result<GameState, GameError> {
        self.command(id, Who::Seat(token), ClaimWin).await
    }
}

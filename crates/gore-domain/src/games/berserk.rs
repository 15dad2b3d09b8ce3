//! Berserk (issue 29; RULES.md, "Tournaments"): in an arena game, before
//! his first action, a player halves his own clock and drops its
//! increment, for an extra point if he then wins having made enough
//! actions (the arena counts them when it records the result).
//!
//! Stored with the game ([`GameChange::Berserk`]), so that whichever
//! server's referee holds the game enforces the halved clock, and a
//! restart keeps it.

use super::command::{CatchUp, Command, Cx, Steps, Who};
use super::Games;
use crate::storage::GameChange;
use crate::GameState;
use crate::{GameError, Said};

/// The caller goes berserk.
struct Berserk;

impl Command for Berserk {
    type Done = GameState;
    // A sign of life; a game whose time is up is ended first. Judged on
    // the room: the store refuses the change if an action came first.
    const STEPS: Steps = Steps {
        catch_up: CatchUp::Never,
        alive: true,
        clock: true,
    };

    async fn rule(self, cx: &mut Cx<'_>) -> Result<GameState, GameError> {
        cx.room.check_playing()?;
        let player = cx.player()?;
        let i = player.index();
        if cx.room.info.arena.is_none() {
            return Err(GameError::Refused(Said::new(
                "berserk_not_arena",
                "only in an arena game may a player go berserk",
            )));
        }
        if cx.room.info.berserk[i] {
            return Err(GameError::Refused(Said::new(
                "berserk_already",
                "you have already gone berserk in this game",
            )));
        }
        if !cx.room.berserkable(player) {
            return Err(GameError::Refused(Said::new(
                "berserk_too_late",
                "berserk is only before your first action",
            )));
        }
        // The halved clock's deadline is the commit path's to work out.
        cx.commit_change(GameChange::Berserk {
            player,
            deadline: None,
        })
        .await?;
        cx.changed();
        tracing::info!("game {}: {player} went berserk", cx.room.id());
        Ok(cx.view())
    }
}

impl Games {
    /// The holder of `token` goes berserk in his arena game: his clock is
    /// halved and loses its increment (RULES.md, "Tournaments"). Refused
    /// outside an arena, after his first action, or a second time.
    /// Returns the state as the caller sees it.
    pub(super) async fn berserk(
        &self,
        id: &str,
        token: Option<String>,
    ) -> Result<GameState, GameError> {
        self.command(id, Who::Seat(token), Berserk).await
    }
}

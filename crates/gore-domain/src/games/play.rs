//! A player's action on the board.

use std::net::IpAddr;

use gore_core::Action;

use super::command::{CatchUp, Command, Cx, Steps, Who};
use super::Games;
use crate::ai::ClientKey;
use crate::GameState;
use crate::{GameError, Ply};

/// Plays an action for the caller, in his turn.
struct Play {
    /// The action, as the client wrote it.
    action: String,
    /// The ply the client has seen (a stale client is refused).
    ply: Option<Ply>,
    /// The client's address: the AI's answer counts against it.
    client: Option<IpAddr>,
    /// Whether the caller is answered the whole state.
    with_view: bool,
}

impl Command for Play {
    type Done = Option<GameState>;

    const STEPS: Steps = Steps {
        catch_up: CatchUp::WhenBehind,
        alive: true,
        clock: true,
    };

    fn ply(&self) -> Option<Ply> {
        self.ply
    }

    async fn rule(self, cx: &mut Cx<'_>) -> Result<Option<GameState>, GameError> {
        cx.room.check_turn(cx.seat()?, self.ply)?;
        let action: Action = self
            .action
            .trim()
            .parse()
            .map_err(|e| GameError::BadAction(format!("{e}")))?;
        cx.commit(action).await?;
        if let Some(ip) = self.client {
            cx.room.ai_client = Some(ClientKey::ip(ip));
        }
        Ok(self.with_view.then(|| cx.view()))
    }
}

impl Games {
    /// Plays an action for the holder of `token` (from address `client`,
    /// if known: the AI's answer counts against it); returns the new state
    /// as that player sees it. Runs to its end even if the client goes away.
    pub(super) async fn play(
        &self,
        id: &str,
        token: Option<String>,
        action: String,
        ply: Option<Ply>,
        client: Option<IpAddr>,
    ) -> Result<GameState, GameError> {
        let play = Play {
            action,
            ply,
            client,
            with_view: true,
        };
        self.command(id, Who::Seat(token), play)
            .await?
            .ok_or_else(|| GameError::Internal("the state of the game was not built".into()))
    }

    /// Plays an action for the holder of `token`, who hears of it through
    /// the update every socket receives: no whole state is built (its cost
    /// grows with the game).
    pub(super) async fn play_quietly(
        &self,
        id: &str,
        token: Option<String>,
        action: String,
        ply: Option<Ply>,
        client: Option<IpAddr>,
    ) -> Result<(), GameError> {
        let play = Play {
            action,
            ply,
            client,
            with_view: false,
        };
        self.command(id, Who::Seat(token), play).await.map(drop)
    }
}

//! Give time (lichess's "moretime"; RULES.md, "Giving time"): in a game
//! between people with a running Fischer clock, a player gives his
//! opponent [`GIVE_TIME_MS`]. The time is credited to the opponent's clock
//! the way an outage is ([`GameChange::Credit`], RULES.md "Clocks and
//! outages"): cut out of one of his own periods, so that every server's
//! referee and every restart see it with no new stored fact.

use super::command::{CatchUp, Command, Cx, Steps, Who};
use super::Games;
use crate::clock::TimeControl;
use crate::storage::GameChange;
use crate::{GameError, GameState, Mode, Ply, Said};

/// What one gift gives: 15 seconds, as on lichess.
pub const GIVE_TIME_MS: i64 = 15_000;

/// A player's clock never goes above this by gifts (3 hours): a bound on
/// what a flood of gifts can add up to.
const GIVEN_MAX_MS: i64 = 3 * 3_600_000;

/// The caller gives his opponent time.
struct GiveTime;

fn refused(reason: &'static str, message: &'static str) -> GameError {
    GameError::Refused(Said::new(reason, message))
}

impl Command for GiveTime {
    type Done = GameState;
    // A sign of life; a game whose time is up is ended first.
    const STEPS: Steps = Steps {
        catch_up: CatchUp::Never,
        alive: true,
        clock: true,
    };

    async fn rule(self, cx: &mut Cx<'_>) -> Result<GameState, GameError> {
        cx.room.check_playing()?;
        let giver = cx.player()?;
        let to = giver.opponent();
        let room = &mut *cx.room;
        if room.info.mode != Mode::Friend {
            return Err(refused(
                "give_time_people",
                "time is given only in a game between people",
            ));
        }
        if room.info.arena.is_some() {
            return Err(refused(
                "give_time_tournament",
                "no time is given in a tournament's game",
            ));
        }
        if !matches!(room.info.clock, Some(TimeControl::Fischer { .. })) {
            return Err(refused(
                "give_time_no_clock",
                "time is given only in a game with a clock of minutes",
            ));
        }
        let now = room.clock.now_ms();
        let Some(clocks) = room.clocks_at(now) else {
            return Err(refused(
                "give_time_no_clock",
                "time is given only in a game with a clock of minutes",
            ));
        };
        if clocks.left[to.index()] + GIVE_TIME_MS > GIVEN_MAX_MS {
            return Err(refused(
                "give_time_enough",
                "your opponent has as much time as can be given",
            ));
        }
        // The period the gift is cut out of: the opponent's running one,
        // else his last one that his clock paid for (a first action of
        // each player is free: time cut from it would give nothing).
        let ply = room.ply();
        let at = match clocks.running {
            Some(p) if p == to => Some(ply),
            Some(_) => charged_periods(room.game.history().iter().map(|p| p.to_move()), ply)
                .into_iter()
                .rev()
                .find(|&(_, p)| p == to)
                .map(|(i, _)| i),
            None => None,
        };
        let Some(at) = at else {
            return Err(refused(
                "give_time_not_yet",
                "your opponent's clock has not run yet: give time once it has",
            ));
        };
        let mut credits: Vec<(Ply, i64)> = room
            .info
            .credits
            .iter()
            .copied()
            .filter(|&(p, _)| p <= ply)
            .collect();
        // One entry per period: however many gifts, the list stays as
        // long as the game.
        match credits.iter_mut().find(|(p, _)| *p == at) {
            Some((_, ms)) => *ms += GIVE_TIME_MS,
            None => credits.push((at, GIVE_TIME_MS)),
        }
        credits.sort_unstable();
        cx.commit_change(GameChange::Credit {
            credits,
            deadline: None,
        })
        .await?;
        cx.changed();
        tracing::info!("game {}: {giver} gave {to} time", cx.room.id());
        Ok(cx.view())
    }
}

/// The plies whose time a clock paid for, with who acted, among the first
/// `ply` of a game whose players to act were `movers`: those after each
/// player had acted once (RULES.md, "Clocks").
fn charged_periods(
    movers: impl Iterator<Item = gore_core::Player>,
    ply: Ply,
) -> Vec<(Ply, gore_core::Player)> {
    let mut acted = [false; 2];
    let mut charged = Vec::new();
    for (i, p) in movers.take(ply.index()).enumerate() {
        if acted == [true, true] {
            charged.push((Ply::of_len(i), p));
        }
        acted[p.index()] = true;
    }
    charged
}

impl Games {
    /// The holder of `token` gives his opponent [`GIVE_TIME_MS`] (a game
    /// between people with a running Fischer clock, not an arena's).
    /// Returns the state as the caller sees it.
    pub(super) async fn give_time(
        &self,
        id: &str,
        token: Option<String>,
    ) -> Result<GameState, GameError> {
        self.command(id, Who::Seat(token), GiveTime).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gore_core::Player::{A, B};

    /// By hand: A, B, A, B, A acted. A's first (0) and B's first (1) are
    /// free; from ply 2 on both had acted, so 2, 3 and 4 were paid for.
    #[test]
    fn only_periods_after_both_first_actions_are_paid_for() {
        let movers = [A, B, A, B, A, B];
        assert_eq!(
            charged_periods(movers.into_iter(), Ply::new(5)),
            vec![(Ply::new(2), A), (Ply::new(3), B), (Ply::new(4), A)]
        );
        // Had A acted twice in a row first (A, A, B, A), only A's action
        // at 3 came after both had acted.
        assert_eq!(
            charged_periods([A, A, B, A].into_iter(), Ply::new(4)),
            vec![(Ply::new(3), A)]
        );
        assert_eq!(charged_periods([A, B].into_iter(), Ply::new(2)), vec![]);
    }
}

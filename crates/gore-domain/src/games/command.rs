//! THE path of every player command: [`Games::command`] runs each one,
//! the same steps in the same order, and a command's own file holds only
//! its rule (a [`Command`]). The steps:
//!
//! 1. load the room (from the store the first time);
//! 2. go on in a task of its own, so that a caller who goes away (a
//!    closed connection drops the request) cannot cut a command between
//!    its commit and its broadcast;
//! 3. lock the room (one command at a time per game) and touch it (the
//!    janitor keeps it);
//! 4. catch up with the store when the command says so (other servers on
//!    one store);
//! 5. find the caller's seat from his token: a stale or unknown token is
//!    refused `NoSeat` here, before the rule runs;
//! 6. a sign of life of that seat, when the command is one;
//! 7. the clock: a game whose time is up is ended by the clock, and the
//!    command answered by [`Command::time_up`] instead of its rule;
//! 8. the rule, which commits through the store with [`Cx`]'s commits
//!    (each committed, then applied, then broadcast; a refusal or a
//!    failed commit leaves the room as it was and tells nobody);
//! 9. the AI's turn, if it is now to act.
//!
//! Like lichess's round actor (one handler in front of a file per
//! finisher, takebacker, rematcher), a new command is a new file with a
//! type implementing [`Command`], and a public method of [`Games`] that
//! runs it.
//!
//! The server's own machinery (the clock referee, the AI's turns,
//! presence, the catch-up with other servers, chat) changes a room the
//! same way, as [`Who::Server`] ([`Games::on_room`], [`Games::in_room`]).
//! Only this file locks a room for a change ([`RoomRef`]'s lock is
//! private to the games, so the compiler keeps the edges and the rest of
//! the domain from it; tests/layout.rs keeps the games' other files to
//! the path), and reads go through [`RoomRef::read`] and
//! [`RoomRef::peek`].

use std::future::Future;
use std::time::Instant;

use gore_core::{Action, Forfeit, Player};

use super::{join_error, player_of, Games, RoomRef};
use crate::storage::GameChange;
use crate::GameState;
use crate::{GameError, Ply, Room, Said, Seat};

/// Whose command it is: how the path finds the caller's seat.
#[derive(Debug, Clone)]
pub enum Who {
    /// The holder of a seat's token (or of none): refused `NoSeat` before
    /// the rule runs unless the token opens a seat of the game.
    Seat(Option<String>),
    /// Anyone: the rule checks a secret of its own (an invitation's code).
    Anyone,
    /// The server's own machinery (the referee, the AI, presence, sync,
    /// chat): no seat; the room is not kept in memory for it, and the AI
    /// is not started after it (the machinery that wants the AI says so).
    Server,
}

/// When the path first takes in what the store has (several servers on
/// one store; a server alone never catches up).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CatchUp {
    /// Never: the room is judged as it is.
    Never,
    /// When the caller knows more than the room: a later ply
    /// ([`Command::ply`]), or a token the room does not know (a seat
    /// given on another server a moment ago).
    WhenBehind,
    /// Always: the command is judged on the store's truth.
    Always,
}

/// What the path does before a command's rule.
#[derive(Debug, Clone, Copy)]
pub struct Steps {
    /// When to catch up with the store first.
    pub catch_up: CatchUp,
    /// The request is a sign of life of the caller's seat.
    pub alive: bool,
    /// The clock is enforced before the rule.
    pub clock: bool,
}

impl Steps {
    /// The seat only: no catch-up, no sign of life, no clock.
    pub const SEAT: Steps = Steps {
        catch_up: CatchUp::Never,
        alive: false,
        clock: false,
    };
}

/// A player command: its rule, run under the room's lock by
/// [`Games::command`] once the path's [`Steps`] are done.
pub trait Command: Send + 'static {
    /// What the command answers.
    type Done: Send + 'static;

    /// The steps the path takes before the rule.
    const STEPS: Steps;

    /// The ply the caller has seen, if he says (read by
    /// [`CatchUp::WhenBehind`]).
    fn ply(&self) -> Option<Ply> {
        None
    }

    /// The answer when the clock ended the game before the rule ran
    /// (with [`Steps::clock`]): by default a refusal.
    fn time_up(self, cx: &Cx<'_>) -> Result<Self::Done, GameError>
    where
        Self: Sized,
    {
        let _ = cx;
        Err(GameError::Refused(Said::new(
            "time_up",
            "your time is up: the game is over",
        )))
    }

    /// The command's own rule: refuses, or commits through `cx` and
    /// answers.
    fn rule(self, cx: &mut Cx<'_>) -> impl Future<Output = Result<Self::Done, GameError>> + Send;
}

/// What a rule is given: the games, the room under its lock, the
/// caller's seat.
pub struct Cx<'a> {
    /// The games.
    pub games: &'a Games,
    /// The room, shared (for what runs after the lock).
    pub room_ref: &'a RoomRef,
    /// The room, locked.
    pub room: &'a mut Room,
    /// The caller's seat (`None` for [`Who::Anyone`] and [`Who::Server`]).
    pub seat: Option<Seat>,
}

impl Cx<'_> {
    /// The caller's seat (a command run for [`Who::Seat`] always has one:
    /// the path refused the others).
    pub fn seat(&self) -> Result<Seat, GameError> {
        self.seat.ok_or(GameError::NoSeat)
    }

    /// The caller's player: `NoSeat` for a seat of both players (a game
    /// on one device).
    pub fn player(&self) -> Result<Player, GameError> {
        player_of(self.seat()?).ok_or(GameError::NoSeat)
    }

    /// The state as the caller sees it.
    pub fn view(&self) -> GameState {
        self.room.view(self.seat)
    }

    /// Commits an action, applies it and broadcasts it ([`Games::commit`]).
    pub async fn commit(&mut self, action: Action) -> Result<(), GameError> {
        self.games.commit(self.room_ref, self.room, action).await
    }

    /// Commits a change other than an action ([`Games::commit_change`]):
    /// applied to the room, its deadline worked out, committed; the room
    /// as it was if the store refuses.
    pub async fn commit_change(&mut self, change: GameChange) -> Result<(), GameError> {
        self.games
            .commit_change(self.room_ref, self.room, change)
            .await
    }

    /// Ends the game by `forfeit`: committed, applied, broadcast.
    pub async fn end(&mut self, forfeit: Forfeit) -> Result<(), GameError> {
        self.games.end_game(self.room_ref, self.room, forfeit).await
    }

    /// Aborts the game, counted against `player` in a game between people.
    pub async fn abort_by(&mut self, player: Player) -> Result<(), GameError> {
        self.games.abort_by(self.room_ref, self.room, player).await
    }

    /// Applies a change already committed and tells every socket: the
    /// state changed at the same ply.
    pub fn changed(&mut self) {
        let ply = self.room.ply();
        self.room.changed(ply);
    }
}

/// The seat of a token, or why it may not act.
fn seat_for(room: &Room, token: Option<&str>) -> Result<Seat, GameError> {
    token.and_then(|t| room.seat_of(t)).ok_or(GameError::NoSeat)
}

impl Games {
    /// Runs a player command on game `id` for `who`: the one path (see the
    /// module's docs). Goes on to its end even if the caller goes away.
    pub(super) async fn command<C: Command>(
        &self,
        id: &str,
        who: Who,
        command: C,
    ) -> Result<C::Done, GameError> {
        let room_ref = self.room(id).await?;
        let games = self.clone();
        tokio::spawn(async move { games.run(&room_ref, who, command).await })
            .await
            .unwrap_or_else(|e| Err(join_error(e)))
    }

    /// Runs a change of the server's own machinery on a room
    /// ([`Who::Server`]) through the one path, in the caller's task: the
    /// machinery runs in tasks of its own that nothing cancels (a socket's
    /// sign of life goes with its socket, as a direct lock did), and a
    /// task more per socket message measurably slowed every action
    /// (docs/BENCHMARKS.md, issue 36).
    pub(super) async fn on_room<C: Command>(
        &self,
        room_ref: &RoomRef,
        command: C,
    ) -> Result<C::Done, GameError> {
        self.run(room_ref, Who::Server, command).await
    }

    /// [`Games::on_room`] for a change of the room alone, nothing
    /// committed (a flag of the AI's, a count of spectators).
    pub(super) async fn in_room<T: Send + 'static>(
        &self,
        room_ref: &RoomRef,
        change: impl FnOnce(&mut Room) -> T + Send + 'static,
    ) -> Result<T, GameError> {
        self.on_room(room_ref, InRoom(change)).await
    }

    /// [`Games::command`]'s steps, in its task.
    async fn run<C: Command>(
        &self,
        room_ref: &RoomRef,
        who: Who,
        command: C,
    ) -> Result<C::Done, GameError> {
        let mut room = room_ref.lock().await;
        let server = matches!(who, Who::Server);
        if !server {
            room.touched = Instant::now();
        }
        let token = match &who {
            Who::Seat(token) => token.as_deref(),
            Who::Anyone | Who::Server => None,
        };
        // Another server may have taken the last action (or given the
        // seat) a moment ago and its notice not arrived yet: a client who
        // knows more than this room is not judged by it.
        let behind = match C::STEPS.catch_up {
            CatchUp::Never => false,
            CatchUp::Always => true,
            CatchUp::WhenBehind => {
                command.ply().is_some_and(|p| p > room.ply())
                    || (matches!(who, Who::Seat(_)) && seat_for(&room, token).is_err())
            }
        };
        if self.0.shared && behind && !self.catch_up_locked(room_ref, &mut room).await {
            return Err(GameError::Unavailable);
        }
        let seat = match who {
            Who::Seat(_) => Some(seat_for(&room, token)?),
            Who::Anyone | Who::Server => None,
        };
        if let (true, Some(seat)) = (C::STEPS.alive, seat) {
            self.alive(&mut room, seat).await;
        }
        // A command after the deadline is too late: the clock first.
        if C::STEPS.clock && self.enforce_clock(room_ref, &mut room).await {
            let cx = Cx {
                games: self,
                room_ref,
                room: &mut room,
                seat,
            };
            return command.time_up(&cx);
        }
        let mut cx = Cx {
            games: self,
            room_ref,
            room: &mut room,
            seat,
        };
        let done = command.rule(&mut cx).await?;
        if !server && room.ai_to_move() && !room.ai_busy {
            self.start_ai(room_ref.clone());
        }
        Ok(done)
    }
}

/// A change of the room alone, as a command ([`Games::in_room`]).
struct InRoom<F>(F);

impl<F, T> Command for InRoom<F>
where
    F: FnOnce(&mut Room) -> T + Send + 'static,
    T: Send + 'static,
{
    type Done = T;
    const STEPS: Steps = Steps::SEAT;

    async fn rule(self, cx: &mut Cx<'_>) -> Result<T, GameError> {
        Ok((self.0)(cx.room))
    }
}

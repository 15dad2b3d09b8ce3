//! What a room shows: the game as the holder of one seat (or a spectator)
//! sees it at one moment, in the domain's own terms. The edge turns a
//! [`GameState`] into a `state` message and a [`GameUpdate`] into an
//! `update`, each encoded once per audience ([`super::Change`]); the domain
//! never chooses how they are written.

use gore_core::{Action, Forfeit, Hole, Player, Position, Rules};

use super::super::clock::{Due, TimeControl};
use super::super::{Mode, Ply, Seat, Status};
use super::Room;

/// One action of the game's log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Played {
    /// From 1.
    pub ply: Ply,
    /// Who played it.
    pub player: Player,
    /// The action.
    pub action: Action,
    /// The holes it captured, in the order taken (the landing hole, the
    /// chain backward, then forward).
    pub captured: Vec<Hole>,
    /// The position after it; for the action that ends the game, the
    /// board it left, before the final sweep.
    pub position: Position,
    /// For a sowing, the hole each seed fell into, in order; empty for an
    /// offer, an answer or a pass.
    pub path: Vec<Hole>,
}

/// Who sits in one seat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeatState {
    /// A person.
    Human {
        /// False only for the friend's seat of a waiting game.
        joined: bool,
        /// His display name when he took the seat, if known.
        name: Option<String>,
        /// His rating when a rated game began.
        rating: Option<String>,
        /// Once a rated game is over and rated: his rating after it and
        /// the change.
        rating_change: Option<crate::rating::RatingChange>,
        /// A BOT account: it plays through the Bot API.
        bot: bool,
    },
    /// The server's AI (always joined).
    Ai {
        /// Its level.
        level: u8,
        /// The solver's perfect player.
        perfect: bool,
        /// It accepts every offer.
        honourable: bool,
    },
}

/// What one legal sowing would do, played by the rules before the click.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preview {
    /// The sowing.
    pub action: Action,
    /// The hole each seed would fall into, in order.
    pub path: Vec<Hole>,
    /// The holes it would capture, in the order taken.
    pub captured: Vec<Hole>,
    /// The seeds captured.
    pub seeds: u8,
}

/// A finished game's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameResult {
    /// Seeds of A and B.
    pub seeds: [u8; 2],
    /// `None` for a draw or an abort.
    pub winner: Option<Player>,
    /// The winner had declined an offer.
    pub without_glory: bool,
    /// How it ended: the board's reason ([`gore_core::EndReason::as_str`])
    /// or the forfeit's ([`Forfeit::as_str`]).
    pub reason: &'static str,
    /// The seeds A and B each took in the final sweep.
    pub swept: [u8; 2],
}

/// A timed game's clocks at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockState {
    /// The time control.
    pub control: TimeControl,
    /// Milliseconds each player (A, B) has left.
    pub left: [i64; 2],
    /// Whose clock runs.
    pub running: Option<Player>,
    /// Milliseconds from `now` to the deadline of the player to act.
    pub deadline_in: Option<i64>,
    /// What happens then.
    pub due: Option<Due>,
    /// The moment these figures are for (Unix ms).
    pub now: i64,
}

/// Everything of a state that changes with each action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeadState {
    /// waiting, playing or over.
    pub status: Status,
    /// The current position (after the final sweep once over).
    pub position: Position,
    /// Who is to act; `None` once over.
    pub to_move: Option<Player>,
    /// Who sits in A's and B's seats.
    pub seats: [SeatState; 2],
    /// The actions the recipient may play now (empty when not his turn).
    pub legal: Vec<Action>,
    /// What each sowing of `legal` would do.
    pub previews: Vec<Preview>,
    /// Actions played.
    pub ply: Ply,
    /// Whether A and B have declined an offer.
    pub declined: [bool; 2],
    /// Once over.
    pub result: Option<GameResult>,
    /// The rematch's game id, once asked for.
    pub rematch: Option<String>,
    /// Paired in the lobby.
    pub lobby: bool,
    /// Rated.
    pub rated: bool,
    /// The AI is to act.
    pub thinking: bool,
    /// A pending takeback request: who asks.
    pub takeback: Option<Player>,
    /// A timed game's clocks.
    pub clock: Option<ClockState>,
    /// Either player may abort now.
    pub abortable: bool,
    /// Whether A and B went berserk.
    pub berserk: [bool; 2],
    /// Whether A and B may go berserk now.
    pub berserkable: [bool; 2],
    /// For how long (ms) A and B have had no socket, in a game between
    /// people being played.
    pub away: [Option<i64>; 2],
}

/// The whole game as one recipient sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameState {
    /// The game id.
    pub id: String,
    /// ai, friend or local.
    pub mode: Mode,
    /// The rule set.
    pub rules: Rules,
    /// The start position.
    pub start: Position,
    /// The recipient's seat; `None` for a spectator.
    pub you: Option<Seat>,
    /// Every action so far.
    pub actions: Vec<Played>,
    /// Takebacks granted.
    pub takebacks: u32,
    /// The rest.
    pub head: HeadState,
}

/// What changed since a state a recipient has: the actions after its
/// `since`, and the new head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameUpdate {
    /// The game id.
    pub id: String,
    /// The ply this update follows.
    pub since: Ply,
    /// The actions played since.
    pub actions: Vec<Played>,
    /// The new head.
    pub head: HeadState,
}

impl Room {
    /// Whether the holder of `seat` is the one to act now (then he is
    /// shown his legal actions).
    fn acts_now(&self, seat: Option<Seat>) -> bool {
        matches!((seat, self.actor()), (Some(s), Some(p)) if s.acts_for(p))
    }

    fn seats(&self) -> [SeatState; 2] {
        Player::ALL.map(|p| {
            if self.info.ai_seat == Some(p) {
                SeatState::Ai {
                    level: self.info.level.into(),
                    perfect: self.info.perfect,
                    honourable: self.info.honourable,
                }
            } else {
                SeatState::Human {
                    joined: !(self.info.mode == Mode::Friend
                        && self.info.status == Status::Waiting
                        && Seat::of(p) != self.info.creator),
                    name: self.info.names[p.index()].clone(),
                    rating: self.info.ratings[p.index()].clone(),
                    rating_change: self.rating_changes[p.index()].clone(),
                    bot: self.info.bots[p.index()],
                }
            }
        })
    }

    /// What changes with each action; `legal` (and what each sowing
    /// would do) for the actor or nobody.
    pub(super) fn head(&self, with_legal: bool) -> HeadState {
        let pos = self.game.position();
        let over = self.is_over();
        let legal: Vec<Action> = if with_legal && self.actor().is_some() {
            self.game.legal_actions().iter().copied().collect()
        } else {
            Vec::new()
        };
        HeadState {
            status: self.info.status,
            position: *pos,
            to_move: (!over).then(|| pos.to_move()),
            seats: self.seats(),
            previews: previews(pos, &legal),
            legal,
            ply: self.ply(),
            declined: Player::ALL.map(|p| self.game.has_declined(p)),
            result: self
                .info
                .forfeit
                .map(|f| self.forfeit_result_of(f))
                .or_else(|| {
                    self.game.outcome().map(|o| {
                        // The board before the sweep: what each player took from it.
                        let before = self.game.history().last().unwrap_or(pos);
                        GameResult {
                            seeds: o.seeds,
                            winner: o.winner(),
                            without_glory: o.without_glory(),
                            reason: o.reason.as_str(),
                            swept: Player::ALL.map(|p| pos.captured(p) - before.captured(p)),
                        }
                    })
                }),
            rematch: self.info.rematch.clone(),
            thinking: self.ai_to_move(),
            lobby: self.info.lobby,
            rated: self.info.rated,
            takeback: self.info.takeback,
            clock: self.clock_state(),
            away: Player::ALL.map(|p| self.away_for(p)),
            abortable: self.info.status == Status::Playing
                && !self.is_over()
                && self.info.mode == Mode::Friend
                && !self.both_have_acted(),
            berserk: self.info.berserk,
            berserkable: Player::ALL.map(|p| self.berserkable(p)),
        }
    }

    /// The clocks as the page shows them, now.
    fn clock_state(&self) -> Option<ClockState> {
        let now = self.clock.now_ms();
        let c = self.clocks_at(now)?;
        Some(ClockState {
            control: self.info.clock?,
            left: c.left,
            running: c.running,
            deadline_in: c.deadline.map(|(at, _)| (at - now).max(0)),
            due: c.deadline.map(|(_, due)| due),
            now,
        })
    }

    /// The result of a forfeited game: no sweep, the captured totals as
    /// they stood, the loser's opponent the winner (none after an abort).
    fn forfeit_result_of(&self, forfeit: Forfeit) -> GameResult {
        let pos = self.game.position();
        let winner = forfeit.loser().map(Player::opponent);
        GameResult {
            seeds: Player::ALL.map(|p| pos.captured(p)),
            winner,
            without_glory: winner.is_some_and(|w| self.game.has_declined(w)),
            reason: forfeit.as_str(),
            swept: [0, 0],
        }
    }

    /// The update from `since` with the actor's legal actions or without.
    pub(super) fn update_from(&self, since: Ply, with_legal: bool) -> GameUpdate {
        GameUpdate {
            id: self.info.id.clone(),
            since,
            actions: self.log[since.index().min(self.log.len())..].to_vec(),
            head: self.head(with_legal),
        }
    }

    /// What a client of `seat` that has the first `since` actions lacks:
    /// the later ones and the head, as an update; `None` when the game has
    /// not reached `since` (the client needs the whole state).
    pub fn update_since(&self, seat: Option<Seat>, since: Ply) -> Option<GameUpdate> {
        (since.index() <= self.log.len()).then(|| self.update_from(since, self.acts_now(seat)))
    }

    /// The whole state as the holder of `seat` (`None`: a spectator) sees it.
    pub fn view(&self, seat: Option<Seat>) -> GameState {
        GameState {
            id: self.info.id.clone(),
            mode: self.info.mode,
            rules: self.info.rules,
            start: self.info.start,
            you: seat,
            actions: self.log.clone(),
            takebacks: self.info.takebacks,
            head: self.head(self.acts_now(seat)),
        }
    }
}

/// What each sowing of `legal` would do from `pos`: the rules play it
/// (the page never sows itself).
fn previews(pos: &Position, legal: &[Action]) -> Vec<Preview> {
    legal
        .iter()
        .filter(|a| matches!(a, Action::Sow(_)))
        .filter_map(|&a| {
            let (_, effect) = pos.play_effect(a).ok()?;
            Some(Preview {
                action: a,
                path: effect.path(),
                captured: effect.captures(),
                seeds: effect.seeds_captured,
            })
        })
        .collect()
}

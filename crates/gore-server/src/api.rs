//! The wire types: every body of the HTTP API and every WebSocket message
//! (docs/API.md), typed with serde. The server writes them, and clients
//! (gore-load, the tests) read them with the same definitions.

use gore_core::{Action, Hole, Player, Rules};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

pub use crate::domain::{Mode, Seat, Status};
pub use crate::error::{ApiError, ErrorCode};

/// The level of a new ai game when the request names none (the home page
/// shows the same: the server writes it into the page).
pub const DEFAULT_LEVEL: gore_ai::Level = gore_ai::Level::STANDARD;
/// The creator's seat when the request names none: `random`.
pub const DEFAULT_COLOUR: &str = "random";

/// The body of `POST /api/games`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewGame {
    /// ai, friend or local.
    pub mode: Mode,
    /// The rule set (`standard`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<String>,
    /// 1 to [`gore_ai::MAX_LEVEL`], ai games ([`DEFAULT_LEVEL`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<u8>,
    /// `A`, `B` or `random` (the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub colour: Option<String>,
    /// The AI accepts every offer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub honourable: Option<bool>,
    /// The AI is the solver's perfect player (ai games without trades, on
    /// a server started with `--solver-db`); `level` is then ignored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub perfect: Option<bool>,
    /// A start position in GPN (the initial one by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    /// Friend games: the clock, `M+S` (`5+3`: 5 minutes and 3 seconds an
    /// action) or `Nd` (`3d`: 3 days an action); untimed when absent or
    /// `none`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<String>,
}

/// The answer to `GET /api/me` and `POST /api/me/name`, and the body of
/// the latter: the browser's display name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Me {
    /// 3 to 20 letters (any script), digits, `-` and `_`.
    pub name: String,
    /// The player's public id (absent in a rename's body).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Logged in to an account (the name is its username).
    #[serde(default)]
    pub account: bool,
}

/// The body of `POST /api/account/signup` and `…/login`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Credentials {
    /// The username.
    pub username: String,
    /// The password.
    pub password: String,
}

/// The body of `POST /api/account/password`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewPassword {
    /// The current password.
    pub current: String,
    /// The new one.
    pub new: String,
}

/// The body of `POST /api/lobby/seek`: quick pairing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeekBody {
    /// The pace: `5+3`, `3d` (one of the server's paces, or any clock).
    pub clock: String,
    /// Rated (accounts only).
    #[serde(default)]
    pub rated: bool,
}

/// The body of `POST /api/lobby/challenges`: an open challenge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChallengeBody {
    /// The rule set (`standard`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<String>,
    /// The clock (`5+3`, `3d`, `none`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<String>,
    /// The creator's colour: `A`, `B`, `random`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub colour: Option<String>,
    /// Rated (accounts only).
    #[serde(default)]
    pub rated: bool,
}

/// The answer to a pairing (a seek paired at once, an accepted challenge)
/// or to a waiting seek or posted challenge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Paired {
    /// The game, once paired.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<String>,
    /// Its page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The seek or challenge waiting in the lobby.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting: Option<String>,
}

/// A message from a client on the lobby socket.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum LobbyClientMsg {
    /// Quick pairing.
    Seek {
        /// The pace.
        clock: String,
        /// Rated.
        #[serde(default)]
        rated: bool,
    },
    /// An open challenge: the terms of [`ChallengeBody`] (its fields, not
    /// flattened: a flattened struct cannot refuse unknown fields).
    Challenge {
        /// The rule set (`standard`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rules: Option<String>,
        /// The clock (`5+3`, `3d`, `none`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clock: Option<String>,
        /// The creator's colour: `A`, `B`, `random`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        colour: Option<String>,
        /// Rated (accounts only).
        #[serde(default)]
        rated: bool,
    },
    /// Accept a challenge.
    Accept {
        /// Its id.
        id: String,
    },
    /// Withdraw one's seek or challenges.
    Cancel {},
    /// Answered by a `pong`.
    Ping {},
}

/// A message from the server on the lobby socket (besides `lobby`, the
/// state: [`crate::domain::lobby::LobbyMsg`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LobbyServerMsg {
    /// First: who the socket's player is.
    Hello {
        /// His public id (challenges' `by`).
        you: String,
        /// His display name.
        name: String,
    },
    /// A seek or challenge of his waits in the lobby.
    Waiting {
        /// Its id.
        id: String,
    },
    /// He was paired: the game to open.
    Paired {
        /// The game.
        game: String,
        /// Its page.
        url: String,
    },
    /// His seeks and challenges were withdrawn.
    Cancelled,
    /// A refused message.
    Error {
        /// Why.
        error: ApiError,
    },
    /// The answer to a `ping`.
    Pong,
}

/// The answer to `GET /api/solver`: what the solver's database allows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Solver {
    /// The rule sets (`no-trades`, `no-trades,skip-origin`) whose ai games
    /// may have the perfect player (`perfect: true`); empty without a
    /// database (`gore serve --solver-db DIR`).
    pub perfect: Vec<String>,
}

/// The answer to a game's creation, a rematch, or a claimed link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Created {
    /// The game id.
    pub id: String,
    /// The seat this answer gives.
    pub seat: Seat,
    /// The seat's secret (bots send it as `Authorization: Bearer`).
    pub token: String,
    /// The game page.
    pub url: String,
    /// The invitation path for the friend (friend games, for the creator).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invite: Option<String>,
}

/// The body of `POST /api/games/{id}/actions`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayBody {
    /// The action token (`a1`, `offer:a1,a3`, `accept`, `decline`, `pass`).
    pub action: String,
    /// The number of actions the client has seen; another is `stale`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ply: Option<u64>,
}

/// The body of `POST /api/games/{id}/join` and `…/continue`: the code of
/// the link that was opened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimBody {
    /// The last part of `/join/{id}/{code}` or `/continue/{id}/{code}`.
    pub code: String,
}

/// The answer to `POST /api/games/{id}/devices`: a link that opens the
/// caller's seat on another device, until revoked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceLink {
    /// `/continue/{id}/{code}`.
    pub url: String,
}

/// Who sits in one seat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum SeatView {
    /// A person.
    Human {
        /// False only for the friend's seat of a `waiting` game.
        joined: bool,
        /// His display name, as it was when he took the seat (absent for a
        /// bot without a session, and on one device).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        /// His rating in the game's pace when it began (`1500?`: still
        /// provisional), in rated games.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rating: Option<String>,
    },
    /// The server's AI.
    Ai {
        /// 1 to [`gore_ai::MAX_LEVEL`] (the top level for the perfect
        /// player, its play above its database).
        level: u8,
        /// The solver's perfect player (no-trade games, a server with a
        /// database).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        perfect: bool,
        /// It accepts every offer.
        honourable: bool,
        /// Always true.
        joined: bool,
    },
}

/// One value per player, as `{"A": …, "B": …}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PerPlayer<T> {
    /// Player A's.
    #[serde(rename = "A")]
    pub a: T,
    /// Player B's.
    #[serde(rename = "B")]
    pub b: T,
}

impl<T> PerPlayer<T> {
    /// Player `p`'s value.
    pub fn get(&self, p: Player) -> &T {
        match p {
            Player::A => &self.a,
            Player::B => &self.b,
        }
    }
}

/// One action of the log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// From 1.
    pub ply: usize,
    /// Who played it.
    pub player: Player,
    /// The action.
    pub action: Action,
    /// The holes it captured, in the order taken (the landing hole, the
    /// chain backward, then forward).
    pub captured: Vec<Hole>,
    /// The position after it (GPN); for the action that ends the game, the
    /// board it left, before the final sweep.
    pub position: String,
    /// For a sowing, the hole each seed fell into, in order (laps
    /// included, the origin skipped under `skip-origin`); empty for an
    /// offer, an answer or a pass.
    #[serde(default)]
    pub path: Vec<Hole>,
}

/// What one legal sowing would do, for the page to draw before the click
/// (the rules decide; the page only draws).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Preview {
    /// The sowing.
    pub action: Action,
    /// The hole each seed would fall into, in order.
    pub path: Vec<Hole>,
    /// The holes it would capture, in the order taken (the landing hole,
    /// the chain backward, then forward).
    pub captured: Vec<Hole>,
    /// The seeds those holes hold after the sowing (the seeds captured).
    pub seeds: u8,
}

/// A finished game's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultView {
    /// Seeds of A and B.
    pub seeds: [u8; 2],
    /// `None` for a draw.
    pub winner: Option<Player>,
    /// The winner had declined an offer.
    pub without_glory: bool,
    /// `board`, `no-hole`, `repetition` or `ply-cap` (the board ended the
    /// game); `resign`, `time` (the loser's clock ran out), `left` (the
    /// winner claimed the game after the loser left) or `abort` (no winner,
    /// no result: it counts for nobody).
    pub reason: String,
    /// The seeds A and B each took in the final sweep (included in
    /// `seeds`); `[0, 0]` after a resignation.
    #[serde(default)]
    pub swept: [u8; 2],
}

/// The rematch of a game, once asked for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RematchView {
    /// The new game's id.
    pub id: String,
    /// Its page.
    pub url: String,
}

/// What changes with each action: everything of a state but the game's
/// fixed facts and its log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Head {
    /// waiting, playing or over.
    pub status: Status,
    /// The current position (GPN; after the final sweep once over).
    pub position: String,
    /// Who is to act; `None` once over.
    pub to_move: Option<Player>,
    /// Who sits where.
    pub seats: PerPlayer<SeatView>,
    /// The actions the recipient may play now (empty when not his turn).
    pub legal: Vec<Action>,
    /// Actions played.
    pub ply: usize,
    /// Whether each player has declined an offer.
    pub declined: PerPlayer<bool>,
    /// Once over.
    pub result: Option<ResultView>,
    /// Once a rematch was asked for.
    pub rematch: Option<RematchView>,
    /// A game paired in the lobby (between strangers).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub lobby: bool,
    /// Rated: its result moves both players' ratings.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
    /// The AI is thinking (or waiting for a thread) on this game.
    #[serde(default)]
    pub thinking: bool,
    /// What each legal sowing of `legal` would do (the same recipient
    /// only: empty when `legal` is).
    #[serde(default)]
    pub previews: Vec<Preview>,
    /// A friend game's pending takeback request: the player who asks.
    #[serde(default)]
    pub takeback: Option<Player>,
    /// A timed game's clocks (`None`: untimed; while a friend game waits,
    /// the whole times with nothing running).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockView>,
    /// Either player may abort now: the game is being played and one of
    /// them has not yet made an action (RULES.md, "Abort").
    #[serde(default)]
    pub abortable: bool,
    /// For how long (ms, as of this message) each player of a game between
    /// people being played has had no socket open (`null`: connected).
    #[serde(default = "no_one_away")]
    pub away: PerPlayer<Option<i64>>,
}

fn no_one_away() -> PerPlayer<Option<i64>> {
    PerPlayer { a: None, b: None }
}

/// A timed game's clocks, as the server computed them when it made the
/// message: a client counts down from `left` for the `running` player and
/// takes the figures again from each state and update.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockView {
    /// The time control: `5+3` (minutes + seconds an action) or `3d`
    /// (days an action).
    pub control: crate::domain::clock::TimeControl,
    /// Milliseconds each player has left; in a correspondence game, the
    /// time left for the current action of the player to act.
    pub left: PerPlayer<i64>,
    /// Whose clock is running (`None` before each player has acted in a
    /// Fischer game: the first actions are free, and once over).
    pub running: Option<Player>,
    /// Milliseconds from this message to the deadline of the player to
    /// act: then he loses on time (`due` = `flag`) or, before both players
    /// have acted, the game is aborted (`due` = `abort`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_in: Option<i64>,
    /// `flag` or `abort`, with `deadline_in`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub due: Option<String>,
    /// The server's time when it made this (Unix ms).
    pub now: i64,
}

/// A game's whole state, as `GET /api/games/{id}` and the first socket
/// message give it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameView {
    /// The game id.
    pub id: String,
    /// ai, friend or local.
    pub mode: Mode,
    /// The rule set.
    pub rules: Rules,
    /// The start position (GPN).
    pub start: String,
    /// The recipient's seat; `None` for a spectator.
    pub you: Option<Seat>,
    /// Every action so far.
    pub actions: Vec<Entry>,
    /// How many takebacks were granted (a game with any is casual). A
    /// takeback always reaches the sockets as a whole `state`.
    #[serde(default)]
    pub takebacks: u32,
    /// Everything else.
    #[serde(flatten)]
    pub head: Head,
}

impl GameView {
    /// Applies an update that follows this state (its `since` is this
    /// state's `ply`); `false`, changing nothing, if it does not.
    pub fn apply(&mut self, update: &Update) -> bool {
        if update.since != self.head.ply || update.since + update.actions.len() != update.head.ply {
            return false;
        }
        self.actions.extend(update.actions.iter().cloned());
        self.head = update.head.clone();
        true
    }
}

/// What changed since the state a socket already has.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Update {
    /// The game id.
    pub id: String,
    /// The `ply` this update follows.
    pub since: usize,
    /// The actions played since (often one; none for a change of status,
    /// seats or the AI's thinking).
    pub actions: Vec<Entry>,
    /// The new head.
    #[serde(flatten)]
    pub head: Head,
}

/// A message from the server on a game's socket.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMsg {
    /// The whole state: first, and after a `resync`.
    State {
        /// The state as this socket's seat sees it.
        state: Box<GameView>,
    },
    /// What changed since the last state or update.
    Update {
        /// The change.
        update: Box<Update>,
    },
    /// A refused message, to its sender only.
    Error {
        /// Why.
        error: ApiError,
    },
    /// The answer to a `ping`.
    Pong,
    /// The chat so far (to a seated player of a game between people, after
    /// his first state).
    ChatHistory {
        /// The messages, in order.
        lines: Vec<crate::store::ChatLine>,
    },
    /// A new chat message (to the seated players only).
    Chat {
        /// The message.
        line: crate::store::ChatLine,
    },
}

/// A message from a client on a game's socket.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
/// (Variants without fields are empty structs: a unit variant of an
/// internally tagged enum would accept any field.)
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientMsg {
    /// Play an action (the holder of a seat).
    Action {
        /// The action token.
        action: String,
        /// The number of actions the client has seen.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ply: Option<u64>,
    },
    /// Send what the client lacks: the actions after its `ply` as an
    /// `update` when it gives one the game has reached, else the whole
    /// state. Limited per socket (docs/API.md).
    Resync {
        /// The number of actions the client has.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ply: Option<u64>,
    },
    /// Resign the game (the holder of a seat; in a local game, for the
    /// player to move).
    Resign {},
    /// Abort the game (before each player has made an action).
    Abort {},
    /// Take back: at once in ai and local games, a request to the
    /// opponent in friend games.
    Takeback {},
    /// Answer the opponent's takeback request (friend games).
    TakebackAnswer {
        /// Grant it.
        accept: bool,
    },
    /// A chat message (a seated player of a game between people).
    Chat {
        /// One line of text, 1 to 200 characters.
        text: String,
    },
    /// Answered by a `pong`.
    Ping {},
}

/// The body of `POST /api/games/{id}/chat`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChatBody {
    /// One line of text, 1 to 200 characters.
    pub text: String,
}

/// The body of `POST /api/games/{id}/takeback/answer`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnswerBody {
    /// Grant the takeback.
    pub accept: bool,
}

/// The body of `POST /api/review`: a game record's text (docs/NOTATION.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReviewUpload {
    /// The record, at most 12 KiB and 600 actions.
    pub record: String,
}

/// The answer of `GET /api/games/{id}/review/status` and
/// `GET /api/review/status`: where a review asked for is, so that a page
/// whose review request waits can show its place in the analysis pool's
/// queue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewStatus {
    /// `done` (cached), `queued`, `running` or `none`.
    pub state: String,
    /// With `queued`: the jobs that will run before it (0: it is next).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub place: Option<usize>,
}

impl From<crate::domain::review::ReviewState> for ReviewStatus {
    fn from(s: crate::domain::review::ReviewState) -> ReviewStatus {
        use crate::domain::review::ReviewState as S;
        let (state, place) = match s {
            S::Done => ("done", None),
            S::Queued { place } => ("queued", Some(place)),
            S::Running => ("running", None),
            S::Absent => ("none", None),
        };
        ReviewStatus {
            state: state.into(),
            place,
        }
    }
}

/// The answer of `GET /api/games/{id}/review` and `POST /api/review`: each
/// action valued (expected final seeds), classed, with the better action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReviewView {
    /// The rule set.
    pub rules: String,
    /// The start position (GPN).
    pub start: String,
    /// Names of A and B, when the record has them.
    pub players: [Option<String>; 2],
    /// The seeds of the game (48, or 8N).
    pub total: u8,
    /// Final seeds of A and B when the board ended the game.
    pub outcome: Option<[u8; 2]>,
    /// The record's result tag (`26-22`, `*`).
    pub result: String,
    /// Each action, in order.
    pub actions: Vec<ReviewedAction>,
    /// A's and B's summaries.
    pub summary: [ReviewSummary; 2],
    /// The engine's budget: depth (plies) and nodes per search.
    pub depth: u32,
    /// Nodes per search at most.
    pub nodes: u64,
    /// The annotated record (evaluations as comments), for download.
    pub record: String,
}

/// One action of a [`ReviewView`]. Seeds are expected final seeds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReviewedAction {
    /// From 1.
    pub ply: usize,
    /// `A` or `B`.
    pub mover: Player,
    /// The position it was played in (GPN).
    pub gpn: String,
    /// The action played (token).
    pub action: String,
    /// A's and B's seeds before it, under best play.
    pub before: [f64; 2],
    /// A's and B's seeds after the action played.
    pub after: [f64; 2],
    /// The best action (the played one when it was best).
    pub best: String,
    /// A's and B's seeds after the best action.
    pub best_after: [f64; 2],
    /// The position after the action played (GPN, before any sweep).
    pub after_gpn: String,
    /// The position after the best action (GPN, before any sweep): the
    /// board shows it when the better action is played on it.
    pub best_gpn: String,
    /// Seeds the mover lost (0 or more).
    pub loss: f64,
    /// `forced`, `good`, `inaccuracy`, `mistake` or `blunder`.
    pub class: String,
    /// `?!`, `?`, `??` or empty.
    pub mark: String,
    /// `engine` or `solved`.
    pub source: String,
}

/// A player's part of a [`ReviewView`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReviewSummary {
    /// His actions.
    pub actions: usize,
    /// Of them, forced.
    pub forced: usize,
    /// Seeds lost per action not forced, on average.
    pub average_loss: f64,
    /// Inaccuracies.
    pub inaccuracies: usize,
    /// Mistakes.
    pub mistakes: usize,
    /// Blunders.
    pub blunders: usize,
}

/// The position after `action` (legal: the review played or found it).
fn gpn_after(p: &gore_core::Position, action: Action) -> String {
    p.play(action)
        .map_or_else(|_| p.to_string(), |n| n.to_string())
}

/// Rounds to 1/100 seed, for the wire.
fn cents(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

impl From<&crate::domain::review::Reviewed> for ReviewView {
    fn from(r: &crate::domain::review::Reviewed) -> ReviewView {
        use gore_learn::review::Source;
        let rec = &r.record;
        let rv = &r.review;
        let start = rec
            .start_position()
            .map(|p| p.to_string())
            .unwrap_or_default();
        let pair = |x: [f64; 2]| [cents(x[0]), cents(x[1])];
        let actions = rv
            .actions
            .iter()
            .map(|a| {
                let total = a.before[0] + a.before[1];
                let best_after = match a.mover {
                    Player::A => [a.best_value, total - a.best_value],
                    Player::B => [total - a.best_value, a.best_value],
                };
                ReviewedAction {
                    ply: a.ply,
                    mover: a.mover,
                    gpn: a.position.to_string(),
                    action: a.action.to_string(),
                    before: pair(a.before),
                    after: pair(a.after()),
                    best: a.best.to_string(),
                    best_after: pair(best_after),
                    after_gpn: gpn_after(&a.position, a.action),
                    best_gpn: gpn_after(&a.position, a.best),
                    loss: cents(a.loss),
                    class: a.class.as_str().to_string(),
                    mark: a.class.mark().to_string(),
                    source: match a.source {
                        Source::Engine => "engine",
                        Source::Solved => "solved",
                    }
                    .to_string(),
                }
            })
            .collect();
        let summary = rv.summary.map(|s| ReviewSummary {
            actions: s.actions,
            forced: s.forced,
            average_loss: cents(s.average_loss),
            inaccuracies: s.inaccuracies,
            mistakes: s.mistakes,
            blunders: s.blunders,
        });
        ReviewView {
            rules: rec.rules.to_string(),
            start,
            players: rec.players.clone(),
            total: rv.total_seeds,
            outcome: rv.outcome,
            result: rec
                .result
                .map_or_else(|| "*".to_string(), |r| r.to_string()),
            actions,
            summary,
            depth: rv.budget.depth,
            nodes: rv.budget.nodes,
            record: rec.to_string(),
        }
    }
}

/// The body of every error answer: `{"error": {"code": …, "message": …}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    /// The error.
    pub error: ApiError,
}

/// The answer to `GET /api/puzzles/next`: a puzzle to solve (its answer
/// stays on the server until `POST /api/puzzles/{id}/solve`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PuzzleView {
    /// The puzzle's id.
    pub id: String,
    /// The rule set (`standard`).
    pub rules: String,
    /// The position, in GPN.
    pub gpn: String,
    /// The player who must find the best action.
    pub to_move: Player,
    /// The puzzle's difficulty, on the players' puzzle-rating scale.
    pub rating: i32,
    /// The legal actions, tokens (the browser does not decide legality).
    pub legal: Vec<String>,
}

/// The body of `POST /api/puzzles/{id}/solve`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SolveBody {
    /// The action token the player chose (`a1`, `offer:a1,a3`, `accept`,
    /// `decline`, `pass`).
    pub action: String,
    /// The player's puzzle rating before this puzzle (1500 when absent):
    /// the answer carries the rating after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<i32>,
}

/// The answer to `POST /api/puzzles/{id}/solve`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SolveResult {
    /// The action sent was the puzzle's answer.
    pub correct: bool,
    /// The answer.
    pub answer: String,
    /// K, in seeds: the answer ends with at least this many more of the
    /// player's seeds than any other action.
    pub margin: u8,
    /// The depth of the search that proved it, in plies.
    pub depth: u32,
    /// What the answer does (`capture`, `chain`, `offer`, `decline`, …).
    pub themes: Vec<String>,
    /// The expected line after the answer, action tokens.
    pub line: Vec<String>,
    /// The puzzle's rating.
    pub rating: i32,
    /// The player's puzzle rating after this attempt (an Elo update
    /// against the puzzle's rating, `gore_learn::puzzles::update_rating`).
    pub new_rating: i32,
}

/// Reads one JSON object, naming the field that is wrong. Anything but
/// an object (serde would read an array as a struct's fields in order)
/// and anything after the object are refused.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let first = bytes
        .iter()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
    if first != Some(&b'{') {
        return Err(ApiError::bad_request("body: expected a JSON object `{…}`"));
    }
    let de = &mut serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize(&mut *de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path.is_empty() || path == "." || path == "?" {
            ApiError::bad_request(format!("body: {inner}"))
        } else {
            ApiError::bad_request(format!("{path}: {inner}"))
        }
    })?;
    de.end()
        .map_err(|_| ApiError::bad_request("body: trailing data after the JSON object"))?;
    Ok(value)
}

// ---- The analysis board (`POST /api/analysis/position`, `/api/analysis/ws`) ----

/// A position to set up: the body of `POST /api/analysis/position`, and
/// what an `analyse` message names.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnalysisSetup {
    /// The rule set (`standard` when absent).
    #[serde(default)]
    pub rules: Option<String>,
    /// The start position in GPN (the rules' start when absent).
    #[serde(default)]
    pub gpn: Option<String>,
    /// The actions played from it, tokens separated by spaces.
    #[serde(default)]
    pub line: Option<String>,
}

/// The answer to `POST /api/analysis/position`: the position after the
/// line, as the rules library judges it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnalysisPosition {
    /// The rule set, written canonically.
    pub rules: String,
    /// The start position, in canonical GPN.
    pub start: String,
    /// The position after the line (swept if the game ended), in GPN.
    pub gpn: String,
    /// The position after each action of the line, in GPN (`line`'s
    /// length; the start is `start`).
    pub positions: Vec<String>,
    /// The player to move.
    pub to_move: Player,
    /// The legal actions there (none once over).
    pub legal: Vec<Action>,
    /// The result, if the game is over.
    pub over: Option<AnalysisOver>,
    /// Times the position has occurred along the line (3 ends the game).
    pub repetitions: usize,
    /// Seeds on the board.
    pub on_board: u32,
}

/// How a game set up for analysis ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnalysisOver {
    /// Final seeds of A and B.
    pub seeds: [u8; 2],
    /// `board`, `no-hole`, `repetition` or `ply-cap`.
    pub reason: String,
}

/// A message from a client on the analysis socket.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum AnalysisClientMsg {
    /// Analyse a position (stops the socket's running analysis first).
    Analyse {
        /// The rule set (`standard` when absent).
        #[serde(default)]
        rules: Option<String>,
        /// The start position in GPN (the rules' start when absent).
        #[serde(default)]
        gpn: Option<String>,
        /// The actions played from it, tokens separated by spaces.
        #[serde(default)]
        line: Option<String>,
        /// Time wanted, ms: the server's cap when absent or larger.
        #[serde(default)]
        time_ms: Option<u64>,
    },
    /// Stop the running analysis (it ends with `done`, `stopped` true).
    Stop {},
    /// Answered by a `pong`.
    Ping {},
}

/// The fields of an `analyse` message, read on their own so that an error
/// names its field (an internally tagged enum's reading loses the path).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnalyseFields {
    /// The message's type (`analyse`).
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    /// The rule set.
    #[serde(default)]
    pub rules: Option<String>,
    /// The start position.
    #[serde(default)]
    pub gpn: Option<String>,
    /// The line.
    #[serde(default)]
    pub line: Option<String>,
    /// Time wanted, ms.
    #[serde(default)]
    pub time_ms: Option<u64>,
}

/// Final seeds of A and B (halves where the board's seeds are split).
pub type SeedsView = [f64; 2];

/// The solved database's values of a position or an action, as final
/// seeds of A and B.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExactView {
    /// With the stored value V (never-ending play splits the board evenly).
    pub v: SeedsView,
    /// With the mover's lower bound under the threefold rule.
    pub lo: SeedsView,
    /// With his upper bound.
    pub hi: SeedsView,
    /// Lower = upper bound: the value is exact whatever the history.
    pub exact: bool,
}

/// One action's database values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExactAction {
    /// The action.
    pub action: Action,
    /// Its values.
    #[serde(flatten)]
    pub values: ExactView,
}

/// The limits an analysis runs under (the server's caps applied).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnalysisLimits {
    /// Time, ms.
    pub time_ms: u64,
    /// Nodes.
    pub nodes: u64,
    /// Depth, plies.
    pub depth: u32,
}

/// A message from the server on the analysis socket. Every message of an
/// analysis carries its `id` (the socket's count of analyses).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AnalysisServerMsg {
    /// An analysis started.
    Started {
        /// Its id.
        id: u64,
        /// The position analysed, in GPN.
        gpn: String,
        /// Its limits.
        limits: AnalysisLimits,
    },
    /// The analysis waits for a thread of the analysis pool: `place`
    /// analyses (of any client) will run before it if no other comes.
    /// Sent after `started` when it waits, and again when its place
    /// changes; its findings come once it runs.
    Queued {
        /// The analysis.
        id: u64,
        /// Analyses that will run before it.
        place: usize,
    },
    /// The solved database's values (no-trade rules, a layer present).
    Exact {
        /// The analysis.
        id: u64,
        /// The position's.
        position: ExactView,
        /// Each legal action's.
        actions: Vec<ExactAction>,
    },
    /// A finished depth of the position's search.
    Depth {
        /// The analysis.
        id: u64,
        /// Plies.
        depth: u32,
        /// Expected final seeds of A and B.
        expected: SeedsView,
        /// The best line.
        line: Vec<Action>,
        /// Nodes so far.
        nodes: u64,
        /// Time so far, ms.
        time_ms: u64,
    },
    /// One legal action's searched value.
    Action {
        /// The analysis.
        id: u64,
        /// The action.
        action: Action,
        /// Expected final seeds of A and B after it.
        expected: SeedsView,
        /// The depth searched after it.
        depth: u32,
        /// The line, from the action.
        line: Vec<Action>,
        /// It ends the game: `expected` is the result.
        ends: bool,
    },
    /// The analysis ended.
    Done {
        /// The analysis.
        id: u64,
        /// Deepest finished depth.
        depth: u32,
        /// Best action found.
        best: Option<Action>,
        /// Nodes searched in all.
        nodes: u64,
        /// Time spent, ms.
        time_ms: u64,
        /// Stopped (by `stop`, a new `analyse`, or a limit) before
        /// every action was valued.
        stopped: bool,
        /// The game was already over: its result.
        over: Option<AnalysisOver>,
    },
    /// A refused message; the socket keeps serving.
    Error {
        /// Why.
        error: ApiError,
    },
    /// The answer to a `ping`.
    Pong,
}

// ---- Lessons (`GET /api/lessons`, `POST /api/lessons/{id}/check`) ----

/// The answer to `GET /api/lessons`: the lessons of the guided first game,
/// in the order they are taught.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LessonList {
    /// The lessons.
    pub lessons: Vec<LessonInfo>,
}

/// One lesson: its position, goal and first legal actions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LessonInfo {
    /// Its id (`sow`, `capture`, …): the URL and the UI's text keys.
    pub id: String,
    /// The rule set.
    pub rules: String,
    /// The start position, GPN. The learner is the player to move.
    pub gpn: String,
    /// What the learner must do.
    pub goal: LessonGoal,
    /// How many actions the learner has (1, or 2 for `decline_without_glory`).
    pub moves: usize,
    /// The legal actions at the start.
    pub legal: Vec<String>,
    /// The first action of a known solution (for a hint).
    pub hint: String,
}

/// A lesson's goal: its kind and parameters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LessonGoal {
    /// `land_in`, `capture`, `chain_backward`, `chain_forward_own`,
    /// `whole_board`, `end_game`, `pass`, `offer`, `accept`,
    /// `decline_without_glory`.
    pub kind: String,
    /// `land_in`: the hole the last seed must fall into.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hole: Option<Hole>,
    /// `capture`: the least number of seeds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seeds: Option<u8>,
}

/// The body of `POST /api/lessons/{id}/check`: the learner's actions from
/// the lesson's start (the opponent's scripted replies are not sent).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LessonActions {
    /// Action tokens.
    pub actions: Vec<String>,
}

/// The answer to `POST /api/lessons/{id}/check`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LessonCheck {
    /// `met`, `continue` (the learner has actions left) or `missed`.
    pub status: String,
    /// The position after the learner's actions and the replies, GPN
    /// (swept if the game ended).
    pub gpn: String,
    /// The legal actions there (for `continue`; empty otherwise).
    pub legal: Vec<String>,
    /// The opponent's scripted replies played after the last action.
    pub replies: Vec<String>,
    /// The holes sown by the learner's last action, in order.
    pub path: Vec<Hole>,
    /// The holes it captured, in the order the rules take them.
    pub captured: Vec<Hole>,
    /// How many seeds it captured.
    pub seeds_captured: u8,
    /// Why the goal was missed (`missed` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub miss: Option<LessonMiss>,
    /// The result, if the game ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<LessonResult>,
}

/// Why a lesson's goal was missed: a kind and its parameters.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LessonMiss {
    /// `wrong_kind`, `landed_elsewhere`, `no_capture`, `too_few`,
    /// `no_backward_chain`, `no_forward_chain_into_own`, `board_left`,
    /// `not_ended`, `not_won`.
    pub kind: String,
    /// `wrong_kind`: the kind the goal asks for (`sow`, `pass`, `offer`,
    /// `accept`, `decline`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// `wrong_kind`: the kind played.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub played: Option<String>,
    /// Where the last seed fell (`landed_elsewhere`, `no_capture`), or the
    /// hole holding more than 2 (`not_ended`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hole: Option<Hole>,
    /// `landed_elsewhere`: where it should have fallen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal_hole: Option<Hole>,
    /// Seeds in `hole` (`no_capture`, `not_ended`), captured
    /// (`too_few`, `no_backward_chain`, `no_forward_chain_into_own`,
    /// `board_left`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seeds: Option<u32>,
    /// `too_few`: the goal's least number; `board_left`: seeds left;
    /// `not_won`: B's final seeds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal: Option<u32>,
    /// `no_capture`: the learner controls the landing hole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own: Option<bool>,
}

/// A lesson's game result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LessonResult {
    /// Final seeds of A and B.
    pub seeds: [u8; 2],
    /// The winner, if not a draw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub winner: Option<Player>,
    /// "Victory without glory".
    pub without_glory: bool,
}

impl From<&gore_learn::lessons::Lesson> for LessonInfo {
    fn from(l: &gore_learn::lessons::Lesson) -> LessonInfo {
        use gore_learn::lessons::Goal;
        let (hole, seeds) = match l.goal {
            Goal::LandIn(h) => (Some(h), None),
            Goal::Capture(n) => (None, Some(n)),
            _ => (None, None),
        };
        LessonInfo {
            id: l.id.into(),
            rules: l.rules.into(),
            gpn: l.start.into(),
            goal: LessonGoal {
                kind: l.goal.kind().into(),
                hole,
                seeds,
            },
            moves: l.goal.moves(),
            legal: tokens(l.position().legal_actions().iter().copied()),
            hint: l.solution.first().copied().unwrap_or_default().into(),
        }
    }
}

fn tokens(actions: impl Iterator<Item = Action>) -> Vec<String> {
    actions.map(|a| a.to_string()).collect()
}

impl LessonCheck {
    /// The answer for a judged step (`met`, `continue` or `missed`).
    pub fn new(
        status: &str,
        step: &gore_learn::lessons::Step,
        miss: Option<gore_learn::lessons::Miss>,
    ) -> LessonCheck {
        let effect = step.effect.unwrap_or(gore_core::Effect::NONE);
        let legal = if status == "continue" && step.outcome.is_none() {
            tokens(step.position.legal_actions().iter().copied())
        } else {
            Vec::new()
        };
        LessonCheck {
            status: status.into(),
            gpn: step.position.to_string(),
            legal,
            replies: tokens(step.replies.iter().copied()),
            path: effect.path(),
            captured: effect.captures(),
            seeds_captured: effect.seeds_captured,
            miss: miss.map(LessonMiss::from),
            result: step.outcome.map(|o| LessonResult {
                seeds: o.seeds,
                winner: o.winner(),
                without_glory: o.without_glory(),
            }),
        }
    }
}

impl From<gore_learn::lessons::Miss> for LessonMiss {
    fn from(m: gore_learn::lessons::Miss) -> LessonMiss {
        use gore_learn::lessons::Miss;
        let kind = |k: &str| LessonMiss {
            kind: k.into(),
            ..LessonMiss::default()
        };
        match m {
            Miss::WrongKind { expected, played } => LessonMiss {
                expected: Some(expected.as_str().into()),
                played: Some(played.as_str().into()),
                ..kind("wrong_kind")
            },
            Miss::LandedElsewhere { landed, goal } => LessonMiss {
                hole: Some(landed),
                goal_hole: Some(goal),
                ..kind("landed_elsewhere")
            },
            Miss::NoCapture { landed, seeds, own } => LessonMiss {
                hole: Some(landed),
                seeds: Some(seeds.into()),
                own: Some(own),
                ..kind("no_capture")
            },
            Miss::TooFew { captured, goal } => LessonMiss {
                seeds: Some(captured.into()),
                goal: Some(goal.into()),
                ..kind("too_few")
            },
            Miss::NoBackwardChain { captured } => LessonMiss {
                seeds: Some(captured.into()),
                ..kind("no_backward_chain")
            },
            Miss::NoForwardChainIntoOwn { captured } => LessonMiss {
                seeds: Some(captured.into()),
                ..kind("no_forward_chain_into_own")
            },
            Miss::BoardLeft { captured, left } => LessonMiss {
                seeds: Some(captured.into()),
                goal: Some(left),
                ..kind("board_left")
            },
            Miss::NotEnded { hole, seeds } => LessonMiss {
                hole: Some(hole),
                seeds: Some(seeds.into()),
                ..kind("not_ended")
            },
            Miss::NotWon { seeds } => LessonMiss {
                seeds: Some(seeds[0].into()),
                goal: Some(seeds[1].into()),
                ..kind("not_won")
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every client message refuses a field it does not have, unit
    /// variants too, naming it.
    #[test]
    fn messages_refuse_unknown_fields() {
        fn refused<T: DeserializeOwned + std::fmt::Debug>(m: &str) {
            let e = parse_json::<T>(m.as_bytes()).expect_err(m);
            assert!(e.message.contains("unknown field `evil`"), "{m}: {e:?}");
        }
        refused::<ClientMsg>(r#"{"type":"ping","evil":1}"#);
        refused::<ClientMsg>(r#"{"type":"resign","evil":1}"#);
        refused::<ClientMsg>(r#"{"type":"action","action":"a1","evil":1}"#);
        refused::<LobbyClientMsg>(r#"{"type":"ping","evil":1}"#);
        refused::<LobbyClientMsg>(r#"{"type":"challenge","clock":"5+3","evil":1}"#);
        refused::<AnalysisClientMsg>(r#"{"type":"stop","evil":1}"#);
        refused::<AnalysisClientMsg>(r#"{"type":"analyse","evil":1}"#);
        refused::<AnalyseFields>(r#"{"type":"analyse","evil":1}"#);
        refused::<PlayBody>(r#"{"action":"a1","ply":0,"evil":1}"#);
        refused::<NewGame>(r#"{"mode":"local","evil":1}"#);
        assert_eq!(
            parse_json::<LobbyClientMsg>(br#"{"type":"challenge","clock":"5+3"}"#).unwrap(),
            LobbyClientMsg::Challenge {
                rules: None,
                clock: Some("5+3".into()),
                colour: None,
                rated: false
            }
        );
        assert_eq!(
            parse_json::<ClientMsg>(br#"{"type":"resync"}"#).unwrap(),
            ClientMsg::Resync { ply: None }
        );
    }
}

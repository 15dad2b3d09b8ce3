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
pub struct Credentials {
    /// The username.
    pub username: String,
    /// The password.
    pub password: String,
}

/// The body of `POST /api/account/password`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewPassword {
    /// The current password.
    pub current: String,
    /// The new one.
    pub new: String,
}

/// The body of `POST /api/lobby/seek`: quick pairing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeekBody {
    /// The pace: `5+3`, `3d` (one of the server's paces, or any clock).
    pub clock: String,
    /// Rated (accounts only).
    #[serde(default)]
    pub rated: bool,
}

/// The body of `POST /api/lobby/challenges`: an open challenge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LobbyClientMsg {
    /// Quick pairing.
    Seek {
        /// The pace.
        clock: String,
        /// Rated.
        #[serde(default)]
        rated: bool,
    },
    /// An open challenge.
    Challenge {
        /// Its terms.
        #[serde(flatten)]
        body: ChallengeBody,
    },
    /// Accept a challenge.
    Accept {
        /// Its id.
        id: String,
    },
    /// Withdraw one's seek or challenges.
    Cancel,
    /// Answered by a `pong`.
    Ping,
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
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMsg {
    /// Play an action (the holder of a seat).
    Action {
        /// The action token.
        action: String,
        /// The number of actions the client has seen.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ply: Option<u64>,
    },
    /// Send the whole state again.
    Resync,
    /// Resign the game (the holder of a seat; in a local game, for the
    /// player to move).
    Resign,
    /// Abort the game (before each player has made an action).
    Abort,
    /// Take back: at once in ai and local games, a request to the
    /// opponent in friend games.
    Takeback,
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
    Ping,
}

/// The body of `POST /api/games/{id}/chat`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatBody {
    /// One line of text, 1 to 200 characters.
    pub text: String,
}

/// The body of `POST /api/games/{id}/takeback/answer`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnswerBody {
    /// Grant the takeback.
    pub accept: bool,
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

//! The game's wire: a new game's body and answer, the seat links, the
//! whole state ([`GameView`]) and the update ([`Update`]) a socket is sent,
//! built from the domain's [`crate::domain::GameState`], and the messages
//! of the game socket.

use gore_core::{Action, Hole, Player, Rules};
use serde::{Deserialize, Serialize};

use super::{ApiError, Mode, Seat, Status};
use crate::domain::clock::Due;
use crate::domain::{
    ClockState, GameCommand, GameState, GameUpdate, HeadState, Played, Ply, SeatState,
};

/// The body of `POST /api/games`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewGame {
    /// ai, friend or local.
    pub mode: Mode,
    /// The rule set (`standard`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<String>,
    /// 1 to [`gore_ai::MAX_LEVEL`], ai games ([`super::DEFAULT_LEVEL`]).
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
    pub ply: Option<Ply>,
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
        /// In rated games only: `null` until the game is over and rated,
        /// then his rating after it and the change (`{"after": "1662?",
        /// "change": 162}`); the server sends the state again when the
        /// rating is done.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rating_change: Option<Option<crate::domain::ratings::RatingChange>>,
        /// A BOT account (an engine playing through the Bot API); `false`
        /// for people (always sent: the game page marks a BOT's seat).
        #[serde(default)]
        bot: bool,
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
    pub ply: Ply,
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
    pub ply: Ply,
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
    /// Whether each player went berserk (an arena game: half his base
    /// time, no increment; never in other games).
    #[serde(default = "no_one")]
    pub berserk: PerPlayer<bool>,
    /// Whether each player may go berserk now (an arena game, before his
    /// first action).
    #[serde(default = "no_one")]
    pub berserkable: PerPlayer<bool>,
}

fn no_one() -> PerPlayer<bool> {
    PerPlayer { a: false, b: false }
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
        let reaches = update.since.index() + update.actions.len();
        if update.since != self.head.ply || reaches != update.head.ply.index() {
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
    pub since: Ply,
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
        lines: Vec<crate::domain::ChatLine>,
    },
    /// A new chat message (to the seated players only).
    Chat {
        /// The message.
        line: crate::domain::ChatLine,
    },
}

/// A message from a client on a game's socket, typed for clients (the
/// load tool, the tests). The server reads a command by its `type` from
/// the table ([`socket_message`]): a command added since needs no variant
/// here (`give_time` has none).
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
        ply: Option<Ply>,
    },
    /// Send what the client lacks: the actions after its `ply` as an
    /// `update` when it gives one the game has reached, else the whole
    /// state. Limited per socket (docs/API.md).
    Resync {
        /// The number of actions the client has.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ply: Option<Ply>,
    },
    /// Resign the game (the holder of a seat; in a local game, for the
    /// player to move).
    Resign {},
    /// Abort the game (before each player has made an action).
    Abort {},
    /// Go berserk (an arena game, before the caller's first action).
    Berserk {},
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
    /// Claim the win: the opponent left (the holder of a seat).
    Claim {},
    /// Report the opponent's chat message `n`.
    ReportChat {
        /// The message's number.
        n: u32,
    },
    /// Answered by a `pong`.
    Ping {},
}

impl ClientMsg {
    /// The game command this message is (every message but the socket's
    /// own `resync` and `ping`): the wire's side of the one command table
    /// ([`GameCommand`]).
    pub fn into_command(self) -> Result<GameCommand, ClientMsg> {
        Ok(match self {
            ClientMsg::Action { action, ply } => GameCommand::Play { action, ply },
            ClientMsg::Resign {} => GameCommand::Resign,
            ClientMsg::Abort {} => GameCommand::Abort,
            ClientMsg::Claim {} => GameCommand::Claim,
            ClientMsg::Berserk {} => GameCommand::Berserk,
            ClientMsg::Takeback {} => GameCommand::Takeback,
            ClientMsg::TakebackAnswer { accept } => GameCommand::TakebackAnswer { accept },
            ClientMsg::Chat { text } => GameCommand::Chat { text },
            ClientMsg::ReportChat { n } => GameCommand::ReportChat { n },
            other @ (ClientMsg::Resync { .. } | ClientMsg::Ping {}) => return Err(other),
        })
    }
}

/// The command named `name` (a [`GameCommand::NAMES`]) with the fields of
/// `body`, a JSON object (an empty body has none): how the HTTP routes and
/// the Bot API read a command, the same fields the socket reads with the
/// name as its `type`. A command with fields reads its body's own struct,
/// so that an error names the field; one without refuses any field. A
/// name that is no command is `None`.
pub fn command_of(name: &str, body: &[u8]) -> Option<Result<GameCommand, ApiError>> {
    if !GameCommand::NAMES.contains(&name) {
        return None;
    }
    fn fields<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
        if body.iter().all(u8::is_ascii_whitespace) {
            super::parse_json(b"{}")
        } else {
            super::parse_json(body)
        }
    }
    let read = || {
        let msg = match name {
            "action" => {
                let PlayBody { action, ply } = fields(body)?;
                ClientMsg::Action { action, ply }
            }
            "takeback_answer" => {
                let AnswerBody { accept } = fields(body)?;
                ClientMsg::TakebackAnswer { accept }
            }
            "chat" => {
                let ChatBody { text } = fields(body)?;
                ClientMsg::Chat { text }
            }
            "report_chat" => {
                let ReportBody { n } = fields(body)?;
                ClientMsg::ReportChat { n }
            }
            _ => {
                let NoFields {} = fields(body)?;
                return GameCommand::without_fields(name)
                    .ok_or_else(|| ApiError::bad_request(format!("{name}: not a command")));
            }
        };
        msg.into_command()
            .map_err(|_| ApiError::bad_request(format!("{name}: not a command")))
    };
    Some(read())
}

/// A message read from a game's socket: a command of the table, or the
/// socket's own `resync` and `ping`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SocketIn {
    /// A game's command (its `type` is one of [`GameCommand::NAMES`]).
    Command(GameCommand),
    /// `resync`: the actions after the client's ply, or the whole state.
    Resync(Option<Ply>),
    /// `ping`: answered by a `pong`.
    Ping,
}

/// Reads a message of a game's socket: a `type` that names a command of
/// the table ([`GameCommand::NAMES`]) is read with its other fields as
/// the HTTP door reads its body ([`command_of`]), so that a new command
/// reaches the socket with no code here; any other is one of
/// [`ClientMsg`]'s (`resync`, `ping`), and an error names the field.
pub fn socket_message(text: &[u8]) -> Result<SocketIn, ApiError> {
    #[derive(Deserialize)]
    struct Typed {
        #[serde(rename = "type")]
        kind: String,
        #[serde(flatten)]
        fields: serde_json::Map<String, serde_json::Value>,
    }
    let Typed { kind, fields } = super::parse_json(text)?;
    if let Some(name) = GameCommand::NAMES.iter().find(|n| **n == kind) {
        let body = serde_json::to_vec(&fields).map_err(|e| ApiError::bad_request(e.to_string()))?;
        return command_of(name, &body)
            .unwrap_or_else(|| Err(ApiError::bad_request(format!("{name}: not a command"))))
            .map(SocketIn::Command);
    }
    match super::parse_json::<ClientMsg>(text)? {
        ClientMsg::Resync { ply } => Ok(SocketIn::Resync(ply)),
        ClientMsg::Ping {} => Ok(SocketIn::Ping),
        other => other
            .into_command()
            .map(SocketIn::Command)
            .map_err(|_| ApiError::bad_request("type: not a message of a game's socket")),
    }
}

/// The body of a command without fields: `{}` (or none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
struct NoFields {}

/// The body of the `report_chat` command over the Bot API or socket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReportBody {
    /// The message's number.
    pub n: u32,
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

// ---- The domain's states and updates, as the wire writes them ----

impl<T> From<[T; 2]> for PerPlayer<T> {
    /// A's value, then B's (the domain's order, [`Player::index`]).
    fn from([a, b]: [T; 2]) -> PerPlayer<T> {
        PerPlayer { a, b }
    }
}

impl From<&Played> for Entry {
    fn from(p: &Played) -> Entry {
        Entry {
            ply: p.ply,
            player: p.player,
            action: p.action,
            captured: p.captured.clone(),
            position: p.position.to_string(),
            path: p.path.clone(),
        }
    }
}

impl From<Played> for Entry {
    /// Moves the holes over: a state's log is converted without a copy.
    fn from(p: Played) -> Entry {
        Entry {
            ply: p.ply,
            player: p.player,
            action: p.action,
            captured: p.captured,
            position: p.position.to_string(),
            path: p.path,
        }
    }
}

impl From<&SeatState> for SeatView {
    fn from(s: &SeatState) -> SeatView {
        match s {
            SeatState::Human {
                joined,
                name,
                rating,
                rating_change,
                bot,
            } => SeatView::Human {
                bot: *bot,
                joined: *joined,
                name: name.clone(),
                rating: rating.clone(),
                rating_change: rating.is_some().then(|| rating_change.clone()),
            },
            SeatState::Ai {
                level,
                perfect,
                honourable,
            } => SeatView::Ai {
                level: *level,
                perfect: *perfect,
                honourable: *honourable,
                joined: true,
            },
        }
    }
}

impl From<&ClockState> for ClockView {
    fn from(c: &ClockState) -> ClockView {
        ClockView {
            control: c.control,
            left: PerPlayer::from(c.left),
            running: c.running,
            deadline_in: c.deadline_in,
            due: c.due.map(|due| {
                match due {
                    Due::Flag(_) => "flag",
                    Due::Abort => "abort",
                }
                .to_string()
            }),
            now: c.now,
        }
    }
}

impl From<&HeadState> for Head {
    fn from(h: &HeadState) -> Head {
        Head {
            status: h.status,
            position: h.position.to_string(),
            to_move: h.to_move,
            seats: PerPlayer::from(h.seats.each_ref().map(SeatView::from)),
            legal: h.legal.clone(),
            ply: h.ply,
            declined: PerPlayer::from(h.declined),
            result: h.result.as_ref().map(|r| ResultView {
                seeds: r.seeds,
                winner: r.winner,
                without_glory: r.without_glory,
                reason: r.reason.into(),
                swept: r.swept,
            }),
            rematch: h.rematch.as_ref().map(|id| RematchView {
                id: id.clone(),
                url: format!("/g/{id}"),
            }),
            lobby: h.lobby,
            rated: h.rated,
            thinking: h.thinking,
            previews: h
                .previews
                .iter()
                .map(|p| Preview {
                    action: p.action,
                    path: p.path.clone(),
                    captured: p.captured.clone(),
                    seeds: p.seeds,
                })
                .collect(),
            takeback: h.takeback,
            clock: h.clock.as_ref().map(ClockView::from),
            abortable: h.abortable,
            away: PerPlayer::from(h.away),
            berserk: PerPlayer::from(h.berserk),
            berserkable: PerPlayer::from(h.berserkable),
        }
    }
}

impl From<GameState> for GameView {
    /// Moves the log over (a long game's state is hundreds of entries).
    fn from(s: GameState) -> GameView {
        GameView {
            head: Head::from(&s.head),
            id: s.id,
            mode: s.mode,
            rules: s.rules,
            start: s.start.to_string(),
            you: s.you,
            actions: s.actions.into_iter().map(Entry::from).collect(),
            takebacks: s.takebacks,
        }
    }
}

impl From<&GameUpdate> for Update {
    fn from(u: &GameUpdate) -> Update {
        Update {
            id: u.id.clone(),
            since: u.since,
            actions: u.actions.iter().map(Entry::from).collect(),
            head: Head::from(&u.head),
        }
    }
}

impl From<GameUpdate> for Update {
    fn from(u: GameUpdate) -> Update {
        Update {
            head: Head::from(&u.head),
            id: u.id,
            since: u.since,
            actions: u.actions.into_iter().map(Entry::from).collect(),
        }
    }
}

/// The text of a `state` message: the encoder the server gives rooms for
/// their spectators' state (encoded once per change,
/// [`crate::domain::Room::spectator_state`]), and a seat's.
pub fn state_text(state: GameState) -> String {
    encode(&ServerMsg::State {
        state: Box::new(GameView::from(state)),
    })
}

/// The text of an `update` message: the encoder the sockets give a room's
/// changes (encoded once per audience, [`crate::domain::Change::text_for`]).
pub fn update_text(update: &GameUpdate) -> String {
    encode(&ServerMsg::Update {
        update: Box::new(Update::from(update)),
    })
}

/// A game socket's message, as sent (a message of these types always
/// encodes: an empty text would only ever mean a bug, never a panic).
fn encode(msg: &ServerMsg) -> String {
    serde_json::to_string(msg).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::clock::Clock;
    use crate::domain::{GameInfo, PerSeat, Room};
    use gore_core::Position;

    /// The socket reads a command by its `type` from the table, with the
    /// fields the HTTP door reads from its body: a command the socket's
    /// own enum never named reaches it (`give_time` is read from the
    /// table's name alone), its fields are checked by name, and the
    /// socket's own messages are still its own.
    #[test]
    fn the_socket_reads_a_command_by_its_name() {
        let read = |t: &str| socket_message(t.as_bytes());
        assert_eq!(
            read(r#"{"type":"give_time"}"#).unwrap(),
            SocketIn::Command(GameCommand::GiveTime)
        );
        assert_eq!(
            read(r#"{"type":"action","action":"a3","ply":4}"#).unwrap(),
            SocketIn::Command(GameCommand::Play {
                action: "a3".into(),
                ply: Some(Ply::new(4)),
            })
        );
        assert_eq!(
            read(r#"{"type":"takeback_answer","accept":true}"#).unwrap(),
            SocketIn::Command(GameCommand::TakebackAnswer { accept: true })
        );
        assert_eq!(read(r#"{"type":"ping"}"#).unwrap(), SocketIn::Ping);
        assert_eq!(
            read(r#"{"type":"resync","ply":2}"#).unwrap(),
            SocketIn::Resync(Some(Ply::new(2)))
        );
        for (bad, names) in [
            (r#"{"type":"give_time","evil":1}"#, "evil"),
            (r#"{"type":"action","action":"a3","evil":1}"#, "evil"),
            (r#"{"type":"action","action":5}"#, "action"),
            (r#"{"type":"action","action":"a3","ply":-1}"#, "ply"),
            (r#"{"type":"teleport"}"#, "teleport"),
            (r#"{"action":"a3"}"#, "type"),
        ] {
            let e = read(bad).expect_err(bad);
            assert!(e.message.contains(names), "{bad}: {}", e.message);
        }
    }

    /// A friend game between Ann (A) and Bob (B), 5+3, begun at 0.
    fn friend_game() -> Room {
        let info = GameInfo {
            id: "0123456789".into(),
            mode: Mode::Friend,
            rules: Rules::STANDARD,
            start: Position::new(Rules::STANDARD.variant),
            level: gore_ai::Level::STANDARD,
            perfect: false,
            honourable: false,
            creator: Seat::A,
            ai_seat: None,
            status: Status::Playing,
            created_at: 0,
            rematch: None,
            tokens: PerSeat::default(),
            invite: None,
            devices: PerSeat::default(),
            forfeit: None,
            clock: Some("5+3".parse().unwrap()),
            names: [Some("Ann".into()), Some("Bob".into())],
            away: [None, None],
            credits: Vec::new(),
            lobby: false,
            players: [None, None],
            rated: false,
            ratings: [None, None],
            started_at: Some(0),
            deadline: None,
            takebacks: 0,
            takeback: None,
            bots: [false, false],
            arena: None,
            swiss: None,
            berserk: [false, false],
        };
        let mut room = Room::new(info, 2000);
        room.clock = Clock::manual(0);
        room
    }

    /// The JSON of a spectator's `state` and of an `update`, byte for byte,
    /// written by hand from docs/API.md's field order and the rules: from
    /// the start (6 seeds a hole) A sows a3's 6 seeds into a4, b1, b2, b3,
    /// b4, a1 (a1 ends with 7: no capture); then B sows b2's 7 into b3, b4,
    /// a1, a2, a3, a4, b1 (b1 ends with 8). Under 5+3 the first actions are
    /// free: after A's (at 0), B has until 30 s or the game is aborted;
    /// after B's (at 20 s), A's clock runs from 20 s with his whole 300 s.
    #[test]
    fn the_json_of_a_state_and_an_update_is_fixed() {
        let mut room = friend_game();
        let mut rx = room.subscribe();
        room.play("a3".parse().unwrap(), 0).unwrap();
        room.changed(Ply::ZERO);
        room.clock.advance(std::time::Duration::from_millis(10_000));
        let seats = r#""seats":{"A":{"kind":"human","joined":true,"name":"Ann","bot":false},"B":{"kind":"human","joined":true,"name":"Bob","bot":false}}"#;
        let first = r#"{"ply":1,"player":"A","action":"a3","captured":[],"position":"7,6,0,7/7,7,7,7 AAAA/BBBB 0-0 B -","path":["a4","b1","b2","b3","b4","a1"]}"#;
        let state = format!(
            concat!(
                r#"{{"type":"state","state":{{"id":"0123456789","mode":"friend","rules":"standard","#,
                r#""start":"6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 A -","you":null,"actions":[{first}],"#,
                r#""takebacks":0,"status":"playing","position":"7,6,0,7/7,7,7,7 AAAA/BBBB 0-0 B -","#,
                r#""to_move":"B",{seats},"legal":[],"ply":1,"declined":{{"A":false,"B":false}},"#,
                r#""result":null,"rematch":null,"thinking":false,"previews":[],"takeback":null,"#,
                r#""clock":{{"control":"5+3","left":{{"A":300000,"B":300000}},"running":null,"#,
                r#""deadline_in":20000,"due":"abort","now":10000}},"abortable":true,"#,
                r#""away":{{"A":null,"B":null}},"berserk":{{"A":false,"B":false}},"#,
                r#""berserkable":{{"A":false,"B":false}}}}}}"#
            ),
            first = first,
            seats = seats
        );
        assert_eq!(&*spectator_text(&room), state);

        room.play("b2".parse().unwrap(), 20_000).unwrap();
        room.clock.advance(std::time::Duration::from_millis(15_000));
        room.changed(Ply::new(1));
        rx.try_recv().unwrap();
        let change = rx.try_recv().unwrap();
        let update = format!(
            concat!(
                r#"{{"type":"update","update":{{"id":"0123456789","since":1,"actions":[{{"ply":2,"#,
                r#""player":"B","action":"b2","captured":[],"position":"8,7,1,8/8,0,8,8 AAAA/BBBB 0-0 A -","#,
                r#""path":["b3","b4","a1","a2","a3","a4","b1"]}}],"status":"playing","#,
                r#""position":"8,7,1,8/8,0,8,8 AAAA/BBBB 0-0 A -","to_move":"A",{seats},"legal":[],"#,
                r#""ply":2,"declined":{{"A":false,"B":false}},"result":null,"rematch":null,"#,
                r#""thinking":false,"previews":[],"takeback":null,"clock":{{"control":"5+3","#,
                r#""left":{{"A":295000,"B":300000}},"running":"A","deadline_in":295000,"due":"flag","#,
                r#""now":25000}},"abortable":false,"away":{{"A":null,"B":null}},"#,
                r#""berserk":{{"A":false,"B":false}},"berserkable":{{"A":false,"B":false}}}}}}"#
            ),
            seats = seats
        );
        assert_eq!(&*text(&change, None), update);
        // Moved or copied, the same update.
        let u = change.update_for(None).unwrap();
        assert_eq!(Update::from(u.clone()), Update::from(u));
        // A, to act, is sent the same with his legal actions and what each
        // sowing would do: a3's one seed falls into a4 (then 9), taking
        // nothing.
        let mine: serde_json::Value = serde_json::from_str(&text(&change, Some(Seat::A))).unwrap();
        let mut theirs: serde_json::Value = serde_json::from_str(&update).unwrap();
        assert!(mine["update"]["previews"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!({"action":"a3","path":["a4"],"captured":[],"seeds":0})));
        assert!(mine["update"]["legal"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!("a3")));
        theirs["update"]["legal"] = mine["update"]["legal"].clone();
        theirs["update"]["previews"] = mine["update"]["previews"].clone();
        assert_eq!(mine, theirs);
    }

    fn spectator_text(room: &Room) -> std::sync::Arc<str> {
        room.spectator_state(state_text)
    }

    /// A game on one device (both seats one token), untimed.
    fn local_game() -> Room {
        let info = GameInfo {
            mode: Mode::Local,
            clock: None,
            ..friend_game().info
        };
        Room::new(info, 2000)
    }

    fn text(change: &crate::domain::Change, seat: Option<Seat>) -> std::sync::Arc<str> {
        change.text_for(seat, update_text)
    }

    /// Each change is encoded once per kind of recipient: the actor's copy
    /// lists his legal actions, the others' copy none, and both carry only
    /// the new action, not the log.
    #[test]
    fn a_change_carries_only_what_changed() {
        let mut room = local_game();
        let mut rx = room.subscribe();
        room.play("a3".parse().unwrap(), 0).unwrap();
        room.changed(Ply::ZERO);
        room.play("b1".parse().unwrap(), 0).unwrap();
        room.changed(Ply::new(1));
        rx.try_recv().unwrap();
        let c = rx.try_recv().unwrap();
        assert_eq!((c.since, c.ply), (Ply::new(1), Ply::new(2)));
        let read = |t: &str| match serde_json::from_str::<ServerMsg>(t).unwrap() {
            ServerMsg::Update { update } => *update,
            m => panic!("{m:?}"),
        };
        let mine = read(&text(&c, Some(Seat::Both)));
        let theirs = read(&text(&c, None));
        assert_eq!(mine.actions.len(), 1);
        assert_eq!(mine.actions[0].action, "b1".parse().unwrap());
        // A to move in the opening with every hole full: 4 sowings, no offer
        // (nobody has captured yet).
        assert_eq!(mine.head.legal.len(), 4);
        assert!(theirs.head.legal.is_empty());
        let mut view = {
            let mut r = local_game();
            r.play("a3".parse().unwrap(), 0).unwrap();
            GameView::from(r.view(Some(Seat::Both)))
        };
        assert!(view.apply(&mine));
        assert_eq!(view, GameView::from(room.view(Some(Seat::Both))));
        assert!(!view.apply(&mine), "an update already applied is refused");
    }
}

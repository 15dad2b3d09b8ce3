//! The answers the suites read most, typed as docs/API.md describes them:
//! the client's view, written from the documentation and not from the
//! server's own wire types, so that a test stays an independent check of
//! what goes out. Fields the tests do not read are left out (serde skips
//! them); a field the documentation names that is missing, or of another
//! type, fails the test that reads the answer.

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;

/// `value` read as a `T`; panics naming the value when it is not one.
pub fn typed<T: DeserializeOwned>(value: &Value) -> T {
    serde_json::from_value(value.clone()).unwrap_or_else(|e| {
        panic!(
            "not a {}: {e}: {value}",
            std::any::type_name::<T>().rsplit("::").next().unwrap()
        )
    })
}

/// `POST /api/games` (and a claimed invitation, a device link, a
/// rematch): the seat and its secret.
#[derive(Debug, Clone, Deserialize)]
pub struct Created {
    pub id: String,
    pub seat: String,
    pub token: String,
    pub url: String,
    /// Friend games only: the path to send to the friend.
    pub invite: Option<String>,
}

/// A refusal's body, `{"error": {...}}`.
#[derive(Debug, Clone, Deserialize)]
pub struct ErrorBody {
    pub error: ApiError,
}

/// What a refusal says: its `code`, the English `message`, and for what
/// a page shows a person the `reason` and its `params`.
#[derive(Debug, Clone, Deserialize)]
pub struct ApiError {
    pub code: String,
    pub message: String,
    pub reason: Option<String>,
    pub params: Option<Value>,
}

/// The error of a refusal's body `v`.
pub fn error_of(v: &Value) -> ApiError {
    typed::<ErrorBody>(v).error
}

/// A value for each player, `{"A": …, "B": …}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct PerPlayer<T> {
    #[serde(rename = "A")]
    pub a: T,
    #[serde(rename = "B")]
    pub b: T,
}

impl<T: Copy> PerPlayer<T> {
    /// A's and B's.
    pub fn pair(&self) -> (T, T) {
        (self.a, self.b)
    }
}

/// `GET /api/games/{id}`, and the state a game's commands answer with.
#[derive(Debug, Clone, Deserialize)]
pub struct GameState {
    pub id: String,
    pub mode: String,
    pub rules: String,
    /// `waiting`, `playing` or `over`.
    pub status: String,
    pub position: String,
    pub start: String,
    /// `None` once over.
    pub to_move: Option<String>,
    pub seats: PerPlayer<Seat>,
    /// `A`, `B`, `both`; `None` for a spectator.
    pub you: Option<String>,
    pub legal: Vec<String>,
    pub ply: usize,
    pub actions: Vec<Action>,
    pub result: Option<GameResult>,
    pub rematch: Option<Rematch>,
    pub thinking: bool,
    pub takeback: Option<String>,
    pub takebacks: u32,
    pub abortable: bool,
    pub berserk: PerPlayer<bool>,
    pub berserkable: PerPlayer<bool>,
    /// Timed games only.
    pub clock: Option<Clock>,
}

/// A seat of a game's state.
#[derive(Debug, Clone, Deserialize)]
pub struct Seat {
    /// `human` or `ai`.
    pub kind: String,
    pub joined: bool,
    pub name: Option<String>,
    pub level: Option<u8>,
}

/// An action of a game's state.
#[derive(Debug, Clone, Deserialize)]
pub struct Action {
    pub ply: usize,
    pub player: String,
    pub action: String,
    pub captured: Vec<String>,
    pub position: String,
}

/// A finished game's result.
#[derive(Debug, Clone, Deserialize)]
pub struct GameResult {
    pub seeds: [u32; 2],
    /// `None` for a draw (and an abort).
    pub winner: Option<String>,
    pub without_glory: bool,
    /// `board`, `resign`, `time`, `left`, `abort`, ...
    pub reason: String,
    pub swept: [u32; 2],
}

/// A rematch asked for.
#[derive(Debug, Clone, Deserialize)]
pub struct Rematch {
    pub id: String,
    pub url: String,
}

/// A timed game's clocks, as the server computed them for the message.
#[derive(Debug, Clone, Deserialize)]
pub struct Clock {
    pub control: String,
    /// Milliseconds.
    pub left: PerPlayer<i64>,
    pub running: Option<String>,
    pub deadline_in: Option<u64>,
    /// `flag` or `abort`.
    pub due: Option<String>,
    pub now: i64,
}

/// A game's state `v`, typed.
pub fn state_of(v: &Value) -> GameState {
    typed(v)
}

/// The result of the finished game whose state is `v`.
pub fn result_of(v: &Value) -> GameResult {
    state_of(v)
        .result
        .unwrap_or_else(|| panic!("no result: {v}"))
}

/// The clocks of the timed game whose state is `v`.
pub fn clock_of(v: &Value) -> Clock {
    state_of(v).clock.unwrap_or_else(|| panic!("no clock: {v}"))
}

//! What the domain answers when it refuses: one variant per reason, each
//! naming the rule or the field; the edges map them to API errors.

use gore_core::{IllegalAction, Player};

use crate::Ply;

/// A refusal as the API says it: an English sentence (for people and
/// bots, unchanged) and a stable reason code with its parameters, with
/// which a page says it in its own language (docs/API.md, "Reasons").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Said {
    /// The reason's code, e.g. `password_short`.
    pub reason: &'static str,
    /// Its parameters, e.g. `min: 8`.
    pub params: Vec<(&'static str, Param)>,
    /// The English sentence.
    pub text: String,
}

impl Said {
    /// A reason without parameters.
    pub fn new(reason: &'static str, text: impl Into<String>) -> Said {
        Said {
            reason,
            params: Vec::new(),
            text: text.into(),
        }
    }

    /// The same with one more parameter.
    pub fn with(mut self, name: &'static str, value: impl Into<Param>) -> Said {
        self.params.push((name, value.into()));
        self
    }
}

/// A reason's parameter: a count or a text (a page fills it in).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Param {
    /// A count, e.g. a limit.
    Count(u64),
    /// A text, e.g. a character or a scope.
    Text(String),
}

impl From<usize> for Param {
    fn from(n: usize) -> Param {
        Param::Count(n as u64)
    }
}

impl From<String> for Param {
    fn from(s: String) -> Param {
        Param::Text(s)
    }
}

impl From<&str> for Param {
    fn from(s: &str) -> Param {
        Param::Text(s.to_string())
    }
}

impl std::fmt::Display for Said {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// Why the domain refused or failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    /// No game has that id.
    #[error("no such game")]
    NoGame,
    /// A field of a new game is wrong.
    #[error("{field}: {why}")]
    BadField {
        /// The field.
        field: &'static str,
        /// What is wrong, for people.
        why: String,
    },
    /// A field a person typed (a name, a password, a chat line) refused
    /// for a reason a page says in its own words.
    #[error("{field}: {said}")]
    Invalid {
        /// The field.
        field: &'static str,
        /// Why.
        said: Said,
    },
    /// The caller holds no seat.
    #[error("you hold no seat in this game: spectators only watch")]
    NoSeat,
    /// It is the other player's turn.
    #[error("not your turn: player {0} is to move")]
    NotYourTurn(Player),
    /// A friend game whose friend has not arrived.
    #[error("the game has not started: your friend has not opened the invitation yet")]
    Waiting,
    /// The client's ply is not the current one.
    #[error(
        "ply {sent} is not the current one: {current} actions have been played; reload the game"
    )]
    Stale {
        /// What the client sent.
        sent: Ply,
        /// The current ply.
        current: Ply,
    },
    /// Another action was committed first (by another request or server).
    #[error("another action was saved first; reload the game")]
    Raced,
    /// The game has ended.
    #[error("the game is over")]
    Over,
    /// The rules refuse the action.
    #[error("{0}")]
    Illegal(IllegalAction),
    /// An action token that does not read.
    #[error("action: {0}")]
    BadAction(String),
    /// The invitation or device link was used already or revoked.
    #[error("{0}")]
    Claimed(Said),
    /// A resignation or takeback the game's state does not allow (nothing
    /// to take back, no request to answer, one's own request).
    #[error("{0}")]
    Refused(Said),
    /// A limit was reached (the AI's queue, a game's sockets).
    #[error("{0}")]
    Busy(String),
    /// Chat messages too fast.
    #[error("slow down: {0} messages in 10 seconds at most")]
    ChatTooFast(usize),
    /// No account has that name.
    #[error("no such player")]
    NoPlayer,
    /// No tournament has that id.
    #[error("no such tournament")]
    NoTournament,
    /// A log-in refused: the same answer whether the username exists or
    /// the password is wrong.
    #[error("wrong username or password")]
    BadLogin,
    /// Too many log-in attempts, for this account or from this address.
    #[error("too many log-in attempts: wait a few minutes and try again")]
    TooManyAttempts,
    /// Too many passwords hashed for one address (sign-ups, log-ins,
    /// password changes): each costs the server a hash.
    #[error("too many sign-ups, log-ins or password changes from your address: wait a few minutes and try again")]
    TooManyHashes,
    /// The lobby's abort limit: the player aborted [`super::lobby::ABORT_LIMIT`]
    /// games within [`super::lobby::ABORT_WINDOW_MS`]; he may seek, post
    /// or accept again in `minutes`.
    #[error(
        "abort limit: you aborted {limit} games within the last hour; \
         the lobby takes you again in {minutes} min"
    )]
    TooManyAborts {
        /// The limit.
        limit: usize,
        /// Minutes until the oldest of them leaves the window (rounded up).
        minutes: i64,
    },
    /// An analysis board's setup that the rules library refuses: an
    /// action that breaks a rule, or a malformed field (named).
    #[error("{0}")]
    BadSetup(gore_learn::analysis::SetupError),
    /// The request needs an account, and the session has none.
    #[error("{0}")]
    NeedsAccount(Said),
    /// An API token that is malformed, unknown or revoked (`401`).
    #[error("{0}")]
    BadToken(Said),
    /// Something the caller may not do: a token without the scope, a
    /// BOT where only people go (`403`).
    #[error("{0}")]
    Forbidden(Said),
    /// Something that is not there, said with its reason (a challenge, a
    /// token, a player) (`404`).
    #[error("{0}")]
    NotFound(Said),
    /// The store failed and accepts no writes until restarted.
    #[error("the database failed")]
    Unavailable,
    /// The store failed on this request; whether it was saved is unknown
    /// only if the store says so (then [`GameError::Unavailable`]).
    #[error("{0}")]
    Internal(String),
}

//! The user socket's messages (`GET /api/user/ws`, docs/API.md, "The user
//! socket"): the events of the player's own stream, as the Bot API's
//! `/api/stream/event` writes them ([`super::BotEvent`]), and the
//! socket's own few.

use serde::{Deserialize, Serialize};

use super::ApiError;

/// A message from a client on the user socket.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum UserClientMsg {
    /// Answered by a `pong`.
    Ping {},
}

/// The user socket's own messages (the events are the others).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum UserServerMsg {
    /// First: whose stream it is (his public id).
    Hello {
        /// The player's public id.
        you: String,
    },
    /// The answer to a `ping`.
    Pong,
    /// A message refused.
    Error {
        /// Why.
        error: ApiError,
    },
}

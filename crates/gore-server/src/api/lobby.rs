//! The lobby's wire: seeks, challenges, pairings, and the lobby socket's
//! messages.

use serde::{Deserialize, Serialize};

use super::ApiError;
use crate::domain::lobby::LobbyView;

/// `GET /api/bots`: the BOT accounts, with their ratings and whether they
/// are online.
#[derive(Debug, Clone, Serialize)]
pub struct BotList {
    /// The BOTs.
    pub bots: Vec<crate::domain::ratings::BotLine>,
}

/// A message on a lobby socket, from the server: the lobby's state (the
/// others are [`LobbyServerMsg`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LobbyMsg {
    /// The lobby's state: first, and after each change.
    Lobby(LobbyView),
}

/// The text of a `lobby` message: the encoder the lobby sockets give each
/// snapshot (encoded once for all, [`crate::domain::lobby::Snapshot::text`]).
pub fn lobby_text(view: &LobbyView) -> String {
    serde_json::to_string(&LobbyMsg::Lobby(view.clone())).unwrap_or_default()
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
/// state: [`LobbyMsg`]).
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::lobby::{ChallengeView, PlayingView};
    use gore_core::{Player, Rules};

    /// The `lobby` message, byte for byte, written by hand from
    /// docs/API.md: the type first, then the view's fields in order; an
    /// unrated challenge has no `rating`, an untimed one a `null` clock.
    #[test]
    fn the_json_of_the_lobby_is_fixed() {
        let view = LobbyView {
            paces: vec!["5+3".parse().unwrap(), "3d".parse().unwrap()],
            challenges: vec![ChallengeView {
                id: "c1".into(),
                by: "p1".into(),
                name: "Ann".into(),
                rules: Rules::STANDARD,
                clock: None,
                colour: Some(Player::B),
                rated: false,
                quick: false,
                rating: None,
            }],
            games: vec![PlayingView {
                id: "g1".into(),
                url: "/g/g1".into(),
                names: [Some("Ann".into()), None],
                clock: Some("5+3".parse().unwrap()),
                rules: Rules::STANDARD,
                ratings: [Some("1500?".into()), None],
                bots: [false, true],
                spectators: 2,
            }],
        };
        assert_eq!(
            lobby_text(&view),
            concat!(
                r#"{"type":"lobby","paces":["5+3","3d"],"challenges":[{"id":"c1","by":"p1","#,
                r#""name":"Ann","rules":"standard","clock":null,"colour":"B","rated":false,"#,
                r#""quick":false}],"games":[{"id":"g1","url":"/g/g1","names":["Ann",null],"#,
                r#""clock":"5+3","rules":"standard","ratings":["1500?",null],"#,
                r#""bots":[false,true],"spectators":2}]}"#
            )
        );
    }
}

/// A player's page, `GET /api/players/{name}`: his ratings, games and
/// results (the ratings') and the tournaments he played (the
/// tournaments'), put together here so that neither domain module needs
/// the other.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlayerPageView {
    /// Ratings, history, games and results against the AI.
    #[serde(flatten)]
    pub page: crate::domain::ratings::PlayerPage,
    /// The tournaments he played, the latest first.
    #[serde(default)]
    pub tournaments: Vec<crate::domain::tournaments::PlayedLine>,
}

//! The wire types: every body of the HTTP API and every WebSocket message
//! (docs/API.md), typed with serde, and the one place where the domain's
//! types become JSON. The server writes them, and clients (gore-load, the
//! tests) read them with the same definitions, at `crate::api::…` whatever
//! file holds them:
//!
//! - [`game`]: a game's creation, its state and updates, the game socket;
//! - [`lobby`]: seeks, challenges, the lobby socket;
//! - [`analysis`]: the analysis board and its socket;
//! - [`accounts`]: the browser's name and accounts;
//! - [`review`]: game reviews;
//! - [`learn`]: lessons and puzzles;
//! - [`user`]: the user socket (a player's own event stream);
//! - here: the defaults of a new game, the error body, [`parse_json`].

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

pub mod accounts;
pub mod analysis;
pub mod bots;
pub mod game;
pub mod learn;
pub mod lobby;
pub mod review;
pub mod tournaments;
pub mod user;

pub use accounts::*;
pub use analysis::*;
pub use bots::*;
pub use game::*;
pub use learn::*;
pub use lobby::*;
pub use review::*;
pub use tournaments::*;
pub use user::*;

pub use crate::domain::{Mode, Ply, Seat, Status};
pub use crate::error::{ApiError, ErrorCode};

/// The level of a new ai game when the request names none (the home page
/// shows the same: the server writes it into the page).
pub const DEFAULT_LEVEL: gore_ai::Level = gore_ai::Level::STANDARD;
/// The creator's seat when the request names none: `random`.
pub const DEFAULT_COLOUR: &str = "random";

/// The body of every error answer: `{"error": {"code": …, "message": …}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    /// The error.
    pub error: ApiError,
}

/// `GET /healthz`'s answer: `{"alive": true}`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct Alive {
    /// Always `true`.
    pub alive: bool,
}

/// `GET /readyz`'s answer: `{"ready": true}`, or why not.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Ready {
    /// Whether the server should be given traffic.
    pub ready: bool,
    /// Why not (`draining`, `failed_closed`, `database`, `behind`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// Why not, in a sentence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A time control is written as its notation on the wire (moved here
    /// from the domain's tests of the notation: the domain writes no JSON).
    #[test]
    fn a_time_control_is_its_notation_in_json() {
        use crate::domain::clock::TimeControl;
        let json = serde_json::to_string(&"3d".parse::<TimeControl>().unwrap()).unwrap();
        assert_eq!(json, "\"3d\"");
        assert!(serde_json::from_str::<TimeControl>("\"99d\"").is_err());
    }

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

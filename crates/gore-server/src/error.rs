//! The API's errors: a code, a message and an HTTP status, answered as
//! `{"error": {"code": …, "message": …}}`.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};

use crate::domain::GameError;

/// The `code` of an error answer (docs/API.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// Malformed JSON or field (400).
    BadRequest,
    /// Unknown game (404).
    NotFound,
    /// No seat, a wrong token, or not your turn (403).
    Forbidden,
    /// The action breaks a rule (422).
    IllegalAction,
    /// The `ply` sent is not the current one (409).
    Stale,
    /// The game has ended (409).
    GameOver,
    /// A takeback (or its answer) the game's state does not allow:
    /// nothing to take back, no request to answer, one's own request (409).
    Refused,
    /// Body or message too large (413).
    TooLarge,
    /// Too many requests from one address (429).
    RateLimited,
    /// A wrong username or password, or no account where one is needed (401).
    Unauthorized,
    /// The server failed (500); nothing was changed.
    Internal,
    /// The method is not one this path answers (405).
    MethodNotAllowed,
    /// The invitation was already claimed by another browser, or the link
    /// was revoked (410).
    Claimed,
    /// The `Host` is not this site's (`--public-url`) (421).
    WrongHost,
    /// The AI, a game's sockets or the connections are at their limit (503,
    /// `Retry-After`).
    Busy,
    /// The player aborted too many games lately: the lobby refuses his
    /// seeks, challenges and acceptances for a while (429).
    TooManyAborts,
    /// The database failed: the server stopped accepting changes until an
    /// operator restarts it; reads still work (503).
    Unavailable,
}

impl ErrorCode {
    /// The HTTP status of this code.
    pub fn status(self) -> StatusCode {
        match self {
            ErrorCode::BadRequest => StatusCode::BAD_REQUEST,
            ErrorCode::NotFound => StatusCode::NOT_FOUND,
            ErrorCode::Forbidden => StatusCode::FORBIDDEN,
            ErrorCode::IllegalAction => StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::Stale | ErrorCode::GameOver | ErrorCode::Refused => StatusCode::CONFLICT,
            ErrorCode::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::RateLimited | ErrorCode::TooManyAborts => StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::Unauthorized => StatusCode::UNAUTHORIZED,
            ErrorCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
            ErrorCode::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ErrorCode::Claimed => StatusCode::GONE,
            ErrorCode::WrongHost => StatusCode::MISDIRECTED_REQUEST,
            ErrorCode::Busy | ErrorCode::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        }
    }
}

/// An error answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{message}")]
pub struct ApiError {
    /// What kind of error.
    pub code: ErrorCode,
    /// One sentence for people, naming the field or the rule.
    pub message: String,
}

impl ApiError {
    /// An error with this code and message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError {
            code,
            message: message.into(),
        }
    }

    /// `bad_request`.
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::BadRequest, message)
    }

    /// `not_found`, for an unknown game.
    pub fn no_game() -> ApiError {
        ApiError::new(ErrorCode::NotFound, "no such game")
    }

    /// `forbidden`.
    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::Forbidden, message)
    }

    /// `too_large`.
    pub fn too_large(what: &str, limit: usize) -> ApiError {
        ApiError::new(
            ErrorCode::TooLarge,
            format!("{what} is larger than {} KiB", limit / 1024),
        )
    }

    /// `rate_limited`.
    pub fn rate_limited() -> ApiError {
        ApiError::new(
            ErrorCode::RateLimited,
            "too many requests from your address; slow down and try again in a moment",
        )
    }

    /// `internal`: the server failed and changed nothing.
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::Internal, message)
    }

    /// `busy`: a limit was reached; try again later.
    pub fn busy(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::Busy, message)
    }

    /// `unavailable`: the database failed and the server only reads.
    pub fn unavailable() -> ApiError {
        ApiError::new(
            ErrorCode::Unavailable,
            "the server's database failed: it accepts no changes until an operator restarts it; \
             games can still be watched",
        )
    }

    /// The JSON body: `{"error": {"code": …, "message": …}}`.
    pub fn body(&self) -> serde_json::Value {
        serde_json::json!({ "error": self })
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut res = (self.code.status(), Json(self.body())).into_response();
        if matches!(self.code, ErrorCode::RateLimited | ErrorCode::Busy) {
            res.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        }
        res
    }
}

impl From<GameError> for ApiError {
    fn from(e: GameError) -> ApiError {
        let code = match &e {
            GameError::NoGame | GameError::NoPlayer => ErrorCode::NotFound,
            GameError::BadField { .. } | GameError::BadAction(_) => ErrorCode::BadRequest,
            GameError::NoSeat | GameError::NotYourTurn(_) | GameError::Waiting => {
                ErrorCode::Forbidden
            }
            GameError::Stale { .. } | GameError::Raced => ErrorCode::Stale,
            GameError::Over => ErrorCode::GameOver,
            GameError::Refused(_) => ErrorCode::Refused,
            GameError::Illegal(_) => ErrorCode::IllegalAction,
            GameError::BadSetup(s) if s.is_illegal() => ErrorCode::IllegalAction,
            GameError::BadSetup(_) => ErrorCode::BadRequest,
            GameError::Claimed(_) => ErrorCode::Claimed,
            GameError::Busy(_) => ErrorCode::Busy,
            GameError::BadLogin | GameError::NeedsAccount(_) => ErrorCode::Unauthorized,
            GameError::TooManyAttempts | GameError::TooManyHashes | GameError::ChatTooFast(_) => {
                ErrorCode::RateLimited
            }
            GameError::TooManyAborts { .. } => ErrorCode::TooManyAborts,
            GameError::Unavailable => return ApiError::unavailable(),
            GameError::Internal(_) => ErrorCode::Internal,
        };
        ApiError::new(code, e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An analysis setup the rules refuse is mapped here, once: an action
    /// that breaks a rule is `illegal_action` (422), a malformed field
    /// `bad_request` (400), each with the rules library's words.
    #[test]
    fn a_refused_setup_is_illegal_or_bad() {
        // From the start A sows; `b1` is B's hole.
        let illegal = crate::domain::analysis::setup("", "", "b1").unwrap_err();
        let e = ApiError::from(illegal.clone());
        assert_eq!(e.code, ErrorCode::IllegalAction);
        assert_eq!(e.code.status(), StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(e.message, illegal.to_string());
        let malformed = crate::domain::analysis::setup("", "6,6,6", "").unwrap_err();
        let e = ApiError::from(malformed);
        assert_eq!(e.code, ErrorCode::BadRequest);
        assert!(e.message.contains("gpn"), "{}", e.message);
        assert!(crate::domain::analysis::setup("", "", "a1 b1").is_ok());
    }
}

//! The API's errors: a code, a message and an HTTP status, answered as
//! `{"error": {"code": …, "message": …}}`; a refusal a page shows a
//! person also has a `reason` and its `params`, with which the page says
//! it in its own language (docs/API.md, "Reasons").

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};

use crate::domain::{GameError, Param, Said};
use gore_core::{GpnError, IllegalAction, ParseGpnError, PositionError};
use gore_learn::analysis::SetupError;

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
    /// The database failed: the server accepts no changes until it is back
    /// (PostgreSQL reachable again and every commit's outcome known), or,
    /// after a failure it cannot recover from (SQLite's, a commit whose
    /// outcome cannot be known), until an operator restarts it; reads
    /// still work (503).
    Unavailable,
    /// The server is stopping (SIGTERM): it takes no new game or socket;
    /// another server, or this one once restarted, will (503,
    /// `Retry-After`).
    Draining,
}

impl ErrorCode {
    /// The code as the API writes it (`busy`, `rate_limited`…).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadRequest => "bad_request",
            ErrorCode::NotFound => "not_found",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::IllegalAction => "illegal_action",
            ErrorCode::Stale => "stale",
            ErrorCode::GameOver => "game_over",
            ErrorCode::Refused => "refused",
            ErrorCode::TooLarge => "too_large",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::Internal => "internal",
            ErrorCode::MethodNotAllowed => "method_not_allowed",
            ErrorCode::Claimed => "claimed",
            ErrorCode::WrongHost => "wrong_host",
            ErrorCode::Busy => "busy",
            ErrorCode::TooManyAborts => "too_many_aborts",
            ErrorCode::Unavailable => "unavailable",
            ErrorCode::Draining => "draining",
        }
    }
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
            ErrorCode::Busy | ErrorCode::Unavailable | ErrorCode::Draining => {
                StatusCode::SERVICE_UNAVAILABLE
            }
        }
    }
}

/// An error answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{message}")]
pub struct ApiError {
    /// What kind of error.
    pub code: ErrorCode,
    /// One sentence, in English, naming the field or the rule: for bots
    /// and as a page's last resort.
    pub message: String,
    /// Why, finer than the code, for a page to say in its own words
    /// (`password_short`, `name_reserved`…); absent where there is no
    /// more to say than the code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The reason's parameters (`{"min": 8}`); absent when none.
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub params: serde_json::Map<String, serde_json::Value>,
}

impl ApiError {
    /// An error with this code and message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError {
            code,
            message: message.into(),
            reason: None,
            params: serde_json::Map::new(),
        }
    }

    /// The same error with a reason and its parameters.
    pub fn with_reason<'a>(
        mut self,
        reason: &str,
        params: impl IntoIterator<Item = (&'a str, serde_json::Value)>,
    ) -> ApiError {
        self.reason = Some(reason.to_string());
        self.params = params
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        self
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
            "the server's database failed: it accepts no changes until the database is back \
             (or, after a failure it cannot recover from, until an operator restarts it); \
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
        if matches!(
            self.code,
            ErrorCode::RateLimited | ErrorCode::Busy | ErrorCode::Draining
        ) {
            res.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        }
        // For the metrics' count of refusals by code (src/http/observe.rs).
        res.extensions_mut().insert(self.code);
        res
    }
}

impl From<crate::ai::AiBusy> for ApiError {
    fn from(e: crate::ai::AiBusy) -> ApiError {
        ApiError::busy(e.to_string())
    }
}

impl From<crate::ai::AiGone> for ApiError {
    fn from(e: crate::ai::AiGone) -> ApiError {
        match e {
            // Its place went to an address that searched less: a limit.
            crate::ai::AiGone::Displaced => ApiError::busy(e.to_string()),
            crate::ai::AiGone::Stopped => ApiError::internal(e.to_string()),
        }
    }
}

impl From<GameError> for ApiError {
    fn from(e: GameError) -> ApiError {
        let code = match &e {
            GameError::NoGame | GameError::NoPlayer | GameError::NoTournament => {
                ErrorCode::NotFound
            }
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
            GameError::BadLogin | GameError::NeedsAccount(_) | GameError::BadToken(_) => {
                ErrorCode::Unauthorized
            }
            GameError::Forbidden(_) => ErrorCode::Forbidden,
            GameError::NotFound(_) => ErrorCode::NotFound,
            GameError::TooManyAttempts | GameError::TooManyHashes | GameError::ChatTooFast(_) => {
                ErrorCode::RateLimited
            }
            GameError::TooManyAborts { .. } => ErrorCode::TooManyAborts,
            GameError::Invalid { .. } => ErrorCode::BadRequest,
            GameError::Unavailable => return ApiError::unavailable(),
            GameError::Internal(_) => ErrorCode::Internal,
        };
        let out = ApiError::new(code, e.to_string());
        match reason_of(&e) {
            Some((reason, params)) => out.with_reason(reason, params),
            None => out,
        }
    }
}

/// A reason and its parameters.
type Reason = (&'static str, Vec<(&'static str, serde_json::Value)>);

fn said(s: &Said) -> Reason {
    let value = |p: &Param| match p {
        Param::Count(n) => serde_json::json!(n),
        Param::Text(t) => serde_json::json!(t),
    };
    (
        s.reason,
        s.params.iter().map(|(k, p)| (*k, value(p))).collect(),
    )
}

/// The reason of a domain error a page may show, with its parameters:
/// the one place where they are named (docs/API.md lists them).
fn reason_of(e: &GameError) -> Option<Reason> {
    use serde_json::json;
    let plain = |r: &'static str| Some((r, Vec::new()));
    match e {
        GameError::Invalid { said: s, .. }
        | GameError::Refused(s)
        | GameError::NeedsAccount(s)
        | GameError::BadToken(s)
        | GameError::Forbidden(s)
        | GameError::NotFound(s)
        | GameError::Claimed(s) => Some(said(s)),
        GameError::NoGame => plain("no_game"),
        GameError::NoPlayer => plain("no_player"),
        GameError::NoTournament => plain("no_tournament"),
        GameError::NoSeat => plain("no_seat"),
        GameError::NotYourTurn(p) => {
            Some(("not_your_turn", vec![("player", json!(p.to_string()))]))
        }
        GameError::Waiting => plain("friend_not_arrived"),
        GameError::Stale { .. } | GameError::Raced => plain("stale"),
        GameError::Over => plain("game_over"),
        GameError::Illegal(i) => Some(illegal(i)),
        GameError::BadSetup(s) => Some(setup(s)),
        GameError::ChatTooFast(n) => Some(("chat_too_fast", vec![("max", json!(n))])),
        GameError::BadLogin => plain("bad_login"),
        GameError::TooManyAttempts => plain("too_many_attempts"),
        GameError::TooManyHashes => plain("too_many_hashes"),
        GameError::TooManyAborts { limit, minutes } => Some((
            "too_many_aborts",
            vec![("limit", json!(limit)), ("minutes", json!(minutes))],
        )),
        GameError::BadField { .. }
        | GameError::BadAction(_)
        | GameError::Busy(_)
        | GameError::Unavailable
        | GameError::Internal(_) => None,
    }
}

/// The reason of an action the rules refuse.
fn illegal(i: &IllegalAction) -> Reason {
    use serde_json::json;
    match i {
        IllegalAction::GameOver => ("illegal_game_over", vec![]),
        IllegalAction::OfferPending => ("illegal_offer_pending", vec![]),
        IllegalAction::NoOffer => ("illegal_no_offer", vec![]),
        IllegalAction::NotControlled(h, p) => (
            "illegal_not_controlled",
            vec![
                ("hole", json!(h.to_string())),
                ("player", json!(p.to_string())),
            ],
        ),
        IllegalAction::EmptyHole(h) => ("illegal_empty_hole", vec![("hole", json!(h.to_string()))]),
        IllegalAction::PassWithSeeds(h) => (
            "illegal_pass_with_seeds",
            vec![("hole", json!(h.to_string()))],
        ),
        IllegalAction::TradesDisabled => ("illegal_no_trades", vec![]),
        IllegalAction::OfferSize(n) => ("illegal_offer_size", vec![("n", json!(n))]),
        IllegalAction::MustKeepHole => ("illegal_must_keep_hole", vec![]),
        IllegalAction::CannotPay { price, captured } => (
            "illegal_cannot_pay",
            vec![("price", json!(price)), ("captured", json!(captured))],
        ),
    }
}

/// The reason of an analysis board's setup refused.
fn setup(s: &SetupError) -> Reason {
    use serde_json::json;
    match s {
        SetupError::Rules(_) => ("setup_rules", vec![]),
        SetupError::Gpn(GpnError::Parse(ParseGpnError::FieldCount)) => ("gpn_fields", vec![]),
        SetupError::Gpn(GpnError::Parse(ParseGpnError::Field(f, _))) => {
            // The field's name as the documentation spells it, as a code.
            let field = f.name().replace(' ', "_");
            ("gpn_field", vec![("field", json!(field))])
        }
        SetupError::Gpn(GpnError::Invalid(PositionError::SeedCount { found, expected })) => (
            "gpn_seed_count",
            vec![("found", json!(found)), ("expected", json!(expected))],
        ),
        SetupError::Gpn(GpnError::Invalid(PositionError::NoHole(p))) => {
            ("gpn_no_hole", vec![("player", json!(p.to_string()))])
        }
        SetupError::Gpn(GpnError::Invalid(PositionError::Offer(_))) => ("gpn_offer", vec![]),
        SetupError::Line { index, token, .. } => (
            "setup_line",
            vec![("index", json!(index)), ("token", json!(token))],
        ),
        SetupError::LineTooLong => (
            "setup_line_too_long",
            vec![("max", json!(gore_learn::analysis::MAX_LINE))],
        ),
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

    /// The AI pool's refusal answers `busy` with its own sentence.
    #[test]
    fn a_refusal_is_a_busy_error_with_a_sentence() {
        for busy in [
            crate::ai::AiBusy::Game,
            crate::ai::AiBusy::Client { limit: 2 },
            crate::ai::AiBusy::Queue { limit: 64 },
        ] {
            let e = ApiError::from(busy);
            assert_eq!(e.code, ErrorCode::Busy);
            assert_eq!(e.message, busy.to_string());
        }
        assert!(crate::ai::AiBusy::Client { limit: 2 }
            .to_string()
            .contains("2 games"));
        assert!(crate::ai::AiBusy::Queue { limit: 64 }
            .to_string()
            .contains("64"));
    }
}

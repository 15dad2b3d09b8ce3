//! What an operator's tools read: `/healthz` and `/readyz` for load
//! balancers and orchestrators, and the middleware every request passes
//! first (its request id and span for the logs, the refusals counted by
//! code for the metrics, new games and sockets refused while the server
//! drains). docs/DEPLOY.md says how they are used.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Json;
use tracing::Instrument;

use crate::error::{ApiError, ErrorCode};
use crate::net;
use crate::state::AppState;

/// The header that carries a request's id, in and out.
pub const REQUEST_ID: &str = "x-request-id";

/// How long `/readyz` waits for the database's answer.
const DATABASE_WITHIN: Duration = Duration::from_secs(2);

/// `GET /healthz`: the process serves (always 200 while it answers).
pub(crate) async fn healthz() -> Response {
    Json(crate::api::Alive { alive: true }).into_response()
}

/// `GET /readyz`: 200 when this server should be given traffic: it
/// listens (it answers), it is not draining, its database is not failed
/// closed and answers a trivial query, and (several servers) it is caught
/// up with the notices it missed. Else 503, the body naming why
/// (`draining`, `failed_closed`, `database`, `behind`).
pub(crate) async fn readyz(State(state): State<AppState>) -> Response {
    match not_ready(&state).await {
        None => Json(crate::api::Ready {
            ready: true,
            why: None,
            message: None,
        })
        .into_response(),
        Some((why, message)) => (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(crate::api::Ready {
                ready: false,
                why: Some(why.to_string()),
                message: Some(message),
            }),
        )
            .into_response(),
    }
}

/// Why the server is not ready, and a sentence; `None` when it is.
async fn not_ready(state: &AppState) -> Option<(&'static str, String)> {
    if state.is_draining() {
        return Some(("draining", "the server is stopping".into()));
    }
    let games = state.games();
    if let Some(why) = games.failure() {
        return Some(("failed_closed", why));
    }
    match tokio::time::timeout(DATABASE_WITHIN, games.store_answers()).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Some(("database", e)),
        Err(_) => {
            return Some((
                "database",
                format!(
                    "the database did not answer within {} s",
                    DATABASE_WITHIN.as_secs()
                ),
            ))
        }
    }
    if games.is_shared() && !games.caught_up() {
        return Some((
            "behind",
            "catching up with the changes other servers made while notices were missed".into(),
        ));
    }
    None
}

/// Whether a request would start something new that a draining server
/// leaves to another: a game (a new one, a rematch, a lobby pairing, a
/// challenge to a named player or its acceptance).
/// Sockets are refused where they are counted (`socket::socket_slot`).
fn starts_a_game(method: &Method, path: &str) -> bool {
    method == Method::POST
        && (path == "/api/games"
            || path.starts_with("/api/lobby/")
            || path.starts_with("/api/challenge/")
            || (path.starts_with("/api/games/") && path.ends_with("/rematch")))
}

/// The game a path names (`/g/ID`, `/api/games/ID/…`), for the logs.
fn game_of(path: &str) -> Option<&str> {
    let rest = path
        .strip_prefix("/api/games/")
        .or_else(|| path.strip_prefix("/g/"))?;
    let id = rest.split('/').next().unwrap_or("");
    crate::domain::valid_id(id).then_some(id)
}

/// The id a trusted proxy gave the request, if it is a sane one (1 to 128
/// visible ASCII characters).
fn proxy_id(req: &Request, state: &AppState) -> Option<String> {
    let trusted = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .is_some_and(|ConnectInfo(a)| net::is_trusted(a.ip(), state.config()));
    if !trusted {
        return None;
    }
    let v = req.headers().get(REQUEST_ID)?.to_str().ok()?;
    (!v.is_empty() && v.len() <= 128 && v.bytes().all(|b| b.is_ascii_graphic()))
        .then(|| v.to_string())
}

/// The outermost middleware: gives the request its id (a trusted proxy's
/// `X-Request-Id`, else a new one), answered in `X-Request-Id`; runs it in
/// a span with that id and its game's, so that every line it logs carries
/// them; refuses new games while the server drains; counts error answers
/// by code; logs one line per answer (at `debug`; `warn` for a 5xx other
/// than a refusal).
pub(crate) async fn observe(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let began = Instant::now();
    let id = proxy_id(&req, &state).unwrap_or_else(crate::domain::new_id);
    let path = req.uri().path().to_string();
    let method = req.method().clone();
    let span = tracing::info_span!(
        "request",
        request_id = %id,
        method = %method,
        path = %path,
        game = tracing::field::Empty,
    );
    if let Some(game) = game_of(&path) {
        span.record("game", game);
    }
    let mut res = if state.is_draining() && starts_a_game(&method, &path) {
        ApiError::new(
            ErrorCode::Draining,
            "this server is stopping; try again in a moment",
        )
        .into_response()
    } else {
        next.run(req).instrument(span.clone()).await
    };
    let code = res.extensions().get::<ErrorCode>().copied();
    if let Some(code) = code {
        state.metrics().refused(code);
    }
    if let Ok(v) = HeaderValue::from_str(&id) {
        res.headers_mut().insert(REQUEST_ID, v);
    }
    let status = res.status().as_u16();
    let ms = began.elapsed().as_secs_f64() * 1000.0;
    span.in_scope(|| {
        if status >= 500 && code.is_none() {
            tracing::warn!(status, ms, "answered");
        } else {
            tracing::debug!(status, ms, code = code.map(ErrorCode::as_str), "answered");
        }
    });
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_are_read_from_paths() {
        let id = crate::domain::new_id();
        assert_eq!(game_of(&format!("/api/games/{id}/actions")), Some(&*id));
        assert_eq!(game_of(&format!("/g/{id}")), Some(&*id));
        assert_eq!(game_of("/api/games"), None);
        assert_eq!(game_of("/api/games/../etc"), None);
        assert_eq!(game_of("/api/lobby"), None);
    }

    #[test]
    fn what_starts_a_game() {
        assert!(starts_a_game(&Method::POST, "/api/games"));
        assert!(starts_a_game(&Method::POST, "/api/games/x/rematch"));
        assert!(starts_a_game(&Method::POST, "/api/lobby/seek"));
        assert!(!starts_a_game(&Method::POST, "/api/games/x/actions"));
        assert!(!starts_a_game(&Method::GET, "/api/games"));
    }
}

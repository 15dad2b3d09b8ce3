//! The tournaments' routes (`/api/tournaments…`): create and list arenas
//! and Swiss events, a tournament's page (either kind's), and joining, pausing and withdrawing for the
//! signed-in player.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Extension;
use axum::Json;
use gore_core::Rules;

use crate::domain::tournaments::NewTournament;
use crate::domain::{GameError, Said};
use crate::error::ApiError;
use crate::extract::{client_ip, parse_clock, session_of, JsonBody};
use crate::net::ClientIp;
use crate::state::AppState;
use crate::store::StoredPlayer;

/// The signed-in player of the request (an account, not a BOT), or
/// `unauthorized`; with `Authorization: Bearer`, the token's account
/// (scope `bot:play`: a BOT joins an arena that allows BOTs as lichess's
/// do).
async fn account_of(state: &AppState, headers: &HeaderMap) -> Result<StoredPlayer, ApiError> {
    if let Some(auth) = headers.get(axum::http::header::AUTHORIZATION) {
        let caller = state.bots().authenticate(auth.to_str().ok()).await?;
        caller.needs("bot:play")?;
        return Ok(caller.player);
    }
    let needs = || {
        GameError::NeedsAccount(Said::new(
            "tournament_needs_account",
            "tournaments are for accounts: sign up or log in",
        ))
    };
    let Some(session) = session_of(state, headers).await? else {
        return Err(needs().into());
    };
    let me = state.players().player_of(&session).await?;
    if !me.account {
        return Err(needs().into());
    }
    // A BOT acts with its token, never from a browser's session.
    crate::domain::lobby::check_not_bot(&me)?;
    Ok(me)
}

/// Reads a new tournament's fields, naming the one that is wrong.
fn terms(body: crate::api::TournamentBody) -> Result<NewTournament, ApiError> {
    let bad = |field: &'static str, why: String| ApiError::from(GameError::BadField { field, why });
    let rules: Rules = match body.rules.as_deref() {
        None => Rules::STANDARD,
        Some(r) => r.trim().parse().map_err(|e| bad("rules", format!("{e}")))?,
    };
    let clock = parse_clock(Some(&body.clock))?
        .ok_or_else(|| bad("clock", "an arena has a clock, such as 3+2".into()))?;
    Ok(NewTournament {
        name: body.name,
        kind: body.kind.unwrap_or_else(|| "arena".into()),
        clock,
        rules,
        rated: body.rated,
        starts_at: body.starts_at,
        minutes: body.minutes,
        rounds: body.rounds,
        bots: body.bots,
    })
}

/// `POST /api/tournaments`: a new arena or Swiss event; `201`.
pub(crate) async fn create_tournament(
    State(state): State<AppState>,
    addr: Option<Extension<ClientIp>>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<crate::api::TournamentBody>,
) -> Result<Response, ApiError> {
    let new = terms(body)?;
    let me = account_of(&state, &headers).await?;
    let id = state
        .tournaments()
        .create(&me, new, client_ip(addr))
        .await?;
    let body = crate::api::TournamentCreated {
        url: format!("/tournament/{id}"),
        id,
    };
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

/// `GET /api/tournaments`: the upcoming, running and finished ones.
pub(crate) async fn list_tournaments(State(state): State<AppState>) -> Result<Response, ApiError> {
    Ok(Json(state.tournaments().list().await?).into_response())
}

/// `GET /api/tournaments/{id}`: its terms, standings and games.
pub(crate) async fn tournament(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(state.tournaments().page(&id).await?).into_response())
}

/// `GET /api/tournaments/{id}/players/{player}`: an arena player's line
/// with his score sheet.
pub(crate) async fn tournament_player(
    State(state): State<AppState>,
    Path((id, player)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let line = state.tournaments().player_sheet(&id, &player).await?;
    Ok(Json(line).into_response())
}

/// `POST /api/tournaments/{id}/join`: the signed-in player joins (or comes
/// back); the page after it.
pub(crate) async fn join_tournament(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let me = account_of(&state, &headers).await?;
    state.tournaments().join(&id, &me).await?;
    Ok(Json(state.tournaments().page(&id).await?).into_response())
}

/// `POST /api/tournaments/{id}/pause`: the signed-in player steps out.
pub(crate) async fn pause_tournament(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let me = account_of(&state, &headers).await?;
    state.tournaments().pause(&id, &me).await?;
    Ok(Json(state.tournaments().page(&id).await?).into_response())
}

/// `POST /api/tournaments/{id}/withdraw`: the signed-in player leaves for
/// good.
pub(crate) async fn withdraw_tournament(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let me = account_of(&state, &headers).await?;
    state.tournaments().withdraw(&id, &me).await?;
    Ok(Json(state.tournaments().page(&id).await?).into_response())
}

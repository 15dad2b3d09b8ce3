//! The lobby's routes (`/api/lobby…`) and the ratings' (players'
//! pages, leaderboards): the same operations as the lobby socket's.

use axum::extract::{Extension, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;

use crate::domain::GameError;
use crate::error::ApiError;
use crate::extract::{
    challenge_terms, parse_clock, session_of, session_or_new, with_session, JsonBody,
};
use crate::net::ClientIp;
use crate::state::AppState;

/// The caller's session (new: its cookie is set on `res`) and player.
async fn lobby_player(
    state: &AppState,
    headers: &HeaderMap,
) -> Result<((String, bool), crate::store::StoredPlayer), ApiError> {
    let session = session_or_new(state, headers).await?;
    let me = state.players().player_of(&session.0).await?;
    Ok((session, me))
}

fn paired_answer(game: Option<String>, waiting: Option<String>) -> crate::api::Paired {
    crate::api::Paired {
        url: game.as_ref().map(|g| format!("/g/{g}")),
        game,
        waiting,
    }
}

/// `GET /api/players/{name}`: an account's ratings, their history, its
/// latest games and its results against the AI.
pub(crate) async fn player_page(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    let page = state.games().ratings().page(&name).await?;
    let tournaments = state.tournaments().played_by(&page.id).await?;
    Ok(Json(crate::api::PlayerPageView { page, tournaments }).into_response())
}

/// `GET /api/leaderboard/{pace}`: the best ratings of a pace; with
/// `?bots=true` BOTs' only, `?bots=false` people's only.
pub(crate) async fn leaderboard(
    State(state): State<AppState>,
    Path(pace): Path<String>,
    query: Result<
        axum::extract::Query<std::collections::HashMap<String, String>>,
        axum::extract::rejection::QueryRejection,
    >,
) -> Result<Response, ApiError> {
    let q = query.map(|q| q.0).unwrap_or_default();
    let bots = match q.get("bots").map(String::as_str) {
        None => None,
        Some("true") => Some(true),
        Some("false") => Some(false),
        Some(other) => {
            return Err(GameError::BadField {
                field: "bots",
                why: format!("`{other}` is not true or false"),
            }
            .into())
        }
    };
    Ok(Json(state.games().ratings().leaderboard(&pace, bots).await?).into_response())
}

/// `GET /api/bots`: the BOT accounts, with their ratings and whether they
/// are online.
pub(crate) async fn bot_list(State(state): State<AppState>) -> Result<Response, ApiError> {
    let bots = state.games().ratings().bots().await?;
    Ok(Json(crate::api::BotList { bots }).into_response())
}

/// `GET /api/lobby`: open challenges and games being played.
pub(crate) async fn lobby_view(State(state): State<AppState>) -> Result<Response, ApiError> {
    Ok(Json(state.lobby().view().await?).into_response())
}

/// `POST /api/lobby/seek`: quick pairing; `200` paired, `202` waiting.
pub(crate) async fn lobby_seek(
    State(state): State<AppState>,
    headers: HeaderMap,
    addr: Option<Extension<ClientIp>>,
    JsonBody(body): JsonBody<crate::api::SeekBody>,
) -> Result<Response, ApiError> {
    let ip = addr.map(|Extension(ClientIp(a))| a);
    let clock = parse_clock(Some(&body.clock))?
        .ok_or_else(|| ApiError::bad_request("clock: quick pairing needs a clock"))?;
    let (session, me) = lobby_player(&state, &headers).await?;
    let res = match state
        .lobby()
        .seek(&session.0, ip, &me, clock, body.rated)
        .await?
    {
        crate::domain::lobby::Seek::Paired(g) => {
            (StatusCode::OK, Json(paired_answer(Some(g), None))).into_response()
        }
        crate::domain::lobby::Seek::Waiting(id) => {
            (StatusCode::ACCEPTED, Json(paired_answer(None, Some(id)))).into_response()
        }
    };
    Ok(with_session(res, &session))
}

/// `POST /api/lobby/challenges`: an open challenge; `201`.
pub(crate) async fn lobby_post(
    State(state): State<AppState>,
    headers: HeaderMap,
    addr: Option<Extension<ClientIp>>,
    JsonBody(body): JsonBody<crate::api::ChallengeBody>,
) -> Result<Response, ApiError> {
    let ip = addr.map(|Extension(ClientIp(a))| a);
    let new = challenge_terms(body)?;
    let (session, me) = lobby_player(&state, &headers).await?;
    let id = state.lobby().post(&session.0, ip, &me, new).await?;
    let res = (StatusCode::CREATED, Json(paired_answer(None, Some(id)))).into_response();
    Ok(with_session(res, &session))
}

/// `POST /api/lobby/challenges/{id}/accept`: the game.
pub(crate) async fn lobby_accept(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let (session, me) = lobby_player(&state, &headers).await?;
    let game = state.lobby().accept(&session.0, &me, &id).await?;
    Ok(with_session(
        Json(paired_answer(Some(game), None)).into_response(),
        &session,
    ))
}

/// `GET /api/lobby/challenges/{id}`: for its creator, the game it made
/// (`game` absent while it waits).
pub(crate) async fn lobby_outcome(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let Some(session) = session_of(&state, &headers).await? else {
        return Err(GameError::NoGame.into());
    };
    let game = state.lobby().outcome(&session, &id).await?;
    let waiting = game.is_none().then(|| id.clone());
    Ok(Json(paired_answer(game, waiting)).into_response())
}

/// `DELETE /api/lobby/challenges/{id}`: withdraws it (its creator only).
pub(crate) async fn lobby_cancel(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let Some(session) = session_of(&state, &headers).await? else {
        return Err(GameError::NoGame.into());
    };
    match state.lobby().cancel(&session, Some(&id)).await? {
        0 => Err(GameError::NoGame.into()),
        _ => Ok(StatusCode::NO_CONTENT.into_response()),
    }
}

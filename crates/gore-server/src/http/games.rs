//! The games' routes (`/api/games…`): create one, its state, the
//! players' commands (each the domain's, the seat token read by
//! [`SeatToken`]), seats and devices, the record.

use axum::extract::{Extension, Path, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use gore_ai::{Level, MAX_LEVEL};
use gore_core::{Player, Position, Rules};

use crate::api::{ClaimBody, Created, DeviceLink, GameView, NewGame};
use crate::domain::{GameError, NewGameSpec, SeatGrant};
use crate::error::ApiError;
use crate::extract::{client_ip, parse_clock, session_or_new, with_session, JsonBody, SeatToken};
use crate::net::ClientIp;
use crate::state::AppState;

/// `POST /api/games`: a new game; the caller takes its first seat.
pub(crate) async fn create(
    State(state): State<AppState>,
    addr: Option<Extension<ClientIp>>,
    headers: HeaderMap,
    JsonBody(req): JsonBody<NewGame>,
) -> Result<Response, ApiError> {
    let mut spec = new_game_spec(req)?;
    let session = session_or_new(&state, &headers).await?;
    let me = state.players().player_of(&session.0).await?;
    crate::domain::lobby::check_not_bot(&me)?;
    spec.name = Some(me.name);
    spec.player = Some(me.id);
    let grant = state.games().create(spec, client_ip(addr)).await?;
    grant_response_in(&state, session, StatusCode::CREATED, grant).await
}

/// Reads the body of `POST /api/games`, naming the field that is wrong.
fn new_game_spec(req: NewGame) -> Result<NewGameSpec, ApiError> {
    let bad = |field: &'static str, why: String| ApiError::from(GameError::BadField { field, why });
    let rules: Rules = match req.rules.as_deref() {
        None => Rules::STANDARD,
        Some(r) => r.trim().parse().map_err(|e| bad("rules", format!("{e}")))?,
    };
    let perfect = req.perfect.unwrap_or(false);
    // The perfect player searches as the top level above its database.
    let level = match (perfect, req.level) {
        (true, _) => MAX_LEVEL,
        (false, l) => l.unwrap_or(crate::api::DEFAULT_LEVEL.get()),
    };
    let level = Level::new(level).map_err(|_| {
        bad(
            "level",
            format!("{level} is not a level; levels go from 1 to {MAX_LEVEL}"),
        )
    })?;
    let colour = match req.colour.as_deref().unwrap_or(crate::api::DEFAULT_COLOUR) {
        "random" => None,
        c => Some(
            c.parse::<Player>()
                .ok()
                .filter(|_| c.len() == 1)
                .ok_or_else(|| bad("colour", format!("`{c}` is not A, B or random")))?,
        ),
    };
    let start = match req.start.as_deref() {
        None => Position::new(rules.variant),
        Some(gpn) => {
            let p = Position::from_gpn(gpn.trim(), rules.variant)
                .map_err(|e| bad("start", format!("{e}")))?;
            if p.is_ended() {
                return Err(bad(
                    "start",
                    "every hole holds at most 2 seeds there: the game would be over at once".into(),
                ));
            }
            p
        }
    };
    Ok(NewGameSpec {
        mode: req.mode,
        rules,
        start,
        level,
        perfect,
        honourable: req.honourable.unwrap_or(false),
        colour,
        name: None,
        player: None,
        clock: parse_clock(req.clock.as_deref())?,
    })
}

/// Answers a seat given to this caller: the seat is remembered in the
/// browser's session (a new session cookie if it had none).
async fn grant_response(
    state: &AppState,
    headers: &HeaderMap,
    status: StatusCode,
    grant: SeatGrant,
) -> Result<Response, ApiError> {
    grant_response_in(state, session_or_new(state, headers).await?, status, grant).await
}

/// [`grant_response`] in a session already chosen.
async fn grant_response_in(
    state: &AppState,
    (session, new): (String, bool),
    status: StatusCode,
    grant: SeatGrant,
) -> Result<Response, ApiError> {
    state
        .games()
        .remember_seat(session.clone(), grant.id.clone(), grant.token.clone())
        .await?;
    let created = Created {
        url: format!("/g/{}", grant.id),
        invite: grant
            .invite
            .map(|code| format!("/join/{}/{code}", grant.id)),
        id: grant.id,
        seat: grant.seat,
        token: grant.token,
    };
    Ok(with_session(
        (status, Json(created)).into_response(),
        &(session, new),
    ))
}

/// `GET /api/games/{id}`: the game's state, as the caller's seat sees it.
pub(crate) async fn game(
    State(state): State<AppState>,
    Path(id): Path<String>,
    SeatToken(token): SeatToken,
) -> Result<Response, ApiError> {
    let view = state.games().view(&id, token.as_deref()).await?;
    Ok(Json(GameView::from(view)).into_response())
}

/// `POST /api/games/{id}/join`: the friend claims the invitation.
pub(crate) async fn join(
    State(state): State<AppState>,
    Path(id): Path<String>,
    SeatToken(token): SeatToken,
    headers: HeaderMap,
    JsonBody(body): JsonBody<ClaimBody>,
) -> Result<Response, ApiError> {
    // The creator opening his own link keeps his seat: the link is for
    // the friend.
    if let Some(t) = token {
        if state.games().seat_of(&id, &t).await?.is_some() {
            return Err(ApiError::forbidden(
                "this is your own invitation: you already hold a seat in this game; \
                 send the link to your friend",
            ));
        }
    }
    let session = session_or_new(&state, &headers).await?;
    let me = state.players().player_of(&session.0).await?;
    crate::domain::lobby::check_not_bot(&me)?;
    let grant = state
        .games()
        .claim_invite(&id, &body.code, Some((me.name, me.id)))
        .await?;
    grant_response_in(&state, session, StatusCode::OK, grant).await
}

/// `POST /api/games/{id}/continue`: a player opens his seat on this device.
pub(crate) async fn continue_here(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<ClaimBody>,
) -> Result<Response, ApiError> {
    let grant = state.games().claim_device(&id, &body.code).await?;
    grant_response(&state, &headers, StatusCode::OK, grant).await
}

/// `POST /api/games/{id}/devices`: a link that opens the caller's seat
/// on another device.
pub(crate) async fn device_link(
    State(state): State<AppState>,
    Path(id): Path<String>,
    SeatToken(token): SeatToken,
) -> Result<Response, ApiError> {
    let code = state.games().device_code(&id, token).await?;
    let link = DeviceLink {
        url: format!("/continue/{id}/{code}"),
    };
    Ok((StatusCode::CREATED, Json(link)).into_response())
}

/// `DELETE /api/games/{id}/devices`: the device links given so far stop
/// working.
pub(crate) async fn revoke_device(
    State(state): State<AppState>,
    Path(id): Path<String>,
    SeatToken(token): SeatToken,
) -> Result<Response, ApiError> {
    state.games().revoke_device(&id, token).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// `POST /api/games/{id}/rematch`: a new game between the same players.
pub(crate) async fn rematch(
    State(state): State<AppState>,
    Path(id): Path<String>,
    addr: Option<Extension<ClientIp>>,
    SeatToken(token): SeatToken,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let grant = state.games().rematch(&id, token, client_ip(addr)).await?;
    grant_response(&state, &headers, StatusCode::CREATED, grant).await
}

/// `GET /api/games/{id}/record`: the game's record, as a file.
pub(crate) async fn record(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let text = state.games().record(&id).await?;
    let disposition = HeaderValue::from_str(&format!("attachment; filename=\"gore-{id}.gore\""))
        .map_err(|_| ApiError::no_game())?;
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/plain; charset=utf-8"),
            ),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        text,
    )
        .into_response())
}

//! The browser's player and accounts: `/api/me`, its name, signing up,
//! logging in and out, a new password.

use std::net::IpAddr;

use axum::extract::{Extension, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;

use crate::error::ApiError;
use crate::extract::{
    client_ip, session_cookie, session_of, session_or_new, session_or_none, with_session, JsonBody,
};
use crate::net::ClientIp;
use crate::state::AppState;

/// `GET /api/me`: the browser's display name (generated on the first
/// visit; the answer then sets the session cookie).
pub(crate) async fn me(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let (session, new) = session_or_new(&state, &headers).await?;
    let p = state.players().player_of(&session).await?;
    let res = Json(crate::api::Me {
        name: p.name,
        id: Some(p.id),
        account: p.account,
    })
    .into_response();
    Ok(with_session(res, &(session, new)))
}

/// `POST /api/me/name`: the browser's new display name, checked.
pub(crate) async fn rename(
    State(state): State<AppState>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<crate::api::Me>,
) -> Result<Response, ApiError> {
    let (session, new) = session_or_new(&state, &headers).await?;
    let name = state.players().rename(&session, &body.name).await?;
    let p = state.players().player_of(&session).await?;
    let res = Json(crate::api::Me {
        name,
        id: Some(p.id),
        account: p.account,
    })
    .into_response();
    Ok(with_session(res, &(session, new)))
}

/// The answer of a log-in (sign-up, log-in, new password): the player, and
/// the rotated session's cookie.
fn logged_in(status: StatusCode, l: crate::domain::accounts::LoggedIn) -> Response {
    let mut res = (
        status,
        Json(crate::api::Me {
            name: l.player.name,
            id: Some(l.player.id),
            account: true,
        }),
    )
        .into_response();
    res.headers_mut()
        .insert(header::SET_COOKIE, session_cookie(&l.session));
    res
}

/// The address the account limits count against: an IPv6 client's /64,
/// as the rate limiter counts it (one host has a whole /64).
fn account_ip(addr: Option<Extension<ClientIp>>) -> Option<IpAddr> {
    client_ip(addr).map(crate::limit::key)
}

/// `POST /api/account/signup`: the browser's player becomes an account.
pub(crate) async fn sign_up(
    State(state): State<AppState>,
    addr: Option<Extension<ClientIp>>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<crate::api::Credentials>,
) -> Result<Response, ApiError> {
    let session = session_or_none(&state, &headers).await?;
    let me = state.players().player_of(&session).await?;
    let l = state
        .accounts()
        .sign_up(
            &session,
            &me,
            &body.username,
            &body.password,
            account_ip(addr),
        )
        .await?;
    Ok(logged_in(StatusCode::CREATED, l))
}

/// `POST /api/account/login`.
pub(crate) async fn log_in(
    State(state): State<AppState>,
    addr: Option<Extension<ClientIp>>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<crate::api::Credentials>,
) -> Result<Response, ApiError> {
    let session = session_or_none(&state, &headers).await?;
    let l = state
        .accounts()
        .log_in(&session, &body.username, &body.password, account_ip(addr))
        .await?;
    Ok(logged_in(StatusCode::OK, l))
}

/// `POST /api/account/logout`: ends the session (its cookie then holds
/// nothing); a new anonymous one.
pub(crate) async fn log_out(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let Some(session) = session_of(&state, &headers).await? else {
        return Ok(StatusCode::NO_CONTENT.into_response());
    };
    let mut res = StatusCode::NO_CONTENT.into_response();
    if let Some(fresh) = state.accounts().log_out(&session).await? {
        res.headers_mut()
            .insert(header::SET_COOKIE, session_cookie(&fresh));
    }
    Ok(res)
}

/// `POST /api/account/password`.
pub(crate) async fn change_password(
    State(state): State<AppState>,
    addr: Option<Extension<ClientIp>>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<crate::api::NewPassword>,
) -> Result<Response, ApiError> {
    let session = session_or_none(&state, &headers).await?;
    let me = state.players().player_of(&session).await?;
    let l = state
        .accounts()
        .change_password(&session, &me, &body.current, &body.new, account_ip(addr))
        .await?;
    Ok(logged_in(StatusCode::OK, l))
}

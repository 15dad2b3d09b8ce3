//! The routes: pages, assets, the JSON API and the socket.

use std::net::SocketAddr;

use axum::body::Bytes;
use axum::extract::rejection::QueryRejection;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{
    ConnectInfo, DefaultBodyLimit, Extension, FromRequest, Path, Query, Request, State,
};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::de::DeserializeOwned;
use serde::Deserialize;

use crate::api::{Created, NewGame};
use crate::assets;
use crate::error::ApiError;
use crate::state::AppState;
use crate::ws;

/// The largest request body.
pub const BODY_LIMIT: usize = 16 * 1024;

/// The router of the whole app.
pub fn app(state: AppState) -> Router {
    Router::new()
        .route("/", get(page))
        .route("/g/{id}", get(page))
        .route("/rules", get(page))
        .route("/assets/{*path}", get(asset))
        .route("/join/{id}/{token}", get(join))
        .route("/api/games", post(create))
        .route("/api/games/{id}", get(game))
        .route("/api/games/{id}/actions", post(play))
        .route("/api/games/{id}/rematch", post(rematch))
        .route("/api/games/{id}/record", get(record))
        .route("/api/games/{id}/ws", get(socket))
        .fallback(fallback)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(middleware::from_fn(guard))
        .layer(middleware::from_fn_with_state(state.clone(), rate_limit))
        .with_state(state)
}

/// A JSON body, refused with `too_large` over [`BODY_LIMIT`] and with
/// `bad_request` naming the field when it does not read.
pub struct JsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let bytes = Bytes::from_request(req, state).await.map_err(|e| {
            if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::too_large("the request body", BODY_LIMIT)
            } else {
                ApiError::bad_request(format!("body: {}", e.body_text()))
            }
        })?;
        parse_json(&bytes).map(JsonBody)
    }
}

/// Reads JSON, naming the field that is wrong.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let de = &mut serde_json::Deserializer::from_slice(bytes);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path.is_empty() || path == "." || path == "?" {
            ApiError::bad_request(format!("body: {inner}"))
        } else {
            ApiError::bad_request(format!("{path}: {inner}"))
        }
    })
}

/// The token presented: `Authorization: Bearer`, else the seat cookie.
pub fn token(headers: &HeaderMap, id: &str) -> Option<String> {
    if let Some(v) = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
    {
        if let Some(t) = v.strip_prefix("Bearer ") {
            return Some(t.trim().to_string());
        }
    }
    let name = format!("gore_{id}");
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.trim_matches('"').to_string())
}

/// The seat cookie of a game.
fn seat_cookie(id: &str, token: &str) -> HeaderValue {
    HeaderValue::from_str(&format!(
        "gore_{id}={token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=31536000"
    ))
    .unwrap_or_else(|_| HeaderValue::from_static("gore=; Path=/"))
}

fn created_response(c: Created) -> Response {
    let cookie = seat_cookie(&c.id, &c.token);
    let mut res = (StatusCode::CREATED, Json(c)).into_response();
    res.headers_mut().insert(header::SET_COOKIE, cookie);
    res
}

/// Whether a request comes from this site (or from a tool: no `Origin`).
fn same_origin(headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let origin = origin.to_str().ok().map(|o| {
        o.strip_prefix("http://")
            .or_else(|| o.strip_prefix("https://"))
            .unwrap_or("")
    });
    matches!((origin, host), (Some(o), Some(h)) if !o.is_empty() && o.eq_ignore_ascii_case(h))
}

/// Per-address rate limit on the API and invitations: `429 rate_limited`
/// when an address goes over. Pages and assets are served from memory and
/// not counted, so that a classroom behind one address can load the app.
async fn rate_limit(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let path = req.uri().path();
    let counted = path.starts_with("/api/") || path.starts_with("/join/");
    if let Some(ConnectInfo(addr)) = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .filter(|_| counted)
    {
        if !state.limiter().allow(addr.ip()) {
            return ApiError::rate_limited().into_response();
        }
    }
    next.run(req).await
}

/// Refuses cross-site writes and sockets; adds the security headers.
async fn guard(req: Request, next: Next) -> Response {
    let writes = req.method() != Method::GET && req.method() != Method::HEAD;
    let socket = req.uri().path().ends_with("/ws");
    if (writes || socket) && !same_origin(req.headers()) {
        return ApiError::forbidden("cross-site request refused").into_response();
    }
    let mut res = next.run(req).await;
    let h = res.headers_mut();
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    res
}

async fn page(headers: HeaderMap) -> Response {
    assets::index(&headers)
}

async fn asset(Path(path): Path<String>, headers: HeaderMap) -> Response {
    assets::asset(&path, &headers)
}

async fn fallback(uri: Uri) -> Response {
    if uri.path().starts_with("/api/") || uri.path() == "/api" {
        ApiError::new(crate::error::ErrorCode::NotFound, "no such endpoint").into_response()
    } else {
        assets::not_found()
    }
}

async fn create(State(state): State<AppState>, JsonBody(req): JsonBody<NewGame>) -> Response {
    match state.create(req).await {
        Ok(c) => created_response(c),
        Err(e) => e.into_response(),
    }
}

async fn game(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let view = state.view(&id, token(&headers, &id).as_deref()).await?;
    Ok(Json(view).into_response())
}

/// The body of `POST /api/games/{id}/actions`.
#[derive(Deserialize)]
struct PlayBody {
    action: String,
    ply: Option<u64>,
}

async fn play(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Result<JsonBody<PlayBody>, ApiError>,
) -> Result<Response, ApiError> {
    // An unknown game is 404 whatever the body.
    state.room(&id).await?;
    let JsonBody(body) = body?;
    let view = state
        .play(&id, token(&headers, &id), body.action, body.ply)
        .await?;
    Ok(Json(view).into_response())
}

async fn rematch(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let c = state.rematch(&id, token(&headers, &id)).await?;
    Ok(created_response(c))
}

async fn record(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let text = state.record(&id).await?;
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

async fn join(
    State(state): State<AppState>,
    Path((id, token)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    state.join(&id, token.clone()).await?;
    let mut res = StatusCode::SEE_OTHER.into_response();
    let h = res.headers_mut();
    h.insert(header::SET_COOKIE, seat_cookie(&id, &token));
    if let Ok(v) = HeaderValue::from_str(&format!("/g/{id}")) {
        h.insert(header::LOCATION, v);
    }
    Ok(res)
}

/// `?token=` on the socket's address.
#[derive(Deserialize)]
struct SocketQuery {
    token: Option<String>,
}

async fn socket(
    State(state): State<AppState>,
    Path(id): Path<String>,
    query: Result<Query<SocketQuery>, QueryRejection>,
    headers: HeaderMap,
    addr: Option<Extension<ConnectInfo<SocketAddr>>>,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    let room = state.room(&id).await?;
    let upgrade = match upgrade {
        Ok(u) => u,
        Err(e) => return Ok(e.into_response()),
    };
    let token = query
        .ok()
        .and_then(|Query(q)| q.token)
        .or_else(|| token(&headers, &id));
    let ip = addr.map(|Extension(ConnectInfo(a))| a.ip());
    Ok(upgrade
        .max_message_size(ws::HARD_LIMIT)
        .max_frame_size(ws::HARD_LIMIT)
        .on_upgrade(move |socket| ws::session(state, id, room, token, ip, socket)))
}

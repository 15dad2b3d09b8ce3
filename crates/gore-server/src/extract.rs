//! What the edges read from a request, shared by the routes (src/http/)
//! and the sockets' upgrades (src/ws.rs, src/lobby_ws.rs,
//! src/analysis_ws.rs, src/puzzles_http.rs): JSON bodies, the browser
//! session, the seat token ([`SeatToken`], an extractor), the client's
//! address, and the fields that need reading (a clock, a challenge's
//! terms). It imports none of those files, so that they never import each
//! other.

use std::convert::Infallible;
use std::net::IpAddr;

use axum::body::Bytes;
use axum::extract::{Extension, FromRequest, FromRequestParts, RawPathParams, Request};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use gore_core::{Player, Rules};
use serde::de::DeserializeOwned;

use crate::api::parse_json;
use crate::domain::{new_token, GameError};
use crate::error::ApiError;
use crate::net::ClientIp;
use crate::state::AppState;

/// The largest request body.
pub const BODY_LIMIT: usize = 16 * 1024;

/// A JSON body, refused with `too_large` over [`BODY_LIMIT`] and with
/// `bad_request` naming the field when it does not read.
pub struct JsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let RawBody(bytes) = RawBody::from_request(req, state).await?;
        parse_json(&bytes).map(JsonBody)
    }
}

/// A body as its bytes (a command's, read by its name: see
/// `crate::api::command_of`), refused with `too_large` over
/// [`BODY_LIMIT`].
pub struct RawBody(pub Bytes);

impl<S: Send + Sync> FromRequest<S> for RawBody {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let bytes = Bytes::from_request(req, state).await.map_err(|e| {
            if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::too_large("the request body", BODY_LIMIT)
            } else {
                ApiError::bad_request(format!("body: {}", e.body_text()))
            }
        })?;
        Ok(RawBody(bytes))
    }
}

/// The browser session cookie: one for all of a browser's seats.
const SESSION_COOKIE: &str = "gore_session";

/// The value of cookie `name`, if sent.
fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.trim_matches('"'))
}

/// The session id the browser sent, if well-formed: not yet known to be
/// a session ([`session_of`] checks).
fn sent_session(headers: &HeaderMap) -> Option<&str> {
    cookie(headers, SESSION_COOKIE)
        .filter(|s| s.len() == 32 && s.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The browser's session: the id it sent if a server issued it and it has
/// not ended. Any other id (made up, planted by someone else, logged out)
/// is no session, never adopted.
pub(crate) async fn session_of(
    state: &AppState,
    headers: &HeaderMap,
) -> Result<Option<String>, ApiError> {
    match sent_session(headers) {
        Some(s) if state.players().is_session(s).await? => Ok(Some(s.to_string())),
        _ => Ok(None),
    }
}

/// The seat token presented for the game of the route's `{id}`:
/// `Authorization: Bearer`, else the seat the browser session holds, else
/// a per-game cookie of older versions (`gore_<id>`). Never refused: a
/// request without a token, or with one of no seat, is answered by the
/// domain as before (`forbidden` where a seat is needed, a spectator's
/// view where none is).
///
/// ```ignore
/// async fn resign(
///     State(state): State<AppState>,
///     Path(id): Path<String>,
///     SeatToken(token): SeatToken,
/// ) -> Result<Response, ApiError> { … }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatToken(pub Option<String>);

impl FromRequestParts<AppState> for SeatToken {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Infallible> {
        // A route without `{id}` names no game: no seat.
        let id = match RawPathParams::from_request_parts(parts, state).await {
            Ok(params) => params
                .iter()
                .find(|(k, _)| *k == "id")
                .map(|(_, v)| v.to_string()),
            Err(_) => None,
        };
        Ok(SeatToken(match id {
            Some(id) => token_and_session(state, &parts.headers, &id).await.0,
            None => None,
        }))
    }
}

/// The token presented for game `id` ([`SeatToken`]), and the session it
/// came from when it came from one.
pub(crate) async fn token_and_session(
    state: &AppState,
    headers: &HeaderMap,
    id: &str,
) -> (Option<String>, Option<String>) {
    if let Some(v) = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
    {
        if let Some(t) = v.strip_prefix("Bearer ") {
            return (Some(t.trim().to_string()), None);
        }
    }
    // Unchecked: an id that is no session holds no seats.
    if let Some(session) = sent_session(headers) {
        match state.games().session_token(session, id).await {
            Ok(Some(t)) => return (Some(t), Some(session.to_string())),
            Ok(None) => {}
            Err(e) => tracing::warn!("session lookup: {e}"),
        }
    }
    (
        cookie(headers, &format!("gore_{id}")).map(str::to_string),
        None,
    )
}

/// The session cookie.
pub(crate) fn session_cookie(session: &str) -> HeaderValue {
    HeaderValue::from_str(&format!(
        "{SESSION_COOKIE}={session}; Path=/; HttpOnly; SameSite=Lax; Max-Age=31536000"
    ))
    .unwrap_or_else(|_| HeaderValue::from_static("gore_session=; Path=/"))
}

/// The browser's session: the one it sent ([`session_of`]), or a new one
/// issued (`true`: the answer sets its cookie).
pub(crate) async fn session_or_new(
    state: &AppState,
    headers: &HeaderMap,
) -> Result<(String, bool), ApiError> {
    match session_of(state, headers).await? {
        Some(s) => Ok((s, false)),
        None => Ok((state.players().new_session().await?, true)),
    }
}

/// The browser's session for a log-in, a sign-up or a new password, which
/// replace it: the one it sent, else an id never issued (a session of
/// nothing, to carry nothing over; the answer sets the new one).
pub(crate) async fn session_or_none(
    state: &AppState,
    headers: &HeaderMap,
) -> Result<String, ApiError> {
    Ok(session_of(state, headers).await?.unwrap_or_else(new_token))
}

pub(crate) fn with_session(mut res: Response, (session, new): &(String, bool)) -> Response {
    if *new {
        res.headers_mut()
            .insert(header::SET_COOKIE, session_cookie(session));
    }
    res
}

/// The client's address (behind a trusted proxy, the one it forwards),
/// when known: the AI's cap per client counts against it.
pub(crate) fn client_ip(addr: Option<Extension<ClientIp>>) -> Option<IpAddr> {
    addr.map(|Extension(ClientIp(a))| a)
}

/// Reads a `clock` field: `M+S`, `Nd`, or none (`none`, empty, absent).
pub(crate) fn parse_clock(
    clock: Option<&str>,
) -> Result<Option<crate::domain::clock::TimeControl>, ApiError> {
    match clock.map(str::trim) {
        None | Some("" | "none") => Ok(None),
        Some(c) => c.parse().map(Some).map_err(|e: String| {
            ApiError::from(GameError::BadField {
                field: "clock",
                why: e,
            })
        }),
    }
}

/// Reads the terms of an open challenge, naming the field that is wrong.
pub(crate) fn challenge_terms(
    body: crate::api::ChallengeBody,
) -> Result<crate::domain::lobby::NewChallenge, ApiError> {
    let bad = |field: &'static str, why: String| ApiError::from(GameError::BadField { field, why });
    let rules: Rules = match body.rules.as_deref() {
        None => Rules::STANDARD,
        Some(r) => r.trim().parse().map_err(|e| bad("rules", format!("{e}")))?,
    };
    let colour = match body.colour.as_deref().unwrap_or("random") {
        "random" => None,
        c => Some(
            c.parse::<Player>()
                .ok()
                .filter(|_| c.len() == 1)
                .ok_or_else(|| bad("colour", format!("`{c}` is not A, B or random")))?,
        ),
    };
    Ok(crate::domain::lobby::NewChallenge {
        rules,
        clock: parse_clock(body.clock.as_deref())?,
        colour,
        rated: body.rated,
    })
}

/// The browser session a socket's upgrade presents, and its player: a
/// socket of the session's (`what`, named in the refusal) is refused
/// `forbidden` without one.
pub async fn session_player(
    state: &AppState,
    headers: &HeaderMap,
    what: &str,
) -> Result<(String, crate::store::StoredPlayer), ApiError> {
    let Some(session) = session_of(state, headers).await? else {
        return Err(ApiError::forbidden(format!(
            "{what} needs a browser session: open a page first (GET /api/me gives one)"
        )));
    };
    let me = state.players().player_of(&session).await?;
    Ok((session, me))
}

/// The Bot API's caller by his token (`Authorization: Bearer`).
pub async fn bot_caller(
    state: &AppState,
    headers: &HeaderMap,
) -> Result<crate::domain::bots::Caller, ApiError> {
    let auth = headers
        .get(header::AUTHORIZATION)
        .map(|v| v.to_str().unwrap_or(""));
    Ok(state.bots().authenticate(auth).await?)
}

/// The Bot API caller's seat in game `id` (a token with `bot:play`).
pub async fn bot_seat(state: &AppState, headers: &HeaderMap, id: &str) -> Result<String, ApiError> {
    let c = bot_caller(state, headers).await?;
    c.needs("bot:play")?;
    Ok(state.bots().seat(&c.player, id).await?)
}

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use axum::routing::get;
    use axum::Router;
    use tower::ServiceExt;

    use super::*;

    /// What [`SeatToken`] read, `-` for none.
    async fn probe(SeatToken(token): SeatToken) -> String {
        token.unwrap_or_else(|| "-".into())
    }

    /// `GET uri` with `headers` through `app`: its body.
    async fn get_text(app: &Router, uri: &str, headers: &[(&str, String)]) -> String {
        let mut req = Request::builder().uri(uri);
        for (k, v) in headers {
            req = req.header(*k, v);
        }
        let res = app
            .clone()
            .oneshot(req.body(Body::empty()).expect("a request"))
            .await
            .expect("answered");
        let bytes = axum::body::to_bytes(res.into_body(), 1 << 20)
            .await
            .expect("a body");
        String::from_utf8(bytes.to_vec()).expect("text")
    }

    #[tokio::test]
    async fn the_seat_token_is_read_from_the_request() {
        let dir = tempfile::tempdir().expect("a directory");
        let config = crate::Config {
            db: dir.path().join("t.db").display().to_string(),
            ..crate::Config::default()
        };
        let state = AppState::open(config).await.expect("the state");
        // A friend game, its creator's seat held by a browser session.
        let spec = crate::domain::NewGameSpec {
            mode: crate::Mode::Friend,
            rules: Rules::STANDARD,
            start: gore_core::Position::new(Rules::STANDARD.variant),
            level: gore_ai::Level::new(1).expect("a level"),
            perfect: false,
            honourable: false,
            colour: Some(Player::A),
            clock: None,
            name: None,
            player: None,
        };
        let grant = state.games().create(spec, None).await.expect("a game");
        let session = state.players().new_session().await.expect("a session");
        state
            .games()
            .remember_seat(session.clone(), grant.id.clone(), grant.token.clone())
            .await
            .expect("remembered");
        let cookie = format!("{SESSION_COOKIE}={session}");
        let (id, seat) = (grant.id, grant.token);

        let app = Router::new()
            .route("/g/{id}", get(probe))
            .route("/g/{id}/chat/{n}", get(probe))
            .route("/nothing", get(probe))
            .with_state(state);
        let game = format!("/g/{id}");
        let auth = |v: &str| (header::AUTHORIZATION.as_str(), v.to_string());
        let cookies = |v: &str| (header::COOKIE.as_str(), v.to_string());

        // Absent: no token.
        assert_eq!(get_text(&app, &game, &[]).await, "-");
        // A bearer token, as presented (trimmed; the domain judges it).
        assert_eq!(get_text(&app, &game, &[auth("Bearer  xyz ")]).await, "xyz");
        // Another scheme, a malformed session id: none.
        assert_eq!(get_text(&app, &game, &[auth("Basic xyz")]).await, "-");
        assert_eq!(
            get_text(&app, &game, &[cookies("gore_session=zz")]).await,
            "-"
        );
        // The session's seat in this game; in another game, none.
        assert_eq!(get_text(&app, &game, &[cookies(&cookie)]).await, seat);
        assert_eq!(get_text(&app, "/g/other", &[cookies(&cookie)]).await, "-");
        // `{id}` among other parameters.
        let chat = format!("/g/{id}/chat/3");
        assert_eq!(get_text(&app, &chat, &[cookies(&cookie)]).await, seat);
        // A bearer token comes before the session's.
        assert_eq!(
            get_text(&app, &game, &[auth("Bearer xyz"), cookies(&cookie)]).await,
            "xyz"
        );
        // The per-game cookie of older versions.
        let old = format!("gore_{id}=\"old\"");
        assert_eq!(get_text(&app, &game, &[cookies(&old)]).await, "old");
        // A route that names no game: none.
        assert_eq!(get_text(&app, "/nothing", &[auth("Bearer xyz")]).await, "-");
    }
}

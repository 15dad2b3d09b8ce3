//! The routes: pages, assets, the JSON API and the socket.

use std::net::{IpAddr, SocketAddr};

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

use crate::api::{parse_json, AnswerBody, ClaimBody, Created, DeviceLink, NewGame, PlayBody};
use crate::assets;
use crate::domain::{new_token, GameError, NewGameSpec, SeatGrant};
use crate::error::{ApiError, ErrorCode};
use crate::limit::Verdict;
use crate::net::{self, ClientIp, PublicUrl};
use crate::socket::{limited, socket_slot};
use crate::state::AppState;
use crate::ws;
use gore_ai::{Level, MAX_LEVEL};
use gore_core::{Player, Position, Rules};

/// The largest request body.
pub const BODY_LIMIT: usize = 16 * 1024;

/// The router of the whole app.
pub fn app(state: AppState) -> Router {
    Router::new()
        .route("/", get(page))
        .route("/g/{id}", get(game_page))
        .route("/rules", get(page))
        .route("/assets/{*path}", get(asset))
        .route("/join/{id}/{code}", get(page))
        .route("/continue/{id}/{code}", get(page))
        .route("/api/games", post(create))
        .route("/api/solver", get(solver))
        .route("/api/lessons", get(lessons))
        .route("/api/lessons/{id}/check", post(check_lesson))
        .route("/api/me", get(me))
        .route("/api/lobby", get(lobby_view))
        .route("/api/players/{name}", get(player_page))
        .route("/api/leaderboard/{pace}", get(leaderboard))
        .route("/@/{name}", get(page))
        .route("/leaderboard", get(page))
        .route("/analysis", get(page))
        .route("/review", get(page))
        .route("/review/{id}", get(page))
        .route("/learn", get(page))
        .route("/puzzles", get(page))
        .route("/api/puzzles/next", get(crate::puzzles_http::next))
        .route("/api/puzzles/{id}/solve", post(crate::puzzles_http::solve))
        .route("/api/lobby/seek", post(lobby_seek))
        .route("/api/lobby/challenges", post(lobby_post))
        .route(
            "/api/lobby/challenges/{id}",
            get(lobby_outcome).delete(lobby_cancel),
        )
        .route("/api/lobby/challenges/{id}/accept", post(lobby_accept))
        .route("/api/lobby/ws", get(lobby_socket))
        .route("/api/analysis/position", post(analysis_position))
        .route("/api/analysis/ws", get(analysis_socket))
        .route("/api/me/name", post(rename))
        .route("/api/account/signup", post(sign_up))
        .route("/api/account/login", post(log_in))
        .route("/api/account/logout", post(log_out))
        .route("/api/account/password", post(change_password))
        .route("/api/games/{id}", get(game))
        .route("/api/games/{id}/actions", post(play))
        .route("/api/games/{id}/join", post(join))
        .route("/api/games/{id}/continue", post(continue_here))
        .route(
            "/api/games/{id}/devices",
            post(device_link).delete(revoke_device),
        )
        .route("/api/games/{id}/rematch", post(rematch))
        .route("/api/games/{id}/resign", post(resign))
        .route("/api/games/{id}/abort", post(abort))
        .route("/api/games/{id}/claim", post(claim_win))
        .route("/api/games/{id}/chat", post(chat))
        .route("/api/games/{id}/chat/{n}/report", post(report_chat))
        .route("/api/games/{id}/takeback", post(takeback))
        .route("/api/games/{id}/takeback/answer", post(answer_takeback))
        .route("/api/games/{id}/record", get(record))
        .route("/api/games/{id}/review", get(game_review))
        .route("/api/games/{id}/review/status", get(game_review_status))
        .route("/api/review", post(upload_review))
        .route("/api/review/status", get(upload_review_status))
        .route("/api/games/{id}/ws", get(socket))
        .fallback(fallback)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(middleware::from_fn_with_state(state.clone(), rate_limit))
        // Outermost: the Host check comes first, every answer gets the
        // headers.
        .layer(middleware::from_fn_with_state(state.clone(), guard))
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
async fn session_of(state: &AppState, headers: &HeaderMap) -> Result<Option<String>, ApiError> {
    match sent_session(headers) {
        Some(s) if state.players().is_session(s).await? => Ok(Some(s.to_string())),
        _ => Ok(None),
    }
}

/// The token presented for game `id`: `Authorization: Bearer`, else the
/// seat the browser session holds, else a per-game cookie of older
/// versions (`gore_<id>`).
pub async fn token(state: &AppState, headers: &HeaderMap, id: &str) -> Option<String> {
    token_and_session(state, headers, id).await.0
}

/// [`token`], and the session it came from when it came from one.
async fn token_and_session(
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
fn session_cookie(session: &str) -> HeaderValue {
    HeaderValue::from_str(&format!(
        "{SESSION_COOKIE}={session}; Path=/; HttpOnly; SameSite=Lax; Max-Age=31536000"
    ))
    .unwrap_or_else(|_| HeaderValue::from_static("gore_session=; Path=/"))
}

/// The browser's session: the one it sent ([`session_of`]), or a new one
/// issued (`true`: the answer sets its cookie).
async fn session_or_new(state: &AppState, headers: &HeaderMap) -> Result<(String, bool), ApiError> {
    match session_of(state, headers).await? {
        Some(s) => Ok((s, false)),
        None => Ok((state.players().new_session().await?, true)),
    }
}

/// The browser's session for a log-in, a sign-up or a new password, which
/// replace it: the one it sent, else an id never issued (a session of
/// nothing, to carry nothing over; the answer sets the new one).
async fn session_or_none(state: &AppState, headers: &HeaderMap) -> Result<String, ApiError> {
    Ok(session_of(state, headers).await?.unwrap_or_else(new_token))
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

/// Whether a request comes from this site (or from a tool: no `Origin`):
/// `--public-url`'s origin when set, else the `Host` it was sent to, over
/// the scheme it came by (`https` when a trusted proxy says so, else
/// `http`: the server itself speaks plain HTTP), so that a page of the
/// same host over the other scheme is another site.
fn same_origin(headers: &HeaderMap, public: Option<&PublicUrl>, https: bool) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    if let Some(public) = public {
        return origin.to_str().is_ok_and(|o| public.origin_matches(o));
    }
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let scheme = if https { "https://" } else { "http://" };
    let origin = origin.to_str().ok().map(|o| {
        o.get(..scheme.len())
            .filter(|s| s.eq_ignore_ascii_case(scheme))
            .map_or("", |_| &o[scheme.len()..])
    });
    matches!((origin, host), (Some(o), Some(h)) if !o.is_empty() && o.eq_ignore_ascii_case(h))
}

/// Per-address rate limit on the API, invitations and game pages: `429
/// rate_limited` when an address goes over. A game page (`/g/{id}`) looks
/// the game up in the database (7,000 random ids a second from one address
/// before); the other pages and the assets are served from memory and not
/// counted, so that a classroom behind one address can load the app.
///
/// An address far over its limit ([`Verdict::Close`]) is answered with
/// `Connection: close` and its connection closed.
async fn rate_limit(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let path = req.uri().path();
    let counted = ["/api/", "/join/", "/g/"]
        .iter()
        .any(|p| path.starts_with(p));
    if let Some(ip) = client_ip_of(&req).filter(|_| counted) {
        match state.limiter().check(ip) {
            Verdict::Allow => {}
            Verdict::Refuse => return ApiError::rate_limited().into_response(),
            Verdict::Close => {
                let mut res = ApiError::rate_limited().into_response();
                res.headers_mut()
                    .insert(header::CONNECTION, HeaderValue::from_static("close"));
                return res;
            }
        }
    }
    next.run(req).await
}

/// The client's address: [`ClientIp`], else the TCP peer's.
fn client_ip_of(req: &Request) -> Option<IpAddr> {
    req.extensions()
        .get::<ClientIp>()
        .map(|ClientIp(ip)| *ip)
        .or_else(|| {
            req.extensions()
                .get::<ConnectInfo<SocketAddr>>()
                .map(|ConnectInfo(a)| a.ip())
        })
}

/// The policy of every answer: the app's own scripts, styles and
/// connections only (it has no inline script or style), never framed.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; \
     base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

/// Refuses another `Host` than `--public-url`'s (`421 wrong_host`, against
/// DNS rebinding) and cross-site writes and sockets; gives a 405 its JSON
/// body; marks cookies `Secure` over HTTPS; adds the security headers.
async fn guard(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let config = state.config();
    let public = config.public_url.as_deref().and_then(PublicUrl::parse);
    let trusted_peer = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .is_some_and(|ConnectInfo(a)| net::is_trusted(a.ip(), config));
    let secure = net::secure_cookies(config, req.headers(), trusted_peer);
    let host_ok = public.as_ref().is_none_or(|p| {
        req.headers()
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .is_some_and(|h| p.host_matches(h))
    });
    let writes = req.method() != Method::GET && req.method() != Method::HEAD;
    let socket = req.uri().path().ends_with("/ws");
    let method = req.method().clone();
    let mut res = if !host_ok {
        ApiError::new(
            ErrorCode::WrongHost,
            "this server does not serve that host name",
        )
        .into_response()
    } else if (writes || socket) && !same_origin(req.headers(), public.as_ref(), secure) {
        ApiError::forbidden("cross-site request refused").into_response()
    } else {
        next.run(req).await
    };
    if res.status() == StatusCode::METHOD_NOT_ALLOWED {
        res = method_not_allowed(&method, res);
    }
    let h = res.headers_mut();
    if secure {
        let cookies: Vec<HeaderValue> = h.get_all(header::SET_COOKIE).iter().cloned().collect();
        if !cookies.is_empty() {
            h.remove(header::SET_COOKIE);
            for c in cookies {
                h.append(header::SET_COOKIE, with_secure(c));
            }
        }
    }
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
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

/// A cookie with `; Secure` (unless it has it).
fn with_secure(cookie: HeaderValue) -> HeaderValue {
    let has = cookie.to_str().is_ok_and(|c| {
        c.split(';')
            .any(|a| a.trim().eq_ignore_ascii_case("secure"))
    });
    if has {
        return cookie;
    }
    let mut bytes = cookie.as_bytes().to_vec();
    bytes.extend_from_slice(b"; Secure");
    HeaderValue::from_bytes(&bytes).unwrap_or(cookie)
}

/// The router's 405 as `method_not_allowed`, keeping its `Allow`.
fn method_not_allowed(method: &Method, res: Response) -> Response {
    let allow = res.headers().get(header::ALLOW).cloned();
    let list = allow
        .as_ref()
        .and_then(|a| a.to_str().ok())
        .unwrap_or("")
        .to_string();
    let mut out = ApiError::new(
        ErrorCode::MethodNotAllowed,
        format!("{method} is not allowed here (allowed: {list})"),
    )
    .into_response();
    if let Some(a) = allow {
        out.headers_mut().insert(header::ALLOW, a);
    }
    out
}

async fn page(uri: Uri, headers: HeaderMap) -> Response {
    assets::index(uri.path(), &headers)
}

/// `/g/{id}`: the page, or for a game that does not exist the not-found
/// page with status 404.
async fn game_page(
    State(state): State<AppState>,
    Path(id): Path<String>,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    match state.games().room(&id).await {
        Err(GameError::NoGame) => assets::not_found(&headers),
        // Another failure (the database) is the game page's to report.
        Err(_) => assets::index(uri.path(), &headers),
        Ok(_) => {
            let mut res = assets::index(uri.path(), &headers);
            // The page's first request is the game's state: the browser
            // may start it with the page's own code, a round trip sooner
            // on a slow connection. (The id is a valid one: only
            // [0-9a-z].)
            if let Ok(v) = HeaderValue::from_str(&format!(
                "</api/games/{id}>; rel=preload; as=fetch; crossorigin=anonymous"
            )) {
                res.headers_mut().insert(header::LINK, v);
            }
            res
        }
    }
}

async fn asset(Path(path): Path<String>, headers: HeaderMap) -> Response {
    assets::asset(&path, &headers)
}

async fn fallback(uri: Uri, headers: HeaderMap) -> Response {
    if uri.path().starts_with("/api/") || uri.path() == "/api" {
        ApiError::new(crate::error::ErrorCode::NotFound, "no such endpoint").into_response()
    } else {
        assets::not_found(&headers)
    }
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

/// The caller's session (new: its cookie is set on `res`) and player.
async fn lobby_player(
    state: &AppState,
    headers: &HeaderMap,
) -> Result<((String, bool), crate::store::StoredPlayer), ApiError> {
    let session = session_or_new(state, headers).await?;
    let me = state.players().player_of(&session.0).await?;
    Ok((session, me))
}

fn with_session(mut res: Response, (session, new): &(String, bool)) -> Response {
    if *new {
        res.headers_mut()
            .insert(header::SET_COOKIE, session_cookie(session));
    }
    res
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
async fn player_page(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(state.games().ratings().page(&name).await?).into_response())
}

/// `GET /api/leaderboard/{pace}`: the best ratings of a pace.
async fn leaderboard(
    State(state): State<AppState>,
    Path(pace): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(state.games().ratings().leaderboard(&pace).await?).into_response())
}

/// `GET /api/lobby`: open challenges and games being played.
async fn lobby_view(State(state): State<AppState>) -> Result<Response, ApiError> {
    Ok(Json(state.lobby().view().await?).into_response())
}

/// `POST /api/lobby/seek`: quick pairing; `200` paired, `202` waiting.
async fn lobby_seek(
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
async fn lobby_post(
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
async fn lobby_accept(
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
async fn lobby_outcome(
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
async fn lobby_cancel(
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

/// `GET /api/lobby/ws`: the lobby socket (a browser session: open the
/// home page first, which gives one).
async fn lobby_socket(
    State(state): State<AppState>,
    headers: HeaderMap,
    addr: Option<Extension<ClientIp>>,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    let upgrade = match upgrade {
        Ok(u) => u,
        Err(e) => return Ok(e.into_response()),
    };
    let Some(session) = session_of(&state, &headers).await? else {
        return Err(ApiError::forbidden(
            "the lobby needs a browser session: open the home page first (GET /api/me gives one)",
        ));
    };
    let me = state.players().player_of(&session).await?;
    let ip = addr.map(|Extension(ClientIp(a))| a);
    let slot = socket_slot(&state, ip)?;
    Ok(limited(upgrade)
        .on_upgrade(move |socket| crate::lobby_ws::session(state, session, me, ip, slot, socket)))
}

/// `POST /api/analysis/position`: a setup (rules, GPN, line) judged by the
/// rules library: the position it leads to with its legal actions, or the
/// error naming the field or the rule. Applying an action is sending the
/// line with it added.
async fn analysis_position(
    JsonBody(setup): JsonBody<crate::api::AnalysisSetup>,
) -> Result<Json<crate::api::AnalysisPosition>, ApiError> {
    let game = crate::domain::analysis::setup(&setup)?;
    Ok(Json(crate::domain::analysis::position_of(&game)))
}

/// `GET /api/analysis/ws`: the analysis socket (needs no session).
async fn analysis_socket(
    State(state): State<AppState>,
    addr: Option<Extension<ClientIp>>,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    let upgrade = match upgrade {
        Ok(u) => u,
        Err(e) => return Ok(e.into_response()),
    };
    let ip = client_ip(addr);
    let slot = socket_slot(&state, ip)?;
    Ok(limited(upgrade)
        .on_upgrade(move |socket| crate::analysis_ws::session(state, ip, slot, socket)))
}

/// The client's address (behind a trusted proxy, the one it forwards),
/// when known: the AI's cap per client counts against it.
fn client_ip(addr: Option<Extension<ClientIp>>) -> Option<IpAddr> {
    addr.map(|Extension(ClientIp(a))| a)
}

async fn create(
    State(state): State<AppState>,
    addr: Option<Extension<ClientIp>>,
    headers: HeaderMap,
    JsonBody(req): JsonBody<NewGame>,
) -> Result<Response, ApiError> {
    let mut spec = new_game_spec(req)?;
    let session = session_or_new(&state, &headers).await?;
    let me = state.players().player_of(&session.0).await?;
    spec.name = Some(me.name);
    spec.player = Some(me.id);
    let grant = state.games().create(spec, client_ip(addr)).await?;
    grant_response_in(&state, session, StatusCode::CREATED, grant).await
}

/// `GET /api/me`: the browser's display name (generated on the first
/// visit; the answer then sets the session cookie).
async fn me(State(state): State<AppState>, headers: HeaderMap) -> Result<Response, ApiError> {
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
async fn sign_up(
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
async fn log_in(
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
async fn log_out(State(state): State<AppState>, headers: HeaderMap) -> Result<Response, ApiError> {
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
async fn change_password(
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

/// `POST /api/me/name`: the browser's new display name, checked.
async fn rename(
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

async fn game(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let token = token(&state, &headers, &id).await;
    let view = state.games().view(&id, token.as_deref()).await?;
    Ok(Json(view).into_response())
}

/// `GET /api/solver`: the rule sets the perfect player plays here.
async fn solver(State(state): State<AppState>) -> Response {
    Json(crate::api::Solver {
        perfect: state
            .games()
            .perfect_rules()
            .into_iter()
            .map(String::from)
            .collect(),
    })
    .into_response()
}

/// `GET /api/lessons`: the lessons of the guided first game.
async fn lessons() -> Response {
    let lessons = gore_learn::lessons::all().iter().map(Into::into).collect();
    Json(crate::api::LessonList { lessons }).into_response()
}

/// `POST /api/lessons/{id}/check`: the learner's actions, judged by the
/// rules library (gore-learn); an illegal one is `illegal_action` naming
/// its index and the rule.
async fn check_lesson(
    Path(id): Path<String>,
    body: Result<JsonBody<crate::api::LessonActions>, ApiError>,
) -> Result<Response, ApiError> {
    use gore_learn::lessons::{check, find, Outcome};
    let lesson = find(&id).ok_or_else(|| ApiError::new(ErrorCode::NotFound, "no such lesson"))?;
    let JsonBody(body) = body?;
    let too_many = |n: usize| {
        ApiError::bad_request(format!(
            "actions: this lesson is decided after {n} action(s); send at most {n}"
        ))
    };
    if body.actions.len() > lesson.goal.moves() {
        return Err(too_many(lesson.goal.moves()));
    }
    let actions = body
        .actions
        .iter()
        .enumerate()
        .map(|(i, a)| {
            a.parse::<gore_core::Action>()
                .map_err(|e| ApiError::bad_request(format!("actions[{i}]: `{a}`: {e}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let answer = match check(lesson, &actions) {
        Outcome::Met(step) => crate::api::LessonCheck::new("met", &step, None),
        Outcome::Continue(step) => crate::api::LessonCheck::new("continue", &step, None),
        Outcome::Missed(step, miss) => crate::api::LessonCheck::new("missed", &step, Some(miss)),
        Outcome::Illegal {
            index,
            action,
            rule,
        } => {
            return Err(ApiError::new(
                ErrorCode::IllegalAction,
                format!("actions[{index}]: `{action}`: {rule}"),
            ))
        }
        Outcome::TooMany { decided } => return Err(too_many(decided)),
    };
    Ok(Json(answer).into_response())
}

async fn play(
    State(state): State<AppState>,
    Path(id): Path<String>,
    addr: Option<Extension<ClientIp>>,
    headers: HeaderMap,
    body: Result<JsonBody<PlayBody>, ApiError>,
) -> Result<Response, ApiError> {
    // An unknown game is 404 whatever the body.
    state.games().room(&id).await?;
    let JsonBody(body) = body?;
    let token = token(&state, &headers, &id).await;
    let view = state
        .games()
        .play(&id, token, body.action, body.ply, client_ip(addr))
        .await?;
    Ok(Json(view).into_response())
}

/// `POST /api/games/{id}/join`: the friend claims the invitation.
async fn join(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<ClaimBody>,
) -> Result<Response, ApiError> {
    // The creator opening his own link keeps his seat: the link is for
    // the friend.
    if let Some(t) = token(&state, &headers, &id).await {
        if state.games().seat_of(&id, &t).await?.is_some() {
            return Err(ApiError::forbidden(
                "this is your own invitation: you already hold a seat in this game; \
                 send the link to your friend",
            ));
        }
    }
    let session = session_or_new(&state, &headers).await?;
    let me = state.players().player_of(&session.0).await?;
    let grant = state
        .games()
        .claim_invite(&id, &body.code, Some((me.name, me.id)))
        .await?;
    grant_response_in(&state, session, StatusCode::OK, grant).await
}

/// `POST /api/games/{id}/continue`: a player opens his seat on this device.
async fn continue_here(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<ClaimBody>,
) -> Result<Response, ApiError> {
    let grant = state.games().claim_device(&id, &body.code).await?;
    grant_response(&state, &headers, StatusCode::OK, grant).await
}

async fn device_link(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let token = token(&state, &headers, &id).await;
    let code = state.games().device_code(&id, token).await?;
    let link = DeviceLink {
        url: format!("/continue/{id}/{code}"),
    };
    Ok((StatusCode::CREATED, Json(link)).into_response())
}

async fn revoke_device(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let token = token(&state, &headers, &id).await;
    state.games().revoke_device(&id, token).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

async fn rematch(
    State(state): State<AppState>,
    Path(id): Path<String>,
    addr: Option<Extension<ClientIp>>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let token = token(&state, &headers, &id).await;
    let grant = state.games().rematch(&id, token, client_ip(addr)).await?;
    grant_response(&state, &headers, StatusCode::CREATED, grant).await
}

/// `POST /api/games/{id}/resign`: the caller's player resigns.
async fn resign(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let token = token(&state, &headers, &id).await;
    let view = state.games().resign(&id, token).await?;
    Ok(Json(view).into_response())
}

/// `POST /api/games/{id}/abort`: the caller aborts the game (before each
/// player has made an action).
async fn abort(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let token = token(&state, &headers, &id).await;
    let view = state.games().abort(&id, token).await?;
    Ok(Json(view).into_response())
}

/// `POST /api/games/{id}/claim`: the caller claims the win (his opponent
/// left).
async fn claim_win(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let token = token(&state, &headers, &id).await;
    Ok(Json(state.games().claim_win(&id, token).await?).into_response())
}

/// `POST /api/games/{id}/chat`: a seated player's message.
async fn chat(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<crate::api::ChatBody>,
) -> Result<Response, ApiError> {
    let token = token(&state, &headers, &id).await;
    let line = state.games().chat(&id, token, &body.text).await?;
    Ok((StatusCode::CREATED, Json(line)).into_response())
}

/// `POST /api/games/{id}/chat/{n}/report`: reports a message.
async fn report_chat(
    State(state): State<AppState>,
    Path((id, n)): Path<(String, u32)>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let token = token(&state, &headers, &id).await;
    state.games().report_chat(&id, token, n).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// `POST /api/games/{id}/takeback`: at once (ai, local) or a request
/// (friend).
async fn takeback(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let token = token(&state, &headers, &id).await;
    let view = state.games().takeback(&id, token).await?;
    Ok(Json(view).into_response())
}

/// `POST /api/games/{id}/takeback/answer`: the opponent grants or
/// declines a takeback request.
async fn answer_takeback(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Result<JsonBody<AnswerBody>, ApiError>,
) -> Result<Response, ApiError> {
    state.games().room(&id).await?;
    let JsonBody(body) = body?;
    let token = token(&state, &headers, &id).await;
    let view = state
        .games()
        .answer_takeback(&id, token, body.accept)
        .await?;
    Ok(Json(view).into_response())
}

async fn record(
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

/// The analysis pool's key of a client: its address, or one key for
/// clients whose address is unknown.
fn analysis_client(addr: Option<Extension<ClientIp>>) -> crate::ai::ClientKey {
    match addr {
        Some(Extension(ClientIp(ip))) => crate::ai::ClientKey::ip(ip),
        None => crate::ai::ClientKey::named("unknown"),
    }
}

async fn game_review(
    State(state): State<AppState>,
    Path(id): Path<String>,
    addr: Option<Extension<ClientIp>>,
) -> Result<Response, ApiError> {
    let text = state.games().record(&id).await?;
    let r = state
        .reviews()
        .of_game(
            &id,
            &text,
            state.analysis_pool(),
            state.solved(),
            analysis_client(addr),
        )
        .await?;
    Ok(Json(crate::api::ReviewView::from(&*r)).into_response())
}

/// `GET /api/games/{id}/review/status`: where the game's review is (a
/// waiting request is told its place in the analysis pool's queue).
async fn game_review_status(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Json<crate::api::ReviewStatus> {
    Json(state.reviews().state(&id, state.analysis_pool()).into())
}

/// `GET /api/review/status`: where the caller's review of an uploaded
/// record is.
async fn upload_review_status(
    State(state): State<AppState>,
    addr: Option<Extension<ClientIp>>,
) -> Json<crate::api::ReviewStatus> {
    let client = analysis_client(addr);
    Json(crate::domain::review::upload_state(state.analysis_pool(), &client).into())
}

async fn upload_review(
    State(state): State<AppState>,
    addr: Option<Extension<ClientIp>>,
    body: Result<JsonBody<crate::api::ReviewUpload>, ApiError>,
) -> Result<Response, ApiError> {
    let JsonBody(body) = body?;
    let r = crate::domain::review::of_upload(
        &body.record,
        state.analysis_pool(),
        state.solved(),
        analysis_client(addr),
    )
    .await?;
    Ok(Json(crate::api::ReviewView::from(&*r)).into_response())
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
    addr: Option<Extension<ClientIp>>,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    let room = state.games().room(&id).await?;
    let upgrade = match upgrade {
        Ok(u) => u,
        Err(e) => return Ok(e.into_response()),
    };
    let (token, session) = match query.ok().and_then(|Query(q)| q.token) {
        Some(t) => (Some(t), None),
        None => token_and_session(&state, &headers, &id).await,
    };
    let ip = addr.map(|Extension(ClientIp(a))| a);
    // Counted and subscribed under one lock: a rush of sockets cannot all
    // pass the count before any of them subscribes. Only spectators are
    // counted: a player's socket is always let in (his address's cap
    // bounds it), so a crowd can never lock him out of his game.
    let (updates, watching) = {
        let r = room.lock().await;
        let seated = token.as_deref().and_then(|t| r.seat_of(t)).is_some();
        let watching = if seated {
            None
        } else {
            Some(
                r.spectator_slot(state.config().max_sockets_per_game)
                    .ok_or_else(|| {
                        ApiError::busy(
                            "this game has as many spectators as it can take; try again later",
                        )
                    })?,
            )
        };
        (r.subscribe(), watching)
    };
    let slot = socket_slot(&state, ip)?;
    Ok(limited(upgrade).on_upgrade(move |socket| {
        let held = ws::Held { token, session };
        ws::session(state, id, room, held, ip, slot, watching, updates, socket)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize, PartialEq)]
    struct Body {
        action: String,
        ply: Option<u64>,
    }

    fn message(r: Result<Body, ApiError>) -> String {
        let e = r.expect_err("accepted");
        assert_eq!(e.code, ErrorCode::BadRequest);
        e.message
    }

    #[test]
    fn one_object_and_nothing_after() {
        let ok: Body = parse_json(b" \n{\"action\":\"a1\",\"ply\":0}\r\n ").unwrap();
        assert_eq!(
            ok,
            Body {
                action: "a1".into(),
                ply: Some(0)
            }
        );
        let m = message(parse_json(br#"{"action":"a1","ply":0} trailing {{{"#));
        assert!(m.contains("trailing"), "{m}");
        let m = message(parse_json(br#"{"action":"a1","ply":0}{"action":"a2"}"#));
        assert!(m.contains("trailing"), "{m}");
        for not_object in [
            &br#"["a1",0]"#[..],
            b"\"a1\"",
            b"7",
            b"null",
            b"",
            b"  ",
            b"\xef\xbb\xbf{}",
        ] {
            let m = message(parse_json(not_object));
            assert!(m.contains("JSON object"), "{not_object:?}: {m}");
        }
        // A field is still named.
        let m = message(parse_json(br#"{"action": 5}"#));
        assert!(m.starts_with("action:"), "{m}");
    }

    #[test]
    fn secure_is_added_once() {
        let c = with_secure(HeaderValue::from_static("gore_x=1; Path=/; HttpOnly"));
        assert_eq!(c, "gore_x=1; Path=/; HttpOnly; Secure");
        assert_eq!(with_secure(c.clone()), c);
    }
}

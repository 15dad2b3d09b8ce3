//! The Bot API's routes (docs/API.md, "Bots"): personal tokens (made,
//! listed and revoked with the session cookie only), the upgrade to a BOT,
//! challenges to a named player, the event and game streams (NDJSON), and
//! acting in a game, all through the same domain as the browser's.

use std::convert::Infallible;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use gore_core::{Player, Rules};
use tokio::sync::mpsc;

use crate::api;
use crate::domain::storage::StoredPlayer;
use crate::domain::{GameError, Said};
use crate::error::ApiError;
use crate::extract::{bot_caller as caller, client_ip, parse_clock, session_of, JsonBody};
use crate::net::ClientIp;
use crate::state::AppState;

/// A stream sends an empty line this often when it has nothing to say,
/// so that a client (and any proxy) sees the connection alive.
const KEEP_ALIVE: Duration = Duration::from_secs(5);
/// A stream whose client has not taken its lines for this long ends.
const UNREAD_LIFE: Duration = Duration::from_secs(30);
/// A stream that has said nothing but keep-alives for this long ends
/// (the clients connect again, as lichess's do when a stream ends): an
/// idle connection is not held for good.
const IDLE_LIFE: Duration = Duration::from_secs(3600);
/// The Bot API's game streams of one account open on one server at once
/// (each of its games'), and of one account on one game.
const GAME_STREAMS_PER_ACCOUNT: usize = 64;
/// See [`GAME_STREAMS_PER_ACCOUNT`].
const GAME_STREAMS_PER_GAME: usize = 2;

/// The `Authorization` header's value, to check a stream's token again.
fn authorization(headers: &HeaderMap) -> String {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string()
}

/// Whether a stream goes on: its token still stands (a revoked one ends
/// the stream at its next keep-alive; a store that cannot answer does
/// not) and the server is not draining (the client reconnects to another).
async fn stream_stands(state: &AppState, auth: &str) -> bool {
    !state.is_draining()
        && !matches!(
            state.bots().authenticate(Some(auth)).await,
            Err(GameError::BadToken(_))
        )
}

/// The caller by his token with the scope `bot:play`, else (no
/// `Authorization` header) by his browser session's account: people
/// answer challenges from the site too.
async fn player(state: &AppState, headers: &HeaderMap) -> Result<StoredPlayer, ApiError> {
    if headers.contains_key(header::AUTHORIZATION) {
        let c = caller(state, headers).await?;
        c.needs("bot:play")?;
        return Ok(c.player);
    }
    let me = match session_of(state, headers).await? {
        Some(s) => Some(state.players().player_of(&s).await?),
        None => None,
    };
    match me {
        // A BOT acts with its token only: its browser session plays nothing.
        Some(p) if p.account => {
            crate::domain::lobby::check_not_bot(&p)?;
            Ok(p)
        }
        _ => Err(GameError::NeedsAccount(Said::new(
            "challenge_needs_account",
            "challenges are between accounts: log in, or send an API token",
        ))
        .into()),
    }
}

/// The browser session's account, for the token routes (a token never
/// makes nor lists tokens).
async fn session_account(state: &AppState, headers: &HeaderMap) -> Result<StoredPlayer, ApiError> {
    let me = match session_of(state, headers).await? {
        Some(s) => Some(state.players().player_of(&s).await?),
        None => None,
    };
    match me {
        Some(p) if p.account => Ok(p),
        _ => Err(GameError::NeedsAccount(Said::new(
            "token_needs_account",
            "API tokens are made by a logged-in account, from its browser session",
        ))
        .into()),
    }
}

/// `POST /api/account/tokens`: a new token, shown this once.
pub(crate) async fn create_token(
    State(state): State<AppState>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<api::TokenBody>,
) -> Result<Response, ApiError> {
    let me = session_account(&state, &headers).await?;
    let made = state
        .bots()
        .create_token(&me, &body.description, &body.scopes)
        .await?;
    let mut view = api::TokenView::from(&made.stored);
    view.token = Some(made.token);
    Ok((StatusCode::CREATED, Json(view)).into_response())
}

/// `GET /api/account/tokens`: the account's tokens (not the tokens).
pub(crate) async fn list_tokens(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let me = session_account(&state, &headers).await?;
    let tokens = state.bots().tokens(&me).await?;
    Ok(Json(api::TokenList {
        tokens: tokens.iter().map(api::TokenView::from).collect(),
    })
    .into_response())
}

/// `DELETE /api/account/tokens/{id}`: revokes it.
pub(crate) async fn revoke_token(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let me = session_account(&state, &headers).await?;
    state.bots().revoke(&me, &id).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// `GET /api/account` with a token: the account it acts for.
pub(crate) async fn account(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let c = caller(&state, &headers).await?;
    Ok(Json(api::Account {
        id: c.player.id,
        username: c.player.name,
        bot: c.player.bot,
        scopes: c.scopes,
    })
    .into_response())
}

/// `POST /api/bot/account/upgrade`: the token's account becomes a BOT.
pub(crate) async fn upgrade(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let c = caller(&state, &headers).await?;
    state.bots().upgrade(&c).await?;
    Ok(Json(api::Done::OK).into_response())
}

/// A body that may be absent (empty: every field's default), else one
/// JSON object as every body (lichess's bots often send none).
fn optional_body<T: serde::de::DeserializeOwned + Default>(bytes: &[u8]) -> Result<T, ApiError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    api::parse_json(bytes)
}

/// `POST /api/challenge/{username}`: challenges that player.
pub(crate) async fn challenge(
    State(state): State<AppState>,
    Path(name): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let body: api::BotChallengeBody = optional_body(&body)?;
    let me = player(&state, &headers).await?;
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
    let clock = parse_clock(body.clock.as_deref())?;
    let c = state
        .bots()
        .challenge(&me, &name, rules, clock, colour, body.rated)
        .await?;
    Ok((
        StatusCode::CREATED,
        Json(api::ChallengeAnswer {
            challenge: (&c).into(),
        }),
    )
        .into_response())
}

/// The longest a `GET /api/challenge/{id}?wait=…` waits for an answer.
const WAIT_MAX: Duration = Duration::from_secs(25);

/// `GET /api/challenge/{id}` (its challenger or the challenged, by token
/// or session): `{"challenge": …}`; with `?wait=S` (seconds, 25 at most)
/// the answer waits until the challenge is no longer open or S seconds
/// have passed, so that a page hears of the answer without a stream.
pub(crate) async fn challenge_state(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    query: Result<
        axum::extract::Query<std::collections::HashMap<String, String>>,
        axum::extract::rejection::QueryRejection,
    >,
) -> Result<Response, ApiError> {
    let me = player(&state, &headers).await?;
    let q = query.map(|q| q.0).unwrap_or_default();
    let wait = match q.get("wait") {
        None => 0,
        Some(w) => w.parse::<u64>().map_err(|_| {
            ApiError::from(GameError::BadField {
                field: "wait",
                why: format!("`{w}` is not a number of seconds"),
            })
        })?,
    };
    let until = tokio::time::Instant::now() + Duration::from_secs(wait).min(WAIT_MAX);
    let bots = state.bots();
    // Subscribed before the first read: no answer falls between.
    let mut bell = bots.bell(&me);
    loop {
        let c = bots.challenge_of(&me, &id).await?;
        if c.status != "created" || tokio::time::Instant::now() >= until || state.is_draining() {
            return Ok(Json(api::ChallengeAnswer {
                challenge: (&c).into(),
            })
            .into_response());
        }
        tokio::select! {
            () = bell.rung() => {}
            // Another server's answer whose notice was lost.
            () = tokio::time::sleep(crate::domain::bots::POLL_EVERY) => {}
            () = tokio::time::sleep_until(until) => {}
        }
    }
}

/// `POST /api/challenge/{id}/accept`: the game.
pub(crate) async fn accept(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let me = player(&state, &headers).await?;
    let game = state.bots().accept(&me, &id).await?;
    Ok(Json(api::Accepted {
        ok: true,
        url: format!("/g/{game}"),
        game,
    })
    .into_response())
}

/// `POST /api/challenge/{id}/decline`, with an optional reason.
pub(crate) async fn decline(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let body: api::DeclineBody = optional_body(&body)?;
    let me = player(&state, &headers).await?;
    state
        .bots()
        .decline(&me, &id, body.reason.as_deref())
        .await?;
    Ok(Json(api::Done::OK).into_response())
}

/// `POST /api/challenge/{id}/cancel`.
pub(crate) async fn cancel(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let me = player(&state, &headers).await?;
    state.bots().cancel(&me, &id).await?;
    Ok(Json(api::Done::OK).into_response())
}

/// An NDJSON answer whose lines `fill` sends (it stops when the client
/// goes: its next send fails).
fn ndjson<F, Fut>(fill: F) -> Response
where
    F: FnOnce(Lines) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let (tx, rx) = mpsc::channel::<Bytes>(16);
    tokio::spawn(fill(Lines(tx)));
    let lines = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|b| (Ok::<_, Infallible>(b), rx))
    });
    let mut res = Body::from_stream(lines).into_response();
    res.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/x-ndjson"),
    );
    res
}

/// Where a stream's lines go.
struct Lines(mpsc::Sender<Bytes>);

impl Lines {
    /// Sends a line; `false` when the stream is over: the client went, or
    /// it has read nothing of the last lines for [`UNREAD_LIFE`] (a client
    /// that never reads holds no connection for good).
    async fn send(&self, b: Bytes) -> bool {
        matches!(
            tokio::time::timeout(UNREAD_LIFE, self.0.send(b)).await,
            Ok(Ok(()))
        )
    }

    /// Resolves when the client has gone.
    async fn closed(&self) {
        self.0.closed().await
    }
}

use crate::game_lines::line;

/// `GET /api/stream/event`: the account's events, one JSON object a line
/// (`challenge`, `challengeCanceled`, `challengeDeclined`, `gameStart`,
/// `gameFinish`), read from the store (so from every server's doings) once
/// for all the account's streams, and an empty line every few seconds.
/// Counted as a socket of its address; at most
/// [`crate::domain::bots::API_STREAMS_PER_ACCOUNT`] an account.
pub(crate) async fn event_stream(
    State(state): State<AppState>,
    addr: Option<Extension<ClientIp>>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let c = caller(&state, &headers).await?;
    if c.needs("bot:play").is_err() {
        c.needs("read")?;
    }
    let slot = crate::socket::socket_slot(&state, client_ip(addr))?;
    let bots = state.bots().clone();
    let auth = authorization(&headers);
    let me = c.player;
    // The first read before the answer: a store that fails is an error,
    // not an empty stream.
    let mut follow = bots.follow(&me, true).await?;
    bots.streaming(&me).await?;
    Ok(ndjson(move |tx| async move {
        let _slot = slot;
        for e in &follow.first() {
            if !tx.send(line(&api::BotEvent::of(e, &me.id))).await {
                return;
            }
        }
        let mut said = tokio::time::Instant::now();
        loop {
            tokio::select! {
                events = follow.next() => match events {
                    Ok(events) => {
                        for e in &events {
                            if !tx.send(line(&api::BotEvent::of(e, &me.id))).await {
                                return;
                            }
                        }
                        said = tokio::time::Instant::now();
                    }
                    Err(e) => tracing::warn!("event stream of {}: {e}", me.id),
                },
                () = tokio::time::sleep(KEEP_ALIVE) => {
                    if said.elapsed() >= IDLE_LIFE
                        || !stream_stands(&state, &auth).await
                        || !tx.send(Bytes::from_static(b"\n")).await
                    {
                        return;
                    }
                }
                () = tx.closed() => return,
            }
        }
    }))
}

/// `GET /api/bot/game/stream/{id}`: `gameFull`, then a `gameState` at
/// each change of the game (here or, through the store's notices, on
/// another server), until it is over; empty lines between.
pub(crate) async fn game_stream(
    State(state): State<AppState>,
    addr: Option<Extension<ClientIp>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let c = caller(&state, &headers).await?;
    c.needs("bot:play")?;
    let token = state.bots().seat(&c.player, &id).await?;
    let me = c.player;
    let busy = || {
        ApiError::busy(format!(
            "{GAME_STREAMS_PER_GAME} streams of a game and {GAME_STREAMS_PER_ACCOUNT} in all \
             at most for an account: close one first"
        ))
    };
    let slots = (
        state
            .game_streams()
            .take(me.id.clone(), GAME_STREAMS_PER_ACCOUNT)
            .ok_or_else(busy)?,
        state
            .game_streams()
            .take(format!("{} {id}", me.id), GAME_STREAMS_PER_GAME)
            .ok_or_else(busy)?,
        crate::socket::socket_slot(&state, client_ip(addr))?,
    );
    let games = state.games().clone();
    let auth = authorization(&headers);
    // The game's state and its changes, read and encoded once for all its
    // streams here (src/game_lines.rs); this stream's seat signs its life.
    let seat = games.seat_of(&id, &token).await?;
    let mut latest = state.game_lines().follow(&games, &id).await?;
    let first = latest.borrow_and_update().clone();
    let full = line(&api::GameFull {
        you: seat,
        ..first.full.clone()
    });
    let mut over = first.over;
    drop(first);
    Ok(ndjson(move |tx| async move {
        let _slots = slots;
        if let Some(seat) = seat {
            games.sign_of_life(&id, seat).await;
        }
        if !tx.send(full).await {
            return;
        }
        let mut said = tokio::time::Instant::now();
        while !over {
            tokio::select! {
                r = latest.changed() => if r.is_err() {
                    // The reader ended (the room went): follow anew.
                    match state.game_lines().follow(&games, &id).await {
                        Ok(l) => latest = l,
                        Err(_) => return,
                    }
                },
                () = tokio::time::sleep(KEEP_ALIVE) => {
                    if said.elapsed() >= IDLE_LIFE
                        || !stream_stands(&state, &auth).await
                        || !tx.send(Bytes::from_static(b"\n")).await
                    {
                        return;
                    }
                    continue;
                }
                () = tx.closed() => return,
            }
            let now = latest.borrow_and_update().clone();
            if let Some(seat) = seat {
                games.sign_of_life(&id, seat).await;
            }
            if !tx.send(now.line.clone()).await {
                return;
            }
            said = tokio::time::Instant::now();
            over = now.over;
        }
    }))
}

//! The lobby socket: the lobby's state as it changes, the player's own
//! pairings, and his seeks, challenges and acceptances. A thin edge over
//! [`crate::domain::lobby::Lobby`]: the same operations as the lobby's
//! HTTP routes.

use std::net::IpAddr;
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use futures_util::{SinkExt, StreamExt};
use tokio::sync::broadcast::error::RecvError;

use crate::api::{parse_json, LobbyClientMsg, LobbyMsg, LobbyServerMsg};
use crate::domain::lobby::{LobbyEvent, Seek};
use crate::error::ApiError;
use crate::state::{AppState, SocketSlot};
use crate::store::StoredPlayer;
use crate::ws::MESSAGE_LIMIT;

/// Bad or rate-limited messages before the socket is closed.
const ABUSE_LIMIT: u32 = 5;
/// The server pings this often at most.
const PING_EVERY: Duration = Duration::from_secs(30);

fn text<T: serde::Serialize>(msg: &T) -> Message {
    Message::Text(serde_json::to_string(msg).unwrap_or_default().into())
}

/// Serves one lobby socket of `session` (player `me`) until it closes.
pub async fn session(
    state: AppState,
    session: String,
    me: StoredPlayer,
    ip: Option<IpAddr>,
    slot: Option<SocketSlot>,
    socket: WebSocket,
) {
    let _slot = slot;
    let lobby = state.lobby().clone();
    let mut events = lobby.subscribe();
    lobby.enter(&session, ip);
    let (mut tx, mut rx) = socket.split();
    let idle = state
        .config()
        .ws_idle_timeout
        .max(Duration::from_millis(10));
    let hello = text(&LobbyServerMsg::Hello {
        you: me.id.clone(),
        name: me.name.clone(),
    });
    let first = match lobby.view().await {
        Ok(v) => Some(text(&LobbyMsg::Lobby(v))),
        Err(_) => None,
    };
    let mut ok = send_within(&mut tx, idle, hello).await;
    if let (true, Some(first)) = (ok, first) {
        ok = send_within(&mut tx, idle, first).await;
    }
    let mut abuse = 0u32;
    // The games this socket was told of (its own answer and the broadcast
    // both tell the one who made the pair): each once.
    let mut told: std::collections::HashSet<String> = Default::default();
    let mut ping = tokio::time::interval(PING_EVERY.min(idle / 2));
    ping.tick().await;
    let silence = tokio::time::sleep(idle);
    tokio::pin!(silence);
    // Pongs prove a client is there, not that it uses the socket: one that
    // sends no message for this long is closed (its descriptor freed).
    let quiet_for = crate::ws::silence_timeout(&state);
    let quiet = tokio::time::sleep(quiet_for);
    tokio::pin!(quiet);
    while ok {
        let outgoing: Vec<Message> = tokio::select! {
            ev = events.recv() => match ev {
                Ok(LobbyEvent::Snapshot(s)) => vec![Message::Text(s.text(crate::api::lobby_text).as_ref().into())],
                Ok(LobbyEvent::Paired { game, players }) if players.contains(&me.id) => {
                    if told.insert(game.clone()) {
                        vec![text(&LobbyServerMsg::Paired { url: format!("/g/{game}"), game })]
                    } else {
                        Vec::new()
                    }
                }
                Ok(LobbyEvent::Paired { .. }) => Vec::new(),
                Err(RecvError::Lagged(_)) => match lobby.view().await {
                    Ok(v) => vec![text(&LobbyMsg::Lobby(v))],
                    Err(_) => Vec::new(),
                },
                Err(RecvError::Closed) => break,
            },
            () = &mut quiet => {
                crate::ws::close_silent(&mut tx).await;
                break;
            }
            () = &mut silence => {
                let _ = tokio::time::timeout(Duration::from_secs(1), tx.send(Message::Close(Some(
                    CloseFrame { code: 1001, reason: "idle".into() },
                ))))
                .await;
                break;
            }
            incoming = rx.next() => {
                silence.as_mut().reset(tokio::time::Instant::now() + idle);
                if matches!(incoming, Some(Ok(Message::Text(_)))) {
                    quiet.as_mut().reset(tokio::time::Instant::now() + quiet_for);
                }
                match incoming {
                    None | Some(Err(_)) | Some(Ok(Message::Close(_))) => break,
                    Some(Ok(Message::Text(_))) if !state.players().is_session(&session).await.unwrap_or(true) => {
                        // The session ended (a new password from this very
                        // page): closed, so that the page reconnects with
                        // the session it has now instead of seeking under
                        // one nobody holds.
                        let close = tx.send(Message::Close(Some(CloseFrame {
                            code: 1008,
                            reason: "your session ended: reconnect".into(),
                        })));
                        let _ = tokio::time::timeout(Duration::from_secs(1), close).await;
                        break;
                    }
                    Some(Ok(Message::Text(t))) => match handle(&state, &session, &me, ip, t.as_str()).await {
                        Ok(Some((m, Some(game)))) => {
                            if told.insert(game) { vec![m] } else { Vec::new() }
                        }
                        Ok(m) => m.into_iter().map(|(m, _)| m).collect(),
                        Err((e, bad)) => {
                            abuse += u32::from(bad);
                            vec![text(&LobbyServerMsg::Error { error: e })]
                        }
                    },
                    Some(Ok(Message::Binary(_))) => {
                        abuse += 1;
                        vec![text(&LobbyServerMsg::Error {
                            error: ApiError::bad_request("message: send JSON text, not binary"),
                        })]
                    }
                    Some(Ok(_)) => {
                        if ip.is_some_and(|ip| !state.limiter().allow(ip)) {
                            abuse += 1;
                        }
                        Vec::new()
                    }
                }
            }
            _ = ping.tick() => vec![Message::Ping(Default::default())],
        };
        for m in outgoing {
            if !send_within(&mut tx, idle, m).await {
                ok = false;
                break;
            }
        }
        if abuse >= ABUSE_LIMIT {
            let close = tx.send(Message::Close(Some(CloseFrame {
                code: 1008,
                reason: "too many bad or rate-limited messages".into(),
            })));
            let _ = tokio::time::timeout(Duration::from_secs(1), close).await;
            break;
        }
    }
    // He left the lobby: his seeks and challenges go with him.
    lobby.leave(&session).await;
}

async fn send_within(
    tx: &mut futures_util::stream::SplitSink<WebSocket, Message>,
    idle: Duration,
    m: Message,
) -> bool {
    matches!(tokio::time::timeout(idle, tx.send(m)).await, Ok(Ok(())))
}

/// One message: what to answer (and the game, when it tells of a
/// pairing), or an error (and whether it is abuse).
async fn handle(
    state: &AppState,
    session: &str,
    me: &StoredPlayer,
    ip: Option<IpAddr>,
    text_in: &str,
) -> Result<Option<(Message, Option<String>)>, (ApiError, bool)> {
    if text_in.len() > MESSAGE_LIMIT {
        return Err((ApiError::too_large("the message", MESSAGE_LIMIT), true));
    }
    if let Some(ip) = ip {
        if !state.limiter().allow(ip) {
            return Err((ApiError::rate_limited(), true));
        }
    }
    let msg: LobbyClientMsg = parse_json(text_in.as_bytes()).map_err(|e| (e, true))?;
    let refused = |e: crate::domain::GameError| (ApiError::from(e), false);
    let lobby = state.lobby();
    match msg {
        LobbyClientMsg::Seek { clock, rated } => {
            let clock = crate::http::parse_clock(Some(&clock))
                .map_err(|e| (e, true))?
                .ok_or_else(|| {
                    (
                        ApiError::bad_request("clock: quick pairing needs a clock"),
                        true,
                    )
                })?;
            Ok(Some(
                match lobby
                    .seek(session, ip, me, clock, rated)
                    .await
                    .map_err(refused)?
                {
                    Seek::Paired(game) => paired(game),
                    Seek::Waiting(id) => (text(&LobbyServerMsg::Waiting { id }), None),
                },
            ))
        }
        LobbyClientMsg::Challenge {
            rules,
            clock,
            colour,
            rated,
        } => {
            let body = crate::api::ChallengeBody {
                rules,
                clock,
                colour,
                rated,
            };
            let new = crate::http::challenge_terms(body).map_err(|e| (e, true))?;
            let id = lobby.post(session, ip, me, new).await.map_err(refused)?;
            Ok(Some((text(&LobbyServerMsg::Waiting { id }), None)))
        }
        LobbyClientMsg::Accept { id } => {
            let game = lobby.accept(session, me, &id).await.map_err(refused)?;
            Ok(Some(paired(game)))
        }
        LobbyClientMsg::Cancel {} => {
            lobby.cancel(session, None).await.map_err(refused)?;
            Ok(Some((text(&LobbyServerMsg::Cancelled), None)))
        }
        LobbyClientMsg::Ping {} => Ok(Some((text(&LobbyServerMsg::Pong), None))),
    }
}

fn paired(game: String) -> (Message, Option<String>) {
    let m = text(&LobbyServerMsg::Paired {
        url: format!("/g/{game}"),
        game: game.clone(),
    });
    (m, Some(game))
}

//! The game socket: every state as it changes, actions from players,
//! errors to their sender only.

use std::net::IpAddr;
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use futures_util::{SinkExt, StreamExt};
use tokio::sync::broadcast::error::RecvError;

use crate::api::{ClientMsg, ServerMsg};
use crate::domain::{RoomRef, Seat};
use crate::error::ApiError;
use crate::http::parse_json;
use crate::state::{AppState, SocketSlot};

/// The largest message a client may send.
pub const MESSAGE_LIMIT: usize = 4 * 1024;
/// Larger frames are not even read: the socket is dropped.
pub const HARD_LIMIT: usize = 64 * 1024;
/// Bad messages before the socket is closed.
const ABUSE_LIMIT: u32 = 5;

fn text(msg: &ServerMsg) -> Message {
    Message::Text(serde_json::to_string(msg).unwrap_or_default().into())
}

fn error_message(e: &ApiError) -> Message {
    text(&ServerMsg::Error { error: e.clone() })
}

/// The whole state for `seat`, and its ply.
async fn full_state(room: &RoomRef, seat: Option<Seat>) -> (Message, usize) {
    let view = room.lock().await.view(seat);
    let ply = view.head.ply;
    (
        text(&ServerMsg::State {
            state: Box::new(view),
        }),
        ply,
    )
}

/// Serves one socket until it closes: the whole state first, then each
/// change as an `update` (encoded once for every socket), or the whole
/// state again when this socket missed a change or asks for it.
pub async fn session(
    state: AppState,
    id: String,
    room: RoomRef,
    token: Option<String>,
    ip: Option<IpAddr>,
    slot: Option<SocketSlot>,
    socket: WebSocket,
) {
    let _slot = slot;
    let (seat, mut updates, first, mut ply) = {
        let r = room.lock().await;
        let seat = token.as_deref().and_then(|t| r.seat_of(t));
        let view = r.view(seat);
        let ply = view.head.ply;
        (
            seat,
            r.subscribe(),
            text(&ServerMsg::State {
                state: Box::new(view),
            }),
            ply,
        )
    };
    // Only a seat's token is worth keeping.
    let token = token.filter(|_| seat.is_some());
    let (mut tx, mut rx) = socket.split();
    if tx.send(first).await.is_err() {
        return;
    }
    let mut abuse = 0u32;
    let mut ping = tokio::time::interval(Duration::from_secs(30));
    ping.tick().await;
    loop {
        let outgoing: Option<Message> = tokio::select! {
            update = updates.recv() => match update {
                Ok(change) if change.since == ply => {
                    ply = change.ply;
                    Some(Message::Text(change.text_for(seat).as_ref().into()))
                }
                Ok(_) | Err(RecvError::Lagged(_)) => {
                    // A change missed: the whole state again.
                    let (m, p) = full_state(&room, seat).await;
                    ply = p;
                    Some(m)
                }
                Err(RecvError::Closed) => {
                    // The game was reloaded: the client reconnects.
                    let _ = tx.send(Message::Close(Some(CloseFrame {
                        code: 1012,
                        reason: "reload".into(),
                    }))).await;
                    break;
                }
            },
            incoming = rx.next() => match incoming {
                None | Some(Err(_)) | Some(Ok(Message::Close(_))) => break,
                Some(Ok(Message::Text(t))) => {
                    match handle(&state, &id, token.clone(), ip, t.as_str()).await {
                        Ok(Reply::None) => None,
                        Ok(Reply::Pong) => Some(text(&ServerMsg::Pong)),
                        Ok(Reply::Resync) => {
                            let (m, p) = full_state(&room, seat).await;
                            ply = p;
                            Some(m)
                        }
                        Err((e, bad)) => {
                            abuse += u32::from(bad);
                            Some(error_message(&e))
                        }
                    }
                }
                Some(Ok(Message::Binary(b))) => {
                    abuse += 1;
                    Some(error_message(&if b.len() > MESSAGE_LIMIT {
                        ApiError::too_large("the message", MESSAGE_LIMIT)
                    } else {
                        ApiError::bad_request("message: send JSON text, not binary")
                    }))
                }
                Some(Ok(_)) => None, // ping, pong
            },
            _ = ping.tick() => Some(Message::Ping(Default::default())),
        };
        if let Some(m) = outgoing {
            if tx.send(m).await.is_err() {
                break;
            }
        }
        if abuse >= ABUSE_LIMIT {
            let _ = tx
                .send(Message::Close(Some(CloseFrame {
                    code: 1008,
                    reason: "too many bad messages".into(),
                })))
                .await;
            break;
        }
    }
}

/// What a good message asks the socket to send back.
enum Reply {
    /// Nothing (an action: its update reaches every socket).
    None,
    /// A `pong`.
    Pong,
    /// The whole state.
    Resync,
}

/// One text message: what to answer, or an error (and whether it counts
/// as abuse).
async fn handle(
    state: &AppState,
    id: &str,
    token: Option<String>,
    ip: Option<IpAddr>,
    text: &str,
) -> Result<Reply, (ApiError, bool)> {
    if text.len() > MESSAGE_LIMIT {
        return Err((ApiError::too_large("the message", MESSAGE_LIMIT), true));
    }
    if let Some(ip) = ip {
        if !state.limiter().allow(ip) {
            return Err((ApiError::rate_limited(), false));
        }
    }
    let msg: ClientMsg = parse_json(text.as_bytes()).map_err(|e| (e, true))?;
    match msg {
        ClientMsg::Action { action, ply } => {
            state
                .games()
                .play(id, token, action, ply)
                .await
                .map_err(|e| (e.into(), false))?;
            Ok(Reply::None)
        }
        ClientMsg::Resync => Ok(Reply::Resync),
        ClientMsg::Ping => Ok(Reply::Pong),
    }
}

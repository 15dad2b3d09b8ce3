//! The game socket: every state as it changes, actions from players,
//! errors to their sender only.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::broadcast::error::RecvError;

use crate::error::ApiError;
use crate::http::parse_json;
use crate::room::{Seat, Snapshot};
use crate::state::{AppState, RoomRef};

/// The largest message a client may send.
pub const MESSAGE_LIMIT: usize = 4 * 1024;
/// Larger frames are not even read: the socket is dropped.
pub const HARD_LIMIT: usize = 64 * 1024;
/// Bad messages before the socket is closed.
const ABUSE_LIMIT: u32 = 5;
/// The socket's read buffer (a client's messages are 4 KiB at most).
pub const READ_BUFFER: usize = 4 * 1024;
/// Written at once beyond this (the states are sent whole).
pub const WRITE_BUFFER: usize = 4 * 1024;
/// A message waiting to be written, at most (a 2,000-ply state is a few
/// hundred KiB).
pub const MAX_WRITE_BUFFER: usize = 8 * 1024 * 1024;
/// The server pings this often at most (and at half the idle timeout).
const PING_EVERY: Duration = Duration::from_secs(30);

/// A client's message.
#[derive(Deserialize)]
struct Incoming {
    #[serde(rename = "type")]
    kind: String,
    action: Option<String>,
    ply: Option<u64>,
}

fn state_message(snapshot: &Snapshot, seat: Option<Seat>) -> Message {
    Message::Text(
        json!({"type": "state", "state": snapshot.view(seat)})
            .to_string()
            .into(),
    )
}

fn error_message(e: &ApiError) -> Message {
    let mut v: Value = e.body();
    v["type"] = "error".into();
    Message::Text(v.to_string().into())
}

/// Serves one socket until it closes.
pub async fn session(
    state: AppState,
    id: String,
    room: RoomRef,
    token: Option<String>,
    ip: Option<IpAddr>,
    socket: WebSocket,
) {
    let (seat, mut updates, first) = {
        let r = room.lock().await;
        let seat = token.as_deref().and_then(|t| r.seat_of(t));
        (seat, r.subscribe(), r.snapshot())
    };
    // Only a seat's token is worth keeping.
    let token = token.filter(|_| seat.is_some());
    let (mut tx, mut rx) = socket.split();
    // A client that sends nothing (not even a pong) for this long, or reads
    // nothing, is gone: the socket is closed.
    let idle = state
        .config()
        .ws_idle_timeout
        .max(Duration::from_millis(10));
    if !send_within(&mut tx, idle, state_message(&first, seat)).await {
        return;
    }
    drop(first);
    let mut abuse = 0u32;
    let mut ping = tokio::time::interval(PING_EVERY.min(idle / 2));
    ping.tick().await;
    let silence = tokio::time::sleep(idle);
    tokio::pin!(silence);
    loop {
        let outgoing: Option<Message> = tokio::select! {
            update = updates.recv() => match update {
                Ok(s) => Some(state_message(&s, seat)),
                Err(RecvError::Lagged(_)) => {
                    let s: Arc<Snapshot> = room.lock().await.snapshot();
                    Some(state_message(&s, seat))
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
            () = &mut silence => {
                let _ = tokio::time::timeout(Duration::from_secs(1), tx.send(Message::Close(Some(
                    CloseFrame { code: 1001, reason: "idle".into() },
                ))))
                .await;
                break;
            }
            incoming = rx.next() => {
                silence.as_mut().reset(tokio::time::Instant::now() + idle);
                match incoming {
                None | Some(Err(_)) | Some(Ok(Message::Close(_))) => break,
                Some(Ok(Message::Text(text))) => {
                    match handle(&state, &id, token.clone(), ip, text.as_str()).await {
                        Ok(reply) => reply,
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
                Some(Ok(_)) => {
                    // Ping, pong: tungstenite answers pings itself, so a
                    // flood of them costs tokens like messages do.
                    if ip.is_some_and(|ip| !state.limiter().allow(ip)) {
                        abuse += 1;
                    }
                    None
                }
            }},
            _ = ping.tick() => Some(Message::Ping(Default::default())),
        };
        if let Some(m) = outgoing {
            if !send_within(&mut tx, idle, m).await {
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
}

/// Sends `m` unless the client reads nothing for `idle`; whether it went.
async fn send_within(
    tx: &mut futures_util::stream::SplitSink<WebSocket, Message>,
    idle: Duration,
    m: Message,
) -> bool {
    matches!(tokio::time::timeout(idle, tx.send(m)).await, Ok(Ok(())))
}

/// One text message: an answer to send, or an error (and whether it
/// counts as abuse).
async fn handle(
    state: &AppState,
    id: &str,
    token: Option<String>,
    ip: Option<IpAddr>,
    text: &str,
) -> Result<Option<Message>, (ApiError, bool)> {
    if text.len() > MESSAGE_LIMIT {
        return Err((ApiError::too_large("the message", MESSAGE_LIMIT), true));
    }
    if let Some(ip) = ip {
        if !state.limiter().allow(ip) {
            // Counts as abuse: a client that keeps sending while refused
            // is closed like one that sends garbage.
            return Err((ApiError::rate_limited(), true));
        }
    }
    let msg: Incoming = parse_json(text.as_bytes()).map_err(|e| (e, true))?;
    match msg.kind.as_str() {
        "action" => {
            let Some(action) = msg.action else {
                return Err((ApiError::bad_request("action: missing"), true));
            };
            // The new state reaches every socket, this one included.
            state
                .play(id, token, action, msg.ply)
                .await
                .map_err(|e| (e, false))?;
            Ok(None)
        }
        "ping" => Ok(Some(Message::Text(
            json!({"type": "pong"}).to_string().into(),
        ))),
        other => Err((
            ApiError::bad_request(format!(
                "type: `{other}` is not a message type (action, ping)"
            )),
            true,
        )),
    }
}

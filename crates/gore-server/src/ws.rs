//! The game socket: every state as it changes, actions from players,
//! errors to their sender only.

use std::net::IpAddr;
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use futures_util::{SinkExt, StreamExt};
use std::sync::Arc;

use tokio::sync::broadcast::{self, error::RecvError};

use crate::api::{parse_json, ClientMsg, ServerMsg};
use crate::domain::{Change, RoomRef, Seat, SpectatorSlot};
use crate::error::ApiError;
use crate::state::{AppState, SocketSlot};

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
/// Resyncs a socket may ask for at once, and then one each
/// [`RESYNC_EVERY`]: a whole state is hundreds of KiB for a 20-byte
/// message (issue 25, point 14), and a client needs one only after a gap.
const RESYNC_BURST: u32 = 3;
/// See [`RESYNC_BURST`].
const RESYNC_EVERY: Duration = Duration::from_secs(10);

fn text(msg: &ServerMsg) -> Message {
    Message::Text(serde_json::to_string(msg).unwrap_or_default().into())
}

fn error_message(e: &ApiError) -> Message {
    text(&ServerMsg::Error { error: e.clone() })
}

/// Where a socket's client stands: the ply of its state, and the room's
/// count of changes that state includes.
#[derive(Debug, Clone, Copy)]
struct Seen {
    ply: usize,
    serial: u64,
}

/// The whole state for `seat`, and where it leaves the client (a
/// spectator's is encoded once per change for all spectators).
fn state_of(room: &crate::domain::Room, seat: Option<Seat>) -> (Message, Seen) {
    let seen = Seen {
        ply: room.ply(),
        serial: room.serial(),
    };
    if seat.is_none() {
        return (
            Message::Text(room.spectator_state(crate::api::state_text).as_ref().into()),
            seen,
        );
    }
    let view = room.view(seat);
    (
        text(&ServerMsg::State {
            state: Box::new(view.into()),
        }),
        seen,
    )
}

async fn full_state(room: &RoomRef, seat: Option<Seat>) -> (Message, Seen) {
    state_of(&*room.lock().await, seat)
}

/// What a socket presents for its seat: a token, and the browser session
/// it came from, if it did.
pub struct Held {
    /// The seat's token (or a device's), if any.
    pub token: Option<String>,
    /// The session that held `token` when the socket opened: the seat is
    /// then checked again at each message, so that a session ended (a
    /// log-out, a new password elsewhere) no longer acts through a socket
    /// it opened before.
    pub session: Option<String>,
}

/// The answer to a `resync`: the actions after the client's ply as an
/// update when it gave one the game has reached (a few hundred bytes
/// where a long game's state is hundreds of KiB), else the whole state.
async fn resync(room: &RoomRef, seat: Option<Seat>, since: Option<u64>) -> (Message, Seen) {
    let r = room.lock().await;
    let update = since
        .and_then(|n| usize::try_from(n).ok())
        .and_then(|n| r.update_since(seat, n));
    match update {
        Some(update) => (
            text(&ServerMsg::Update {
                update: Box::new(update.into()),
            }),
            Seen {
                ply: r.ply(),
                serial: r.serial(),
            },
        ),
        None => state_of(&r, seat),
    }
}

/// Serves one socket until it closes: the whole state first, then each
/// change as an `update` (encoded once for every socket), or the whole
/// state again when this socket missed a change or asks for it.
/// (`updates` was subscribed when the socket was counted against the
/// game's cap.)
#[allow(clippy::too_many_arguments)] // each is one fact of the socket
pub async fn session(
    state: AppState,
    id: String,
    room: RoomRef,
    held: Held,
    ip: Option<IpAddr>,
    slot: Option<SocketSlot>,
    watching: Option<SpectatorSlot>,
    mut updates: broadcast::Receiver<Arc<Change>>,
    socket: WebSocket,
) {
    let _slots = (slot, watching);
    let Held { token, session } = held;
    let (seat, first, mut seen) = {
        let r = room.lock().await;
        let seat = token.as_deref().and_then(|t| r.seat_of(t));
        let (first, ply) = state_of(&r, seat);
        (seat, first, ply)
    };
    // Only a seat's token is worth keeping.
    let token = token.filter(|_| seat.is_some());
    // The chat, for the two players of a game between people only.
    let (mut chat, history) = {
        let r = room.lock().await;
        let people = r.info.mode == crate::domain::Mode::Friend;
        if people && matches!(seat, Some(Seat::A | Seat::B)) {
            (Some(r.chat_subscribe()), true)
        } else {
            (None, false)
        }
    };
    let mut chat_sent = 0u32;
    let (mut tx, mut rx) = socket.split();
    // A client that sends nothing (not even a pong) for this long, or reads
    // nothing, is gone: the socket is closed.
    let idle = state
        .config()
        .ws_idle_timeout
        .max(Duration::from_millis(10));
    if !send_within(&mut tx, idle, first).await {
        return;
    }
    if history {
        let lines = state
            .games()
            .chat_history(&id, token.as_deref())
            .await
            .unwrap_or_default();
        chat_sent = lines.last().map_or(0, |l| l.n);
        if !send_within(&mut tx, idle, text(&ServerMsg::ChatHistory { lines })).await {
            return;
        }
    }
    // Here from now on (each way out of the loop below marks him gone).
    match seat {
        Some(s) => state.games().presence(&id, s, true).await,
        None => state.games().spectating(&id, true).await,
    }
    let mut abuse = 0u32;
    let mut resyncs = crate::limit::Bucket::new(RESYNC_BURST, RESYNC_EVERY);
    let mut ping = tokio::time::interval(PING_EVERY.min(idle / 2));
    ping.tick().await;
    let silence = tokio::time::sleep(idle);
    tokio::pin!(silence);
    // Pongs prove a client is there, not that it uses the socket: one that
    // sends no message for this long is closed (its descriptor freed).
    let quiet_for = crate::ws::silence_timeout(&state);
    let quiet = tokio::time::sleep(quiet_for);
    tokio::pin!(quiet);
    loop {
        let outgoing: Option<Message> = tokio::select! {
            update = updates.recv() => match update {
                // Already in the state sent (subscribed before it was made).
                Ok(change) if change.serial <= seen.serial => None,
                Ok(change)
                    if !change.whole
                        && change.serial == seen.serial + 1
                        && change.since == seen.ply =>
                {
                    seen = Seen { ply: change.ply, serial: change.serial };
                    Some(Message::Text(change.text_for(seat, crate::api::update_text).as_ref().into()))
                }
                Ok(_) | Err(RecvError::Lagged(_)) => {
                    // A change missed, or a takeback: the whole state again.
                    let (m, s) = full_state(&room, seat).await;
                    seen = s;
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
            line = async {
                match chat.as_mut() {
                    Some(c) => c.recv().await,
                    None => std::future::pending().await,
                }
            } => match line {
                // Each message once (the history and a delivery may overlap).
                Ok(l) if l.n > chat_sent => {
                    chat_sent = l.n;
                    Some(text(&ServerMsg::Chat { line: (*l).clone() }))
                }
                Ok(_) => None,
                Err(RecvError::Lagged(_)) => {
                    let lines = state.games().chat_history(&id, token.as_deref()).await.unwrap_or_default();
                    let fresh: Vec<_> = lines.into_iter().filter(|l| l.n > chat_sent).collect();
                    chat_sent = fresh.last().map_or(chat_sent, |l| l.n);
                    Some(text(&ServerMsg::ChatHistory { lines: fresh }))
                }
                Err(RecvError::Closed) => {
                    chat = None;
                    None
                }
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
                Some(Ok(Message::Text(t))) => {
                    let token = match &session {
                        Some(s) => still_held(&state, s, &id, token.as_deref()).await,
                        None => token.clone(),
                    };
                    // A player's message is a sign of life: another server
                    // may have marked him away (his socket there closed).
                    // Not once his session has lost the seat.
                    if let (Some(s), Some(_)) = (seat, &token) {
                        state.games().sign_of_life(&id, s).await;
                    }
                    match handle(&state, &id, token, ip, t.as_str()).await {
                        Ok(Reply::None) => None,
                        Ok(Reply::Pong) => Some(text(&ServerMsg::Pong)),
                        // Over its budget: refused, and counted as abuse.
                        Ok(Reply::Resync(_)) if !resyncs.take_at(std::time::Instant::now()) => {
                            abuse += 1;
                            Some(error_message(&ApiError::new(
                                crate::error::ErrorCode::RateLimited,
                                format!(
                                    "resync: at most {RESYNC_BURST} at once, then one every {} s \
                                     on a socket; the updates keep coming meanwhile",
                                    RESYNC_EVERY.as_secs()
                                ),
                            )))
                        }
                        Ok(Reply::Resync(since)) => {
                            let (m, s) = resync(&room, seat, since).await;
                            seen = s;
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
    match seat {
        Some(s) => state.games().presence(&id, s, false).await,
        None => state.games().spectating(&id, false).await,
    }
}

/// `token` if session `session` still holds it in game `id` (else none:
/// the socket acts as a spectator's).
async fn still_held(
    state: &AppState,
    session: &str,
    id: &str,
    token: Option<&str>,
) -> Option<String> {
    match state.games().session_token(session, id).await {
        Ok(Some(t)) if Some(t.as_str()) == token => Some(t),
        Ok(_) => None,
        Err(e) => {
            tracing::warn!("session lookup: {e}");
            None
        }
    }
}

/// How long a socket may go without a message from its client
/// ([`crate::Config::ws_silence_timeout`]); for the three sockets.
pub(crate) fn silence_timeout(state: &AppState) -> Duration {
    state
        .config()
        .ws_silence_timeout
        .max(Duration::from_millis(10))
}

/// Closes a socket whose client said nothing for too long (`1001 silent`:
/// a web client reconnects, and speaks when it has something to say).
pub(crate) async fn close_silent<S>(tx: &mut S)
where
    S: futures_util::Sink<Message> + Unpin,
{
    let close = tx.send(Message::Close(Some(CloseFrame {
        code: 1001,
        reason: "silent".into(),
    })));
    let _ = tokio::time::timeout(Duration::from_secs(1), close).await;
}

/// Sends `m` unless the client reads nothing for `idle`; whether it went.
async fn send_within(
    tx: &mut futures_util::stream::SplitSink<WebSocket, Message>,
    idle: Duration,
    m: Message,
) -> bool {
    matches!(tokio::time::timeout(idle, tx.send(m)).await, Ok(Ok(())))
}

/// What a good message asks the socket to send back.
enum Reply {
    /// Nothing (an action: its update reaches every socket).
    None,
    /// A `pong`.
    Pong,
    /// What the client lacks after its ply (if it gave one).
    Resync(Option<u64>),
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
            // Counts as abuse: a client that keeps sending while refused
            // is closed like one that sends garbage.
            return Err((ApiError::rate_limited(), true));
        }
    }
    let msg: ClientMsg = parse_json(text.as_bytes()).map_err(|e| (e, true))?;
    match msg {
        ClientMsg::Action { action, ply } => {
            state
                .games()
                .play_quietly(id, token, action, ply, ip)
                .await
                .map_err(|e| (e.into(), false))?;
            Ok(Reply::None)
        }
        // Their result reaches every socket (a takeback as a whole state).
        ClientMsg::Resign {} => {
            state
                .games()
                .resign(id, token)
                .await
                .map_err(|e| (e.into(), false))?;
            Ok(Reply::None)
        }
        ClientMsg::Abort {} => {
            state
                .games()
                .abort(id, token)
                .await
                .map_err(|e| (e.into(), false))?;
            Ok(Reply::None)
        }
        ClientMsg::Takeback {} => {
            state
                .games()
                .takeback(id, token)
                .await
                .map_err(|e| (e.into(), false))?;
            Ok(Reply::None)
        }
        ClientMsg::TakebackAnswer { accept } => {
            state
                .games()
                .answer_takeback(id, token, accept)
                .await
                .map_err(|e| (e.into(), false))?;
            Ok(Reply::None)
        }
        ClientMsg::Chat { text } => {
            state
                .games()
                .chat(id, token, &text)
                .await
                .map_err(|e| (e.into(), false))?;
            Ok(Reply::None)
        }
        ClientMsg::Resync { ply } => Ok(Reply::Resync(ply)),
        ClientMsg::Ping {} => Ok(Reply::Pong),
    }
}

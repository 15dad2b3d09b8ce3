//! The game socket: every state as it changes, actions from players,
//! errors to their sender only. A [`Kind`] of the shared socket loop
//! ([`crate::socket`]): this file says what the game's socket sends and
//! does with each message, the loop does the rest.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::rejection::QueryRejection;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Extension, Path, Query, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use serde::Deserialize;
use tokio::sync::broadcast::{self, error::RecvError};

use crate::api::{socket_message, ServerMsg, SocketIn};
use crate::domain::ChatLine;
use crate::domain::{Change, Door, Ply, RoomRef, Seat, Shown, Snapshot, SpectatorSlot, Watch};
use crate::doors;
use crate::error::ApiError;
use crate::net::ClientIp;
use crate::socket::{self, limited, socket_slot, Kind, Policy, Reply, Setup};
use crate::state::{AppState, SocketSlot};

/// The largest message a client may send.
pub const MESSAGE_LIMIT: usize = 4 * 1024;
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
    ply: Ply,
    serial: u64,
}

/// `?token=` on the socket's address.
#[derive(Deserialize)]
pub struct SocketQuery {
    /// The seat's token.
    token: Option<String>,
}

/// `GET /api/games/{id}/ws`: the game's socket (a player's with his
/// seat's token, as `?token=` or as [`SeatToken`] reads it; else a
/// spectator's, counted against the game's cap).
///
/// [`SeatToken`]: crate::extract::SeatToken
pub async fn upgrade(
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
        None => crate::extract::token_and_session(&state, &headers, &id).await,
    };
    let ip = addr.map(|Extension(ClientIp(a))| a);
    let watch = state
        .games()
        .watch(
            &room,
            token.as_deref(),
            state.config().max_sockets_per_game,
            crate::api::state_text,
        )
        .await?;
    let slot = socket_slot(&state, ip)?;
    // The socket's lines in the log carry its request's id and game.
    let span = tracing::Span::current();
    Ok(limited(upgrade).on_upgrade(move |socket| {
        let held = Held { token, session };
        tracing::Instrument::instrument(
            crate::ws::session(state, id, room, held, ip, slot, watch, socket),
            span,
        )
    }))
}

/// A snapshot as the socket's message, and where it leaves the client
/// (a spectator's is encoded once per change for all spectators).
fn message_of(s: Snapshot) -> (Message, Seen) {
    let seen = Seen {
        ply: s.ply,
        serial: s.serial,
    };
    let m = match s.shown {
        Shown::Shared(text) => Message::Text(text.as_ref().into()),
        Shown::Own(view) => text(&ServerMsg::State {
            state: Box::new((*view).into()),
        }),
        Shown::Since(update) => text(&ServerMsg::Update {
            update: Box::new((*update).into()),
        }),
    };
    (m, seen)
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

/// Serves one socket until it closes: the whole state first, then each
/// change as an `update` (encoded once for every socket), or the whole
/// state again when this socket missed a change or asks for it.
/// (`watch` was subscribed when the socket was counted against the
/// game's cap.)
#[allow(clippy::too_many_arguments)] // each is one fact of the socket
pub async fn session(
    state: AppState,
    id: String,
    room: RoomRef,
    held: Held,
    ip: Option<IpAddr>,
    slot: Option<SocketSlot>,
    watch: Watch,
    socket: WebSocket,
) {
    let Held { token, session } = held;
    let Watch {
        seat,
        watching,
        updates,
        chat,
        first,
    } = watch;
    let (first, seen) = message_of(first);
    // Only a seat's token is worth keeping.
    let token = token.filter(|_| seat.is_some());
    let game = Game {
        state: state.clone(),
        id,
        room,
        seat,
        acting: None,
        token,
        session,
        ip,
        updates,
        history: chat.is_some(),
        chat,
        chat_sent: 0,
        seen,
        first: Some(first),
        resyncs: crate::limit::Bucket::new(RESYNC_BURST, RESYNC_EVERY),
        present: false,
        _slots: (slot, watching),
    };
    let (tx, rx) = socket.split();
    socket::run(game, tx, rx, Setup::of(&state, ip)).await;
}

/// One game socket, as the shared loop serves it.
struct Game {
    state: AppState,
    id: String,
    room: RoomRef,
    /// The seat its token held when it opened (none: a spectator's).
    seat: Option<Seat>,
    /// The seat's token, if it holds one.
    token: Option<String>,
    /// The browser session the token came from, if it did.
    session: Option<String>,
    /// The token the message being handled acts with (`token` while
    /// `session` still holds it).
    acting: Option<String>,
    ip: Option<IpAddr>,
    updates: broadcast::Receiver<Arc<Change>>,
    chat: Option<broadcast::Receiver<Arc<ChatLine>>>,
    /// Whether the chat's history is sent first (a player of a game
    /// between people).
    history: bool,
    /// The last chat line sent.
    chat_sent: u32,
    seen: Seen,
    /// The whole state, until the hello sends it.
    first: Option<Message>,
    resyncs: crate::limit::Bucket,
    /// Whether it was marked here (each way out marks it gone).
    present: bool,
    _slots: (Option<SocketSlot>, Option<SpectatorSlot>),
}

/// What the game's sources deliver.
enum GameEvent {
    Change(Result<Arc<Change>, RecvError>),
    Chat(Result<Arc<ChatLine>, RecvError>),
}

impl Kind for Game {
    type Event = GameEvent;
    type In = SocketIn;

    const METRIC: crate::metrics::SocketKind = crate::metrics::SocketKind::Game;
    const POLICY: Policy = Policy {
        message_limit: MESSAGE_LIMIT,
        binary_too_large: true,
        count_control_frames: true,
    };

    async fn hello(&mut self) -> Vec<Message> {
        let mut out: Vec<Message> = self.first.take().into_iter().collect();
        if self.history {
            let lines = self
                .state
                .games()
                .chat_history(&self.id, self.token.as_deref())
                .await
                .unwrap_or_default();
            self.chat_sent = lines.last().map_or(0, |l| l.n);
            out.push(text(&ServerMsg::ChatHistory { lines }));
        }
        out
    }

    async fn opened(&mut self) {
        // Here from now on.
        self.present = true;
        match self.seat {
            Some(s) => self.state.games().presence(&self.id, s, true).await,
            None => self.state.games().spectating(&self.id, true).await,
        }
    }

    async fn next_event(&mut self) -> GameEvent {
        let chat = &mut self.chat;
        tokio::select! {
            update = self.updates.recv() => GameEvent::Change(update),
            line = async {
                match chat.as_mut() {
                    Some(c) => c.recv().await,
                    None => std::future::pending().await,
                }
            } => GameEvent::Chat(line),
        }
    }

    async fn on_event(&mut self, event: GameEvent) -> Reply {
        let seen = self.seen;
        match event {
            // Already in the state sent (subscribed before it was made).
            GameEvent::Change(Ok(change)) if change.serial <= seen.serial => Reply::none(),
            GameEvent::Change(Ok(change))
                if !change.whole
                    && change.serial == seen.serial + 1
                    && change.since == seen.ply =>
            {
                self.seen = Seen {
                    ply: change.ply,
                    serial: change.serial,
                };
                Reply::send([Message::Text(
                    change
                        .text_for(self.seat, crate::api::update_text)
                        .as_ref()
                        .into(),
                )])
            }
            GameEvent::Change(Ok(_) | Err(RecvError::Lagged(_))) => {
                // A change missed, or a takeback: the whole state again.
                let (m, s) = message_of(
                    self.state
                        .games()
                        .snapshot(&self.room, self.seat, None, crate::api::state_text)
                        .await,
                );
                self.seen = s;
                Reply::send([m])
            }
            // The game was reloaded: the client reconnects.
            GameEvent::Change(Err(RecvError::Closed)) => {
                Reply::close(Some(socket::frame(1012, "reload")))
            }
            // Each message once (the history and a delivery may overlap).
            GameEvent::Chat(Ok(l)) if l.n > self.chat_sent => {
                self.chat_sent = l.n;
                Reply::send([text(&ServerMsg::Chat { line: (*l).clone() })])
            }
            GameEvent::Chat(Ok(_)) => Reply::none(),
            GameEvent::Chat(Err(RecvError::Lagged(_))) => {
                let lines = self
                    .state
                    .games()
                    .chat_history(&self.id, self.token.as_deref())
                    .await
                    .unwrap_or_default();
                let fresh: Vec<_> = lines.into_iter().filter(|l| l.n > self.chat_sent).collect();
                self.chat_sent = fresh.last().map_or(self.chat_sent, |l| l.n);
                Reply::send([text(&ServerMsg::ChatHistory { lines: fresh })])
            }
            GameEvent::Chat(Err(RecvError::Closed)) => {
                self.chat = None;
                Reply::none()
            }
        }
    }

    async fn admit(&mut self) -> Result<(), CloseFrame> {
        self.acting = match &self.session {
            Some(s) => still_held(&self.state, s, &self.id, self.token.as_deref()).await,
            None => self.token.clone(),
        };
        // A player's message is a sign of life: another server may have
        // marked him away (his socket there closed). Not once his session
        // has lost the seat.
        if let (Some(s), Some(_)) = (self.seat, &self.acting) {
            self.state.games().sign_of_life(&self.id, s).await;
        }
        Ok(())
    }

    fn parse(&self, text: &str) -> Result<SocketIn, ApiError> {
        socket_message(text.as_bytes())
    }

    async fn on_message(&mut self, msg: SocketIn) -> Reply {
        let token = self.acting.take();
        match handle(&self.state, &self.id, token, self.ip, msg).await {
            Ok(Answer::None) => Reply::none(),
            Ok(Answer::Pong) => Reply::send([text(&ServerMsg::Pong)]),
            // Over its budget: refused, and counted as abuse.
            Ok(Answer::Resync(_)) if !self.resyncs.take_at(std::time::Instant::now()) => {
                Reply::refused(
                    error_message(&ApiError::new(
                        crate::error::ErrorCode::RateLimited,
                        format!(
                            "resync: at most {RESYNC_BURST} at once, then one every {} s \
                             on a socket; the updates keep coming meanwhile",
                            RESYNC_EVERY.as_secs()
                        ),
                    )),
                    true,
                )
            }
            Ok(Answer::Resync(since)) => {
                let (m, s) = message_of(
                    self.state
                        .games()
                        .snapshot(&self.room, self.seat, since, crate::api::state_text)
                        .await,
                );
                self.seen = s;
                Reply::send([m])
            }
            Err(e) => Reply::refused(error_message(&e), false),
        }
    }

    fn error(&self, error: ApiError) -> Message {
        error_message(&error)
    }

    async fn closed(self) {
        if self.present {
            match self.seat {
                Some(s) => self.state.games().presence(&self.id, s, false).await,
                None => self.state.games().spectating(&self.id, false).await,
            }
        }
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

/// What a good message asks the socket to send back.
enum Answer {
    /// Nothing (an action: its update reaches every socket).
    None,
    /// A `pong`.
    Pong,
    /// What the client lacks after its ply (if it gave one).
    Resync(Option<Ply>),
}

/// One message read: what to answer, or the domain's refusal. A game's
/// command goes through the one door of every command ([`doors::act`]);
/// `resync` and `ping` are the socket's own.
async fn handle(
    state: &AppState,
    id: &str,
    token: Option<String>,
    ip: Option<IpAddr>,
    msg: SocketIn,
) -> Result<Answer, ApiError> {
    match msg {
        SocketIn::Command(command) => {
            let name = command.name();
            // Their result reaches every socket (a takeback as a whole
            // state, a chat line to both players).
            doors::act(state, Door::Socket, id, token, ip, name, Ok(command)).await?;
            Ok(Answer::None)
        }
        SocketIn::Resync(ply) => Ok(Answer::Resync(ply)),
        SocketIn::Ping => Ok(Answer::Pong),
    }
}

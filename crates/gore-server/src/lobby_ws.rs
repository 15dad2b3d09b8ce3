//! The lobby socket: the lobby's state as it changes, the player's own
//! pairings, and his seeks, challenges and acceptances. A thin edge over
//! [`crate::domain::lobby::Lobby`]: the same operations as the lobby's
//! HTTP routes.

use std::collections::HashSet;
use std::net::IpAddr;

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Extension, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use tokio::sync::broadcast::{self, error::RecvError};

use crate::api::{parse_json, LobbyClientMsg, LobbyMsg, LobbyServerMsg};
use crate::domain::lobby::{Lobby, LobbyEvent, Seek};
use crate::error::ApiError;
use crate::net::ClientIp;
use crate::socket::{self, limited, socket_slot, Kind, Policy, Reply, Setup};
use crate::state::{AppState, SocketSlot};
use crate::store::StoredPlayer;
use crate::ws::MESSAGE_LIMIT;

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
    let lobby = state.lobby().clone();
    let events = lobby.subscribe();
    lobby.enter(&session, ip);
    let kind = LobbySocket {
        state: state.clone(),
        lobby,
        session,
        me,
        ip,
        events,
        told: HashSet::new(),
        _slot: slot,
    };
    let (tx, rx) = socket.split();
    socket::run(kind, tx, rx, Setup::of(&state, ip)).await;
}

/// `GET /api/lobby/ws`: the lobby socket (a browser session: open the
/// home page first, which gives one).
pub async fn upgrade(
    State(state): State<AppState>,
    headers: HeaderMap,
    addr: Option<Extension<ClientIp>>,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    let upgrade = match upgrade {
        Ok(u) => u,
        Err(e) => return Ok(e.into_response()),
    };
    let (session, me) = crate::extract::session_player(&state, &headers, "the lobby").await?;
    let ip = addr.map(|Extension(ClientIp(a))| a);
    let slot = socket_slot(&state, ip)?;
    Ok(limited(upgrade)
        .on_upgrade(move |socket| crate::lobby_ws::session(state, session, me, ip, slot, socket)))
}

/// One lobby socket, as the shared loop serves it.
struct LobbySocket {
    state: AppState,
    lobby: Lobby,
    session: String,
    me: StoredPlayer,
    ip: Option<IpAddr>,
    events: broadcast::Receiver<LobbyEvent>,
    /// The games this socket was told of (its own answer and the broadcast
    /// both tell the one who made the pair): each once.
    told: HashSet<String>,
    _slot: Option<SocketSlot>,
}

impl Kind for LobbySocket {
    type Event = Result<LobbyEvent, RecvError>;
    type In = LobbyClientMsg;

    const METRIC: crate::metrics::SocketKind = crate::metrics::SocketKind::Lobby;
    const POLICY: Policy = Policy {
        message_limit: MESSAGE_LIMIT,
        binary_too_large: false,
        count_control_frames: true,
    };

    async fn hello(&mut self) -> Vec<Message> {
        let hello = text(&LobbyServerMsg::Hello {
            you: self.me.id.clone(),
            name: self.me.name.clone(),
        });
        let first = self.lobby.view().await.ok();
        std::iter::once(hello)
            .chain(first.map(|v| text(&LobbyMsg::Lobby(v))))
            .collect()
    }

    async fn next_event(&mut self) -> Self::Event {
        self.events.recv().await
    }

    async fn on_event(&mut self, event: Self::Event) -> Reply {
        match event {
            Ok(LobbyEvent::Snapshot(s)) => Reply::send([Message::Text(
                s.text(crate::api::lobby_text).as_ref().into(),
            )]),
            Ok(LobbyEvent::Paired { game, players }) if players.contains(&self.me.id) => {
                if self.told.insert(game.clone()) {
                    Reply::send([text(&LobbyServerMsg::Paired {
                        url: format!("/g/{game}"),
                        game,
                    })])
                } else {
                    Reply::none()
                }
            }
            Ok(LobbyEvent::Paired { .. }) => Reply::none(),
            Err(RecvError::Lagged(_)) => match self.lobby.view().await {
                Ok(v) => Reply::send([text(&LobbyMsg::Lobby(v))]),
                Err(_) => Reply::none(),
            },
            Err(RecvError::Closed) => Reply::close(None),
        }
    }

    async fn admit(&mut self) -> Result<(), CloseFrame> {
        if self
            .state
            .players()
            .is_session(&self.session)
            .await
            .unwrap_or(true)
        {
            Ok(())
        } else {
            // The session ended (a new password from this very page):
            // closed, so that the page reconnects with the session it has
            // now instead of seeking under one nobody holds.
            Err(socket::frame(1008, "your session ended: reconnect"))
        }
    }

    fn parse(&self, text: &str) -> Result<LobbyClientMsg, ApiError> {
        parse_json(text.as_bytes())
    }

    async fn on_message(&mut self, msg: LobbyClientMsg) -> Reply {
        match handle(&self.state, &self.session, &self.me, self.ip, msg).await {
            Ok((m, Some(game))) => {
                if self.told.insert(game) {
                    Reply::send([m])
                } else {
                    Reply::none()
                }
            }
            Ok((m, None)) => Reply::send([m]),
            Err((e, bad)) => Reply::refused(self.error(e), bad),
        }
    }

    fn error(&self, error: ApiError) -> Message {
        text(&LobbyServerMsg::Error { error })
    }

    async fn closed(self) {
        // He left the lobby: his seeks and challenges go with him.
        self.lobby.leave(&self.session).await;
    }
}

/// One message read: what to answer (and the game, when it tells of a
/// pairing), or an error (and whether it is abuse).
async fn handle(
    state: &AppState,
    session: &str,
    me: &StoredPlayer,
    ip: Option<IpAddr>,
    msg: LobbyClientMsg,
) -> Result<(Message, Option<String>), (ApiError, bool)> {
    let refused = |e: crate::domain::GameError| (ApiError::from(e), false);
    let lobby = state.lobby();
    match msg {
        LobbyClientMsg::Seek { clock, rated } => {
            let clock = crate::extract::parse_clock(Some(&clock))
                .map_err(|e| (e, true))?
                .ok_or_else(|| {
                    (
                        ApiError::bad_request("clock: quick pairing needs a clock"),
                        true,
                    )
                })?;
            Ok(
                match lobby
                    .seek(session, ip, me, clock, rated)
                    .await
                    .map_err(refused)?
                {
                    Seek::Paired(game) => paired(game),
                    Seek::Waiting(id) => (text(&LobbyServerMsg::Waiting { id }), None),
                },
            )
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
            let new = crate::extract::challenge_terms(body).map_err(|e| (e, true))?;
            let id = lobby.post(session, ip, me, new).await.map_err(refused)?;
            Ok((text(&LobbyServerMsg::Waiting { id }), None))
        }
        LobbyClientMsg::Accept { id } => {
            let game = lobby.accept(session, me, &id).await.map_err(refused)?;
            Ok(paired(game))
        }
        LobbyClientMsg::Cancel {} => {
            lobby.cancel(session, None).await.map_err(refused)?;
            Ok((text(&LobbyServerMsg::Cancelled), None))
        }
        LobbyClientMsg::Ping {} => Ok((text(&LobbyServerMsg::Pong), None)),
    }
}

fn paired(game: String) -> (Message, Option<String>) {
    let m = text(&LobbyServerMsg::Paired {
        url: format!("/g/{game}"),
        game: game.clone(),
    });
    (m, Some(game))
}

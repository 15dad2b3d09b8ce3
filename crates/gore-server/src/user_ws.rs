//! The user socket (lichess's): every page of a browser with a session
//! opens it, and it carries the player's own event stream, the one the Bot
//! API's `/api/stream/event` reads ([`crate::domain::events`]): a game
//! started for him and why (an arena's next pairing on his end screen, a
//! challenge accepted, a lobby pairing), a game of his finished, a
//! challenge received, withdrawn or declined. So any page can take him to
//! his new game. A [`Kind`] of the shared socket loop.

use std::net::IpAddr;

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Extension, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;

use crate::api::{parse_json, BotEvent, UserClientMsg, UserServerMsg};
use crate::domain::bots::Follow;
use crate::domain::events::PlayerEvent;
use crate::error::ApiError;
use crate::net::ClientIp;
use crate::socket::{self, limited, socket_slot, Kind, Policy, Reply, Setup};
use crate::state::{AppState, SocketSlot};
use crate::store::StoredPlayer;
use crate::ws::MESSAGE_LIMIT;

fn text<T: serde::Serialize>(msg: &T) -> Message {
    Message::Text(serde_json::to_string(msg).unwrap_or_default().into())
}

/// `GET /api/user/ws`: the user socket of the browser's session (open a
/// page first, which gives one).
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
    let (_, me) = crate::extract::session_player(&state, &headers, "the user socket").await?;
    let ip = addr.map(|Extension(ClientIp(a))| a);
    let slot = socket_slot(&state, ip)?;
    // The stream starts where the socket does: a store that fails is an
    // error answer, not a silent socket.
    let mut follow = state.bots().follow(&me, false).await?;
    let first = follow.first();
    Ok(limited(upgrade).on_upgrade(move |socket| {
        let kind = UserSocket {
            follow,
            me,
            first,
            _slot: slot,
        };
        serve(state, ip, kind, socket)
    }))
}

async fn serve(state: AppState, ip: Option<IpAddr>, kind: UserSocket, socket: WebSocket) {
    let (tx, rx) = socket.split();
    socket::run(kind, tx, rx, Setup::of(&state, ip)).await;
}

/// One user socket, as the shared loop serves it.
struct UserSocket {
    me: StoredPlayer,
    /// The account's events, read once for all its streams here.
    follow: Follow,
    /// The events read before the upgrade, until the hello sends them.
    first: Vec<PlayerEvent>,
    _slot: Option<SocketSlot>,
}

impl Kind for UserSocket {
    type Event = Result<Vec<PlayerEvent>, crate::domain::GameError>;
    type In = UserClientMsg;

    const METRIC: crate::metrics::SocketKind = crate::metrics::SocketKind::User;
    const POLICY: Policy = Policy {
        message_limit: MESSAGE_LIMIT,
        binary_too_large: false,
        count_control_frames: true,
    };

    async fn hello(&mut self) -> Vec<Message> {
        let hello = text(&UserServerMsg::Hello {
            you: self.me.id.clone(),
        });
        let first = std::mem::take(&mut self.first);
        std::iter::once(hello)
            .chain(first.iter().map(|e| text(&BotEvent::of(e, &self.me.id))))
            .collect()
    }

    async fn next_event(&mut self) -> Self::Event {
        // The account's reader reads when rung, and at least every second
        // (a game made by a pairing rings nothing).
        self.follow.next().await
    }

    async fn on_event(&mut self, events: Self::Event) -> Reply {
        match events {
            Ok(events) => Reply::send(
                events
                    .iter()
                    .map(|e| text(&BotEvent::of(e, &self.me.id)))
                    .collect::<Vec<_>>(),
            ),
            Err(e) => {
                tracing::warn!("user socket of {}: {e}", self.me.id);
                Reply::none()
            }
        }
    }

    fn parse(&self, text: &str) -> Result<UserClientMsg, ApiError> {
        parse_json(text.as_bytes())
    }

    async fn on_message(&mut self, msg: UserClientMsg) -> Reply {
        match msg {
            UserClientMsg::Ping {} => Reply::send([text(&UserServerMsg::Pong)]),
        }
    }

    fn error(&self, error: ApiError) -> Message {
        text(&UserServerMsg::Error { error })
    }

    async fn closed(self) {}
}

//! The three doors of a game's commands, written once: the game socket
//! (src/ws.rs), the site's HTTP routes and the Bot API (lichess's URLs)
//! each read a [`GameCommand`] and call [`act`], which runs it through the
//! domain's one dispatch ([`crate::domain::Games::act`]) and counts it by
//! door in the metrics. The HTTP and Bot API routes here take a command by
//! its name (the last segment of the URL, kebab-case: `give-time` is
//! `give_time`), so that a new command reaches them with no new route.

use std::net::IpAddr;
use std::time::Instant;

use axum::extract::{Extension, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};

use crate::api::{self, GameView};
use crate::domain::{Acted, Door, GameCommand};
use crate::error::ApiError;
use crate::extract::{client_ip, RawBody, SeatToken};
use crate::net::ClientIp;
use crate::state::AppState;

/// Runs `command` (named `name`, read from what came through `door`, or
/// why it could not be read) on game `id` for the holder of `token`, and
/// counts it. An unknown game is `not_found` whatever the command said.
pub async fn act(
    state: &AppState,
    door: Door,
    id: &str,
    token: Option<String>,
    client: Option<IpAddr>,
    name: &'static str,
    command: Result<GameCommand, ApiError>,
) -> Result<Acted, ApiError> {
    let began = Instant::now();
    let answer = async {
        state.games().room(id).await?;
        let command = command?;
        Ok(state.games().act(id, door, token, client, command).await?)
    }
    .await;
    state.metrics().command(
        door,
        name,
        began.elapsed(),
        answer.as_ref().map(|_| ()).map_err(|e: &ApiError| e.code),
    );
    answer
}

/// A command's name from its URL segment (`give-time` → `give_time`), as
/// one of [`GameCommand::NAMES`], if it is one.
fn name_of(segment: &str) -> Option<&'static str> {
    let snake = segment.replace('-', "_");
    GameCommand::NAMES.iter().copied().find(|n| *n == snake)
}

/// The answer of the site's HTTP door: the game as the caller sees it, the
/// chat line stored (201), or nothing (204).
fn http_answer(acted: Acted) -> Response {
    match acted {
        Acted::State(Some(view)) => Json(GameView::from(*view)).into_response(),
        Acted::Chat(line) => (StatusCode::CREATED, Json(line)).into_response(),
        Acted::State(None) | Acted::Done => StatusCode::NO_CONTENT.into_response(),
    }
}

/// The site's HTTP door for command `name` read from `body`.
async fn http(
    state: &AppState,
    id: &str,
    token: Option<String>,
    client: Option<IpAddr>,
    name: &'static str,
    body: &[u8],
) -> Result<Response, ApiError> {
    let command = api::command_of(name, body).unwrap_or_else(|| Err(no_command(name)));
    act(state, Door::Http, id, token, client, name, command)
        .await
        .map(http_answer)
}

fn no_command(name: &str) -> ApiError {
    ApiError::new(
        crate::error::ErrorCode::NotFound,
        format!("{name}: no such command of a game"),
    )
}

/// `POST /api/games/{id}/{command}`: any command of the table by its name
/// (`resign`, `abort`, `claim`, `berserk`, `takeback`, `chat`…), its
/// fields in a JSON body.
pub(crate) async fn http_command(
    State(state): State<AppState>,
    Path((id, segment)): Path<(String, String)>,
    addr: Option<Extension<ClientIp>>,
    SeatToken(token): SeatToken,
    body: Result<RawBody, ApiError>,
) -> Result<Response, ApiError> {
    let Some(name) = name_of(&segment) else {
        state.games().room(&id).await?;
        return Err(no_command(&segment));
    };
    let body = body.map(|RawBody(b)| b).unwrap_or_default();
    http(&state, &id, token, client_ip(addr), name, &body).await
}

/// `POST /api/games/{id}/actions`: the action command (`{action, ply}`).
pub(crate) async fn http_action(
    State(state): State<AppState>,
    Path(id): Path<String>,
    addr: Option<Extension<ClientIp>>,
    SeatToken(token): SeatToken,
    body: Result<RawBody, ApiError>,
) -> Result<Response, ApiError> {
    match body {
        Ok(RawBody(b)) => http(&state, &id, token, client_ip(addr), "action", &b).await,
        Err(e) => act(&state, Door::Http, &id, token, None, "action", Err(e))
            .await
            .map(http_answer),
    }
}

/// `POST /api/games/{id}/takeback/answer`: the `takeback_answer` command
/// (`{accept}`).
pub(crate) async fn http_takeback_answer(
    State(state): State<AppState>,
    Path(id): Path<String>,
    SeatToken(token): SeatToken,
    body: Result<RawBody, ApiError>,
) -> Result<Response, ApiError> {
    let name = "takeback_answer";
    match body {
        Ok(RawBody(b)) => http(&state, &id, token, None, name, &b).await,
        Err(e) => act(&state, Door::Http, &id, token, None, name, Err(e))
            .await
            .map(http_answer),
    }
}

/// `POST /api/games/{id}/chat/{n}/report`: the `report_chat` command.
pub(crate) async fn http_report_chat(
    State(state): State<AppState>,
    Path((id, n)): Path<(String, u32)>,
    SeatToken(token): SeatToken,
) -> Result<Response, ApiError> {
    let command = Ok(GameCommand::ReportChat { n });
    act(&state, Door::Http, &id, token, None, "report_chat", command)
        .await
        .map(http_answer)
}

/// The Bot API's answer to a command done: lichess's `{"ok": true}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BotOk {
    /// Always `true`.
    pub ok: bool,
}

/// The answer of the Bot API's door: `{"ok": true}`, or the chat line
/// stored (201).
fn bot_answer(acted: Acted) -> Response {
    match acted {
        Acted::Chat(line) => (StatusCode::CREATED, Json(line)).into_response(),
        Acted::State(_) | Acted::Done => Json(BotOk { ok: true }).into_response(),
    }
}

/// The Bot API's door: the caller's seat by his token (`bot:play`), then
/// the command.
async fn bot(
    state: &AppState,
    headers: &HeaderMap,
    id: &str,
    name: &'static str,
    command: Result<GameCommand, ApiError>,
) -> Result<Response, ApiError> {
    let token = crate::extract::bot_seat(state, headers, id).await?;
    act(state, Door::Bot, id, Some(token), None, name, command)
        .await
        .map(bot_answer)
}

/// `POST /api/bot/game/{id}/{command}`: any command of the table a BOT is
/// offered, by its name (`resign`, `abort`, `berserk`, `claim`,
/// `takeback`, `chat`…), as lichess's Bot API spells its URLs;
/// `claim-victory` is lichess's name of `claim`.
pub(crate) async fn bot_command(
    State(state): State<AppState>,
    Path((id, segment)): Path<(String, String)>,
    headers: HeaderMap,
    body: Result<RawBody, ApiError>,
) -> Result<Response, ApiError> {
    let segment = if segment == "claim-victory" {
        "claim".to_string()
    } else {
        segment
    };
    let Some(name) = name_of(&segment) else {
        crate::extract::bot_seat(&state, &headers, &id).await?;
        return Err(no_command(&segment));
    };
    let body = body.map(|RawBody(b)| b).unwrap_or_default();
    let command = api::command_of(name, &body).unwrap_or_else(|| Err(no_command(name)));
    bot(&state, &headers, &id, name, command).await
}

/// `POST /api/bot/game/{id}/move/{action}`: plays a Goré action token.
pub(crate) async fn bot_move(
    State(state): State<AppState>,
    Path((id, action)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let command = Ok(GameCommand::Play { action, ply: None });
    bot(&state, &headers, &id, "action", command).await
}

/// `POST /api/bot/game/{id}/takeback/{accept}` (lichess's URL): answers
/// the opponent's takeback request, `yes` or `no`.
pub(crate) async fn bot_takeback_answer(
    State(state): State<AppState>,
    Path((id, accept)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let command = match accept.as_str() {
        "yes" | "true" => Ok(GameCommand::TakebackAnswer { accept: true }),
        "no" | "false" => Ok(GameCommand::TakebackAnswer { accept: false }),
        _ => Err(ApiError::bad_request("accept: yes or no")),
    };
    bot(&state, &headers, &id, "takeback_answer", command).await
}

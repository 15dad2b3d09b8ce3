//! The analysis socket: `analyse` a position, `stop`; the findings stream
//! back as they come (docs/API.md, "The analysis socket"). A thin edge
//! over [`crate::domain::analysis`]: one analysis at a time per socket (a
//! new `analyse` stops the running one, whose `done` comes first), each on
//! the analysis pool under the server's caps, the pool's cap per client
//! answered `busy`, starts counted by the address's rate limiter. An
//! analysis waiting for a thread is told its place (`queued`).

use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use futures_util::{SinkExt, StreamExt};
use gore_learn::analysis::{Event, Summary};

use crate::ai::ClientKey;
use crate::api::{
    parse_json, AnalysisClientMsg, AnalysisLimits, AnalysisOver, AnalysisServerMsg, AnalysisSetup,
    ExactAction, ExactView,
};
use crate::domain::analysis::{self as domain, Caps, Running};
use crate::error::ApiError;
use crate::state::{AppState, SocketSlot};

/// The largest message a client may send (a long game's line fits).
pub const MESSAGE_LIMIT: usize = 32 * 1024;
/// Bad or rate-limited messages before the socket is closed.
const ABUSE_LIMIT: u32 = 5;
/// The server pings this often at most.
const PING_EVERY: Duration = Duration::from_secs(30);
/// A waiting analysis's place is looked at this often, and told when it
/// changed (the pool has no event for a place moving up: a look is one
/// lock, cheap).
const PLACE_EVERY: Duration = Duration::from_secs(1);

/// Names the analysis jobs of sockets without an address apart.
static SOCKETS: AtomicU64 = AtomicU64::new(0);

fn text(msg: &AnalysisServerMsg) -> Message {
    Message::Text(serde_json::to_string(msg).unwrap_or_default().into())
}

fn half_seeds(x: [u16; 2]) -> [f64; 2] {
    [x[0] as f64 / 2.0, x[1] as f64 / 2.0]
}

fn exact_view(e: &gore_learn::analysis::Exact) -> ExactView {
    ExactView {
        v: half_seeds(e.v),
        lo: half_seeds(e.lo),
        hi: half_seeds(e.hi),
        exact: e.exact,
    }
}

/// A finding as its message.
fn event_message(id: u64, e: Event) -> AnalysisServerMsg {
    match e {
        Event::Solved(s) => AnalysisServerMsg::Exact {
            id,
            position: exact_view(&s.position),
            actions: s
                .actions
                .iter()
                .map(|(a, v)| ExactAction {
                    action: *a,
                    values: exact_view(v),
                })
                .collect(),
        },
        Event::Depth(d) => AnalysisServerMsg::Depth {
            id,
            depth: d.depth,
            expected: d.expected,
            line: d.line,
            nodes: d.nodes,
            time_ms: d.elapsed.as_millis() as u64,
        },
        Event::Action(a) => AnalysisServerMsg::Action {
            id,
            action: a.action,
            expected: a.expected,
            depth: a.depth,
            line: a.line,
            ends: a.ends,
        },
    }
}

fn done_message(id: u64, s: &Summary) -> AnalysisServerMsg {
    AnalysisServerMsg::Done {
        id,
        depth: s.depth,
        best: s.best,
        nodes: s.nodes,
        time_ms: s.elapsed.as_millis() as u64,
        stopped: s.stopped,
        over: s.over.as_ref().map(AnalysisOver::from),
    }
}

/// The socket's analysis: running, or being stopped for the next one
/// (its findings' channel is kept apart, to be read beside the ticket).
struct Current {
    id: u64,
    ticket: crate::ai::AiTicket<Summary>,
    /// Its place in the pool's queue as last told (`None`: running).
    place: Option<usize>,
}

/// Serves one analysis socket until it closes.
pub async fn session(
    state: AppState,
    ip: Option<IpAddr>,
    slot: Option<SocketSlot>,
    socket: WebSocket,
) {
    let _slot = slot;
    let socket_no = SOCKETS.fetch_add(1, Ordering::Relaxed);
    let client = ip.map_or_else(
        || ClientKey::named(format!("analysis-socket-{socket_no}")),
        ClientKey::ip,
    );
    let caps = Caps {
        time: state.config().analysis_time,
        nodes: state.config().analysis_nodes,
    };
    let (mut tx, mut rx) = socket.split();
    let idle = state
        .config()
        .ws_idle_timeout
        .max(Duration::from_millis(10));
    let mut current: Option<Current> = None;
    let mut events: Option<tokio::sync::mpsc::UnboundedReceiver<Event>> = None;
    // The analysis asked for while the running one stops.
    let mut next: Option<(AnalysisSetup, Option<u64>)> = None;
    let mut count = 0u64;
    let mut abuse = 0u32;
    let mut ping = tokio::time::interval(PING_EVERY.min(idle / 2));
    ping.tick().await;
    let mut places = tokio::time::interval(PLACE_EVERY);
    places.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let silence = tokio::time::sleep(idle);
    tokio::pin!(silence);
    // Pongs prove a client is there, not that it uses the socket: one that
    // sends no message for this long is closed (its descriptor freed).
    let quiet_for = crate::ws::silence_timeout(&state);
    let quiet = tokio::time::sleep(quiet_for);
    tokio::pin!(quiet);
    loop {
        let mut out: Vec<AnalysisServerMsg> = Vec::new();
        let mut raw: Option<Message> = None;
        let mut finished = false;
        tokio::select! {
            ev = async { events.as_mut().expect("guarded").recv().await },
                if events.is_some() =>
            {
                match (ev, current.as_ref()) {
                    (Some(e), Some(c)) => out.push(event_message(c.id, e)),
                    // The work ended: its ticket resolves next.
                    _ => events = None,
                }
            }
            r = async { (&mut current.as_mut().expect("guarded").ticket).await },
                if current.is_some() =>
            {
                let c = current.take().expect("guarded");
                // The work has returned: every finding is in the channel.
                if let Some(mut rx) = events.take() {
                    while let Ok(e) = rx.try_recv() {
                        out.push(event_message(c.id, e));
                    }
                }
                out.push(match r {
                    Ok(s) => done_message(c.id, &s),
                    Err(e) => AnalysisServerMsg::Error { error: e.into() },
                });
                finished = true;
            }
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
                    Some(Ok(Message::Text(t))) => match read(&state, ip, t.as_str()) {
                        Ok(AnalysisClientMsg::Analyse { rules, gpn, line, time_ms }) => {
                            let setup = AnalysisSetup { rules, gpn, line };
                            match &current {
                                // Stop it; the next starts when it is done.
                                Some(c) => {
                                    c.ticket.stop();
                                    next = Some((setup, time_ms));
                                }
                                None => {
                                    next = Some((setup, time_ms));
                                    finished = true;
                                }
                            }
                        }
                        Ok(AnalysisClientMsg::Stop {}) => {
                            next = None;
                            if let Some(c) = &current {
                                c.ticket.stop();
                            }
                        }
                        Ok(AnalysisClientMsg::Ping {}) => out.push(AnalysisServerMsg::Pong),
                        Err(e) => {
                            abuse += 1;
                            out.push(AnalysisServerMsg::Error { error: e });
                        }
                    },
                    Some(Ok(Message::Binary(_))) => {
                        abuse += 1;
                        out.push(AnalysisServerMsg::Error {
                            error: ApiError::bad_request("message: send JSON text, not binary"),
                        });
                    }
                    Some(Ok(_)) => {}
                }
            }
            _ = ping.tick() => raw = Some(Message::Ping(Default::default())),
            _ = places.tick(), if current.as_ref().is_some_and(|c| c.place.is_some()) => {
                let c = current.as_mut().expect("guarded");
                let place = c.ticket.place();
                if place != c.place {
                    c.place = place;
                    if let Some(place) = place {
                        out.push(AnalysisServerMsg::Queued { id: c.id, place });
                    }
                }
            }
        }
        // Nothing runs now: start what was asked for.
        if finished && current.is_none() {
            if let Some((setup, time_ms)) = next.take() {
                // Ids count the analyses started, not those refused.
                match begin(
                    &state,
                    &client,
                    socket_no,
                    count + 1,
                    &caps,
                    &setup,
                    time_ms,
                ) {
                    Ok((c, started)) => {
                        count += 1;
                        // Waiting for a thread: say where it stands.
                        let place = c.ticket.place();
                        current = Some(Current {
                            id: count,
                            ticket: c.ticket,
                            place,
                        });
                        events = Some(c.events);
                        out.push(started);
                        if let Some(place) = place {
                            out.push(AnalysisServerMsg::Queued { id: count, place });
                        }
                    }
                    Err(e) => out.push(AnalysisServerMsg::Error { error: e }),
                }
            }
        }
        let mut ok = true;
        for m in out.iter().map(text).chain(raw) {
            if !matches!(tokio::time::timeout(idle, tx.send(m)).await, Ok(Ok(()))) {
                ok = false;
                break;
            }
        }
        if !ok {
            break;
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
    // Dropping the ticket stops a running analysis.
    drop(current);
}

/// Reads a message: its size, the address's rate, its JSON.
fn read(state: &AppState, ip: Option<IpAddr>, t: &str) -> Result<AnalysisClientMsg, ApiError> {
    if t.len() > MESSAGE_LIMIT {
        return Err(ApiError::too_large("the message", MESSAGE_LIMIT));
    }
    if let Some(ip) = ip {
        if !state.limiter().allow(ip) {
            return Err(ApiError::rate_limited());
        }
    }
    let msg = parse_json::<AnalysisClientMsg>(t.as_bytes());
    if msg.is_err() {
        // A well-typed `analyse` with a bad field: name the field.
        let kind = serde_json::from_str::<serde_json::Value>(t)
            .ok()
            .and_then(|v| v.get("type").and_then(|k| k.as_str()).map(str::to_string));
        if kind.as_deref() == Some("analyse") {
            parse_json::<crate::api::AnalyseFields>(t.as_bytes())?;
        }
    }
    msg
}

/// Starts analysis `id`: the setup read by the rules library, the caps
/// applied, the job on the analysis pool.
fn begin(
    state: &AppState,
    client: &ClientKey,
    socket_no: u64,
    id: u64,
    caps: &Caps,
    setup: &AnalysisSetup,
    time_ms: Option<u64>,
) -> Result<(Running, AnalysisServerMsg), ApiError> {
    let game = setup.read()?;
    let gpn = game.position().to_string();
    let limits = caps.limits(time_ms);
    let run = domain::start(
        state.analysis_pool(),
        state.solved(),
        client.clone(),
        format!("analysis-{socket_no}-{id}"),
        game,
        limits,
    )
    .map_err(|e| {
        ApiError::busy(match e {
            crate::ai::AiBusy::Client { limit } => format!(
                "you already have {limit} analyses running (another tab?); \
                 stop one, then try again"
            ),
            other => format!("the analysis is at capacity: {other}"),
        })
    })?;
    let started = AnalysisServerMsg::Started {
        id,
        gpn,
        limits: AnalysisLimits {
            time_ms: limits.time.map_or(0, |t| t.as_millis() as u64),
            nodes: limits.nodes.unwrap_or(0),
            depth: limits.depth.unwrap_or(0),
        },
    };
    Ok((run, started))
}

//! The analysis socket: `analyse` a position, `stop`; the findings stream
//! back as they come (docs/API.md, "The analysis socket"). A thin edge
//! over [`crate::domain::analysis`]: one analysis at a time per socket (a
//! new `analyse` stops the running one, whose `done` comes first), each on
//! the analysis pool under the server's caps, the pool's cap per client
//! answered `busy`, starts counted by the address's rate limiter. An
//! analysis waiting for a thread is told its place (`queued`). A server
//! with `--analysis-threads 0` runs none itself: each is a job for the
//! workers ([`crate::domain::boards`]), whose findings come back already
//! worded and are sent as they are. A [`Kind`] of the shared socket loop
//! ([`crate::socket`]).

use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Extension, State};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use gore_learn::analysis::{Event, Summary};

use crate::ai::ClientKey;
use crate::api::{parse_json, AnalysisClientMsg, AnalysisLimits, AnalysisServerMsg, AnalysisSetup};
use crate::domain::analysis::{self as domain, Caps, Running};
use crate::domain::boards::Remote;
use crate::error::ApiError;
use crate::net::ClientIp;
use crate::socket::{self, limited, socket_slot, Kind, Policy, Reply, Setup};
use crate::state::{AppState, SocketSlot};

/// The largest message a client may send (a long game's line fits).
pub const MESSAGE_LIMIT: usize = 32 * 1024;
/// A waiting analysis's place is looked at this often, and told when it
/// changed (the pool has no event for a place moving up: a look is one
/// lock, cheap).
const PLACE_EVERY: Duration = Duration::from_secs(1);

/// Names the analysis jobs of sockets without an address apart.
static SOCKETS: AtomicU64 = AtomicU64::new(0);

fn text(msg: &AnalysisServerMsg) -> Message {
    Message::Text(msg.wording().into())
}

/// The socket's analysis: running, or being stopped for the next one.
struct Current {
    id: u64,
    work: Work,
    /// Its place in the queue as last told (`None`: running).
    place: Option<usize>,
}

/// Where an analysis runs.
enum Work {
    /// On this process's analysis pool: its ticket (dropping it stops
    /// the search) and its findings while it runs.
    Here {
        ticket: crate::ai::AiTicket<Summary>,
        events: Option<tokio::sync::mpsc::UnboundedReceiver<Event>>,
    },
    /// A job for the workers.
    Away(Remote),
}

impl Work {
    /// What comes next from it.
    async fn progress(&mut self) -> Progress {
        match self {
            Work::Here { ticket, events } => tokio::select! {
                ev = async { events.as_mut().expect("guarded").recv().await },
                    if events.is_some() => Progress::Finding(ev),
                r = ticket => Progress::Done(r),
            },
            Work::Away(remote) => Progress::Lines(remote.next().await),
        }
    }
}

/// Serves one analysis socket until it closes.
pub async fn session(
    state: AppState,
    ip: Option<IpAddr>,
    slot: Option<SocketSlot>,
    socket: WebSocket,
) {
    let socket_no = SOCKETS.fetch_add(1, Ordering::Relaxed);
    let client = ip.map_or_else(
        || ClientKey::named(format!("analysis-socket-{socket_no}")),
        ClientKey::ip,
    );
    let caps = Caps {
        time: state.config().analysis_time,
        nodes: state.config().analysis_nodes,
    };
    let mut places = tokio::time::interval(PLACE_EVERY);
    places.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let kind = AnalysisSocket {
        state: state.clone(),
        client,
        socket_no,
        caps,
        current: None,
        next: None,
        count: 0,
        places,
        _slot: slot,
    };
    let (tx, rx) = socket.split();
    socket::run(kind, tx, rx, Setup::of(&state, ip)).await;
}

/// `GET /api/analysis/ws`: the analysis socket (needs no session).
pub async fn upgrade(
    State(state): State<AppState>,
    addr: Option<Extension<ClientIp>>,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    let upgrade = match upgrade {
        Ok(u) => u,
        Err(e) => return Ok(e.into_response()),
    };
    let ip = crate::extract::client_ip(addr);
    let slot = socket_slot(&state, ip)?;
    Ok(limited(upgrade).on_upgrade(move |socket| session(state, ip, slot, socket)))
}

/// One analysis socket, as the shared loop serves it.
struct AnalysisSocket {
    state: AppState,
    client: ClientKey,
    socket_no: u64,
    caps: Caps,
    /// The running analysis (dropping it stops it).
    current: Option<Current>,
    /// The analysis asked for while the running one stops.
    next: Option<(AnalysisSetup, Option<u64>)>,
    /// The analyses started.
    count: u64,
    places: tokio::time::Interval,
    _slot: Option<SocketSlot>,
}

/// What the socket's analysis delivers.
enum Progress {
    /// A finding (none: the work ended, its ticket resolves next).
    Finding(Option<Event>),
    /// The work returned.
    Done(Result<Summary, crate::ai::AiGone>),
    /// A worker's messages (none: its analysis ended).
    Lines(Option<Vec<String>>),
    /// Time to look at a waiting analysis's place.
    Place,
}

impl Kind for AnalysisSocket {
    type Event = Progress;
    type In = AnalysisClientMsg;

    const METRIC: crate::metrics::SocketKind = crate::metrics::SocketKind::Analysis;
    const POLICY: Policy = Policy {
        message_limit: MESSAGE_LIMIT,
        binary_too_large: false,
        count_control_frames: false,
    };

    async fn hello(&mut self) -> Vec<Message> {
        Vec::new()
    }

    async fn next_event(&mut self) -> Progress {
        let (current, places) = (&mut self.current, &mut self.places);
        let waiting = current.as_ref().is_some_and(|c| c.place.is_some());
        tokio::select! {
            p = async { current.as_mut().expect("guarded").work.progress().await },
                if current.is_some() => p,
            _ = places.tick(), if waiting => Progress::Place,
            else => std::future::pending().await,
        }
    }

    async fn on_event(&mut self, event: Progress) -> Reply {
        let mut out = Vec::new();
        match event {
            Progress::Finding(ev) => match (ev, self.current.as_mut()) {
                (Some(e), Some(c)) => out.push(text(&AnalysisServerMsg::finding(c.id, e))),
                // The work ended: its ticket resolves next.
                (None, Some(c)) => {
                    if let Work::Here { events, .. } = &mut c.work {
                        *events = None;
                    }
                }
                (_, None) => {}
            },
            Progress::Done(r) => {
                if let Some(c) = self.current.take() {
                    // The work has returned: every finding is in the channel.
                    if let Work::Here {
                        events: Some(mut rx),
                        ..
                    } = c.work
                    {
                        while let Ok(e) = rx.try_recv() {
                            out.push(text(&AnalysisServerMsg::finding(c.id, e)));
                        }
                    }
                    out.push(text(&match r {
                        Ok(s) => AnalysisServerMsg::done(c.id, &s),
                        Err(e) => AnalysisServerMsg::Error { error: e.into() },
                    }));
                }
                self.start_next(&mut out).await;
            }
            Progress::Lines(Some(lines)) => {
                // A worker runs it: no longer waiting.
                if let Some(c) = self.current.as_mut() {
                    c.place = None;
                }
                out.extend(lines.into_iter().map(|l| Message::Text(l.into())));
            }
            Progress::Lines(None) => {
                self.current = None;
                self.start_next(&mut out).await;
            }
            Progress::Place => {
                if let Some(c) = self.current.as_mut() {
                    let place = match &c.work {
                        Work::Here { ticket, .. } => ticket.place(),
                        Work::Away(remote) => remote.place().await,
                    };
                    if place != c.place {
                        c.place = place;
                        if let Some(place) = place {
                            out.push(text(&AnalysisServerMsg::Queued { id: c.id, place }));
                        }
                    }
                }
            }
        }
        Reply::send(out)
    }

    fn parse(&self, text: &str) -> Result<AnalysisClientMsg, ApiError> {
        read(text)
    }

    async fn on_message(&mut self, msg: AnalysisClientMsg) -> Reply {
        let mut out = Vec::new();
        match msg {
            AnalysisClientMsg::Analyse {
                rules,
                gpn,
                line,
                time_ms,
            } => {
                self.next = Some((AnalysisSetup { rules, gpn, line }, time_ms));
                // The running one stops; the next starts when it is done
                // (at once if it was still waiting: it leaves the queue).
                if self.stop_current(&mut out).await {
                    self.start_next(&mut out).await;
                }
            }
            AnalysisClientMsg::Stop {} => {
                self.next = None;
                self.stop_current(&mut out).await;
            }
            AnalysisClientMsg::Ping {} => out.push(text(&AnalysisServerMsg::Pong)),
        }
        Reply::send(out)
    }

    fn error(&self, error: ApiError) -> Message {
        text(&AnalysisServerMsg::Error { error })
    }

    async fn closed(self) {
        // Dropping the ticket (or the worker's job) stops a running analysis.
    }
}

impl AnalysisSocket {
    /// Stops the running analysis, if any: whether nothing runs now. One
    /// that still waits for a thread (or a worker) leaves the queue at
    /// once (else stopping it would wait for the searches before it: the
    /// next position's analysis too), ended `done`, stopped, with nothing
    /// found; one that runs sends its `done` when it has stopped.
    async fn stop_current(&mut self, out: &mut Vec<Message>) -> bool {
        let Some(c) = self.current.as_mut() else {
            return true;
        };
        let withdrawn = match &mut c.work {
            Work::Here { ticket, .. } => {
                ticket.stop();
                ticket.withdraw()
            }
            Work::Away(remote) => remote.stop().await,
        };
        if !withdrawn {
            return false;
        }
        let id = c.id;
        self.current = None;
        out.push(text(&AnalysisServerMsg::Done {
            id,
            depth: 0,
            best: None,
            nodes: 0,
            time_ms: 0,
            stopped: true,
            over: None,
        }));
        true
    }

    /// Nothing runs now: starts what was asked for, if anything.
    async fn start_next(&mut self, out: &mut Vec<Message>) {
        if self.current.is_some() {
            return;
        }
        let Some((setup, time_ms)) = self.next.take() else {
            return;
        };
        // Ids count the analyses started, not those refused.
        match begin(
            &self.state,
            &self.client,
            self.socket_no,
            self.count + 1,
            &self.caps,
            &setup,
            time_ms,
        )
        .await
        {
            Ok((work, started)) => {
                self.count += 1;
                // Waiting for a thread: say where it stands.
                let place = match &work {
                    Work::Here { ticket, .. } => ticket.place(),
                    Work::Away(remote) => remote.place().await,
                };
                self.current = Some(Current {
                    id: self.count,
                    work,
                    place,
                });
                out.push(text(&started));
                if let Some(place) = place {
                    out.push(text(&AnalysisServerMsg::Queued {
                        id: self.count,
                        place,
                    }));
                }
            }
            Err(e) => out.push(text(&AnalysisServerMsg::Error { error: e })),
        }
    }
}

/// Reads a message's JSON, naming the field of an `analyse` that is wrong.
fn read(t: &str) -> Result<AnalysisClientMsg, ApiError> {
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
/// applied, the job on the analysis pool (or the workers').
async fn begin(
    state: &AppState,
    client: &ClientKey,
    socket_no: u64,
    id: u64,
    caps: &Caps,
    setup: &AnalysisSetup,
    time_ms: Option<u64>,
) -> Result<(Work, AnalysisServerMsg), ApiError> {
    let game = setup.read()?;
    let gpn = game.position().to_string();
    let limits = caps.limits(time_ms);
    let boards = state.boards();
    let work = if boards.here() {
        let Running { ticket, events } = domain::start(
            state.analysis_pool(),
            state.solved(),
            client.clone(),
            format!("analysis-{socket_no}-{id}"),
            game,
            limits,
        )
        .map_err(|e| ApiError::busy(domain::busy_text(e)))?;
        Work::Here {
            ticket,
            events: Some(events),
        }
    } else {
        let text = |t: &Option<String>| t.clone().unwrap_or_default();
        let asked = (text(&setup.rules), text(&setup.gpn), text(&setup.line));
        Work::Away(boards.ask(client, id, asked, &limits).await?)
    };
    let started = AnalysisServerMsg::Started {
        id,
        gpn,
        limits: AnalysisLimits {
            time_ms: limits.time.map_or(0, |t| t.as_millis() as u64),
            nodes: limits.nodes.unwrap_or(0),
            depth: limits.depth.unwrap_or(0),
        },
    };
    Ok((work, started))
}

//! The server's metrics, in Prometheus's text format (OpenMetrics), served
//! on their own listener (`--metrics-addr`), never on the public port.
//!
//! This module owns the registry (one per server state: no global, so
//! that servers in one test process count apart). The edges call its
//! small typed functions ([`Metrics::command`], [`Metrics::refused`],
//! [`Metrics::socket_opened`]…); the domain reports through its own port
//! ([`crate::domain::observe::Observer`], implemented here) and the AI
//! pools through their observer: neither knows of Prometheus. What is a
//! level now (games in memory, queues, descriptors) is read when scraped
//! ([`Metrics::render`]). docs/DEPLOY.md, "What to monitor", lists them all.

use std::sync::Arc;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

use crate::domain::Door;
use crate::error::ErrorCode;

/// The media type of [`Metrics::render`]'s text.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// A socket's kind, as the metrics name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SocketKind {
    /// A game's socket.
    Game,
    /// The lobby's.
    Lobby,
    /// The analysis board's.
    Analysis,
    /// A player's own (his event stream).
    User,
}

impl SocketKind {
    fn as_str(self) -> &'static str {
        match self {
            SocketKind::Game => "game",
            SocketKind::Lobby => "lobby",
            SocketKind::Analysis => "analysis",
            SocketKind::User => "user",
        }
    }
}

/// Why the accept loop closed a connection without serving it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnRefusal {
    /// Its address had `--max-conns-per-ip` open (answered `503 busy`).
    Busy,
    /// File descriptors ran low (closed at once).
    Descriptors,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ViaLabel {
    via: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RefusedLabel {
    via: &'static str,
    code: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CommandLabel {
    door: &'static str,
    command: &'static str,
    outcome: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CodeLabel {
    code: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct KindLabel {
    kind: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct WhyLabel {
    why: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct LevelLabel {
    level: u32,
}

type Histograms<L> = Family<L, Histogram, fn() -> Histogram>;

/// Latencies of requests and commits: 0.5 ms to about 8 s.
fn latency() -> Histogram {
    Histogram::new(exponential_buckets(0.0005, 2.0, 15))
}

/// AI waits and searches: 10 ms to about 160 s.
fn ai_time() -> Histogram {
    Histogram::new(exponential_buckets(0.01, 2.0, 15))
}

/// The server's metrics. Cheap to clone.
#[derive(Clone)]
pub struct Metrics(Arc<Inner>);

struct Inner {
    registry: Registry,
    actions: Family<ViaLabel, Counter>,
    refused: Family<RefusedLabel, Counter>,
    action_seconds: Histogram,
    commands: Family<CommandLabel, Counter>,
    http_refusals: Family<CodeLabel, Counter>,
    sockets: Family<KindLabel, Gauge>,
    connections: Gauge,
    connections_refused: Family<WhyLabel, Counter>,
    games: Gauge,
    ai_waiting: Gauge,
    ai_running: Gauge,
    ai_wait: Histograms<LevelLabel>,
    ai_search: Histograms<LevelLabel>,
    analysis_waiting: Gauge,
    analysis_running: Gauge,
    reviews: Counter,
    board_analyses: Counter,
    bot_game_reads: Counter,
    commit_seconds: Histogram,
    commit_failures: Counter,
    failed_closed: Gauge,
    notices: Counter,
    catch_up_seconds: Histogram,
    behind: Gauge,
    fds_open: Gauge,
    fds_limit: Gauge,
    hashes: Gauge,
    seeks: Gauge,
    paired: Family<KindLabel, Counter>,
    pairing_seconds: Histogram,
    draining: Gauge,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    /// Every metric, registered, at zero.
    pub fn new() -> Metrics {
        let mut r = Registry::default();
        let actions = Family::<ViaLabel, Counter>::default();
        r.register(
            "gore_actions_acknowledged",
            "Actions committed and acknowledged, by how they came (http, socket, bot)",
            actions.clone(),
        );
        let refused = Family::<RefusedLabel, Counter>::default();
        r.register(
            "gore_actions_refused",
            "Actions refused, by how they came and the error code",
            refused.clone(),
        );
        let action_seconds = latency();
        r.register(
            "gore_action_seconds",
            "Time to answer an action, its commit included (acknowledged or refused)",
            action_seconds.clone(),
        );
        let commands = Family::<CommandLabel, Counter>::default();
        r.register(
            "gore_game_commands",
            "Players' commands on games (actions included), by door (http, socket, bot), \
             command and outcome (ok, or the error code)",
            commands.clone(),
        );
        let http_refusals = Family::<CodeLabel, Counter>::default();
        r.register(
            "gore_http_refusals",
            "HTTP answers that were errors, by code (rate_limited, busy, unavailable, draining...)",
            http_refusals.clone(),
        );
        let sockets = Family::<KindLabel, Gauge>::default();
        r.register(
            "gore_sockets_open",
            "Open WebSockets, by kind (game, lobby, analysis)",
            sockets.clone(),
        );
        // Every kind at zero from the start, so that a query sees it.
        for kind in [
            SocketKind::Game,
            SocketKind::Lobby,
            SocketKind::Analysis,
            SocketKind::User,
        ] {
            let _ = sockets.get_or_create(&KindLabel {
                kind: kind.as_str(),
            });
        }
        let connections = Gauge::default();
        r.register(
            "gore_connections_open",
            "Open TCP connections of the public port (sockets included)",
            connections.clone(),
        );
        let connections_refused = Family::<WhyLabel, Counter>::default();
        r.register(
            "gore_connections_refused",
            "Connections closed unserved: busy (per-address cap) or descriptors (running low)",
            connections_refused.clone(),
        );
        let games = Gauge::default();
        r.register(
            "gore_games_in_memory",
            "Games held in memory",
            games.clone(),
        );
        let ai_waiting = Gauge::default();
        r.register(
            "gore_ai_queue_length",
            "AI turns waiting for a search thread",
            ai_waiting.clone(),
        );
        let ai_running = Gauge::default();
        r.register("gore_ai_running", "AI searches running", ai_running.clone());
        let ai_wait: Histograms<LevelLabel> = Family::new_with_constructor(ai_time);
        r.register(
            "gore_ai_wait_seconds",
            "Time an AI turn waited for a thread, by level",
            ai_wait.clone(),
        );
        let ai_search: Histograms<LevelLabel> = Family::new_with_constructor(ai_time);
        r.register(
            "gore_ai_search_seconds",
            "Time an AI turn searched, by level",
            ai_search.clone(),
        );
        let analysis_waiting = Gauge::default();
        r.register(
            "gore_analysis_queue_length",
            "Analysis and review searches waiting for a thread",
            analysis_waiting.clone(),
        );
        let analysis_running = Gauge::default();
        r.register(
            "gore_analysis_running",
            "Analysis and review searches running",
            analysis_running.clone(),
        );
        let reviews = Counter::default();
        r.register(
            "gore_reviews_computed",
            "Game reviews this process computed (a web server's or a worker's)",
            reviews.clone(),
        );
        let board_analyses = Counter::default();
        r.register(
            "gore_board_analyses_computed",
            "Analysis board jobs this process computed to their end (a worker's)",
            board_analyses.clone(),
        );
        let bot_game_reads = Counter::default();
        r.register(
            "gore_bot_game_reads",
            "Reads of a game for the Bot API's game streams (one per change of a game, however many streams follow it)",
            bot_game_reads.clone(),
        );
        let commit_seconds = latency();
        r.register(
            "gore_db_commit_seconds",
            "Time to commit a game's change to the database",
            commit_seconds.clone(),
        );
        let commit_failures = Counter::default();
        r.register(
            "gore_db_commit_failures",
            "Commits the database failed (not conflicts with another server)",
            commit_failures.clone(),
        );
        let failed_closed = Gauge::default();
        r.register(
            "gore_db_failed_closed",
            "1 while the database refuses writes (failed closed), else 0",
            failed_closed.clone(),
        );
        let notices = Counter::default();
        r.register(
            "gore_notices_received",
            "Notices of other servers' changes received (several servers)",
            notices.clone(),
        );
        let catch_up_seconds = latency();
        r.register(
            "gore_catch_up_seconds",
            "From a notice to its game in memory caught up (several servers)",
            catch_up_seconds.clone(),
        );
        let behind = Gauge::default();
        r.register(
            "gore_behind_notices",
            "1 while the server catches up after missed notices, else 0",
            behind.clone(),
        );
        let fds_open = Gauge::default();
        r.register(
            "gore_descriptors_open",
            "File descriptors open",
            fds_open.clone(),
        );
        let fds_limit = Gauge::default();
        r.register(
            "gore_descriptors_limit",
            "The soft limit on file descriptors (RLIMIT_NOFILE)",
            fds_limit.clone(),
        );
        let hashes = Gauge::default();
        r.register(
            "gore_password_hashes_in_flight",
            "Password hashes (argon2id) computing or waiting for a worker",
            hashes.clone(),
        );
        let seeks = Gauge::default();
        r.register(
            "gore_lobby_seeks_waiting",
            "Seeks and challenges waiting in the lobby",
            seeks.clone(),
        );
        let draining = Gauge::default();
        r.register(
            "gore_draining",
            "1 while the server drains before it stops, else 0",
            draining.clone(),
        );
        let paired = Family::<KindLabel, Counter>::default();
        r.register(
            "gore_tournament_games_paired",
            "Tournament games paired by this server, by kind (arena, swiss)",
            paired.clone(),
        );
        let pairing_seconds = latency();
        r.register(
            "gore_tournament_pairing_seconds",
            "A tournament's pass that paired games, from its start to the commit of the games",
            pairing_seconds.clone(),
        );
        Metrics(Arc::new(Inner {
            registry: r,
            actions,
            refused,
            action_seconds,
            commands,
            http_refusals,
            sockets,
            connections,
            connections_refused,
            games,
            ai_waiting,
            ai_running,
            ai_wait,
            ai_search,
            analysis_waiting,
            analysis_running,
            reviews,
            board_analyses,
            bot_game_reads,
            commit_seconds,
            commit_failures,
            failed_closed,
            notices,
            catch_up_seconds,
            behind,
            fds_open,
            fds_limit,
            hashes,
            seeks,
            paired,
            pairing_seconds,
            draining,
        }))
    }

    /// A player's command `command` (a [`GameCommand::NAMES`]) through
    /// `door`, answered after `took`: done, or refused with this code.
    /// Actions are counted in their own families too.
    ///
    /// [`GameCommand::NAMES`]: crate::domain::GameCommand::NAMES
    pub fn command(
        &self,
        door: Door,
        command: &'static str,
        took: Duration,
        outcome: Result<(), ErrorCode>,
    ) {
        let door = door.as_str();
        self.0
            .commands
            .get_or_create(&CommandLabel {
                door,
                command,
                outcome: outcome.map_or_else(ErrorCode::as_str, |()| "ok"),
            })
            .inc();
        if command != "action" {
            return;
        }
        let via = door;
        match outcome {
            Ok(()) => {
                self.0.actions.get_or_create(&ViaLabel { via }).inc();
            }
            Err(code) => {
                self.0
                    .refused
                    .get_or_create(&RefusedLabel {
                        via,
                        code: code.as_str(),
                    })
                    .inc();
            }
        }
        self.0.action_seconds.observe(took.as_secs_f64());
    }

    /// An HTTP answer that is an error with this code.
    pub fn refused(&self, code: ErrorCode) {
        self.0
            .http_refusals
            .get_or_create(&CodeLabel {
                code: code.as_str(),
            })
            .inc();
    }

    /// A socket of `kind` opened: counted until the guard is dropped.
    pub fn socket_opened(&self, kind: SocketKind) -> SocketOpen {
        let gauge = self
            .0
            .sockets
            .get_or_create(&KindLabel {
                kind: kind.as_str(),
            })
            .clone();
        gauge.inc();
        SocketOpen(gauge)
    }

    /// A connection opened on the public port: counted until the guard is
    /// dropped.
    pub fn connection_opened(&self) -> ConnectionOpen {
        self.0.connections.inc();
        ConnectionOpen(self.0.connections.clone())
    }

    /// A connection closed unserved.
    pub fn connection_refused(&self, why: ConnRefusal) {
        let why = match why {
            ConnRefusal::Busy => "busy",
            ConnRefusal::Descriptors => "descriptors",
        };
        self.0
            .connections_refused
            .get_or_create(&WhyLabel { why })
            .inc();
    }

    /// The server drains (`true`) or not.
    pub fn set_draining(&self, on: bool) {
        self.0.draining.set(i64::from(on));
    }

    /// The games' AI pool's observer: each turn's wait and search, by
    /// level (its cost).
    pub fn ai_observer(&self) -> crate::ai::Observer {
        let m = self.clone();
        Arc::new(move |level, waited, searched| {
            let label = LevelLabel { level };
            m.0.ai_wait
                .get_or_create(&label)
                .observe(waited.as_secs_f64());
            m.0.ai_search
                .get_or_create(&label)
                .observe(searched.as_secs_f64());
        })
    }
}

impl crate::domain::observe::Observer for Metrics {
    fn committed(&self, took: Duration, ok: bool) {
        self.0.commit_seconds.observe(took.as_secs_f64());
        if !ok {
            self.0.commit_failures.inc();
        }
    }

    fn notice(&self) {
        self.0.notices.inc();
    }

    fn caught_up(&self, took: Duration) {
        self.0.catch_up_seconds.observe(took.as_secs_f64());
    }

    fn paired(&self, kind: &'static str, games: usize, took: Duration) {
        self.0
            .paired
            .get_or_create(&KindLabel { kind })
            .inc_by(games as u64);
        self.0.pairing_seconds.observe(took.as_secs_f64());
    }
}

/// An open socket, counted until dropped.
pub struct SocketOpen(Gauge);

impl Drop for SocketOpen {
    fn drop(&mut self) {
        self.0.dec();
    }
}

/// An open connection, counted until dropped.
pub struct ConnectionOpen(Gauge);

impl Drop for ConnectionOpen {
    fn drop(&mut self) {
        self.0.dec();
    }
}

fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// The levels the metrics read at each scrape, gathered by the caller
/// (the metrics know nothing of the state they come from).
#[derive(Debug, Clone, Copy, Default)]
pub struct Levels {
    /// Games in memory.
    pub games: usize,
    /// AI turns waiting and running.
    pub ai: (usize, usize),
    /// Analyses waiting and running.
    pub analysis: (usize, usize),
    /// Reviews computed since the start (a counter).
    pub reviews: u64,
    /// Board analyses computed since the start (a counter).
    pub boards: u64,
    /// Reads of a game for the Bot API's game streams (a counter).
    pub bot_game_reads: u64,
    /// The store has failed and the server refuses changes.
    pub failed_closed: bool,
    /// The server has not caught up with the store.
    pub behind: bool,
    /// File descriptors open, and their limit.
    pub fds: (usize, usize),
    /// Password hashes in flight.
    pub hashes: usize,
    /// Open seeks in the lobby.
    pub seeks: usize,
}

impl Metrics {
    /// The metrics as Prometheus reads them (OpenMetrics text), with the
    /// levels read now.
    pub fn render(&self, l: &Levels) -> String {
        let m = &self.0;
        m.games.set(count(l.games));
        m.ai_waiting.set(count(l.ai.0));
        m.ai_running.set(count(l.ai.1));
        m.analysis_waiting.set(count(l.analysis.0));
        m.analysis_running.set(count(l.analysis.1));
        m.reviews.inc_by(l.reviews.saturating_sub(m.reviews.get()));
        m.board_analyses
            .inc_by(l.boards.saturating_sub(m.board_analyses.get()));
        m.bot_game_reads
            .inc_by(l.bot_game_reads.saturating_sub(m.bot_game_reads.get()));
        m.failed_closed.set(i64::from(l.failed_closed));
        m.behind.set(i64::from(l.behind));
        m.fds_open.set(count(l.fds.0));
        m.fds_limit.set(count(l.fds.1));
        m.hashes.set(count(l.hashes));
        m.seeks.set(count(l.seeks));
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &m.registry);
        out
    }
}

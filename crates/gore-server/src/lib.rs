//! # gore-server — Goré on the web
//!
//! The server of the web app: games against the AI, against a friend (an
//! invitation link) or on one device, over a JSON API and a WebSocket
//! (docs/API.md), the browser app embedded from `assets/`, and SQLite to
//! keep every game.
//!
//! The server is authoritative: the rules library checks every action, the
//! action is committed to the database (a transaction, `synchronous=FULL`)
//! before it is acknowledged or broadcast, and a game whose AI was to move
//! when the server stopped is resumed when it starts again.
//!
//! Three layers, each knowing only the one below: the edges read requests into typed [`api`]
//! messages, map errors (`error.rs`: one `GameError` → `ApiError` mapping)
//! and write answers; the [`domain`] holds the games, seats, turns and AI
//! turns and answers in its own types (a game's `GameState`, `GameUpdate`,
//! the lobby's `Snapshot`), which only [`api`] turns into JSON, encoded
//! once per audience (the domain keeps each text it is handed); the
//! [`store`] keeps them (SQLite or PostgreSQL), behind the [`store::Store`] trait (the
//! domain's port, [`domain::storage`]).
//!
//! The edges: `http/` (the router and its middleware in `mod.rs`, the
//! API's handlers by area beside it), the sockets `ws`, `lobby_ws` and
//! `analysis_ws` (each a kind of the one socket loop in `socket`, with
//! its upgrade route), `puzzles_http`, and `extract`, what they all read
//! from a request (JSON bodies, the session, the seat token as an
//! extractor, fields such as a clock), which imports none of them. The
//! AI's pool of search threads is [`ai`] (`ai/pool.rs`, `ai/queue.rs`).
//!
//! ```no_run
//! # async fn f() -> anyhow::Result<()> {
//! let config = gore_server::Config::default();
//! gore_server::run(config).await
//! # }
//! ```

mod analysis_ws;
pub mod api;
mod assets;
mod config;
mod doors;
mod error;
mod extract;
mod game_lines;
mod http;
mod limit;
mod lobby_ws;
pub mod metrics;
pub mod net;
mod puzzles_http;
mod socket;
mod state;
mod user_ws;
mod ws;

/// The game domain (crates/gore-domain): the edges reach it here.
pub use gore_domain as domain;
/// The AI's pool of search threads, the domain's.
pub use gore_domain::ai;
/// The solver's database as the AI's leaf evaluation, the domain's.
pub use gore_domain::oracle;
/// Where games are kept (crates/gore-store).
pub use gore_store as store;

use std::io::Write;

use anyhow::Context;
use tokio::net::TcpListener;

pub use config::{Cidr, Config};
pub use domain::{Mode, Seat, Status};
pub use error::{ApiError, ErrorCode};
pub use http::{app, BODY_LIMIT};
pub use state::{AppState, SocketSlot, SocketsFull, INLINE_PAGES_PER_SECOND};
pub use store::schema::VERSION as SCHEMA_VERSION;
pub use store::sqlite::SqliteOptions;
pub use store::DbUrl;
pub use ws::MESSAGE_LIMIT;

/// Serves the app on a bound listener until `shutdown` completes, with
/// the connection limits of the state's [`Config`] (src/net.rs); then
/// drains within [`Config::drain`]: the state drains
/// ([`AppState::begin_drain`]: `/readyz` says 503, new games and sockets
/// are refused `draining`, open sockets are closed with a reason), open
/// sockets get half the bound to close, then the listener closes and open
/// requests (their commits with them) get the rest to finish.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let config = std::sync::Arc::new(state.config().clone());
    let half = config.drain / 2;
    let metrics = state.metrics().clone();
    let drained = {
        let state = state.clone();
        async move {
            shutdown.await;
            tracing::info!(
                "draining: no new games or sockets; {} sockets told to reconnect elsewhere",
                state.open_sockets()
            );
            state.begin_drain();
            // Each socket closes as soon as its loop sees the drain: a
            // short wait, looked at often.
            let _ = tokio::time::timeout(half, async {
                while state.open_sockets() > 0 {
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                }
            })
            .await;
        }
    };
    net::serve(
        listener,
        app(state),
        config.clone(),
        metrics,
        drained,
        config.drain.saturating_sub(half),
    )
    .await
}

/// Serves `GET /metrics` of `state` (Prometheus's text format) on
/// `listener`, a listener of its own (`--metrics-addr`), until `shutdown`
/// completes. Anything else there is 404.
pub async fn serve_metrics(
    listener: TcpListener,
    state: AppState,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    use axum::response::IntoResponse;
    async fn scrape(
        axum::extract::State(state): axum::extract::State<AppState>,
    ) -> axum::response::Response {
        (
            [(axum::http::header::CONTENT_TYPE, metrics::CONTENT_TYPE)],
            state.metrics_text(),
        )
            .into_response()
    }
    let router = axum::Router::new()
        .route("/metrics", axum::routing::get(scrape))
        .with_state(state);
    axum::serve(listener, router)
        .with_graceful_shutdown(shutdown)
        .await
}

/// Runs `gore serve`: opens the database, binds, prints the one line
/// `Goré is ready: open http://ADDR:PORT/` to stdout, and serves until
/// Ctrl-C or SIGTERM.
pub async fn run(config: Config) -> anyhow::Result<()> {
    if let Some(url) = &config.public_url {
        anyhow::ensure!(
            net::PublicUrl::parse(url).is_some(),
            "--public-url {url}: expected http://HOST[:PORT] or https://HOST[:PORT]"
        );
    }
    let state = AppState::open(config.clone()).await?;
    // The assets are compressed once, before the first visitor.
    tokio::task::spawn_blocking(assets::prepare).await?;
    let listener = TcpListener::bind(config.addr)
        .await
        .with_context(|| format!("cannot listen on {}", config.addr))?;
    let addr = listener.local_addr()?;
    // The metrics' own listener: stops with the process (a scrape during
    // the drain still answers).
    let metrics_addr = start_metrics(&config, &state).await?;
    {
        let mut out = std::io::stdout().lock();
        writeln!(out, "Goré is ready: open http://{addr}/")?;
        if let Some(at) = metrics_addr {
            writeln!(out, "Metrics: http://{at}/metrics")?;
        }
        out.flush()?;
    }
    tracing::info!(
        "listening on {addr}, database {}",
        store::redact(&config.db)
    );
    serve(listener, state, shutdown_signal()).await?;
    tracing::info!("stopped");
    Ok(())
}

/// Serves `/metrics` on `--metrics-addr`, if given, in a task of its own;
/// the address it listens on.
async fn start_metrics(
    config: &Config,
    state: &AppState,
) -> anyhow::Result<Option<std::net::SocketAddr>> {
    let Some(at) = config.metrics_addr else {
        return Ok(None);
    };
    let l = TcpListener::bind(at)
        .await
        .with_context(|| format!("--metrics-addr: cannot listen on {at}"))?;
    let at = l.local_addr()?;
    tokio::spawn(serve_metrics(l, state.clone(), std::future::pending()));
    Ok(Some(at))
}

/// Runs an AI worker (`gore worker`): opens the shared database and plays
/// the AI's turns due there, and computes the reviews asked for (with
/// `config.analysis_threads`), until SIGTERM or Ctrl-C; then takes up no new
/// turn or review, lets its searches finish within `config.drain`, and gives up its
/// claims so that the other workers take its turns at once. Prints one
/// line on stdout when it is ready (and one for the metrics, if served).
pub async fn run_worker(config: Config) -> anyhow::Result<()> {
    let threads = config.ai_threads;
    let state = AppState::open(config.clone()).await?;
    let metrics_addr = start_metrics(&config, &state).await?;
    {
        let mut out = std::io::stdout().lock();
        writeln!(
            out,
            "Goré worker is ready: {threads} AI threads on {}",
            store::redact(&config.db)
        )?;
        if let Some(at) = metrics_addr {
            writeln!(out, "Metrics: http://{at}/metrics")?;
        }
        out.flush()?;
    }
    tracing::info!(
        "AI worker: {threads} threads, database {}",
        store::redact(&config.db)
    );
    shutdown_signal().await;
    tracing::info!("stopping: no new AI turns; finishing the searches under way");
    // Both within the one bound.
    tokio::join!(
        state.reviews().stop(config.drain),
        state.boards().stop(config.drain),
        state.games().stop_ai(config.drain)
    );
    tracing::info!("stopped");
    Ok(())
}

/// How the logs are written (`--log-format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LogFormat {
    /// Lines for a person (the default).
    #[default]
    Text,
    /// One JSON object per line, for log pipelines: each line carries the
    /// fields of its spans (a request's `request_id` and `game`).
    Json,
}

impl std::str::FromStr for LogFormat {
    type Err = String;

    fn from_str(s: &str) -> Result<LogFormat, String> {
        match s {
            "text" => Ok(LogFormat::Text),
            "json" => Ok(LogFormat::Json),
            _ => Err(format!("`{s}`: the log formats are text and json")),
        }
    }
}

/// Sends the server's logs to stderr, filtered by `RUST_LOG` (default
/// `info`), in colour only on a terminal. Does nothing if a subscriber is
/// already set.
pub fn init_logging() {
    init_logging_as(LogFormat::Text);
}

/// As [`init_logging`], in `format`.
pub fn init_logging_as(format: LogFormat) {
    use std::io::IsTerminal;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = match format {
        LogFormat::Text => tracing_subscriber::fmt()
            .with_writer(std::io::stderr)
            .with_ansi(std::io::stderr().is_terminal())
            .with_env_filter(filter)
            .try_init(),
        LogFormat::Json => tracing_subscriber::fmt()
            .json()
            .with_current_span(true)
            .with_span_list(true)
            .with_writer(std::io::stderr)
            .with_env_filter(filter)
            .try_init(),
    };
}

/// Ctrl-C, or SIGTERM on Unix.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}

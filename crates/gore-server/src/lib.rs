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

pub mod ai;
mod analysis_ws;
pub mod api;
mod assets;
mod config;
pub mod domain;
mod error;
mod extract;
mod http;
mod limit;
mod lobby_ws;
pub mod net;
pub mod oracle;
mod puzzles_http;
mod socket;
mod state;
pub mod store;
mod ws;

use std::io::Write;

use anyhow::Context;
use tokio::net::TcpListener;

pub use config::{Cidr, Config};
pub use domain::{Mode, Seat, Status};
pub use error::{ApiError, ErrorCode};
pub use http::{app, BODY_LIMIT};
pub use state::{AppState, SocketSlot, SocketsFull};
pub use store::schema::VERSION as SCHEMA_VERSION;
pub use store::sqlite::SqliteOptions;
pub use store::DbUrl;
pub use ws::MESSAGE_LIMIT;

/// Serves the app on a bound listener until `shutdown` completes (then
/// waits for open requests a few seconds at most), with the connection
/// limits of the state's [`Config`] (src/net.rs).
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let config = std::sync::Arc::new(state.config().clone());
    net::serve(listener, app(state), config, shutdown).await
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
    {
        let mut out = std::io::stdout().lock();
        writeln!(out, "Goré is ready: open http://{addr}/")?;
        out.flush()?;
    }
    tracing::info!("listening on {addr}, database {}", config.db);
    serve(listener, state, shutdown_signal()).await?;
    tracing::info!("stopped");
    Ok(())
}

/// Sends the server's logs to stderr, filtered by `RUST_LOG` (default
/// `info`), in colour only on a terminal. Does nothing if a subscriber is
/// already set.
pub fn init_logging() {
    use std::io::IsTerminal;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(filter)
        .try_init();
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

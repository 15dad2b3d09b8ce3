//! `gore worker`: an AI worker. It plays the AI's turns of the games on a
//! shared database, so that the web servers (`gore serve --ai-threads 0`)
//! never search and AI capacity grows by adding workers (docs/DEPLOY.md,
//! "AI workers").

use std::net::SocketAddr;
use std::time::Duration;

use anyhow::Context;
use clap::Args;

/// Options of `gore worker`.
#[derive(Args)]
pub struct WorkerArgs {
    /// The database the web servers use: postgres://USER:PASSWORD@HOST/DB,
    /// or a SQLite file path on the same machine. Also read from GORE_DB.
    #[arg(long, env = "GORE_DB", hide_env_values = true)]
    db: String,
    /// Searches at once (default: the machine's cores).
    #[arg(long)]
    threads: Option<usize>,
    /// How long the AI thinks at the top level, in milliseconds (as
    /// `gore serve --ai-time-ms`; give both the same).
    #[arg(long)]
    ai_time_ms: Option<u64>,
    /// Plies per game at most (as `gore serve --max-plies`).
    #[arg(long, default_value_t = 2000)]
    max_plies: u32,
    /// The solver's database, for the perfect player and the top level's
    /// endgames (as `gore serve --solver-db`).
    #[arg(long, value_name = "DIR")]
    solver_db: Option<std::path::PathBuf>,
    /// Serve `GET /metrics` (Prometheus's text format) on this address.
    #[arg(long, value_name = "ADDR:PORT")]
    metrics_addr: Option<SocketAddr>,
    /// On SIGTERM or Ctrl-C, how long the worker may take to finish its
    /// searches, in seconds, before it gives up its turns to the others.
    #[arg(long, default_value_t = 10)]
    drain_seconds: u64,
    /// How logs are written to stderr: `text` or `json`.
    #[arg(long, default_value = "text")]
    log_format: gore_server::LogFormat,
}

pub fn run(args: WorkerArgs) -> anyhow::Result<()> {
    gore_server::init_logging_as(args.log_format);
    gore_server::DbUrl::parse(&args.db)?;
    let defaults = gore_server::Config::default();
    let config = gore_server::Config {
        db: args.db,
        ai_time: args
            .ai_time_ms
            .map_or(gore_ai::Level::MAX.default_movetime(), |ms| {
                Duration::from_millis(ms.max(1))
            }),
        ai_threads: args.threads.unwrap_or(defaults.ai_threads).max(1),
        ai_role: gore_server::domain::AiRole::Worker,
        max_plies: args.max_plies.max(1),
        solver_db: args.solver_db,
        metrics_addr: args.metrics_addr,
        drain: Duration::from_secs(args.drain_seconds),
        ..defaults
    };
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the worker's runtime")?
        .block_on(gore_server::run_worker(config))
}

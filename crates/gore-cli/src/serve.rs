//! `gore serve`: the web app and its API (docs/API.md).

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use anyhow::Context;
use clap::Args;

/// Options of `gore serve`.
#[derive(Args)]
pub struct ServeArgs {
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    addr: IpAddr,
    /// The port (0: any free port; the line printed at start says which).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// The database: a SQLite file path or sqlite://PATH (only SQLite is
    /// supported for now).
    #[arg(long, default_value = "gore.sqlite3")]
    db: String,
    /// Requests a second allowed per client address, in bursts of twice as
    /// many; 0 turns the limit off.
    #[arg(long, default_value_t = 20)]
    rate_limit: u32,
    /// How long the AI thinks at level 8, in milliseconds.
    #[arg(long, default_value_t = 1000)]
    ai_time_ms: u64,
}

pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    // Logs go to stderr; stdout carries only the line that says where to go.
    gore_server::init_logging();
    // Checked before anything starts, so that a bad URL is the only error.
    gore_server::DbUrl::parse(&args.db)?;
    let config = gore_server::Config {
        addr: SocketAddr::new(args.addr, args.port),
        db: args.db,
        rate_limit: args.rate_limit,
        ai_time: Duration::from_millis(args.ai_time_ms.max(1)),
    };
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the server's runtime")?
        .block_on(gore_server::run(config))
}

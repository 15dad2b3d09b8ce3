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
    /// The database: a SQLite file path or sqlite://PATH (the default, one
    /// machine), or postgres://USER:PASSWORD@HOST/DB for several servers on
    /// one PostgreSQL database. Also read from GORE_DB.
    // `hide_env_values`: `--help` would print the password.
    #[arg(
        long,
        env = "GORE_DB",
        hide_env_values = true,
        default_value = "gore.sqlite3"
    )]
    db: String,
    /// Requests a second allowed per client address, in bursts of twice as
    /// many; 0 turns the limit off.
    #[arg(long, default_value_t = 20)]
    rate_limit: u32,
    /// Threads for AI searches (default: the machine's cores); 0: this
    /// server never searches, AI workers (`gore worker`) on the same
    /// database play the AI's turns.
    #[arg(long)]
    ai_threads: Option<usize>,
    /// AI turns that may wait for a thread; more AI games are refused
    /// `busy`.
    #[arg(long, default_value_t = 64)]
    ai_queue: usize,
    /// AI games thinking or waiting at once per client address.
    #[arg(long, default_value_t = 2)]
    ai_per_client: usize,
    /// Threads of the analysis pool: the analysis board's and the game
    /// reviews' searches, apart from the games' AI; 0: this server never
    /// runs a review or an analysis, AI workers (`gore worker`) on the
    /// same database do.
    #[arg(long, default_value_t = 1)]
    analysis_threads: usize,
    /// Analysis searches that may wait for a thread; more are refused
    /// `busy`.
    #[arg(long, default_value_t = 16)]
    analysis_queue: usize,
    /// Analysis searches running at once per client address.
    #[arg(long, default_value_t = 1)]
    analysis_per_client: usize,
    /// Analysis searches of one client address that wait their turn
    /// behind its running ones (its other tabs, its reviews); more are
    /// refused `busy`.
    #[arg(long, default_value_t = 4)]
    analysis_waiting_per_client: usize,
    /// One analysis's time at most, in milliseconds (a client may ask for
    /// less, never more).
    #[arg(long, default_value_t = 10_000)]
    analysis_time_ms: u64,
    /// One analysis's nodes at most.
    #[arg(long, default_value_t = 50_000_000)]
    analysis_nodes: u64,
    /// Password hashes (argon2id, 19 MiB each) computed at once (default
    /// and most: the machine's cores).
    #[arg(long)]
    hash_workers: Option<usize>,
    /// Password hashes that may wait for a worker; more sign-ups, log-ins
    /// or password changes are refused `busy`.
    #[arg(long, default_value_t = 8)]
    hash_queue: usize,
    /// The site's public address, e.g. `https://gore.example`: the only
    /// `Host` accepted, and secure cookies when it is https.
    #[arg(long)]
    public_url: Option<String>,
    /// A proxy (address or CIDR range, repeatable) whose X-Forwarded-For
    /// and X-Forwarded-Proto are believed.
    #[arg(long, value_name = "CIDR")]
    trust_proxy: Vec<gore_server::Cidr>,
    /// Open connections per client address at most.
    #[arg(long, default_value_t = 64)]
    max_conns_per_ip: usize,
    /// Spectators' sockets per game at most (a player's own sockets are
    /// never refused by it).
    #[arg(long, default_value_t = 200)]
    max_sockets_per_game: usize,
    /// Sockets per client address at most.
    #[arg(long, default_value_t = 32)]
    max_sockets_per_ip: usize,
    /// Seeks and challenges waiting in the lobby per client address at most.
    #[arg(long, default_value_t = gore_server::domain::lobby::SEEKS_PER_ADDRESS)]
    max_seeks_per_ip: usize,
    /// Schedule an arena every hour (3+2, rated, 57 minutes from each
    /// full hour), once however many servers share the database.
    #[arg(long)]
    tournaments_hourly_arena: bool,
    /// Schedule a Swiss event every day (5+3, rated, 7 rounds, from
    /// 18:00 UTC), once however many servers share the database.
    #[arg(long)]
    tournaments_daily_swiss: bool,
    /// The paces of quick pairing in the lobby, comma-separated
    /// (`3+2,5+3,10+5,15+10,1d,3d` by default).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    paces: Vec<gore_server::domain::clock::TimeControl>,
    /// A puzzle file (`gore puzzles generate`) to serve instead of the
    /// embedded puzzles.
    #[arg(long, value_name = "FILE")]
    puzzles: Option<std::path::PathBuf>,
    /// What `gore serve` and `gore worker` share.
    #[command(flatten)]
    common: CommonArgs,
}

/// The options `gore serve` and `gore worker` share: a worker must think,
/// cap games and read the solver's database as the servers do.
#[derive(Args)]
pub struct CommonArgs {
    /// How long the AI thinks at the top level, in milliseconds: the
    /// budget every AI turn is cut from. Default: the level's one default
    /// (`Level::default_movetime`, 1000 ms). Give servers and workers the
    /// same.
    #[arg(long)]
    ai_time_ms: Option<u64>,
    /// Plies per game at most; the game then ends as a ply cap ends it.
    #[arg(long, default_value_t = 2000)]
    max_plies: u32,
    /// The solver's database (built by `gore solve --db DIR`): ai games
    /// without trades may then choose the perfect player, and the top
    /// level reads it at its leaves.
    #[arg(long, value_name = "DIR")]
    solver_db: Option<std::path::PathBuf>,
    /// Serve `GET /metrics` (Prometheus's text format) on this address, a
    /// listener of its own, e.g. 127.0.0.1:9184; never on the public port.
    /// Default: no metrics.
    #[arg(long, value_name = "ADDR:PORT")]
    metrics_addr: Option<SocketAddr>,
    /// On SIGTERM or Ctrl-C, how long the process may take to stop, in
    /// seconds: a server refuses new games and sockets (503 draining),
    /// tells open sockets to reconnect elsewhere and lets open requests
    /// finish; a worker finishes its searches and gives up its turns.
    #[arg(long, default_value_t = 10)]
    drain_seconds: u64,
    /// How logs are written to stderr: `text`, or `json` (one object a
    /// line, with each request's id and game).
    #[arg(long, default_value = "text")]
    log_format: gore_server::LogFormat,
}

impl CommonArgs {
    /// Starts the logs as asked.
    pub fn init_logging(&self) {
        gore_server::init_logging_as(self.log_format);
    }

    /// `config` with these options.
    pub fn apply(self, config: gore_server::Config) -> gore_server::Config {
        gore_server::Config {
            ai_time: self
                .ai_time_ms
                .map_or(gore_ai::Level::MAX.default_movetime(), |ms| {
                    Duration::from_millis(ms.max(1))
                }),
            max_plies: self.max_plies.max(1),
            solver_db: self.solver_db,
            metrics_addr: self.metrics_addr,
            drain: Duration::from_secs(self.drain_seconds),
            ..config
        }
    }
}

pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    // Logs go to stderr; stdout carries only the line that says where to go.
    args.common.init_logging();
    // Checked before anything starts, so that a bad URL is the only error.
    gore_server::DbUrl::parse(&args.db)?;
    let defaults = gore_server::Config::default();
    let config = gore_server::Config {
        addr: SocketAddr::new(args.addr, args.port),
        db: args.db,
        rate_limit: args.rate_limit,
        ai_threads: args.ai_threads.unwrap_or(defaults.ai_threads),
        ai_role: if args.ai_threads == Some(0) {
            gore_server::domain::AiRole::Elsewhere
        } else {
            gore_server::domain::AiRole::Serve
        },
        ai_queue: args.ai_queue,
        ai_per_client: args.ai_per_client.max(1),
        // More workers than cores would only make every hash slower.
        hash_workers: args
            .hash_workers
            .unwrap_or(defaults.hash_workers)
            .clamp(1, defaults.hash_workers),
        hash_queue: args.hash_queue,
        analysis_threads: args.analysis_threads,
        analysis_queue: args.analysis_queue,
        analysis_per_client: args.analysis_per_client.max(1),
        analysis_waiting_per_client: args.analysis_waiting_per_client,
        analysis_time: Duration::from_millis(args.analysis_time_ms.max(1)),
        analysis_nodes: args.analysis_nodes.max(1),
        public_url: args.public_url,
        trust_proxy: args.trust_proxy,
        max_conns_per_ip: args.max_conns_per_ip.max(1),
        max_sockets_per_game: args.max_sockets_per_game.max(1),
        max_sockets_per_ip: args.max_sockets_per_ip.max(1),
        max_seeks_per_ip: args.max_seeks_per_ip.max(1),
        puzzles: args.puzzles,
        tournaments_hourly_arena: args.tournaments_hourly_arena,
        tournaments_daily_swiss: args.tournaments_daily_swiss,
        paces: if args.paces.is_empty() {
            defaults.paces.clone()
        } else {
            args.paces
        },
        ..defaults
    };
    let config = args.common.apply(config);
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the server's runtime")?
        .block_on(gore_server::run(config))
}

//! What every handler shares: the configuration, the games, the limiter,
//! and the count of sockets per address.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::config::Config;
use crate::domain::GameSettings;
use crate::domain::Games;
use crate::limit::RateLimiter;
use crate::store::{self, sqlite::SqliteOptions, DbUrl, Store};

/// The state every handler shares. Cheap to clone.
#[derive(Clone)]
pub struct AppState(Arc<Inner>);

struct Inner {
    config: Config,
    games: Games,
    players: crate::domain::Players,
    lobby: crate::domain::lobby::Lobby,
    tournaments: crate::domain::tournaments::Tournaments,
    accounts: crate::domain::accounts::Accounts,
    bots: crate::domain::bots::Bots,
    limiter: RateLimiter,
    /// First visits' inline pages per address ([`INLINE_PAGES_PER_SECOND`]).
    inline_pages: RateLimiter,
    /// Open sockets per address (as the rate limiter keys them) and in all.
    sockets: Mutex<(HashMap<IpAddr, usize>, usize)>,
    /// Open sockets in all at most ([`Config::max_sockets`], resolved).
    max_sockets: usize,
    /// The Bot API's game streams per account and per account and game.
    game_streams: crate::limit::Tally,
    /// The Bot API's game streams' lines, one reader per game.
    game_lines: crate::game_lines::GameLines,
    analysis: crate::ai::AiPool,
    solved: Vec<Arc<gore_solver::disk::Database>>,
    reviews: crate::domain::review::Reviews,
    /// The board's analyses asked of the workers, or computed for them.
    boards: crate::domain::boards::Boards,
    puzzles: crate::domain::puzzles::PuzzleBook,
    /// The metrics (src/metrics.rs), served on `--metrics-addr`.
    metrics: crate::metrics::Metrics,
    /// `true` once the server drains before it stops: no new game or
    /// socket, open sockets told to go elsewhere.
    drain: tokio::sync::watch::Sender<bool>,
}

/// Why a socket was refused a place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SocketsFull {
    /// Its address has as many open as it may.
    Address,
    /// The server has as many open as it may.
    Server,
}

/// First visits' inline pages (a few hundred KB each) an address gets a
/// second, in bursts of twice that; beyond, plain pages (a browser loads
/// their assets as a returning one does).
pub const INLINE_PAGES_PER_SECOND: u32 = 4;

/// A socket counted against its address until dropped.
pub struct SocketSlot {
    state: AppState,
    ip: IpAddr,
}

impl Drop for SocketSlot {
    fn drop(&mut self) {
        let mut guard = self
            .state
            .0
            .sockets
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let (map, total) = &mut *guard;
        *total -= 1;
        if let Some(n) = map.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                map.remove(&self.ip);
            }
        }
    }
}

impl AppState {
    /// Opens the store (migrating it, proving it writable) and starts the
    /// housekeeping tasks; must run inside a Tokio runtime.
    pub async fn open(config: Config) -> anyhow::Result<AppState> {
        Self::open_with(config, SqliteOptions::default()).await
    }

    /// As [`AppState::open`], with options for the SQLite store.
    pub async fn open_with(config: Config, options: SqliteOptions) -> anyhow::Result<AppState> {
        let url = DbUrl::parse(&config.db)?;
        let store = store::open(&url, options).await?;
        Ok(Self::with_store(config, store)?)
    }

    /// The server's state over any store (`config.db` is not read); fails
    /// only if the AI's threads cannot be started.
    pub fn with_store(config: Config, store: Arc<dyn Store>) -> std::io::Result<AppState> {
        let (perfect, oracles, solved) = open_solver_db(config.solver_db.as_deref())?;
        // Every analysis job is cheap (no cost above u32::MAX): the pool
        // keeps no lane, its own threads are the bound.
        // `--analysis-threads 0`: the reviews and the board's analyses
        // are the workers' (the pool, of one thread, stays idle).
        let analysis = crate::ai::AiPool::with_waiting(
            config.analysis_threads.max(1),
            config.analysis_queue,
            config.analysis_per_client,
            config.analysis_waiting_per_client,
            u32::MAX,
        )?;
        let puzzles = load_puzzles(config.puzzles.as_deref())?;
        let players = crate::domain::Players::new(store.clone(), config.clock.clone());
        let reviews = crate::domain::review::Reviews::new(
            store.clone(),
            config.clock.clone(),
            (analysis.clone(), config.analysis_threads),
            solved.clone(),
            crate::api::review_text,
            (config.analysis_per_client + config.analysis_waiting_per_client) as u32,
        );
        let boards = crate::domain::boards::Boards::new(
            store.clone(),
            config.clock.clone(),
            (analysis.clone(), config.analysis_threads),
            solved.clone(),
            crate::api::ANALYSIS_WORDS,
            (config.analysis_per_client + config.analysis_waiting_per_client) as u32,
        );
        let lobby_store = store.clone();
        let accounts = crate::domain::accounts::Accounts::new(
            store.clone(),
            config.clock.clone(),
            crate::domain::passwords::Passwords::new(config.hash_workers, config.hash_queue),
        );
        let games = Games::new(
            store,
            GameSettings {
                max_plies: config.max_plies,
                ai_time: config.ai_time,
                ai_threads: config.ai_threads,
                ai_queue: config.ai_queue,
                ai_per_client: config.ai_per_client,
                perfect,
                oracles,
                clock: config.clock.clone(),
                ai_role: config.ai_role,
            },
        )?;
        let tournaments = crate::domain::tournaments::Tournaments::new(
            lobby_store.clone(),
            config.clock.clone(),
            games.ratings().clone(),
            config.tournaments_hourly_arena,
            config.tournaments_daily_swiss,
        );
        let bots = crate::domain::bots::Bots::new(
            lobby_store.clone(),
            config.clock.clone(),
            games.ratings().clone(),
        );
        let lobby = crate::domain::lobby::Lobby::new(
            lobby_store,
            config.clock.clone(),
            config.paces.clone(),
            games.ratings().clone(),
            config.max_seeks_per_ip.max(1),
        );
        // Sockets live long: half the descriptors at most, so that requests
        // (and the other half's refusals) always find one.
        let metrics = crate::metrics::Metrics::new();
        games.observe(Arc::new(metrics.clone()));
        tournaments.observe(Arc::new(metrics.clone()));
        games.ai_pool().observe(metrics.ai_observer());
        // A worker looks for reviews as often as for AI turns.
        let every = match config.ai_role {
            crate::domain::AiRole::Worker => Duration::from_millis(200),
            _ => Duration::from_secs(2),
        };
        reviews.spawn_runner(games.clone(), every);
        // A visitor waits at the board: its jobs are looked for 4 times
        // as often.
        boards.spawn_runner(games.clone(), every / 4);
        if !boards.here() {
            boards.spawn_reader();
        }
        let max_sockets = match config.max_sockets {
            0 => (crate::net::fd_capacity() / 2).max(1),
            n => n,
        };
        let state = AppState(Arc::new(Inner {
            max_sockets,
            limiter: RateLimiter::new(config.rate_limit),
            inline_pages: RateLimiter::new(INLINE_PAGES_PER_SECOND),
            config,
            games,
            players,
            accounts,
            bots,
            lobby,
            tournaments,
            sockets: Mutex::new((HashMap::new(), 0)),
            game_streams: Default::default(),
            game_lines: Default::default(),
            analysis,
            solved,
            reviews,
            boards,
            puzzles,
            metrics,
            drain: tokio::sync::watch::Sender::new(false),
        }));
        state.clone().spawn_janitor();
        Ok(state)
    }

    /// The metrics as Prometheus reads them, with the levels read now.
    pub fn metrics_text(&self) -> String {
        let games = self.games();
        let ai = games.ai_pool().stats();
        let analysis = self.analysis_pool().stats();
        self.metrics().render(&crate::metrics::Levels {
            games: games.in_memory(),
            ai: (ai.waiting, ai.running),
            analysis: (analysis.waiting, analysis.running),
            reviews: self.reviews().computed(),
            boards: self.boards().computed(),
            bot_game_reads: self.game_lines().reads(),
            failed_closed: games.failure().is_some(),
            behind: !games.caught_up(),
            fds: crate::net::descriptors(),
            hashes: self.accounts().passwords().in_flight(),
            seeks: self
                .lobby()
                .snapshot()
                .map_or(0, |s| s.view.challenges.len()),
        })
    }

    /// The cache of finished games' reviews.
    pub fn reviews(&self) -> &crate::domain::review::Reviews {
        &self.0.reviews
    }

    /// The analysis board's jobs (asked of the workers, or computed here
    /// for them).
    pub fn boards(&self) -> &crate::domain::boards::Boards {
        &self.0.boards
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.0.config
    }

    /// The games.
    pub fn games(&self) -> &Games {
        &self.0.games
    }

    /// The players' names.
    pub fn players(&self) -> &crate::domain::Players {
        &self.0.players
    }

    /// The accounts.
    pub fn accounts(&self) -> &crate::domain::accounts::Accounts {
        &self.0.accounts
    }

    /// Tokens, BOT accounts and the Bot API's challenges.
    pub fn bots(&self) -> &crate::domain::bots::Bots {
        &self.0.bots
    }

    /// The lobby.
    pub fn lobby(&self) -> &crate::domain::lobby::Lobby {
        &self.0.lobby
    }

    /// The tournaments.
    pub fn tournaments(&self) -> &crate::domain::tournaments::Tournaments {
        &self.0.tournaments
    }

    /// The analysis pool: the analysis board's and the reviews' searches,
    /// apart from the games' AI (`--analysis-threads`).
    pub fn analysis_pool(&self) -> &crate::ai::AiPool {
        &self.0.analysis
    }

    /// The solved databases of `--solver-db` (no-trades, then
    /// no-trades,skip-origin, those present); empty without one.
    pub fn solved(&self) -> &[Arc<gore_solver::disk::Database>] {
        &self.0.solved
    }

    /// The puzzles (`--puzzles`, or the embedded ones).
    pub fn puzzles(&self) -> &crate::domain::puzzles::PuzzleBook {
        &self.0.puzzles
    }

    /// The metrics.
    pub fn metrics(&self) -> &crate::metrics::Metrics {
        &self.0.metrics
    }

    /// Starts the drain before a stop: `/readyz` says `503 draining`, new
    /// games and sockets are refused, and open sockets are closed with a
    /// reason (their pages reconnect, to another server). Cannot be undone.
    pub fn begin_drain(&self) {
        self.0.metrics.set_draining(true);
        self.0.drain.send_replace(true);
    }

    /// Whether the server drains.
    pub fn is_draining(&self) -> bool {
        *self.0.drain.borrow()
    }

    /// Wakes when the server drains (at once if it does already).
    pub fn drain_watch(&self) -> tokio::sync::watch::Receiver<bool> {
        self.0.drain.subscribe()
    }

    /// Sockets open now, of every kind.
    pub fn open_sockets(&self) -> usize {
        self.0.sockets.lock().unwrap_or_else(|e| e.into_inner()).1
    }

    /// The Bot API's game streams open here, per account and per account
    /// and game.
    pub(crate) fn game_streams(&self) -> &crate::limit::Tally {
        &self.0.game_streams
    }

    /// The Bot API's game streams' lines, read once per game.
    pub(crate) fn game_lines(&self) -> &crate::game_lines::GameLines {
        &self.0.game_lines
    }

    /// The per-address limit of first visits' inline pages.
    pub fn inline_pages(&self) -> &RateLimiter {
        &self.0.inline_pages
    }

    /// The per-address limiter.
    pub fn limiter(&self) -> &RateLimiter {
        &self.0.limiter
    }

    /// Counts a new socket from `ip`, of any kind (game, lobby, analysis);
    /// `None` when that address (an IPv6 /64, as `limit::key`
    /// says) has `max_sockets_per_ip` open already, or every address
    /// together has [`Config::max_sockets`].
    pub fn socket_slot(&self, ip: IpAddr) -> Result<SocketSlot, SocketsFull> {
        let ip = crate::limit::key(ip);
        let mut guard = self.0.sockets.lock().unwrap_or_else(|e| e.into_inner());
        let (map, total) = &mut *guard;
        if *total >= self.0.max_sockets {
            return Err(SocketsFull::Server);
        }
        let n = map.entry(ip).or_insert(0);
        if *n >= self.0.config.max_sockets_per_ip {
            return Err(SocketsFull::Address);
        }
        *n += 1;
        *total += 1;
        Ok(SocketSlot {
            state: self.clone(),
            ip,
        })
    }

    /// Every minute: forget idle addresses.
    fn spawn_janitor(self) {
        let weak = Arc::downgrade(&self.0);
        drop(self);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(60));
            loop {
                tick.tick().await;
                let Some(inner) = weak.upgrade() else { return };
                inner.limiter.prune(Duration::from_secs(60));
                inner.inline_pages.prune(Duration::from_secs(60));
            }
        });
    }
}

/// The solver's database (`--solver-db`), each rule set's files mapped and
/// checked once: the perfect players and the top level's oracles over it,
/// one of each per rule set with layers; both empty without a database. A
/// damaged file is an error (the server does not start); a directory with
/// no layer of either rule set too.
#[allow(clippy::type_complexity)]
fn open_solver_db(
    dir: Option<&std::path::Path>,
) -> std::io::Result<(
    Vec<Arc<gore_solver::perfect::Perfect>>,
    Vec<Arc<crate::oracle::DbOracle>>,
    Vec<Arc<gore_solver::disk::Database>>,
)> {
    let Some(dir) = dir else {
        return Ok((Vec::new(), Vec::new(), Vec::new()));
    };
    let (mut perfect, mut oracles, mut solved) = (Vec::new(), Vec::new(), Vec::new());
    for skip in [false, true] {
        let db = gore_solver::disk::Database::open(dir, skip)
            .map_err(|e| std::io::Error::other(format!("--solver-db {}: {e}", dir.display())))?;
        if let Some(max_n) = db.max_layer() {
            let db = Arc::new(db);
            solved.push(db.clone());
            perfect.push(Arc::new(gore_solver::perfect::Perfect::new(
                db.clone(),
                max_n,
                skip,
            )));
            oracles.extend(crate::oracle::DbOracle::new(db).map(Arc::new));
        }
    }
    if perfect.is_empty() {
        return Err(std::io::Error::other(format!(
            "--solver-db {}: no layer of the rules no-trades or no-trades,skip-origin \
             (build them with gore solve --db {})",
            dir.display(),
            dir.display()
        )));
    }
    Ok((perfect, oracles, solved))
}

/// The puzzles of `--puzzles FILE`, or the embedded ones; a file that does
/// not read or parse is an error (the server does not start).
fn load_puzzles(
    file: Option<&std::path::Path>,
) -> std::io::Result<crate::domain::puzzles::PuzzleBook> {
    use crate::domain::puzzles::PuzzleBook;
    match file {
        None => PuzzleBook::embedded()
            .map_err(|e| std::io::Error::other(format!("the embedded puzzles: {e}"))),
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| std::io::Error::other(format!("--puzzles {}: {e}", path.display())))?;
            PuzzleBook::parse(&text)
                .map_err(|e| std::io::Error::other(format!("--puzzles {}: {e}", path.display())))
        }
    }
}

//! `gore-load`: drives N concurrent games against a running `gore serve`
//! over WebSocket and reports the action-to-broadcast latency.
//!
//! Each simulated game is a `local` game (one token acts for both players):
//! it connects to the game's WebSocket, and on every `state` message plays a
//! random legal action, timing from the send until the `state` carrying
//! that action arrives. Bounded by a number of actions per game and a
//! duration.
//!
//! `--url` may be given several times (or as a comma list): the games are
//! spread over the servers round robin, each game's socket on the server
//! that created it, or with `--socket-elsewhere` on the next one (several
//! servers on one PostgreSQL database serve every game: docs/DEPLOY.md).
//! The spectated game and the long game use the first `--url`.
//!
//! With `--spectators N`, one more game of `--spectate-plies` is crowded by
//! N spectators while it goes on; with `--long-game PLIES`, one game of
//! that many plies is played instead and the server's CPU per action is
//! reported along it (docs/BENCHMARKS.md, issue 8).
//!
//! With `--lobby N`, N players pair by quick pairing at once instead
//! (`lobby.rs`); with `--arena N`, N accounts play one arena and the
//! pairing latency is reported (`arena.rs`); with `--analyses N`, N
//! visitors use the analysis board at once (`analyses.rs`).
//!
//! ```sh
//! gore serve --port 8080 --rate-limit 100000 --db /tmp/load.sqlite3 &
//! cargo run --release -p gore-load -- --url http://127.0.0.1:8080 --games 1000 --actions 20
//! # Two servers on one PostgreSQL database, each socket on the other one:
//! cargo run --release -p gore-load -- --url http://127.0.0.1:8081,http://127.0.0.1:8082 \
//!     --socket-elsewhere --games 1000
//! ```

mod analyses;
mod arena;
mod line;
mod lobby;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use clap::Parser;
use futures_util::{SinkExt, StreamExt};
use gore_server::api::{ClientMsg, Created, GameView, Mode, NewGame, Ply, ServerMsg, Status};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tokio::sync::Mutex;
use tokio_tungstenite::tungstenite::Message;

#[derive(Parser, Clone)]
#[command(version, about)]
struct Args {
    /// A server's base address; repeatable, or a comma list: games are
    /// spread over the servers round robin.
    #[arg(
        long,
        default_value = "http://127.0.0.1:8080",
        value_delimiter = ',',
        num_args = 1
    )]
    url: Vec<String>,
    /// Connect each game's socket to the next server after the one that
    /// created it (with several `--url`): any server must serve any game.
    #[arg(long)]
    socket_elsewhere: bool,
    /// Also watch each game from a spectator's socket on the next server
    /// (with several `--url`), and report the latency from the action's
    /// send until that socket has it: the path through the database's
    /// notices.
    #[arg(long)]
    watch_elsewhere: bool,
    /// Concurrent games.
    #[arg(long, default_value_t = 100)]
    games: usize,
    /// Actions played in each game (fewer if it ends).
    #[arg(long, default_value_t = 20)]
    actions: usize,
    /// Stop after this many seconds whatever is left.
    #[arg(long, default_value_t = 120)]
    duration: u64,
    /// Pause between receiving a state and answering it, in milliseconds
    /// (a human-like pace keeps all games open at once).
    #[arg(long, default_value_t = 200)]
    think_ms: u64,
    /// Seed of the random actions.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Spectators on one more game, a long one that goes on during the
    /// run (the flood of issue 8, point 6); they read every message.
    #[arg(long, default_value_t = 0)]
    spectators: usize,
    /// Plies of the spectated game before the spectators arrive.
    #[arg(long, default_value_t = 150)]
    spectate_plies: usize,
    /// Milliseconds between the spectated game's actions during the run.
    #[arg(long, default_value_t = 100)]
    spectate_pace_ms: u64,
    /// Instead of the games: play one game of this many plies over HTTP,
    /// a line found to last (`line.rs`), and report the time and the
    /// server's CPU per action along the game (the server's `--max-plies`
    /// must allow it).
    #[arg(long)]
    long_game: Option<usize>,
    /// The server's process id, to read its CPU time (`/proc/PID/stat`).
    #[arg(long)]
    server_pid: Option<u32>,
    /// The long game over HTTP rather than its WebSocket.
    #[arg(long)]
    long_over_http: bool,
    /// Actions per line of the long game's report.
    #[arg(long, default_value_t = 1000)]
    window: usize,
    /// Instead of the games: this many players seek a game in the lobby
    /// at once (quick pairing, `--lobby-clock`), spread over the servers;
    /// reports each one's time until paired.
    #[arg(long)]
    lobby: Option<usize>,
    /// The pace of `--lobby`.
    #[arg(long, default_value = "5+3")]
    lobby_clock: String,
    /// Instead of the games: this many visitors of the analysis board
    /// analyse at once on the first `--url`, each from an address of its
    /// own (`analyses.rs`); reports how soon each analysis shows its first
    /// depth and ends.
    #[arg(long)]
    analyses: Option<usize>,
    /// Analyses each visitor asks for, one after another.
    #[arg(long, default_value_t = 20)]
    analysis_rounds: usize,
    /// Each analysis's time, in ms.
    #[arg(long, default_value_t = 300)]
    analysis_ms: u64,
    /// Instead of the games: this many accounts play one arena on the
    /// first `--url` (`arena.rs`); reports the pairing latency.
    #[arg(long)]
    arena: Option<usize>,
    /// The arena's length in minutes (10 to 180).
    #[arg(long, default_value_t = 10)]
    arena_minutes: u32,
    /// Seconds from the arena's creation to its start.
    #[arg(long, default_value_t = 30)]
    arena_lead: u64,
    /// The arena's pace.
    #[arg(long, default_value = "3+2")]
    arena_clock: String,
    /// About how long an arena game lasts before one player resigns (±50%).
    #[arg(long, default_value_t = 10_000)]
    arena_hold_ms: u64,
}

#[derive(Default)]
struct Totals {
    latencies_us: Mutex<Vec<u64>>,
    /// With `--watch-elsewhere`: until the other server's socket has it.
    elsewhere_us: Mutex<Vec<u64>>,
    errors: AtomicU64,
    finished: AtomicU64,
}

#[tokio::main]
async fn main() -> Result<()> {
    let args = Args::parse();
    let http = reqwest::Client::new();
    let servers: Vec<String> = args
        .url
        .iter()
        .map(|u| u.trim().trim_end_matches('/').to_string())
        .filter(|u| !u.is_empty())
        .collect();
    if servers.is_empty() {
        bail!("--url: no server address given");
    }
    let args = Args {
        url: servers.clone(),
        ..args
    };
    if let Some(plies) = args.long_game {
        return long_game(&http, &args, plies).await;
    }
    if let Some(visitors) = args.analyses {
        return analyses::run(analyses::AnalysesArgs {
            url: servers[0].clone(),
            visitors,
            rounds: args.analysis_rounds,
            ms: args.analysis_ms,
            seed: args.seed,
        })
        .await;
    }
    if let Some(players) = args.arena {
        return arena::run(arena::ArenaArgs {
            url: servers[0].clone(),
            players,
            minutes: args.arena_minutes,
            lead: args.arena_lead,
            clock: args.arena_clock.clone(),
            hold: Duration::from_millis(args.arena_hold_ms),
            seed: args.seed,
        })
        .await;
    }
    if let Some(n) = args.lobby {
        return lobby::run(
            &servers,
            n,
            &args.lobby_clock,
            Duration::from_secs(args.duration),
        )
        .await;
    }
    let totals = Arc::new(Totals::default());
    let deadline = Instant::now() + Duration::from_secs(args.duration);
    let ws_bases: Vec<String> = servers.iter().map(|u| ws_base(u)).collect();

    // Create every game first, so that all of them are open together.
    let created = Instant::now();
    let mut games = Vec::with_capacity(args.games);
    for i in 0..args.games {
        let server = i % servers.len();
        let body = NewGame {
            mode: Mode::Local,
            rules: None,
            level: None,
            colour: None,
            honourable: None,
            perfect: None,
            start: None,
            clock: None,
        };
        let r: Created = http
            .post(format!("{}/api/games", servers[server]))
            .json(&body)
            .send()
            .await
            .with_context(|| format!("creating a game on {}", servers[server]))?
            .error_for_status()
            .with_context(|| format!("creating a game on {}", servers[server]))?
            .json()
            .await?;
        games.push((server, r.id, r.token));
    }
    eprintln!(
        "created {} games on {} server(s) in {:.1} s",
        games.len(),
        servers.len(),
        created.elapsed().as_secs_f64()
    );

    let watched = if args.spectators > 0 {
        Some(spectate(&http, &args, &ws_bases[0]).await?)
    } else {
        None
    };

    let started = Instant::now();
    let mut tasks = Vec::new();
    for (i, (server, id, token)) in games.into_iter().enumerate() {
        let on = (server + usize::from(args.socket_elsewhere)) % servers.len();
        let url = format!("{}/api/games/{id}/ws?token={token}", ws_bases[on]);
        let watch = args
            .watch_elsewhere
            .then(|| format!("{}/api/games/{id}/ws", ws_bases[(on + 1) % servers.len()]));
        let totals = totals.clone();
        let args = args.clone();
        tasks.push(tokio::spawn(async move {
            if let Err(e) = drive(&url, watch, &args, i as u64, deadline, &totals).await {
                eprintln!("game {id}: {e:#}");
                totals.errors.fetch_add(1, Ordering::Relaxed);
            }
        }));
    }
    for t in tasks {
        let _ = t.await;
    }
    let wall = started.elapsed();
    if let Some(w) = watched {
        w.stop.store(true, Ordering::Relaxed);
        let played = w.player.await??;
        for r in w.readers {
            r.abort();
        }
        let (msgs, bytes) = (
            w.msgs.load(Ordering::Relaxed),
            w.bytes.load(Ordering::Relaxed),
        );
        println!(
            "spectated game: {} plies, {played} more during the run; {} spectators read {msgs} \
             messages, {:.0} bytes each on average",
            args.spectate_plies,
            w.sockets,
            bytes as f64 / msgs.max(1) as f64
        );
    }
    let mut lat = totals.latencies_us.lock().await.clone();
    lat.sort_unstable();
    let pct = |p: f64| percentile(&lat, p);
    println!(
        "games {}  actions {}  errors {}  finished {}  wall {:.1} s  actions/s {:.0}",
        args.games,
        lat.len(),
        totals.errors.load(Ordering::Relaxed),
        totals.finished.load(Ordering::Relaxed),
        wall.as_secs_f64(),
        lat.len() as f64 / wall.as_secs_f64()
    );
    println!(
        "latency ms: p50 {:.2}  p90 {:.2}  p99 {:.2}  max {:.2}",
        pct(50.0),
        pct(90.0),
        pct(99.0),
        pct(100.0)
    );
    let mut far = totals.elsewhere_us.lock().await.clone();
    if args.watch_elsewhere {
        far.sort_unstable();
        let pct = |p: f64| percentile(&far, p);
        println!(
            "on the other server's socket ({} actions): p50 {:.2}  p90 {:.2}  p99 {:.2}  max {:.2}",
            far.len(),
            pct(50.0),
            pct(90.0),
            pct(99.0),
            pct(100.0)
        );
    }
    if totals.errors.load(Ordering::Relaxed) > 0 {
        bail!("there were errors");
    }
    Ok(())
}

/// A spectator's socket on another server: once its first state is in,
/// a task that reads until the game's last action it is told of (the
/// driver's `sent` times, one per ply) and returns, for each action, the
/// time from its send until this socket had it.
async fn spectate_elsewhere(
    url: &str,
    sent: Arc<std::sync::Mutex<Vec<Instant>>>,
    mut last: tokio::sync::watch::Receiver<usize>,
) -> Result<tokio::task::JoinHandle<Result<Vec<u64>>>> {
    let (mut ws, _) = tokio_tungstenite::connect_async(url)
        .await
        .context("connecting the spectator's WebSocket elsewhere")?;
    let first = ws.next().await.ok_or_else(|| anyhow!("closed at once"))??;
    let Message::Text(t) = first else {
        bail!("the spectator's first message is not text");
    };
    let ServerMsg::State { state } = serde_json::from_str::<ServerMsg>(&t)? else {
        bail!("the spectator's first message is not the state");
    };
    let mut view = *state;
    Ok(tokio::spawn(async move {
        let mut far = Vec::new();
        loop {
            if view.head.ply.index() >= *last.borrow() {
                break;
            }
            let msg = tokio::select! {
                m = ws.next() => m,
                r = last.changed() => {
                    if r.is_err() && view.head.ply.index() < *last.borrow() {
                        break; // the driver gave up
                    }
                    continue;
                }
            };
            let Some(msg) = msg else { break };
            let Message::Text(t) = msg? else { continue };
            let before = view.head.ply.index();
            match serde_json::from_str::<ServerMsg>(&t)? {
                ServerMsg::Update { update } => {
                    if !view.apply(&update) {
                        bail!("an update elsewhere that does not follow the state");
                    }
                }
                ServerMsg::State { state } => view = *state,
                _ => continue,
            }
            let now = Instant::now();
            let sent = sent.lock().unwrap_or_else(|e| e.into_inner()).clone();
            let upto = view.head.ply.index().min(sent.len());
            for at in sent.get(before..upto).unwrap_or_default() {
                far.push(now.duration_since(*at).as_micros() as u64);
            }
            if view.head.status == Status::Over {
                break;
            }
        }
        Ok(far)
    }))
}

/// The `p`th percentile of sorted microseconds, in milliseconds (0 for
/// none): the nearest rank.
fn percentile(sorted_us: &[u64], p: f64) -> f64 {
    if sorted_us.is_empty() {
        return 0.0;
    }
    let i = ((p / 100.0) * (sorted_us.len() - 1) as f64).round() as usize;
    sorted_us[i] as f64 / 1000.0
}

/// The WebSocket base of a server's `http://` or `https://` address.
fn ws_base(url: &str) -> String {
    url.replacen("http://", "ws://", 1)
        .replacen("https://", "wss://", 1)
}

/// Plays one game over its WebSocket.
async fn drive(
    url: &str,
    watch: Option<String>,
    args: &Args,
    index: u64,
    deadline: Instant,
    totals: &Totals,
) -> Result<()> {
    // The spectator elsewhere, connected (its first state read) before
    // the first action; it records when each ply reaches it.
    let sent: Arc<std::sync::Mutex<Vec<Instant>>> = Arc::default();
    let (last_tx, last_rx) = tokio::sync::watch::channel(usize::MAX);
    let spectator = match watch {
        Some(url) => Some(spectate_elsewhere(&url, sent.clone(), last_rx).await?),
        None => None,
    };
    let (mut ws, _) = tokio_tungstenite::connect_async(url)
        .await
        .context("connecting the WebSocket")?;
    let mut rng = ChaCha8Rng::seed_from_u64(args.seed.wrapping_mul(1_000_003) ^ index);
    let mut played = 0usize;
    let mut pending: Option<(usize, Instant)> = None;
    let mut local = Vec::with_capacity(args.actions);
    let mut view: Option<GameView> = None;
    while let Some(msg) = tokio::time::timeout(Duration::from_secs(30), ws.next())
        .await
        .context("no message for 30 s")?
    {
        let msg = msg?;
        let text = match msg {
            Message::Text(t) => t,
            Message::Close(_) => bail!("closed by the server"),
            _ => continue,
        };
        // The first message is the whole state; each later one, what
        // changed, applied to it as a browser does.
        match serde_json::from_str::<ServerMsg>(&text)? {
            ServerMsg::State { state } => view = Some(*state),
            ServerMsg::Update { update } => {
                let v = view
                    .as_mut()
                    .ok_or_else(|| anyhow!("an update before the state"))?;
                if !v.apply(&update) {
                    bail!("an update that does not follow the state");
                }
            }
            ServerMsg::Error { error } => bail!("server error: {:?}: {}", error.code, error),
            ServerMsg::Pong | ServerMsg::Chat { .. } | ServerMsg::ChatHistory { .. } => continue,
        }
        let state = view.as_ref().ok_or_else(|| anyhow!("no state"))?;
        let ply = state.head.ply.index();
        if let Some((want, sent)) = pending.take() {
            if ply < want {
                // A state from before our action reached the server.
                pending = Some((want, sent));
                continue;
            }
            local.push(sent.elapsed().as_micros() as u64);
        }
        if state.head.status == Status::Over {
            totals.finished.fetch_add(1, Ordering::Relaxed);
            break;
        }
        if played >= args.actions || Instant::now() >= deadline {
            break;
        }
        let legal = &state.head.legal;
        if legal.is_empty() {
            bail!("no legal action offered to the local player");
        }
        let action = legal[rng.gen_range(0..legal.len())].to_string();
        if args.think_ms > 0 {
            tokio::time::sleep(Duration::from_millis(rng.gen_range(0..=2 * args.think_ms))).await;
        }
        let msg = serde_json::to_string(&ClientMsg::Action {
            action,
            ply: Some(Ply::of_len(ply)),
        })?;
        let now = Instant::now();
        pending = Some((ply + 1, now));
        {
            let mut sent = sent.lock().unwrap_or_else(|e| e.into_inner());
            sent.resize(ply, now);
            sent.push(now);
        }
        ws.send(Message::Text(msg.into())).await?;
        played += 1;
    }
    let _ = ws.close(None).await;
    totals.latencies_us.lock().await.extend(local);
    if let Some((task, want)) = spectator.map(|t| (t, played)) {
        // The spectator has every action of ours, or is given 10 s more.
        let _ = last_tx.send(sent.lock().unwrap_or_else(|e| e.into_inner()).len());
        let far = tokio::time::timeout(Duration::from_secs(10), task)
            .await
            .map_err(|_| anyhow!("the other server's socket missed actions"))??;
        let far = far?;
        if far.len() < want {
            bail!(
                "the other server's socket saw {} of {want} actions",
                far.len()
            );
        }
        totals.elsewhere_us.lock().await.extend(far);
    }
    Ok(())
}

/// Creates a local game; its id and token.
async fn create_local(http: &reqwest::Client, url: &str) -> Result<(String, String)> {
    let body = NewGame {
        mode: Mode::Local,
        rules: None,
        level: None,
        colour: None,
        honourable: None,
        perfect: None,
        start: None,
        clock: None,
    };
    let r: Created = http
        .post(format!("{url}/api/games"))
        .json(&body)
        .send()
        .await?
        .error_for_status()
        .context("creating a game")?
        .json()
        .await?;
    Ok((r.id, r.token))
}

/// Plays `action` at `ply` over HTTP.
async fn play_http(
    http: &reqwest::Client,
    url: &str,
    id: &str,
    token: &str,
    action: gore_core::Action,
    ply: usize,
) -> Result<()> {
    let r = http
        .post(format!("{url}/api/games/{id}/actions"))
        .bearer_auth(token)
        .json(&serde_json::json!({"action": action.to_string(), "ply": ply}))
        .send()
        .await?;
    if !r.status().is_success() {
        bail!("ply {ply}: {} {}", r.status(), r.text().await?);
    }
    Ok(())
}

/// The spectated game: its spectators' readers and the task playing it.
struct Watched {
    sockets: usize,
    readers: Vec<tokio::task::JoinHandle<()>>,
    player: tokio::task::JoinHandle<Result<usize>>,
    stop: Arc<std::sync::atomic::AtomicBool>,
    msgs: Arc<AtomicU64>,
    bytes: Arc<AtomicU64>,
}

/// Plays `--spectate-plies` in a new game, opens `--spectators` sockets
/// on it (each reads its first state), and starts playing it on.
async fn spectate(http: &reqwest::Client, args: &Args, ws_base: &str) -> Result<Watched> {
    let url = &args.url[0];
    let (id, token) = create_local(http, url).await?;
    let line = line::long_line(args.spectate_plies + 20_000, args.seed)
        .ok_or_else(|| anyhow!("no line found"))?;
    for (i, a) in line[..args.spectate_plies].iter().enumerate() {
        play_http(http, url, &id, &token, *a, i).await?;
    }
    let msgs = Arc::new(AtomicU64::new(0));
    let bytes = Arc::new(AtomicU64::new(0));
    let mut readers = Vec::new();
    let url = format!("{ws_base}/api/games/{id}/ws");
    for _ in 0..args.spectators {
        let (mut ws, _) = tokio_tungstenite::connect_async(&url)
            .await
            .context("a spectator's socket")?;
        match ws.next().await {
            Some(Ok(Message::Text(_))) => {}
            m => bail!("a spectator's first message: {m:?}"),
        }
        let (msgs, bytes) = (msgs.clone(), bytes.clone());
        readers.push(tokio::spawn(async move {
            while let Some(Ok(m)) = ws.next().await {
                if let Message::Text(t) = m {
                    msgs.fetch_add(1, Ordering::Relaxed);
                    bytes.fetch_add(t.len() as u64, Ordering::Relaxed);
                }
            }
        }));
    }
    eprintln!(
        "{} spectators on a game of {} plies",
        args.spectators, args.spectate_plies
    );
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let player = {
        let (http, url, stop) = (http.clone(), url.clone(), stop.clone());
        let (from, pace) = (
            args.spectate_plies,
            Duration::from_millis(args.spectate_pace_ms),
        );
        tokio::spawn(async move {
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) && from + n < line.len() {
                play_http(&http, &url, &id, &token, line[from + n], from + n).await?;
                n += 1;
                tokio::time::sleep(pace).await;
            }
            Ok(n)
        })
    };
    Ok(Watched {
        sockets: args.spectators,
        readers,
        player,
        stop,
        msgs,
        bytes,
    })
}

/// The CPU time (user and system) of process `pid`, from `/proc/PID/stat`.
fn cpu_time(pid: u32) -> Result<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // The fields after the command's closing parenthesis; utime and stime
    // are the 14th and 15th of the line, in clock ticks.
    let rest = stat.rsplit_once(')').map(|x| x.1).unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 =
        f.get(11).unwrap_or(&"0").parse::<u64>()? + f.get(12).unwrap_or(&"0").parse::<u64>()?;
    // In USER_HZ, which Linux fixes at 100 for /proc.
    Ok(Duration::from_millis(ticks * 10))
}

/// `--long-game`: one game of `plies` actions, one after the other, over
/// the game's WebSocket as the page plays (or over HTTP with
/// `--long-over-http`, whose answer is the whole state, log included),
/// reporting every `--window` actions the median time per action and,
/// with `--server-pid`, the server's CPU time per action.
async fn long_game(http: &reqwest::Client, args: &Args, plies: usize) -> Result<()> {
    let t = Instant::now();
    let line = line::long_line(plies, args.seed).ok_or_else(|| anyhow!("no line found"))?;
    eprintln!(
        "a line of {plies} plies found in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    let url = &args.url[0];
    let (id, token) = create_local(http, url).await?;
    println!("game {id}");
    let ws_url = format!("{}/api/games/{id}/ws?token={token}", ws_base(url));
    let mut ws = if args.long_over_http {
        None
    } else {
        let (mut ws, _) = tokio_tungstenite::connect_async(&ws_url).await?;
        ws.next().await.ok_or_else(|| anyhow!("no first state"))??;
        Some(ws)
    };
    println!("plies            action p50 ms   server CPU ms/action");
    let mut times = Vec::with_capacity(args.window);
    let mut cpu0 = args.server_pid.map(cpu_time).transpose()?;
    for (i, a) in line.iter().enumerate() {
        let t = Instant::now();
        match ws.as_mut() {
            None => play_http(http, url, &id, &token, *a, i).await?,
            Some(ws) => {
                let msg = serde_json::to_string(&ClientMsg::Action {
                    action: a.to_string(),
                    ply: Some(Ply::of_len(i)),
                })?;
                ws.send(Message::Text(msg.into())).await?;
                // Until the update that carries it.
                loop {
                    let m = tokio::time::timeout(Duration::from_secs(30), ws.next())
                        .await
                        .context("no message for 30 s")?
                        .ok_or_else(|| anyhow!("closed"))??;
                    let Message::Text(text) = m else { continue };
                    match serde_json::from_str::<ServerMsg>(&text)? {
                        ServerMsg::Update { update } if update.head.ply.index() > i => break,
                        ServerMsg::State { state } if state.head.ply.index() > i => break,
                        ServerMsg::Error { error } => bail!("ply {i}: {error}"),
                        _ => {}
                    }
                }
            }
        }
        times.push(t.elapsed());
        if times.len() == args.window || i + 1 == plies {
            times.sort_unstable();
            let cpu1 = args.server_pid.map(cpu_time).transpose()?;
            let cpu = match (cpu0, cpu1) {
                (Some(a), Some(b)) => {
                    format!("{:.2}", (b - a).as_secs_f64() * 1e3 / times.len() as f64)
                }
                _ => "-".into(),
            };
            println!(
                "{:>6}-{:<6}    {:>8.2}        {cpu:>8}",
                i + 2 - times.len(),
                i + 1,
                times[times.len() / 2].as_secs_f64() * 1e3
            );
            times.clear();
            cpu0 = cpu1;
        }
    }
    Ok(())
}

//! `gore-load`: drives N concurrent games against a running `gore serve`
//! over WebSocket and reports the action-to-broadcast latency.
//!
//! Each simulated game is a `local` game (one token acts for both players):
//! it connects to the game's WebSocket, and on every `state` message plays a
//! random legal action, timing from the send until the `state` carrying
//! that action arrives. Bounded by a number of actions per game and a
//! duration.
//!
//! ```sh
//! gore serve --port 8080 --rate-limit 100000 --db /tmp/load.sqlite3 &
//! cargo run --release -p gore-load -- --url http://127.0.0.1:8080 --games 1000 --actions 20
//! ```

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use clap::Parser;
use futures_util::{SinkExt, StreamExt};
use gore_server::api::{ClientMsg, Created, GameView, Mode, NewGame, ServerMsg, Status};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tokio::sync::Mutex;
use tokio_tungstenite::tungstenite::Message;

#[derive(Parser, Clone)]
#[command(version, about)]
struct Args {
    /// The server's base address.
    #[arg(long, default_value = "http://127.0.0.1:8080")]
    url: String,
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
}

#[derive(Default)]
struct Totals {
    latencies_us: Mutex<Vec<u64>>,
    errors: AtomicU64,
    finished: AtomicU64,
}

#[tokio::main]
async fn main() -> Result<()> {
    let args = Args::parse();
    let http = reqwest::Client::new();
    let totals = Arc::new(Totals::default());
    let deadline = Instant::now() + Duration::from_secs(args.duration);
    let ws_base = args
        .url
        .replacen("http://", "ws://", 1)
        .replacen("https://", "wss://", 1);

    // Create every game first, so that all of them are open together.
    let created = Instant::now();
    let mut games = Vec::with_capacity(args.games);
    for _ in 0..args.games {
        let body = NewGame {
            mode: Mode::Local,
            rules: None,
            level: None,
            colour: None,
            honourable: None,
            start: None,
        };
        let r: Created = http
            .post(format!("{}/api/games", args.url))
            .json(&body)
            .send()
            .await
            .context("creating a game")?
            .error_for_status()
            .context("creating a game")?
            .json()
            .await?;
        games.push((r.id, r.token));
    }
    eprintln!(
        "created {} games in {:.1} s",
        games.len(),
        created.elapsed().as_secs_f64()
    );

    let started = Instant::now();
    let mut tasks = Vec::new();
    for (i, (id, token)) in games.into_iter().enumerate() {
        let url = format!("{ws_base}/api/games/{id}/ws?token={token}");
        let totals = totals.clone();
        let args = args.clone();
        tasks.push(tokio::spawn(async move {
            if let Err(e) = drive(&url, &args, i as u64, deadline, &totals).await {
                eprintln!("game {id}: {e:#}");
                totals.errors.fetch_add(1, Ordering::Relaxed);
            }
        }));
    }
    for t in tasks {
        let _ = t.await;
    }
    let wall = started.elapsed();
    let mut lat = totals.latencies_us.lock().await.clone();
    lat.sort_unstable();
    let pct = |p: f64| -> f64 {
        if lat.is_empty() {
            return 0.0;
        }
        let i = ((p / 100.0) * (lat.len() - 1) as f64).round() as usize;
        lat[i] as f64 / 1000.0
    };
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
    if totals.errors.load(Ordering::Relaxed) > 0 {
        bail!("there were errors");
    }
    Ok(())
}

/// Plays one game over its WebSocket.
async fn drive(
    url: &str,
    args: &Args,
    index: u64,
    deadline: Instant,
    totals: &Totals,
) -> Result<()> {
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
            ServerMsg::Pong => continue,
        }
        let state = view.as_ref().ok_or_else(|| anyhow!("no state"))?;
        let ply = state.head.ply;
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
            ply: Some(ply as u64),
        })?;
        pending = Some((ply + 1, Instant::now()));
        ws.send(Message::Text(msg.into())).await?;
        played += 1;
    }
    let _ = ws.close(None).await;
    totals.latencies_us.lock().await.extend(local);
    Ok(())
}

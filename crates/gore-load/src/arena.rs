//! `--arena N`: N accounts play one arena (issue 29) for its whole
//! length on the first `--url`, and the tool reports the **pairing
//! latency**: from the moment a player is free (his last game ended, or
//! the arena began) until the server shows him paired in a new game.
//!
//! Start the server with `--rate-limit 0 --trust-proxy 127.0.0.1/32`:
//! each player's requests name an address of his own
//! (`X-Forwarded-For`), as real players come from theirs.
//!
//! The accounts sign up (a few at a time: each is an argon2 hash), one of
//! them creates a rated arena of `--arena-minutes` starting
//! `--arena-lead` seconds later, and all join. Each player then loops:
//! he waits to be paired, opens his game, makes his first action when it
//! is his turn (a game without both first actions would be an abort), and
//! one of the two, chosen by the game's id, resigns after a hold of
//! `--arena-hold-ms` (±50%). How the two players of a game wait for each
//! other is the tool's business (in memory): the server sees only what a
//! browser would send.
//!
//! One watcher asks `GET /api/tournaments/{id}` every 100 ms and tells
//! each player his game: the latency is measured to 100 ms. It also
//! checks, at each look, that no player is in two games at once.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{anyhow, bail, Context, Result};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};
use tokio::sync::watch;

/// What the arena run needs from the command line.
pub struct ArenaArgs {
    /// The server.
    pub url: String,
    /// Players.
    pub players: usize,
    /// The arena's length (10 to 180).
    pub minutes: u32,
    /// Seconds from the creation to the start (everyone joins meanwhile).
    pub lead: u64,
    /// The pace.
    pub clock: String,
    /// A game's length before its resignation, about.
    pub hold: Duration,
    /// Seed of the actions and holds.
    pub seed: u64,
}

/// What the watcher last saw.
#[derive(Default)]
struct Seen {
    /// Each player's game being played.
    game_of: HashMap<String, String>,
    /// `upcoming`, `running`, `ending` or `finished`.
    phase: String,
}

/// Two players of one game waiting for each other.
#[derive(Default)]
struct Table {
    games: Mutex<HashMap<String, Arc<GameSync>>>,
}

struct GameSync {
    /// Actions made (by the tool's players).
    acted: watch::Sender<u32>,
    /// When it ended (the resignation's answer).
    ended: watch::Sender<Option<Instant>>,
}

impl Table {
    fn of(&self, game: &str) -> Arc<GameSync> {
        let mut games = self.games.lock().expect("the table");
        games
            .entry(game.to_string())
            .or_insert_with(|| {
                Arc::new(GameSync {
                    acted: watch::channel(0).0,
                    ended: watch::channel(None).0,
                })
            })
            .clone()
    }
}

#[derive(Default)]
struct Counts {
    errors: AtomicU64,
    games: AtomicU64,
    double_booked: AtomicU64,
}

/// Runs the arena load and prints its report.
pub async fn run(a: ArenaArgs) -> Result<()> {
    let http = reqwest::Client::new();
    let base = a.url.clone();
    let tag: u32 = rand::thread_rng().gen_range(0..1_000_000);
    // Accounts, a few at a time (each signup is an argon2 hash).
    let start = Instant::now();
    let mut players = Vec::with_capacity(a.players);
    for chunk in (0..a.players).collect::<Vec<_>>().chunks(4) {
        let names: Vec<(String, Who)> = chunk
            .iter()
            .map(|&i| (format!("L{tag}x{i}"), Who::player(i)))
            .collect();
        let signups = names
            .iter()
            .map(|(n, w)| signup(&http, &base, n, w.clone()));
        for r in futures_util::future::join_all(signups).await {
            players.push(r?);
        }
    }
    eprintln!(
        "{} accounts in {:.1} s",
        players.len(),
        start.elapsed().as_secs_f64()
    );
    let now_ms = SystemTime::now().duration_since(UNIX_EPOCH)?.as_millis() as i64;
    let starts_at = now_ms + a.lead as i64 * 1000;
    let (status, body) = post(
        &http,
        &format!("{base}/api/tournaments"),
        &players[0].1,
        json!({"name": format!("Load {tag}"), "kind": "arena", "clock": a.clock,
               "rated": true, "starts_at": starts_at, "minutes": a.minutes}),
    )
    .await?;
    if status != 201 {
        bail!("creating the arena: {status} {body}");
    }
    let id = body["id"]
        .as_str()
        .ok_or_else(|| anyhow!("no id: {body}"))?
        .to_string();
    for (_, who) in &players {
        let (status, body) = post(
            &http,
            &format!("{base}/api/tournaments/{id}/join"),
            who,
            json!({}),
        )
        .await?;
        if status != 200 {
            bail!("joining: {status} {body}");
        }
    }
    eprintln!(
        "arena {id}: {} joined; it starts in {} s",
        players.len(),
        a.lead
    );
    let begins = Instant::now() + Duration::from_millis((starts_at - now_ms).max(0) as u64);

    let counts = Arc::new(Counts::default());
    let (seen_tx, seen_rx) = watch::channel(Arc::new(Seen::default()));
    let watcher = tokio::spawn(watch_arena(
        http.clone(),
        format!("{base}/api/tournaments/{id}"),
        seen_tx,
        counts.clone(),
    ));
    let table = Arc::new(Table::default());
    let mut tasks = Vec::new();
    for (i, (me, who)) in players.into_iter().enumerate() {
        let p = Player {
            http: http.clone(),
            base: base.clone(),
            me,
            who,
            seen: seen_rx.clone(),
            table: table.clone(),
            counts: counts.clone(),
            hold: a.hold,
            rng: ChaCha8Rng::seed_from_u64(a.seed.wrapping_add(i as u64)),
        };
        tasks.push(tokio::spawn(p.play(begins)));
    }
    let mut latencies = Vec::new();
    for t in tasks {
        match t.await? {
            Ok(mut l) => latencies.append(&mut l),
            Err(e) => {
                counts.errors.fetch_add(1, Ordering::Relaxed);
                eprintln!("a player stopped: {e:#}");
            }
        }
    }
    watcher.abort();
    latencies.sort();
    let pct = |p: f64| -> f64 {
        if latencies.is_empty() {
            return f64::NAN;
        }
        let i = ((latencies.len() as f64 - 1.0) * p).round() as usize;
        latencies[i].as_secs_f64() * 1000.0
    };
    let errors = counts.errors.load(Ordering::Relaxed);
    let double = counts.double_booked.load(Ordering::Relaxed);
    println!(
        "arena: {} players, {} minutes, {} games played, {} pairings; pairing ms: p50 {:.0}, p90 {:.0}, p99 {:.0}, max {:.0}; errors {errors}; a player in two games at once: {double} times",
        a.players,
        a.minutes,
        counts.games.load(Ordering::Relaxed),
        latencies.len(),
        pct(0.5),
        pct(0.9),
        pct(0.99),
        pct(1.0),
    );
    if errors > 0 || double > 0 {
        bail!("the arena run failed: {errors} errors, {double} double bookings");
    }
    Ok(())
}

/// Who sends a request: his session cookie and his address (as a
/// trusted proxy names it: the server is started with `--trust-proxy
/// 127.0.0.1/32`, so that each player has an address of his own, as
/// real players have, and the per-address limits apply to each).
#[derive(Clone)]
struct Who {
    cookie: String,
    address: String,
}

impl Who {
    fn player(i: usize) -> Who {
        Who {
            cookie: String::new(),
            address: format!("10.{}.{}.{}", i >> 16 & 255, i >> 8 & 255, i & 255),
        }
    }

    fn on(&self, r: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        r.header("cookie", &self.cookie)
            .header("x-forwarded-for", &self.address)
    }
}

/// A new account: its public id, and who he is.
async fn signup(
    http: &reqwest::Client,
    base: &str,
    name: &str,
    mut who: Who,
) -> Result<(String, Who)> {
    let r = who
        .on(http.post(format!("{base}/api/account/signup")))
        .json(&json!({"username": name, "password": "load-test-password"}))
        .send()
        .await
        .context("signup")?;
    let cookie = r
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("gore_session="))
        .and_then(|v| v.split(';').next())
        .map(str::to_string);
    let status = r.status();
    let body: Value = r.json().await.unwrap_or_default();
    if status != 201 {
        bail!("signup {name}: {status} {body}");
    }
    who.cookie = cookie.ok_or_else(|| anyhow!("signup {name}: no session cookie"))?;
    let id = body["id"]
        .as_str()
        .ok_or_else(|| anyhow!("signup: no id"))?;
    Ok((id.to_string(), who))
}

async fn post(http: &reqwest::Client, url: &str, who: &Who, body: Value) -> Result<(u16, Value)> {
    let r = who
        .on(http.post(url))
        .json(&body)
        .send()
        .await
        .with_context(|| format!("POST {url}"))?;
    let status = r.status().as_u16();
    Ok((status, r.json().await.unwrap_or_default()))
}

async fn get(http: &reqwest::Client, url: &str, who: &Who) -> Result<Value> {
    let r = who
        .on(http.get(url))
        .send()
        .await
        .with_context(|| format!("GET {url}"))?;
    if !r.status().is_success() {
        bail!("GET {url}: {}", r.status());
    }
    Ok(r.json().await?)
}

/// Looks at the arena every 100 ms until it is finished.
async fn watch_arena(
    http: reqwest::Client,
    url: String,
    tx: watch::Sender<Arc<Seen>>,
    counts: Arc<Counts>,
) {
    let watcher = Who {
        cookie: String::new(),
        address: "10.255.255.255".into(),
    };
    let mut tick = tokio::time::interval(Duration::from_millis(100));
    loop {
        tick.tick().await;
        let v = match get(&http, &url, &watcher).await {
            Ok(v) => v,
            Err(e) => {
                counts.errors.fetch_add(1, Ordering::Relaxed);
                eprintln!("watching: {e:#}");
                continue;
            }
        };
        let mut seen = Seen {
            phase: v["tournament"]["phase"].as_str().unwrap_or("").to_string(),
            ..Seen::default()
        };
        let mut playing = HashSet::new();
        for g in v["playing"].as_array().into_iter().flatten() {
            for seat in ["a", "b"] {
                if let Some(p) = g[seat][0].as_str() {
                    if !playing.insert(p.to_string()) {
                        counts.double_booked.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
        }
        for line in v["standings"].as_array().into_iter().flatten() {
            if let (Some(p), Some(g)) = (line["player"].as_str(), line["game"].as_str()) {
                seen.game_of.insert(p.to_string(), g.to_string());
            }
        }
        let finished = seen.phase == "finished";
        tx.send_replace(Arc::new(seen));
        if finished {
            return;
        }
    }
}

struct Player {
    http: reqwest::Client,
    base: String,
    me: String,
    who: Who,
    seen: watch::Receiver<Arc<Seen>>,
    table: Arc<Table>,
    counts: Arc<Counts>,
    hold: Duration,
    rng: ChaCha8Rng,
}

impl Player {
    /// Plays until the arena pairs no more: each pairing's latency.
    async fn play(mut self, begins: Instant) -> Result<Vec<Duration>> {
        let mut latencies = Vec::new();
        let mut free_since = begins;
        let mut last: Option<String> = None;
        loop {
            // Wait to be paired in a game other than the last.
            let game = loop {
                let (game, phase) = {
                    let s = self.seen.borrow_and_update();
                    (s.game_of.get(&self.me).cloned(), s.phase.clone())
                };
                match game {
                    Some(g) if Some(&g) != last.as_ref() => break g,
                    _ if phase == "ending" || phase == "finished" => return Ok(latencies),
                    _ => {}
                }
                self.seen.changed().await?;
            };
            latencies.push(Instant::now().saturating_duration_since(free_since));
            free_since = self.game(&game).await?;
            last = Some(game);
        }
    }

    /// Plays game `id`: the first action on his turn, then the
    /// resignation (his, or awaited): when it ended.
    async fn game(&mut self, id: &str) -> Result<Instant> {
        let sync = self.table.of(id);
        let url = format!("{}/api/games/{id}", self.base);
        let view = get(&self.http, &url, &self.who).await?;
        let you = view["you"].as_str().unwrap_or("").to_string();
        let first = you == "A";
        // B waits for A's first action.
        if !first {
            let mut acted = sync.acted.subscribe();
            let mut ended = sync.ended.subscribe();
            tokio::select! {
                r = acted.wait_for(|n| *n >= 1) => { r?; }
                r = ended.wait_for(Option::is_some) => { return Ok(r?.unwrap_or_else(Instant::now)); }
            }
        }
        let view = if first {
            view
        } else {
            get(&self.http, &url, &self.who).await?
        };
        if view["status"] != "playing" {
            return self.ended(&sync).await;
        }
        let legal: Vec<String> = view["legal"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|a| a.as_str().map(str::to_string))
            .collect();
        if legal.is_empty() {
            bail!(
                "game {id}: {you} has no legal action at ply {}",
                view["ply"]
            );
        }
        let action = &legal[self.rng.gen_range(0..legal.len())];
        let (status, body) = post(
            &self.http,
            &format!("{url}/actions"),
            &self.who,
            json!({"action": action, "ply": view["ply"]}),
        )
        .await?;
        if status != 200 {
            self.counts.errors.fetch_add(1, Ordering::Relaxed);
            eprintln!("game {id}: action {action}: {status} {body}");
        }
        sync.acted.send_modify(|n| *n += 1);
        // The resigner: A or B by the id's last character.
        let resigner_is_a = id.bytes().last().unwrap_or(0).is_multiple_of(2);
        if resigner_is_a != first {
            return self.ended(&sync).await;
        }
        // After both first actions and the hold.
        sync.acted.subscribe().wait_for(|n| *n >= 2).await?;
        let ms = self.hold.as_millis() as u64;
        let hold = self.rng.gen_range(ms / 2..=ms + ms / 2);
        tokio::time::sleep(Duration::from_millis(hold)).await;
        let (status, body) =
            post(&self.http, &format!("{url}/resign"), &self.who, json!({})).await?;
        let at = Instant::now();
        if status != 200 {
            self.counts.errors.fetch_add(1, Ordering::Relaxed);
            eprintln!("game {id}: resign: {status} {body}");
        }
        self.counts.games.fetch_add(1, Ordering::Relaxed);
        sync.ended.send_replace(Some(at));
        Ok(at)
    }

    /// Waits for the other player's resignation.
    async fn ended(&self, sync: &GameSync) -> Result<Instant> {
        let mut ended = sync.ended.subscribe();
        let at = ended.wait_for(Option::is_some).await?;
        Ok(at.unwrap_or_else(Instant::now))
    }
}

//! `--lobby N`: N players in the lobby at once, all seeking the same pace
//! in the same moment (quick pairing), spread over the `--url` servers.
//! Each opens a session (`GET /api/me`) and the lobby socket, and once all
//! are in, each sends its seek; the time from its send until its `paired`
//! arrives is its pairing time. Checks that everyone is paired once, in
//! pairs of two (each game named by exactly two players).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

/// Runs the lobby load: `players` seekers of `clock` over `servers`.
pub async fn run(servers: &[String], players: usize, clock: &str, timeout: Duration) -> Result<()> {
    if players % 2 == 1 {
        bail!("--lobby: an even number of players (each game takes two)");
    }
    let http = reqwest::Client::new();
    // Sessions and sockets first, a few at a time.
    let mut sockets = Vec::with_capacity(players);
    let start = Instant::now();
    for i in 0..players {
        let base = &servers[i % servers.len()];
        let r = http
            .get(format!("{base}/api/me"))
            .send()
            .await
            .context("GET /api/me")?;
        let cookie = r
            .headers()
            .get("set-cookie")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .ok_or_else(|| anyhow!("no session cookie"))?
            .to_string();
        let ws_url = format!("{}/api/lobby/ws", super::ws_base(base));
        let mut req = ws_url.into_client_request()?;
        req.headers_mut().insert("cookie", cookie.parse()?);
        let (ws, _) = tokio_tungstenite::connect_async(req)
            .await
            .with_context(|| format!("lobby socket {i}"))?;
        sockets.push(ws);
    }
    eprintln!(
        "{players} players in the lobby on {} server(s) in {:.1} s",
        servers.len(),
        start.elapsed().as_secs_f64()
    );
    // Everyone seeks at once: each task sends, then waits for `paired`.
    let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(players));
    let mut tasks = Vec::with_capacity(players);
    for ws in sockets {
        let barrier = barrier.clone();
        let clock = clock.to_string();
        tasks.push(tokio::spawn(async move {
            let (mut tx, mut rx) = ws.split();
            barrier.wait().await;
            let sent = Instant::now();
            let seek = serde_json::json!({"type": "seek", "clock": clock}).to_string();
            tx.send(Message::Text(seek.into())).await?;
            let deadline = tokio::time::sleep(timeout);
            tokio::pin!(deadline);
            loop {
                tokio::select! {
                    m = rx.next() => match m {
                        Some(Ok(Message::Text(t))) => {
                            let v: serde_json::Value = serde_json::from_str(t.as_str())?;
                            if v["type"] == "paired" {
                                let game = v["game"].as_str().unwrap_or_default().to_string();
                                return Ok::<_, anyhow::Error>((sent.elapsed(), game));
                            }
                            if v["type"] == "error" {
                                bail!("refused: {}", v["error"]);
                            }
                        }
                        Some(Ok(_)) => {}
                        Some(Err(e)) => bail!("socket: {e}"),
                        None => bail!("socket closed"),
                    },
                    () = &mut deadline => bail!("not paired within {timeout:?}"),
                }
            }
        }));
    }
    let mut times = Vec::with_capacity(players);
    let mut games: HashMap<String, usize> = HashMap::new();
    let mut errors = 0usize;
    for t in tasks {
        match t.await? {
            Ok((d, g)) => {
                times.push(d);
                *games.entry(g).or_default() += 1;
            }
            Err(e) => {
                errors += 1;
                if errors <= 5 {
                    eprintln!("a player: {e}");
                }
            }
        }
    }
    times.sort();
    let pct = |p: f64| -> f64 {
        if times.is_empty() {
            return f64::NAN;
        }
        let i = ((times.len() as f64 - 1.0) * p).round() as usize;
        times[i].as_secs_f64() * 1000.0
    };
    let pairs_ok = games.values().all(|&n| n == 2);
    println!(
        "lobby: {players} players, {} paired in {} games, {errors} errors; pairing ms: p50 {:.0}, p90 {:.0}, p99 {:.0}, max {:.0}; every game has two players: {pairs_ok}",
        times.len(),
        games.len(),
        pct(0.5),
        pct(0.9),
        pct(0.99),
        pct(1.0),
    );
    if errors > 0 || !pairs_ok {
        bail!("the lobby failed: {errors} errors, pairs ok: {pairs_ok}");
    }
    Ok(())
}

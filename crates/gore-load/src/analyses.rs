//! `--analyses N`: N visitors of the analysis board at once, each from an
//! address of its own (`X-Forwarded-For`: start the server with
//! `--trust-proxy 127.0.0.1/32`), each analysing `--analysis-rounds`
//! positions one after another (a random line of 0 to 30 plies from the
//! standard start), each for `--analysis-ms`. Reported: from `analyse` to
//! the first `depth` (how soon the board shows something), and from
//! `analyse` to `done` beyond the analysis's own time (what the path
//! adds: a thread of the server, or a worker's job and its batches, docs/
//! DEPLOY.md "AI workers").
//!
//! ```sh
//! gore serve --port 8080 --rate-limit 0 --trust-proxy 127.0.0.1/32 --db /tmp/a.sqlite3 &
//! cargo run --release -p gore-load -- --url http://127.0.0.1:8080 --analyses 1 --analysis-rounds 30
//! ```

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};
use futures_util::{SinkExt, StreamExt};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};
use tokio::sync::Mutex;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

/// What `--analyses` runs.
pub struct AnalysesArgs {
    /// The server's base address.
    pub url: String,
    /// Visitors at once.
    pub visitors: usize,
    /// Analyses each, one after another.
    pub rounds: usize,
    /// Each analysis's time.
    pub ms: u64,
    /// The lines' seed.
    pub seed: u64,
}

/// Each analysis's times, in microseconds.
#[derive(Default)]
struct Times {
    first_depth: Vec<u64>,
    beyond: Vec<u64>,
    errors: Vec<String>,
}

/// Runs the visitors and prints what they saw.
pub async fn run(a: AnalysesArgs) -> Result<()> {
    let times = Arc::new(Mutex::new(Times::default()));
    let url = format!("{}/api/analysis/ws", super::ws_base(&a.url));
    let mut tasks = Vec::new();
    for v in 0..a.visitors {
        let (url, times) = (url.clone(), times.clone());
        let (rounds, ms, seed) = (a.rounds, a.ms, a.seed + v as u64);
        tasks.push(tokio::spawn(async move {
            if let Err(e) = visit(&url, v, rounds, ms, seed, &times).await {
                times.lock().await.errors.push(format!("{e:#}"));
            }
        }));
    }
    for t in tasks {
        t.await?;
    }
    let mut t = Arc::try_unwrap(times)
        .map_err(|_| anyhow!("a visitor still runs"))?
        .into_inner();
    t.first_depth.sort_unstable();
    t.beyond.sort_unstable();
    let p = |v: &[u64]| {
        let q = |x| super::percentile(v, x);
        format!(
            "p50 {:.0}, p90 {:.0}, p99 {:.0}, max {:.0}",
            q(50.0),
            q(90.0),
            q(99.0),
            q(100.0)
        )
    };
    println!(
        "analyses: {} visitors x {} rounds of {} ms: {} done, {} errors; first depth ms: {}; \
         done beyond its time ms: {}",
        a.visitors,
        a.rounds,
        a.ms,
        t.beyond.len(),
        t.errors.len(),
        p(&t.first_depth),
        p(&t.beyond)
    );
    for e in t.errors.iter().take(5) {
        println!("  error: {e}");
    }
    Ok(())
}

/// One visitor: its socket, its analyses one after another.
async fn visit(
    url: &str,
    v: usize,
    rounds: usize,
    ms: u64,
    seed: u64,
    times: &Mutex<Times>,
) -> Result<()> {
    let mut req = url.into_client_request()?;
    let address = format!("10.{}.{}.{}", v >> 16 & 255, v >> 8 & 255, v & 255);
    req.headers_mut()
        .insert("x-forwarded-for", address.parse()?);
    let (mut ws, _) = tokio_tungstenite::connect_async(req)
        .await
        .context("the analysis socket")?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for _ in 0..rounds {
        let plies = rng.gen_range(0..=30);
        let line = super::line::long_line(plies, rng.gen())
            .ok_or_else(|| anyhow!("no line of {plies} plies"))?;
        let line: Vec<String> = line.iter().map(ToString::to_string).collect();
        let asked = Instant::now();
        let analyse = json!({"type": "analyse", "line": line.join(" "), "time_ms": ms});
        ws.send(Message::Text(analyse.to_string().into())).await?;
        let mut first = None;
        loop {
            let m = tokio::time::timeout(Duration::from_secs(600), ws.next())
                .await
                .context("no message in 10 minutes")?
                .ok_or_else(|| anyhow!("the socket closed"))??;
            let Message::Text(t) = m else { continue };
            let m: Value = serde_json::from_str(&t)?;
            match m["type"].as_str() {
                Some("depth") if first.is_none() => first = Some(asked.elapsed()),
                Some("done") => {
                    let mut t = times.lock().await;
                    let us = |d: Duration| d.as_micros() as u64;
                    t.first_depth.extend(first.map(us));
                    let beyond = asked.elapsed().saturating_sub(Duration::from_millis(ms));
                    t.beyond.push(us(beyond));
                    break;
                }
                Some("error") => return Err(anyhow!("{}", m["error"])),
                _ => {}
            }
        }
    }
    Ok(())
}

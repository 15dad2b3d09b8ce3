//! `gore bot`: the bridge between a Goré server's Bot API (docs/API.md,
//! "Bots") and an engine that speaks docs/PROTOCOL.md, like lichess-bot.
//!
//! It follows the account's event stream; accepts the challenges it can
//! play (the rules, the clock, rated or casual, as many games at once as
//! allowed) and declines the others with the reason; follows each game's
//! stream and, on its turn, gives the engine the game from its start and
//! the clocks and plays its `bestaction`. A stream that fails (the
//! network, a server stopped) is opened again after a pause that grows
//! to [`MAX_PAUSE`]; a game's stream says the whole game again
//! (`gameFull`), so nothing is lost: a game goes on where it stands.

use std::collections::HashSet;
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// The longest pause before a stream is opened again.
const MAX_PAUSE: Duration = Duration::from_secs(30);
/// No line (not even a keep-alive, every 5 s) for this long: the stream
/// is taken as dead and opened again.
const SILENCE: Duration = Duration::from_secs(20);

/// `gore bot`'s options.
#[derive(Args, Debug, Clone)]
pub struct BotArgs {
    /// The server, e.g. `https://gore.example.org` or `http://127.0.0.1:8080`.
    #[arg(long)]
    server: String,
    /// The BOT account's API token (scope `bot:play`); also read from
    /// GORE_TOKEN.
    #[arg(long, env = "GORE_TOKEN", hide_env_values = true)]
    token: String,
    /// The engine's command line (split at blanks); default: this
    /// program's `engine`.
    #[arg(long)]
    engine: Option<String>,
    /// The engine's `level` option (1-12).
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u8).range(1..=12))]
    level: u8,
    /// The engine's time for an action of an untimed game, in ms.
    #[arg(long, default_value_t = 1000)]
    movetime: u64,
    /// Games played at once at most; a challenge beyond is declined
    /// (`later`).
    #[arg(long, default_value_t = 1)]
    max_games: usize,
    /// The rule sets accepted, comma-separated (`standard,no-trades`);
    /// default: any.
    #[arg(long, value_delimiter = ',')]
    rules: Vec<String>,
    /// The fewest minutes of a clock accepted.
    #[arg(long)]
    min_minutes: Option<u32>,
    /// The most minutes of a clock accepted.
    #[arg(long)]
    max_minutes: Option<u32>,
    /// Decline untimed games.
    #[arg(long)]
    no_untimed: bool,
    /// Decline rated games.
    #[arg(long)]
    no_rated: bool,
    /// Decline casual games.
    #[arg(long)]
    no_casual: bool,
    /// Challenge this player at the start.
    #[arg(long)]
    challenge: Option<String>,
    /// The clock of that challenge (`5+3`; untimed if absent).
    #[arg(long)]
    challenge_clock: Option<String>,
    /// Make that challenge rated.
    #[arg(long)]
    challenge_rated: bool,
    /// Stop after this many games have ended (scripts, tests).
    #[arg(long)]
    games: Option<usize>,
}

/// Runs the bridge until `--games` games have ended (or forever).
pub fn run(a: BotArgs) -> Result<()> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the bot's runtime")?
        .block_on(main(a))
}

/// The bridge's shared state.
struct Bot {
    args: BotArgs,
    http: reqwest::Client,
    /// The account's public id.
    me: String,
    /// Games being followed.
    playing: Mutex<HashSet<String>>,
    /// Games seen to end.
    ended: Mutex<HashSet<String>>,
    /// How many have ended.
    done: AtomicUsize,
}

impl Bot {
    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.args.server.trim_end_matches('/'))
    }

    /// `POST path` (with a JSON body): the answer's JSON, or the error's.
    async fn post(&self, path: &str, body: Option<Value>) -> Result<Value> {
        let mut req = self.http.post(self.url(path)).bearer_auth(&self.args.token);
        if let Some(b) = body {
            req = req.json(&b);
        }
        let res = req.send().await.with_context(|| format!("POST {path}"))?;
        let status = res.status();
        let v: Value = res.json().await.unwrap_or(Value::Null);
        if !status.is_success() {
            bail!("POST {path}: {status}: {}", v["error"]["message"]);
        }
        Ok(v)
    }

    /// An NDJSON stream's lines.
    async fn open(&self, path: &str) -> Result<Stream> {
        let res = self
            .http
            .get(self.url(path))
            .bearer_auth(&self.args.token)
            .send()
            .await
            .with_context(|| format!("GET {path}"))?;
        let status = res.status();
        if !status.is_success() {
            let v: Value = res.json().await.unwrap_or(Value::Null);
            bail!("GET {path}: {status}: {}", v["error"]["message"]);
        }
        Ok(Stream {
            res,
            buf: Vec::new(),
        })
    }

    /// Why a challenge is declined, if it is.
    fn refusal(&self, c: &Value) -> Option<&'static str> {
        let a = &self.args;
        if self.playing.lock().unwrap_or_else(|e| e.into_inner()).len() >= a.max_games {
            return Some("later");
        }
        let rules = c["rules"].as_str().unwrap_or("");
        if !a.rules.is_empty() && !a.rules.iter().any(|r| r == rules) {
            return Some("rules");
        }
        let rated = c["rated"].as_bool().unwrap_or(false);
        if rated && a.no_rated {
            return Some("casual");
        }
        if !rated && a.no_casual {
            return Some("rated");
        }
        match c["clock"].as_str() {
            None if a.no_untimed => Some("timeControl"),
            None => None,
            // Days per action: an engine bridge that runs for days is
            // not what this one is for.
            Some(c) if c.ends_with('d') => Some("tooSlow"),
            Some(c) => {
                let minutes: u32 = c.split('+').next()?.parse().ok()?;
                if a.min_minutes.is_some_and(|m| minutes < m) {
                    Some("tooFast")
                } else if a.max_minutes.is_some_and(|m| minutes > m) {
                    Some("tooSlow")
                } else {
                    None
                }
            }
        }
    }

    fn finished(&self) -> bool {
        self.args
            .games
            .is_some_and(|n| self.done.load(Ordering::SeqCst) >= n)
    }
}

/// A stream being read, line by line.
struct Stream {
    res: reqwest::Response,
    buf: Vec<u8>,
}

impl Stream {
    /// The next JSON line (keep-alives skipped); an error when the stream
    /// ends, fails or stays silent for [`SILENCE`].
    async fn next(&mut self) -> Result<Value> {
        loop {
            if let Some(i) = self.buf.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.buf.drain(..=i).collect();
                let text = String::from_utf8_lossy(&line);
                if text.trim().is_empty() {
                    continue;
                }
                return serde_json::from_str(&text).context("a line that is not JSON");
            }
            let chunk = tokio::time::timeout(SILENCE, self.res.chunk())
                .await
                .map_err(|_| anyhow!("the stream fell silent"))??
                .ok_or_else(|| anyhow!("the stream ended"))?;
            self.buf.extend_from_slice(&chunk);
        }
    }
}

async fn main(args: BotArgs) -> Result<()> {
    let http = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .build()?;
    let mut pause = Duration::from_secs(1);
    // Who am I: the token must be good (a 401 is final, a fault retried).
    let me = loop {
        let res = http
            .get(format!("{}/api/account", args.server.trim_end_matches('/')))
            .bearer_auth(&args.token)
            .send()
            .await;
        match res {
            Ok(r) if r.status().is_success() => break r.json::<Value>().await?,
            Ok(r) if r.status().as_u16() == 401 => bail!("the server refuses this token"),
            Ok(r) => eprintln!("gore bot: /api/account: {}", r.status()),
            Err(e) => eprintln!("gore bot: {e}"),
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(MAX_PAUSE);
    };
    if me["bot"] != true {
        eprintln!(
            "gore bot: {} is not a BOT account (POST /api/bot/account/upgrade makes it one)",
            me["username"]
        );
    }
    let bot = Arc::new(Bot {
        me: me["id"].as_str().unwrap_or_default().to_string(),
        args,
        http,
        playing: Mutex::new(HashSet::new()),
        ended: Mutex::new(HashSet::new()),
        done: AtomicUsize::new(0),
    });
    eprintln!("gore bot: playing as {}", me["username"]);
    if let Some(name) = bot.args.challenge.clone() {
        let body = json!({
            "clock": bot.args.challenge_clock,
            "rated": bot.args.challenge_rated,
        });
        let c = bot
            .post(&format!("/api/challenge/{name}"), Some(body))
            .await?;
        eprintln!("gore bot: challenged {name}: {}", c["challenge"]["id"]);
    }
    let mut pause = Duration::from_secs(1);
    while !bot.finished() {
        match events(&bot).await {
            Ok(()) => return Ok(()),
            Err(e) => eprintln!("gore bot: events: {e:#}; again in {}s", pause.as_secs()),
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(MAX_PAUSE);
    }
    Ok(())
}

/// Follows the event stream until `--games` are done (`Ok`) or it fails.
async fn events(bot: &Arc<Bot>) -> Result<()> {
    let mut stream = bot.open("/api/stream/event").await?;
    loop {
        let e = stream.next().await?;
        match e["type"].as_str() {
            Some("challenge") => {
                let c = &e["challenge"];
                let id = c["id"].as_str().unwrap_or_default();
                if c["destUser"]["id"] != bot.me.as_str() || c["status"] != "created" {
                    continue;
                }
                let answer = match bot.refusal(c) {
                    None => bot.post(&format!("/api/challenge/{id}/accept"), None).await,
                    Some(reason) => {
                        let body = json!({ "reason": reason });
                        bot.post(&format!("/api/challenge/{id}/decline"), Some(body))
                            .await
                    }
                };
                if let Err(e) = answer {
                    eprintln!("gore bot: challenge {id}: {e:#}");
                }
            }
            Some("gameStart") => {
                let id = e["game"]["id"].as_str().unwrap_or_default().to_string();
                let new = bot
                    .playing
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(id.clone());
                if new {
                    let bot = bot.clone();
                    tokio::spawn(async move {
                        if let Err(e) = play(&bot, &id).await {
                            eprintln!("gore bot: game {id}: {e:#}");
                        }
                        bot.playing
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .remove(&id);
                    });
                }
            }
            Some("gameFinish") => {
                let id = e["game"]["id"].as_str().unwrap_or_default().to_string();
                if bot
                    .ended
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(id)
                {
                    bot.done.fetch_add(1, Ordering::SeqCst);
                }
                if bot.finished() {
                    return Ok(());
                }
            }
            _ => {}
        }
    }
}

/// An engine process speaking docs/PROTOCOL.md.
struct Engine {
    child: Child,
    stdin: ChildStdin,
    out: Lines<BufReader<ChildStdout>>,
}

impl Engine {
    async fn start(bot: &Bot) -> Result<Engine> {
        let mut cmd = match &bot.args.engine {
            Some(line) => {
                let mut words = line.split_whitespace();
                let program = words.next().ok_or_else(|| anyhow!("--engine is empty"))?;
                let mut c = Command::new(program);
                c.args(words);
                c
            }
            None => {
                let mut c = Command::new(std::env::current_exe()?);
                c.arg("engine");
                c
            }
        };
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .context("cannot start the engine")?;
        let stdin = child.stdin.take().context("the engine's stdin")?;
        let out = BufReader::new(child.stdout.take().context("the engine's stdout")?).lines();
        let mut e = Engine { child, stdin, out };
        e.send("gpi").await?;
        e.until("gpiok").await?;
        e.send(&format!("setoption name level value {}", bot.args.level))
            .await?;
        Ok(e)
    }

    async fn send(&mut self, line: &str) -> Result<()> {
        self.stdin.write_all(format!("{line}\n").as_bytes()).await?;
        self.stdin.flush().await?;
        Ok(())
    }

    /// Reads up to a line beginning with `word`: that line.
    async fn until(&mut self, word: &str) -> Result<String> {
        loop {
            let line = self
                .out
                .next_line()
                .await?
                .ok_or_else(|| anyhow!("the engine stopped"))?;
            if line.starts_with("error") {
                bail!("the engine: {line}");
            }
            if line.split_whitespace().next() == Some(word) {
                return Ok(line);
            }
        }
    }
}

/// Plays game `id` to its end, its stream opened again after a fault.
async fn play(bot: &Bot, id: &str) -> Result<()> {
    let mut engine = Engine::start(bot).await?;
    let mut pause = Duration::from_secs(1);
    loop {
        match follow(bot, id, &mut engine).await {
            Ok(()) => break,
            Err(e) => eprintln!("gore bot: game {id}: {e:#}; again in {}s", pause.as_secs()),
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(MAX_PAUSE);
    }
    let _ = engine.send("quit").await;
    let _ = engine.child.wait().await;
    Ok(())
}

/// Follows game `id`'s stream, playing on the bot's turns, until it is
/// over (`Ok`) or the stream fails.
async fn follow(bot: &Bot, id: &str, engine: &mut Engine) -> Result<()> {
    let mut stream = bot.open(&format!("/api/bot/game/stream/{id}")).await?;
    let full = stream.next().await?;
    if full["type"] != "gameFull" {
        bail!("the game stream began with {}", full["type"]);
    }
    let you = full["you"].as_str().unwrap_or("").to_string();
    let start = full["start"].as_str().unwrap_or("").to_string();
    let increment = full["clock"]
        .as_str()
        .and_then(|c| c.split_once('+'))
        .and_then(|(_, s)| s.parse::<u64>().ok())
        .map(|s| s * 1000);
    engine
        .send(&format!(
            "rules {}",
            full["rules"].as_str().unwrap_or("standard")
        ))
        .await?;
    engine.send("newgame").await?;
    let mut state = full["state"].clone();
    loop {
        if state["status"] != "started" {
            return Ok(());
        }
        if state["to_move"] == you.as_str() {
            let actions = state["actions"].as_str().unwrap_or("");
            let mut position = format!("position gpn {start}");
            if !actions.is_empty() {
                position = format!("{position} actions {actions}");
            }
            engine.send(&position).await?;
            let go = match (state["clock"].as_object(), increment) {
                (Some(c), Some(inc)) => format!(
                    "go atime {} btime {} ainc {inc} binc {inc}",
                    c["A"].as_i64().unwrap_or(0).max(0),
                    c["B"].as_i64().unwrap_or(0).max(0)
                ),
                _ => format!("go movetime {}", bot.args.movetime),
            };
            engine.send(&go).await?;
            let best = engine.until("bestaction").await?;
            let action = best
                .split_whitespace()
                .nth(1)
                .ok_or_else(|| anyhow!("a bestaction without an action"))?;
            // A refusal (the game ended meanwhile, a stale turn) is said;
            // the stream's next state decides what comes next.
            if let Err(e) = bot
                .post(&format!("/api/bot/game/{id}/move/{action}"), None)
                .await
            {
                eprintln!("gore bot: game {id}: {e:#}");
            }
        }
        state = stream.next().await?;
    }
}

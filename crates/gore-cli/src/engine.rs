//! `gore engine`: the line-based engine protocol on stdin/stdout
//! (docs/PROTOCOL.md).
//!
//! The main thread reads commands and answers them at once; `go` hands the
//! engine and a copy of the game to a worker thread, which prints `info`
//! lines and the `bestaction`, then hands the engine back. So `stop`,
//! `isready` and `quit` are read while a search runs. Every output line is
//! written under the stdout lock and flushed, so lines never interleave.

use std::io::{self, BufRead, Read, Write};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::Duration;

use anyhow::Result;
use clap::Args;
use gore_ai::{Engine, Info, Limits, Options, MAX_LEVEL};
use gore_core::{Action, Game, GpnError, Position, Rules};

#[derive(Args)]
pub struct EngineArgs {}

/// The longest command line read; longer lines are answered with an error.
const MAX_LINE: usize = 64 * 1024;
/// The search time of a `go` without any limit.
const DEFAULT_MOVETIME: Duration = Duration::from_millis(1000);
/// Bounds of the `hash` option, in MiB.
const HASH_MIN: usize = 1;
const HASH_MAX: usize = 4096;
/// Bounds of `go depth` (the search never goes deeper).
const DEPTH_MAX: u64 = Limits::MAX_DEPTH as u64;

pub fn run(_args: EngineArgs) -> Result<()> {
    let mut input = io::stdin().lock();
    let mut session = Session::new();
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let n = match read_line(&mut input, &mut buf) {
            Ok(n) => n,
            Err(e) => {
                session.finish(true);
                return Err(e.into());
            }
        };
        if n == 0 {
            // End of input: let a bounded search finish, stop an infinite one.
            session.finish(false);
            return Ok(());
        }
        if buf.len() > MAX_LINE {
            send(&format!("error line longer than {MAX_LINE} bytes"));
            continue;
        }
        let line = String::from_utf8_lossy(&buf);
        if session.handle(&line) == Flow::Quit {
            session.finish(true);
            return Ok(());
        }
    }
}

/// Reads one line (without its end) into `buf`; 0 at end of input. A line
/// longer than [`MAX_LINE`] is read to its end but only its start is kept
/// (`buf` is then longer than `MAX_LINE`).
fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>) -> io::Result<usize> {
    let mut total = input
        .by_ref()
        .take(MAX_LINE as u64 + 1)
        .read_until(b'\n', buf)?;
    if buf.len() > MAX_LINE && buf.last() != Some(&b'\n') {
        // Skip the rest of an over-long line.
        let mut rest = Vec::new();
        loop {
            rest.clear();
            let n = input
                .by_ref()
                .take(MAX_LINE as u64)
                .read_until(b'\n', &mut rest)?;
            total += n;
            if n == 0 || rest.last() == Some(&b'\n') {
                break;
            }
        }
    }
    while matches!(buf.last(), Some(b'\n' | b'\r')) {
        buf.pop();
    }
    Ok(total)
}

/// Writes one line and flushes it, holding the stdout lock for the whole
/// line. Write errors (the reader went away) are ignored: the end of the
/// input follows.
fn send(line: &str) {
    let mut out = io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// A piece of the input, quoted for an error line: control characters
/// escaped, at most 40 characters.
fn quote(s: &str) -> String {
    let mut t = String::new();
    for (i, c) in s.chars().enumerate() {
        if i == 40 {
            t.push('…');
            break;
        }
        if c.is_control() {
            t.extend(c.escape_default());
        } else {
            t.push(c);
        }
    }
    format!("`{t}`")
}

#[derive(Debug, PartialEq, Eq)]
enum Flow {
    Continue,
    Quit,
}

/// A search running in the worker thread.
struct Search {
    handle: JoinHandle<Option<Engine>>,
    stop: Arc<AtomicBool>,
    /// Set by the worker just before it prints `bestaction`.
    done: Arc<AtomicBool>,
    infinite: bool,
}

struct Session {
    /// The options set by `setoption`, applied to the engine at each `go`.
    options: Options,
    /// The engine while no search holds it.
    engine: Option<Engine>,
    /// `newgame` was sent: clear the table before the next search.
    clear_hash: bool,
    rules: Rules,
    game: Game,
    search: Option<Search>,
}

impl Session {
    fn new() -> Session {
        let options = Options::default();
        Session {
            options,
            engine: Some(Engine::new(options)),
            clear_hash: false,
            rules: Rules::STANDARD,
            game: Game::new(Rules::STANDARD),
            search: None,
        }
    }

    /// Whether a search is running (one that has printed its bestaction,
    /// or is about to, no longer counts).
    fn searching(&self) -> bool {
        self.search
            .as_ref()
            .is_some_and(|s| !s.done.load(Ordering::SeqCst))
    }

    /// Waits for the worker (stopping it first if `stop`) and takes the
    /// engine back.
    fn join(&mut self, stop: bool) {
        if let Some(s) = self.search.take() {
            if stop {
                s.stop.store(true, Ordering::SeqCst);
                s.handle.thread().unpark();
            }
            // A search that failed loses its engine: start afresh.
            let engine = s.handle.join().ok().flatten();
            self.engine = Some(engine.unwrap_or_else(|| Engine::new(self.options)));
        }
    }

    /// Before exiting: stop the search (`quit`), or let a bounded one
    /// finish and stop only an infinite one (end of input).
    fn finish(&mut self, stop: bool) {
        let stop = stop || self.search.as_ref().is_some_and(|s| s.infinite);
        self.join(stop);
    }

    /// Answers one command line.
    fn handle(&mut self, line: &str) -> Flow {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&cmd, args)) = words.split_first() else {
            return Flow::Continue;
        };
        let result = match cmd {
            "gpi" => no_args(cmd, args).map(|()| gpi()),
            "isready" => no_args(cmd, args).map(|()| send("readyok")),
            "setoption" => self.setoption(args),
            "rules" => self.set_rules(args),
            "newgame" => no_args(cmd, args).map(|()| {
                self.clear_hash = true;
                self.game = Game::new(self.rules);
            }),
            "position" => self.position(args),
            "go" => self.go(args),
            "stop" => no_args(cmd, args).map(|()| self.join(true)),
            "legal" => no_args(cmd, args).map(|()| {
                let mut line = String::from("legal");
                for a in self.game.legal_actions().iter() {
                    line.push(' ');
                    line.push_str(&a.to_string());
                }
                send(&line);
            }),
            "d" | "show" => no_args(cmd, args).map(|()| {
                send(&format!("position {}", self.game.position()));
                send(&format!("rules {}", self.rules));
            }),
            "quit" => match no_args(cmd, args) {
                Ok(()) => return Flow::Quit,
                Err(e) => Err(e),
            },
            _ => Err(format!(
                "unknown command {} (commands: gpi isready setoption rules newgame position go stop legal d show quit)",
                quote(cmd)
            )),
        };
        if let Err(e) = result {
            send(&format!("error {e}"));
        }
        Flow::Continue
    }

    fn setoption(&mut self, args: &[&str]) -> Result<(), String> {
        const USAGE: &str = "setoption: expected `setoption name <name> value <value>`";
        let [name_kw, name, value_kw, value] = args else {
            return Err(match args {
                [] => USAGE.to_string(),
                ["name"] => "setoption: missing the option name".to_string(),
                ["name", _] | ["name", _, "value"] => {
                    "setoption: missing the value (setoption name <name> value <value>)".to_string()
                }
                _ => USAGE.to_string(),
            });
        };
        if *name_kw != "name" || *value_kw != "value" {
            return Err(USAGE.to_string());
        }
        let mut o = self.options;
        match name.to_ascii_lowercase().as_str() {
            "level" => {
                o.level = parse_num(value, 1, MAX_LEVEL as u64)
                    .map_err(|e| format!("setoption level: {e}"))? as u8
            }
            "honourable" => {
                o.honourable = match value.to_ascii_lowercase().as_str() {
                    "true" => true,
                    "false" => false,
                    _ => {
                        return Err(format!(
                            "setoption honourable: {} is not true or false",
                            quote(value)
                        ))
                    }
                }
            }
            "hash" => {
                o.hash_mb = parse_num(value, HASH_MIN as u64, HASH_MAX as u64)
                    .map_err(|e| format!("setoption hash: {e}"))?
                    as usize
            }
            "seed" => {
                o.seed =
                    parse_num(value, 0, u64::MAX).map_err(|e| format!("setoption seed: {e}"))?
            }
            _ => {
                return Err(format!(
                    "setoption: unknown option {} (options: level, honourable, hash, seed)",
                    quote(name)
                ))
            }
        }
        self.options = o;
        Ok(())
    }

    fn set_rules(&mut self, args: &[&str]) -> Result<(), String> {
        let [text] = args else {
            return Err(if args.is_empty() {
                "rules: missing the rule set, as `rules standard` or `rules skip-origin,ply-cap=200`"
                    .to_string()
            } else {
                "rules: expected one word, options joined by commas without spaces (skip-origin,ply-cap=200)"
                    .to_string()
            });
        };
        let rules: Rules = text.parse().map_err(|e| format!("{e}"))?;
        self.rules = rules;
        self.game = Game::new(rules);
        Ok(())
    }

    fn position(&mut self, args: &[&str]) -> Result<(), String> {
        let (start, rest) = match args.split_first() {
            Some((&"startpos", rest)) => (Position::new(self.rules.variant), rest),
            Some((&"gpn", rest)) => {
                let end = rest
                    .iter()
                    .position(|w| *w == "actions")
                    .unwrap_or(rest.len());
                if end == 0 {
                    return Err("position gpn: missing the five GPN fields".to_string());
                }
                let gpn = rest[..end].join(" ");
                let pos = Position::from_gpn(&gpn, self.rules.variant).map_err(|e| match e {
                    GpnError::Parse(e) => format!("position gpn: {e}"),
                    // "position: holes and captured totals hold ..."
                    GpnError::Invalid(e) => format!("position gpn: invalid {e}"),
                })?;
                (pos, &rest[end..])
            }
            Some((w, _)) => {
                return Err(format!(
                    "position: expected startpos or gpn, not {}",
                    quote(w)
                ))
            }
            None => {
                return Err(
                    "position: expected `position startpos` or `position gpn <GPN>`, then optionally `actions <a1> <a2> ...`"
                        .to_string(),
                )
            }
        };
        let mut game = Game::from_position(start, self.rules.ply_cap);
        match rest.split_first() {
            None => {}
            Some((&"actions", actions)) => {
                for (i, token) in actions.iter().enumerate() {
                    let n = i + 1;
                    let action: Action = token
                        .parse()
                        .map_err(|e| format!("position: action {n} {}: {e}", quote(token)))?;
                    game.play(action)
                        .map_err(|e| format!("position: action {n} {}: {e}", quote(token)))?;
                }
            }
            Some((w, _)) => {
                return Err(format!(
                    "position: expected `actions` after the position, not {}",
                    quote(w)
                ))
            }
        }
        self.game = game;
        Ok(())
    }

    fn go(&mut self, args: &[&str]) -> Result<(), String> {
        if self.searching() {
            return Err("go: already searching (send stop first)".to_string());
        }
        let mut limits = Limits::default();
        let mut infinite = false;
        let mut it = args.iter();
        while let Some(&word) = it.next() {
            let mut value = |name: &str, lo: u64, hi: u64| -> Result<u64, String> {
                let v = it
                    .next()
                    .ok_or_else(|| format!("go {name}: missing the number"))?;
                parse_num(v, lo, hi).map_err(|e| format!("go {name}: {e}"))
            };
            let twice = match word {
                "depth" => limits
                    .depth
                    .replace(value(word, 1, DEPTH_MAX)? as u32)
                    .is_some(),
                "nodes" => limits.nodes.replace(value(word, 1, u64::MAX)?).is_some(),
                "movetime" => limits
                    .time
                    .replace(Duration::from_millis(value(word, 1, u64::MAX)?))
                    .is_some(),
                "infinite" => std::mem::replace(&mut infinite, true),
                _ => {
                    return Err(format!(
                    "go: unknown parameter {} (go [depth N] [nodes N] [movetime MS] [infinite])",
                    quote(word)
                ))
                }
            };
            if twice {
                return Err(format!("go: {word} is given twice"));
            }
        }
        let limited = limits != Limits::default();
        if infinite && limited {
            return Err(
                "go: infinite runs until stop; it takes no depth, nodes or movetime".into(),
            );
        }
        if self.game.is_over() {
            return Err("game over".to_string());
        }
        if !infinite && !limited {
            limits.time = Some(DEFAULT_MOVETIME);
        }

        self.join(false);
        let mut engine = self
            .engine
            .take()
            .unwrap_or_else(|| Engine::new(self.options));
        engine.set_options(self.options);
        if std::mem::take(&mut self.clear_hash) {
            engine.new_game();
        }
        let game = self.game.clone();
        let stop = Arc::new(AtomicBool::new(false));
        let done = Arc::new(AtomicBool::new(false));
        let (worker_stop, worker_done) = (Arc::clone(&stop), Arc::clone(&done));
        let handle = thread::spawn(move || {
            let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
                decide(&mut engine, &game, &limits, &worker_stop)
            }));
            let Ok(best) = outcome else {
                worker_done.store(true, Ordering::SeqCst);
                send("error internal: the search failed");
                return None;
            };
            // `go infinite` answers only after `stop`, even when the
            // search ends by itself (a decided game, the depth cap).
            while infinite && !worker_stop.load(Ordering::SeqCst) {
                thread::park_timeout(Duration::from_millis(100));
            }
            worker_done.store(true, Ordering::SeqCst);
            match best {
                Some(a) => send(&format!("bestaction {a}")),
                None => send("error game over"),
            }
            Some(engine)
        });
        self.search = Some(Search {
            handle,
            stop,
            done,
            infinite,
        });
        Ok(())
    }
}

/// The engine's decision: full search with `info` lines at the top level,
/// level play below it.
fn decide(engine: &mut Engine, game: &Game, limits: &Limits, stop: &AtomicBool) -> Option<Action> {
    if engine.options().level < MAX_LEVEL {
        engine.choose(game, limits, stop)
    } else {
        engine
            .search(game, limits, stop, &mut |info| send(&info_line(info)))
            .map(|r| r.best)
    }
}

/// `info depth <d> score <s> nodes <n> nps <n> time <ms> pv <actions...>`.
fn info_line(info: &Info) -> String {
    let mut line = format!(
        "info depth {} score {} nodes {} nps {} time {} pv",
        info.depth,
        info.score,
        info.nodes,
        info.nps(),
        info.elapsed.as_millis()
    );
    for a in &info.pv {
        line.push(' ');
        line.push_str(&a.to_string());
    }
    line
}

/// The answer to `gpi`.
fn gpi() {
    send(&format!("id name gore {}", env!("CARGO_PKG_VERSION")));
    send("id author The Goré project");
    let d = Options::default();
    send(&format!(
        "option name level type spin default {MAX_LEVEL} min 1 max {MAX_LEVEL}"
    ));
    send(&format!(
        "option name honourable type check default {}",
        d.honourable
    ));
    send(&format!(
        "option name hash type spin default {} min {HASH_MIN} max {HASH_MAX}",
        d.hash_mb
    ));
    send(&format!("option name seed type spin default {}", d.seed));
    send("gpiok");
}

/// A command that takes no argument.
fn no_args(cmd: &str, args: &[&str]) -> Result<(), String> {
    match args.first() {
        None => Ok(()),
        Some(w) => Err(format!("{cmd}: unexpected argument {}", quote(w))),
    }
}

/// A whole number in decimal digits, from `lo` to `hi`.
fn parse_num(s: &str, lo: u64, hi: u64) -> Result<u64, String> {
    let range = if hi == u64::MAX {
        format!("a whole number from {lo}")
    } else {
        format!("a whole number from {lo} to {hi}")
    };
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{} is not {range}", quote(s)));
    }
    match s.parse::<u64>() {
        Ok(v) if (lo..=hi).contains(&v) => Ok(v),
        _ => Err(format!("{} is not {range}", quote(s))),
    }
}

//! `gore engine`: the line-based engine protocol on stdin/stdout
//! (docs/PROTOCOL.md). Lines are read as [`Command`]s and answered with
//! [`Reply`]s: the grammar is [`crate::protocol`]'s; this module does what
//! the commands ask.
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
use gore_ai::{Engine, Level, Limits, Options};
use gore_core::{Action, Game, GpnError, Position, Rules};
use gore_solver::perfect::Perfect;

use crate::protocol::{
    quote, Command, EngineOption, Go, InfoLine, OptionKind, Reply, Start, HASH_MAX, HASH_MIN,
};

#[derive(Args)]
pub struct EngineArgs {}

/// The longest command line read; longer lines are answered with an error.
const MAX_LINE: usize = 64 * 1024;

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
            reply(&Reply::Error(format!("line longer than {MAX_LINE} bytes")));
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

/// Writes one reply line.
fn reply(r: &Reply) {
    send(&r.to_string());
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
    /// `setoption name perfect value true`: play from the database.
    perfect: bool,
    /// `setoption name db value DIR`.
    db: Option<String>,
    /// The database opened for `db` and the rules' `skip-origin`, kept
    /// while they stay the same.
    opened: Option<(String, bool, Arc<Perfect>)>,
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
            perfect: false,
            db: None,
            opened: None,
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
        if line.split_whitespace().next().is_none() {
            return Flow::Continue;
        }
        // A `go` during a search is refused as such, whatever its
        // parameters: the search must be stopped first.
        if line.split_whitespace().next() == Some("go") && self.searching() {
            reply(&Reply::Error(
                "go: already searching (send stop first)".into(),
            ));
            return Flow::Continue;
        }
        let result = match line.parse::<Command>() {
            Err(e) => Err(e.0),
            Ok(command) => match command {
                Command::Gpi => {
                    gpi();
                    Ok(())
                }
                Command::IsReady => {
                    reply(&Reply::ReadyOk);
                    Ok(())
                }
                Command::SetOption(o) => {
                    self.setoption(o);
                    Ok(())
                }
                Command::Rules(rules) => {
                    self.rules = rules;
                    self.game = Game::new(rules);
                    Ok(())
                }
                Command::NewGame => {
                    self.clear_hash = true;
                    self.game = Game::new(self.rules);
                    Ok(())
                }
                Command::Position { start, actions } => self.position(&start, &actions),
                Command::Go(go) => self.go(go),
                Command::Stop => {
                    self.join(true);
                    Ok(())
                }
                Command::Legal => {
                    reply(&Reply::Legal(
                        self.game.legal_actions().iter().copied().collect(),
                    ));
                    Ok(())
                }
                Command::Show => {
                    reply(&Reply::Position(self.game.position().to_string()));
                    reply(&Reply::Rules(self.rules));
                    Ok(())
                }
                Command::Quit => return Flow::Quit,
            },
        };
        if let Err(e) = result {
            reply(&Reply::Error(e));
        }
        Flow::Continue
    }

    fn setoption(&mut self, option: EngineOption) {
        match option {
            EngineOption::Level(l) => self.options.level = l,
            EngineOption::Honourable(h) => self.options.honourable = h,
            EngineOption::Hash(h) => self.options.hash_mb = h,
            EngineOption::Glory(g) => self.options.glory = g,
            EngineOption::Seed(s) => self.options.seed = s,
            EngineOption::Perfect(p) => self.perfect = p,
            EngineOption::Db(d) => self.db = Some(d),
        }
    }

    /// The perfect player for the current rules, opened (and kept) from
    /// `db`; refused with trades allowed, without `db`, or with a damaged
    /// or empty database.
    fn perfect_player(&mut self) -> Result<Arc<Perfect>, String> {
        let skip = self.rules.variant.skip_origin;
        let Some(dir) = self.db.clone() else {
            return Err(
                "go: perfect needs the solver's database (setoption name db value DIR)".into(),
            );
        };
        if let Some((d, s, p)) = &self.opened {
            if *d == dir && *s == skip {
                p.check(self.rules.variant)
                    .map_err(|e| format!("go: perfect: {e}"))?;
                return Ok(Arc::clone(p));
            }
        }
        let p = crate::matches::open_perfect(Some(std::path::Path::new(&dir)), self.rules)
            .map_err(|e| format!("go: perfect: {e:#}"))?;
        let p = Arc::new(p);
        self.opened = Some((dir, skip, Arc::clone(&p)));
        Ok(p)
    }

    fn position(&mut self, start: &Start, actions: &[Action]) -> Result<(), String> {
        let start = match start {
            Start::StartPos => Position::new(self.rules.variant),
            Start::Gpn(gpn) => {
                Position::from_gpn(gpn, self.rules.variant).map_err(|e| match e {
                    GpnError::Parse(e) => format!("position gpn: {e}"),
                    // "position: holes and captured totals hold ..."
                    GpnError::Invalid(e) => format!("position gpn: invalid {e}"),
                })?
            }
        };
        let mut game = Game::from_position(start, self.rules.ply_cap);
        for (i, &action) in actions.iter().enumerate() {
            game.play(action).map_err(|e| {
                format!(
                    "position: action {} {}: {e}",
                    i + 1,
                    quote(&action.to_string())
                )
            })?;
        }
        self.game = game;
        Ok(())
    }

    fn go(&mut self, go: Go) -> Result<(), String> {
        if self.game.is_over() {
            return Err("game over".to_string());
        }
        // Inside the database the perfect player decides (in the worker,
        // like a search: `go infinite` still answers after `stop`); above
        // its layers, the search of the level set.
        let perfect = if self.perfect {
            Some(self.perfect_player()?).filter(|p| p.covers(&self.game))
        } else {
            None
        };
        let infinite = go == Go::Infinite;
        let limits = go_limits(&go, &self.game, self.options.level);

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
            let outcome = panic::catch_unwind(AssertUnwindSafe(|| match &perfect {
                Some(p) => p.choose(&game).ok().map(|c| c.action),
                None => decide(&mut engine, &game, &limits, &worker_stop),
            }));
            let Ok(best) = outcome else {
                worker_done.store(true, Ordering::SeqCst);
                reply(&Reply::Error("internal: the search failed".into()));
                return None;
            };
            // `go infinite` answers only after `stop`, even when the
            // search ends by itself (a decided game, the depth cap).
            while infinite && !worker_stop.load(Ordering::SeqCst) {
                thread::park_timeout(Duration::from_millis(100));
            }
            worker_done.store(true, Ordering::SeqCst);
            match best {
                Some(a) => reply(&Reply::BestAction(a)),
                None => reply(&Reply::Error("game over".into())),
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

/// The limits of a `go`: none for `infinite`; the level's one default
/// ([`Level::default_limits`]) when nothing is given; the clock of the
/// side to move through [`gore_ai::clock`] when its time is given (with
/// `movetime`, the smaller of the two), with `depth` and `nodes` as given.
pub(crate) fn go_limits(go: &Go, game: &Game, level: Level) -> Limits {
    let Some(mut limits) = go.limits() else {
        return Limits::default();
    };
    let side = game.position().to_move();
    match go.clock().of(side) {
        Some((remaining, increment)) => {
            let budget = gore_ai::clock::limits_for(game, level, remaining, increment)
                .time
                .expect("the clock gives a time");
            limits.time = Some(limits.time.map_or(budget, |t| t.min(budget)));
            limits
        }
        None if limits == Limits::default() => level.default_limits(),
        None => limits,
    }
}

/// The engine's decision: full search with `info` lines at the top level,
/// level play below it.
fn decide(engine: &mut Engine, game: &Game, limits: &Limits, stop: &AtomicBool) -> Option<Action> {
    if engine.options().level.is_max() {
        engine
            .search(game, limits, stop, &mut |info| {
                reply(&Reply::Info(InfoLine::from_info(info)))
            })
            .map(|r| r.best)
    } else {
        engine.choose(game, limits, stop)
    }
}

/// The answer to `gpi`.
fn gpi() {
    let d = Options::default();
    let spin = |name: &str, default: u64, range: Option<(u64, u64)>| Reply::Option {
        name: name.into(),
        kind: OptionKind::Spin { default, range },
    };
    for r in [
        Reply::IdName(format!("gore {}", env!("CARGO_PKG_VERSION"))),
        Reply::IdAuthor("The Goré project".into()),
        spin(
            "level",
            u64::from(Level::MAX.get()),
            Some((u64::from(Level::MIN.get()), u64::from(Level::MAX.get()))),
        ),
        Reply::Option {
            name: "honourable".into(),
            kind: OptionKind::Check {
                default: d.honourable,
            },
        },
        spin(
            "hash",
            d.hash_mb as u64,
            Some((HASH_MIN as u64, HASH_MAX as u64)),
        ),
        spin("glory", u64::from(d.glory), Some((0, u64::from(u8::MAX)))),
        spin("seed", d.seed, None),
        Reply::Option {
            name: "perfect".into(),
            kind: OptionKind::Check { default: false },
        },
        Reply::GpiOk,
    ] {
        reply(&r);
    }
}

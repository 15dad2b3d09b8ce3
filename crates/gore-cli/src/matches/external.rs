//! The client side of the engine protocol (docs/PROTOCOL.md) for
//! `cmd:` players of `gore match`.
//!
//! The command runs under `sh -c` in its own process group (so that a
//! timeout kills the shell and everything it started). A thread reads its
//! stdout line by line and another keeps the last lines of its stderr for
//! crash reports. One process serves a worker thread's games one after the
//! other; after a crash or a timeout it is killed and a new one is started
//! for the next game.
//!
//! Per process: `gpi` → `gpiok`, then `setoption` for the spec's level,
//! honourable and hash. Per game: `setoption name seed value N`,
//! `rules R`, `newgame`, `isready` → `readyok`. Per move: `position
//! startpos [actions ...]` (or `position gpn <GPN> [actions ...]` for a game
//! that does not start from the initial position), `go [depth N] [nodes N]
//! [movetime MS]` (under `--tc`, `go [depth N] [nodes N] [movetime MS]
//! atime MS btime MS ainc MS binc MS`), then lines until `bestaction X`. Commands are written
//! and replies read by [`crate::protocol`], the grammar `gore engine` uses.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::process::{self, Child, ChildStdin, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use gore_ai::Limits;
use gore_core::{Action, Game, Position, Rules};

use super::spec::{EngineSpec, Fault};
use crate::protocol::{Command, EngineOption, Go, GoClock, Reply, Start};

/// How often a wait checks the match's stop flag.
const POLL: Duration = Duration::from_millis(50);
/// Lines of stderr kept for a crash report.
const STDERR_TAIL: usize = 5;

/// An external engine of one worker thread.
pub struct External {
    spec: EngineSpec,
    command: String,
    limits: Limits,
    timeout: Duration,
    proc: Option<Proc>,
    warned: bool,
}

/// Why a line did not come.
enum ReadError {
    Timeout,
    Closed,
    Aborted,
}

struct Proc {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Arc<StderrTail>,
    reaped: bool,
}

/// The last lines of the engine's stderr, and whether it has ended.
#[derive(Default)]
struct StderrTail {
    state: Mutex<(VecDeque<String>, bool)>,
    ended: Condvar,
}

/// How long a death report waits for the process to exit and for its
/// stderr to end. Long enough for a loaded machine; only a process that
/// closes its output but lives on (or leaves a child holding stderr) makes
/// the report wait this long.
const DEATH_WAIT: Duration = Duration::from_secs(3);

impl Proc {
    fn spawn(command: &str) -> Result<Proc, String> {
        let mut child = process::Command::new("sh")
            .arg("-c")
            .arg(command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(|e| format!("cannot start `{command}`: {e}"))?;
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        let (tx, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let tail = Arc::new(StderrTail::default());
        let writer = Arc::clone(&tail);
        thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                let mut t = writer.state.lock().unwrap_or_else(|e| e.into_inner());
                if t.0.len() == STDERR_TAIL {
                    t.0.pop_front();
                }
                t.0.push_back(line);
            }
            writer.state.lock().unwrap_or_else(|e| e.into_inner()).1 = true;
            writer.ended.notify_all();
        });
        Ok(Proc {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr: tail,
            reaped: false,
        })
    }

    fn send(&mut self, command: &Command) -> std::io::Result<()> {
        let line = format!("{command}\n");
        let stdin = self.stdin.as_mut().ok_or(std::io::ErrorKind::BrokenPipe)?;
        stdin.write_all(line.as_bytes())?;
        stdin.flush()
    }

    /// Sends a command while waiting for the answer `awaited`. A failure
    /// means the engine is gone: it forfeits with the same message as when
    /// its output ends first ([`Proc::gone`]), since which of the two the
    /// client sees first is a race.
    fn tell(&mut self, command: &Command, awaited: &str) -> Result<(), Fault> {
        self.send(command).map_err(|_| self.gone(awaited))
    }

    /// The fault of an engine that ended (closed its input or output)
    /// before sending `awaited`.
    fn gone(&mut self, awaited: &str) -> Fault {
        Fault::Forfeit(format!("{} before `{awaited}`", self.death_note()))
    }

    fn read_line(&mut self, deadline: Instant, stop: &AtomicBool) -> Result<String, ReadError> {
        loop {
            if stop.load(Ordering::Relaxed) {
                return Err(ReadError::Aborted);
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(ReadError::Timeout);
            }
            match self.lines.recv_timeout((deadline - now).min(POLL)) {
                Ok(line) => return Ok(line),
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => return Err(ReadError::Closed),
            }
        }
    }

    /// How the process ended, with the last line of its stderr.
    fn death_note(&mut self) -> String {
        let mut status = None;
        let until = Instant::now() + DEATH_WAIT;
        while Instant::now() < until {
            if let Ok(Some(s)) = self.child.try_wait() {
                self.reaped = true;
                status = Some(s);
                break;
            }
            thread::sleep(Duration::from_millis(5));
        }
        let mut note = match status {
            Some(s) => format!("exited ({s})"),
            None => "closed its output".to_string(),
        };
        // The last words: wait until stderr ends (its last line is read),
        // which follows the exit unless something the engine started
        // still holds it.
        let wait = if status.is_some() {
            DEATH_WAIT
        } else {
            Duration::ZERO
        };
        let guard = self.stderr.state.lock().unwrap_or_else(|e| e.into_inner());
        let (tail, _) = self
            .stderr
            .ended
            .wait_timeout_while(guard, wait, |(_, ended)| !*ended)
            .unwrap_or_else(|e| e.into_inner());
        if let Some(last) = tail.0.back() {
            note.push_str(&format!("; stderr: {last}"));
        }
        note
    }

    fn kill_group(&mut self) {
        let pid = self.child.id() as libc::pid_t;
        // SAFETY: kill(2) has no memory effects; the group is the one the
        // child leads (process_group(0)), and the child is not reaped yet
        // or its id cannot have been reused while the group lives.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
        let _ = self.child.kill();
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.send(&Command::Quit);
        self.stdin = None;
        let until = Instant::now() + Duration::from_millis(300);
        while !self.reaped && Instant::now() < until {
            match self.child.try_wait() {
                Ok(Some(_)) => self.reaped = true,
                Ok(None) => thread::sleep(Duration::from_millis(5)),
                Err(_) => break,
            }
        }
        // Whatever the shell started and left behind goes too.
        self.kill_group();
        if !self.reaped {
            let _ = self.child.wait();
        }
    }
}

impl External {
    pub fn new(spec: EngineSpec, command: String, limits: Limits, timeout: Duration) -> External {
        External {
            spec,
            command,
            limits,
            timeout,
            proc: None,
            warned: false,
        }
    }

    fn warn(&mut self, what: &str) {
        if !self.warned {
            self.warned = true;
            eprintln!("gore: warning: engine `{}`: {what}", self.spec);
        }
    }

    /// Starts the process and does the `gpi` handshake; returns the
    /// engine's `id name`, if it gave one.
    pub fn start(&mut self, stop: &AtomicBool) -> Result<Option<String>, Fault> {
        self.proc = None;
        let mut p = Proc::spawn(&self.command).map_err(Fault::Forfeit)?;
        p.tell(&Command::Gpi, "gpiok")?;
        let deadline = Instant::now() + self.timeout;
        let mut name = None;
        loop {
            match p.read_line(deadline, stop) {
                // Lines the client does not know are skipped.
                Ok(line) => match line.parse::<Reply>() {
                    Ok(Reply::GpiOk) => break,
                    Ok(Reply::IdName(n)) => name = Some(n),
                    _ => {}
                },
                Err(ReadError::Aborted) => return Err(Fault::Aborted),
                Err(ReadError::Timeout) => {
                    return Err(Fault::Forfeit(format!(
                        "no `gpiok` within {} ms of `gpi`",
                        self.timeout.as_millis()
                    )))
                }
                Err(ReadError::Closed) => return Err(p.gone("gpiok")),
            }
        }
        let mut options = Vec::new();
        if let Some(l) = self.spec.level {
            options.push(EngineOption::Level(l));
        }
        if self.spec.honourable {
            options.push(EngineOption::Honourable(true));
        }
        if let Some(h) = self.spec.hash_mb {
            options.push(EngineOption::Hash(h));
        }
        if let Some(g) = self.spec.glory {
            options.push(EngineOption::Glory(g));
        }
        for o in options {
            // An engine that died after `gpiok` is found out by the next
            // exchange, with one message whichever end breaks first.
            let _ = p.send(&Command::SetOption(o));
        }
        self.proc = Some(p);
        Ok(name)
    }

    /// Sends the game's seed and rules, then `newgame`, and waits until the
    /// engine is ready. `error` answers are warned about once and play
    /// goes on.
    pub fn new_game(&mut self, seed: u64, rules: Rules, stop: &AtomicBool) -> Result<(), Fault> {
        if self.proc.is_none() {
            self.start(stop)?;
        }
        let commands = [
            Command::SetOption(EngineOption::Seed(seed)),
            Command::Rules(rules),
            Command::NewGame,
            Command::IsReady,
        ];
        let result = self.exchange(&commands, stop);
        if result.is_err() {
            self.proc = None;
        }
        result
    }

    fn exchange(&mut self, commands: &[Command], stop: &AtomicBool) -> Result<(), Fault> {
        let timeout = self.timeout;
        let p = self.proc.as_mut().expect("started");
        for c in commands {
            p.tell(c, "readyok")?;
        }
        let deadline = Instant::now() + timeout;
        let mut errors = Vec::new();
        let outcome = loop {
            match p.read_line(deadline, stop) {
                Ok(line) => match line.parse::<Reply>() {
                    Ok(Reply::ReadyOk) => break Ok(()),
                    Ok(Reply::Error(_)) => errors.push(line.trim().to_string()),
                    _ => {}
                },
                Err(ReadError::Aborted) => break Err(Fault::Aborted),
                Err(ReadError::Timeout) => {
                    break Err(Fault::Forfeit(format!(
                        "no `readyok` within {} ms of `isready`",
                        timeout.as_millis()
                    )))
                }
                Err(ReadError::Closed) => break Err(p.gone("readyok")),
            }
        };
        if let Some(e) = errors.first() {
            self.warn(&format!("answered `{e}` while setting up a game"));
        }
        outcome
    }

    /// The `position` command for the game as it stands.
    pub fn position_command(game: &Game) -> Command {
        let start = if *game.start() == Position::new(game.rules().variant) {
            Start::StartPos
        } else {
            Start::Gpn(game.start().to_string())
        };
        Command::Position {
            start,
            actions: game.actions().to_vec(),
        }
    }

    /// Asks for an action: a crash, a timeout, an `error` answer or a
    /// `bestaction` that does not parse forfeits the game.
    /// With `clock` (a match under `--tc`), `go` carries the clocks and
    /// only the limits the spec itself gives, and the engine may take its
    /// remaining time (and the timeout) before it is given up on.
    pub fn choose(
        &mut self,
        game: &Game,
        stop: &AtomicBool,
        clock: Option<GoClock>,
    ) -> Result<Action, Fault> {
        let result = self.ask(game, stop, clock);
        match &result {
            Ok(_) => {}
            // Mid-search or broken: the process is not reused.
            Err(_) => self.proc = None,
        }
        result
    }

    fn ask(
        &mut self,
        game: &Game,
        stop: &AtomicBool,
        clock: Option<GoClock>,
    ) -> Result<Action, Fault> {
        let (go, budget) = match clock {
            None => (
                Go::from_limits(&self.limits),
                self.limits.time.unwrap_or(Duration::ZERO) + self.timeout,
            ),
            Some(c) => {
                let own = self.spec.limits().unwrap_or_default();
                let remaining = c
                    .of(game.position().to_move())
                    .map_or(Duration::ZERO, |(t, _)| t);
                let go = Go::Limits {
                    depth: own.depth,
                    nodes: own.nodes,
                    movetime: self.spec.movetime,
                    clock: c,
                };
                (go, remaining + self.timeout)
            }
        };
        let Some(p) = self.proc.as_mut() else {
            return Err(Fault::Forfeit("is not running".into()));
        };
        p.tell(&Self::position_command(game), "bestaction")?;
        let go = Command::Go(go);
        p.tell(&go, "bestaction")?;
        let deadline = Instant::now() + budget;
        loop {
            match p.read_line(deadline, stop) {
                Ok(line) => {
                    let line = line.trim();
                    match line.parse::<Reply>() {
                        Ok(Reply::BestAction(a)) => return Ok(a),
                        Ok(Reply::Error(_)) => {
                            return Err(Fault::Forfeit(format!("answered `{line}` to `{go}`")))
                        }
                        // A `bestaction` line that does not parse.
                        Err(e) if line.split_whitespace().next() == Some("bestaction") => {
                            return Err(Fault::Forfeit(format!("answered `{line}`: {e}")))
                        }
                        // `info` and lines the client does not know.
                        _ => {}
                    }
                }
                Err(ReadError::Aborted) => return Err(Fault::Aborted),
                Err(ReadError::Timeout) => {
                    return Err(Fault::Forfeit(format!(
                        "no `bestaction` within {} ms of `{go}`",
                        budget.as_millis()
                    )))
                }
                Err(ReadError::Closed) => return Err(p.gone("bestaction")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gore_core::{Hole, Variant};

    #[test]
    fn commands() {
        let mut g = Game::new(Rules::STANDARD);
        assert_eq!(
            External::position_command(&g).to_string(),
            "position startpos"
        );
        g.play(Action::Sow(Hole::A2)).unwrap();
        g.play(Action::Sow(Hole::B4)).unwrap();
        assert_eq!(
            External::position_command(&g).to_string(),
            "position startpos actions a2 b4"
        );
        let start =
            Position::from_gpn("1,3,1,5/3,4,2,1 AAAA/BBBB 14-14 B -", Variant::STANDARD).unwrap();
        let mut g = Game::from_position(start, None);
        g.play(Action::Sow(Hole::B2)).unwrap();
        assert_eq!(
            External::position_command(&g).to_string(),
            "position gpn 1,3,1,5/3,4,2,1 AAAA/BBBB 14-14 B - actions b2"
        );
        assert_eq!(Go::from_limits(&Limits::depth(4)).to_string(), "go depth 4");
        let l = Limits {
            depth: Some(3),
            nodes: Some(500),
            time: Some(Duration::from_millis(40)),
            ..Limits::default()
        };
        assert_eq!(
            Go::from_limits(&l).to_string(),
            "go depth 3 nodes 500 movetime 40"
        );
    }

    /// An engine that dies at once is reported the same way whether the
    /// client's `gpi` finds its input closed or its output ends first.
    #[test]
    fn an_engine_that_cannot_start_gets_one_message_whichever_end_breaks_first() {
        let stop = AtomicBool::new(false);
        // Its output ends first: it reads `gpi`, then dies.
        let spec: EngineSpec = "cmd:x".parse().unwrap();
        let mut e = External::new(
            spec,
            "read l; echo oops >&2; exit 3".into(),
            Limits::depth(1),
            Duration::from_secs(10),
        );
        let Err(Fault::Forfeit(read_first)) = e.start(&stop) else {
            panic!("should forfeit");
        };
        // Its input is closed first: the client writes only once it has
        // exited (polled, not guessed). The write itself is made to fail:
        // a real write may still succeed, as a process forked meanwhile by
        // another thread (another test, another match worker) can hold
        // the pipe open for a moment; the read then ends, as above.
        let mut p = Proc::spawn("echo oops >&2; exit 3").unwrap();
        let until = Instant::now() + Duration::from_secs(10);
        while p.child.try_wait().unwrap().is_none() {
            assert!(Instant::now() < until, "the shell did not exit");
            thread::sleep(Duration::from_millis(5));
        }
        p.reaped = true;
        p.stdin = None;
        let Err(Fault::Forfeit(write_first)) = p.tell(&Command::Gpi, "gpiok") else {
            panic!("writing to an exited engine fails");
        };
        assert_eq!(
            read_first,
            "exited (exit status: 3); stderr: oops before `gpiok`"
        );
        assert_eq!(write_first, read_first);
    }

    #[test]
    fn a_crashing_engine_forfeits_with_its_last_words() {
        let spec: EngineSpec = "cmd:x".parse().unwrap();
        let stop = AtomicBool::new(false);
        let mut e = External::new(
            spec.clone(),
            "echo oops >&2; exit 3".into(),
            Limits::depth(1),
            Duration::from_secs(5),
        );
        match e.start(&stop) {
            Err(Fault::Forfeit(m)) => {
                assert!(m.contains("exit status: 3"), "{m}");
                assert!(m.contains("stderr: oops"), "{m}");
            }
            _ => panic!("should forfeit"),
        }
        // Silent: a timeout.
        let mut e = External::new(
            spec,
            "sleep 120".into(),
            Limits::depth(1),
            Duration::from_millis(200),
        );
        let t = Instant::now();
        match e.start(&stop) {
            Err(Fault::Forfeit(m)) => assert!(m.contains("no `gpiok` within 200 ms"), "{m}"),
            _ => panic!("should forfeit"),
        }
        // Dropping kills the silent engine rather than waiting for it: far
        // less than its 120 s, with room for a loaded machine.
        drop(e);
        assert!(t.elapsed() < Duration::from_secs(60), "{:?}", t.elapsed());
    }
}

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
//! [movetime MS]`, then lines until `bestaction X`.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use gore_ai::Limits;
use gore_core::{Action, Game, Position, Rules};

use super::players::{EngineSpec, Fault};

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
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    reaped: bool,
}

impl Proc {
    fn spawn(command: &str) -> Result<Proc, String> {
        let mut child = Command::new("sh")
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
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let tail = Arc::clone(&stderr_tail);
        thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                let mut t = tail.lock().unwrap_or_else(|e| e.into_inner());
                if t.len() == STDERR_TAIL {
                    t.pop_front();
                }
                t.push_back(line);
            }
        });
        Ok(Proc {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr_tail,
            reaped: false,
        })
    }

    fn send(&mut self, line: &str) -> Result<(), String> {
        let stdin = self.stdin.as_mut().ok_or("its input is closed")?;
        stdin
            .write_all(line.as_bytes())
            .and_then(|()| stdin.write_all(b"\n"))
            .and_then(|()| stdin.flush())
            .map_err(|e| format!("cannot send `{line}`: {e}"))
    }

    /// Sends a line; a failure means the engine is gone, so it forfeits
    /// with how it ended.
    fn tell(&mut self, line: &str) -> Result<(), Fault> {
        self.send(line)
            .map_err(|e| Fault::Forfeit(format!("{} ({e})", self.death_note())))
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
        let until = Instant::now() + Duration::from_millis(500);
        while Instant::now() < until {
            if let Ok(Some(s)) = self.child.try_wait() {
                self.reaped = true;
                status = Some(s);
                break;
            }
            thread::sleep(Duration::from_millis(10));
        }
        let mut note = match status {
            Some(s) => format!("exited ({s})"),
            None => "closed its output".to_string(),
        };
        // Give the stderr thread a moment to catch the last words.
        thread::sleep(Duration::from_millis(20));
        let tail = self.stderr_tail.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(last) = tail.back() {
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
        let _ = self.send("quit");
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
        p.tell("gpi")?;
        let deadline = Instant::now() + self.timeout;
        let mut name = None;
        loop {
            match p.read_line(deadline, stop) {
                Ok(line) => {
                    let line = line.trim();
                    if line == "gpiok" {
                        break;
                    }
                    if let Some(n) = line.strip_prefix("id name ") {
                        name = Some(n.trim().to_string());
                    }
                }
                Err(ReadError::Aborted) => return Err(Fault::Aborted),
                Err(ReadError::Timeout) => {
                    return Err(Fault::Forfeit(format!(
                        "no `gpiok` within {} ms of `gpi`",
                        self.timeout.as_millis()
                    )))
                }
                Err(ReadError::Closed) => {
                    return Err(Fault::Forfeit(format!("{} before `gpiok`", p.death_note())))
                }
            }
        }
        let mut options = Vec::new();
        if let Some(l) = self.spec.level {
            options.push(format!("setoption name level value {l}"));
        }
        if self.spec.honourable {
            options.push("setoption name honourable value true".to_string());
        }
        if let Some(h) = self.spec.hash_mb {
            options.push(format!("setoption name hash value {h}"));
        }
        for o in &options {
            p.tell(o)?;
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
            format!("setoption name seed value {seed}"),
            format!("rules {rules}"),
            "newgame".to_string(),
            "isready".to_string(),
        ];
        let result = self.exchange(&commands, stop);
        if result.is_err() {
            self.proc = None;
        }
        result
    }

    fn exchange(&mut self, commands: &[String], stop: &AtomicBool) -> Result<(), Fault> {
        let timeout = self.timeout;
        let p = self.proc.as_mut().expect("started");
        for c in commands {
            p.tell(c)?;
        }
        let deadline = Instant::now() + timeout;
        let mut errors = Vec::new();
        let outcome = loop {
            match p.read_line(deadline, stop) {
                Ok(line) => {
                    let line = line.trim();
                    if line == "readyok" {
                        break Ok(());
                    }
                    if line.starts_with("error") {
                        errors.push(line.to_string());
                    }
                }
                Err(ReadError::Aborted) => break Err(Fault::Aborted),
                Err(ReadError::Timeout) => {
                    break Err(Fault::Forfeit(format!(
                        "no `readyok` within {} ms of `isready`",
                        timeout.as_millis()
                    )))
                }
                Err(ReadError::Closed) => {
                    break Err(Fault::Forfeit(format!(
                        "{} before `readyok`",
                        p.death_note()
                    )))
                }
            }
        };
        if let Some(e) = errors.first() {
            self.warn(&format!("answered `{e}` while setting up a game"));
        }
        outcome
    }

    /// The `position` command for the game as it stands.
    pub fn position_command(game: &Game) -> String {
        let mut cmd = if *game.start() == Position::new(game.rules()) {
            "position startpos".to_string()
        } else {
            format!("position gpn {}", game.start())
        };
        if !game.actions().is_empty() {
            cmd.push_str(" actions");
            for a in game.actions() {
                cmd.push(' ');
                cmd.push_str(&a.to_string());
            }
        }
        cmd
    }

    /// The `go` command for the engine's limits.
    pub fn go_command(limits: &Limits) -> String {
        let mut cmd = "go".to_string();
        if let Some(d) = limits.depth {
            cmd.push_str(&format!(" depth {d}"));
        }
        if let Some(n) = limits.nodes {
            cmd.push_str(&format!(" nodes {n}"));
        }
        if let Some(t) = limits.time {
            cmd.push_str(&format!(" movetime {}", t.as_millis()));
        }
        cmd
    }

    /// Asks for an action: a crash, a timeout, an `error` answer or a
    /// `bestaction` that does not parse forfeits the game.
    pub fn choose(&mut self, game: &Game, stop: &AtomicBool) -> Result<Action, Fault> {
        let result = self.ask(game, stop);
        match &result {
            Ok(_) => {}
            // Mid-search or broken: the process is not reused.
            Err(_) => self.proc = None,
        }
        result
    }

    fn ask(&mut self, game: &Game, stop: &AtomicBool) -> Result<Action, Fault> {
        let budget = self.limits.time.unwrap_or(Duration::ZERO) + self.timeout;
        let Some(p) = self.proc.as_mut() else {
            return Err(Fault::Forfeit("is not running".into()));
        };
        p.tell(&Self::position_command(game))?;
        let go = Self::go_command(&self.limits);
        p.tell(&go)?;
        let deadline = Instant::now() + budget;
        loop {
            match p.read_line(deadline, stop) {
                Ok(line) => {
                    let line = line.trim();
                    if let Some(token) = line.strip_prefix("bestaction") {
                        let token = token.trim();
                        return token.parse::<Action>().map_err(|e| {
                            Fault::Forfeit(format!("answered `{line}`: `{token}`: {e}"))
                        });
                    }
                    if line.starts_with("error") {
                        return Err(Fault::Forfeit(format!("answered `{line}` to `{go}`")));
                    }
                }
                Err(ReadError::Aborted) => return Err(Fault::Aborted),
                Err(ReadError::Timeout) => {
                    return Err(Fault::Forfeit(format!(
                        "no `bestaction` within {} ms of `{go}`",
                        budget.as_millis()
                    )))
                }
                Err(ReadError::Closed) => {
                    return Err(Fault::Forfeit(format!(
                        "{} before `bestaction`",
                        p.death_note()
                    )))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gore_core::Hole;

    #[test]
    fn commands() {
        let mut g = Game::new(Rules::STANDARD);
        assert_eq!(External::position_command(&g), "position startpos");
        g.play(Action::Sow(Hole::A2)).unwrap();
        g.play(Action::Sow(Hole::B4)).unwrap();
        assert_eq!(
            External::position_command(&g),
            "position startpos actions a2 b4"
        );
        let start =
            Position::from_gpn("1,3,1,5/3,4,2,1 AAAA/BBBB 14-14 B -", Rules::STANDARD).unwrap();
        let mut g = Game::from_position(start, Rules::STANDARD);
        g.play(Action::Sow(Hole::B2)).unwrap();
        assert_eq!(
            External::position_command(&g),
            "position gpn 1,3,1,5/3,4,2,1 AAAA/BBBB 14-14 B - actions b2"
        );
        assert_eq!(External::go_command(&Limits::depth(4)), "go depth 4");
        let l = Limits {
            depth: Some(3),
            nodes: Some(500),
            time: Some(Duration::from_millis(40)),
        };
        assert_eq!(External::go_command(&l), "go depth 3 nodes 500 movetime 40");
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
            "sleep 5".into(),
            Limits::depth(1),
            Duration::from_millis(200),
        );
        let t = Instant::now();
        match e.start(&stop) {
            Err(Fault::Forfeit(m)) => assert!(m.contains("no `gpiok` within 200 ms"), "{m}"),
            _ => panic!("should forfeit"),
        }
        drop(e);
        assert!(t.elapsed() < Duration::from_secs(3));
    }
}

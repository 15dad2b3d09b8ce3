//! `gore engine`: the protocol of docs/PROTOCOL.md, spoken to the binary
//! through pipes. Every read has a timeout, so a hung engine fails the test
//! instead of blocking it.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use gore_core::{Action, Game, Position, Rules, Variant};

/// Generous: debug builds search slowly, and CI machines are busy.
const TIMEOUT: Duration = Duration::from_secs(10);

const OFFER_GPN: &str = "0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B a2+a4";

/// A running `gore engine` with its output read line by line by a thread.
struct Gore {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Gore {
    fn start() -> Gore {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gore"))
            .arg("engine")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("run gore engine");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Gore {
            stdin: child.stdin.take(),
            child,
            lines: rx,
        }
    }

    fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    fn send(&mut self, line: &str) {
        self.send_bytes(format!("{line}\n").as_bytes());
    }

    /// The next line, within `timeout`.
    fn line_within(&self, timeout: Duration) -> Result<String, RecvTimeoutError> {
        self.lines.recv_timeout(timeout)
    }

    /// The next line; fails the test after [`TIMEOUT`].
    fn line(&self) -> String {
        match self.line_within(TIMEOUT) {
            Ok(l) => l,
            Err(e) => panic!("no line from the engine: {e:?}"),
        }
    }

    /// Lines up to and including the first that starts with `prefix`.
    fn until(&self, prefix: &str) -> Vec<String> {
        let mut out = Vec::new();
        loop {
            let l = self.line();
            let last = l.starts_with(prefix);
            out.push(l);
            if last {
                return out;
            }
        }
    }

    /// Sends `isready` and returns the lines printed before `readyok`.
    fn sync(&mut self) -> Vec<String> {
        self.send("isready");
        let mut out = self.until("readyok");
        out.pop();
        out
    }

    /// Closes stdin (unless `quit` was sent) and waits for the exit.
    fn exit_status(&mut self) -> ExitStatus {
        self.stdin.take();
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(start.elapsed() < TIMEOUT, "the engine did not exit");
            thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Gore {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The game a `position gpn` command sets up.
fn game_at(gpn: &str) -> Game {
    Game::from_position(Position::from_gpn(gpn, Variant::STANDARD).unwrap(), None)
}

/// Checks an `info` line's form and returns its depth and principal variation.
fn parse_info(line: &str) -> (u32, Vec<Action>) {
    let w: Vec<&str> = line.split(' ').collect();
    assert!(w.len() >= 12, "short info line: {line}");
    let keys = ["info", "depth", "score", "nodes", "nps", "time", "pv"];
    for (i, key) in [0, 1, 3, 5, 7, 9, 11].into_iter().zip(keys) {
        assert_eq!(w[i], key, "info line: {line}");
    }
    let depth: u32 = w[2].parse().expect("depth");
    let score: i32 = w[4].parse().expect("score");
    assert!(score.abs() <= 4800, "score beyond the 48 seeds: {line}");
    let _: u64 = w[6].parse().expect("nodes");
    let _: u64 = w[8].parse().expect("nps");
    let _: u64 = w[10].parse().expect("time");
    let pv: Vec<Action> = w[12..]
        .iter()
        .map(|a| a.parse().expect("pv action"))
        .collect();
    assert!(!pv.is_empty(), "empty pv: {line}");
    (depth, pv)
}

fn bestaction(line: &str) -> Action {
    let a = line
        .strip_prefix("bestaction ")
        .unwrap_or_else(|| panic!("not a bestaction line: {line}"));
    a.parse().expect("bestaction parses")
}

#[test]
fn handshake() {
    let mut g = Gore::start();
    g.send("gpi");
    let lines = g.until("gpiok");
    assert_eq!(
        lines[0],
        format!("id name gore {}", env!("CARGO_PKG_VERSION"))
    );
    let glory = format!(
        "option name glory type spin default {} min 0 max 255",
        gore_ai::DEFAULT_GLORY
    );
    assert_eq!(
        lines[1..],
        [
            "id author The Goré project",
            "option name level type spin default 12 min 1 max 12",
            "option name honourable type check default false",
            "option name hash type spin default 16 min 1 max 4096",
            glory.as_str(),
            "option name seed type spin default 0",
            "option name perfect type check default false",
            "gpiok",
        ]
    );
    assert!(g.sync().is_empty());
}

#[test]
fn position_legal_and_show() {
    let mut g = Gore::start();
    g.send("legal");
    assert_eq!(g.line(), "legal a1 a2 a3 a4");
    g.send(&format!("position gpn {OFFER_GPN}"));
    g.send("legal");
    assert_eq!(g.line(), "legal accept decline");
    g.send("d");
    assert_eq!(g.line(), format!("position {OFFER_GPN}"));
    assert_eq!(g.line(), "rules standard");
    // Actions after the position; extra spaces are harmless.
    g.send(&format!("position  gpn {OFFER_GPN}  actions decline"));
    g.send("show");
    let mut expected = game_at(OFFER_GPN);
    expected.play(Action::Decline).unwrap();
    assert_eq!(g.line(), format!("position {}", expected.position()));
    assert_eq!(g.line(), "rules standard");
    g.send("position startpos actions a1 b1");
    g.send("d");
    assert_eq!(g.line(), "position 1,8,8,8/0,8,8,7 AAAA/BBBB 0-0 A -");
    g.until("rules standard");
    // Rules: printed in canonical order; the position returns to the start.
    g.send("rules no-trades,skip-origin");
    g.send("d");
    assert_eq!(g.line(), "position 6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 A -");
    assert_eq!(g.line(), "rules skip-origin,no-trades");
    // A finished game has no legal action.
    g.send("rules standard");
    g.send("position gpn 0,0,0,0/0,0,0,0 AAAA/BBBB 24-24 A -");
    g.send("legal");
    assert_eq!(g.line(), "legal");
    assert!(g.sync().is_empty());
}

#[test]
fn go_depth_gives_wellformed_info_and_a_legal_action() {
    let mut g = Gore::start();
    let gpn = "1,3,1,5/3,4,2,1 AAAA/BBBB 14-14 B -";
    g.send(&format!("position gpn {gpn}"));
    g.send("go depth 4");
    let lines = g.until("bestaction");
    let best = bestaction(lines.last().unwrap());
    let game = game_at(gpn);
    assert!(game.legal_actions().contains(&best), "{best}");
    let infos = &lines[..lines.len() - 1];
    assert_eq!(infos.len(), 4, "one info line per iteration: {lines:?}");
    for (i, l) in infos.iter().enumerate() {
        let (depth, pv) = parse_info(l);
        assert_eq!(depth as usize, i + 1);
        // The principal variation is a legal line from the position.
        let mut line = game.clone();
        for a in pv {
            if line.is_over() {
                break;
            }
            line.play(a).unwrap_or_else(|e| panic!("pv {l}: {a}: {e}"));
        }
    }
    let (_, pv) = parse_info(&infos[3]);
    assert_eq!(pv[0], best, "the best action heads the last pv");
    // The engine is free again: another search, with other limits.
    g.send("position startpos actions a1");
    g.send("go nodes 3000");
    let best = bestaction(g.until("bestaction").last().unwrap());
    assert!(Position::new(Variant::STANDARD)
        .play(Action::Sow("a1".parse().unwrap()))
        .unwrap()
        .is_legal(best));
    g.send("go movetime 150");
    bestaction(g.until("bestaction").last().unwrap());
    assert!(g.sync().is_empty());
}

#[test]
fn go_without_limits_uses_the_default_movetime() {
    let mut g = Gore::start();
    g.send("position startpos actions a2 b3");
    let start = Instant::now();
    g.send("go");
    let lines = g.until("bestaction");
    let t = start.elapsed();
    // docs/PROTOCOL.md: with no parameter the engine searches for 1000 ms.
    // The position is far from decided, so the search runs to its time:
    // never less (the engine's clock starts after ours). The upper bound is
    // only that of a search that stopped by the clock at all, with room
    // for a loaded machine.
    let default = Duration::from_millis(1000);
    assert!(
        t >= default,
        "answered after {t:?}, before the default movetime"
    );
    assert!(t < default + TIMEOUT, "took {t:?}");
    for l in &lines[..lines.len() - 1] {
        parse_info(l);
    }
    bestaction(lines.last().unwrap());
}

#[test]
fn infinite_search_answers_isready_and_stops_at_once() {
    let mut g = Gore::start();
    g.send("position startpos actions a2 b3 a1");
    g.send("go infinite");
    // The first iteration's report: the search is running.
    assert!(g.line().starts_with("info depth 1 "));
    // Searching: isready is answered at once, go is refused.
    g.send("isready");
    g.send("go depth 1");
    let mut got_ready = false;
    let mut got_busy = false;
    while !(got_ready && got_busy) {
        let l = g.line();
        if l == "readyok" {
            got_ready = true;
        } else if l.starts_with("error go") {
            got_busy = true;
        } else {
            assert!(l.starts_with("info "), "unexpected line during search: {l}");
        }
    }
    // State-changing commands are accepted during the search.
    g.send("position startpos");
    g.send("legal");
    loop {
        let l = g.line();
        if l.starts_with("legal") {
            assert_eq!(l, "legal a1 a2 a3 a4");
            break;
        }
        assert!(l.starts_with("info "), "{l}");
    }
    // An infinite search never answers by itself (this position is far
    // from decided), so a `bestaction` within the read timeout is the
    // stop's doing.
    g.send("stop");
    let lines = g.until("bestaction");
    // The search was of the position given before `go`.
    let mut game = Game::new(Rules::STANDARD);
    for a in ["a2", "b3", "a1"] {
        game.play(a.parse().unwrap()).unwrap();
    }
    let best = bestaction(lines.last().unwrap());
    assert!(game.position().is_legal(best), "{best}");
    // A stop with no search is ignored; the engine searches again.
    g.send("stop");
    assert!(g.sync().is_empty());
    g.send("go depth 2");
    bestaction(g.until("bestaction").last().unwrap());
}

#[test]
fn infinite_search_waits_for_stop_even_when_decided() {
    let mut g = Gore::start();
    // A single legal action: the search has nothing to think about, but
    // `go infinite` still answers only after `stop`.
    g.send(&format!("position gpn {OFFER_GPN}"));
    g.send("setoption name honourable value true");
    g.send("go infinite");
    assert!(
        g.line_within(Duration::from_millis(300)).is_err(),
        "answered before stop"
    );
    g.send("stop");
    assert_eq!(g.until("bestaction").last().unwrap(), "bestaction accept");
}

/// Deterministic junk bytes for a line (no newline; the first byte is not
/// blank, so the line is never empty).
fn junk_line(state: &mut u64) -> Vec<u8> {
    let mut next = || {
        *state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (*state >> 33) as u8
    };
    let len = 1 + next() as usize % 60;
    let mut v = vec![0xff];
    for _ in 0..len {
        let b = next();
        v.push(if b == b'\n' { b'?' } else { b });
    }
    v.push(b'\n');
    v
}

#[test]
fn every_bad_input_gets_one_error_line_and_the_engine_goes_on() {
    let mut g = Gore::start();
    g.send("position startpos actions a1");
    let junk = [
        "foo",
        "GPI",
        "isready now",
        "quit now",
        "legal a1",
        "d extra",
        "newgame please",
        "stop it",
        "gpi x",
        "go depth",
        "go depth x",
        "go depth 0",
        "go depth 101",
        "go nodes -5",
        "go nodes 0",
        "go movetime",
        "go movetime 1.5",
        "go wibble",
        "go depth 3 depth 4",
        "go infinite depth 3",
        "go infinite movetime 100",
        "position",
        "position foo",
        "position gpn",
        "position gpn actions a1",
        "position gpn 6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 A",
        "position gpn 6,6,6,6/6,6,6,x AAAA/BBBB 0-0 A -",
        "position gpn 6,6,6,6/6,6,6,6 AAAA/BBBC 0-0 A -",
        "position gpn 6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 C -",
        "position gpn 6,6,6,6/6,6,6,6 AAAA/BBBB 0-1 A -",
        "position gpn 6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 A a1",
        "position gpn 6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 A - extra",
        "position startpos moves a1",
        "position startpos actions b1",
        "position startpos actions a1 zz",
        "position startpos actions offer:a1",
        "position startpos actions offer:a3,a1",
        "position startpos actions accept",
        "position startpos actions a1 b1 b1",
        "setoption",
        "setoption name",
        "setoption name level",
        "setoption name level value",
        "setoption name foo value 1",
        "setoption name level value 0",
        "setoption name level value 13",
        "setoption name level value x",
        "setoption name level value 3 4",
        "setoption name honourable value maybe",
        "setoption name hash value 0",
        "setoption name hash value 5000",
        "setoption name seed value -1",
        "setoption name seed value 99999999999999999999",
        "setoption level 3",
        "setoption name level is 3",
        "rules",
        "rules bogus",
        "rules standard,skip-origin",
        "rules ply-cap=0",
        "rules skip-origin,skip-origin",
        "rules skip-origin no-trades",
        "\u{7f}\u{1b}[2J",
        "bestaction a1",
        "info depth 1",
    ];
    for j in junk {
        g.send(j);
    }
    let mut state = 0x5eed;
    let random = 40;
    for _ in 0..random {
        let bytes = junk_line(&mut state);
        g.send_bytes(&bytes);
    }
    // A line of only a carriage return, blanks and tabs is empty: ignored.
    g.send_bytes(b" \t\r\n\n");
    let out = g.sync();
    assert_eq!(
        out.len(),
        junk.len() + random,
        "one line per bad command: {out:#?}"
    );
    for (i, l) in out.iter().enumerate() {
        assert!(l.starts_with("error "), "line {i}: {l}");
        assert!(!l.contains('\r'), "line {i} holds a carriage return");
    }
    let error_of = |cmd: &str| -> &str {
        let i = junk.iter().position(|j| *j == cmd).unwrap();
        &out[i]
    };
    // The errors name the problem.
    assert!(error_of("foo").contains("unknown command `foo`"));
    assert!(error_of("position gpn 6,6,6,6/6,6,6,x AAAA/BBBB 0-0 A -").contains("seeds"));
    assert!(error_of("position gpn 6,6,6,6/6,6,6,6 AAAA/BBBC 0-0 A -").contains("controllers"));
    assert!(error_of("position gpn 6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 C -").contains("to move"));
    assert!(error_of("position gpn 6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 A a1").contains("offer"));
    assert!(error_of("position gpn 6,6,6,6/6,6,6,6 AAAA/BBBB 0-1 A -").contains("48"));
    let illegal = error_of("position startpos actions a1 b1 b1");
    assert!(
        illegal.contains("action 3") && illegal.contains("b1") && illegal.contains("controlled"),
        "{illegal}"
    );
    let pay = error_of("position startpos actions offer:a1");
    assert!(
        pay.contains("action 1") && pay.contains("captured"),
        "{pay}"
    );
    assert!(error_of("setoption name foo value 1").contains("unknown option `foo`"));
    assert!(error_of("setoption name level value 13").contains("level"));
    assert!(error_of("rules bogus").contains("rules"));
    assert!(error_of("go wibble").contains("wibble"));

    // Nothing bad took effect: the position and the options are intact.
    g.send("d");
    assert_eq!(g.line(), "position 0,7,7,7/7,7,7,6 AAAA/BBBB 0-0 B -");
    assert_eq!(g.line(), "rules standard");
    g.send("go depth 3");
    let lines = g.until("bestaction");
    // The top level still: the search prints its iterations.
    assert_eq!(lines.len(), 4, "{lines:?}");
    // A finished game cannot be searched.
    g.send("position gpn 0,0,0,0/0,0,0,0 AAAA/BBBB 24-24 A -");
    g.send("go depth 2");
    assert_eq!(g.line(), "error game over");
    g.send("rules ply-cap=2");
    g.send("position startpos actions a1 b1");
    g.send("go");
    assert_eq!(g.line(), "error game over");
    assert!(g.sync().is_empty());
}

#[test]
fn honourable_accepts_a_pending_offer() {
    for level in [8, 1] {
        let mut g = Gore::start();
        g.send(&format!("setoption name level value {level}"));
        g.send("setoption name Honourable value true");
        g.send(&format!("position gpn {OFFER_GPN}"));
        g.send("go depth 4");
        let lines = g.until("bestaction");
        assert_eq!(lines.last().unwrap(), "bestaction accept", "level {level}");
    }
}

#[test]
fn lower_levels_play_deterministically_by_seed() {
    let play = |seed: u64| -> Vec<String> {
        let mut g = Gore::start();
        g.send("setoption name level value 2");
        g.send(&format!("setoption name seed value {seed}"));
        let mut out = Vec::new();
        for moves in ["", " actions a2", " actions a2 b3", " actions a2 b3 a1"] {
            g.send(&format!("position startpos{moves}"));
            g.send("go depth 3");
            let lines = g.until("bestaction");
            // Level play prints no info lines.
            assert_eq!(lines.len(), 1, "{lines:?}");
            out.push(lines[0].clone());
        }
        g.send("newgame");
        g.send("go depth 3");
        assert_eq!(g.until("bestaction")[0], out[0], "newgame: start position");
        out
    };
    assert_eq!(play(7), play(7));
}

#[test]
fn quit_and_end_of_input_exit_with_success() {
    let mut g = Gore::start();
    g.send("isready");
    assert_eq!(g.line(), "readyok");
    g.send("quit");
    assert!(g.exit_status().success());

    // quit during an infinite search.
    let mut g = Gore::start();
    g.send("go infinite");
    assert!(g.line().starts_with("info depth 1 "), "searching");
    g.send("quit");
    assert!(g.exit_status().success());

    // End of input lets a bounded search finish and print its answer.
    let mut g = Gore::start();
    g.send("position startpos actions a3");
    g.send("go depth 3");
    assert!(g.exit_status().success());
    bestaction(g.until("bestaction").last().unwrap());

    // ... and stops an infinite one.
    let mut g = Gore::start();
    g.send("go infinite");
    assert!(g.exit_status().success());
    bestaction(g.until("bestaction").last().unwrap());
}

#[test]
fn go_with_clocks_spends_the_clock_of_the_side_to_move() {
    let mut g = Gore::start();
    // A to move with 300 ms left: gore_ai::clock gives max(300/30, 10 ms
    // floor) = 10 ms. B's 100 s (3.3 s a decision) must not be used.
    g.send("position startpos actions a2 b3");
    let start = Instant::now();
    g.send("go atime 300 btime 100000 ainc 0 binc 0");
    let lines = g.until("bestaction");
    let t = start.elapsed();
    assert!(t < Duration::from_secs(3), "took {t:?}: B's clock?");
    let best = bestaction(lines.last().unwrap());
    let mut game = Game::new(Rules::STANDARD);
    for a in ["a2", "b3"] {
        game.play(a.parse().unwrap()).unwrap();
    }
    assert!(game.position().is_legal(best));
    // Combined with depth: the depth is kept (no deeper info line).
    g.send("go depth 2 atime 60000 btime 60000");
    let lines = g.until("bestaction");
    for l in &lines[..lines.len() - 1] {
        assert!(parse_info(l).0 <= 2, "{l}");
    }
    // Only the other side's clock: the level's default (1000 ms) applies.
    let start = Instant::now();
    g.send("go btime 5");
    g.until("bestaction");
    assert!(start.elapsed() >= Duration::from_millis(1000));
    // Clock fields are checked like the others.
    g.send("go atime soon");
    let e = g.line();
    assert!(
        e.starts_with("error go atime: `soon` is not a whole number from 0"),
        "{e}"
    );
    assert!(g.sync().is_empty());
}

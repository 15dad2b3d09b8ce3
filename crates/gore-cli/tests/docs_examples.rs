//! The examples of the docs are the program's output: each documented
//! command whose answer is deterministic is run, and its answer compared
//! with the text block in the docs (docs/PROTOCOL.md: `gpi`, `isready`,
//! `legal`, `d`, `go depth 6`, the error table and the full session;
//! docs/STRENGTH.md: a bad engine spec). Search figures that depend on the
//! machine (`nps`, `time`) are not compared, nor the action a `stop`
//! interrupts; everything else is, word for word.
//!
//! Not run here (they need what a test cannot build in seconds): the
//! solver's `gore probe` output (docs/SOLVED.md, a 14-minute database) and
//! the Python examples (docs/PYTHON.md, the module built by maturin).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::Duration;

/// Generous: a debug build on a loaded machine.
const TIMEOUT: Duration = Duration::from_secs(60);

/// The text of a file of docs/.
fn doc(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The fenced code blocks of a Markdown text, each as its lines.
fn blocks(text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut cur: Option<Vec<String>> = None;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            match cur.take() {
                Some(b) => out.push(b),
                None => cur = Some(Vec::new()),
            }
        } else if let Some(b) = cur.as_mut() {
            b.push(line.to_string());
        }
    }
    out
}

/// The block whose first line is `first` (exactly one).
fn block(text: &str, first: &str) -> Vec<String> {
    let found: Vec<_> = blocks(text)
        .into_iter()
        .filter(|b| b.first().map(String::as_str) == Some(first))
        .collect();
    assert_eq!(found.len(), 1, "blocks starting with {first:?}");
    found.into_iter().next().unwrap()
}

/// A `gore engine` whose output a thread reads line by line.
struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Engine {
    fn start() -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gore"))
            .arg("engine")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("run gore engine");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Engine {
            stdin: child.stdin.take(),
            child,
            lines,
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(format!("{line}\n").as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    /// The next line, or a failure naming what was awaited.
    fn line(&self, what: &str) -> String {
        self.lines
            .recv_timeout(TIMEOUT)
            .unwrap_or_else(|e| panic!("no line from the engine ({what}): {e}"))
    }

    /// Every line it writes until it exits (its input closed).
    fn finish(mut self) -> Vec<String> {
        drop(self.stdin.take());
        let mut out = Vec::new();
        while let Ok(l) = self.lines.recv_timeout(TIMEOUT) {
            out.push(l);
        }
        let _ = self.child.wait();
        out
    }
}

/// What the engine answers to `input` (its input then closed).
fn run(input: &[&str]) -> Vec<String> {
    let mut e = Engine::start();
    for l in input {
        e.send(l);
    }
    e.finish()
}

/// An `info` line without the figures that depend on the machine.
fn info_key(line: &str) -> String {
    let mut out = Vec::new();
    let mut words = line.split_whitespace();
    while let Some(w) = words.next() {
        if w == "nps" || w == "time" {
            words.next();
        } else {
            out.push(w);
        }
    }
    out.join(" ")
}

/// The engine's version, as `gpi` names it.
fn version() -> String {
    let out = run(&["gpi"]);
    out[0]
        .strip_prefix("id name gore ")
        .expect("id name line")
        .to_string()
}

#[test]
fn protocol_gpi_examples_are_the_engines() {
    let text = doc("PROTOCOL.md");
    let out = run(&["gpi"]);
    let v = version();
    // The reference block: every line, in order.
    let documented: Vec<String> = block(&text, "id name gore <version>")
        .iter()
        .map(|l| l.replace("<version>", &v))
        .collect();
    assert_eq!(documented, out, "docs/PROTOCOL.md, `gpi`");
    // The first example: its lines up to `...`, and its last.
    let intro = block(&text, "$ gore engine");
    assert_eq!(intro[1], "gpi");
    let shown: Vec<&String> = intro[2..].iter().take_while(|l| *l != "...").collect();
    for (i, l) in shown.iter().enumerate() {
        assert_eq!(*l, &out[i], "docs/PROTOCOL.md, the first example");
    }
    assert_eq!(
        intro.last(),
        out.last(),
        "docs/PROTOCOL.md, the first example"
    );
}

#[test]
fn protocol_command_examples_are_the_engines() {
    let text = doc("PROTOCOL.md");
    // isready.
    let ready = block(&text, "isready");
    assert_eq!(ready[1..].to_vec(), run(&["isready"]), "`isready`");
    // legal: two commands, then the answer.
    let gpn_line = "position gpn 0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B a2+a4";
    let legal = block(&text, gpn_line);
    let cmds: Vec<&str> = legal[..2].iter().map(String::as_str).collect();
    assert_eq!(legal[2..].to_vec(), run(&cmds), "`legal`");
    // d, in that position.
    let d = block(&text, "d");
    assert_eq!(d[1..].to_vec(), run(&[gpn_line, "d"]), "`d`");
    // go depth 6 from the start: the lines shown, `...` standing for the
    // lines between.
    let go = block(&text, "go depth 6");
    let out = run(&["position startpos", "go depth 6"]);
    let shown: Vec<&String> = go[1..].iter().filter(|l| *l != "...").collect();
    for l in shown {
        let found = if l.starts_with("info ") {
            out.iter().any(|o| info_key(o) == info_key(l))
        } else {
            out.contains(l)
        };
        assert!(found, "`go depth 6`: {l:?} is not in the engine's {out:#?}");
    }
    // go on the clock: its first iteration (how deep it gets depends on
    // the machine).
    let clock = block(&text, "> position startpos actions a2 b3");
    let cmds: Vec<&str> = clock[..2].iter().map(|l| &l[2..]).collect();
    let out = run(&cmds);
    assert_eq!(info_key(&clock[2][2..]), info_key(&out[0]), "`go atime`");
    assert!(out.last().is_some_and(|l| l.starts_with("bestaction ")));
    // go infinite: its first iteration (the action `stop` ends with
    // depends on when it comes).
    let inf = block(&text, "position startpos actions a1 b2");
    assert_eq!(inf[1], "go infinite");
    // (Its first iteration is a depth-1 search: `stop` could come before.)
    let out = run(&[&inf[0], "go depth 1"]);
    assert_eq!(info_key(&inf[2]), info_key(&out[0]), "`go infinite`");
}

#[test]
fn protocol_error_table_is_the_engines() {
    let text = doc("PROTOCOL.md");
    let section = text
        .split("## Errors")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("an Errors section");
    // Every `` `error …` `` of the table.
    let documented: Vec<String> = section
        .split("`` ")
        .skip(1)
        .filter_map(|s| s.split(" ``").next().map(str::trim))
        .filter(|s| s.starts_with("error "))
        .map(str::to_string)
        .collect();
    assert!(documented.len() >= 17, "{documented:?}");
    let long = "x".repeat(70_000);
    let inputs: Vec<Vec<&str>> = vec![
        vec![
            "foo",
            "isready now",
            "setoption level 3",
            "setoption name foo value 1",
            "setoption name level value 13",
            "rules foo",
            "position foo",
            "position gpn 01,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B -",
            "position gpn 6,6,6,6/6,6,6,6 AAAA/BBBB 1-0 A -",
            "position startpos actions a1 zz",
            "position startpos actions a1 b2 b1",
            "go depth 0",
            "go atime soon",
            "go wibble",
            long.as_str(),
        ],
        vec!["setoption name perfect value true", "go"],
        vec![
            "setoption name perfect value true",
            "setoption name db value /nonexistent",
            "go",
        ],
        vec!["go infinite", "go depth 3", "stop"],
        vec!["position gpn 0,0,0,0/0,0,0,0 AAAA/BBBB 24-24 A -", "go"],
    ];
    let mut said = Vec::new();
    for input in &inputs {
        said.extend(run(input).into_iter().filter(|l| l.starts_with("error ")));
    }
    for d in &documented {
        assert!(
            said.contains(d),
            "docs/PROTOCOL.md's error {d:?} is not what the engine says; it says {said:#?}"
        );
    }
}

#[test]
fn protocol_full_session_is_the_engines() {
    let text = doc("PROTOCOL.md");
    let session = block(&text, "> gpi");
    // Each command with the answers shown after it (`...` elides lines).
    let mut steps: Vec<(String, Vec<String>)> = Vec::new();
    for l in &session {
        if let Some(c) = l.strip_prefix("> ") {
            steps.push((c.to_string(), Vec::new()));
        } else if let Some(a) = l.strip_prefix("< ") {
            steps
                .last_mut()
                .expect("a command first")
                .1
                .push(a.to_string());
        } else {
            assert_eq!(l.trim(), "...", "a line of the session: {l:?}");
        }
    }
    let v = version();
    let mut e = Engine::start();
    for (cmd, answers) in &steps {
        e.send(cmd);
        // A search's lines are compared when it is bounded by depth (the
        // same on every machine, bar `nps` and `time`); an interrupted one
        // prints whatever it reached.
        let exact_search = cmd.starts_with("go depth");
        for want in answers.iter().map(|a| a.replace("0.1.0", &v)) {
            if want.starts_with("info ") && !exact_search {
                continue;
            }
            let mut got = e.line(cmd);
            while got.starts_with("info ") && !want.starts_with("info ") {
                got = e.line(cmd);
            }
            if want.starts_with("info ") {
                assert_eq!(info_key(&got), info_key(&want), "after `{cmd}`");
            } else if cmd == "stop" {
                assert!(
                    got.starts_with("bestaction "),
                    "after `stop`: {got:?}, documented {want:?}"
                );
            } else {
                assert_eq!(got, want, "after `{cmd}`");
            }
        }
    }
    let rest: Vec<String> = e
        .finish()
        .into_iter()
        .filter(|l| !l.starts_with("info "))
        .collect();
    assert!(
        rest.is_empty(),
        "the engine said more than the session shows: {rest:?}"
    );
}

#[test]
fn strength_bad_spec_example_is_the_clis() {
    let text = doc("STRENGTH.md");
    let b = block(&text, "$ gore match --engine1 ai:13 --engine2 random");
    let out = Command::new(env!("CARGO_BIN_EXE_gore"))
        .args(["match", "--engine1", "ai:13", "--engine2", "random"])
        .output()
        .expect("run gore match");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines, b[1..].to_vec(), "docs/STRENGTH.md");
}

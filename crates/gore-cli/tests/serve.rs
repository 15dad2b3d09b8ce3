//! `gore serve` survives a SIGKILL: every acknowledged action is in the
//! database when it starts again, every game goes on, and an ai game whose
//! AI was thinking gets its move.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `gore serve`, killed when dropped.
struct Served {
    child: Child,
    /// `127.0.0.1:PORT`
    host: String,
}

impl Served {
    /// `ai_ms`: the AI's time a decision (`--ai-time-ms`).
    fn start(db: &Path, log: &Path, ai_ms: u32) -> Served {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gore"))
            .args([
                "serve",
                "--port",
                "0",
                "--rate-limit",
                "0",
                "--ai-time-ms",
                &ai_ms.to_string(),
            ])
            .arg("--db")
            .arg(db)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(log).unwrap())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        let host = line
            .strip_prefix("Goré is ready: open http://")
            .and_then(|r| r.strip_suffix("/\n"))
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_string();
        assert!(host.starts_with("127.0.0.1:"), "{line}");
        Served { child, host }
    }

    /// SIGKILL, and what it had printed after the ready line.
    fn kill(mut self) -> String {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        let mut rest = String::new();
        self.child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut rest)
            .unwrap();
        rest
    }

    /// One HTTP/1.1 request; the status and the JSON body.
    fn call(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&str>,
    ) -> (u16, serde_json::Value) {
        let mut s = TcpStream::connect(&self.host).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let body = body.unwrap_or("");
        let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
        write!(
            s,
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n{auth}\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            self.host,
            body.len()
        )
        .unwrap();
        let mut raw = String::new();
        s.read_to_string(&mut raw).unwrap();
        let (head, body) = raw.split_once("\r\n\r\n").unwrap();
        let status = head[9..12].parse().unwrap();
        (
            status,
            serde_json::from_str(body).unwrap_or(serde_json::Value::Null),
        )
    }

    fn create(&self, body: &str) -> (String, String) {
        let (st, v) = self.call("POST", "/api/games", None, Some(body));
        assert_eq!(st, 201, "{v}");
        (
            v["id"].as_str().unwrap().to_string(),
            v["token"].as_str().unwrap().to_string(),
        )
    }

    fn state(&self, id: &str, token: &str) -> serde_json::Value {
        let (st, v) = self.call("GET", &format!("/api/games/{id}"), Some(token), None);
        assert_eq!(st, 200, "{v}");
        v
    }

    fn act(&self, id: &str, token: &str, action: &str, ply: usize) -> (u16, serde_json::Value) {
        let body = serde_json::json!({"action": action, "ply": ply}).to_string();
        self.call(
            "POST",
            &format!("/api/games/{id}/actions"),
            Some(token),
            Some(&body),
        )
    }

    fn wait_for(
        &self,
        id: &str,
        token: &str,
        what: impl Fn(&serde_json::Value) -> bool,
    ) -> serde_json::Value {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let v = self.state(id, token);
            if what(&v) {
                return v;
            }
            assert!(Instant::now() < deadline, "not reached: {v}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn actions(v: &serde_json::Value) -> Vec<String> {
    v["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["action"].as_str().unwrap().to_string())
        .collect()
}

fn legal(v: &serde_json::Value) -> Vec<String> {
    v["legal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect()
}

fn temp_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "gore-serve-test-{}-{}",
        std::process::id(),
        Instant::now().elapsed().as_nanos()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn acknowledged_actions_survive_sigkill_and_the_ai_resumes() {
    let dir = temp_dir();
    let db = dir.join("gore.sqlite3");
    // The AI thinks ten minutes here: the kill below comes first however
    // slowly a loaded machine runs this test (with 1.5 s, a CI-like load
    // once let the AI move before the kill).
    let server = Served::start(&db, &dir.join("log1.txt"), 600_000);

    // A local game: 12 actions, each acknowledged.
    let (local, lt) = server.create(r#"{"mode": "local"}"#);
    let mut acknowledged = Vec::new();
    for ply in 0..12 {
        let v = server.state(&local, &lt);
        if v["status"] == "over" {
            break;
        }
        let l = legal(&v);
        let a = l[(ply * 7 + 3) % l.len()].clone();
        let (st, v) = server.act(&local, &lt, &a, ply);
        assert_eq!(st, 200, "{v}");
        acknowledged.push(a);
    }

    // An ai game at full strength: the human moves, and the server is
    // killed while the AI thinks.
    let (ai, at) = server.create(&format!(
        r#"{{"mode": "ai", "level": {}, "colour": "A"}}"#,
        gore_ai::MAX_LEVEL
    ));
    let (st, v) = server.act(&ai, &at, "a3", 0);
    assert_eq!(st, 200, "{v}");
    let rest = server.kill();
    assert_eq!(rest, "", "stdout holds only the ready line");

    // Again, on the same database.
    let server = Served::start(&db, &dir.join("log2.txt"), 1500);
    let v = server.state(&local, &lt);
    assert_eq!(actions(&v), acknowledged);
    let n = acknowledged.len();
    if v["status"] != "over" {
        let a = legal(&v)[0].clone();
        let (st, v) = server.act(&local, &lt, &a, n);
        assert_eq!(st, 200, "{v}");
        assert_eq!(v["actions"].as_array().unwrap().len(), n + 1);
    }

    // The AI's move had not been made (it thinks ten minutes on the first
    // server): the restarted server resumes it (1.5 s; whether it has
    // moved yet when read here depends on the machine's speed).
    let v = server.state(&ai, &at);
    assert_eq!(actions(&v)[0], "a3");
    let v = server.wait_for(&ai, &at, |v| {
        v["actions"].as_array().unwrap().len() >= 2
            && (v["to_move"] == "A" || v["status"] == "over")
    });
    assert_eq!(v["actions"][1]["player"], "B", "{v}");
    // And the game goes on.
    if v["status"] != "over" {
        let n = v["actions"].as_array().unwrap().len();
        let a = legal(&v)[0].clone();
        let (st, v) = server.act(&ai, &at, &a, n);
        assert_eq!(st, 200, "{v}");
    }
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

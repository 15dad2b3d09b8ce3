//! Running out of file descriptors (issue 8, point 5): a server whose
//! `RLIMIT_NOFILE` is 256 closes new connections gracefully before it runs
//! out, says so once, serves again when connections close, and an
//! `accept` that fails with `EMFILE` neither spins nor stops the server.
//!
//! The limit is per process and the clients need descriptors too, so the
//! server runs in a child process: this test binary again, running only
//! `child_server` (which does nothing in a normal run).
#![cfg(target_os = "linux")]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CHILD: &str = "GORE_DESCRIPTORS_CHILD";
const LIMIT: u64 = 256;

/// The server side: sets the limit, serves, and obeys stdin: `hog` takes
/// every free descriptor (answers `hogged N`), `free` gives them back;
/// the end of stdin ends it.
/// Not a test of its own: the entry point of the child process (it does
/// nothing unless started as the child), so that CI skips nothing.
#[test]
fn child_server() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit read and write one valid `rlimit`.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim), 0);
        lim.rlim_cur = LIMIT.min(lim.rlim_max);
        assert_eq!(libc::setrlimit(libc::RLIMIT_NOFILE, &lim), 0);
    }
    gore_server::init_logging();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let config = gore_server::Config {
            db: dir.path().join("gore.sqlite3").to_str().unwrap().into(),
            rate_limit: 0,
            max_conns_per_ip: 10_000,
            read_timeout: Duration::from_secs(600),
            idle_timeout: Duration::from_secs(600),
            ..gore_server::Config::default()
        };
        let state = gore_server::AppState::open(config).await.unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        println!("addr {}", listener.local_addr().unwrap());
        tokio::spawn(gore_server::serve(listener, state, std::future::pending()));
        tokio::task::spawn_blocking(|| {
            let mut hogged = Vec::new();
            for line in std::io::stdin().lock().lines() {
                match line.unwrap().trim() {
                    "hog" => {
                        while let Ok(f) = std::fs::File::open("/dev/null") {
                            hogged.push(f);
                        }
                        println!("hogged {}", hogged.len());
                    }
                    "free" => {
                        hogged.clear();
                        println!("freed");
                    }
                    _ => {}
                }
            }
        })
        .await
        .unwrap();
    });
}

/// `GET /` on a new connection: `Some(connection)` when answered 200,
/// `None` when the server closed it instead.
fn try_get(addr: SocketAddr) -> Option<TcpStream> {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    if s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n").is_err() {
        return None;
    }
    let mut head = [0u8; 12];
    match s.read_exact(&mut head) {
        Ok(()) => {
            assert_eq!(&head, b"HTTP/1.1 200", "an answer, but not 200");
            Some(s)
        }
        Err(e) => {
            assert_ne!(
                e.kind(),
                std::io::ErrorKind::WouldBlock,
                "no answer in 30 s"
            );
            None
        }
    }
}

/// CPU time the process has used (user and system), from /proc.
fn cpu_time(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // After the command's name in parentheses: fields 14 and 15 of the
    // whole line are utime and stime, in clock ticks.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    let ticks: u64 = f[11].parse::<u64>().unwrap() + f[12].parse::<u64>().unwrap();
    // SAFETY: sysconf reads a constant.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as u64;
    Duration::from_millis(ticks * 1000 / hz)
}

#[test]
fn descriptors_low_refuses_gracefully() {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_server", "--nocapture"])
        .env(CHILD, "1")
        .env("RUST_LOG", "gore_server=info")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut stderr = child.stderr.take().unwrap();
    let log = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let mut line = String::new();
    let addr: SocketAddr = loop {
        line.clear();
        assert!(out.read_line(&mut line).unwrap() > 0, "the child ended");
        if let Some(a) = line.trim().strip_prefix("addr ") {
            break a.parse().unwrap();
        }
    };

    // 1. Every descriptor taken: `accept` fails with EMFILE while a client
    // waits. The server waits too, without spinning, and serves it once
    // descriptors are free.
    writeln!(stdin, "hog").unwrap();
    line.clear();
    out.read_line(&mut line).unwrap();
    assert!(line.starts_with("hogged"), "{line}");
    let waiting = std::thread::spawn(move || try_get(addr).is_some());
    let before = cpu_time(pid);
    std::thread::sleep(Duration::from_secs(2));
    let spent = cpu_time(pid) - before;
    assert!(
        spent < Duration::from_millis(500),
        "the server used {spent:?} of CPU in 2 s while accept failed: it spins"
    );
    writeln!(stdin, "free").unwrap();
    assert!(waiting.join().unwrap(), "the waiting client was not served");

    // 2. More connections than the limit allows: the first are served,
    // the rest closed, and the server does not fail.
    let mut served = Vec::new();
    let mut refused = 0;
    for _ in 0..(LIMIT + 60) {
        match try_get(addr) {
            Some(s) => served.push(s),
            None => refused += 1,
        }
    }
    // Some are served (how many depends on the descriptors the test
    // process itself holds, and on a loaded machine some tries fail early),
    // never as many as the limit.
    assert!(
        served.len() >= 16 && served.len() < LIMIT as usize,
        "served {} of a limit of {LIMIT}",
        served.len()
    );
    assert!(refused >= 60, "refused {refused}");

    // 3. Connections close: new ones are served again.
    served.truncate(served.len() / 2);
    let deadline = Instant::now() + Duration::from_secs(30);
    while try_get(addr).is_none() {
        assert!(Instant::now() < deadline, "never served again");
        std::thread::sleep(Duration::from_millis(20));
    }

    drop(stdin);
    drop(served);
    let status = child.wait().unwrap();
    let log = log.join().unwrap();
    assert!(status.success(), "the child failed: {log}");
    assert_eq!(
        log.matches("file descriptors low").count(),
        1,
        "said once: {log}"
    );
    assert!(log.contains("file descriptors available again"), "{log}");
    assert_eq!(
        log.matches("cannot accept connections").count(),
        1,
        "said once: {log}"
    );
    assert!(log.contains("accepting connections again"), "{log}");
}

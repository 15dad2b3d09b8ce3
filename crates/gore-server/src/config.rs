//! What `gore serve` is given: every operator limit in one place, with its
//! default (docs/SECURITY.md lists them).

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

/// A network range, as `--trust-proxy 10.0.0.0/8` or `::1/128` writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cidr {
    /// The range's first address (host bits cleared).
    pub addr: IpAddr,
    /// The prefix length.
    pub prefix: u8,
}

impl Cidr {
    /// Whether `ip` is in the range (an IPv4-mapped IPv6 address counts as
    /// its IPv4 address).
    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
            v4 => v4,
        };
        match (self.addr, ip) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                let mask = u32::MAX
                    .checked_shl(32 - u32::from(self.prefix))
                    .unwrap_or(0);
                u32::from(net) & mask == u32::from(ip) & mask
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                let mask = u128::MAX
                    .checked_shl(128 - u32::from(self.prefix))
                    .unwrap_or(0);
                u128::from(net) & mask == u128::from(ip) & mask
            }
            _ => false,
        }
    }
}

impl std::str::FromStr for Cidr {
    type Err = String;

    /// `ADDR/PREFIX`, or a bare address (a range of one).
    fn from_str(s: &str) -> Result<Cidr, String> {
        let (a, p) = match s.split_once('/') {
            Some((a, p)) => (a, Some(p)),
            None => (s, None),
        };
        let addr: IpAddr = a
            .trim()
            .parse()
            .map_err(|_| format!("`{a}` is not an IP address"))?;
        let max = if addr.is_ipv4() { 32 } else { 128 };
        let prefix = match p {
            None => max,
            Some(p) => p
                .trim()
                .parse::<u8>()
                .ok()
                .filter(|&n| n <= max)
                .ok_or_else(|| format!("`/{p}`: the prefix is 0 to {max}"))?,
        };
        let addr = match addr {
            IpAddr::V4(v) => {
                let mask = u32::MAX.checked_shl(32 - u32::from(prefix)).unwrap_or(0);
                IpAddr::V4((u32::from(v) & mask).into())
            }
            IpAddr::V6(v) => {
                let mask = u128::MAX.checked_shl(128 - u32::from(prefix)).unwrap_or(0);
                IpAddr::V6((u128::from(v) & mask).into())
            }
        };
        Ok(Cidr { addr, prefix })
    }
}

/// What `gore serve` is given.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where to listen (port 0: any free port).
    pub addr: SocketAddr,
    /// The database: a path or `sqlite://PATH`.
    pub db: String,
    /// Requests a second per client (bursts of twice that); 0: no limit.
    pub rate_limit: u32,
    /// How long the AI thinks at the top level (`--ai-time-ms`); the
    /// budget every AI turn is cut from.
    pub ai_time: Duration,
    /// Threads that run AI searches (`--ai-threads`); default: the cores.
    pub ai_threads: usize,
    /// Who computes the AI's turns: this server (the default), workers
    /// (`--ai-threads 0`), or this process is a worker (`gore worker`).
    pub ai_role: crate::domain::AiRole,
    /// AI turns waiting for a thread, at most; a new AI game beyond that is
    /// refused `busy`.
    pub ai_queue: usize,
    /// AI games thinking or waiting at once per client address.
    pub ai_per_client: usize,
    /// Plies per game at most (`--max-plies`): the game then ends as the
    /// rules' ply cap ends it.
    pub max_plies: u32,
    /// The site's public address (`--public-url https://gore.example`):
    /// the only `Host` accepted, and `Secure` cookies when it is https.
    pub public_url: Option<String>,
    /// Proxies whose `X-Forwarded-For` and `X-Forwarded-Proto` are believed.
    pub trust_proxy: Vec<Cidr>,
    /// Open connections per client address at most.
    pub max_conns_per_ip: usize,
    /// Time to send a request's headers, and then its body.
    pub read_timeout: Duration,
    /// A keep-alive connection with no request for this long is closed.
    pub idle_timeout: Duration,
    /// A socket that answers no ping for this long is closed.
    pub ws_idle_timeout: Duration,
    /// A socket whose client sends no message for this long is closed
    /// (pongs are not messages: a silent client that only answers pings
    /// would hold its descriptor for ever). The web app sends a `ping`
    /// message well within it.
    pub ws_silence_timeout: Duration,
    /// Sockets open at once from every address together, at most; 0: half
    /// the connections the descriptors allow, so that requests always find
    /// a descriptor.
    pub max_sockets: usize,
    /// Spectators' sockets per game at most (a player's own sockets are
    /// never refused by it).
    pub max_sockets_per_game: usize,
    /// Sockets per client address at most.
    pub max_sockets_per_ip: usize,
    /// Seeks and challenges waiting in the lobby per client address at
    /// most (issue 25: ghost seeks; `--max-seeks-per-ip`).
    pub max_seeks_per_ip: usize,
    /// The solver's database (`--solver-db DIR`, built by `gore solve`):
    /// the perfect player for ai games without trades.
    pub solver_db: Option<std::path::PathBuf>,
    /// Threads of the analysis pool (`--analysis-threads`): the analysis
    /// board's and the game review's searches run there, apart from the
    /// games' AI, so that analysis never slows a game's AI. 0: the
    /// reviews are computed by the AI workers (`gore worker`); the board
    /// keeps one thread.
    pub analysis_threads: usize,
    /// Analysis jobs that may wait for a thread of the analysis pool.
    pub analysis_queue: usize,
    /// Analysis jobs running at once per client (address).
    pub analysis_per_client: usize,
    /// Analysis jobs of one client (address) that wait their turn behind
    /// its running ones (`--analysis-waiting-per-client`): one visitor's
    /// tabs and reviews queue instead of refusing each other; more are
    /// refused `busy`.
    pub analysis_waiting_per_client: usize,
    /// One analysis's time at most (`--analysis-time-ms`); a client may
    /// ask for less, never more.
    pub analysis_time: Duration,
    /// One analysis's nodes at most (`--analysis-nodes`), whatever the
    /// time: the bound that does not depend on the machine's speed.
    pub analysis_nodes: u64,
    /// Password hashes (argon2id, 19 MiB each) computed at once
    /// (`--hash-workers`); default: the cores.
    pub hash_workers: usize,
    /// Password hashes that may wait for a worker (`--hash-queue`); a
    /// sign-up, log-in or password change beyond it is refused `busy`.
    pub hash_queue: usize,
    /// The server's time: the system's (tests give a manual clock, so
    /// that a flag on time needs no waiting).
    pub clock: crate::domain::clock::Clock,
    /// The paces of quick pairing (`--paces`; the lobby offers these).
    pub paces: Vec<crate::domain::clock::TimeControl>,
    /// A puzzle file to serve instead of the embedded one (`--puzzles`).
    pub puzzles: Option<std::path::PathBuf>,
    /// Where to serve `GET /metrics` (`--metrics-addr`), on a listener of
    /// its own; `None`: no metrics served.
    pub metrics_addr: Option<SocketAddr>,
    /// How long a stop (SIGTERM, Ctrl-C) may take at most
    /// (`--drain-seconds`): half of it for open sockets to go, the rest
    /// for open requests to finish.
    pub drain: Duration,
    /// The server schedules an arena every hour
    /// (`--tournaments-hourly-arena`; off by default).
    pub tournaments_hourly_arena: bool,
    /// The server schedules a Swiss event every day
    /// (`--tournaments-daily-swiss`; off by default).
    pub tournaments_daily_swiss: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            addr: SocketAddr::from(([127, 0, 0, 1], 8080)),
            db: "gore.sqlite3".into(),
            rate_limit: 20,
            ai_time: gore_ai::Level::MAX.default_movetime(),
            ai_threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
            ai_role: crate::domain::AiRole::Serve,
            ai_queue: 64,
            ai_per_client: 2,
            max_plies: 2000,
            public_url: None,
            trust_proxy: Vec::new(),
            max_conns_per_ip: 64,
            read_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            ws_idle_timeout: Duration::from_secs(60),
            ws_silence_timeout: Duration::from_secs(300),
            max_sockets: 0,
            max_sockets_per_game: 200,
            max_sockets_per_ip: 32,
            max_seeks_per_ip: crate::domain::lobby::SEEKS_PER_ADDRESS,
            solver_db: None,
            analysis_threads: 1,
            analysis_queue: 16,
            analysis_per_client: 1,
            analysis_waiting_per_client: 4,
            analysis_time: Duration::from_secs(10),
            analysis_nodes: 50_000_000,
            hash_workers: std::thread::available_parallelism().map_or(2, |n| n.get()),
            hash_queue: 8,
            clock: crate::domain::clock::Clock::system(),
            paces: crate::domain::clock::PACES
                .iter()
                .filter_map(|p| p.parse().ok())
                .collect(),
            puzzles: None,
            metrics_addr: None,
            drain: Duration::from_secs(10),
            tournaments_hourly_arena: false,
            tournaments_daily_swiss: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gore_store::{redact, DbUrl};

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn ranges() {
        let c: Cidr = "10.1.2.3/8".parse().unwrap();
        assert_eq!(c.addr, ip("10.0.0.0"));
        assert!(c.contains(ip("10.255.0.1")));
        assert!(!c.contains(ip("11.0.0.1")));
        assert!(c.contains(ip("::ffff:10.9.9.9")), "v4-mapped");
        let one: Cidr = "127.0.0.1".parse().unwrap();
        assert!(one.contains(ip("127.0.0.1")) && !one.contains(ip("127.0.0.2")));
        let v6: Cidr = "2001:db8::/32".parse().unwrap();
        assert!(v6.contains(ip("2001:db8:1::9")));
        assert!(!v6.contains(ip("2001:db9::1")));
        assert!(!v6.contains(ip("10.0.0.1")));
        let all: Cidr = "0.0.0.0/0".parse().unwrap();
        assert!(all.contains(ip("8.8.8.8")));
        assert!("10.0.0.0/33".parse::<Cidr>().is_err());
        assert!("nope/8".parse::<Cidr>().is_err());
    }

    #[test]
    fn passwords_are_redacted() {
        assert_eq!(
            redact("postgres://gore:secret@db.example/gore"),
            "postgres://gore:***@db.example/gore"
        );
        assert_eq!(redact("postgres://db/gore"), "postgres://db/gore");
    }

    #[test]
    fn urls() {
        assert_eq!(
            DbUrl::parse("gore.sqlite3").unwrap(),
            DbUrl::Sqlite("gore.sqlite3".into())
        );
        assert_eq!(
            DbUrl::parse("sqlite:///tmp/x.db").unwrap(),
            DbUrl::Sqlite("/tmp/x.db".into())
        );
        assert_eq!(
            DbUrl::parse("sqlite://x.db").unwrap(),
            DbUrl::Sqlite("x.db".into())
        );
        assert_eq!(
            DbUrl::parse("sqlite:x.db").unwrap(),
            DbUrl::Sqlite("x.db".into())
        );
        assert_eq!(
            DbUrl::parse("postgres://u:p@h/db").unwrap(),
            DbUrl::Postgres("postgres://u:p@h/db".into())
        );
        assert_eq!(
            DbUrl::parse(" postgresql://u@h:5433/db ").unwrap(),
            DbUrl::Postgres("postgresql://u@h:5433/db".into())
        );
        let dbg = format!("{:?}", DbUrl::parse("postgres://u:hunter2@h/db").unwrap());
        assert!(!dbg.contains("hunter2"), "{dbg}");
        // A bad port is refused at once, without the password in the message.
        let e = DbUrl::parse("postgres://u:hunter2@h:notaport/db")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("not a PostgreSQL URL") && !e.contains("hunter2"),
            "{e}"
        );
        let e = DbUrl::parse("mysql://u@h/db").unwrap_err().to_string();
        assert!(e.contains("unsupported database `mysql://`"), "{e}");
        assert!(DbUrl::parse("").is_err());
        assert!(DbUrl::parse("sqlite://").is_err());
    }
}

//! The AI's scheduler: a fair, bounded pool of search threads.
//!
//! This file holds the jobs and their keys, refusals and statistics; the
//! pool, its threads and tickets are in `ai/pool.rs` ([`AiPool`],
//! [`AiTicket`]), the queue's order in `ai/queue.rs` ([`FairQueue`]).
//!
//! Every AI search of the server runs here, on the pool's own named OS
//! threads (`gore-ai-N`), never on the async runtime. A job is one search:
//! a client key, a game key, a cost, and the work, a closure given the
//! job's stop flag.
//!
//! # The policy
//!
//! - **One job per game**: a game has at most one job in flight (waiting
//!   or running); a second is refused [`AiBusy::Game`].
//! - **A cap per client**: a client key ([`ClientKey::ip`]: an IPv4
//!   address, or an IPv6 /64, the block one subscriber usually holds) has
//!   at most `per_client` jobs running, and at most `waiting_per_client`
//!   more waiting behind them ([`AiPool::with_waiting`]; none for
//!   [`AiPool::new`], the games' pool); more are refused
//!   [`AiBusy::Client`]. So one visitor's analysis tabs and his review
//!   queue behind each other instead of refusing each other (issue 27).
//! - **A bounded queue**: at most `queue` jobs wait for a thread; a job
//!   that would wait beyond that is refused [`AiBusy::Queue`], never
//!   queued without end, unless its client has none waiting and fewer
//!   than `queue` clients do (a flood from fewer addresses than places
//!   does not shut the others out: at most `2 × queue` jobs wait). A job
//!   that a free thread takes at once does not wait, so `queue` 0 means
//!   "run now or refuse". In the analysis pool ([`AiPool::with_waiting`])
//!   a full queue gives the place of the most served address's newest job
//!   to an address that searched less ([`FairQueue::victim_for`]; the
//!   displaced ticket resolves [`AiGone::Displaced`]): sixteen flooding
//!   addresses no longer shut everyone else out (issue 37).
//! - **Least service first, by address** ([`FairQueue`]): each client key
//!   has its own line of waiting jobs, first come first served; a free
//!   thread serves the key that has had the least search time lately
//!   (charged its estimate when a job starts, its real time when it ends,
//!   fading with a half-life of a minute of search; among equals the
//!   cheaper job, then arrival), whatever the AI level. So keys take turns
//!   when they ask alike, and a client that asks now and then goes before
//!   the keys that searched more since: it waits for the searches
//!   running, never for a flooder's line, nor, with many flooding
//!   addresses, for each of them (issue 25: cheapest-first let level-11
//!   floods starve level 12, reviews jumped ahead of analyses, and turns
//!   alone left a short analysis behind a round of sixteen long ones). A
//!   new key starts at the median service of the served keys waiting (30 s
//!   of search at most): a botnet's fresh addresses do not go before an
//!   established client who searched less (issue 37). A waiting job's
//!   [`AiTicket::place`] is the number of jobs that will run before it.
//! - **Long jobs in slices** ([`AiJob::sliced`], the board's analyses):
//!   after each slice (a second of search, ended at the next depth or
//!   action), a job gives its thread to a job waiting whose address has
//!   searched less lately, and goes on afterwards, first in its address's
//!   line, what it holds kept (at most as many paused as the queue holds,
//!   or as threads if more); with
//!   nobody before it, it goes on at once. So one address's ten-second
//!   analysis holds a thread for a second when someone else asks
//!   (issue 37).
//! - **A lane kept for cheap jobs**: a job whose cost is above `cheap_max`
//!   is *expensive*; with two threads or more, expensive jobs occupy at
//!   most `threads - 1` threads, so one thread is always there for cheap
//!   jobs, even while every other thread is deep in a long search. (With
//!   one thread there is no lane to keep: expensive jobs use it too.)
//! - **Nobody waits for nothing**: a waiting job whose [`AiTicket`] is
//!   dropped leaves the queue at once, freeing its slots; a running job
//!   whose ticket is dropped has its stop flag set, and its slots are freed
//!   when the work returns.
//! - **A panic is one job's failure**: the work runs under `catch_unwind`;
//!   its ticket resolves [`AiGone`], its slots are freed and the thread
//!   goes on with the next job.
//!
//! A job's slots (its game, its client's count) are freed *before* its
//! ticket resolves, so whoever awaits a ticket may submit that game's next
//! job at once.
//!
//! ```
//! # async fn f() -> std::io::Result<()> {
//! use std::net::IpAddr;
//! use gore_domain::ai::{AiJob, AiPool, ClientKey};
//!
//! let pool = AiPool::new(2, 64, 2, 4)?;
//! let client = ClientKey::ip("2001:db8::1".parse::<IpAddr>().unwrap());
//! let ticket = pool
//!     .submit(AiJob::new(client, "game-1", 1, |_stop| 6 * 7))
//!     .expect("room for it");
//! assert_eq!(ticket.await, Ok(42));
//! # Ok(())
//! # }
//! ```

mod pool;
mod queue;
pub mod usage;

use std::fmt;
use std::net::IpAddr;
use std::sync::atomic::AtomicBool;

pub use pool::{AiPool, AiTicket, Observer};
pub use queue::FairQueue;

/// Whose job it is, for the cap per client.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ClientKey {
    /// A client address: an IPv4 address, or an IPv6 /64 (host bits
    /// cleared). Made by [`ClientKey::ip`].
    Ip(IpAddr),
    /// Any other key (a game id when no address is known).
    Named(String),
}

impl ClientKey {
    /// The key of a client address: IPv4 per address, IPv6 per /64 (an
    /// IPv4-mapped IPv6 address counts as its IPv4 address).
    pub fn ip(ip: IpAddr) -> ClientKey {
        match ip {
            IpAddr::V4(v4) => ClientKey::Ip(IpAddr::V4(v4)),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => ClientKey::Ip(IpAddr::V4(v4)),
                None => {
                    let net = u128::from(v6) & !((1u128 << 64) - 1);
                    ClientKey::Ip(IpAddr::V6(net.into()))
                }
            },
        }
    }

    /// A key that is not an address.
    pub fn named(key: impl Into<String>) -> ClientKey {
        ClientKey::Named(key.into())
    }
}

impl fmt::Display for ClientKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientKey::Ip(ip @ IpAddr::V4(_)) => write!(f, "{ip}"),
            ClientKey::Ip(ip @ IpAddr::V6(_)) => write!(f, "{ip}/64"),
            ClientKey::Named(s) => write!(f, "{s}"),
        }
    }
}

/// The work of a job: a search, given its stop flag (set when nobody
/// waits for the answer any more, or the pool stops).
pub type Work<R> = Box<dyn FnOnce(&AtomicBool) -> Slice<R> + Send>;

/// What a job's work gives back: its result, or (a job in slices,
/// [`AiJob::sliced`]) the rest of its work after a slice.
///
/// After a slice, the pool charges its address the slice's time and
/// gives the thread to a job waiting whose address has searched less
/// lately, if one does (the rest of the work then waits first in its
/// address's line, at most as many paused as the queue holds); else
/// the rest runs on at once. So a long analysis holds a thread for a
/// slice, not for its whole budget, when someone else waits (issue 37).
pub enum Slice<R> {
    /// The work is done.
    Done(R),
    /// The rest of the work, to run when its turn comes again.
    Again(Work<R>),
}

/// One search to run.
pub struct AiJob<R> {
    /// Whose it is (the cap per client).
    pub client: ClientKey,
    /// Which game it is for (one job per game).
    pub game: String,
    /// Its cost (the AI level, for instance): above the pool's
    /// `cheap_max` the job is expensive and may not take the thread kept
    /// for cheap ones. It plays no part in the order (turns by client).
    pub cost: u32,
    /// How long it is expected to search, in milliseconds (0: unknown):
    /// its client is charged this when it starts, its real time when it
    /// ends ([`FairQueue`]); among clients of equal service, the cheaper
    /// job goes first.
    pub estimate_ms: u64,
    /// The search.
    pub work: Work<R>,
}

impl<R> AiJob<R> {
    /// A job from its parts.
    pub fn new(
        client: ClientKey,
        game: impl Into<String>,
        cost: u32,
        work: impl FnOnce(&AtomicBool) -> R + Send + 'static,
    ) -> AiJob<R> {
        AiJob::sliced(client, game, cost, move |stop| Slice::Done(work(stop)))
    }

    /// A job whose work runs in slices: each returns the result or the
    /// rest of the work ([`Slice`]).
    pub fn sliced(
        client: ClientKey,
        game: impl Into<String>,
        cost: u32,
        work: impl FnOnce(&AtomicBool) -> Slice<R> + Send + 'static,
    ) -> AiJob<R> {
        AiJob {
            client,
            game: game.into(),
            cost,
            estimate_ms: 0,
            work: Box::new(work),
        }
    }

    /// The job expected to search about `ms` milliseconds (an analysis's
    /// time budget, for instance).
    pub fn with_estimate_ms(mut self, ms: u64) -> AiJob<R> {
        self.estimate_ms = ms;
        self
    }
}

impl<R> fmt::Debug for AiJob<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AiJob")
            .field("client", &self.client)
            .field("game", &self.game)
            .field("cost", &self.cost)
            .finish_non_exhaustive()
    }
}

/// Why a job was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum AiBusy {
    /// The game already has a job waiting or running.
    #[error("the AI is already thinking about this game; wait for its move")]
    Game,
    /// The client has its `limit` games waiting for the AI or thinking.
    #[error(
        "you already have {limit} games waiting for the AI; \
         wait for one of them to answer, then try again"
    )]
    Client {
        /// The cap per client.
        limit: usize,
    },
    /// `limit` jobs already wait for a thread.
    #[error(
        "the AI is at capacity: {limit} games are already waiting for it; \
         try again in a moment"
    )]
    Queue {
        /// The queue's bound.
        limit: usize,
    },
}

/// The job ended without an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum AiGone {
    /// Its work panicked, or the pool stopped.
    #[error("the AI stopped before answering (the server is stopping, or the search failed)")]
    Stopped,
    /// It waited in a full queue, and an address that searched less took
    /// its place ([`AiPool::with_waiting`]).
    #[error(
        "the engine is at capacity and your address has used it the most lately: \
         try again in a moment"
    )]
    Displaced,
}

/// What the pool holds now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AiStats {
    /// Jobs waiting for a thread.
    pub waiting: usize,
    /// Jobs given a thread (running, or about to).
    pub running: usize,
    /// Of the running jobs, the expensive ones.
    pub running_expensive: usize,
    /// Client keys with a job in flight.
    pub clients: usize,
}

impl fmt::Display for AiStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} waiting, {} running ({} expensive), {} clients",
            self.waiting, self.running, self.running_expensive, self.clients
        )
    }
}

/// The deepest search that still counts as short: the levels that search
/// no deeper keep a thread of their own, which the deeper ones (and the
/// top level, bounded by time only) may not take (the pool's policy).
pub const CHEAP_DEPTH: u32 = 9;

/// The highest cheap level: the AI job's cost is its level, so the pool's
/// `cheap_max` is the last level of the ladder's prefix whose depth caps
/// are at most [`CHEAP_DEPTH`]. Read from the profiles, so that it follows
/// the ladder when levels are added or re-spaced.
pub fn cheap_level() -> u32 {
    gore_ai::Level::all()
        .take_while(|l| l.profile().depth.is_some_and(|d| d <= CHEAP_DEPTH))
        .last()
        .map_or(0, |l| u32::from(l.get()))
}

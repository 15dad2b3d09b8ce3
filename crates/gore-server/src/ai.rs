//! The AI's scheduler: a fair, bounded pool of search threads.
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
//!   at most `per_client` jobs in flight; more are refused
//!   [`AiBusy::Client`].
//! - **A bounded queue**: at most `queue` jobs wait for a thread; a job
//!   that would wait beyond that is refused [`AiBusy::Queue`], never
//!   queued without end, unless its client has none waiting and fewer
//!   than `queue` clients do (a flood from fewer addresses than places
//!   does not shut the others out: at most `2 × queue` jobs wait). A job
//!   that a free thread takes at once does not wait, so `queue` 0 means
//!   "run now or refuse".
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
//!   alone left a short analysis behind a round of sixteen long ones). A waiting job's
//!   [`AiTicket::place`] is the number of jobs that will run before it.
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
//! use gore_server::ai::{AiJob, AiPool, ClientKey};
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

use std::any::Any;
use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt;
use std::future::Future;
use std::net::IpAddr;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::task::{Context, Poll};

use tokio::sync::oneshot;

use crate::error::ApiError;

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
pub type Work<R> = Box<dyn FnOnce(&AtomicBool) -> R + Send>;

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

impl From<AiBusy> for ApiError {
    fn from(e: AiBusy) -> ApiError {
        ApiError::busy(e.to_string())
    }
}

/// The job ended without an answer: its work panicked, or the pool stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the AI stopped before answering (the server is stopping, or the search failed)")]
pub struct AiGone;

impl From<AiGone> for ApiError {
    fn from(e: AiGone) -> ApiError {
        ApiError::internal(e.to_string())
    }
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

/// The work with its result's type erased.
type Erased = Box<dyn FnOnce(&AtomicBool) -> Box<dyn Any + Send> + Send>;
/// Hands a result to the ticket. Kept apart from the work so that a panic
/// in the work does not drop the sender (resolving the ticket) before the
/// job's slots are freed.
type Deliver = Box<dyn FnOnce(Box<dyn Any + Send>) + Send>;

/// A job inside the pool.
struct Task {
    client: ClientKey,
    game: String,
    expensive: bool,
    estimate_ms: u64,
    stop: Arc<AtomicBool>,
    run: Erased,
    deliver: Deliver,
}

/// What a worker thread is doing.
enum Slot {
    Idle,
    /// Given a job it has not yet taken.
    Assigned(Task),
    /// In a job's work.
    Running(Arc<AtomicBool>),
}

struct Inner {
    /// Waiting jobs, by client key: the next to run is the least recently
    /// served key's first.
    waiting: FairQueue<Task>,
    slots: Vec<Slot>,
    running: usize,
    running_expensive: usize,
    games: HashSet<String>,
    clients: HashMap<ClientKey, usize>,
    next_seq: u64,
    shutdown: bool,
}

struct Shared {
    inner: Mutex<Inner>,
    wake: Condvar,
    queue: usize,
    per_client: usize,
    cheap_max: u32,
    /// Threads expensive jobs may occupy at once.
    expensive_cap: usize,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        // Nothing panics under this lock; a poisoned one is still sound.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Inner {
    /// Frees a job's game and client slots.
    fn release(&mut self, client: &ClientKey, game: &str) {
        self.games.remove(game);
        if let Some(n) = self.clients.get_mut(client) {
            *n -= 1;
            if *n == 0 {
                self.clients.remove(client);
            }
        }
    }

    /// Gives waiting jobs to idle threads, key by key in turn, keeping the
    /// lane for cheap jobs (a key whose first job is expensive keeps its
    /// turn while the expensive threads are all taken). Afterwards, if a
    /// thread is idle, nothing waiting may take it: the queue is empty or
    /// every line's first job is expensive with the expensive threads all
    /// taken. Returns whether it gave any.
    fn dispatch(&mut self, expensive_cap: usize) -> bool {
        let mut given = false;
        if self.shutdown {
            return false;
        }
        for i in 0..self.slots.len() {
            if !matches!(self.slots[i], Slot::Idle) {
                continue;
            }
            let lane_full = self.running_expensive >= expensive_cap;
            let Some(task) = self.waiting.pop_where(|t| !(t.expensive && lane_full)) else {
                break;
            };
            self.running += 1;
            self.running_expensive += usize::from(task.expensive);
            self.slots[i] = Slot::Assigned(task);
            given = true;
        }
        given
    }

    /// Whether a job of `client` may wait: fewer than `queue` jobs wait,
    /// or the client has none waiting and fewer than `queue` clients do
    /// (so a flood that fills the queue from fewer addresses than places
    /// does not shut the others out; at most `2 × queue` jobs wait).
    fn has_room(&self, client: &ClientKey, queue: usize) -> bool {
        self.waiting.len() < queue
            || (self.waiting.len_of(client) == 0 && self.waiting.keys() < queue)
    }

    fn has_idle(&self) -> bool {
        self.slots.iter().any(|s| matches!(s, Slot::Idle))
    }
}

/// The pool's handle: dropping the last one stops the pool.
struct Handle {
    shared: Arc<Shared>,
}

impl Drop for Handle {
    fn drop(&mut self) {
        let dropped = {
            let mut g = self.shared.lock();
            g.shutdown = true;
            let waiting = g.waiting.drain();
            for task in &waiting {
                g.release(&task.client, &task.game);
            }
            for slot in &g.slots {
                match slot {
                    Slot::Running(stop) => stop.store(true, Ordering::Relaxed),
                    Slot::Assigned(task) => task.stop.store(true, Ordering::Relaxed),
                    Slot::Idle => {}
                }
            }
            waiting
        };
        self.shared.wake.notify_all();
        // Their tickets resolve `AiGone` as the senders go.
        drop(dropped);
    }
}

/// The fair, bounded pool of AI threads (the module docs give the policy).
/// Cloning it gives another handle on the same pool; the pool stops when
/// the last handle is dropped (running jobs get their stop flag, waiting
/// ones resolve [`AiGone`]).
#[derive(Clone)]
pub struct AiPool {
    handle: Arc<Handle>,
}

impl fmt::Debug for AiPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AiPool")
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

impl AiPool {
    /// Starts `threads` search threads (at least one), with at most `queue`
    /// jobs waiting and `per_client` jobs in flight per client key; jobs
    /// costing more than `cheap_max` are expensive and leave one thread to
    /// the others when there are two or more.
    pub fn new(
        threads: usize,
        queue: usize,
        per_client: usize,
        cheap_max: u32,
    ) -> std::io::Result<AiPool> {
        let threads = threads.max(1);
        let shared = Arc::new(Shared {
            inner: Mutex::new(Inner {
                waiting: FairQueue::new(),
                slots: (0..threads).map(|_| Slot::Idle).collect(),
                running: 0,
                running_expensive: 0,
                games: HashSet::new(),
                clients: HashMap::new(),
                next_seq: 0,
                shutdown: false,
            }),
            wake: Condvar::new(),
            queue,
            per_client,
            cheap_max,
            expensive_cap: if threads >= 2 { threads - 1 } else { 1 },
        });
        let pool = AiPool {
            handle: Arc::new(Handle {
                shared: shared.clone(),
            }),
        };
        for i in 0..threads {
            let shared = shared.clone();
            // On an error the pool is dropped, which stops the threads
            // already started.
            std::thread::Builder::new()
                .name(format!("gore-ai-{i}"))
                .spawn(move || worker(&shared, i))?;
        }
        Ok(pool)
    }

    /// Queues a job, or refuses it (in this order: the game already has a
    /// job, the client is at its cap, the queue is full). Its ticket
    /// resolves to the work's result.
    pub fn submit<R: Send + 'static>(&self, job: AiJob<R>) -> Result<AiTicket<R>, AiBusy> {
        let shared = &self.handle.shared;
        let expensive = job.cost > shared.cheap_max;
        let (tx, rx) = oneshot::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let key;
        {
            let mut g = shared.lock();
            if g.games.contains(&job.game) {
                return Err(AiBusy::Game);
            }
            if g.clients.get(&job.client).copied().unwrap_or(0) >= shared.per_client {
                return Err(AiBusy::Client {
                    limit: shared.per_client,
                });
            }
            // By `dispatch`'s invariant, an idle thread that this job may
            // use takes it at once: it will not wait.
            let at_once = g.has_idle()
                && !g.shutdown
                && (!expensive || g.running_expensive < shared.expensive_cap);
            if !at_once && !g.has_room(&job.client, shared.queue) {
                return Err(AiBusy::Queue {
                    limit: shared.queue,
                });
            }
            key = (job.client.clone(), g.next_seq);
            g.next_seq += 1;
            g.games.insert(job.game.clone());
            *g.clients.entry(job.client.clone()).or_insert(0) += 1;
            let work = job.work;
            let run: Erased = Box::new(move |stop: &AtomicBool| Box::new(work(stop)));
            let deliver: Deliver = Box::new(move |r: Box<dyn Any + Send>| {
                if let Ok(r) = r.downcast::<R>() {
                    // Nobody waiting for it any more is fine.
                    let _ = tx.send(*r);
                }
            });
            g.waiting.push_costed(
                key.0.clone(),
                key.1,
                job.estimate_ms,
                Task {
                    client: job.client,
                    game: job.game,
                    expensive,
                    estimate_ms: job.estimate_ms,
                    stop: stop.clone(),
                    run,
                    deliver,
                },
            );
            if !g.dispatch(shared.expensive_cap) {
                return Ok(AiTicket::new(rx, key, stop, shared.clone()));
            }
        }
        shared.wake.notify_all();
        Ok(AiTicket::new(rx, key, stop, shared.clone()))
    }

    /// Whether a job of `client` costing `cost` would be taken now (its
    /// client under the cap, and a thread free for it or room in the
    /// queue), without taking anything: for refusing a new game before it
    /// is stored. A later [`AiPool::submit`] may still be refused.
    pub fn check(&self, client: &ClientKey, cost: u32) -> Result<(), AiBusy> {
        let shared = &self.handle.shared;
        let g = shared.lock();
        if g.clients.get(client).copied().unwrap_or(0) >= shared.per_client {
            return Err(AiBusy::Client {
                limit: shared.per_client,
            });
        }
        let expensive = cost > shared.cheap_max;
        let at_once = g.has_idle()
            && !g.shutdown
            && (!expensive || g.running_expensive < shared.expensive_cap);
        if !at_once && !g.has_room(client, shared.queue) {
            return Err(AiBusy::Queue {
                limit: shared.queue,
            });
        }
        Ok(())
    }

    /// What the pool holds now.
    pub fn stats(&self) -> AiStats {
        let g = self.handle.shared.lock();
        AiStats {
            waiting: g.waiting.len(),
            running: g.running,
            running_expensive: g.running_expensive,
            clients: g.clients.len(),
        }
    }

    /// Jobs in flight (waiting or running) for this client.
    pub fn client_jobs(&self, client: &ClientKey) -> usize {
        let g = self.handle.shared.lock();
        g.clients.get(client).copied().unwrap_or(0)
    }

    /// Whether this game has a job in flight (the AI is "thinking").
    pub fn is_thinking(&self, game: &str) -> bool {
        self.handle.shared.lock().games.contains(game)
    }

    /// Where job `game` is: `None` if it is not in flight, `Some(None)`
    /// if it runs, `Some(Some(place))` if it waits with `place` jobs to
    /// run before it (see [`FairQueue::place`]).
    pub fn place_of(&self, game: &str) -> Option<Option<usize>> {
        let g = self.handle.shared.lock();
        if !g.games.contains(game) {
            return None;
        }
        Some(
            g.waiting
                .find(|t| t.game == game)
                .and_then(|(key, seq)| g.waiting.place(&key, seq)),
        )
    }
}

/// The scheduler's queue, shared by the games' AI pool and the analysis
/// pool: one line of jobs per client key, each line first come first
/// served, and the next job taken from the key that has had the **least
/// service lately** (least attained service).
///
/// A key's service is what its jobs cost, in [`FairQueue::UNIT_MS`] units:
/// a job is charged its estimate when it starts ([`FairQueue::push_costed`];
/// at least one unit, so keys with equal service take turns) and its real
/// search time when it ends ([`FairQueue::settle`]). Service fades: it
/// halves with each [`FairQueue::HALF_LIFE`] units the queue serves to
/// anyone, so what a key used long ago stops counting. Ties go to the
/// cheaper first job, then to arrival.
///
/// So a key that asks now and then goes before every key that searched
/// more lately, however many of them there are: with sixteen addresses
/// each asking for ten-second analyses again and again, a 300 ms analysis
/// waits for the search running, not for a round of sixteen (issue 25).
/// The bounds (per key, overall) are the pool's: this queue holds what it
/// is given. At most `2 ×` [`FairQueue::MEMORY`] keys' service is kept (the
/// least is forgotten first).
///
/// ```
/// use gore_server::ai::{ClientKey, FairQueue};
///
/// let (a, b) = (ClientKey::named("A"), ClientKey::named("B"));
/// let mut q = FairQueue::new();
/// for (n, (who, job)) in [(&a, "a1"), (&a, "a2"), (&a, "a3"), (&b, "b1")].into_iter().enumerate() {
///     q.push(who.clone(), n as u64, job);
/// }
/// assert_eq!(q.place(&b, 3), Some(1), "after a1 only");
/// let order: Vec<_> = std::iter::from_fn(|| q.pop_where(|_| true)).collect();
/// assert_eq!(order, ["a1", "b1", "a2", "a3"]);
/// ```
#[derive(Debug)]
pub struct FairQueue<T> {
    lines: HashMap<ClientKey, Line<T>>,
    /// Each key's service, as of a moment of `total`.
    service: HashMap<ClientKey, Service>,
    /// Units served to anyone so far: the clock service fades by.
    total: u64,
    len: usize,
}

/// A key's service: `units` as of `at` (a value of the queue's total).
#[derive(Debug, Clone, Copy, Default)]
struct Service {
    units: f64,
    at: u64,
}

impl Service {
    /// The service faded to `total`.
    fn at(self, total: u64) -> f64 {
        let age = total.saturating_sub(self.at) as f64;
        self.units * (-age / FairQueue::<()>::HALF_LIFE as f64).exp2()
    }
}

/// A line as [`FairQueue::place`] plays it out: its key, its service,
/// its jobs still to go.
type SimLine<'a, T> = (
    &'a ClientKey,
    Service,
    std::collections::vec_deque::Iter<'a, (u64, u64, T)>,
);

#[derive(Debug)]
struct Line<T> {
    /// (arrival number, estimate in units, job), in arrival order.
    jobs: VecDeque<(u64, u64, T)>,
}

impl<T> Default for FairQueue<T> {
    fn default() -> Self {
        FairQueue {
            lines: HashMap::new(),
            service: HashMap::new(),
            total: 0,
            len: 0,
        }
    }
}

/// Units of `ms` of search: at least one (every job costs something).
fn units_of_ms(ms: u64) -> u64 {
    (ms / FairQueue::<()>::UNIT_MS).max(1)
}

impl<T> FairQueue<T> {
    /// Keys whose service is kept (twice as many at most).
    pub const MEMORY: usize = 1024;
    /// The unit of service, in milliseconds of search.
    pub const UNIT_MS: u64 = 100;
    /// Service halves with each this many units served (a minute of
    /// search).
    pub const HALF_LIFE: u64 = 600;

    /// An empty queue.
    pub fn new() -> FairQueue<T> {
        FairQueue::default()
    }

    /// Jobs waiting.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no job waits.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Keys with jobs waiting.
    pub fn keys(&self) -> usize {
        self.lines.len()
    }

    /// Jobs waiting from `key`.
    pub fn len_of(&self, key: &ClientKey) -> usize {
        self.lines.get(key).map_or(0, |l| l.jobs.len())
    }

    /// Queues `job` of `key` with no estimate of its cost (one unit);
    /// `seq` is its arrival number, increasing with each push (it names
    /// the job for [`FairQueue::remove`] and [`FairQueue::place`]).
    pub fn push(&mut self, key: ClientKey, seq: u64, job: T) {
        self.push_costed(key, seq, 0, job);
    }

    /// Queues `job` of `key`, expected to search about `estimate_ms`.
    pub fn push_costed(&mut self, key: ClientKey, seq: u64, estimate_ms: u64, job: T) {
        self.lines
            .entry(key)
            .or_insert_with(|| Line {
                jobs: VecDeque::new(),
            })
            .jobs
            .push_back((seq, units_of_ms(estimate_ms), job));
        self.len += 1;
    }

    /// The order of lines: least service, then cheaper first job, then
    /// earlier arrival.
    fn rank(service: f64, head: &(u64, u64, T)) -> (f64, u64, u64) {
        (service, head.1, head.0)
    }

    /// Takes the next job: the first of the line of least service among
    /// the lines whose first job `may_run` accepts (the others keep their
    /// place), charging its key the job's estimate.
    pub fn pop_where(&mut self, may_run: impl Fn(&T) -> bool) -> Option<T> {
        let total = self.total;
        let key = self
            .lines
            .iter()
            .filter_map(|(k, l)| {
                let head = l.jobs.front().filter(|(_, _, j)| may_run(j))?;
                let service = self.service.get(k).map_or(0.0, |s| s.at(total));
                Some((Self::rank(service, head), k))
            })
            .min_by(|(a, _), (b, _)| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal))
            .map(|(_, k)| k.clone())?;
        let line = self.lines.get_mut(&key)?;
        let (_, units, job) = line.jobs.pop_front()?;
        if line.jobs.is_empty() {
            self.lines.remove(&key);
        }
        self.len -= 1;
        self.charge(key, units as f64);
        Some(job)
    }

    /// A job of `key` that started with `estimate_ms` ended after
    /// `real_ms` of search: its key is charged the difference.
    pub fn settle(&mut self, key: &ClientKey, estimate_ms: u64, real_ms: u64) {
        let delta = units_of_ms(real_ms) as f64 - units_of_ms(estimate_ms) as f64;
        self.charge(key.clone(), delta);
    }

    /// Adds `units` (maybe negative) to `key`'s service, now; the clock
    /// moves by what was added.
    fn charge(&mut self, key: ClientKey, units: f64) {
        let total = self.total;
        let s = self.service.entry(key).or_default();
        *s = Service {
            units: (s.at(total) + units).max(0.0),
            at: total,
        };
        if units > 0.0 {
            self.total = total.saturating_add(units as u64);
        }
        if self.service.len() > 2 * Self::MEMORY {
            // Forget the least service first (keys with jobs waiting kept).
            let now = self.total;
            let mut all: Vec<(f64, ClientKey)> = self
                .service
                .iter()
                .filter(|(k, _)| !self.lines.contains_key(*k))
                .map(|(k, s)| (s.at(now), k.clone()))
                .collect();
            all.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal));
            let excess = self.service.len().saturating_sub(Self::MEMORY);
            for (_, k) in all.into_iter().take(excess) {
                self.service.remove(&k);
            }
        }
    }

    /// The key and arrival number of the first waiting job `pred`
    /// accepts.
    pub fn find(&self, pred: impl Fn(&T) -> bool) -> Option<(ClientKey, u64)> {
        self.lines.iter().find_map(|(k, l)| {
            l.jobs
                .iter()
                .find(|(_, _, j)| pred(j))
                .map(|(seq, _, _)| (k.clone(), *seq))
        })
    }

    /// Withdraws job `seq` of `key`, if it waits.
    pub fn remove(&mut self, key: &ClientKey, seq: u64) -> Option<T> {
        let line = self.lines.get_mut(key)?;
        let at = line.jobs.iter().position(|(s, _, _)| *s == seq)?;
        let (_, _, job) = line.jobs.remove(at)?;
        if line.jobs.is_empty() {
            self.lines.remove(key);
        }
        self.len -= 1;
        Some(job)
    }

    /// The number of jobs that will run before job `seq` of `key` if no
    /// other arrives, every job may run and each searches its estimate:
    /// `None` if it does not wait. (The order played out on the lines'
    /// estimates.)
    pub fn place(&self, key: &ClientKey, seq: u64) -> Option<usize> {
        self.lines
            .get(key)?
            .jobs
            .iter()
            .position(|(s, _, _)| *s == seq)?;
        let mut total = self.total;
        let mut lines: Vec<SimLine<'_, T>> = self
            .lines
            .iter()
            .map(|(k, l)| {
                let s = self.service.get(k).copied().unwrap_or_default();
                (k, s, l.jobs.iter())
            })
            .collect();
        for before in 0.. {
            let (i, _) = lines
                .iter()
                .enumerate()
                .filter_map(|(i, (_, s, jobs))| {
                    let head = jobs.clone().next()?;
                    Some((i, Self::rank(s.at(total), head)))
                })
                .min_by(|(_, a), (_, b)| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal))?;
            let (k, s, jobs) = &mut lines[i];
            let (n, units, _) = jobs.next()?;
            if *k == key && *n == seq {
                return Some(before);
            }
            *s = Service {
                units: s.at(total) + *units as f64,
                at: total,
            };
            total = total.saturating_add(*units);
        }
        None
    }

    /// Empties the queue (and forgets every key), returning its jobs.
    pub fn drain(&mut self) -> Vec<T> {
        self.len = 0;
        self.service.clear();
        self.lines
            .drain()
            .flat_map(|(_, l)| l.jobs.into_iter().map(|(_, _, j)| j))
            .collect()
    }
}

/// A search thread: takes the jobs given to its slot until the pool stops.
fn worker(shared: &Shared, i: usize) {
    let mut g = shared.lock();
    loop {
        let task = match std::mem::replace(&mut g.slots[i], Slot::Idle) {
            Slot::Assigned(task) => task,
            other => {
                g.slots[i] = other;
                if g.shutdown {
                    return;
                }
                g = shared.wake.wait(g).unwrap_or_else(|e| e.into_inner());
                continue;
            }
        };
        g.slots[i] = Slot::Running(task.stop.clone());
        drop(g);

        let Task {
            client,
            game,
            expensive,
            estimate_ms,
            stop,
            run,
            deliver,
        } = task;
        let started = std::time::Instant::now();
        let outcome = catch_unwind(AssertUnwindSafe(|| run(&stop)));
        let searched = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        if let Err(panic) = &outcome {
            let why = panic
                .downcast_ref::<&str>()
                .copied()
                .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
                .unwrap_or("a panic");
            tracing::error!("AI search for game {game} failed: {why}");
        }

        g = shared.lock();
        g.waiting.settle(&client, estimate_ms, searched);
        g.release(&client, &game);
        g.running -= 1;
        g.running_expensive -= usize::from(expensive);
        g.slots[i] = Slot::Idle;
        let given = g.dispatch(shared.expensive_cap);
        drop(g);
        if given {
            shared.wake.notify_all();
        }
        // After the release: the ticket's owner may submit the game's next
        // job as soon as it sees this.
        match outcome {
            Ok(r) => deliver(r),
            Err(_) => drop(deliver),
        }
        g = shared.lock();
    }
}

/// A submitted job's answer to come: a future of the work's result, or
/// [`AiGone`] if it ended without one. Dropping it withdraws a waiting job
/// and stops a running one.
#[must_use = "dropping a ticket withdraws its job"]
pub struct AiTicket<R> {
    rx: oneshot::Receiver<R>,
    /// Its client key and arrival number, its place in the queue.
    key: (ClientKey, u64),
    stop: Arc<AtomicBool>,
    shared: Arc<Shared>,
    done: bool,
}

impl<R> AiTicket<R> {
    fn new(
        rx: oneshot::Receiver<R>,
        key: (ClientKey, u64),
        stop: Arc<AtomicBool>,
        shared: Arc<Shared>,
    ) -> AiTicket<R> {
        AiTicket {
            rx,
            key,
            stop,
            shared,
            done: false,
        }
    }
}

impl<R> AiTicket<R> {
    /// Asks the job to stop (sets its stop flag) without withdrawing it:
    /// the ticket still resolves, with what the work answers when stopped
    /// (a search's best so far), and the job's slots are freed then.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// While the job waits for a thread, the number of jobs that will run
    /// before it if no other arrives (see [`FairQueue::place`]); `None`
    /// once a thread has it (or it is over).
    pub fn place(&self) -> Option<usize> {
        let g = self.shared.lock();
        g.waiting.place(&self.key.0, self.key.1)
    }
}

impl<R> fmt::Debug for AiTicket<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AiTicket")
            .field("client", &self.key.0)
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

impl<R> Future for AiTicket<R> {
    type Output = Result<R, AiGone>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        match Pin::new(&mut this.rx).poll(cx) {
            Poll::Ready(r) => {
                this.done = true;
                Poll::Ready(r.map_err(|_| AiGone))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<R> Drop for AiTicket<R> {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let withdrawn = {
            let mut g = self.shared.lock();
            let task = g.waiting.remove(&self.key.0, self.key.1);
            if let Some(t) = &task {
                g.release(&t.client, &t.game);
            }
            task
        };
        if withdrawn.is_none() {
            // Running (or finished): ask the search to stop.
            self.stop.store(true, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    /// Long enough that only a bug (a job that never starts) reaches it.
    const PATIENCE: Duration = Duration::from_secs(60);

    fn client(n: u8) -> ClientKey {
        ClientKey::ip(IpAddr::from([10, 0, 0, n]))
    }

    /// A job that reports `name` on `starts` when it starts, then holds its
    /// thread until the returned sender is used (or dropped).
    fn gated(
        starts: &mpsc::Sender<String>,
        client: ClientKey,
        game: &str,
        cost: u32,
    ) -> (AiJob<String>, mpsc::Sender<()>) {
        let (open, gate) = mpsc::channel::<()>();
        let starts = starts.clone();
        let name = game.to_string();
        let job = AiJob::new(client, game, cost, move |_stop| {
            starts.send(name.clone()).unwrap();
            let _ = gate.recv();
            name
        });
        (job, open)
    }

    /// A job that reports `name` when it starts and ends at once.
    fn quick(
        starts: &mpsc::Sender<String>,
        client: ClientKey,
        game: &str,
        cost: u32,
    ) -> AiJob<String> {
        let starts = starts.clone();
        let name = game.to_string();
        AiJob::new(client, game, cost, move |_stop| {
            starts.send(name.clone()).unwrap();
            name
        })
    }

    fn started(starts: &mpsc::Receiver<String>) -> String {
        starts.recv_timeout(PATIENCE).expect("a job started")
    }

    #[test]
    fn a_client_is_an_ipv4_address_or_an_ipv6_slash_64() {
        let ip = |s: &str| ClientKey::ip(s.parse().unwrap());
        assert_eq!(ip("192.0.2.1"), ip("192.0.2.1"));
        assert_ne!(
            ip("192.0.2.1"),
            ip("192.0.2.2"),
            "IPv4: one key per address"
        );
        assert_eq!(
            ip("2001:db8:1:2::1"),
            ip("2001:db8:1:2:ffff:ffff:ffff:fffe"),
            "one /64"
        );
        assert_ne!(ip("2001:db8:1:2::1"), ip("2001:db8:1:3::1"), "another /64");
        assert_eq!(ip("::ffff:192.0.2.1"), ip("192.0.2.1"), "v4-mapped");
        assert_eq!(
            ip("2001:db8:1:2:3:4:5:6"),
            ClientKey::Ip("2001:db8:1:2::".parse().unwrap())
        );
        assert_eq!(ip("2001:db8:1:2::7").to_string(), "2001:db8:1:2::/64");
        assert_ne!(ClientKey::named("10.0.0.1"), client(1));
    }

    #[test]
    fn a_refusal_is_a_busy_error_with_a_sentence() {
        for busy in [
            AiBusy::Game,
            AiBusy::Client { limit: 2 },
            AiBusy::Queue { limit: 64 },
        ] {
            let e = ApiError::from(busy);
            assert_eq!(e.code, crate::error::ErrorCode::Busy);
            assert_eq!(e.message, busy.to_string());
        }
        assert!(AiBusy::Client { limit: 2 }.to_string().contains("2 games"));
        assert!(AiBusy::Queue { limit: 64 }.to_string().contains("64"));
    }

    #[tokio::test]
    async fn searches_run_on_the_pools_own_threads() {
        let pool = AiPool::new(1, 4, 4, 0).unwrap();
        let name = pool
            .submit(AiJob::new(client(1), "g", 0, |_| {
                std::thread::current().name().map(str::to_string)
            }))
            .unwrap()
            .await
            .unwrap();
        assert_eq!(name.as_deref(), Some("gore-ai-0"));
    }

    #[tokio::test]
    async fn one_job_per_game_until_it_answers() {
        let pool = AiPool::new(2, 4, 4, 10).unwrap();
        let (tx, starts) = mpsc::channel();
        let (job, open) = gated(&tx, client(1), "g", 1);
        let ticket = pool.submit(job).unwrap();
        assert_eq!(started(&starts), "g");
        // Another client, the same game: refused; another game: taken.
        let again = pool.submit(quick(&tx, client(2), "g", 1));
        assert_eq!(again.unwrap_err(), AiBusy::Game);
        assert!(pool.is_thinking("g"));
        open.send(()).unwrap();
        assert_eq!(ticket.await.unwrap(), "g");
        // Freed before the ticket resolved: no race here.
        assert!(!pool.is_thinking("g"));
        let next = pool.submit(quick(&tx, client(2), "g", 1)).unwrap();
        assert_eq!(next.await.unwrap(), "g");
    }

    #[tokio::test]
    async fn a_client_has_at_most_its_cap_in_flight() {
        let pool = AiPool::new(1, 8, 2, 10).unwrap();
        let (tx, starts) = mpsc::channel();
        let (a, open_a) = gated(&tx, client(1), "a", 1);
        let a = pool.submit(a).unwrap();
        assert_eq!(started(&starts), "a");
        // One running, one waiting: the client's two.
        let (b, open_b) = gated(&tx, client(1), "b", 1);
        let b = pool.submit(b).unwrap();
        assert_eq!(pool.client_jobs(&client(1)), 2);
        let c = pool.submit(quick(&tx, client(1), "c", 1));
        assert_eq!(c.unwrap_err(), AiBusy::Client { limit: 2 });
        // The same /64 is the same client; another address is not.
        let v6 = |s: &str| ClientKey::ip(s.parse().unwrap());
        let (x1, open_x1) = gated(&tx, v6("2001:db8::1"), "x1", 1);
        let x1 = pool.submit(x1).unwrap();
        let x2 = pool.submit(quick(&tx, v6("2001:db8::2"), "x2", 1)).unwrap();
        let x3 = pool.submit(quick(&tx, v6("2001:db8::3"), "x3", 1));
        assert_eq!(x3.unwrap_err(), AiBusy::Client { limit: 2 });
        let other = pool.submit(quick(&tx, client(2), "d", 1)).unwrap();
        assert_eq!(
            pool.stats(),
            AiStats {
                waiting: 4,
                running: 1,
                running_expensive: 0,
                clients: 3
            }
        );
        open_a.send(()).unwrap();
        assert_eq!(a.await.unwrap(), "a");
        // Client 1 was served (a): the /64, never served and first to
        // come, takes the thread; a's place is free: c is taken.
        assert_eq!(started(&starts), "x1");
        assert_eq!(pool.client_jobs(&client(1)), 1);
        let c = pool.submit(quick(&tx, client(1), "c", 1)).unwrap();
        open_b.send(()).unwrap();
        open_x1.send(()).unwrap();
        assert_eq!(b.await.unwrap(), "b");
        assert_eq!(x1.await.unwrap(), "x1");
        assert_eq!(x2.await.unwrap(), "x2");
        assert_eq!(other.await.unwrap(), "d");
        assert_eq!(c.await.unwrap(), "c");
        let order: Vec<String> = starts.try_iter().collect();
        // One thread, keys in turn after x1: client 2 (never served),
        // client 1 (served before the /64), the /64, client 1 again.
        assert_eq!(order, ["d", "b", "x2", "c"]);
        assert_eq!(pool.stats(), AiStats::default());
    }

    #[tokio::test]
    async fn the_queue_is_bounded() {
        let pool = AiPool::new(1, 2, 10, 10).unwrap();
        let (tx, starts) = mpsc::channel();
        let (blocker, open) = gated(&tx, client(1), "run", 1);
        let blocker = pool.submit(blocker).unwrap();
        assert_eq!(started(&starts), "run");
        let w1 = pool.submit(quick(&tx, client(2), "w1", 1)).unwrap();
        let w2 = pool.submit(quick(&tx, client(3), "w2", 1)).unwrap();
        let full = pool.submit(quick(&tx, client(4), "w3", 1));
        assert_eq!(full.unwrap_err(), AiBusy::Queue { limit: 2 });
        // A cheaper job is refused too: the bound is on the count.
        let cheap = pool.submit(quick(&tx, client(4), "w4", 0));
        assert_eq!(cheap.unwrap_err(), AiBusy::Queue { limit: 2 });
        assert_eq!(pool.stats().waiting, 2);
        assert_eq!(pool.stats().running, 1);
        open.send(()).unwrap();
        blocker.await.unwrap();
        w1.await.unwrap();
        w2.await.unwrap();
        // Refused jobs never ran.
        let order: Vec<String> = starts.try_iter().collect();
        assert_eq!(order, ["w1", "w2"]);
    }

    #[tokio::test]
    async fn a_full_queue_still_takes_an_address_with_nothing_waiting() {
        // Two places; one address fills them: another address, with
        // nothing waiting, still gets in (one line more, up to two lines).
        let pool = AiPool::new(1, 2, 10, 10).unwrap();
        let (tx, starts) = mpsc::channel();
        let (blocker, open) = gated(&tx, client(1), "run", 1);
        let blocker = pool.submit(blocker).unwrap();
        assert_eq!(started(&starts), "run");
        let f1 = pool.submit(quick(&tx, client(1), "f1", 1)).unwrap();
        let f2 = pool.submit(quick(&tx, client(1), "f2", 1)).unwrap();
        let f3 = pool.submit(quick(&tx, client(1), "f3", 1));
        assert_eq!(f3.unwrap_err(), AiBusy::Queue { limit: 2 });
        assert_eq!(pool.check(&client(2), 1), Ok(()));
        let innocent = pool.submit(quick(&tx, client(2), "i", 1)).unwrap();
        assert_eq!(pool.stats().waiting, 3);
        // Two addresses wait now: a third is refused, and so is the
        // second's next job (its line is in).
        assert_eq!(pool.check(&client(3), 1), Err(AiBusy::Queue { limit: 2 }));
        let other = pool.submit(quick(&tx, client(3), "o", 1));
        assert_eq!(other.unwrap_err(), AiBusy::Queue { limit: 2 });
        let again = pool.submit(quick(&tx, client(2), "i2", 1));
        assert_eq!(again.unwrap_err(), AiBusy::Queue { limit: 2 });
        open.send(()).unwrap();
        blocker.await.unwrap();
        assert_eq!(innocent.await.unwrap(), "i");
        f1.await.unwrap();
        f2.await.unwrap();
        let order: Vec<String> = starts.try_iter().collect();
        assert_eq!(order, ["i", "f1", "f2"]);
    }

    #[tokio::test]
    async fn check_says_what_submit_would_answer() {
        let pool = AiPool::new(2, 1, 1, 1).unwrap();
        let (tx, starts) = mpsc::channel();
        assert_eq!(pool.check(&client(1), 8), Ok(()));
        let (e1, open) = gated(&tx, client(1), "e1", 8);
        let e1 = pool.submit(e1).unwrap();
        assert_eq!(started(&starts), "e1");
        assert_eq!(pool.check(&client(1), 1), Err(AiBusy::Client { limit: 1 }));
        // The idle thread is the cheap lane: an expensive job would wait.
        assert_eq!(pool.check(&client(2), 8), Ok(()));
        let e2 = pool.submit(quick(&tx, client(2), "e2", 8)).unwrap();
        assert_eq!(pool.check(&client(3), 8), Err(AiBusy::Queue { limit: 1 }));
        // A cheap one still has the free thread.
        assert_eq!(pool.check(&client(3), 1), Ok(()));
        // Checking took nothing.
        assert_eq!(pool.stats().waiting, 1);
        assert_eq!(pool.client_jobs(&client(3)), 0);
        open.send(()).unwrap();
        e1.await.unwrap();
        e2.await.unwrap();
    }

    #[tokio::test]
    async fn with_no_queue_a_job_runs_at_once_or_is_refused() {
        let pool = AiPool::new(2, 0, 10, 1).unwrap();
        let (tx, starts) = mpsc::channel();
        let (e1, open) = gated(&tx, client(1), "e1", 8);
        let e1 = pool.submit(e1).unwrap();
        assert_eq!(started(&starts), "e1");
        // A thread is idle, but it is the cheap lane.
        let e2 = pool.submit(quick(&tx, client(2), "e2", 8));
        assert_eq!(e2.unwrap_err(), AiBusy::Queue { limit: 0 });
        let (c1, open_c1) = gated(&tx, client(3), "c1", 1);
        let c1 = pool.submit(c1).unwrap();
        assert_eq!(started(&starts), "c1");
        let c2 = pool.submit(quick(&tx, client(4), "c2", 1));
        assert_eq!(c2.unwrap_err(), AiBusy::Queue { limit: 0 });
        open.send(()).unwrap();
        open_c1.send(()).unwrap();
        e1.await.unwrap();
        c1.await.unwrap();
    }

    #[tokio::test]
    async fn one_address_is_served_first_come_first_served_whatever_the_cost() {
        let pool = AiPool::new(1, 16, 16, 100).unwrap();
        let (tx, starts) = mpsc::channel();
        let (blocker, open) = gated(&tx, client(1), "blocker", 8);
        let blocker = pool.submit(blocker).unwrap();
        assert_eq!(started(&starts), "blocker");
        let mut tickets = Vec::new();
        for (game, cost) in [
            ("e1", 8),
            ("e2", 8),
            ("c1", 1),
            ("m1", 3),
            ("c2", 1),
            ("e3", 8),
        ] {
            tickets.push(pool.submit(quick(&tx, client(2), game, cost)).unwrap());
        }
        open.send(()).unwrap();
        blocker.await.unwrap();
        for t in tickets {
            t.await.unwrap();
        }
        let order: Vec<String> = starts.try_iter().collect();
        // One client's line: in arrival order (cheapest-first, the old
        // policy, would have run c1, c2, m1 first).
        assert_eq!(order, ["e1", "e2", "c1", "m1", "c2", "e3"]);
    }

    #[test]
    fn the_fair_queue_serves_keys_in_turn_and_tells_places() {
        let (a, b, c) = (client(1), client(2), client(3));
        let mut q = FairQueue::new();
        q.push(a.clone(), 0, "a1");
        q.push(a.clone(), 1, "a2");
        q.push(a.clone(), 2, "a3");
        q.push(b.clone(), 3, "b1");
        assert_eq!(q.len(), 4);
        // a1 first (A came first), then one round: b1 before a2.
        assert_eq!(q.place(&a, 0), Some(0));
        assert_eq!(q.place(&b, 3), Some(1));
        assert_eq!(q.place(&a, 1), Some(2));
        assert_eq!(q.place(&a, 2), Some(3));
        assert_eq!(q.place(&b, 99), None, "not queued");
        assert_eq!(q.pop_where(|_| true), Some("a1"));
        // A was served: B's turn, though B came last.
        assert_eq!(q.place(&b, 3), Some(0));
        assert_eq!(q.place(&a, 1), Some(1));
        // C arrives, never served: after B (earlier, never served), before
        // A's second.
        q.push(c.clone(), 4, "c1");
        assert_eq!(q.place(&c, 4), Some(1));
        assert_eq!(q.place(&a, 1), Some(2));
        assert_eq!(q.pop_where(|_| true), Some("b1"));
        assert_eq!(q.pop_where(|_| true), Some("c1"));
        assert_eq!(q.pop_where(|_| true), Some("a2"));
        assert_eq!(q.pop_where(|_| true), Some("a3"));
        assert_eq!(q.pop_where(|_| true), None);
        assert!(q.is_empty());
    }

    #[test]
    fn the_fair_queue_skips_a_line_that_may_not_run_and_keeps_its_turn() {
        let (a, b) = (client(1), client(2));
        let mut q = FairQueue::new();
        q.push(a.clone(), 0, 8);
        q.push(a.clone(), 1, 1);
        q.push(b.clone(), 2, 1);
        // A's first job (8) may not run: B's goes; A's second waits
        // behind its first (each line is in order).
        assert_eq!(q.pop_where(|&cost| cost < 8), Some(1));
        assert_eq!(q.len_of(&b), 0);
        assert_eq!(q.pop_where(|&cost| cost < 8), None);
        assert_eq!(q.pop_where(|_| true), Some(8));
        // A withdrawn job leaves its line; an emptied line is forgotten.
        assert_eq!(q.remove(&a, 1), Some(1));
        assert_eq!(q.remove(&a, 1), None);
        assert!(q.is_empty());
        // A was served last (8): though it comes first now, B goes first.
        q.push(a.clone(), 3, 5);
        q.push(b.clone(), 4, 6);
        assert_eq!(q.place(&a, 3), Some(1));
        assert_eq!(q.pop_where(|_| true), Some(6));
        assert_eq!(q.pop_where(|_| true), Some(5));
        assert_eq!(q.drain().len(), 0);
    }

    #[test]
    fn a_short_job_of_an_address_with_no_service_passes_a_round_of_long_ones() {
        // Issue 25's analysis flood: sixteen addresses ask for 10 s
        // analyses (100 units each); the first runs.
        let mut q = FairQueue::new();
        for n in 0..16u8 {
            q.push_costed(client(10 + n), u64::from(n), 10_000, u32::from(n));
        }
        assert_eq!(q.pop_where(|_| true), Some(0));
        // An innocent's 300 ms analysis: no service, like the fifteen
        // flooders waiting, but cheaper: it runs next (by turns alone it
        // would wait for all fifteen).
        let innocent = client(1);
        q.push_costed(innocent.clone(), 100, 300, 99);
        assert_eq!(q.place(&innocent, 100), Some(0));
        assert_eq!(q.place(&client(11), 1), Some(1));
        assert_eq!(q.pop_where(|_| true), Some(99));
        // The innocent (3 units) and the flooder that ran (100) ask again:
        // behind the fifteen flooders still waiting with none, the innocent
        // first.
        q.settle(&client(10), 10_000, 10_000);
        q.settle(&innocent, 300, 300);
        q.push_costed(client(10), 200, 10_000, 0);
        q.push_costed(innocent.clone(), 201, 300, 98);
        assert_eq!(q.place(&innocent, 201), Some(15));
        assert_eq!(q.place(&client(10), 200), Some(16));
    }

    #[test]
    fn a_key_is_charged_what_it_searched_and_service_fades() {
        let (a, b, c, d) = (client(1), client(2), client(3), client(4));
        let mut q = FairQueue::new();
        // A asks 10 s (100 units) but stops after 200 ms: 2 units. B
        // searches its 500 ms: 5 units. A, of less service, goes first.
        q.push_costed(a.clone(), 0, 10_000, "a1");
        assert_eq!(q.pop_where(|_| true), Some("a1"));
        q.settle(&a, 10_000, 200);
        q.push_costed(b.clone(), 1, 500, "b1");
        assert_eq!(q.pop_where(|_| true), Some("b1"));
        q.settle(&b, 500, 500);
        q.push(b.clone(), 2, "b2");
        q.push(a.clone(), 3, "a2");
        assert_eq!(q.place(&a, 3), Some(0), "2 units before 5");
        assert_eq!(q.pop_where(|_| true), Some("a2"));
        assert_eq!(q.pop_where(|_| true), Some("b2"));
        // A searches 100 units; then C is served ten half-lives (6,000
        // units): A's service fades to 103 / 1024 (about 0.1), below D's
        // one unit served after C.
        q.push_costed(a.clone(), 4, 10_000, "a3");
        assert_eq!(q.pop_where(|_| true), Some("a3"));
        q.settle(&a, 10_000, 10_000);
        let long = FairQueue::<()>::HALF_LIFE * 10 * FairQueue::<()>::UNIT_MS;
        q.push_costed(c.clone(), 5, long, "c1");
        assert_eq!(q.pop_where(|_| true), Some("c1"));
        q.settle(&c, long, long);
        q.push(d.clone(), 6, "d1");
        assert_eq!(q.pop_where(|_| true), Some("d1"));
        q.settle(&d, 0, 0);
        q.push(d.clone(), 7, "d2");
        q.push(a.clone(), 8, "a4");
        assert_eq!(q.pop_where(|_| true), Some("a4"), "A's old service faded");
        assert_eq!(q.pop_where(|_| true), Some("d2"));
        // However many keys come, at most twice the memory is kept.
        for n in 0..3000u64 {
            q.push(ClientKey::named(format!("k{n}")), 100 + n, "x");
            q.pop_where(|_| true);
        }
        assert!(
            q.service.len() <= 2 * FairQueue::<()>::MEMORY,
            "{}",
            q.service.len()
        );
    }

    #[tokio::test]
    async fn a_waiting_ticket_knows_its_place() {
        let pool = AiPool::new(1, 16, 16, 100).unwrap();
        let (tx, starts) = mpsc::channel();
        let (blocker, open) = gated(&tx, client(1), "a0", 1);
        let blocker = pool.submit(blocker).unwrap();
        assert_eq!(started(&starts), "a0");
        assert_eq!(blocker.place(), None, "running");
        let a1 = pool.submit(quick(&tx, client(1), "a1", 1)).unwrap();
        let a2 = pool.submit(quick(&tx, client(1), "a2", 1)).unwrap();
        let b1 = pool.submit(quick(&tx, client(2), "b1", 1)).unwrap();
        // A was served (a0 runs): b1 first, then A's line in order.
        assert_eq!(b1.place(), Some(0));
        assert_eq!(a1.place(), Some(1));
        assert_eq!(a2.place(), Some(2));
        drop(a1);
        assert_eq!(a2.place(), Some(1), "a withdrawn job frees its place");
        assert_eq!(b1.place(), Some(0));
        open.send(()).unwrap();
        blocker.await.unwrap();
        assert_eq!(b1.await.unwrap(), "b1");
        assert_eq!(a2.await.unwrap(), "a2");
    }

    #[tokio::test]
    async fn addresses_take_turns_whatever_the_cost() {
        let pool = AiPool::new(1, 16, 16, 100).unwrap();
        let (tx, starts) = mpsc::channel();
        let (blocker, open) = gated(&tx, client(9), "blocker", 8);
        let blocker = pool.submit(blocker).unwrap();
        assert_eq!(started(&starts), "blocker");
        // A floods (cheap jobs), then B asks once (an expensive one).
        let mut tickets = Vec::new();
        for (who, game, cost) in [(1, "a1", 1), (1, "a2", 1), (1, "a3", 1), (2, "b1", 8)] {
            tickets.push(pool.submit(quick(&tx, client(who), game, cost)).unwrap());
        }
        open.send(()).unwrap();
        blocker.await.unwrap();
        for t in tickets {
            t.await.unwrap();
        }
        let order: Vec<String> = starts.try_iter().collect();
        // B waits for one of A's jobs, not for all three.
        assert_eq!(order, ["a1", "b1", "a2", "a3"]);
    }

    #[tokio::test]
    async fn one_thread_is_kept_for_cheap_jobs() {
        let pool = AiPool::new(3, 16, 16, 2).unwrap();
        let (tx, starts) = mpsc::channel();
        let (e1, open_e1) = gated(&tx, client(1), "e1", 8);
        let (e2, open_e2) = gated(&tx, client(2), "e2", 3);
        let e1 = pool.submit(e1).unwrap();
        let e2 = pool.submit(e2).unwrap();
        let mut running = [started(&starts), started(&starts)];
        running.sort();
        assert_eq!(running, ["e1", "e2"]);
        // Two of three threads are expensive: a third expensive job waits
        // though a thread is idle.
        let e3 = pool.submit(quick(&tx, client(3), "e3", 8)).unwrap();
        assert_eq!(pool.stats().waiting, 1);
        assert_eq!(pool.stats().running_expensive, 2);
        // A cheap job takes the idle thread at once, before e3.
        let c1 = pool.submit(quick(&tx, client(4), "c1", 2)).unwrap();
        assert_eq!(c1.await.unwrap(), "c1");
        assert_eq!(started(&starts), "c1");
        // e3 still waits: the lane stays free.
        assert_eq!(pool.stats().waiting, 1);
        let c2 = pool.submit(quick(&tx, client(4), "c2", 0)).unwrap();
        assert_eq!(c2.await.unwrap(), "c2");
        assert_eq!(started(&starts), "c2");
        // An expensive job ends: e3 takes its thread.
        open_e2.send(()).unwrap();
        e2.await.unwrap();
        assert_eq!(e3.await.unwrap(), "e3");
        assert_eq!(started(&starts), "e3");
        open_e1.send(()).unwrap();
        e1.await.unwrap();
        assert_eq!(pool.stats(), AiStats::default());
    }

    #[tokio::test]
    async fn one_thread_runs_expensive_jobs_too() {
        let pool = AiPool::new(1, 0, 4, 0).unwrap();
        let t = pool.submit(AiJob::new(client(1), "g", 8, |_| 8)).unwrap();
        assert_eq!(t.await, Ok(8));
    }

    #[tokio::test]
    async fn a_panic_frees_its_slots_and_keeps_its_thread() {
        let pool = AiPool::new(1, 4, 1, 10).unwrap();
        let boom = pool
            .submit(AiJob::new(client(1), "g", 1, |_| -> u32 {
                panic!("a search that fails")
            }))
            .unwrap();
        assert_eq!(boom.await, Err(AiGone));
        assert_eq!(pool.stats(), AiStats::default());
        // The same client (cap 1) and game, on the same single thread.
        let fine = pool.submit(AiJob::new(client(1), "g", 1, |_| 7)).unwrap();
        assert_eq!(fine.await, Ok(7));
        // A panic with a formatted message, then work again.
        let boom = pool
            .submit(AiJob::new(client(1), "g", 1, |_| -> u32 {
                panic!("search {} failed", 2)
            }))
            .unwrap();
        assert_eq!(boom.await, Err(AiGone));
        let fine = pool.submit(AiJob::new(client(1), "g", 1, |_| 9)).unwrap();
        assert_eq!(fine.await, Ok(9));
    }

    #[tokio::test]
    async fn a_dropped_waiting_ticket_leaves_the_queue() {
        let pool = AiPool::new(1, 1, 1, 10).unwrap();
        let (tx, starts) = mpsc::channel();
        let (blocker, open) = gated(&tx, client(1), "blocker", 1);
        let blocker = pool.submit(blocker).unwrap();
        assert_eq!(started(&starts), "blocker");
        let w = pool.submit(quick(&tx, client(2), "w", 1)).unwrap();
        assert_eq!(pool.stats().waiting, 1);
        drop(w);
        // Its queue place, game and client are free at once.
        assert_eq!(pool.stats().waiting, 0);
        assert_eq!(pool.client_jobs(&client(2)), 0);
        let w2 = pool.submit(quick(&tx, client(2), "w", 1)).unwrap();
        open.send(()).unwrap();
        blocker.await.unwrap();
        w2.await.unwrap();
        // The withdrawn job never ran; its successor ran once.
        let order: Vec<String> = starts.try_iter().collect();
        assert_eq!(order, ["w"]);
    }

    #[tokio::test]
    async fn a_dropped_running_ticket_stops_its_search() {
        let pool = AiPool::new(1, 4, 4, 10).unwrap();
        let (tx, events) = mpsc::channel::<&str>();
        let ticket = pool
            .submit(AiJob::new(client(1), "g", 1, move |stop: &AtomicBool| {
                tx.send("started").unwrap();
                // A search that ends only when told to.
                while !stop.load(Ordering::Relaxed) {
                    std::thread::yield_now();
                }
                tx.send("stopped").unwrap();
            }))
            .unwrap();
        assert_eq!(events.recv_timeout(PATIENCE), Ok("started"));
        drop(ticket);
        assert_eq!(events.recv_timeout(PATIENCE), Ok("stopped"));
        // The single thread runs the next job only after the stopped one
        // gave its slots back.
        let next = pool.submit(AiJob::new(client(2), "h", 1, |_| 1)).unwrap();
        assert_eq!(next.await, Ok(1));
        assert!(!pool.is_thinking("g"));
        assert_eq!(pool.stats(), AiStats::default());
    }

    #[tokio::test]
    async fn a_stopped_pool_answers_every_ticket() {
        let pool = AiPool::new(1, 4, 4, 10).unwrap();
        let (tx, events) = mpsc::channel::<&str>();
        let running = pool
            .submit(AiJob::new(client(1), "g", 1, move |stop: &AtomicBool| {
                tx.send("started").unwrap();
                while !stop.load(Ordering::Relaxed) {
                    std::thread::yield_now();
                }
                "stopped"
            }))
            .unwrap();
        assert_eq!(events.recv_timeout(PATIENCE), Ok("started"));
        let waiting = pool
            .submit(AiJob::new(client(2), "h", 1, |_| "ran"))
            .unwrap();
        drop(pool);
        assert_eq!(waiting.await, Err(AiGone));
        // The running search was told to stop, and still answers.
        assert_eq!(running.await, Ok("stopped"));
    }
}

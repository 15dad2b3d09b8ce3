//! The pool: its threads, the jobs waiting in its [`FairQueue`] and
//! running, and the tickets that await them (the policy is in the
//! module's doc, src/ai/mod.rs).

use std::any::Any;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::task::{Context, Poll};

use tokio::sync::oneshot;

use super::{AiBusy, AiGone, AiJob, AiStats, ClientKey, FairQueue};

/// The work with its result's type erased.
type Erased = Box<dyn FnOnce(&AtomicBool) -> Box<dyn Any + Send> + Send>;
/// Hands a result to the ticket. Kept apart from the work so that a panic
/// in the work does not drop the sender (resolving the ticket) before the
/// job's slots are freed.
type Deliver = Box<dyn FnOnce(Result<Box<dyn Any + Send>, AiGone>) + Send>;

/// A job inside the pool.
struct Task {
    client: ClientKey,
    game: String,
    /// The job's cost (a game's AI level), as the observer is told it.
    cost: u32,
    /// When it was submitted: its wait is until a thread runs it.
    queued: std::time::Instant,
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
    /// Jobs in flight (waiting or running) by client key.
    clients: HashMap<ClientKey, usize>,
    /// Jobs given a thread, by client key (at most `per_client` each).
    running_of: HashMap<ClientKey, usize>,
    next_seq: u64,
    shutdown: bool,
}

struct Shared {
    inner: Mutex<Inner>,
    wake: Condvar,
    queue: usize,
    /// Jobs of one client key running at once.
    per_client: usize,
    /// Jobs of one client key that may wait beyond those running.
    waiting_per_client: usize,
    cheap_max: u32,
    /// Whether a full queue gives a place to a less served address
    /// (the analysis pool's [`AiPool::with_waiting`]).
    displace: bool,
    /// Threads expensive jobs may occupy at once.
    expensive_cap: usize,
    /// Told of each job run (the server's metrics), once set.
    observer: std::sync::OnceLock<Observer>,
}

/// Told of each job run: its cost, how long it waited for a thread, and
/// how long it ran.
pub type Observer =
    Arc<dyn Fn(u32, std::time::Duration, std::time::Duration) + Send + Sync + 'static>;

impl Shared {
    /// Jobs of one client key in flight at most.
    fn in_flight_cap(&self) -> usize {
        self.per_client.saturating_add(self.waiting_per_client)
    }

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
    /// turn while the expensive threads are all taken, and so does a key
    /// with `per_client` jobs running). Afterwards, if a
    /// thread is idle, nothing waiting may take it: the queue is empty or
    /// every line's first job is expensive with the expensive threads all
    /// taken. Returns whether it gave any.
    fn dispatch(&mut self, expensive_cap: usize, per_client: usize) -> bool {
        let mut given = false;
        if self.shutdown {
            return false;
        }
        for i in 0..self.slots.len() {
            if !matches!(self.slots[i], Slot::Idle) {
                continue;
            }
            let lane_full = self.running_expensive >= expensive_cap;
            let running_of = &self.running_of;
            // A client at its cap of running jobs keeps its line's turn
            // for when one of them ends.
            let Some(task) = self.waiting.pop_where(|t| {
                !(t.expensive && lane_full)
                    && running_of.get(&t.client).copied().unwrap_or(0) < per_client
            }) else {
                break;
            };
            self.running += 1;
            self.running_expensive += usize::from(task.expensive);
            *self.running_of.entry(task.client.clone()).or_insert(0) += 1;
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

    /// Jobs of `client` given a thread.
    fn running_of(&self, client: &ClientKey) -> usize {
        self.running_of.get(client).copied().unwrap_or(0)
    }

    /// A job of `client` that had a thread ended.
    fn ended(&mut self, client: &ClientKey) {
        if let Some(n) = self.running_of.get_mut(client) {
            *n -= 1;
            if *n == 0 {
                self.running_of.remove(client);
            }
        }
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
        AiPool::start(threads, queue, per_client, 0, cheap_max, false)
    }

    /// As [`AiPool::new`], but a client key's jobs beyond its
    /// `per_client` running ones wait their turn, `waiting_per_client` of
    /// them at most, instead of being refused (the analysis pool: one
    /// visitor's tabs queue behind each other, issue 27). With
    /// `waiting_per_client` 0 it is [`AiPool::new`], but for one thing:
    /// when the queue is full, a job of an address that searched less
    /// than the most served address waiting takes the place of that
    /// address's newest job, whose ticket resolves
    /// [`AiGone::Displaced`] (see [`FairQueue::victim_for`]). A game's AI
    /// turn is never displaced: its pool is [`AiPool::new`]'s.
    pub fn with_waiting(
        threads: usize,
        queue: usize,
        per_client: usize,
        waiting_per_client: usize,
        cheap_max: u32,
    ) -> std::io::Result<AiPool> {
        AiPool::start(
            threads,
            queue,
            per_client,
            waiting_per_client,
            cheap_max,
            true,
        )
    }

    fn start(
        threads: usize,
        queue: usize,
        per_client: usize,
        waiting_per_client: usize,
        cheap_max: u32,
        displace: bool,
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
                running_of: HashMap::new(),
                next_seq: 0,
                shutdown: false,
            }),
            wake: Condvar::new(),
            queue,
            per_client,
            waiting_per_client,
            cheap_max,
            displace,
            expensive_cap: if threads >= 2 { threads - 1 } else { 1 },
            observer: std::sync::OnceLock::new(),
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
        let mut displaced = None;
        let ticket = {
            let mut g = shared.lock();
            if g.games.contains(&job.game) {
                return Err(AiBusy::Game);
            }
            let limit = shared.in_flight_cap();
            if g.clients.get(&job.client).copied().unwrap_or(0) >= limit {
                return Err(AiBusy::Client { limit });
            }
            // By `dispatch`'s invariant, an idle thread that this job may
            // use takes it at once: it will not wait.
            let at_once = g.has_idle()
                && !g.shutdown
                && (!expensive || g.running_expensive < shared.expensive_cap)
                && g.running_of(&job.client) < shared.per_client;
            if !at_once && !g.has_room(&job.client, shared.queue) {
                let victim = shared
                    .displace
                    .then(|| g.waiting.victim_for(&job.client))
                    .flatten()
                    .and_then(|(k, seq)| g.waiting.remove(&k, seq));
                let Some(victim) = victim else {
                    return Err(AiBusy::Queue {
                        limit: shared.queue,
                    });
                };
                g.release(&victim.client, &victim.game);
                displaced = Some(victim);
            }
            key = (job.client.clone(), g.next_seq);
            g.next_seq += 1;
            g.games.insert(job.game.clone());
            *g.clients.entry(job.client.clone()).or_insert(0) += 1;
            let work = job.work;
            let run: Erased = Box::new(move |stop: &AtomicBool| Box::new(work(stop)));
            let deliver: Deliver = Box::new(move |r: Result<Box<dyn Any + Send>, AiGone>| {
                let r = match r {
                    Ok(r) => match r.downcast::<R>() {
                        Ok(r) => Ok(*r),
                        Err(_) => return,
                    },
                    Err(gone) => Err(gone),
                };
                // Nobody waiting for it any more is fine.
                let _ = tx.send(r);
            });
            g.waiting.push_costed(
                key.0.clone(),
                key.1,
                job.estimate_ms,
                Task {
                    client: job.client,
                    game: job.game,
                    cost: job.cost,
                    queued: std::time::Instant::now(),
                    expensive,
                    estimate_ms: job.estimate_ms,
                    stop: stop.clone(),
                    run,
                    deliver,
                },
            );
            if g.dispatch(shared.expensive_cap, shared.per_client) {
                shared.wake.notify_all();
            }
            AiTicket::new(rx, key, stop, shared.clone())
        };
        // Told outside the lock: its owner may submit again at once.
        if let Some(victim) = displaced {
            (victim.deliver)(Err(AiGone::Displaced));
        }
        Ok(ticket)
    }

    /// Whether a job of `client` costing `cost` would be taken now (its
    /// client under the cap, and a thread free for it or room in the
    /// queue), without taking anything: for refusing a new game before it
    /// is stored. A later [`AiPool::submit`] may still be refused.
    pub fn check(&self, client: &ClientKey, cost: u32) -> Result<(), AiBusy> {
        let shared = &self.handle.shared;
        let g = shared.lock();
        let limit = shared.in_flight_cap();
        if g.clients.get(client).copied().unwrap_or(0) >= limit {
            return Err(AiBusy::Client { limit });
        }
        let expensive = cost > shared.cheap_max;
        let at_once = g.has_idle()
            && !g.shutdown
            && (!expensive || g.running_expensive < shared.expensive_cap)
            && g.running_of(client) < shared.per_client;
        let displaces = || shared.displace && g.waiting.victim_for(client).is_some();
        if !at_once && !g.has_room(client, shared.queue) && !displaces() {
            return Err(AiBusy::Queue {
                limit: shared.queue,
            });
        }
        Ok(())
    }

    /// Tells `observer` of every job run from now on (once: a second
    /// observer is ignored).
    pub fn observe(&self, observer: Observer) {
        let _ = self.handle.shared.observer.set(observer);
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
            cost,
            queued,
            expensive,
            estimate_ms,
            stop,
            run,
            deliver,
        } = task;
        let started = std::time::Instant::now();
        let outcome = catch_unwind(AssertUnwindSafe(|| run(&stop)));
        let ran = started.elapsed();
        let searched = u64::try_from(ran.as_millis()).unwrap_or(u64::MAX);
        if let Some(o) = shared.observer.get() {
            o(cost, started.saturating_duration_since(queued), ran);
        }
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
        g.ended(&client);
        g.slots[i] = Slot::Idle;
        let given = g.dispatch(shared.expensive_cap, shared.per_client);
        drop(g);
        if given {
            shared.wake.notify_all();
        }
        // After the release: the ticket's owner may submit the game's next
        // job as soon as it sees this.
        match outcome {
            Ok(r) => deliver(Ok(r)),
            Err(_) => deliver(Err(AiGone::Stopped)),
        }
        g = shared.lock();
    }
}

/// A submitted job's answer to come: a future of the work's result, or
/// [`AiGone`] if it ended without one. Dropping it withdraws a waiting job
/// and stops a running one.
#[must_use = "dropping a ticket withdraws its job"]
pub struct AiTicket<R> {
    rx: oneshot::Receiver<Result<R, AiGone>>,
    /// Its client key and arrival number, its place in the queue.
    key: (ClientKey, u64),
    stop: Arc<AtomicBool>,
    shared: Arc<Shared>,
    done: bool,
}

impl<R> AiTicket<R> {
    fn new(
        rx: oneshot::Receiver<Result<R, AiGone>>,
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

    /// Takes the job out of the queue if it still waits for a thread
    /// (freeing its slots; the ticket then never resolves): whether it
    /// did. A job that runs (or ran) is left alone: [`AiTicket::stop`] it.
    pub fn withdraw(&mut self) -> bool {
        let mut g = self.shared.lock();
        match g.waiting.remove(&self.key.0, self.key.1) {
            Some(t) => {
                g.release(&t.client, &t.game);
                self.done = true;
                true
            }
            None => false,
        }
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
                Poll::Ready(r.unwrap_or(Err(AiGone::Stopped)))
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
    use std::net::IpAddr;
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
    async fn a_clients_jobs_beyond_its_running_cap_wait_their_turn() {
        // Two threads, one job running per client, one more waiting.
        let pool = AiPool::with_waiting(2, 4, 1, 1, 10).unwrap();
        let (tx, starts) = mpsc::channel();
        let (a, open_a) = gated(&tx, client(1), "a", 1);
        let a = pool.submit(a).unwrap();
        assert_eq!(started(&starts), "a");
        // The client's second waits, though a thread is free.
        let (b, open_b) = gated(&tx, client(1), "b", 1);
        let mut b = pool.submit(b).unwrap();
        assert_eq!(b.place(), Some(0));
        assert_eq!(pool.stats().running, 1);
        // Its third is refused: two in flight.
        let c = pool.submit(quick(&tx, client(1), "c", 1));
        assert_eq!(c.unwrap_err(), AiBusy::Client { limit: 2 });
        // Another client takes the free thread at once.
        let d = pool.submit(quick(&tx, client(2), "d", 1)).unwrap();
        assert_eq!(started(&starts), "d");
        assert_eq!(d.await.unwrap(), "d");
        // The first ends: the second runs.
        open_a.send(()).unwrap();
        assert_eq!(a.await.unwrap(), "a");
        assert_eq!(started(&starts), "b");
        assert!(!b.withdraw(), "running: not withdrawn");
        open_b.send(()).unwrap();
        assert_eq!((&mut b).await.unwrap(), "b");
        assert_eq!(pool.client_jobs(&client(1)), 0);
    }

    #[tokio::test]
    async fn a_waiting_job_withdrawn_leaves_the_queue_and_frees_its_slots() {
        let pool = AiPool::with_waiting(1, 4, 1, 1, 10).unwrap();
        let (tx, starts) = mpsc::channel();
        let (a, open_a) = gated(&tx, client(1), "a", 1);
        let a = pool.submit(a).unwrap();
        assert_eq!(started(&starts), "a");
        let mut b = pool.submit(quick(&tx, client(1), "b", 1)).unwrap();
        assert!(b.withdraw());
        assert_eq!(pool.stats().waiting, 0);
        assert!(!pool.is_thinking("b"));
        assert_eq!(pool.client_jobs(&client(1)), 1);
        drop(b);
        open_a.send(()).unwrap();
        assert_eq!(a.await.unwrap(), "a");
        assert!(starts.try_recv().is_err(), "b never ran");
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

    /// Issue 37 (Medium 5): with the analysis pool's queue full of the
    /// flood's jobs, one per address, an address that searched less than
    /// they did takes the place of the most served one's newest job (told
    /// `Displaced`), and runs before the rest. By hand: each flooder ran
    /// five jobs (a unit each: five units), the innocent one (one unit),
    /// the blocker's address one; service fades, so the later flooder
    /// has a little more: F2 (charged after F1) is the one displaced, and
    /// F3 (charged last, the most served) is refused.
    #[tokio::test]
    async fn a_full_analysis_queue_gives_a_flooders_place_to_who_searched_less() {
        let pool = AiPool::with_waiting(1, 2, 1, 1, u32::MAX).unwrap();
        let (tx, starts) = mpsc::channel();
        let (innocent, flood) = (client(9), [client(1), client(2), client(3)]);
        let mut n = 0;
        let mut run = |who: &ClientKey| {
            n += 1;
            pool.submit(quick(&tx, who.clone(), &format!("past{n}"), 1))
                .unwrap()
        };
        run(&innocent).await.unwrap();
        for f in &flood {
            for _ in 0..5 {
                run(f).await.unwrap();
            }
        }
        let _ = starts.try_iter().count();
        let (blocker, open) = gated(&tx, client(8), "run", 1);
        let blocker = pool.submit(blocker).unwrap();
        assert_eq!(started(&starts), "run");
        let f1 = pool.submit(quick(&tx, flood[0].clone(), "f1", 1)).unwrap();
        let f2 = pool.submit(quick(&tx, flood[1].clone(), "f2", 1)).unwrap();
        assert_eq!(
            pool.check(&flood[2], 1),
            Err(AiBusy::Queue { limit: 2 }),
            "as served as those waiting: no place for it"
        );
        let f3 = pool.submit(quick(&tx, flood[2].clone(), "f3", 1));
        assert_eq!(f3.unwrap_err(), AiBusy::Queue { limit: 2 });
        assert_eq!(pool.check(&innocent, 1), Ok(()));
        let mine = pool.submit(quick(&tx, innocent.clone(), "i", 1)).unwrap();
        assert_eq!(pool.stats().waiting, 2, "a place changed hands");
        assert_eq!(mine.place(), Some(0), "the innocent next");
        assert_eq!(f2.await, Err(AiGone::Displaced));
        open.send(()).unwrap();
        blocker.await.unwrap();
        assert_eq!(mine.await.as_deref(), Ok("i"));
        assert_eq!(f1.await.as_deref(), Ok("f1"));
        let order: Vec<String> = starts.try_iter().collect();
        assert_eq!(order, ["i", "f1"]);
    }

    /// The games' pool never displaces a turn: a game waiting for its AI
    /// keeps its place, whoever asks.
    #[tokio::test]
    async fn the_games_pool_displaces_no_turn() {
        let pool = AiPool::new(1, 1, 1, u32::MAX).unwrap();
        let (tx, starts) = mpsc::channel();
        for k in 0..3 {
            let job = quick(&tx, client(1), &format!("past{k}"), 1);
            pool.submit(job).unwrap().await.unwrap();
        }
        let (blocker, open) = gated(&tx, client(8), "run", 1);
        let blocker = pool.submit(blocker).unwrap();
        let _ = starts.try_iter().count();
        let turn = pool.submit(quick(&tx, client(1), "turn", 1)).unwrap();
        // A fresh address, less served than the turn's: refused all the same.
        let other = pool.submit(quick(&tx, client(2), "other", 1));
        assert_eq!(other.unwrap_err(), AiBusy::Queue { limit: 1 });
        open.send(()).unwrap();
        blocker.await.unwrap();
        assert_eq!(turn.await.as_deref(), Ok("turn"));
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
        assert_eq!(boom.await, Err(AiGone::Stopped));
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
        assert_eq!(boom.await, Err(AiGone::Stopped));
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
        assert_eq!(waiting.await, Err(AiGone::Stopped));
        // The running search was told to stop, and still answers.
        assert_eq!(running.await, Ok("stopped"));
    }
}

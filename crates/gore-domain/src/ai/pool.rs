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

use super::{AiBusy, AiGone, AiJob, AiStats, ClientKey, FairQueue, Slice, Work};

/// The work with its result's type erased.
type Erased = Box<dyn FnOnce(&AtomicBool) -> Ran + Send>;

/// What a slice of erased work gave.
enum Ran {
    Done(Box<dyn Any + Send>),
    Again(Erased),
}

/// `work`, its results' type erased, slice after slice.
fn erase<R: Send + 'static>(work: Work<R>) -> Erased {
    Box::new(move |stop: &AtomicBool| match work(stop) {
        Slice::Done(r) => Ran::Done(Box::new(r)),
        Slice::Again(rest) => Ran::Again(erase(rest)),
    })
}
/// Hands a result to the ticket. Kept apart from the work so that a panic
/// in the work does not drop the sender (resolving the ticket) before the
/// job's slots are freed.
type Deliver = Box<dyn FnOnce(Result<Box<dyn Any + Send>, AiGone>) + Send>;

/// A job inside the pool.
struct Task {
    client: ClientKey,
    /// Its arrival number (its ticket's name for it in the queue).
    seq: u64,
    /// Paused after a slice, waiting to go on.
    paused: bool,
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
    /// Jobs paused after a slice, waiting (at most
    /// [`Shared::paused_cap`]: each
    /// keeps what its search holds, an analysis's table).
    paused: usize,
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
    /// Jobs paused after a slice at most (each keeps what its work holds:
    /// an analysis's table): as many as may wait, or as threads.
    fn paused_cap(&self, threads: usize) -> usize {
        self.queue.max(threads)
    }

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
            let Some(mut task) = self.waiting.pop_where(|t| {
                !(t.expensive && lane_full)
                    && running_of.get(&t.client).copied().unwrap_or(0) < per_client
            }) else {
                break;
            };
            if std::mem::take(&mut task.paused) {
                self.paused -= 1;
            }
            self.running += 1;
            self.running_expensive += usize::from(task.expensive);
            *self.running_of.entry(task.client.clone()).or_insert(0) += 1;
            self.slots[i] = Slot::Assigned(task);
            given = true;
        }
        given
    }

    /// Whether a job of `client` may wait: fewer than `queue` jobs wait to
    /// start, or the client has none waiting and fewer than `queue`
    /// clients do (so a flood that fills the queue from fewer addresses
    /// than places does not shut the others out; at most `2 × queue` jobs
    /// wait to start). Jobs paused after a slice have started: they are
    /// bounded apart ([`Shared::paused_cap`]), and a queue full of them
    /// (twenty addresses' analyses, each paused in turn) shut everyone else
    /// out.
    fn has_room(&self, client: &ClientKey, queue: usize) -> bool {
        self.waiting.len() - self.paused < queue
            || (self.waiting.len_of(client) == 0 && self.waiting.keys() < queue)
    }

    /// Takes job `seq` of `client` out of the queue, if it waits, freeing
    /// its slots.
    fn take_out(&mut self, client: &ClientKey, seq: u64) -> Option<Task> {
        let task = self.waiting.remove(client, seq)?;
        self.release(&task.client, &task.game);
        if task.paused {
            self.paused -= 1;
        }
        Some(task)
    }

    /// Whether a job of `client` that has run a slice should give its
    /// thread to a job waiting: one that may run goes before it, and fewer
    /// jobs are paused than [`Shared::paused_cap`].
    fn should_pause(&self, client: &ClientKey, expensive: bool, shared: &Shared) -> bool {
        if self.paused >= shared.paused_cap(self.slots.len()) {
            return false;
        }
        let lane_full = self.running_expensive - usize::from(expensive) >= shared.expensive_cap;
        let running_of = &self.running_of;
        self.waiting.outranked(client, |t| {
            !(t.expensive && lane_full)
                && running_of.get(&t.client).copied().unwrap_or(0) < shared.per_client
        })
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
                paused: 0,
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
                // (A job paused after a slice keeps its place: it has
                // searched, and told what it found.)
                let victim = shared
                    .displace
                    .then(|| {
                        g.waiting
                            .victim_for(&job.client, job.estimate_ms, |t| !t.paused)
                    })
                    .flatten()
                    .and_then(|(k, seq)| g.take_out(&k, seq));
                let Some(victim) = victim else {
                    return Err(AiBusy::Queue {
                        limit: shared.queue,
                    });
                };
                displaced = Some(victim);
            }
            key = (job.client.clone(), g.next_seq);
            g.next_seq += 1;
            g.games.insert(job.game.clone());
            *g.clients.entry(job.client.clone()).or_insert(0) += 1;
            let run = erase(job.work);
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
                    seq: key.1,
                    paused: false,
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
        // (The job's estimate is not known here: as cheap as can be.)
        let displaces =
            || shared.displace && g.waiting.victim_for(client, 0, |t| !t.paused).is_some();
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

/// How a job's run on a thread ended.
enum Step<'a> {
    /// Its work returned (or panicked), its last slice having searched
    /// so many milliseconds.
    Over(std::thread::Result<Box<dyn Any + Send>>, u64),
    /// It paused after a slice: the rest, and the lock held since.
    Pause(Erased, MutexGuard<'a, Inner>),
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
            seq,
            paused: _,
            game,
            cost,
            queued,
            expensive,
            estimate_ms,
            stop,
            mut run,
            deliver,
        } = task;
        let started = std::time::Instant::now();
        // The slice that started by the queue was charged its estimate
        // then; one run on at once, nothing yet.
        let mut estimate = Some(estimate_ms);
        let step = loop {
            let slice = std::time::Instant::now();
            let stop_ref = &stop;
            let outcome = catch_unwind(AssertUnwindSafe(move || run(stop_ref)));
            let searched = u64::try_from(slice.elapsed().as_millis()).unwrap_or(u64::MAX);
            let rest = match outcome {
                Ok(Ran::Again(rest)) => rest,
                Ok(Ran::Done(r)) => break Step::Over(Ok(r), searched),
                Err(panic) => break Step::Over(Err(panic), searched),
            };
            let mut locked = shared.lock();
            match estimate.take() {
                Some(e) => locked.waiting.settle(&client, e, searched),
                None => locked.waiting.charge_ms(&client, searched),
            }
            if !locked.should_pause(&client, expensive, shared) {
                drop(locked);
                run = rest;
                continue;
            }
            break Step::Pause(rest, locked);
        };
        let (outcome, searched) = match step {
            Step::Pause(rest, locked) => {
                // Paused: first in its address's line, the thread given to
                // the job that goes before it.
                g = locked;
                if let Some(o) = shared.observer.get() {
                    o(
                        cost,
                        started.saturating_duration_since(queued),
                        started.elapsed(),
                    );
                }
                g.running -= 1;
                g.running_expensive -= usize::from(expensive);
                g.ended(&client);
                g.paused += 1;
                let task = Task {
                    client: client.clone(),
                    seq,
                    paused: true,
                    game,
                    cost,
                    queued: std::time::Instant::now(),
                    expensive,
                    estimate_ms: 0,
                    stop,
                    run: rest,
                    deliver,
                };
                g.waiting.push_front(client, seq, task);
                g.slots[i] = Slot::Idle;
                if g.dispatch(shared.expensive_cap, shared.per_client) {
                    shared.wake.notify_all();
                }
                continue;
            }
            Step::Over(outcome, searched) => (outcome, searched),
        };
        let ran = started.elapsed();
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
        match estimate {
            Some(e) => g.waiting.settle(&client, e, searched),
            None => g.waiting.charge_ms(&client, searched),
        }
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
    /// did. A job paused after a slice is taken out too (what it found is
    /// told already). A job that runs (or ran) is left alone:
    /// [`AiTicket::stop`] it.
    pub fn withdraw(&mut self) -> bool {
        let mut g = self.shared.lock();
        let out = g.take_out(&self.key.0, self.key.1).is_some();
        self.done |= out;
        out
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
            g.take_out(&self.key.0, self.key.1)
        };
        if withdrawn.is_none() {
            // Running (or finished): ask the search to stop.
            self.stop.store(true, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
#[path = "pool_tests.rs"]
mod tests;

//! The scheduler's queue: least attained service by client key.

use std::collections::{HashMap, VecDeque};

use super::ClientKey;

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
/// use gore_domain::ai::{ClientKey, FairQueue};
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

/// A key's service: `units` as of `at` (a value of the queue's total);
/// `seeded` while it is only the start a new key was given (no job of
/// its own charged yet).
#[derive(Debug, Clone, Copy, Default)]
struct Service {
    units: f64,
    at: u64,
    seeded: bool,
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
    /// A new key starts with this much service at most (30 s of search):
    /// the median of heavy flooders is not put on a newcomer.
    pub const NEW_AT_MOST: u64 = 300;

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
    ///
    /// A key the queue has no service of (a new address, or one forgotten)
    /// starts with the median service of the served keys waiting (the
    /// lower middle one's; none: nothing; [`FairQueue::NEW_AT_MOST`] at
    /// most): not ahead of the established keys that searched less,
    /// whatever the number of new keys (40 fresh addresses of a botnet
    /// each went before an innocent who had played before, issue 37), yet
    /// before the keys that searched as much as most of those waiting (at
    /// equal service, the new key first). New keys, not yet served, do not
    /// count in the median: the hundredth starts where the first did.
    pub fn push_costed(&mut self, key: ClientKey, seq: u64, estimate_ms: u64, job: T) {
        if !self.service.contains_key(&key) && !self.lines.contains_key(&key) {
            if let Some(start) = self.new_start().filter(|s| *s > 0.0) {
                let at = self.total;
                let seeded = true;
                self.service.insert(
                    key.clone(),
                    Service {
                        units: start,
                        at,
                        seeded,
                    },
                );
            }
        }
        self.lines
            .entry(key)
            .or_insert_with(|| Line {
                jobs: VecDeque::new(),
            })
            .jobs
            .push_back((seq, units_of_ms(estimate_ms), job));
        self.len += 1;
    }

    /// Where a key the queue has no service of starts: the lower median
    /// of the served keys waiting, [`FairQueue::NEW_AT_MOST`] at most
    /// (`None`: no served key waits).
    fn new_start(&self) -> Option<f64> {
        let total = self.total;
        let mut waiting: Vec<f64> = self
            .lines
            .keys()
            .filter_map(|k| self.service.get(k).filter(|s| !s.seeded))
            .map(|s| s.at(total))
            .collect();
        waiting.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
        let median = *waiting.get(waiting.len().saturating_sub(1) / 2)?;
        Some(median.min(Self::NEW_AT_MOST as f64))
    }

    /// `key`'s service now and whether it is new (not yet charged a job
    /// of its own): a key the queue does not know is new and would start
    /// at [`FairQueue::push_costed`]'s median.
    fn standing(&self, key: &ClientKey) -> (f64, bool) {
        match self.service.get(key) {
            Some(s) => (s.at(self.total), s.seeded),
            None if self.lines.contains_key(key) => (0.0, false),
            None => (self.new_start().unwrap_or(0.0), true),
        }
    }

    /// When the queue is full, the job that should give its place to a
    /// job of `key` expected to search `estimate_ms`: the waiting job that
    /// would be served last (the greatest in the order among each line's
    /// newest job that `may_lose` accepts; the longest line among equals),
    /// if the new job would be served before it (its key searched less
    /// lately; at equal service a new key, then a cheaper job). `None`:
    /// nothing waiting goes after it. The bounds stay: a place changes
    /// hands, the count does not grow (issue 37: sixteen flooding
    /// addresses, one job each, refused everyone else while they waited;
    /// a new address is refused only a place that would be served before
    /// it).
    pub fn victim_for(
        &self,
        key: &ClientKey,
        estimate_ms: u64,
        may_lose: impl Fn(&T) -> bool,
    ) -> Option<(ClientKey, u64)> {
        let total = self.total;
        let (mine, new) = self.standing(key);
        let me = (mine, !new, units_of_ms(estimate_ms), u64::MAX);
        let (last, _, victim, seq) = self
            .lines
            .iter()
            .filter(|(k, _)| *k != key)
            .filter_map(|(k, l)| {
                let back = l.jobs.back().filter(|(_, _, j)| may_lose(j))?;
                let s = self.service.get(k).copied().unwrap_or_default();
                let rank = (s.at(total), !s.seeded, back.1, back.0);
                Some((rank, l.jobs.len(), k, back.0))
            })
            .max_by(|a, b| {
                (a.0, a.1)
                    .partial_cmp(&(b.0, b.1))
                    .unwrap_or(std::cmp::Ordering::Equal)
            })?;
        (me < last).then(|| (victim.clone(), seq))
    }

    /// The order of lines: least service, then a new key before a served
    /// one (a newcomer starts at the served keys' median: he goes before
    /// the middle one), then cheaper first job, then earlier arrival.
    fn rank(service: Service, total: u64, head: &(u64, u64, T)) -> (f64, bool, u64, u64) {
        (service.at(total), !service.seeded, head.1, head.0)
    }

    /// Queues `job` of `key` first in its line, before the key's others:
    /// the rest of a job paused after a slice ([`super::Slice`]), `seq`
    /// still its arrival number. Charged a unit when it starts again.
    pub fn push_front(&mut self, key: ClientKey, seq: u64, job: T) {
        self.lines
            .entry(key)
            .or_insert_with(|| Line {
                jobs: VecDeque::new(),
            })
            .jobs
            .push_front((seq, 1, job));
        self.len += 1;
    }

    /// Whether a job waiting goes before `key` now (its first job `may_run`
    /// accepts, and its key has less service, or as much and is new): a
    /// job of `key` that has run a slice gives its thread to it.
    pub fn outranked(&self, key: &ClientKey, may_run: impl Fn(&T) -> bool) -> bool {
        let total = self.total;
        let (mine, _) = self.standing(key);
        self.lines.iter().any(|(k, l)| {
            let runs = l.jobs.front().is_some_and(|(_, _, j)| may_run(j));
            let s = self.service.get(k).copied().unwrap_or_default();
            let theirs = s.at(total);
            k != key && runs && (theirs < mine || (theirs == mine && s.seeded))
        })
    }

    /// Charges `key` `ms` of search (a slice run on at once, with no
    /// estimate charged when it started).
    pub fn charge_ms(&mut self, key: &ClientKey, ms: u64) {
        self.charge(key.clone(), units_of_ms(ms) as f64);
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
                let service = self.service.get(k).copied().unwrap_or_default();
                Some((Self::rank(service, total, head), k))
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
        // The clock moves first: a key's own charge does not fade itself
        // (a ten-minute analysis used to fade its own charge by 2^-10 at
        // once, and a newcomer starting at its key's service tied it).
        if units > 0.0 {
            self.total = total.saturating_add(units as u64);
        }
        let now = self.total;
        let s = self.service.entry(key).or_default();
        *s = Service {
            units: (s.at(now) + units).max(0.0),
            at: now,
            seeded: false,
        };
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
                    Some((i, Self::rank(*s, total, head)))
                })
                .min_by(|(_, a), (_, b)| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal))?;
            let (k, s, jobs) = &mut lines[i];
            let (n, units, _) = jobs.next()?;
            if *k == key && *n == seq {
                return Some(before);
            }
            total = total.saturating_add(*units);
            *s = Service {
                units: s.at(total) + *units as f64,
                at: total,
                seeded: false,
            };
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::IpAddr;

    fn client(n: u8) -> ClientKey {
        ClientKey::ip(IpAddr::from([10, 0, 0, n]))
    }

    /// Issue 37: forty fresh addresses (a botnet's, or rotating IPv6
    /// /64s) do not all go before an innocent who searched a little
    /// before: a new key starts at the median service of the served keys
    /// waiting, before them at equal service. Worked by hand: the innocent
    /// has 5 units (one 500 ms search), four flooders 100 each (ten
    /// seconds each) and a line each; the served keys waiting are the
    /// flooders, whose service has faded by then to between 70.7 and 100
    /// units (charged at totals 105 to 405, the clock moving first; now
    /// 405: 100 × 2^(-age/600)); each new key starts at their lower
    /// median, F2's 79.4, above the innocent's 5 (3.2 faded): he goes
    /// first. Then F1 (70.7), then the forty new keys and F2 (79.4), then
    /// F3 (89) and F4 (100).
    #[test]
    fn new_keys_start_at_the_median_not_ahead_of_established_ones() {
        let innocent = client(200);
        let mut q = FairQueue::new();
        q.push_costed(innocent.clone(), 0, 500, "i0");
        assert_eq!(q.pop_where(|_| true), Some("i0"));
        for f in 1..=4u8 {
            q.push_costed(client(f), u64::from(f), 10_000, "f0");
            assert_eq!(q.pop_where(|_| true), Some("f0"));
        }
        for f in 1..=4u8 {
            q.push_costed(client(f), 10 + u64::from(f), 10_000, "flood");
        }
        for n in 0..40u8 {
            q.push_costed(client(100 + n), 20 + u64::from(n), 10_000, "fresh");
        }
        q.push_costed(innocent.clone(), 99, 300, "innocent");
        assert_eq!(q.place(&innocent, 99), Some(0), "the innocent first");
        assert_eq!(q.pop_where(|_| true), Some("innocent"));
        let next: Vec<_> = (0..44).filter_map(|_| q.pop_where(|_| true)).collect();
        // (F2 and the new keys tie up to rounding: F2 is somewhere among
        // them.)
        assert_eq!(next[0], "flood", "F1");
        assert_eq!(next[42..], ["flood"; 2], "F3 and F4 last");
        let among = next[1..42].iter().filter(|j| **j == "flood").count();
        assert_eq!(among, 1, "F2 among the new keys: {next:?}");
    }

    /// Who gives a place in a full queue, by hand: A has 30 units, B 10,
    /// C 20 (each charged one job, the clock moving first: A at total 30,
    /// B at 40, C at 60; faded to 60: A 30 × 2^(-30/600) = 29.0, B 9.8,
    /// C 20). Each waits with one job, A with two. For B (9.8): A's newest
    /// (the most served). For A: nobody (it is the most served). For a
    /// new key: its start is the median of the waiting keys' (C's 20), and
    /// A (29.0) ranks after it: A's newest.
    #[test]
    fn the_most_served_key_gives_its_newest_place() {
        let (a, b, c) = (client(1), client(2), client(3));
        let mut q = FairQueue::new();
        for (k, ms) in [(&a, 3_000), (&b, 1_000), (&c, 2_000)] {
            q.push_costed(k.clone(), 0, ms, "past");
            assert_eq!(q.pop_where(|_| true), Some("past"));
        }
        q.push(a.clone(), 1, "a1");
        q.push(a.clone(), 2, "a2");
        q.push(b.clone(), 3, "b1");
        q.push(c.clone(), 4, "c1");
        assert_eq!(q.victim_for(&b, 0, |_| true), Some((a.clone(), 2)));
        assert_eq!(q.victim_for(&a, 0, |_| true), None, "A is the most served");
        assert_eq!(q.victim_for(&client(9), 0, |_| true), Some((a.clone(), 2)));
        // With A gone, C is the most served: B may take C's place, but not
        // a key as served as C.
        assert_eq!(q.remove(&a, 1), Some("a1"));
        assert_eq!(q.remove(&a, 2), Some("a2"));
        assert_eq!(q.victim_for(&b, 0, |_| true), Some((c.clone(), 4)));
        assert_eq!(q.victim_for(&c, 0, |_| true), None);
    }

    /// A flood's first minutes: the addresses waiting have not been served
    /// yet (no service, none to seed a newcomer with). A newcomer's short
    /// job would go before their long ones (equal service, the cheaper
    /// first): it takes the newest long one's place. Before, it was
    /// refused: no address had more service than it (issue 37, measured:
    /// 14 of 15 tries refused under 20 addresses' ten-second analyses).
    #[test]
    fn a_short_job_takes_a_place_from_long_ones_not_yet_served() {
        let mut q = FairQueue::new();
        for n in 1..=3u8 {
            q.push_costed(client(n), u64::from(n), 10_000, "long");
        }
        assert_eq!(
            q.victim_for(&client(9), 300, |_| true),
            Some((client(3), 3))
        );
        // A long job of one of them does not displace another's.
        assert_eq!(q.victim_for(&client(1), 10_000, |_| true), None);
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
        // A's second (C starts at A's service, the median of the served
        // keys waiting, and goes first at equal service).
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
}

//! A per-address token bucket: `rate` requests a second, bursts of
//! `2 × rate`. An IPv6 client is one /64 (a home or a host is given a
//! whole /64, so one address each would let it take 2^64 buckets); an
//! IPv4-mapped IPv6 address is its IPv4 address.
//!
//! The clock is the caller's: [`RateLimiter::allow_at`] and
//! [`RateLimiter::prune_at`] take the current instant, so the bucket's
//! arithmetic can be tested exactly; the server calls the `Instant::now()`
//! wrappers.

use std::collections::HashMap;
use std::net::IpAddr;
use std::net::Ipv6Addr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The bucket an address counts in: an IPv4 address itself, an IPv6
/// address's /64 prefix (host bits cleared), an IPv4-mapped IPv6 address as
/// its IPv4 address.
pub fn key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(Ipv6Addr::from(u128::from(v6) & !(u128::MAX >> 64))),
        },
    }
}

/// What the limiter says of one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Within the limit.
    Allow,
    /// Over the limit: refuse this request (`429`).
    Refuse,
    /// Far over: the address kept sending, its bucket empty, for twice its
    /// burst; refuse and close the connection (`429`, `Connection: close`).
    Close,
}

/// One token, in the bucket's unit (a token-nanosecond per request-per-
/// second of rate): integers, so that a token is back after exactly
/// `1 / rate` seconds, never a rounding error earlier or later.
const TOKEN: u128 = 1_000_000_000;

/// The buckets of every address seen lately.
pub struct RateLimiter {
    /// Requests a second (0: no limit).
    rate: u128,
    /// A full bucket, in [`TOKEN`] units.
    burst: u128,
    /// Per key: tokens, the last request, refusals since the last token.
    buckets: Mutex<HashMap<IpAddr, (u128, Instant, u32)>>,
}

impl RateLimiter {
    /// `rate` requests a second per address (0: no limit), bursts of twice
    /// that.
    pub fn new(rate: u32) -> RateLimiter {
        RateLimiter {
            rate: u128::from(rate),
            burst: 2 * u128::from(rate) * TOKEN,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one token for `ip` now; `false` when its bucket is empty.
    pub fn allow(&self, ip: IpAddr) -> bool {
        self.allow_at(ip, Instant::now())
    }

    /// Takes one token for `ip` at `now`; `false` when its bucket is empty.
    /// A `now` earlier than the bucket's last request counts as no time.
    pub fn allow_at(&self, ip: IpAddr, now: Instant) -> bool {
        self.check_at(ip, now) == Verdict::Allow
    }

    /// Takes one token for `ip` now, saying how far over the limit it is.
    pub fn check(&self, ip: IpAddr) -> Verdict {
        self.check_at(ip, Instant::now())
    }

    /// Takes one token for `ip` at `now`: [`Verdict::Allow`], else
    /// [`Verdict::Refuse`], or [`Verdict::Close`] once the address was
    /// refused more than twice its burst in a row (`2 × 2 × rate`).
    pub fn check_at(&self, ip: IpAddr, now: Instant) -> Verdict {
        if self.rate == 0 {
            return Verdict::Allow;
        }
        let mut map = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        let (tokens, last, refused) = map.entry(key(ip)).or_insert((self.burst, now, 0));
        let elapsed = now.saturating_duration_since(*last).as_nanos();
        *tokens = tokens
            .saturating_add(elapsed.saturating_mul(self.rate))
            .min(self.burst);
        *last = (*last).max(now);
        if *tokens >= TOKEN {
            *tokens -= TOKEN;
            *refused = 0;
            Verdict::Allow
        } else {
            *refused = refused.saturating_add(1);
            if u128::from(*refused) > 2 * self.burst / TOKEN {
                Verdict::Close
            } else {
                Verdict::Refuse
            }
        }
    }

    /// Forgets addresses idle for `idle` (their buckets are full again).
    pub fn prune(&self, idle: Duration) {
        self.prune_at(idle, Instant::now());
    }

    /// Forgets addresses idle for `idle` at `now`.
    pub fn prune_at(&self, idle: Duration, now: Instant) {
        let mut map = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        map.retain(|_, (_, last, _)| now.saturating_duration_since(*last) < idle);
    }
}

/// A token bucket for one thing (a socket's resyncs): `burst` at once,
/// then one more every `every`. The clock is the caller's, as above.
#[derive(Debug, Clone)]
pub struct Bucket {
    burst: u32,
    every: Duration,
    /// Tokens left, and when the next one comes (while not full).
    tokens: u32,
    next: Option<Instant>,
}

impl Bucket {
    /// A full bucket of `burst` tokens, one back every `every`.
    pub fn new(burst: u32, every: Duration) -> Bucket {
        Bucket {
            burst,
            every,
            tokens: burst,
            next: None,
        }
    }

    /// Takes a token at `now`; `false` when there is none.
    pub fn take_at(&mut self, now: Instant) -> bool {
        // The tokens due since, each `every` after the one before.
        while let Some(at) = self.next.filter(|at| *at <= now) {
            self.tokens += 1;
            self.next = (self.tokens < self.burst).then(|| at + self.every);
        }
        if self.tokens == 0 {
            return false;
        }
        if self.tokens == self.burst {
            self.next = Some(now + self.every);
        }
        self.tokens -= 1;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn a_burst_of_twice_the_rate_then_refusals() {
        let l = RateLimiter::new(10);
        let t0 = Instant::now();
        let allowed = (0..100).filter(|_| l.allow_at(ip("127.0.0.9"), t0)).count();
        assert_eq!(allowed, 20);
        assert!(
            l.allow_at(ip("127.0.0.8"), t0),
            "another address has its own bucket"
        );
    }

    #[test]
    fn a_token_comes_back_after_exactly_one_interval() {
        let l = RateLimiter::new(10); // one token every 100 ms
        let a = ip("127.0.0.9");
        let t0 = Instant::now();
        assert_eq!((0..20).filter(|_| l.allow_at(a, t0)).count(), 20);
        assert!(!l.allow_at(a, t0));
        assert!(!l.allow_at(a, t0 + 99 * MS), "refilled too early");
        // The 99 ms already waited count: one more millisecond completes it.
        assert!(l.allow_at(a, t0 + 100 * MS), "not refilled after 100 ms");
        assert!(!l.allow_at(a, t0 + 100 * MS), "one token, not two");
        assert!(!l.allow_at(a, t0 + 199 * MS));
        assert!(l.allow_at(a, t0 + 200 * MS));
        // A clock read out of order (an earlier instant) adds nothing.
        assert!(!l.allow_at(a, t0));
        assert!(!l.allow_at(a, t0 + 299 * MS));
        assert!(l.allow_at(a, t0 + 300 * MS));
    }

    #[test]
    fn a_long_pause_refills_up_to_the_burst_only() {
        let l = RateLimiter::new(3);
        let a = ip("::1");
        let t0 = Instant::now();
        assert_eq!((0..10).filter(|_| l.allow_at(a, t0)).count(), 6);
        let later = t0 + Duration::from_secs(3600);
        assert_eq!((0..10).filter(|_| l.allow_at(a, later)).count(), 6);
    }

    #[test]
    fn ipv6_counts_per_64_and_mapped_v4_as_v4() {
        let l = RateLimiter::new(1); // bursts of 2
        let t0 = Instant::now();
        assert!(l.allow_at(ip("2001:db8:1:2::1"), t0));
        assert!(l.allow_at(ip("2001:db8:1:2:ffff:ffff:ffff:ffff"), t0));
        assert!(
            !l.allow_at(ip("2001:db8:1:2:abcd::9"), t0),
            "a third address of the same /64 shares its bucket"
        );
        assert!(
            l.allow_at(ip("2001:db8:1:3::1"), t0),
            "the next /64 is another"
        );
        assert!(l.allow_at(ip("::ffff:192.0.2.7"), t0));
        assert!(l.allow_at(ip("192.0.2.7"), t0));
        assert!(
            !l.allow_at(ip("192.0.2.7"), t0),
            "mapped and plain v4 are one bucket"
        );
        assert!(l.allow_at(ip("192.0.2.8"), t0), "v4 is per address");
        assert_eq!(key(ip("2001:db8:1:2:3:4:5:6")), ip("2001:db8:1:2::"));
    }

    #[test]
    fn far_over_the_limit_says_close() {
        let l = RateLimiter::new(2); // bursts of 4: close after 8 refusals in a row
        let a = ip("192.0.2.1");
        let t0 = Instant::now();
        let verdicts: Vec<Verdict> = (0..14).map(|_| l.check_at(a, t0)).collect();
        assert!(verdicts[..4].iter().all(|v| *v == Verdict::Allow));
        assert!(
            verdicts[4..12].iter().all(|v| *v == Verdict::Refuse),
            "{verdicts:?}"
        );
        assert!(
            verdicts[12..].iter().all(|v| *v == Verdict::Close),
            "{verdicts:?}"
        );
        // A token granted again resets the count.
        assert_eq!(
            l.check_at(a, t0 + Duration::from_millis(500)),
            Verdict::Allow
        );
        assert_eq!(
            l.check_at(a, t0 + Duration::from_millis(500)),
            Verdict::Refuse
        );
    }

    #[test]
    fn rate_zero_is_no_limit() {
        let l = RateLimiter::new(0);
        let t0 = Instant::now();
        assert!((0..1000).all(|_| l.allow_at(ip("127.0.0.9"), t0)));
    }

    #[test]
    fn prune_forgets_idle_addresses_only() {
        let l = RateLimiter::new(1);
        let t0 = Instant::now();
        let (idle, busy) = (ip("127.0.0.9"), ip("127.0.0.8"));
        l.allow_at(idle, t0);
        l.allow_at(busy, t0);
        l.allow_at(busy, t0 + 50 * MS);
        l.prune_at(60 * MS, t0 + 60 * MS);
        let map = l.buckets.lock().unwrap();
        assert!(!map.contains_key(&idle), "idle for 60 ms: forgotten");
        assert!(map.contains_key(&busy), "idle for 10 ms: kept");
    }

    #[test]
    fn a_bucket_gives_its_burst_then_one_token_each_interval() {
        let mut b = Bucket::new(3, Duration::from_secs(10));
        let t0 = Instant::now();
        let s = Duration::from_secs(1);
        assert_eq!((0..5).filter(|_| b.take_at(t0)).count(), 3);
        // The first token went at t0: it is back at t0 + 10 s, not before.
        assert!(!b.take_at(t0 + 9 * s));
        assert!(b.take_at(t0 + 10 * s));
        assert!(!b.take_at(t0 + 10 * s));
        // The next at t0 + 20 s (counted from the last one's return).
        assert!(!b.take_at(t0 + 19 * s));
        assert!(b.take_at(t0 + 20 * s));
        // A long pause fills it up to its burst only.
        let later = t0 + 3600 * s;
        assert_eq!((0..5).filter(|_| b.take_at(later)).count(), 3);
    }
}

/// Things held per key (a stream per account, say), each taken against a
/// cap and given back when its [`TallySlot`] drops.
#[derive(Clone, Default)]
pub struct Tally(std::sync::Arc<Mutex<HashMap<String, usize>>>);

/// One thing counted in a [`Tally`] until dropped.
pub struct TallySlot {
    tally: Tally,
    key: String,
}

impl Tally {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, usize>> {
        // Nothing panics under this lock; a poisoned one is still sound.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Counts one more under `key` if it holds fewer than `max`.
    pub fn take(&self, key: impl Into<String>, max: usize) -> Option<TallySlot> {
        let key = key.into();
        let mut map = self.lock();
        let n = map.entry(key.clone()).or_insert(0);
        if *n >= max {
            if *n == 0 {
                map.remove(&key);
            }
            return None;
        }
        *n += 1;
        Some(TallySlot {
            tally: self.clone(),
            key,
        })
    }
}

impl Drop for TallySlot {
    fn drop(&mut self) {
        let mut map = self.tally.lock();
        if let Some(n) = map.get_mut(&self.key) {
            *n -= 1;
            if *n == 0 {
                map.remove(&self.key);
            }
        }
    }
}

//! A per-address token bucket: `rate` requests a second, bursts of
//! `2 × rate`.
//!
//! The clock is the caller's: [`RateLimiter::allow_at`] and
//! [`RateLimiter::prune_at`] take the current instant, so the bucket's
//! arithmetic can be tested exactly; the server calls the `Instant::now()`
//! wrappers.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

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
    buckets: Mutex<HashMap<IpAddr, (u128, Instant)>>,
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
        if self.rate == 0 {
            return true;
        }
        let mut map = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        let (tokens, last) = map.entry(ip).or_insert((self.burst, now));
        let elapsed = now.saturating_duration_since(*last).as_nanos();
        *tokens = tokens
            .saturating_add(elapsed.saturating_mul(self.rate))
            .min(self.burst);
        *last = (*last).max(now);
        if *tokens >= TOKEN {
            *tokens -= TOKEN;
            true
        } else {
            false
        }
    }

    /// Forgets addresses idle for `idle` (their buckets are full again).
    pub fn prune(&self, idle: Duration) {
        self.prune_at(idle, Instant::now());
    }

    /// Forgets addresses idle for `idle` at `now`.
    pub fn prune_at(&self, idle: Duration, now: Instant) {
        let mut map = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        map.retain(|_, (_, last)| now.saturating_duration_since(*last) < idle);
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
}

//! A per-address token bucket: `rate` requests a second, bursts of
//! `2 × rate`.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The buckets of every address seen lately.
pub struct RateLimiter {
    rate: f64,
    burst: f64,
    buckets: Mutex<HashMap<IpAddr, (f64, Instant)>>,
}

impl RateLimiter {
    /// `rate` requests a second per address (0: no limit), bursts of twice
    /// that.
    pub fn new(rate: u32) -> RateLimiter {
        RateLimiter {
            rate: rate as f64,
            burst: 2.0 * rate as f64,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one token for `ip`; `false` when its bucket is empty.
    pub fn allow(&self, ip: IpAddr) -> bool {
        if self.rate <= 0.0 {
            return true;
        }
        let now = Instant::now();
        let mut map = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        let (tokens, last) = map.entry(ip).or_insert((self.burst, now));
        *tokens = (*tokens + now.duration_since(*last).as_secs_f64() * self.rate).min(self.burst);
        *last = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            true
        } else {
            false
        }
    }

    /// Forgets addresses idle for `idle` (their buckets are full again).
    pub fn prune(&self, idle: Duration) {
        let now = Instant::now();
        let mut map = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        map.retain(|_, (_, last)| now.duration_since(*last) < idle);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bursts_then_refuses_then_refills() {
        let l = RateLimiter::new(10);
        let ip: IpAddr = "127.0.0.9".parse().unwrap();
        let other: IpAddr = "127.0.0.8".parse().unwrap();
        let allowed = (0..100).filter(|_| l.allow(ip)).count();
        assert!((20..=22).contains(&allowed), "{allowed}");
        assert!(l.allow(other), "another address has its own bucket");
        std::thread::sleep(Duration::from_millis(250));
        assert!(l.allow(ip), "refilled");
        assert!((0..1000).all(|_| RateLimiter::new(0).allow(ip)));
    }
}

//! Times the in-memory solve of the layers up to N (an argument), layer
//! by layer, on all cores: `cargo run --release -p gore-solver --example
//! timing -- 30`.

use gore_solver::index::layer_size;
use gore_solver::par::Workers;
use gore_solver::retro::LayerStats;
use gore_solver::solve::{solve_all, MemoryStore, Progress};
use std::sync::Mutex;
use std::time::Instant;

/// Prints each layer's time as it ends.
struct Report {
    started: Mutex<Vec<Option<Instant>>>,
}

impl Progress for Report {
    fn begin(&self, n: usize, _: u64) {
        self.started.lock().unwrap()[n] = Some(Instant::now());
    }
    fn advance(&self, _: usize, _: u64) {}
    fn end(&self, n: usize, st: &LayerStats) {
        let secs = self.started.lock().unwrap()[n]
            .unwrap()
            .elapsed()
            .as_secs_f64();
        println!(
            "{n:2} {:>11} boards {:7.3} s {:6.1} ns/board exact {:6.2}% runs {} maxUB-LB {} V-LB {} UB-V {} MB {}",
            layer_size(n),
            secs,
            secs * 1e9 / layer_size(n) as f64,
            100.0 * st.exact as f64 / st.boards as f64,
            st.runs,
            st.max_ub_lb,
            st.max_v_lb,
            st.max_ub_v,
            st.scratch_bytes >> 20
        );
    }
}

struct Threads(usize);

impl Workers for Threads {
    fn threads(&self) -> usize {
        self.0
    }
    fn run<'a>(&self, jobs: Vec<Box<dyn FnOnce() + Send + 'a>>) {
        let queue = Mutex::new(jobs.into_iter());
        std::thread::scope(|s| {
            for _ in 0..self.0 {
                s.spawn(|| loop {
                    let job = queue.lock().unwrap().next();
                    match job {
                        Some(job) => job(),
                        None => break,
                    }
                });
            }
        });
    }
}

fn main() {
    let max: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(24);
    let skip = std::env::args().any(|a| a == "skip");
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let store = MemoryStore::default();
    let report = Report {
        started: Mutex::new(vec![None; 49]),
    };
    let t0 = Instant::now();
    solve_all(max, skip, &store, &Threads(threads), &report, u64::MAX).unwrap();
    println!("total {:.1} s", t0.elapsed().as_secs_f64());
}

//! Times the in-memory solve of the layers up to N (an argument), layer
//! by layer, on all cores: `cargo run --release -p gore-solver --example
//! timing -- 30`.

use gore_solver::index::layer_size;
use gore_solver::par::Workers;
use gore_solver::retro::solve_layer;
use gore_solver::Memory;
use std::sync::Mutex;
use std::time::Instant;

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
    let mut mem = Memory::default();
    let t0 = Instant::now();
    for n in 0..=max {
        let t = Instant::now();
        let (layer, st) = solve_layer(n, skip, &mem, &Threads(threads), &|_| {});
        let secs = t.elapsed().as_secs_f64();
        println!(
            "{n:2} {:>11} boards {:7.3} s {:6.1} ns/board exact {:6.2}% runs {} maxUB-LB {} V-LB {} UB-V {}",
            layer_size(n),
            secs,
            secs * 1e9 / layer_size(n) as f64,
            100.0 * st.exact as f64 / st.boards as f64,
            st.runs,
            st.max_ub_lb,
            st.max_v_lb,
            st.max_ub_v
        );
        mem.layers.push(layer);
    }
    println!("total {:.1} s", t0.elapsed().as_secs_f64());
}

//! `gore solve` (build or check the no-trade database) and `gore probe`
//! (its answers for one position). The solver is gore-solver; this is its
//! files, threads, progress bars and tables.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Result};
use clap::Args;
use gore_core::Rules;
use gore_solver::disk::{write_layer, Database};
use gore_solver::index::{layer_size, MAX_SEEDS};
use gore_solver::par::Workers;
use gore_solver::retro::{solve_layer, LayerStats};
use gore_solver::verify::{check_layer, sample, ExtraCheck};
use indicatif::{ProgressBar, ProgressStyle};

use crate::commands::{parse_position, parse_rules};

/// The database's rules: `no-trades`, or `no-trades,skip-origin`; whether
/// `skip-origin`.
fn database_rules(s: &str) -> Result<bool> {
    let r = parse_rules(s)?;
    let v = r.variant;
    let plain = !v.cede_all && v.seeds_per_hole() == 6 && r.ply_cap.is_none();
    if !v.no_trades || !plain {
        bail!("--rules: the database is for `no-trades` or `no-trades,skip-origin`, not `{r}`");
    }
    Ok(v.skip_origin)
}

#[derive(Args)]
pub struct SolveArgs {
    /// The database directory (one subdirectory per rule set).
    #[arg(long)]
    db: PathBuf,
    /// `no-trades` or `no-trades,skip-origin`.
    #[arg(long, default_value = "no-trades")]
    rules: String,
    /// Solve the layers up to this many seeds on the board (at most 48).
    #[arg(long, default_value_t = MAX_SEEDS)]
    max_seeds: usize,
    /// Threads (default: every core).
    #[arg(long)]
    threads: Option<usize>,
    /// Check the layers present instead of solving: a sample of each.
    #[arg(long)]
    verify: bool,
    /// With --verify: boards checked per layer (every board of the
    /// smaller layers).
    #[arg(long, default_value_t = 20_000)]
    sample: u64,
    /// With --verify: the seed of the sample.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Runs the solver's jobs on `threads` scoped threads, each taking the
/// next job until none is left.
struct Threads(usize);

impl Workers for Threads {
    fn threads(&self) -> usize {
        self.0
    }

    fn run<'a>(&self, jobs: Vec<Box<dyn FnOnce() + Send + 'a>>) {
        let queue = Mutex::new(jobs.into_iter());
        thread::scope(|s| {
            for _ in 0..self.0 {
                s.spawn(|| loop {
                    // The lock is held only to take a job.
                    let job = queue.lock().unwrap_or_else(|e| e.into_inner()).next();
                    match job {
                        Some(job) => job(),
                        None => break,
                    }
                });
            }
        });
    }
}

/// The peak resident memory of this process so far (VmHWM), in bytes.
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn mib(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / (1024.0 * 1024.0))
}

/// One solved layer's line of the summary.
struct Row {
    stats: LayerStats,
    time: Duration,
    peak: Option<u64>,
}

pub fn run(args: SolveArgs) -> Result<()> {
    let skip = database_rules(&args.rules)?;
    let threads = args
        .threads
        .unwrap_or_else(|| thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    if args.verify {
        return verify(&args.db, skip, args.sample, args.seed, threads);
    }
    if args.max_seeds > MAX_SEEDS {
        bail!("--max-seeds: at most {MAX_SEEDS} seeds fit on the board");
    }
    let mut db = Database::open(&args.db, skip)?;
    let first = db.layers();
    let rules = gore_solver::format::rules_name(skip);
    if first > args.max_seeds {
        println!(
            "{rules}: layers 0 to {} present in {}, nothing to solve",
            first - 1,
            args.db.display()
        );
        return Ok(());
    }
    if first > 0 {
        println!(
            "{rules}: layers 0 to {} present, resuming at layer {first}",
            first - 1
        );
    }
    let workers = Threads(threads);
    let style = ProgressStyle::with_template(
        "layer {prefix:>2} [{elapsed_precise}] {bar:40} {percent:>3}% ({eta})",
    )
    .expect("a valid template");
    let mut rows = Vec::new();
    let clock = Instant::now();
    for n in first..=args.max_seeds {
        // The solver counts a survey of the boards, then the propagation.
        let bar = ProgressBar::new(2 * layer_size(n))
            .with_style(style.clone())
            .with_prefix(n.to_string());
        let started = Instant::now();
        // Only this layer is in memory; the lower ones are read from the
        // mapped files.
        let (layer, stats) = solve_layer(n, skip, &db, &workers, &|done| bar.set_position(done));
        bar.finish_and_clear();
        let path = write_layer(&args.db, &layer, skip)?;
        drop(layer);
        db.extend()?;
        if db.layers() != n + 1 {
            bail!("{}: written but not read back", path.display());
        }
        rows.push(Row {
            stats,
            time: started.elapsed(),
            peak: peak_rss(),
        });
    }
    print_table(rules, &rows, clock.elapsed());
    Ok(())
}

fn print_table(rules: &str, rows: &[Row], total: Duration) {
    println!(
        "{rules}: solved layers {} to {}",
        rows[0].stats.n,
        rows[rows.len() - 1].stats.n
    );
    println!(
        "{:>5} {:>12} {:>8} {:>6} {:>5} {:>5} {:>10} {:>9} {:>11} {:>9}",
        "layer",
        "boards",
        "exact%",
        "UB-LB",
        "V-LB",
        "UB-V",
        "passes",
        "time s",
        "scratch MiB",
        "peak MiB"
    );
    let mut boards = 0;
    let mut exact = 0;
    for r in rows {
        let s = &r.stats;
        boards += s.boards;
        exact += s.exact;
        println!(
            "{:>5} {:>12} {:>8.4} {:>6} {:>5} {:>5} {:>10} {:>4} {:>9.2} {:>11} {:>9}",
            s.n,
            s.boards,
            100.0 * s.exact as f64 / s.boards as f64,
            s.max_ub_lb,
            s.max_v_lb,
            s.max_ub_v,
            s.passes,
            s.runs,
            r.time.as_secs_f64(),
            mib(s.scratch_bytes),
            r.peak.map_or("?".to_string(), mib),
        );
    }
    println!(
        "total {boards} boards, {:.4}% exact, {:.1} s, peak memory {} MiB",
        100.0 * exact as f64 / boards.max(1) as f64,
        total.as_secs_f64(),
        peak_rss().map_or("?".to_string(), mib)
    );
}

/// `gore solve --verify`: a seeded sample of every layer present,
/// checked in parallel by layer.
fn verify(dir: &Path, skip: bool, k: u64, seed: u64, threads: usize) -> Result<()> {
    let db = Database::open(dir, skip)?;
    let rules = gore_solver::format::rules_name(skip);
    if db.layers() == 0 {
        bail!("{}: no layer of {rules} to verify", dir.display());
    }
    // The third check, exactness against a search with the repetition
    // history on small layers, plugs in here (gore_solver's `history`
    // module) as an ExtraCheck; until it lands, none.
    let extra: Option<ExtraCheck<'_>> = None;
    let clock = Instant::now();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = Mutex::new(Vec::new());
    thread::scope(|s| {
        for _ in 0..threads.min(db.layers()) {
            s.spawn(|| loop {
                let n = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if n >= db.layers() {
                    break;
                }
                let ranks = sample(n, k, seed);
                let r = check_layer(&db, n, skip, &ranks, extra);
                results
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push((n, r));
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    results.sort_by_key(|(n, _)| *n);
    let mut checked = 0;
    for (n, r) in results {
        match r {
            Ok(c) => {
                println!("layer {n:>2}: {c} boards checked");
                checked += c;
            }
            Err(f) => return Err(anyhow!("{rules}: verification failed: {f}")),
        }
    }
    println!(
        "{rules}: verified {checked} boards of layers 0 to {} in {:.1} s",
        db.layers() - 1,
        clock.elapsed().as_secs_f64()
    );
    Ok(())
}

#[derive(Args)]
pub struct ProbeArgs {
    /// The database directory.
    #[arg(long)]
    db: PathBuf,
    /// The position's rules: `no-trades` with options such as
    /// `skip-origin` or `seeds=4` (the database of the same `skip-origin`
    /// is read).
    #[arg(long, default_value = "no-trades", value_parser = parse_rules)]
    rules: Rules,
    /// The position in GPN (quoted, or as five words); the start if omitted.
    gpn: Vec<String>,
}

pub fn probe(args: ProbeArgs) -> Result<()> {
    let p = parse_position(&args.gpn, args.rules)?;
    let skip = p.variant().skip_origin;
    let db = Database::open(&args.db, skip)?;
    let probe = db.probe(&p).map_err(|e| match e {
        gore_solver::probe::ProbeError::Empty => anyhow!(
            "{}: no layer of {} here (build them with gore solve)",
            args.db.display(),
            gore_solver::format::rules_name(skip)
        ),
        e => e.into(),
    })?;
    for line in probe.lines() {
        println!("{line}");
    }
    Ok(())
}

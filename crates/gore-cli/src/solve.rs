//! `gore solve` (build or check the no-trade database) and `gore probe`
//! (its answers for one position). The solver is gore-solver; this is its
//! files, threads, progress bars and tables.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Result};
use clap::Args;
use gore_core::Rules;
use gore_solver::disk::{Building, Database};
use gore_solver::history::Exact;
use gore_solver::index::unrank;
use gore_solver::index::MAX_SEEDS;
use gore_solver::par::Threads;
use gore_solver::retro::LayerStats;
use gore_solver::solve::{solve_all, Progress, Store};
use gore_solver::verify::{check_layer, sample, ExtraCheck, Failure};
use gore_solver::Lookup;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};

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
    /// Working memory for the layers being solved, in MiB: the even and the
    /// odd layer are solved side by side while both fit (the mapped layer
    /// files come on top, as page cache).
    #[arg(long, default_value_t = 3072)]
    memory_mib: u64,
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
    /// With --verify: the layers up to this one are also checked against
    /// a search with the repetition history (LB <= exact value <= UB).
    #[arg(long, default_value_t = 10)]
    history_layers: usize,
    /// With --verify: boards per layer searched with the history.
    #[arg(long, default_value_t = 200)]
    history_sample: u64,
}

/// The history search's node budget per bound and board: boards beyond
/// it are counted, not failed.
const HISTORY_BUDGET: u64 = 5_000_000;

/// The peak resident memory of this process so far (VmHWM), in bytes.
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The anonymous resident memory of this process now (RssAnon): the
/// solver's own arrays, without the mapped files' pages.
fn anon_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("RssAnon:"))?;
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
        return verify(&args, skip, threads);
    }
    if args.max_seeds > MAX_SEEDS {
        bail!("--max-seeds: at most {MAX_SEEDS} seeds fit on the board");
    }
    let store = Building::open(&args.db, skip)?;
    let rules = gore_solver::format::rules_name(skip);
    let missing: Vec<usize> = (0..=args.max_seeds).filter(|&n| !store.has(n)).collect();
    if missing.is_empty() {
        println!(
            "{rules}: layers 0 to {} present in {}, nothing to solve",
            args.max_seeds,
            args.db.display()
        );
        return Ok(());
    }
    if missing.len() <= args.max_seeds {
        println!("{rules}: some layers present, solving layers {missing:?}");
    }
    let workers = Threads(threads);
    let bars = Bars::new();
    let clock = Instant::now();
    solve_all(
        args.max_seeds,
        skip,
        &store,
        &workers,
        &bars,
        args.memory_mib << 20,
    )
    .map_err(|e| anyhow!(e))?;
    let (rows, anon) = bars.into_rows();
    print_table(rules, &rows, clock.elapsed(), anon);
    Ok(())
}

/// A progress bar per layer being solved (the even and the odd chain each
/// have one going), and each solved layer's line of the summary.
struct Bars {
    multi: MultiProgress,
    style: ProgressStyle,
    live: Mutex<Vec<Option<(ProgressBar, Instant)>>>,
    rows: Mutex<Vec<Row>>,
    /// The largest RssAnon seen while solving.
    anon: AtomicU64,
}

impl Bars {
    fn new() -> Bars {
        let style = ProgressStyle::with_template(
            "layer {prefix:>2} [{elapsed_precise}] {bar:40} {percent:>3}% ({eta})",
        )
        .expect("a valid template");
        Bars {
            multi: MultiProgress::new(),
            style,
            live: Mutex::new((0..=MAX_SEEDS).map(|_| None).collect()),
            rows: Mutex::new(Vec::new()),
            anon: AtomicU64::new(0),
        }
    }

    /// The solved layers' rows, in order, and the peak RssAnon seen.
    fn into_rows(self) -> (Vec<Row>, u64) {
        let mut rows = self.rows.into_inner().unwrap_or_else(|e| e.into_inner());
        rows.sort_by_key(|r| r.stats.n);
        (rows, self.anon.into_inner())
    }
}

impl Progress for Bars {
    fn begin(&self, n: usize, total: u64) {
        let bar = self.multi.add(
            ProgressBar::new(total)
                .with_style(self.style.clone())
                .with_prefix(n.to_string()),
        );
        self.live.lock().unwrap_or_else(|e| e.into_inner())[n] = Some((bar, Instant::now()));
    }

    fn advance(&self, n: usize, done: u64) {
        if let Some(now) = anon_rss() {
            self.anon.fetch_max(now, Ordering::Relaxed);
        }
        if let Some((bar, _)) = &self.live.lock().unwrap_or_else(|e| e.into_inner())[n] {
            bar.set_position(done);
        }
    }

    fn end(&self, n: usize, stats: &LayerStats) {
        let taken = self.live.lock().unwrap_or_else(|e| e.into_inner())[n].take();
        let time = taken.map_or(Duration::ZERO, |(bar, started)| {
            bar.finish_and_clear();
            self.multi.remove(&bar);
            started.elapsed()
        });
        self.rows
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Row {
                stats: *stats,
                time,
                peak: peak_rss(),
            });
    }
}

fn print_table(rules: &str, rows: &[Row], total: Duration, anon: u64) {
    println!(
        "{rules}: solved layers {} to {}",
        rows[0].stats.n,
        rows[rows.len() - 1].stats.n
    );
    println!(
        "{:>5} {:>12} {:>8} {:>6} {:>5} {:>5} {:>10} {:>4} {:>9} {:>11} {:>9}",
        "layer",
        "boards",
        "exact%",
        "UB-LB",
        "V-LB",
        "UB-V",
        "pass-bds",
        "runs",
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
        "total {boards} boards, {:.4}% exact, {:.1} s, peak memory {} MiB \
         (resident; the solver's own at most {} MiB, the rest the mapped files)",
        100.0 * exact as f64 / boards.max(1) as f64,
        total.as_secs_f64(),
        peak_rss().map_or("?".to_string(), mib),
        mib(anon)
    );
}

/// What `gore solve --verify` found on one layer.
struct Verified {
    n: usize,
    checked: Result<u64, Failure>,
    /// Boards searched with the history, and those beyond the budget.
    history: u64,
    over_budget: u64,
}

/// `gore solve --verify`: a seeded sample of every layer present (the
/// stored-value checks), and on the small layers a smaller one against a
/// search with the history; layers in parallel.
fn verify(args: &SolveArgs, skip: bool, threads: usize) -> Result<()> {
    let dir = &args.db;
    let db = Database::open(dir, skip)?;
    let rules = gore_solver::format::rules_name(skip);
    if db.layers() == 0 {
        bail!("{}: no layer of {rules} to verify", dir.display());
    }
    let clock = Instant::now();
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::new());
    let layer = |n: usize| -> Verified {
        let ranks = sample(n, args.sample, args.seed);
        let mut v = Verified {
            n,
            checked: check_layer(&db, n, skip, &ranks, None),
            history: 0,
            over_budget: 0,
        };
        if v.checked.is_err() || n > args.history_layers {
            return v;
        }
        // The exact value under the real rule of a game started on the
        // board lies in [LB, UB]: each side proved by a null-window search
        // (the database orders its actions, which never changes a result).
        // One search per layer keeps the bounds of the fresh starts it met.
        let exact = Mutex::new(Exact::ordered_by(skip, &db));
        let over = AtomicU64::new(0);
        let history = |db: &dyn Lookup, n: usize, r: u64| -> Result<(), String> {
            let b = unrank(n, r);
            let x = db.values(n, r);
            let mut e = exact.lock().unwrap_or_else(|e| e.into_inner());
            match (
                e.at_least(&b, x.lb, HISTORY_BUDGET),
                e.at_most(&b, x.ub, HISTORY_BUDGET),
            ) {
                (Some(true), Some(true)) => Ok(()),
                (Some(false), _) => Err(format!(
                    "the search with the history finds less than LB {}",
                    x.lb
                )),
                (_, Some(false)) => Err(format!(
                    "the search with the history finds more than UB {}",
                    x.ub
                )),
                _ => {
                    over.fetch_add(1, Ordering::Relaxed);
                    Ok(())
                }
            }
        };
        let hranks = sample(n, args.history_sample, args.seed);
        let extra: ExtraCheck<'_> = &history;
        v.checked = check_layer(&db, n, skip, &hranks, Some(extra)).map(|_| ranks.len() as u64);
        v.history = hranks.len() as u64;
        v.over_budget = over.load(Ordering::Relaxed);
        v
    };
    thread::scope(|s| {
        for _ in 0..threads.min(db.layers()) {
            s.spawn(|| loop {
                let n = next.fetch_add(1, Ordering::Relaxed);
                if n >= db.layers() {
                    break;
                }
                let v = layer(n);
                results.lock().unwrap_or_else(|e| e.into_inner()).push(v);
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    results.sort_by_key(|v| v.n);
    let (mut checked, mut searched) = (0, 0);
    for v in results {
        match v.checked {
            Ok(c) => {
                print!("layer {:>2}: {c} boards checked", v.n);
                if v.history > 0 {
                    print!(", {} against the history search", v.history - v.over_budget);
                    if v.over_budget > 0 {
                        print!(" ({} beyond its budget, not decided)", v.over_budget);
                    }
                }
                println!();
                checked += c;
                searched += v.history - v.over_budget;
            }
            Err(f) => return Err(anyhow!("{rules}: verification failed: {f}")),
        }
    }
    println!(
        "{rules}: verified {checked} boards of layers 0 to {} ({searched} against the history search) in {:.1} s",
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
    // Headers now, and whole only the layers this probe reads: a whole
    // database is 2.8 GB to check.
    let db = Database::open_unchecked(&args.db, skip)?;
    let probe = db.probe(&p).map_err(|e| match e {
        gore_solver::probe::ProbeError::Empty => anyhow!(
            "{}: no layer of {} here (build them with gore solve)",
            args.db.display(),
            gore_solver::format::rules_name(skip)
        ),
        e => e.into(),
    })?;
    let mut read = vec![probe.n];
    for a in p.legal_actions().iter() {
        let next = p.play(*a)?;
        if !next.is_ended() {
            read.push(next.seeds_on_board() as usize);
        }
    }
    read.sort_unstable();
    read.dedup();
    for n in read {
        db.check(n)?;
    }
    for line in probe.lines() {
        println!("{line}");
    }
    Ok(())
}

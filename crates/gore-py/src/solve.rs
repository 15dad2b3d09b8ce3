//! `gore.solve`: builds the solved database of Goré without trades from
//! Python, as `gore solve --db DIR` does, so that a pip user needs no
//! checkout of the repository. The solver is gore-solver's; this is its
//! threads, its progress callback and Ctrl-C.
//!
//! The solver runs on threads of its own while the calling thread, the
//! GIL released, waits for it and looks for Ctrl-C every
//! [`SIGNAL_EVERY`]: Python runs its signal handlers only in the main
//! thread, which would otherwise sit in the solver until the end.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

use gore_solver::disk::Building;
use gore_solver::index::MAX_SEEDS;
use gore_solver::par::Threads;
use gore_solver::retro::LayerStats;
use gore_solver::solve::{solve_all, Progress, Store};
use gore_solver::{Lookup, SolvedLayer, Values};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::{int_arg, Int, SolvedDbError};

/// How often, at most, the callback hears of a layer's advance (and
/// Ctrl-C is looked for): taking the GIL from a solver thread is cheap,
/// but a Python call per unit of work would not be.
const REPORT_EVERY: Duration = Duration::from_millis(250);

/// How often the calling thread looks for Ctrl-C while the solver runs.
const SIGNAL_EVERY: Duration = Duration::from_millis(100);

/// The progress reports: calls the Python callback (with the GIL, from
/// the solver's threads). The first exception, the callback's or the
/// KeyboardInterrupt of the calling thread ([`Reports::fail`]), is kept
/// and stops the build at its next saved layer ([`Stoppable`]).
struct Reports {
    callback: Option<Py<PyAny>>,
    last: Mutex<Instant>,
    stop: AtomicBool,
    error: Mutex<Option<PyErr>>,
}

impl Reports {
    /// Calls the callback with `(layer, done, total)` and checks signals.
    fn report(&self, n: usize, done: u64, total: u64) {
        if self.stop.load(Ordering::Relaxed) {
            return;
        }
        let Some(cb) = &self.callback else {
            return;
        };
        Python::with_gil(|py| {
            if let Err(e) = cb.call1(py, (n, done, total)) {
                self.fail(e);
            }
        });
    }

    /// Keeps the first error and stops the build.
    fn fail(&self, e: PyErr) {
        self.stop.store(true, Ordering::Relaxed);
        let mut slot = self.error.lock().unwrap_or_else(|e| e.into_inner());
        slot.get_or_insert(e);
    }
}

/// Layer totals, kept from `begin` for the `advance` and `end` reports.
struct Totals(Mutex<[u64; MAX_SEEDS + 1]>);

struct Reporter<'a> {
    reports: &'a Reports,
    totals: Totals,
}

impl Progress for Reporter<'_> {
    fn begin(&self, n: usize, total: u64) {
        self.totals.0.lock().unwrap_or_else(|e| e.into_inner())[n] = total;
        self.reports.report(n, 0, total);
    }

    fn advance(&self, n: usize, done: u64) {
        {
            let mut last = self.reports.last.lock().unwrap_or_else(|e| e.into_inner());
            if last.elapsed() < REPORT_EVERY {
                return;
            }
            *last = Instant::now();
        }
        let total = self.totals.0.lock().unwrap_or_else(|e| e.into_inner())[n];
        self.reports.report(n, done, total);
    }

    fn end(&self, n: usize, _: &LayerStats) {
        let total = self.totals.0.lock().unwrap_or_else(|e| e.into_inner())[n];
        self.reports.report(n, total, total);
    }
}

/// The database being built, refusing to save a layer once the build is
/// to stop: the solver stops at the first error of a save (what is saved
/// stays, and a later build resumes from it).
struct Stoppable<'a> {
    inner: Building,
    reports: &'a Reports,
}

impl Lookup for Stoppable<'_> {
    #[inline]
    fn values(&self, n: usize, rank: u64) -> Values {
        self.inner.values(n, rank)
    }
}

impl Store for Stoppable<'_> {
    fn has(&self, n: usize) -> bool {
        self.inner.has(n)
    }

    fn save(&self, layer: SolvedLayer, stats: &LayerStats) -> Result<(), String> {
        if self.reports.stop.load(Ordering::Relaxed) {
            return Err(format!("layer {}: interrupted, not saved", layer.n));
        }
        self.inner.save(layer, stats)
    }
}

/// Builds the solved database of Goré without trades in `db_dir` (made if
/// missing), as `gore solve --db DIR` does: the layers of 0 to
/// `max_seeds` seeds on the board (48: the whole game; 5 solves in well
/// under a second, 48 takes hours and some 3 GB of files per rule set)
/// for `no-trades`, or `no-trades,skip-origin` with `skip_origin`. Layers
/// already present are kept: an interrupted build resumes. The GIL is
/// released while solving.
///
/// `progress(layer, done, total)` is called as layers start (`done` 0),
/// advance (at most four times a second) and end (`done == total`), from
/// the solver's threads. An exception it raises, or Ctrl-C, stops the
/// build once the layer being solved is done (it is not saved) and is
/// raised here. Returns one dict per layer solved: `layer`, `boards`,
/// `ended`, `exact`, `passes`.
#[pyfunction]
#[pyo3(
    signature = (db_dir, max_seeds = Int::In(48), skip_origin = false, threads = None, memory_mib = Int::In(3072), progress = None),
    text_signature = "(db_dir, max_seeds=48, skip_origin=False, threads=None, memory_mib=3072, progress=None)"
)]
pub(crate) fn solve<'py>(
    py: Python<'py>,
    db_dir: PathBuf,
    max_seeds: Int,
    skip_origin: bool,
    threads: Option<Int>,
    memory_mib: Int,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let max_seeds: usize = int_arg(&max_seeds, "max_seeds", 0, MAX_SEEDS as i128)?;
    let threads: usize = match threads {
        Some(t) => int_arg(&t, "threads", 1, 1024)?,
        None => thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let memory_mib: u64 = int_arg(&memory_mib, "memory_mib", 1, (u64::MAX >> 20).into())?;
    if let Some(cb) = &progress {
        if !cb.is_callable() {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "progress: expected a callable (layer, done, total) or None",
            ));
        }
    }
    std::fs::create_dir_all(&db_dir)
        .map_err(|e| SolvedDbError::new_err(format!("db_dir {}: {e}", db_dir.display())))?;
    let reports = Reports {
        callback: progress.map(Bound::unbind),
        last: Mutex::new(Instant::now()),
        stop: AtomicBool::new(false),
        error: Mutex::new(None),
    };
    let result = py.allow_threads(|| {
        let reports = &reports;
        let db_dir = &db_dir;
        thread::scope(|s| {
            let (done, finished) = mpsc::channel();
            s.spawn(move || {
                let run = || {
                    let inner = Building::open(db_dir, skip_origin)
                        .map_err(|e| format!("db_dir {}: {e}", db_dir.display()))?;
                    let store = Stoppable { inner, reports };
                    let reporter = Reporter {
                        reports,
                        totals: Totals(Mutex::new([0; MAX_SEEDS + 1])),
                    };
                    solve_all(
                        max_seeds,
                        skip_origin,
                        &store,
                        &Threads(threads),
                        &reporter,
                        memory_mib << 20,
                    )
                };
                // The receiver waits until this is sent: it cannot fail.
                let _ = done.send(run());
            });
            loop {
                match finished.recv_timeout(SIGNAL_EVERY) {
                    Ok(r) => return r,
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        if let Err(e) = Python::with_gil(|py| py.check_signals()) {
                            reports.fail(e);
                        }
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) => {
                        return Err("the solver's thread ended without a result".to_string())
                    }
                }
            }
        })
    });
    if let Some(e) = reports
        .error
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
    {
        return Err(e);
    }
    let stats = result.map_err(SolvedDbError::new_err)?;
    stats
        .iter()
        .map(|s| {
            let d = PyDict::new(py);
            d.set_item("layer", s.n)?;
            d.set_item("boards", s.boards)?;
            d.set_item("ended", s.ended)?;
            d.set_item("exact", s.exact)?;
            d.set_item("passes", s.passes)?;
            Ok(d)
        })
        .collect()
}

/// `SolvedDb.probe_many` (its docs): the positions rebuilt from their
/// canonical observations ([`crate::vector::canonical`] undone) and probed
/// in one pass without the GIL.
pub(crate) fn probe_many<'py>(
    py: Python<'py>,
    dbs: &[gore_solver::disk::Database; 2],
    observations: &Bound<'py, PyAny>,
    players: &Bound<'py, PyAny>,
    rules: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    use gore_core::{HoleSet, Player, Position, Rules, Setup};
    use gore_solver::probe::ProbeError;
    use numpy::{
        PyArray1, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods,
    };

    let np = crate::numpy_module(py, "SolvedDb.probe_many")?;
    let rules = match rules {
        Some(r) => crate::rules_arg(r)?,
        None => "no-trades"
            .parse::<Rules>()
            .map_err(|e| SolvedDbError::new_err(format!("rules: {e}")))?,
    };
    let variant = rules.variant;
    if !variant.no_trades {
        return Err(SolvedDbError::new_err(format!(
            "rules: the database solves no-trades rule sets, not {rules}"
        )));
    }
    let obs = np.call_method1("ascontiguousarray", (observations, "float32"))?;
    let obs: PyReadonlyArray2<'py, f32> = obs.extract().map_err(|_| {
        SolvedDbError::new_err("observations: expected an n × 28 array of canonical observations")
    })?;
    let n = obs.shape()[0];
    if obs.shape()[1] != crate::vector::CANON_SIZE {
        return Err(SolvedDbError::new_err(format!(
            "observations: expected n × 28, not {:?}",
            obs.shape()
        )));
    }
    let who = np.call_method1("ascontiguousarray", (players, "int64"))?;
    let who: PyReadonlyArray1<'py, i64> = who
        .extract()
        .map_err(|_| SolvedDbError::new_err("players: expected n players to move (0 or 1)"))?;
    if who.len() != n {
        return Err(SolvedDbError::new_err(format!(
            "players: expected {n} players, got {}",
            who.len()
        )));
    }
    let (obs, who) = (obs.as_slice()?, who.as_slice()?);
    // The positions, checked with the GIL (an error names its row).
    let mut positions = Vec::with_capacity(n);
    for i in 0..n {
        let row = &obs[i * 28..(i + 1) * 28];
        let bad = |why: &str| SolvedDbError::new_err(format!("observations[{i}]: {why}"));
        let me = match who[i] {
            0 => Player::A,
            1 => Player::B,
            p => return Err(bad(&format!("player {p}: expected 0 (A) or 1 (B)"))),
        };
        let count = |x: f32| -> PyResult<u8> {
            if (0.0..=255.0).contains(&x) && x.fract() == 0.0 {
                Ok(x as u8)
            } else {
                Err(bad(&format!("{x} is not a number of seeds")))
            }
        };
        let turn = if me == Player::A { 0 } else { 4 };
        let mut setup = Setup::INITIAL;
        for j in 0..8 {
            let h = (j + turn) & 7;
            setup.seeds[h] = count(row[j])?;
            setup.controllers[h] = if row[8 + j] == 1.0 { me } else { me.opponent() };
            if row[16 + j] != 0.0 {
                return Err(bad("a pending offer: no offers in a no-trades game"));
            }
        }
        setup.captured[me.index()] = count(row[24])?;
        setup.captured[me.opponent().index()] = count(row[25])?;
        setup.to_move = me;
        setup.offer = HoleSet::EMPTY;
        let p = Position::from_setup(&setup, variant).map_err(|e| bad(&e.to_string()))?;
        positions.push(p);
    }
    let db = &dbs[variant.skip_origin as usize];
    let probed = py.allow_threads(|| {
        positions
            .iter()
            .map(|p| match db.probe(p) {
                Ok(pr) => Ok(Some(pr)),
                Err(ProbeError::TooManySeeds { .. } | ProbeError::GameOver) => Ok(None),
                Err(e) => Err(e.to_string()),
            })
            .collect::<Result<Vec<_>, String>>()
    });
    let probed = probed.map_err(|e| SolvedDbError::new_err(format!("probe_many: {e}")))?;
    let mut value = vec![f32::NAN; n];
    let mut actions = vec![f32::NAN; n * crate::NUM_ACTIONS];
    let mut exact = vec![false; n];
    let mut found = vec![false; n];
    for (i, pr) in probed.iter().enumerate() {
        let Some(pr) = pr else { continue };
        let me = pr.mover.index();
        let t = pr.totals(pr.values);
        value[i] = t.v[me] as f32 / 2.0;
        exact[i] = t.exact;
        found[i] = true;
        for &(a, v) in &pr.actions {
            actions[i * crate::NUM_ACTIONS + crate::action_number(a)] =
                pr.totals(v).v[me] as f32 / 2.0;
        }
    }
    let d = PyDict::new(py);
    d.set_item("value", PyArray1::from_vec(py, value))?;
    d.set_item(
        "action_values",
        PyArray1::from_vec(py, actions).reshape([n, crate::NUM_ACTIONS])?,
    )?;
    d.set_item("exact", PyArray1::from_vec(py, exact))?;
    d.set_item("found", PyArray1::from_vec(py, found))?;
    Ok(d)
}

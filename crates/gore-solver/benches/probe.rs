//! Probes from memory-mapped layer files: single lookups (`Lookup::values`
//! on a random board of a random layer) and whole probes (a position and
//! every legal action). Run with `cargo bench -p gore-solver --features
//! disk --bench probe`; by default on a database of layers 0 to 20 built
//! in a temporary directory, or on `GORE_SOLVER_DB` (a `gore solve
//! --db` directory, rules `no-trades`) when set.

// `criterion_group!` defines a public function that cannot carry a doc comment.
#![allow(missing_docs)]

use std::path::PathBuf;

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use gore_core::{Player, Variant};
use gore_solver::board::position_of;
use gore_solver::disk::{write_layer, Database};
use gore_solver::index::{layer_size, unrank};
use gore_solver::moves::is_ended;
use gore_solver::par::Sequential;
use gore_solver::probe::{probe, value};
use gore_solver::retro::solve_layer;
use gore_solver::Lookup;

/// A reproducible stream of numbers (SplitMix64).
struct Mix(u64);
impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

fn database() -> (Database, Option<tempfile::TempDir>) {
    if let Some(dir) = std::env::var_os("GORE_SOLVER_DB") {
        let db = Database::open(&PathBuf::from(dir), false).expect("GORE_SOLVER_DB opens");
        return (db, None);
    }
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let mut db = Database::open(tmp.path(), false).expect("an empty database");
    for n in 0..=20 {
        let (layer, _) = solve_layer(n, false, &db, &Sequential, &|_| {});
        write_layer(tmp.path(), &layer, false).expect("written");
        db.extend().expect("mapped");
    }
    (db, Some(tmp))
}

fn probes(c: &mut Criterion) {
    let (db, _keep) = database();
    let top = db.max_layer().expect("a layer at least");
    let mut mix = Mix(7);
    // Boards weighted like the database: most of them in the top layers;
    // a million of them, so that on the whole database they do not sit in
    // the caches (a probe is then a miss or two).
    let picks: Vec<(usize, u64)> = (0..1 << 20)
        .map(|_| {
            let n = top - (mix.next() % 4) as usize;
            (n, mix.next() % layer_size(n))
        })
        .collect();
    let mut g = c.benchmark_group("probe");
    g.throughput(Throughput::Elements(picks.len() as u64));
    g.bench_function("lookup", |b| {
        b.iter(|| {
            let mut acc = 0u32;
            for &(n, r) in &picks {
                acc += db.values(n, r).v as u32;
            }
            black_box(acc)
        })
    });
    let mut v = Variant::STANDARD;
    v.no_trades = true;
    let positions: Vec<_> = picks[..1 << 14]
        .iter()
        .filter_map(|&(n, r)| {
            let b = unrank(n, r);
            // Positions of the standard 48 seeds: the rest captured.
            let rest = (48 - n) as u8;
            (!is_ended(&b)).then(|| position_of(&b, Player::A, [rest / 2, rest - rest / 2], v))
        })
        .filter_map(Result::ok)
        .collect();
    g.throughput(Throughput::Elements(positions.len() as u64));
    g.bench_function("position", |b| {
        b.iter(|| {
            let mut acc = 0u32;
            for p in &positions {
                acc += value(&db, top, p).map_or(0, |x| x.v as u32);
            }
            black_box(acc)
        })
    });
    g.bench_function("position_and_actions", |b| {
        b.iter(|| {
            let mut acc = 0usize;
            for p in &positions {
                acc += probe(&db, top, p).map_or(0, |pr| pr.actions.len());
            }
            black_box(acc)
        })
    });
    g.finish();
}

criterion_group!(benches, probes);
criterion_main!(benches);

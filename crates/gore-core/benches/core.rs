//! Criterion benchmarks of the rules core: sowing (the fast path), listing
//! legal actions, and perft. Run with `cargo bench -p gore-core`.

// `criterion_group!` defines a public function that cannot carry a doc comment.
#![allow(missing_docs)]

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use gore_core::{Action, Position, Rules};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Positions from seeded random games, with trades, and for each a legal
/// action: the mix a search meets.
fn sample(rules: Rules, n: usize) -> Vec<(Position, Action)> {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut p = Position::new(rules.variant);
        loop {
            let legal = p.legal_actions();
            let Some(&a) = legal.choose(&mut rng) else {
                break;
            };
            out.push((p, a));
            p.play_unchecked(a);
        }
    }
    out.truncate(n);
    out
}

fn apply(c: &mut Criterion) {
    let mut g = c.benchmark_group("apply");
    let all = sample(Rules::STANDARD, 4096);
    let sows: Vec<_> = all
        .iter()
        .copied()
        .filter(|(_, a)| matches!(a, Action::Sow(_)))
        .collect();
    g.throughput(Throughput::Elements(sows.len() as u64));
    g.bench_function("sow_unchecked", |b| {
        b.iter(|| {
            let mut acc = 0u32;
            for &(p, a) in &sows {
                let mut q = p;
                q.play_unchecked(a);
                acc += q.captured(gore_core::Player::A) as u32;
            }
            black_box(acc)
        })
    });
    g.throughput(Throughput::Elements(all.len() as u64));
    g.bench_function("any_action_unchecked", |b| {
        b.iter(|| {
            let mut acc = 0u32;
            for &(p, a) in &all {
                let mut q = p;
                q.play_unchecked(black_box(a));
                acc += q.seeds_on_board();
            }
            black_box(acc)
        })
    });
    g.bench_function("any_action_checked", |b| {
        b.iter(|| {
            let mut acc = 0u32;
            for &(p, a) in &all {
                if let Ok(q) = p.play(black_box(a)) {
                    acc += q.seeds_on_board();
                }
            }
            black_box(acc)
        })
    });
    g.finish();
}

fn legal(c: &mut Criterion) {
    let mut g = c.benchmark_group("legal");
    let all = sample(Rules::STANDARD, 4096);
    g.throughput(Throughput::Elements(all.len() as u64));
    g.bench_function("legal_actions", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for (p, _) in &all {
                n += black_box(p).legal_actions().len();
            }
            black_box(n)
        })
    });
    g.bench_function("count_legal", |b| {
        b.iter(|| {
            let mut n = 0u32;
            for (p, _) in &all {
                n += black_box(p).count_legal();
            }
            black_box(n)
        })
    });
    g.finish();
}

fn perft(c: &mut Criterion) {
    let mut g = c.benchmark_group("perft");
    g.sample_size(20);
    for (name, rules) in [
        ("standard", Rules::STANDARD),
        (
            "no-trades,skip-origin",
            "no-trades,skip-origin".parse().unwrap(),
        ),
    ] {
        let start = Position::new(rules.variant);
        let depth = 10;
        g.throughput(Throughput::Elements(start.perft(depth)));
        g.bench_with_input(BenchmarkId::new(name, depth), &start, |b, p| {
            b.iter(|| black_box(p).perft(depth))
        });
    }
    g.finish();
}

criterion_group!(benches, apply, legal, perft);
criterion_main!(benches);

//! Search speed: a fixed-depth search from the start and from midgame
//! positions. Throughput is reported in nodes per second.
//! Run with `cargo bench -p gore-ai`.

// `criterion_group!` defines a public function that cannot carry a doc comment.
#![allow(missing_docs)]

use std::sync::atomic::AtomicBool;

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use gore_ai::{Engine, Limits, Options};
use gore_core::{Game, Position, Variant};

fn positions() -> Vec<(&'static str, &'static str, u32)> {
    vec![
        ("start", "6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 A -", 16),
        ("midgame", "1,8,2,9/9,9,1,9 AAAA/BBBB 0-0 B -", 14),
        ("trades", "0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B a2+a4", 10),
    ]
}

fn search(c: &mut Criterion) {
    let mut g = c.benchmark_group("search");
    g.sample_size(10);
    for (name, gpn, depth) in positions() {
        let game = Game::from_position(Position::from_gpn(gpn, Variant::STANDARD).unwrap(), None);
        let stop = AtomicBool::new(false);
        // Count the nodes of one search to report nodes per second.
        let mut engine = Engine::new(Options::default());
        let nodes = engine
            .search(&game, &Limits::depth(depth), &stop, &mut |_| {})
            .unwrap()
            .nodes;
        g.throughput(Throughput::Elements(nodes));
        g.bench_with_input(BenchmarkId::new(name, depth), &game, |b, game| {
            b.iter(|| {
                engine.new_game();
                black_box(engine.search(game, &Limits::depth(depth), &stop, &mut |_| {}))
            })
        });
    }
    g.finish();
}

criterion_group!(benches, search);
criterion_main!(benches);

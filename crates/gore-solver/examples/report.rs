//! The figures of docs/SOLVED.md from a built database: per layer the
//! boards, the exact share, the largest UB − LB, and how the values are
//! spread (the mover's V less an even split, in seeds).
//!
//! `cargo run --release -p gore-solver --features disk --example report -- DIR [skip]`

use gore_solver::disk::Database;
use gore_solver::index::{layer_size, next_board, unrank};
use gore_solver::moves::is_ended;
use gore_solver::Lookup;
use std::path::PathBuf;

fn main() {
    let dir: PathBuf = std::env::args()
        .nth(1)
        .expect("a database directory")
        .into();
    let skip = std::env::args().any(|a| a == "skip");
    let db = Database::open(&dir, skip).expect("a readable database");
    // The mover's advantage V − n (half seeds) over every board in play:
    // index 0 is −48 seeds … 192 is +48.
    let mut spread = vec![0u64; 193];
    let mut inexact_total = 0u64;
    let mut boards_total = 0u64;
    println!("| layer | boards | in play | exact | largest UB − LB | V = even split | mover ahead | mover behind |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|");
    for n in 0..db.layers() {
        let size = layer_size(n);
        let (mut play, mut exact, mut widest, mut even, mut ahead, mut behind) =
            (0u64, 0u64, 0u8, 0u64, 0u64, 0u64);
        let mut b = unrank(n, 0);
        for r in 0..size {
            let x = db.values(n, r);
            if x.exact() {
                exact += 1;
            }
            widest = widest.max(x.ub - x.lb);
            if !is_ended(&b) {
                play += 1;
                let adv = x.v as i32 - n as i32;
                spread[(adv + 96) as usize] += 1;
                match adv.cmp(&0) {
                    std::cmp::Ordering::Equal => even += 1,
                    std::cmp::Ordering::Greater => ahead += 1,
                    std::cmp::Ordering::Less => behind += 1,
                }
            }
            next_board(&mut b);
        }
        inexact_total += size - exact;
        boards_total += size;
        let pct = |k: u64| 100.0 * k as f64 / play.max(1) as f64;
        println!(
            "| {n} | {size} | {play} | {:.4}% | {:.1} | {:.1}% | {:.1}% | {:.1}% |",
            100.0 * exact as f64 / size as f64,
            widest as f64 / 2.0,
            pct(even),
            pct(ahead),
            pct(behind)
        );
    }
    println!();
    println!(
        "{boards_total} boards, {inexact_total} not exact ({:.4}%)",
        100.0 * inexact_total as f64 / boards_total.max(1) as f64
    );
    println!();
    println!("The mover's V less an even split, in seeds, over every board in play:");
    println!();
    println!("| advantage | boards |");
    println!("|---:|---:|");
    for (i, &c) in spread.iter().enumerate() {
        if c > 0 {
            println!("| {:+.1} | {c} |", (i as f64 - 96.0) / 2.0);
        }
    }
}

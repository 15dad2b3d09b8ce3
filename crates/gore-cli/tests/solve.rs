//! `gore solve` and `gore probe` on a small database (layers up to 10):
//! resuming, verifying, the probe's exact text (expected lines worked out
//! by hand from RULES.md) and the refusal of damaged or mismatched files.

use std::path::Path;
use std::process::{Command, Output};

fn gore(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gore"))
        .args(args)
        .output()
        .expect("run gore")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn solve(dir: &Path, extra: &[&str]) -> Output {
    let d = dir.to_str().unwrap();
    let mut args = vec!["solve", "--db", d, "--max-seeds", "10", "--threads", "2"];
    args.extend_from_slice(extra);
    gore(&args)
}

fn probe(dir: &Path, gpn: &str) -> Output {
    gore(&["probe", "--db", dir.to_str().unwrap(), gpn])
}

/// A one-line error on stderr, nothing on stdout, a failing exit code.
fn refused(o: &Output) -> String {
    assert!(!o.status.success(), "{}", stdout(o));
    assert!(o.stdout.is_empty(), "{}", stdout(o));
    let e = stderr(o);
    assert_eq!(e.trim_end().lines().count(), 1, "{e}");
    e
}

fn layer(dir: &Path, rules: &str, n: usize) -> std::path::PathBuf {
    dir.join(rules).join(format!("layer-{n:02}.gsol"))
}

#[test]
fn solve_resume_verify_and_probe() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let o = solve(dir, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("solved layers 0 to 10"), "{out}");
    // The table: layer 10 has C(17, 7) = 19448 boards.
    assert!(
        out.lines()
            .any(|l| l.split_whitespace().take(2).eq(["10", "19448"])),
        "{out}"
    );
    let files: Vec<_> = (0..=10)
        .map(|n| std::fs::read(layer(dir, "no-trades", n)).unwrap())
        .collect();

    // Again: every layer is there, nothing is solved or rewritten.
    let o = solve(dir, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("nothing to solve"), "{}", stdout(&o));
    for (n, bytes) in files.iter().enumerate() {
        assert_eq!(&std::fs::read(layer(dir, "no-trades", n)).unwrap(), bytes);
    }

    let o = gore(&["solve", "--verify", "--db", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("verified"), "{out}");
    // Layer 3 is small: every board, and each against the history search.
    assert!(
        out.contains("layer  3: 120 boards checked, 120 against the history search"),
        "{out}"
    );

    // A: a3 = 1, a4 = 3; B: b1 = 1 (n = 5). a4 sows b1, b2, b3 (2, 1, 1):
    // every hole at most 2, the end, A keeps a3's seed: 1 of 5. a3 sows
    // a4 (4); B's only move b1 → b2; A's only move a4 sows b1..b4: the
    // end with A's row empty: 0 of 5. So A gets 1: 22 + 1 against 21 + 4.
    let o = probe(dir, "0,0,1,3/1,0,0,0 AAAA/BBBB 22-21 A -");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "position V 23-25 lo 23-25 hi 23-25 exact\n\
         a3 V 22-26 lo 22-26 hi 22-26 exact\n\
         a4 V 23-25 lo 23-25 hi 23-25 exact\n"
    );
    // A's row empty: A passes; B must sow b4's 3 onto a1, a2, a3, the
    // end with B's row empty: A gets all 3.
    let o = probe(dir, "0,0,0,0/0,0,0,3 AAAA/BBBB 20-25 A -");
    assert_eq!(
        stdout(&o),
        "position V 23-25 lo 23-25 hi 23-25 exact\npass V 23-25 lo 23-25 hi 23-25 exact\n"
    );
    // B to move: b4's seed makes a1 2, captured (b4, now empty, and a2
    // stop the chain); A must sow a4's 3 onto b1, b2, b3: the end, A's
    // row empty. B gets 2 + 3 = 5.
    let o = probe(dir, "1,0,0,3/0,0,0,1 AAAA/BBBB 23-20 B -");
    assert_eq!(
        stdout(&o),
        "position V 23-25 lo 23-25 hi 23-25 exact\nb4 V 23-25 lo 23-25 hi 23-25 exact\n"
    );

    // Outside the database: trades possible, too many seeds, game over.
    let e = refused(&gore(&[
        "probe",
        "--db",
        dir.to_str().unwrap(),
        "--rules",
        "standard",
        "0,0,1,3/1,0,0,0 AAAA/BBBB 22-21 A -",
    ]));
    assert!(e.contains("trades"), "{e}");
    let e = refused(&probe(dir, "6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 A -"));
    assert!(e.contains("48 seeds") && e.contains("up to 10"), "{e}");
    let e = refused(&probe(dir, "0,0,1,2/0,0,0,0 AAAA/BBBB 23-22 A -"));
    assert!(e.contains("game is over"), "{e}");
    // The other rule set has no layer here.
    let e = refused(&gore(&[
        "probe",
        "--db",
        dir.to_str().unwrap(),
        "--rules",
        "no-trades,skip-origin",
        "0,0,1,3/1,0,0,0 AAAA/BBBB 22-21 A -",
    ]));
    assert!(e.contains("no layer of no-trades,skip-origin"), "{e}");
}

/// An interrupted solve leaves the layers written whole and perhaps a
/// temporary file: the next run solves from the first layer missing and
/// gets the same files.
#[test]
fn an_interrupted_solve_resumes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    assert!(solve(dir, &[]).status.success());
    let eight = std::fs::read(layer(dir, "no-trades", 8)).unwrap();
    let ten = std::fs::read(layer(dir, "no-trades", 10)).unwrap();
    std::fs::remove_file(layer(dir, "no-trades", 9)).unwrap();
    std::fs::remove_file(layer(dir, "no-trades", 10)).unwrap();
    // What a run killed while writing layer 9 leaves behind.
    std::fs::write(
        dir.join("no-trades").join("layer-09.gsol.tmp"),
        &eight[..100],
    )
    .unwrap();
    let o = solve(dir, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("solved layers 9 to 10"), "{out}");
    // The table's rows: layers 9 and 10 only.
    let solved: Vec<&str> = out
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| w.parse::<usize>().is_ok())
        .collect();
    assert_eq!(solved, ["9", "10"], "{out}");
    assert_eq!(std::fs::read(layer(dir, "no-trades", 8)).unwrap(), eight);
    assert_eq!(std::fs::read(layer(dir, "no-trades", 10)).unwrap(), ten);
    assert!(!dir.join("no-trades").join("layer-09.gsol.tmp").exists());
}

#[test]
fn damaged_and_mismatched_files_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    assert!(solve(dir, &[]).status.success());
    let other = tempfile::tempdir().unwrap();
    assert!(solve(other.path(), &["--rules", "no-trades,skip-origin"])
        .status
        .success());
    let gpn = "0,0,1,3/1,0,0,0 AAAA/BBBB 22-21 A -";

    // One byte of layer 5's values changed.
    let path = layer(dir, "no-trades", 5);
    let good = std::fs::read(&path).unwrap();
    let mut bad = good.clone();
    bad[100] ^= 0x01;
    std::fs::write(&path, &bad).unwrap();
    for o in [
        probe(dir, gpn),
        solve(dir, &[]),
        gore(&["solve", "--verify", "--db", dir.to_str().unwrap()]),
    ] {
        let e = refused(&o);
        assert!(e.contains("layer-05.gsol") && e.contains("damaged"), "{e}");
    }
    // Truncated.
    std::fs::write(&path, &good[..good.len() - 3]).unwrap();
    let e = refused(&probe(dir, gpn));
    assert!(
        e.contains("layer-05.gsol") && e.contains("truncated"),
        "{e}"
    );
    // A skip-origin file in the no-trades directory.
    std::fs::copy(layer(other.path(), "no-trades,skip-origin", 5), &path).unwrap();
    let e = refused(&probe(dir, gpn));
    assert!(
        e.contains("layer-05.gsol") && e.contains("rules no-trades,skip-origin"),
        "{e}"
    );
    // Layer 6's file as layer 5's.
    std::fs::copy(layer(dir, "no-trades", 6), &path).unwrap();
    let e = refused(&probe(dir, gpn));
    assert!(e.contains("holds layer 6, expected layer 5"), "{e}");
    // Not a layer file at all.
    std::fs::write(
        &path,
        b"hello, this is not a database file at all, not at all. ok?",
    )
    .unwrap();
    let e = refused(&probe(dir, gpn));
    assert!(e.contains("wrong magic"), "{e}");

    // Rule sets the database is not for.
    let e = refused(&solve(dir, &["--rules", "standard"]));
    assert!(e.contains("no-trades"), "{e}");
    let e = refused(&solve(dir, &["--rules", "no-trades,seeds=4"]));
    assert!(e.contains("no-trades"), "{e}");
}

/// Writes half seeds as the probe does, by its own arithmetic.
fn seeds(h: u32) -> String {
    if h.is_multiple_of(2) {
        format!("{}", h / 2)
    } else {
        format!("{}.5", h / 2)
    }
}

/// A board of layer 13 whose bounds part (LB < UB), probed from the files
/// `gore solve` wrote (the retrograde analysis), against the reference
/// solver's values (the definitions by fixed-point iteration), turned into
/// totals here: A to move with 17-18 captured gets 17 + x / 2 of each
/// value x (half seeds of the 13), B the rest.
#[test]
fn a_bounded_position_probes_as_the_reference_says() {
    use gore_solver::index::{layer_size, unrank};
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let d = dir.to_str().unwrap();
    let o = gore(&["solve", "--db", d, "--max-seeds", "13"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let reference = gore_solver::naive::memory(13, false);
    let layer = &reference.layers[13];
    let r = (0..layer_size(13) as usize)
        .find(|&r| layer.values[r].lb < layer.values[r].ub)
        .expect("a board of layer 13 with LB < UB");
    let x = layer.values[r];
    let b = unrank(13, r as u64);
    let row = |h: &[u8]| {
        h.iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let gpn = format!("{}/{} AAAA/BBBB 17-18 A -", row(&b[..4]), row(&b[4..]));
    let pair = |mine: u8| {
        let mine = mine as u32;
        format!("{}-{}", seeds(34 + mine), seeds(36 + 26 - mine))
    };
    let want = format!(
        "position V {} lo {} hi {} bounded",
        pair(x.v),
        pair(x.lb),
        pair(x.ub)
    );
    let o = gore(&["probe", "--db", d, &gpn]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().next(), Some(want.as_str()), "{gpn}");
}

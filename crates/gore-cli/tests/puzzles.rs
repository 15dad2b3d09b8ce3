//! `gore puzzles generate` and `gore puzzles verify`: a small seeded
//! generation is repeatable, verifies, and parses with the library; a
//! tampered file fails verification; bad arguments name the option.

use std::process::{Command, Output};

use gore_learn::puzzles::parse_file;

fn gore(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gore"))
        .args(args)
        .output()
        .expect("run gore")
}

#[test]
fn generate_then_verify() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.txt");
    let b = dir.path().join("b.txt");
    for out in [&a, &b] {
        let o = gore(&[
            "puzzles",
            "generate",
            "--count",
            "4",
            "--seed",
            "7",
            "--depth",
            "4",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let text = std::fs::read_to_string(&a).unwrap();
    assert_eq!(
        text,
        std::fs::read_to_string(&b).unwrap(),
        "same seed, same puzzles"
    );
    let puzzles = parse_file(&text).unwrap();
    assert_eq!(puzzles.len(), 4);
    assert!(puzzles
        .iter()
        .all(|p| p.margin == 2 && p.to_string().contains(";depth=4;")));
    let o = gore(&["puzzles", "verify", a.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("4 puzzles verified"));

    // A margin no action can have: verification fails, naming the puzzle.
    let first = &puzzles[0];
    let tampered = text.replacen(
        &format!("{};{};", first.answer, first.margin),
        &format!("{};40;", first.answer),
        1,
    );
    assert_ne!(tampered, text);
    std::fs::write(&a, tampered).unwrap();
    let o = gore(&["puzzles", "verify", a.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains(&first.id));
}

#[test]
fn bad_arguments_name_the_option() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.txt");
    let out = out.to_str().unwrap();
    for (args, field) in [
        (vec!["--count", "0"], "--count"),
        (vec!["--depth", "1"], "--depth"),
        (vec!["--margin", "0"], "--margin"),
        (vec!["--rules", "nope"], "--rules"),
    ] {
        let mut all = vec!["puzzles", "generate", "--out", out];
        all.extend(args);
        let o = gore(&all);
        assert!(!o.status.success());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(field), "{field}: {err}");
    }
    std::fs::write(dir.path().join("bad.txt"), "x1;standard;nope\n").unwrap();
    let o = gore(&[
        "puzzles",
        "verify",
        dir.path().join("bad.txt").to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("line 1: fields"));
}

//! `gore match --tc BASE+INC`: matches on real clocks, with built-in and
//! external engines (the flag logic itself is tested with an injected
//! clock in the runner's unit tests).

use std::process::{Command, Output};

fn gore(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gore"))
        .args(args)
        .output()
        .expect("run gore")
}

fn line<'a>(out: &'a str, key: &str) -> &'a str {
    out.lines()
        .find(|l| l.split_whitespace().next() == Some(key))
        .unwrap_or_else(|| panic!("no `{key}` line in\n{out}"))
}

#[test]
fn a_match_on_the_clock_reports_flags() {
    // Generous clocks (the engines spend a thirtieth of theirs per
    // decision, at most half): nobody should flag, and the report says so.
    let engine = format!("cmd:{} engine", env!("CARGO_BIN_EXE_gore"));
    let o = gore(&[
        "match",
        "--engine1",
        "ai:8",
        "--engine2",
        &engine,
        "--games",
        "2",
        "--concurrency",
        "1",
        "--tc",
        "3+0.05",
        "--ply-cap",
        "40",
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{out}{err}");
    assert_eq!(
        line(&out, "tc"),
        "tc 3+0.05  flags engine1 0  engine2 0",
        "{err}"
    );
    assert!(line(&out, "ended").ends_with("forfeit 0  flag 0"), "{out}");
    assert!(
        err.contains("on the clock, not exactly repeatable: ai:8, cmd:"),
        "{err}"
    );
}

#[test]
fn a_bad_time_control_names_the_flag() {
    for (tc, why) in [
        ("0+1", "BASE must be more than 0 seconds"),
        ("ten", "BASE `ten` is not a number of seconds"),
        ("1+x", "INC `x` is not a number of seconds"),
    ] {
        let o = gore(&[
            "match",
            "--engine1",
            "random",
            "--engine2",
            "random",
            "--tc",
            tc,
        ]);
        assert!(!o.status.success());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("--tc") && err.contains(why), "{tc}: {err}");
    }
}

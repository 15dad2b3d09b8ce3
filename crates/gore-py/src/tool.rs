//! `gore._gore._tool`: the subcommands of the repository's `gore` CLI that
//! the package's tests compare the bindings with (`legal`, `apply`,
//! `perft`), written as the CLI writes them (crates/gore-cli's
//! `commands.rs`): gore-core's parsers and printers on its own types, none
//! of the bindings' classes or action numbers. The tests then need no
//! build of the CLI, whose crate also builds the web server (issue 40,
//! part 6); with `GORE_BIN` set they use the CLI itself.

use gore_core::{Action, Game, Position, Rules};
use pyo3::prelude::*;

use crate::GoreError;

/// The arguments of one subcommand: `--rules R`, `--from GPN`,
/// `--divide`, and the rest in order.
struct Args {
    rules: Rules,
    from: Option<String>,
    divide: bool,
    rest: Vec<String>,
}

fn err(e: impl std::fmt::Display) -> PyErr {
    GoreError::new_err(e.to_string())
}

fn parse(args: &[String]) -> PyResult<Args> {
    let mut out = Args {
        rules: Rules::STANDARD,
        from: None,
        divide: false,
        rest: Vec::new(),
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| err(format!("{name}: a value is needed")))
        };
        match a.as_str() {
            "--rules" => {
                let r = value("--rules")?;
                out.rules = r.parse().map_err(|e| err(format!("--rules: {e}")))?;
            }
            "--from" => out.from = Some(value("--from")?),
            "--divide" => out.divide = true,
            _ => out.rest.push(a.clone()),
        }
    }
    Ok(out)
}

/// The start: `--from`'s position, or the rules' start.
fn start(a: &Args) -> PyResult<Position> {
    match &a.from {
        None => Ok(Position::new(a.rules.variant)),
        Some(g) => {
            Position::from_gpn(g.trim(), a.rules.variant).map_err(|e| err(format!("--from: {e}")))
        }
    }
}

/// Runs `gore legal|apply|perft ARGS…` and returns the lines it prints
/// (`perft` without its closing timing line).
#[pyfunction]
pub(crate) fn _tool(py: Python<'_>, args: Vec<String>) -> PyResult<Vec<String>> {
    let Some((cmd, rest)) = args.split_first() else {
        return Err(err("expected legal, apply or perft"));
    };
    let a = parse(rest)?;
    match cmd.as_str() {
        "legal" => {
            let pos = if a.rest.is_empty() {
                Position::new(a.rules.variant)
            } else {
                Position::from_gpn(a.rest.join(" ").trim(), a.rules.variant).map_err(err)?
            };
            Ok(pos.legal_actions().iter().map(|x| x.to_string()).collect())
        }
        "apply" => {
            let mut game = Game::from_position(start(&a)?, a.rules.ply_cap);
            let mut lines = Vec::new();
            for (i, token) in a.rest.iter().enumerate() {
                let n = i + 1;
                let action: Action = token
                    .parse()
                    .map_err(|e| err(format!("action {n} `{token}`: {e}")))?;
                let ended = game
                    .play(action)
                    .map_err(|e| err(format!("action {n} `{token}`: {e}")))?
                    .outcome;
                lines.push(game.position().to_string());
                if let Some(o) = ended {
                    lines.push(format!("result {}-{}", o.seeds[0], o.seeds[1]));
                }
            }
            Ok(lines)
        }
        "perft" => {
            let depth: u32 = match a.rest.as_slice() {
                [d] => d.parse().map_err(|e| err(format!("DEPTH: {e}")))?,
                _ => return Err(err("perft: expected one DEPTH")),
            };
            if depth == 0 {
                return Err(err("DEPTH: must be at least 1"));
            }
            let pos = start(&a)?;
            let divide = a.divide;
            Ok(py.allow_threads(move || {
                let mut lines = Vec::new();
                if divide {
                    for &x in pos.legal_actions().iter() {
                        let mut next = pos;
                        next.play_unchecked(x);
                        lines.push(format!("{x} {}", next.perft(depth - 1)));
                    }
                }
                for d in 1..=depth {
                    lines.push(format!("{d} {}", pos.perft(d)));
                }
                lines
            }))
        }
        other => Err(err(format!(
            "{other}: expected legal, apply or perft (solve: gore-solve)"
        ))),
    }
}

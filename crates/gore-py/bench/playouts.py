"""Random playouts per second, from Python: the gore package against
OpenSpiel's C++ Kalah (its game `mancala`) and `oware` driven the same way, and against a
pure-Python Goré (bench/reference.py).

Every "loop" engine runs the same Python loop: ask the legal actions (a list
of numbers), pick one with `random.Random`, apply it, until the game is
over. `gore-step` is the same random play through `Game.step`, one call per
action (it plays and returns the next legal actions). `gore-fast` is the
package's fast path, `gore.random_playouts`, which
plays whole games in Rust (one Python call for all of them): it is reported
apart, since it is not the same work for Python.

    python crates/gore-py/bench/playouts.py [--games 200] [--runs 5]

Prints one line per engine: median playouts/s, actions/s and microseconds
per action over the runs (each run plays every engine in turn), the
fastest and slowest run, and the mean game length.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gore  # noqa: E402
from reference import RefGame  # noqa: E402


def gore_loop(games: int, seed: int) -> int:
    rng = random.Random(seed)
    actions = 0
    for _ in range(games):
        g = gore.Game()
        while not g.is_over:
            legal = g.legal_indices()
            g.play_index(legal[rng.randrange(len(legal))])
            actions += 1
    return actions


def gore_step(games: int, seed: int) -> int:
    rng = random.Random(seed)
    actions = 0
    for _ in range(games):
        g = gore.Game()
        legal = g.legal_indices()
        while legal:
            legal = g.step(legal[rng.randrange(len(legal))])
            actions += 1
    return actions


def gore_fast(games: int, seed: int) -> int:
    return gore.random_playouts(games, seed)


def reference_loop(games: int, seed: int) -> int:
    rng = random.Random(seed)
    actions = 0
    for _ in range(games):
        g = RefGame()
        while g.result is None:
            legal = g.legal()
            g.play(legal[rng.randrange(len(legal))])
            actions += 1
    return actions


def openspiel_loop(name: str):
    import pyspiel

    game = pyspiel.load_game(name)

    def run(games: int, seed: int) -> int:
        rng = random.Random(seed)
        actions = 0
        for _ in range(games):
            s = game.new_initial_state()
            while not s.is_terminal():
                legal = s.legal_actions()
                s.apply_action(legal[rng.randrange(len(legal))])
                actions += 1
        return actions

    return run


def measure_all(engines: dict, games: dict, runs: int) -> dict:
    """Runs every engine once per round, `runs` rounds, so that a machine
    whose load changes slows them alike; returns the medians."""
    samples = {name: [] for name in engines}
    for name, run in engines.items():
        run(max(1, games[name] // 10), 12345)  # warm-up
    for r in range(runs):
        for name, run in engines.items():
            t0 = time.perf_counter()
            n = run(games[name], 1000 + r)
            dt = time.perf_counter() - t0
            samples[name].append((games[name] / dt, n / dt, dt / n * 1e6, n / games[name]))
    out = {}
    for name, rows in samples.items():
        out[name] = {
            "playouts_s": statistics.median(x[0] for x in rows),
            "actions_s": statistics.median(x[1] for x in rows),
            "us_action": statistics.median(x[2] for x in rows),
            "us_min": min(x[2] for x in rows),
            "us_max": max(x[2] for x in rows),
            "length": statistics.mean(x[3] for x in rows),
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200, help="playouts per run")
    ap.add_argument("--runs", type=int, default=5, help="runs (the median is shown)")
    ap.add_argument(
        "--only", default="", help="comma-separated engines (default: all)"
    )
    args = ap.parse_args()
    engines = {
        "gore-loop": gore_loop,
        "gore-step": gore_step,
        "gore-fast": gore_fast,
        "kalah": None,
        "oware": None,
        "python-reference": reference_loop,
    }
    try:
        # OpenSpiel calls its Kalah `mancala`.
        engines["kalah"] = openspiel_loop("mancala")
        engines["oware"] = openspiel_loop("oware")
    except ImportError:
        print("open_spiel not installed: kalah and oware left out", file=sys.stderr)
        del engines["kalah"], engines["oware"]
    only = [e for e in args.only.split(",") if e]
    print(
        f"# {platform.python_implementation()} {platform.python_version()}, "
        f"{platform.machine()}, {os.cpu_count()} CPUs, gore {gore.__version__}, "
        f"{args.games} playouts x {args.runs} runs (medians)"
    )
    print(
        f"{'engine':<18} {'playouts/s':>11} {'actions/s':>11} {'us/action':>10} "
        f"{'(min-max)':>13} {'actions/game':>13}"
    )
    chosen = {n: r for n, r in engines.items() if r is not None and (not only or n in only)}
    games = {}
    for name in chosen:
        games[name] = args.games
        if name == "gore-fast":
            games[name] = args.games * 20
        elif name == "python-reference":
            games[name] = max(1, args.games // 4)
    results = measure_all(chosen, games, args.runs)
    for name, m in results.items():
        print(
            f"{name:<18} {m['playouts_s']:>11.1f} {m['actions_s']:>11.0f} "
            f"{m['us_action']:>10.2f} {m['us_min']:>6.2f}-{m['us_max']:<6.2f} {m['length']:>13.1f}"
        )


if __name__ == "__main__":
    main()

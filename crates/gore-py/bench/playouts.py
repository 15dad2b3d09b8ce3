"""Random playouts per second, from Python: the gore package against
OpenSpiel's C++ Kalah (its game `mancala`) and `oware` driven the same way, and against a
pure-Python Goré (bench/reference.py).

Every "loop" engine runs the same Python loop: ask the legal actions (a list
of numbers), pick one with `random.Random`, apply it, until the game is
over. `gore-fast` is the package's fast path, `gore.random_playouts`, which
plays whole games in Rust (one Python call for all of them): it is reported
apart, since it is not the same work for Python.

    python crates/gore-py/bench/playouts.py [--games 200] [--runs 5]

Prints one line per engine: median playouts/s, actions/s and microseconds
per action over the runs, and the mean game length.
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


def measure(run, games: int, runs: int) -> dict:
    rates, per_action, lengths = [], [], []
    run(max(1, games // 10), 12345)  # warm-up
    for r in range(runs):
        t0 = time.perf_counter()
        n = run(games, 1000 + r)
        dt = time.perf_counter() - t0
        rates.append(games / dt)
        per_action.append(dt / n * 1e6)
        lengths.append(n / games)
    return {
        "playouts_s": statistics.median(rates),
        "actions_s": statistics.median(games * l / (games / p) for l, p in zip(lengths, rates)),
        "us_action": statistics.median(per_action),
        "length": statistics.mean(lengths),
    }


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
    print(f"{'engine':<18} {'playouts/s':>11} {'actions/s':>11} {'us/action':>10} {'actions/game':>13}")
    for name, run in engines.items():
        if run is None or (only and name not in only):
            continue
        games = args.games * (20 if name == "gore-fast" else 1)
        if name == "python-reference":
            games = max(1, args.games // 4)
        m = measure(run, games, args.runs)
        print(
            f"{name:<18} {m['playouts_s']:>11.1f} {m['actions_s']:>11.0f} "
            f"{m['us_action']:>10.2f} {m['length']:>13.1f}"
        )


if __name__ == "__main__":
    main()

"""Game steps per second of the batch environment (gore.vector.GoreBatch)
against OpenSpiel's C++ Kalah driven from Python, in the same run.

- `gore-batch`: `b.step(b.random_actions())` on `GoreBatch(n)` (standard
  rules, auto_reset): n games advance one action per call; after each call
  the observation, legal-action mask, rewards and flags of all n games are
  in the batch's numpy arrays. One game step = one action in one game.
- `kalah`: OpenSpiel's C++ Kalah (`mancala`), `legal = s.legal_actions();
  s.apply_action(random choice)` until the end, a new game after each.
- `kalah+obs`: the same, also reading what the batch hands over per step:
  `np.asarray(s.observation_tensor())` and `s.legal_actions_mask()`.

Each round runs every engine for `--seconds` in turn (so that the load of a
shared machine slows them alike); the script prints, per engine, the median
over the rounds of steps per second by the wall clock and by the process's
CPU time (the fairer figure when other jobs share the cores), and the
fastest round.

    python crates/gore-py/bench/batch.py [--n 4096] [--rounds 7] [--seconds 2] [--threads 1,2]

With ``--threads 1,2`` the batch runs once per thread count
(``GoreBatch(n, threads=t)``, engines ``gore-batch t=1``, ``t=2``, in turn
in each round) and the script also prints the steps per second of
``step`` alone (``random_actions`` draws in one thread whatever ``threads``
is) and each thread count's speed-up over the first, by the wall clock
(the CPU time of two threads counts both). As a control, in the same
rounds, ``playouts t=1``, ``t=2``: ``gore.random_playouts`` in that many
Python threads at once (the GIL released, no memory traffic), whose
speed-up is what the machine gives a second thread at that moment (on
two idle cores about 2x; on cores shared with other jobs less).
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time

import numpy as np

import gore
from gore.vector import GoreBatch


#: Wall-clock seconds spent inside ``GoreBatch.step`` alone, per engine
#: and round (``random_actions`` is one thread's in every engine).
STEP_TIME: dict[str, list[float]] = {}


def gore_batch(n: int, threads: int = 1, name: str = "gore-batch"):
    b = GoreBatch(n, seed=1, threads=threads)
    STEP_TIME[name] = []

    def run(seconds: float) -> int:
        steps = 0
        in_step = 0.0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            acts = b.random_actions()
            s0 = time.perf_counter()
            b.step(acts)
            in_step += time.perf_counter() - s0
            steps += n
        STEP_TIME[name].append(steps / in_step)
        return steps

    return run


def playouts_in_threads(threads: int, games: int = 2000):
    """Whole random games by ``gore.random_playouts`` (the GIL released,
    a few KB of state: no memory traffic) in ``threads`` Python threads at
    once: what a second thread gets from the machine for work that is all
    CPU. Returns games per second, all threads together."""
    import threading

    def run(seconds: float) -> int:
        done = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            ts = [
                threading.Thread(target=gore.random_playouts, args=(games, 1 + k))
                for k in range(threads)
            ]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
            done += threads * games
        return done

    return run


def kalah(with_obs: bool):
    import pyspiel

    game = pyspiel.load_game("mancala")
    rng = random.Random(1)

    def run(seconds: float) -> int:
        steps = 0
        t0 = time.perf_counter()
        s = game.new_initial_state()
        while True:
            for _ in range(1000):
                if s.is_terminal():
                    s = game.new_initial_state()
                legal = s.legal_actions()
                s.apply_action(legal[rng.randrange(len(legal))])
                if with_obs:
                    # From the player to move, as the batch's (player 0's
                    # once the game is over: OpenSpiel has no mover then).
                    me = max(s.current_player(), 0)
                    np.asarray(s.observation_tensor(me), dtype=np.float32)
                    s.legal_actions_mask(me)
                steps += 1
            if time.perf_counter() - t0 >= seconds:
                return steps

    return run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=4096, help="games in the batch")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--seconds", type=float, default=2.0, help="per engine per round")
    ap.add_argument(
        "--threads", default=None, help="comma-separated thread counts: batches only"
    )
    args = ap.parse_args()
    if args.threads:
        counts = [int(t) for t in args.threads.split(",")]
        engines = {f"gore-batch t={t}": gore_batch(args.n, t, f"gore-batch t={t}") for t in counts}
        # The control: all-CPU work in as many threads, through the same rounds.
        for t in counts:
            engines[f"playouts t={t}"] = playouts_in_threads(t)
    else:
        engines = {"gore-batch": gore_batch(args.n)}
        try:
            engines["kalah"] = kalah(False)
            engines["kalah+obs"] = kalah(True)
        except ImportError:
            print("open_spiel not installed: kalah left out")
    for run in engines.values():
        run(0.2)  # warm-up
    for v in STEP_TIME.values():
        v.clear()
    load_before = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    wall = {k: [] for k in engines}
    cpu = {k: [] for k in engines}
    for _ in range(args.rounds):
        for name, run in engines.items():
            t0, c0 = time.perf_counter(), time.process_time()
            steps = run(args.seconds)
            dt, dc = time.perf_counter() - t0, time.process_time() - c0
            wall[name].append(steps / dt)
            cpu[name].append(steps / dc)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    if hasattr(os, "getloadavg"):
        print(f"# load average before: {load_before:.2f}, after: {load:.2f}")
    print(
        f"# {platform.python_implementation()} {platform.python_version()}, "
        f"{os.cpu_count()} CPUs, load {load:.1f}, gore {gore.__version__}, "
        f"n={args.n}, {args.rounds} rounds x {args.seconds} s (medians; best round)"
    )
    print(f"{'engine':<12} {'M steps/s (wall)':>18} {'M steps/s (CPU)':>18}")
    if args.threads:
        print("# (the playouts rows count thousands of whole games, not millions of steps)")
    for name in engines:
        w, c = wall[name], cpu[name]
        if name.startswith("playouts"):
            w, c = [x * 1000 for x in w], [x * 1000 for x in c]
        print(
            f"{name:<12} {statistics.median(w) / 1e6:>10.3f} ({max(w) / 1e6:.3f})"
            f" {statistics.median(c) / 1e6:>10.3f} ({max(c) / 1e6:.3f})"
        )
    if args.threads:
        print(f"{'engine':<12} {'M steps/s in step (wall)':>26}")
        for name, v in STEP_TIME.items():
            print(f"{name:<12} {statistics.median(v) / 1e6:>10.3f} ({max(v) / 1e6:.3f})")
        first = next(iter(STEP_TIME))
        for name in list(STEP_TIME)[1:]:
            print(
                f"{name} / {first}: {statistics.median(wall[name]) / statistics.median(wall[first]):.2f}x"
                f" (loop, wall), {statistics.median(STEP_TIME[name]) / statistics.median(STEP_TIME[first]):.2f}x"
                " (step alone, wall)"
            )
        play = [k for k in engines if k.startswith("playouts")]
        for name in play[1:]:
            print(
                f"{name} / {play[0]}: {statistics.median(wall[name]) / statistics.median(wall[play[0]]):.2f}x"
                " (games by the wall clock: what the machine gives a second thread)"
            )
        # Round by round: the control and the batch measured within a few
        # seconds of each other, so that rounds in which the second core
        # was free can be told from the others.
        if len(play) == 2 and len(STEP_TIME) == 2:
            b1, b2 = list(STEP_TIME)
            pairs = [
                (wall[play[1]][r] / wall[play[0]][r], wall[b2][r] / wall[b1][r],
                 STEP_TIME[b2][r] / STEP_TIME[b1][r])
                for r in range(args.rounds)
            ]
            print("round  control t2/t1  batch loop t2/t1  step alone t2/t1")
            for r, (c, lp, st) in enumerate(pairs):
                print(f"{r:5d}  {c:13.2f}  {lp:16.2f}  {st:16.2f}")
            free = [p for p in pairs if p[0] >= 1.7]
            if free:
                print(
                    f"rounds with the control at 1.7x or more: {len(free)}; their batch loop"
                    f" t2/t1 median {statistics.median(p[1] for p in free):.2f}x, step alone"
                    f" {statistics.median(p[2] for p in free):.2f}x"
                )
    if "kalah" in engines:
        for ref in ("kalah", "kalah+obs"):
            print(
                f"gore-batch / {ref}: {statistics.median(wall['gore-batch']) / statistics.median(wall[ref]):.1f}x"
                f" (wall), {statistics.median(cpu['gore-batch']) / statistics.median(cpu[ref]):.1f}x (CPU)"
            )


if __name__ == "__main__":
    main()

"""Cost per action of Goré through pyspiel (`python_gore`), with the states'
cached legal actions and player and `legal_actions`/`apply_action` answered
in Python (gore.openspiel as shipped) and without them (every question
asked of the Game through C++, as before issue 30), against OpenSpiel's C++
Kalah driven the same way.

    python crates/gore-py/bench/openspiel_path.py [--games 100] [--runs 7]

Every engine runs the same Python loop: `legal = s.legal_actions()`, a
choice by `random.Random`, `s.apply_action(a)`, until `s.is_terminal()`.
Each run (round) plays every engine in turn, so that a loaded machine slows
them alike; prints the median microseconds per action over the runs, the
fastest and slowest run, and the mean game length.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time

import pyspiel

import gore
import gore.openspiel as gos


class UncachedState(gos.GoreState):
    """The state as it was before the cache: every answer asked of the Game,
    legal_actions through C++ (which asks is_terminal and current_player
    first)."""

    legal_actions = pyspiel.State.legal_actions
    apply_action = pyspiel.State.apply_action

    def current_player(self) -> int:
        if self.game_state.is_over:
            return pyspiel.PlayerId.TERMINAL
        return 0 if self.game_state.to_move == "A" else 1

    def _legal_actions(self, player: int) -> list[int]:
        return self.game_state.legal_indices()

    def _apply_action(self, action: int) -> None:
        self.game_state.play_index(int(action))

    def is_terminal(self) -> bool:
        return self.game_state.is_over


class UncachedGame(gos.GoreGame):
    def new_initial_state(self) -> UncachedState:
        return UncachedState(self)


_UNCACHED_TYPE = pyspiel.GameType(
    short_name="python_gore_uncached",
    long_name="Python Goré (no cache, benchmark)",
    dynamics=gos.GAME_TYPE.dynamics,
    chance_mode=gos.GAME_TYPE.chance_mode,
    information=gos.GAME_TYPE.information,
    utility=gos.GAME_TYPE.utility,
    reward_model=gos.GAME_TYPE.reward_model,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=gos.GAME_TYPE.parameter_specification,
)
pyspiel.register_game(_UNCACHED_TYPE, UncachedGame)


def loop(name: str):
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100, help="Goré games per run")
    ap.add_argument("--runs", type=int, default=7, help="runs (the median is shown)")
    args = ap.parse_args()
    engines = {
        "python_gore": loop("python_gore"),
        "python_gore (no cache)": loop("python_gore_uncached"),
        "kalah (C++)": loop("mancala"),
    }
    # A Kalah game is ten times shorter: as many actions, about.
    games = {n: args.games * (10 if n.startswith("kalah") else 1) for n in engines}
    samples: dict[str, list[tuple[float, float]]] = {n: [] for n in engines}
    for n, run in engines.items():
        run(max(1, games[n] // 10), 1)  # warm-up
    for r in range(args.runs):
        for n, run in engines.items():
            t0 = time.perf_counter()
            k = run(games[n], 100 + r)
            dt = time.perf_counter() - t0
            samples[n].append((dt / k * 1e6, k / games[n]))
    print(
        f"# {platform.python_implementation()} {platform.python_version()}, "
        f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}, gore {gore.__version__}, "
        f"{args.games} games x {args.runs} runs (medians)"
    )
    print(f"{'engine':<24} {'us/action':>10} {'(min-max)':>15} {'actions/game':>13}")
    for n, rows in samples.items():
        us = [x[0] for x in rows]
        print(
            f"{n:<24} {statistics.median(us):>10.2f} {min(us):>7.2f}-{max(us):<7.2f} "
            f"{statistics.mean(x[1] for x in rows):>13.1f}"
        )


if __name__ == "__main__":
    main()

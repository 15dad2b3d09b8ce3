"""OpenSpiel's MCTS bot against a uniformly random player at Goré.

    python crates/gore-py/examples/mcts_vs_random.py [--games 4] [--simulations 100]

MCTS plays A in even games and B in odd ones; prints each result and the
tally. Needs open_spiel (``pip install open_spiel``).
"""

from __future__ import annotations

import argparse

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts
from open_spiel.python.bots import uniform_random

import gore.openspiel  # noqa: F401  (registers python_gore)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=4)
    ap.add_argument("--simulations", type=int, default=100)
    ap.add_argument("--ply-cap", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    game = pyspiel.load_game("python_gore", {"ply_cap": args.ply_cap})
    rng = np.random.RandomState(args.seed)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=2, random_state=rng)
    tally = {"mcts": 0, "random": 0, "draw": 0}
    for i in range(args.games):
        mcts_player = i % 2
        bots = [None, None]
        bots[mcts_player] = mcts.MCTSBot(game, 1.4, args.simulations, evaluator, random_state=rng)
        bots[1 - mcts_player] = uniform_random.UniformRandomBot(1 - mcts_player, rng)
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(bots[state.current_player()].step(state))
        outcome = state.game_state.outcome
        r = state.returns()[mcts_player]
        tally["mcts" if r > 0 else "random" if r < 0 else "draw"] += 1
        side = "AB"[mcts_player]
        print(f"game {i + 1}: MCTS as {side}: {outcome} ({outcome.reason}, {state.game_state.ply} actions)")
    print(f"MCTS {tally['mcts']}, random {tally['random']}, draws {tally['draw']}")


if __name__ == "__main__":
    main()

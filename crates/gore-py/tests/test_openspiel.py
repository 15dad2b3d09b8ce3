"""The OpenSpiel game passes OpenSpiel's own checks and plays with its MCTS
bot."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import pyspiel  # noqa: E402

import gore  # noqa: E402
import gore.openspiel  # noqa: E402,F401  (registers python_gore)


def test_random_sim_test():
    game = pyspiel.load_game("python_gore")
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)


def test_random_sim_test_variant():
    game = pyspiel.load_game("python_gore", {"no_trades": True, "seeds": 4, "ply_cap": 200})
    assert game.max_game_length() == 200
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)


def test_openspiel_python_game_checks():
    """OpenSpiel's own simulation test of its Python games
    (open_spiel/python/tests/games_sim_test.py): clone, serialize,
    pickle, returns in range, no action at the end."""
    from open_spiel.python.tests import games_sim_test

    case = games_sim_test.GamesSimTest("test_pig")
    game = pyspiel.load_game("python_gore")
    case.sim_game(game)


def test_serialize_by_gpn_and_pickle():
    game = pyspiel.load_game("python_gore")
    state = game.new_initial_state()
    for token in ["a1", "b1", "a2"]:
        state.apply_action(gore.Action(token).index)
    text = state.serialize()
    assert text.splitlines() == ["6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 A -", "a1", "b1", "a2"]
    again = game.deserialize_state(text)
    assert str(again) == str(state)
    assert again.history() == state.history()
    g2, s2 = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    assert str(s2) == str(state)
    s3 = pickle.loads(pickle.dumps(state))
    assert str(s3) == str(state)


def test_observation_tensor_and_returns():
    game = pyspiel.load_game("python_gore")
    state = game.new_initial_state()
    obs = np.array(state.observation_tensor(0))
    assert obs.shape == (28,)
    assert obs[:8].tolist() == [6] * 8
    assert obs[8:16].tolist() == [1, 1, 1, 1, 0, 0, 0, 0]
    assert obs[18] == 1 and obs[27] == 1
    obs1 = np.array(state.observation_tensor(1))
    assert obs1[18] == 0 and obs1[27] == 0
    assert state.legal_actions() == [0, 1, 2, 3]
    assert state.action_to_string(0, 102) == "pass"
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    r = state.returns()
    assert r[0] == -r[1]
    assert -1 <= r[0] <= 1


def test_mcts_against_random_plays_a_whole_game():
    from open_spiel.python.algorithms import mcts
    from open_spiel.python.bots import uniform_random

    game = pyspiel.load_game("python_gore", {"ply_cap": 120})
    rng = np.random.RandomState(3)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bots = [
        mcts.MCTSBot(game, 1.4, 20, evaluator, random_state=rng),
        uniform_random.UniformRandomBot(1, rng),
    ]
    state = game.new_initial_state()
    while not state.is_terminal():
        bot = bots[state.current_player()]
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
    assert state.returns()[0] == -state.returns()[1]

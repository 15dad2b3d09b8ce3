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
    # The canonical observation (docs/PYTHON.md), as GoreBatch's.
    assert obs.shape == (28,) and gore.openspiel.TENSOR_SIZE == 28
    assert game.observation_tensor_shape() == [28]
    assert obs[:8].tolist() == [6] * 8
    assert obs[8:16].tolist() == [1, 1, 1, 1, 0, 0, 0, 0]
    assert obs[16:24].tolist() == [0] * 8
    assert obs[24:].tolist() == [0, 0, 0, 1]  # nothing captured, no ply, the start seen once
    # B's view of the start, his holes first, is the same board.
    assert np.array(state.observation_tensor(1)).tolist() == obs.tolist()
    state.apply_action(2)  # a3: B sees b1..b4 first, A's a1..a4 last
    obs1 = np.array(state.observation_tensor(1))
    assert obs1.astype(np.float32).tobytes() == state.game_state.canonical_observation()
    assert obs1[:8].tolist() == [7, 7, 7, 7, 7, 6, 0, 7] and obs1[26] == 1
    obs0 = np.array(state.observation_tensor(0))
    assert obs0[:8].tolist() == [7, 6, 0, 7, 7, 7, 7, 7]
    assert obs0[8:16].tolist() == [1, 1, 1, 1, 0, 0, 0, 0]
    assert state.legal_actions() == [4, 5, 6, 7]  # B sows b1..b4
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


def test_tensor_counts_the_ply_and_the_repetitions():
    # The repetition of test_rules: A offers a1 (B holds 12), B declines,
    # B (no seed in his holes) passes: the start position again, its second
    # occurrence, after 3 plies; the third would end the game.
    game = pyspiel.load_game("python_gore")
    start = gore.Position("6,6,6,6/0,0,0,0 AAAA/BBBB 12-12 A -")
    state = gore.openspiel.GoreState(game, start=start)
    seen = []
    for token in ["offer:a1", "decline", "pass", "offer:a1", "decline"]:
        state.apply_action(gore.Action(token).index)
        t = np.array(state.observation_tensor(0))
        seen.append((int(t[26]), int(t[27])))
    assert seen == [(1, 1), (2, 1), (3, 2), (4, 2), (5, 2)]
    # Both players see the same ply and count.
    assert np.array(state.observation_tensor(1))[26:].tolist() == [5, 2]
    state.apply_action(gore.Action("pass").index)
    assert state.is_terminal()
    # Over, the count is 1, as GoreBatch's final observation has it.
    assert np.array(state.observation_tensor(0))[26:].tolist() == [6, 1]


def test_board_tensor_behind_an_option():
    # observation="board": the 30 values before issue 40 (Game.observation
    # in board order, whose turn, am I A, then the ply and the count).
    game = pyspiel.load_game("python_gore", {"observation": "board"})
    assert game.observation_tensor_shape() == [30] == [gore.openspiel.BOARD_TENSOR_SIZE]
    state = game.new_initial_state()
    obs = np.array(state.observation_tensor(0))
    assert obs[28] == 0 and obs[29] == 1
    assert obs[18] == 1 and obs[27] == 1
    obs1 = np.array(state.observation_tensor(1))
    assert obs1[18] == 0 and obs1[27] == 0
    start = gore.Position("6,6,6,6/0,0,0,0 AAAA/BBBB 12-12 A -")
    state = gore.openspiel.GoreState(game, start=start)
    for token in ["offer:a1", "decline", "pass", "offer:a1", "decline", "pass"]:
        state.apply_action(gore.Action(token).index)
    assert np.array(state.observation_tensor(0))[28:].tolist() == [6, 3]
    with pytest.raises(gore.ArgumentError, match="observation"):
        pyspiel.load_game("python_gore", {"observation": "pixels"})


def _snapshot(state):
    return (
        str(state),
        state.current_player(),
        state.is_terminal(),
        state.legal_actions(),
        state.history(),
        state.move_number(),
        state.returns(),
        state.observation_tensor(0),
        state.observation_tensor(1),
        state.serialize(),
    )


@pytest.mark.parametrize("seed", range(3))
def test_undo_action_restores_each_earlier_state(seed):
    """Random play with a clone kept at every ply; undoing the actions one
    by one gives back each clone (the naive model: the state before the
    action), the end of the game included."""
    game = pyspiel.load_game("python_gore", {"ply_cap": 400})
    rng = np.random.RandomState(seed)
    state = game.new_initial_state()
    before = []
    while not state.is_terminal():
        before.append((_snapshot(state), state.current_player()))
        action = int(rng.choice(state.legal_actions()))
        before[-1] += (action,)
        state.apply_action(action)
    assert state.returns()[0] == -state.returns()[1]
    for snap, player, action in reversed(before):
        state.undo_action(player, action)
        assert _snapshot(state) == snap
    assert state.is_initial_state() and state.history() == []


def test_undo_action_refuses_another_action_and_keeps_the_game():
    game = pyspiel.load_game("python_gore")
    state = game.new_initial_state()
    state.apply_action(gore.Action("a3").index)
    state.apply_action(gore.Action("b2").index)
    snap = _snapshot(state)
    with pytest.raises(gore.GoreError, match="last action is 5 by player 1"):
        state.undo_action(1, 4)
    with pytest.raises(gore.GoreError, match="last action is 5 by player 1"):
        state.undo_action(0, 5)
    assert _snapshot(state) == snap
    state.undo_action(1, 5)
    assert state.history() == [2] and state.current_player() == 1
    assert state.legal_actions() == [4, 5, 6, 7]
    # Undone, the state plays on as a fresh one would.
    fresh = game.new_initial_state()
    fresh.apply_action(2)
    for a in (6, 1):
        state.apply_action(a)
        fresh.apply_action(a)
    assert _snapshot(state) == _snapshot(fresh)


def test_cached_answers_agree_with_the_game_and_cpp():
    """The kept legal actions and player are the Game's at every ply, and
    C++ (legal_actions_mask, apply_action_with_legality_check, clone) sees
    the same."""
    game = pyspiel.load_game("python_gore", {"ply_cap": 300})
    rng = np.random.RandomState(5)
    state = game.new_initial_state()
    while not state.is_terminal():
        g = state.game_state
        assert state.legal_actions() == g.legal_indices()
        assert state.legal_actions(state.current_player()) == g.legal_indices()
        assert state.legal_actions(1 - state.current_player()) == []
        assert state.current_player() == (0 if g.to_move == "A" else 1)
        mask = state.legal_actions_mask()
        assert [i for i, m in enumerate(mask) if m] == g.legal_indices()
        c = state.clone()
        assert c.legal_actions() == state.legal_actions()
        state.apply_action_with_legality_check(int(rng.choice(state.legal_actions())))
    assert state.current_player() == pyspiel.PlayerId.TERMINAL
    assert state.legal_actions() == []


def test_apply_action_from_python_and_through_cpp_agree():
    """`state.apply_action` answered in Python and OpenSpiel's C++
    ApplyAction (which calls `_apply_action`) reach the same state, and an
    illegal action raises without changing it."""
    game = pyspiel.load_game("python_gore", {"ply_cap": 200})
    rng = np.random.RandomState(9)
    py_state = game.new_initial_state()
    cpp_state = game.new_initial_state()
    while not py_state.is_terminal():
        a = int(rng.choice(py_state.legal_actions()))
        py_state.apply_action(a)
        pyspiel.State.apply_action(cpp_state, a)
        assert _snapshot(py_state) == _snapshot(cpp_state)
    assert cpp_state.is_terminal()
    s = game.new_initial_state()
    with pytest.raises(gore.IllegalAction, match="not controlled by player A"):
        s.apply_action(gore.Action("b1").index)
    assert s.is_initial_state() and s.legal_actions() == [0, 1, 2, 3]

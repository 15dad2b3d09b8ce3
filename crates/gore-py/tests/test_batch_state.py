"""Issue 40, part 2: a GoreBatch that search and learners can drive. One
game read (`game`) and written (`set_game`), games copied (`copy_games`),
the batch pickled and deep-copied, the end of each game in the step's
info (Gymnasium's `final_obs` convention), `threads`, and the GIL
released while stepping. The expected values come from gore.Game (the
single-game API over gore-core's own bookkeeping) and from the
observation table worked by hand in test_vector.py."""

from __future__ import annotations

import copy
import pickle
import random
import sys
import threading

import numpy as np
import pytest

import gore
from gore.vector import END_REASONS, GoreBatch
from test_vector import ARRAYS, canonical_by_hand, mask_of


def same_game(a: gore.Game, b: gore.Game) -> bool:
    return (
        a.rules == b.rules
        and a.start == b.start
        and [x.index for x in a.actions] == [x.index for x in b.actions]
        and a.history == b.history
        and a.position == b.position
        and a.is_over == b.is_over
        and (a.outcome is None) == (b.outcome is None)
        and (a.outcome is None or (a.outcome.reason, a.outcome.seeds) == (b.outcome.reason, b.outcome.seeds))
    )


def check_row(b: GoreBatch, i: int, g: gore.Game) -> None:
    assert np.array_equal(b.observation[i], canonical_by_hand(g)), (i, g)
    assert np.array_equal(b.legal_action_mask[i], mask_of(g)), (i, g)
    assert b.ply[i] == g.ply
    assert b.position(i) == g.position


def test_end_reasons_are_named():
    assert END_REASONS == ("", "board", "no-hole", "repetition", "ply-cap", "max-steps")


def test_game_is_the_played_game():
    """game(i) is the gore.Game of the actions played in slot i since its
    start, over or not (auto_reset off)."""
    rules = "seeds=3"
    b = GoreBatch(4, rules=rules, seed=3, auto_reset=False)
    games = [gore.Game(rules) for _ in range(4)]
    for _ in range(3000):
        if all(g.is_over for g in games):
            break
        acts = b.random_actions()
        b.step(acts)
        for i, a in enumerate(acts):
            if not games[i].is_over:
                games[i].play_index(int(a))
        for i, g in enumerate(games):
            assert same_game(b.game(i), g), i
    assert all(g.is_over for g in games)
    with pytest.raises(gore.GoreError, match="i: expected a game 0 to 3, not 4"):
        b.game(4)
    with pytest.raises(gore.GoreError, match="i: "):
        b.game(-1)


def random_game_with_a_repeated_position(rules: str, seed: int) -> gore.Game:
    """A game that goes on, whose position has occurred twice."""
    rng = random.Random(seed)
    while True:
        g = gore.Game(rules)
        while not g.is_over and g.repetitions < 2:
            g.play_index(rng.choice(g.legal_indices()))
        if not g.is_over:
            return g


def test_set_game_carries_the_history():
    """A game set into a slot plays on as the game itself: its history
    counts for repetition (the next occurrence of a twice-seen position
    ends it), its actions for the ply cap."""
    rules = "standard"
    g = random_game_with_a_repeated_position(rules, seed=1)
    assert g.repetitions == 2
    b = GoreBatch(3, rules=rules, seed=5)
    b.step(b.random_actions())
    b.set_game(1, g)
    check_row(b, 1, g)
    assert b.observation[1][27] == 2
    assert not b.terminated[1] and not b.rewards[1].any()
    assert same_game(b.game(1), g)
    mirror = g.copy()
    for _ in range(5000):
        acts = b.random_actions()
        info = b.step(acts)
        out = mirror.play_index(int(acts[1]))
        if out is not None:
            assert b.terminated[1]
            assert END_REASONS[info["end_reason"][1]] == out.reason
            # The end is in the info; the slot started again from the rules.
            assert np.array_equal(info["final_obs"][1], canonical_by_hand(mirror))
            assert b.position(1) == gore.Position.start(rules) and b.ply[1] == 0
            break
        check_row(b, 1, mirror)
    else:
        pytest.fail("the set game did not end")


def test_set_game_from_a_chosen_start_and_errors():
    rules = "seeds=3,ply-cap=30"
    start = gore.Position.start(rules).play("a2").play("b3")
    g = gore.Game(rules, start=start)
    g.play("a1")
    b = GoreBatch(2, rules=rules, auto_reset=False)
    b.set_game(0, g)
    check_row(b, 0, g)
    assert same_game(b.game(0), g)
    assert b.game(0).start == start
    # The ply cap counts the game's own actions: 29 more end it at 30.
    mirror = g.copy()
    for _ in range(29):
        if mirror.is_over:
            break
        a = int(b.random_actions()[0])
        info = b.step([a, int(b.random_actions()[1])])
        out = mirror.play_index(a)
        assert bool(b.terminated[0]) == (out is not None)
    if mirror.ply == 30:
        assert END_REASONS[info["end_reason"][0]] in ("ply-cap", "board", "repetition")
        assert END_REASONS[info["end_reason"][0]] == mirror.outcome.reason
    with pytest.raises(gore.GoreError, match="rules"):
        b.set_game(1, gore.Game("standard"))
    with pytest.raises(gore.GoreError, match="i: "):
        b.set_game(2, gore.Game(rules))
    with pytest.raises(TypeError):
        b.set_game(0, "not a game")
    # A finished game is refused where games start again by themselves.
    over = gore.Game(rules)
    rng = random.Random(0)
    while not over.is_over:
        over.play_index(rng.choice(over.legal_indices()))
    with pytest.raises(gore.GoreError, match="over"):
        GoreBatch(1, rules=rules).set_game(0, over)
    b.set_game(1, over)
    assert b.terminated[1] and not b.legal_action_mask[1].any()
    assert same_game(b.game(1), over)


def test_copy_games_branches_a_game():
    """MCTS-style: one game copied into the other slots, which then play
    apart, each as its own gore.Game would."""
    rules = "standard"
    b = GoreBatch(5, rules=rules, seed=8)
    base = random_game_with_a_repeated_position(rules, seed=4)
    b.set_game(0, base)
    b.copy_games(0, 4)
    b.copy_games([0, 0, 0], np.array([1, 2, 3]))
    games = [base.copy() for _ in range(5)]
    for i in range(5):
        check_row(b, i, games[i])
        assert same_game(b.game(i), base)
    for _ in range(60):
        acts = b.random_actions()
        b.step(acts)
        for i, a in enumerate(acts):
            if games[i].play_index(int(a)) is not None:
                games[i] = gore.Game(rules)
            check_row(b, i, games[i])
    # The games went apart (5 random playouts of 60 actions).
    assert len({tuple(x.index for x in g.actions) for g in games}) > 1
    # A swap: the sources are read before any is written, their end
    # flags and rewards with them (game 0 over, game 1 going on).
    g0, g1 = b.game(0), b.game(1)
    b.copy_games([0, 1], [1, 0])
    assert same_game(b.game(0), g1) and same_game(b.game(1), g0)
    over = GoreBatch(2, rules="seeds=3", seed=1, auto_reset=False, reward="win")
    while not over.terminated[0]:
        over.step(over.random_actions())
        if over.terminated[1]:
            over.reset([False, True])
    r0, t, m1 = over.rewards[0].copy(), over.terminated.copy(), over.legal_action_mask[1].copy()
    # Seeded: game 0 ended with a winner (a draw would reward 0).
    assert t[0] and not t[1] and r0.any()
    over.copy_games([0, 1], [1, 0])
    assert list(over.terminated) == [False, True]
    assert np.array_equal(over.rewards[1], r0) and not over.rewards[0].any()
    assert np.array_equal(over.legal_action_mask[0], m1) and not over.legal_action_mask[1].any()
    assert over.game(1).is_over and not over.game(0).is_over
    with pytest.raises(gore.GoreError, match="one length"):
        b.copy_games([0, 1], [2])
    with pytest.raises(gore.GoreError, match="dst: "):
        b.copy_games(0, 5)
    with pytest.raises(TypeError, match="src"):
        b.copy_games("0", 1)


def run_both(a: GoreBatch, b: GoreBatch, steps: int) -> None:
    """Steps two batches with their own random actions: equal batches stay
    equal (the generator is part of the state)."""
    for _ in range(steps):
        x, y = a.random_actions(), b.random_actions()
        assert np.array_equal(x, y)
        ia, ib = a.step(x), b.step(y)
        for k in ia:
            assert np.array_equal(ia[k], ib[k]), k
        for name in ARRAYS:
            assert np.array_equal(getattr(a, name), getattr(b, name)), name


@pytest.mark.parametrize("how", ["pickle", "deepcopy", "copy"])
def test_pickle_and_copies_go_on_alike(how):
    b = GoreBatch(6, rules="seeds=3", seed=12, auto_reset=False, reward="win", max_steps=40, threads=2)
    for _ in range(45):
        b.step(b.random_actions())
    # Some games over by the rules, others truncated and kept over.
    assert b.terminated.any() and b.truncated.any()
    c = {"pickle": lambda: pickle.loads(pickle.dumps(b)), "deepcopy": lambda: copy.deepcopy(b), "copy": lambda: copy.copy(b)}[how]()
    assert c is not b and type(c) is GoreBatch
    assert (c.num_envs, c.rules, c.auto_reset, c.reward, c.max_steps, c.threads) == (6, b.rules, False, "win", 40, 2)
    for name in ARRAYS:
        assert np.array_equal(getattr(c, name), getattr(b, name)), name
    for i in range(6):
        assert same_game(c.game(i), b.game(i))
    # Independent: stepping the copy leaves the original alone.
    before = b.observation
    b.reset()
    c.reset()
    run_both(b, c, 300)
    assert before is not b.observation


def test_pickle_keeps_history_for_repetition():
    g = random_game_with_a_repeated_position("standard", seed=7)
    b = GoreBatch(2, seed=1)
    b.set_game(0, g)
    c = pickle.loads(pickle.dumps(b))
    run_both(b, c, 400)


def test_final_obs_on_auto_reset_and_truncation():
    """Every ending of every game is in the step's info: the observation
    the game ended on (the finished gore.Game's, by the table), how it
    ended; the other games' rows are zeros."""
    rules = "seeds=3,cede-all"
    n = 8
    b = GoreBatch(n, rules=rules, seed=21, max_steps=60)
    games = [gore.Game(rules) for _ in range(n)]
    seen = set()
    for _ in range(1500):
        acts = b.random_actions()
        info = b.step(acts)
        assert set(info) == {"final_obs", "_final_obs", "end_reason"}
        assert info["final_obs"].shape == (n, 28) and info["final_obs"].dtype == np.float32
        assert info["_final_obs"].dtype == np.bool_ and info["end_reason"].dtype == np.int8
        for i, a in enumerate(acts):
            g = games[i]
            out = g.play_index(int(a))
            if out is not None:
                reason = out.reason
            elif g.ply == 60:
                reason = "max-steps"  # the batch's truncation, not the game's end
            else:
                reason = ""
            assert END_REASONS[info["end_reason"][i]] == reason, (i, g)
            assert info["_final_obs"][i] == (reason != "")
            assert b.terminated[i] == (out is not None)
            assert b.truncated[i] == (reason == "max-steps")
            if reason:
                seen.add(reason)
                assert np.array_equal(info["final_obs"][i], canonical_by_hand(g)), (i, g)
                games[i] = gore.Game(rules)
                assert b.ply[i] == 0
            else:
                assert not info["final_obs"][i].any()
    # A truncated game's final observation is a live one: bootstrapping
    # reads the position, the ply (60) and the repetition count.
    assert {"max-steps", "board", "repetition"} <= seen, seen


def test_info_without_auto_reset_reports_each_end_once():
    b = GoreBatch(3, rules="seeds=3", seed=2, auto_reset=False)
    ends = np.zeros(3, dtype=int)
    for _ in range(600):
        info = b.step(b.random_actions())
        ends += info["_final_obs"]
        ended = info["_final_obs"]
        # Without a reset the observation stays the final one.
        assert np.array_equal(info["final_obs"][ended], b.observation[ended])
    assert list(ends) == [1, 1, 1]


def test_threads_step_as_one_thread():
    """Stepped in three threads (600 games: slices of 200, then the
    minimum of 256 makes it two), the batch is the one-thread batch."""
    a = GoreBatch(600, seed=4, max_steps=300)
    b = GoreBatch(600, seed=4, max_steps=300, threads=3)
    assert b.threads == 3
    run_both(a, b, 400)
    with pytest.raises(gore.GoreError, match="threads: "):
        GoreBatch(2, threads=0)
    with pytest.raises(gore.GoreError, match="threads: "):
        GoreBatch(2, threads=257)


@pytest.mark.parametrize("threads", [1, 2])
def test_step_releases_the_gil(threads):
    """With a switch interval far longer than the test, a thread holding
    the GIL keeps it until it lets it go itself. The main thread, waiting
    for the worker to start, can therefore run again before the worker
    finishes its steps only if a step releases the GIL."""
    b = GoreBatch(2048, seed=1, threads=threads)
    # A first step outside the measure: its first calls (numpy's API
    # looked up, modules imported) may let the GIL go once by themselves.
    b.step(b.random_actions())
    progress = []
    started, finished = threading.Event(), threading.Event()

    def work():
        started.set()
        for _ in range(40):
            b.step(b.random_actions())
            progress.append(1)
        finished.set()

    old = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)
    try:
        t = threading.Thread(target=work)
        t.start()
        started.wait()
        seen = len(progress)
        finished.wait()
        t.join()
    finally:
        sys.setswitchinterval(old)
    assert seen < 40, seen

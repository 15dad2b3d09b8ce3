"""examples/alphazero_lite.py: its two-ply search values the games' ends
by their results (worked out by hand from RULES.md), its self-play data is
what the batch played with the search's policy as targets, and a tiny
training and evaluation loop runs."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import gore

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

import alphazero_lite as az  # noqa: E402


def game_at(gpn: str) -> gore.Game:
    return gore.Game(az.RULES, start=gore.Position(gpn, az.RULES))


def test_search_values_a_win_by_its_result():
    # A sows a4's 3 seeds into b1, b2, b3 (2 each): the last lands in b3,
    # and the chain takes b3, b2, b1 (a4, now empty, stops it): A 9 + 6.
    # Every hole then holds at most 2: the game ends, A's a1 adds its 1
    # seed: 16-8, a result of 8/24 for A, whatever the network says.
    g = game_at("1,0,0,3/1,1,1,0 AAAA/BBBB 9-8 A -")
    net = az.Net(8, np.random.default_rng(0))
    legal, q = az.search(net, g)
    assert q[legal.index(3)] == pytest.approx(8 / 24)
    # No other action ends the game, so none is valued beyond the
    # network's range (tanh), and a4's win is the best action.
    assert legal[int(q.argmax())] == 3


@pytest.mark.parametrize("contempt", [0.0, 0.25])
def test_search_values_a_draw_by_the_contempt(contempt):
    # After A's a4 from the start (3 seeds each; A took b1-b3, 12-0), B's
    # b4 sows a1, a2, a3 to 4 each and takes them: 12-12 and an empty
    # board, a draw at once. Counted -contempt for B, the player to move.
    g = game_at("3,3,3,0/0,0,0,3 AAAA/BBBB 12-0 B -")
    net = az.Net(8, np.random.default_rng(1))
    legal, q = az.search(net, g, contempt)
    assert q[legal.index(7)] == pytest.approx(-contempt)
    # Seen from A before his a4: B may take that draw, which A's search
    # counts for B (+contempt): a4 is worth at most -contempt to A.
    start = gore.Game(az.RULES)
    legal, q = az.search(net, start, contempt)
    assert q[legal.index(3)] <= -contempt + 1e-12


def test_self_play_data():
    rng = np.random.default_rng(0)
    net = az.Net(16, rng)
    obs, mask, target, z = az.self_play(net, 8, rng, seed=3)
    assert len(obs) == len(mask) == len(target) == len(z) > 8
    # The targets are the search's policies: distributions over the legal
    # actions where each step was played.
    assert np.allclose(target.sum(axis=1), 1.0)
    assert np.all(target[~mask] == 0)
    # Without bootstrapping the value targets are final rewards from the
    # mover's side: in [-1, 1], multiples of 1/24 (a seed difference over
    # the 24 seeds of seeds=3).
    assert np.all(np.abs(z) <= 1)
    assert np.allclose(np.round(z * 24), z * 24, atol=1e-4)
    # The first step of every game is A's at the start: the start's
    # canonical observation (3 seeds everywhere, A's row his).
    first = obs[:8]
    assert np.all(first[:, :8] == 3) and np.all(first[:, 8:12] == 1) and np.all(first[:, 12:16] == 0)


def test_tiny_training_run(capsys):
    history = az.main(
        ["--iterations", "1", "--games", "4", "--eval-every", "1", "--eval-games", "2", "--levels", "1", "--hidden", "8"]
    )
    assert [it for it, _ in history] == [0, 1]
    assert all(0.0 <= r[1] <= 1.0 for _, r in history)
    out = capsys.readouterr().out
    assert "iteration   1  win rate  level 1:" in out
    assert gore.NUM_ACTIONS == az.N_ACT


def two_ply_by_games(net, g: gore.Game, contempt: float):
    """The search's definition over gore.Game copies, one position at a
    time: each action, each reply, a leaf valued by the value head from
    its mover's side, an end by its result (a draw: -contempt for the
    searching side)."""
    me = g.to_move

    def ended(out, side):
        if out.winner is None:
            return -contempt if side == me else contempt
        return az.result(out, side)

    q = []
    for a in g.legal_indices():
        c = g.copy()
        out = c.play_index(a)
        if out is not None:
            q.append(ended(out, me))
            continue
        them = c.to_move
        vals = []
        for r in c.legal_indices():
            d = c.copy()
            out = d.play_index(r)
            if out is not None:
                vals.append(ended(out, them))
            else:
                v = net.value(np.frombuffer(d.canonical_observation(), dtype=np.float32)[None, :])[0]
                vals.append(v if d.to_move == them else -v)
        q.append((1.0 if them == me else -1.0) * max(vals))
    return g.legal_indices(), np.array(q)


def test_batched_search_is_the_two_ply_minimax():
    """search_many (two steps of a scratch GoreBatch for all the games)
    gives what the minimax over gore.Game copies gives, game by game, on
    random positions of seeds=3 (offers, answers and ends included)."""
    import random

    rng = random.Random(4)
    net = az.Net(16, np.random.default_rng(2))
    games = []
    while len(games) < 120:
        g = gore.Game(az.RULES)
        for _ in range(rng.randint(0, 80)):
            if g.is_over:
                break
            g.play_index(rng.choice(g.legal_indices()))
        if not g.is_over:
            games.append(g)
    for g, (legal, q) in zip(games, az.search_many(net, games, 0.1)):
        want_legal, want_q = two_ply_by_games(net, g, 0.1)
        assert legal == want_legal
        np.testing.assert_allclose(q, want_q, rtol=1e-6, atol=1e-9)

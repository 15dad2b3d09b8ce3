"""A tiny run of examples/alphazero_lite.py: its self-play data is what
the batch played, and its training and evaluation loop runs."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import gore

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

import alphazero_lite as az  # noqa: E402


def test_self_play_data():
    rng = np.random.default_rng(0)
    net = az.Net(16, rng)
    obs, mask, act, z = az.self_play(net, 8, rng, seed=3)
    assert len(obs) == len(mask) == len(act) == len(z) > 8
    # Every recorded action was legal where it was played, and results
    # are final rewards from the mover's side: in [-1, 1], multiples of
    # 1/24 (a seed difference over the 24 seeds of seeds=3).
    assert mask[np.arange(len(act)), act].all()
    assert np.all(np.abs(z) <= 1)
    assert np.allclose(np.round(z * 24), z * 24, atol=1e-4)
    # The first step of every game is A's at the start: the start's
    # canonical observation (3 seeds everywhere, A's row his).
    first = obs[:8]
    assert np.all(first[:, :8] == 3) and np.all(first[:, 8:12] == 1) and np.all(first[:, 12:16] == 0)


def test_tiny_training_run(capsys):
    history = az.main(
        ["--iterations", "1", "--games", "16", "--eval-every", "1", "--eval-games", "2", "--levels", "1", "--hidden", "8"]
    )
    assert [it for it, _ in history] == [0, 1]
    assert all(0.0 <= r[1] <= 1.0 for _, r in history)
    out = capsys.readouterr().out
    assert "iteration   1  win rate  level 1:" in out
    assert gore.NUM_ACTIONS == az.N_ACT

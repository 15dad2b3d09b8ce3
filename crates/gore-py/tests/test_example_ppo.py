"""examples/ppo_gym.py: its hand-written gradients equal finite
differences of its loss, its masked policy never gives an illegal action
probability, and a tiny run trains and evaluates through gore.gym."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gymnasium")

import gore  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

import ppo_gym as ppo  # noqa: E402


def _batch(rng, n=6):
    obs = rng.random((n, gore.CANONICAL_SIZE))
    mask = rng.random((n, gore.NUM_ACTIONS)) < 0.1
    mask[:, 0] = True
    actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
    return obs, mask, actions


def test_gradients_equal_finite_differences():
    # The loss's gradient for every parameter, by central differences in
    # float64, against backward(): with ratios both inside and outside the
    # clip range (old log-probabilities shifted by up to ±0.5).
    rng = np.random.default_rng(3)
    actor = ppo.init_mlp(rng, [gore.CANONICAL_SIZE, 5, 4, gore.NUM_ACTIONS], 1.0)
    critic = ppo.init_mlp(rng, [gore.CANONICAL_SIZE, 5, 4, 1], 1.0)
    obs, mask, actions = _batch(rng)
    logits, _ = ppo.forward(actor, obs)
    old_logp = ppo.masked_log_softmax(logits, mask)[np.arange(len(actions)), actions]
    old_logp += rng.uniform(-0.5, 0.5, len(actions))
    adv = rng.normal(size=len(actions))
    returns = rng.normal(size=len(actions))
    args = (obs, mask, actions, old_logp, adv, returns, 0.2, 0.05, 0.5)

    def loss() -> float:
        return ppo.ppo_loss_and_grads(actor, critic, *args)[0].total

    _, g_actor, g_critic = ppo.ppo_loss_and_grads(actor, critic, *args)
    eps = 1e-6
    for params, grads in ((actor, g_actor), (critic, g_critic)):
        for p, g in zip(params, grads):
            flat, gflat = p.reshape(-1), g.reshape(-1)
            for j in rng.choice(flat.size, size=min(flat.size, 25), replace=False):
                keep = flat[j]
                flat[j] = keep + eps
                up = loss()
                flat[j] = keep - eps
                down = loss()
                flat[j] = keep
                assert gflat[j] == pytest.approx((up - down) / (2 * eps), rel=1e-4, abs=1e-7)


def test_masked_policy_gives_illegal_actions_no_probability():
    rng = np.random.default_rng(5)
    obs, mask, _ = _batch(rng)
    actor = ppo.init_mlp(rng, [gore.CANONICAL_SIZE, 8, gore.NUM_ACTIONS], 1.0)
    logp = ppo.masked_log_softmax(ppo.forward(actor, obs)[0], mask)
    p = np.exp(logp)
    assert np.all(p[~mask] == 0)
    assert np.allclose(p.sum(axis=1), 1.0)


def test_a_tiny_run_trains_and_evaluates():
    out = ppo.main(
        ["--total-steps", "1536", "--num-envs", "3", "--num-steps", "256",
         "--eval-every", "1", "--eval-games", "2"]
    )
    evals = out["evaluations"]
    assert [u for u, _, _ in evals] == [0, 1, 2]
    assert evals[-1][1] == 1536
    for _, _, res in evals:
        assert sorted(res) == [1, 2, 3]
        # One game as A, one as B, against each level.
        assert all(sum(by_side["A"]) == sum(by_side["B"]) == 1 for by_side in res.values())

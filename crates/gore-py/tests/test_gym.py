"""Issue 40, part 3: Gymnasium. The single-agent environment against the
AI passes Gymnasium's own checker, and its games are checked against
gore.Game and gore.search replayed by hand; the vector environment over
GoreBatch is checked against single games, with its spaces."""

from __future__ import annotations

import random
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode

import gore
import gore.gym
from gore.gym import GoreEnv, GoreVectorEnv
from gore.vector import END_REASONS
from test_vector import canonical_by_hand, mask_of


@pytest.mark.parametrize("kwargs", [{}, {"side": "B", "reward": "score", "rules": "seeds=3"}, {"side": "random", "max_steps": 5}])
def test_check_env_passes(kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning of the checker fails the test
        env = gymnasium.make("gore.gym:Gore-v0", level=1, **kwargs).unwrapped
        check_env(env, skip_render_check=False)


def test_registered_ids():
    env = gymnasium.make("gore.gym:Gore-v0", level=2)
    assert isinstance(env.unwrapped, GoreEnv) and env.unwrapped.level == 2
    obs, info = env.reset(seed=1)
    assert env.observation_space.contains(obs)
    venv = gymnasium.make_vec("gore.gym:GoreSelfPlay-v0", num_envs=3)
    assert isinstance(venv, GoreVectorEnv) and venv.num_envs == 3
    assert venv.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP


def mirror_episode(env: GoreEnv, seed: int, pick) -> tuple[gore.Game, float, dict]:
    """Plays one episode, replaying every action (the agent's and the AI's,
    the AI's searched again with the seeds it reports) in a gore.Game of
    its own, and checking each observation and mask against it."""
    obs, info = env.reset(seed=seed)
    me = env.unwrapped.me
    g = gore.Game(env.unwrapped.rules)

    def replay_opponent(info):
        for a, s in zip(info["opponent_actions"], info["opponent_seeds"]):
            assert g.to_move != me
            r = gore.search(g, level=env.unwrapped.level, seed=s, hash_mb=1)
            assert r.best.index == a
            g.play_index(a)

    replay_opponent(info)
    total = 0.0
    while True:
        assert g.to_move == me and not g.is_over
        assert np.array_equal(obs, canonical_by_hand(g))
        assert np.array_equal(info["action_mask"].astype(bool), mask_of(g))
        a = pick(g)
        obs, reward, terminated, truncated, info = env.step(a)
        total += reward
        assert g.play_index(a) is None or terminated
        replay_opponent(info)
        if terminated or truncated:
            return g, reward, info
        assert reward == 0.0


@pytest.mark.parametrize("side", ["A", "B"])
def test_episodes_against_the_ai_replay(side):
    env = GoreEnv(level=3, side=side, reward="win", rules="seeds=3")
    rng = random.Random(5)
    for seed in range(3):
        g, reward, info = mirror_episode(env, seed, lambda g: rng.choice(g.legal_indices()))
        assert g.is_over
        a, b = g.outcome.seeds
        mine, theirs = (a, b) if side == "A" else (b, a)
        assert reward == (mine > theirs) - (mine < theirs)
        assert not info["action_mask"].any()


def test_score_reward_and_truncation():
    env = GoreEnv(level=1, side="A", reward="score", max_steps=4)
    obs, info = env.reset(seed=3)
    for k in range(4):
        a = int(np.flatnonzero(info["action_mask"])[0])
        obs, reward, terminated, truncated, info = env.step(a)
        assert reward == 0.0 and not terminated
        assert truncated == (k == 3)
    with pytest.raises(gore.GoreError, match="reset"):
        env.step(0)
    # The score reward: (own - other) / total, from the side played.
    env = GoreEnv(level=1, side="B", reward="score", rules="seeds=3")
    rng = random.Random(1)
    g, reward, _ = mirror_episode(env, 0, lambda g: rng.choice(g.legal_indices()))
    a, b = g.outcome.seeds
    assert reward == pytest.approx((b - a) / 24)


def test_illegal_actions():
    env = GoreEnv(level=1)
    obs, info = env.reset(seed=0)
    # At the start A may not sow b1 (action 4): the episode is lost.
    obs, reward, terminated, truncated, info = env.step(4)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["illegal_action"]
    env = GoreEnv(level=1, illegal="raise")
    env.reset(seed=0)
    with pytest.raises(gore.IllegalAction):
        env.step(4)
    for bad in [dict(level=0), dict(level=gore.MAX_LEVEL + 1), dict(side="C"), dict(reward="x"), dict(illegal="x")]:
        with pytest.raises(gore.GoreError):
            GoreEnv(**bad)


def test_render_ansi():
    env = GoreEnv(level=1, render_mode="ansi")
    env.reset(seed=0)
    assert env.render() == str(gore.Position.start())


def test_vector_env_steps_as_single_games():
    rules = "seeds=3,cede-all"
    n = 5
    env = GoreVectorEnv(num_envs=n, rules=rules, reward="score", max_steps=50)
    assert env.single_action_space == gymnasium.spaces.Discrete(103)
    assert env.action_space.shape == (n,)
    assert env.observation_space.shape == (n, 28)
    obs, infos = env.reset(seed=9)
    games = [gore.Game(rules) for _ in range(n)]
    rng = np.random.default_rng(0)
    ends = set()
    total = 24
    for _ in range(600):
        assert env.observation_space.contains(obs)
        for i, g in enumerate(games):
            assert np.array_equal(obs[i], canonical_by_hand(g))
            assert np.array_equal(infos["action_mask"][i], mask_of(g))
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in infos["action_mask"]])
        movers = ["AB"[p] for p in infos["current_player"]]
        obs, rewards, term, trunc, infos = env.step(acts)
        for i, a in enumerate(acts):
            g = games[i]
            out = g.play_index(int(a))
            cut = out is None and g.ply == 50
            assert term[i] == (out is not None) and trunc[i] == cut
            assert infos["_final_obs"][i] == (term[i] or trunc[i])
            if out is not None:
                sa, sb = out.seeds
                mine, theirs = (sa, sb) if movers[i] == "A" else (sb, sa)
                assert rewards[i] == pytest.approx((mine - theirs) / total)
            else:
                assert rewards[i] == 0.0
            if out is not None or cut:
                ends.add(END_REASONS[infos["end_reason"][i]])
                assert np.array_equal(infos["final_obs"][i], canonical_by_hand(g))
                games[i] = gore.Game(rules)
    assert {"board", "max-steps"} <= ends, ends
    # reset(seed) starts every game again, the same way for the same seed.
    a, _ = env.reset(seed=4)
    x = env.step(np.array([int(np.flatnonzero(m)[0]) for m in env.batch.legal_action_mask]))[0]
    b, _ = env.reset(seed=4)
    y = env.step(np.array([int(np.flatnonzero(m)[0]) for m in env.batch.legal_action_mask]))[0]
    assert np.array_equal(a, b) and np.array_equal(x, y)
    # A reset mask starts only those games.
    env.reset(options={"reset_mask": np.array([True, False, False, False, False])})
    assert env.batch.ply[0] == 0 and (env.batch.ply[1:] == 1).all()


def test_rgb_array_render():
    from gore import render

    env = gymnasium.make("gore.gym:Gore-v0", level=1, render_mode="rgb_array")
    env.reset(seed=0)
    img = env.render()
    assert img.shape == (render.HEIGHT, render.WIDTH, 3) and img.dtype == np.uint8
    # The start: six seeds a hole, 16 seed-coloured pixels a seed.
    assert np.all(img == render.COLORS["seed"], axis=-1).sum() == 16 * 48
    env.close()

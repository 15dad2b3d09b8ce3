"""The PettingZoo environment passes PettingZoo's own checks, and its
turn order, mask, observation and rewards are the game's."""

from __future__ import annotations

import numpy as np
import pytest



import copy
import functools
import types

from pettingzoo.test import (  # noqa: E402
    api_test,
    max_cycles_test,
    parallel_api_test,
    performance_benchmark,
    render_test,
    seed_test,
    state_test,
)

import gore  # noqa: E402
from gore import pettingzoo as gz  # noqa: E402


def test_api_test():
    api_test(gz.env(), num_cycles=1000, verbose_progress=False)


def test_api_test_no_trades_and_win_rewards():
    api_test(gz.env(rules="no-trades", reward="win"), num_cycles=300)


def test_seed_test():
    seed_test(gz.env, num_cycles=500)


def test_offer_turn_order_mask_and_observation():
    # A (player_0) offers a1 to B, who holds 12: B must answer, then B
    # plays his normal turn.
    e = gz.raw_env()
    e.reset()
    e.game = gore.Game("standard", gore.Position("6,6,6,6/6,6,0,0 AAAA/BBBB 0-12 A -"))
    e._init_dicts()
    assert e.agent_selection == "player_0"
    obs = e.observe("player_0")
    offer_a1 = gore.Action("offer:a1").index
    assert obs["action_mask"][offer_a1] == 1
    assert obs["action_mask"].sum() == len(e.game.legal_actions())
    assert e.observe("player_1")["action_mask"].sum() == 0
    e.step(offer_a1)
    assert e.agent_selection == "player_1"
    mask = e.observe("player_1")["action_mask"]
    assert np.flatnonzero(mask).tolist() == [100, 101]
    o = e.observe("player_1")["observation"]
    assert o.dtype == np.float32 and o.shape == (28,)
    # docs/PYTHON.md, the canonical observation from B's side: the holes
    # from b1 (b1 b2 b3 b4 a1 a2 a3 a4), his holes, the offer (a1, fifth
    # from b1), his captured seeds, A's, the ply, the repetition count.
    assert o[:8].tolist() == [6, 6, 0, 0, 6, 6, 6, 6]
    assert o[8:16].tolist() == [1, 1, 1, 1, 0, 0, 0, 0]
    assert o[16:24].tolist() == [0, 0, 0, 0, 1, 0, 0, 0]
    assert o[24:].tolist() == [12, 0, 1, 1]
    assert e.observation_space("player_1")["observation"].contains(o)
    # The agent to act sees what GoreBatch and gore.gym show of his game.
    assert o.tobytes() == e.game.canonical_observation()
    e.step(100)  # accept: a1 is B's, with 6 more seeds
    assert e.agent_selection == "player_1"
    assert e.game.position.gpn == "12,6,6,6/6,6,0,0 BAAA/BBBB 0-6 B -"


def test_final_rewards_and_render():
    # B sows b2 and takes 22 seeds: 13-35, a seed difference of -22 of 48
    # for A.
    for kind, expected in (("score", -22 / 48), ("win", -1.0)):
        e = gz.raw_env(render_mode="ansi", reward=kind)
        e.reset()
        e.game = gore.Game("standard", gore.Position("3,2,4,2/4,3,1,3 AAAA/BBBB 13-13 B -"))
        e._init_dicts()
        text = e.render()
        assert "b4  b3  b2  b1" in text and "captured 13" in text
        assert e.agent_selection == "player_1"
        e.step(gore.Action("b2").index)
        assert e.terminations == {"player_0": True, "player_1": True}
        assert e.rewards["player_0"] == pytest.approx(expected)
        assert e.rewards["player_1"] == pytest.approx(-expected)
        assert e.infos["player_0"]["seeds"] == (13, 35)


def test_bad_arguments():
    with pytest.raises(ValueError, match="render_mode"):
        gz.raw_env(render_mode="svg")
    with pytest.raises(ValueError, match="reward"):
        gz.raw_env(reward="elo")
    with pytest.raises(gore.RulesError):
        gz.raw_env(rules="seeds=1")


def test_parallel_api_test():
    parallel_api_test(gz.parallel_env(), num_cycles=1000)
    parallel_api_test(gz.parallel_env(rules="no-trades", reward="win"), num_cycles=300)


def test_max_cycles_test():
    # PettingZoo's test steps with unmasked random actions and counts each
    # agent's turns, so it runs with illegal="random" (an illegal action is
    # replaced, not the end) and without trades (after an offer the
    # receiver acts twice in a row, which its counts forbid).
    mod = types.SimpleNamespace(
        env=functools.partial(gz.env, rules="no-trades", illegal="random"),
        parallel_env=functools.partial(gz.parallel_env, rules="no-trades", illegal="random"),
    )
    max_cycles_test(mod)


def test_max_cycles_truncates_after_that_many_cycles():
    # AEC: a cycle is an action of each agent, 2 plies; parallel: a step.
    e = gz.raw_env(max_cycles=3)
    e.reset()
    for token in ["a1", "b1", "a2", "b2", "a3"]:
        assert not any(e.truncations.values())
        e.step(gore.Action(token).index)
    assert not any(e.truncations.values())
    e.step(gore.Action("b3").index)  # the 6th ply
    assert e.truncations == {"player_0": True, "player_1": True}
    assert e.terminations == {"player_0": False, "player_1": False}
    assert e.rewards == {"player_0": 0.0, "player_1": 0.0}
    p = gz.parallel_env(max_cycles=2)
    p.reset()
    _, _, term, trunc, _ = p.step({"player_0": 0, "player_1": 0})
    assert trunc == {"player_0": False, "player_1": False}
    obs, rew, term, trunc, _ = p.step({"player_0": 0, "player_1": 4})
    assert trunc == {"player_0": True, "player_1": True} and not any(term.values())
    assert p.agents == [] and rew == {"player_0": 0.0, "player_1": 0.0}
    assert all(o["action_mask"].sum() == 0 for o in obs.values())


def test_parallel_steps_the_mover_and_ignores_the_other():
    p = gz.parallel_env()
    obs, infos = p.reset(seed=1)
    assert p.agents_to_move() == ["player_0"]
    assert obs["player_0"]["action_mask"].sum() == 4  # a1..a4
    assert obs["player_1"]["action_mask"].sum() == 0
    # player_1's action, illegal for anyone now, is ignored.
    obs, rew, term, trunc, infos = p.step({"player_0": 2, "player_1": 101})
    assert p.game.actions == [gore.Action("a3")]
    assert p.agents_to_move() == ["player_1"]
    assert np.flatnonzero(obs["player_1"]["action_mask"]).tolist() == [4, 5, 6, 7]
    # B's own view: his holes b1..b4 first (a3's six seeds went to a4,
    # b1 … b4 and a1).
    b_view = obs["player_1"]["observation"][:16].tolist()
    assert b_view == [7, 7, 7, 7] + [7, 6, 0, 7] + [1] * 4 + [0] * 4
    with pytest.raises(gore.ArgumentError, match="no action for player_1"):
        p.step({"player_0": 0})


def test_parallel_illegal_actions():
    p = gz.parallel_env()
    p.reset()
    obs, rew, term, trunc, infos = p.step({"player_0": 5, "player_1": 0})  # b2: not A's
    assert term == {"player_0": True, "player_1": True}
    assert rew == {"player_0": -1.0, "player_1": 0.0}
    assert infos["player_0"]["illegal_action"] == ("player_0", 5)
    assert p.agents == [] and p.game.ply == 0
    with pytest.raises(gore.GoreError, match="reset"):
        p.step({"player_0": 0, "player_1": 0})
    r = gz.parallel_env(illegal="raise")
    r.reset()
    with pytest.raises(gore.IllegalAction, match="not controlled by player A"):
        r.step({"player_0": 5, "player_1": 0})
    assert r.game.ply == 0 and r.agents == ["player_0", "player_1"]
    q = gz.parallel_env(illegal="random")
    q.reset(seed=3)
    _, _, term, _, infos = q.step({"player_0": 5, "player_1": 0})
    assert infos["player_0"]["replaced"] and not any(term.values())
    assert q.game.ply == 1 and q.game.actions[0].index in (0, 1, 2, 3)


def test_parallel_plays_the_aec_game():
    """The same seeded random actions through the parallel and the AEC
    environment give the same positions, rewards and end."""
    rng = np.random.default_rng(8)
    p = gz.parallel_env(reward="win")
    a = gz.raw_env(reward="win")
    p.reset()
    a.reset()
    while p.agents:
        mover = p.agents_to_move()[0]
        assert a.agent_selection == mover
        legal = p.game.legal_indices()
        action = int(rng.choice(legal))
        _, rew, term, _, _ = p.step({"player_0": action, "player_1": action})
        a.step(action)
        assert a.game.position == p.game.position
    assert all(term.values())
    assert rew == a.rewards


def test_render_test(capsys):
    render_test(gz.env)
    e = gz.env(render_mode="human")
    e.reset()
    capsys.readouterr()
    assert e.render() is None
    out = capsys.readouterr().out
    assert "b4  b3  b2  b1" in out and "A to move" in out
    p = gz.parallel_env(render_mode="ansi")
    p.reset()
    assert "captured 0" in p.render()


def test_state_test():
    state_test(gz.env(), gz.parallel_env(), num_cycles=100)


def test_state_is_the_global_view():
    e = gz.raw_env()
    e.reset()
    e.game = gore.Game("standard", gore.Position("6,6,6,6/0,0,0,0 AAAA/BBBB 12-12 A -"))
    e._init_dicts()
    for token in ["offer:a1", "decline", "pass"]:
        e.step(gore.Action(token).index)
    s = e.state()
    assert s.dtype == np.float32 and s.shape == (gz.STATE_SIZE,) == (30,)
    # A's observation (A to move again, holds a1-a4), then ply 3 and the
    # start position's second occurrence.
    assert s[:8].tolist() == [6, 6, 6, 6, 0, 0, 0, 0]
    assert s[8:16].tolist() == [1, 1, 1, 1, 0, 0, 0, 0]
    assert s[16:19].tolist() == [12, 12, 1]
    assert s[27] == 1
    assert s[28:].tolist() == [3, 2]
    assert e.state_space.contains(s)


def test_deepcopy_copies_the_game_mid_game():
    e = gz.env()
    e.reset(seed=0)
    for token in ["a3", "b2", "a1"]:
        e.step(gore.Action(token).index)
    c = copy.deepcopy(e)
    assert c.unwrapped.game.actions == e.unwrapped.game.actions
    assert c.agent_selection == e.agent_selection == "player_1"
    before = e.unwrapped.game.position
    c.step(gore.Action("b1").index)
    assert c.unwrapped.game.ply == 4 and e.unwrapped.game.ply == 3
    assert e.unwrapped.game.position == before != c.unwrapped.game.position
    # The original plays on from where it was.
    e.step(gore.Action("b1").index)
    assert e.unwrapped.game.position == c.unwrapped.game.position


def test_performance_benchmark(capsys):
    # PettingZoo's benchmark: random masked play for 5 seconds.
    performance_benchmark(gz.env())
    out = capsys.readouterr().out
    # Not a timing test: the benchmark ran and counted turns.
    turns = float(out.split(" turns per second")[0].split()[-1])
    assert turns > 0, out


def test_pickle_keeps_the_arguments():
    # EzPickle rebuilds from the constructor's arguments, the new ones too.
    import pickle

    e = pickle.loads(pickle.dumps(gz.raw_env(rules="no-trades", max_cycles=3, illegal="random")))
    assert (e.max_cycles, e.illegal, str(e.rules)) == (3, "random", "no-trades")


def test_board_observation_behind_an_option():
    # observation="board": the layout before issue 40 (Game.observation,
    # board order, whose turn, am I A), for code written against it.
    e = gz.raw_env(observation="board")
    e.reset()
    e.game = gore.Game("standard", gore.Position("6,6,6,6/6,6,0,0 AAAA/BBBB 0-12 A -"))
    e._init_dicts()
    e.step(gore.Action("offer:a1").index)
    o = e.observe("player_1")["observation"]
    assert o[:8].tolist() == [6, 6, 6, 6, 6, 6, 0, 0]
    assert o[8:16].tolist() == [0, 0, 0, 0, 1, 1, 1, 1]
    assert o[16:18].tolist() == [12, 0]
    assert o[18] == 1
    assert o[19:27].tolist() == [1, 0, 0, 0, 0, 0, 0, 0]
    assert o[27] == 0
    assert e.observation_space("player_1")["observation"].shape == (28,)
    p = gz.parallel_env(observation="board")
    obs, _ = p.reset()
    assert obs["player_0"]["observation"][27] == 1 and obs["player_1"]["observation"][27] == 0
    with pytest.raises(gore.ArgumentError, match="observation: expected 'canonical' or 'board'"):
        gz.env(observation="mine")


def test_canonical_observation_is_markov_under_repetition():
    # The position of test_state_is_the_global_view occurs again after
    # three plies: the board-order layout shows the same 28 values both
    # times, the canonical one tells them apart by ply and count.
    start = gore.Position("6,6,6,6/0,0,0,0 AAAA/BBBB 12-12 A -")
    seen = {}
    for kind in ("canonical", "board"):
        e = gz.raw_env(observation=kind)
        e.reset()
        e.game = gore.Game("standard", start)
        e._init_dicts()
        first = e.observe("player_0")["observation"]
        for token in ["offer:a1", "decline", "pass"]:
            e.step(gore.Action(token).index)
        seen[kind] = (first, e.observe("player_0")["observation"])
    first, again = seen["board"]
    assert first.tolist() == again.tolist()
    first, again = seen["canonical"]
    assert first[:26].tolist() == again[:26].tolist()
    assert first[26:].tolist() == [0, 1] and again[26:].tolist() == [3, 2]


def test_rgb_array_render_counts_the_seeds():
    # Each hole's square holds one 4 x 4 dot per seed (gore.render): count
    # the seed-coloured pixels of each square and divide by 16.
    from gore import render

    e = gz.env(render_mode="rgb_array")
    e.reset(seed=0)
    for token in ["a3", "b2"]:
        e.step(gore.Action(token).index)
    img = e.render()
    assert img.dtype == np.uint8 and img.shape == (render.HEIGHT, render.WIDTH, 3)
    seed = np.all(img == render.COLORS["seed"], axis=-1)
    pos = e.unwrapped.game.position
    names = ["a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4"]
    for i, name in enumerate(names):
        row, col = (1, i) if i < 4 else (0, 7 - i)
        square = seed[row * render.CELL : (row + 1) * render.CELL,
                      (col + 1) * render.CELL : (col + 2) * render.CELL]
        assert square.sum() == 16 * pos.seeds[i], name
    cap_a, cap_b = pos.captured
    assert seed[:, : render.CELL].sum() == 16 * cap_b
    assert seed[:, 5 * render.CELL :].sum() == 16 * cap_a
    # The bar of the player to move.
    assert tuple(img[-1, 0]) == render.COLORS[pos.to_move]
    p = gz.parallel_env(render_mode="rgb_array")
    p.reset()
    assert p.render().shape == img.shape


def _pettingzoo_wrapped(**kwargs):
    """env() as it was built before issue 40: PettingZoo's own wrappers
    around the raw environment (the reference for env()'s own handling)."""
    from pettingzoo.utils import wrappers

    e = wrappers.TerminateIllegalWrapper(gz.raw_env(illegal="raise", **kwargs), illegal_reward=-1)
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(e))


@pytest.mark.parametrize("seed", range(4))
def test_env_ends_illegal_actions_as_pettingzoos_wrappers_do(seed):
    # The same games, one action in five drawn from all 103 (mostly
    # illegal), through env() and through PettingZoo's wrapper chain: the
    # same agents, rewards, terminations, truncations and observations.
    def play(e):
        rng = np.random.default_rng(seed)
        e.reset(seed=seed)
        seen = []
        for agent in e.agent_iter(max_iter=400):
            obs, rew, term, trunc, info = e.last()
            if term or trunc:
                action = None
            elif rng.random() < 0.2:
                action = int(rng.integers(gore.NUM_ACTIONS))
            else:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            seen.append((agent, rew, term, trunc, obs["observation"].tolist(),
                         obs["action_mask"].tolist(), action))
            e.step(action)
        return seen

    ours, theirs = play(gz.env(rules="no-trades")), play(_pettingzoo_wrapped(rules="no-trades"))
    assert ours == theirs
    assert any(r == -1 for (_, r, *_) in ours)  # an illegal action was played


def test_env_asserts_actions_out_of_space():
    e = gz.env()
    e.reset()
    with pytest.raises(AssertionError, match="action is not in action space"):
        e.step(103)
    with pytest.raises(AssertionError, match="action is not in action space"):
        e.step(-1)
    e.step(np.int64(2))  # a numpy integer is in the space
    assert e.unwrapped.game.actions == [gore.Action("a3")]

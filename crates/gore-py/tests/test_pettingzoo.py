"""The PettingZoo environment passes PettingZoo's own checks, and its
turn order, mask, observation and rewards are the game's."""

from __future__ import annotations

import numpy as np
import pytest



from pettingzoo.test import api_test, seed_test  # noqa: E402

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
    # docs/PYTHON.md: seeds, my holes, my captured, his, my turn, offer, am I A.
    assert o[:8].tolist() == [6, 6, 6, 6, 6, 6, 0, 0]
    assert o[8:16].tolist() == [0, 0, 0, 0, 1, 1, 1, 1]
    assert o[16:18].tolist() == [12, 0]
    assert o[18] == 1
    assert o[19:27].tolist() == [1, 0, 0, 0, 0, 0, 0, 0]
    assert o[27] == 0
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
        gz.raw_env(render_mode="human")
    with pytest.raises(ValueError, match="reward"):
        gz.raw_env(reward="elo")
    with pytest.raises(gore.RulesError):
        gz.raw_env(rules="seeds=1")

"""Goré as a PettingZoo AEC environment.

``gore.pettingzoo.env(rules="standard", render_mode=None, reward="score")``
gives a two-agent turn-based environment: ``player_0`` is A (South, moves
first), ``player_1`` is B. The agent to act (``agent_selection``) is the
one who must act by the rules: after an offer, the receiver, who answers
it and then plays his own normal turn. Nothing of the rules is decided here: every
step is ``gore.Game.play_index``.

Actions are the 103 numbers of docs/PYTHON.md (0-7 sow a1..b4, 8-99 the
offers of 1-3 holes, 100 accept, 101 decline, 102 pass); the observation is
``{"observation": float32[28], "action_mask": int8[103]}`` (the mask is all
zeros for the agent not to act).

Rewards come at the end only: ``reward="score"`` gives each agent his
final seeds minus his opponent's, divided by the seeds in the game (in
[-1, 1]); ``reward="win"`` gives 1, 0 or -1.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import AgentSelector, wrappers

import gore

__all__ = ["env", "raw_env", "AGENTS"]

#: The agents: ``player_0`` is A, ``player_1`` is B.
AGENTS = ("player_0", "player_1")
_PLAYER = {"player_0": "A", "player_1": "B"}
_AGENT = {"A": "player_0", "B": "player_1"}


def env(**kwargs: Any) -> AECEnv:
    """The environment wrapped as PettingZoo's classic games are: an illegal
    action ends the game with reward -1 for its agent, an out-of-range one
    asserts, and the AEC call order is enforced."""
    e: AECEnv = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


def render_ansi(position: gore.Position) -> str:
    """The board as text: B's row on top (b4 … b1), A's below (a1 … a4),
    each hole's seeds with its controller's letter, then the captured seeds,
    the player to move and any pending offer."""
    seeds = position.seeds
    ctrl = position.controllers

    def cell(i: int) -> str:
        return f"{seeds[i]:>2}{ctrl[i]}"

    top = " ".join(cell(i) for i in (7, 6, 5, 4))
    bottom = " ".join(cell(i) for i in (0, 1, 2, 3))
    cap_a, cap_b = position.captured
    lines = [
        "    b4  b3  b2  b1",
        f"B  {top}   captured {cap_b}",
        f"A  {bottom}   captured {cap_a}",
        "    a1  a2  a3  a4",
    ]
    offer = position.pending_offer
    status = f"{position.to_move} to move"
    if offer:
        status += f", answering the offer of {','.join(offer)}"
    lines.append(status)
    return "\n".join(lines) + "\n"


class raw_env(AECEnv, EzPickle):
    """Goré, AEC: see the module's documentation."""

    metadata = {
        "render_modes": ["ansi"],
        "name": "gore_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        rules: str | gore.Rules = "standard",
        render_mode: str | None = None,
        reward: str = "score",
    ) -> None:
        EzPickle.__init__(self, rules, render_mode, reward)
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode: expected None or 'ansi', not {render_mode!r}")
        if reward not in ("score", "win"):
            raise ValueError(f"reward: expected 'score' or 'win', not {reward!r}")
        self.rules = rules if isinstance(rules, gore.Rules) else gore.Rules(rules)
        self.render_mode = render_mode
        self.reward_kind = reward
        self.possible_agents = list(AGENTS)
        self.agents = self.possible_agents[:]
        total = float(self.rules.total_seeds)
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    low=0.0, high=total, shape=(gore.OBSERVATION_SIZE,), dtype=np.float32
                ),
                "action_mask": spaces.Box(
                    low=0, high=1, shape=(gore.NUM_ACTIONS,), dtype=np.int8
                ),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {
            a: spaces.Discrete(gore.NUM_ACTIONS) for a in self.possible_agents
        }
        self.game = gore.Game(self.rules)
        self._init_dicts()

    def _init_dicts(self) -> None:
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = _AGENT[self.game.to_move]

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        obs = np.frombuffer(
            self.game.observation(_PLAYER[agent]), dtype=np.float32
        ).copy()
        if agent == self.agent_selection and not self.game.is_over:
            mask = np.frombuffer(self.game.legal_mask(), dtype=np.int8).copy()
        else:
            mask = np.zeros(gore.NUM_ACTIONS, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        # Goré has no chance: the seed changes nothing.
        self.game = gore.Game(self.rules)
        self._init_dicts()
        self._agent_selector = AgentSelector(self.agents)

    def _final_rewards(self, outcome: gore.Outcome) -> dict[str, float]:
        a, b = outcome.seeds
        if self.reward_kind == "win":
            r = float((a > b) - (a < b))
        else:
            r = (a - b) / float(self.rules.total_seeds)
        return {"player_0": r, "player_1": -r}

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        outcome = self.game.play_index(int(action))
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if outcome is not None:
            self.rewards.update(self._final_rewards(outcome))
            self.terminations = dict.fromkeys(self.agents, True)
            for a in self.agents:
                self.infos[a] = {
                    "reason": outcome.reason,
                    "seeds": outcome.seeds,
                    "winner": outcome.winner,
                    "without_glory": outcome.without_glory,
                }
            # The agent who did not make the last action is asked next, so
            # that both see the end (PettingZoo removes them one by one).
            self.agent_selection = "player_1" if agent == "player_0" else "player_0"
        else:
            self.agent_selection = _AGENT[self.game.to_move]
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        return render_ansi(self.game.position)

    def close(self) -> None:
        pass

"""Goré as a PettingZoo environment, AEC and parallel.

``gore.pettingzoo.env(rules="standard", render_mode=None, reward="score",
max_cycles=None, illegal="terminate")`` gives a two-agent turn-based
environment: ``player_0`` is A (South, moves first), ``player_1`` is B;
``gore.pettingzoo.parallel_env(…)`` the same game through the parallel API
(one ply per ``step``, the agent to move's action; see ``GoreParallel``). The agent to act (``agent_selection``) is the
one who must act by the rules: after an offer, the receiver, who answers
it and then plays his own normal turn. Nothing of the rules is decided here: every
step is ``gore.Game.play_index``.

Actions are the 103 numbers of docs/PYTHON.md (0-7 sow a1..b4, 8-99 the
offers of 1-3 holes, 100 accept, 101 decline, 102 pass); the observation is
``{"observation": float32[28], "action_mask": int8[103]}`` (the mask is all
zeros for the agent not to act). The observation is the canonical one of
GoreBatch and gore.gym (docs/PYTHON.md, "The canonical observation"), from
the observing agent's side: for the agent to act it is exactly the batch's
row, ply and repetition count included. ``observation="board"`` gives
the layout before issue 40 instead (``Game.observation``: board order, no
ply, no repetition count; not Markov under repetition or a ply cap).

Rewards come at the end only: ``reward="score"`` gives each agent his
final seeds minus his opponent's, divided by the seeds in the game (in
[-1, 1]); ``reward="win"`` gives 1, 0 or -1.

``max_cycles`` truncates the game after that many cycles, a cycle being one
step of every agent (PettingZoo's word): in the AEC environment the two
agents' actions, so ``2 * max_cycles`` plies; in the parallel one a
``step`` call, so ``max_cycles`` plies. A truncated game gives no reward.

``state()`` is the global state: the observation from A's side, then the
ply and the repetition count of the position (``float32[30]``).
"""

from __future__ import annotations

from typing import Any

import copy

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import AgentSelector, wrappers
from pettingzoo.utils.env_logger import EnvLogger

import gore
from gore.gym import observation_space as canonical_space
from gore.render import rgb_array

__all__ = ["env", "raw_env", "parallel_env", "GoreParallel", "AGENTS", "STATE_SIZE"]

#: The agents: ``player_0`` is A, ``player_1`` is B.
AGENTS = ("player_0", "player_1")
_PLAYER = {"player_0": "A", "player_1": "B"}
_AGENT = {"A": "player_0", "B": "player_1"}
_OTHER = {"player_0": "player_1", "player_1": "player_0"}

#: Length of ``state()``: the observation from A's side, the ply, the
#: repetition count.
STATE_SIZE = 30

_ILLEGAL = ("terminate", "raise", "random")
_OBSERVATIONS = ("canonical", "board")
_RENDER_MODES = ("human", "ansi", "rgb_array")


def env(illegal: str = "terminate", **kwargs: Any) -> AECEnv:
    """The environment as PettingZoo's classic games are wrapped: with
    ``illegal="terminate"`` an illegal action ends the game with reward -1
    for its agent (``"raise"``: gore.IllegalAction; ``"random"``: a random
    legal action is played instead, for code that ignores the mask), an
    out-of-range one asserts, and the AEC call order is enforced
    (PettingZoo's ``OrderEnforcingWrapper``).

    The first two are done by ``raw_env`` itself, as PettingZoo's
    ``TerminateIllegalWrapper`` and ``AssertOutOfBoundsWrapper`` do them
    (a test plays the same games through both): each wrapper layer
    forwards every attribute through ``__getattr__``, and the three layers
    made a step some 3-9 times as slow as the raw environment's."""
    if illegal not in _ILLEGAL:
        raise gore.ArgumentError(
            f"illegal: expected 'terminate', 'raise' or 'random', not {illegal!r}"
        )
    raw = raw_env(illegal=illegal, **kwargs)
    raw._assert_in_space = True
    return _OrderEnforcing(raw)


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` with ``last()`` answered by
    the environment in one call (its own goes through ``__getattr__`` for
    each of the five attributes it reads)."""

    def last(self, observe: bool = True) -> tuple:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.last(observe)

    def step(self, action: Any) -> None:
        # OrderEnforcingWrapper.step, reading the environment directly.
        env = self.env
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        elif not env.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            env.step(action)


def parallel_env(**kwargs: Any) -> "GoreParallel":
    """The parallel environment (``GoreParallel``); same arguments as
    ``env``."""
    return GoreParallel(**kwargs)


def _check_args(
    render_mode: str | None, reward: str, max_cycles: int | None, observation: str
) -> None:
    if render_mode is not None and render_mode not in _RENDER_MODES:
        raise gore.ArgumentError(
            f"render_mode: expected None, 'human', 'ansi' or 'rgb_array', not {render_mode!r}"
        )
    if observation not in _OBSERVATIONS:
        raise gore.ArgumentError(
            f"observation: expected 'canonical' or 'board', not {observation!r}"
        )
    if reward not in ("score", "win"):
        raise gore.ArgumentError(f"reward: expected 'score' or 'win', not {reward!r}")
    if max_cycles is not None:
        if not isinstance(max_cycles, int) or isinstance(max_cycles, bool):
            raise TypeError(f"max_cycles: expected an int or None, not {type(max_cycles).__name__}")
        if max_cycles < 1:
            raise gore.ArgumentError(f"max_cycles: expected at least 1, not {max_cycles}")


def _spaces(rules: gore.Rules, observation: str) -> tuple[spaces.Dict, spaces.Box]:
    """The observation space and the state space of ``rules``."""
    total = float(rules.total_seeds)
    if observation == "canonical":
        obs_box = canonical_space(rules)
    else:
        obs_box = spaces.Box(
            low=0.0, high=total, shape=(gore.OBSERVATION_SIZE,), dtype=np.float32
        )
    obs_space = spaces.Dict(
        {
            "observation": obs_box,
            "action_mask": spaces.Box(low=0, high=1, shape=(gore.NUM_ACTIONS,), dtype=np.int8),
        }
    )
    high = np.full(STATE_SIZE, total, dtype=np.float32)
    # The ply has no bound but the rules' cap; a position occurs at most
    # three times (the third ends the game).
    high[28] = float(rules.ply_cap) if rules.ply_cap else np.finfo(np.float32).max
    high[29] = 3.0
    state_space = spaces.Box(low=0.0, high=high, dtype=np.float32)
    return obs_space, state_space


def _state(game: gore.Game) -> np.ndarray:
    out = np.empty(STATE_SIZE, dtype=np.float32)
    out[:28] = np.frombuffer(game.observation("A"), dtype=np.float32)
    out[28] = game.ply
    out[29] = game.repetitions
    return out


def _observe(game: gore.Game, agent: str, acting: bool, kind: str) -> dict[str, np.ndarray]:
    if kind == "canonical":
        raw = game.canonical_observation(_PLAYER[agent])
    else:
        raw = game.observation(_PLAYER[agent])
    obs = np.frombuffer(raw, dtype=np.float32).copy()
    if acting and not game.is_over:
        mask = np.frombuffer(game.legal_mask(), dtype=np.int8).copy()
    else:
        mask = np.zeros(gore.NUM_ACTIONS, dtype=np.int8)
    return {"observation": obs, "action_mask": mask}


def _final_rewards(outcome: gore.Outcome, kind: str, total: int) -> dict[str, float]:
    a, b = outcome.seeds
    if kind == "win":
        r = float((a > b) - (a < b))
    else:
        r = (a - b) / float(total)
    return {"player_0": r, "player_1": -r}


def _outcome_info(outcome: gore.Outcome) -> dict[str, Any]:
    return {
        "reason": outcome.reason,
        "seeds": outcome.seeds,
        "winner": outcome.winner,
        "without_glory": outcome.without_glory,
    }


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
    """Goré, AEC: see the module's documentation. An illegal action raises
    gore.IllegalAction (``illegal="raise"``), is replaced by a random
    legal one (``illegal="random"``, seeded by ``reset(seed)``) or ends the
    game with -1 for its agent (``illegal="terminate"``, as PettingZoo's
    ``TerminateIllegalWrapper`` does it); ``env`` wraps this class."""

    metadata = {
        "render_modes": list(_RENDER_MODES),
        "name": "gore_v0",
        # Not through PettingZoo's aec_to_parallel: after an offer the
        # receiver acts twice in a row, which it refuses; parallel_env is
        # this game's own parallel environment.
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        rules: str | gore.Rules = "standard",
        render_mode: str | None = None,
        reward: str = "score",
        max_cycles: int | None = None,
        illegal: str = "raise",
        observation: str = "canonical",
    ) -> None:
        EzPickle.__init__(self, rules, render_mode, reward, max_cycles, illegal, observation)
        super().__init__()
        _check_args(render_mode, reward, max_cycles, observation)
        if illegal not in _ILLEGAL:
            raise gore.ArgumentError(
                f"illegal: expected 'raise', 'random' or 'terminate', not {illegal!r}"
            )
        # env() asserts that actions are in the action space, as
        # PettingZoo's AssertOutOfBoundsWrapper does.
        self._assert_in_space = False
        self.rules = rules if isinstance(rules, gore.Rules) else gore.Rules(rules)
        self.render_mode = render_mode
        self.reward_kind = reward
        self.max_cycles = max_cycles
        self.illegal = illegal
        self.possible_agents = list(AGENTS)
        self.agents = self.possible_agents[:]
        self.observation_kind = observation
        obs_space, self.state_space = _spaces(self.rules, observation)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {
            a: spaces.Discrete(gore.NUM_ACTIONS) for a in self.possible_agents
        }
        self.game = gore.Game(self.rules)
        self._rng = np.random.default_rng()
        self._init_dicts()

    def __deepcopy__(self, memo: dict) -> "raw_env":
        # EzPickle's __getstate__ rebuilds from the constructor's arguments
        # (a fresh game), which copy.deepcopy would otherwise use: copy the
        # attributes instead, the game with them (Game.__deepcopy__).
        new = self.__class__.__new__(self.__class__)
        memo[id(self)] = new
        for k, v in self.__dict__.items():
            setattr(new, k, copy.deepcopy(v, memo))
        return new

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
        return _observe(self.game, agent, agent == self.agent_selection, self.observation_kind)

    def state(self) -> np.ndarray:
        """The global state: A's observation, the ply, the repetitions."""
        return _state(self.game)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        # Goré has no chance: the seed only seeds illegal="random".
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.game = gore.Game(self.rules)
        self._init_dicts()
        self._agent_selector = AgentSelector(self.agents)
        if self.render_mode == "human":
            self.render()

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if self._assert_in_space and not (
            isinstance(action, (int, np.integer))
            and not isinstance(action, bool)
            and 0 <= action < gore.NUM_ACTIONS
        ):
            assert self.action_spaces[agent].contains(action), "action is not in action space"
        self._cumulative_rewards[agent] = 0.0
        action = int(action)
        replaced = False
        if self.illegal != "raise" and not self.game.position.is_legal(action):
            if self.illegal == "terminate":
                self._end_by_illegal(agent, action)
                return
            legal = self.game.legal_indices()
            action = legal[int(self._rng.integers(len(legal)))]
            replaced = True
        outcome = self.game.play_index(action)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if outcome is not None:
            self.rewards.update(_final_rewards(outcome, self.reward_kind, self.rules.total_seeds))
            self.terminations = dict.fromkeys(self.agents, True)
            for a in self.agents:
                self.infos[a] = _outcome_info(outcome)
            # The agent who did not make the last action is asked next, so
            # that both see the end (PettingZoo removes them one by one).
            self.agent_selection = _OTHER[agent]
        elif self.max_cycles is not None and self.game.ply >= 2 * self.max_cycles:
            self.truncations = dict.fromkeys(self.agents, True)
            self.agent_selection = _OTHER[agent]
        else:
            self.agent_selection = _AGENT[self.game.to_move]
        if replaced:
            self.infos[agent] = {**self.infos[agent], "replaced": True}
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _end_by_illegal(self, agent: str, action: int) -> None:
        """What PettingZoo's TerminateIllegalWrapper does with an illegal
        action: a warning, -1 for its agent and 0 for the other, every
        agent terminated and truncated, the dead stepped first."""
        EnvLogger.warn_on_illegal_move()
        self.terminations = dict.fromkeys(self.agents, True)
        self.truncations = dict.fromkeys(self.agents, True)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = -1.0
        for a in self.agents:
            self.infos[a] = {**self.infos[a], "illegal_action": (agent, action)}
        self._accumulate_rewards()
        self._deads_step_first()

    def render(self) -> str | np.ndarray | None:
        """``"ansi"``: the board as text; ``"human"``: prints it;
        ``"rgb_array"``: the board as an image (gore.render.rgb_array)."""
        if self.render_mode is None:
            return None
        if self.render_mode == "rgb_array":
            return rgb_array(self.game.position)
        text = render_ansi(self.game.position)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


class GoreParallel(ParallelEnv):
    """Goré through PettingZoo's parallel API. Each ``step(actions)`` is one
    ply: the action of the agent to move (``agents_to_move()``, the only one
    whose mask is not all zeros) is played and the other's is ignored.
    Observations, rewards, infos, ``max_cycles`` (in plies here) and
    ``state()`` are those of the AEC environment; an illegal action is
    handled by ``illegal``: ``"terminate"`` (the game ends, -1 for its
    agent, 0 for the other), ``"raise"`` (gore.IllegalAction, nothing
    changes) or ``"random"`` (a random legal action instead, seeded by
    ``reset(seed)``)."""

    metadata = {"render_modes": list(_RENDER_MODES), "name": "gore_parallel_v0", "render_fps": 1}

    def __init__(
        self,
        rules: str | gore.Rules = "standard",
        render_mode: str | None = None,
        reward: str = "score",
        max_cycles: int | None = None,
        illegal: str = "terminate",
        observation: str = "canonical",
    ) -> None:
        _check_args(render_mode, reward, max_cycles, observation)
        if illegal not in _ILLEGAL:
            raise gore.ArgumentError(
                f"illegal: expected 'terminate', 'raise' or 'random', not {illegal!r}"
            )
        self.rules = rules if isinstance(rules, gore.Rules) else gore.Rules(rules)
        self.render_mode = render_mode
        self.reward_kind = reward
        self.max_cycles = max_cycles
        self.illegal = illegal
        self.possible_agents = list(AGENTS)
        self.agents = self.possible_agents[:]
        self.observation_kind = observation
        obs_space, self.state_space = _spaces(self.rules, observation)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(gore.NUM_ACTIONS) for a in self.possible_agents}
        self.game = gore.Game(self.rules)
        self._rng = np.random.default_rng()

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def agents_to_move(self) -> list[str]:
        """The agent whose action the next ``step`` plays (empty once over)."""
        return [] if self.game.is_over or not self.agents else [_AGENT[self.game.to_move]]

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        mover = _AGENT[self.game.to_move]
        return {
            a: _observe(self.game, a, a == mover, self.observation_kind) for a in self.agents
        }

    def reset(
        self, seed: int | None = None, options: dict | None = None
    ) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, dict]]:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.game = gore.Game(self.rules)
        self.agents = self.possible_agents[:]
        if self.render_mode == "human":
            self.render()
        return self._observations(), {a: {} for a in self.agents}

    def state(self) -> np.ndarray:
        """The global state: A's observation, the ply, the repetitions."""
        return _state(self.game)

    def step(self, actions: dict[str, int]) -> tuple[dict, dict, dict, dict, dict]:
        if not self.agents:
            raise gore.GoreError("step: the game is over; call reset()")
        mover = _AGENT[self.game.to_move]
        if mover not in actions:
            raise gore.ArgumentError(f"actions: no action for {mover}, the agent to move")
        action = int(actions[mover])
        agents = self.agents
        rewards = dict.fromkeys(agents, 0.0)
        infos: dict[str, dict] = {a: {} for a in agents}
        done = False
        if not self.game.position.is_legal(action):
            if self.illegal == "raise":
                self.game.play_index(action)  # raises IllegalAction, naming the rule
            elif self.illegal == "random":
                legal = self.game.legal_indices()
                action = legal[int(self._rng.integers(len(legal)))]
                infos[mover]["replaced"] = True
            else:
                rewards[mover] = -1.0
                for a in agents:
                    infos[a]["illegal_action"] = (mover, action)
                done = True
        if not done:
            outcome = self.game.play_index(action)
            if outcome is not None:
                rewards = _final_rewards(outcome, self.reward_kind, self.rules.total_seeds)
                infos = {a: {**infos[a], **_outcome_info(outcome)} for a in agents}
                done = True
        truncated = (
            not done and self.max_cycles is not None and self.game.ply >= self.max_cycles
        )
        observations = self._observations()
        if done or truncated:
            # Nobody acts any more: every mask is zero.
            for o in observations.values():
                o["action_mask"][:] = 0
        terminations = dict.fromkeys(agents, done)
        truncations = dict.fromkeys(agents, truncated)
        if done or truncated:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos

    def render(self) -> str | np.ndarray | None:
        """``"ansi"``: the board as text; ``"human"``: prints it;
        ``"rgb_array"``: the board as an image (gore.render.rgb_array)."""
        if self.render_mode is None:
            return None
        if self.render_mode == "rgb_array":
            return rgb_array(self.game.position)
        text = render_ansi(self.game.position)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

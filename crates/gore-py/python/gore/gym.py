"""Gymnasium environments (docs/PYTHON.md, "Gymnasium").

Importing this module registers two ids:

- ``"Gore-v0"``: :class:`GoreEnv`, one game against the built-in AI at a
  chosen level (``gymnasium.make("gore.gym:Gore-v0", level=3)``), the
  single-agent environment SB3, CleanRL and RLlib baselines take;
- ``"GoreSelfPlay-v0"``: :class:`GoreVectorEnv`, a ``gymnasium.vector.VectorEnv``
  over :class:`gore.vector.GoreBatch` in which the learner plays both sides
  (``gymnasium.make_vec("gore.gym:GoreSelfPlay-v0", num_envs=1024)``).

Both observe the canonical observation (28 float32, from the player to
move: the batch's) and act with the 103 action numbers; the legal ones
are in ``info["action_mask"]`` (and ``GoreEnv.action_masks()``, as
sb3-contrib's MaskablePPO asks).
"""

from __future__ import annotations

from typing import Any, Optional

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

import gore

from .vector import GoreBatch

__all__ = ["GoreEnv", "GoreVectorEnv", "observation_space"]


def observation_space(rules: gore.Rules, max_steps: Optional[int] = None) -> spaces.Box:
    """The canonical observation's space under ``rules``: seeds and
    captured seeds up to the seeds in the game, the hole flags 0 or 1, the
    ply up to the rules' cap (or ``max_steps``; else float32's largest),
    the repetition count up to 2 (a third occurrence ends the game)."""
    total = float(rules.total_seeds)
    high = np.full(gore.CANONICAL_SIZE, total, dtype=np.float32)
    high[8:24] = 1.0
    caps = [c for c in (rules.ply_cap, max_steps) if c is not None]
    high[26] = float(min(caps)) if caps else np.finfo(np.float32).max
    high[27] = 2.0
    return spaces.Box(low=0.0, high=high, dtype=np.float32)


def _rules(rules: Any) -> gore.Rules:
    return rules if isinstance(rules, gore.Rules) else gore.Rules(rules)


def _check_reward(reward: str) -> None:
    if reward not in ("score", "win"):
        raise gore.ArgumentError(f"reward: expected 'score' or 'win', not {reward!r}")


def _final_reward(outcome: gore.Outcome, me: str, kind: str, total: int) -> float:
    a, b = outcome.seeds
    mine, theirs = (a, b) if me == "A" else (b, a)
    if kind == "win":
        return float((mine > theirs) - (mine < theirs))
    return (mine - theirs) / total


class GoreEnv(gymnasium.Env):
    """One game of Goré against the built-in AI (``gore.search`` at
    ``level``, its deliberate mistakes seeded from the environment's
    generator).

    The agent plays ``side`` (``"A"`` moves first, ``"B"``, or
    ``"random"``: drawn at each reset). A step plays the agent's action,
    then the AI's replies until the agent is to move again or the game is
    over (an offer is answered by whoever it is made to, so the agent may
    answer the AI's offers). The reward is 0 until the end, then
    ``"score"`` (own final seeds minus the opponent's, over the seeds in
    the game) or ``"win"`` (1, 0, -1). An illegal action ends the episode
    (``terminated``, reward -1, ``info["illegal_action"]``) with
    ``illegal="lose"``, or raises gore.IllegalAction with
    ``illegal="raise"``. ``max_steps`` truncates after that many of the
    agent's steps.

    ``info`` holds ``"action_mask"`` (103 int8), ``"opponent_actions"``
    (the AI's action numbers in this step) and ``"opponent_seeds"`` (the
    seeds it searched with).
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}

    def __init__(
        self,
        level: int = 1,
        rules: Any = "standard",
        side: str = "A",
        reward: str = "win",
        illegal: str = "lose",
        max_steps: Optional[int] = None,
        render_mode: Optional[str] = None,
    ) -> None:
        if isinstance(level, bool) or not isinstance(level, int):
            raise TypeError(f"level: expected an int, not {type(level).__name__}")
        if not 1 <= level <= gore.MAX_LEVEL:
            raise gore.ArgumentError(f"level: expected 1 to {gore.MAX_LEVEL}, not {level}")
        if side not in ("A", "B", "random"):
            raise gore.ArgumentError(f"side: expected 'A', 'B' or 'random', not {side!r}")
        _check_reward(reward)
        if illegal not in ("lose", "raise"):
            raise gore.ArgumentError(f"illegal: expected 'lose' or 'raise', not {illegal!r}")
        if max_steps is not None and max_steps < 1:
            raise gore.ArgumentError(f"max_steps: expected at least 1, not {max_steps}")
        if render_mode not in (None, "ansi", "rgb_array"):
            raise gore.ArgumentError(
                f"render_mode: expected None, 'ansi' or 'rgb_array', not {render_mode!r}"
            )
        self.level = level
        self.rules = _rules(rules)
        self.side = side
        self.reward_kind = reward
        self.illegal = illegal
        self.max_steps = max_steps
        self.render_mode = render_mode
        self.observation_space = observation_space(self.rules)
        self.action_space = spaces.Discrete(gore.NUM_ACTIONS)
        self.game = gore.Game(self.rules)
        self.me = "A"
        self._steps = 0
        self._done = False

    def _obs(self) -> np.ndarray:
        return np.frombuffer(self.game.canonical_observation(), dtype=np.float32).copy()

    def action_masks(self) -> np.ndarray:
        """The legal action numbers as 103 booleans (none once over)."""
        if self.game.is_over:
            return np.zeros(gore.NUM_ACTIONS, dtype=bool)
        return np.frombuffer(self.game.legal_mask(), dtype=np.uint8).astype(bool)

    def _info(self, opponent: list[int], seeds: list[int]) -> dict[str, Any]:
        return {
            "action_mask": self.action_masks().astype(np.int8),
            "opponent_actions": opponent,
            "opponent_seeds": seeds,
        }

    def _opponent(self) -> tuple[list[int], list[int]]:
        """The AI's moves while it is to move."""
        acts, seeds = [], []
        while not self.game.is_over and self.game.to_move != self.me:
            seed = int(self.np_random.integers(0, 2**63 - 1))
            r = gore.search(self.game, level=self.level, seed=seed, hash_mb=1)
            assert r is not None  # a game that goes on has a legal action
            self.game.play(r.best)
            acts.append(r.best.index)
            seeds.append(seed)
        return acts, seeds

    def reset(
        self, *, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        self.game = gore.Game(self.rules)
        if self.side == "random":
            self.me = "AB"[int(self.np_random.integers(0, 2))]
        else:
            self.me = self.side
        self._steps = 0
        self._done = False
        acts, seeds = self._opponent()
        return self._obs(), self._info(acts, seeds)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._done:
            raise gore.GoreError("the episode is over: call reset()")
        index = int(action)
        self._steps += 1
        legal = 0 <= index < gore.NUM_ACTIONS and bool(self.action_masks()[index])
        if not legal:
            if self.illegal == "raise":
                self.game.play_index(index)  # raises IllegalAction / ActionError
            info = self._info([], [])
            info["illegal_action"] = True
            self._done = True
            return self._obs(), -1.0, True, False, info
        out = self.game.play_index(index)
        acts: list[int] = []
        seeds: list[int] = []
        if out is None:
            acts, seeds = self._opponent()
        info = self._info(acts, seeds)
        reward = 0.0
        if self.game.is_over:
            reward = _final_reward(self.game.outcome, self.me, self.reward_kind, self.rules.total_seeds)
            self._done = True
            return self._obs(), reward, True, False, info
        truncated = self.max_steps is not None and self._steps >= self.max_steps
        self._done = truncated
        return self._obs(), reward, False, truncated, info

    def render(self) -> Any:
        """``"ansi"``: the position's text; ``"rgb_array"``: the board as
        an image (gore.render.rgb_array)."""
        if self.render_mode == "ansi":
            return str(self.game.position)
        if self.render_mode == "rgb_array":
            from .render import rgb_array

            return rgb_array(self.game.position)
        return None


class GoreVectorEnv(VectorEnv):
    """``num_envs`` games of self-play over :class:`gore.vector.GoreBatch`
    (auto-reset in the same step: Gymnasium's ``AutoresetMode.SAME_STEP``).

    The observation is the batch's (each game from its player to move);
    ``rewards`` are those of the player who acted in the step (0 until the
    game ends); ``infos`` hold the batch's step info (``"final_obs"`` and
    ``"_final_obs"``, ``"end_reason"``) and ``"action_mask"``,
    ``"current_player"`` and ``"rewards"`` (n × 2: A's and B's). An
    illegal action raises gore.IllegalAction: mask the policy.
    ``reset(seed=s)`` starts every game again with the batch's generator
    seeded by ``s``; ``reset(options={"reset_mask": m})`` starts only the
    games where ``m`` is true.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int = 16,
        rules: Any = "standard",
        reward: str = "score",
        max_steps: Optional[int] = None,
        threads: int = 1,
    ) -> None:
        _check_reward(reward)
        self.rules = _rules(rules)
        self._args = dict(rules=self.rules, reward=reward, max_steps=max_steps, threads=threads)
        self.batch = GoreBatch(num_envs, seed=0, **self._args)
        self.num_envs = num_envs
        self.single_observation_space = observation_space(self.rules, max_steps)
        self.single_action_space = spaces.Discrete(gore.NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.render_mode = None

    def _infos(self, step_info: Optional[dict[str, np.ndarray]] = None) -> dict[str, Any]:
        b = self.batch
        infos: dict[str, Any] = dict(step_info or {})
        infos["action_mask"] = b.legal_action_mask
        infos["current_player"] = b.current_player
        infos["rewards"] = b.rewards
        return infos

    def reset(
        self, *, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        if seed is not None and not isinstance(seed, (int, np.integer)):
            raise TypeError(f"seed: expected an int or None, not {type(seed).__name__}")
        super().reset(seed=seed)
        mask = (options or {}).get("reset_mask")
        if seed is not None:
            self.batch = GoreBatch(self.num_envs, seed=int(seed), **self._args)
        elif mask is not None:
            self.batch.reset(np.asarray(mask, dtype=bool))
        else:
            self.batch.reset()
        return self.batch.observation, self._infos()

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        b = self.batch
        mover = b.current_player.astype(np.intp)
        info = b.step(np.asarray(actions, dtype=np.int64))
        rewards = b.rewards[np.arange(self.num_envs), mover]
        return b.observation, rewards, b.terminated, b.truncated, self._infos(info)


def _register() -> None:
    registry = gymnasium.envs.registration.registry
    if "Gore-v0" not in registry:
        gymnasium.register(id="Gore-v0", entry_point="gore.gym:GoreEnv")
    if "GoreSelfPlay-v0" not in registry:
        gymnasium.register(id="GoreSelfPlay-v0", vector_entry_point="gore.gym:GoreVectorEnv")


_register()

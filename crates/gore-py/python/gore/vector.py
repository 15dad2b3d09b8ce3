"""Batches of games for training: :class:`GoreBatch` and the board's symmetry.

``GoreBatch(n, rules="standard", seed=0, auto_reset=True, reward="score",
max_steps=None, threads=1)`` holds ``n`` games stepped together in Rust
(without the GIL, in up to ``threads`` threads). Its arrays
(``observation``, ``legal_action_mask``, ``current_player``, ``rewards``,
``terminated``, ``truncated``, ``ply``) are new read-only numpy arrays
after each change: one kept from a step is never overwritten. ``step``
returns the step's info: ``final_obs``, ``_final_obs`` and ``end_reason``
(an index into :data:`END_REASONS`). ``game(i)``, ``set_game(i, game)``
and ``copy_games(src, dst)`` read, write and copy single games; the batch
pickles and copies. See docs/PYTHON.md, "GoreBatch".

The symmetry: nothing in the rules names a row or a hole, only who
controls it, so turning the loop of eight holes by ``k`` holes (a hole's
seeds, controller and place in an offer move ``k`` holes forward) gives a
position that plays exactly alike, actions turned the same way. The
canonical observation already uses the turn by four (B sees the board as
A does); :func:`rotate_observation` and :func:`rotate_policy` give the
other turns, for data augmentation.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _gore
from ._gore import CANONICAL_SIZE, END_REASONS, GoreBatch

__all__ = [
    "GoreBatch",
    "CANONICAL_SIZE",
    "END_REASONS",
    "HOLES",
    "action_rotations",
    "rotate_observation",
    "rotate_policy",
    "rotate_position",
    "score_policy",
]

#: The holes in board order (the loop a1 → … → b4 → a1).
HOLES = ("a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4")


def _rotate_hole(hole: str, k: int) -> str:
    return HOLES[(HOLES.index(hole) + k) % 8]


def _rotate_action(index: int, k: int) -> int:
    a = _gore.Action.from_index(index)
    if a.kind == "sow":
        return _gore.Action(_rotate_hole(a.holes[0], k)).index
    if a.kind == "offer":
        holes = sorted((_rotate_hole(h, k) for h in a.holes), key=HOLES.index)
        return _gore.Action("offer:" + ",".join(holes)).index
    return index


_ROTATIONS = np.array(
    [[_rotate_action(i, k) for i in range(_gore.NUM_ACTIONS)] for k in range(8)],
    dtype=np.int64,
)
_ROTATIONS.flags.writeable = False


def action_rotations() -> np.ndarray:
    """An (8, 103) int64 array: row ``k`` maps each action number to the
    number of the same action turned ``k`` holes forward (answers and pass
    unchanged). Read-only."""
    return _ROTATIONS


def _check_k(k: Any) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"k: expected an integer, not {type(k).__name__}")
    return int(k) % 8


def rotate_position(position: _gore.Position, k: int) -> _gore.Position:
    """The position turned ``k`` holes forward (seeds, controllers and the
    pending offer move along the loop; captured seeds and the player to
    move stay)."""
    if not isinstance(position, _gore.Position):
        raise TypeError(f"position: expected a gore.Position, not {type(position).__name__}")
    k = _check_k(k)
    seeds = position.seeds
    ctrl = position.controllers
    new_seeds = [seeds[(i - k) % 8] for i in range(8)]
    new_ctrl = [ctrl[(i - k) % 8] for i in range(8)]
    offer = position.pending_offer
    if offer:
        turned = sorted((_rotate_hole(h, k) for h in offer), key=HOLES.index)
        offer_text = "+".join(turned)
    else:
        offer_text = "-"
    a, b = position.captured
    gpn = (
        ",".join(map(str, new_seeds[:4]))
        + "/"
        + ",".join(map(str, new_seeds[4:]))
        + " "
        + "".join(new_ctrl[:4])
        + "/"
        + "".join(new_ctrl[4:])
        + f" {a}-{b} {position.to_move} {offer_text}"
    )
    return _gore.Position(gpn, position.rules)


def rotate_observation(obs: np.ndarray, k: int) -> np.ndarray:
    """Canonical observations (``(..., 28)``, as GoreBatch gives them) of
    the positions turned ``k`` holes forward: a new array."""
    k = _check_k(k)
    obs = np.asarray(obs)
    if obs.shape[-1:] != (CANONICAL_SIZE,):
        raise _gore.GoreError(f"obs: expected a last dimension of {CANONICAL_SIZE}, not {obs.shape}")
    out = obs.copy()
    for start in (0, 8, 16):
        out[..., start : start + 8] = np.roll(obs[..., start : start + 8], k, axis=-1)
    return out


def rotate_policy(policy: np.ndarray, k: int) -> np.ndarray:
    """Values over the 103 action numbers (``(..., 103)``: a policy, a
    mask) moved to the actions turned ``k`` holes forward: a new array."""
    k = _check_k(k)
    policy = np.asarray(policy)
    if policy.shape[-1:] != (_gore.NUM_ACTIONS,):
        raise _gore.GoreError(
            f"policy: expected a last dimension of {_gore.NUM_ACTIONS}, not {policy.shape}"
        )
    out = np.empty_like(policy)
    out[..., _ROTATIONS[k]] = policy
    return out


def score_policy(
    db: _gore.SolvedDb,
    observations: Any,
    players: Any,
    actions: Any,
    rules: Any = "no-trades",
) -> dict[str, Any]:
    """Scores a policy's chosen ``actions`` (n action numbers) in the
    positions given by their canonical ``observations`` (n × 28) and
    ``players`` to move (n: 0 for A, 1 for B), as GoreBatch gives them,
    against the solved database ``db`` (``SolvedDb.probe_many``).

    Returns ``"positions"`` (how many were within the database's layers
    and not over: the others are not scored), ``"optimal"`` (the share of
    those where the chosen action is worth as much as the best one),
    ``"mean_loss"`` (the mean of ``"loss"`` over them) and ``"loss"`` (n
    float32: the best action's value minus the chosen one's, in the
    mover's final seeds; NaN where not scored). A chosen action not legal
    in a scored position raises gore.IllegalAction."""
    probed = db.probe_many(observations, players, rules)
    acts = np.asarray(actions)
    n = len(probed["found"])
    if acts.shape != (n,) or not np.issubdtype(acts.dtype, np.integer):
        raise _gore.ActionError(f"actions: expected {n} action numbers, not an array of shape {acts.shape}")
    if ((acts < 0) | (acts >= _gore.NUM_ACTIONS)).any():
        raise _gore.ActionError(f"actions: expected numbers 0 to {_gore.NUM_ACTIONS - 1}")
    found = probed["found"]
    values = probed["action_values"]
    chosen = values[np.arange(n), acts]
    illegal = found & np.isnan(chosen)
    if illegal.any():
        i = int(np.flatnonzero(illegal)[0])
        raise _gore.IllegalAction(f"position {i}: action {int(acts[i])} is not legal")
    loss = np.full(n, np.nan, dtype=np.float32)
    if found.any():
        best = np.nanmax(values[found], axis=1)
        loss[found] = best - chosen[found]
    k = int(found.sum())
    return {
        "positions": k,
        "optimal": float((loss[found] == 0).mean()) if k else float("nan"),
        "mean_loss": float(loss[found].mean()) if k else float("nan"),
        "loss": loss,
    }

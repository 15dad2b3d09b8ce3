"""Goré as an OpenSpiel game.

``import gore.openspiel`` registers the Python game ``python_gore`` with
``pyspiel``: two players (0 is A, 1 is B), sequential, deterministic,
perfect information, the 103 actions of docs/PYTHON.md, terminal returns
(``reward="score"``: the final seed difference over the seeds in the game,
in [-1, 1]; ``reward="win"``: 1, 0 or -1), observation tensors of 28 floats
(the canonical observation of GoreBatch, PettingZoo and gore.gym, from
the player's side, the ply and the repetition count included: with the
ply cap OpenSpiel needs, the ply is part of the state; the parameter
``observation="board"`` gives the 30 floats before issue 40 instead),
``undo_action``, and
states serialized as the start position's GPN followed by the actions
played (the history counts for threefold repetition, so the GPN of the
current position alone would not do).

Parameters: the rule options ``seeds`` (6), ``skip_origin``, ``no_trades``,
``cede_all`` (False), ``reward`` (``"score"``), ``observation``
(``"canonical"`` or ``"board"``) and ``ply_cap`` (1000):
OpenSpiel needs a maximum game length, so the game is played with the
``ply-cap`` option (it ends after that many actions, scored by the seeds,
as RULES.md says).

    import pyspiel, gore.openspiel
    game = pyspiel.load_game("python_gore", {"no_trades": True})
"""

from __future__ import annotations

import numpy as np
import pyspiel
from open_spiel.python.observation import IIGObserverForPublicInfoGame

import gore
from gore.pettingzoo import render_ansi

__all__ = [
    "GoreGame",
    "GoreState",
    "GAME_TYPE",
    "DEFAULT_PLY_CAP",
    "TENSOR_SIZE",
    "BOARD_TENSOR_SIZE",
]

#: The ply cap set when the rules give none (OpenSpiel needs a maximum length).
DEFAULT_PLY_CAP = 1000

_PLAYERS = ("A", "B")
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)

#: Length of the observation tensor: the canonical observation
#: (``gore.CANONICAL_SIZE``, its ply and repetition count included).
TENSOR_SIZE = gore.CANONICAL_SIZE
#: Length of the tensor with ``observation="board"``: the board-order
#: layout of ``Game.observation``, then the ply and the repetition count.
BOARD_TENSOR_SIZE = gore.OBSERVATION_SIZE + 2

GAME_TYPE = pyspiel.GameType(
    short_name="python_gore",
    long_name="Python Goré",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={
        "seeds": 6,
        "skip_origin": False,
        "no_trades": False,
        "cede_all": False,
        "ply_cap": DEFAULT_PLY_CAP,
        "reward": "score",
        "observation": "canonical",
    },
)


def _game_rules(params: dict) -> gore.Rules:
    """The rule set of the parameters (one each: OpenSpiel's game strings
    cannot hold the commas of a rule-set text)."""
    cap = int(params.get("ply_cap", DEFAULT_PLY_CAP))
    if cap < 1:
        raise gore.ArgumentError(f"ply_cap: must be at least 1, not {cap}")
    options = [f"seeds={int(params.get('seeds', 6))}"]
    for name in ("skip_origin", "no_trades", "cede_all"):
        if params.get(name, False):
            options.append(name.replace("_", "-"))
    options.append(f"ply-cap={cap}")
    return gore.Rules(",".join(options))


class GoreGame(pyspiel.Game):
    """Goré: see the module's documentation."""

    def __init__(self, params: dict | None = None) -> None:
        params = dict(params or {})
        self.rules = _game_rules(params)
        self.reward_kind = str(params.get("reward", "score"))
        if self.reward_kind not in ("score", "win"):
            raise gore.ArgumentError(f"reward: expected 'score' or 'win', not {self.reward_kind!r}")
        self.observation_kind = str(params.get("observation", "canonical"))
        if self.observation_kind not in ("canonical", "board"):
            raise gore.ArgumentError(
                f"observation: expected 'canonical' or 'board', not {self.observation_kind!r}"
            )
        info = pyspiel.GameInfo(
            num_distinct_actions=gore.NUM_ACTIONS,
            max_chance_outcomes=0,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=int(self.rules.ply_cap),
        )
        super().__init__(GAME_TYPE, info, params)

    def new_initial_state(self) -> "GoreState":
        return GoreState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        if iig_obs_type is None or (
            iig_obs_type.public_info and not iig_obs_type.perfect_recall
        ):
            return GoreObserver(params, self.observation_kind)
        return IIGObserverForPublicInfoGame(iig_obs_type, params)

    def deserialize_state(self, text: str) -> "GoreState":
        """The state of ``serialize()``'s text: the start GPN on the first
        line, then one action token per line."""
        lines = text.strip("\n").split("\n")
        start = gore.Position(lines[0], self.rules)
        state = GoreState(self, start=start)
        for token in lines[1:]:
            if token:
                state.apply_action(gore.Action(token).index)
        return state


class GoreState(pyspiel.State):
    """A Goré game in progress: a ``gore.Game``.

    The legal actions and the player to move are worked out once per action
    (``Game.step`` plays and returns the next legal actions) and kept:
    OpenSpiel asks for them several times per action (``legal_actions``
    asks ``is_terminal`` and ``current_player`` first; ``apply_action``
    asks ``current_player``). ``legal_actions`` is answered from Python,
    without going through C++ and back.

    ``undo_action`` takes the last action back (``Game.undo``). OpenSpiel's
    own history of a Python state lives in C++, out of Python's reach (and
    ``apply_action`` from Python does not go through C++), so ``history``,
    ``full_history``, ``history_str``, ``move_number`` and
    ``is_initial_state`` are answered from the game here.
    """

    def __init__(self, game: GoreGame, start: gore.Position | None = None) -> None:
        super().__init__(game)
        self._rules = game.rules
        self._reward_kind = game.reward_kind
        self.game_state = gore.Game(self._rules, start)
        self._refresh(self.game_state.legal_indices())

    def _refresh(self, legal: list[int]) -> None:
        """Keeps the legal actions (empty once over) and the player to move."""
        self._legal = legal
        if not legal:
            self._player = _TERMINAL
        else:
            self._player = 0 if self.game_state.to_move == "A" else 1

    def current_player(self) -> int:
        return self._player

    def legal_actions(self, player: int | None = None) -> list[int]:
        if player is not None and player != self._player:
            return []
        return list(self._legal)

    def _legal_actions(self, player: int) -> list[int]:
        return list(self._legal)

    def _apply_action(self, action: int) -> None:
        self._refresh(self.game_state.step(int(action)))

    def apply_action(self, action: int) -> None:
        """Plays ``action`` (raises gore.IllegalAction if it is illegal).
        From Python this skips the round trip through C++ (which would ask
        ``current_player`` and then call ``_apply_action``); C++ callers
        still come through ``_apply_action``. Either way the history is
        the game's (see the class)."""
        self._refresh(self.game_state.step(int(action)))

    def undo_action(self, player: int, action: int) -> None:
        """Takes back ``action``, the last action, played by ``player``;
        raises gore.GoreError if it was not."""
        g = self.game_state
        if g.ply == 0:
            raise gore.GoreError("undo_action: no action has been played")
        last = g.actions[-1].index
        mover = 0 if g.history[-2].to_move == "A" else 1
        if (int(player), int(action)) != (mover, last):
            raise gore.GoreError(
                f"undo_action: the last action is {last} by player {mover}, "
                f"not {int(action)} by player {int(player)}"
            )
        g.undo()
        self._refresh(g.legal_indices())

    def history(self) -> list[int]:
        return [a.index for a in self.game_state.actions]

    def full_history(self) -> list[pyspiel.PlayerAction]:
        g = self.game_state
        return [
            pyspiel.PlayerAction(0 if p.to_move == "A" else 1, a.index)
            for p, a in zip(g.history, g.actions)
        ]

    def history_str(self) -> str:
        return ", ".join(str(a) for a in self.history())

    def move_number(self) -> int:
        return self.game_state.ply

    def is_initial_state(self) -> bool:
        return self.game_state.ply == 0

    def _action_to_string(self, player: int, action: int) -> str:
        return str(gore.Action.from_index(int(action)))

    def is_terminal(self) -> bool:
        return self._player == _TERMINAL

    def returns(self) -> list[float]:
        outcome = self.game_state.outcome
        if outcome is None:
            return [0.0, 0.0]
        a, b = outcome.seeds
        if self._reward_kind == "win":
            r = float((a > b) - (a < b))
        else:
            r = (a - b) / float(self._rules.total_seeds)
        return [r, -r]

    def serialize(self) -> str:
        """The start GPN, then the actions played, one per line."""
        g = self.game_state
        return "\n".join([g.start.gpn] + [str(a) for a in g.actions]) + "\n"

    def __str__(self) -> str:
        return render_ansi(self.game_state.position)


class GoreObserver:
    """The observation tensor from a player's side: the canonical
    observation (``TENSOR_SIZE`` float32: ``Game.canonical_observation``
    of the player, his holes first), or with ``kind="board"`` the layout
    before issue 40 (``BOARD_TENSOR_SIZE``: ``Game.observation``, the ply,
    the repetition count); the string is the position's GPN and the
    repetition count."""

    def __init__(self, params, kind: str = "canonical") -> None:
        if params:
            raise gore.ArgumentError(f"observation parameters not supported: {params}")
        self.kind = kind
        size = TENSOR_SIZE if kind == "canonical" else BOARD_TENSOR_SIZE
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: GoreState, player: int) -> None:
        g = state.game_state
        if self.kind == "canonical":
            self.tensor[:] = np.frombuffer(
                g.canonical_observation(_PLAYERS[player]), dtype=np.float32
            )
            return
        self.tensor[: gore.OBSERVATION_SIZE] = np.frombuffer(
            g.observation(_PLAYERS[player]), dtype=np.float32
        )
        self.tensor[gore.OBSERVATION_SIZE] = g.ply
        self.tensor[gore.OBSERVATION_SIZE + 1] = g.repetitions

    def string_from(self, state: GoreState, player: int) -> str:
        g = state.game_state
        return f"{_PLAYERS[player]} observes {g.position.gpn} (repetitions {g.repetitions})"


pyspiel.register_game(GAME_TYPE, GoreGame)

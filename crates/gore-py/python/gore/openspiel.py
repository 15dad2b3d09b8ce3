"""Goré as an OpenSpiel game.

``import gore.openspiel`` registers the Python game ``python_gore`` with
``pyspiel``: two players (0 is A, 1 is B), sequential, deterministic,
perfect information, the 103 actions of docs/PYTHON.md, terminal returns
(``reward="score"``: the final seed difference over the seeds in the game,
in [-1, 1]; ``reward="win"``: 1, 0 or -1), observation tensors of 28 floats,
and states serialized as the start position's GPN followed by the actions
played (the history counts for threefold repetition, so the GPN of the
current position alone would not do).

Parameters: the rule options ``seeds`` (6), ``skip_origin``, ``no_trades``,
``cede_all`` (False), ``reward`` (``"score"``) and ``ply_cap`` (1000):
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

__all__ = ["GoreGame", "GoreState", "GAME_TYPE", "DEFAULT_PLY_CAP"]

#: The ply cap set when the rules give none (OpenSpiel needs a maximum length).
DEFAULT_PLY_CAP = 1000

_PLAYERS = ("A", "B")

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
    },
)


def _game_rules(params: dict) -> gore.Rules:
    """The rule set of the parameters (one each: OpenSpiel's game strings
    cannot hold the commas of a rule-set text)."""
    cap = int(params.get("ply_cap", DEFAULT_PLY_CAP))
    if cap < 1:
        raise ValueError(f"ply_cap: must be at least 1, not {cap}")
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
            raise ValueError(f"reward: expected 'score' or 'win', not {self.reward_kind!r}")
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
            return GoreObserver(params)
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
    """A Goré game in progress: a ``gore.Game``."""

    def __init__(self, game: GoreGame, start: gore.Position | None = None) -> None:
        super().__init__(game)
        self._rules = game.rules
        self._reward_kind = game.reward_kind
        self.game_state = gore.Game(self._rules, start)

    def current_player(self) -> int:
        if self.game_state.is_over:
            return pyspiel.PlayerId.TERMINAL
        return 0 if self.game_state.to_move == "A" else 1

    def _legal_actions(self, player: int) -> list[int]:
        return self.game_state.legal_indices()

    def _apply_action(self, action: int) -> None:
        self.game_state.play_index(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        return str(gore.Action.from_index(int(action)))

    def is_terminal(self) -> bool:
        return self.game_state.is_over

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
    """The observation tensor of docs/PYTHON.md (28 float32) from a
    player's side; the string is the board's text."""

    def __init__(self, params) -> None:
        if params:
            raise ValueError(f"observation parameters not supported: {params}")
        self.tensor = np.zeros(gore.OBSERVATION_SIZE, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: GoreState, player: int) -> None:
        self.tensor[:] = np.frombuffer(
            state.game_state.observation(_PLAYERS[player]), dtype=np.float32
        )

    def string_from(self, state: GoreState, player: int) -> str:
        g = state.game_state
        return f"{_PLAYERS[player]} observes {g.position.gpn} (repetitions {g.repetitions})"


pyspiel.register_game(GAME_TYPE, GoreGame)

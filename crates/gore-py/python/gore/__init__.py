"""Goré, the Guro mancala with negotiation, for Python.

The rules (``Rules``, ``Position``, ``Action``, ``Game``), the AI
(``search``) and the solved database (``SolvedDb``, built by ``solve`` or
the ``gore-solve`` console script) are the Rust workspace's
own crates (gore-core, gore-ai, gore-solver) behind PyO3 bindings. The
PettingZoo environment is ``gore.pettingzoo`` and the OpenSpiel game
``gore.openspiel`` (import them; they need their frameworks installed);
the batch environment is ``gore.vector`` (it needs numpy).

See docs/PYTHON.md for the action numbering and the observation array.
"""

from gore._gore import (
    CANONICAL_SIZE,
    MAX_LEVEL,
    NUM_ACTIONS,
    OBSERVATION_SIZE,
    Action,
    ActionError,
    ArgumentError,
    Game,
    GoreError,
    GpnError,
    IllegalAction,
    Outcome,
    Position,
    Probe,
    RecordError,
    Rollouts,
    Rules,
    RulesError,
    SearchError,
    SearchResult,
    SolvedDb,
    SolvedDbError,
    SolvedValue,
    __version__,
    random_playouts,
    search,
    solve,
)

__all__ = [
    "CANONICAL_SIZE",
    "MAX_LEVEL",
    "NUM_ACTIONS",
    "OBSERVATION_SIZE",
    "Action",
    "ActionError",
    "ArgumentError",
    "Game",
    "GoreError",
    "GpnError",
    "IllegalAction",
    "Outcome",
    "Position",
    "Probe",
    "RecordError",
    "Rollouts",
    "Rules",
    "RulesError",
    "SearchError",
    "SearchResult",
    "SolvedDb",
    "SolvedDbError",
    "SolvedValue",
    "__version__",
    "random_playouts",
    "search",
    "solve",
]

"""Goré, the Guro mancala with negotiation, for Python.

The rules (``Rules``, ``Position``, ``Action``, ``Game``), the AI
(``search``) and the solved database (``SolvedDb``, built by ``solve`` or
the ``gore-solve`` console script) are the Rust workspace's
own crates (gore-core, gore-ai, gore-solver) behind PyO3 bindings. The
Gymnasium environments are ``gore.gym``, the PettingZoo environment
``gore.pettingzoo`` and the OpenSpiel game ``gore.openspiel`` (import
them; they need their frameworks installed); the batch environment is
``gore.vector`` (it needs numpy). All observe the canonical observation
(``Game.canonical_observation``); ``gore.render`` draws a position as an
image.

See docs/PYTHON.md for the action numbering and the observation.
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

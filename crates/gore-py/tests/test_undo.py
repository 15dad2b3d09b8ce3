"""Game.undo: the game as it was before its last action."""

from __future__ import annotations

import random

import pytest

import gore


def _state(g: gore.Game):
    return (
        g.position,
        g.ply,
        g.actions,
        g.history,
        g.repetitions,
        g.is_over,
        g.has_declined("A"),
        g.has_declined("B"),
        g.legal_indices(),
    )


@pytest.mark.parametrize("seed", range(4))
def test_undo_gives_back_each_earlier_game(seed):
    """The naive model: the same actions replayed from the start, one
    fewer each time."""
    rng = random.Random(seed)
    g = gore.Game("ply-cap=300")
    while not g.is_over:
        legal = g.legal_indices()
        g.play_index(legal[rng.randrange(len(legal))])
    played = [a.index for a in g.actions]
    for n in range(len(played), 0, -1):
        undone = g.undo()
        assert undone.index == played[n - 1]
        replay = gore.Game("ply-cap=300")
        for a in played[: n - 1]:
            replay.play_index(a)
        assert _state(g) == _state(replay)
    with pytest.raises(gore.GoreError, match="undo: no action"):
        g.undo()


def test_undo_of_a_repetition_and_a_decline():
    # test_rules' repetition: offer, decline, pass twice; the third
    # occurrence ends the game, 36-12.
    g = gore.Game("standard", gore.Position("6,6,6,6/0,0,0,0 AAAA/BBBB 12-12 A -"))
    for token in ["offer:a1", "decline", "pass"] * 2:
        g.play(token)
    assert g.is_over and g.outcome.reason == "repetition"
    assert str(g.undo()) == "pass"
    assert not g.is_over and g.outcome is None
    assert g.to_move == "B" and 102 in g.legal_indices()  # the pass again
    assert g.repetitions == 2 and g.has_declined("B")  # as after ply 2
    assert str(g.undo()) == "decline"
    assert g.position.pending_offer == ["a1"] and g.has_declined("B")  # the first decline
    g.undo(), g.undo(), g.undo()
    assert str(g.undo()) == "offer:a1" and g.ply == 0
    assert not g.has_declined("B")
    assert g.position == g.start

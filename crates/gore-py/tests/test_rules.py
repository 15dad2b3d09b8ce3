"""The rules through Python: notation, the action numbering, agreement with
the Rust core's CLI and with the independent pure-Python reference on
seeded random games, perft, records, pickling."""

from __future__ import annotations

import pickle
import random
from itertools import combinations

import pytest

import gore
from reference import RefGame


def random_game(seed: int, rules: str = "standard", max_plies: int = 400) -> gore.Game:
    rng = random.Random(seed)
    g = gore.Game(rules)
    while not g.is_over and g.ply < max_plies:
        legal = g.legal_actions()
        g.play(legal[rng.randrange(len(legal))])
    return g


def test_start_position_and_notation():
    p = gore.Position()
    assert p.gpn == "6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 A -"
    assert p.seeds == [6] * 8
    assert p.controllers == ["A"] * 4 + ["B"] * 4
    assert p.captured == (0, 0)
    assert p.to_move == "A"
    assert p.pending_offer is None
    # The example of RULES.md: A offered a2 and a4 to B, who must answer.
    q = gore.Position("0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B a2+a4")
    assert q.pending_offer == ["a2", "a4"]
    assert q.to_move == "B"
    assert [str(a) for a in q.legal_actions()] == ["accept", "decline"]
    assert gore.Position(str(q)) == q
    assert gore.Position.start("seeds=4").seeds == [4] * 8


def test_first_worked_example_of_the_rules():
    # RULES.md: B sows b2 (4 seeds), takes a2=4, a1=2 and b4=2: 8 seeds.
    p = gore.Position("1,3,1,5/3,4,2,1 AAAA/BBBB 14-14 B -")
    q = p.play("b2")
    assert q.gpn == "0,0,1,5/3,0,3,0 AAAA/BBBB 14-22 A -"
    assert p.play(gore.Action("b2")) == q
    assert p.play(gore.Action("b2").index) == q


def test_action_numbering():
    # docs/PYTHON.md: 0-7 sowings, 8-15 single offers, 16-43 pairs,
    # 44-99 triples (lexicographic in board order), 100-102 answers, pass.
    holes = ["a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4"]
    expected = list(holes)
    for k in (1, 2, 3):
        for c in combinations(holes, k):
            expected.append("offer:" + ",".join(c))
    expected += ["accept", "decline", "pass"]
    assert len(expected) == gore.NUM_ACTIONS == 103
    for i, token in enumerate(expected):
        a = gore.Action.from_index(i)
        assert str(a) == token
        assert gore.Action(token).index == i
        assert int(a) == i
    assert str(gore.Action.from_index(8)) == "offer:a1"
    assert str(gore.Action.from_index(43)) == "offer:b3,b4"
    assert str(gore.Action.from_index(99)) == "offer:b2,b3,b4"
    assert gore.Action("offer:a1,a3").holes == ["a1", "a3"]
    assert gore.Action("offer:a1,a3").kind == "offer"


def test_step_plays_and_returns_the_next_legal_numbers():
    g = gore.Game()
    h = gore.Game()
    rng = random.Random(11)
    legal = g.legal_indices()
    while legal:
        a = legal[rng.randrange(len(legal))]
        legal = g.step(a)
        h.play_index(a)
        assert legal == h.legal_indices()
        assert g.position == h.position
    assert g.is_over and g.outcome.seeds == h.outcome.seeds
    with pytest.raises(gore.IllegalAction):
        g.step(0)


def test_legal_indices_match_the_actions():
    g = random_game(7, max_plies=60)
    pos = g.position
    assert pos.legal_indices() == sorted(a.index for a in pos.legal_actions())
    mask = pos.legal_mask()
    assert len(mask) == 103
    assert [i for i in range(103) if mask[i]] == pos.legal_indices()


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("rules", ["standard", "skip-origin,cede-all", "seeds=4,ply-cap=150"])
def test_random_games_agree_with_the_rust_cli(gore_cli, seed, rules):
    """Each position and the result of a seeded random game, played through
    Python, are those `gore apply` prints for the same actions; the legal
    actions at sampled positions are those `gore legal` prints."""
    g = random_game(1000 + seed, rules)
    tokens = [str(a) for a in g.actions]
    lines = gore_cli("apply", "--rules", rules, *tokens)
    history = g.history
    expected = []
    for i in range(1, len(history)):
        last = i == len(history) - 1
        if last and g.is_over:
            expected.append(g.position.gpn)  # swept at the end
            a, b = g.outcome.seeds
            expected.append(f"result {a}-{b}")
        else:
            expected.append(history[i].gpn)
    assert lines == expected
    for pos in history[:: max(1, len(history) // 8)]:
        if pos.is_ended:
            continue
        legal = gore_cli("legal", "--rules", rules, pos.gpn)
        assert legal == [str(a) for a in pos.legal_actions()]


@pytest.mark.parametrize("seed", range(20))
def test_random_games_agree_with_the_python_reference(seed):
    """The pure-Python reference of the benchmark, written from RULES.md
    alone, reaches the same positions and result on the same actions."""
    rng = random.Random(seed)
    g = gore.Game()
    ref = RefGame()
    while not g.is_over:
        legal = g.legal_indices()
        assert legal == ref.legal(), g.position.gpn
        a = legal[rng.randrange(len(legal))]
        g.play_index(a)
        ref.play(a)
        assert ref.gpn() == g.position.gpn
    assert ref.result == g.outcome.seeds
    assert sum(g.outcome.seeds) == 48


def ref_perft(game: RefGame, depth: int) -> int:
    if depth == 0:
        return 1
    total = 0
    for a in game.legal():
        child = RefGame()
        child.__dict__.update(
            seeds=list(game.seeds),
            ctrl=list(game.ctrl),
            captured=list(game.captured),
            to_move=game.to_move,
            offer=game.offer,
            seen={},
            result=None,
        )
        child.play(a)
        total += ref_perft(child, depth - 1) if child.result is None else int(depth == 1)
    return total


def test_perft_agrees_with_the_reference_and_the_cli(gore_cli):
    start = gore.Position()
    assert start.perft(1) == 4  # RULES.md: four sowings, no offer yet
    for d in (2, 3, 4, 5):
        assert start.perft(d) == ref_perft(RefGame(), d)
    lines = gore_cli("perft", "5")
    assert f"{start.perft(5)}" in " ".join(lines)


def test_threefold_repetition_declines_and_glory():
    # A offers a1 (B holds 12), B declines, B (no seeds in his holes)
    # passes: the start position again. The third time ends the game, and
    # the sweep gives A the 24 seeds of his holes.
    p0 = gore.Position("6,6,6,6/0,0,0,0 AAAA/BBBB 12-12 A -")
    g = gore.Game("standard", p0)
    for ply, token in enumerate(["offer:a1", "decline", "pass"] * 2, start=1):
        assert not g.is_over
        g.play(token)
        if token == "offer:a1":
            assert g.to_move == "B" and g.position.pending_offer == ["a1"]
        if token == "decline":
            assert g.to_move == "B" and g.position.pending_offer is None
    assert g.has_declined("B") and not g.has_declined("A")
    assert len(g.history) == 7
    assert g.is_over
    out = g.outcome
    assert out.reason == "repetition"
    assert out.seeds == (36, 12)
    assert out.winner == "A"
    assert out.declined == (False, True)
    assert not out.without_glory  # the winner never declined
    assert g.legal_actions() == []
    with pytest.raises(gore.IllegalAction, match="ended"):
        g.play("a1")


def test_records_round_trip():
    g = random_game(3, max_plies=80)
    text = g.record(players=("Ana", "Ben"), event="test")
    assert "Ana" in text and "Ben" in text
    again = gore.Game.from_record(text)
    assert again.actions == g.actions
    assert again.position == g.position
    with pytest.raises(gore.RecordError):
        gore.Game.from_record("this is no record")
    # The first action of A replaced by a sowing of B's: illegal on replay.
    bad = text.replace(f"1. {g.actions[0]} ", "1. b1 ", 1)
    assert bad != text
    with pytest.raises(gore.RecordError, match="b1"):
        gore.Game.from_record(bad)


def test_pickle_and_copy():
    import copy

    g = random_game(5, max_plies=50)
    for obj in (g.position, g.actions[0], g.rules, gore.Rules("seeds=4,no-trades")):
        assert pickle.loads(pickle.dumps(obj)) == obj
    g2 = pickle.loads(pickle.dumps(g))
    assert g2.actions == g.actions and g2.position == g.position
    g3 = copy.deepcopy(g)
    g3.play(g3.legal_actions()[0])
    assert g3.ply == g.ply + 1


def test_outcome_on_the_board():
    # RULES.md's third worked example: B sows b2 (3 seeds) and takes every
    # hole with seeds, 4+2+4+2+4+2+4 = 22: the board is empty, the game over.
    p = gore.Position("3,2,4,2/4,3,1,3 AAAA/BBBB 13-13 B -")
    g = gore.Game("standard", p)
    out = g.play("b2")
    assert out is not None and g.is_over
    assert out.reason == "board"
    assert out.seeds == (13, 35)
    assert out.winner == "B"

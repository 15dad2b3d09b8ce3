"""Bad input raises a gore error (a ValueError) naming the field or the
rule, and changes nothing."""

from __future__ import annotations

import pytest

import gore


def test_errors_are_value_errors():
    for e in (
        gore.GpnError,
        gore.RulesError,
        gore.ActionError,
        gore.IllegalAction,
        gore.RecordError,
        gore.SearchError,
        gore.SolvedDbError,
    ):
        assert issubclass(e, gore.GoreError)
        assert issubclass(e, ValueError)


@pytest.mark.parametrize(
    "gpn, words",
    [
        ("6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 A", "five fields"),
        ("6,6,6,x/6,6,6,6 AAAA/BBBB 0-0 A -", "seeds"),
        ("6,6,6,6/6,6,6,6 AAXA/BBBB 0-0 A -", "controllers"),
        ("6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 C -", "to move"),
        ("6,6,6,6/6,6,6,6 AAAA/BBBB 1-0 A -", "48"),
    ],
)
def test_bad_gpn_names_the_field(gpn, words):
    with pytest.raises(gore.GpnError, match=words):
        gore.Position(gpn)


def test_bad_rules_action_and_numbers():
    with pytest.raises(gore.RulesError, match="seeds"):
        gore.Rules("seeds=9")
    with pytest.raises(gore.RulesError):
        gore.Game("no-such-option")
    with pytest.raises(gore.ActionError):
        gore.Action("offer:a3,a1")  # board order only
    with pytest.raises(gore.ActionError):
        gore.Action("c1")
    for n in (-1, 103, 10**30):
        with pytest.raises((gore.ActionError, OverflowError)):
            gore.Action.from_index(n)
    with pytest.raises(gore.ActionError, match="0 to 102"):
        gore.Game().play_index(103)
    with pytest.raises(gore.ActionError):
        gore.Game().play(3.5)
    with pytest.raises(ValueError, match="player"):
        gore.Position().observation("C")


def test_illegal_actions_name_the_rule_and_change_nothing():
    g = gore.Game()
    before = (g.position, g.ply)
    with pytest.raises(gore.IllegalAction, match="not controlled by player A"):
        g.play("b1")
    with pytest.raises(gore.IllegalAction, match="no offer is pending"):
        g.play("accept")
    with pytest.raises(gore.IllegalAction, match="6 seeds per offered hole"):
        g.play("offer:a1")
    with pytest.raises(gore.IllegalAction, match="pass is allowed only"):
        g.play(102)
    assert (g.position, g.ply) == before
    with pytest.raises(gore.IllegalAction, match="no-trades"):
        gore.Position(rules="no-trades").play("offer:a1")
    p = gore.Position("0,3,7,1/2,0,5,9 AAAA/BBBB 9-12 B a2+a4")
    with pytest.raises(gore.IllegalAction, match="offer is pending"):
        p.play("b1")
    assert not p.is_legal("b1") and p.is_legal("accept")


def test_bad_search_arguments():
    with pytest.raises(gore.SearchError, match="level"):
        gore.search(gore.Position(), level=0)
    with pytest.raises(gore.SearchError, match="level"):
        gore.search(gore.Position(), level=gore.MAX_LEVEL + 1)
    with pytest.raises(gore.SearchError, match="depth"):
        gore.search(gore.Position(), depth=0)
    with pytest.raises(gore.SearchError, match="target"):
        gore.search("6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 A -", depth=2)


def test_bad_solved_db(tmp_path):
    with pytest.raises(gore.SolvedDbError, match="not a directory"):
        gore.SolvedDb(tmp_path / "missing")
    db = gore.SolvedDb(tmp_path)  # an empty directory: an empty database
    with pytest.raises(gore.SolvedDbError, match="no layer"):
        db.probe(gore.Position("0,0,1,3/1,0,0,0 AAAA/BBBB 22-21 A -", "no-trades"))

"""Bad input raises a gore error (a ValueError) naming the field or the
rule, and changes nothing; an argument of the wrong type raises TypeError.
Never OverflowError, never a plain ValueError."""

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
        gore.ArgumentError,
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
    for n in (-1, 103, 2**63, 2**64, 10**30, -(10**30)):
        with pytest.raises(gore.ActionError, match=f"action number {n}: expected 0 to 102"):
            gore.Action.from_index(n)
        g = gore.Game()
        for play in (g.play_index, g.step, g.play):
            with pytest.raises(gore.ActionError, match=f"action number {n}"):
                play(n)
        assert g.ply == 0 and g.position == gore.Position()
    with pytest.raises(gore.ActionError, match="0 to 102"):
        gore.Game().play_index(103)


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


def test_bad_solved_db(tmp_path):
    with pytest.raises(gore.SolvedDbError, match="not a directory"):
        gore.SolvedDb(tmp_path / "missing")
    db = gore.SolvedDb(tmp_path)  # an empty directory: an empty database
    with pytest.raises(gore.SolvedDbError, match="no layer"):
        db.probe(gore.Position("0,0,1,3/1,0,0,0 AAAA/BBBB 22-21 A -", "no-trades"))


def test_wrong_types_are_type_errors_naming_the_argument():
    # Issue 30: Game(123) raised RulesError.
    with pytest.raises(TypeError, match="rules: expected a gore.Rules or a string, not int"):
        gore.Game(123)
    with pytest.raises(TypeError, match="rules"):
        gore.Position(rules=1.5)
    with pytest.raises(TypeError, match="rules"):
        gore.random_playouts(1, rules=["standard"])
    with pytest.raises(TypeError, match="action: expected .* not float"):
        gore.Game().play(3.5)
    with pytest.raises(TypeError, match="action"):
        gore.Position().is_legal(None)
    with pytest.raises(TypeError, match="index"):
        gore.Game().play_index("3")
    with pytest.raises(TypeError, match="games"):
        gore.random_playouts("3")
    with pytest.raises(TypeError, match="depth"):
        gore.Position().perft(2.0)
    with pytest.raises(TypeError, match="target: expected a gore.Position or a gore.Game, not str"):
        gore.search("6,6,6,6/6,6,6,6 AAAA/BBBB 0-0 A -", depth=2)
    with pytest.raises(TypeError, match="player"):
        gore.Game().observation(0)
    with pytest.raises(TypeError, match="progress"):
        gore.solve("unused", max_seeds=0, progress=3)


def test_bad_players_are_argument_errors():
    # Issue 30: these raised a plain ValueError.
    g = gore.Game()
    for call in (
        lambda: g.observation("C"),
        lambda: gore.Position().observation("a"),
        lambda: g.has_declined("X"),
    ):
        with pytest.raises(gore.ArgumentError, match="player: expected 'A' or 'B'"):
            call()


@pytest.mark.parametrize("bad", [-1, 2**64, 10**30])
def test_counts_and_seeds_out_of_range_are_argument_errors(bad):
    # Issue 30: random_playouts(-1) raised OverflowError.
    with pytest.raises(gore.ArgumentError, match=f"games: expected 0 to 2\\*\\*64 - 1, not {bad}"):
        gore.random_playouts(bad)
    with pytest.raises(gore.ArgumentError, match=f"seed: .*not {bad}"):
        gore.random_playouts(1, seed=bad)
    g = gore.Game()
    with pytest.raises(gore.ArgumentError, match="seed"):
        g.random_playout(bad)
    with pytest.raises(gore.ArgumentError, match="max_plies"):
        g.random_playout(0, max_plies=bad)
    assert g.ply == 0
    with pytest.raises(gore.ArgumentError, match="depth"):
        gore.Position().perft(bad)
    for name in ("depth", "time_ms", "nodes", "seed", "hash_mb", "level"):
        with pytest.raises(gore.SearchError, match=name):
            gore.search(gore.Position(), **{name: bad})
    with pytest.raises(gore.ArgumentError, match="max_seeds"):
        gore.solve("unused", max_seeds=bad)


def test_extreme_seeds_are_accepted():
    # The whole u64 range is a seed: 2**64 - 1 is one, and plays.
    assert gore.random_playouts(1, seed=2**64 - 1) > 0
    assert gore.random_playouts(0) == 0


def test_solve_arguments(tmp_path):
    with pytest.raises(gore.ArgumentError, match="max_seeds: expected 0 to 48, not 49"):
        gore.solve(tmp_path, max_seeds=49)
    with pytest.raises(gore.ArgumentError, match="threads"):
        gore.solve(tmp_path, max_seeds=1, threads=0)
    with pytest.raises(gore.ArgumentError, match="memory_mib"):
        gore.solve(tmp_path, max_seeds=1, memory_mib=0)
    a_file = tmp_path / "file"
    a_file.write_text("not a directory")
    with pytest.raises(gore.SolvedDbError, match="db_dir"):
        gore.solve(a_file, max_seeds=1)


def test_framework_arguments_are_gore_errors():
    pytest.importorskip("pettingzoo")
    from gore import pettingzoo as gz

    for kwargs, words in (
        ({"render_mode": "svg"}, "render_mode"),
        ({"observation": "pixels"}, "observation"),
        ({"reward": "elo"}, "reward"),
        ({"max_cycles": 0}, "max_cycles"),
        ({"illegal": "ignore"}, "illegal"),
    ):
        with pytest.raises(gore.ArgumentError, match=words):
            gz.env(**kwargs)
        with pytest.raises(gore.ArgumentError, match=words):
            gz.parallel_env(**kwargs)
    with pytest.raises(TypeError, match="max_cycles"):
        gz.parallel_env(max_cycles="4")
    with pytest.raises(gore.RulesError):
        gz.parallel_env(rules="seeds=1")


def test_openspiel_parameters_are_gore_errors():
    pyspiel = pytest.importorskip("pyspiel")
    import gore.openspiel  # noqa: F401

    with pytest.raises(gore.ArgumentError, match="ply_cap"):
        gore.openspiel.GoreGame({"ply_cap": 0})
    with pytest.raises(gore.ArgumentError, match="reward"):
        gore.openspiel.GoreGame({"reward": "elo"})
    # Through pyspiel (C++ calls the game's constructor) the error is the same.
    with pytest.raises(gore.RulesError, match="seeds"):
        pyspiel.load_game("python_gore", {"seeds": 9})
    with pytest.raises(gore.ArgumentError, match="ply_cap"):
        pyspiel.load_game("python_gore", {"ply_cap": 0})
    state = pyspiel.load_game("python_gore").new_initial_state()
    with pytest.raises(gore.GoreError, match="undo_action: no action"):
        state.undo_action(0, 0)

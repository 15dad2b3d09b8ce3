"""The AI and the solved database through Python; the GIL is released
while the engine searches."""

from __future__ import annotations

import threading

import pytest

import gore


def test_search_returns_a_legal_best_action_and_its_line():
    p = gore.Position()
    r = gore.search(p, depth=5)
    assert p.is_legal(r.best)
    assert r.line[0] == r.best
    assert r.depth == 5
    assert r.nodes > 0
    a, b = r.expected
    assert a + b == pytest.approx(48)
    assert a - b == pytest.approx(r.score)
    # The line is playable move after move.
    q = p
    for action in r.line:
        q = q.play(action)


def test_search_takes_the_capture():
    # RULES.md's first worked example: b2 takes 8 seeds; a 1-ply search of
    # B's options must find a capture that wins at least as much.
    p = gore.Position("1,3,1,5/3,4,2,1 AAAA/BBBB 14-14 B -")
    r = gore.search(p, depth=1)
    after = p.play(r.best)
    assert after.captured[1] - 14 >= 8


def test_search_of_a_game_and_levels():
    g = gore.Game()
    g.play("a1")
    r = gore.search(g, depth=3, level=1, seed=7)
    assert g.position.is_legal(r.best)
    assert gore.search(g, depth=3, level=1, seed=7).best == r.best  # same seed, same move
    over = gore.Game("standard", gore.Position("3,2,4,2/4,3,1,3 AAAA/BBBB 13-13 B -"))
    over.play("b2")
    assert gore.search(over, depth=2) is None


def test_the_gil_is_released_while_searching():
    """A second Python thread keeps running while a search runs: with the
    GIL held for the whole search it could not take a single step until
    the search returned (the counter would stay at what one switch
    interval allows, some tens of thousands at most)."""
    done = threading.Event()
    result = {}

    def think():
        result["r"] = gore.search(gore.Position(), time_ms=2000)
        done.set()

    t = threading.Thread(target=think)
    counter = 0
    t.start()
    while not done.is_set():
        counter += 1
    t.join()
    assert result["r"] is not None
    assert counter > 500_000, counter


def test_perft_releases_the_gil_too():
    # Not a timing test: the count is the same from a thread.
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("n", gore.Position().perft(6)))
    t.start()
    t.join()
    assert out["n"] == gore.Position().perft(6)


def test_solved_db_probe(gore_cli, tmp_path):
    """A database of the layers up to 5 seeds made by `gore solve`; the
    position of gore-solver's documented example: A to move, a3 = 1,
    a4 = 3, b1 = 1, captured 22-21. Its final seeds are 23-25 (exact)."""
    gore_cli("solve", "--db", str(tmp_path), "--max-seeds", "5", "--threads", "1", "--memory-mib", "64")
    db = gore.SolvedDb(tmp_path)
    assert db.layers() == 6
    p = gore.Position("0,0,1,3/1,0,0,0 AAAA/BBBB 22-21 A -", "no-trades")
    probe = db.probe(p)
    assert probe.n == 5 and probe.mover == "A"
    assert probe.position.value == (23.0, 25.0)
    assert probe.position.exact
    assert probe.lines[0] == "position V 23-25 lo 23-25 hi 23-25 exact"
    assert [str(a) for a, _ in probe.actions] == [str(a) for a in p.legal_actions()]
    # The best action's value is the position's (A maximises his seeds).
    assert max(v.value[0] for _, v in probe.actions) == probe.position.value[0]
    with pytest.raises(gore.SolvedDbError, match="outside"):
        db.probe(gore.Position(rules="no-trades"))

"""Issue 40, parts 5 and 11: the solved database probed by the batch
(`SolvedDb.probe_many`), a policy scored against it
(`gore.vector.score_policy`), an ImportError without numpy, and
`Outcome` equality."""

from __future__ import annotations

import random
import subprocess
import sys

import numpy as np
import pytest

import gore
from gore.vector import score_policy
from test_vector import canonical_by_hand

RULES = "no-trades"


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    d = tmp_path_factory.mktemp("db")
    gore.solve(d, max_seeds=5, threads=1, memory_mib=64)
    return gore.SolvedDb(d)


def obs_of(position: gore.Position) -> np.ndarray:
    return canonical_by_hand(gore.Game(RULES, start=position))


# gore-solver's documented example (test_solve.py): A to move, a3 = 1,
# a4 = 3, b1 = 1, captured 22-21: worth 23-25, exact.
EXAMPLE = "0,0,1,3/1,0,0,0 AAAA/BBBB 22-21 A -"
# The same board turned by four holes, the players' roles swapped: B to
# move, controlling the row that holds 0,0,1,3 and having captured A's 22.
# Nothing in the rules names a row, so B's value is A's above and each of
# B's sowings is worth A's sowing four holes back.
MIRROR = "1,0,0,0/0,0,1,3 AAAA/BBBB 21-22 B -"


def test_the_documented_example_and_its_mirror(db):
    a = gore.Position(EXAMPLE, RULES)
    b = gore.Position(MIRROR, RULES)
    assert np.array_equal(obs_of(a), obs_of(b))  # one canonical observation
    out = db.probe_many(np.stack([obs_of(a), obs_of(b)]), [0, 1])
    assert list(out["found"]) == [True, True]
    assert list(out["value"]) == [23.0, 23.0]
    assert list(out["exact"]) == [True, True]
    av = out["action_values"]
    assert av.shape == (2, 103) and av.dtype == np.float32
    # A sows a3 or a4 (numbers 2 and 3); B, b3 or b4 (6 and 7).
    assert sorted(np.flatnonzero(~np.isnan(av[0]))) == [2, 3]
    assert sorted(np.flatnonzero(~np.isnan(av[1]))) == [6, 7]
    assert av[0][2] == av[1][6] and av[0][3] == av[1][7]
    assert max(av[0][2], av[0][3]) == 23.0  # the value is the best action's


def random_position(rng: random.Random) -> gore.Position:
    """A position of the standard board under no-trades with 3 to 5
    seeds on the board, at least one hole holding 3 or more (else the
    game is over), the rest of the 48 captured."""
    while True:
        k = rng.randint(3, 5)
        seeds = [0] * 8
        for _ in range(k):
            seeds[rng.randrange(8)] += 1
        if max(seeds) >= 3:
            break
    a = rng.randint(0, 48 - k)
    mover = rng.choice("AB")
    gpn = (
        ",".join(map(str, seeds[:4])) + "/" + ",".join(map(str, seeds[4:]))
        + f" AAAA/BBBB {a}-{48 - k - a} {mover} -"
    )
    return gore.Position(gpn, RULES)


def test_probe_many_agrees_with_probe(db):
    rng = random.Random(3)
    positions = [random_position(rng) for _ in range(300)]
    obs = np.stack([obs_of(p) for p in positions])
    players = np.array([0 if p.to_move == "A" else 1 for p in positions])
    out = db.probe_many(obs, players)
    assert out["found"].all()
    for i, p in enumerate(positions):
        pr = db.probe(p)
        me = 0 if p.to_move == "A" else 1
        assert out["value"][i] == pr.position.value[me]
        assert out["exact"][i] == pr.position.exact
        expected = np.full(103, np.nan, dtype=np.float32)
        for action, v in pr.actions:
            expected[action.index] = v.value[me]
        np.testing.assert_array_equal(out["action_values"][i], expected)


def test_positions_outside_the_layers_and_errors(db):
    start = gore.Position.start(RULES)
    out = db.probe_many(obs_of(start)[None, :], np.array([0]))
    assert not out["found"][0] and np.isnan(out["value"][0])
    assert np.isnan(out["action_values"][0]).all()
    o = obs_of(gore.Position(EXAMPLE, RULES))
    with pytest.raises(gore.SolvedDbError, match="players: expected 1"):
        db.probe_many(o[None, :], [0, 1])
    with pytest.raises(gore.SolvedDbError, match=r"observations\[0\]: player 2"):
        db.probe_many(o[None, :], [2])
    with pytest.raises(gore.SolvedDbError, match="n × 28"):
        db.probe_many(o[None, :27], [0])
    bad = o.copy()
    bad[16] = 1.0
    with pytest.raises(gore.SolvedDbError, match="offer"):
        db.probe_many(bad[None, :], [0])
    bad = o.copy()
    bad[0] = 0.5
    with pytest.raises(gore.SolvedDbError, match="seeds"):
        db.probe_many(bad[None, :], [0])
    with pytest.raises(gore.SolvedDbError, match="no-trades"):
        db.probe_many(o[None, :], [0], rules="standard")


def test_score_policy(db):
    rng = random.Random(8)
    positions = [random_position(rng) for _ in range(200)] + [gore.Position.start(RULES)]
    obs = np.stack([obs_of(p) for p in positions])
    players = np.array([0 if p.to_move == "A" else 1 for p in positions])
    best, worst, gaps = [], [], []
    for p in positions:
        if p.gpn == gore.Position.start(RULES).gpn:
            best.append(0)
            worst.append(0)
            continue
        me = 0 if p.to_move == "A" else 1
        vals = {a.index: v.value[me] for a, v in db.probe(p).actions}
        best.append(max(vals, key=vals.get))
        worst.append(min(vals, key=vals.get))
        gaps.append(max(vals.values()) - min(vals.values()))
    s = score_policy(db, obs, players, np.array(best))
    assert s["positions"] == 200 and s["optimal"] == 1.0 and s["mean_loss"] == 0.0
    assert np.isnan(s["loss"][200])
    s = score_policy(db, obs, players, np.array(worst))
    assert s["positions"] == 200
    np.testing.assert_allclose(s["loss"][:200], gaps)
    assert s["mean_loss"] == pytest.approx(np.mean(gaps))
    assert s["optimal"] == pytest.approx(np.mean([g == 0 for g in gaps]))
    # Action 8, an offer: never legal without trades.
    with pytest.raises(gore.IllegalAction, match="position 0"):
        score_policy(db, obs[:1], players[:1], np.array([8]))
    with pytest.raises(gore.ActionError):
        score_policy(db, obs[:1], players[:1], np.array([103]))


def test_import_error_without_numpy():
    """Without numpy (an import that fails), the batch and probe_many
    raise ImportError saying what to install, not a PanicException."""
    code = (
        "import sys; sys.modules['numpy'] = None\n"
        "import gore._gore as g\n"
        "try:\n"
        "    g.GoreBatch(2)\n"
        "except ImportError as e:\n"
        "    print('ImportError:', e)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "ImportError: GoreBatch needs numpy" in r.stdout, r.stdout
    assert 'gore-mancala[vector]' in r.stdout


def test_outcome_equality():
    def play(moves):
        g = gore.Game("seeds=3")
        out = None
        for m in moves:
            out = g.play_index(m)
        return g, out

    rng = random.Random(2)
    g = gore.Game("seeds=3")
    moves = []
    out = None
    while out is None:
        m = rng.choice(g.legal_indices())
        moves.append(m)
        out = g.play_index(m)
    _, again = play(moves)
    assert again == out and hash(again) == hash(out)
    assert again is not out
    assert out == g.outcome
    assert out != "an outcome" and out != None  # noqa: E711
    # Another game's outcome, differing in its seeds or its reason.
    other = None
    while other is None or (other.reason, other.seeds) == (out.reason, out.seeds):
        h = gore.Game("seeds=3")
        other = None
        while other is None:
            other = h.play_index(rng.choice(h.legal_indices()))
    assert other != out

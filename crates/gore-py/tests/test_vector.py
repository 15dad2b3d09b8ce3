"""The batch environment (gore.vector.GoreBatch), rollouts, the canonical
observation and the board's symmetry, checked against a naive model: the
same games stepped one action at a time through the single-game API
(gore.Game, gore-core's own bookkeeping of repetition and the ply cap)."""

from __future__ import annotations

import random
import threading

import numpy as np
import pytest

import gore
from gore.vector import (
    CANONICAL_SIZE,
    GoreBatch,
    action_rotations,
    rotate_observation,
    rotate_policy,
    rotate_position,
)

HOLES = ["a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4"]


def canonical_by_hand(g: gore.Game) -> np.ndarray:
    """docs/PYTHON.md's table, from the game's fields: the holes from the
    mover's first hole (b1 when B moves), then the captured seeds, the ply
    and the repetition count."""
    p = g.position
    me = p.to_move
    turn = 0 if me == "A" else 4
    order = [(j + turn) % 8 for j in range(8)]
    offer = p.pending_offer or []
    cap = dict(zip("AB", p.captured))
    other = "B" if me == "A" else "A"
    reps = 1 if g.is_over else g.repetitions
    return np.array(
        [p.seeds[h] for h in order]
        + [1.0 if p.controllers[h] == me else 0.0 for h in order]
        + [1.0 if HOLES[h] in offer else 0.0 for h in order]
        + [cap[me], cap[other], g.ply, reps],
        dtype=np.float32,
    )


def mask_of(g: gore.Game) -> np.ndarray:
    return np.frombuffer(g.legal_mask(), dtype=np.uint8).astype(bool)


@pytest.mark.parametrize(
    "rules,steps",
    [
        ("standard", 2500),
        ("seeds=3,cede-all", 1500),
        ("no-trades,skip-origin", 1500),
        ("seeds=4,ply-cap=40", 800),
    ],
)
def test_batch_steps_as_single_games_do(rules, steps):
    """Every array after every step equals what the single-game API gives
    for the same actions; every ending (board, repetition, ply cap) is the
    Game's, with its rewards."""
    n = 6
    b = GoreBatch(n, rules=rules, seed=7)
    games = [gore.Game(rules) for _ in range(n)]
    total = games[0].rules.total_seeds
    reasons = set()
    for _ in range(steps):
        for i, g in enumerate(games):
            assert np.array_equal(b.observation[i], canonical_by_hand(g)), (i, g)
            assert np.array_equal(b.legal_action_mask[i], mask_of(g)), (i, g)
            assert b.current_player[i] == (0 if g.to_move == "A" else 1)
            assert b.ply[i] == g.ply
            assert b.position(i) == g.position
        acts = b.random_actions()
        assert all(mask_of(g)[a] for g, a in zip(games, acts))
        b.step(acts)
        for i, a in enumerate(acts):
            out = games[i].play_index(int(a))
            if out is None:
                assert not b.terminated[i]
                assert tuple(b.rewards[i]) == (0.0, 0.0)
            else:
                reasons.add(out.reason)
                assert b.terminated[i]
                sa, sb = out.seeds
                assert b.rewards[i][0] == pytest.approx((sa - sb) / total)
                assert b.rewards[i][1] == pytest.approx((sb - sa) / total)
                games[i] = gore.Game(rules)  # auto_reset: the batch started again
            assert not b.truncated[i]
    # The games did end, in every way these rules end most games (random
    # standard games end by repetition nearly always, 199 in 200).
    expected = {
        "standard": {"repetition"},
        "seeds=3,cede-all": {"board", "repetition", "no-hole"},
        "no-trades,skip-origin": {"board"},
        "seeds=4,ply-cap=40": {"ply-cap"},
    }[rules]
    assert expected <= reasons, reasons


def test_win_rewards_and_auto_reset_off():
    b = GoreBatch(3, rules="seeds=3", seed=1, auto_reset=False, reward="win")
    games = [gore.Game("seeds=3") for _ in range(3)]
    ended_at = {}
    for step in range(3000):
        if len(ended_at) == 3:
            break
        acts = b.random_actions()
        b.step(acts)
        for i, a in enumerate(acts):
            if i in ended_at:
                # Over: the action is ignored, nothing changes, no reward.
                assert b.terminated[i]
                assert tuple(b.rewards[i]) == (0.0, 0.0)
                assert not b.legal_action_mask[i].any()
                assert b.position(i) == games[i].position
                continue
            out = games[i].play_index(int(a))
            if out is not None:
                ended_at[i] = step
                sa, sb = out.seeds
                w = (sa > sb) - (sa < sb)
                assert tuple(b.rewards[i]) == (w, -w)
                assert b.terminated[i]
                assert b.position(i) == games[i].position  # swept
    assert len(ended_at) == 3
    # reset(mask) starts only the games asked for.
    b.reset(np.array([True, False, True]))
    assert list(b.terminated) == [False, True, False]
    assert list(b.ply) == [0, games[1].ply, 0]
    assert b.position(0) == gore.Position.start("seeds=3")


def test_max_steps_truncates():
    b = GoreBatch(4, seed=3, max_steps=5)
    for k in range(5):
        assert not b.truncated.any()
        b.step(b.random_actions())
    # Random standard games cannot end in 5 actions (no hole can be
    # emptied to 2 or fewer everywhere): all truncated, then started again.
    assert b.truncated.all() and not b.terminated.any()
    assert not b.rewards.any()
    assert list(b.ply) == [0, 0, 0, 0]


def test_illegal_action_names_the_game_and_changes_nothing():
    b = GoreBatch(3, seed=0)
    b.step(np.array([0, 1, 2]))  # a1, a2, a3: legal at the start
    before = [a.copy() for a in (b.observation, b.legal_action_mask, b.ply)]
    with pytest.raises(gore.IllegalAction, match=r"game 1: action 0 \(a1\)"):
        b.step(np.array([4, 0, 4]))  # B to move: b1 legal, a1 is not his
    with pytest.raises(gore.ActionError, match=r"game 2: action number 103"):
        b.step([4, 4, 103])
    with pytest.raises(gore.ActionError, match=r"game 0: action number -1"):
        b.step([-1, 4, 4])
    with pytest.raises(gore.ActionError, match="expected 3 action numbers, got 2"):
        b.step([4, 4])
    with pytest.raises(TypeError, match="actions"):
        b.step(np.array([4.0, 4.0, 4.0]))
    with pytest.raises(TypeError, match="actions"):
        b.step("abc")
    for a, old in zip((b.observation, b.legal_action_mask, b.ply), before):
        assert np.array_equal(a, old)
    assert issubclass(gore.IllegalAction, gore.GoreError)


def test_bad_arguments():
    with pytest.raises(gore.GoreError, match="n: "):
        GoreBatch(0)
    with pytest.raises(gore.GoreError, match="n: expected 1 to 1048576"):
        GoreBatch(1 << 21)
    with pytest.raises(gore.GoreError, match="reward: "):
        GoreBatch(2, reward="money")
    with pytest.raises(gore.GoreError, match="max_steps: "):
        GoreBatch(2, max_steps=0)
    with pytest.raises(gore.RulesError):
        GoreBatch(2, rules="seeds=9")
    b = GoreBatch(2)
    with pytest.raises(gore.GoreError, match="mask: expected 2"):
        b.reset([True])
    with pytest.raises(TypeError, match="mask: .*booleans"):
        b.reset([1, 0])
    with pytest.raises(TypeError, match="actions: .*integers"):
        b.step([[1, 2]])
    with pytest.raises(gore.GoreError, match="i: "):
        b.position(2)


def test_arrays_are_new_and_read_only():
    """Issue 40: an array kept from one step is never overwritten by the
    next, and none can be written by the caller (it is the batch's
    state)."""
    b = GoreBatch(5, seed=2)
    obs, mask = b.observation, b.legal_action_mask
    assert obs.shape == (5, CANONICAL_SIZE) and obs.dtype == np.float32
    assert mask.shape == (5, 103) and mask.dtype == np.bool_
    assert b.current_player.dtype == np.int8
    assert b.rewards.shape == (5, 2) and b.rewards.dtype == np.float32
    assert b.terminated.dtype == np.bool_ and b.truncated.dtype == np.bool_
    assert b.ply.dtype == np.uint32
    kept = {name: getattr(b, name) for name in ARRAYS}
    copies = {name: a.copy() for name, a in kept.items()}
    for name, a in kept.items():
        assert not a.flags.writeable, name
        with pytest.raises(ValueError):
            a[0] = 1
    b.step(b.random_actions())
    for name, a in kept.items():
        assert np.array_equal(a, copies[name]), name
        assert not np.shares_memory(a, getattr(b, name)), name
    # At the start every game's ply is 0; one step later, 1.
    assert not kept["ply"].any() and (b.ply == 1).all()
    # torch.from_numpy-style zero-copy readers see a buffer no step reuses.
    first = b.observation
    b.step(b.random_actions())
    assert not np.shares_memory(first, b.observation)


ARRAYS = (
    "observation",
    "legal_action_mask",
    "current_player",
    "rewards",
    "terminated",
    "truncated",
    "ply",
)


def test_random_actions_returns_a_new_array_each_call():
    b = GoreBatch(64, seed=9)
    first = b.random_actions()
    kept = first.copy()
    second = b.random_actions()
    assert not np.shares_memory(first, second)
    assert np.array_equal(first, kept)
    assert first.dtype == np.int64 and first.flags.writeable
    # 64 games with 8 sowings each to choose from: two draws that agree
    # everywhere would be a generator that does not move (8**-64).
    assert not np.array_equal(first, second)


def test_random_actions_are_seeded():
    def run(seed):
        b = GoreBatch(4, seed=seed)
        out = []
        for _ in range(50):
            a = b.random_actions().copy()
            out.append(a)
            b.step(a)
        return np.array(out)

    assert np.array_equal(run(5), run(5))
    assert not np.array_equal(run(5), run(6))


def test_canonical_observation_by_hand():
    g = gore.Game()
    g.play("a3")  # 7,6,0,7/7,7,7,7 AAAA/BBBB 0-0 B -
    obs = np.frombuffer(g.canonical_observation(), dtype=np.float32)
    # B to move: his row b1..b4 first, then a1..a4.
    expected = [7, 7, 7, 7, 7, 6, 0, 7] + [1, 1, 1, 1, 0, 0, 0, 0] + [0] * 8 + [0, 0, 1, 1]
    assert obs.tolist() == expected
    # A pending offer: B offers b2 and b4 to A, who must answer and sees
    # them at places 5 and 7 (his row first).
    p = gore.Position("0,3,7,1/2,0,5,9 AAAA/BBBB 12-9 A b2+b4")
    h = gore.Game("standard", start=p)
    o = np.frombuffer(h.canonical_observation(), dtype=np.float32)
    assert o[16:24].tolist() == [0, 0, 0, 0, 0, 1, 0, 1]
    assert o[24:28].tolist() == [12, 9, 0, 1]


def test_rollouts_of_a_forced_ending():
    # A's only action (no trades): a4's 3 seeds to b1, b2, b3; every hole
    # then holds at most 2: B sweeps his 3, 20-28.
    g = gore.Game("no-trades", start=gore.Position("0,0,0,3/0,0,0,0 AAAA/BBBB 20-25 A -", "no-trades"))
    r = g.rollouts(50, seed=1)
    assert r.games == 50
    assert r.mean == (20.0, 28.0)
    assert r.wins == (0, 0, 50)
    assert r.histogram[20] == 50 and sum(r.histogram) == 50
    assert len(r.histogram) == 49


def test_rollouts_agree_with_single_game_playouts():
    """From a game in progress (its history and ply cap in force), the mean
    final seeds of Rust rollouts and of gore-core's own playouts agree
    within sampling error."""
    g = gore.Game("seeds=4,ply-cap=120")
    rng = random.Random(4)
    for _ in range(10):
        g.play(rng.choice(g.legal_actions()))
    r = g.rollouts(4000, seed=9)
    naive = []
    for s in range(1500):
        c = g.copy()
        c.random_playout(s)
        naive.append(c.outcome.seeds[0])
    assert sum(r.histogram) == 4000
    assert r.mean[0] + r.mean[1] == pytest.approx(32)
    sd = float(np.std(naive))
    se = sd * (1 / 4000 + 1 / 1500) ** 0.5
    assert abs(r.mean[0] - float(np.mean(naive))) < 4 * se + 1e-9, (r.mean, np.mean(naive), se)
    assert r.wins[0] + r.wins[1] + r.wins[2] == 4000


def test_rollouts_errors_and_gil():
    with pytest.raises(gore.GoreError, match="k: "):
        gore.Game().rollouts(0)
    with pytest.raises(gore.GoreError, match="k: "):
        gore.Game().rollouts(-1)
    done = threading.Event()
    out = {}

    def work():
        out["r"] = gore.Game().rollouts(30000, seed=1)
        done.set()

    t = threading.Thread(target=work)
    counter = 0
    t.start()
    while not done.is_set():
        counter += 1
    t.join()
    assert out["r"].games == 30000
    assert counter > 100_000, counter


def test_the_board_turns():
    """Turning the loop by k holes commutes with the rules (gore-core's):
    the turned position's legal actions are the turned actions, and
    playing a turned action from it gives the turned next position."""
    rng = random.Random(11)
    rot = action_rotations()
    for rules in ("standard", "seeds=3,cede-all", "skip-origin"):
        g = gore.Game(rules)
        while not g.is_over and g.ply < 300:
            p = g.position
            legal = set(p.legal_indices())
            a = rng.choice(sorted(legal))
            nxt = p.play(a)
            for k in range(8):
                q = rotate_position(p, k)
                assert set(q.legal_indices()) == {int(rot[k][i]) for i in legal}
                assert q.play(int(rot[k][a])) == rotate_position(nxt, k)
            g.play_index(a)
    # Turning by 4 and by 4 again is the identity; a turned observation is
    # the observation of the turned position.
    assert np.array_equal(rot[4][rot[4]], np.arange(103))
    h = gore.Game()
    for a in ("a3", "b1", "a1"):
        h.play(a)
    obs = np.frombuffer(h.canonical_observation(), dtype=np.float32)
    for k in range(8):
        t = gore.Game("standard", start=rotate_position(h.position, k))
        o = np.frombuffer(t.canonical_observation(), dtype=np.float32)
        assert np.array_equal(rotate_observation(obs, k)[:26], o[:26])
    m = np.frombuffer(h.legal_mask(), dtype=np.uint8).astype(bool)
    for k in range(8):
        t = rotate_position(h.position, k)
        assert np.array_equal(rotate_policy(m, k), np.frombuffer(t.legal_mask(), np.uint8).astype(bool))
    with pytest.raises(TypeError):
        rotate_observation(obs, 1.5)


@pytest.mark.parametrize("rules", ["standard", "seeds=3,cede-all"])
def test_repetition_counts_start_afresh_in_each_game(rules):
    """A game's repetition table is reused by the next game of its lane
    (its slots marked with the game's number, not cleared): the same
    actions played again in a new game must end it at the same step, for
    the same reason, with the same repetition counts on the way (the
    game is a function of its actions), and as gore.Game ends it."""
    b = GoreBatch(1, rules=rules, seed=11)
    first, reps = [], []
    while True:
        a = int(b.random_actions()[0])
        b.step([a])
        first.append(a)
        if b.terminated[0]:
            break
        reps.append(float(b.observation[0][27]))
    g = gore.Game(rules)
    for a in first[:-1]:
        assert g.play_index(a) is None
    out = g.play_index(first[-1])
    assert out is not None
    # Twice more: after an auto_reset, and after a reset() mid-game.
    for again in range(2):
        if again:
            for a in first[: len(first) // 2]:
                b.step([a])
            b.reset()
        for k, a in enumerate(first):
            b.step([a])
            if k < len(first) - 1:
                assert not b.terminated[0], (again, k)
                assert b.observation[0][27] == reps[k], (again, k)
        assert b.terminated[0]
        assert b.rewards[0][0] == pytest.approx((out.seeds[0] - out.seeds[1]) / g.rules.total_seeds)



def test_long_games_count_repetition_exactly():
    """Games longer than a batch's first repetition table holds (768
    positions, then 1536: the table moves out of the batch's shared
    region and doubles) count repetitions as gore.Game does, to their
    end, and the lanes' next games count afresh."""
    n = 32
    b = GoreBatch(n, seed=5)
    games = [gore.Game() for _ in range(n)]
    longest = 0
    for _ in range(3000):
        acts = b.random_actions()
        b.step(acts)
        for i, a in enumerate(acts):
            g = games[i]
            out = g.play_index(int(a))
            assert b.terminated[i] == (out is not None), (i, g.ply)
            if out is None:
                # The observation's last value is the repetition count.
                assert b.observation[i][27] == g.repetitions, (i, g.ply)
                assert b.ply[i] == g.ply
            else:
                longest = max(longest, g.ply)
                games[i] = gore.Game()
    # Seeded: some game did outgrow both tables.
    assert longest > 1600, longest


def test_canonical_observation_from_either_side():
    # Game.canonical_observation(player) against Game.observation(player)
    # (board order, the other layout) turned by hand: the holes from the
    # player's first one, his holes, the offer, the captured seeds, the
    # ply and the repetition count; for the player to move it is the
    # batch's row, canonical_observation().
    import random

    rng = random.Random(7)
    for game_no in range(20):
        g = gore.Game("standard")
        for _ in range(rng.randrange(0, 120)):
            if g.is_over:
                break
            g.play(rng.choice(g.legal_actions()))
        if g.is_over:
            continue
        assert g.canonical_observation(g.to_move) == g.canonical_observation()
        for player in "AB":
            board = np.frombuffer(g.observation(player), np.float32)
            turn = 0 if player == "A" else 4
            want = np.concatenate([
                np.roll(board[0:8], -turn),
                np.roll(board[8:16], -turn),
                np.roll(board[19:27], -turn),
                board[16:18],
                [g.ply, g.repetitions],
            ]).astype(np.float32)
            got = np.frombuffer(g.canonical_observation(player), np.float32)
            assert got.tolist() == want.tolist(), (game_no, player, g.position.gpn)
    with pytest.raises(gore.ArgumentError, match="player"):
        gore.Game().canonical_observation("C")

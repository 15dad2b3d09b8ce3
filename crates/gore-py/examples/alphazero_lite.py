"""A policy/value network trained by self-play through gore.vector.GoreBatch,
in numpy only, on `seeds=3`, with a small search on the network at play
time and the search's choices as the policy's targets (expert iteration);
its win rate against the package's AI levels is measured as it trains.

AlphaZero-style in its parts: one network with a policy head (over the 103
action numbers, illegal ones masked) and a value head (the final result
from the player to move's side), the canonical observation (the board as
the player to move sees it, so one network plays both sides), games of
self-play as its only data, a search guided by the network that plays
better than the network alone, the policy trained towards what the search
chose and the value towards the games' results.

The search is the smallest that works here: every action of the player to
move and every reply of the opponent (two plies, a full-width minimax),
the positions after them valued by the value head, and the games' ends
within those two plies by their result (a draw there counted a little
against the searching side: contempt). From its action values the search
gives a policy (a softmax of the values: self-play samples from it, the
policy head learns it) and, at evaluation, its best action. A researcher
replaces `search()` with a PUCT MCTS (the policy head as its prior) as
the budget allows.

Everything runs through GoreBatch: self-play steps its games in one
batch, and the search of all of them at once (`search_many`) is two steps
of a scratch batch, its trees branched inside the batch (`set_game` of
each root, `copy_games` for each action and each reply); ends are read
from the batch's rewards and the leaves' observations from its array.
Where it used gore.Game copies before issue 40 it gives the same values
(the same self-play games, seeded) at about the same speed here, some
5,000 self-play steps a second with 64 games on one core of a loaded
2-core machine: at two plies of `seeds=3` the trees are small.

Why a search at all: on `seeds=3`, after A opens a2, a3 or a4, B has a
sowing that ends the game 12-12 at once (no hole above 2 seeds); only a1
avoids it. A network that plays by its policy alone imitates openings and
cannot tell; two plies see the draw coming, and the value learned from
self-play says what a1 is worth.

    python crates/gore-py/examples/alphazero_lite.py [--iterations 10] [--games 256]

Prints, at each evaluation, the win rate (wins + half the draws) of the
search on the network against levels 1, 2 and 3 (`gore.search(game,
level=L)`), half the games as A and half as B, and its wins, draws and
losses on each side. Against levels 1 and 2 a win rate of 75% is the
most there is (about: level 1 blunders): they open a4 as A, which takes
12 of the 24 seeds, and B can then at best draw (as B, the search takes
the 12-12 at once).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import gore
from gore.vector import GoreBatch

RULES = "seeds=3,ply-cap=150"
N_ACT = gore.NUM_ACTIONS
# The seeds in a `seeds=3` game: a result is the final seed difference
# over them (GoreBatch's "score" reward), in [-1, 1].
TOTAL = 24
# A draw seen within the search's two plies, counted against the player to
# move (about 2.4 seeds): without it, a network that values its winning
# tries a little below 0 takes the draw the opening offers (the win rate
# fell back to 50% after a few iterations).
CONTEMPT = 0.1


class Net:
    """28 → hidden (tanh) → policy logits (103) and value (tanh)."""

    def __init__(self, hidden: int, rng: np.random.Generator):
        f = gore.CANONICAL_SIZE
        self.p = {
            "w1": rng.normal(0, 1 / np.sqrt(f), (f, hidden)),
            "b1": np.zeros(hidden),
            "wp": rng.normal(0, 0.01, (hidden, N_ACT)),
            "bp": np.zeros(N_ACT),
            "wv": rng.normal(0, 0.01, (hidden, 1)),
            "bv": np.zeros(1),
        }
        self.m = {k: np.zeros_like(v) for k, v in self.p.items()}
        self.v = {k: np.zeros_like(v) for k, v in self.p.items()}
        self.t = 0

    @staticmethod
    def features(obs: np.ndarray) -> np.ndarray:
        # Seeds and captured seeds to about [0, 1]; the ply scaled by the cap.
        x = obs.astype(np.float64).copy()
        x[..., 0:8] /= 6.0
        x[..., 24:26] /= 12.0
        x[..., 26] /= 150.0
        x[..., 27] -= 1.0
        return x

    def forward(self, obs: np.ndarray, mask: np.ndarray):
        p = self.p
        x = self.features(obs)
        h = np.tanh(x @ p["w1"] + p["b1"])
        logits = h @ p["wp"] + p["bp"]
        logits = np.where(mask, logits, -1e9)
        logits -= logits.max(axis=-1, keepdims=True)
        e = np.exp(logits) * mask
        pi = e / e.sum(axis=-1, keepdims=True)
        v = np.tanh(h @ p["wv"] + p["bv"])[..., 0]
        return x, h, pi, v

    def value(self, obs: np.ndarray) -> np.ndarray:
        """The value head alone (the search's leaves)."""
        p = self.p
        h = np.tanh(self.features(obs) @ p["w1"] + p["b1"])
        return np.tanh(h @ p["wv"] + p["bv"])[..., 0]

    def train_step(self, obs, mask, target, z, lr=3e-3):
        """One Adam step on the cross-entropy of pi against the search's
        policy `target` plus (v - z)^2; returns the value loss."""
        x, h, pi, v = self.forward(obs, mask)
        n = len(z)
        # d/dlogits of -sum(target * log pi) = pi - target (both masked).
        g_logits = (pi - target) * mask
        g_v = 2 * (v - z) * (1 - v**2)
        grads = {
            "wp": h.T @ g_logits / n,
            "bp": g_logits.mean(0),
            "wv": h.T @ g_v[:, None] / n,
            "bv": np.array([g_v.mean()]),
        }
        g_h = (g_logits @ self.p["wp"].T + g_v[:, None] @ self.p["wv"].T) * (1 - h**2)
        grads["w1"] = x.T @ g_h / n
        grads["b1"] = g_h.mean(0)
        self.t += 1
        for k, g in grads.items():
            self.m[k] = 0.9 * self.m[k] + 0.1 * g
            self.v[k] = 0.999 * self.v[k] + 0.001 * g * g
            mh = self.m[k] / (1 - 0.9**self.t)
            vh = self.v[k] / (1 - 0.999**self.t)
            self.p[k] -= lr * mh / (np.sqrt(vh) + 1e-8)
        return float(((v - z) ** 2).mean())


def result(out: gore.Outcome, side: str) -> float:
    """A finished game's result from `side`'s view, as the value head
    predicts it."""
    a, b = out.seeds
    d = (a - b) / TOTAL
    return d if side == "A" else -d


def search(net: Net, g: gore.Game, contempt: float = 0.0) -> tuple[list[int], np.ndarray]:
    """The legal action numbers of the player to move and their values
    from his side, by a two-ply minimax on the value head: each action,
    then each reply of the player to move after it (the opponent, or the
    same player after an offer is answered), valued by the game's result
    if it ended, else by the value head from its mover's side. A draw
    within the two plies counts `contempt` against the player to move
    (and for his opponent)."""
    return search_many(net, [g], contempt)[0]


#: Scratch batches of the search, by rule set, kept from one search to the
#: next: making a batch costs far more than setting its games (its
#: repetition tables, 16 KB a game).
_SCRATCH: dict[str, GoreBatch] = {}


def _scratch(rules: gore.Rules, n: int) -> GoreBatch:
    """A scratch batch of at least `n` games (games over stay over)."""
    b = _SCRATCH.get(str(rules))
    if b is None or len(b) < n:
        b = GoreBatch(max(n, 2 * len(b) if b else 256), rules=rules, auto_reset=False, reward="score")
        _SCRATCH[str(rules)] = b
    return b


def _step(b: GoreBatch, first: int, actions: np.ndarray) -> None:
    """Steps `b` with `actions` in its slots from `first` on, random legal
    actions elsewhere (those slots are scratch)."""
    acts = b.random_actions()
    acts[first : first + len(actions)] = actions
    b.step(acts)


def search_many(net: Net, games: list[gore.Game], contempt: float = 0.0) -> list[tuple[list[int], np.ndarray]]:
    """`search` for several games at once, each ply of every game's tree
    one step of a GoreBatch: slots 0 to n1 hold a copy of a game per legal
    action (one `set_game`, then `copy_games` inside the batch) and play
    one action each; then each first-ply game that goes on is copied
    (`copy_games`) once per reply into the slots after, which play the
    replies. Ends are read from the batch's rewards (the "score" reward is
    the result from the mover's side), the leaves' observations from its
    array, valued in one forward pass."""
    legal = [g.legal_indices() for g in games]
    widths = [len(x) for x in legal]
    n1 = sum(widths)
    if n1 == 0:
        return [([], np.zeros(0)) for _ in games]
    rules = games[0].rules
    first = np.array([a for x in legal for a in x], dtype=np.int64)
    rows = np.arange(n1)
    need = n1
    while True:
        b = _scratch(rules, need)
        s = 0
        for g, w in zip(games, widths):
            if w:
                b.set_game(s, g)
                b.copy_games([s] * (w - 1), list(range(s + 1, s + w)))
            s += w
        me = b.current_player[:n1].astype(np.intp)
        _step(b, 0, first)
        over1 = b.terminated[:n1]
        masks = b.legal_action_mask[:n1]
        live = np.flatnonzero(~over1)
        counts = masks[live].sum(axis=1)
        n2 = int(counts.sum())
        if n1 + n2 <= len(b):
            break
        need = n1 + n2
    r1 = b.rewards[rows, me]
    q = np.zeros(n1)
    q[over1] = np.where(r1[over1] == 0, -contempt, r1[over1])
    if n2:
        parent = np.repeat(live, counts)
        b.copy_games(parent, np.arange(n1, n1 + n2))
        them = b.current_player[n1 : n1 + n2].astype(np.intp)
        _step(b, n1, np.concatenate([np.flatnonzero(masks[s]) for s in live]))
        over2 = b.terminated[n1 : n1 + n2]
        r2 = b.rewards[n1 + np.arange(n2), them]
        vals = np.where(r2 == 0, np.where(them == me[parent], -contempt, contempt), r2)
        leaves = np.flatnonzero(~over2)
        if len(leaves):
            v = net.value(b.observation[n1 + leaves])
            same = b.current_player[n1 + leaves].astype(np.intp) == them[leaves]
            vals[leaves] = np.where(same, v, -v)
        # Each first-ply game that goes on: its sign times its best reply.
        best = np.full(n1, -np.inf)
        np.maximum.at(best, parent, vals)
        sign = np.where(them == me[parent], 1.0, -1.0)
        q[parent] = sign * best[parent]
    out = []
    s = 0
    for x, w in zip(legal, widths):
        out.append((x, q[s : s + w]))
        s += w
    return out


def search_policy(q: np.ndarray, temperature: float) -> np.ndarray:
    """A softmax of the search's action values."""
    e = np.exp((q - q.max()) / temperature)
    return e / e.sum()


def self_play(
    net: Net,
    games: int,
    rng: np.random.Generator,
    seed: int,
    temperature: float = 0.05,
    bootstrap: float = 0.0,
    contempt: float = CONTEMPT,
):
    """Plays `games` games to their end through one GoreBatch (no
    auto_reset), each action sampled from the search's policy; returns
    every step's observation, mask, search policy (the target) and value
    target: the final result from that step's mover's side, mixed with
    weight `bootstrap` with the search's value of the position (the best
    action's).

    The search reads each game of the batch as a gore.Game (`game(i)`)
    and searches all of them at once (`search_many`)."""
    b = GoreBatch(games, rules=RULES, seed=seed, auto_reset=False)
    obs_l, mask_l, target_l, who_l, game_l, q_l = [], [], [], [], [], []
    final = np.zeros((games, 2), dtype=np.float32)
    done = np.zeros(games, dtype=bool)
    while not done.all():
        act = np.zeros(games, dtype=np.int64)
        active = np.flatnonzero(~done)
        searched = search_many(net, [b.game(int(i)) for i in active], contempt)
        obs, mask, player = b.observation, b.legal_action_mask, b.current_player
        for i, (legal, q) in zip(active, searched):
            pi = search_policy(q, temperature)
            act[i] = legal[rng.choice(len(legal), p=pi)]
            target = np.zeros(N_ACT)
            target[legal] = pi
            obs_l.append(obs[i])
            mask_l.append(mask[i])
            target_l.append(target)
            q_l.append(q.max())
            who_l.append(int(player[i]))
            game_l.append(i)
        b.step(act)
        ended = b.terminated & ~done
        final[ended] = b.rewards[ended]
        done |= b.terminated
    z = final[np.array(game_l), np.array(who_l)]
    z = (1 - bootstrap) * z + bootstrap * np.clip(np.array(q_l), -1, 1)
    return np.array(obs_l), np.array(mask_l), np.array(target_l), z


def search_move(net: Net, g: gore.Game, contempt: float = CONTEMPT) -> int:
    """The search's best action."""
    legal, q = search(net, g, contempt)
    return legal[int(q.argmax())]


def win_rate(net: Net, level: int, games: int, contempt: float = CONTEMPT) -> tuple[float, dict[str, list[int]]]:
    """The search's win rate against `level` (wins and half the draws),
    and its wins, draws and losses as A and as B."""
    score = 0.0
    record = {"A": [0, 0, 0], "B": [0, 0, 0]}
    for k in range(games):
        g = gore.Game(RULES)
        me = "A" if k % 2 == 0 else "B"
        while not g.is_over:
            if g.to_move == me:
                g.play_index(search_move(net, g, contempt))
            else:
                r = gore.search(g, level=level, depth=2, seed=k, hash_mb=1)
                g.play(r.best)
        w = g.outcome.winner
        score += 1.0 if w == me else 0.5 if w is None else 0.0
        record[me][0 if w == me else 1 if w is None else 2] += 1
    return score / games, record


def main(argv=None) -> list[tuple[int, dict[int, float]]]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=10)
    ap.add_argument("--games", type=int, default=256, help="self-play games per iteration")
    ap.add_argument("--epochs", type=int, default=2, help="passes over the window's data per iteration")
    ap.add_argument("--window", type=int, default=4, help="iterations of self-play data trained on")
    ap.add_argument("--batch", type=int, default=256, help="minibatch size")
    ap.add_argument("--lr", type=float, default=1e-3, help="Adam's step size")
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--temperature", type=float, default=0.05, help="of the search's policy in self-play")
    ap.add_argument(
        "--bootstrap", type=float, default=0.0, help="weight of the search's value in the value target"
    )
    ap.add_argument("--contempt", type=float, default=CONTEMPT, help="a draw's cost to the searching side")
    ap.add_argument("--eval-every", type=int, default=2)
    ap.add_argument("--eval-games", type=int, default=100)
    ap.add_argument("--levels", default="1,2,3")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    levels = [int(x) for x in args.levels.split(",")]
    rng = np.random.default_rng(args.seed)
    net = Net(args.hidden, rng)
    history = []

    def evaluate(it: int) -> None:
        results = {lv: win_rate(net, lv, args.eval_games, args.contempt) for lv in levels}
        rates = {lv: r for lv, (r, _) in results.items()}
        history.append((it, rates))
        shown = "  ".join(f"level {lv}: {100 * r:5.1f}%" for lv, r in rates.items())
        print(f"iteration {it:3d}  win rate  {shown}", flush=True)
        for side in "AB":
            wdl = "  ".join(f"{'/'.join(map(str, rec[side]))}" for _, rec in results.values())
            print(f"    as {side}: wins/draws/losses  {wdl}", flush=True)

    t0 = time.perf_counter()
    evaluate(0)
    steps = 0
    window: list[tuple[np.ndarray, ...]] = []
    for it in range(1, args.iterations + 1):
        window.append(
            self_play(net, args.games, rng, args.seed * 1000 + it, args.temperature, args.bootstrap, args.contempt)
        )
        steps += len(window[-1][3])
        # The last few iterations' data, not the last alone: the targets
        # of one iteration's games swing with the network that played them.
        window = window[-args.window :]
        obs, mask, target, z = (np.concatenate(x) for x in zip(*window))
        for _ in range(args.epochs):
            order = rng.permutation(len(z))
            for s in range(0, len(order), args.batch):
                j = order[s : s + args.batch]
                loss = net.train_step(obs[j], mask[j], target[j], z[j], lr=args.lr)
        if it % args.eval_every == 0 or it == args.iterations:
            print(
                f"  {steps:,} self-play steps, value loss {loss:.3f}, {time.perf_counter() - t0:.0f} s",
                flush=True,
            )
            evaluate(it)
    return history


if __name__ == "__main__":
    main()

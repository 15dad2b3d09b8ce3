"""A policy/value network trained by self-play through gore.vector.GoreBatch,
in numpy only, on `seeds=3`; its win rate against the package's AI levels
is measured as it trains.

AlphaZero-style in its parts: one network with a policy head (over the 103
action numbers, illegal ones masked) and a value head (the final result
from the player to move's side), the canonical observation (the board as
the player to move sees it, so one network plays both sides), games of
self-play as its only data, and the value trained on the final results.
What it leaves out is the tree search: the policy improves by
advantage-weighted targets (the result minus the value's prediction)
instead of by MCTS visit counts, so that a run takes minutes on a CPU
from Python. A researcher replaces `improve()` with a search.

    python crates/gore-py/examples/alphazero_lite.py [--iterations 10] [--games 256]

Prints, at each evaluation, the win rate (wins + half the draws) of the
greedy network against levels 1 and 2 (`gore.search(game, level=L)`),
half the games as A and half as B.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import gore
from gore.vector import GoreBatch

RULES = "seeds=3,ply-cap=150"
N_ACT = gore.NUM_ACTIONS


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

    def train_step(self, obs, mask, act, target_pi_weight, z, lr=3e-3, c_ent=0.01):
        """One Adam step on: -weight * log pi(a) + (v - z)^2 - c_ent * H(pi)."""
        x, h, pi, v = self.forward(obs, mask)
        n = len(act)
        onehot = np.zeros_like(pi)
        onehot[np.arange(n), act] = 1.0
        # d/dlogits of -w log pi(a) = w (pi - onehot); of -H = pi (log pi + H).
        logp = np.log(np.where(mask, pi, 1.0))
        ent = -(pi * logp).sum(axis=1, keepdims=True)
        g_logits = target_pi_weight[:, None] * (pi - onehot) + c_ent * pi * (logp + ent)
        g_logits *= mask
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


def self_play(net: Net, games: int, rng: np.random.Generator, seed: int):
    """Plays `games` games to their end through one GoreBatch (no
    auto_reset); returns every step's observation, mask, action and the
    final result from that step's mover's side."""
    b = GoreBatch(games, rules=RULES, seed=seed, auto_reset=False)
    obs_l, mask_l, act_l, who_l, live_l = [], [], [], [], []
    final = np.zeros((games, 2), dtype=np.float32)
    done = np.zeros(games, dtype=bool)
    while not done.all():
        obs = b.observation.copy()
        mask = b.legal_action_mask.copy()
        live = ~done
        safe = np.where(live[:, None], mask, True)
        _, _, pi, _ = net.forward(obs, safe)
        u = rng.random(games)[:, None]
        act = (pi.cumsum(axis=1) < u).sum(axis=1).clip(0, N_ACT - 1)
        # A game over takes any action (it is ignored).
        act = np.where(live, act, 0)
        # Guard against rounding landing on a masked action.
        bad = live & ~mask[np.arange(games), act]
        if bad.any():
            act[bad] = mask[bad].argmax(axis=1)
        obs_l.append(obs)
        mask_l.append(mask)
        act_l.append(act)
        who_l.append(b.current_player.copy())
        live_l.append(live)
        b.step(act)
        ended = b.terminated & ~done
        final[ended] = b.rewards[ended]
        done |= b.terminated
    obs = np.concatenate(obs_l)
    mask = np.concatenate(mask_l)
    act = np.concatenate(act_l)
    who = np.concatenate(who_l).astype(int)
    live = np.concatenate(live_l)
    idx = np.tile(np.arange(games), len(obs_l))
    z = final[idx, who]
    return obs[live], mask[live], act[live], z[live]


def improve(net: Net, obs, mask, act, z):
    """The policy target's weight: the result beyond what the value
    expected (an advantage), in place of MCTS visit counts."""
    _, _, _, v = net.forward(obs, mask)
    adv = z - v
    return (adv - adv.mean()) / (adv.std() + 1e-6)


def net_move(net: Net, g: gore.Game) -> int:
    obs = np.frombuffer(g.canonical_observation(), dtype=np.float32)[None]
    mask = np.frombuffer(g.legal_mask(), dtype=np.uint8).astype(bool)[None]
    _, _, pi, _ = net.forward(obs, mask)
    return int(pi[0].argmax())


def win_rate(net: Net, level: int, games: int) -> float:
    score = 0.0
    for k in range(games):
        g = gore.Game(RULES)
        me = "A" if k % 2 == 0 else "B"
        while not g.is_over:
            if g.to_move == me:
                g.play_index(net_move(net, g))
            else:
                r = gore.search(g, level=level, depth=2, seed=k, hash_mb=1)
                g.play(r.best)
        w = g.outcome.winner
        score += 1.0 if w == me else 0.5 if w is None else 0.0
    return score / games


def main(argv=None) -> list[tuple[int, dict[int, float]]]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=10)
    ap.add_argument("--games", type=int, default=256, help="self-play games per iteration")
    ap.add_argument("--epochs", type=int, default=4, help="passes over each iteration's data")
    ap.add_argument("--batch", type=int, default=512, help="minibatch size")
    ap.add_argument("--lr", type=float, default=3e-3, help="Adam's step size")
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--eval-every", type=int, default=5)
    ap.add_argument("--eval-games", type=int, default=40)
    ap.add_argument("--levels", default="1,2")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    levels = [int(x) for x in args.levels.split(",")]
    rng = np.random.default_rng(args.seed)
    net = Net(args.hidden, rng)
    history = []

    def evaluate(it: int) -> None:
        rates = {lv: win_rate(net, lv, args.eval_games) for lv in levels}
        history.append((it, rates))
        shown = "  ".join(f"level {lv}: {100 * r:5.1f}%" for lv, r in rates.items())
        print(f"iteration {it:3d}  win rate  {shown}", flush=True)

    t0 = time.perf_counter()
    evaluate(0)
    steps = 0
    for it in range(1, args.iterations + 1):
        obs, mask, act, z = self_play(net, args.games, rng, seed=args.seed * 1000 + it)
        steps += len(act)
        w = improve(net, obs, mask, act, z)
        for _ in range(args.epochs):
            order = rng.permutation(len(act))
            for s in range(0, len(order), args.batch):
                j = order[s : s + args.batch]
                loss = net.train_step(obs[j], mask[j], act[j], w[j], z[j], lr=args.lr)
        if it % args.eval_every == 0 or it == args.iterations:
            print(
                f"  {steps:,} self-play steps, value loss {loss:.3f}, {time.perf_counter() - t0:.0f} s",
                flush=True,
            )
            evaluate(it)
    return history


if __name__ == "__main__":
    main()

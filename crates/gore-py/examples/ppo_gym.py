"""PPO against the built-in AI through the Gymnasium layer (gore.gym), in
the single-file style of CleanRL, written for this package (numpy only:
no deep-learning framework to install).

The learner plays ``Gore-v0`` (one game against ``gore.search`` at a level,
its side drawn at each reset) in a ``gymnasium.vector.SyncVectorEnv`` of
``--num-envs`` environments, their levels 1, 2, 3, 1, 2, 3, …; the
rewards are ``--reward``: ``"win"`` (1, 0, -1 at the end) or ``"score"``
(the final seed difference over the seeds in the game), a draw counted
``-contempt`` (``--contempt``, 0 by default) in training. The agent is an actor and a
critic, two tanh MLPs (28 → 64 → 64 → 103 logits, and → 1 value) on the
canonical observation scaled to [0, 1]; illegal actions are masked out of
the policy with ``info["action_mask"]``. Each update: ``--num-steps`` steps
of every environment, advantages by GAE (γ, λ), then ``--update-epochs``
passes of minibatches over the clipped surrogate objective, the value's
squared error and an entropy bonus, with Adam; gradients are written out
by hand (``backward``; a test checks them against finite differences).

Every ``--eval-every`` updates (and before the first) the greedy policy
(the most probable legal action) plays ``--eval-games`` games against
each of levels 1, 2 and 3, half as A and half as B, and the script prints
the win rate, the wins, draws and losses:

    python crates/gore-py/examples/ppo_gym.py                  # a minute or a few
    python crates/gore-py/examples/ppo_gym.py --total-steps 4096 --eval-games 4   # seconds

Needs gymnasium and numpy: ``pip install "gore-mancala[gymnasium]"``.
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import dataclass

# The matrices are small: BLAS threads would only contend for the cores.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import gymnasium  # noqa: E402
import numpy as np  # noqa: E402

import gore  # noqa: E402
import gore.gym  # noqa: E402,F401  (registers Gore-v0)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="standard")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--reward", default="win", choices=["win", "score"],
        help="Gore-v0's reward in training (the evaluation counts results)",
    )
    ap.add_argument("--total-steps", type=int, default=400_000, help="agent steps in all")
    ap.add_argument("--num-envs", type=int, default=12)
    ap.add_argument("--num-steps", type=int, default=128, help="steps per environment per update")
    ap.add_argument(
        "--contempt", type=float, default=0.0,
        help="a drawn game's training reward is -contempt (the evaluation counts results)",
    )
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--gamma", type=float, default=0.99)
    ap.add_argument("--gae-lambda", type=float, default=0.95)
    ap.add_argument("--minibatches", type=int, default=4)
    ap.add_argument("--update-epochs", type=int, default=4)
    ap.add_argument("--clip", type=float, default=0.2)
    ap.add_argument("--ent-coef", type=float, default=0.01)
    ap.add_argument("--vf-coef", type=float, default=0.5)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--eval-every", type=int, default=50, help="updates between evaluations")
    ap.add_argument("--eval-games", type=int, default=100, help="games per level (half as A)")
    return ap.parse_args(argv)


# ---------------------------------------------------------------- networks


def init_mlp(rng: np.random.Generator, sizes: list[int], last_scale: float) -> list[np.ndarray]:
    """Weights and biases of a tanh MLP: scaled normal weights (orthogonal
    init's variance), zero biases, the last layer scaled by ``last_scale``
    (small for the policy: it starts near uniform)."""
    params = []
    for k, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        scale = last_scale if k == len(sizes) - 2 else np.sqrt(2.0)
        params.append(rng.normal(0.0, scale / np.sqrt(a), (a, b)))
        params.append(np.zeros(b))
    return params


def forward(params: list[np.ndarray], x: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """The MLP's output and the activations ``backward`` needs."""
    acts = [x]
    h = x
    n_layers = len(params) // 2
    for k in range(n_layers):
        h = h @ params[2 * k] + params[2 * k + 1]
        if k < n_layers - 1:
            h = np.tanh(h)
        acts.append(h)
    return h, acts


def backward(params: list[np.ndarray], acts: list[np.ndarray], grad_out: np.ndarray) -> list[np.ndarray]:
    """The gradients of the parameters given d(loss)/d(output)."""
    grads: list[np.ndarray] = [np.zeros(0)] * len(params)
    g = grad_out
    n_layers = len(params) // 2
    for k in reversed(range(n_layers)):
        grads[2 * k] = acts[k].T @ g
        grads[2 * k + 1] = g.sum(axis=0)
        if k > 0:
            g = (g @ params[2 * k].T) * (1.0 - acts[k] ** 2)
    return grads


class Adam:
    def __init__(self, params: list[np.ndarray], lr: float) -> None:
        self.params, self.lr, self.t = params, lr, 0
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]

    def step(self, grads: list[np.ndarray], lr: float, max_norm: float = 0.5) -> None:
        norm = np.sqrt(sum(float((g * g).sum()) for g in grads))
        if norm > max_norm:  # clip the global norm, as CleanRL does
            grads = [g * (max_norm / norm) for g in grads]
        self.t += 1
        for p, g, m, v in zip(self.params, grads, self.m, self.v):
            m *= 0.9
            m += 0.1 * g
            v *= 0.999
            v += 0.001 * g * g
            mhat = m / (1 - 0.9**self.t)
            vhat = v / (1 - 0.999**self.t)
            p -= lr * mhat / (np.sqrt(vhat) + 1e-8)


def masked_log_softmax(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """log π over the legal actions (-inf elsewhere)."""
    z = np.where(mask, logits, -np.inf)
    z = z - z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


@dataclass
class Losses:
    total: float
    policy: float
    value: float
    entropy: float
    approx_kl: float
    clip_frac: float


def ppo_loss_and_grads(
    actor: list[np.ndarray],
    critic: list[np.ndarray],
    obs: np.ndarray,
    mask: np.ndarray,
    actions: np.ndarray,
    old_logp: np.ndarray,
    adv: np.ndarray,
    returns: np.ndarray,
    clip: float,
    ent_coef: float,
    vf_coef: float,
) -> tuple[Losses, list[np.ndarray], list[np.ndarray]]:
    """PPO's loss on a minibatch, mean(-min(r A, clip(r) A)) - ent_coef *
    mean(H) + vf_coef * mean((V - R)^2) / 2, and its gradients for the
    actor's and the critic's parameters."""
    n = len(actions)
    logits, a_acts = forward(actor, obs)
    logp_all = masked_log_softmax(logits, mask)
    probs = np.exp(logp_all)  # 0 for illegal actions
    rows = np.arange(n)
    logp = logp_all[rows, actions]
    ratio = np.exp(logp - old_logp)
    clipped = np.clip(ratio, 1 - clip, 1 + clip)
    surr = np.minimum(ratio * adv, clipped * adv)
    plogp = np.where(mask, probs * np.where(mask, logp_all, 0.0), 0.0)
    entropy = -plogp.sum(axis=1)
    # d(-surr)/d(logp): -r A where the unclipped term is the minimum.
    active = ratio * adv <= clipped * adv
    d_logp = np.where(active, -ratio * adv, 0.0) / n
    onehot = np.zeros_like(probs)
    onehot[rows, actions] = 1.0
    g_logits = d_logp[:, None] * (onehot - probs)
    # d(-ent_coef * H)/d(logits_j) = ent_coef * π_j (log π_j + H).
    log_safe = np.where(mask, logp_all, 0.0)
    g_logits += (ent_coef / n) * probs * (log_safe + entropy[:, None])
    g_actor = backward(actor, a_acts, g_logits)

    values, c_acts = forward(critic, obs)
    values = values[:, 0]
    v_err = values - returns
    g_values = (vf_coef / n) * v_err
    g_critic = backward(critic, c_acts, g_values[:, None])

    policy_loss = float(-surr.mean())
    value_loss = float(0.5 * (v_err**2).mean())
    ent = float(entropy.mean())
    losses = Losses(
        total=policy_loss - ent_coef * ent + vf_coef * value_loss,
        policy=policy_loss,
        value=value_loss,
        entropy=ent,
        approx_kl=float(((ratio - 1) - (logp - old_logp)).mean()),
        clip_frac=float((np.abs(ratio - 1) > clip).mean()),
    )
    return losses, g_actor, g_critic


# ------------------------------------------------------------ environments


def obs_scale(rules: str) -> np.ndarray:
    """Divides the canonical observation into [0, 1]: Gore-v0's space's
    upper bounds (the ply by 200 when the rules have no cap)."""
    high = gore.gym.observation_space(gore.Rules(rules)).high.astype(np.float64)
    return np.where(high > 1e6, 200.0, high)


def make_env(rules: str, level: int, reward: str = "win"):
    def thunk():
        return gymnasium.make("gore.gym:Gore-v0", level=level, rules=rules, side="random", reward=reward)

    return thunk


def evaluate(actor: list[np.ndarray], scale: np.ndarray, rules: str, games: int, seed: int) -> dict:
    """The greedy policy against levels 1-3: {level: {"A": (wins, draws,
    losses), "B": (…)}}, half of the games as A, half as B."""
    out = {}
    for level in (1, 2, 3):
        out[level] = {}
        for side_no, side in enumerate(("A", "B")):
            tally = [0, 0, 0]
            env = gymnasium.make("gore.gym:Gore-v0", level=level, rules=rules, side=side, reward="win")
            count = games // 2 + (games % 2 if side == "A" else 0)
            for g in range(count):
                obs, info = env.reset(seed=seed + 1000 * level + 100_000 * side_no + g)
                done = False
                while not done:
                    logits, _ = forward(actor, obs[None] / scale)
                    z = np.where(info["action_mask"].astype(bool), logits[0], -np.inf)
                    obs, r, term, trunc, info = env.step(int(np.argmax(z)))
                    done = term or trunc
                tally[0 if r > 0 else 1 if r == 0 else 2] += 1
            env.close()
            out[level][side] = tuple(tally)
    return out


def print_eval(update: int, steps: int, res: dict, seconds: float) -> None:
    """The win rate (wins over games) against each level, then the wins,
    draws and losses as A and as B."""
    rates, sides = [], []
    for lv, by_side in res.items():
        w = sum(t[0] for t in by_side.values())
        n = sum(sum(t) for t in by_side.values())
        rates.append(f"level {lv}: {100 * w / max(n, 1):5.1f}%")
        sides.append(" ".join("/".join(map(str, by_side[s])) for s in ("A", "B")))
    print(f"update {update:4d}  steps {steps:8,d}  {seconds:4.0f} s  win rate  {'  '.join(rates)}")
    print(f"    wins/draws/losses as A, as B: levels 1-3  {'   '.join(sides)}", flush=True)


# ------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    rng = np.random.default_rng(args.seed)
    scale = obs_scale(args.rules)
    levels = [1 + i % 3 for i in range(args.num_envs)]
    envs = gymnasium.vector.SyncVectorEnv(
        [make_env(args.rules, lv, args.reward) for lv in levels],
        autoreset_mode=gymnasium.vector.AutoresetMode.SAME_STEP,
    )
    size = gore.CANONICAL_SIZE
    actor = init_mlp(rng, [size, args.hidden, args.hidden, gore.NUM_ACTIONS], 0.01)
    critic = init_mlp(rng, [size, args.hidden, args.hidden, 1], 1.0)
    opt_a, opt_c = Adam(actor, args.lr), Adam(critic, args.lr)

    T, N = args.num_steps, args.num_envs
    batch = T * N
    updates = max(1, args.total_steps // batch)
    buf_obs = np.zeros((T, N, size))
    buf_mask = np.zeros((T, N, gore.NUM_ACTIONS), dtype=bool)
    buf_act = np.zeros((T, N), dtype=np.int64)
    buf_logp = np.zeros((T, N))
    buf_rew = np.zeros((T, N))
    buf_done = np.zeros((T, N))
    buf_val = np.zeros((T, N))

    t0 = time.perf_counter()
    obs, info = envs.reset(seed=args.seed)
    obs = obs / scale
    mask = info["action_mask"].astype(bool)
    done = np.zeros(N)
    results: dict = {"evaluations": []}
    res = evaluate(actor, scale, args.rules, args.eval_games, args.seed)
    results["evaluations"].append((0, 0, res))
    print_eval(0, 0, res, time.perf_counter() - t0)
    episodes = {1: [], 2: [], 3: []}
    steps = 0
    for update in range(1, updates + 1):
        lr = args.lr * (1.0 - (update - 1) / updates)  # annealed, as CleanRL
        for t in range(T):
            buf_obs[t], buf_mask[t], buf_done[t] = obs, mask, done
            logits, _ = forward(actor, obs)
            logp_all = masked_log_softmax(logits, mask)
            # Sample by the Gumbel-max trick over the legal actions.
            g = rng.gumbel(size=logp_all.shape)
            act = np.argmax(np.where(mask, logp_all + g, -np.inf), axis=1)
            buf_act[t] = act
            buf_logp[t] = logp_all[np.arange(N), act]
            buf_val[t] = forward(critic, obs)[0][:, 0]
            obs, rew, term, trunc, info = envs.step(act)
            obs = obs / scale
            mask = info["action_mask"].astype(bool)
            ended = np.logical_or(term, trunc)
            # A draw (a game over with reward 0) costs the contempt.
            rew = np.where(term & (rew == 0), -args.contempt, rew)
            buf_rew[t] = rew
            done = ended.astype(np.float64)
            for i in np.flatnonzero(ended):
                episodes[levels[i]].append(rew[i])
            steps += N
        # GAE: a done after step t means no bootstrap from t + 1.
        next_val = forward(critic, obs)[0][:, 0]
        adv = np.zeros((T, N))
        last = np.zeros(N)
        for t in reversed(range(T)):
            nonterminal = 1.0 - (done if t == T - 1 else buf_done[t + 1])
            nv = next_val if t == T - 1 else buf_val[t + 1]
            delta = buf_rew[t] + args.gamma * nv * nonterminal - buf_val[t]
            last = delta + args.gamma * args.gae_lambda * nonterminal * last
            adv[t] = last
        ret = adv + buf_val

        b_obs, b_mask = buf_obs.reshape(batch, size), buf_mask.reshape(batch, -1)
        b_act, b_logp = buf_act.reshape(batch), buf_logp.reshape(batch)
        b_adv, b_ret = adv.reshape(batch), ret.reshape(batch)
        mb = batch // args.minibatches
        for _ in range(args.update_epochs):
            order = rng.permutation(batch)
            for start in range(0, batch, mb):
                idx = order[start : start + mb]
                a = b_adv[idx]
                a = (a - a.mean()) / (a.std() + 1e-8)
                losses, g_a, g_c = ppo_loss_and_grads(
                    actor, critic, b_obs[idx], b_mask[idx], b_act[idx], b_logp[idx], a,
                    b_ret[idx], args.clip, args.ent_coef, args.vf_coef,
                )
                opt_a.step(g_a, lr)
                opt_c.step(g_c, lr)
        if update % args.eval_every == 0 or update == updates:
            recent = "  ".join(
                f"L{lv} {np.mean(v[-200:]):+.2f}" for lv, v in episodes.items() if v
            )
            print(
                f"  training: mean reward of the last episodes {recent}; entropy {losses.entropy:.2f},"
                f" value loss {losses.value:.3f}, kl {losses.approx_kl:.4f}"
            )
            res = evaluate(actor, scale, args.rules, args.eval_games, args.seed)
            results["evaluations"].append((update, steps, res))
            print_eval(update, steps, res, time.perf_counter() - t0)
    envs.close()
    results["actor"], results["critic"], results["scale"] = actor, critic, scale
    return results


if __name__ == "__main__":
    main()

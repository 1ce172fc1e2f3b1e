"""Train a linear softmax policy on the Bummerl observation tensor with REINFORCE (numpy only),
then show it beating the bundled ``random`` bot.

    .venv/bin/python clients/python/examples/reinforce_linear.py --variant schnapsen-at --minutes 2

The env is :class:`bummerl.envs.gym.SingleSeat` (one deal per episode, the other seat played by
``random``); the policy is ``softmax(W @ obs + b)`` over the legal actions (the action mask), its
gradient the score function times the deal's game points minus a running baseline. It ends by
playing ``--eval`` deals of the trained policy and of a uniform random policy against the same
opponent and deals (the same seeds) and printing the mean game points per deal of each (needs
``pip install 'bummerl[learning]'``).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bummerl.envs.gym import SingleSeat


class LinearPolicy:
    """``softmax(W @ obs + b)`` restricted to the legal actions."""

    def __init__(self, obs_size: int, num_actions: int, rng: np.random.Generator) -> None:
        self.W = np.zeros((num_actions, obs_size))
        self.b = np.zeros(num_actions)
        self.rng = rng

    def probs(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        z = self.W @ obs + self.b
        z = np.where(mask > 0, z, -np.inf)
        z -= z.max()
        p = np.exp(z)
        return p / p.sum()

    def act(self, obs: dict[str, np.ndarray], greedy: bool = False) -> tuple[int, np.ndarray]:
        p = self.probs(obs["observation"], obs["action_mask"])
        a = int(np.argmax(p)) if greedy else int(self.rng.choice(len(p), p=p))
        return a, p


def episode(env: SingleSeat, choose, seed: int) -> tuple[float, list]:
    obs, info = env.reset(seed=seed)
    steps, total, done = [], 0.0, False
    while not done:
        a, p = choose(obs)
        steps.append((obs["observation"], a, p))
        obs, reward, done, _, info = env.step(a)
        total += reward
    return total, steps


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="schnapsen-at")
    ap.add_argument("--opponent", default="random", help="bot spec of the other seats")
    ap.add_argument("--minutes", type=float, default=2.0, help="training time")
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--eval", type=int, default=1000, help="evaluation deals")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    env = SingleSeat(args.variant, opponents=args.opponent, mode="deal")
    rng = np.random.default_rng(args.seed)
    pol = LinearPolicy(env.observation_space["observation"].shape[0], env.action_space.n, rng)
    baseline, episodes, t_end = 0.0, 0, time.monotonic() + 60 * args.minutes
    while time.monotonic() < t_end:
        ret, steps = episode(env, pol.act, seed=10_000_000 + episodes)
        adv = ret - baseline
        baseline += 0.01 * (ret - baseline)
        for x, a, p in steps:  # d log softmax / d logits = onehot(a) - p
            g = -p
            g[a] += 1.0
            pol.W += args.lr * adv * np.outer(g, x)
            pol.b += args.lr * adv * g
        episodes += 1
        if episodes % 2000 == 0:
            print(f"{episodes} episodes, running mean game points per deal {baseline:+.3f}", flush=True)

    def uniform(obs):
        legal = np.flatnonzero(obs["action_mask"])
        return int(rng.choice(legal)), None

    trained = np.mean([episode(env, lambda o: pol.act(o, greedy=True), seed=s)[0] for s in range(args.eval)])
    rand = np.mean([episode(env, uniform, seed=s)[0] for s in range(args.eval)])
    print(f"{args.variant}, {episodes} training deals in {args.minutes} min; over {args.eval} deals vs "
          f"{args.opponent}: trained linear policy {trained:+.3f} game points per deal, uniform random {rand:+.3f}")


if __name__ == "__main__":
    main()

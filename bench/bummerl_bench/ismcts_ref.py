"""``ismcts-ref``: a plain information-set MCTS player, the independent reference of ``bummerl bench
strong`` (issue 41; two-player variants only): ``--opponent ismcts-ref:budget_ms=50``.

Single-observer ISMCTS as Cowling, Powley and Whitehouse describe it ("Information Set Monte Carlo
Tree Search", IEEE TCIAIG 4(2), 2012), with nothing of ``strong``'s search: no rule policy, no
endgame solver, no utility model. Each iteration samples one world consistent with the seat's
information set (the engine's :class:`bummerl.rules.worlds.PublicDeal`), descends one tree of
actions (both seats' choices; after a draw the node is keyed by the card this seat drew) by UCB1
with availability counts, adds one node, plays the deal out at random, and scores the deal as the
benchmark does (1 won, 0 lost; game points are not counted). The only knowledge in the playouts:
"66" is declared when it is correct and never falsely (a random false declaration would end most
playouts at once). The action played is the root's most visited.

Options (spec ``ismcts-ref:budget_ms=50,iterations=0,exploration=0.7``): ``budget_ms`` wall time per
decision (default 50; 0 = no limit), ``iterations`` per decision (0 = as many as the budget allows;
without a budget 1000), ``exploration`` the UCB1 constant. It lives in the benchmark, not in
``make_bot``: it is a yardstick, not a bundled bot.
"""

from __future__ import annotations

import math
import random
import time
import zlib
from collections.abc import Mapping
from typing import Any

from bummerl.bots import Bot, InfoSet
from bummerl.rules import DealState
from bummerl.rules import actions as A
from bummerl.rules.search import DRAW, OVER
from bummerl.rules.worlds import InconsistentInfo, PublicDeal

NAME = "ismcts-ref"
_SEEN = 1000  # key of an observation node: _SEEN + the card drawn


class _Node:
    __slots__ = ("avail", "kids", "visits", "wins")

    def __init__(self) -> None:
        self.visits = 0
        self.wins = 0.0
        self.avail = 0
        self.kids: dict[int, _Node] = {}


class IsmctsRefBot(Bot):
    """The plain ISMCTS reference (module docstring)."""

    name = NAME

    def __init__(self, seed: int | None = None, budget_ms: float = 50.0, iterations: int = 0,
                 exploration: float = 0.7) -> None:
        super().__init__(seed)
        if budget_ms < 0 or iterations < 0 or exploration <= 0:
            raise ValueError(f"bot '{NAME}': budget_ms and iterations must be >= 0, exploration > 0")
        self.seed = seed if seed is not None else random.randrange(2**62)
        self.budget_ms = budget_ms
        self.iterations = iterations
        self.c = exploration
        self.decisions = 0
        self.think_s = 0.0
        self.last_iterations = 0

    @classmethod
    def from_options(cls, seed: int | None, options: Mapping[str, str]) -> IsmctsRefBot:
        kw: dict[str, Any] = {}
        for k, v in options.items():
            if k == "seed":
                seed = int(v)
            elif k in ("budget_ms", "exploration"):
                kw[k] = float(v)
            elif k == "iterations":
                kw[k] = int(v)
            else:
                raise ValueError(f"unknown option {k!r} for bot '{NAME}'; known: budget_ms, exploration, iterations, seed")
        return cls(seed, **kw)

    def choose(self, info: InfoSet) -> int | str:
        t0 = time.perf_counter()
        try:
            return self._choose(info, t0)
        finally:
            self.decisions += 1
            self.think_s += time.perf_counter() - t0

    def _choose(self, info: InfoSet, t0: float) -> int:
        legal = [int(a["id"]) for a in info.legal_actions]
        if len(legal) == 1:
            return legal[0]
        if int(info.raw.get("num_seats", 2)) != 2:
            raise ValueError(f"bot '{NAME}' plays the two-seat variants only")
        try:
            pub = PublicDeal(info.raw)
        except (InconsistentInfo, ValueError, KeyError):
            return legal[0]
        me = pub.me
        if A.DECLARE in legal and pub.deal_points(me) >= 66:
            return A.DECLARE
        key = f"{self.seed}/{info.match.get('deal_number', 0)}/{len(info.deal.get('history', []))}/{info.deal.get('hand')}"
        rng = random.Random(zlib.crc32(key.encode()) ^ (self.seed & 0xFFFFFFFF) << 32)
        deadline = t0 + self.budget_ms / 1000.0 if self.budget_ms > 0 else math.inf
        cap = self.iterations or (1000 if deadline == math.inf else 1 << 30)
        root = _Node()
        n = 0
        while n < cap:
            self._iterate(pub, root, rng)
            n += 1
            if n % 8 == 0 and time.perf_counter() >= deadline:
                break
        self.last_iterations = n
        kids = root.kids
        return max(legal, key=lambda a: (kids[a].visits, kids[a].wins) if a in kids else (-1, 0.0))

    def _iterate(self, pub: PublicDeal, root: _Node, rng: random.Random) -> None:
        d = pub.deal_state(*pub.sample(rng))
        me = pub.me
        node = root
        path: list[tuple[_Node, int]] = []
        grown = False
        while d.phase != OVER and not grown:
            acts = _moves(d)
            p = d.to_act
            if d.phase == DRAW and len(acts) == 1:
                node = _observe(d, acts[0], node, path, me)
                continue
            kids = node.kids
            fresh = [a for a in acts if a not in kids]
            for b in acts:
                if b in kids:
                    kids[b].avail += 1
            if fresh:
                a = fresh[rng.randrange(len(fresh))]
                child = kids[a] = _Node()
                child.avail = 1
                grown = True
            else:
                a = max(acts, key=lambda b: kids[b].wins / kids[b].visits
                        + self.c * math.sqrt(math.log(kids[b].avail) / kids[b].visits))
                child = kids[a]
            path.append((child, p))
            node = child
            if d.phase == DRAW and a == A.DRAW:
                node = _observe(d, a, node, path, me)
            else:
                d.step(a)
        while d.phase != OVER:  # random playout
            acts = _moves(d)
            d.step(acts[rng.randrange(len(acts))] if len(acts) > 1 else acts[0])
        assert d.outcome is not None
        won = 1.0 if d.outcome.winner == me else 0.0 if d.outcome.winner >= 0 else 0.5
        for n, p in path:
            n.visits += 1
            n.wins += won if p in (me, -1) else 1.0 - won


def _moves(d: DealState) -> list[int]:
    """The legal actions, "66" only when correct (then alone: it ends the deal won)."""
    acts = d.legal_actions()
    if A.DECLARE in acts:
        if d.deal_points(d.to_act) >= 66:
            return [A.DECLARE]
        acts = [a for a in acts if a != A.DECLARE] or acts
    return acts


def _observe(d: DealState, a: int, node: _Node, path: list[tuple[_Node, int]], me: int) -> _Node:
    before = d.hands[me]
    d.step(a)
    got = d.hands[me] & ~before
    key = _SEEN + (got.bit_length() - 1 if got else -1)
    child = node.kids.get(key)
    if child is None:
        child = node.kids[key] = _Node()
    path.append((child, -1))
    return child


def is_ismcts_ref(spec: str) -> bool:
    """Whether a bot spec names this reference."""
    return spec.strip().partition(":")[0].strip() == NAME


def make_ref(spec: str, seed: int | None) -> IsmctsRefBot:
    """The reference from its spec (``ismcts-ref`` with optional ``key=value`` options)."""
    from bummerl.bots import parse_options

    _, _, opts = spec.strip().partition(":")
    return IsmctsRefBot.from_options(seed, parse_options(opts))

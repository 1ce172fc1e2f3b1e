"""Information-set Monte Carlo tree search for ``strong``'s two-player deals (issue 41).

Single-observer ISMCTS (SO-ISMCTS, Cowling, Powley and Whitehouse, "Information Set Monte Carlo Tree
Search", IEEE TCIAIG 2012): one tree over the deciding seat's information sets, grown by iterations
that each play one *determinization* (a world sampled from the information set by
:meth:`bummerl.rules.worlds.PublicDeal.sample`, or drawn with inference by the caller's sampler):

1. **Selection**: from the root, at each node the seat to act picks, among the actions legal in
   this determinization, the one with the best UCB1 value, counting for each action the times it
   was *available* (legal in the iteration's determinization) instead of the parent's visits.
   Both seats' choices are nodes of the one tree (the opponent's averaged over the hands the
   deciding seat cannot tell apart). A draw from the talon is a step of its own: the node after it
   is keyed by the card the deciding seat drew (what it observes), not by the opponent's card.
2. **Expansion**: the first action of a node not yet tried in this determinization is added.
3. **Evaluation** of the new node's position on the determinization (``leaf``): ``solve`` = the
   valuation of PIMC's search (the rule-based :func:`~bummerl.bots.strong.policy` while the talon
   is open, then the exact :class:`~bummerl.bots.endgame.EndgameSolver` once it is closed or
   exhausted); ``policy`` = the rule policy to the end of the deal (cheaper, no open-card search);
   ``random`` = uniformly random moves to the end ("66" declared when correct, never falsely);
   ``mixed`` = each move by the rule policy or at random, half and half. A random move never
   closes the talon unless ``playout_close`` (the rule policy never closes): random closes in the
   playouts cost 85 Elo in ``santase`` (``bench/STRONG_NOTES.md``).
4. **Backpropagation**: the deal's utility for the deciding seat (``utility``: the bot's objective)
   is added along the path, negated at the opponent's nodes (the utilities are antisymmetric).

The action played is the root's most visited one. The search is repeatable from its generator when
it runs a fixed number of ``iterations`` (no deadline).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from typing import Any

from bummerl.rules import DealOutcome, DealState
from bummerl.rules import actions as A
from bummerl.rules.search import DRAW, OVER
from bummerl.rules.worlds import PublicDeal

from .endgame import EndgameSolver

#: Keys of the observation nodes after a draw: ``OBSERVED + card`` drawn by the deciding seat.
OBSERVED = 1000
LEAVES = ("solve", "policy", "random", "mixed")

Sampler = Callable[[random.Random], tuple[int, list[int]]]
Policy = Callable[[DealState], int]


class Node:
    """A node of the tree: the edge into it (``visits``, ``total`` reward for the seat that took
    the edge, ``avail`` = iterations in which the edge was legal) and its children by action (or
    by ``OBSERVED + card`` after a draw)."""

    __slots__ = ("avail", "children", "total", "visits")

    def __init__(self) -> None:
        self.visits = 0
        self.total = 0.0
        self.avail = 0
        self.children: dict[int, Node] = {}


class Ismcts:
    """One decision's search (module docstring). ``pub``: the public deal of the deciding seat;
    ``legal``: its legal actions now (the root's); ``utility``: a deal outcome's value in [-1, 1] for
    the deciding seat; ``policy``: the rule policy of the evaluations; ``sampler``: draws a
    determinization (default: :meth:`PublicDeal.sample`); ``exploration``: the UCB1 constant."""

    def __init__(self, pub: PublicDeal, legal: list[int], utility: Callable[[DealOutcome], float], policy: Policy,
                 rng: random.Random, sampler: Sampler | None = None, exploration: float = 0.7,
                 leaf: str = "solve", playout_close: bool = False) -> None:
        if leaf not in LEAVES:
            raise ValueError(f"leaf must be one of {', '.join(LEAVES)}, not {leaf!r}")
        self.pub = pub
        self.me = pub.me
        self.legal = legal
        self.utility = utility
        self.policy = policy
        self.rng = rng
        self.sampler: Sampler = sampler or pub.sample
        self.c = exploration
        self.leaf = leaf
        self.playout_close = playout_close
        self.root = Node()
        self.iterations = 0
        self.solvers: dict[tuple[Any, ...], EndgameSolver] = {}

    def run(self, iterations: int = 0, deadline: float = math.inf, min_iterations: int = 16) -> int:
        """Iterate until ``iterations`` (when > 0) or the ``deadline`` (``time.perf_counter``, once
        ``min_iterations`` are done); without either, 1000 iterations. Returns the action chosen."""
        cap = iterations if iterations > 0 else (1000 if deadline == math.inf else 1 << 30)
        while self.iterations < cap:
            self.iterate()
            if (self.iterations >= min_iterations and self.iterations % 8 == 0
                    and time.perf_counter() >= deadline):
                break
        return self.best()

    def best(self) -> int:
        """The root's most visited legal action (ties: the higher mean, then the first legal)."""
        kids = self.root.children
        scored = [(kids[a].visits, kids[a].total / kids[a].visits, -i) if a in kids and kids[a].visits else (0, -2.0, -i)
                  for i, a in enumerate(self.legal)]
        return self.legal[max(range(len(self.legal)), key=lambda i: scored[i])]

    def stats(self) -> dict[int, tuple[int, float]]:
        """Per root action: (visits, mean reward for the deciding seat)."""
        return {a: (n.visits, n.total / n.visits if n.visits else 0.0) for a, n in self.root.children.items()}

    def iterate(self) -> None:
        d = self.pub.deal_state(*self.sampler(self.rng))
        node = self.root
        path: list[tuple[Node, int]] = []  # (node entered, seat that chose the edge into it; -1 = observation)
        me = self.me
        c = self.c
        expanded = False
        while d.phase != OVER and not expanded:
            acts = d.legal_actions()
            if d.phase == DRAW and len(acts) == 1:
                node = self._draw(d, acts[0], node, path)
                continue
            p = d.to_act
            drawing = d.phase == DRAW
            kids = node.children
            untried = [a for a in acts if a not in kids]
            if untried:
                a = untried[self.rng.randrange(len(untried))] if len(untried) > 1 else untried[0]
                for b in acts:
                    k = kids.get(b)
                    if k is not None:
                        k.avail += 1
                child = kids[a] = Node()
                child.avail = 1
                expanded = True
            else:
                best_v = -math.inf
                a = acts[0]
                child = kids[a]
                for b in acts:
                    k = kids[b]
                    k.avail += 1
                    v = k.total / k.visits + c * math.sqrt(math.log(k.avail) / k.visits)
                    if v > best_v:
                        best_v, a, child = v, b, k
            node = child
            path.append((node, p))
            if drawing and a == A.DRAW:
                node = self._draw(d, a, node, path)
            else:
                d.step(a)
        r = self.evaluate(d)
        self.root.visits += 1
        for n, p in path:
            n.visits += 1
            n.total += r if p == me or p < 0 else -r
        self.iterations += 1

    def _draw(self, d: DealState, a: int, node: Node, path: list[tuple[Node, int]]) -> Node:
        """Step the draw ``a`` on ``d``; the node after it is keyed by the card the deciding seat got."""
        me = self.me
        before = d.hands[me]
        d.step(a)
        got = d.hands[me] & ~before
        key = OBSERVED + (got.bit_length() - 1 if got else -1)
        child = node.children.get(key)
        if child is None:
            child = node.children[key] = Node()
        path.append((child, -1))
        return child

    def evaluate(self, d: DealState) -> float:
        """The value for the deciding seat of a determinization's position (``leaf``)."""
        policy = self.policy
        if self.leaf in ("random", "mixed"):
            rng = self.rng
            mixed = self.leaf == "mixed"
            while d.phase != OVER:
                if mixed and rng.random() < 0.5:
                    d.step(policy(d))
                    continue
                acts = d.legal_actions()
                if A.DECLARE in acts:
                    if d.deal_points(d.to_act) >= 66:
                        d.step(A.DECLARE)
                        continue
                    acts = [a for a in acts if a != A.DECLARE] or acts
                if not self.playout_close and A.CLOSE in acts:
                    acts = [a for a in acts if a != A.CLOSE] or acts
                d.step(acts[rng.randrange(len(acts))] if len(acts) > 1 else acts[0])
        elif self.leaf == "policy":
            while d.phase != OVER:
                d.step(policy(d))
        else:
            while d.phase != OVER and not d.strict:
                d.step(policy(d))
        if d.phase == OVER:
            assert d.outcome is not None
            return self.utility(d.outcome)
        key = (d.trump, d.closed_by, d.close_snapshot)
        solver = self.solvers.get(key)
        if solver is None:
            solver = self.solvers[key] = EndgameSolver(d, self.me, self.utility)
        return solver.solve(d)

    @property
    def nodes(self) -> int:
        """Nodes searched by the endgame solvers (a profile figure)."""
        return sum(s.nodes for s in self.solvers.values())

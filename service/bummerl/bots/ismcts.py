"""Information-set Monte Carlo tree search for ``strong``'s two-player deals (issue 41).

Single-observer ISMCTS (SO-ISMCTS, Cowling, Powley and Whitehouse, "Information Set Monte Carlo Tree
Search", IEEE TCIAIG 2012): one tree over the deciding seat's information sets, grown by iterations
that each play one *determinization* (a world sampled from the information set by
:meth:`bummerl.rules.worlds.PublicDeal.sample`, or drawn with inference by the caller's sampler):

1. **Selection**: from the root, at each node the seat to act picks, among the actions legal in
   this determinization, the one with the best UCB1 value, counting for each action the times it
   was *available* (legal in the iteration's determinization) instead of the parent's visits.
   Both seats' choices are nodes of the one tree (the opponent's averaged over the hands the
   deciding seat cannot tell apart). Where a draw is a step of its own (the games whose trick
   winner may close before drawing: ``santase``, ``snaps-original66``, SAN-CLOSE-1, O66-CLOSE-2)
   the node after it is keyed by the card the deciding seat drew (what it observes), never by the
   opponent's card (``draws=observe``; ``first``: only the first draw below the root; ``merge``:
   none, ``strong``'s default since it measured better). Where the draw is part of the trick's
   second card (``schnapsen-at``, ``snaps-obican``, ``snapszer-hu-2p``), the drawn cards are not
   told apart: every card drawn is one node, an abstraction that pools the statistics of the
   seat's later choices.
2. **Expansion**: the first action of a node not yet tried in this determinization is added.
3. **Evaluation** of the new node's position on the determinization (``leaf``): ``solve`` = the
   valuation of PIMC's search (the rule-based :func:`~bummerl.bots.strong.policy` while the talon
   is open, then the exact :class:`~bummerl.bots.endgame.EndgameSolver` once it is closed or
   exhausted); ``policy`` = the rule policy to the end of the deal (cheaper, no open-card search);
   ``random`` = uniformly random moves to the end ("66" declared when correct, never falsely);
   ``mixed`` = each move by the rule policy (chance ``mix``, default 1/2) or at random. A random move never
   closes the talon unless ``playout_close`` (the rule policy never closes): random closes in the
   playouts cost 85 Elo in ``santase`` (``bench/STRONG_NOTES.md``). With ``solve_talon`` > 0 and
   at most that many cards in the talon at the root (the information set's ``talon_size``), a
   ``mixed`` playout stops where strict play begins (the talon closed or exhausted) and the
   position takes the exact endgame's value instead (:class:`~bummerl.bots.endgame.EndgameSolver`
   on the determinization, searched within the utility's bounds: a win found ends a node's
   search).
4. **Backpropagation**: the deal's utility for the deciding seat (``utility``: the bot's objective)
   is added along the path, negated at the opponent's nodes (the utilities are antisymmetric).

The action played is the root's most visited one. The search is repeatable from its generator when
it runs a fixed number of ``iterations`` (no deadline). With a deadline, :meth:`Ismcts.run` can
manage time (``clear``): stop a clear decision early (the most visited root action far ahead of the
next), go on with one that is not clear; the caller banks what was saved (:mod:`.strong`).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from typing import Any

from bummerl.rules import DealEnd, DealOutcome, DealState
from bummerl.rules import actions as A
from bummerl.rules.search import DRAW, FOLLOW, HIGHER, OVER, SUIT_MASK, cards_of
from bummerl.rules.worlds import PublicDeal

from .endgame import EndgameSolver

#: Keys of the observation nodes after a draw: ``OBSERVED + card`` drawn by the deciding seat.
OBSERVED = 1000
LEAVES = ("solve", "policy", "random", "mixed")
#: what the node after a draw is keyed by (``draws``): the card the deciding seat drew, that card
#: for the first draw below the root only, or nothing (every card drawn in one node)
DRAWS = ("observe", "first", "merge")

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
    determinization (default: :meth:`PublicDeal.sample`); ``exploration``: the UCB1 constant;
    ``solve_talon``: with at most this many cards in the talon at the root, ``mixed`` playouts end
    in the exact endgame (0 = never; module docstring, step 3)."""

    def __init__(self, pub: PublicDeal, legal: list[int], utility: Callable[[DealOutcome], float], policy: Policy,
                 rng: random.Random, sampler: Sampler | None = None, exploration: float = 0.7,
                 leaf: str = "solve", playout_close: bool = False, draws: str = "observe", mix: float = 0.5,
                 solve_talon: int = 0) -> None:
        if leaf not in LEAVES or draws not in DRAWS or solve_talon < 0:
            raise ValueError(f"leaf must be one of {', '.join(LEAVES)}, not {leaf!r}; draws one of {', '.join(DRAWS)}; "
                             f"solve_talon >= 0")
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
        self.draws = draws
        self.mix = mix
        #: whether the ``mixed`` playouts stop where strict play begins (``solve_talon``)
        self.solve_strict = 0 < pub.talon_size <= solve_talon
        #: the utility's least and greatest values: the window of the exact endgame's searches
        self.bounds = utility_bounds(utility)
        self.root = Node()
        self.iterations = 0
        self.solvers: dict[tuple[Any, ...], EndgameSolver] = {}

    def run(self, iterations: int = 0, deadline: float = math.inf, min_iterations: int = 16,
            early: float = math.inf, late: float = math.inf, clear: float = 0.0) -> int:
        """Iterate until ``iterations`` (when > 0) or the ``deadline`` (``time.perf_counter``, once
        ``min_iterations`` are done); without either, 1000 iterations. Returns the action chosen.

        Time management (``clear`` > 0, deadlines only): from ``early`` on, stop as soon as the
        decision is clear (:meth:`is_clear`: the most visited root action has ``clear`` times the
        visits of the next); past ``deadline`` go on while it is not clear, up to ``late``."""
        cap = iterations if iterations > 0 else (1000 if deadline == math.inf else 1 << 30)
        while self.iterations < cap:
            self.iterate()
            if self.iterations >= min_iterations and self.iterations % 8 == 0:
                now = time.perf_counter()
                if (now >= late or (now >= deadline and (clear <= 0.0 or late <= deadline))
                        or (now >= early and self.is_clear(clear))):
                    break
        return self.best()

    def is_clear(self, ratio: float) -> bool:
        """Whether the root's most visited action has at least ``ratio`` times the visits of the next
        (``ratio`` <= 0: never)."""
        if ratio <= 0.0:
            return False
        top = second = 0
        for n in self.root.children.values():
            v = n.visits
            if v > top:
                top, second = v, top
            elif v > second:
                second = v
        return top >= ratio * max(second, 1)

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
                a = untried[int(self.rng.random() * len(untried))] if len(untried) > 1 else untried[0]
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
        if self.draws == "merge" or (self.draws == "first" and path and any(p < 0 for _, p in path)):
            return node  # the card drawn is not told apart below this node (an abstraction)
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
        leaf = self.leaf
        if leaf == "mixed":
            self._mixed(d)
        elif leaf == "random":
            rnd = self.rng.random
            while d.phase != OVER:
                d.step(self._random_move(d, rnd))
        elif leaf == "policy":
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
        return solver.solve(d, *self.bounds)

    def _mixed(self, d: DealState) -> None:
        """The ``mixed`` playout, in place, to the end of the deal (with ``solve_strict``: to the
        first lead or draw of strict play, for the exact endgame): each move the rule policy's (with
        chance ``mix``) or a uniformly random legal one (no false "66", no close unless
        ``playout_close``). A trick's second card (half the moves) is picked from the hand's
        bitmask here, among the cards the engine's ``legal_actions`` allows and as the rule policy
        would (tested against both), without building their lists."""
        rnd = self.rng.random
        mix = self.mix
        policy = self.policy
        pts = d.rules.points
        talon = d.talon
        stop = self.solve_strict
        while d.phase != OVER:
            if stop and d.phase != FOLLOW and (d.closed_by >= 0 or d.tpos >= len(talon)):
                return
            if d.phase == FOLLOW:
                p = d.to_act
                h = d.hands[p]
                lc = d.lead_card
                ls = lc // 6
                trump = d.trump
                strict = d.closed_by >= 0 or d.tpos >= len(talon)
                if strict:  # DEF-PLAY-STRICT, as TalonDeal.legal_actions
                    legal = h & SUIT_MASK[ls]
                    legal = (legal & HIGHER[lc] or legal) if legal else (h & SUIT_MASK[trump] or h)
                else:
                    legal = h
                if rnd() < mix:
                    d.step(_follow_policy(h, legal, lc, ls, trump, strict, pts))
                else:
                    cards = cards_of(legal)
                    d.step(cards[int(rnd() * len(cards))])
                continue
            d.step(policy(d) if rnd() < mix else self._random_move(d, rnd))

    def _random_move(self, d: DealState, rnd: Callable[[], float]) -> int:
        """A uniformly random legal action of a playout: "66" declared when it is correct and never
        falsely (DEF-DECL-1), no close of the talon unless ``playout_close``."""
        acts = d.legal_actions()
        if A.DECLARE in acts:
            if d.deal_points(d.to_act) >= 66:
                return A.DECLARE
            acts = [a for a in acts if a != A.DECLARE] or acts
        if not self.playout_close and A.CLOSE in acts:
            acts = [a for a in acts if a != A.CLOSE] or acts
        return acts[int(rnd() * len(acts))]

    @property
    def nodes(self) -> int:
        """Nodes searched by the endgame solvers (a profile figure)."""
        return sum(s.nodes for s in self.solvers.values())


def utility_bounds(utility: Callable[[DealOutcome], float]) -> tuple[float, float]:
    """The least and greatest value of ``utility`` over a two-player deal's outcomes (either seat
    or nobody winning, for 1 to 3 game points): the window in which
    :meth:`~bummerl.bots.endgame.EndgameSolver.solve` still returns exact values."""
    vals = [utility(DealOutcome(w, g, DealEnd.PLAYED_OUT)) for w in (0, 1) for g in (1, 2, 3)]
    vals.append(utility(DealOutcome(-1, 0, DealEnd.DRAWN)))
    return min(vals), max(vals)


def _follow_policy(h: int, legal: int, lc: int, ls: int, trump: int, strict: bool, pts: tuple[int, ...]) -> int:
    """The rule policy's second card of a trick (:func:`bummerl.bots.strong.policy`'s follow branch,
    the same card) from bitmasks: ``h`` the hand, ``legal`` the cards it may play to the led card
    ``lc`` (suit ``ls``)."""
    if not legal & (legal - 1):
        return legal.bit_length() - 1
    same = legal & HIGHER[lc]
    winners = same | (legal & SUIT_MASK[trump] if ls != trump else 0)
    if winners and (same or strict or pts[lc] >= 10):
        best = -1
        key = (99, 0)
        for c in cards_of(same or winners):
            k = (pts[c], -c)
            if k < key:
                best, key = c, k
        return best
    best = -1
    key2 = (True, True, 99, 99)
    for c in cards_of(legal):
        r = c % 6
        paired = bool(h & (1 << (c + 1))) if r == 2 else (bool(h & (1 << (c - 1))) if r == 3 else False)
        k2 = (c // 6 == trump, paired, pts[c], c)
        if k2 < key2:
            best, key2 = c, k2
    return best

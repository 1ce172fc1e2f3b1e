"""Search for the contract deals of ``strong`` (bauernschnapsen §9, talonschnapsen §10,
snapszer-hu-3p-sopron §11, snapszer-hu-4p §12; the contract skeleton of docs/RULES.md §1.8).

It sees only what a remote bot sees (the information set, RULES.md §14) and decides by
Perfect-Information Monte Carlo, as bridge programs value bids with double-dummy samples:

1. :class:`~bummerl.rules.worlds_contract.ContractSampler` (the engine's world sampler) reads the public history (trump naming, bids, passes,
   kontras, cards
   laid away and taken up, marriages shown, cards played) and samples *deals*: the hidden cards
   of the other seats (hands, laid-away cards, the talon, the cards not yet dealt) dealt at
   random (another seat's laid-away cards likelier cheap side cards: :meth:`ContractSampler._lay_weight`)
   among the layouts that fit the hand sizes, the marriages shown, the cards shown, the
   seat's own laid-away cards, and the voids and "could not head" facts that strict play
   (DEF-PLAY-STRICT / DEF-PLAY-NT, OPEN-GEN-3) revealed. Each sample is turned into a deck
   (the variant's ``arrange``) and the whole public history is replayed on the engine's deal
   class; a sample that any past action would have made illegal (a trump named without holding
   it, an ineligible bid) is rejected. So every sample is a full engine deal in which every
   public action happened, at the present decision.
2. Each legal action is applied to every sample and valued by the deal's outcome for the seat's
   side (game points credited to the side minus those credited to the best other seat, kontra
   multiplier included; when the game's number of deals is given, ``horizon``, the chance of each
   placement after it instead: :func:`make_placement_utility`): once few tricks are left (``exact_tricks``) by an exact alpha-beta on
   open cards in which every seat plays for its side (a partner plays for the team, the two
   defenders of a solo contract for each other), before that by a playout with a fast
   rule-based policy (:func:`policy`) down to that size, then the same exact search. Auction
   decisions (trump naming, bids, kontra, lay-away) are valued the same way: the rest of the
   auction by the policy, then the play.
3. The action with the best mean wins; clearly worse actions are dropped early (successive
   elimination on the same samples, as the two-player search does).

Budget: ``budget_ms`` wall milliseconds per decision (at least ``min_samples`` samples), or
``samples`` per decision without a time limit (repeatable from the seed).
"""

from __future__ import annotations

import math
import random
import zlib
from collections.abc import Callable, Mapping
from typing import Any

from bummerl.rules import actions as A
from bummerl.rules import cards as K
from bummerl.rules import find_variant
from bummerl.rules.search import ContractDeal, winning_card
from bummerl.rules.worlds import ContractSampler, NoSample

from .base import InfoSet
from .elimination import normal_cdf, sampling_done, survivors
from .greedy import GreedyBot

#: Tricks left (at a lead) from which on a position is valued by the exact search.
EXACT_TRICKS = 3


def _bits(m: int) -> int:
    return bin(m).count("1")


def _pts(d: ContractDeal, c: int) -> int:
    return int(d.rules.points[c])


def policy(d: ContractDeal) -> int:
    """A fast rule-based action for the seat to act, from its own hand and the public state
    only: the auction as ``greedy`` plays it, then cheap leads, taking valuable tricks cheaply,
    giving points to a partner who wins, declaring with 66; the declarer of a Bettler ducks."""
    acts = d.legal_actions()
    if len(acts) == 1:
        return acts[0]
    ph = d.phase
    p = d.to_act_seat
    h = d.hands[p]
    if ph not in ("lead", "follow"):
        return _auction_policy(d, acts, p, h)
    trump = d.trump
    order = d.order
    my_side = d.side[p]
    avoid = d.contract == "bettler" and p == d.declarer
    if ph == "lead":
        if A.DECLARE in acts and d.side_points(my_side) >= 66:
            return A.DECLARE
        ann = [a for a in acts if A.ANNOUNCE <= a < A.EXCHANGE]
        if ann:
            return ann[0]
        marr = [a for a in acts if A.MARRIAGE <= a < A.ANNOUNCE]
        if marr and not avoid:
            return max(marr, key=lambda a: (A.marriage_card(a) // 6 == trump, A.marriage_card(a) % 6 == K.QUEEN))
        plays = [a for a in acts if a < A.MARRIAGE] or acts
        if avoid:
            return min(plays, key=lambda c: order[c % 6])
        aces = [c for c in plays if c // 6 != trump and order[c % 6] == max(order)]
        if aces:
            return max(aces, key=lambda c: _pts(d, c))
        return min(plays, key=lambda c: (c // 6 == trump, _pts(d, c), order[c % 6]))
    ws, wc = winning_card(d.trick, trump, order)
    last = len(d.trick) == d.n - 1
    trick_pts = sum(_pts(d, c) for _, c in d.trick)

    def wins(c: int) -> bool:
        return winning_card([*d.trick, (p, c)], trump, order)[0] == p

    winners = [c for c in acts if wins(c)]
    losers = [c for c in acts if not wins(c)]
    if avoid:
        if losers:
            return max(losers, key=lambda c: (order[c % 6], _pts(d, c)))
        return min(acts, key=lambda c: order[c % 6])
    if d.contract == "bettler" and d.side[ws] != my_side:
        # let the Bettler player's card win: play under it where possible
        return max(losers, key=lambda c: _pts(d, c)) if losers else min(acts, key=lambda c: order[c % 6])
    if d.side[ws] == my_side and ws != p:
        if last or not winners:
            pool = losers or acts
            return max(pool, key=lambda c: (c // 6 != trump, _pts(d, c))) if last else min(
                pool, key=lambda c: (c // 6 == trump, _pts(d, c)))
    if winners and (trick_pts >= 10 or last or d.contract not in ("", "einfacher_rufer", "mehet")):
        return min(winners, key=lambda c: (c // 6 == trump, _pts(d, c), order[c % 6]))
    pool = losers or acts
    return min(pool, key=lambda c: (c // 6 == trump, _pts(d, c), order[c % 6]))


def _auction_policy(d: ContractDeal, acts: list[int], p: int, h: int) -> int:
    """Trump naming, bids, kontra and lay-away as ``greedy`` plays them (its module docstring)."""
    pts = d.rules.points
    ph = d.phase
    if ph == "trump":
        def strength(a: int) -> tuple[int, int]:
            m = h & K.SUIT_MASK[a - A.TRUMP]
            return _bits(m), sum(pts[c] for c in K.cards_of(m))
        return max(acts, key=strength)
    if ph == "discard":
        tr = d.trump
        return min(acts, key=lambda a: ((a - A.DISCARD) // 6 == tr, pts[a - A.DISCARD]))
    if ph == "kontra":
        return A.PASS
    tr = d.trump
    trumps = K.cards_of(h & K.SUIT_MASK[tr]) if tr >= 0 else []
    aces = [c for c in K.cards_of(h) if c % 6 == K.ACE and c // 6 != tr]
    strong = len(trumps) >= 3 and any(c % 6 in (K.ACE, K.TEN) for c in trumps) and aces
    for name in ("schnapser", "snapszer"):
        if strong and name in A.CONTRACTS and A.bid_id(name) in acts:
            return A.bid_id(name)
    if A.bid_id("mehet") in acts:
        return A.bid_id("mehet")
    if A.PASS in acts:
        return A.PASS
    return acts[0]


# ------------------------------------------------------------------------------------ values
def outcome_value(d: ContractDeal, me: int) -> float:
    """Value of the finished deal ``d`` for seat ``me``: game points credited to ``me`` minus the
    most credited to a seat of the other side (kontra multiplier and bonuses included)."""
    o = d.outcome
    assert o is not None
    mine = o.awards[me]
    others = [o.awards[s] for s in range(d.n) if d.side[s] != d.side[me]]
    return float(mine - (max(others) if others else 0))


#: Spread (standard deviation, game points) of one future deal's credit margin between two seats
#: that it sets against each other (a kontra'd base game is worth 2-6, a snapszer 6-12).
SPREAD = 4.0
#: Scale of :func:`make_placement_utility`: a placement gained against every other seat is worth
#: this many game points of the margin utility (so that ``min_gap`` and the margin tie-break keep
#: their meaning).
PLACE_SCALE = 6.0
#: Weight of the mean game-point margin in :func:`make_placement_utility` (breaks ties between
#: outcomes of the same placements towards more points).
MARGIN_TIE = 0.05


def make_placement_utility(raw: Mapping[str, Any], horizon: int, spread: float = SPREAD,
                           ) -> Callable[[tuple[int, ...]], float] | None:
    """Utility of a contract deal's outcome for the seat of ``raw`` (its information set) when the
    game ends after ``horizon`` deals (SRV-5 deal limit: a ladder's or the bench's games) and scores
    the seat's **placement** by game-point totals (``ladder.stats.placement_scores``: against each
    other team, ahead 1, level 1/2, behind 0), as the two-player ``match`` objective values the
    match score.

    Returns ``f(awards)``, ``awards`` the deal's credits per match seat (game points,
    :attr:`DealOutcome.awards`), or None when ``horizon`` is 0 or the deal is past it. ``f`` is
    :data:`PLACE_SCALE` x the mean over the other teams ``j`` (a seat of each) of ``2 p_j - 1``, plus
    :data:`MARGIN_TIE` x the mean margin ``t_me - t_j`` (game points), where ``t`` are the totals after
    the deal and ``p_j`` the chance of finishing ahead of ``j`` (level counts half): exact when no
    deal is left; else ``Phi(margin / (spread * sqrt(m)))``, ``m`` the deals left that set ``me``
    and ``j`` against each other: in ``snapszer-hu-3p-sopron`` the deals whose hívó is one of the
    two (the hívó passes clockwise, HU3S-SEAT-1; in a deal of the third seat both are fogadó and
    are credited alike, HU3S-CON-9); in other three-seat games 2/3 of the deals left; in team games
    every deal."""
    if horizon <= 0:
        return None
    m = raw.get("match") or {}
    n = int(raw.get("num_seats", 0) or 0)
    me = int(raw.get("seat", 0))
    if n < 3:
        return None
    k = int(m.get("deal_number", 0) or 0)
    left = horizon - k - 1
    if left < 0:
        return None
    results = [x for x in (m.get("deals") or []) if not x.get("playoff")]
    if results:
        totals = [sum(int((x.get("game_points") or [0] * n)[s]) for x in results) for s in range(n)]
    else:
        totals = [int(x) for x in (m.get("game_points") or [0] * n)]
    team = [int(t) for t in (raw.get("team_of_seat") or range(n))]
    others: list[int] = []
    for s in range(n):
        if team[s] != team[me] and all(team[s] != team[o] for o in others):
            others.append(s)
    if not others:
        return None
    dealer = int(m.get("dealer", 0) or 0)
    # the hívó passes clockwise (HU3S-SEAT-1): a role fixed by the deal, not won in the auction
    caller_of = getattr(find_variant(str(raw.get("variant", ""))).deal_class, "fixed_caller", None)
    rotating_caller = len(set(team)) == n and caller_of is not None and caller_of(dealer, n) >= 0
    sd: dict[int, float] = {}
    for j in others:
        if rotating_caller:
            hivos = [(dealer + t + 1) % n for t in range(1, left + 1)]
            deals = float(sum(1 for h in hivos if h in (me, j)))
        elif len(set(team)) == n:
            deals = left * 2.0 / 3.0
        else:
            deals = float(left)
        sd[j] = spread * math.sqrt(deals)
    cache: dict[tuple[int, ...], float] = {}

    def placement(awards: tuple[int, ...]) -> float:
        v = cache.get(awards)
        if v is None:
            mine = totals[me] + awards[me]
            v = 0.0
            margin = 0.0
            for j in others:
                x = mine - totals[j] - awards[j]
                margin += x
                if sd[j] <= 0:
                    p = 1.0 if x > 0 else 0.5 if x == 0 else 0.0
                else:
                    p = normal_cdf(x / sd[j])
                v += 2.0 * p - 1.0
            v = cache[awards] = (PLACE_SCALE * v + MARGIN_TIE * margin) / len(others)
        return v

    return placement


def _cards_left(d: ContractDeal) -> int:
    return sum(_bits(h) for h in d.hands)


def play_copy(d: ContractDeal) -> ContractDeal:
    """A copy of ``d`` for the search of its trick play (:meth:`ContractDeal.search_copy`)."""
    return d.search_copy()


class Solver:
    """Exact alpha-beta on open cards for the play of a contract deal: seats of ``me``'s side
    maximise the value of the outcome (``utility`` of its awards, e.g. :func:`make_placement_utility`;
    None = :func:`outcome_value`), the others minimise it (a partner plays for the team).
    ``nodes`` counts the positions searched."""

    def __init__(self, me: int, utility: Callable[[tuple[int, ...]], float] | None = None) -> None:
        self.me = me
        self.utility = utility
        self.nodes = 0
        self.cache: dict[tuple[Any, ...], float] = {}

    def value(self, d: ContractDeal) -> float:
        """Value of the finished deal ``d``: ``utility(awards)`` when given, else :func:`outcome_value`."""
        if self.utility is None:
            return outcome_value(d, self.me)
        assert d.outcome is not None
        return self.utility(tuple(d.outcome.awards))

    def solve(self, d: ContractDeal, alpha: float = -math.inf, beta: float = math.inf) -> float:
        if d.phase == "over":
            return self.value(d)
        key = None
        if not d.trick:
            key = (tuple(d.hands), d.to_act_seat, tuple(d.trick_points), tuple(d.tricks_won), tuple(d.marriage_points),
                   d.announced, d.pending)
            v = self.cache.get(key)
            if v is not None:
                return v
        self.nodes += 1
        acts = d.legal_actions()
        if len(acts) > 2 and not d.trick:  # at a lead, the policy's card first (strict play
            first = policy(d)                 # leaves little to order when following)
            acts.sort(key=lambda a: a != first)
        maxing = d.side[d.to_act_seat] == d.side[self.me]
        best = -math.inf if maxing else math.inf
        a0, b0 = alpha, beta
        for a in acts:
            c = play_copy(d)
            ContractDeal.step(c, a)
            v = self.solve(c, alpha, beta)
            if maxing:
                if v > best:
                    best = v
                alpha = max(alpha, v)
            else:
                if v < best:
                    best = v
                beta = min(beta, v)
            if alpha >= beta:
                break
        if key is not None and a0 < best < b0:
            self.cache[key] = best
        return best


def evaluate(d: ContractDeal, me: int, solver: Solver, exact_tricks: int) -> float:
    """Value of ``d`` for ``me``: the policy plays until at most ``exact_tricks`` tricks are left
    (at a lead), then the exact search (:class:`Solver`)."""
    while d.phase != "over":
        if d.phase == "lead" and _cards_left(d) <= exact_tricks * d.n:
            return solver.solve(play_copy(d))
        ContractDeal.step(d, policy(d))
    return solver.value(d)


# ------------------------------------------------------------------------------------ the search
class ContractSearch:
    """One decision of ``strong`` in a contract deal (see the module docstring). ``budget_ms``
    wall milliseconds (0 = none), ``samples`` per decision (0 = by the budget), at least
    ``min_samples``; ``exact_tricks``: see :func:`evaluate`; ``horizon`` > 0: the game ends after
    that many deals and outcomes are valued by :func:`make_placement_utility` (``spread``), else by
    :func:`outcome_value` (None: the information set's ``match.max_deals``, SRV-5); ``lay_model`` > 0: the lay-away model of :meth:`ContractSampler.know_taken`
    with that sharpness, ``memory`` the bot's store across decisions for it; ``hivo_exact`` > 0 (the
    Hungarian contract games): the hívó's own decisions use that ``exact_tricks`` and
    ``hivo_samples`` samples (0 = ``samples``)."""

    def __init__(self, seed: int, budget_ms: float, samples: int, min_samples: int,
                 exact_tricks: int = EXACT_TRICKS, horizon: int | None = 0, spread: float = SPREAD,
                 lay_model: float = 0.0, memory: dict[str, Any] | None = None,
                 hivo_exact: int = 0, hivo_samples: int = 0) -> None:
        self.seed = seed
        self.hivo_exact = hivo_exact
        self.hivo_samples = hivo_samples
        self.lay_model = lay_model
        self.memory = memory if memory is not None else {}
        self.horizon = horizon
        self.spread = spread
        self.budget_ms = budget_ms
        self.samples = samples
        self.min_samples = min_samples
        self.exact_tricks = exact_tricks
        self.last_stats: dict[str, Any] = {}

    def _remember_taken(self, sampler: ContractSampler, info: InfoSet) -> None:
        """HU3S-KON-2: the taker of the hívó's laid-away cards knows them, but its information set
        does not say which of its cards they are: remember its hand at its last decision before
        the take-up (``memory``, kept by the bot across decisions) and tell the sampler the
        difference (:meth:`ContractSampler.know_taken`)."""
        deal_no = info.match.get("deal_number", 0)
        mine = sampler.hand | sampler.laid | sampler.played[sampler.me]
        if sampler.taker < 0:
            self.memory["before_take"] = (deal_no, mine)
        elif sampler.taker == sampler.me:
            before = self.memory.get("before_take")
            if before is not None and before[0] == deal_no and before[1] & ~mine == 0:
                sampler.know_taken(mine & ~before[1], self.lay_model)

    def _rng(self, info: InfoSet) -> random.Random:
        d = info.deal
        key = f"{self.seed}/{info.match.get('deal_number', 0)}/{len(d.get('history', []))}/{d.get('hand')}/{d.get('phase')}"
        return random.Random(zlib.crc32(key.encode()) ^ (self.seed & 0xFFFFFFFF) << 32)

    def choose(self, info: InfoSet, t0: float) -> int:
        """The chosen action id. Falls back to ``greedy``'s choice when no consistent deal can be
        sampled (not expected: the tests replay every sample)."""
        legal = [int(a["id"]) for a in info.legal_actions]
        if len(legal) == 1:
            return legal[0]
        rng = self._rng(info)
        try:
            sampler = ContractSampler(info.raw)
        except (NoSample, ValueError, KeyError):
            return greedy_choice(info)
        me = sampler.me
        if self.lay_model > 0:
            self._remember_taken(sampler, info)
        horizon = self.horizon if self.horizon is not None else int((info.raw.get("match") or {}).get("max_deals") or 0)
        utility = make_placement_utility(info.raw, horizon, self.spread)
        exact, samples = self.exact_tricks, self.samples
        if self.hivo_exact and me == sampler.caller:
            # the hívó's decisions (HU3S-SEAT-1, HU4-SEAT-2): a deeper exact search on fewer samples
            exact, samples = self.hivo_exact, self.hivo_samples or self.samples
        budget = self.budget_ms / 1000.0
        clock = info.move_time_ms()
        if clock is not None:
            budget = min(budget, clock / 20000.0) if budget > 0 else clock / 20000.0
        deadline = t0 + budget if budget > 0 else math.inf
        k = len(legal)
        vals: list[list[float]] = [[] for _ in legal]
        alive = list(range(k))
        n = 0
        nodes = 0
        while True:
            try:
                root = sampler.sample(rng)
            except NoSample:
                break
            if sorted(root.legal_actions()) != sorted(legal):
                break  # the engine and the served legal actions disagree: never expected
            solver = Solver(me, utility)
            for i in alive:
                d = root.copy()
                ContractDeal.step(d, legal[i])
                vals[i].append(evaluate(d, me, solver, exact))
            nodes += solver.nodes
            n += 1
            if sampling_done(n, samples, self.min_samples, deadline):
                break
            if n >= 8 and n % 4 == 0:
                alive = survivors(alive, vals, [0.0] * k, n, min_gap=0.05)
                if len(alive) == 1:
                    break
        self.last_stats = {"samples": n, "nodes": nodes}
        if n == 0:
            return greedy_choice(info)
        means = {i: sum(vals[i]) / n for i in alive}
        self.last_stats["means"] = {legal[i]: m for i, m in means.items()}
        best = max(means.values())
        cands = [legal[i] for i in alive if means[i] >= best - 1e-9]
        if len(cands) == 1:
            return cands[0]
        pref = policy(root)
        return pref if pref in cands else cands[0]


def greedy_choice(info: InfoSet) -> int:
    """``greedy``'s choice as an action id."""
    choice = GreedyBot().choose(info)
    return choice if isinstance(choice, int) else A.parse_action(choice)

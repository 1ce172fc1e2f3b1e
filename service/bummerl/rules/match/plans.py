"""Match plans: who plays each deal, who is credited, and when and how a match ends.

A plan is the match-level half of a variant (``VariantSpec.plan``, the
:class:`~bummerl.rules.table.protocols.MatchPlan` protocol); the deal class is the other half.
After every deal :class:`~bummerl.rules.match.state.MatchState` asks its plan to
:meth:`MatchPlan.settle` it: the plan reads the match (never writes into it) and returns a
:class:`~bummerl.rules.table.outcome.Settlement` (the deal's result, the new scores, places,
play-off state, whether the match is over, and the next deal), which the match applies.

* :class:`BummerlPlan` — the two-player games (AT-MATCH-1/2, O66-MATCH-1, SAN-MATCH-1,
  HU2-MATCH-1): sets / Bummerls to a target, carried points (O66-SCORE-2), the variant's dealer
  rotation (AT-DEAL-2, OPEN-O66-3, SAN-DEAL-2, HU2-SEAT-1).
* :class:`RotationPlan` — three players, two play each deal and one sits out (STK-SEAT-1,
  STK-ROT-1/2, HU3R-ROT-1): credit to the winner and, in Stockschnapsen, the watcher
  (STK-SCORE-1 vs HU3R-SCORE-1); first to the target; play-off deals for tied places
  (STK-MATCH-2/3/4).
* :class:`ContractPlan` — the contract games (§9-§12): every seat plays, the deal passes
  clockwise (BS-DEAL-3, TS-SEAT-1, HU3S-SEAT-1, HU4-SEAT-2), each deal credits seats itself
  (``DealOutcome.awards``), first to the target; a tie for first place among players who reached
  it is decided by one two-player deal of ``playoff_variant`` (TS-MATCH-1, HU3S-MATCH-1).

Play-off deals (``MatchState.playoff``) are two-player deals between tied seats; they rank the
players and never change the scores (STK-MATCH-4, OPEN-STK-3).

Level 3 of the engine stack (:mod:`bummerl.rules.match`): imports the levels below.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import partial
from typing import Any

from ..deals.talon import TalonDeal
from ..table.outcome import DealResult, MatchEnd, Settlement
from ..table.protocols import Deal, MatchFacts
from ..table.variant import Rules, find_variant

Verdict = tuple[tuple[int, ...], dict[str, Any] | None, MatchEnd | None]
"""``(placements, playoff, end)`` of :meth:`MatchPlan.verdict`."""


def placements_by_score(scores: list[int] | tuple[int, ...], team_of: tuple[int, ...]) -> list[int]:
    """Place per seat (1 = first) by descending score; equal scores share a place; teammates share
    their team's place. ``[7, 3, 3] -> [1, 2, 2]``."""
    if len(set(team_of)) == len(team_of):  # no teams: a seat's team score is its own
        return [1 + sum([v > x for v in scores]) for x in scores]
    best: dict[int, int] = {}  # team -> its best seat's score
    for s, t in enumerate(team_of):
        if t not in best or scores[s] > best[t]:
            best[t] = scores[s]
    teams = best.values()
    return [1 + sum([v > x for v in teams]) for x in scores]


def _talon_deal(rules: Rules, m: MatchFacts, number: int, dealer: int) -> TalonDeal:
    """Two-player deal ``number`` of the match ``m``, dealt by ``dealer`` from its deck."""
    return TalonDeal.new(rules, m.deck_for(number), dealer)


def _copy_playoff(po: dict[str, Any]) -> dict[str, Any]:
    return {"groups": [[g[0], g[1][:]] for g in po["groups"]], "pair": po["pair"][:]}


class MatchPlan:
    """Base: every seat plays every deal of the variant's deal class; dealer clockwise; each deal
    credits seats itself (``outcome.awards``); first to the target, play-off deals for the tied
    places of :attr:`playoff_places`."""

    #: Variant id of play-off deals (None: the match's own two-player deal).
    playoff_variant: str | None = None
    #: Places decided by play-off deals when tied (``(1,)``: first place only; ``()``: none,
    #: equal scores share the place).
    playoff_places: tuple[int, ...] = ()

    # ----------------------------------------------------------------- deals
    def first_deal(self, m: MatchFacts) -> Deal:
        """Deal 0: the first dealer deals (SRV-4)."""
        return self.new_deal(m, m.rules, m.first_dealer, 0)

    def next_deal(self, m: MatchFacts, finished: Deal, number: int) -> Deal:
        """Deal ``number``, after ``finished``: the deal passes clockwise."""
        return self.new_deal(m, m.rules, (finished.dealer_seat + 1) % m.num_seats, number)

    def new_deal(self, m: MatchFacts, rules: Rules, dealer: int, number: int) -> Deal:
        """Deal ``number`` of the variant's deal class, dealt by ``dealer`` from the match's deck."""
        cls = rules.spec.deal_class
        deal: Deal = cls.new(rules, m.deck_for(number, rules), dealer)
        if deal.history and deal.history[0][0] == "deal" and len(deal.history[0]) == 3:
            # the deal event lists every hand's size right after the deal (DealStarted.hand_sizes)
            sizes = tuple(bin(h).count("1") for h in getattr(deal, "hands", ()))
            deal.history[0] = (*deal.history[0], sizes)
        return deal

    # ----------------------------------------------------------------- settling
    def credit(self, m: MatchFacts, d: Any) -> tuple[int, ...]:
        """Game points per seat of the finished deal ``d``: its ``outcome.awards``."""
        return tuple(d.outcome.awards)

    def result(self, m: MatchFacts, d: Deal, game_points: tuple[int, ...], playoff: bool = False) -> DealResult:
        """The :class:`DealResult` of the finished deal ``d`` credited ``game_points``."""
        o = d.outcome
        assert o is not None
        summ = d.summary(m.num_seats)
        return DealResult(
            m.deal_number, d.winner_seat(), game_points, o.reason, summ.deal_points, summ.tricks_won, summ.schwarz,
            summ.deal_schneider, 0, summ.contract, summ.declarer, summ.multiplier, tuple(d.seats), playoff,
        )

    def settle(self, m: MatchFacts, d: Deal) -> Settlement:
        """Credit the finished deal ``d``, then: the match goes on with the next deal, or is over,
        or a play-off deal follows (:meth:`verdict`); a play-off deal is settled by
        :meth:`settle_playoff`."""
        if m.playoff is not None:
            return self.settle_playoff(m, d)
        gp = self.credit(m, d)
        result = self.result(m, d, gp)
        scores = tuple(a + b for a, b in zip(m.game_points, gp, strict=True))
        placements, playoff, end = self.verdict(m, scores)
        nxt: Callable[[], Deal] | None = None
        if end is None:
            n = m.deal_number + 1
            nxt = partial(self.playoff_deal, m, playoff, n) if playoff else partial(self.next_deal, m, d, n)
        return Settlement(result, scores, tuple(m.sets_won), m.carried, placements, playoff, end, False, nxt)

    def verdict(self, m: MatchFacts, scores: tuple[int, ...]) -> Verdict:
        """``(placements, playoff, end)`` for the scores ``scores`` after a deal: nothing decided
        while no seat reached the target (``rules.set_goal``); else :meth:`rank`."""
        if max(scores) < m.rules.set_goal:
            return tuple(m.placements), None, None
        return self.rank(m, scores)

    def rank(self, m: MatchFacts, scores: tuple[int, ...]) -> Verdict:
        """Final placements by score, with play-off deals for tied places of
        :attr:`playoff_places` (then ``playoff`` is set and ``end`` None), else the match ends
        (``target_reached``)."""
        team_of = m.rules.spec.team_of_seat
        places = placements_by_score(scores, team_of)
        groups = []
        for p in sorted(set(places)):
            tied = [s for s in range(m.num_seats) if places[s] == p]
            if len({team_of[s] for s in tied}) > 1 and p in self.playoff_places:
                groups.append([p, tied])
        if groups:
            return tuple(places), {"groups": groups, "pair": []}, None
        return tuple(places), None, MatchEnd.TARGET_REACHED

    def playoff_deal(self, m: MatchFacts, playoff: dict[str, Any], number: int) -> Deal:
        """Play-off deal ``number`` for ``playoff`` (a new play-off state of this plan's, with an
        unresolved group of two or more seats; its ``pair`` is set here): knock-out, the first two
        seats of the first group play one two-player deal of :attr:`playoff_variant`; the play-off
        dealer is drawn from the seed (STK-MATCH-4)."""
        _, seats = playoff["groups"][0]
        a, b = seats[0], seats[1]
        playoff["pair"] = [a, b]
        rules = m.rules if self.playoff_variant is None else find_variant(self.playoff_variant).configure()
        dealer = random.Random(f"bummerl/{m.seed}/playoff/{number}").randrange(2)
        return TalonDeal.new(rules, m.deck_for(number, rules), dealer, (a, b), m.num_seats)

    def settle_playoff(self, m: MatchFacts, d: Deal) -> Settlement:
        """Record the play-off deal's winner: the loser leaves the group for this place and joins
        the next place's group (or takes the next place alone); the next play-off deal, or the end
        of the match once every group is decided. Scores never change (STK-MATCH-4)."""
        assert m.playoff is not None
        po = _copy_playoff(m.playoff)
        placements = list(m.placements)
        place, seats = po["groups"][0]
        w = d.winner_seat()
        a, b = po["pair"]
        loser = b if w == a else a
        seats.remove(loser)
        placements[loser] = place + 1
        nxt_group = [g for g in po["groups"] if g[0] == place + 1]
        if nxt_group:
            nxt_group[0][1].append(loser)
        elif place + 1 in self.playoff_places:
            tied = [s for s in range(m.num_seats) if placements[s] == place + 1]
            if len(tied) > 1:
                po["groups"].append([place + 1, tied])
        po["groups"].sort(key=lambda g: g[0])
        po["groups"] = [g for g in po["groups"] if len(g[1]) > 1]
        result = self.result(m, d, (0,) * m.num_seats, True)
        scores, sets = tuple(m.game_points), tuple(m.sets_won)
        if not po["groups"]:
            return Settlement(result, scores, sets, m.carried, tuple(placements), None, MatchEnd.TARGET_REACHED, False,
                              None)
        nxt = partial(self.playoff_deal, m, po, m.deal_number + 1)
        return Settlement(result, scores, sets, m.carried, tuple(placements), po, None, False, nxt)


class BummerlPlan(MatchPlan):
    """The two-player games: deals between seats 0 and 1, the variant's ``dealer_rotation``
    (AT-DEAL-2, OPEN-O66-3, SAN-DEAL-2, HU2-SEAT-1), sets or Bummerls to the target
    (AT-MATCH-1/2, HU2-MATCH-1), carried points (O66-SCORE-2); no play-off."""

    def first_deal(self, m: MatchFacts) -> Deal:
        return TalonDeal.new(m.rules, m.deck_for(0), m.first_dealer)

    def credit(self, m: MatchFacts, d: Any) -> tuple[int, ...]:
        """The winner (a deal seat = a match seat here) is credited the deal's game points plus
        the points carried by drawn deals before it (O66-SCORE-2); a drawn deal credits nobody."""
        o = d.outcome
        if o.winner < 0:
            return (0, 0)
        return (o.game_points + m.carried, 0) if o.winner == 0 else (0, o.game_points + m.carried)

    def settle(self, m: MatchFacts, d: Any) -> Settlement:
        """The winner (a deal seat = a match seat here) scores the deal's game points plus points
        carried by drawn deals (O66-SCORE-2); a drawn deal adds its carry. A seat reaching
        ``set_goal`` wins a set (a Bummerl; ``set_schneider_value`` when the loser has 0,
        AT-MATCH-2) and the scores start again; ``sets_goal`` sets win the match."""
        o = d.outcome
        r = m.rules
        gp = self.credit(m, d)
        carried_in = 0
        carried = m.carried
        if o.winner >= 0:
            carried_in, carried = carried, 0  # carried points go to the next decided deal's winner
        else:
            carried += o.carry
        schwarz, schneider = d.result_flags()  # on the basis of the game points (DEF-PTS-6)
        result = DealResult(
            m.deal_number, o.winner, tuple(gp), o.reason,
            (d.deal_points(0), d.deal_points(1)), tuple(d.tricks_won), schwarz, schneider, carried_in,
        )
        scores = list(m.game_points)
        sets = list(m.sets_won)
        if o.winner >= 0:
            w = o.winner
            scores[w] += gp[w]
            if scores[w] >= r.set_goal:  # AT-MATCH-1/2, HU2-MATCH-1
                loser_zero = scores[1 - w] == 0
                sets[w] += r.set_schneider_value if loser_zero else 1
                if sets[w] >= r.sets_goal:
                    return Settlement(result, tuple(scores), tuple(sets), carried, (1, 2) if w == 0 else (2, 1), None,
                                      MatchEnd.TARGET_REACHED, loser_zero, None)
                scores = [0, 0]
        # AT-DEAL-2 / OPEN-AT-8 (alternate), OPEN-O66-3 and SAN-DEAL-2 (winner deals; same dealer
        # after a drawn deal), HU2-SEAT-1 (alternate)
        nxt = partial(_talon_deal, r, m, m.deal_number + 1, r.behaviour.next_dealer(d.dealer, o.winner))
        return Settlement(result, tuple(scores), tuple(sets), carried, tuple(m.placements), None, None, False, nxt)


class RotationPlan(MatchPlan):
    """Three players, two play each deal (STK-SEAT-1, HU3R-INH-1).

    Pairings (STK-ROT-1, HU3R-ROT-1): seat ``f`` = the first dealer (SRV-4) is "player 1"; deal
    ``n`` pairs ``(f + n) % 3`` and ``(f + n + 1) % 3``, the first-listed deals (STK-ROT-2,
    ``pair_dealer = first_listed``) or, with ``alternate_per_pair``, the pair's dealer alternates
    each time it meets. ``rotation = loser_sits_out`` / ``winner_stays`` (OPEN-HU3R-1): the
    deal's loser sits out next, the one who sat out deals against the winner (with three players
    both name the same rule). Credit: the deal winner, plus the watcher where ``watcher_credited``
    (STK-SCORE-1; HU3R-SCORE-1: nobody else).
    """

    def __init__(self, watcher_credited: bool, playoff_places: tuple[int, ...]) -> None:
        self.watcher_credited = watcher_credited
        self.playoff_places = playoff_places

    def first_deal(self, m: MatchFacts) -> Deal:
        f = m.first_dealer
        return self._pair_deal(m, f, (f + 1) % 3, 0)

    def next_deal(self, m: MatchFacts, finished: Deal, number: int) -> Deal:
        """The next pairing by the ``rotation`` table (OPEN-HU3R-1; Stockschnapsen: cyclic)."""
        dealer, leader = ROTATION[str(m.rules.options.get("rotation", "cyclic"))](m, finished, number)
        return self._pair_deal(m, dealer, leader, number)

    def _pair_deal(self, m: MatchFacts, dealer: int, leader: int, number: int) -> Deal:
        return TalonDeal.new(m.rules, m.deck_for(number, m.rules), 0, (dealer, leader), m.num_seats)

    def credit(self, m: MatchFacts, d: Any) -> tuple[int, ...]:
        """STK-SCORE-1: the winner and the watcher; HU3R-SCORE-1: the winner only."""
        gp = [0] * m.num_seats
        o = d.outcome
        if o.winner >= 0:
            gp[d.seats[o.winner]] = o.game_points
            if self.watcher_credited:
                for s in range(m.num_seats):
                    if s not in d.seats:
                        gp[s] = o.game_points
        return tuple(gp)


def _cyclic(m: MatchFacts, finished: Deal, number: int) -> tuple[int, int]:
    """STK-ROT-1, HU3R-ROT-1: deal ``n`` pairs ``f + n`` and ``f + n + 1`` (mod 3); the
    ``pair_dealer`` table says whether the pair's dealer alternates each time it meets."""
    x = (m.first_dealer + number) % 3
    y = (x + 1) % 3
    if PAIR_DEALER[str(m.rules.options.get("pair_dealer", "first_listed"))] and (number // 3) % 2:
        x, y = y, x
    return x, y


def _loser_sits_out(m: MatchFacts, finished: Deal, number: int) -> tuple[int, int]:
    """OPEN-HU3R-1 ``loser_sits_out`` / ``winner_stays``: the seat that sat out deals to the
    deal's winner (with three players both names describe this rule)."""
    w = finished.winner_seat()
    sitter = next(s for s in range(3) if s not in finished.seats)
    if w < 0:  # a drawn deal (none in schnapsen-at / snapszer-hu-2p): the leader stays
        w = finished.seats[1]
    return sitter, w


#: ``rotation`` (OPEN-HU3R-1): (dealer, leader) of deal ``number`` from the finished one.
ROTATION: dict[str, Callable[[MatchFacts, Deal, int], tuple[int, int]]] = {
    "cyclic": _cyclic, "loser_sits_out": _loser_sits_out, "winner_stays": _loser_sits_out,
}
#: ``pair_dealer`` (OPEN-STK-1): does the dealer of a pairing alternate each time it meets?
PAIR_DEALER: dict[str, bool] = {"first_listed": False, "alternate_per_pair": True}
#: The option tables of the match plans (as :data:`bummerl.rules.table.behaviour.TABLES`).
TABLES: dict[str, dict[str, Any]] = {"rotation": ROTATION, "pair_dealer": PAIR_DEALER}


class ContractPlan(MatchPlan):
    """The contract games (§9-§12): see the module docstring."""

    def __init__(self, playoff_variant: str | None = None, playoff_places: tuple[int, ...] = ()) -> None:
        self.playoff_variant = playoff_variant
        self.playoff_places = playoff_places

"""Match plans: who plays each deal, who is credited, and when and how a match ends.

A :class:`MatchPlan` is the match-level half of a variant (``VariantSpec.plan``); the deal class
is the other half. :class:`~bummerl.rules.state.MatchState` asks its plan for the next deal
(:meth:`MatchPlan.next_deal`), for the game points per seat of a finished deal
(:meth:`MatchPlan.credit`) and whether the match is now over (:meth:`MatchPlan.settle`).

* :class:`BummerlPlan` — the two-player games (AT-MATCH-1/2, O66-MATCH-1, SAN-MATCH-1,
  HU2-MATCH-1): sets / Bummerls to a target, the variant's dealer rotation.
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
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from .deal import Deal

if TYPE_CHECKING:
    from .state import MatchState
    from .variant import Rules


def placements_by_score(scores: list[int], team_of: tuple[int, ...]) -> list[int]:
    """Place per seat (1 = first) by descending score; equal scores share a place; teammates share
    their team's place. ``[7, 3, 3] -> [1, 2, 2]``."""
    return [1 + sum(1 for t in set(team_of) if _team_score(scores, team_of, t) > scores[s]) for s in range(len(scores))]


def _team_score(scores: list[int], team_of: tuple[int, ...], t: int) -> int:
    return max(scores[s] for s in range(len(scores)) if team_of[s] == t)


class MatchPlan:
    """Base: every seat plays every deal of the variant's deal class; dealer clockwise."""

    #: Variant id of play-off deals (None: the match's own two-player deal).
    playoff_variant: str | None = None
    #: Places decided by play-off deals when tied (``(1,)``: first place only; ``()``: none,
    #: equal scores share the place).
    playoff_places: tuple[int, ...] = ()

    def first_deal(self, m: MatchState) -> Deal:
        return self.new_deal(m, m.rules, m.first_dealer, m.seat_tuple)

    def next_deal(self, m: MatchState, finished: Deal) -> Deal:
        """The deal after ``finished`` (``m.deal_number`` already advanced)."""
        return self.new_deal(m, m.rules, (finished.dealer_seat + 1) % m.num_seats, m.seat_tuple)

    def new_deal(self, m: MatchState, rules: Rules, dealer: int, seats: tuple[int, ...]) -> Deal:
        cls = rules.spec.deal_class
        deal: Deal = cls.new(rules, m.deck_for(m.deal_number, rules), dealer)
        if deal.history and deal.history[0][0] == "deal" and len(deal.history[0]) == 3:
            # the deal event lists every hand's size right after the deal (DealStarted.hand_sizes)
            sizes = tuple(bin(h).count("1") for h in getattr(deal, "hands", ()))
            deal.history[0] = (*deal.history[0], sizes)
        return deal

    def credit(self, m: MatchState, d: Any) -> tuple[int, ...]:
        """Game points per seat of the finished deal ``d``: its ``outcome.awards``."""
        return tuple(d.outcome.awards)

    def settle(self, m: MatchState) -> bool:
        """After the scores were updated: end the match (``m.finish``) or start a play-off when a
        seat reached the target; True if the match is over or a play-off deal is next."""
        target = m.rules.set_goal
        if max(m.game_points) < target:
            return False
        return self.rank(m)

    def rank(self, m: MatchState) -> bool:
        """Final placements by score, with play-off deals for tied places of
        :attr:`playoff_places`; True (the match is over or a play-off follows)."""
        team_of = m.rules.spec.team_of_seat
        places = placements_by_score(m.game_points, team_of)
        groups = []
        for p in sorted(set(places)):
            tied = [s for s in range(m.num_seats) if places[s] == p]
            if len({team_of[s] for s in tied}) > 1 and p in self.playoff_places:
                groups.append([p, tied])
        m.placements = places
        if groups:
            m.playoff = {"groups": groups, "pair": []}
            return True
        m.finish(places, "target_reached")
        return True

    def playoff_deal(self, m: MatchState) -> Deal:
        """The next play-off deal (``m.playoff`` has an unresolved group of two or more seats):
        knock-out, the first two seats of the first group play one two-player deal of
        :attr:`playoff_variant`; the play-off dealer is drawn from the seed (STK-MATCH-4)."""
        from .state import DealState
        from .variant import find_variant

        po = m.playoff
        assert po is not None
        _, seats = po["groups"][0]
        a, b = seats[0], seats[1]
        po["pair"] = [a, b]
        rules = m.rules if self.playoff_variant is None else find_variant(self.playoff_variant).configure()
        dealer = random.Random(f"bummerl/{m.seed}/playoff/{m.deal_number}").randrange(2)
        return DealState.new(rules, m.deck_for(m.deal_number, rules), dealer, (a, b), m.num_seats)

    def playoff_result(self, m: MatchState, d: Any) -> None:
        """Record the play-off deal's winner: the loser leaves the group for this place and joins
        the next place's group (or takes the next place alone)."""
        po = m.playoff
        assert po is not None
        place, seats = po["groups"][0]
        w = d.winner_seat()
        a, b = po["pair"]
        loser = b if w == a else a
        seats.remove(loser)
        m.placements[loser] = place + 1
        nxt = [g for g in po["groups"] if g[0] == place + 1]
        if nxt:
            nxt[0][1].append(loser)
        elif place + 1 in self.playoff_places:
            tied = [s for s in range(m.num_seats) if m.placements[s] == place + 1]
            if len(tied) > 1:
                po["groups"].append([place + 1, tied])
        po["groups"].sort(key=lambda g: g[0])


class BummerlPlan(MatchPlan):
    """The two-player games: deals between seats 0 and 1, the variant's ``dealer_rotation``
    (AT-DEAL-2, OPEN-O66-3, SAN-DEAL-2, HU2-SEAT-1), sets or Bummerls to the target
    (AT-MATCH-1/2, HU2-MATCH-1), carried points (O66-SCORE-2). Kept in
    :class:`~bummerl.rules.state.MatchState` for speed; this class only names it."""


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

    def first_deal(self, m: MatchState) -> Deal:
        f = m.first_dealer
        return self._pair_deal(m, f, (f + 1) % 3)

    def next_deal(self, m: MatchState, finished: Any) -> Deal:
        """The next pairing by the ``rotation`` table (OPEN-HU3R-1; Stockschnapsen: cyclic)."""
        dealer, leader = ROTATION[str(m.rules.options.get("rotation", "cyclic"))](m, finished)
        return self._pair_deal(m, dealer, leader)

    def _pair_deal(self, m: MatchState, dealer: int, leader: int) -> Deal:
        from .state import DealState

        return DealState.new(m.rules, m.deck_for(m.deal_number, m.rules), 0, (dealer, leader), m.num_seats)

    def credit(self, m: MatchState, d: Any) -> tuple[int, ...]:
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


def _cyclic(m: MatchState, finished: Any) -> tuple[int, int]:
    """STK-ROT-1, HU3R-ROT-1: deal ``n`` pairs ``f + n`` and ``f + n + 1`` (mod 3); the
    ``pair_dealer`` table says whether the pair's dealer alternates each time it meets."""
    x = (m.first_dealer + m.deal_number) % 3
    y = (x + 1) % 3
    if PAIR_DEALER[str(m.rules.options.get("pair_dealer", "first_listed"))] and (m.deal_number // 3) % 2:
        x, y = y, x
    return x, y


def _loser_sits_out(m: MatchState, finished: Any) -> tuple[int, int]:
    """OPEN-HU3R-1 ``loser_sits_out`` / ``winner_stays``: the seat that sat out deals to the
    deal's winner (with three players both names describe this rule)."""
    w = finished.winner_seat()
    sitter = next(s for s in range(3) if s not in finished.seats)
    if w < 0:  # a drawn deal (none in schnapsen-at / snapszer-hu-2p): the leader stays
        w = finished.seats[1]
    return sitter, w


#: ``rotation`` (OPEN-HU3R-1): (dealer, leader) of the next deal from the finished one.
ROTATION: dict[str, Any] = {"cyclic": _cyclic, "loser_sits_out": _loser_sits_out, "winner_stays": _loser_sits_out}
#: ``pair_dealer`` (OPEN-STK-1): does the dealer of a pairing alternate each time it meets?
PAIR_DEALER: dict[str, bool] = {"first_listed": False, "alternate_per_pair": True}
#: The option tables of the match plans (as :data:`bummerl.rules.behaviour.TABLES`).
TABLES: dict[str, dict[str, Any]] = {"rotation": ROTATION, "pair_dealer": PAIR_DEALER}


class ContractPlan(MatchPlan):
    """The contract games (§9-§12): see the module docstring."""

    def __init__(self, playoff_variant: str | None = None, playoff_places: tuple[int, ...] = ()) -> None:
        self.playoff_variant = playoff_variant
        self.playoff_places = playoff_places

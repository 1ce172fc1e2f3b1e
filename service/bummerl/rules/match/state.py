"""The match (docs/RULES.md §2.10, §7-§12 "Match"): :class:`MatchState`, a Bummerl of deals of any
deal class, driven through the :class:`~bummerl.rules.table.protocols.Deal` protocol and settled
by the variant's :class:`~bummerl.rules.table.protocols.MatchPlan`.

Level 3 of the engine stack (:mod:`bummerl.rules.match`): imports :mod:`bummerl.rules.base`,
:mod:`bummerl.rules.table`, :mod:`bummerl.rules.deals` and this level.
"""

from __future__ import annotations

import random
from typing import Any

from ..base import actions as A
from ..base.errors import IllegalActionError, MatchOverError
from ..table.outcome import END_REASONS, DealResult, MatchEnd, Settlement
from ..table.protocols import MatchPlan
from ..table.variant import Rules
from . import snapshot as S
from .plans import placements_by_score

FORFEIT_DEAL = S.FORFEIT_DEAL
"""Pseudo action id in :attr:`MatchState.actions` for a deal forfeited on time (SRV-5, see
:meth:`MatchState.forfeit_deal`); never offered as a legal action."""


def deal_deck(seed: int, deal_number: int, deck: tuple[int, ...]) -> list[int]:
    """Deck order of deal ``deal_number`` of a match with ``seed`` (SRV-1: uniform shuffle from a
    recorded seed). Deterministic across processes and Python versions."""
    cards = list(deck)
    random.Random(f"bummerl/{seed}/deal/{deal_number}").shuffle(cards)
    return cards


class MatchState:
    """A match (Bummerl) of deals to the variant's target (AT-MATCH-1, O66-MATCH-1, HU2-MATCH-1,
    STK-MATCH-1, BS-MATCH-1, TS-MATCH-1, HU3S-MATCH-1, HU4-MATCH-1).

    Determined by ``(rules, seed, decks, first_dealer)`` and the actions applied: deal ``i`` uses
    ``decks[i]`` when given (tests, duplicate deals) or :func:`deal_deck` from the seed.
    ``actions`` is the log of ``(seat, action id)``. Game points count up internally, one score
    per seat (teammates hold equal scores); a variant whose ``direction`` is ``"down"``
    (O66-MATCH-1) displays ``target - points``. ``deal`` is any deal class of the
    :class:`~bummerl.rules.table.protocols.Deal` protocol; the variant's ``plan``
    (:mod:`bummerl.rules.match.plans`) picks who plays each deal, credits and ends the match: after
    every deal it returns a :class:`~bummerl.rules.table.outcome.Settlement` that this class
    applies (:meth:`_finish_deal`); the plan never writes into the match.
    ``placements`` (place per seat, 1 = first, shared places possible) is set when the match
    ends; ``winner`` is the team (= seat without teams) in first place alone, else -1.
    ``playoff`` is set while play-off deals decide tied places (STK-MATCH-2/3, TS-MATCH-1).
    """

    __slots__ = (
        "rules", "seed", "decks", "first_dealer", "deal", "deal_number", "game_points", "sets_won",
        "carried", "results", "histories", "over", "winner", "end_reason", "match_schneider", "actions",
        "max_deals", "suit_perm", "num_seats", "placements", "playoff",
    )

    rules: Rules
    seed: int
    decks: tuple[tuple[int, ...], ...]
    first_dealer: int
    deal: Any
    deal_number: int
    game_points: list[int]
    sets_won: list[int]
    carried: int
    results: list[DealResult]
    histories: list[list[tuple[Any, ...]]]
    over: bool
    winner: int
    end_reason: MatchEnd | str
    match_schneider: bool
    actions: list[tuple[int, int]]
    max_deals: int
    suit_perm: tuple[int, ...]
    num_seats: int
    placements: list[int]
    playoff: dict[str, Any] | None

    def __init__(
        self,
        rules: Rules,
        seed: int,
        decks: list[list[int]] | tuple[tuple[int, ...], ...] = (),
        first_dealer: int | None = None,
        max_deals: int = 0,
        suit_perm: tuple[int, ...] | list[int] = (),
    ) -> None:
        """``max_deals`` > 0 ends the match after that many deals (SRV-5: a server format for
        ladders, not a game rule): the seat with more game points wins, equal points draw
        (winner -1), reason ``deal_limit``. ``suit_perm`` (a permutation of 0..3, suit ``s`` becomes
        ``suit_perm[s]``) relabels the suits of every deck made from the seed, so that a
        duplicate deal cannot be recognised; the rules are the same for every suit.
        ``first_dealer``: a seat; None draws it from the seed (SRV-4)."""
        if suit_perm and sorted(suit_perm) != [0, 1, 2, 3]:
            raise ValueError("suit_perm must be a permutation of 0, 1, 2, 3")
        if max_deals < 0:
            raise ValueError("max_deals must be >= 0")
        n = rules.spec.num_players
        self.num_seats = n
        self.max_deals = max_deals
        self.suit_perm = tuple(suit_perm)
        self.rules = rules
        self.seed = seed
        self.decks = tuple(map(tuple, decks))
        if first_dealer is None:  # SRV-4: the first dealer is drawn by the server's RNG
            first_dealer = random.Random(f"bummerl/{seed}/first-dealer").randrange(n)
        if not 0 <= first_dealer < n:
            raise ValueError(f"first_dealer must be a seat 0..{n - 1}")
        self.first_dealer = first_dealer
        self.deal_number = 0
        self.game_points = [0] * n
        self.sets_won = [0] * n
        self.carried = 0
        self.results = []
        self.histories = []
        self.over = False
        self.winner = -1
        self.end_reason = ""
        self.match_schneider = False
        self.actions = []
        self.placements = []
        self.playoff = None
        self.deal = self.plan.first_deal(self)

    @property
    def seat_tuple(self) -> tuple[int, ...]:
        return tuple(range(self.num_seats))

    @property
    def plan(self) -> MatchPlan:
        """The variant's match plan (``VariantSpec.plan``)."""
        plan: MatchPlan = self.rules.spec.plan
        return plan

    def deck_for(self, n: int, rules: Rules | None = None) -> list[int] | tuple[int, ...]:
        """Deck order (card ids, top first) of deal ``n``: ``decks[n]`` if given, else from the seed
        (with the suits relabelled by ``suit_perm`` when set); ``rules`` gives the deck of a
        play-off deal of another variant."""
        if n < len(self.decks):
            return self.decks[n]
        deck = deal_deck(self.seed, n, (rules or self.rules).deck)
        if self.suit_perm:
            p = self.suit_perm
            deck = [p[c // 6] * 6 + c % 6 for c in deck]
        return deck

    def copy(self) -> MatchState:
        m = MatchState.__new__(MatchState)
        for name in MatchState.__slots__:
            setattr(m, name, getattr(self, name))
        m.deal = self.deal.copy()
        m.game_points = self.game_points[:]
        m.sets_won = self.sets_won[:]
        m.results = self.results[:]
        m.histories = self.histories[:]
        m.actions = self.actions[:]
        m.placements = self.placements[:]
        if self.playoff is not None:
            m.playoff = {"groups": [[g[0], g[1][:]] for g in self.playoff["groups"]], "pair": self.playoff["pair"][:]}
        return m

    @property
    def to_act(self) -> int:
        """Seat to act, or -1 when the match is over."""
        return -1 if self.over else self.deal.acting

    @property
    def dealer(self) -> int:
        """Seat of the dealer of the current deal."""
        return int(self.deal.dealer_seat)

    def legal_actions(self) -> list[int]:
        return [] if self.over else self.deal.legal_actions()

    def apply(self, action: int, settle: bool = True) -> bool:
        """Checked in-place step: raises :class:`MatchOverError` / :class:`IllegalActionError`
        (the state is then unchanged). ``settle`` and the result: as :meth:`step`."""
        if self.over:
            raise MatchOverError("the match is over")
        legal = self.deal.legal_actions()
        if action not in legal:
            raise IllegalActionError(
                f"{A.action_to_string(action)} is not legal now; legal: {', '.join(A.action_to_string(a) for a in legal)}"
            )
        return self.step(action, settle)

    def step(self, action: int, settle: bool = True) -> bool:
        """Unchecked in-place step (hot path): the action must come from :meth:`legal_actions`.
        Returns True when the action finished the deal, False when the same deal goes on. A
        finished deal is scored at once (the match is over or the next deal is dealt); with
        ``settle=False`` it is left as it ended, unscored, until :meth:`settle_deal` (simulations
        that need only the deal's credit, :meth:`MatchPlan.credit`, skip the match's bookkeeping;
        nothing else of the match may be read or stepped before that)."""
        d = self.deal
        self.actions.append((d.acting, action))
        d.step(action)
        if d.outcome is None:
            return False
        if settle:
            self._finish_deal()
        return True

    def settle_deal(self) -> None:
        """Score the deal that :meth:`step` finished with ``settle=False`` (nothing when the deal
        is not over or was scored already)."""
        if self.deal.outcome is not None and not self.over and self.deal_number == len(self.results):
            self._finish_deal()

    def _finish_deal(self) -> None:
        """Score the finished deal: the plan settles it (:meth:`MatchPlan.settle`), this match
        applies the :class:`Settlement`, then ends or deals the next deal (SRV-5 deal limit
        included)."""
        d = self.deal
        was_playoff = self.playoff is not None
        s: Settlement = self.plan.settle(self, d)
        # the next deal is made only when it will be played (not after the SRV-5 deal limit), and
        # before the settlement is applied (the plan reads the match as it settled it)
        limit = s.end is None and not was_playoff and s.playoff is None and self._at_deal_limit()
        nxt = None if s.end is not None or limit or s.next_deal is None else s.next_deal()
        self.results.append(s.result)
        self.histories.append(d.history)
        self.game_points = list(s.game_points)
        self.sets_won = list(s.sets_won)
        self.carried = s.carried
        self.placements = list(s.placements)
        self.playoff = s.playoff
        if s.end is not None:
            self.match_schneider = s.match_schneider
            self.finish(list(s.placements), s.end)
            return
        if limit:
            self._end_at_deal_limit()
            return
        assert nxt is not None
        self.deal_number += 1
        self.deal = nxt

    def _at_deal_limit(self) -> bool:
        """Whether the deal just finished is the last one the SRV-5 deal limit allows."""
        return bool(self.max_deals) and self.deal_number + 1 >= self.max_deals

    def _end_at_deal_limit(self) -> None:
        """SRV-5 deal limit (ladders): after ``max_deals`` deals the higher total of the deals'
        credits wins; equal totals share first place."""
        totals = [0] * self.num_seats
        for res in self.results:
            if not res.playoff:
                totals = [t + g for t, g in zip(totals, res.game_points, strict=True)]
        self.finish(placements_by_score(totals, self.rules.spec.team_of_seat), MatchEnd.DEAL_LIMIT)

    def finish(self, placements: list[int], reason: MatchEnd) -> None:
        """End the match with ``placements`` (place per seat) and ``reason``: ``winner`` is the
        team alone in first place (-1 if first place is shared between teams)."""
        team_of = self.rules.spec.team_of_seat
        self.over = True
        self.placements = list(placements)
        firsts = {team_of[s] for s in range(self.num_seats) if placements[s] == 1}
        self.winner = firsts.pop() if len(firsts) == 1 else -1
        self.end_reason = reason

    def resign(self, seat: int) -> None:
        """Seat ``seat`` resigns: the match ends at once, the others win (reason resigned)."""
        self.concede(seat, MatchEnd.RESIGNED)

    def concede(self, seat: int, reason: MatchEnd | str) -> None:
        """The match ends at once because of ``seat`` (SRV-5, a server outcome, not a game rule):
        ``reason`` is one of :data:`END_REASONS`. ``resigned``, ``timeout``, ``illegal`` and
        ``disconnect`` put ``seat`` (and its team) last and every other seat first (two seats or
        two teams: the other one wins); ``abandoned`` (idle limit) ends it with no winner (-1) and
        every seat first. Public event: ``("resign", seat)`` for a resignation, else
        ``("timeout", seat, REASON)`` with the reason in capitals. Raises MatchOverError /
        ValueError (unknown reason or seat)."""
        if self.over:
            raise MatchOverError("the match is over")
        if reason not in END_REASONS:
            raise ValueError(f"unknown end reason {reason!r}")
        reason = MatchEnd(reason)
        if not 0 <= seat < self.num_seats:
            raise ValueError(f"seat {seat} is not at this table")
        team_of = self.rules.spec.team_of_seat
        if reason == MatchEnd.ABANDONED:
            places = [1] * self.num_seats
        else:
            places = [2 if team_of[s] == team_of[seat] else 1 for s in range(self.num_seats)]
        self.deal.history.append(("resign", seat) if reason == MatchEnd.RESIGNED else ("timeout", seat, reason.upper()))
        self.finish(places, reason)
        if reason == MatchEnd.ABANDONED:
            self.winner = -1

    def forfeit_deal(self, seat: int) -> None:
        """Seat ``seat`` loses the current deal on time (SRV-5, timeout policy ``forfeit-deal``):
        public event ``("timeout", seat, "TIMEOUT")``, then the deal is scored against ``seat``
        (:meth:`TalonDeal.forfeit`: as if it had taken no trick; contract deals: their
        ``forfeit``), reason ``timeout``; the match goes on (or ends if that reaches the target).
        Logged as ``(seat, FORFEIT_DEAL)``."""
        if self.over:
            raise MatchOverError("the match is over")
        d = self.deal
        self.actions.append((seat, FORFEIT_DEAL))
        d.forfeit(seat)
        self._finish_deal()

    # ----------------------------------------------------------------- serialisation
    def to_dict(self, *, actions: bool = True) -> dict[str, Any]:
        """The match as its log: variant, options, seed, explicit decks, first dealer, actions
        (:func:`bummerl.rules.match.snapshot.to_log`). :meth:`from_dict` replays it to an equal
        state (the log is the source of truth). ``actions=False`` leaves out the ``"actions"``
        list (``[[seat, action id], ...]``) for a caller that keeps the actions itself and puts
        them back before restoring."""
        return S.to_log(self, actions=actions)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchState:
        """Replay a log made by :meth:`to_dict`; raises IllegalActionError if it does not replay,
        UnknownVariantError / InvalidOptionError for a variant or table this engine lacks."""
        m: MatchState = S.replay(cls, data)
        return m

    def snapshot(self, *, log_actions: bool = True) -> dict[str, Any]:
        """The whole state as JSON-ready data (a cache of the log: :meth:`from_snapshot` restores
        it without replaying; :func:`bummerl.rules.match.snapshot.take`). Contains the hidden
        cards: never send it to a player. ``log_actions=False``: the log without its actions
        (:meth:`to_dict`), for a caller that stores them elsewhere and puts ``log["actions"]``
        back before :meth:`restore`."""
        return S.take(self, log_actions=log_actions)

    @classmethod
    def restore(cls, data: dict[str, Any]) -> MatchState:
        """A state from :meth:`snapshot` data, also data written by another version of the engine:
        the snapshot is used when its ``layout`` is this engine's
        (:func:`bummerl.rules.match.snapshot.layout`), otherwise (or if it does not load) the log
        is replayed (:meth:`from_dict`), so adding a field to the state never makes stored
        matches unreadable. Raises IllegalActionError if the log does not replay, KeyError if
        there is no log."""
        m: MatchState = S.restore(cls, data)
        return m

    @classmethod
    def from_snapshot(cls, data: dict[str, Any]) -> MatchState:
        """Inverse of :meth:`snapshot` (no replay). Raises KeyError/TypeError/ValueError on foreign
        data; :meth:`restore` checks the layout and falls back to the log."""
        m: MatchState = S.load(cls, data)
        return m

    def fingerprint(self) -> tuple[Any, ...]:
        """Every field that defines the state, for equality checks in tests."""
        snap = self.deal.to_snapshot()
        return (
            self.rules, self.seed, self.decks, self.first_dealer, self.max_deals, self.suit_perm, self.deal_number, tuple(self.game_points),
            tuple(self.sets_won), self.carried, tuple(self.results), self.over, self.winner, self.end_reason,
            self.match_schneider, tuple(self.actions), tuple(self.placements), repr(self.playoff),
            tuple((k, repr(v)) for k, v in sorted(snap.items())),
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MatchState) and self.fingerprint() == other.fingerprint()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"<MatchState {self.rules.spec.id} seed={self.seed} deal={self.deal_number} "
            f"score={self.game_points} to_act={self.to_act} actions={len(self.actions)}>"
        )


def snapshot_layout() -> str:
    """The layout tag of this engine's snapshots of :class:`MatchState`
    (:func:`bummerl.rules.match.snapshot.layout`)."""
    return S.layout(MatchState)

"""The two-player trick-and-draw deal (docs/RULES.md §1.5-§1.7, §2-§6): :class:`TalonDeal`.

One deal to 66 between two players, also the deal of the active pair of Stockschnapsen and the
Hungarian rotation game (STK-SEAT-1, HU3R-INH-1) and the play-off deal of every game
(STK-MATCH-4, TS-MATCH-1). A mutable object with ``__slots__`` and a cheap :meth:`TalonDeal.copy`
(like python-chess's ``Board.push``): :meth:`TalonDeal.step` changes it in place and is the hot path
of simulations. :meth:`TalonDeal.view` is its part of a seat's information set (§14), and
:meth:`TalonDeal.from_public` the public constructor of a deal consistent with what one seat saw
(the bots' determinization).

Representation: cards are ints (``suit * 6 + rank``), hands are bitmasks, actions are ints
(:mod:`bummerl.rules.base.actions`). The talon is a list whose last element is the face-up trump
card (DEF-TAL-1); ``tpos`` is the index of the top card, so the talon size is
``len(talon) - tpos``. The public history of the deal is kept as tuples (see
:mod:`bummerl.rules.base.events`) for information sets.

This module keeps the slots, the deal, the derived facts, the legal actions, the transitions
and the scoring (the hot path: ``step``, ``legal_actions``, ``copy``). The phases are in
:mod:`.talon_state`; :meth:`TalonDeal.view` and :func:`public_known_cards` in :mod:`.talon_view`;
:meth:`TalonDeal.from_public`, :meth:`TalonDeal.set_position` and :func:`arrange_deck` in
:mod:`.talon_search` (mixins that :class:`TalonDeal` inherits); all of them are re-exported here.

Level 2 of the engine stack (:mod:`bummerl.rules.deals`): imports :mod:`bummerl.rules.base`,
:mod:`bummerl.rules.table` and this level.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ..base import actions as A
from ..base import cards as K
from ..base.cards import BIT, HIGHER, SUIT_MASK, cards_of
from ..base.errors import IllegalActionError
from ..table.outcome import DealEnd, DealOutcome, DealSummary
from ..table.variant import Rules
from .slots import slots_from_dict, slots_to_dict
from .talon_search import TalonSearchMixin, arrange_deck
from .talon_state import DRAW, EXCHANGE_ON_CLOSE, FOLLOW, LEAD, OVER, PHASE_NAMES
from .talon_view import TalonViewMixin, public_known_cards

__all__ = [
    "DRAW", "EXCHANGE_ON_CLOSE", "FOLLOW", "LEAD", "OVER", "PHASE_NAMES", "DealState", "TalonDeal",
    "arrange_deck", "public_known_cards",
]

_K_BITS = sum(1 << (s * 6 + K.KING) for s in range(4))  # the kings; (h >> 1) aligns queens on them
_KQ = tuple(BIT[s * 6 + K.KING] | BIT[s * 6 + K.QUEEN] for s in range(4))
#: _SUITS_KQ[m]: the kings and queens of the suits in the 4-bit suit set ``m`` (announced, pending)
_SUITS_KQ = tuple(sum(_KQ[s] for s in range(4) if m >> s & 1) for m in range(16))


class TalonDeal(TalonViewMixin, TalonSearchMixin):
    """One deal between two players (deal seats 0 and 1). Build with :meth:`new`; act with
    :meth:`step`. Internally every index is a deal seat; ``seats`` maps deal seat ``i`` to the
    match seat ``seats[i]`` (the active pair of STK-SEAT-1 / HU3R-INH-1; ``(0, 1)`` in the
    two-player games), and the public history is written in match seats."""

    #: The phases (:data:`LEAD` ...), for code that reads ``phase`` through the facade.
    LEAD: ClassVar[int] = LEAD
    FOLLOW: ClassVar[int] = FOLLOW
    DRAW: ClassVar[int] = DRAW
    EXCHANGE_ON_CLOSE: ClassVar[int] = EXCHANGE_ON_CLOSE
    OVER: ClassVar[int] = OVER

    __slots__ = (
        "rules", "seats", "dealer", "hands", "talon", "tpos", "trump", "phase", "to_act", "leader", "lead_card",
        "trick_no", "closed_by", "close_snapshot", "tricks_won", "trick_points", "marriage_points",
        "won", "announced", "pending", "turn_marriages", "last_winner", "history", "outcome",
    )

    rules: Rules
    seats: tuple[int, ...]
    dealer: int
    hands: list[int]
    talon: list[int]
    tpos: int
    trump: int
    phase: int
    to_act: int
    leader: int
    lead_card: int
    trick_no: int
    closed_by: int
    close_snapshot: tuple[int, int, int, bool]
    tricks_won: list[int]
    trick_points: list[int]
    marriage_points: list[int]
    won: list[int]
    announced: int
    pending: int
    turn_marriages: int
    last_winner: int
    history: list[tuple[Any, ...]]
    outcome: DealOutcome | None

    @classmethod
    def new(
        cls, rules: Rules, deck: list[int] | tuple[int, ...], dealer: int, seats: tuple[int, ...] = (0, 1),
        num_seats: int = 2,
    ) -> TalonDeal:
        """Deal ``deck`` (top card first) by the variant's pattern (SRV-1, e.g. AT-DEAL-1, O66-DEAL-1).

        ``dealer`` is a deal seat (0 or 1); ``seats`` the match seats of deal seats 0 and 1, of a
        table of ``num_seats`` (the ``deal`` event lists the hand size of every match seat).
        Batches go to the non-dealer first; ``"T"`` turns up the trump card; the rest is the talon,
        its first card on top and the trump card at the bottom (DEF-TAL-1). The non-dealer leads
        (AT-LEAD-1). Raises ``ValueError`` if ``deck`` is not a permutation of the variant's deck.
        """
        if sorted(deck) != sorted(rules.deck):
            raise ValueError("deck must be a permutation of the variant's deck")
        d = cls.__new__(cls)
        d.rules = rules
        d.seats = seats
        d.dealer = dealer
        nd = 1 - dealer
        hands = [0, 0]
        i = 0
        trump_card = -1
        for b in rules.spec.deal_pattern:
            if b == "T":
                trump_card = deck[i]
                i += 1
                continue
            assert isinstance(b, int)
            for seat in (nd, dealer):
                for c in deck[i : i + b]:
                    hands[seat] |= BIT[c]
                i += b
        d.hands = hands
        d.talon = [*deck[i:], trump_card]
        d.tpos = 0
        d.trump = trump_card // 6
        d.phase = LEAD
        d.to_act = nd
        d.leader = nd
        d.lead_card = -1
        d.trick_no = 0
        d.closed_by = -1
        d.close_snapshot = (0, 0, 0, False)
        d.tricks_won = [0, 0]
        d.trick_points = [0, 0]
        d.marriage_points = [0, 0]
        d.won = [0, 0]
        d.announced = 0
        d.pending = 0
        d.turn_marriages = 0
        d.last_winner = -1
        size = rules.spec.hand_size
        d.history = [("deal", seats[dealer], trump_card, tuple(size if s in seats else 0 for s in range(num_seats)))]
        d.outcome = None
        return d

    def search_copy(self) -> TalonDeal:
        """A copy for a search, cheaper than :meth:`copy`: the lists play changes are copied and the
        history is left empty (a search never reads it; the copy's events and views are not those
        of the deal). A search may then put the copy at the positions it wants to look at with
        :meth:`set_position` (or build a guessed world with :meth:`from_public`)."""
        d = TalonDeal.__new__(TalonDeal)
        for name in TalonDeal.__slots__:
            setattr(d, name, getattr(self, name))
        d.hands = self.hands[:]
        d.talon = self.talon[:]
        d.tricks_won = self.tricks_won[:]
        d.trick_points = self.trick_points[:]
        d.marriage_points = self.marriage_points[:]
        d.won = self.won[:]
        d.history = []
        return d

    def copy(self) -> TalonDeal:
        d = self.search_copy()
        d.history = self.history[:]
        return d

    # ----------------------------------------------------------------- derived facts
    @property
    def talon_size(self) -> int:
        """Talon size including the face-up trump card (DEF-TAL-1); frozen once closed."""
        return len(self.talon) - self.tpos

    @property
    def strict(self) -> bool:
        """Strict play (DEF-PLAY-STRICT) applies: talon closed (DEF-TAL-3) or exhausted (DEF-TAL-2)."""
        return self.closed_by >= 0 or self.tpos >= len(self.talon)

    @property
    def talon_state(self) -> str:
        if self.closed_by >= 0:
            return "closed"
        return "exhausted" if self.tpos >= len(self.talon) else "open"

    @property
    def trump_card(self) -> int:
        """The face-up trump card, or -1 once it is drawn or turned down by closing (§14.1)."""
        return self.talon[-1] if self.closed_by < 0 and self.tpos < len(self.talon) else -1

    @property
    def low_trump(self) -> int:
        """The card that may be exchanged for the trump card (DEF-TAL-4): trump J or trump 9."""
        return self.trump * 6 + self.rules.talon.exchange_rank

    def counted_marriages(self, p: int) -> int:
        """Marriage points of seat ``p`` that count now (DEF-PTS-2: pending until a won trick)."""
        if self.tricks_won[p] or not self.rules.marriage_counts_after_first_trick:
            return self.marriage_points[p]
        return 0

    def deal_points(self, p: int) -> int:
        """Deal points (DEF-PTS-3) = trick points + counted marriages."""
        return self.trick_points[p] + self.counted_marriages(p)

    def score_basis(self, loser: int, frozen: tuple[int, int, int] | None = None) -> tuple[int, int]:
        """``(tricks, points)`` of ``loser`` as the game-point table reads them (AT-SCORE-1,
        O66-SCORE-1, SAN-SCORE-1, HU2-SCORE-1): his state now, or ``frozen`` = (tricks, trick
        points, counted marriages) at closing (``close_score_basis = at_close``, AT-CLOSE-3).
        ``points`` are measured against the Schneider line: trick points, plus counted marriages
        only under ``schneider_threshold_includes_marriages`` (OPEN-AT-1; OPEN-HU2-4: tricks only)."""
        tricks, pts, marr = frozen or (self.tricks_won[loser], self.trick_points[loser], self.counted_marriages(loser))
        return tricks, pts + marr if self.rules.schneider_threshold_includes_marriages else pts

    def table_points(self, loser: int, frozen: tuple[int, int, int] | None = None) -> int:
        """Game points won against ``loser`` by the table (AT-SCORE-1, O66-SCORE-1, HU2-SCORE-1):
        3 if the loser has no trick, 2 if below ``schneider_threshold``, else 1, on
        :meth:`score_basis` (``frozen``: the loser's state at closing)."""
        tricks, pts = self.score_basis(loser, frozen)
        if not tricks:
            return 3
        return 2 if pts < self.rules.schneider_threshold else 1

    def result_flags(self) -> tuple[bool, bool]:
        """``(schwarz, deal_schneider)`` of the finished deal (DEF-PTS-5, DEF-PTS-6 a): the loser
        had no trick / was below ``schneider_threshold``, read on the basis its game points use
        (:meth:`score_basis`): the loser's state at closing for a successful close scored
        ``at_close`` (AT-CLOSE-3, OPEN-AT-4), trick points only where the 33 line counts tricks
        (HU2-SCORE-1, OPEN-HU2-4), else the state at the end. ``(False, False)`` for a drawn deal
        or a deal still running."""
        o = self.outcome
        if o is None or o.winner < 0:
            return False, False
        loser = 1 - o.winner
        frozen = self._close_frozen() if o.reason == DealEnd.CLOSED_SUCCESS else None
        tricks, pts = self.score_basis(loser, frozen)
        return not tricks, pts < self.rules.schneider_threshold

    # ----------------------------------------------------------------- legal actions
    def legal_actions(self) -> list[int]:
        """Legal action ids of the seat to act, ascending (see :mod:`bummerl.rules.base.actions`)."""
        ph = self.phase
        if ph == FOLLOW:
            h = self.hands[self.to_act]
            if self.closed_by < 0 and self.tpos < len(self.talon):
                return cards_of(h)  # AT-PLAY-1, O66-PLAY-1: free play while the talon is open
            lc = self.lead_card  # AT-STRICT-1/2, DEF-PLAY-STRICT (W is the led card)
            same = h & SUIT_MASK[lc // 6]
            if same:
                return cards_of(same & HIGHER[lc] or same)
            trumps = h & SUIT_MASK[self.trump]
            return cards_of(trumps or h)
        if ph == LEAD:
            return self._lead_actions()
        if ph == DRAW:
            return [A.CLOSE, A.DRAW]
        if ph == EXCHANGE_ON_CLOSE:
            holds = self.hands[self.to_act] & BIT[self.low_trump]
            return [A.EXCHANGE, A.PASS] if holds else [A.PASS]
        return []

    def _lead_actions(self) -> list[int]:
        """A lead turn (§1.7 step 1): exchange, close, declare, marriage + lead, or any lead.

        After ``announce`` only the K/Q of an announced suit may be led (AT-MAR-1, OPEN-GEN-5);
        marriages need both cards (AT-MAR-6) and the first-lead / closed-talon options
        (OPEN-AT-7, SAN-MAR-3, OPEN-SAN-6); ``announce`` is offered only where it enables
        something (declaring at once, OPEN-GEN-4 b, or a second marriage). Exchange and close
        come before any announcement; ``declare`` needs a won trick (AT-DECL-1, O66-DECL-1) and,
        under ``false_declaration_penalty = reject`` (OBI-DECL-1), 66 deal points.
        """
        p = self.to_act
        h = self.hands[p]
        r = self.rules
        pend = self.pending
        acts = cards_of(h & _SUITS_KQ[pend]) if pend else cards_of(h)
        pairs = h & (h >> 1) & _K_BITS & ~_SUITS_KQ[self.announced]
        if (
            pairs
            and self.turn_marriages < r.marriages_per_lead
            and (self.trick_no or r.marriage_first_lead_allowed)
            and (r.marriage_after_talon_closed or not self.strict)
        ):
            suits = [s for s in range(4) if pairs >> (s * 6 + K.KING) & 1]
            for s in suits:
                acts.append(A.MARRIAGE + s * 2)  # lead the King
                acts.append(A.MARRIAGE + s * 2 + 1)  # lead the Queen
            if (r.declare_on_marriage and self._may_declare(p)) or self.turn_marriages + 1 < r.marriages_per_lead:
                acts.extend(A.ANNOUNCE + s for s in suits)
        if not pend and not self.turn_marriages:
            if self._may_exchange(p):
                acts.append(A.EXCHANGE)
            if self._may_close():
                acts.append(A.CLOSE)
        if self._may_declare_now(p) and (r.behaviour.penalty is not None or self.deal_points(p) >= 66):
            acts.append(A.DECLARE)
        return acts

    def _may_exchange(self, p: int) -> bool:
        """AT-EXCH-1..3, O66-EXCH-1..3, SAN-EXCH-1..4, HU2-EXCH-1..2 (options of OPEN-AT-2)."""
        r = self.rules
        return (
            self.closed_by < 0
            and self.talon_size >= max(r.exchange_min_talon, 1)
            and bool(self.hands[p] & BIT[self.low_trump])
            and (self.trick_no > 0 or r.exchange_before_first_trick)
            and (self.tricks_won[p] > 0 or not r.exchange_requires_won_trick)
        )

    def _may_close(self) -> bool:
        """AT-CLOSE-2, O66-CLOSE-2/3, SAN-CLOSE-1/2, HU2-CLOSE-1/2 (options of OPEN-AT-3)."""
        r = self.rules
        return (
            self.closed_by < 0
            and self.talon_size >= max(r.close_min_talon, 1)
            and (self.trick_no > 0 or r.close_before_first_trick)
        )

    def _may_declare_now(self, p: int) -> bool:
        """``declare`` at this point of ``p``'s lead turn: :meth:`_may_declare`, and after an
        announcement only where ``declare_on_marriage`` (OPEN-GEN-4 b, AT-DECL-2)."""
        return (not self.pending or self.rules.declare_on_marriage) and self._may_declare(p)

    def _may_declare(self, p: int) -> bool:
        """Declaring 66 at the own lead turn after a won trick (AT-DECL-1, O66-DECL-1, OPEN-SAN-5);
        after a close the non-closer only if ``non_closer_may_declare`` (AT-CLOSE-5, O66-CLOSE-4)."""
        if not self.tricks_won[p]:
            return False
        return self.closed_by < 0 or self.closed_by == p or self.rules.non_closer_may_declare

    # ----------------------------------------------------------------- transitions
    def step(self, a: int) -> None:
        """Apply action ``a`` of the seat to act, in place. The caller guarantees legality
        (:meth:`MatchState.apply` checks it); an impossible action raises IllegalActionError."""
        ph = self.phase
        p = self.to_act
        if ph == FOLLOW:
            self._follow(p, a)
        elif ph == LEAD:
            if a < A.MARRIAGE:
                self._lead(p, a)
            elif a < A.ANNOUNCE:
                # "marriage KS" is "announce S" followed by "play KS": the announcement may lift
                # the leader to 66 (AT-DECL-2, O66-DECL-5, HU2-DECL-3, OPEN-GEN-4 b), and then
                # auto_declare declares before the card is led, exactly as after "announce S".
                c = A.marriage_card(a)
                self._announce(p, c // 6)
                if self.rules.auto_declare:
                    self._auto_declare(p)
                    if self.phase == OVER:
                        return
                self._lead(p, c)
            elif a < A.EXCHANGE:
                self._announce(p, a - A.ANNOUNCE)
            elif a == A.EXCHANGE:
                self._exchange(p)
            elif a == A.CLOSE:
                self._close(p)
            elif a == A.DECLARE:
                self._declare(p)
            else:
                raise IllegalActionError(f"{A.action_to_string(a)} is not possible at a lead turn")
        elif ph == DRAW:
            if a == A.CLOSE:
                self._close(p)  # O66-CLOSE-2: closing before the draw, both keep their cards
                if self.phase == DRAW:
                    self.phase = LEAD
            elif a == A.DRAW:
                self._draw(p)
                self.phase = LEAD
            else:
                raise IllegalActionError("after a won trick only 'draw' or 'close' is possible")
        elif ph == EXCHANGE_ON_CLOSE:
            if a == A.EXCHANGE:
                self._exchange(p)
            else:
                self.history.append(("pass", self.seats[p]))
            self.phase = LEAD
            self.to_act = self.closed_by
        else:
            raise IllegalActionError("the deal is over")
        if self.phase == LEAD and self.rules.auto_declare:
            # SRV-3 / OPEN-GEN-4 c: whenever a lead turn starts or goes on (after a trick, a
            # draw, a close, the opponent's answer to a close, an announcement), the server
            # declares for the leader if he may and has 66.
            self._auto_declare(self.to_act)

    def _lead(self, p: int, c: int) -> None:
        self.hands[p] ^= BIT[c]
        self.lead_card = c
        self.history.append(("play", self.seats[p], c))
        self.phase = FOLLOW
        self.to_act = 1 - p
        self.pending = 0
        self.turn_marriages = 0

    def _follow(self, p: int, c: int) -> None:
        """Second card of a trick: resolve (DEF-TRICK-1), then draw (AT-DRAW-1) or end the deal."""
        lc = self.lead_card
        leader = 1 - p
        self.hands[p] ^= BIT[c]
        if c // 6 == lc // 6:
            w = p if c < lc else leader
        elif c // 6 == self.trump:
            w = p
        else:
            w = leader
        pts = self.rules.points
        self.trick_points[w] += pts[lc] + pts[c]
        self.tricks_won[w] += 1
        self.won[w] |= BIT[lc] | BIT[c]
        self.trick_no += 1
        self.lead_card = -1
        self.last_winner = w
        self.leader = w
        self.to_act = w
        h = self.history
        S = self.seats
        h.append(("play", S[p], c))
        h.append(("trick", S[w], ((S[leader], lc), (S[p], c))))
        if not (self.hands[0] | self.hands[1]):
            self._played_out()
            return
        if self.closed_by < 0 and self.tpos < len(self.talon):
            r = self.rules
            if r.behaviour.close_before_draw and self._may_close():
                self.phase = DRAW  # O66-CLOSE-2 / SAN-CLOSE-1: the winner may close before drawing
                return
            self._draw(w)
        self.phase = LEAD

    def _draw(self, w: int) -> None:
        """Winner draws the top card, then the loser; the face-up trump card comes last (AT-DRAW-1)."""
        t = self.talon
        i = self.tpos
        lo = 1 - w
        self.hands[w] |= BIT[t[i]]
        self.hands[lo] |= BIT[t[i + 1]]
        self.tpos = i + 2
        h = self.history
        h.append(("draw", self.seats[w], -1))
        h.append(("draw", self.seats[lo], t[i + 1] if i + 2 == len(t) else -1))

    def _announce(self, p: int, s: int) -> None:
        """Marriage 20/40 (DEF-PTS-2, AT-MAR-1/2): both cards become public (AT-MAR-3); the K or Q
        of the suit must be led in this turn (``pending``, AT-MAR-1) unless the leader declares."""
        pts = 40 if s == self.trump else 20
        self.marriage_points[p] += pts
        self.announced |= 1 << s
        self.pending |= 1 << s
        self.turn_marriages += 1
        self.history.append(("marriage", self.seats[p], s, pts))

    def _exchange(self, p: int) -> None:
        """Trump exchange (DEF-TAL-4): the low trump goes face up, the trump card into the hand."""
        low = self.low_trump
        old = self.talon[-1]
        self.hands[p] ^= BIT[low] | BIT[old]
        self.talon[-1] = low
        self.history.append(("exchange", self.seats[p], low, old))

    def _close(self, p: int) -> None:
        """Closing (DEF-TAL-3, AT-CLOSE-1); snapshot of the opponent for close_score_basis=at_close."""
        o = 1 - p
        self.closed_by = p
        self.close_snapshot = (
            self.tricks_won[o],
            self.trick_points[o],
            self.counted_marriages(o),
            bool(self.tricks_won[0] and self.tricks_won[1]),
        )
        self.history.append(("close", self.seats[p]))
        r = self.rules
        if r.exchange_on_opponent_close and self.talon_size >= r.exchange_min_talon:
            # OPEN-O66-5: the non-closer may exchange at once. He is asked whether or not he
            # holds the low trump, so that the closer learns nothing about his hand (§14.3).
            self.phase = EXCHANGE_ON_CLOSE
            self.to_act = o

    def _auto_declare(self, p: int) -> None:
        """Option auto_declare (SRV-3, OPEN-GEN-4 c): declare for the leader when ``declare`` is
        legal for him now (:meth:`_may_declare_now`) and his deal points reach 66. A marriage
        counts only once he has won a trick (DEF-PTS-2, AT-MAR-5), as for his own declaration."""
        if self.phase == LEAD and self._may_declare_now(p) and self.deal_points(p) >= 66:
            self._declare(p)

    def _declare(self, p: int) -> None:
        """Declaring 66 (DEF-DECL-1/2): the server verifies the claim and scores the deal."""
        pts = self.deal_points(p)
        correct = pts >= 66
        if not correct and self.rules.behaviour.penalty is None:  # never offered (OBI-DECL-1)
            raise IllegalActionError("declaring without 66 deal points is rejected (false_declaration_penalty = reject)")
        self.history.append(("declare", self.seats[p], correct, pts))
        o = 1 - p
        closer = self.closed_by
        if closer >= 0 and p != closer:  # AT-CLOSE-5, SAN-CLOSE-6: the non-closer declares
            if correct:
                self._end(p, self._failed_close_points(), DealEnd.CLOSED_FAILURE)
            else:
                self._end(o, self._penalty(p), DealEnd.FALSE_DECLARATION)
        elif closer == p:
            if correct:
                self._end(p, self._success_close_points(), DealEnd.CLOSED_SUCCESS)
            elif self.rules.talon.closer_false_declaration_is_failed_close:  # AT-DECL-3, O66-CLOSE-5
                self._end(o, self._failed_close_points(), DealEnd.CLOSED_FAILURE)
            else:  # HU2-DECL-2: a renonsz also when said by a closer
                self._end(o, self._penalty(p), DealEnd.FALSE_DECLARATION)
        elif correct:
            self._end(p, self.table_points(o), DealEnd.DECLARED)
        else:
            self._end(o, self._penalty(p), DealEnd.FALSE_DECLARATION)

    def _penalty(self, offender: int) -> int:
        """False declaration (AT-DECL-3, O66-DECL-4, SAN-DECL-2, HU2-DECL-2, OPEN-HU2-7): the
        ``false_declaration_penalty`` table (``reject`` is refused before it gets here)."""
        fn = self.rules.behaviour.penalty
        assert fn is not None
        return fn(self, offender)

    def _close_frozen(self) -> tuple[int, int, int] | None:
        """The non-closer's (tricks, trick points, counted marriages) at closing where a successful
        close is scored on them (``at_close``: AT-CLOSE-3); None where it is scored on his state
        at the end (``at_end``: O66-CLOSE-6, SAN-CLOSE-4, HU2-CLOSE-3)."""
        if self.rules.behaviour.close_scored_at_closing:
            t, pts, marr, _ = self.close_snapshot
            return (t, pts, marr)
        return None

    def _success_close_points(self) -> int:
        """AT-CLOSE-3 (at_close), O66-CLOSE-6 / SAN-CLOSE-4 / HU2-CLOSE-3 (at_end)."""
        return self.table_points(1 - self.closed_by, self._close_frozen())

    def _failed_close_points(self) -> int:
        """AT-CLOSE-4, O66-CLOSE-5, SAN-CLOSE-5, HU2-CLOSE-5: 3 or 2 by the
        ``failed_close_three_if`` table."""
        return 3 if self.rules.behaviour.failed_close_three(self) else 2

    def last_trick_points(self, loser: int) -> int:
        """Game points of a deal won by the last trick (AT-SCORE-2, OBI-SCORE-1, HU2-END-1):
        ``last_trick_win_points`` fixed (``fixed1``) or by the table against ``loser``."""
        fixed = self.rules.behaviour.last_trick_points
        return fixed if fixed is not None else self.table_points(loser)

    def _played_out(self) -> None:
        """All tricks played without a declaration (AT-END-1/2, O66-END-1..3, SAN-END-1..3, HU2-END-1/2)."""
        closer = self.closed_by
        r = self.rules
        if closer >= 0:
            if r.behaviour.closed_deal_by_last_trick:  # OPEN-OBI-5 alternative
                w = self.last_winner
                self._end(w, self.last_trick_points(1 - w), DealEnd.LAST_TRICK)
            elif self.deal_points(closer) >= 66:
                self._end(closer, self._success_close_points(), DealEnd.CLOSED_SUCCESS)
            else:
                self._end(1 - closer, self._failed_close_points(), DealEnd.CLOSED_FAILURE)
            return
        self.trick_points[self.last_winner] += r.talon.last_trick_bonus  # O66-END-1, SAN-END-1
        o = r.talon.played_out(self)
        self._end(o.winner, o.game_points, o.reason, o.carry)

    def _end(self, winner: int, game_points: int, reason: DealEnd, carry: int = 0) -> None:
        self.outcome = DealOutcome(winner, game_points, reason, carry)
        self.phase = OVER
        self.to_act = -1

    # ----------------------------------------------------------------- the Deal protocol
    @property
    def acting(self) -> int:
        """Match seat to act; -1 once the deal is over."""
        return self.seats[self.to_act] if self.to_act >= 0 else -1

    @property
    def dealer_seat(self) -> int:
        """Match seat of the dealer."""
        return self.seats[self.dealer]

    @property
    def over(self) -> bool:
        return self.phase == OVER

    @property
    def phase_name(self) -> str:
        return PHASE_NAMES[self.phase]

    def winner_seat(self) -> int:
        """Match seat of the deal's winner; -1 for a drawn or running deal."""
        o = self.outcome
        return self.seats[o.winner] if o is not None and o.winner >= 0 else -1

    def summary(self, n: int = 2) -> DealSummary:
        """Per-match-seat deal points and tricks of the finished deal (0 for a seat that did not
        play), and the DEF-PTS-6 flags (:meth:`result_flags`)."""
        pts = [0] * n
        tricks = [0] * n
        for i, s in enumerate(self.seats):
            pts[s] = self.deal_points(i)
            tricks[s] = self.tricks_won[i]
        schwarz, schneider = self.result_flags()
        return DealSummary(tuple(pts), tuple(tricks), schwarz, schneider)

    def forfeit(self, seat: int) -> None:
        """Match seat ``seat`` loses the deal on time (SRV-5): public ``("timeout", seat,
        "TIMEOUT")``, the other player wins as if ``seat`` had taken no trick (3), reason
        ``timeout``. Raises ValueError if ``seat`` does not play this deal."""
        i = self.seats.index(seat)
        self.history.append(("timeout", seat, "TIMEOUT"))
        self._end(1 - i, 3, DealEnd.TIMEOUT)

    def to_snapshot(self) -> dict[str, Any]:
        """Every slot but ``rules`` as JSON-ready data (hidden cards included)."""
        return slots_to_dict(self, TalonDeal.__slots__)

    @classmethod
    def from_snapshot(cls, rules: Rules, dd: dict[str, Any]) -> TalonDeal:
        """Inverse of :meth:`to_snapshot`; raises KeyError/TypeError on foreign data, ValueError
        on an unknown end reason."""
        d: TalonDeal = slots_from_dict(cls, rules, TalonDeal.__slots__, dd)
        d.close_snapshot = tuple(dd["close_snapshot"])
        o = dd["outcome"]
        d.outcome = DealOutcome(o[0], o[1], DealEnd(o[2]), o[3]) if o is not None else None
        return d


DealState = TalonDeal
"""The name of :class:`TalonDeal` before the engine became a stack (kept: public)."""

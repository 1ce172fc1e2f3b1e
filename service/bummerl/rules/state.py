"""Deal and match state of the two-player trick-and-draw games (docs/RULES.md §1.5-§1.7, §2-§6).

:class:`DealState` is one deal to 66; :class:`MatchState` is a Bummerl (match) of deals. Both are
mutable objects with ``__slots__`` and a cheap :meth:`copy` (like python-chess's ``Board.push``):
:meth:`MatchState.step` changes the state in place and is the hot path of simulations; the public
:func:`bummerl.rules.apply` copies first and never changes the caller's state.

Representation: cards are ints (``suit * 6 + rank``), hands are bitmasks, actions are ints
(:mod:`bummerl.rules.actions`). The talon is a list whose last element is the face-up trump card
(DEF-TAL-1); ``tpos`` is the index of the top card, so the talon size is ``len(talon) - tpos``.
The public history of the deal is kept as tuples (see :mod:`bummerl.rules.events`) for information sets.
"""

from __future__ import annotations

import random
from typing import Any, NamedTuple

from . import actions as A
from . import cards as K
from .cards import BIT, HIGHER, SUIT_MASK, cards_of
from .deal import DealOutcome, DealSummary, event_tuple, slots_from_dict, slots_to_dict
from .errors import IllegalActionError, MatchOverError
from .variant import Rules

LEAD, FOLLOW, DRAW, EXCHANGE_ON_CLOSE, OVER = range(5)
PHASE_NAMES = ("lead", "follow", "draw", "exchange_on_close", "over")

FORFEIT_DEAL = -1
"""Pseudo action id in :attr:`MatchState.actions` for a deal forfeited on time (SRV-5, see
:meth:`MatchState.forfeit_deal`); never offered as a legal action."""

END_REASONS = ("resigned", "timeout", "illegal", "disconnect", "abandoned")
"""Reasons a match can end before its target (:meth:`MatchState.concede`); SRV-5 leaves these to
the server: ``abandoned`` has no winner, the others are won by the other seat."""

_K_BITS = sum(1 << (s * 6 + K.KING) for s in range(4))  # the kings; (h >> 1) aligns queens on them
_KQ = tuple(BIT[s * 6 + K.KING] | BIT[s * 6 + K.QUEEN] for s in range(4))


class DealState:
    """One deal between two players (deal seats 0 and 1). Build with :meth:`new`; act with
    :meth:`step`. Internally every index is a deal seat; ``seats`` maps deal seat ``i`` to the
    match seat ``seats[i]`` (the active pair of STK-SEAT-1 / HU3R-INH-1; ``(0, 1)`` in the
    two-player games), and the public history is written in match seats."""

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
    ) -> DealState:
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

    def copy(self) -> DealState:
        d = DealState.__new__(DealState)
        for name in DealState.__slots__:
            setattr(d, name, getattr(self, name))
        d.hands = self.hands[:]
        d.talon = self.talon[:]
        d.tricks_won = self.tricks_won[:]
        d.trick_points = self.trick_points[:]
        d.marriage_points = self.marriage_points[:]
        d.won = self.won[:]
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
        frozen = self._close_frozen() if o.reason == "closed_success" else None
        tricks, pts = self.score_basis(loser, frozen)
        return not tricks, pts < self.rules.schneider_threshold

    # ----------------------------------------------------------------- legal actions
    def legal_actions(self) -> list[int]:
        """Legal action ids of the seat to act, ascending (see :mod:`bummerl.rules.actions`)."""
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
        if pend:
            kq = 0
            for s in range(4):
                if pend >> s & 1:
                    kq |= _KQ[s]
            acts = cards_of(h & kq)
        else:
            acts = cards_of(h)
        pairs = h & (h >> 1) & _K_BITS & ~sum(_KQ[s] for s in range(4) if self.announced >> s & 1)
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
                self._end(p, self._failed_close_points(), "closed_failure")
            else:
                self._end(o, self._penalty(p), "false_declaration")
        elif closer == p:
            if correct:
                self._end(p, self._success_close_points(), "closed_success")
            elif self.rules.talon.closer_false_declaration_is_failed_close:  # AT-DECL-3, O66-CLOSE-5
                self._end(o, self._failed_close_points(), "closed_failure")
            else:  # HU2-DECL-2: a renonsz also when said by a closer
                self._end(o, self._penalty(p), "false_declaration")
        elif correct:
            self._end(p, self.table_points(o), "declared")
        else:
            self._end(o, self._penalty(p), "false_declaration")

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
                self._end(w, self.last_trick_points(1 - w), "last_trick")
            elif self.deal_points(closer) >= 66:
                self._end(closer, self._success_close_points(), "closed_success")
            else:
                self._end(1 - closer, self._failed_close_points(), "closed_failure")
            return
        self.trick_points[self.last_winner] += r.talon.last_trick_bonus  # O66-END-1, SAN-END-1
        o = r.talon.played_out(self)
        self._end(o.winner, o.game_points, o.reason, o.carry)

    def _end(self, winner: int, game_points: int, reason: str, carry: int = 0) -> None:
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
        self._end(1 - i, 3, "timeout")

    def to_snapshot(self) -> dict[str, Any]:
        """Every slot but ``rules`` as JSON-ready data (hidden cards included)."""
        return slots_to_dict(self, DealState.__slots__)

    @classmethod
    def from_snapshot(cls, rules: Rules, dd: dict[str, Any]) -> DealState:
        """Inverse of :meth:`to_snapshot`; raises KeyError/TypeError on foreign data."""
        d: DealState = slots_from_dict(cls, rules, DealState.__slots__, dd)
        d.close_snapshot = tuple(dd["close_snapshot"])
        d.outcome = DealOutcome(*dd["outcome"][:4]) if dd["outcome"] is not None else None
        return d



class DealResult(NamedTuple):
    """Result of one finished deal as the match records it (DEF-PTS-6 flags kept apart).

    Per-seat tuples are indexed by match seat (a seat that did not play shows 0). ``game_points``
    are the credits of the deal (the winner's entry includes carried points); ``winner`` is the
    winning seat, or team in team games, -1 for a drawn deal or several credited seats.
    ``deal_points`` and ``tricks_won`` are the state at the end of the deal; ``schwarz`` /
    ``deal_schneider`` describe the loser on the basis his game points were read from
    (:meth:`DealState.result_flags`). ``contract``, ``declarer`` and ``multiplier`` describe a
    contract deal (§1.8); ``seats`` lists the seats that played; ``playoff`` marks a play-off deal
    that ranks players without scoring (STK-MATCH-4).
    """

    deal_number: int
    winner: int
    game_points: tuple[int, ...]
    reason: str
    deal_points: tuple[int, ...]
    tricks_won: tuple[int, ...]
    schwarz: bool
    deal_schneider: bool
    carried_points: int
    contract: str = ""
    declarer: int = -1
    multiplier: int = 1
    seats: tuple[int, ...] = ()
    playoff: bool = False

    def to_dict(self) -> dict[str, Any]:
        d = self._asdict()
        for k in ("game_points", "deal_points", "tricks_won", "seats"):
            d[k] = list(d[k])
        return d


def arrange_deck(
    rules: Rules,
    dealer: int,
    hands: tuple[list[str] | list[int], list[str] | list[int]],
    trump_card: str | int,
    talon: list[str] | list[int],
) -> list[int]:
    """The deck order (top first) that deals exactly ``hands`` (indexed by seat), ``trump_card``
    and ``talon`` (top card first, trump card excluded) by the variant's pattern (SRV-1).

    Inverse of :meth:`DealState.new`, for tests and golden deals. Cards may be codes (``"QH"``) or
    ids. Raises ``ValueError`` if the cards are not exactly the variant's deck.
    """

    def ids(xs: list[str] | list[int]) -> list[int]:
        return [K.parse_card(x) if isinstance(x, str) else x for x in xs]

    hs = [ids(hands[0]), ids(hands[1])]
    tc = K.parse_card(trump_card) if isinstance(trump_card, str) else trump_card
    nd = 1 - dealer
    pos = [0, 0]
    deck: list[int] = []
    for b in rules.spec.deal_pattern:
        if b == "T":
            deck.append(tc)
            continue
        assert isinstance(b, int)
        for seat in (nd, dealer):
            deck.extend(hs[seat][pos[seat] : pos[seat] + b])
            pos[seat] += b
    deck.extend(ids(talon))
    if sorted(deck) != sorted(rules.deck) or pos != [len(hs[0]), len(hs[1])]:
        raise ValueError("hands + trump card + talon must be exactly the variant's deck, with hands of the right size")
    return deck


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
    :class:`~bummerl.rules.deal.Deal` protocol; the variant's ``plan``
    (:mod:`bummerl.rules.plan`) picks who plays each deal, credits and ends the match; the
    two-player games (no plan) keep their Bummerl logic here, on the hot path of simulations.
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
    end_reason: str
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
        self.decks = tuple(tuple(d) for d in decks)
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
        plan = rules.spec.plan
        self.deal = plan.first_deal(self) if plan is not None else DealState.new(rules, self.deck_for(0), first_dealer)

    @property
    def seat_tuple(self) -> tuple[int, ...]:
        return tuple(range(self.num_seats))

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

    def apply(self, action: int) -> None:
        """Checked in-place step: raises :class:`MatchOverError` / :class:`IllegalActionError`
        (the state is then unchanged)."""
        if self.over:
            raise MatchOverError("the match is over")
        legal = self.deal.legal_actions()
        if action not in legal:
            raise IllegalActionError(
                f"{A.action_to_string(action)} is not legal now; legal: {', '.join(A.action_to_string(a) for a in legal)}"
            )
        self.step(action)

    def step(self, action: int) -> None:
        """Unchecked in-place step (hot path): the action must come from :meth:`legal_actions`."""
        d = self.deal
        self.actions.append((d.acting, action))
        d.step(action)
        if d.outcome is not None:
            self._finish_deal()

    def _finish_deal(self) -> None:
        """Score the finished deal, settle the match, deal the next one."""
        if self.rules.spec.plan is not None:
            self._finish_planned_deal()
            return
        d = self.deal
        o = d.outcome
        assert o is not None
        r = self.rules
        gp = [0, 0]
        carried = 0
        if o.winner >= 0:
            carried = self.carried  # O66-SCORE-2: carried points go to the next decided deal's winner
            self.carried = 0
            gp[o.winner] = o.game_points + carried
        else:
            self.carried += o.carry
        schwarz, schneider = d.result_flags()  # on the basis of the game points (DEF-PTS-6)
        self.results.append(
            DealResult(
                self.deal_number, o.winner, tuple(gp), o.reason,
                (d.deal_points(0), d.deal_points(1)), tuple(d.tricks_won), schwarz, schneider, carried,
            )
        )
        self.histories.append(d.history)
        if o.winner >= 0:
            w = o.winner
            self.game_points[w] += gp[w]
            if self.game_points[w] >= r.set_goal:  # AT-MATCH-1/2, HU2-MATCH-1
                loser_zero = self.game_points[1 - w] == 0
                self.sets_won[w] += r.set_schneider_value if loser_zero else 1
                if self.sets_won[w] >= r.sets_goal:
                    self.match_schneider = loser_zero
                    self.finish([1, 2] if w == 0 else [2, 1], "target_reached")
                    return
                self.game_points = [0, 0]
        if self._deal_limit_reached():
            return
        self.deal_number += 1
        self.deal = DealState.new(r, self.deck_for(self.deal_number), self._next_dealer(d.dealer, o.winner))

    def _deal_limit_reached(self) -> bool:
        """SRV-5 deal limit (ladders): after ``max_deals`` deals the higher total of the deals'
        credits wins; equal totals share first place."""
        if not (self.max_deals and self.deal_number + 1 >= self.max_deals):
            return False
        from .plan import placements_by_score

        totals = [sum(res.game_points[s] for res in self.results if not res.playoff) for s in range(self.num_seats)]
        self.finish(placements_by_score(totals, self.rules.spec.team_of_seat), "deal_limit")
        return True

    def _finish_planned_deal(self) -> None:
        """The multi-player path (:mod:`bummerl.rules.plan`): credit, record, settle, next deal
        or play-off deal."""
        plan = self.rules.spec.plan
        d = self.deal
        o = d.outcome
        n = self.num_seats
        in_playoff = self.playoff is not None
        gp = (0,) * n if in_playoff else plan.credit(self, d)
        summ = d.summary(n)
        winner = d.winner_seat() if isinstance(d, DealState) else o.winner
        self.results.append(
            DealResult(
                self.deal_number, winner, tuple(gp), o.reason, summ.deal_points, summ.tricks_won, summ.schwarz,
                summ.deal_schneider, 0, summ.contract, summ.declarer, summ.multiplier, tuple(d.seats), in_playoff,
            )
        )
        self.histories.append(d.history)
        if in_playoff:
            plan.playoff_result(self, d)
        else:
            for s in range(n):
                self.game_points[s] += gp[s]
            if not plan.settle(self):
                if self._deal_limit_reached():
                    return
                self.deal_number += 1
                self.deal = plan.next_deal(self, d)
                return
        if self.over:
            return
        po = self.playoff
        assert po is not None
        po["groups"] = [g for g in po["groups"] if len(g[1]) > 1]
        if not po["groups"]:
            self.playoff = None
            self.finish(self.placements, "target_reached")
            return
        self.deal_number += 1
        self.deal = plan.playoff_deal(self)

    def finish(self, placements: list[int], reason: str) -> None:
        """End the match with ``placements`` (place per seat) and ``reason``: ``winner`` is the
        team alone in first place (-1 if first place is shared between teams)."""
        team_of = self.rules.spec.team_of_seat
        self.over = True
        self.placements = list(placements)
        firsts = {team_of[s] for s in range(self.num_seats) if placements[s] == 1}
        self.winner = firsts.pop() if len(firsts) == 1 else -1
        self.end_reason = reason

    def _next_dealer(self, dealer: int, winner: int) -> int:
        """AT-DEAL-2 / OPEN-AT-8 (alternate), OPEN-O66-3 and SAN-DEAL-2 (winner deals; same dealer
        after a drawn deal), HU2-SEAT-1 (alternate)."""
        return self.rules.behaviour.next_dealer(dealer, winner)

    def resign(self, seat: int) -> None:
        """Seat ``seat`` resigns: the match ends at once, the others win (reason resigned)."""
        self.concede(seat, "resigned")

    def concede(self, seat: int, reason: str) -> None:
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
        if not 0 <= seat < self.num_seats:
            raise ValueError(f"seat {seat} is not at this table")
        team_of = self.rules.spec.team_of_seat
        if reason == "abandoned":
            places = [1] * self.num_seats
        else:
            places = [2 if team_of[s] == team_of[seat] else 1 for s in range(self.num_seats)]
        self.deal.history.append(("resign", seat) if reason == "resigned" else ("timeout", seat, reason.upper()))
        self.finish(places, reason)
        if reason == "abandoned":
            self.winner = -1

    def forfeit_deal(self, seat: int) -> None:
        """Seat ``seat`` loses the current deal on time (SRV-5, timeout policy ``forfeit-deal``):
        public event ``("timeout", seat, "TIMEOUT")``, then the deal is scored against ``seat``
        (:meth:`DealState.forfeit`: as if it had taken no trick; contract deals: their
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
        """The match as its log: variant, options, seed, explicit decks, first dealer, actions.
        :meth:`from_dict` replays it to an equal state (the log is the source of truth).
        ``actions=False`` leaves out the ``"actions"`` list (``[[seat, action id], ...]``) for a
        caller that keeps the actions itself and puts them back before restoring."""
        out = {
            "variant": self.rules.spec.id,
            "options": dict(self.rules.options),
            "seed": self.seed,
            "decks": [list(d) for d in self.decks],
            "first_dealer": self.first_dealer,
            "actions": [list(a) for a in self.actions] if actions else None,
            "resigned": self.deal.history[-1][1] if self.end_reason == "resigned" else None,
            "ended": [self.deal.history[-1][1], self.end_reason] if self.end_reason in END_REASONS else None,
            "max_deals": self.max_deals,
            "suit_perm": list(self.suit_perm),
        }
        if not actions:
            del out["actions"]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchState:
        """Replay a log made by :meth:`to_dict`; raises IllegalActionError if it does not replay."""
        from .variant import find_variant

        rules = find_variant(data["variant"]).configure(data["options"])
        m = cls(rules, int(data["seed"]), data.get("decks") or (), int(data["first_dealer"]),
                int(data.get("max_deals") or 0), tuple(data.get("suit_perm") or ()))
        for seat, a in data["actions"]:
            if a == FORFEIT_DEAL:
                if m.over:
                    raise IllegalActionError("log replay: a forfeit after the end of the match")
                m.forfeit_deal(seat)
                continue
            if m.to_act != seat:
                raise IllegalActionError(f"log replay: seat {seat} acted out of turn")
            m.apply(a)
        if data.get("ended") is not None:
            m.concede(int(data["ended"][0]), str(data["ended"][1]))
        elif data.get("resigned") is not None:
            m.resign(int(data["resigned"]))
        return m

    def snapshot(self, *, log_actions: bool = True) -> dict[str, Any]:
        """The whole state as JSON-ready data (a cache of the log: :meth:`from_snapshot` restores
        it without replaying). Contains the hidden cards: never send it to a player.
        ``log_actions=False``: the log without its actions (:meth:`to_dict`), for a caller that
        stores them elsewhere and puts ``log["actions"]`` back before :meth:`restore`."""
        d = self.deal
        out = {
            "layout": snapshot_layout(),
            "log": self.to_dict(actions=log_actions),
            "deal_number": self.deal_number,
            "game_points": self.game_points,
            "sets_won": self.sets_won,
            "carried": self.carried,
            "results": [list(r) for r in self.results],
            "histories": self.histories,
            "over": self.over,
            "winner": self.winner,
            "end_reason": self.end_reason,
            "match_schneider": self.match_schneider,
            "placements": self.placements,
            "playoff": self.playoff,
            "deal": d.to_snapshot(),
        }
        if d.rules is not self.rules:  # a play-off deal of another variant (TS-MATCH-1)
            out["deal_variant"] = d.rules.spec.id
        return out

    @classmethod
    def restore(cls, data: dict[str, Any]) -> MatchState:
        """A state from :meth:`snapshot` data, also data written by another version of the engine:
        the snapshot is used when its ``layout`` is this engine's (:func:`snapshot_layout`),
        otherwise (or if it does not load) the log is replayed (:meth:`from_dict`), so adding a
        field to the state never makes stored matches unreadable. Raises IllegalActionError if
        the log does not replay, KeyError if there is no log."""
        if data.get("layout") == snapshot_layout():
            try:
                return cls.from_snapshot(data)
            except (KeyError, TypeError, ValueError, IndexError):
                pass
        return cls.from_dict(data["log"])

    @classmethod
    def from_snapshot(cls, data: dict[str, Any]) -> MatchState:
        """Inverse of :meth:`snapshot` (no replay). Raises KeyError/TypeError on foreign data;
        :meth:`restore` checks the layout and falls back to the log."""
        from .variant import configure_cached

        log = data["log"]
        m = cls.__new__(cls)
        m.rules = configure_cached(log["variant"], log["options"])
        m.num_seats = m.rules.spec.num_players
        m.seed = int(log["seed"])
        m.decks = tuple(tuple(x) for x in log.get("decks") or ())
        m.first_dealer = int(log["first_dealer"])
        m.max_deals = int(log.get("max_deals") or 0)
        m.suit_perm = tuple(log.get("suit_perm") or ())
        m.actions = [(a[0], a[1]) for a in log["actions"]]
        m.deal_number = data["deal_number"]
        m.game_points = list(data["game_points"])
        m.sets_won = list(data["sets_won"])
        m.carried = data["carried"]
        m.results = [
            DealResult(r[0], r[1], tuple(r[2]), r[3], tuple(r[4]), tuple(r[5]), r[6], r[7], r[8], r[9], r[10], r[11],
                       tuple(r[12]), r[13])
            for r in data["results"]
        ]
        m.histories = [[event_tuple(e) for e in h] for h in data["histories"]]
        m.over = data["over"]
        m.winner = data["winner"]
        m.end_reason = data["end_reason"]
        m.match_schneider = data["match_schneider"]
        m.placements = list(data["placements"])
        m.playoff = data["playoff"]
        deal_rules = configure_cached(data["deal_variant"], {}) if "deal_variant" in data else m.rules
        dd = data["deal"]
        deal_cls = deal_rules.spec.deal_class
        if deal_cls is None or "talon" in dd:  # two-player deals, also play-off deals of contract games
            deal_cls = DealState
        d = deal_cls.from_snapshot(deal_rules, dd)
        if m.over and m.deal_number < len(m.histories):
            m.histories[m.deal_number] = d.history
        m.deal = d
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


SNAPSHOT_FORMAT = 2
"""Bump when the meaning of a snapshot field changes without a slot being added or removed."""


def snapshot_layout() -> str:
    """The layout tag written into every snapshot: :data:`SNAPSHOT_FORMAT` and a digest of the
    slot names of :class:`MatchState` and :class:`DealState`, so that a deploy that adds, removes
    or renames a slot changes it and :meth:`MatchState.restore` replays the log instead."""
    global _LAYOUT
    if _LAYOUT is None:
        import hashlib

        names = ",".join([*MatchState.__slots__, "|", *DealState.__slots__])
        _LAYOUT = f"{SNAPSHOT_FORMAT}:{hashlib.sha256(names.encode()).hexdigest()[:12]}"
    return _LAYOUT


_LAYOUT: str | None = None

"""The public constructors of the two-player deal for searches and tests:
:class:`TalonSearchMixin` gives :class:`~bummerl.rules.deals.talon.TalonDeal`
:meth:`~TalonSearchMixin.from_public` (a deal consistent with what one seat saw, the bots'
determinization) and :meth:`~TalonSearchMixin.set_position` (a search's scratch copy moved, in
place, to the positions it scores); :func:`arrange_deck` is the deck order that deals given hands
(for tests and golden deals). ``TalonDeal.search_copy`` stays with ``copy`` in :mod:`.talon`.

Level 2 of the engine stack (:mod:`bummerl.rules.deals`): imports :mod:`bummerl.rules.base`,
:mod:`bummerl.rules.table` and :mod:`.talon_state`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from ..base import cards as K
from ..base.cards import BIT
from ..table.outcome import DealOutcome
from ..table.variant import Rules
from .talon_state import OVER, PHASE_NAMES, TalonState

__all__ = ["TalonSearchMixin", "arrange_deck"]

_D = TypeVar("_D", bound=TalonState)


class TalonSearchMixin:
    """:meth:`from_public` and :meth:`set_position` of :class:`~bummerl.rules.deals.talon.TalonDeal`
    (no slots of its own)."""

    __slots__ = ()

    # mypy reads ``self.x = ...`` in :meth:`set_position` as attributes of this class; these two
    # it cannot infer from the values assigned there (as TalonDeal declares them).
    history: list[tuple[Any, ...]]
    outcome: DealOutcome | None

    def set_position(
        self: TalonState,
        *,
        hands: Sequence[int],
        phase: int,
        to_act: int,
        leader: int,
        lead_card: int = -1,
        tricks_won: Sequence[int] = (0, 0),
        trick_points: Sequence[int] = (0, 0),
        marriage_points: Sequence[int] = (0, 0),
        won: Sequence[int] = (0, 0),
    ) -> None:
        """Put this deal, in place, at another position of the same deal: for a search that
        scores many positions on one scratch copy (:meth:`search_copy`), e.g. the ends of a
        strict-play endgame (DEF-TAL-2/3), where building each with :meth:`from_public` would
        cost an object per position.

        Every index is a deal seat (0, 1). ``hands``: both hands as bitmasks; ``phase``:
        :data:`LEAD` or :data:`FOLLOW` (or another phase); ``to_act``, ``leader`` and
        ``lead_card`` (the card led at :data:`FOLLOW`, -1 at a lead turn); the public counters
        ``tricks_won``, ``trick_points``, ``marriage_points`` and ``won`` (bitmask of won cards,
        none by default). What the position does not name stays as it is: the trump, the talon
        and its top (``tpos``), the closing (``closed_by``, ``close_snapshot``), ``trick_no``,
        the announced suits and ``seats``. A marriage lead in progress is cleared (``pending``,
        ``turn_marriages``), as are the history and the outcome. Raises ValueError if the two
        hands share a card.
        """
        h0, h1 = hands
        if h0 & h1:
            raise ValueError("a card is in both hands")
        self.hands = [h0, h1]
        self.phase = phase
        self.to_act = to_act
        self.leader = leader
        self.lead_card = lead_card
        self.tricks_won = [tricks_won[0], tricks_won[1]]
        self.trick_points = [trick_points[0], trick_points[1]]
        self.marriage_points = [marriage_points[0], marriage_points[1]]
        self.won = [won[0], won[1]]
        self.pending = 0
        self.turn_marriages = 0
        self.history = []
        self.outcome = None

    @classmethod
    def from_public(
        cls: type[_D],
        rules: Rules,
        *,
        dealer: int,
        hands: Sequence[int],
        talon: Sequence[int],
        trump: int,
        phase: int | str,
        to_act: int,
        leader: int,
        lead_card: int = -1,
        trick_no: int = 0,
        closed_by: int = -1,
        close_snapshot: tuple[int, int, int, bool] = (0, 0, 0, False),
        tricks_won: Sequence[int] = (0, 0),
        trick_points: Sequence[int] = (0, 0),
        marriage_points: Sequence[int] = (0, 0),
        won: Sequence[int] = (0, 0),
        announced: int = 0,
        pending: int = 0,
        turn_marriages: int = 0,
        last_winner: int = -1,
        seats: tuple[int, int] = (0, 1),
    ) -> _D:
        """A deal in the middle of play, built from what one seat knows plus a guess at what it
        does not (a "world" consistent with its information set, for search: determinization).

        Every index is a deal seat (0, 1). ``hands``: both hands as bitmasks (the guessed one
        included); ``talon``: the cards still in the talon, top first, the face-up trump card (or
        the card that lies there after an exchange) last, empty once drawn out; ``trump``: the
        trump suit (0..3); ``phase``: :data:`LEAD`, :data:`FOLLOW`, :data:`DRAW`,
        :data:`EXCHANGE_ON_CLOSE`, :data:`OVER` or its name (``"lead"`` ...); ``to_act``,
        ``leader``, ``lead_card`` (-1 at a lead turn), ``trick_no``; ``closed_by`` (-1 = not
        closed) and ``close_snapshot`` (the non-closer's tricks, trick points, counted marriages
        and whether both had a trick, at closing: AT-CLOSE-3, HU2-CLOSE-5); the public counters
        ``tricks_won``, ``trick_points``, ``marriage_points``, ``won`` (bitmask of won cards);
        ``announced`` and ``pending`` (bitmasks of suits whose marriage was shown / whose K or Q
        must be led now, AT-MAR-1), ``turn_marriages``; ``last_winner``. ``seats``: the match
        seats of deal seats 0 and 1. The history starts empty (a search needs none) and there is
        no outcome. The deal then plays on under the engine exactly as the real deal would if the
        guess is the real layout (tests/clients). Raises ValueError if a card is in two places or
        a value is out of range.
        """
        ph = PHASE_NAMES.index(phase) if isinstance(phase, str) else phase
        if not (0 <= ph <= OVER and 0 <= trump < 4 and -1 <= to_act <= 1 and 0 <= leader <= 1):
            raise ValueError("phase, trump, to_act or leader out of range")
        h0, h1 = hands
        talon_mask = sum(map(BIT.__getitem__, talon))  # as many bits as cards iff no card is there twice
        if h0 & h1 or talon_mask & (h0 | h1) or talon_mask.bit_count() != len(talon):
            raise ValueError("a card is in two places (both hands, a hand and the talon, or twice in the talon)")
        d = cls.__new__(cls)
        d.rules = rules
        d.seats = seats
        d.dealer = dealer
        d.hands = [h0, h1]
        d.talon = list(talon)
        d.tpos = 0
        d.trump = trump
        d.phase = ph
        d.to_act = to_act
        d.leader = leader
        d.lead_card = lead_card
        d.trick_no = trick_no
        d.closed_by = closed_by
        d.close_snapshot = close_snapshot
        d.tricks_won = list(tricks_won)
        d.trick_points = list(trick_points)
        d.marriage_points = list(marriage_points)
        d.won = list(won)
        d.announced = announced
        d.pending = pending
        d.turn_marriages = turn_marriages
        d.last_winner = last_winner
        d.history = []
        d.outcome = None
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

    Inverse of :meth:`TalonDeal.new`, for tests and golden deals. Cards may be codes (``"QH"``) or
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

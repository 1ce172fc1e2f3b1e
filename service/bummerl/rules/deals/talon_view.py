"""The information-set part of the two-player deal (docs/RULES.md §14.1-§14.3):
:class:`TalonViewMixin` gives :class:`~bummerl.rules.deals.talon.TalonDeal` its
:meth:`~TalonViewMixin.view` (the ``deal`` part of a seat's information set), and
:func:`public_known_cards` reads the cards of a hand that public events have shown.

Level 2 of the engine stack (:mod:`bummerl.rules.deals`): imports :mod:`bummerl.rules.base` and
:mod:`.talon_state`.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..base import views as V
from ..base.cards import SUITS, card_code, cards_of
from ..base.events import event_view
from .talon_state import TalonState

__all__ = ["TalonViewMixin", "public_known_cards"]


class TalonViewMixin:
    """:meth:`view` of :class:`~bummerl.rules.deals.talon.TalonDeal` (no slots of its own)."""

    __slots__ = ()

    def view(self: TalonState, seat: int, deal_number: int = 0, history: Sequence[V.Event] | None = None,
             num_seats: int = 2) -> V.DealView:
        """The ``deal`` part of match seat ``seat``'s information set (§14.1-§14.3), with per-seat
        lists indexed by match seat for a table of ``num_seats`` (0 for a seat that does not play
        this deal; a seat outside :attr:`seats`, or -1, sees no hand and no own tricks,
        STK-SEAT-1). ``history``: the views of this deal's history when the caller shares them
        (:func:`bummerl.rules.match.infoset.history_views`); None = built here. ``phase``,
        ``to_act`` and ``seats`` are set by :func:`bummerl.rules.match.infoset.information_set`.
        Own won cards and points only under ``may_view_own_tricks`` (OBI-PLAY-1; never sent in
        AT-PLAY-3, O66-PLAY-3, SAN-PLAY-3)."""
        r = self.rules
        S = self.seats
        me = S.index(seat) if seat in S else -1
        hand_sizes = [0] * num_seats
        tricks = [0] * num_seats
        for i, s in enumerate(S):
            hand_sizes[s] = bin(self.hands[i]).count("1")
            tricks[s] = self.tricks_won[i]
        counted = {s: bool(self.tricks_won[i] or not r.marriage_counts_after_first_trick) for i, s in enumerate(S)}
        if history is None:
            sizes = [r.spec.hand_size] * num_seats
            history = [event_view(e, deal_number, 0, sizes) for e in self.history]
        deal: V.DealView = {
            "phase": "PHASE_UNSPECIFIED",
            "to_act": -1,
            "leader": S[self.leader],
            "trump_suit": SUITS[self.trump],
            "trump_card": card_code(self.trump_card) if self.trump_card >= 0 else "",
            "talon_size": self.talon_size,
            "talon_state": V.TALON_STATES[self.talon_state],
            "closed_by": S[self.closed_by] if self.closed_by >= 0 else -1,
            "trick_number": self.trick_no,
            "hand": [card_code(c) for c in cards_of(self.hands[me])] if me >= 0 else [],
            "hand_sizes": hand_sizes,
            "tricks_won": tricks,
            "current_trick": [{"seat": S[self.leader], "card": card_code(self.lead_card)}] if self.lead_card >= 0 else [],
            "history": list(history),
            "marriages": [
                {"seat": e[1], "suit": SUITS[e[2]], "points": e[3], "counted": counted[e[1]]}
                for e in self.history
                if e[0] == "marriage"
            ],
            "seats": [],
            "laid_away": [],
            "laid_away_taken_up": [],
        }
        if r.may_view_own_tricks and me >= 0:
            deal["own_tricks"] = {"trick_points": self.trick_points[me],
                                  "won_cards": [card_code(c) for c in cards_of(self.won[me])],
                                  "deal_points": self.deal_points(me)}
        return deal


def public_known_cards(d: TalonState, seat: int) -> int:
    """Bitmask of the cards in match seat ``seat``'s hand that every player knows from public
    events: a card taken up by exchange, the shown partner of a marriage, the face-up trump card
    drawn last."""
    known = 0
    for e in d.history:
        if e[0] == "exchange" and e[1] == seat:
            known |= 1 << e[3]
        elif e[0] == "marriage" and e[1] == seat:
            known |= (1 << (e[2] * 6 + 2)) | (1 << (e[2] * 6 + 3))
        elif e[0] == "draw" and e[1] == seat and e[2] >= 0:
            known |= 1 << e[2]
    return known & d.hands[d.seats.index(seat)]

"""The onlooker's view of a match (docs/RULES.md §14.3: what every player may know, and no more).

:func:`public_view` is what a spectator of a match is shown: the ``InformationSet`` message of a
seat that holds no cards (``seat`` -1), so that a page or a client renders a spectator exactly as
it renders a seat. It holds the public facts only: the seats, their hand sizes and tricks won, the
face-up trump card, the talon's size and state, the trick being played, the deal's full public
history (cards played, tricks, marriages shown, exchanges, closing, draws of the face-up card,
bids, contracts, kontra, cards laid away as a count), the marriages and the match score. Never a
card of any hand, the talon's face-down cards or their order, or a laid-away card; no own tricks
(a spectator has none) and no legal actions. Two states that differ only in those cards give
byte-identical public views (tested for every variant, ``tests/rules/test_playout.py`` and
``tests/rules/test_multiplayer.py``).
"""

from __future__ import annotations

from . import views as V
from .infoset import _shown_history, _talon_view, _with_match, history_views
from .state import DealState, MatchState

__all__ = ["SPECTATOR", "public_view"]

SPECTATOR = -1
"""The ``seat`` of a public view: nobody's seat."""


def public_view(m: MatchState, history: tuple[V.Event, ...] | None = None) -> V.InformationSet:
    """What anyone watching ``m`` may know (§14.3), as an ``InformationSet`` dict with ``seat``
    :data:`SPECTATOR`: ``deal.hand``, ``deal.laid_away`` and ``deal.laid_away_taken_up`` empty, no
    ``deal.own_tricks``, ``legal_actions`` empty; everything else as in every seat's information
    set (the service adds ``match_id``, ``version`` and the clocks). ``history``:
    :func:`~bummerl.rules.infoset.history_views` of ``m`` when the caller shares them; None = built
    here. Pure: reads ``m``, never changes it."""
    d = m.deal
    shown = history_views(m) if history is None else history
    if isinstance(d, DealState):  # a seat outside the deal's seats sees no hand and no own tricks (STK-SEAT-1)
        return _with_match(m, SPECTATOR, _talon_view(d, SPECTATOR, _shown_history(m), shown, m.num_seats), [])
    deal = d.view(0, m.deal_number, shown)  # a contract deal's view is a seat's: take out what is that seat's
    deal["hand"] = []
    deal["laid_away"] = []
    deal["laid_away_taken_up"] = []
    deal.pop("own_tricks", None)
    return _with_match(m, SPECTATOR, deal, [])

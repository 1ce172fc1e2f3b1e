"""The phases of the two-player deal (docs/RULES.md §1.7) and :class:`TalonState`, the shape of a
:class:`~bummerl.rules.deals.talon.TalonDeal` that its mixins are written against.

:class:`~bummerl.rules.deals.talon.TalonDeal` keeps its slots and its hot path (``step``,
``legal_actions``, ``copy``) in :mod:`.talon`; its information-set part
(:mod:`.talon_view`) and its public constructors for searches (:mod:`.talon_search`) are mixins
whose methods take a :class:`TalonState` as ``self`` (a protocol: the mixins need not import
:mod:`.talon`, and no import circle arises).

Level 2 of the engine stack (:mod:`bummerl.rules.deals`): imports :mod:`bummerl.rules.table`.
"""

from __future__ import annotations

from typing import Any, Protocol

from ..table.outcome import DealOutcome
from ..table.variant import Rules

__all__ = ["DRAW", "EXCHANGE_ON_CLOSE", "FOLLOW", "LEAD", "OVER", "PHASE_NAMES", "TalonState"]

LEAD, FOLLOW, DRAW, EXCHANGE_ON_CLOSE, OVER = range(5)
"""The phases of a two-player deal (``TalonDeal.phase``; also ``TalonDeal.LEAD`` ...)."""
PHASE_NAMES = ("lead", "follow", "draw", "exchange_on_close", "over")


class TalonState(Protocol):
    """The slots of a two-player deal and the derived facts its mixins read (the attributes of
    :class:`~bummerl.rules.deals.talon.TalonDeal` of the same names; every index a deal seat)."""

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

    @property
    def talon_size(self) -> int:
        """Talon size including the face-up trump card (DEF-TAL-1); frozen once closed."""

    @property
    def talon_state(self) -> str:
        """``"open"``, ``"closed"`` or ``"exhausted"``."""

    @property
    def trump_card(self) -> int:
        """The face-up trump card, or -1 once it is drawn or turned down by closing (§14.1)."""

    def deal_points(self, p: int) -> int:
        """Deal points (DEF-PTS-3) = trick points + counted marriages."""

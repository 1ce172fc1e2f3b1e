"""What the option tables (:mod:`bummerl.rules.table.behaviour`) and a variant's
``TalonRules.played_out`` hook read of a two-player deal: :class:`TalonFacts`, and of its
configured table: :class:`TableFacts` (the few option values the scoring reads; the whole table is
:class:`~bummerl.rules.table.variant.Rules`, which these functions never need). Protocols only, at
the bottom of level 1 of the engine stack, so that the configured table can name them without an
import circle.
"""

from __future__ import annotations

from typing import Protocol

__all__ = ["BehaviourFacts", "TableFacts", "TalonFacts"]


class BehaviourFacts(Protocol):
    """The behaviour a deal's scoring reads (:class:`~bummerl.rules.table.behaviour.Behaviour`)."""

    @property
    def undeclared_66_holder_wins(self) -> bool:
        """An exhausted deal goes to a holder of 66 who did not declare (OPEN-GEN-2 values)."""


class TableFacts(Protocol):
    """The option values a deal's scoring reads of its table (the attributes of
    :class:`~bummerl.rules.table.variant.Rules` of the same names)."""

    @property
    def schneider_threshold(self) -> int:
        """Deal points below which the loser is schneider (AT-SCORE-1)."""

    @property
    def draw_carry_point(self) -> bool:
        """A drawn deal carries a game point to the next one."""

    @property
    def behaviour(self) -> BehaviourFacts:
        """What the engine does for each enum option value."""


class TalonFacts(Protocol):
    """The public fields and scoring helpers of a two-player deal that the option tables
    (:mod:`bummerl.rules.table.behaviour`) and a variant's ``TalonRules.played_out`` read: deal
    seats 0 and 1 (:class:`bummerl.rules.deals.talon.TalonDeal` is the implementation)."""

    @property
    def rules(self) -> TableFacts:
        """The deal's configured table (a :class:`~bummerl.rules.table.variant.Rules`)."""
    tricks_won: list[int]
    trick_points: list[int]
    closed_by: int
    close_snapshot: tuple[int, int, int, bool]
    last_winner: int

    def deal_points(self, p: int) -> int:
        """Deal points of deal seat ``p`` (DEF-PTS-3)."""

    def table_points(self, loser: int, frozen: tuple[int, int, int] | None = None) -> int:
        """Game points won against ``loser`` by the variant's table (AT-SCORE-1)."""

    def last_trick_points(self, loser: int) -> int:
        """Game points of a deal won by the last trick (AT-SCORE-2)."""

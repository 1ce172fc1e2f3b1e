"""What the engine does for each value of an enum option (RULES.md §13.2), as tables.

Each table maps every value the engine implements to a constant or a small function. A table's
:class:`~bummerl.rules.table.variant.Rules` looks its values up once, when the variant is configured
(:func:`resolve`): a value without an entry raises :class:`InvalidOptionError` there, naming the
option, instead of falling through to some default branch in the middle of a deal. Adding a value
to an option's ``allowed`` set without a row here therefore fails at the first ``configure``.

The functions read a two-player deal through :class:`~bummerl.rules.table.facts.TalonFacts`
(its public fields and ``table_points``), so this level needs nothing of the deal classes above it
(:mod:`bummerl.rules.deals`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import NoReturn, TypeVar

from ..base.errors import InvalidOptionError
from .facts import TalonFacts

T = TypeVar("T")

PenaltyFn = Callable[[TalonFacts, int], int]
"""Game points for the innocent side of a false declaration by seat ``offender``."""


def _two_or_three(d: TalonFacts, offender: int) -> int:
    """AT-DECL-3, SAN-DECL-2 (OPEN-AT-6): 3 if the innocent side has no trick, else 2."""
    return 3 if not d.tricks_won[1 - offender] else 2


def _remaining_possible(d: TalonFacts, offender: int) -> int:
    """OPEN-HU2-7: what the innocent side could still have scored: 3 if the offender has no
    trick, 2 if his trick points are below ``schneider_threshold``, else 1."""
    if not d.tricks_won[offender]:
        return 3
    return 2 if d.trick_points[offender] < d.rules.schneider_threshold else 1


#: ``false_declaration_penalty``: None = a false declaration is illegal (OBI-DECL-1, OPEN-OBI-4).
FALSE_DECLARATION_PENALTY: dict[str, PenaltyFn | None] = {
    "reject": None,
    "flat2": lambda d, offender: 2,  # O66-DECL-4
    "two_or_three": _two_or_three,  # AT-DECL-3, SAN-DECL-2
    "max3": lambda d, offender: 3,  # HU2-DECL-2, OPEN-HU2-7
    "remaining_possible": _remaining_possible,  # OPEN-HU2-7 alternative
}

#: ``failed_close_three_if``: does a failed close give the opponent 3 game points (else 2)?
#: ``close_snapshot`` = (opponent's tricks, trick points, counted marriages, both had a trick)
#: at the moment of closing.
FAILED_CLOSE_THREE_IF: dict[str, Callable[[TalonFacts], bool]] = {
    "never": lambda d: False,  # O66-CLOSE-5
    "opponent_no_trick_at_close": lambda d: not d.close_snapshot[0],  # AT-CLOSE-4, OPEN-SAN-3
    "opponent_no_trick_at_end": lambda d: not d.tricks_won[1 - d.closed_by],  # OPEN-SAN-3 alternative
    "either_no_trick_at_close": lambda d: not d.close_snapshot[3],  # HU2-CLOSE-5
    "always": lambda d: True,  # OPEN-SAN-3 alternative
}

#: ``close_score_basis``: is a successful close scored on the opponent's state at closing?
CLOSE_SCORE_BASIS: dict[str, bool] = {
    "at_close": True,  # AT-CLOSE-3, OPEN-AT-4
    "at_end": False,  # O66-CLOSE-6, SAN-CLOSE-4, HU2-CLOSE-3
}

#: ``close_timing``: may the trick winner close before drawing (§1.7 step 4)?
CLOSE_TIMING: dict[str, bool] = {
    "after_draw": False,  # AT-CLOSE-2, OBI-CLOSE-1, HU2-CLOSE-2
    "before_or_after_draw": True,  # O66-CLOSE-2, SAN-CLOSE-1
}

#: ``closed_deal_end``: does the last trick decide a closed deal whose hands run out?
CLOSED_DEAL_END: dict[str, bool] = {
    "closer_threshold": False,  # AT-END-2, O66-END-3, SAN-END-3, HU2-END-2, OPEN-OBI-5
    "last_trick": True,  # OPEN-OBI-5 alternative
}

#: ``last_trick_win_points``: fixed game points of a deal won by the last trick; None = by the table.
LAST_TRICK_WIN_POINTS: dict[str, int | None] = {
    "fixed1": 1,  # AT-SCORE-2, OBI-SCORE-1 (OPEN-AT-5, OPEN-OBI-3)
    "by_table": None,  # HU2-END-1 (OPEN-HU2-2)
}

#: ``undeclared_66_at_end``: does an undeclared 66 beat the last-trick winner?
UNDECLARED_66_AT_END: dict[str, bool] = {
    "last_trick_wins": False,  # AT-END-1, OBI-END-1, HU2-END-1
    "holder_wins": True,  # OPEN-AT-5 alternative
}

#: ``dealer_rotation``: next dealer of two seats from (dealer, winner); winner -1 = drawn deal.
DEALER_ROTATION: dict[str, Callable[[int, int], int]] = {
    "alternate": lambda dealer, winner: 1 - dealer,  # AT-DEAL-2 (OPEN-AT-8), HU2-SEAT-1
    "clockwise": lambda dealer, winner: 1 - dealer,  # with two seats the same as alternate
    # OPEN-O66-3, SAN-DEAL-2: the winner deals; the same dealer again after a drawn deal
    "winner_deals": lambda dealer, winner: dealer if winner < 0 else winner,
    "loser_deals": lambda dealer, winner: dealer if winner < 0 else 1 - winner,
}

#: Every table, by option name (for introspection and tests).
TABLES: dict[str, Mapping[str, object]] = {
    "false_declaration_penalty": FALSE_DECLARATION_PENALTY,
    "failed_close_three_if": FAILED_CLOSE_THREE_IF,
    "close_score_basis": CLOSE_SCORE_BASIS,
    "close_timing": CLOSE_TIMING,
    "closed_deal_end": CLOSED_DEAL_END,
    "last_trick_win_points": LAST_TRICK_WIN_POINTS,
    "undeclared_66_at_end": UNDECLARED_66_AT_END,
    "dealer_rotation": DEALER_ROTATION,
}


def pick(option: str, value: object, table: Mapping[str, T]) -> T:
    """``table[value]``, or :class:`InvalidOptionError` naming ``option`` and the implemented
    values when the engine has no behaviour for ``value``."""
    try:
        return table[value]  # type: ignore[index]
    except (KeyError, TypeError):
        raise InvalidOptionError(
            option, f"{value!r} is not implemented by the engine; implemented: {', '.join(table)}"
        ) from None


@dataclass(frozen=True, slots=True)
class Behaviour:
    """The looked-up behaviour of one configured table (see the tables for the rule ids)."""

    penalty: PenaltyFn | None
    failed_close_three: Callable[[TalonFacts], bool]
    close_scored_at_closing: bool
    close_before_draw: bool
    closed_deal_by_last_trick: bool
    last_trick_points: int | None
    undeclared_66_holder_wins: bool
    next_dealer: Callable[[int, int], int]


def resolve(values: Mapping[str, object]) -> Behaviour:
    """Look every enum option of ``values`` (name -> value, the whole talon catalogue:
    :data:`bummerl.rules.table.options.TALON` or ``TALON_ROTATION``) up in its table.

    Raises :class:`InvalidOptionError` for a value the engine does not implement.
    """

    def get(name: str, table: Mapping[str, T]) -> T:
        return pick(name, values[name], table)

    return Behaviour(
        penalty=get("false_declaration_penalty", FALSE_DECLARATION_PENALTY),
        failed_close_three=get("failed_close_three_if", FAILED_CLOSE_THREE_IF),
        close_scored_at_closing=get("close_score_basis", CLOSE_SCORE_BASIS),
        close_before_draw=get("close_timing", CLOSE_TIMING),
        closed_deal_by_last_trick=get("closed_deal_end", CLOSED_DEAL_END),
        last_trick_points=get("last_trick_win_points", LAST_TRICK_WIN_POINTS),
        undeclared_66_holder_wins=get("undeclared_66_at_end", UNDECLARED_66_AT_END),
        next_dealer=get("dealer_rotation", DEALER_ROTATION),
    )


def _no_talon_deal(*args: object) -> NoReturn:
    raise TypeError("this variant has no two-player trick-and-draw deal")


#: ``Rules.behaviour`` of a contract game, whose deals read their options themselves (their
#: catalogues lack the talon deal's options): calling one of its functions is a programming error.
NO_BEHAVIOUR = Behaviour(None, _no_talon_deal, False, False, False, None, False, _no_talon_deal)


def validate(values: Mapping[str, object]) -> Behaviour:
    """The behaviour of a table without a talon deal (a contract game): every tabled option that
    ``values`` has is still looked up, so that a value without a row fails at configure time as
    in :func:`resolve` (e.g. ``false_declaration_penalty``, ``undeclared_66_at_end``); returns
    :data:`NO_BEHAVIOUR`. Raises :class:`InvalidOptionError`."""
    for name, table in TABLES.items():
        if name in values:
            pick(name, values[name], table)
    return NO_BEHAVIOUR

"""How deals and matches end (docs/RULES.md §1.7, §1.8, SRV-5): the end reasons as enums, the
:class:`DealOutcome` every deal class ends with, the :class:`DealSummary` a deal gives the match,
the :class:`DealResult` the match records, and the :class:`Settlement` a match plan returns.

End reasons are :class:`enum.StrEnum` members (as python-chess's ``Termination``): each member *is*
its string (``DealEnd.DECLARED == "declared"``), so snapshots, results, JSON and the proto's
``reason`` strings keep exactly the values they had when the reasons were free strings.

Level 1 of the engine stack (:mod:`bummerl.rules.table`): imports only :mod:`bummerl.rules.base`.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any, NamedTuple


class DealEnd(StrEnum):
    """Why a deal ended (``DealOutcome.reason``, ``DealResult.reason``)."""

    #: 66 declared correctly (DEF-DECL-1, AT-DECL-1, BS-DECL-1, HU3S-DECL-1).
    DECLARED = "declared"
    #: A declaration without 66 (AT-DECL-3, O66-DECL-4, SAN-DECL-2, HU2-DECL-2).
    FALSE_DECLARATION = "false_declaration"
    #: The last trick decided an exhausted deal (AT-END-1, OBI-END-1, HU2-END-1, BS/HU3S last trick).
    LAST_TRICK = "last_trick"
    #: An exhausted deal decided on points (O66-END-1..3, SAN-END-2, OPEN-AT-5 ``holder_wins``).
    PLAYED_OUT = "played_out"
    #: Equal totals, no winner (SAN-END-2, O66-END-2).
    DRAWN = "drawn"
    #: The closer reached 66 (AT-CLOSE-3, O66-CLOSE-6, SAN-CLOSE-4, HU2-CLOSE-3).
    CLOSED_SUCCESS = "closed_success"
    #: The closer failed (AT-CLOSE-4, O66-CLOSE-5, SAN-CLOSE-5, HU2-CLOSE-5).
    CLOSED_FAILURE = "closed_failure"
    #: A seat lost the deal on time (SRV-5, timeout policy ``forfeit-deal``).
    TIMEOUT = "timeout"
    #: The declarer made the contract (BS-SCORE-1, TS-SCORE-1, HU3S-CON-9).
    CONTRACT_MADE = "contract_made"
    #: The contract was defeated (BS-SCORE-1, TS-SCORE-1, HU3S-CON-9).
    CONTRACT_DEFEATED = "contract_defeated"
    #: A contract settled without play (BS-CON-9).
    SETTLED = "settled"
    #: Four jacks shown (HU3S-CON-1 négy alsó).
    FOUR_JACKS = "four_jacks"


class MatchEnd(StrEnum):
    """Why a match ended (``MatchState.end_reason``; ``""`` while it runs)."""

    #: A seat or team reached the target (AT-MATCH-1, STK-MATCH-1, BS-MATCH-1, ...).
    TARGET_REACHED = "target_reached"
    #: The ladder's deal limit (SRV-5 ``max_deals``).
    DEAL_LIMIT = "deal_limit"
    #: The server ended it because of a seat (SRV-5, :meth:`MatchState.concede`).
    RESIGNED = "resigned"
    TIMEOUT = "timeout"
    ILLEGAL = "illegal"
    DISCONNECT = "disconnect"
    #: The idle limit: no winner.
    ABANDONED = "abandoned"


END_REASONS: tuple[MatchEnd, ...] = (
    MatchEnd.RESIGNED, MatchEnd.TIMEOUT, MatchEnd.ILLEGAL, MatchEnd.DISCONNECT, MatchEnd.ABANDONED,
)
"""Reasons a match can end before its target (:meth:`MatchState.concede`); SRV-5 leaves these to
the server: ``abandoned`` has no winner, the others are won by the other seat."""


class DealOutcome(NamedTuple):
    """How a deal ended.

    ``winner``: for a two-player deal the winning **deal** seat (-1 = drawn deal); for a contract
    deal the winning team (:attr:`VariantSpec.teams`, a seat in games without fixed teams; -1 when
    several seats are credited without a single winner, e.g. both defenders). ``game_points``: the
    value the deal was won for (before carried points and credits to other seats). ``reason``: a
    :class:`DealEnd`. ``carry``: game points carried to the next decided deal (O66-SCORE-2).
    ``awards``: game points per **match** seat for deals that credit seats themselves (contract
    deals: TS-SCORE-1, HU3S-CON-9, BS-SCORE-1); empty for two-player deals, whose credit the match
    plan decides (STK-SCORE-1, HU3R-SCORE-1)."""

    winner: int
    game_points: int
    reason: DealEnd
    carry: int = 0
    awards: tuple[int, ...] = ()


class DealSummary(NamedTuple):
    """Per-seat facts of a finished deal for its :class:`DealResult` (index = match seat; seats
    that did not play show 0): deal points (DEF-PTS-3, a side's total for each of its members),
    tricks won, the DEF-PTS-6 flags of the losing side, and for contract deals the contract name,
    declarer seat and multiplier (1, 2, 4, 8, 16)."""

    deal_points: tuple[int, ...]
    tricks_won: tuple[int, ...]
    schwarz: bool
    deal_schneider: bool
    contract: str = ""
    declarer: int = -1
    multiplier: int = 1


class DealResult(NamedTuple):
    """Result of one finished deal as the match records it (DEF-PTS-6 flags kept apart).

    Per-seat tuples are indexed by match seat (a seat that did not play shows 0). ``game_points``
    are the credits of the deal (the winner's entry includes carried points); ``winner`` is the
    winning seat, or team in team games, -1 for a drawn deal or several credited seats.
    ``deal_points`` and ``tricks_won`` are the state at the end of the deal; ``schwarz`` /
    ``deal_schneider`` describe the loser on the basis his game points were read from
    (:meth:`TalonDeal.result_flags`). ``contract``, ``declarer`` and ``multiplier`` describe a
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
        """The fields as plain data (the ``DealResult`` message's shape): lists for the tuples and
        the reason's string for the :class:`DealEnd` member, so that views, records and the
        encoders' memos (keyed by ``marshal``, built-in types only) see no engine type."""
        d = self._asdict()
        for k in ("game_points", "deal_points", "tricks_won", "seats"):
            d[k] = list(d[k])
        d["reason"] = str(d["reason"])
        return d


class Settlement(NamedTuple):
    """What a match plan decides after a finished deal (:meth:`MatchPlan.settle`); the match
    applies it (:meth:`MatchState._finish_deal`) and the plan never writes into the match.

    ``result``: the deal's :class:`DealResult` to record. ``game_points``, ``sets_won``,
    ``carried``: the match's scores after the deal (absolute, per seat). ``placements`` and
    ``playoff``: the places so far and the play-off state (``{"groups": [[place, [seat, ...]],
    ...], "pair": [a, b]}``, None when no play-off runs). ``end``: set when the match is over now
    (with ``placements`` final); ``match_schneider``: the match was won with the loser at 0
    (AT-MATCH-2). ``next_deal``: makes the deal to play next (a play-off deal included) when
    called with no argument; None when the match is over. When the deal neither ends the match nor
    is or starts a play-off, the match first checks its SRV-5 deal limit (``max_deals``), which may
    end it instead: then ``next_deal`` is never called (no deck is shuffled for a deal nobody plays).
    The match calls it, if at all, before it applies anything of the settlement, so that the plan
    reads the match as it settled it.
    """

    result: DealResult
    game_points: tuple[int, ...]
    sets_won: tuple[int, ...]
    carried: int
    placements: tuple[int, ...]
    playoff: dict[str, Any] | None
    end: MatchEnd | None
    match_schneider: bool
    next_deal: Callable[[], Any] | None

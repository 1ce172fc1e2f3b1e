"""What the levels of the engine promise each other (docs/RULES.md §1.7, §1.8): the :class:`Deal`
protocol every deal class offers the match, and the :class:`MatchPlan` protocol with the
:class:`MatchFacts` a plan reads of the match (the :class:`TalonFacts` the option tables read of a
two-player deal are in :mod:`.facts`, below the configured table, and re-exported here).

Two kinds of deal exist: the two-player trick-and-draw deal
(:class:`bummerl.rules.deals.talon.TalonDeal`, §1.7), also played by the active pair of
Stockschnapsen and the Hungarian rotation game, and the contract deals of the three- and
four-player games (§1.8, :mod:`bummerl.rules.deals.contract`).
:class:`bummerl.rules.match.state.MatchState` drives any of them through :class:`Deal` and never
looks inside:

* seats are **match seats** everywhere a deal talks to the outside (``acting``, ``dealer_seat``,
  the history tuples, ``view``, ``outcome.awards``); a deal played by some of the seats only (the
  sitting-out player, STK-SEAT-1, HU3R-INH-1) knows its ``seats``;
* ``history`` is the deal's public record as tuples whose first element is the event type
  (:func:`bummerl.rules.base.events.event_view` makes them ``Event`` dicts); it never holds a card
  that is not public when the event happens;
* ``view(seat, deal_number, history, num_seats)`` is the ``deal`` part of a seat's information
  set (§14): the seat's own hand and whatever else it may see, a
  :class:`bummerl.rules.base.views.DealView`.

Level 1 of the engine stack (:mod:`bummerl.rules.table`): imports only :mod:`bummerl.rules.base`
and this level.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from ..base import views as V
from .facts import TalonFacts
from .outcome import DealOutcome, DealSummary, Settlement
from .variant import Rules

__all__ = ["Deal", "MatchFacts", "MatchPlan", "TalonFacts"]


class Deal(Protocol):
    """A deal as the match drives it (``seats``, ``acting``, ``dealer_seat``, ``winner_seat`` and
    the history in match seats). Built with the class method ``new(rules, deck, dealer)``
    (``deck``: card ids, top first); two-player deals also take the match ``seats`` they are
    played by (``TalonDeal.new(rules, deck, dealer, seats, num_seats)``)."""

    rules: Rules
    seats: tuple[int, ...]
    history: list[tuple[Any, ...]]

    @property
    def outcome(self) -> DealOutcome | None:
        """Set when the deal has ended."""

    @property
    def acting(self) -> int:
        """Match seat to act; -1 once the deal is over."""

    @property
    def dealer_seat(self) -> int:
        """Match seat of the dealer."""

    @property
    def over(self) -> bool:
        """The deal has ended (``outcome`` is set)."""

    @property
    def phase_name(self) -> str:
        """Phase for the information set: ``lead``, ``follow``, ``draw``, ``exchange_on_close``,
        ``bidding``, ``over`` (the ``Phase`` proto enum, lower case without prefix)."""

    def winner_seat(self) -> int:
        """The winner as :class:`DealResult` records it: a match seat for two-player deals, the
        outcome's winner (team or seat) for contract deals; -1 for none."""

    def legal_actions(self) -> list[int]:
        """Legal action ids of the seat to act, ascending; empty when over."""

    def step(self, a: int) -> None:
        """Apply a legal action in place (the match checks legality first)."""

    def copy(self) -> Any:
        """An independent copy (lists copied; immutable parts shared)."""

    def summary(self, n: int) -> DealSummary:
        """Per-seat facts of the finished deal for ``n`` match seats (see :class:`DealSummary`)."""

    def forfeit(self, seat: int) -> None:
        """Match seat ``seat`` loses the deal on time (SRV-5, timeout policy ``forfeit-deal``)."""

    def view(self, seat: int, deal_number: int, history: Sequence[V.Event] | None, num_seats: int) -> V.DealView:
        """The ``deal`` part of ``seat``'s information set in a match of ``num_seats`` seats
        (``history``: the views of this deal's history when the caller shares them; None = built
        by the deal). ``phase``, ``to_act`` and ``seats`` are set by the match's information set."""

    def to_snapshot(self) -> dict[str, Any]:
        """JSON-ready state (hidden cards included: never sent to a player)."""


class MatchFacts(Protocol):
    """What a :class:`MatchPlan` reads of the match (:class:`bummerl.rules.match.state.MatchState`);
    a plan never writes into it."""

    rules: Rules
    seed: int
    first_dealer: int
    num_seats: int
    deal_number: int
    game_points: list[int]
    sets_won: list[int]
    carried: int
    placements: list[int]
    playoff: dict[str, Any] | None

    def deck_for(self, n: int, rules: Rules | None = None) -> list[int] | tuple[int, ...]:
        """Deck order of deal ``n`` (``rules``: the deck of a play-off deal of another variant)."""


class MatchPlan(Protocol):
    """The match-level half of a variant (``VariantSpec.plan``; the deal class is the other half):
    who plays each deal, who is credited, when and how the match ends
    (:mod:`bummerl.rules.match.plans`)."""

    #: Variant id of play-off deals (None: the match's own two-player deal).
    playoff_variant: str | None
    #: Places decided by play-off deals when tied.
    playoff_places: tuple[int, ...]

    def first_deal(self, m: MatchFacts) -> Deal:
        """Deal 0 of the match."""

    def settle(self, m: MatchFacts, d: Deal) -> Settlement:
        """The match after the finished deal ``d`` (deal number ``m.deal_number``), as a
        :class:`Settlement` the match applies."""

    def credit(self, m: MatchFacts, d: Deal) -> tuple[int, ...]:
        """Game points per match seat credited for the finished deal ``d`` (not a play-off deal,
        which is credited nothing): the ``game_points`` of the :class:`DealResult` that
        :meth:`settle` records, without settling."""


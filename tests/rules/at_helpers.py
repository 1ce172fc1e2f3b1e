"""Helpers for the Austrian contract-game tests (``bauernschnapsen``, ``talonschnapsen``).

Importing this module imports the two variant modules (which register their variants and add
their options to the catalogue) and then takes both variants out of the registry and their
options out of the catalogue again (the specs keep their options): until the generic match (``MatchState`` over deal classes) lands and the variants join
:mod:`bummerl.rules.variants`, the generic two-player tests that iterate over every registered
variant or every catalogue option must not see them. These tests use the specs directly.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from bummerl.rules import variant as _V
from bummerl.rules.actions import action_to_string, parse_action
from bummerl.rules.cards import card_code, cards_of, parse_card
from bummerl.rules.contract import MULTI_PLAYER_OPTIONS
from bummerl.rules.contract_at import AT_OPTIONS, BauernschnapsenDeal
from bummerl.rules.variant import VariantSpec
from bummerl.rules.variants import bauernschnapsen, talonschnapsen  # registers both

for _spec in (bauernschnapsen.SPEC, talonschnapsen.SPEC):
    _V._REGISTRY.pop(_spec.id, None)
for _o in MULTI_PLAYER_OPTIONS + AT_OPTIONS:
    _V.CATALOGUE.pop(_o.name, None)

BS: VariantSpec = bauernschnapsen.SPEC
TS: VariantSpec = talonschnapsen.SPEC


def deal(spec: VariantSpec, hands: Sequence[Sequence[str]], dealer: int | None = None, talon: Sequence[str] = (),
         **options: Any) -> BauernschnapsenDeal:
    """A deal of ``spec`` dealing exactly ``hands`` (first three listed = first batch) and
    ``talon``; ``dealer`` defaults to the last seat, so that seat 0 is Vorhand."""
    rules = spec.configure(options)
    n = spec.num_players
    dealer = n - 1 if dealer is None else dealer
    cls = spec.deal_class
    deck = cls.arrange(rules, dealer, hands, talon)
    d: BauernschnapsenDeal = cls.new(rules, deck, dealer)
    return d


def act(d: BauernschnapsenDeal, *texts: str) -> BauernschnapsenDeal:
    """Apply actions by text (``"QH"`` alone means ``"play QH"``)."""
    for t in texts:
        d.step(parse_action(f"play {t}" if len(t) == 2 else t))
    return d


def legal(d: BauernschnapsenDeal) -> set[str]:
    return {action_to_string(a) for a in d.legal_actions()}


def hand(d: BauernschnapsenDeal, seat: int) -> set[str]:
    return {card_code(c) for c in cards_of(d.hands[seat])}


def codes(cards: Iterable[int]) -> list[str]:
    return [card_code(c) for c in cards]


def ids(cs: Iterable[str]) -> list[int]:
    return [parse_card(c) for c in cs]

"""Helpers for the Austrian contract-game tests (``bauernschnapsen``, ``talonschnapsen``).

Deals are built at deal level from explicit hands (:meth:`BauernschnapsenDeal.arrange`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from bummerl.rules import VariantSpec
from bummerl.rules.base.actions import action_to_string, parse_action
from bummerl.rules.base.cards import card_code, cards_of, parse_card
from bummerl.rules.deals.contract_at import BauernschnapsenDeal
from bummerl.rules.variants import bauernschnapsen, talonschnapsen

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

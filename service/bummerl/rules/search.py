"""What search-based players need beyond the facade (the SDK's ``strong`` bot and its endgame and
contract searches): the two-player deal's phase numbers, the trick rules, the contract deal class
and the card bit masks. Public and re-exported by the facade as ``bummerl.rules.search``, so that
a bot imports the engine through :mod:`bummerl.rules` only (issue 23).

Phases of :class:`~bummerl.rules.TalonDeal` (its ``phase``): ``LEAD``, ``FOLLOW``, ``DRAW``,
``EXCHANGE_ON_CLOSE``, ``OVER``. Trick rules: :func:`legal_follow` (DEF-PLAY-STRICT and the contract
games' follow rules), :func:`winning_card`, ``TEN_HIGH``. Cards as bits: ``BIT``, ``SUIT_MASK``,
``HIGHER``, ``KING``, ``QUEEN``, :func:`cards_of`. A copy for a search: ``TalonDeal.search_copy()``
and ``ContractDeal.search_copy()``; a position to search: ``TalonDeal.from_public(...)`` (a new
deal) or ``TalonDeal.set_position(...)`` (a scratch copy moved in place). A search never assigns a
deal's fields (tests/clients/test_sdk_uses_the_facade.py).
"""

from __future__ import annotations

from .base.cards import BIT, HIGHER, KING, QUEEN, SUIT_MASK, cards_of
from .base.tricks import TEN_HIGH, legal_follow, winning_card
from .deals.contract import VOID_MUST_TRUMP_TABLE, ContractDeal
from .deals.talon import DRAW, EXCHANGE_ON_CLOSE, FOLLOW, LEAD, OVER

__all__ = [
    "BIT", "DRAW", "EXCHANGE_ON_CLOSE", "FOLLOW", "HIGHER", "KING", "LEAD", "OVER", "QUEEN", "SUIT_MASK", "TEN_HIGH",
    "VOID_MUST_TRUMP_TABLE", "ContractDeal", "cards_of", "legal_follow", "winning_card",
]

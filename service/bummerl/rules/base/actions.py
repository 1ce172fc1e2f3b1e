"""Action ids, text forms and struct forms (docs/DESIGN.md §2). Stable across variants.

The action space is dense: every id in ``0 .. NUM_ACTIONS - 1`` is an action.

======  ==================  =================================================================
id      text                meaning
======  ==================  =================================================================
0-23    ``play QH``         lead or follow with a card (card id = suit * 6 + rank)
24-31   ``marriage KH``     announce the marriage of a suit (20/40) and lead its K or Q:
                            ``24 + suit * 2`` leads the King, ``+ 1`` the Queen
32-35   ``announce H``      announce a marriage without leading yet (then lead its K/Q or
                            declare: OPEN-GEN-4 ``declare_on_marriage``, OPEN-GEN-5)
36      ``exchange``        trump exchange (DEF-TAL-4)
37      ``close``           close the talon (DEF-TAL-3)
38      ``declare``         declare 66 (DEF-DECL-1)
39      ``draw``            after a won trick: draw without closing (close_timing)
40      ``pass``            decline the exchange offered after the opponent's close
                            (exchange_on_opponent_close); in the contract games: pass in the
                            auction ("weiter") or decline to kontra
41-44   ``trump H``         name the trump suit (BS-DEAL-2, TS-DEAL-1, HU3S-DEAL-2)
45-68   ``discard QH``      lay a card away (TS-TAL-1, HU3S-TAL-1, HU3S-KON-2): 45 + card id
69-84   ``bid gang``        announce a contract, by name (:data:`CONTRACTS`): 69 + index
85-88   ``kontra``          raise the multiplier: ``kontra`` x2, ``rekontra`` x4, ``subkontra``
                            x8, ``mordkontra`` x16 (BS-KON-1, HU3S-KON-1)
======  ==================  =================================================================

Each variant offers a subset of these kinds (:attr:`bummerl.rules.table.variant.VariantSpec.action_kinds`);
an id of another kind is never legal there and its text is refused by :func:`parse_action` with
``kinds`` given.

Every action round-trips ``id <-> text <-> struct``:

>>> marriage_id(parse_card("QH"))
29
>>> action_to_string(29), parse_action("marriage qh")
('marriage QH', 29)
>>> action_struct(parse_action("play 10h"))
{'kind': 'play', 'card': 'TH'}
"""

from __future__ import annotations

from typing import Any

from .cards import SUITS, card_code, parse_card, parse_suit
from .errors import InvalidActionError

PLAY = 0
MARRIAGE = 24
ANNOUNCE = 32
EXCHANGE = 36
CLOSE = 37
DECLARE = 38
DRAW = 39
PASS = 40
TRUMP = 41
DISCARD = 45
BID = 69
KONTRA = 85

#: Contract names of ``bid NAME`` (ids ``BID + index``; never reorder, only append). Austrian
#: (§9, §10) then Hungarian (§11, §12) contracts; "4 alsó" is written ``negyalso``.
CONTRACTS: tuple[str, ...] = (
    "bettler", "schnapser", "gang", "zehnerloch", "bauernschnapser", "kontraschnapser", "farbenring",
    "kontrabauernschnapser", "herrenschnapser",
    "mehet", "snapszer", "kilences", "paraszt", "negyalso", "ellensnapszer", "ellenparaszt",
)
#: Multiplier calls by level 1..4 (x2, x4, x8, x16); id ``KONTRA + level - 1``.
KONTRA_CALLS: tuple[str, ...] = ("kontra", "rekontra", "subkontra", "mordkontra")
NUM_ACTIONS = KONTRA + len(KONTRA_CALLS)

#: Every action kind, in id order.
KINDS: tuple[str, ...] = (
    "play", "marriage", "announce", "exchange", "close", "declare", "draw", "pass", "trump", "discard", "bid",
    *KONTRA_CALLS,
)
#: The kinds of the two-player trick-and-draw games (§1.7).
TALON_KINDS: frozenset[str] = frozenset(("play", "marriage", "announce", "exchange", "close", "declare", "draw", "pass"))


def marriage_id(c: int) -> int:
    """Action id of "announce the marriage of c's suit and lead c" (c a King or Queen)."""
    return MARRIAGE + (c // 6) * 2 + (c % 6 - 2)


def marriage_card(a: int) -> int:
    """The card led by marriage action ``a`` (inverse of :func:`marriage_id`)."""
    k = a - MARRIAGE
    return (k // 2) * 6 + 2 + (k & 1)

_SIMPLE = {EXCHANGE: "exchange", CLOSE: "close", DECLARE: "declare", DRAW: "draw", PASS: "pass"}
_SIMPLE_IDS = {v: k for k, v in _SIMPLE.items()}


def check_id(a: object) -> int:
    """``a`` as an action id; raises :class:`InvalidActionError` outside ``0..NUM_ACTIONS-1``."""
    if isinstance(a, bool) or not isinstance(a, int) or not 0 <= a < NUM_ACTIONS:
        raise InvalidActionError(f"not an action id: {a!r} (0..{NUM_ACTIONS - 1})")
    return a


def action_kind(a: int) -> str:
    """One of :data:`KINDS`: ``play``, ``marriage``, ``announce``, ``exchange``, ``close``,
    ``declare``, ``draw``, ``pass``, ``trump``, ``discard``, ``bid`` or a kontra call."""
    a = check_id(a)
    if a < MARRIAGE:
        return "play"
    if a < ANNOUNCE:
        return "marriage"
    if a < EXCHANGE:
        return "announce"
    if a < TRUMP:
        return _SIMPLE[a]
    if a < DISCARD:
        return "trump"
    if a < BID:
        return "discard"
    if a < KONTRA:
        return "bid"
    return KONTRA_CALLS[a - KONTRA]


def bid_id(name: str) -> int:
    """Action id of ``bid NAME`` (a name of :data:`CONTRACTS`, any case); raises InvalidActionError."""
    try:
        return BID + CONTRACTS.index(name.lower())
    except ValueError:
        raise InvalidActionError(f"not a contract: {name!r} (known: {', '.join(CONTRACTS)})") from None


def bid_name(a: int) -> str:
    """Contract name of a ``bid`` action id (inverse of :func:`bid_id`)."""
    return CONTRACTS[a - BID]


def action_to_string(a: int) -> str:
    """Text form of an action id, e.g. ``"play QH"``, ``"marriage KH"``, ``"close"``."""
    kind = action_kind(a)
    if kind == "play":
        return f"play {card_code(a)}"
    if kind == "marriage":
        return f"marriage {card_code(marriage_card(a))}"
    if kind == "announce":
        return f"announce {SUITS[a - ANNOUNCE]}"
    if kind == "trump":
        return f"trump {SUITS[a - TRUMP]}"
    if kind == "discard":
        return f"discard {card_code(a - DISCARD)}"
    if kind == "bid":
        return f"bid {bid_name(a)}"
    return kind


HIDDEN_KINDS: frozenset[str] = frozenset({"discard"})
"""Kinds of action whose card only the acting seat sees: a card laid away face down (TS-TAL-1,
HU3S-TAL-1, HU3S-KON-2). Onlookers and the other seats see the kind alone (RULES §14.3)."""


def public_action_string(a: int) -> str:
    """The text of action ``a`` as every seat and onlooker may see it while the match runs: the
    kind alone for a :data:`HIDDEN_KINDS` action (``"discard"``), else :func:`action_to_string`
    (``"play QH"``). Raises :class:`InvalidActionError` for a bad id."""
    kind = action_kind(a)
    return kind if kind in HIDDEN_KINDS else action_to_string(a)


_SUIT_WORDS = {"clubs": "C", "spades": "S", "hearts": "H", "diamonds": "D"}


def parse_action(text: str, kinds: frozenset[str] | None = None) -> int:
    """Action id from its text form (case-insensitive). ``kinds`` (a variant's
    :attr:`~bummerl.rules.table.variant.VariantSpec.action_kinds`) refuses the kinds of other variants.
    Raises :class:`InvalidActionError`."""
    a = _parse_action(text)
    if kinds is not None and action_kind(a) not in kinds:
        raise InvalidActionError(f"{action_to_string(a)!r} is not an action of this variant (its kinds: {', '.join(k for k in KINDS if k in kinds)})")
    return a


def _parse_action(text: str) -> int:
    parts = text.strip().lower().split()
    if len(parts) == 1 and parts[0] in _SIMPLE_IDS:
        return _SIMPLE_IDS[parts[0]]
    if len(parts) == 1 and parts[0] in KONTRA_CALLS:
        return KONTRA + KONTRA_CALLS.index(parts[0])
    if len(parts) == 2:
        verb, arg = parts
        given = text.split()[1]  # as sent: a refusal quotes it in the client's own case
        if verb == "play":
            return PLAY + parse_card(given)
        if verb == "marriage":
            c = parse_card(given)
            if c % 6 not in (2, 3):
                raise InvalidActionError(f"a marriage leads its king or queen, not {arg.upper()!r}")
            return marriage_id(c)
        if verb == "announce":
            return ANNOUNCE + parse_suit(given)
        if verb == "trump":
            return TRUMP + parse_suit(_SUIT_WORDS.get(arg, given))
        if verb == "discard":
            return DISCARD + parse_card(given)
        if verb == "bid":
            return bid_id(given)
    raise InvalidActionError(
        f"not an action: {text!r} (expected 'play QH', 'marriage KH', 'announce H', "
        "'exchange', 'close', 'declare', 'draw', 'pass', 'trump H', 'discard QH', 'bid NAME' or 'kontra')"
    )


def action_struct(a: int) -> dict[str, Any]:
    """Struct form: ``{"kind": "play", "card": "QH"}``, ``{"kind": "announce", "suit": "H"}``..."""
    kind = action_kind(a)
    if kind == "play":
        return {"kind": kind, "card": card_code(a)}
    if kind == "marriage":
        return {"kind": kind, "card": card_code(marriage_card(a))}
    if kind == "announce":
        return {"kind": kind, "suit": SUITS[a - ANNOUNCE]}
    if kind == "trump":
        return {"kind": kind, "suit": SUITS[a - TRUMP]}
    if kind == "discard":
        return {"kind": kind, "card": card_code(a - DISCARD)}
    if kind == "bid":
        return {"kind": kind, "contract": bid_name(a)}
    return {"kind": kind}


def parse_struct(s: dict[str, Any]) -> int:
    """Inverse of :func:`action_struct`. Raises :class:`InvalidActionError`."""
    kind = s.get("kind")
    if kind in ("play", "marriage", "discard"):
        return parse_action(f"{kind} {s.get('card', '')}")
    if kind in ("announce", "trump"):
        return parse_action(f"{kind} {s.get('suit', '')}")
    if kind == "bid":
        return parse_action(f"bid {s.get('contract', '')}")
    if isinstance(kind, str):
        return parse_action(kind)
    raise InvalidActionError(f"not an action struct: {s!r}")

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
                            (exchange_on_opponent_close)
======  ==================  =================================================================

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
NUM_ACTIONS = 41


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
    """``play``, ``marriage``, ``announce``, ``exchange``, ``close``, ``declare``, ``draw`` or ``pass``."""
    a = check_id(a)
    if a < MARRIAGE:
        return "play"
    if a < ANNOUNCE:
        return "marriage"
    if a < EXCHANGE:
        return "announce"
    return _SIMPLE[a]


def action_to_string(a: int) -> str:
    """Text form of an action id, e.g. ``"play QH"``, ``"marriage KH"``, ``"close"``."""
    kind = action_kind(a)
    if kind == "play":
        return f"play {card_code(a)}"
    if kind == "marriage":
        return f"marriage {card_code(marriage_card(a))}"
    if kind == "announce":
        return f"announce {SUITS[a - ANNOUNCE]}"
    return kind


def parse_action(text: str) -> int:
    """Action id from its text form (case-insensitive). Raises :class:`InvalidActionError`."""
    parts = text.strip().lower().split()
    if len(parts) == 1 and parts[0] in _SIMPLE_IDS:
        return _SIMPLE_IDS[parts[0]]
    if len(parts) == 2:
        verb, arg = parts
        if verb == "play":
            return PLAY + parse_card(arg)
        if verb == "marriage":
            c = parse_card(arg)
            if c % 6 not in (2, 3):
                raise InvalidActionError(f"a marriage leads its king or queen, not {arg.upper()!r}")
            return marriage_id(c)
        if verb == "announce":
            return ANNOUNCE + parse_suit(arg)
    raise InvalidActionError(
        f"not an action: {text!r} (expected 'play QH', 'marriage KH', 'announce H', "
        "'exchange', 'close', 'declare', 'draw' or 'pass')"
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
    return {"kind": kind}


def parse_struct(s: dict[str, Any]) -> int:
    """Inverse of :func:`action_struct`. Raises :class:`InvalidActionError`."""
    kind = s.get("kind")
    if kind in ("play", "marriage"):
        return parse_action(f"{kind} {s.get('card', '')}")
    if kind == "announce":
        return parse_action(f"announce {s.get('suit', '')}")
    if isinstance(kind, str):
        return parse_action(kind)
    raise InvalidActionError(f"not an action struct: {s!r}")

"""Cards as small ints, hands as bitmasks (DEF-CARD-1..4).

A card id is ``suit * 6 + rank`` with suits ``C S H D`` = 0..3 (DEF-CARD-1) and ranks
``A T K Q J 9`` = 0..5 in NORMAL strength order, strongest first (DEF-CARD-4), so a *lower* rank
index beats a higher one within a suit. A hand is an ``int`` bitmask with bit ``card`` set.

>>> card_code(parse_card("qh"))
'QH'
>>> parse_card("10S") == parse_card("TS")
True
>>> [card_code(c) for c in cards_of(mask_of([parse_card("AH"), parse_card("9C")]))]
['9C', 'AH']
"""

from __future__ import annotations

from .errors import InvalidActionError

SUITS = "CSHD"
RANKS = "ATKQJ9"
C, S, H, D = 0, 1, 2, 3
ACE, TEN, KING, QUEEN, JACK, NINE = 0, 1, 2, 3, 4, 5
NUM_CARDS = 24

#: Card points by rank index, DEF-CARD-3 (the 9 is worth 0 unless option ``nine_value`` says 2).
RANK_POINTS: tuple[int, ...] = (11, 10, 4, 3, 2, 0)

#: Local names of suits and ranks (DEF-CARD-1, DEF-CARD-2), by language tag.
SUIT_NAMES: dict[str, tuple[str, str, str, str]] = {
    "en": ("clubs", "spades", "hearts", "diamonds"),
    "de": ("Eichel", "Grün", "Herz", "Schellen"),
    "hu": ("makk", "zöld", "piros", "tök"),
    "hr": ("tref", "pik", "herc", "karo"),
    "bg": ("спатия", "пика", "купа", "каро"),
}
RANK_NAMES: dict[str, tuple[str, str, str, str, str, str]] = {
    "en": ("ace", "ten", "king", "queen", "jack", "nine"),
    "de": ("Ass", "Zehner", "König", "Ober", "Unter", "Neuner"),
    "hu": ("ász", "tízes", "király", "felső", "alsó", "kilences"),
    "hr": ("as", "desetka", "kralj", "dama", "dečko", "devetka"),
    "bg": ("асо", "десетка", "поп", "дама", "вале", "деветка"),
}


def card(suit: int, rank: int) -> int:
    """Card id of ``(suit, rank)``; suit 0..3, rank 0..5."""
    return suit * 6 + rank


def suit_of(c: int) -> int:
    return c // 6


def rank_of(c: int) -> int:
    return c % 6


def card_code(c: int) -> str:
    """Notation of a card id: rank letter + suit letter, e.g. ``"QH"``, ``"TS"``, ``"9C"``."""
    return RANKS[c % 6] + SUITS[c // 6]


def parse_card(text: str) -> int:
    """Card id from ``"QH"`` / ``"qh"`` / ``"10H"``. Raises :class:`InvalidActionError` if malformed."""
    t = text.strip().upper()
    if t.startswith("10"):
        t = "T" + t[2:]
    if len(t) != 2 or t[0] not in RANKS or t[1] not in SUITS:
        raise InvalidActionError(f"not a card: {text!r} (expected rank A,T,K,Q,J,9 + suit C,S,H,D, e.g. 'QH')")
    return SUITS.index(t[1]) * 6 + RANKS.index(t[0])


def parse_suit(text: str) -> int:
    """Suit id from ``"H"`` (any case). Raises :class:`InvalidActionError` if malformed."""
    t = text.strip().upper()
    if len(t) != 1 or t not in SUITS:
        raise InvalidActionError(f"not a suit: {text!r} (expected one of C, S, H, D)")
    return SUITS.index(t)


def local_name(c: int, lang: str) -> str:
    """Localized name, e.g. ``local_name(parse_card('QH'), 'hu') == 'piros felső'``."""
    if lang == "en":
        return f"{RANK_NAMES['en'][c % 6]} of {SUIT_NAMES['en'][c // 6]}"
    return f"{SUIT_NAMES[lang][c // 6]} {RANK_NAMES[lang][c % 6]}"


BIT: tuple[int, ...] = tuple(1 << c for c in range(NUM_CARDS))
SUIT_MASK: tuple[int, ...] = tuple(0b111111 << (6 * s) for s in range(4))
#: HIGHER[c]: mask of the cards of c's suit that beat c (NORMAL order).
HIGHER: tuple[int, ...] = tuple(((1 << (c % 6)) - 1) << (6 * (c // 6)) for c in range(NUM_CARDS))

_LOW = tuple(tuple(c for c in range(12) if m >> c & 1) for m in range(1 << 12))
_HIGH = tuple(tuple(c + 12 for c in range(12) if m >> c & 1) for m in range(1 << 12))


def cards_of(mask: int) -> list[int]:
    """Card ids in a bitmask, ascending (table lookup: this is on the hot path)."""
    return [*_LOW[mask & 0xFFF], *_HIGH[mask >> 12]]


def mask_of(cards: list[int] | tuple[int, ...]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def deck_cards(ranks: int) -> tuple[int, ...]:
    """The deck of a variant: the first ``ranks`` ranks (5 = A..J, 20 cards; 6 = A..9, 24 cards)."""
    return tuple(card(s, r) for s in range(4) for r in range(ranks))

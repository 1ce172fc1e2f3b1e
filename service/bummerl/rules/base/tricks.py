"""Trick play for any number of players (docs/RULES.md §1.3, §1.4): the winner of a trick and the
legal cards of a follower under DEF-PLAY-STRICT / DEF-PLAY-NT, with the three- and four-player
options of OPEN-GEN-3.

A trick is a sequence of ``(seat, card)`` pairs in play order (the leader first). ``trump`` is a
suit id 0..3, or -1 in a no-trump contract. ``order`` is the rank order of the deal (DEF-CARD-4):
:data:`NORMAL` (A > T > K > Q > J > 9) or :data:`TEN_HIGH` (Zehnerloch: T > K > Q > J > A).
Cards are ids ``suit * 6 + rank`` (:mod:`bummerl.rules.base.cards`); hands are bitmasks.

>>> from .cards import parse_card as p, card_code
>>> trick_winner([(0, p("KH")), (1, p("AH")), (2, p("JC"))], trump=0, order=NORMAL)
2
>>> trick_winner([(0, p("AH")), (1, p("TH"))], trump=-1, order=TEN_HIGH)
1
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import BIT, SUIT_MASK, cards_of

#: Strength of each rank index (A T K Q J 9 = 0..5) in the NORMAL order: higher beats lower.
NORMAL: tuple[int, ...] = (6, 5, 4, 3, 2, 1)
#: DEF-CARD-4 TEN-HIGH (BS-CON-13, Zehnerloch): T > K > Q > J > A (> 9, absent in 20-card decks).
TEN_HIGH: tuple[int, ...] = (2, 6, 5, 4, 3, 1)


def beats(c: int, w: int, trump: int, order: Sequence[int]) -> bool:
    """Does card ``c`` beat the current winning card ``w`` (DEF-TRICK-1, DEF-TRICK-3)? A card of
    another suit than ``w`` beats it only if it is a trump and ``w`` is not."""
    if c // 6 == w // 6:
        return order[c % 6] > order[w % 6]
    return c // 6 == trump


def trick_winner(trick: Sequence[tuple[int, int]], trump: int, order: Sequence[int]) -> int:
    """Seat that wins ``trick`` (DEF-TRICK-1): the highest trump, else the highest card of the
    suit led. Raises IndexError for an empty trick."""
    seat, w = trick[0]
    for s, c in trick[1:]:
        if beats(c, w, trump, order):
            seat, w = s, c
    return seat


def winning_card(trick: Sequence[tuple[int, int]], trump: int, order: Sequence[int]) -> tuple[int, int]:
    """``(seat, card)`` currently winning the incomplete ``trick`` (DEF-TRICK-3)."""
    best = trick[0]
    for sc in trick[1:]:
        if beats(sc[1], best[1], trump, order):
            best = sc
    return best


def legal_follow(
    hand: int,
    trick: Sequence[tuple[int, int]],
    trump: int,
    order: Sequence[int],
    *,
    must_undertrump: bool = True,
    partner_winning: bool = False,
    must_head_over_partner: bool = True,
) -> list[int]:
    """Legal cards (ascending ids) of the next player to ``trick`` holding ``hand`` (bitmask).

    DEF-PLAY-STRICT (trump >= 0) or DEF-PLAY-NT (trump -1), in the order of RULES.md §1.4:
    1. holding the suit led: those cards, only the ones that beat the winning card if any do;
    2. void, holding trumps: the trumps that beat the winning card if any, else any trump, or
       every card when not ``must_undertrump`` (``void_must_trump = only_if_winning``, OPEN-GEN-3);
    3. else any card.
    ``partner_winning`` with ``must_head_over_partner = False`` (OPEN-GEN-3) lifts the obligation
    to head or over-trump when the winning card is the partner's; suit and trump obligations
    stay. An empty ``trick`` (a lead) allows every card (DEF-PLAY-LEAD).
    """
    if not trick:
        return cards_of(hand)
    led = trick[0][1] // 6
    _, w = winning_card(trick, trump, order)
    head = must_head_over_partner or not partner_winning
    same = hand & SUIT_MASK[led]
    if same:
        if head:
            higher = [c for c in cards_of(same) if beats(c, w, trump, order)]
            if higher:
                return higher
        return cards_of(same)
    if trump < 0:
        return cards_of(hand)
    trumps = hand & SUIT_MASK[trump]
    if not trumps:
        return cards_of(hand)
    over = [c for c in cards_of(trumps) if beats(c, w, trump, order)]
    if over:
        return over if head else cards_of(trumps)
    if not must_undertrump:
        return cards_of(hand)
    return cards_of(trumps)


def holds(hand: int, card: int) -> bool:
    """Is ``card`` in ``hand``?"""
    return bool(hand & BIT[card])

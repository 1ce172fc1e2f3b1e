"""Shared scenario helpers for the rules-engine tests (``tests/rules/test_*.py``).

Import from a test module of this package with ``from .helpers import make_match, play, legal``
(``tests/rules`` is a package: it has an ``__init__.py``).

Scenarios are built from an explicit deal: both hands (indexed by SEAT, not by deal order), the
face-up trump card and the talon order (top card first, trump card excluded). Cards are codes
(``"QH"``, ``"TS"``, ``"10S"``, ``"9C"``) or ids. The deck order is built with
:func:`bummerl.rules.deals.talon.arrange_deck`, so the engine deals exactly these cards (SRV-1).

Stable API (other test modules rely on it):

* ``rules_for(variant, options=None) -> Rules``
* ``deck_for(variant, dealer, hands, trump_card, talon, options=None) -> list[int]``
* ``make_match(variant, dealer, hands, trump_card, talon, options=None, start=None, *,
  game_points=None, seed=0, next_decks=()) -> MatchState``
* ``play(m, *texts) -> MatchState`` (``"QH"`` alone means ``"play QH"``)
* ``legal(m) -> set[str]``; ``is_legal(m, text) -> bool``; ``assert_illegal(m, text)``
* ``hand(m, seat) -> set[str]``; ``talon(m) -> list[str]``; ``ids(codes) -> list[int]``
* ``rest(variant, *used) -> list[str]``: the variant's cards not in ``used``, in deck order
* ``fill_deal(variant, part0, part1, trump_card, talon_top=()) -> (hands, trump_card, talon)``:
  complete partial hands and a talon top with the remaining cards (deck order)
* ``result(m, i=0) -> DealResult``; ``deal_points(m, seat) -> int``
* ``finish_deal(m, policy=first_legal) -> MatchState`` plays the current deal to its end
* ``events_of(history, kind) -> list[dict]``: the fields of the history events of one kind
  (``"trick_completed"``, ``"card_drawn"``...; an information set's ``deal.history``)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import pytest

from bummerl.rules import DealResult, IllegalActionError, MatchState, Rules, apply, find_variant
from bummerl.rules import actions as A
from bummerl.rules.base.actions import action_to_string, parse_action
from bummerl.rules.base.cards import card_code, cards_of, parse_card
from bummerl.rules.deals.talon import arrange_deck

Card = str | int


def ids(codes: Iterable[Card]) -> list[int]:
    """Card ids of codes (``"QH"``) or ids."""
    return [parse_card(c) if isinstance(c, str) else c for c in codes]


def codes(cards: Iterable[Card]) -> list[str]:
    """Canonical card codes (``"TS"`` for ``"10S"``) of codes or ids."""
    return [card_code(c) for c in ids(cards)]


def rules_for(variant: str, options: Mapping[str, object] | None = None) -> Rules:
    """The configured rules of ``variant`` (id or alias) with table ``options``."""
    return find_variant(variant).configure(options)


def rest(variant: str, *used: Iterable[Card]) -> list[str]:
    """The cards of ``variant``'s deck that are not in any of ``used``, in deck-id order."""
    taken = {c for group in used for c in ids(group)}
    return [card_code(c) for c in find_variant(variant).deck if c not in taken]


def fill_deal(
    variant: str,
    part0: Sequence[Card],
    part1: Sequence[Card],
    trump_card: Card,
    talon_top: Sequence[Card] = (),
) -> tuple[tuple[list[str], list[str]], str, list[str]]:
    """Complete a deal: ``part0``/``part1`` (cards that must be in seat 0's / seat 1's hand) are
    filled up to the hand size, and the talon starts with ``talon_top``; the remaining cards go
    (in deck-id order) first to seat 0, then seat 1, then the talon."""
    spec = find_variant(variant)
    free = rest(variant, part0, part1, [trump_card], talon_top)
    h0 = codes(part0)
    h1 = codes(part1)
    while len(h0) < spec.hand_size:
        h0.append(free.pop(0))
    while len(h1) < spec.hand_size:
        h1.append(free.pop(0))
    return (h0, h1), codes([trump_card])[0], [*codes(talon_top), *free]


def deck_for(
    variant: str,
    dealer: int,
    hands: Sequence[Sequence[Card]],
    trump_card: Card,
    talon: Sequence[Card],
    options: Mapping[str, object] | None = None,
) -> list[int]:
    """Deck order (top first) that deals ``hands`` (by seat), ``trump_card`` and ``talon``
    (top first, without the trump card) when ``dealer`` deals."""
    r = rules_for(variant, options)
    return arrange_deck(r, dealer, (ids(hands[0]), ids(hands[1])), trump_card, ids(talon))


def make_match(
    variant: str,
    dealer: int,
    hands: Sequence[Sequence[Card]],
    trump_card: Card,
    talon: Sequence[Card],
    options: Mapping[str, object] | None = None,
    start: Sequence[str] | None = None,
    *,
    game_points: Sequence[int] | None = None,
    seed: int = 0,
    next_decks: Sequence[Sequence[int]] = (),
) -> MatchState:
    """A new match whose first deal is exactly the given one; ``dealer`` deals it.

    ``start``: action texts applied at once (see :func:`play`). ``game_points``: preset match
    score (e.g. ``[6, 0]`` to test the end of a Bummerl). ``next_decks``: explicit deck orders of
    the following deals (else the seed's shuffles).
    """
    r = rules_for(variant, options)
    deck = arrange_deck(r, dealer, (ids(hands[0]), ids(hands[1])), trump_card, ids(talon))
    m = MatchState(r, seed, [deck, *[list(d) for d in next_decks]], dealer)
    if game_points is not None:
        m.game_points = list(game_points)
    if start:
        m = play(m, *start)
    return m


def _text(t: str) -> str:
    t = t.strip()
    if " " not in t and t.lower() not in ("exchange", "close", "declare", "draw", "pass"):
        return f"play {t}"
    return t


def play(m: MatchState, *texts: str) -> MatchState:
    """Apply action texts one by one with :func:`bummerl.rules.apply` (checked; raises
    IllegalActionError). A bare card code means ``play <card>``. Returns the new state."""
    for t in texts:
        m = apply(m, _text(t))
    return m


def legal(m: MatchState) -> set[str]:
    """Text forms of the legal actions of the seat to act."""
    return {action_to_string(a) for a in m.legal_actions()}


def is_legal(m: MatchState, text: str) -> bool:
    return parse_action(_text(text)) in m.legal_actions()


def assert_illegal(m: MatchState, text: str) -> None:
    """``text`` is not offered and ``apply`` rejects it with IllegalActionError."""
    assert not is_legal(m, text), f"{text!r} should not be legal; legal: {sorted(legal(m))}"
    with pytest.raises(IllegalActionError):
        apply(m, _text(text))


def hand(m: MatchState, seat: int) -> set[str]:
    """Card codes in ``seat``'s hand in the current deal."""
    return {card_code(c) for c in cards_of(m.deal.hands[seat])}


def talon(m: MatchState) -> list[str]:
    """Remaining talon cards, top first, face-up trump card last (empty when exhausted)."""
    d = m.deal
    return [card_code(c) for c in d.talon[d.tpos :]]


def result(m: MatchState, i: int = 0) -> DealResult:
    """Result of deal ``i`` of the match (raises IndexError if not finished)."""
    return m.results[i]


def deal_points(m: MatchState, seat: int) -> int:
    """Current deal points (trick points + counted marriages) of ``seat``."""
    return m.deal.deal_points(seat)


def first_legal(m: MatchState) -> int:
    """Policy that never closes, announces or declares when it can avoid it: the lowest legal
    card play, else ``draw``, else ``pass``, else the lowest legal action id."""
    acts = m.legal_actions()
    plays = [a for a in acts if a < 24]
    if plays:
        return plays[0]
    for a in (A.DRAW, A.PASS):
        if a in acts:
            return a
    return acts[0]


def finish_deal(m: MatchState, policy: Callable[[MatchState], int] = first_legal) -> MatchState:
    """Play the current deal to its end with ``policy``; returns the new state."""
    n = len(m.results)
    while len(m.results) == n and not m.over:
        m = apply(m, policy(m))
    return m


def cards(*cs: str) -> set[str]:
    """``{"play AC", ...}``: the legal-action texts of these card plays."""
    return {f"play {c}" for c in cs}


def res(m: MatchState, i: int = 0) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    """(winner, game points per seat, deal points per seat) of deal ``i``."""
    r = m.results[i]
    return r.winner, tuple(r.game_points), tuple(r.deal_points)


def keys(obj: Any) -> Iterator[str]:
    """Every dict key in a JSON-like tree (to check that a field is never sent)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield k
            yield from keys(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from keys(v)


def strings(obj: Any) -> Iterator[str]:
    """Every string value in a JSON-like tree (to check that a card is never sent)."""
    if isinstance(obj, dict):
        for v in obj.values():
            yield from strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from strings(v)
    elif isinstance(obj, str):
        yield obj


def match_verdict(variant: str, scores: Sequence[int], options: Mapping[str, object] | None = None) -> tuple[bool, int, tuple[int, ...]]:
    """``(over, winner, playoff seats)`` that the variant's match plan (:mod:`bummerl.rules.match.plans`)
    decides for a match whose deals left ``scores`` (per seat): the match is over with
    ``winner`` (team or seat), or a play-off deal between the tied seats follows, or neither."""
    from bummerl.rules import new_match

    m = new_match(variant, options, seed=0)
    placements, playoff, end = m.rules.spec.plan.verdict(m, tuple(scores))
    if playoff is not None:
        return False, -1, tuple(playoff["groups"][0][1])
    if end is not None:
        m.finish(list(placements), end)  # the match applies the plan's verdict (MatchState._finish_deal)
    return m.over, m.winner, ()


def next_dealer_after_one_deal(variant: str, dealer: int, seed: int = 1) -> int:
    """The dealer of deal 2 of a match whose first deal ``dealer`` deals (played out at random)."""
    import random

    from bummerl.rules import new_match

    m = new_match(variant, {"match_target": 1000} if variant != "snapszer-hu-2p" else None, seed=seed, first_dealer=dealer)
    rng = random.Random(seed)
    while m.deal_number == 0:
        m.apply(rng.choice(m.legal_actions()))
    return m.dealer


def events_of(history: Iterable[Mapping[str, Any]], kind: str) -> list[dict[str, Any]]:
    """The fields of the events of ``kind`` (an ``Event.kind`` name such as ``"trick_completed"``)
    in ``history``, in order."""
    return [dict(e[kind]) for e in history if kind in e]

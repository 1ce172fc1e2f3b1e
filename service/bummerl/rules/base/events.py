"""Public events: the history tuples of every deal class as ``Event`` dicts
(:class:`bummerl.rules.base.views.Event`, the proto message in its JSON shape). One converter for all
deal classes: the two-player deal (:mod:`bummerl.rules.deals.talon`) and the contract deals
(:mod:`bummerl.rules.deals.contract`).

Cards are codes (``""`` for a card drawn face down), suits letters, seats match seats. An event
names its kind by its one key besides ``version`` and ``deal_number``: a trick is
``{"version": 0, "deal_number": 0, "trick_completed": {"winner": w, "cards": [{"seat", "card"}, ...]}}``
with the cards in play order. The tuples themselves (stored with every snapshot) keep their
short type names (``"trick"``, ``"play"``...): :data:`EVENT_KINDS` maps them to the kinds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from .cards import SUITS, card_code
from .views import DealResult, Event, MatchResult

#: History tuple type (and the ``"type"`` of the event dicts of earlier versions) -> ``Event`` kind.
EVENT_KINDS: dict[str, str] = {
    "deal": "deal_started",
    "exchange": "trump_exchanged",
    "close": "talon_closed",
    "pass": "passed",
    "marriage": "marriage_announced",
    "play": "card_played",
    "trick": "trick_completed",
    "draw": "card_drawn",
    "declare": "declared",
    "deal_end": "deal_ended",
    "match_end": "match_ended",
    "resign": "resigned",
    "timeout": "timeout",
    "bid": "bid",
    "contract": "contract",
    "trump": "trump_named",
    "discard": "cards_laid_away",
    "take": "cards_taken_up",
    "show": "cards_shown",
}

#: Field names of the simple history tuples, by tuple type (the first tuple element).
EVENT_FIELDS: dict[str, tuple[str, ...]] = {
    "exchange": ("seat", "card_down", "card_up"),
    "close": ("seat",),
    "pass": ("seat",),
    "play": ("seat", "card"),
    "draw": ("seat", "card"),
    "declare": ("seat", "correct", "deal_points"),
    "timeout": ("seat", "reason"),
    "resign": ("seat",),
    "trump": ("seat", "suit"),
    "bid": ("seat", "call"),
    "discard": ("seat", "count"),
    "take": ("seat", "count"),
}
_CARD_FIELDS = {"card_down", "card_up", "card"}


def event_fields(ev: tuple[Any, ...], hand_sizes: Sequence[int] = ()) -> dict[str, Any]:
    """The fields of a history tuple's event kind, e.g. ``("play", 0, 15)`` -> ``{"seat": 0,
    "card": "QH"}``. A ``deal`` tuple without hand sizes (the contract deals) takes ``hand_sizes``.
    Raises KeyError for an unknown tuple type."""
    kind = ev[0]
    if kind == "trick":
        return {"winner": ev[1], "cards": [{"seat": s, "card": card_code(c)} for s, c in ev[2]]}
    if kind == "marriage":
        _, seat, s, pts = ev
        return {"seat": seat, "suit": SUITS[s], "points": pts, "shown_cards": [f"K{SUITS[s]}", f"Q{SUITS[s]}"]}
    if kind == "deal":
        tc = ev[2]
        return {"dealer": ev[1], "trump_card": card_code(tc) if tc >= 0 else "",
                "trump_suit": SUITS[tc // 6] if tc >= 0 else "",
                "hand_sizes": list(ev[3] if len(ev) > 3 else hand_sizes)}  # per seat, right after the deal
    if kind == "show":
        return {"seat": ev[1], "cards": [card_code(c) for c in ev[2]]}
    if kind == "contract":
        _, name, decl, partners, trump, level, value = ev
        return {"name": name, "declarer": decl, "partners": list(partners),
                "trump_suit": SUITS[trump] if trump >= 0 else "", "kontra_level": level, "base_points": value}
    out: dict[str, Any] = {}
    for name, value in zip(EVENT_FIELDS[kind], ev[1:], strict=True):
        if name in _CARD_FIELDS:
            out[name] = card_code(value) if value >= 0 else ""
        elif name == "suit":
            out[name] = SUITS[value]
        else:
            out[name] = value
    return out


def event_view(ev: tuple[Any, ...], deal_number: int, version: int = 0, hand_sizes: Sequence[int] = ()) -> Event:
    """A history tuple of deal ``deal_number`` as an ``Event`` dict, e.g. ``("play", 0, 15)`` ->
    ``{"version": 0, "deal_number": 3, "card_played": {"seat": 0, "card": "QH"}}``; ``version`` 0
    in a deal's history (the service sets the committing version on the events it streams).
    ``hand_sizes``: see :func:`event_fields`. Raises KeyError for an unknown tuple type."""
    return cast(Event, {"version": version, "deal_number": deal_number, EVENT_KINDS[ev[0]]: event_fields(ev, hand_sizes)})


def deal_ended(result: DealResult, version: int = 0) -> Event:
    """The ``deal_ended`` event of a finished deal."""
    return {"version": version, "deal_number": result["deal_number"], "deal_ended": {"result": result}}


def match_ended(result: MatchResult, deal_number: int, version: int = 0) -> Event:
    """The ``match_ended`` event (``deal_number``: the match's last deal)."""
    return {"version": version, "deal_number": deal_number, "match_ended": {"result": result}}


def upgrade_event(e: Mapping[str, Any], hand_sizes: Sequence[int] = ()) -> Event:
    """An event dict as the service stored it in a match's event stream before events took the
    ``Event`` shape (``{"type": "play", "version", "deal_number", "seat", "card"}``, ``deal_end``
    and ``match_end`` with ``"result"``, a ``deal`` maybe without ``hand_sizes``, which then takes
    ``hand_sizes``) in the ``Event`` shape; an event already in that shape is returned as it is.
    Raises KeyError for an unknown type."""
    if "type" not in e:
        return cast(Event, e)
    rest = dict(e)
    kind = EVENT_KINDS[rest.pop("type")]
    out: dict[str, Any] = {"version": rest.pop("version", 0), "deal_number": rest.pop("deal_number", 0)}
    if kind == "deal_started" and not rest.get("hand_sizes"):
        rest["hand_sizes"] = list(hand_sizes)
    out[kind] = rest
    return cast(Event, out)

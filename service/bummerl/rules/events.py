"""Public events: the history tuples of every deal class as event dicts (the fields of the
``Event`` proto message, docs/DESIGN.md). One converter for all deal classes: the two-player
deal (:mod:`bummerl.rules.state`) and the contract deals (:mod:`bummerl.rules.contract`).

Cards are codes (``""`` for a card drawn face down), suits letters, seats match seats. A trick is
``{"type": "trick", "winner": w, "cards": [{"seat", "card"}, ...]}`` in play order.
"""

from __future__ import annotations

from typing import Any

from .cards import SUITS, card_code

#: Field names of the simple history tuples, by event type (the first tuple element).
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


def event_to_dict(ev: tuple[Any, ...]) -> dict[str, Any]:
    """A history tuple as a public event dict, e.g. ``("play", 0, 15)`` ->
    ``{"type": "play", "seat": 0, "card": "QH"}``. Raises KeyError for an unknown event type."""
    kind = ev[0]
    if kind == "trick":
        return {"type": "trick", "winner": ev[1], "cards": [{"seat": s, "card": card_code(c)} for s, c in ev[2]]}
    if kind == "marriage":
        _, seat, s, pts = ev
        return {"type": "marriage", "seat": seat, "suit": SUITS[s], "points": pts, "shown_cards": [f"K{SUITS[s]}", f"Q{SUITS[s]}"]}
    if kind == "deal":
        tc = ev[2]
        started: dict[str, Any] = {"type": "deal", "dealer": ev[1], "trump_card": card_code(tc) if tc >= 0 else "",
                                   "trump_suit": SUITS[tc // 6] if tc >= 0 else ""}
        if len(ev) > 3:  # hand size per seat right after the deal
            started["hand_sizes"] = list(ev[3])
        return started
    if kind == "show":
        return {"type": "show", "seat": ev[1], "cards": [card_code(c) for c in ev[2]]}
    if kind == "contract":
        _, name, decl, partners, trump, level, value = ev
        return {"type": "contract", "name": name, "declarer": decl, "partners": list(partners),
                "trump_suit": SUITS[trump] if trump >= 0 else "", "kontra_level": level, "base_points": value}
    out: dict[str, Any] = {"type": kind}
    for name, value in zip(EVENT_FIELDS[kind], ev[1:], strict=True):
        if name in _CARD_FIELDS:
            out[name] = card_code(value) if value >= 0 else ""
        elif name == "suit":
            out[name] = SUITS[value]
        else:
            out[name] = value
    return out

"""The events of a match, as the service commits, stores and streams them, have the ``Event`` shape
of bummerl.rules.base.views (``{"version", "deal_number", "<kind>": {...}}``); a match whose stream
holds events stored before they took that shape (``{"type": "play", ...}``, a ``deal`` without
``hand_sizes``) still streams them in that shape."""

from __future__ import annotations

from typing import Any

import orjson

from bummerl.core import MatchService, matches
from bummerl.rules.base.events import EVENT_KINDS

from .conftest import act, new_match, to_act

OLD_TYPES = {kind: type_ for type_, kind in EVENT_KINDS.items()}


def old_shape(e: dict[str, Any]) -> bytes:
    """An event as the service stored it before: ``"type"`` and the fields inline (a deal's
    ``hand_sizes`` left out, as the oldest matches have it)."""
    (kind,) = set(e) - {"version", "deal_number"}
    fields = {k: v for k, v in e[kind].items() if not (kind == "deal_started" and k == "hand_sizes")}
    return orjson.dumps({"type": OLD_TYPES[kind], **fields, "version": e["version"], "deal_number": e["deal_number"]})


async def play_through_a_deal(svc: MatchService, created: Any) -> list[dict[str, Any]]:
    """Plays the first legal action until the first deal has ended; returns the committed events."""
    events: list[dict[str, Any]] = []
    while not any("deal_ended" in e for e in events):
        seat, info = await to_act(svc, created)
        u = await act(svc, created, seat, info)
        events.extend(u.events)
    return events


async def test_committed_events_have_the_event_shape(svc: MatchService) -> None:
    created = await new_match(svc, tc=None)
    events = await play_through_a_deal(svc, created)
    for e in events:
        (kind,) = set(e) - {"version", "deal_number"}
        assert kind in EVENT_KINDS.values() and isinstance(e[kind], dict)
    ended = next(e for e in events if "deal_ended" in e)
    assert ended["deal_number"] == ended["deal_ended"]["result"]["deal_number"] == 0
    started = next(e for e in events if "deal_started" in e)
    assert started["deal_number"] == 1 and started["deal_started"]["hand_sizes"] == [5, 5]
    stored = [orjson.loads(p) for _, p in await svc.store.events_since(created.match_id, 0)]
    async for u in svc.stream(created.match_id, 0, created.tokens[0]):
        assert u.events == stored  # the stream sends what was stored, unchanged
        break
    assert stored[1:] == events and "deal_started" in stored[0]


async def test_events_stored_in_the_old_shape_stream_in_the_event_shape(svc: MatchService, monkeypatch) -> None:
    new = await new_match(svc, tc=None)
    events = await play_through_a_deal(svc, new)
    first = [orjson.loads(p) for _, p in await svc.store.events_since(new.match_id, 0)][:1]
    monkeypatch.setattr(matches, "event_bytes", old_shape)  # as an older service stored them
    old = await new_match(svc, tc=None)
    await play_through_a_deal(svc, old)
    assert b'"type"' in (await svc.store.events_since(old.match_id, 0))[0][1]
    async for u in svc.stream(old.match_id, 1, old.tokens[1]):
        got = u.events
        for e in (got[0], first[0]):  # each match commits to its decks with its own salt
            assert len(e["deal_started"].pop("deck_commitment")) == 64
        assert got == first + events  # same seed and actions: the same events, in the new shape
        break

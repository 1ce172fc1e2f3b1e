"""StreamMatch reuses the version this process just committed instead of reading the match
again (issue: service speed, "avoid the second read per action"), and still sends every public
event exactly once with the right information set."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest

from bummerl.api import codec
from bummerl.api.servicer import _watch_update
from bummerl.core import MatchService
from bummerl.core.errors import StaleVersionError, UnauthenticatedError
from bummerl.core.spectate import Spectators
from bummerl.rules import information_set
from bummerl.store import MatchStore

from .conftest import new_match, to_act


async def test_streams_of_this_process_do_not_reload_what_it_committed(svc: MatchService, tstore: MatchStore) -> None:
    created = await new_match(svc, tc=None)
    loads = 0
    real_load, real_if_changed = tstore.load, tstore.load_if_changed

    async def counting_load(match_id: str):  # type: ignore[no-untyped-def]
        nonlocal loads
        loads += 1
        return await real_load(match_id)

    async def counting_if_changed(match_id: str, known: int, commit: str | None = None):  # type: ignore[no-untyped-def]
        nonlocal loads
        loads += 1
        return await real_if_changed(match_id, known, commit)

    tstore.load = counting_load  # type: ignore[method-assign]
    tstore.load_if_changed = counting_if_changed  # type: ignore[method-assign]
    updates: dict[int, list] = {0: [], 1: []}  # type: ignore[type-arg]

    async def follow(seat: int) -> None:
        async for u in svc.stream(created.match_id, seat, created.tokens[seat]):
            updates[seat].append(u)
            if u.match_over:
                return

    watchers = [asyncio.create_task(follow(s)) for s in (0, 1)]
    await asyncio.sleep(0.1)
    rng = random.Random(3)
    loads_before = loads
    submits = reads = 0
    while True:
        info0 = await svc.information_set(created.match_id, 0, created.tokens[0])
        reads += 1
        if info0["match"]["over"]:
            break
        seat = info0["deal"]["to_act"]
        if seat != 0:
            reads += 1
        info = info0 if seat == 0 else await svc.information_set(created.match_id, seat, created.tokens[seat])
        await svc.submit_action(created.match_id, seat, created.tokens[seat], info["version"],
                                rng.choice(info["legal_actions"])["id"])
        submits += 1
        await asyncio.sleep(0.005)  # let the streams take each version
    await asyncio.wait_for(asyncio.gather(*watchers), 10)
    # each information_set loads once; submit_action commits the version this process holds without
    # a load; the two streams load nothing more
    assert submits > 10 and loads - loads_before == reads
    final = await svc.information_set(created.match_id, 0, created.tokens[0])
    for seat in (0, 1):
        versions = [e["version"] for u in updates[seat] for e in u.events]
        assert versions == sorted(versions)
        assert updates[seat][-1].version == final["version"] and updates[seat][-1].match_over
        seen = [json.dumps(e, sort_keys=True) for u in updates[seat] for e in u.events]
        assert len(seen) == len(set(seen))  # each public event once


async def test_a_load_sends_the_blob_only_when_another_writer_moved_the_match_on(tstore: MatchStore) -> None:
    """Two services on one store (two replicas): each holds the version it last saw; a load sends
    only the version while it is current, the whole match once the other replica committed."""
    a, b = MatchService(tstore), MatchService(tstore)
    created = await new_match(a, tc=None)
    mid = created.match_id
    info = await a.information_set(mid, 0, created.tokens[0])
    seat = info["deal"]["to_act"]
    info = await a.information_set(mid, seat, created.tokens[seat])
    v = info["version"]
    assert await tstore.load_if_changed(mid, v) == v  # unchanged: only the version comes back
    await b.submit_action(mid, seat, created.tokens[seat], v, info["legal_actions"][0]["id"])
    got = await tstore.load_if_changed(mid, v)
    assert not isinstance(got, int) and got is not None and got.version == v + 1
    # replica a still holds v, and must serve v + 1
    fresh = await a.information_set(mid, seat, created.tokens[seat])
    assert fresh["version"] == v + 1
    assert await tstore.load_if_changed("nosuchmatch", 1) is None


# --- SubmitAction on the version this process holds (no read before the commit) ----------------


def _counting(tstore: MatchStore) -> list[str]:
    calls: list[str] = []
    for name in ("load", "load_if_changed", "commit"):
        real = getattr(tstore, name)

        async def counted(*args, _real=real, _name=name, **kwargs):  # type: ignore[no-untyped-def]
            calls.append(_name)
            return await _real(*args, **kwargs)

        setattr(tstore, name, counted)
    return calls


async def test_submit_at_the_version_this_process_holds_commits_without_a_read(
        svc: MatchService, tstore: MatchStore) -> None:
    created = await new_match(svc, tc=None)
    seat, info = await to_act(svc, created)
    calls = _counting(tstore)
    u = await svc.submit_action(created.match_id, seat, created.tokens[seat], info["version"],
                                info["legal_actions"][0]["id"])
    assert calls == ["commit"] and u.version == info["version"] + 1 and not u.duplicate
    # the retry of that very action (its answer lost) is still a duplicate, from what this process holds
    again = await svc.submit_action(created.match_id, seat, created.tokens[seat], info["version"],
                                    info["legal_actions"][0]["id"])
    assert again.duplicate and again.version == u.version


async def test_submit_on_a_version_another_replica_moved_on_answers_as_after_a_read(tstore: MatchStore) -> None:
    """Replica a holds version v; replica b commits v -> v + 1. At a, with expected_version v: the
    same action of the same seat is a duplicate, another legal one is stale (current v + 1, after
    the compare-and-set refused it), one that is illegal at v is stale too (never an
    IllegalActionError from the old version), a wrong token is refused; a writes nothing."""
    a, b = MatchService(tstore), MatchService(tstore)
    created = await new_match(a, tc=None)
    mid, tokens = created.match_id, created.tokens

    async def moved_on() -> tuple[int, int, list[int]]:
        """a reads the seat to act at v, then b plays that seat's first legal action."""
        seat, info = await to_act(a, created)
        legal = [x["id"] for x in info["legal_actions"]]
        await b.submit_action(mid, seat, tokens[seat], info["version"], legal[0])
        return seat, info["version"], legal

    seat, v, legal = await moved_on()
    dup = await a.submit_action(mid, seat, tokens[seat], v, legal[0])
    assert dup.duplicate and dup.version == v + 1

    seat, v, legal = await moved_on()
    assert len(legal) > 1
    calls = _counting(tstore)
    with pytest.raises(StaleVersionError) as e:
        await a.submit_action(mid, seat, tokens[seat], v, legal[-1])
    assert e.value.current_version == v + 1 and calls[0] == "commit"

    seat, v, legal = await moved_on()
    illegal = next(x for x in range(24) if x not in legal)
    with pytest.raises(StaleVersionError):
        await a.submit_action(mid, seat, tokens[seat], v, illegal)
    with pytest.raises(UnauthenticatedError):
        await a.submit_action(mid, seat, "not-a-token", v + 1, legal[0])
    assert (await tstore.load(mid)).version == v + 1


# --- one information set per version and seat, shared by the SubmitAction answer and the stream --


async def _submit_and_follow(svc: MatchService, tc: Any) -> tuple[Any, Any, Any]:
    """Seat to act submits its first legal action while its own stream follows; returns the
    submit's update, the stream's update of that version, and a fresh read of the view."""
    created = await new_match(svc, tc=tc)
    seat, info = await to_act(svc, created)
    got: list[Any] = []

    async def follow() -> None:
        async for u in svc.stream(created.match_id, seat, created.tokens[seat], from_version=info["version"]):
            got.append(u)
            if u.version > info["version"]:
                return

    watcher = asyncio.create_task(follow())
    await asyncio.sleep(0.05)
    u = await svc.submit_action(created.match_id, seat, created.tokens[seat], info["version"],
                                info["legal_actions"][0]["id"])
    await asyncio.wait_for(watcher, 5)
    fresh = await svc.information_set(created.match_id, seat, created.tokens[seat])
    return u, got[-1], fresh


async def test_without_clocks_the_submit_answer_and_the_stream_share_one_view_and_the_events(
        svc: MatchService) -> None:
    """RULES §14: the view of a seat at a version is one thing: built once, and the stream update
    carries the very events the commit produced (no re-parse), equal to what the match's stream holds."""
    u, streamed, fresh = await _submit_and_follow(svc, None)
    assert streamed.version == u.version == fresh["version"]
    assert streamed.information_set is u.information_set and fresh is u.information_set
    assert streamed.events is u.events and u.events and all(e["version"] == u.version for e in u.events)
    assert streamed.memo is u.memo is not None  # where the API layer keeps the encodings of this version
    stored = [json.loads(p) for v, p in await svc.store.events_since(fresh["match_id"], u.version - 1)]
    assert stored == json.loads(json.dumps(u.events))


async def test_with_clocks_each_answer_builds_its_own_view(svc: MatchService) -> None:
    """With a time control the clocks are computed at sending (§5 of DESIGN): never shared."""
    u, streamed, fresh = await _submit_and_follow(svc, "60+0")
    assert streamed.information_set is not u.information_set and fresh is not u.information_set
    assert streamed.information_set == u.information_set and "clocks" in fresh


async def test_each_version_has_its_own_memo_and_the_cache_holds_only_the_newest(svc: MatchService) -> None:
    """Update.memo lives with its version: the next commit answers with a new, empty one, and the
    match cache no longer holds the previous version (so neither its views nor what the API layer
    derived from them)."""
    created = await new_match(svc, tc=None)
    seat, info = await to_act(svc, created)
    first = await svc.submit_action(created.match_id, seat, created.tokens[seat], info["version"],
                                    info["legal_actions"][0]["id"])
    assert first.memo == {}
    first.memo[id(first.information_set)] = (first.information_set, "encoded")
    seat, info = await to_act(svc, created)
    second = await svc.submit_action(created.match_id, seat, created.tokens[seat], info["version"],
                                     info["legal_actions"][0]["id"])
    assert second.version == first.version + 1 and second.memo == {} and second.memo is not first.memo
    assert svc.versions[created.match_id].memo is second.memo


async def test_every_seat_and_version_of_a_deal_shares_one_dict_per_history_event(svc: MatchService) -> None:
    """RULES §14.1 (the deal's public history in every seat's view): the history views are built
    once per entry and shared by both seats' information sets and by the later versions of the
    deal, so a version holds only its new entries' dicts; the views equal fresh ones."""
    created = await new_match(svc, tc=None)
    mid = created.match_id
    earlier: list[dict[str, Any]] = []
    for _ in range(4):
        seat, info = await to_act(svc, created)
        other = await svc.information_set(mid, 1 - seat, created.tokens[1 - seat])
        assert other["version"] == info["version"]
        hist, other_hist = info["deal"]["history"], other["deal"]["history"]
        assert all(a is b for a, b in zip(hist, other_hist, strict=True))  # both seats, one dict each
        assert all(a is b for a, b in zip(hist, earlier, strict=False))  # the earlier versions' dicts
        state = svc.versions[mid].state
        assert info == {**information_set(state, seat), "match_id": mid, "version": info["version"]}
        earlier = hist
        await svc.submit_action(mid, seat, created.tokens[seat], info["version"], info["legal_actions"][0]["id"])
    assert len(earlier) >= 4  # still the first deal: each version added entries to one history


async def test_history_memo_is_carried_through_a_deal_and_replaced_at_the_next(svc: MatchService) -> None:
    """The answers of one deal share one ``history_memo`` (the API layer's encodings of the
    deal's history dicts, which those versions share: ``codec.information_set_to_pb``), across
    versions and seats; a new deal starts an empty one, so the old deal's dicts are not kept."""
    created = await new_match(svc, tc=None)
    mid, tokens = created.match_id, created.tokens
    rng = random.Random(5)
    seen: list[tuple[int, dict[int, Any], int]] = []  # (deal number, the memo (held, so ids stay unique), version)
    while True:
        cur = await svc.current(mid, 0, tokens[0])
        info = cur.information_set
        if info["match"]["over"] or len({d for d, _, _ in seen}) >= 3:
            break
        seat = info["deal"]["to_act"]
        cur = await svc.current(mid, seat, tokens[seat])
        assert cur.history_memo is not None
        seen.append((cur.information_set["match"]["deal_number"], cur.history_memo, cur.version))
        legal = [a["id"] for a in cur.information_set["legal_actions"]]
        u = await svc.submit_action(mid, seat, tokens[seat], cur.version, rng.choice(legal))
        assert u.history_memo is not None
    by_deal: dict[int, set[int]] = {}
    for deal, memo, _ in seen:
        by_deal.setdefault(deal, set()).add(id(memo))
    assert len(by_deal) >= 2
    assert all(len(memos) == 1 for memos in by_deal.values()), by_deal  # one memo per deal ...
    assert len({next(iter(m)) for m in by_deal.values()}) == len(by_deal)  # ... and another for each deal


async def test_live_watch_frames_share_the_seats_history_and_its_encodings(svc: MatchService) -> None:
    """A live spectator frame's public view (§14.3) holds the very history dicts of the seats'
    information sets at that version and carries the deal's ``history_memo``, so the API layer
    encodes each history entry once for seats and spectators alike; its bytes are those of the
    encoding without the memo (deterministic serialization: a map's order is not fixed)."""
    created = await new_match(svc, tc=None)
    mid, tokens = created.match_id, created.tokens
    spectators = Spectators(svc)
    frames = spectators.watch(mid, None)
    rng = random.Random(8)
    shared = 0
    for _ in range(12):
        cur = await svc.current(mid, 0, tokens[0])
        info = cur.information_set
        if info["match"]["over"]:
            break
        seat = info["deal"]["to_act"]
        cur = await svc.current(mid, seat, tokens[seat])
        frame = await asyncio.wait_for(frames.__anext__(), 5)
        if frame.version == cur.version:
            hist = frame.public_view["deal"]["history"]
            assert frame.history_memo is cur.history_memo is not None
            assert all(a is b for a, b in zip(hist, cur.information_set["deal"]["history"], strict=True))
            shared += 1
        msg = _watch_update(frame)
        plain = codec.information_set_to_pb(frame.public_view)  # (a map's order is not fixed: deterministic bytes)
        assert msg.public_view.SerializeToString(deterministic=True) == plain.SerializeToString(deterministic=True)
        legal = [a["id"] for a in cur.information_set["legal_actions"]]
        await svc.submit_action(mid, seat, tokens[seat], cur.version, rng.choice(legal))
    await frames.aclose()
    assert shared >= 5

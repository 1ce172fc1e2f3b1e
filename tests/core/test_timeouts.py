"""Server clocks, deadlines, the reaper and timeout policies (docs/DESIGN.md §5; docs/RULES.md SRV-5 leaves
time limits to the server) against a real Valkey, with an injected clock: no test sleeps."""

from __future__ import annotations

import asyncio
import json

import pytest

from bummerl.core import MatchService, Reaper
from bummerl.core.errors import (
    InvalidArgumentError,
    NotYourTurnError,
    PermissionDeniedError,
    StaleVersionError,
    TimeoutLostError,
)
from bummerl.core.timeouts import default_action
from bummerl.store import MatchStore

from .conftest import T0, FakeClock, act, new_match, to_act


async def test_clocks_are_in_every_information_set_computed_when_sent(svc: MatchService, clock: FakeClock) -> None:
    created = await new_match(svc, "10+1")
    assert created.summary["time_control"] == {"base_ms": 10_000, "increment_ms": 1_000, "move_cap_ms": 0,
                                               "lag_compensation_ms": 0, "scope": "match"}
    seat, info = await to_act(svc, created)
    assert info["time_control"]["base_ms"] == 10_000
    assert info["clocks"][seat] == {"seat": seat, "remaining_ms": 10_000, "running": True, "move_remaining_ms": 10_000,
                                    "bank_ms": 0}
    clock.advance(2_500)
    info = await svc.information_set(created.match_id, 1 - seat, created.tokens[1 - seat])
    assert info["clocks"][seat]["remaining_ms"] == 7_500
    assert info["clocks"][1 - seat] == {"seat": 1 - seat, "remaining_ms": 10_000, "running": False, "move_remaining_ms": 0,
                                        "bank_ms": 0}


async def test_action_in_time_is_charged_gets_the_increment_and_is_recorded(svc: MatchService, clock: FakeClock) -> None:
    created = await new_match(svc, "10+1")
    seat, info = await to_act(svc, created)
    clock.advance(3_000)
    u = await act(svc, created, seat, info)
    assert u.information_set["clocks"][seat]["remaining_ms"] == 8_000
    rec = await svc.record(created.match_id)
    assert rec["time_control"]["increment_ms"] == 1_000 and rec["timeout_policy"] == "forfeit-match"
    a = rec["actions"][0]
    assert (a["seat"], a["kind"], a["think_ms"], a["clock_ms"]) == (seat, "NORMAL", 3_000, 8_000)


async def test_deadline_is_indexed_with_the_commit_and_removed_at_match_end(svc: MatchService, tstore: MatchStore,
                                                                           clock: FakeClock) -> None:
    created = await new_match(svc, "10+0")
    assert await tstore.deadline_of(created.match_id) == T0 + 10_000
    seat, info = await to_act(svc, created)
    clock.advance(1_234)
    await act(svc, created, seat, info)
    assert await tstore.deadline_of(created.match_id) == T0 + 1_234 + 10_000
    await svc.resign(created.match_id, 0, created.tokens[0])
    assert await tstore.deadline_of(created.match_id) is None


async def test_bot_that_stops_answering_loses_the_match_on_time(svc: MatchService, clock: FakeClock) -> None:
    created = await new_match(svc, "5+1")
    seat, info = await to_act(svc, created)
    reaper = Reaper(svc)
    clock.advance(5_000)
    assert await reaper.run_once() == 0  # at the deadline the seat still has its last millisecond
    clock.advance(1)
    assert await reaper.run_once() == 1
    rec = await svc.record(created.match_id)
    assert rec["over"] and rec["match_result"]["reason"] == "timeout"
    assert rec["match_result"]["winner"] == 1 - seat
    entry = rec["actions"][-1]
    assert (entry["seat"], entry["kind"], entry["action_text"], entry["clock_ms"], entry["version"]) == \
        (seat, "TIMEOUT", "forfeit-match", 5_000, info["version"] + 1)
    other = await svc.information_set(created.match_id, 1 - seat, created.tokens[1 - seat])
    assert {"seat": seat, "reason": "TIMEOUT"} in [e["timeout"] for e in other["deal"]["history"] if "timeout" in e]
    # the flag stays down: no increment after a timeout that ended the match (it showed 1.0 s left)
    assert [c["remaining_ms"] for c in other["clocks"]][seat] == 0


async def test_two_reapers_racing_for_one_deadline_commit_it_once(svc: MatchService, clock: FakeClock) -> None:
    created = [await new_match(svc, "2+0") for _ in range(6)]
    clock.advance(2_001)
    r1, r2 = Reaper(svc, batch=1), Reaper(svc, batch=1)
    done = await asyncio.gather(r1.run_once(), r2.run_once(), r1.run_once(), r2.run_once())
    assert sum(done) == 6
    for c in created:
        rec = await svc.record(c.match_id)
        assert [a["kind"] for a in rec["actions"]] == ["TIMEOUT"]


async def test_expire_of_a_deadline_that_moved_puts_it_back(svc: MatchService, tstore: MatchStore,
                                                            clock: FakeClock) -> None:
    created = await new_match(svc, "5+0")
    clock.advance(6_000)
    assert await tstore.claim_due(clock(), 60_000) == [created.match_id]  # a reaper that then died
    assert await tstore.claim_due(clock(), 60_000) == []  # leased: nobody else takes it
    seat, info = await to_act(svc, created)
    clock.advance(59_999)
    assert await Reaper(svc).run_once() == 0
    clock.advance(2)  # the lease ran out: another reaper retries it
    assert await Reaper(svc).run_once() == 1
    assert (await svc.record(created.match_id))["match_result"]["winner"] == 1 - seat


async def test_action_just_after_the_deadline_gets_timeout_error_and_policy_applies_once(
        svc: MatchService, clock: FakeClock) -> None:
    created = await new_match(svc, "3+0")
    seat, info = await to_act(svc, created)
    clock.advance(3_001)
    with pytest.raises(TimeoutLostError, match="ran out of time"):
        await act(svc, created, seat, info)
    assert await Reaper(svc).run_once() == 0  # the late action already committed the timeout
    rec = await svc.record(created.match_id)
    assert [a["kind"] for a in rec["actions"]] == ["TIMEOUT"] and rec["match_result"]["reason"] == "timeout"
    with pytest.raises(TimeoutLostError, match=f"version {info['version']}"):  # a retry says why, not "stale"
        await act(svc, created, seat, info)


async def test_action_exactly_at_the_deadline_is_in_time(svc: MatchService, clock: FakeClock) -> None:
    created = await new_match(svc, "3+0")
    seat, info = await to_act(svc, created)
    clock.advance(3_000)
    u = await act(svc, created, seat, info)
    assert not u.match_over and u.information_set["clocks"][seat]["remaining_ms"] == 0


async def test_policy_forfeit_deal_scores_the_deal_for_the_opponent_and_refills(svc: MatchService,
                                                                                 clock: FakeClock) -> None:
    created = await new_match(svc, "4+0", policy="forfeit-deal")
    seat, info = await to_act(svc, created)
    clock.advance(4_001)
    assert await Reaper(svc).run_once() == 1
    rec = await svc.record(created.match_id)
    assert not rec["over"]
    res = rec["deals"][0]["result"]
    assert res["reason"] == "timeout" and res["winner"] == 1 - seat and res["game_points"][1 - seat] == 3
    assert rec["actions"][-1]["action_text"] == "forfeit-deal" and rec["actions"][-1]["kind"] == "TIMEOUT"
    nseat, ninfo = await to_act(svc, created)
    assert ninfo["match"]["deal_number"] == 1
    assert ninfo["clocks"][seat]["remaining_ms"] == 4_000  # set back to base, not left at zero


async def test_policy_default_move_plays_the_lowest_card_for_the_seat(svc: MatchService, clock: FakeClock) -> None:
    created = await new_match(svc, "move=1", policy="default-move")
    seat, info = await to_act(svc, created)
    expected = default_action([a["id"] for a in info["legal_actions"]])
    assert expected == min(a["id"] for a in info["legal_actions"] if a["kind"] == "play")
    clock.advance(1_001)
    assert await Reaper(svc).run_once() == 1
    rec = await svc.record(created.match_id)
    entry = rec["actions"][-1]
    assert (entry["seat"], entry["action_id"], entry["kind"], entry["clock_ms"]) == (seat, expected, "TIMEOUT", 1_000)
    assert not rec["over"]
    # the next seat now has a fresh per-move second
    nseat, ninfo = await to_act(svc, created)
    assert ninfo["clocks"][nseat]["move_remaining_ms"] == 1_000


async def test_idle_limit_ends_a_match_without_time_control_as_abandoned(svc: MatchService, clock: FakeClock) -> None:
    created = await new_match(svc, None, idle_limit_ms=60_000)
    assert created.summary["idle_limit_ms"] == 60_000 and "time_control" not in created.summary
    seat, info = await to_act(svc, created)
    assert info["clocks"] == [] and "time_control" not in info
    clock.advance(59_000)
    await act(svc, created, seat, info)  # acting moves the idle deadline
    clock.advance(59_000)
    assert await Reaper(svc).run_once() == 0
    clock.advance(1_001)
    assert await Reaper(svc).run_once() == 1
    rec = await svc.record(created.match_id)
    assert rec["match_result"]["reason"] == "abandoned" and rec["match_result"]["winner"] == -1
    assert rec["actions"][-1]["kind"] == "ABANDONED"


async def test_server_default_idle_limit_and_zero_means_never(tstore: MatchStore, clock: FakeClock) -> None:
    svc = MatchService(tstore, now_ms=clock, idle_limit_ms=1_000)
    a = await new_match(svc, None)
    b = await new_match(svc, None, idle_limit_ms=0)
    assert a.summary["idle_limit_ms"] == 1_000 and b.summary["idle_limit_ms"] == 0
    clock.advance(10**9)
    assert await Reaper(svc).run_once() == 1
    assert (await svc.record(a.match_id))["over"] and not (await svc.record(b.match_id))["over"]


async def test_a_bot_that_reconnects_mid_match_continues_on_its_clock(svc: MatchService, clock: FakeClock) -> None:
    created = await new_match(svc, "10+0")
    seat, info = await to_act(svc, created)
    clock.advance(1_000)
    await act(svc, created, seat, info)
    other, oinfo = await to_act(svc, created)
    clock.advance(4_000)  # the other bot was disconnected meanwhile; it resumes its stream
    stream = svc.stream(created.match_id, other, created.tokens[other], from_version=oinfo["version"] - 1)
    first = await stream.__anext__()
    await stream.aclose()
    assert [e["version"] for e in first.events] == [oinfo["version"]] * len(first.events) and first.events
    assert first.information_set["clocks"][other]["remaining_ms"] == 6_000
    u = await act(svc, created, other, first.information_set)
    assert u.information_set["clocks"][other]["remaining_ms"] == 6_000


async def test_invalid_time_controls_policies_and_seat_names_are_rejected(svc: MatchService) -> None:
    with pytest.raises(InvalidArgumentError, match="timeout_policy"):
        await new_match(svc, "5+0", policy="explode")
    with pytest.raises(InvalidArgumentError, match="base_ms"):
        await svc.create_match("schnapsen-at", time_control={"base_ms": -1, "move_cap_ms": 5})
    with pytest.raises(InvalidArgumentError, match="idle_limit_ms"):
        await svc.create_match("schnapsen-at", idle_limit_ms=-5)
    for names, needle in ((["a" * 65, "b"], "at most 64"), (["ok", "bad\nname"], "control"), (["", "b"], "1-64")):
        with pytest.raises(InvalidArgumentError, match=needle):
            await svc.create_match("schnapsen-at", seat_names=names)
    ok = await svc.create_match("schnapsen-at", seat_names=["Ödön's bot", "x" * 64])
    assert [s["name"] for s in ok.summary["seats"]] == ["Ödön's bot", "x" * 64]


async def test_admin_token_is_needed_to_create_matches_when_configured(tstore: MatchStore, clock: FakeClock) -> None:
    svc = MatchService(tstore, now_ms=clock, admin_token="s3cret-admin")
    with pytest.raises(PermissionDeniedError, match="admin token"):
        await svc.create_match("schnapsen-at")
    with pytest.raises(PermissionDeniedError, match="not the admin token"):
        await svc.create_match("schnapsen-at", seed=1, admin_token="guess")
    created = await svc.create_match("schnapsen-at", seed=1, admin_token="s3cret-admin")
    stored = await tstore.load(created.match_id)
    assert stored is not None and "s3cret-admin" not in json.dumps(stored.meta)


async def test_not_your_turn_is_its_own_error_and_changes_nothing(svc: MatchService, tstore: MatchStore) -> None:
    created = await new_match(svc, "10+0")
    seat, info = await to_act(svc, created)
    before = await tstore.load(created.match_id)
    with pytest.raises(NotYourTurnError):
        await svc.submit_action(created.match_id, 1 - seat, created.tokens[1 - seat], info["version"], 0)
    assert await tstore.load(created.match_id) == before
    with pytest.raises(StaleVersionError):
        await svc.submit_action(created.match_id, seat, created.tokens[seat], info["version"] + 3, 0)


async def test_resign_with_a_reported_bot_fault_is_recorded_as_such(svc: MatchService) -> None:
    created = await new_match(svc, None)
    with pytest.raises(InvalidArgumentError, match="reason"):
        await svc.resign(created.match_id, 1, created.tokens[1], "bored")
    await svc.resign(created.match_id, 1, created.tokens[1], "illegal")
    rec = await svc.record(created.match_id)
    assert rec["match_result"]["reason"] == "illegal" and rec["match_result"]["winner"] == 0
    assert rec["actions"][-1]["kind"] == "ILLEGAL"


async def test_an_overage_bank_pays_slow_moves_across_replicas_then_the_policy_applies(
        svc: MatchService, tstore: MatchStore, clock: FakeClock) -> None:
    """move=1,bank=3: a seat 2 s over its 1 s keeps playing with 1 s of bank left (read from another
    replica), shown in every information set; when the move and the bank are both used up, the
    reaper of a third replica applies the timeout policy."""
    created = await new_match(svc, "move=1,bank=3")
    assert created.summary["time_control"]["bank_ms"] == 3_000
    seat, info = await to_act(svc, created)
    assert info["time_control"]["bank_ms"] == 3_000 and info["clocks"][seat]["bank_ms"] == 3_000
    clock.advance(3_000)  # 2 s into the bank: in time
    await act(svc, created, seat, info)
    replica = MatchService(tstore, now_ms=clock)
    other = await replica.information_set(created.match_id, seat, created.tokens[seat])
    assert other["clocks"][seat]["bank_ms"] == 1_000 and other["clocks"][1 - seat]["bank_ms"] == 3_000
    while (nxt := await to_act(replica, created))[0] != seat:  # the other seat plays at once, from the bank-free 1 s
        await act(replica, created, nxt[0], nxt[1])
    seat2, info2 = await to_act(replica, created)
    clock.advance(2_000)  # its 1 s move and its last 1 s of bank
    assert await Reaper(MatchService(tstore, now_ms=clock)).run_once() == 0
    clock.advance(1)
    assert await Reaper(MatchService(tstore, now_ms=clock)).run_once() == 1
    rec = await replica.record(created.match_id)
    assert rec["over"] and rec["match_result"]["reason"] == "timeout" and rec["match_result"]["winner"] == 1 - seat

"""StreamHub: one reader per process and shard on the process's inbox, to which each commit of a
match the process follows is appended (issue 40); a stream coming back for the next version waits
without any Redis command, a waiter behind the reader's position still gets every event it missed,
a commit reaches only the processes that follow its match, and a lost notification or registration
costs a timeout, not events."""

from __future__ import annotations

import asyncio

from bummerl.store import MatchStore, StreamHub, keys


def _count_commands(store: MatchStore) -> list[str]:
    sent: list[str] = []
    real = store.client.execute_command

    async def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        sent.append(str(args[0]))
        return await real(*args, **kwargs)

    store.client.execute_command = counted  # type: ignore[method-assign]
    real_pipe = store.client.pipeline

    def pipeline(*args, **kwargs):  # type: ignore[no-untyped-def]
        sent.append("PIPELINE")
        return real_pipe(*args, **kwargs)

    store.client.pipeline = pipeline  # type: ignore[method-assign]
    return sent


async def _settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0.01)


async def _take_version_2(store: MatchStore, hub: StreamHub, match_id: str) -> None:
    """A waiter after version 1 gets the events of the commit of version 2 (payload ``b"b"``)."""
    first = asyncio.create_task(hub.wait_events(match_id, 1, 10_000))
    await _settle()
    await store.commit(match_id, 1, b"s2", [b"b"])
    assert await first == [(2, b"b")]


def _record_reader(hub: StreamHub) -> list[tuple[object, ...]]:
    """The commands the hub's reader sends from now on (their arguments)."""
    reads: list[tuple[object, ...]] = []
    real = hub._reader.execute_command

    async def recorded(*args, **kwargs):  # type: ignore[no-untyped-def]
        reads.append(args)
        return await real(*args, **kwargs)

    hub._reader.execute_command = recorded  # type: ignore[method-assign]
    return reads


async def test_a_stream_coming_back_for_the_next_version_sends_nothing(store: MatchStore, match_id: str) -> None:
    await store.create(match_id, b"s1", {}, [b"a"])
    async with StreamHub(store) as hub:
        await _take_version_2(store, hub, match_id)
        await _settle()
        sent = _count_commands(store)
        nxt = asyncio.create_task(hub.wait_events(match_id, 2, 10_000))
        await _settle()
        assert sent == []  # covered by the read in flight: no XRANGE, no wake
        await store.commit(match_id, 2, b"s3", [b"c0", b"c1"])
        assert await nxt == [(3, b"c0"), (3, b"c1")]


async def test_a_waiter_behind_the_reader_gets_what_it_missed(store: MatchStore, match_id: str) -> None:
    await store.create(match_id, b"s1", {}, [b"a"])
    async with StreamHub(store) as hub:
        await _take_version_2(store, hub, match_id)
        await _settle()
        # the match is kept in the read with nobody waiting: these pass the reader unclaimed
        await store.commit(match_id, 2, b"s3", [b"c"])
        await store.commit(match_id, 3, b"s4", [b"d"])
        await _settle()
        assert await asyncio.wait_for(hub.wait_events(match_id, 2, 10_000), 5) == [(3, b"c"), (4, b"d")]
        assert await asyncio.wait_for(hub.wait_events(match_id, 3, 10_000), 5) == [(4, b"d")]
        later = asyncio.create_task(hub.wait_events(match_id, 4, 10_000))
        await _settle()
        await store.commit(match_id, 4, b"s5", [b"e"])
        assert await asyncio.wait_for(later, 5) == [(5, b"e")]


async def test_many_streams_of_many_matches_each_get_every_version_once(store: MatchStore, match_id: str) -> None:
    ids = [f"{match_id}x{i}" for i in range(20)]
    for m in ids:
        await store.create(m, b"s1", {}, [b"v1"])
    async with StreamHub(store) as hub:
        got: dict[tuple[str, int], list[int]] = {}

        async def follow(m: str, k: int) -> None:
            last = 1
            seen = got.setdefault((m, k), [])
            while last < 6:
                evs = await hub.wait_events(m, last, 10_000)
                seen.extend(v for v, _ in evs)
                last = max(v for v, _ in evs)

        tasks = [asyncio.create_task(follow(m, k)) for m in ids for k in (0, 1)]
        for v in range(1, 6):
            await _settle()
            for m in ids:
                await store.commit(m, v, f"s{v + 1}".encode(), [f"v{v + 1}".encode()])
        await asyncio.wait_for(asyncio.gather(*tasks), 20)
    assert all(seen == [2, 3, 4, 5, 6] for seen in got.values())


async def test_the_reader_reads_one_key_however_many_matches_are_followed(store: MatchStore, match_id: str) -> None:
    """The hub blocks on its inbox only: following 30 matches does not lengthen its XREAD."""
    ids = [f"{match_id}f{i}" for i in range(30)]
    for m in ids:
        await store.create(m, b"s1", {}, [b"v1"])
    async with StreamHub(store, block_ms=200) as hub:
        reads = _record_reader(hub)
        waits = [asyncio.create_task(hub.wait_events(m, 1, 10_000)) for m in ids]
        await _settle()
        assert hub.waiting == 30
        for m in ids:
            await store.commit(m, 1, b"s2", [b"v2"])
        assert await asyncio.wait_for(asyncio.gather(*waits), 5) == [[(2, b"v2")]] * 30
        assert any(r[0] == "XREAD" for r in reads)
        inboxes = {store.layout.inbox_key(k, hub.process) for k in range(store.layout.shards)}
        assert all(r[0] in ("XREAD", "XRANGE") and inboxes & set(r) and len(r) <= 8 for r in reads)
        assert not any(store.layout.events_key(m) in r for r in reads for m in ids)


async def _inbox(store: MatchStore, match_id: str, process: str) -> list[dict[bytes, bytes]]:
    """The entries of ``match_id`` in ``process``'s inbox on the match's shard, newest first."""
    key = store.layout.inbox_key(store.layout.shard_of(match_id), process)
    return [f for _, f in await store.client.xrevrange(key, count=50) if f.get(b"m") == match_id.encode()]


async def test_a_commit_appends_its_events_to_each_following_process_inbox(store: MatchStore, match_id: str) -> None:
    """commit.lua: one inbox entry per commit for every process registered as a follower (match id,
    version, payloads in order; a commit without public events has the one payload keys.NO_EVENT, so
    the hub wakes that version's streams); a process that does not follow, or whose registration ran
    out, gets nothing."""
    await store.create(match_id, b"s1", {}, [b"a"])
    await store.follow(match_id, "pa", 60_000)
    await store.follow(match_id, "pb", 60_000)
    await store.follow(match_id, "pgone", 1)
    await asyncio.sleep(0.01)  # pgone's registration runs out
    await store.commit(match_id, 1, b"s2", [b"b0", b"b1"])
    await store.commit(match_id, 2, b"s3", [])
    want = [{b"m": match_id.encode(), b"v": b"3", b"0": keys.NO_EVENT},
            {b"m": match_id.encode(), b"v": b"2", b"0": b"b0", b"1": b"b1"}]
    assert await _inbox(store, match_id, "pa") == want
    assert await _inbox(store, match_id, "pb") == want
    assert await _inbox(store, match_id, "pgone") == []
    assert await _inbox(store, match_id, "pnever") == []


async def test_a_commit_reaches_only_the_hubs_that_follow_its_match(store: MatchStore, match_id: str) -> None:
    """Two processes' hubs, each streaming its own match: neither reads the other's commits (before
    issue 40 every process read every commit of the shard, so the Redis work per action grew with the
    number of servers)."""
    mine, theirs = f"{match_id}a", f"{match_id}b"
    for m in (mine, theirs):
        await store.create(m, b"s1", {}, [b"a"])
    async with StreamHub(store) as hub_a, StreamHub(store) as hub_b:
        await _take_version_2(store, hub_a, mine)
        await _take_version_2(store, hub_b, theirs)
        for v in range(2, 6):
            await store.commit(mine, v, b"s", [b"x"])
        assert [f[b"v"] for f in await _inbox(store, mine, hub_a.process)] == [b"6", b"5", b"4", b"3", b"2"]
        assert await _inbox(store, mine, hub_b.process) == []
        assert await _inbox(store, theirs, hub_a.process) == []


async def test_a_lost_registration_costs_one_timeout_then_the_hub_registers_again(
        store: MatchStore, match_id: str) -> None:
    """A registration the store lost (a failover to a replica that never got it): the waiter gets
    the commit on its timeout, from the match's stream; its next wait registers again and is woken
    by the next commit at once."""
    await store.create(match_id, b"s1", {}, [b"a"])
    async with StreamHub(store) as hub:
        await _take_version_2(store, hub, match_id)
        await store.client.delete(store.layout.followers_key(match_id))
        lost = asyncio.create_task(hub.wait_events(match_id, 2, 1500))
        await _settle()
        await store.commit(match_id, 2, b"s3", [b"c"])
        await _settle()
        assert not lost.done()  # no notification: it waits out its timeout
        assert await asyncio.wait_for(lost, 5) == [(3, b"c")]
        again = asyncio.create_task(hub.wait_events(match_id, 3, 10_000))
        await _settle()
        assert await store.client.exists(store.layout.followers_key(match_id))
        await store.commit(match_id, 3, b"s4", [b"d"])
        assert await asyncio.wait_for(again, 2) == [(4, b"d")]


async def test_a_wait_longer_than_a_registration_is_woken_by_a_later_commit(
        store: MatchStore, match_id: str, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The reader renews the registrations of the matches its waiters wait on: a waiter whose
    timeout is longer than a registration still hears of a commit made after the first
    registration would have run out (not only on its timeout)."""
    import bummerl.store.hub as hub_module

    monkeypatch.setattr(hub_module, "FOLLOW_TTL_MS", 600)
    monkeypatch.setattr(hub_module, "RENEW_S", 0.2)
    await store.create(match_id, b"s1", {}, [b"a"])
    async with StreamHub(store, block_ms=100) as hub:
        waiting = asyncio.create_task(hub.wait_events(match_id, 1, 10_000))
        await asyncio.sleep(1.5)  # more than twice the registration's 0.6 s
        assert not waiting.done()
        await store.commit(match_id, 1, b"s2", [b"b"])
        assert await asyncio.wait_for(waiting, 1.0) == [(2, b"b")]


async def test_after_a_connection_failure_the_reader_registers_again_and_wakes_its_waiters(
        store: MatchStore, match_id: str) -> None:
    """The reader's connection failed (a failover may have lost registrations and inbox entries):
    once it reads again it wakes the shard's waiters (each reads its match's stream) and the next
    wait registers again."""
    await store.create(match_id, b"s1", {}, [b"a"])
    async with StreamHub(store, block_ms=100) as hub:
        await _take_version_2(store, hub, match_id)
        await store.client.delete(store.layout.followers_key(match_id))
        waiting = asyncio.create_task(hub.wait_events(match_id, 2, 10_000))
        await _settle()
        hub._shards[store.layout.shard_of(match_id)].broken = True  # as _run marks it on a RedisError
        assert await asyncio.wait_for(waiting, 2) == []  # woken, nothing new in its stream
        again = asyncio.create_task(hub.wait_events(match_id, 2, 10_000))
        await _settle()
        await store.commit(match_id, 2, b"s3", [b"c"])
        assert await asyncio.wait_for(again, 2) == [(3, b"c")]


async def test_a_waiter_that_missed_its_notification_reads_the_match_on_timeout(store: MatchStore, match_id: str) -> None:
    """A notification the reader never hands over (here: the reader is stopped) costs the waiter its
    timeout, not the events."""
    await store.create(match_id, b"s1", {}, [b"a"])
    async with StreamHub(store) as hub:
        await _take_version_2(store, hub, match_id)
        task = hub._shards[store.layout.shard_of(match_id)].task
        assert task is not None
        task.cancel()
        await _settle()
        later = asyncio.create_task(hub.wait_events(match_id, 2, 300))
        await _settle()
        await store.commit(match_id, 2, b"s3", [b"c"])
        assert await asyncio.wait_for(later, 5) == [(3, b"c")]


async def test_an_idle_reader_sends_nothing_and_resumes_where_it_stopped(
        store: MatchStore, match_id: str, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """With nobody waiting (a process only polled) the reader stops reading its inbox; the next
    waiter gets what was committed meanwhile, even one the reader knew the match of."""
    import bummerl.store.hub as hub_module

    monkeypatch.setattr(hub_module, "KEEP_S", 0.05)
    await store.create(match_id, b"s1", {}, [b"a"])
    async with StreamHub(store, block_ms=100) as hub:
        await _take_version_2(store, hub, match_id)
        await asyncio.sleep(0.4)  # KEEP_S and the read in flight pass: idle
        reads = _record_reader(hub)
        await store.commit(match_id, 2, b"s3", [b"c"])
        await store.commit(match_id, 3, b"s4", [b"d"])
        await asyncio.sleep(0.3)
        assert reads == []
        sent = _count_commands(store)
        got = await asyncio.wait_for(hub.wait_events(match_id, 2, 10_000), 5)
        assert got in ([(3, b"c"), (4, b"d")], [(3, b"c")]) and sent == []  # from the resumed reader
        assert [r[0] for r in reads[:2]] == ["XRANGE", "XREAD"]


async def test_a_hub_follows_each_shard_with_waiters_and_only_those(redis_client: object, match_id: str) -> None:
    """With S shards (Redis Cluster's layout) every commit still reaches its waiters, and the hub
    reads its inboxes on the shards its waiters' matches live in, no other."""
    layout = keys.KeyLayout(4, tag=f"t{match_id[-12:]}")
    store = MatchStore(redis_client, layout=layout)
    ids: dict[int, str] = {}
    i = 0
    while len(ids) < 3:  # matches on three of the four shards
        ids.setdefault(layout.shard_of(f"{match_id}x{i}"), f"{match_id}x{i}")
        i += 1
    try:
        for m in ids.values():
            await store.create(m, b"s1", {}, [b"v1"])
        async with StreamHub(store, block_ms=200) as hub:
            reads = _record_reader(hub)
            waits = [asyncio.create_task(hub.wait_events(m, 1, 10_000)) for m in ids.values()]
            await _settle()
            for m in ids.values():
                await store.commit(m, 1, b"s2", [m.encode()])
            got = await asyncio.wait_for(asyncio.gather(*waits), 5)
            assert got == [[(2, m.encode())] for m in ids.values()]
            followed = {a for r in reads if r[0] == "XREAD" for a in r if isinstance(a, str) and ":inbox:" in a}
            assert followed == {layout.inbox_key(k, hub.process) for k in ids}
    finally:
        for m in ids.values():
            await store.delete(m)
        await redis_client.delete(*(layout.feed_key(k) for k in range(4)),  # type: ignore[attr-defined]
                                  *(layout.active_key(k) for k in range(4)))
        await store.aclose()


async def test_a_waiter_cancelled_while_its_shard_reader_starts_does_not_stall_the_others(
        store: MatchStore, match_id: str) -> None:
    """The first waiter of a shard starts its reader; if that waiter is cancelled meanwhile (a
    spectator hanging up during its first wait), the start goes on for the others: it put the
    CancelledError on the start shared with them, and every Play/StreamMatch stream of the shard's
    matches waiting then died silently (a whole match stalled: seen on a cluster under spectators)."""
    await store.create(match_id, b"s1", {}, [b"a"])
    async with StreamHub(store) as hub:
        real = store.client.xrevrange
        slow = asyncio.Event()

        async def slow_xrevrange(*args, **kwargs):  # type: ignore[no-untyped-def]
            await slow.wait()  # the reader's start is under way until the test lets it go on
            return await real(*args, **kwargs)

        store.client.xrevrange = slow_xrevrange  # type: ignore[method-assign]
        first = asyncio.create_task(hub.wait_events(match_id, 1, 10_000))
        await _settle()
        second = asyncio.create_task(hub.wait_events(match_id, 1, 10_000))
        await _settle()
        first.cancel()
        await _settle()
        slow.set()
        await _settle()
        store.client.xrevrange = real  # type: ignore[method-assign]
        await store.commit(match_id, 1, b"s2", [b"b"])
        assert await asyncio.wait_for(second, 5) == [(2, b"b")]
        assert first.cancelled()


async def test_a_waiter_cancelled_during_a_redis_call_that_swallows_it_still_ends(
        store: MatchStore, match_id: str, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """redis-py 8.1 sometimes returns normally from a command whose task was cancelled in the
    middle of it; a stream being closed then waited on forever (a Play call that ended on a refused
    action never finished). The hub raises the swallowed CancelledError after the call."""
    await store.create(match_id, b"s1", {}, [b"a"])
    entered = asyncio.Event()
    real = store.follow

    async def swallowing(*args, **kwargs):  # type: ignore[no-untyped-def]
        entered.set()
        try:
            await asyncio.sleep(0.5)
        except asyncio.CancelledError:
            pass  # what the library did
        return await real(*args, **kwargs)

    monkeypatch.setattr(store, "follow", swallowing)
    async with StreamHub(store) as hub:
        waiting = asyncio.create_task(hub.wait_events(match_id, 1, 10_000))
        await asyncio.wait_for(entered.wait(), 2)
        waiting.cancel()
        done, _ = await asyncio.wait({waiting}, timeout=2)
        assert done and waiting.cancelled()
        assert hub.waiting == 0

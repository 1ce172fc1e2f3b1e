"""Key schema (layout 2): a match and its shard's deadlines/active set/feed share one hash tag."""

from __future__ import annotations

import pytest

from bummerl.store import keys


def _slot_tag(key: str) -> str:
    """What Redis Cluster hashes: the text between the first ``{`` and the next ``}``."""
    start = key.index("{")
    return key[start + 1:key.index("}", start)]


def test_one_shard_keeps_every_key_of_a_match_in_one_slot() -> None:
    layout = keys.KeyLayout()
    assert layout.state_key("m1") == "bm:{s0}:m:m1:state"
    assert layout.events_key("m1") == "bm:{s0}:m:m1:events"
    assert layout.match_keys("m1") == ("bm:{s0}:m:m1:state", "bm:{s0}:m:m1:events")
    assert layout.shard_keys("m1")[2:] == ("bm:{s0}:deadlines", "bm:{s0}:active", "bm:{s0}:m:m1:followers")
    assert layout.inbox_key(0, "p1") == "bm:{s0}:inbox:p1"


def test_shards_spread_matches_and_each_script_touches_one_slot() -> None:
    layout = keys.KeyLayout(16)
    shards = [layout.shard_of(f"match-{i}") for i in range(1600)]
    counts = [shards.count(k) for k in range(16)]
    assert min(counts) > 60 and max(counts) < 140  # crc32 spreads ids about evenly
    for i in range(200):
        mid = f"g{i}"
        shard = layout.shard_of(mid)
        assert len({_slot_tag(k) for k in (*layout.shard_keys(mid), layout.inbox_key(shard, "p1"))}) == 1
        assert _slot_tag(layout.state_key(mid)) == f"s{layout.shard_of(mid)}"
    assert keys.KeyLayout(16).shard_of("abc") == keys.KeyLayout(16).shard_of("abc")  # a pure function


def test_an_inbox_names_its_process_with_letters_and_digits_only() -> None:
    with pytest.raises(ValueError):
        keys.KeyLayout().inbox_key(0, "a}b")


@pytest.mark.parametrize("bad", ["", "a{b", "a}b", "a b", "a\nb", "x" * 201])
def test_bad_match_ids_are_rejected(bad: str) -> None:
    with pytest.raises(ValueError):
        keys.KeyLayout().state_key(bad)


def test_bad_layouts_are_rejected() -> None:
    for shards, tag in ((0, "s"), (True, "s"), (2, ""), (2, "a:b"), (2, "{x}")):
        with pytest.raises(ValueError):
            keys.KeyLayout(shards, tag)  # type: ignore[arg-type]


def test_a_ladder_and_a_bot_queue_keep_their_keys_in_one_slot() -> None:
    assert keys.ladder_key("l1") == "bm:ladder:{l1}"
    assert keys.ladder_key("l1", "running") == "bm:ladder:{l1}:running"
    assert keys.botq_key("b7") == "bm:botq:{b7}"
    assert _slot_tag(keys.botq_key("b7", "assigned", "m1", "0")) == "b7"
    with pytest.raises(ValueError):
        keys.ladder_key("a}b")


def test_aux_keys_stay_out_of_the_shard_namespace() -> None:
    assert keys.aux_key("ladders", "running") == "bm:ladders:running"
    with pytest.raises(ValueError):
        keys.aux_key("{m1}", "state")
    with pytest.raises(ValueError):
        keys.aux_key()
    assert keys.check_aux_key("bm:x") == "bm:x"
    for bad in ("bm:{s0}:m:m1:state", "other:x", "bm:"):
        with pytest.raises(ValueError):
            keys.check_aux_key(bad)


def test_stream_id_pair_orders_ids_as_redis_does() -> None:
    assert keys.stream_id_pair(b"12-3") == (12, 3) and keys.stream_id_pair("7") == (7, 0)
    assert keys.stream_id_pair(b"9-10") > keys.stream_id_pair("9-9") > keys.stream_id_pair("0-0")


def test_version_of_stream_id() -> None:
    assert keys.version_of_stream_id(b"12-3") == 12
    assert keys.version_of_stream_id("7-0") == 7

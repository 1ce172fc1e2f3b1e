"""Key schema: one hash tag per match, reserved namespaces."""

from __future__ import annotations

import pytest

from bummerl.store import keys


def test_match_keys_share_the_hash_tag() -> None:
    assert keys.state_key("m1") == "bm:{m1}:state"
    assert keys.events_key("m1") == "bm:{m1}:events"
    assert keys.match_keys("m1") == ("bm:{m1}:state", "bm:{m1}:events")


@pytest.mark.parametrize("bad", ["", "a{b", "a}b", "a b", "a\nb", "x" * 201])
def test_bad_match_ids_are_rejected(bad: str) -> None:
    with pytest.raises(ValueError):
        keys.state_key(bad)


def test_aux_keys_stay_out_of_the_match_namespace() -> None:
    assert keys.aux_key("ladder", "l1") == "bm:ladder:l1"
    with pytest.raises(ValueError):
        keys.aux_key("{m1}", "state")
    with pytest.raises(ValueError):
        keys.aux_key()
    assert keys.check_aux_key("bm:x") == "bm:x"
    for bad in ("bm:{m1}:state", "other:x", "bm:"):
        with pytest.raises(ValueError):
            keys.check_aux_key(bad)


def test_stream_id_pair_orders_ids_as_redis_does() -> None:
    assert keys.stream_id_pair(b"12-3") == (12, 3) and keys.stream_id_pair("7") == (7, 0)
    assert keys.stream_id_pair(b"9-10") > keys.stream_id_pair("9-9") > keys.stream_id_pair("0-0")


def test_version_of_stream_id() -> None:
    assert keys.version_of_stream_id(b"12-3") == 12
    assert keys.version_of_stream_id("7-0") == 7

"""The servicer encodes an information set or event the core shares between answers once
(``servicer._encoded``): by identity, so an equal but different dict is encoded on its own."""

from __future__ import annotations

from typing import Any

from bummerl.api import codec, servicer


def test_a_shared_dict_is_encoded_once_and_an_equal_new_one_again() -> None:
    calls: list[Any] = []

    def encode(d: Any) -> Any:
        calls.append(d)
        return codec.event_to_pb(d)

    e = {"version": 3, "deal_number": 0, "card_played": {"seat": 1, "card": "AH"}}
    first = servicer._encoded(e, encode)
    assert servicer._encoded(e, encode) is first and len(calls) == 1
    twin = dict(e)
    again = servicer._encoded(twin, encode)
    assert len(calls) == 2 and again is not first and again == first
    assert again.SerializeToString() == codec.event_to_pb(e).SerializeToString()


def test_the_memo_keeps_at_most_its_size_and_drops_the_oldest() -> None:
    old = {"version": 1, "deal_number": 0, "card_played": {"seat": 0, "card": "TC"}}
    servicer._encoded(old, codec.event_to_pb)
    keep = [{"version": 2 + i, "deal_number": 0, "card_played": {"seat": 0, "card": "TC"}}
            for i in range(servicer._ENCODED_MAX)]
    for d in keep:
        servicer._encoded(d, codec.event_to_pb)
    assert len(servicer._ENCODED) == servicer._ENCODED_MAX
    assert id(old) not in servicer._ENCODED or servicer._ENCODED[id(old)][0] is not old

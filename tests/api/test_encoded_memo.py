"""The servicer encodes an information set or event the core shares between the answers of one
version once (``servicer._encoded`` with that version's ``Update.memo``): by identity, so an equal
but different dict is encoded on its own, and never without a memo."""

from __future__ import annotations

from typing import Any

from bummerl.api import codec, servicer


def _counting() -> tuple[list[Any], Any]:
    calls: list[Any] = []

    def encode(d: Any) -> Any:
        calls.append(d)
        return codec.event_to_pb(d)

    return calls, encode


def test_a_shared_dict_is_encoded_once_per_memo_and_an_equal_new_one_again() -> None:
    calls, encode = _counting()
    memo: dict[int, Any] = {}
    e = {"version": 3, "deal_number": 0, "card_played": {"seat": 1, "card": "AH"}}
    first = servicer._encoded(e, encode, memo)
    assert servicer._encoded(e, encode, memo) is first and len(calls) == 1
    twin = dict(e)
    again = servicer._encoded(twin, encode, memo)
    assert len(calls) == 2 and again is not first and again == first
    assert again.SerializeToString() == codec.event_to_pb(e).SerializeToString()
    assert servicer._encoded(e, encode, {}) is not first and len(calls) == 3  # another version's memo


def test_without_a_memo_every_call_encodes_and_nothing_is_kept() -> None:
    calls, encode = _counting()
    e = {"version": 4, "deal_number": 0, "card_played": {"seat": 0, "card": "TC"}}
    assert servicer._encoded(e, encode, None) == servicer._encoded(e, encode, None)
    assert len(calls) == 2

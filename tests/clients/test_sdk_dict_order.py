"""The SDK's dicts (and so the JSON the stdio bridge hands a bot) keep the ``.proto``'s field order
at every level, also for fields at their default value.

A walkthrough's awk bot read ``"id"`` as the first key of each legal action, as
docs/ENGINE_PROTOCOL.md shows it; ``json_format.MessageToDict`` put the action with id 0
(``play AC``) last (``{"text": "play AC", ..., "id": 0}``), and ``bummerl bot check`` failed the bot
in 5 of 11 variants."""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format

from bummerl.bots.harness import served_json
from bummerl.rules import information_set, new_match
from bummerl.v1 import common_pb2, game_pb2
from bummerl_client.client import to_dict


def _assert_in_field_order(d: Any, descriptor: Any, where: str = "") -> int:
    """Every dict under ``d`` has its keys in ``descriptor``'s field order; returns dicts checked."""
    names = [f.name for f in descriptor.fields]
    assert list(d) == [n for n in names if n in d], f"{where or descriptor.name}: {list(d)}"
    checked = 1
    for f in descriptor.fields:
        m = f.message_type
        if f.name not in d or m is None or m.full_name.startswith("google.protobuf.") or m.GetOptions().map_entry:
            continue
        for i, x in enumerate(d[f.name] if isinstance(d[f.name], list) else [d[f.name]]):
            checked += _assert_in_field_order(x, m, f"{where}.{f.name}[{i}]")
    return checked


def test_an_action_with_id_0_starts_with_its_id_like_every_other() -> None:
    info = common_pb2.InformationSet(match_id="m", version=3, legal_actions=[
        common_pb2.LegalAction(id=0, text="play AC", kind="play", card="AC"),
        common_pb2.LegalAction(id=6, text="play AS", kind="play", card="AS")])
    d = to_dict(info)
    assert [list(a)[:2] for a in d["legal_actions"]] == [["id", "text"], ["id", "text"]]
    assert d["legal_actions"][0]["id"] == 0 and d["seat"] == 0  # defaults are still printed
    assert _assert_in_field_order(d, common_pb2.InformationSet.DESCRIPTOR) >= 3


def test_served_information_sets_and_updates_keep_field_order_in_every_variant() -> None:
    from bummerl.rules import list_variants

    for spec in list_variants():
        m = new_match(spec.id, seed=5)
        for _ in range(12):  # into the play, where hands, tricks and clocks-less views fill up
            if m.over:
                break
            info = served_json({**information_set(m, m.to_act), "match_id": "m", "version": 1})
            _assert_in_field_order(info, common_pb2.InformationSet.DESCRIPTOR, spec.id)
            m.apply(sorted(m.legal_actions())[0])  # the lowest id: action 0 is often legal
        update = game_pb2.MatchUpdate(version=2, information_set=json_format.ParseDict(info, common_pb2.InformationSet()))
        _assert_in_field_order(to_dict(update), game_pb2.MatchUpdate.DESCRIPTOR, spec.id)

